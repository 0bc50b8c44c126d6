/* SPDX-License-Identifier: MIT */
/* The store under allocation failures (tests/lib/test_alloc.h), on every
 * back-end like test_store.c (SKED_TEST_DB_URL, else a fresh SQLite
 * file): each operation runs again with its Nth allocation failing, N =
 * 1, 2, ... until one runs with none failed, from the same database
 * content each time.
 *
 * After every pass the database, dumped with its own client
 * (tests/lib/test_db.h), is what it was before the operation, or what
 * the clean operation leaves: a pass that returned 0 left the latter, a
 * pass that returned SKED_ENOMEM either, never anything in between. What
 * a read gives back is what the clean read gives. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_alloc.h"
#include "test_db.h"

#include "base/clock.h"
#include "model/schedule_json.h"
#include "store/store.h"
#include "store/store_run.h"

#define SEC    SKED_USEC_PER_SEC
#define T0     "2026-01-10T12:00:00Z"
#define OUTMAX 16384

static char db_url[1024];
static char tmp_dir[1024];
static sked_tzdb *tzdb;
static sked_virtual_clock vclock;
static sked_clock clock_;
static sked_store *st;

static sked_time T(const char *s)
{
    sked_time t = 0;
    assert_int_equal(sked_time_parse(s, &t, NULL), 0);
    return t;
}

/* ---- one operation, its seed and its loop ------------------------------ */

/* An operation of the store: SEED (disarmed) writes what it starts from
 * on empty tables; OP (armed) runs it and may write what it read into
 * OUT. */
typedef struct opcase {
    const char *name;
    void (*seed)(void);
    int (*op)(char *out, size_t size);
    char *dump_before, *dump_after;
    char out[OUTMAX], ref_out[OUTMAX];
} opcase;

static void empty_tables(void)
{
    char script[512];

    snprintf(script, sizeof script,
             "DELETE FROM steps; DELETE FROM runs; DELETE FROM %s; "
             "DELETE FROM schedules; DELETE FROM queues; "
             "DELETE FROM workflow_versions",
             sked_test_events_table(db_url));
    if (sked_test_exec(db_url, script) != 0)
        fail_msg("cannot empty the tables of %s", db_url);
}

static char *dump(void)
{
    char *d = sked_test_dump(db_url);
    if (!d)
        fail_msg("cannot dump %s", db_url);
    return d;
}

static void prepare(void *ctx)
{
    opcase *c = ctx;

    vclock.t = T(T0);
    empty_tables();
    if (c->seed)
        c->seed();
    vclock.t += SEC;
    c->out[0] = '\0';
}

static int run(void *ctx)
{
    opcase *c = ctx;
    return c->op(c->out, sizeof c->out);
}

static void check(void *ctx, int rc, long failed)
{
    opcase *c = ctx;
    char *now = dump();
    bool same = strcmp(now, c->dump_before) == 0;
    bool whole = strcmp(now, c->dump_after) == 0;

    if (rc == 0 && !whole) {
        sked_test_dump_diff("the database", now, c->dump_after);
        fail_msg("%s: %ld allocations failed, 0 returned, and the database "
                 "is not what the operation leaves",
                 c->name, failed);
    }
    if (rc == 0 && strcmp(c->out, c->ref_out) != 0) {
        sked_test_dump_diff("what was read", c->out, c->ref_out);
        fail_msg("%s: read something else", c->name);
    }
    if (rc != 0 && !same && !whole) {
        sked_test_dump_diff("the database, against the one before", now,
                            c->dump_before);
        fail_msg("%s: half-written after a failed allocation", c->name);
    }
    if (rc != 0 && !same) {
        sked_test_dump_diff("the database, against the one before", now,
                            c->dump_before);
        fail_msg("%s: SKED_ENOMEM returned, but the change was committed",
                 c->name);
    }
    free(now);
}

/* Run C clean (its reference), then its allocation failure loop. */
static void loop(opcase *c)
{
    prepare(c);
    c->dump_before = dump();
    if (c->op(c->ref_out, sizeof c->ref_out) != 0)
        fail_msg("%s: the clean operation failed", c->name);
    c->dump_after = dump();
    sked_test_alloc_case a = {.name = c->name,
                              .ctx = c,
                              .prepare = prepare,
                              .run = run,
                              .check = check,
                              /* a pass costs more on PostgreSQL */
                              .stride = strncmp(db_url, "sqlite:", 7) ? 5 : 1};
    long n = sked_test_alloc_loop(&a);
    print_message("%s: %ld passes\n", c->name, n);
    free(c->dump_before);
    free(c->dump_after);
}

/* ---- seeds ------------------------------------------------------------- */

static void schedule_make(sked_schedule *s, const char *name, const char *cron)
{
    sked_schedule_init(s);
    s->name = strdup(name);
    s->workflow = strdup("report");
    s->cron = strdup(cron);
    s->timezone = strdup("Europe/Paris");
    s->context = strdup("{\"region\":\"eu\",\"n\":[1,2,3]}");
    s->overlap = SKED_OVERLAP_SKIP;
}

static void schedule_add(const char *name, const char *cron)
{
    sked_schedule s;
    sked_error err;

    schedule_make(&s, name, cron);
    if (sked__store_schedule_create(st, &s, &err) != 0)
        fail_msg("create %s: %s", name, err.msg);
    sked_schedule_done(&s);
}

static void seed_schedules(void)
{
    schedule_add("alpha", "0 9 * * *");
    schedule_add("beta", "*/5 * * * *");
    schedule_add("gamma", "0 0 1 * *");
}

static const sked_claim_workflow report_v1[] = {{"report", "v1", true}};

static void runs_add(int n)
{
    for (int i = 0; i < n; i++) {
        char id[32];
        snprintf(id, sizeof id, "run-%d", i);
        sked_run_new r = {.id = id,
                          .workflow = "report",
                          .scheduled_for = SKED_TIME_NONE,
                          .not_before = SKED_TIME_NONE,
                          .context = "{\"i\":1}"};
        if (sked__store_runs_insert(st, &r, 1, NULL, NULL) != 0)
            fail_msg("insert %s", id);
        vclock.t++;
    }
}

static sked_claim_req claim_req(const char *executor, size_t max)
{
    return (sked_claim_req){.executor = executor,
                            .now = vclock.t,
                            .lease = 30 * SEC,
                            .max = max,
                            .workflows = report_v1,
                            .nworkflows = 1};
}

static void seed_runs(void)
{
    seed_schedules();
    runs_add(3);
}

/* Two runs held by executor "a": run-0 with a step running. */
static void seed_claimed(void)
{
    sked_claim_req req;
    sked_run *runs = NULL;
    size_t n = 0;

    seed_runs();
    req = claim_req("a", 2);
    assert_int_equal(
        sked__store_runs_claim(st, &req, &runs, &n, NULL, NULL, NULL), 0);
    assert_int_equal(n, 2);
    sked__runs_free(runs, n);
    sked_run_op op = {.kind = SKED_RUN_OP_STEP_BEGIN,
                      .run_id = "run-0",
                      .executor = "a",
                      .at = vclock.t,
                      .step = {.step = "extract",
                               .attempt = 1,
                               .exit_code = -1,
                               .started_at = vclock.t,
                               .finished_at = SKED_TIME_NONE}};
    int result = -1;
    assert_int_equal(sked__store_run_ops(st, &op, 1, &result, NULL, NULL, NULL),
                     0);
    assert_int_equal(result, 0);
}

/* ---- what reads give back ---------------------------------------------- */

static int put(char *out, size_t size, const char *fmt, ...)
{
    size_t len = strlen(out);
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(out + len, size - len, fmt, ap);
    va_end(ap);
    return 0;
}

static void put_events(char *out, size_t size, sked_event *ev, size_t n)
{
    for (size_t i = 0; i < n; i++)
        put(out, size, "%s %s %s\n", ev[i].type, ev[i].subject, ev[i].payload);
    sked__events_free(ev, n);
}

static void put_runs(char *out, size_t size, sked_run *runs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        put(out, size, "%s %s %s %d\n", runs[i].id,
            sked__run_status_name(runs[i].status),
            runs[i].executor ? runs[i].executor : "-", runs[i].recovered);
    sked__runs_free(runs, n);
}

/* ---- schedules ----------------------------------------------------------- */

static int op_create(char *out, size_t size)
{
    sked_schedule s;
    int rc;

    (void) out;
    (void) size;
    schedule_make(&s, "delta", "30 8 * * 1-5");
    s.catchup_max = 3;
    rc = sked__store_schedule_create(st, &s, NULL);
    sked_schedule_done(&s);
    return rc;
}

static int op_update(char *out, size_t size)
{
    sked_schedule s;
    int rc;

    (void) out;
    (void) size;
    schedule_make(&s, "beta", "0 */2 * * *");
    free(s.context);
    s.context = strdup("{\"changed\":true}");
    rc = sked__store_schedule_update(st, &s, NULL);
    sked_schedule_done(&s);
    return rc;
}

static int op_list(char *out, size_t size)
{
    sked_schedule_filter f = {.status = -1, .limit = 2};
    sked_schedule *list = NULL;
    size_t n = 0;
    bool more = false;
    int rc = sked__store_schedule_list(st, &f, &list, &n, &more, NULL);

    if (rc != 0)
        return rc;
    sked_test_alloc_stop();
    for (size_t i = 0; i < n; i++) {
        char *text = NULL;
        assert_int_equal(sked__schedule_to_json_text(&list[i], &text, NULL), 0);
        put(out, size, "%s\n", text);
        free(text);
    }
    put(out, size, "more %d\n", more);
    sked__schedules_free(list, n);
    return 0;
}

static int op_get(char *out, size_t size)
{
    sked_schedule s;
    char *text = NULL;
    int rc = sked__store_schedule_get(st, "alpha", &s, NULL);

    if (rc != 0)
        return rc;
    sked_test_alloc_stop();
    assert_int_equal(sked__schedule_to_json_text(&s, &text, NULL), 0);
    put(out, size, "%s", text);
    free(text);
    sked_schedule_done(&s);
    return 0;
}

static int op_apply(char *out, size_t size)
{
    sked_schedule set[3];
    sked_apply_result r = {0};
    int rc;

    schedule_make(&set[0], "alpha", "0 9 * * *"); /* unchanged */
    free(set[0].context); /* the same value, written otherwise */
    set[0].context = strdup("{ \"n\": [1, 2, 3], \"region\": \"eu\" }");
    schedule_make(&set[1], "beta", "0 12 * * *"); /* updated */
    schedule_make(&set[2], "omega", "0 3 * * *"); /* created */
    for (int i = 0; i < 3; i++)
        set[i].source = SKED_SOURCE_CODE;
    rc = sked__store_schedule_apply(st, set, 3, "default", true, &r, NULL);
    for (int i = 0; i < 3; i++)
        sked_schedule_done(&set[i]);
    put(out, size, "%zu %zu %zu %zu", r.created, r.updated, r.unchanged,
        r.deleted);
    return rc;
}

/* Schedules of the code source, for op_apply to update and prune. */
static void seed_code_schedules(void)
{
    sked_schedule set[3];

    schedule_make(&set[0], "alpha", "0 9 * * *");
    schedule_make(&set[1], "beta", "*/5 * * * *");
    schedule_make(&set[2], "gamma", "0 0 1 * *");
    assert_int_equal(
        sked__store_schedule_apply(st, set, 3, "default", false, NULL, NULL),
        0);
    for (int i = 0; i < 3; i++)
        sked_schedule_done(&set[i]);
}

static int op_pause(char *out, size_t size)
{
    (void) out;
    (void) size;
    return sked__store_schedule_pause(st, "alpha", NULL);
}

static int op_delete(char *out, size_t size)
{
    bool existed = false;
    int rc = sked__store_schedule_delete(st, "gamma", &existed, NULL);

    put(out, size, "%d", existed);
    return rc;
}

static void test_schedules(void **state)
{
    static opcase cases[] = {
        {.name = "schedule create", .seed = seed_schedules, .op = op_create},
        {.name = "schedule update", .seed = seed_schedules, .op = op_update},
        {.name = "schedule list", .seed = seed_schedules, .op = op_list},
        {.name = "schedule get", .seed = seed_schedules, .op = op_get},
        {.name = "schedule apply", .seed = seed_code_schedules, .op = op_apply},
        {.name = "schedule pause", .seed = seed_schedules, .op = op_pause},
        {.name = "schedule delete", .seed = seed_schedules, .op = op_delete},
    };

    (void) state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        if (i < 3 || sked_test_alloc_full())
            loop(&cases[i]);
}

/* ---- runs -------------------------------------------------------------- */

static int op_runs_create(char *out, size_t size)
{
    sked_run_new r[3] = {
        {.id = "run-1", .workflow = "report", .schedule = "alpha"},
        {.id = "new-a", .workflow = "report", .queue = "q", .priority = 2},
        {.id = "new-b",
         .workflow = "report",
         .concurrency_key = "k",
         .context = "{\"deep\":{\"x\":[true,null]}}"}};
    sked_run_insert_state state[3];
    sked_event *ev = NULL;
    size_t nev = 0;
    int rc;

    for (int i = 0; i < 3; i++) {
        r[i].scheduled_for = SKED_TIME_NONE;
        r[i].not_before = SKED_TIME_NONE;
        r[i].trigger = SKED_TRIGGER_API;
    }
    rc = sked__store_runs_create(st, r, 3, false, state, &ev, &nev, NULL);
    if (rc != 0)
        return rc;
    put(out, size, "%d %d %d\n", state[0], state[1], state[2]);
    put_events(out, size, ev, nev);
    return 0;
}

static int op_claim(char *out, size_t size)
{
    sked_claim_req req = claim_req("b", 10);
    sked_run *runs = NULL;
    sked_event *ev = NULL;
    size_t n = 0, nev = 0;
    int rc = sked__store_runs_claim(st, &req, &runs, &n, &ev, &nev, NULL);

    if (rc != 0)
        return rc;
    put_runs(out, size, runs, n);
    put_events(out, size, ev, nev);
    return 0;
}

/* A claim that recovers the runs of "a", whose lease expired. */
static void seed_expired(void)
{
    seed_claimed();
    vclock.t += 60 * SEC;
}

/* Steps recorded and the run finished, one group commit. */
static int op_record(char *out, size_t size)
{
    sked_time t = vclock.t;
    sked_run_op ops[4] = {
        {.kind = SKED_RUN_OP_STEP_END,
         .step = {.step = "extract",
                  .attempt = 1,
                  .status = SKED_STEP_COMPLETED,
                  .output = "{\"rows\":12}",
                  .exit_code = 0,
                  .started_at = SKED_TIME_NONE,
                  .finished_at = t},
         .nevents = 1,
         .events = {{"step.completed", NULL, "{\"step\":\"extract\"}"}}},
        {.kind = SKED_RUN_OP_STEP_BEGIN,
         .step = {.step = "load",
                  .attempt = 1,
                  .exit_code = -1,
                  .started_at = t,
                  .finished_at = SKED_TIME_NONE}},
        {.kind = SKED_RUN_OP_STEP_END,
         .step = {.step = "load",
                  .attempt = 1,
                  .status = SKED_STEP_FAILED,
                  .stderr_text = "disk full",
                  .error = "exit status 1",
                  .error_code = "exit",
                  .exit_code = 1,
                  .started_at = SKED_TIME_NONE,
                  .finished_at = t}},
        {.kind = SKED_RUN_OP_FINISH,
         .status = SKED_RUN_FAILED,
         .error = "step load failed",
         .error_code = "step_failed",
         .nevents = 1,
         .events = {{"run.failed", NULL, "{\"workflow\":\"report\"}"}}},
    };
    int result[5] = {0};
    sked_event *ev = NULL;
    size_t nev = 0;

    for (int i = 0; i < 4; i++) {
        ops[i].run_id = "run-0";
        ops[i].executor = "a";
        ops[i].at = t;
    }
    /* And one op of a run "a" does not hold: refused, the rest applies. */
    sked_run_op all[5];
    memcpy(all, ops, sizeof ops);
    all[4] = (sked_run_op){.kind = SKED_RUN_OP_FINISH,
                           .run_id = "run-2",
                           .executor = "a",
                           .at = t,
                           .status = SKED_RUN_COMPLETED};
    int rc = sked__store_run_ops(st, all, 5, result, &ev, &nev, NULL);
    if (rc != 0)
        return rc;
    for (int i = 0; i < 5; i++)
        put(out, size, "%d ", result[i]);
    put(out, size, "\n");
    put_events(out, size, ev, nev);
    return 0;
}

static int op_cancel(char *out, size_t size)
{
    sked_run_status status;
    sked_event *ev = NULL;
    size_t nev = 0;
    int rc =
        sked__store_run_cancel(st, "run-1", vclock.t, &status, &ev, &nev, NULL);

    if (rc != 0)
        return rc;
    put(out, size, "%s\n", sked__run_status_name(status));
    put_events(out, size, ev, nev);
    return 0;
}

/* Executor "a" renews what it holds; run-1 has a cancel asked. */
static void seed_cancel_asked(void)
{
    seed_claimed();
    assert_int_equal(
        sked__store_run_cancel(st, "run-1", vclock.t, NULL, NULL, NULL, NULL),
        0);
}

static int op_renew(char *out, size_t size)
{
    const char *held[] = {"run-0", "run-1"};
    char **ids = NULL;
    size_t renewed = 0, nids = 0;
    int rc = sked__store_runs_renew(st, "a", held, 2, vclock.t, 30 * SEC,
                                    &renewed, &ids, &nids, NULL);

    if (rc != 0)
        return rc;
    put(out, size, "%zu", renewed);
    for (size_t i = 0; i < nids; i++) {
        put(out, size, " %s", ids[i]);
        free(ids[i]);
    }
    free(ids);
    return 0;
}

static int op_run_read(char *out, size_t size)
{
    sked_run r;
    sked_step_record *steps = NULL;
    size_t nsteps = 0;
    sked_run_filter f = {.status = -1, .before_created = SKED_TIME_NONE};
    sked_run *list = NULL;
    size_t n = 0;
    bool more = false;
    int rc = sked__store_run_get(st, "run-0", &r, &steps, &nsteps, NULL);

    if (rc != 0)
        return rc;
    rc = sked__store_run_list(st, &f, &list, &n, &more, NULL);
    if (rc != 0) {
        sked__run_done(&r);
        sked__step_records_free(steps, nsteps);
        return rc;
    }
    put(out, size, "%s %s %s %zu more %d\n", r.id, r.workflow, r.context,
        nsteps, more);
    for (size_t i = 0; i < nsteps; i++)
        put(out, size, "%s %d\n", steps[i].step, steps[i].status);
    sked__run_done(&r);
    sked__step_records_free(steps, nsteps);
    put_runs(out, size, list, n);
    return 0;
}

static void test_runs(void **state)
{
    static opcase cases[] = {
        {.name = "runs create", .seed = seed_runs, .op = op_runs_create},
        {.name = "runs claim", .seed = seed_runs, .op = op_claim},
        {.name = "run ops", .seed = seed_claimed, .op = op_record},
        {.name = "runs recover", .seed = seed_expired, .op = op_claim},
        {.name = "run cancel", .seed = seed_claimed, .op = op_cancel},
        {.name = "runs renew", .seed = seed_cancel_asked, .op = op_renew},
        {.name = "run get, list", .seed = seed_claimed, .op = op_run_read},
    };

    (void) state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        if (i < 3 || sked_test_alloc_full())
            loop(&cases[i]);
}

/* ---- events -------------------------------------------------------------- */

static int op_event_append(char *out, size_t size)
{
    (void) out;
    (void) size;
    return sked__store_event_append(st, "custom.thing", "alpha",
                                    "{\"k\":\"v\"}", NULL);
}

static int op_event_list(char *out, size_t size)
{
    sked_event *ev = NULL;
    size_t n = 0;
    int rc = sked__store_event_list(st, 0, 100, &ev, &n, NULL);

    if (rc != 0)
        return rc;
    put_events(out, size, ev, n);
    return 0;
}

static void test_events(void **state)
{
    static opcase cases[] = {
        {.name = "event append", .seed = seed_schedules, .op = op_event_append},
        {.name = "event list", .seed = seed_schedules, .op = op_event_list},
    };

    (void) state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        loop(&cases[i]);
}

static int setup(void **state)
{
    sked_store_options o = {
        .tzdb = tzdb, .clock = &clock_, .sqlite_synchronous = "normal"};
    sked_error err;

    (void) state;
    vclock.t = T(T0);
    if (sked__store_open(db_url, &o, &st, &err) != 0)
        fail_msg("open %s: %s", db_url, err.msg);
    return 0;
}

static int teardown(void **state)
{
    (void) state;
    sked__store_close(st);
    st = NULL;
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_schedules, setup, teardown),
        cmocka_unit_test_setup_teardown(test_runs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_events, setup, teardown),
    };
    int failed;

    if (sked_test_db_url("store.db", db_url, tmp_dir, sizeof db_url) != 0)
        return 1;
    if (sked_tzdb_open(SKED_TEST_DATA "/zoneinfo", &tzdb, NULL) != 0)
        return 1;
    sked__clock_virtual(&vclock, &clock_);
    sked_test_alloc_jansson();
    failed = cmocka_run_group_tests(tests, NULL, NULL);
    sked_tzdb_close(tzdb);
    if (!failed)
        sked_test_tmp_remove(tmp_dir);
    return failed;
}
