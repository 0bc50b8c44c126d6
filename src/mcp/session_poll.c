/* SPDX-License-Identifier: MIT */
/* The thread of a session that reads the event log (session_int.h):
 * every o.poll it reads GET /api/v1/events after the last event seen,
 * through the session's API function like any tool, and for each new
 * event sends notifications/resources/updated for the subscribed URIs
 * it updates (resources.c says which), notifications/resources/
 * list_changed when it creates or deletes a resource, and
 * notifications/message once logging/setLevel asked for its level
 * (failures and missed occurrences warn; the rest is info).
 *
 * It starts at the newest event when the session starts: what happened
 * before is not news. Its wait is on a condition variable, so that a
 * close ends it at once. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "mcp/jsonrpc.h"
#include "mcp/mcp_int.h"
#include "mcp/session_int.h"

const char *const sked__mcp_log_levels[MCP_LEVELS] = {
    "debug", "info",     "notice", "warning",
    "error", "critical", "alert",  "emergency",
};

/* The event log is read in pages of EVENTS_PAGE, at most POLL_PAGES a
 * tick, so that a burst is caught up without one tick lasting long. */
#define EVENTS_PAGE 200
/* The API's largest page, for skipping the old events at the start. */
#define SKIP_PAGE  1000
#define POLL_PAGES 50
/* How much longer the poller waits when no one waits for news. */
#define IDLE_FACTOR 4

/* Send the notification METHOD with PARAMS (stolen; NULL: none). */
static void notify(sked_mcp *m, const char *method, json_t *params)
{
    size_t len;
    char *text = sked__rpc_notification(method, params, &len);

    if (text)
        m->o.notify(m->o.notify_ctx, text, len);
    free(text);
}

/* The level of the log message of EVENT: failures and misses warn. */
static int event_level(json_t *event)
{
    const char *type = json_string_value(json_object_get(event, "type"));

    if (type && (strstr(type, "failed") || strstr(type, "missed") ||
                 strstr(type, "dead")))
        return MCP_LEVEL_WARN;
    return MCP_LEVEL_INFO;
}

static void on_uri(void *ctx, const char *uri)
{
    sked_mcp *m = ctx;
    bool subscribed;

    pthread_mutex_lock(&m->mu);
    subscribed = json_object_get(m->subs, uri) != NULL;
    pthread_mutex_unlock(&m->mu);
    if (subscribed)
        notify(m, "notifications/resources/updated",
               json_pack("{s:s}", "uri", uri));
}

/* Send what the event EVENT means to the session's client. */
static void on_event(sked_mcp *m, json_t *event)
{
    bool list_changed = false;
    int level, min;

    sked__mcp_event_uris(event, on_uri, m, &list_changed);
    if (list_changed)
        notify(m, "notifications/resources/list_changed", NULL);
    pthread_mutex_lock(&m->mu);
    min = m->log_level;
    pthread_mutex_unlock(&m->mu);
    level = event_level(event);
    if (min != MCP_LEVEL_NONE && level >= min)
        notify(m, "notifications/message",
               json_pack("{s:s, s:s, s:O}", "level",
                         sked__mcp_log_levels[level], "logger", "sked", "data",
                         event));
}

/* Read one page of events after the cursor; with SEND, send each.
 * Returns how many came, or -1 when the API did not answer. */
static int poll_page(sked_mcp *m, int limit, bool send)
{
    mcp_ctx c = {.api = m->o.api, .api_ctx = m->o.api_ctx, .cancel = &m->stop};
    char target[96];
    json_t *page = NULL, *events, *ev;
    unsigned status = 0;
    sked_error err;
    size_t i, n;

    snprintf(target, sizeof target, "/api/v1/events?after=%" PRId64 "&limit=%d",
             m->cursor, limit);
    if (sked__mcp_api(&c, "GET", target, NULL, NULL, &status, &page, &err) !=
            0 ||
        status != 200) {
        json_decref(page);
        return -1;
    }
    events = json_object_get(page, "events");
    json_array_foreach(events, i, ev)
    {
        json_int_t id = json_integer_value(json_object_get(ev, "id"));

        if (id > m->cursor)
            m->cursor = id;
        if (send && !m->stop)
            on_event(m, ev);
    }
    n = json_array_size(events);
    json_decref(page);
    return (int) n;
}

/* Set the cursor to the newest event: the API's after=latest when it
 * knows it, else by reading every page once. */
static void poll_start(sked_mcp *m)
{
    mcp_ctx c = {.api = m->o.api, .api_ctx = m->o.api_ctx, .cancel = &m->stop};
    json_t *page = NULL, *next;
    unsigned status = 0;
    sked_error err;

    if (sked__mcp_api(&c, "GET", "/api/v1/events?after=latest&limit=1", NULL,
                      NULL, &status, &page, &err) == 0 &&
        status == 200 && json_is_object(page)) {
        next = json_object_get(page, "next_cursor");
        if (json_is_string(next))
            m->cursor = strtoll(json_string_value(next), NULL, 10);
        else if (json_is_integer(next))
            m->cursor = json_integer_value(next);
        json_decref(page);
        return;
    }
    json_decref(page);
    while (!m->stop && poll_page(m, SKIP_PAGE, false) == SKIP_PAGE)
        ;
}

/* Read what is new: page after page, up to POLL_PAGES. */
static void poll_events(sked_mcp *m)
{
    for (int i = 0; i < POLL_PAGES && !m->stop; i++)
        if (poll_page(m, EVENTS_PAGE, true) < EVENTS_PAGE)
            return;
}

/* How long to wait before the next read, under m->mu: the period of the
 * options while the client waits for news (a subscription, a log level),
 * IDLE_FACTOR times longer when only a change of the resource list could
 * be news, so that a server with many quiet sessions (256 over HTTP)
 * reads the event log a few times a second, not hundreds. */
static sked_dur poll_period(const sked_mcp *m)
{
    bool waiting = m->log_level != MCP_LEVEL_NONE ||
                   (m->subs && json_object_size(m->subs) > 0);

    return waiting ? m->o.poll : m->o.poll * IDLE_FACTOR;
}

static void *poll_main(void *arg)
{
    sked_mcp *m = arg;
    struct timespec at;

    pthread_mutex_lock(&m->mu);
    while (!m->closing) {
        sked_dur period = poll_period(m);

        sked__clock_deadline(period, &at);
        /* A wait that returns early (a close, a spurious wake) waits
         * again for the rest of the period, or for a shorter one from
         * now when the client began to wait for news (a subscription or a
         * log level: session.c wakes the poller). */
        while (!m->closing &&
               pthread_cond_timedwait(&m->poll_cv, &m->mu, &at) == 0)
            if (poll_period(m) < period) {
                period = poll_period(m);
                sked__clock_deadline(period, &at);
            }
        if (m->closing)
            break;
        pthread_mutex_unlock(&m->mu);
        poll_events(m);
        pthread_mutex_lock(&m->mu);
    }
    pthread_mutex_unlock(&m->mu);
    return NULL;
}

void sked__mcp_poll_begin(sked_mcp *m)
{
    if (!m->o.notify)
        return;
    /* Here, before initialize is answered, so that whatever happens
     * after the answer is news to the client. */
    poll_start(m);
    pthread_mutex_lock(&m->mu);
    /* Without a thread the session still serves; it sends nothing. */
    if (!m->polling && !m->closing &&
        pthread_create(&m->poller, NULL, poll_main, m) == 0)
        m->polling = true;
    pthread_mutex_unlock(&m->mu);
}
