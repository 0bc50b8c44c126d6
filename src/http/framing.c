/* SPDX-License-Identifier: MIT */
/* The framing of a request's body (http_int.h), checked before anything
 * else is read: libmicrohttpd reads the first Content-Length and treats
 * any Transfer-Encoding but chunked as a body of unknown length, so what
 * RFC 9112 section 6 says a server must refuse is refused here, with 400
 * and the connection closed: two Content-Length headers that disagree, a
 * Transfer-Encoding that is not exactly chunked (chunked not the last
 * coding leaves the length unknown; another coding before it is one sked
 * does not decode), and both headers at once (the request smuggling of
 * proxies that read one and not the other). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <microhttpd.h>

#include "http/http_int.h"

/* The framing headers of a request, as the iterator found them. */
typedef struct framing_seen {
    const char *length; /* the first Content-Length */
    bool lengths_differ;
    const char *coding; /* the first Transfer-Encoding */
    unsigned codings;   /* how many Transfer-Encoding headers */
    const char *expect;
} framing_seen;

static enum MHD_Result see(void *cls, enum MHD_ValueKind kind, const char *key,
                           const char *value)
{
    framing_seen *s = cls;

    (void) kind;
    if (!value)
        value = "";
    if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0) {
        if (s->length && strcmp(s->length, value) != 0)
            s->lengths_differ = true;
        if (!s->length)
            s->length = value;
    } else if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0) {
        if (!s->codings++)
            s->coding = value;
    } else if (strcasecmp(key, MHD_HTTP_HEADER_EXPECT) == 0) {
        s->expect = value;
    }
    return MHD_YES;
}

/* The decision on what S found: NULL, or why the request is malformed. */
static const char *judge(const framing_seen *s)
{
    if (s->lengths_differ)
        return "two Content-Length headers with different values";
    if (s->codings && s->length)
        return "both Content-Length and Transfer-Encoding";
    if (s->codings > 1 || (s->codings && strcasecmp(s->coding, "chunked")))
        return "Transfer-Encoding: only chunked is understood";
    return NULL;
}

const char *sked__http_framing(struct MHD_Connection *conn, http_framing *f)
{
    framing_seen s = {0};
    const char *why;

    memset(f, 0, sizeof *f);
    (void) MHD_get_connection_values(conn, MHD_HEADER_KIND, see, &s);
    if ((why = judge(&s)))
        return why;
    /* libmicrohttpd answered a malformed length with 400 already. */
    f->length = s.length ? strtoull(s.length, NULL, 10) : 0;
    f->body = f->length > 0 || s.codings;
    f->expect_continue = s.expect && strcasecmp(s.expect, "100-continue") == 0;
    return NULL;
}
