/* SPDX-License-Identifier: MIT */
/* The event log read with a filter (sked__store_event_find), on the
 * back-end SKED_TEST_DB_URL names (a fresh SQLite file without it), as
 * test_store does.
 *
 * A log of a few hundred events, written in transactions of 1 to 100
 * (on PostgreSQL: pages of up to 64, several per transaction), of a few
 * types and subjects, is read with every kind of filter (types, a
 * subject, both; unknown names; the 16 types allowed) from many starting
 * ids and at many page sizes. Every read must be exactly what filtering
 * the whole log gives: the matches after the id, oldest first, as many
 * as asked for while that many remain. The indexes of schema 0008 exist,
 * and a filter of 17 types is refused naming "type".
 *
 * Each event is made by one of a few actors (the thread's, base/actor.h)
 * and says so in its payload's "actor"; a filter by actor, alone or with
 * types and a subject, reads exactly that actor's. An event made on a
 * thread that set an actor carries it, one on a thread that never did
 * "library". */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "test_db.h"

#include "base/actor.h"
#include "base/clock.h"
#include "base/error.h"
#include "store/store.h"
#include "store/store_int.h"
#include "store/store_ops.h"

#define NEVENTS 600

static char db_url[1024];
static char tmp_dir[256];
static sked_virtual_clock vclock;
static sked_clock clock_;
static uint64_t seed = 0x9e3779b97f4a7c15u;

static const char *const types[] = {"run.created", "run.started",
                                    "run.completed", "schedule.paused"};
static const char *const subjects[] = {"s1", "s2", "s3", "nightly/x", "r-9"};
/* NULL: the thread's default, "library". */
static const char *const actors[] = {"ops-a", "user:ann", "code:billing",
                                     "scheduler", NULL};

/* A reproducible xorshift. */
static uint64_t rnd(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
}

static bool is_sqlite(void)
{
    return strncmp(db_url, "sqlite:", 7) == 0;
}

struct batch {
    size_t n;
    size_t type[100], subject[100], actor[100];
};

/* B's events made as the store makes them: each by its actor. */
static int append_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct batch *b = arg;
    sked__ev_list l = {0};
    int rc = 0;

    for (size_t i = 0; rc == 0 && i < b->n; i++) {
        assert_int_equal(sked__actor_set(actors[b->actor[i]]), 0);
        rc = sked__ev_add(&l, types[b->type[i]], subjects[b->subject[i]],
                          strdup("{}"), vclock.t, err);
    }
    if (rc == 0)
        rc = sked__ev_flush(st, tx, &l, err);
    sked__ev_reset(&l);
    return rc;
}

/* Write NEVENTS events of random types and subjects, in transactions of
 * random sizes, into the store ST; the last 20 one at a time. */
static void write_log(sked_store *st)
{
    struct batch b;
    size_t done = 0;
    sked_error err;

    while (done < NEVENTS - 20) {
        b.n = 1 + rnd() % 100;
        if (b.n > NEVENTS - 20 - done)
            b.n = NEVENTS - 20 - done;
        for (size_t i = 0; i < b.n; i++) {
            b.type[i] = rnd() % 4;
            b.subject[i] = rnd() % 5;
            b.actor[i] = rnd() % 5;
        }
        if (sked__store_run_tx(st, SKED__TX_WRITE, append_tx, &b, &err) != 0)
            fail_msg("append: %s", err.msg);
        done += b.n;
    }
    for (; done < NEVENTS; done++) {
        assert_int_equal(sked__actor_set(actors[rnd() % 5]), 0);
        assert_int_equal(sked__store_event_append(st, types[rnd() % 4],
                                                  subjects[rnd() % 5], NULL,
                                                  NULL),
                         0);
    }
    assert_int_equal(sked__actor_set(NULL), 0);
}

/* The actor E's payload names (NULL: none). */
static bool actor_is(const sked_event *e, const char *actor)
{
    json_t *p = json_loads(e->payload, 0, NULL);
    const char *a = json_string_value(json_object_get(p, "actor"));
    bool is = a && strcmp(a, actor) == 0;

    json_decref(p);
    return is;
}

/* A filter: types, their count, a subject, an actor. */
#define F(t, n, s, a)                                                          \
    {                                                                          \
        t, n, s, a, NULL                                                       \
    }

static bool matches(const sked__event_filter *f, const sked_event *e)
{
    bool type = f->ntypes == 0;

    for (size_t i = 0; i < f->ntypes; i++)
        type = type || strcmp(f->types[i], e->type) == 0;
    return type && (!f->subject || strcmp(f->subject, e->subject) == 0) &&
           (!f->actor || actor_is(e, f->actor));
}

/* Read F from AFTER by LIMIT and compare with ALL (N) filtered. */
static void check_read(sked_store *st, const sked__event_filter *f,
                       int64_t after, size_t limit, const sked_event *all,
                       size_t n)
{
    sked_event *got = NULL;
    size_t ngot = 0, k = 0;
    sked_error err;

    if (sked__store_event_find(st, after, limit, f, &got, &ngot, &err) != 0)
        fail_msg("find: %s", err.msg);
    for (size_t i = 0; i < n && k < limit; i++) {
        if (all[i].id <= after || !matches(f, &all[i]))
            continue;
        if (k >= ngot)
            fail_msg("after %lld by %zu: short at %zu (%zu read)",
                     (long long) after, limit, k, ngot);
        assert_int_equal(got[k].id, all[i].id);
        assert_string_equal(got[k].type, all[i].type);
        assert_string_equal(got[k].subject, all[i].subject);
        k++;
    }
    assert_int_equal(ngot, k);
    sked__events_free(got, ngot);
}

static int setup(void **state)
{
    sked_store_options o = {.clock = &clock_};
    sked_store *st = NULL;
    sked_error err;
    char sql[128];

    vclock.t = 1767000000 * SKED_USEC_PER_SEC;
    if (sked__store_open(db_url, &o, &st, &err) != 0)
        fail_msg("open %s: %s", db_url, err.msg);
    snprintf(sql, sizeof sql, "DELETE FROM %s", sked_test_events_table(db_url));
    assert_int_equal(sked_test_sql(db_url, sql, NULL), 0);
    *state = st;
    return 0;
}

static int teardown(void **state)
{
    sked__store_close(*state);
    return 0;
}

static void test_filters_read_exactly(void **state)
{
    static const char *const many[] = {
        "u1", "u2",  "u3",  "u4",  "u5",  "u6",  "u7",  "u8",
        "u9", "u10", "u11", "u12", "u13", "u14", "u15", "run.completed"};
    static const char *const two[] = {"run.started", "schedule.paused"};
    static const char *const one[] = {"run.completed"};
    static const char *const none[] = {"no.such.type"};
    const sked__event_filter filters[] = {F(one, 1, NULL, NULL),
                                          F(two, 2, NULL, NULL),
                                          F(NULL, 0, "s2", NULL),
                                          F(NULL, 0, "r-9", NULL),
                                          F(one, 1, "s3", NULL),
                                          F(two, 2, "nightly/x", NULL),
                                          F(many, 16, NULL, NULL),
                                          F(many, 16, "s1", NULL),
                                          F(none, 1, NULL, NULL),
                                          F(NULL, 0, "nobody", NULL),
                                          F(one, 1, "nobody", NULL),
                                          F(NULL, 0, NULL, "ops-a"),
                                          F(NULL, 0, NULL, "library"),
                                          F(one, 1, NULL, "user:ann"),
                                          F(NULL, 0, "s2", "code:billing"),
                                          F(two, 2, "s3", "scheduler"),
                                          F(many, 16, NULL, "ops-a"),
                                          F(NULL, 0, NULL, "nobody"),
                                          F(NULL, 0, NULL, "ops")};
    static const size_t limits[] = {1, 2, 3, 7, 64, 65, 100, 1000};
    sked_store *st = *state;
    sked_event *all = NULL;
    size_t n = 0;

    write_log(st);
    assert_int_equal(sked__store_event_list(st, 0, 1000, &all, &n, NULL), 0);
    assert_int_equal(n, NEVENTS);
    /* Every one says who: each actor made some of them. */
    for (size_t a = 0; a < 5; a++) {
        size_t made = 0;
        for (size_t i = 0; i < n; i++)
            made += actor_is(&all[i], actors[a] ? actors[a] : "library");
        assert_true(made > 0);
    }
    for (size_t f = 0; f < sizeof filters / sizeof filters[0]; f++)
        for (size_t l = 0; l < sizeof limits / sizeof limits[0]; l++) {
            check_read(st, &filters[f], 0, limits[l], all, n);
            for (int r = 0; r < 6; r++)
                check_read(st, &filters[f], all[rnd() % n].id + (r % 2),
                           limits[l], all, n);
        }
    /* Paged to its end, each filter gives its matches once. */
    for (size_t f = 0; f < sizeof filters / sizeof filters[0]; f++) {
        size_t seen = 0, want = 0;
        int64_t after = 0;
        sked_event *p;
        size_t m;
        for (size_t i = 0; i < n; i++)
            want += matches(&filters[f], &all[i]);
        do {
            assert_int_equal(
                sked__store_event_find(st, after, 5, &filters[f], &p, &m, 0),
                0);
            seen += m;
            after = m ? p[m - 1].id : after;
            sked__events_free(p, m);
        } while (m == 5);
        assert_int_equal(seen, want);
    }
    sked__events_free(all, n);
}

/* A subject whose events of one type are far behind many pages of its
 * other events (a run's or a schedule's that fires often): read with
 * that type, by small pages, from the start, every one of them comes,
 * in order. On PostgreSQL the pages are found by the subject alone
 * (schema 0015), so reading as few pages as events would stop short. */
static void test_type_of_a_subject_behind_its_pages(void **state)
{
    static const char *const completed[] = {"run.completed"};
    const sked__event_filter f = F(completed, 1, "r-9", NULL);
    sked_store *st = *state;
    struct batch b = {.n = 3};
    sked_event *all = NULL;
    size_t n = 0;
    sked_error err;

    /* 70 transactions (70 pages on PostgreSQL) of r-9's run.started and
     * two others'; r-9's run.completed in the 60th and the 70th. */
    for (int t = 1; t <= 70; t++) {
        b.type[0] = t % 60 == 0 || t == 70 ? 2 : 1;
        b.subject[0] = 4;
        b.type[1] = 0, b.subject[1] = 0;
        b.type[2] = 3, b.subject[2] = 1;
        b.actor[0] = b.actor[1] = b.actor[2] = 1;
        if (sked__store_run_tx(st, SKED__TX_WRITE, append_tx, &b, &err) != 0)
            fail_msg("append: %s", err.msg);
    }
    assert_int_equal(sked__actor_set(NULL), 0);
    assert_string_equal(types[2], "run.completed");
    assert_string_equal(subjects[4], "r-9");
    assert_int_equal(sked__store_event_list(st, 0, 1000, &all, &n, NULL), 0);
    assert_int_equal(n, 210);
    for (size_t limit = 1; limit <= 3; limit++)
        check_read(st, &f, 0, limit, all, n);
    check_read(st, &f, all[100].id, 1, all, n);
    sked__events_free(all, n);
}

static void test_indexes_and_bounds(void **state)
{
    static const char *const t17[17] = {"a", "b", "c", "d", "e", "f",
                                        "g", "h", "i", "j", "k", "l",
                                        "m", "n", "o", "p", "q"};
    const sked__event_filter f = {t17, 17, NULL, NULL, NULL};
    sked_store *st = *state;
    sked_event *ev = NULL;
    size_t n = 0;
    long long k = 0;
    sked_error err;

    if (is_sqlite())
        assert_int_equal(sked_test_sql(db_url,
                                       "SELECT count(*) FROM sqlite_master "
                                       "WHERE type = 'index' AND name IN "
                                       "('events_type', 'events_subject')",
                                       &k),
                         0);
    else
        assert_int_equal(sked_test_sql(db_url,
                                       "SELECT count(*) + 1 FROM pg_indexes "
                                       "WHERE indexname = 'event_pages_keys'",
                                       &k),
                         0);
    assert_int_equal(k, 2);
    assert_int_equal(sked__store_event_find(st, 0, 10, &f, &ev, &n, &err),
                     SKED_EINVAL);
    assert_string_equal(err.field, "type");
}

/* Append one event on the calling thread, as ACTOR (NULL: none set). */
static void *append_as(void *arg)
{
    const char *const *a = arg;

    if (a[1])
        assert_int_equal(sked__actor_set(a[1]), 0);
    assert_int_equal(sked__store_event_append((sked_store *) (uintptr_t) a[0],
                                              "custom.thing", a[1] ? a[1] : "-",
                                              "{\"n\":1}", NULL),
                     0);
    return NULL;
}

static void test_actor_of_the_thread(void **state)
{
    sked_store *st = *state;
    const char *with[2] = {(const char *) (uintptr_t) st, "ops \"b\"\\"};
    const char *without[2] = {(const char *) (uintptr_t) st, NULL};
    pthread_t th;
    sked_event *ev = NULL;
    size_t n = 0;

    assert_int_equal(pthread_create(&th, NULL, append_as, with), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(pthread_create(&th, NULL, append_as, without), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(sked__store_event_list(st, 0, 10, &ev, &n, NULL), 0);
    assert_int_equal(n, 2);
    assert_string_equal(ev[0].payload,
                        "{\"n\":1,\"actor\":\"ops \\\"b\\\"\\\\\"}");
    assert_true(actor_is(&ev[0], "ops \"b\"\\"));
    assert_string_equal(ev[1].payload, "{\"n\":1,\"actor\":\"library\"}");
    sked__events_free(ev, n);
    /* The thread's own setting is its own: this one's is still none. */
    assert_string_equal(sked__actor(), "library");
    /* Bad actors change nothing; a payload that is no object is wrapped. */
    assert_int_equal(sked__actor_set("a\nb"), SKED_EINVAL);
    assert_int_equal(sked__actor_set("\xc3\xa9"), SKED_EINVAL);
    assert_string_equal(sked__actor(), "library");
    char *p = sked__payload_actor(strdup(" [1, 2] "));
    assert_string_equal(p, "{\"value\":[1, 2],\"actor\":\"library\"}");
    free(p);
    p = sked__payload_actor(strdup(" { } "));
    assert_string_equal(p, "{\"actor\":\"library\"}");
    free(p);
}

int main(void)
{
    const char *url = getenv("SKED_TEST_DB_URL");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_filters_read_exactly, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_type_of_a_subject_behind_its_pages,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_indexes_and_bounds, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_actor_of_the_thread, setup,
                                        teardown),
    };
    int failed;

    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/sked-store-events-XXXXXX");
    if (!mkdtemp(tmp_dir))
        return 1;
    if (url && url[0])
        snprintf(db_url, sizeof db_url, "%s", url);
    else
        snprintf(db_url, sizeof db_url, "sqlite:%s/events.db", tmp_dir);
    sked__clock_virtual(&vclock, &clock_);
    failed = cmocka_run_group_tests(tests, NULL, NULL);
    if (!failed) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
        (void) !system(cmd);
    }
    return failed;
}
