/* SPDX-License-Identifier: MIT */
/* UTF-8 sanitising for captured output (utf8.h). */
#include "base/utf8.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "sked/error.h"

/* ---- UTF-8 ------------------------------------------------------------ */

static const char REPLACEMENT[] = "\xEF\xBF\xBD"; /* U+FFFD */

/* Match the bytes at P (N > 0 of them) against Unicode's well-formed UTF-8
 * sequences (Table 3-7). Set *WANT to the length the first byte announces
 * and return how many bytes fit: *WANT for a whole sequence, fewer when N
 * ends first, 0 when P does not start one (a NUL, a stray continuation
 * byte, C0, C1, F5..FF, or a second byte out of range). */
static size_t utf8_match(const unsigned char *p, size_t n, size_t *want)
{
    unsigned char b = p[0], lo = 0x80, hi = 0xBF;
    size_t len, i;

    *want = 1;
    if (b >= 0x01 && b <= 0x7F)
        return 1;
    if (b >= 0xC2 && b <= 0xDF)
        len = 2;
    else if (b >= 0xE0 && b <= 0xEF)
        len = 3;
    else if (b >= 0xF0 && b <= 0xF4)
        len = 4;
    else
        return 0;
    /* The second byte's range is what rules out overlong forms (E0, F0),
     * surrogates (ED) and code points past U+10FFFF (F4). */
    if (b == 0xE0)
        lo = 0xA0;
    else if (b == 0xED)
        hi = 0x9F;
    else if (b == 0xF0)
        lo = 0x90;
    else if (b == 0xF4)
        hi = 0x8F;
    *want = len;
    for (i = 1; i < len && i < n; i++) {
        if (p[i] < lo || p[i] > hi)
            return 0;
        lo = 0x80;
        hi = 0xBF;
    }
    return i;
}

/* Write S made valid to OUT when OUT is not NULL; return its length. */
static size_t utf8_copy(const unsigned char *s, size_t len, char *out)
{
    size_t i = 0, o = 0, want, k;

    while (i < len) {
        k = utf8_match(s + i, len - i, &want);
        if (k == 0 || k < want)
            k = 0;
        if (out && k > 0)
            memcpy(out + o, s + i, k);
        else if (out)
            memcpy(out + o, REPLACEMENT, 3);
        o += k > 0 ? k : 3;
        i += k > 0 ? k : 1;
    }
    return o;
}

int sked__utf8_sanitize(const char *s, size_t len, char **out, size_t *out_len)
{
    const unsigned char *u = (const unsigned char *) s;
    size_t n;
    char *buf;

    /* Each byte grows to 3 at most. */
    if (len > (SIZE_MAX - 1) / 3)
        return SKED_ENOMEM;
    n = utf8_copy(u, len, NULL);
    buf = sked__malloc(n + 1);
    if (!buf)
        return SKED_ENOMEM;
    (void) utf8_copy(u, len, buf);
    buf[n] = '\0';
    *out = buf;
    *out_len = n;
    return 0;
}

size_t sked__utf8_len(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *) s;
    size_t want, k;

    /* A NUL is well-formed; only storage refuses it (sked__utf8_sanitize). */
    if (u[0] == 0)
        return 1;
    k = utf8_match(u, len, &want);
    return k == want ? k : 0;
}

/* Return LEN less a character that the capture limit cut in two at the end
 * of S, so a truncated capture ends on a whole character, not on U+FFFD. */
size_t sked__utf8_trim_cut(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *) s;
    size_t want, k, i;

    /* A sequence is at most 4 bytes: a cut one starts in the last 3. */
    for (size_t back = 1; back <= 3 && back <= len; back++) {
        i = len - back;
        if ((u[i] & 0xC0) == 0x80)
            continue;
        k = utf8_match(u + i, back, &want);
        return k == back && k < want ? i : len;
    }
    return len;
}

/* Tell whether the LEN-byte character at S is a control character (C0,
 * DEL or C1), which a message must not carry raw. */
static bool is_control(const unsigned char *s, size_t len)
{
    return (len == 1 && (s[0] < 0x20 || s[0] == 0x7f)) ||
           (len == 2 && s[0] == 0xC2 && s[1] < 0xA0);
}

const char *sked__utf8_quote_char(const char *s, char *buf, size_t size)
{
    const unsigned char *u = (const unsigned char *) s;
    size_t n = u[0] ? strnlen(s, 4) : 0;
    size_t k = n ? sked__utf8_len(s, n) : 0;

    if (k > 0 && !is_control(u, k) && size >= k + 3) {
        buf[0] = '\'';
        memcpy(buf + 1, s, k);
        buf[k + 1] = '\'';
        buf[k + 2] = '\0';
    } else if (size > 0) {
        (void) snprintf(buf, size, "byte 0x%02x", (unsigned) u[0]);
    }
    return buf;
}

void sked__utf8_scrub(char *s)
{
    unsigned char *u = (unsigned char *) s;
    size_t len = strlen(s), i = 0, want, k;

    while (i < len) {
        k = utf8_match(u + i, len - i, &want);
        if (k == want) {
            i += k;
        } else if (k > 0 && i + k == len) {
            u[i] = '\0'; /* a character cut by the end of the buffer */
            return;
        } else {
            u[i++] = '?';
        }
    }
}
