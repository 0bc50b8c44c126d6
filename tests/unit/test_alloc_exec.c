/* SPDX-License-Identifier: MIT */
/* The scheduler's firing and the executor under allocation failures
 * (tests/lib/test_alloc.h), on SKED_TEST_DB_URL (PostgreSQL through
 * tests/pg) or a fresh SQLite file, on a virtual clock.
 *
 * Each pass starts a run (or moves the clock to an occurrence), then
 * claims and executes it (or ticks the scheduler) with the Nth
 * allocation failing; then, with nothing failing any more, the clock
 * moves past the lease and the engine works again, as a server would
 * once memory is back. Whatever the pass left, the run then ends as it
 * would have: the same status, error and output, every completed step's
 * compensation run (in reverse order), every occurrence fired once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "test_alloc.h"
#include "test_db.h"

#include "engine/engine_int.h"
#include "store/store.h"
#include "sked/engine.h"
#include "sked/sked.h"

#define SEC   SKED_USEC_PER_SEC
#define LEASE (30 * SEC)

static char db_url[1024];
static char tmp_dir[1024];
static _Atomic sked_time vnow;
static sked_clock vclock;
static sked_tzdb *tzdb;
static sked_engine *eng;

static sked_time read_now(void *ctx)
{
    (void) ctx;
    return vnow;
}

static sked_time T(const char *s)
{
    sked_time t = 0;
    assert_int_equal(sked_time_parse(s, &t, NULL), 0);
    return t;
}

/* The quick loops fail every Nth allocation (test_alloc.h): a pass
 * costs a few transactions, more on PostgreSQL, and a firing pass opens
 * an engine. */
static long stride(int weight)
{
    return (strncmp(db_url, "sqlite:", 7) == 0 ? 3 : 10) * weight;
}

/* ---- steps ------------------------------------------------------------- */

/* a: gives {"n":1}. b: fails its first attempt, then needs a's output and
 * gives text. c: always fails. Compensations succeed. */
static int step_a(sked_ctx *ctx, const char *input, char **out)
{
    (void) ctx;
    (void) input;
    *out = strdup("{\"n\":1}");
    return *out ? 0 : 1;
}

static int step_b(sked_ctx *ctx, const char *input, char **out)
{
    const char *a = sked_ctx_output(ctx, "a");

    (void) input;
    if (sked_ctx_attempt(ctx) == 1) {
        sked_ctx_fail(ctx, "b fails its first attempt");
        return 1;
    }
    if (!a || strcmp(a, "{\"n\":1}") != 0) {
        sked_ctx_fail(ctx, "b did not get the output of a");
        return 2;
    }
    *out = strdup("plain text");
    return *out ? 0 : 1;
}

static int step_c(sked_ctx *ctx, const char *input, char **out)
{
    (void) input;
    (void) out;
    sked_ctx_fail(ctx, "c always fails");
    return 3;
}

/* A compensation takes a second, so that the attempts read back in the
 * order they ran. */
static int undo(sked_ctx *ctx, const char *input, char **out)
{
    (void) ctx;
    (void) input;
    (void) out;
    vnow += SEC;
    return 0;
}

/* Workflow NAME: a, b (after a), and c (after b) when WITH_C. */
static void define(const char *name, bool with_c)
{
    static const char *const after_a[] = {"a"}, *const after_b[] = {"b"};
    sked_workflow *w = NULL;
    sked_error err;
    sked_step_options oa = {.compensate = undo};
    sked_step_options ob = {.needs = after_a,
                            .nneeds = 1,
                            .retry = {.attempts = 2},
                            .compensate = undo};
    sked_step_options oc = {.needs = after_b, .nneeds = 1};

    if (sked_workflow_new(name, &w, &err) != 0 ||
        sked_workflow_set_version(w, "v1", &err) != 0 ||
        sked_workflow_add_step(w, "a", step_a, &oa, &err) != 0 ||
        sked_workflow_add_step(w, "b", step_b, &ob, &err) != 0 ||
        (with_c && sked_workflow_add_step(w, "c", step_c, &oc, &err) != 0) ||
        sked_engine_register(eng, w, &err) != 0)
        fail_msg("workflow %s: %s", name, err.msg);
    /* The first work records the workflows' versions: not under test. */
    size_t done = 0;
    assert_int_equal(sked__engine_work(eng, 1, &done, NULL), 0);
}

/* ---- runs, as the user reads them ---------------------------------------- */

/* Run ID as its JSON (json_decref). */
static json_t *run_of(const char *id)
{
    char *s = NULL;
    json_t *o;

    assert_int_equal(sked_engine_run_get(eng, id, &s, NULL), 0);
    o = json_loads(s, 0, NULL);
    sked_free(s);
    assert_non_null(o);
    return o;
}

static const char *jstr(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* What the user sees of run ID once it ended: its status, error, output,
 * and its compensations in order ("~b ~a"). */
static void outcome(const char *id, char *buf, size_t size)
{
    json_t *r = run_of(id), *s;
    char *output = json_dumps(json_object_get(r, "output"),
                              JSON_ENCODE_ANY | JSON_COMPACT);
    size_t len, i;

    len = (size_t) snprintf(buf, size, "%s|%s|%s|%s|", jstr(r, "status"),
                            jstr(r, "error_code"), jstr(r, "error"),
                            output ? output : "null");
    free(output);
    json_array_foreach(json_object_get(r, "steps"), i, s)
    {
        if (!json_is_true(json_object_get(s, "compensation")) ||
            strcmp(jstr(s, "status"), "completed") != 0)
            continue;
        len +=
            (size_t) snprintf(buf + len, size - len, " ~%s", jstr(s, "step"));
    }
    json_decref(r);
}

/* Work as a server does once memory is back: claim what is due, and when
 * a run is still not done, let its lease lapse and claim it again. */
static void recover(const char *id)
{
    for (int i = 0; i < 20; i++) {
        size_t done = 0;
        assert_int_equal(sked__engine_work(eng, 16, &done, NULL), 0);
        json_t *r = run_of(id);
        const char *s = jstr(r, "status");
        bool end = strcmp(s, "completed") == 0 || strcmp(s, "failed") == 0 ||
                   strcmp(s, "cancelled") == 0;
        json_decref(r);
        if (end)
            return;
        vnow += LEASE + SEC;
    }
    fail_msg("run %s never ended", id);
}

/* ---- the executor ------------------------------------------------------ */

typedef struct xcase {
    const char *workflow;
    char id[256];
    char ref[4096], got[4096];
    int pass;
} xcase;

static void x_prepare(void *ctx)
{
    xcase *c = ctx;
    char *id = NULL;
    char key[64];

    vnow += 1000 * SEC;
    snprintf(key, sizeof key, "pass-%d", c->pass++);
    assert_int_equal(
        sked_engine_run_start(eng, c->workflow, NULL, key, &id, NULL), 0);
    snprintf(c->id, sizeof c->id, "%s", id);
    sked_free(id);
}

static int x_run(void *ctx)
{
    size_t done = 0;

    (void) ctx;
    return sked__engine_work(eng, 16, &done, NULL);
}

static void x_check(void *ctx, int rc, long failed)
{
    xcase *c = ctx;

    (void) rc;
    recover(c->id);
    outcome(c->id, c->got, sizeof c->got);
    if (strcmp(c->got, c->ref) != 0)
        fail_msg("%s: %ld allocations failed, then the run ended\n  %s\n"
                 "not\n  %s",
                 c->id, failed, c->got, c->ref);
}

static void exec_loop(const char *workflow, const char *want)
{
    xcase c = {.workflow = workflow};

    x_prepare(&c);
    assert_int_equal(x_run(&c), 0);
    outcome(c.id, c.ref, sizeof c.ref);
    assert_string_equal(c.ref, want);
    sked_test_alloc_case a = {.name = workflow,
                              .ctx = &c,
                              .prepare = x_prepare,
                              .run = x_run,
                              .check = x_check,
                              .stride = stride(1)};
    long n = sked_test_alloc_loop(&a);
    print_message("%s: %ld passes\n", workflow, n);
}

/* A run that completes: a's output reaches b, and both make the run's. */
static void test_executor_completes(void **state)
{
    (void) state;
    define("good", false);
    exec_loop("good", "completed|||{\"a\":{\"n\":1},\"b\":\"plain text\"}|");
}

/* A run whose last step fails: b and a are compensated, in that order,
 * whatever failed on the way. */
static void test_executor_compensates(void **state)
{
    (void) state;
    define("comp", true);
    exec_loop("comp", "failed|step_failed|step c failed: c always fails|null|"
                      " ~b ~a");
}

/* ---- the scheduler's firing -------------------------------------------- */

typedef struct fcase {
    char *before;  /* the database before the tick */
    char *ref;     /* after the clean tick */
    sked_time due; /* the tick's time */
    long pass;
} fcase;

/* Schedule NAME, created through the engine, or when ST is not NULL
 * through that store, as another server would (this engine's scheduler
 * learns of it when it rereads). */
static void schedule_add(sked_store *st, const char *name, const char *cron,
                         sked_overlap o)
{
    sked_schedule s;
    sked_error err;
    int rc;

    sked_schedule_init(&s);
    s.name = strdup(name);
    s.workflow = strdup("good");
    s.cron = strdup(cron);
    s.timezone = strdup("Europe/Paris");
    s.overlap = o;
    s.catchup = SKED_CATCHUP_ALL;
    rc = st ? sked__store_schedule_create(st, &s, &err)
            : sked_engine_schedule_create(eng, &s, &err);
    if (rc != 0)
        fail_msg("schedule %s: %s", name, err.msg);
    sked_schedule_done(&s);
}

/* Sixteen schedules made by another server, for the 11:00 tick to take
 * in: more than the scheduler's heap holds so far, so it must grow. */
static void others_add(void)
{
    sked_store_options o = {
        .tzdb = tzdb, .clock = &vclock, .sqlite_synchronous = "normal"};
    sked_store *st = NULL;

    assert_int_equal(sked__store_open(db_url, &o, &st, NULL), 0);
    for (int i = 0; i < 16; i++) {
        char name[32];
        snprintf(name, sizeof name, "other-%02d", i);
        schedule_add(st, name, "0 11 * * *", SKED_OVERLAP_ALLOW);
    }
    sked__store_close(st);
}

static int setup(void **state);
static int teardown(void **state);

/* A new engine each pass (the scheduler's memory of the schedules starts
 * from the store's), its schedules created at 08:00 and read. */
static void f_prepare(void *ctx)
{
    fcase *c = ctx;

    c->pass++;
    if (eng)
        teardown(NULL);
    setup(NULL);
    define("good", false);
    schedule_add(NULL, "hourly", "0 * * * *", SKED_OVERLAP_ALLOW);
    schedule_add(NULL, "quarter", "*/15 * * * *", SKED_OVERLAP_SKIP);
    schedule_add(NULL, "daily", "30 8 * * *", SKED_OVERLAP_BUFFER_ALL);
    /* The scheduler reads the schedules, others come, three hours pass. */
    assert_int_equal(sked_engine_tick(eng, NULL), 0);
    others_add();
    vnow = c->due;
}

static int f_run(void *ctx)
{
    (void) ctx;
    return sked_engine_tick(eng, NULL);
}

/* What the firing decided: each schedule's cursor and next occurrence,
 * the runs, their events (not when they were written: a firing put back
 * goes at the next pass). */
static char *fired(void)
{
    static const char *const sql[] = {
        "SELECT name, status, next_fire_at, last_fired_at, runs_created "
        "FROM schedules",
        "SELECT id, status, trigger_kind, schedule, scheduled_for, not_before, "
        "concurrency_key FROM runs",
        "SELECT type, subject, payload FROM events"};

    return sked_test_dump_sql(db_url, sql, sizeof sql / sizeof *sql);
}

/* The scheduler's next passes, as a server runs them: at once, then a
 * second later. */
static void next_ticks(const fcase *c)
{
    assert_int_equal(sked_engine_tick(eng, NULL), 0);
    vnow = c->due + SEC;
    assert_int_equal(sked_engine_tick(eng, NULL), 0);
}

static void f_check(void *ctx, int rc, long failed)
{
    fcase *c = ctx;
    char *now;

    (void) failed;
    /* Each occurrence fired once, none lost, with the events of their
     * runs. */
    next_ticks(c);
    now = fired();
    assert_non_null(now);
    if (c->ref && strcmp(now, c->ref) != 0) {
        sked_test_dump_diff("the database", now, c->ref);
        fail_msg("allocation %ld failed (%s), then the scheduler ticked "
                 "again: not what one clean tick leaves",
                 c->pass, sked_strerror(rc));
    }
    free(now);
}

static void test_scheduler_fires(void **state)
{
    fcase c = {.due = T("2026-01-10T11:00:00Z"), .pass = -1};

    (void) state;
    f_prepare(&c);
    assert_int_equal(f_run(&c), 0);
    next_ticks(&c);
    c.ref = fired();
    assert_non_null(c.ref);
    sked_test_alloc_case a = {.name = "tick",
                              .ctx = &c,
                              .prepare = f_prepare,
                              .run = f_run,
                              .check = f_check,
                              .stride = stride(2)};
    long n = sked_test_alloc_loop(&a);
    print_message("tick: %ld passes\n", n);
    free(c.ref);
}

/* ---- fixtures ---------------------------------------------------------- */

static int setup(void **state)
{
    sked_engine_options o = {.db_url = db_url,
                             .tzdir = SKED_TEST_DATA "/zoneinfo",
                             .clock = &vclock,
                             .node_id = "alloc-test",
                             .sqlite_synchronous = "normal",
                             .workers = -1,
                             .lease = LEASE};
    char script[512];
    sked_error err;

    (void) state;
    vnow = T("2026-01-10T08:00:00Z");
    /* Empty before the engine opens: it reads the schedules at once. The
     * first engine ever opened creates the tables. */
    snprintf(script, sizeof script,
             "DELETE FROM steps; DELETE FROM runs; DELETE FROM %s; "
             "DELETE FROM schedules; DELETE FROM workflow_versions; "
             "DELETE FROM queues",
             sked_test_events_table(db_url));
    if (sked_test_exec(db_url, script) != 0) {
        if (sked_engine_open(&o, &eng, &err) != 0)
            fail_msg("open %s: %s", db_url, err.msg);
        sked_engine_close(eng);
        assert_int_equal(sked_test_exec(db_url, script), 0);
    }
    if (sked_engine_open(&o, &eng, &err) != 0)
        fail_msg("open %s: %s", db_url, err.msg);
    return 0;
}

static int teardown(void **state)
{
    (void) state;
    sked_engine_close(eng);
    eng = NULL;
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_executor_completes, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_executor_compensates, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_scheduler_fires, setup, teardown),
    };
    int failed;

    if (sked_test_db_url("exec.db", db_url, tmp_dir, sizeof db_url) != 0)
        return 1;
    vclock = (sked_clock){read_now, read_now, NULL};
    if (sked_tzdb_open(SKED_TEST_DATA "/zoneinfo", &tzdb, NULL) != 0)
        return 1;
    sked_test_alloc_jansson();
    failed = cmocka_run_group_tests(tests, NULL, NULL);
    sked_tzdb_close(tzdb);
    if (!failed)
        sked_test_tmp_remove(tmp_dir);
    return failed;
}
