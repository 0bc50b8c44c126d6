/* SPDX-License-Identifier: MIT */
/* The routes of the events and the metrics (docs/api.md): the list of
 * stored events, paged by id; the same events as a stream
 * (?follow=1, sse.c); and /metrics in the Prometheus text format.
 *
 * Where a stream starts: after the Last-Event-ID header when present (an
 * EventSource sends it when it reconnects, so it wins over the URL's
 * after=), else after "after" (or "cursor", the list's name for it),
 * else from now on. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "http/http_int.h"
#include "http/sse.h"

#define METRICS_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* Whether ?follow= asks for a stream, into *out; a 400 in RESP when it
 * is neither yes nor no. */
static int read_follow(const http_req *req, http_resp *resp, bool *out)
{
    const char *v = sked__http_query(req, "follow");

    *out = false;
    if (!v || strcmp(v, "0") == 0 || strcmp(v, "false") == 0)
        return 0;
    if (strcmp(v, "1") == 0 || strcmp(v, "true") == 0 || v[0] == '\0') {
        *out = true;
        return 0;
    }
    return sked__http_error(resp, SKED_ESYNTAX, "follow",
                            "follow: must be 1 or 0, not \"%.40s\"", v);
}

/* The id to start after: Last-Event-ID (streams only), after=, cursor=;
 * -1 when none is given. */
static int read_after(const http_req *req, http_resp *resp, bool follow,
                      long *out)
{
    const char *lei = follow ? sked__http_header(req, "Last-Event-ID") : NULL;
    int rc;

    if (lei && lei[0] != '\0') {
        char *end = NULL;
        long v = strtol(lei, &end, 10);
        if (lei[0] < '0' || lei[0] > '9' || *end != '\0' || v == LONG_MAX)
            return sked__http_error(resp, SKED_ESYNTAX, "Last-Event-ID",
                                    "Last-Event-ID: must be an event id, "
                                    "not \"%.40s\"",
                                    lei);
        *out = v;
        return 0;
    }
    rc = sked__http_query_long(req, resp, "after", 0, LONG_MAX, -1, out);
    if (rc == 0 && *out < 0)
        rc = sked__http_query_long(req, resp, "cursor", 0, LONG_MAX, -1, out);
    return rc;
}

static int events_get(const http_req *req, http_resp *resp)
{
    sked_error err = {0};
    bool follow = false;
    long after = -1, limit = 100;
    char *json = NULL;
    int rc = read_follow(req, resp, &follow);

    if (rc == 0)
        rc = read_after(req, resp, follow, &after);
    if (rc == 0 && !follow)
        rc = sked__http_query_long(req, resp, "limit", 1, 1000, 100, &limit);
    if (rc != 0)
        return rc;
    if (follow)
        return sked__sse_open(req, resp, after >= 0, after);
    rc = sked_engine_event_list(req->engine, after < 0 ? 0 : after,
                                (size_t) limit, &json, &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    resp->status = 200;
    resp->body = json;
    resp->len = strlen(json);
    return 0;
}

static int metrics_get(const http_req *req, http_resp *resp)
{
    sked_error err = {0};
    char *text = NULL;
    int rc = sked_engine_metrics(req->engine, &text, &err);

    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    resp->status = 200;
    resp->body = text;
    resp->len = strlen(text);
    resp->content_type = METRICS_TYPE;
    return 0;
}

const http_route sked__api_event_routes[] = {
    {"GET", "/api/v1/events", events_get,
     "stored events after an id, oldest first; with follow=1, a stream of "
     "them (Server-Sent Events)",
     0},
    {"GET", "/metrics", metrics_get,
     "the metrics in the Prometheus text format", 0},
    {0},
};
