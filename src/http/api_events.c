/* SPDX-License-Identifier: MIT */
/* The routes of the events and the metrics (docs/api.md): the list of
 * stored events, paged by id; the same events as a stream
 * (?follow=1, sse.c); and /metrics in the Prometheus text format.
 *
 * Where a stream starts: after the Last-Event-ID header when present (an
 * EventSource sends it when it reconnects, so it wins over the URL's
 * after=), else after "after" (or "cursor", the list's name for it),
 * else from now on. "after=latest" names the newest event stored: a page
 * after it is empty, its cursor that event's id (null when none is
 * stored), so that a reader can start from now and page on from there;
 * a stream after it is a stream from now on.
 *
 * type=T1,T2 and subject=S keep the events of those types and of that
 * subject, in a page (filtered by the store) and in a stream alike. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/request.h"
#include "http/http_int.h"
#include "http/sse.h"

#define METRICS_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* The id a stream starts after: Last-Event-ID when it is sent, else
 * Q's. */
static int stream_after(const http_req *req, http_resp *resp,
                        const sked__event_query *q, int64_t *out)
{
    const char *lei = sked__http_header(req, "Last-Event-ID");
    char *end = NULL;
    long v;

    *out = q->after;
    if (!lei || lei[0] == '\0')
        return 0;
    v = strtol(lei, &end, 10);
    if (lei[0] < '0' || lei[0] > '9' || *end != '\0' || v == LONG_MAX)
        return sked__http_error(resp, SKED_ESYNTAX, "Last-Event-ID",
                                "Last-Event-ID: must be an event id, "
                                "not \"%.40s\"",
                                lei);
    *out = v;
    return 0;
}

/* Resolve Q's "latest" to the id of the newest event, into q->after;
 * *none: no event is stored. */
static int after_latest(const http_req *req, http_resp *resp,
                        sked__event_query *q, bool *none)
{
    sked_error err = {0};
    int64_t id = 0;
    int rc;

    *none = false;
    if (q->after != SKED__EVENTS_LATEST)
        return 0;
    if ((rc = sked_engine_event_last(req->engine, &id, &err)) != 0)
        return sked__http_fail(resp, rc, &err);
    q->after = id;
    *none = id == 0;
    return 0;
}

/* The page after "latest": none of the events, the cursor the newest. */
static int latest_page(http_resp *resp, int64_t id, bool none)
{
    char text[32];

    (void) snprintf(text, sizeof text, "%lld", (long long) id);
    return sked__http_json(
        resp, 200,
        json_pack("{s:[], s:s?}", "events", "next_cursor", none ? NULL : text));
}

/* The page Q and its filter F ask for. */
static int events_page(const http_req *req, http_resp *resp,
                       const sked__event_query *q, const sked_event_filter *f)
{
    sked_event_query eq = {q->after < 0 ? 0 : q->after, q->limit, *f};
    sked_error err = {0};
    char *json = NULL;
    int rc = sked_engine_event_query(req->engine, &eq, &json, &err);

    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    resp->status = 200;
    resp->body = json;
    resp->len = strlen(json);
    return 0;
}

/* The query read and its filter checked before anything else: a refused
 * request reads nothing. */
static int events_get(const http_req *req, http_resp *resp)
{
    bool latest, none;
    sked__event_query q;
    sked_event_filter f;
    sked_error err = {0};
    char *own = NULL;
    int64_t after;
    int rc;

    rc = sked__query_events_read(sked__http_query_get, (void *) req, &q, &err);
    if (rc == 0)
        rc = sked__query_event_filter(&q, &f, &own, &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    latest = q.after == SKED__EVENTS_LATEST;
    rc = after_latest(req, resp, &q, &none);
    if (rc == 0 && latest && !q.follow)
        rc = latest_page(resp, q.after, none);
    else if (rc == 0 && q.follow) {
        if ((rc = stream_after(req, resp, &q, &after)) == 0)
            rc = sked__sse_open(req, resp, after >= 0, after, &f);
    } else if (rc == 0)
        rc = events_page(req, resp, &q, &f);
    free(own);
    return rc;
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
     0, SKED_SCOPE_READ},
    {"GET", "/metrics", metrics_get,
     "the metrics in the Prometheus text format", 0, SKED_SCOPE_READ},
    {0},
};
