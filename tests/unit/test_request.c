/* SPDX-License-Identifier: MIT */
/* Tests of the requests the CLI's remote mode writes and the API reads
 * (engine/request.h): every body and every list's query string, with
 * generated values, goes through its writer, over the wire's form (the
 * body as JSON text, the query split and decoded as the server decodes
 * it) and back through its reader unchanged; a bad value is refused
 * naming its field; and out of memory, each allocation failing in turn,
 * they answer SKED_ENOMEM or the whole value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_alloc.h"

#include "engine/request.h"
#include "http/http_int.h"
#include "sked/sked.h"

#define ROUNDS 400

static uint64_t seed = 0x9e3779b97f4a7c15u;

static uint64_t rnd(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
}

/* A random value of up to 20 bytes, among them every character a query
 * string gives a meaning to, a space and bytes above 127; "" sometimes. */
static void random_text(char *out)
{
    static const char chars[] = "az09-._~&=?%+#/ \"'\xc3\xa9";
    size_t n = rnd() % 21;

    for (size_t i = 0; i < n; i++)
        out[i] = chars[rnd() % (sizeof chars - 1)];
    out[n] = '\0';
}

/* ---- a query string as the server sees it -------------------------------- */

typedef struct query {
    char *text; /* owned: the decoded pairs, NUL-separated */
    const char *key[16], *value[16];
    size_t n;
} query;

/* Split the query of URL (which must start with PATH) into Q, each key
 * and value decoded as the server decodes them. */
static void query_parse(const char *url, const char *path, query *q)
{
    size_t plen = strlen(path);
    char *pair, *amp;

    assert_memory_equal(url, path, plen);
    memset(q, 0, sizeof *q);
    if (url[plen] == '\0')
        return;
    assert_int_equal(url[plen], '?');
    assert_non_null(q->text = strdup(url + plen + 1));
    for (pair = q->text; pair; pair = amp ? amp + 1 : NULL) {
        char *eq;

        if ((amp = strchr(pair, '&')) != NULL)
            *amp = '\0';
        eq = strchr(pair, '=');

        assert_non_null(eq);
        *eq = '\0';
        assert_true(q->n < 16);
        (void) sked__http_unescape(pair);
        (void) sked__http_unescape(eq + 1);
        q->key[q->n] = pair;
        q->value[q->n++] = eq + 1;
    }
}

static const char *query_get(void *ctx, const char *key)
{
    const query *q = ctx;

    for (size_t i = 0; i < q->n; i++) {
        if (strcmp(q->key[i], key) == 0)
            return q->value[i];
    }
    return NULL;
}

/* A query of the pairs K=V given as "k=v" texts, undecoded. */
static void query_of(query *q, size_t n, const char *const *pairs)
{
    memset(q, 0, sizeof *q);
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(pairs[i], '=');
        size_t len = (size_t) (eq - pairs[i]);
        char *key = malloc(len + 1);

        assert_non_null(key);
        memcpy(key, pairs[i], len);
        key[len] = '\0';
        q->key[q->n] = key;
        q->value[q->n++] = eq + 1;
    }
}

static void query_done(query *q)
{
    if (!q->text) /* query_of's keys */
        for (size_t i = 0; i < q->n; i++)
            free((char *) q->key[i]);
    free(q->text);
}

/* Text fields: written NULL or "", read back NULL; else the same. */
static void same_text(const char *wrote, const char *read)
{
    if (!wrote || !*wrote)
        assert_null(read);
    else
        assert_string_equal(read, wrote);
}

/* A text in BUF, or NULL a third of the time. */
static const char *maybe(char *buf)
{
    random_text(buf);
    return rnd() % 3 == 0 ? NULL : buf;
}

/* A random instant, whole microseconds from 1900 to 2200. */
static sked_time random_instant(void)
{
    return (sked_time) (rnd() % 9467280000000000ULL) - 2208988800000000LL;
}

/* ---- query strings ------------------------------------------------------- */

static void test_schedule_query_round_trip(void **state)
{
    (void) state;
    for (int round = 0; round < ROUNDS; round++) {
        char a[32], b[32], c[32], d[32];
        sked_schedule_query w = {maybe(a), maybe(b), maybe(c), maybe(d),
                                 rnd() % (SKED_ENGINE_LIST_MAX + 1)},
                            r;
        char *url = sked__query_schedules("/api/v1/schedules", &w);
        sked_error err;
        query q;

        assert_non_null(url);
        query_parse(url, "/api/v1/schedules", &q);
        sked_error_clear(&err);
        assert_int_equal(sked__query_schedules_read(query_get, &q, &r, &err),
                         0);
        same_text(w.status, r.status);
        same_text(w.workflow, r.workflow);
        same_text(w.prefix, r.prefix);
        same_text(w.cursor, r.cursor);
        assert_int_equal(r.limit, w.limit ? w.limit : 100);
        query_done(&q);
        free(url);
    }
}

static void test_run_query_round_trip(void **state)
{
    (void) state;
    for (int round = 0; round < ROUNDS; round++) {
        char a[32], b[32], c[32], d[32];
        sked_run_query w = {maybe(a), maybe(b), maybe(c), maybe(d),
                            rnd() % (SKED_ENGINE_LIST_MAX + 1)},
                       r;
        char *url = sked__query_runs("/api/v1/runs", &w);
        sked_error err;
        query q;

        assert_non_null(url);
        query_parse(url, "/api/v1/runs", &q);
        sked_error_clear(&err);
        assert_int_equal(sked__query_runs_read(query_get, &q, &r, &err), 0);
        same_text(w.status, r.status);
        same_text(w.schedule, r.schedule);
        same_text(w.workflow, r.workflow);
        same_text(w.cursor, r.cursor);
        assert_int_equal(r.limit, w.limit ? w.limit : 100);
        query_done(&q);
        free(url);
    }
}

static void test_event_query_round_trip(void **state)
{
    (void) state;
    for (int round = 0; round < ROUNDS; round++) {
        static const int64_t big[] = {-1, 0, 1, INT64_MAX};
        sked__event_query w = {rnd() % 2 == 0,
                               round < 4 ? big[round]
                                         : (int64_t) (rnd() % 1000000) - 1,
                               rnd() % 1001,
                               round % 3 == 0 ? "run.started,a b" : NULL,
                               round % 2 == 0 ? "nightly/é&x" : NULL,
                               round % 5 < 2 ? "user:ann b&c" : NULL},
                          r;
        char *url = sked__query_events("/api/v1/events", &w);
        sked_error err;
        query q;

        assert_non_null(url);
        query_parse(url, "/api/v1/events", &q);
        sked_error_clear(&err);
        assert_int_equal(sked__query_events_read(query_get, &q, &r, &err), 0);
        assert_int_equal(r.follow, w.follow);
        assert_true(r.after == w.after);
        /* A stream has no page: its limit is not read. */
        assert_int_equal(r.limit, w.follow || !w.limit ? 100 : w.limit);
        /* The filter is read for a page and a stream alike. */
        if (w.type)
            assert_string_equal(r.type, w.type);
        else
            assert_null(r.type);
        if (w.subject)
            assert_string_equal(r.subject, w.subject);
        else
            assert_null(r.subject);
        if (w.actor)
            assert_string_equal(r.actor, w.actor);
        else
            assert_null(r.actor);
        query_done(&q);
        free(url);
    }
}

/* The query PAIRS of a list is refused with CODE naming FIELD. */
typedef int (*reader)(query *q, sked_error *err);

static int read_schedules(query *q, sked_error *err)
{
    sked_schedule_query r;

    return sked__query_schedules_read(query_get, q, &r, err);
}

static int read_runs(query *q, sked_error *err)
{
    sked_run_query r;

    return sked__query_runs_read(query_get, q, &r, err);
}

static int read_events(query *q, sked_error *err)
{
    sked__event_query r;

    return sked__query_events_read(query_get, q, &r, err);
}

static void refused(reader fn, const char *pair1, const char *pair2, int code,
                    const char *field)
{
    const char *pairs[] = {pair1, pair2};
    sked_error err;
    query q;

    query_of(&q, pair2 ? 2 : 1, pairs);
    sked_error_clear(&err);
    assert_int_equal(fn(&q, &err), code);
    assert_string_equal(err.field, field);
    assert_non_null(strstr(err.msg, field));
    query_done(&q);
}

static void test_query_refused(void **state)
{
    static const reader lists[] = {read_schedules, read_runs, read_events};

    (void) state;
    for (size_t i = 0; i < 3; i++) {
        refused(lists[i], "limit=0", NULL, SKED_ERANGE, "limit");
        refused(lists[i], "limit=abc", NULL, SKED_ESYNTAX, "limit");
        refused(lists[i], "limit=-5", NULL, SKED_ESYNTAX, "limit");
        refused(lists[i], "limit=", NULL, SKED_ESYNTAX, "limit");
        refused(lists[i], "limit=12x", NULL, SKED_ESYNTAX, "limit");
    }
    refused(read_schedules, "limit=1001", NULL, SKED_ERANGE, "limit");
    refused(read_runs, "status=done", "limit=1001", SKED_ERANGE, "limit");
    refused(read_events, "limit=1001", NULL, SKED_ERANGE, "limit");
    refused(read_events, "follow=maybe", NULL, SKED_ESYNTAX, "follow");
    refused(read_events, "after=x", NULL, SKED_ESYNTAX, "after");
    refused(read_events, "after=-1", NULL, SKED_ESYNTAX, "after");
    /* "cursor" is read as after's other name when after is absent. */
    refused(read_events, "cursor=x", NULL, SKED_ESYNTAX, "cursor");
}

static void test_cron_query_round_trip(void **state)
{
    (void) state;
    for (int round = 0; round < ROUNDS; round++) {
        char expr[32], tz[32];
        sked__cron_query w = {maybe(expr), maybe(tz),
                              (int64_t) (rnd() % (SKED_PREVIEW_MAX + 2)) - 1,
                              rnd() % 4 == 0 ? SKED_TIME_NONE
                                             : random_instant(),
                              rnd() % 2 ? SKED_DST_ONCE : SKED_DST_CADENCE},
                         r;
        char *url = sked__query_cron("/api/v1/cron/explain", &w);
        sked_error err;
        query q;

        assert_non_null(url);
        query_parse(url, "/api/v1/cron/explain", &q);
        sked_error_clear(&err);
        assert_int_equal(sked__query_cron_read(query_get, &q, &r, &err), 0);
        same_text(w.expr, r.expr);
        same_text(w.timezone, r.timezone);
        assert_true(r.n == (w.n < 0 ? SKED__CRON_QUERY_N_DEFAULT : w.n));
        assert_true(r.after == w.after);
        assert_int_equal(r.dst, w.dst);
        query_done(&q);
        free(url);
    }
}

static int read_cron(query *q, sked_error *err)
{
    sked__cron_query r;

    return sked__query_cron_read(query_get, q, &r, err);
}

static void test_cron_query_refused(void **state)
{
    (void) state;
    refused(read_cron, "n=five", NULL, SKED_ESYNTAX, "n");
    refused(read_cron, "n=-1", NULL, SKED_ESYNTAX, "n");
    refused(read_cron, "n=1001", NULL, SKED_ERANGE, "n");
    refused(read_cron, "after=tomorrow", NULL, SKED_ESYNTAX, "after");
    refused(read_cron, "dst=sometimes", NULL, SKED_EINVAL, "dst");
}

/* type= splits at its commas into a filter; what sked_event_filter
 * refuses is a 400 (SKED_ESYNTAX) naming type or subject. */
static void test_event_filter(void **state)
{
    char t65[66], s385[386], t17[64] = "";
    sked__event_query q = {false,     -1,
                           0,         "run.created,a.b,run.completed",
                           "nightly", "code:billing"};
    sked_event_filter f;
    sked_error err;
    char *own = NULL;

    (void) state;
    assert_int_equal(sked__query_event_filter(&q, &f, &own, &err), 0);
    assert_int_equal(f.ntypes, 3);
    assert_string_equal(f.types[0], "run.created");
    assert_string_equal(f.types[2], "run.completed");
    assert_string_equal(f.subject, "nightly");
    assert_string_equal(f.actor, "code:billing");
    free(own);
    q.type = NULL;
    q.subject = NULL;
    assert_int_equal(sked__query_event_filter(&q, &f, &own, &err), 0);
    assert_int_equal(f.ntypes, 0);
    assert_null(own);
    memset(t65, 'a', 65);
    t65[65] = '\0';
    memset(s385, 's', 385);
    s385[385] = '\0';
    for (int i = 0; i < 17; i++)
        strcat(t17, i ? ",t" : "t");
    const char *const bad_types[] = {",", "a,", ",a", "a,,b", "a\tb", t65, t17};
    for (size_t i = 0; i < sizeof bad_types / sizeof *bad_types; i++) {
        q = (sked__event_query){false, -1, 0, bad_types[i], NULL, NULL};
        sked_error_clear(&err);
        assert_int_equal(sked__query_event_filter(&q, &f, &own, &err),
                         SKED_ESYNTAX);
        assert_string_equal(err.field, "type");
        assert_null(own);
    }
    t65[64] = '\0'; /* 64 bytes, and 16 types, are fine */
    t17[strlen(t17) - 2] = '\0';
    const char *const good[] = {t65, t17};
    for (size_t i = 0; i < 2; i++) {
        q = (sked__event_query){false, -1, 0, good[i], NULL, NULL};
        assert_int_equal(sked__query_event_filter(&q, &f, &own, &err), 0);
        free(own);
    }
    const char *const bad_subjects[] = {"a\nb", "\x7f", s385};
    for (size_t i = 0; i < 3; i++) {
        q = (sked__event_query){false,           -1,  0, "run.created",
                                bad_subjects[i], NULL};
        sked_error_clear(&err);
        assert_int_equal(sked__query_event_filter(&q, &f, &own, &err),
                         SKED_ESYNTAX);
        assert_string_equal(err.field, "subject");
        assert_null(own);
    }
    /* An actor is 1 to SKED_ACTOR_MAX bytes with no control character. */
    s385[SKED_ACTOR_MAX + 1] = '\0';
    const char *const bad_actors[] = {"", "a\tb", s385};
    for (size_t i = 0; i < 3; i++) {
        q = (sked__event_query){false, -1, 0, NULL, NULL, bad_actors[i]};
        sked_error_clear(&err);
        assert_int_equal(sked__query_event_filter(&q, &f, &own, &err),
                         SKED_ESYNTAX);
        assert_string_equal(err.field, "actor");
    }
    s385[SKED_ACTOR_MAX] = '\0';
    q = (sked__event_query){false, -1, 0, NULL, NULL, s385};
    assert_int_equal(sked__query_event_filter(&q, &f, &own, &err), 0);
}

/* "latest" goes through the events' writer and reader, as after or as
 * its other name, cursor. */
static void test_event_query_latest(void **state)
{
    sked__event_query w = {false, SKED__EVENTS_LATEST, 0, NULL, NULL, NULL}, r;
    const char *pairs[] = {"cursor=latest"};
    char *url = sked__query_events("/e", &w);
    sked_error err;
    query q;

    (void) state;
    assert_string_equal(url, "/e?after=latest");
    query_parse(url, "/e", &q);
    sked_error_clear(&err);
    assert_int_equal(sked__query_events_read(query_get, &q, &r, &err), 0);
    assert_true(r.after == SKED__EVENTS_LATEST);
    query_done(&q);
    free(url);
    query_of(&q, 1, pairs);
    assert_int_equal(sked__query_events_read(query_get, &q, &r, &err), 0);
    assert_true(r.after == SKED__EVENTS_LATEST);
    query_done(&q);
    refused(read_events, "after=newest", NULL, SKED_ESYNTAX, "after");
}

static void test_event_query_names(void **state)
{
    const char *pairs[] = {"cursor=42", "follow=true", "limit=junk"};
    sked__event_query r;
    sked_error err;
    query q;

    (void) state;
    sked_error_clear(&err);
    query_of(&q, 1, pairs);
    assert_int_equal(sked__query_events_read(query_get, &q, &r, &err), 0);
    assert_true(r.after == 42 && !r.follow && r.limit == 100);
    query_done(&q);
    /* after wins over cursor, which is then not read; a stream reads no
     * limit. */
    pairs[0] = "after=7";
    pairs[1] = "cursor=junk";
    query_of(&q, 2, pairs);
    assert_int_equal(sked__query_events_read(query_get, &q, &r, &err), 0);
    assert_true(r.after == 7);
    query_done(&q);
    pairs[0] = "follow=";
    pairs[1] = "limit=junk";
    query_of(&q, 2, pairs);
    assert_int_equal(sked__query_events_read(query_get, &q, &r, &err), 0);
    assert_true(r.follow && r.after == -1);
    query_done(&q);
}

/* ---- bodies -------------------------------------------------------------- */

/* Through the wire: BODY (taken) as JSON text and back. */
static json_t *wire(json_t *body)
{
    char *text;
    json_t *j;

    assert_non_null(body);
    assert_non_null(text = json_dumps(body, JSON_COMPACT));
    json_decref(body);
    assert_non_null(j = json_loads(text, 0, NULL));
    free(text);
    return j;
}

/* A valid schedule numbered I with generated fields. */
static void random_schedule(sked_schedule *s, size_t i)
{
    static const char *const zones[] = {"UTC", "Europe/Paris",
                                        "America/New_York"};
    char buf[64];

    sked_schedule_init(s);
    (void) snprintf(buf, sizeof buf, "s%zu-%llu", i,
                    (unsigned long long) (rnd() % 100000));
    s->name = strdup(buf);
    (void) snprintf(buf, sizeof buf, "wf-%llu",
                    (unsigned long long) (rnd() % 7));
    s->workflow = strdup(buf);
    (void) snprintf(buf, sizeof buf, "%llu %llu * * *",
                    (unsigned long long) (rnd() % 60),
                    (unsigned long long) (rnd() % 24));
    s->cron = strdup(buf);
    s->timezone = strdup(zones[rnd() % 3]);
    s->catchup_max = (int) (rnd() % 50);
}

static void test_apply_round_trip(void **state)
{
    (void) state;
    for (int round = 0; round < ROUNDS / 4; round++) {
        sked_schedule set[6];
        char app[32];
        sked__apply_request w = {set, rnd() % 6, rnd() % 2 == 0, NULL}, r;
        sked_error err;
        json_t *body;

        (void) snprintf(app, sizeof app, "app-%llu",
                        (unsigned long long) (rnd() % 1000));
        if (rnd() % 2)
            w.app = app;
        for (size_t i = 0; i < w.n; i++)
            random_schedule(&set[i], i);
        sked_error_clear(&err);
        body = wire(sked__request_apply(&w, &err));
        assert_int_equal(sked__request_apply_read(body, &r, &err), 0);
        assert_int_equal(r.n, w.n);
        assert_int_equal(r.prune, w.prune);
        assert_string_equal(r.app, w.app ? w.app : SKED_APP_DEFAULT);
        for (size_t i = 0; i < w.n; i++) {
            assert_string_equal(r.set[i].name, set[i].name);
            assert_string_equal(r.set[i].workflow, set[i].workflow);
            assert_string_equal(r.set[i].cron, set[i].cron);
            assert_string_equal(r.set[i].timezone, set[i].timezone);
            assert_int_equal(r.set[i].catchup_max, set[i].catchup_max);
            sked_schedule_done(&set[i]);
        }
        sked__apply_request_done(&r);
        json_decref(body);
    }
}

/* BODY (JSON text) is refused as an apply's (or a backfill's) with CODE
 * naming FIELD. */
static void body_refused(bool apply, const char *text, int code,
                         const char *field)
{
    json_t *body = json_loads(text, 0, NULL);
    sked__backfill_request b;
    sked__apply_request a;
    sked_error err;

    assert_non_null(body);
    sked_error_clear(&err);
    if (apply) {
        assert_int_equal(sked__request_apply_read(body, &a, &err), code);
        sked__apply_request_done(&a);
    } else {
        assert_int_equal(sked__request_backfill_read(body, &b, &err), code);
    }
    assert_string_equal(err.field, field);
    json_decref(body);
}

static void test_apply_refused(void **state)
{
    char long_app[200], text[300];

    (void) state;
    body_refused(true, "{\"schedules\": [], \"prunes\": true}", SKED_ESYNTAX,
                 "prunes");
    body_refused(true, "{}", SKED_EINVAL, "schedules");
    body_refused(true, "{\"schedules\": {}}", SKED_EINVAL, "schedules");
    body_refused(true, "{\"schedules\": [], \"prune\": \"yes\"}", SKED_EINVAL,
                 "prune");
    body_refused(true, "{\"schedules\": [], \"app\": 5}", SKED_EINVAL, "app");
    memset(long_app, 'a', SKED_NAME_MAX + 1);
    long_app[SKED_NAME_MAX + 1] = '\0';
    (void) snprintf(text, sizeof text, "{\"schedules\": [], \"app\": \"%s\"}",
                    long_app);
    body_refused(true, text, SKED_EINVAL, "app");
    /* A schedule's field is named with its place in the set. */
    body_refused(true,
                 "{\"schedules\": [{\"name\": \"a\", \"workflow\": \"w\", "
                 "\"cron\": \"0 9 * * *\"}, {\"name\": \"b\", \"workflow\": "
                 "\"w\", \"cron\": 5}]}",
                 SKED_EINVAL, "schedules[1].cron");
    /* The envelope is checked before its schedules. */
    body_refused(true, "{\"schedules\": [{\"cron\": 5}], \"prune\": 1}",
                 SKED_EINVAL, "prune");
}

/* A calendar apply's body: the set's definitions, prune and app, back
 * as they were; a bad calendar names its place in the set. */
static void test_calendar_apply_round_trip(void **state)
{
    sked_calendar set[2];
    char *dates[] = {"2026-12-24", "2026-12-31"}, *incl[] = {"b"};
    sked__calendar_apply_request w = {set, 2, true, "office"}, r;
    sked_error err;
    json_t *body;

    (void) state;
    sked_calendar_init(&set[0]);
    sked_calendar_init(&set[1]);
    set[0].name = "a";
    set[0].dates = (sked_strlist){dates, 2};
    set[0].include = (sked_strlist){incl, 1};
    set[1].name = "b";
    set[1].observed = SKED_OBSERVED_NEAREST_WEEKDAY;
    sked_error_clear(&err);
    body = wire(sked__request_calendar_apply(&w, &err));
    assert_int_equal(sked__request_calendar_apply_read(body, &r, &err), 0);
    assert_int_equal(r.n, 2);
    assert_true(r.prune);
    assert_string_equal(r.app, "office");
    assert_string_equal(r.set[0].name, "a");
    assert_int_equal(r.set[0].dates.n, 2);
    assert_string_equal(r.set[0].dates.v[1], "2026-12-31");
    assert_string_equal(r.set[0].include.v[0], "b");
    assert_string_equal(r.set[1].name, "b");
    assert_int_equal(r.set[1].observed, SKED_OBSERVED_NEAREST_WEEKDAY);
    sked__calendar_apply_request_done(&r);
    json_decref(body);
}

/* TEXT is refused as a calendar apply's body with CODE naming FIELD. */
static void calendar_body_refused(const char *text, int code, const char *field)
{
    json_t *body = json_loads(text, 0, NULL);
    sked__calendar_apply_request a;
    sked_error err;

    assert_non_null(body);
    sked_error_clear(&err);
    assert_int_equal(sked__request_calendar_apply_read(body, &a, &err), code);
    assert_string_equal(err.field, field);
    sked__calendar_apply_request_done(&a);
    json_decref(body);
}

static void test_calendar_apply_refused(void **state)
{
    (void) state;
    calendar_body_refused("{}", SKED_EINVAL, "calendars");
    calendar_body_refused("{\"calendars\": {}}", SKED_EINVAL, "calendars");
    calendar_body_refused("{\"calendars\": [], \"prunes\": true}", SKED_ESYNTAX,
                          "prunes");
    calendar_body_refused("{\"calendars\": [], \"app\": 5}", SKED_EINVAL,
                          "app");
    calendar_body_refused("{\"calendars\": [{\"name\": \"a\"}, 3]}",
                          SKED_EINVAL, "calendars[1]");
    calendar_body_refused(
        "{\"calendars\": [{\"name\": \"a\", \"dates\": [5]}]}", SKED_EINVAL,
        "calendars[0].dates[0]");
    calendar_body_refused(
        "{\"calendars\": [{\"name\": \"a\", \"colour\": \"red\"}]}",
        SKED_ESYNTAX, "calendars[0].colour");
}

static void test_backfill_round_trip(void **state)
{
    (void) state;
    for (int round = 0; round < ROUNDS; round++) {
        sked__backfill_request w, r;
        sked_error err;
        json_t *body;

        /* Whole microseconds from 1900 to 2200, or absent. */
        w.start = rnd() % 5 == 0 ? SKED_TIME_NONE
                                 : (sked_time) (rnd() % 9467280000000000ULL) -
                                       2208988800000000LL;
        w.end = rnd() % 5 == 0 ? SKED_TIME_NONE
                               : (sked_time) (rnd() % 9467280000000000ULL) -
                                     2208988800000000LL;
        w.dry_run = rnd() % 2 == 0;
        sked_error_clear(&err);
        body = wire(sked__request_backfill(&w, &err));
        /* "dry_run" is written only when true: older servers refuse it. */
        assert_true((json_object_get(body, "dry_run") != NULL) == w.dry_run);
        assert_int_equal(sked__request_backfill_read(body, &r, &err), 0);
        assert_true(r.start == w.start);
        assert_true(r.end == w.end);
        assert_true(r.dry_run == w.dry_run);
        json_decref(body);
    }
}

static void test_backfill_refused(void **state)
{
    (void) state;
    body_refused(false, "{\"start\": \"2026-01-01T00:00:00Z\", \"stop\": 1}",
                 SKED_ESYNTAX, "stop");
    body_refused(false, "{\"start\": 5}", SKED_EINVAL, "start");
    body_refused(false, "{\"end\": \"yesterday\"}", SKED_EINVAL, "end");
    body_refused(false, "{\"start\": \"2026-01-01T00:00:00Z\", \"end\": []}",
                 SKED_EINVAL, "end");
}

static void test_simulate_round_trip(void **state)
{
    (void) state;
    for (int round = 0; round < ROUNDS; round++) {
        sked_sim_span down[5];
        sked__simulate_request w = {{0}, 0}, r;
        sked_error err;
        json_t *body;

        w.o.from = random_instant();
        w.o.to = random_instant();
        w.o.ndown = rnd() % 6;
        for (size_t i = 0; i < w.o.ndown; i++)
            down[i] = (sked_sim_span){random_instant(), random_instant()};
        w.o.down = w.o.ndown ? down : NULL;
        /* Whole milliseconds: what a number of seconds carries exactly. */
        w.o.run_duration = (sked_dur) (rnd() % 86400000) * 1000;
        w.o.tick = (sked_dur) (rnd() % 3600000 + 1000) * 1000;
        w.limit = rnd() % (SKED__SIMULATE_LIMIT_MAX + 1);
        sked_error_clear(&err);
        body = wire(sked__request_simulate(&w, &err));
        assert_int_equal(sked__request_simulate_read(body, &r, &err), 0);
        assert_true(r.o.from == w.o.from && r.o.to == w.o.to);
        assert_int_equal(r.o.ndown, w.o.ndown);
        for (size_t i = 0; i < w.o.ndown; i++) {
            assert_true(r.o.down[i].from == down[i].from);
            assert_true(r.o.down[i].to == down[i].to);
        }
        assert_true(r.o.run_duration == w.o.run_duration);
        assert_true(r.o.tick == w.o.tick);
        assert_int_equal(r.limit, w.limit);
        sked__request_simulate_done(&r);
        json_decref(body);
    }
}

/* The simulate body TEXT is refused with CODE naming FIELD. */
static void simulate_refused(const char *text, int code, const char *field)
{
    json_t *body = json_loads(text, 0, NULL);
    sked__simulate_request r;
    sked_error err;

    assert_non_null(body);
    sked_error_clear(&err);
    assert_int_equal(sked__request_simulate_read(body, &r, &err), code);
    assert_string_equal(err.field, field);
    sked__request_simulate_done(&r);
    json_decref(body);
}

#define FROM_TO                                                                \
    "\"from\": \"2026-01-01T00:00:00Z\", \"to\": \"2026-01-02T00:00:00Z\""

static void test_simulate_refused(void **state)
{
    char many[64 * (SKED_SIMULATE_DOWN_MAX + 2)];
    size_t n;

    (void) state;
    simulate_refused("{}", SKED_EINVAL, "from");
    simulate_refused("{\"from\": \"2026-01-01T00:00:00Z\"}", SKED_EINVAL, "to");
    simulate_refused("{" FROM_TO ", \"until\": 1}", SKED_ESYNTAX, "until");
    simulate_refused("{" FROM_TO ", \"down\": {}}", SKED_EINVAL, "down");
    simulate_refused("{" FROM_TO ", \"down\": [1]}", SKED_EINVAL, "down[0]");
    simulate_refused(
        "{" FROM_TO ", \"down\": [{\"from\": "
        "\"2026-01-01T01:00:00Z\", \"to\": \"2026-01-01T02:00:00Z\"},"
        " {\"from\": \"2026-01-01T03:00:00Z\"}]}",
        SKED_EINVAL, "down[1].to");
    simulate_refused("{" FROM_TO ", \"down\": [{\"from\": 3, \"to\": 4}]}",
                     SKED_EINVAL, "down[0].from");
    simulate_refused("{" FROM_TO ", \"down\": [{\"start\": 3}]}", SKED_ESYNTAX,
                     "down[0].start");
    simulate_refused("{" FROM_TO ", \"tick_secs\": 0.5}", SKED_ERANGE,
                     "tick_secs");
    simulate_refused("{" FROM_TO ", \"run_duration_secs\": -1}", SKED_ERANGE,
                     "run_duration_secs");
    simulate_refused("{" FROM_TO ", \"run_duration_secs\": \"1h\"}",
                     SKED_EINVAL, "run_duration_secs");
    simulate_refused("{" FROM_TO ", \"limit\": 0}", SKED_ERANGE, "limit");
    simulate_refused("{" FROM_TO ", \"limit\": 10001}", SKED_ERANGE, "limit");
    simulate_refused("{" FROM_TO ", \"limit\": 1.5}", SKED_EINVAL, "limit");
    /* One interval more than a replay takes, refused before any is read. */
    n = (size_t) snprintf(many, sizeof many, "{" FROM_TO ", \"down\": [");
    for (int i = 0; i <= SKED_SIMULATE_DOWN_MAX; i++)
        n += (size_t) snprintf(many + n, sizeof many - n, "%s{}", i ? "," : "");
    (void) snprintf(many + n, sizeof many - n, "]}");
    simulate_refused(many, SKED_ERANGE, "down");
}

/* ---- out of memory ------------------------------------------------------ */

typedef struct oom_case {
    sked_schedule set[3];
    sked_error err;
} oom_case;

/* Write an apply of the set and a schedule list's query, and read both
 * back: 0 with everything read back, or SKED_ENOMEM. */
static int oom_run(void *ctx)
{
    oom_case *c = ctx;
    sked__apply_request w = {c->set, 3, true, "app"}, r;
    sked_schedule_query sq = {"active", "wf", "a b", "c&d", 20}, sr;
    char *url = NULL;
    json_t *body;
    query q = {0};
    int rc;

    sked_error_clear(&c->err);
    if (!(body = sked__request_apply(&w, &c->err)))
        return c->err.code;
    rc = sked__request_apply_read(body, &r, &c->err);
    json_decref(body);
    if (rc == 0 && strcmp(r.set[2].name, c->set[2].name) != 0)
        rc = SKED_EINTERNAL;
    sked__apply_request_done(&r);
    if (rc == 0 && !(url = sked__query_schedules("/s", &sq)))
        rc = SKED_ENOMEM;
    sked_test_alloc_stop();
    if (rc == 0) {
        query_parse(url, "/s", &q);
        rc = sked__query_schedules_read(query_get, &q, &sr, &c->err);
        if (rc == 0 && strcmp(sr.cursor, "c&d") != 0)
            rc = SKED_EINTERNAL;
        query_done(&q);
    }
    free(url);
    return rc;
}

static void test_out_of_memory(void **state)
{
    oom_case c;
    sked_test_alloc_case ac = {
        .name = "apply and query", .ctx = &c, .run = oom_run, .want = 0};

    (void) state;
    for (size_t i = 0; i < 3; i++)
        random_schedule(&c.set[i], i);
    sked_test_alloc_loop(&ac);
    for (size_t i = 0; i < 3; i++)
        sked_schedule_done(&c.set[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schedule_query_round_trip),
        cmocka_unit_test(test_run_query_round_trip),
        cmocka_unit_test(test_event_query_round_trip),
        cmocka_unit_test(test_query_refused),
        cmocka_unit_test(test_event_query_names),
        cmocka_unit_test(test_apply_round_trip),
        cmocka_unit_test(test_apply_refused),
        cmocka_unit_test(test_calendar_apply_round_trip),
        cmocka_unit_test(test_calendar_apply_refused),
        cmocka_unit_test(test_backfill_round_trip),
        cmocka_unit_test(test_backfill_refused),
        cmocka_unit_test(test_simulate_round_trip),
        cmocka_unit_test(test_simulate_refused),
        cmocka_unit_test(test_cron_query_round_trip),
        cmocka_unit_test(test_cron_query_refused),
        cmocka_unit_test(test_event_query_latest),
        cmocka_unit_test(test_event_filter),
        cmocka_unit_test(test_out_of_memory),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
