/* SPDX-License-Identifier: MIT */
/* That no header of a request holds a NUL byte (http_int.h), checked
 * before anything reads a header: RFC 9110 section 5.5 never allows one
 * in a field, and libmicrohttpd hands names and values out as C strings,
 * so "X-Key: a\0b" would read as "a", without a word.
 *
 * libmicrohttpd refuses a NUL in a name itself (it no longer finds the
 * colon). For values, MHD_get_connection_values_n gives each one's size,
 * which a library that keeps NUL bytes in a value makes differ from its
 * string's length; but 0.9.x (Debian's 0.9.75) measures that size with
 * strlen too. So with 0.9.x the header lines are also looked at where
 * that version reads them, in place: one block from the request line to
 * the empty line (MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE bytes from the
 * method, the block libmicrohttpd itself measures so), each line's CR
 * and LF overwritten with NUL bytes, and nothing else changed after the
 * colon (0.9.x trims no space at a value's end). Between the end of a
 * value's string and the next name there is then only its line's end,
 * one or two NUL bytes; after the last value, its line's end and the
 * empty line, two to four. Anything more is what a NUL cut off. One case
 * cannot be told: NUL bytes that end a value on a line ended by a bare
 * LF, one (two on the last line) at the most, look like the CRs of CRLF
 * line ends; nothing after them is lost.
 *
 * A name outside the block is one libmicrohttpd moved to join a folded
 * line (obs-fold): 0.9.x misreads those (the continuation is appended to
 * the name), and RFC 9112 section 5.2 lets a server refuse them, as this
 * does. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <microhttpd.h>

#include "base/utf8.h"
#include "http/http_int.h"

/* A header as the iterator saw it. */
typedef struct header {
    const char *key, *value;
    size_t key_len, value_len; /* their strings' lengths */
} header;

/* What the iterator found. */
typedef struct seen {
    const char *start, *end; /* the header block; NULL: not looked at */
    header prev;             /* the header before; key NULL: none yet */
    header bad;              /* the first header refused; key NULL: none */
    bool folded;             /* bad was joined from folded lines */
} seen;

/* True when the LEN bytes at P are NUL bytes only, MIN to MAX of them:
 * a line's end as libmicrohttpd 0.9.x leaves it. */
static bool line_end(const char *p, size_t len, size_t min, size_t max)
{
    if (len < min || len > max)
        return false;
    for (size_t i = 0; i < len; i++)
        if (p[i] != '\0')
            return false;
    return true;
}

static void refuse(seen *s, const header *h, bool folded)
{
    if (s->bad.key)
        return;
    s->bad = *h;
    s->folded = folded;
}

/* True when P lies in the block of S (compared as addresses: a moved
 * name is in memory of libmicrohttpd's other than the block). */
static bool inside(const seen *s, const char *p)
{
    uintptr_t a = (uintptr_t) p;

    return a >= (uintptr_t) s->start && a < (uintptr_t) s->end;
}

/* Check that the header before, of the block, ends where NEXT (a name in
 * the block, or the block's end) starts, after MIN to MAX NUL bytes. */
static void check_end(seen *s, const char *next, size_t min, size_t max)
{
    const header *h = &s->prev;
    uintptr_t end;

    /* Before the first header, prev is empty: its value is NULL. */
    if (!s->start || !h->key || !inside(s, h->key) || !inside(s, h->value))
        return;
    end = (uintptr_t) (h->value + h->value_len);
    if ((uintptr_t) next < end ||
        !line_end(h->value + h->value_len, (uintptr_t) next - end, min, max))
        refuse(s, h, false);
}

static enum MHD_Result see(void *cls, enum MHD_ValueKind kind, const char *key,
                           size_t key_size, const char *value,
                           size_t value_size)
{
    seen *s = cls;
    header h = {key, value ? value : "", strlen(key),
                value ? strlen(value) : 0};

    (void) kind;
    if (h.key_len != key_size || h.value_len != value_size)
        refuse(s, &h, false);
    if (s->start && !inside(s, key))
        refuse(s, &h, true);
    else
        check_end(s, key, 1, 2);
    s->prev = h;
    return MHD_YES;
}

/* Write into BUF why S's refused header is, naming it (as valid UTF-8,
 * whatever its bytes) there and in FIELD. */
static const char *say(const seen *s, char *field, size_t field_size, char *buf,
                       size_t size)
{
    (void) snprintf(field, field_size, "%.*s", (int) s->bad.key_len,
                    s->bad.key);
    sked__utf8_scrub(field);
    if (s->folded)
        (void) snprintf(buf, size,
                        "header \"%s\" is folded onto a second line "
                        "(obs-fold, RFC 9112 section 5.2)",
                        field);
    else
        (void) snprintf(buf, size,
                        "header \"%s\" holds a NUL byte (at byte %zu of its "
                        "value)",
                        field, s->bad.value_len);
    return buf;
}

const char *sked__http_headers_whole(struct MHD_Connection *conn,
                                     const char *method, char *field,
                                     size_t field_size, char *buf, size_t size)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    seen s = {0};

    /* The in-place layout is 0.9.x's alone. */
    if (info && method && strncmp(MHD_get_version(), "0.", 2) == 0) {
        s.start = method;
        s.end = method + info->header_size;
    }
    (void) MHD_get_connection_values_n(conn, MHD_HEADER_KIND, see, &s);
    check_end(&s, s.end, 2, 4);
    field[0] = '\0';
    return s.bad.key ? say(&s, field, field_size, buf, size) : NULL;
}
