/* SPDX-License-Identifier: MIT */
/* PostgreSQL's schema 5 (schema/pg/0005_run_rate.sql), on the database
 * named by SKED_TEST_PG_URL:
 *   - a transaction's events take consecutive ids in pages of at most 64,
 *     each page starting at a multiple of 64, and the list reads them back
 *     in order from any id, across pages, whole or cut by size;
 *   - retention drops whole pages and counts their events;
 *   - the view events shows one row per event, as the table did;
 *   - a schema-4 database keeps its events and their ids when migrated,
 *     and the new ones come after them;
 *   - a rate limit counts the starts of its queue in queue_starts: those
 *     of the period are carried over by the migration, a claim adds its
 *     own, and the claims drop the ones past every period. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "store/store.h"
#include "store/store_int.h"
#include "store/store_ops.h"
#include "store/store_run.h"
#include "test_db.h"

#define T0 1790000000000000LL /* 2026-09-21, µs */

static const char *url;
static sked_virtual_clock vclock;
static sked_clock clock_;

/* Run Q (through libpq, not sked); the first value as a number (0 when
 * there is none). */
static long long sql(const char *q)
{
    long long v = 0;

    if (sked_test_sql(url, q, &v) != 0)
        fail_msg("%s: failed", q);
    return v < 0 ? 0 : v;
}

static sked_store *open_store(void)
{
    sked_store_options o = {.clock = &clock_};
    sked_store *st = NULL;
    sked_error err = {0};

    if (sked__store_open(url, &o, &st, &err) != 0)
        fail_msg("open: %s", err.msg);
    return st;
}

static int setup(void **state)
{
    vclock.t = T0;
    sked__clock_virtual(&vclock, &clock_);
    sql("DROP SCHEMA public CASCADE; CREATE SCHEMA public");
    *state = open_store();
    return 0;
}

static int teardown(void **state)
{
    sked__store_close(*state);
    return 0;
}

/* Every event after AFTER, read LIMIT at a time, into LIST (up to MAX);
 * returns how many. */
static size_t read_all(sked_store *st, int64_t after, size_t limit,
                       sked_event *list, size_t max)
{
    size_t total = 0;

    for (;;) {
        sked_event *ev = NULL;
        size_t n = 0;
        assert_int_equal(
            sked__store_event_list(st, after, limit, &ev, &n, NULL), 0);
        assert_true(n <= limit);
        for (size_t i = 0; i < n; i++) {
            assert_true(total < max);
            list[total] = ev[i];
            list[total].type = strdup(ev[i].type);
            list[total].subject = strdup(ev[i].subject);
            list[total].payload = strdup(ev[i].payload);
            total++;
        }
        if (n > 0)
            after = ev[n - 1].id;
        sked__events_free(ev, n);
        if (n < limit)
            return total;
    }
}

static void free_list(sked_event *list, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(list[i].type);
        free(list[i].subject);
        free(list[i].payload);
    }
}

/* Create the runs R0..R(N-1) in one transaction: N run.created events. */
static void create_runs(sked_store *st, const char *prefix, size_t n)
{
    sked_run_new *runs = calloc(n, sizeof *runs);
    char(*ids)[32] = calloc(n, sizeof *ids);
    sked_error err;

    assert_non_null(runs);
    assert_non_null(ids);
    for (size_t i = 0; i < n; i++) {
        snprintf(ids[i], sizeof ids[i], "%s-%03zu", prefix, i);
        runs[i] = (sked_run_new){.id = ids[i],
                                 .workflow = "wf",
                                 .trigger = SKED_TRIGGER_API,
                                 .scheduled_for = SKED_TIME_NONE,
                                 .not_before = SKED_TIME_NONE};
    }
    if (sked__store_runs_create(st, runs, n, false, NULL, NULL, NULL, &err) !=
        0)
        fail_msg("create: %s", err.msg);
    free(runs);
    free(ids);
}

/* 150 events of one transaction, then 3 of another: pages of at most
 * 64 events (fewer when their text passes 6,000 bytes), each starting at
 * a multiple of 64, with consecutive ids inside; read back in order from
 * any id, and by any page size, always the same sequence. */
static void test_pages_and_list(void **state)
{
    sked_store *st = *state;
    static sked_event all[400];
    size_t n, pages = 0, in_page = 0, bytes = 0;

    create_runs(st, "a", 150);
    vclock.t += SKED_USEC_PER_SEC;
    create_runs(st, "b", 3);
    n = read_all(st, 0, 1000, all, 400);
    assert_int_equal(n, 153);
    for (size_t i = 0; i < n; i++) {
        char want[32];
        size_t b = strlen(all[i].type) + strlen(all[i].subject) +
                   strlen(all[i].payload);
        snprintf(want, sizeof want, "%s-%03zu", i < 150 ? "a" : "b",
                 i < 150 ? i : i - 150);
        assert_string_equal(all[i].type, "run.created");
        assert_string_equal(all[i].subject, want);
        if (i == 0 || all[i].id != all[i - 1].id + 1) {
            /* A page starts: at a block, and the one before was full. */
            assert_int_equal(all[i].id % SKED_EVENT_PAGE, 0);
            if (i > 0 && i != 150)
                assert_true(in_page == SKED_EVENT_PAGE || bytes + b > 6000);
            pages++;
            in_page = bytes = 0;
        }
        in_page++;
        bytes += b;
        assert_true(in_page <= SKED_EVENT_PAGE && bytes <= 6000);
    }
    assert_true(pages >= 4); /* 150 events need three pages at least */
    assert_int_equal(sql("SELECT count(*) FROM event_pages"),
                     (long long) pages);
    /* From each event, and from the id before it (in the previous
     * page's block when it starts a page): nothing skipped or repeated. */
    for (size_t k = 0; k < n; k++) {
        sked_event *page = NULL;
        size_t m = 0, want = n - k - 1 < 7 ? n - k - 1 : 7;
        assert_int_equal(
            sked__store_event_list(st, all[k].id, 7, &page, &m, NULL), 0);
        assert_int_equal(m, want);
        for (size_t i = 0; i < m; i++)
            assert_true(page[i].id == all[k + 1 + i].id);
        sked__events_free(page, m);
        assert_int_equal(
            sked__store_event_list(st, all[k].id - 1, 1, &page, &m, NULL), 0);
        assert_int_equal(m, 1);
        assert_true(page[0].id == all[k].id);
        sked__events_free(page, m);
    }
    /* Read whole by pages of 7 and of 64: the same sequence. */
    for (size_t limit = 7; limit <= 64; limit += 57) {
        static sked_event again[400];
        size_t m = read_all(st, 0, limit, again, 400);
        assert_int_equal(m, n);
        for (size_t i = 0; i < m; i++)
            assert_true(again[i].id == all[i].id);
        free_list(again, m);
    }
    /* The view: one row per event, with the same ids. */
    assert_int_equal(sql("SELECT count(*) FROM events"), 153);
    assert_int_equal(sql("SELECT max(id) FROM events"), all[152].id);
    assert_int_equal(sql("SELECT count(DISTINCT id) FROM events"), 153);
    free_list(all, n);
}

/* Events near the 64 KiB a payload may have (a page of one, which
 * PostgreSQL moves out of its row) are read back whole, in order. */
static void test_large_events(void **state)
{
    sked_store *st = *state;
    size_t big = 5000, huge = 60000;
    char *p = malloc(huge + 16);
    sked_event got[8];

    assert_non_null(p);
    for (int i = 0; i < 3; i++) {
        snprintf(p, 16, "{\"n\":%d,\"x\":\"", i);
        size_t off = strlen(p);
        size_t len = i == 2 ? huge : big;
        memset(p + off, 'a' + i, len);
        strcpy(p + off + len, "\"}");
        assert_int_equal(sked__store_event_append(st, "test.big", "s", p, NULL),
                         0);
    }
    size_t n = read_all(st, 0, 8, got, 8);
    assert_int_equal(n, 3);
    assert_int_equal(strlen(got[2].payload),
                     huge +
                         strlen("{\"n\":2,\"x\":\"\",\"actor\":\"library\"}"));
    assert_true(got[2].payload[huge] == 'c');
    free_list(got, n);
    free(p);
}

/* The events of one transaction: 200, the 150th with a subject that is
 * not UTF-8 (PostgreSQL refuses it) when BAD. */
struct pipe_arg {
    bool bad;
    int64_t ids[200];
};

static int append_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct pipe_arg *a = arg;
    sked_event ev[200];

    for (size_t i = 0; i < 200; i++)
        ev[i] = (sked_event){.type = "test.pipe",
                             .subject = a->bad && i == 150 ? "s\xff" : "s",
                             .payload = "{\"padding\":\"................"
                                        "..............................\"}",
                             .at = vclock.t};
    return st->ops->events_append(tx, ev, 200, a->ids, err);
}

/* A transaction's pages go in one round trip (pipeline mode). When one
 * page fails, the whole transaction fails with PostgreSQL's reason and
 * leaves nothing, and the connection serves the next transactions. */
static void test_pages_pipeline_failure(void **state)
{
    sked_store *st = *state;
    struct pipe_arg bad = {.bad = true}, good = {0};
    sked_event got[256];
    sked_error err;

    assert_true(sked__store_run_tx(st, SKED__TX_WRITE, append_tx, &bad, &err) <
                0);
    assert_non_null(strstr(err.msg, "UTF8"));
    assert_int_equal(sql("SELECT count(*) FROM event_pages"), 0);
    for (int round = 0; round < 3; round++)
        assert_int_equal(
            sked__store_run_tx(st, SKED__TX_WRITE, append_tx, &good, &err), 0);
    assert_true(sql("SELECT count(*) FROM event_pages") >= 3 * 4);
    for (size_t i = 1; i < 200; i++)
        assert_true(good.ids[i] > good.ids[i - 1]);
    size_t n = read_all(st, good.ids[0] - 1, 64, got, 256);
    assert_int_equal(n, 200);
    for (size_t i = 0; i < n; i++)
        assert_true(got[i].id == good.ids[i]);
    free_list(got, n);
}

/* Retention drops the pages whose newest event is older than the cut,
 * and counts their events. */
static void test_prune_pages(void **state)
{
    sked_store *st = *state;
    int64_t deleted = -1;
    sked_event left[80];

    create_runs(st, "old", 70); /* two pages at T0 */
    vclock.t += 3600 * SKED_USEC_PER_SEC;
    create_runs(st, "new", 5); /* one page an hour later */
    assert_int_equal(
        sked__store_event_prune(st, T0 + SKED_USEC_PER_SEC, &deleted, NULL), 0);
    assert_int_equal(deleted, 70);
    size_t n = read_all(st, 0, 100, left, 80);
    assert_int_equal(n, 5);
    assert_string_equal(left[0].subject, "new-000");
    free_list(left, n);
    assert_int_equal(sked__store_event_prune(st, T0, &deleted, NULL), 0);
    assert_int_equal(deleted, 0);
}

/* Build a schema-4 database from the embedded migrations 1 to 4. */
static void schema4(void)
{
    sql("DROP SCHEMA public CASCADE; CREATE SCHEMA public");
    for (const struct sked__migration *m = sked__schema_pg; m->sql; m++)
        if (m->version <= 4)
            sql(m->sql);
    sql("INSERT INTO meta (key, value) VALUES ('schema_version', '4')");
}

/* A schema-4 database with events 1..130 but for a hole (a rollback) at
 * 100: migrated, every event keeps its id, type, subject, payload and
 * time; the list and the view read the same; new events come after. */
static void test_migrate_keeps_ids(void **state)
{
    static sked_event got[200];
    char q[256];

    sked__store_close(*state);
    *state = NULL;
    schema4();
    sql("INSERT INTO events (type, subject, payload, at) "
        "SELECT 'old.' || g, 's' || g, '{\"g\":' || g || '}', 1000 + g "
        "FROM generate_series(1, 130) g");
    sql("DELETE FROM events WHERE id = 100");
    *state = open_store();
    /* Migrated past schema 5, to the latest. */
    assert_true(sql("SELECT value::int FROM meta "
                    "WHERE key = 'schema_version'") >= 5);
    create_runs(*state, "after", 3);
    size_t n = read_all(*state, 0, 50, got, 200);
    assert_int_equal(n, 129 + 3);
    for (size_t i = 0; i < 129; i++) {
        int64_t id = (int64_t) i + 1 + (i >= 99);
        char type[32];
        assert_true(got[i].id == id);
        snprintf(type, sizeof type, "old.%lld", (long long) id);
        assert_string_equal(got[i].type, type);
        assert_true(got[i].at == 1000 + id);
    }
    /* The first new page starts at the block after the old ids. */
    assert_true(got[129].id == sked__event_next_page(130));
    assert_true(got[131].id == got[129].id + 2);
    snprintf(q, sizeof q,
             "SELECT count(*) FROM events WHERE payload = '{\"g\":' || "
             "id || '}' AND subject = 's' || id AND id <= 130");
    assert_int_equal(sql(q), 129);
    free_list(got, n);
}

/* Claim up to 10 runs of workflow "wf" for EXECUTOR at the virtual now;
 * return how many. */
static size_t claim(sked_store *st, const char *executor)
{
    static const sked_claim_workflow wf[] = {{"wf", "v1", true}};
    sked_claim_req req = {.executor = executor,
                          .now = vclock.t,
                          .lease = 600 * SKED_USEC_PER_SEC,
                          .max = 10,
                          .workflows = wf,
                          .nworkflows = 1};
    sked_run *runs = NULL;
    sked_error err;
    size_t n = 0;

    if (sked__store_runs_claim(st, &req, &runs, &n, NULL, NULL, &err) != 0)
        fail_msg("claim: %s", err.msg);
    sked__runs_free(runs, n);
    return n;
}

/* A schema-4 database whose queue "rl" allows 3 starts a minute, with
 * two runs started 10 s ago (one finished) and one 2 minutes ago:
 * migrated, the two of the period still count, so a claim takes one run
 * of five; a minute later the claims drop the old starts and take three
 * more; a queue without a limit records nothing. */
static void test_rate_limit_carried_over(void **state)
{
    char q[1024];

    sked__store_close(*state);
    *state = NULL;
    vclock.t = sked__clock_now(NULL);
    schema4();
    snprintf(q, sizeof q,
             "INSERT INTO queues (name, rate_limit, rate_period_us, source, "
             "created_at, updated_at) VALUES ('rl', 3, 60000000, 'api', 0, 0);"
             "INSERT INTO runs (id, workflow, trigger_kind, queue, status, "
             "not_before, created_at, updated_at, started_at, finished_at) "
             "VALUES "
             "('old-1', 'wf', 'api', 'rl', 'completed', 0, 0, 0, %lld, %lld),"
             "('old-2', 'wf', 'api', 'rl', 'completed', 0, 0, 0, %lld, %lld),"
             "('old-3', 'wf', 'api', 'rl', 'failed', 0, 0, 0, %lld, %lld)",
             (long long) (vclock.t - 10 * SKED_USEC_PER_SEC),
             (long long) (vclock.t - 9 * SKED_USEC_PER_SEC),
             (long long) (vclock.t - 10 * SKED_USEC_PER_SEC),
             (long long) (vclock.t - 9 * SKED_USEC_PER_SEC),
             (long long) (vclock.t - 120 * SKED_USEC_PER_SEC),
             (long long) (vclock.t - 119 * SKED_USEC_PER_SEC));
    sql(q);
    *state = open_store();
    assert_int_equal(sql("SELECT count(*) FROM queue_starts"), 2);
    for (int i = 0; i < 5; i++) {
        snprintf(q, sizeof q,
                 "INSERT INTO runs (id, workflow, trigger_kind, queue, "
                 "not_before, created_at, updated_at) VALUES "
                 "('rl-%d', 'wf', 'api', 'rl', 0, %d, 0), "
                 "('free-%d', 'wf', 'api', 'default', 0, %d, 0)",
                 i, i, i, 10 + i);
        sql(q);
    }
    /* The five free runs, and one of rl (the third start of its minute). */
    assert_int_equal(claim(*state, "a"), 6);
    assert_int_equal(claim(*state, "a"), 0);
    assert_int_equal(sql("SELECT count(*) FROM queue_starts"), 3);
    assert_int_equal(sql("SELECT count(*) FROM queue_starts "
                         "WHERE queue <> 'rl'"),
                     0);
    vclock.t += 61 * SKED_USEC_PER_SEC;
    assert_int_equal(claim(*state, "b"), 3);
    assert_int_equal(sql("SELECT count(*) FROM queue_starts"), 3);
    assert_int_equal(sql("SELECT count(*) FROM runs WHERE queue = 'rl' "
                         "AND status = 'pending'"),
                     1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pages_and_list, setup, teardown),
        cmocka_unit_test_setup_teardown(test_large_events, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pages_pipeline_failure, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_prune_pages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrate_keeps_ids, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_rate_limit_carried_over, setup,
                                        teardown),
    };

    url = getenv("SKED_TEST_PG_URL");
    if (url == NULL || url[0] == '\0') {
        printf("test_pg_run_rate: SKED_TEST_PG_URL is not set; skipped\n");
        return 77;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
