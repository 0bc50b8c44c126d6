/* SPDX-License-Identifier: MIT */
/* Writes of many threads sharing commits (store_share.c) through the
 * engine door: triggers, run starts, pings and schedule creates asked at
 * the same time are written in one transaction, and each caller still
 * gets its own answer. Many threads triggering at once each get a run of
 * their own; in a batch forced by holding the database's writes back,
 * the operations that fail (a trigger refused by overlap skip, a second
 * create of one name, a ping of a schedule that is no heartbeat) get
 * their own error and leave nothing written (no run, no event), the
 * others commit, and two starts with one idempotency key name one run.
 * On a real SQLite file (synchronous=FULL, the default), and on
 * PostgreSQL as engine_shared.pg (SKED_TEST_DB_URL). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "engine/engine_int.h"
#include "sked/sked.h"
#include "test_db.h"

static char db_url[512], tmp_dir[512];

static sked_engine *open_engine(void)
{
    sked_engine_options o = {.db_url = db_url,
                             .tzdir = SKED_TEST_DATA "/zoneinfo"};
    sked_engine *e = NULL;
    sked_error err;

    if (sked_engine_open(&o, &e, &err) != 0)
        fail_msg("open %s: %s", db_url, err.msg);
    return e;
}

static void create(sked_engine *e, const char *name, sked_overlap overlap)
{
    sked_schedule s;
    sked_error err;

    sked_schedule_init(&s);
    s.name = strdup(name);
    s.workflow = strdup("report");
    s.cron = strdup("0 9 * * *");
    s.overlap = overlap;
    if (sked_engine_schedule_create(e, &s, &err) != 0)
        fail_msg("create %s: %s: %s", name, err.field, err.msg);
    sked_schedule_done(&s);
}

static void nap(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    (void) nanosleep(&ts, NULL);
}

static long long count(const char *fmt, const char *arg)
{
    char sql[512];
    long long n = -1;

    snprintf(sql, sizeof sql, fmt, arg);
    assert_int_equal(sked_test_sql(db_url, sql, &n), 0);
    return n;
}

/* ---- one caller's operation --------------------------------------------- */

typedef enum op_kind { OP_TRIGGER, OP_START, OP_CREATE, OP_PING } op_kind;

typedef struct op {
    sked_engine *e;
    op_kind kind;
    const char *name;  /* the schedule, workflow or new schedule */
    const char *key;   /* OP_START's idempotency key */
    const char *actor; /* who the caller is; NULL: the thread's default */
    int times;         /* OP_TRIGGER: how many, one after the other */
    /* what it got */
    int rc;
    bool created;
    char *ids[8];
    sked_error err;
} op;

static void *run_op(void *arg)
{
    op *o = arg;
    sked_schedule s;

    o->rc = 0;
    if (o->actor)
        (void) sked_engine_actor(o->actor);
    switch (o->kind) {
    case OP_TRIGGER:
        for (int i = 0; i < o->times && o->rc == 0; i++)
            o->rc = sked_engine_trigger(o->e, o->name, &o->ids[i], &o->err);
        break;
    case OP_START:
        o->rc = sked_engine_run_start_ex(o->e, o->name, "{\"n\":1}", o->key,
                                         &o->ids[0], &o->created, &o->err);
        break;
    case OP_CREATE:
        sked_schedule_init(&s);
        s.name = strdup(o->name);
        s.workflow = strdup("report");
        s.cron = strdup("*/5 * * * *");
        o->rc = sked_engine_schedule_create(o->e, &s, &o->err);
        sked_schedule_done(&s);
        break;
    case OP_PING:
        o->rc = sked_engine_schedule_ping(o->e, o->name, SKED_PING_SUCCESS,
                                          "done", 4, &o->ids[0], &o->err);
        break;
    }
    return NULL;
}

static void op_done(op *o)
{
    for (size_t i = 0; i < sizeof o->ids / sizeof o->ids[0]; i++)
        sked_free(o->ids[i]);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *) a, *(char *const *) b);
}

/* ---- many threads triggering at once --------------------------------- */

#define THREADS 32
#define TIMES   8

static void test_concurrent_triggers(void **state)
{
    sked_engine *e = open_engine();
    static op ops[THREADS];
    pthread_t th[THREADS];
    char *all[THREADS * TIMES];
    uint64_t b0, o0, b1, o1;
    int w;

    (void) state;
    static char names[THREADS][16];

    /* A schedule per thread: triggers of one schedule in one microsecond
     * are one run (SPEC 3.1), those of one thread are not. */
    for (int i = 0; i < THREADS; i++) {
        snprintf(names[i], sizeof names[i], "many-%02d", i);
        create(e, names[i], SKED_OVERLAP_ALLOW);
    }
    sked__store_share_counts(e->store, &w, &b0, &o0);
    for (int i = 0; i < THREADS; i++) {
        ops[i] =
            (op){.e = e, .kind = OP_TRIGGER, .name = names[i], .times = TIMES};
        assert_int_equal(pthread_create(&th[i], NULL, run_op, &ops[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    sked__store_share_counts(e->store, &w, &b1, &o1);
    for (int i = 0; i < THREADS; i++) {
        if (ops[i].rc != 0)
            fail_msg("trigger %d: %s", i, ops[i].err.msg);
        for (int k = 0; k < TIMES; k++) {
            assert_non_null(ops[i].ids[k]);
            all[i * TIMES + k] = ops[i].ids[k];
        }
    }
    /* Every caller its own run: the ids are distinct, each is a row. */
    qsort(all, THREADS * TIMES, sizeof *all, cmp_str);
    for (int i = 1; i < THREADS * TIMES; i++)
        if (strcmp(all[i - 1], all[i]) == 0)
            fail_msg("two triggers answered with run %s", all[i]);
    for (int i = 0; i < THREADS * TIMES; i += 17)
        assert_int_equal(
            count("SELECT count(*) FROM runs WHERE id = '%s'", all[i]), 1);
    assert_int_equal(
        count("SELECT count(*) FROM runs WHERE schedule LIKE '%s-%%'", "many"),
        THREADS * TIMES);
    assert_int_equal(count("SELECT count(*) FROM events WHERE type = "
                           "'run.created' AND subject LIKE 'sched-%s-%%'",
                           "many"),
                     THREADS * TIMES);
    fprintf(stderr,
            "# %d triggers from %d threads: %llu shared "
            "transactions of %llu of them\n",
            THREADS * TIMES, THREADS, (unsigned long long) (b1 - b0),
            (unsigned long long) (o1 - o0));
    for (int i = 0; i < THREADS; i++)
        op_done(&ops[i]);
    sked_engine_close(e);
}

/* ---- one batch with failures -------------------------------------------- */

#define BLOCKERS 16

static void test_batch_failures_alone(void **state)
{
    sked_engine *e = open_engine();
    op ops[] = {
        {.kind = OP_TRIGGER, .name = "open", .times = 1, .actor = "lead"},
        {.kind = OP_TRIGGER, .name = "open", .times = 1, .actor = "one"},
        {.kind = OP_TRIGGER, .name = "alone", .times = 1}, /* 2: one of */
        {.kind = OP_TRIGGER, .name = "alone", .times = 1}, /* 3: these */
        {.kind = OP_START, .name = "report", .key = "k1"}, /* 4: one run */
        {.kind = OP_START, .name = "report", .key = "k1"}, /* 5 */
        {.kind = OP_CREATE, .name = "dup"},                /* 6: one of */
        {.kind = OP_CREATE, .name = "dup"},                /* 7: these */
        {.kind = OP_PING, .name = "open"},                 /* 8: refused */
        {.kind = OP_TRIGGER, .name = "open", .times = 1, .actor = "nine"},
    };
    enum { N = sizeof ops / sizeof ops[0] };
    pthread_t th[N];
    uint64_t b0, o0, b1, o1;
    int w;
    sked_test_lock *lock;
    op blockers[BLOCKERS];
    pthread_t bth[BLOCKERS];
    char bnames[BLOCKERS][16];

    (void) state;
    create(e, "open", SKED_OVERLAP_ALLOW);
    create(e, "alone", SKED_OVERLAP_SKIP);
    sked__store_share_counts(e->store, &w, &b0, &o0);
    /* Hold the writes back: the first caller leads and waits for them,
     * the others queue behind it and go in the next transaction. */
    lock = sked_test_lock_writes(db_url, "runs");
    assert_non_null(lock);
    /* PostgreSQL writes W batches at once: W - 1 triggers of their own
     * schedules take the other leaders' places first. */
    for (int i = 0; i < w - 1 && i < BLOCKERS; i++) {
        snprintf(bnames[i], sizeof bnames[i], "lead-%d", i);
        create(e, bnames[i], SKED_OVERLAP_ALLOW);
        blockers[i] =
            (op){.e = e, .kind = OP_TRIGGER, .name = bnames[i], .times = 1};
        assert_int_equal(pthread_create(&bth[i], NULL, run_op, &blockers[i]),
                         0);
        nap(100);
    }
    for (int i = 0; i < N; i++) {
        ops[i].e = e;
        assert_int_equal(pthread_create(&th[i], NULL, run_op, &ops[i]), 0);
        /* Apart: two triggers of one schedule in one microsecond would
         * be one run (SPEC 3.1). */
        nap(i == 0 ? 200 : 2);
    }
    nap(500);
    sked_test_unlock(lock);
    for (int i = 0; i < N; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < w - 1 && i < BLOCKERS; i++) {
        pthread_join(bth[i], NULL);
        assert_int_equal(blockers[i].rc, 0);
        op_done(&blockers[i]);
    }
    sked__store_share_counts(e->store, &w, &b1, &o1);
    fprintf(stderr,
            "# %d callers, %d at once: %llu shared transactions "
            "of %llu\n",
            N, w, (unsigned long long) (b1 - b0),
            (unsigned long long) (o1 - o0));
    /* The nine behind the leader shared a commit, failures among them:
     * one on SQLite; on PostgreSQL each leader done may take a part. */
    assert_true(b1 - b0 >= 1);
    assert_true(o1 - o0 >= (uint64_t) (N - w));
    if (w == 1)
        assert_int_equal(b1 - b0, 1);

    /* The triggers of "open": each its run and its event. */
    for (int i = 0; i < N; i++) {
        if (ops[i].kind != OP_TRIGGER || strcmp(ops[i].name, "open") != 0)
            continue;
        if (ops[i].rc != 0)
            fail_msg("trigger %d: %s", i, ops[i].err.msg);
        assert_int_equal(
            count("SELECT count(*) FROM runs WHERE id = '%s'", ops[i].ids[0]),
            1);
        assert_int_equal(count("SELECT count(*) FROM events WHERE type = "
                               "'run.created' AND subject = '%s'",
                               ops[i].ids[0]),
                         1);
        /* Its event is its caller's, whichever thread wrote the batch. */
        char like[128];
        snprintf(like, sizeof like, "%%\"actor\":\"%s\"}", ops[i].actor);
        char sql[512];
        long long n = -1;
        snprintf(sql, sizeof sql,
                 "SELECT count(*) FROM events WHERE type = 'run.created' AND "
                 "subject = '%s' AND payload LIKE '%s'",
                 ops[i].ids[0], like);
        assert_int_equal(sked_test_sql(db_url, sql, &n), 0);
        if (n != 1)
            fail_msg("the run.created of trigger %d is not %s's", i,
                     ops[i].actor);
    }
    assert_int_equal(
        count("SELECT count(*) FROM runs WHERE schedule = '%s'", "open"), 3);
    /* Overlap skip: one trigger has the run, the other the conflict. */
    assert_int_equal(ops[2].rc + ops[3].rc, SKED_ECONFLICT);
    op *refused = ops[2].rc ? &ops[2] : &ops[3];
    assert_string_equal(refused->err.field, "name");
    assert_null(refused->ids[0]);
    assert_int_equal(
        count("SELECT count(*) FROM runs WHERE schedule = '%s'", "alone"), 1);
    assert_int_equal(count("SELECT count(*) FROM events WHERE type = "
                           "'run.created' AND subject LIKE 'sched-%s-%%'",
                           "alone"),
                     1);
    /* One idempotency key, one run: the second sees the first's. */
    assert_int_equal(ops[4].rc, 0);
    assert_int_equal(ops[5].rc, 0);
    assert_string_equal(ops[4].ids[0], ops[5].ids[0]);
    assert_true(ops[4].created != ops[5].created);
    assert_int_equal(
        count("SELECT count(*) FROM runs WHERE id = '%s'", ops[4].ids[0]), 1);
    assert_int_equal(count("SELECT count(*) FROM events WHERE type = "
                           "'run.created' AND subject = '%s'",
                           ops[4].ids[0]),
                     1);
    /* One create of "dup" made it, the other is told it exists. */
    assert_int_equal(ops[6].rc + ops[7].rc, SKED_ECONFLICT);
    assert_int_equal(
        count("SELECT count(*) FROM schedules WHERE name = '%s'", "dup"), 1);
    assert_int_equal(count("SELECT count(*) FROM events WHERE type = "
                           "'schedule.created' AND subject = '%s'",
                           "dup"),
                     1);
    /* The ping of a schedule that is no heartbeat: its error, nothing
     * written. */
    assert_int_equal(ops[8].rc, SKED_EINVAL);
    assert_string_equal(ops[8].err.field, "name");
    assert_null(ops[8].ids[0]);
    assert_int_equal(count("SELECT count(*) FROM events WHERE type IN "
                           "('run.succeeded', 'run.completed', "
                           "'run.started') AND subject LIKE '%s%%'",
                           "sched-open"),
                     0);
    for (int i = 0; i < N; i++)
        op_done(&ops[i]);
    sked_engine_close(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concurrent_triggers),
        cmocka_unit_test(test_batch_failures_alone),
    };
    int rc;

    if (sked_test_db_url("shared.db", db_url, tmp_dir, sizeof db_url) != 0)
        return 1;
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    sked_test_tmp_remove(tmp_dir);
    return rc;
}
