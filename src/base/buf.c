/* SPDX-License-Identifier: MIT */
/* A growable byte buffer (buf.h): capacity doubles, so N appends cost
 * O(total bytes). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

#include "base/alloc.h"

#define CAP_MIN 256

/* Make room for N more bytes and the NUL. */
static bool reserve(sked_buf *b, size_t n)
{
    size_t need = b->len + n + 1, cap;
    char *p;

    if (b->failed)
        return false;
    if (n > SIZE_MAX / 2 - b->len || (b->max && b->len + n > b->max)) {
        b->failed = true;
        return false;
    }
    if (need <= b->cap)
        return true;
    for (cap = b->cap ? b->cap : CAP_MIN; cap < need; cap *= 2)
        ;
    if (!(p = sked__realloc(b->p, cap))) {
        b->failed = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

bool sked__buf_add(sked_buf *b, const void *p, size_t n)
{
    if (!reserve(b, n))
        return false;
    if (n)
        memcpy(b->p + b->len, p, n);
    b->len += n;
    b->p[b->len] = '\0';
    return true;
}

char *sked__buf_room(sked_buf *b, size_t n)
{
    return reserve(b, n) ? b->p + b->len : NULL;
}

void sked__buf_grew(sked_buf *b, size_t n)
{
    b->len += n;
    b->p[b->len] = '\0';
}

size_t sked__i64_text(int64_t v, char *out)
{
    char digits[SKED_I64_TEXT];
    /* The magnitude as unsigned, which holds INT64_MIN's too. */
    uint64_t m = v < 0 ? 0 - (uint64_t) v : (uint64_t) v;
    size_t n = 0, len = 0;

    do {
        digits[n++] = (char) ('0' + m % 10);
        m /= 10;
    } while (m > 0);
    if (v < 0)
        out[len++] = '-';
    while (n > 0)
        out[len++] = digits[--n];
    return len;
}

bool sked__buf_puts(sked_buf *b, const char *s)
{
    return sked__buf_add(b, s, strlen(s));
}

bool sked__buf_printf(sked_buf *b, const char *fmt, ...)
{
    size_t room = b->p ? b->cap - b->len : 0;
    va_list ap;
    int n;

    if (b->failed)
        return false;
    /* Format into the room there is; only text that did not fit is
     * formatted again, after growing. */
    va_start(ap, fmt);
    n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t) n < room &&
        (!b->max || b->len + (size_t) n <= b->max)) {
        b->len += (size_t) n;
        return true;
    }
    if (b->p)
        b->p[b->len] = '\0'; /* what was written past len is not kept */
    if (n < 0) {
        b->failed = true;
        return false;
    }
    if (!reserve(b, (size_t) n))
        return false;
    va_start(ap, fmt);
    (void) vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t) n;
    return true;
}

char *sked__buf_take(sked_buf *b, size_t *len)
{
    char *p = b->failed ? NULL : b->p;

    if (b->failed)
        free(b->p);
    if (len)
        *len = p ? b->len : 0;
    *b = (sked_buf){.max = b->max};
    return p;
}

void sked__buf_clear(sked_buf *b)
{
    b->len = 0;
    b->failed = false;
    if (b->p)
        b->p[0] = '\0';
}

void sked__buf_reset(sked_buf *b)
{
    free(b->p);
    *b = (sked_buf){.max = b->max};
}

bool sked__buf_escape(sked_buf *b, const char *v)
{
    static const char hex[] = "0123456789ABCDEF";

    for (const unsigned char *p = (const unsigned char *) v; *p; p++) {
        char e[3] = {'%', hex[*p >> 4], hex[*p & 15]};
        bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                     (*p >= '0' && *p <= '9') || strchr("-._~", *p);

        if (!(plain ? sked__buf_add(b, p, 1) : sked__buf_add(b, e, 3)))
            return false;
    }
    return true;
}
