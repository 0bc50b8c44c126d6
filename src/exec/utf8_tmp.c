/* SPDX-License-Identifier: MIT */
/* Temporary: sked__utf8_sanitize (proc.h) until proc.c, which owns it,
 * is merged; this file goes away then. Strict UTF-8 (RFC 3629): no
 * overlong forms, no surrogates, nothing above U+10FFFF. Each byte that
 * does not start a valid sequence, and each NUL, becomes U+FFFD. */
#include "exec/proc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */

/* Return the length of the valid, non-NUL sequence that starts at S[I],
 * or 0 when S[I] does not start one. */
static size_t seq_len(const unsigned char *s, size_t len, size_t i)
{
    unsigned char c = s[i];
    unsigned char lo = 0x80, hi = 0xBF;
    size_t n;

    if (c >= 0x01 && c <= 0x7F)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4;
    else
        return 0;
    /* The second byte's range rules out overlongs, surrogates and code
     * points past U+10FFFF. */
    if (c == 0xE0)
        lo = 0xA0;
    else if (c == 0xED)
        hi = 0x9F;
    else if (c == 0xF0)
        lo = 0x90;
    else if (c == 0xF4)
        hi = 0x8F;
    if (len - i < n || s[i + 1] < lo || s[i + 1] > hi)
        return 0;
    for (size_t k = 2; k < n; k++)
        if (s[i + k] < 0x80 || s[i + k] > 0xBF)
            return 0;
    return n;
}

int sked__utf8_sanitize(const char *s, size_t len, char **out, size_t *out_len)
{
    const unsigned char *u = (const unsigned char *) s;
    size_t need = 0, n, o = 0;
    char *buf;

    /* Two passes: size first, so the copy is allocated once and exactly. */
    for (size_t i = 0; i < len; i += n ? n : 1) {
        n = seq_len(u, len, i);
        if (need > SIZE_MAX - 4)
            return SKED_ENOMEM;
        need += n ? n : sizeof replacement - 1;
    }
    buf = malloc(need + 1);
    if (!buf)
        return SKED_ENOMEM;
    for (size_t i = 0; i < len; i += n ? n : 1) {
        n = seq_len(u, len, i);
        if (n)
            memcpy(buf + o, s + i, n);
        else
            memcpy(buf + o, replacement, sizeof replacement - 1);
        o += n ? n : sizeof replacement - 1;
    }
    buf[o] = '\0';
    *out = buf;
    *out_len = o;
    return 0;
}
