/* SPDX-License-Identifier: MIT */
/* Flat JSON objects written straight into a buffer (json_obj.h). */
#include "base/json_obj.h"

#include <stdlib.h>
#include <string.h>

#include "base/dtoa.h"
#include "base/utf8.h"

/* Whether byte C must be escaped in a JSON string. */
static inline bool needs_escape(unsigned char c)
{
    return c < 0x20 || c == '"' || c == '\\';
}

/* Append the escape of byte C. */
static void put_escape(sked_buf *b, unsigned char c)
{
    static const char hex[] = "0123456789ABCDEF";
    char esc[6] = {'\\', (char) c};
    size_t elen = 2;

    switch (c) {
    case '"':
    case '\\':
        break;
    case '\b':
        esc[1] = 'b';
        break;
    case '\f':
        esc[1] = 'f';
        break;
    case '\n':
        esc[1] = 'n';
        break;
    case '\r':
        esc[1] = 'r';
        break;
    case '\t':
        esc[1] = 't';
        break;
    default:
        memcpy(esc, "\\u00", 4);
        esc[4] = hex[c >> 4];
        esc[5] = hex[c & 15];
        elen = 6;
    }
    (void) sked__buf_add(b, esc, elen);
}

void sked__json_put_string(sked_buf *b, const char *s, size_t n)
{
    size_t i = 0, run = 0;

    (void) sked__buf_add(b, "\"", 1);
    for (;;) {
        /* The bytes that go as they are, copied in one piece. */
        while (i < n && !needs_escape((unsigned char) s[i]))
            i++;
        (void) sked__buf_add(b, s + run, i - run);
        if (i == n)
            break;
        put_escape(b, (unsigned char) s[i]);
        run = ++i;
    }
    (void) sked__buf_add(b, "\"", 1);
}

/* Start the member KEY: the brace or the comma, the key, the colon. */
static void member(sked_jobj *o, const char *key)
{
    (void) sked__buf_add(&o->b, o->b.len ? "," : "{", 1);
    sked__json_put_string(&o->b, key, strlen(key));
    (void) sked__buf_add(&o->b, ":", 1);
}

/* The most bytes of a member put together on the stack. */
#define MEMBER_SHORT 192

/* Append the member KEY with the value text V (N bytes, a string when
 * QUOTE) in one piece, as most are: short, with nothing to escape. False
 * when it is not such a member (nothing appended). */
static bool member_short(sked_jobj *o, const char *key, const char *v, size_t n,
                         bool quote)
{
    size_t klen = strlen(key);
    char tmp[MEMBER_SHORT], *p = tmp;

    if (klen + n + 7 > sizeof tmp)
        return false;
    for (size_t i = 0; i < klen; i++)
        if (needs_escape((unsigned char) key[i]))
            return false;
    for (size_t i = 0; quote && i < n; i++)
        if (needs_escape((unsigned char) v[i]))
            return false;
    *p++ = o->b.len ? ',' : '{';
    *p++ = '"';
    memcpy(p, key, klen);
    p += klen;
    *p++ = '"';
    *p++ = ':';
    if (quote)
        *p++ = '"';
    memcpy(p, v, n);
    p += n;
    if (quote)
        *p++ = '"';
    (void) sked__buf_add(&o->b, tmp, (size_t) (p - tmp));
    return true;
}

/* Append the member KEY with the value text V (N bytes, not a string). */
static void member_raw(sked_jobj *o, const char *key, const char *v, size_t n)
{
    if (member_short(o, key, v, n, false))
        return;
    member(o, key);
    (void) sked__buf_add(&o->b, v, n);
}

/* Whether the N bytes at S are valid UTF-8 without NUL. ASCII, what
 * names and ids are, is passed over a byte at a time. */
static bool utf8_valid(const char *s, size_t n)
{
    for (size_t i = 0, k; i < n; i += k) {
        unsigned char c = (unsigned char) s[i];
        if (c > 0 && c < 0x80) {
            k = 1;
            continue;
        }
        if (c == 0 || (k = sked__utf8_len(s + i, n - i)) == 0)
            return false;
    }
    return true;
}

void sked__jobj_str(sked_jobj *o, const char *key, const char *v)
{
    size_t n = v ? strlen(v) : 0;
    char *clean = NULL;

    if (!v) {
        member_raw(o, key, "null", 4);
        return;
    }
    if (!utf8_valid(v, n)) {
        if (sked__utf8_sanitize(v, n, &clean, &n) != 0) {
            o->b.failed = true;
            return;
        }
        v = clean;
    }
    if (!member_short(o, key, v, n, true)) {
        member(o, key);
        sked__json_put_string(&o->b, v, n);
    }
    free(clean);
}

void sked__jobj_int(sked_jobj *o, const char *key, int64_t v)
{
    char num[SKED_I64_TEXT];

    member_raw(o, key, num, sked__i64_text(v, num));
}

void sked__jobj_secs(sked_jobj *o, const char *key, int64_t us)
{
    char num[SKED_DTOA_MAX], *p = num; /* more than a sign, 19 digits, 7 */
    /* The magnitude as unsigned, which holds INT64_MIN's too. */
    uint64_t m = us < 0 ? 0 - (uint64_t) us : (uint64_t) us;
    uint64_t frac = m % 1000000;
    int places = 6;

    if (us < 0)
        *p++ = '-';
    p += sked__i64_text((int64_t) (m / 1000000), p);
    *p++ = '.';
    while (places > 1 && frac % 10 == 0) {
        frac /= 10;
        places--;
    }
    for (int k = places - 1; k >= 0; k--) {
        p[k] = (char) ('0' + frac % 10);
        frac /= 10;
    }
    p += places;
    *p = '\0';
    /* Below 10^15 microseconds the exact decimal has at most 15
     * significant digits, so it is the shortest text of its double
     * (dtoa.c); above, fewer digits may name the same double. */
    if (m >= UINT64_C(1000000000000000)) {
        member_raw(o, key, num, sked__dtoa(strtod(num, NULL), num));
        return;
    }
    member_raw(o, key, num, (size_t) (p - num));
}

void sked__jobj_bool(sked_jobj *o, const char *key, bool v)
{
    member_raw(o, key, v ? "true" : "false", v ? 4 : 5);
}

char *sked__jobj_take(sked_jobj *o)
{
    if (!o->b.len)
        (void) sked__buf_add(&o->b, "{", 1);
    (void) sked__buf_add(&o->b, "}", 1);
    return sked__buf_take(&o->b, NULL);
}
