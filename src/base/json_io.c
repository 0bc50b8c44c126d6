/* SPDX-License-Identifier: MIT */
/* json_io.h.
 *
 * jansson's lexer turns some failed allocations into syntax errors (a
 * string it could not keep becomes an invalid token: "string or '}'
 * expected"). So a syntax error is checked again against the grammar of
 * RFC 8259 (and what jansson refuses besides: a NUL, a lone surrogate),
 * by a reader that allocates nothing: text that is valid there failed
 * for want of memory. */
#include "base/json_io.h"

#include <stdbool.h>
#include <string.h>

#include "base/buf.h"
#include "base/utf8.h"
#include "sked/error.h"

#define DEPTH_MAX 2048 /* jansson's JSON_PARSER_MAX_DEPTH */

typedef struct scan {
    const unsigned char *p, *end;
    int depth;
} scan;

static bool value(scan *s);

static void ws(scan *s)
{
    while (s->p < s->end &&
           (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
        s->p++;
}

static bool eat(scan *s, const char *w)
{
    size_t n = strlen(w);

    if ((size_t) (s->end - s->p) < n || memcmp(s->p, w, n) != 0)
        return false;
    s->p += n;
    return true;
}

/* The four hex digits of a \u escape, or -1. */
static long hex4(scan *s)
{
    long v = 0;

    for (int i = 0; i < 4; i++, s->p++) {
        if (s->p >= s->end)
            return -1;
        int c = *s->p, d = c >= '0' && c <= '9'   ? c - '0'
                           : c >= 'a' && c <= 'f' ? c - 'a' + 10
                           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                  : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

static bool escape(scan *s)
{
    int c = s->p < s->end ? *s->p++ : 0;

    if (c != 'u')
        return c && strchr("\"\\/bfnrt", c);
    long u = hex4(s);
    if (u >= 0xD800 && u <= 0xDBFF) {
        long lo = eat(s, "\\u") ? hex4(s) : -1;
        return lo >= 0xDC00 && lo <= 0xDFFF;
    }
    return u > 0 && (u < 0xDC00 || u > 0xDFFF);
}

static bool string(scan *s)
{
    s->p++; /* the quote */
    while (s->p < s->end) {
        unsigned char c = *s->p;
        size_t n;
        if (c == '"') {
            s->p++;
            return true;
        }
        if (c < 0x20)
            return false;
        if (c == '\\') {
            s->p++;
            if (!escape(s))
                return false;
            continue;
        }
        if ((n = sked__utf8_len((const char *) s->p,
                                (size_t) (s->end - s->p))) == 0)
            return false;
        s->p += n;
    }
    return false;
}

static bool digits(scan *s)
{
    const unsigned char *start = s->p;

    while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
        s->p++;
    return s->p > start;
}

static bool number(scan *s)
{
    if (*s->p == '-')
        s->p++;
    if (s->p < s->end && *s->p == '0')
        s->p++;
    else if (s->p >= s->end || *s->p < '1' || *s->p > '9' || !digits(s))
        return false;
    if (s->p < s->end && *s->p == '.' && (s->p++, !digits(s)))
        return false;
    if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
        s->p++;
        if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
            s->p++;
        return digits(s);
    }
    return true;
}

/* An object or an array, its opening bracket at s->p. */
static bool container(scan *s)
{
    bool object = *s->p == '{';
    char close = object ? '}' : ']';

    if (++s->depth > DEPTH_MAX)
        return false;
    s->p++;
    ws(s);
    if (s->p < s->end && *s->p == close) {
        s->p++;
        s->depth--;
        return true;
    }
    for (;;) {
        ws(s);
        if (object && !(s->p < s->end && *s->p == '"' && string(s) &&
                        (ws(s), eat(s, ":"))))
            return false;
        if (!value(s))
            return false;
        ws(s);
        if (eat(s, ","))
            continue;
        s->depth--;
        return eat(s, object ? "}" : "]");
    }
}

static bool value(scan *s)
{
    ws(s);
    if (s->p >= s->end)
        return false;
    switch (*s->p) {
    case '{':
    case '[':
        return container(s);
    case '"':
        return string(s);
    case 't':
        return eat(s, "true");
    case 'f':
        return eat(s, "false");
    case 'n':
        return eat(s, "null");
    default:
        return number(s);
    }
}

/* Tell whether the LEN bytes of TEXT are one JSON value jansson would
 * take with FLAGS (an object or an array, unless JSON_DECODE_ANY). */
static bool valid(const char *text, size_t len, size_t flags)
{
    scan s = {(const unsigned char *) text, (const unsigned char *) text + len,
              0};

    ws(&s);
    if (!(flags & JSON_DECODE_ANY) &&
        !(s.p < s.end && (*s.p == '{' || *s.p == '[')))
        return false;
    if (!value(&s))
        return false;
    ws(&s);
    return s.p == s.end;
}

int sked__json_load(const char *text, size_t len, size_t flags, json_t **out,
                    json_error_t *je)
{
    json_t *v;

    memset(je, 0, sizeof *je);
    v = json_loadb(text, len, flags, je);
    if (v) {
        *out = v;
        return 0;
    }
    if (json_error_code(je) == json_error_out_of_memory || je->text[0] == '\0')
        return SKED_ENOMEM;
    if (json_error_code(je) == json_error_invalid_syntax &&
        valid(text, len, flags))
        return SKED_ENOMEM;
    return SKED_ESYNTAX;
}

/* Append a piece of the text; a failure stays in the buffer, where the
 * caller sees it even when jansson ignores the -1. */
static int put(const char *s, size_t n, void *ctx)
{
    return sked__buf_add(ctx, s, n) ? 0 : -1;
}

char *sked__json_dumps(const json_t *j, size_t flags)
{
    sked_buf b = {0};

    if (!j)
        return NULL;
    if (json_dump_callback(j, put, &b, flags) != 0 || !sked__buf_add(&b, "", 0))
        b.failed = true;
    if (b.failed) {
        sked__buf_reset(&b);
        return NULL;
    }
    return sked__buf_take(&b, NULL);
}
