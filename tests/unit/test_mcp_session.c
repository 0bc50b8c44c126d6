/* SPDX-License-Identifier: MIT */
/* The MCP session's threads (src/mcp/session.c, session_poll.c), on a
 * fake API that answers from memory and can hold a call until it is
 * cancelled: notifications/cancelled drops the answer of the call in
 * flight with its id; close cancels the calls in flight and returns
 * promptly; many threads on one session each get their own answers;
 * the poller sends, for the events after the session started only, the
 * updates of subscribed resources, list changes, and the log messages
 * at or above the level asked, whether or not the API knows
 * after=latest; and out of memory at any allocation, a session answers
 * or says SKED_ENOMEM, and leaks nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "base/json_text.h"
#include "mcp/mcp.h"
#include "mcp/mcp_int.h"
#include "test_alloc.h"

/* ---- the fake API -------------------------------------------------------- */

typedef struct fake {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    json_t *events; /* the event log: array of event objects */
    bool latest;    /* the API knows after=latest */
    bool hold;      /* the schedules' list waits for its cancel */
    int held;       /* calls holding now */
    int reads;      /* reads of the event log */
    json_t *notes;  /* notifications received */
} fake;

static void fake_init(fake *f, bool latest)
{
    memset(f, 0, sizeof *f);
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cv, NULL);
    f->events = json_array();
    f->notes = json_array();
    f->latest = latest;
}

static void fake_done(fake *f)
{
    json_decref(f->events);
    json_decref(f->notes);
    pthread_cond_destroy(&f->cv);
    pthread_mutex_destroy(&f->mu);
}

static void fake_event(fake *f, int id, const char *type, const char *subject)
{
    pthread_mutex_lock(&f->mu);
    json_array_append_new(f->events,
                          json_pack("{s:i, s:s, s:s, s:{}, s:s}", "id", id,
                                    "type", type, "subject", subject, "payload",
                                    "at", "2026-01-01T00:00:00Z"));
    pthread_mutex_unlock(&f->mu);
}

static void answer(sked_mcp_reply *reply, unsigned status, json_t *body)
{
    reply->status = status;
    reply->body = sked__json_text(body, &reply->len);
    json_decref(body);
}

/* GET /api/v1/events?after=A&limit=N, or after=latest when it knows. */
static void events(fake *f, const char *query, sked_mcp_reply *reply)
{
    const char *after = strstr(query, "after=");
    json_t *page = json_array(), *ev;
    size_t i, n = json_array_size(f->events);
    long a;

    if (after && strncmp(after + 6, "latest", 6) == 0) {
        json_decref(page);
        if (!f->latest) {
            answer(reply, 422,
                   json_pack("{s:{s:s, s:s}}", "error", "code",
                             "invalid_argument", "message", "after: bad"));
            return;
        }
        ev = json_array_get(f->events, n - 1);
        answer(
            reply, 200,
            json_pack("{s:[], s:o}", "events", "next_cursor",
                      n ? json_sprintf("%lld", (long long) json_integer_value(
                                                   json_object_get(ev, "id")))
                        : json_null()));
        return;
    }
    a = after ? strtol(after + 6, NULL, 10) : 0;
    json_array_foreach(f->events, i, ev)
    {
        if (json_integer_value(json_object_get(ev, "id")) > a)
            json_array_append(page, ev);
    }
    answer(reply, 200, json_pack("{s:o, s:n}", "events", page, "next_cursor"));
}

/* Hold until *cancel is set, as a long call that stops when it can. */
static void hold(fake *f, const atomic_int *cancel)
{
    const struct timespec ms = {0, 1000000};

    f->held++;
    pthread_cond_broadcast(&f->cv);
    while (!cancel || !atomic_load(cancel)) {
        pthread_mutex_unlock(&f->mu);
        nanosleep(&ms, NULL);
        pthread_mutex_lock(&f->mu);
    }
    f->held--;
}

static int fake_api(void *ctx, const sked_mcp_call *call, sked_mcp_reply *reply,
                    sked_error *err)
{
    fake *f = ctx;
    const char *t = call->target;

    (void) err;
    memset(reply, 0, sizeof *reply);
    pthread_mutex_lock(&f->mu);
    if (strncmp(t, "/api/v1/events", 14) == 0) {
        f->reads++;
        events(f, t, reply);
    } else if (strncmp(t, "/api/v1/schedules/", 18) == 0) {
        answer(reply, 200, json_pack("{s:s}", "name", t + 18));
    } else if (strncmp(t, "/api/v1/schedules", 17) == 0) {
        if (f->hold)
            hold(f, call->cancel);
        answer(reply, 200,
               json_pack("{s:[], s:n}", "schedules", "next_cursor"));
    } else {
        answer(reply, 404,
               json_pack("{s:{s:s, s:s}}", "error", "code", "not_found",
                         "message", "not found"));
    }
    pthread_mutex_unlock(&f->mu);
    return 0;
}

static void fake_notify(void *ctx, const char *json, size_t len)
{
    fake *f = ctx;
    json_t *j = json_loadb(json, len, 0, NULL);

    assert_non_null(j);
    pthread_mutex_lock(&f->mu);
    json_array_append_new(f->notes, j);
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
}

/* ---- helpers ------------------------------------------------------------- */

static sked_mcp *open_session(fake *f, sked_dur poll)
{
    sked_mcp_options o = {.api = fake_api,
                          .api_ctx = f,
                          .notify = fake_notify,
                          .notify_ctx = f,
                          .poll = poll};
    sked_mcp *m = NULL;
    sked_error err;

    assert_int_equal(sked__mcp_open(&o, &m, &err), 0);
    return m;
}

/* Handle TEXT; return the answer parsed (NULL: none). */
static json_t *handle(sked_mcp *m, const char *text)
{
    char *reply = NULL;
    size_t len = 0;
    json_t *j = NULL;

    assert_int_equal(sked__mcp_handle(m, text, strlen(text), &reply, &len), 0);
    if (reply)
        assert_non_null(j = json_loadb(reply, len, 0, NULL));
    free(reply);
    return j;
}

static void initialize(sked_mcp *m)
{
    json_t *a = handle(m, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":"
                          "\"initialize\",\"params\":{\"protocolVersion\":"
                          "\"2025-11-25\"}}");

    assert_non_null(json_object_get(a, "result"));
    json_decref(a);
    assert_string_equal(sked__mcp_version(m), "2025-11-25");
}

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double) t.tv_sec + (double) t.tv_nsec / 1e9;
}

typedef struct bg {
    pthread_t t;
    sked_mcp *m;
    const char *text;
    json_t *answer;
} bg;

static void *bg_main(void *arg)
{
    bg *b = arg;

    b->answer = handle(b->m, b->text);
    return NULL;
}

static const char list_call[] =
    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":"
    "{\"name\":\"list_schedules\",\"arguments\":{}}}";

/* Start LIST_CALL on another thread and wait until the API holds it. */
static void start_held(fake *f, bg *b, sked_mcp *m)
{
    *b = (bg){.m = m, .text = list_call};
    f->hold = true;
    assert_int_equal(pthread_create(&b->t, NULL, bg_main, b), 0);
    pthread_mutex_lock(&f->mu);
    while (f->held == 0)
        pthread_cond_wait(&f->cv, &f->mu);
    pthread_mutex_unlock(&f->mu);
}

/* ---- the tests ----------------------------------------------------------- */

static void test_cancel_drops_the_answer(void **state)
{
    fake f;
    bg b;
    json_t *a;

    (void) state;
    fake_init(&f, true);
    sked_mcp *m = open_session(&f, 0);
    initialize(m);
    start_held(&f, &b, m);
    /* Another id cancels nothing; the call's own id ends it. */
    assert_null(handle(m, "{\"jsonrpc\":\"2.0\",\"method\":"
                          "\"notifications/cancelled\",\"params\":"
                          "{\"requestId\":8}}"));
    pthread_mutex_lock(&f.mu);
    assert_int_equal(f.held, 1);
    pthread_mutex_unlock(&f.mu);
    assert_null(handle(m, "{\"jsonrpc\":\"2.0\",\"method\":"
                          "\"notifications/cancelled\",\"params\":"
                          "{\"requestId\":7,\"reason\":\"enough\"}}"));
    pthread_join(b.t, NULL);
    assert_null(b.answer);
    /* The session goes on. */
    f.hold = false;
    a = handle(m, list_call);
    assert_non_null(json_object_get(a, "result"));
    json_decref(a);
    sked__mcp_close(m);
    fake_done(&f);
}

static void test_close_cancels_calls_in_flight(void **state)
{
    fake f;
    bg b;
    double t0;

    (void) state;
    fake_init(&f, true);
    sked_mcp *m = open_session(&f, 0);
    initialize(m);
    start_held(&f, &b, m);
    t0 = now_s();
    sked__mcp_close(m);
    assert_true(now_s() - t0 < 2.0);
    pthread_join(b.t, NULL);
    assert_null(b.answer);
    fake_done(&f);
}

static void test_close_stops_the_poller_at_once(void **state)
{
    fake f;
    double t0;

    (void) state;
    fake_init(&f, true);
    /* A poll every 10 s: a close that waited for it would show. */
    sked_mcp *m = open_session(&f, 10 * SKED_USEC_PER_SEC);
    initialize(m);
    t0 = now_s();
    sked__mcp_close(m);
    assert_true(now_s() - t0 < 1.0);
    fake_done(&f);
}

#define PINGERS 4
#define PINGS   300

static void *pinger(void *arg)
{
    sked_mcp *m = arg;
    char text[128];

    for (int i = 0; i < PINGS; i++) {
        long id = (long) (pthread_self() % 100000) * 1000 + i;
        json_t *a;

        snprintf(text, sizeof text,
                 "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"ping\"}", id);
        a = handle(m, text);
        assert_int_equal(json_integer_value(json_object_get(a, "id")), id);
        assert_non_null(json_object_get(a, "result"));
        json_decref(a);
    }
    return NULL;
}

static void test_threads_get_their_own_answers(void **state)
{
    pthread_t t[PINGERS];
    fake f;

    (void) state;
    fake_init(&f, true);
    sked_mcp *m = open_session(&f, 0);
    initialize(m);
    for (int i = 0; i < PINGERS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, pinger, m), 0);
    for (int i = 0; i < PINGERS; i++)
        pthread_join(t[i], NULL);
    sked__mcp_close(m);
    fake_done(&f);
}

/* Whether F received a notification METHOD whose params' KEY is VALUE
 * (KEY NULL: any), and how many of METHOD. */
static int notes_of(fake *f, const char *method, const char *key,
                    const char *value)
{
    json_t *n;
    size_t i;
    int count = 0;

    json_array_foreach(f->notes, i, n)
    {
        json_t *p = json_object_get(n, "params");
        const char *v = NULL;

        if (strcmp(json_string_value(json_object_get(n, "method")), method))
            continue;
        if (key && strcmp(key, "type") == 0)
            v = json_string_value(
                json_object_get(json_object_get(p, "data"), "type"));
        else if (key)
            v = json_string_value(json_object_get(p, key));
        if (!key || (v && strcmp(v, value) == 0))
            count++;
    }
    return count;
}

static void poller_sends(bool latest)
{
    fake f;
    json_t *a;

    fake_init(&f, latest);
    fake_event(&f, 1, "schedule.paused", "s1"); /* before: not news */
    sked_mcp *m = open_session(&f, 20000);
    initialize(m);
    a = handle(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
                  "\"resources/subscribe\",\"params\":{\"uri\":"
                  "\"sked://schedules/s1\"}}");
    assert_non_null(json_object_get(a, "result"));
    json_decref(a);
    a = handle(m, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
                  "\"logging/setLevel\",\"params\":{\"level\":\"warning\"}}");
    assert_non_null(json_object_get(a, "result"));
    json_decref(a);
    fake_event(&f, 2, "schedule.resumed", "s1");
    fake_event(&f, 3, "schedule.paused", "other");
    fake_event(&f, 4, "run.failed", "r1");
    fake_event(&f, 5, "schedule.created", "s2");
    pthread_mutex_lock(&f.mu);
    while (notes_of(&f, "notifications/message", "type", "run.failed") == 0 ||
           notes_of(&f, "notifications/resources/list_changed", NULL, NULL) ==
               0)
        pthread_cond_wait(&f.cv, &f.mu);
    pthread_mutex_unlock(&f.mu);
    sked__mcp_close(m);
    /* One update: s1's resume; the pause before the session is old. */
    assert_int_equal(notes_of(&f, "notifications/resources/updated", "uri",
                              "sked://schedules/s1"),
                     1);
    assert_int_equal(
        notes_of(&f, "notifications/resources/updated", NULL, NULL), 1);
    /* Only warnings: the failed run; the rest is info. */
    assert_int_equal(notes_of(&f, "notifications/message", NULL, NULL), 1);
    assert_int_equal(notes_of(&f, "notifications/message", "level", "warning"),
                     1);
    assert_int_equal(notes_of(&f, "notifications/message", "logger", "sked"),
                     1);
    fake_done(&f);
}

static void test_poller_with_after_latest(void **state)
{
    (void) state;
    poller_sends(true);
}

static void test_poller_paging_to_the_end(void **state)
{
    (void) state;
    poller_sends(false);
}

/* The reads of the event log in 400 ms, once a session polling every
 * 10 ms is initialized, after what SETUP asks (may be NULL). */
static int reads_in_400_ms(const char *setup)
{
    const struct timespec wait = {0, 400 * 1000000};
    fake f;
    int reads;

    fake_init(&f, true);
    sked_mcp *m = open_session(&f, 10000);
    initialize(m);
    if (setup)
        json_decref(handle(m, setup));
    pthread_mutex_lock(&f.mu);
    f.reads = 0;
    pthread_mutex_unlock(&f.mu);
    nanosleep(&wait, NULL);
    pthread_mutex_lock(&f.mu);
    reads = f.reads;
    pthread_mutex_unlock(&f.mu);
    sked__mcp_close(m);
    fake_done(&f);
    return reads;
}

/* A session no one waits on for news (no subscription, no log level)
 * reads the event log four times less often: 256 quiet sessions over
 * HTTP must not read it hundreds of times a second. */
static void test_quiet_sessions_poll_less(void **state)
{
    int quiet, subscribed;

    (void) state;
    quiet = reads_in_400_ms(NULL);
    subscribed = reads_in_400_ms(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/subscribe\","
        "\"params\":{\"uri\":\"sked://schedules/s1\"}}");
    assert_true(quiet >= 1 && quiet <= 12);
    assert_true(subscribed > quiet);
}

static void test_no_poller_without_notify(void **state)
{
    sked_mcp_options o = {.api = fake_api};
    sked_mcp *m = NULL;
    sked_error err;
    fake f;

    (void) state;
    fake_init(&f, true);
    o.api_ctx = &f;
    assert_int_equal(sked__mcp_open(&o, &m, &err), 0);
    initialize(m);
    sked__mcp_close(m);
    assert_int_equal(sked__mcp_open(&(sked_mcp_options){0}, &m, &err),
                     SKED_EINVAL);
    fake_done(&f);
}

/* tools/list answers the list the tables make, under the request's own
 * id (a number, a string), each time the same: its text is kept, not
 * written again per call. Before initialize it is refused as any call. */
static void test_tools_list_answers(void **state)
{
    sked_mcp_options o = {.api = fake_api};
    sked_mcp *m = NULL;
    sked_error err;
    json_t *want = sked__mcp_tools_list(), *a, *b;
    fake f;

    (void) state;
    fake_init(&f, true);
    o.api_ctx = &f;
    assert_int_equal(sked__mcp_open(&o, &m, &err), 0);
    a = handle(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    assert_non_null(json_object_get(a, "error"));
    assert_null(json_object_get(a, "result"));
    json_decref(a);
    initialize(m);
    a = handle(m, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}");
    b = handle(m, "{\"jsonrpc\":\"2.0\",\"id\":\"x\\\"y\",\"method\":"
                  "\"tools/list\",\"params\":{}}");
    assert_string_equal(json_string_value(json_object_get(a, "jsonrpc")),
                        "2.0");
    assert_int_equal(json_integer_value(json_object_get(a, "id")), 7);
    assert_string_equal(json_string_value(json_object_get(b, "id")), "x\"y");
    assert_true(json_equal(json_object_get(a, "result"), want));
    assert_true(json_equal(json_object_get(b, "result"), want));
    assert_true(json_array_size(json_object_get(want, "tools")) > 10);
    json_decref(a);
    json_decref(b);
    json_decref(want);
    sked__mcp_close(m);
    fake_done(&f);
}

/* One message of each kind, good and bad, through a session. */
static const char *const oom_messages[] = {
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
    "{\"protocolVersion\":\"2025-06-18\"}}",
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
    "{\"name\":\"list_schedules\",\"arguments\":{}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/subscribe\","
    "\"params\":{\"uri\":\"sked://schedules/s1\"}}",
    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/templates/list\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"prompts/list\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"logging/setLevel\","
    "\"params\":{\"level\":\"loud\"}}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
    "\"params\":{\"requestId\":99}}",
    "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"nope\"}",
    "[{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}]",
    "{\"jsonrpc\":\"2.0\",\"id\":",
};

static int oom_run(void *ctx)
{
    sked_mcp_options o = {.api = fake_api, .api_ctx = ctx};
    sked_mcp *m = NULL;
    int rc = sked__mcp_open(&o, &m, NULL);

    for (size_t i = 0;
         rc == 0 && i < sizeof oom_messages / sizeof *oom_messages; i++) {
        char *reply = NULL;
        size_t len = 0;

        rc = sked__mcp_handle(m, oom_messages[i], strlen(oom_messages[i]),
                              &reply, &len);
        free(reply);
    }
    sked__mcp_close(m);
    return rc;
}

static void test_out_of_memory(void **state)
{
    sked_test_alloc_case c = {.name = "a session's messages", .run = oom_run};
    fake f;

    (void) state;
    fake_init(&f, true);
    c.ctx = &f;
    /* libsked's allocations only: jansson 2.14's json_loadb writes out
     * of bounds when one of its own allocations fails inside an object
     * (a crash in the library, whatever its caller does), so its
     * allocations are left to succeed here. */
    sked_test_alloc_loop(&c);
    fake_done(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cancel_drops_the_answer),
        cmocka_unit_test(test_tools_list_answers),
        cmocka_unit_test(test_close_cancels_calls_in_flight),
        cmocka_unit_test(test_close_stops_the_poller_at_once),
        cmocka_unit_test(test_threads_get_their_own_answers),
        cmocka_unit_test(test_poller_with_after_latest),
        cmocka_unit_test(test_poller_paging_to_the_end),
        cmocka_unit_test(test_quiet_sessions_poll_less),
        cmocka_unit_test(test_no_poller_without_notify),
        cmocka_unit_test(test_out_of_memory),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
