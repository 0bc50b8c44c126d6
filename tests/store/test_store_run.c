/* SPDX-License-Identifier: MIT */
/* The store's side of execution (src/store/store_run.h), run against every
 * back-end like test_store.c: SKED_TEST_DB_URL names the database, else a
 * fresh SQLite file. Each test starts from empty tables on a virtual
 * clock; the executors are plain names ("a", "b") taking turns, and one
 * test has four threads claim from one database at once.
 *
 * Checks that look under the store use the engine's own client
 * (tests/lib/test_db.h). */
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

#include "test_db.h"

#include "base/clock.h"
#include "store/store.h"
#include "store/store_health.h"
#include "store/store_run.h"

#define SEC   SKED_USEC_PER_SEC
#define LEASE (30 * SEC)

static char db_url[1024];
static char tmp_dir[256];
static sked_tzdb *tzdb;
static sked_virtual_clock vclock;
static sked_clock clock_;

/* The workflow every test runs unless it says otherwise. */
static const sked_claim_workflow report_v1[] = {{"report", "v1", true}};

static sked_time T(const char *s)
{
    sked_time t = 0;
    assert_int_equal(sked_time_parse(s, &t, NULL), 0);
    return t;
}

/* ---- looking under the store ------------------------------------------- */

static long long sql1(const char *fmt, ...)
{
    char sql[1024];
    long long v = -1;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    if (sked_test_sql(db_url, sql, &v) != 0)
        fail_msg("SQL failed: %s", sql);
    return v;
}

/* ---- fixtures ---------------------------------------------------------- */

static int open_store(sked_store **out, sked_error *err)
{
    sked_store_options o = {.tzdb = tzdb, .clock = &clock_};
    return sked__store_open(db_url, &o, out, err);
}

/* Move the SQLite file away (AWAY) or back; rename's result. */
static int move_db(bool away)
{
    char path[1100], moved[1110];

    snprintf(path, sizeof path, "%s", db_url + 7);
    snprintf(moved, sizeof moved, "%s.away", path);
    return away ? rename(path, moved) : rename(moved, path);
}

static int setup(void **state)
{
    const char *const tables[] = {
        "steps",     "runs",   sked_test_events_table(db_url),
        "schedules", "queues", "workflow_versions"};
    sked_store *st = NULL;
    sked_error err;

    vclock.t = T("2026-01-10T12:00:00Z");
    /* Faults a failed test left (out_of_reach, refuse_run). */
    if (strncmp(db_url, "sqlite:", 7) == 0)
        (void) move_db(false);
    if (open_store(&st, &err) != 0)
        fail_msg("open %s: %s", db_url, err.msg);
    sql1(strncmp(db_url, "sqlite:", 7) == 0
             ? "DROP TRIGGER IF EXISTS sked_test_fail"
             : "DROP TRIGGER IF EXISTS sked_test_fail ON runs");
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        sql1("DELETE FROM %s", tables[i]);
    *state = st;
    return 0;
}

static int teardown(void **state)
{
    sked__store_close(*state);
    return 0;
}

/* ---- helpers ----------------------------------------------------------- */

/* Insert run R (workflow "report" unless it names one) now. */
static void add(sked_store *st, sked_run_new r)
{
    sked_error err;

    if (!r.workflow)
        r.workflow = "report";
    if (r.scheduled_for == 0)
        r.scheduled_for = SKED_TIME_NONE; /* not given */
    if (r.not_before == 0)
        r.not_before = SKED_TIME_NONE;
    if (sked__store_runs_insert(st, &r, 1, NULL, &err) != 0)
        fail_msg("insert %s: %s", r.id, err.msg);
}

/* Insert N plain runs "<prefix>-<i>" into QUEUE, one µs apart. */
static void add_many(sked_store *st, const char *prefix, const char *queue,
                     int n)
{
    for (int i = 0; i < n; i++) {
        char id[64];
        snprintf(id, sizeof id, "%s-%04d", prefix, i);
        add(st, (sked_run_new){.id = id, .queue = queue});
        vclock.t++;
    }
}

typedef struct claim_opts {
    const char *executor;
    size_t max;
    const sked_claim_workflow *wf; /* NULL: report v1, latest */
    size_t nwf;
    const sked_claim_cap *caps;
    size_t ncaps;
    const char *const *held; /* the claimer's own runs */
    size_t nheld;
    sked_dur lease; /* 0: LEASE */
} claim_opts;

/* Claim with O at the virtual now; OUT the runs (freed by the caller),
 * EV/NEV the events (may be NULL). Returns the count. */
static size_t claim(sked_store *st, claim_opts o, sked_run **out,
                    sked_event **ev, size_t *nev)
{
    sked_claim_req req = {.executor = o.executor,
                          .now = vclock.t,
                          .lease = o.lease ? o.lease : LEASE,
                          .max = o.max ? o.max : 100,
                          .workflows = o.wf ? o.wf : report_v1,
                          .nworkflows = o.wf ? o.nwf : 1,
                          .caps = o.caps,
                          .ncaps = o.ncaps,
                          .held = o.held,
                          .nheld = o.nheld};
    sked_error err;
    size_t n = 0;

    if (sked__store_runs_claim(st, &req, out, &n, ev, nev, &err) != 0)
        fail_msg("claim by %s: %s", o.executor, err.msg);
    return n;
}

/* The ids of the N RUNS, in order, joined by spaces into BUF; the runs
 * freed. */
static const char *ids_of(sked_run *runs, size_t n, char *buf, size_t size)
{
    size_t len = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < n; i++)
        len += (size_t) snprintf(buf + len, size - len, "%s%s", i ? " " : "",
                                 runs[i].id);
    sked__runs_free(runs, n);
    return buf;
}

/* Claim and keep only the ids, in order, joined by spaces into BUF. */
static const char *claim_ids(sked_store *st, claim_opts o, char *buf,
                             size_t size)
{
    sked_run *runs = NULL;
    size_t n = claim(st, o, &runs, NULL, NULL);

    return ids_of(runs, n, buf, size);
}

/* Apply one op; return its result. */
static int op1(sked_store *st, sked_run_op op)
{
    int result = -1;
    sked_error err;

    if (sked__store_run_ops(st, &op, 1, &result, NULL, NULL, &err) != 0)
        fail_msg("ops: %s", err.msg);
    return result;
}

static sked_run_op finish(const char *id, const char *executor,
                          sked_run_status status)
{
    return (sked_run_op){.kind = SKED_RUN_OP_FINISH,
                         .run_id = id,
                         .executor = executor,
                         .at = vclock.t,
                         .status = status};
}

static sked_run_op step_op(sked_run_op_kind kind, const char *id,
                           const char *executor, const char *step,
                           sked_step_status status)
{
    return (sked_run_op){.kind = kind,
                         .run_id = id,
                         .executor = executor,
                         .at = vclock.t,
                         .step = {.step = (char *) step,
                                  .attempt = 1,
                                  .status = status,
                                  .exit_code = -1,
                                  .started_at = SKED_TIME_NONE,
                                  .finished_at = SKED_TIME_NONE}};
}

static void get(sked_store *st, const char *id, sked_run *r)
{
    sked_error err;

    if (sked__store_run_get(st, id, r, NULL, NULL, &err) != 0)
        fail_msg("get %s: %s", id, err.msg);
}

static sked_run_status status_of(sked_store *st, const char *id)
{
    sked_run r;
    sked_run_status s;

    get(st, id, &r);
    s = r.status;
    sked__run_done(&r);
    return s;
}

/* The number of events TYPE about SUBJECT in EV. */
static int events_of(const sked_event *ev, size_t n, const char *type,
                     const char *subject)
{
    int k = 0;

    for (size_t i = 0; i < n; i++)
        k += strcmp(ev[i].type, type) == 0 &&
             (!subject || strcmp(ev[i].subject, subject) == 0);
    return k;
}

/* Create schedule NAME of workflow "report" with OVERLAP and PAUSE_AFTER. */
static void create_schedule(sked_store *st, const char *name,
                            sked_overlap overlap, int32_t pause_after)
{
    sked_schedule s;
    sked_error err;

    sked_schedule_init(&s);
    s.name = strdup(name);
    s.workflow = strdup("report");
    s.cron = strdup("0 9 * * *");
    s.overlap = overlap;
    s.pause_after_failures = pause_after;
    if (sked__store_schedule_create(st, &s, &err) != 0)
        fail_msg("create %s: %s", name, err.msg);
    sked_schedule_done(&s);
}

/* ---- claiming ------------------------------------------------------------ */

/* SPEC 4.2: priority (lower first), then not_before, then creation; a
 * not_before in the future waits. */
static void test_claim_order(void **state)
{
    sked_store *st = *state;
    sked_time now = vclock.t;
    sked_run *runs = NULL;
    sked_event *ev = NULL;
    size_t n, nev = 0;
    char buf[256];

    add(st, (sked_run_new){.id = "low", .priority = 5});
    add(st, (sked_run_new){.id = "late", .not_before = now - 10 * SEC});
    add(st, (sked_run_new){.id = "early", .not_before = now - 60 * SEC});
    vclock.t += 1;
    add(st, (sked_run_new){.id = "early2", .not_before = now - 60 * SEC});
    add(st, (sked_run_new){.id = "future", .not_before = now + 20 * SEC});
    add(st, (sked_run_new){.id = "urgent", .priority = -1});
    n = claim(st, (claim_opts){.executor = "a"}, &runs, &ev, &nev);
    assert_int_equal(n, 5);
    assert_string_equal(runs[0].id, "urgent");
    assert_string_equal(runs[1].id, "early");
    assert_string_equal(runs[2].id, "early2");
    assert_string_equal(runs[3].id, "late");
    assert_string_equal(runs[4].id, "low");
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(runs[i].status, SKED_RUN_RUNNING);
        assert_string_equal(runs[i].executor, "a");
        assert_true(runs[i].lease_until == vclock.t + LEASE);
        assert_true(runs[i].started_at == vclock.t);
        assert_int_equal(runs[i].attempts, 1);
        assert_false(runs[i].recovered);
        assert_string_equal(runs[i].workflow_version, "v1");
    }
    assert_int_equal(nev, 5);
    assert_string_equal(ev[0].type, "run.started");
    assert_string_equal(ev[0].subject, "urgent");
    assert_string_equal(ev[0].payload,
                        "{\"workflow\":\"report\",\"queue\":\"default\","
                        "\"attempt\":1,\"actor\":\"library\"}");
    assert_true(ev[0].id > 0 && ev[0].at == vclock.t);
    sked__events_free(ev, nev);
    sked__runs_free(runs, n);
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "b"}, buf, sizeof buf), "");
    vclock.t = now + 20 * SEC;
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "b"}, buf, sizeof buf),
        "future");
    assert_int_equal(sql1("SELECT count(*) FROM events WHERE type = "
                          "'run.started'"),
                     6);
}

/* A claim takes at most max runs, in order. */
static void test_claim_max(void **state)
{
    sked_store *st = *state;
    char buf[256];

    add_many(st, "m", NULL, 5);
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "a", .max = 2}, buf, sizeof buf),
        "m-0000 m-0001");
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "b", .max = 2}, buf, sizeof buf),
        "m-0002 m-0003");
}

/* SPEC 4.2 routing: a run with a version goes to an executor with that
 * version; a run with none to the one whose entry is latest, which
 * stamps its version on it. */
static void test_claim_versions(void **state)
{
    static const sked_claim_workflow old[] = {{"w", "v1", false}};
    static const sked_claim_workflow cur[] = {{"w", "v2", true},
                                              {"other", "x", true}};
    sked_store *st = *state;
    sked_run *runs = NULL;
    size_t n;
    char buf[256];

    add(st, (sked_run_new){.id = "none", .workflow = "w"});
    add(st, (sked_run_new){
                .id = "pin1", .workflow = "w", .workflow_version = "v1"});
    add(st, (sked_run_new){
                .id = "pin3", .workflow = "w", .workflow_version = "v3"});
    add(st, (sked_run_new){.id = "unknown", .workflow = "nobody"});
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "a", .wf = old, .nwf = 1}, buf,
                  sizeof buf),
        "pin1");
    n = claim(st, (claim_opts){.executor = "b", .wf = cur, .nwf = 2}, &runs,
              NULL, NULL);
    assert_int_equal(n, 1);
    assert_string_equal(runs[0].id, "none");
    assert_string_equal(runs[0].workflow_version, "v2");
    sked__runs_free(runs, n);
    assert_int_equal(status_of(st, "pin3"), SKED_RUN_PENDING);
    assert_int_equal(status_of(st, "unknown"), SKED_RUN_PENDING);
}

/* Runs sharing a serial key run one at a time, in the order of
 * scheduled_for (a trigger's, with none, by its creation), even when an
 * earlier one was inserted later (a backfill). */
static void test_claim_serial(void **state)
{
    sked_store *st = *state;
    char buf[256];

    add(st, (sked_run_new){.id = "s10",
                           .schedule = "s",
                           .scheduled_for = T("2026-01-10T10:00:00Z"),
                           .serial_key = "schedule:s"});
    add(st, (sked_run_new){.id = "s11",
                           .schedule = "s",
                           .scheduled_for = T("2026-01-10T11:00:00Z"),
                           .serial_key = "schedule:s"});
    add(st, (sked_run_new){.id = "trig",
                           .schedule = "s",
                           .trigger = SKED_TRIGGER_MANUAL,
                           .serial_key = "schedule:s"});
    add(st, (sked_run_new){.id = "s09",
                           .schedule = "s",
                           .scheduled_for = T("2026-01-10T09:00:00Z"),
                           .serial_key = "schedule:s"});
    add(st, (sked_run_new){.id = "free", .priority = 1});
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "a"}, buf, sizeof buf),
        "s09 free");
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "b"}, buf, sizeof buf), "");
    assert_int_equal(op1(st, finish("s09", "a", SKED_RUN_COMPLETED)), 0);
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "b"}, buf, sizeof buf), "s10");
    assert_int_equal(op1(st, finish("s10", "b", SKED_RUN_FAILED)), 0);
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "a"}, buf, sizeof buf), "s11");
    assert_int_equal(op1(st, finish("s11", "a", SKED_RUN_COMPLETED)), 0);
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "a"}, buf, sizeof buf), "trig");
}

/* A later run of a key waits while an earlier one runs even when a
 * backfill put one before both: nothing of the key starts until the
 * running one ends. */
static void test_claim_serial_running_blocks(void **state)
{
    sked_store *st = *state;
    char buf[256];

    add(st, (sked_run_new){.id = "s11",
                           .scheduled_for = T("2026-01-10T11:00:00Z"),
                           .serial_key = "k"});
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "a"}, buf, sizeof buf), "s11");
    add(st, (sked_run_new){.id = "s08",
                           .scheduled_for = T("2026-01-10T08:00:00Z"),
                           .serial_key = "k"});
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "b"}, buf, sizeof buf), "");
    /* Its executor dies: the running one is recovered first, as it holds
     * the key; the earlier one still waits for it. */
    vclock.t += LEASE + 1;
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "b"}, buf, sizeof buf), "s11");
    assert_int_equal(op1(st, finish("s11", "b", SKED_RUN_COMPLETED)), 0);
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "b"}, buf, sizeof buf), "s08");
}

/* SPEC 4.2: a queue's concurrency holds across executors taking turns;
 * other queues are not held up by a full one. */
static void test_claim_queue_concurrency(void **state)
{
    sked_queue_def q = {.name = "lim", .concurrency = 2};
    sked_store *st = *state;
    char buf[512];

    assert_int_equal(sked__store_queues_put(st, &q, 1, NULL), 0);
    add_many(st, "l", "lim", 5);
    add_many(st, "d", NULL, 2);
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "a", .max = 3}, buf, sizeof buf),
        "l-0000 l-0001 d-0000");
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "b"}, buf, sizeof buf),
        "d-0001");
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "b"}, buf, sizeof buf), "");
    assert_int_equal(op1(st, finish("l-0001", "a", SKED_RUN_COMPLETED)), 0);
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "b"}, buf, sizeof buf),
        "l-0002");
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "a"}, buf, sizeof buf), "");
    assert_int_equal(sql1("SELECT count(*) FROM runs WHERE queue = 'lim' "
                          "AND status = 'running'"),
                     2);
}

/* A rate limit counts the runs started within the last period. */
static void test_claim_rate_limit(void **state)
{
    sked_queue_def q = {.name = "rl", .rate_limit = 2, .rate_period = 20 * SEC};
    sked_store *st = *state;
    char buf[512];

    assert_int_equal(sked__store_queues_put(st, &q, 1, NULL), 0);
    add_many(st, "r", "rl", 5);
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "a"}, buf, sizeof buf),
        "r-0000 r-0001");
    assert_int_equal(op1(st, finish("r-0000", "a", SKED_RUN_COMPLETED)), 0);
    vclock.t += 19 * SEC;
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "b"}, buf, sizeof buf), "");
    vclock.t += 2 * SEC;
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "b"}, buf, sizeof buf),
        "r-0002 r-0003");
}

/* Per-server caps come with the request; a cap of 0 takes nothing. */
static void test_claim_caps(void **state)
{
    const sked_claim_cap one[] = {{"q", 1}}, none[] = {{"q", 0}};
    sked_store *st = *state;
    char buf[512];

    add_many(st, "q", "q", 3);
    add_many(st, "d", NULL, 1);
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "a", .caps = none, .ncaps = 1},
                  buf, sizeof buf),
        "d-0000");
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "a", .caps = one, .ncaps = 1},
                  buf, sizeof buf),
        "q-0000");
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "b"}, buf, sizeof buf),
        "q-0001 q-0002");
}

/* ---- leases ------------------------------------------------------------- */

/* A live executor never recovers the runs it holds: their leases lapsed
 * while the database was out of reach (a restart, a cut), and it renews
 * them once it answers. Runs of every kind of lapse: some held, some not
 * (their writes were lost: recovered, as a dead executor's), some of
 * another executor; only the ones not held are taken. */
static void test_held_not_recovered(void **state)
{
    sked_store *st = *state;
    enum { N = 24 };
    char ids[N][16], buf[1024], want[1024] = "";
    const char *held[N];
    size_t nheld = 0, len = 0;

    for (int i = 0; i < N; i++) {
        snprintf(ids[i], sizeof ids[i], "h-%02d", i);
        add(st, (sked_run_new){.id = ids[i]});
    }
    /* a takes the even ones, b the odd ones. */
    for (int i = 0; i < N; i++)
        assert_string_equal(
            claim_ids(st, (claim_opts){.executor = i % 2 ? "b" : "a", .max = 1},
                      buf, sizeof buf),
            ids[i]);
    vclock.t += LEASE + 1; /* every lease lapsed */
    for (int i = 0; i < N; i += 2)
        if (i % 3 != 0) /* a still holds these */
            held[nheld++] = ids[i];
    for (int i = 0; i < N; i++)
        if (i % 2 || i % 3 == 0)
            len += (size_t) snprintf(want + len, sizeof want - len, "%s%s",
                                     len ? " " : "", ids[i]);
    assert_string_equal(
        claim_ids(st,
                  (claim_opts){.executor = "a", .held = held, .nheld = nheld},
                  buf, sizeof buf),
        want);
    /* What a holds is still a's, and still running; another executor,
     * which holds none of them, recovers them. */
    for (size_t k = 0; k < nheld; k++) {
        sked_run r;
        get(st, held[k], &r);
        assert_string_equal(r.executor, "a");
        assert_int_equal(r.attempts, 1);
        sked__run_done(&r);
    }
    vclock.t += LEASE + 1;
    assert_int_equal(strlen(claim_ids(st, (claim_opts){.executor = "c"}, buf,
                                      sizeof buf)) > 0,
                     1);
    sked_run r;
    get(st, held[0], &r);
    assert_string_equal(r.executor, "c");
    sked__run_done(&r);
}

/* SPEC 4.2: a run whose lease expired is recovered by another executor;
 * the step its dead executor left running is closed, and the dead one's
 * later writes are refused. */
static void test_lease_recovery(void **state)
{
    sked_store *st = *state;
    sked_step_record *steps = NULL;
    sked_run *runs = NULL, r;
    sked_event *ev = NULL;
    size_t n, nev = 0, nsteps = 0, renewed = 9;
    char buf[256];

    add(st, (sked_run_new){.id = "r"});
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "a"}, buf, sizeof buf), "r");
    assert_int_equal(op1(st, step_op(SKED_RUN_OP_STEP_BEGIN, "r", "a", "one",
                                     SKED_STEP_RUNNING)),
                     0);
    vclock.t += LEASE; /* lease_until is not yet past */
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "b"}, buf, sizeof buf), "");
    vclock.t += 1;
    n = claim(st, (claim_opts){.executor = "b"}, &runs, &ev, &nev);
    assert_int_equal(n, 1);
    assert_true(runs[0].recovered);
    assert_string_equal(runs[0].executor, "b");
    assert_int_equal(runs[0].attempts, 2);
    assert_true(runs[0].started_at == vclock.t - LEASE - 1);
    sked__runs_free(runs, n);
    assert_int_equal(nev, 1);
    assert_string_equal(ev[0].type, "run.recovered");
    assert_string_equal(ev[0].payload,
                        "{\"from\":\"a\",\"actor\":\"library\"}");
    sked__events_free(ev, nev);
    assert_int_equal(sked__store_run_get(st, "r", &r, &steps, &nsteps, NULL),
                     0);
    assert_int_equal(nsteps, 1);
    assert_int_equal(steps[0].status, SKED_STEP_FAILED);
    assert_string_equal(steps[0].error_code, "lease_expired");
    assert_string_equal(steps[0].error,
                        "lease expired: executor a stopped renewing");
    assert_true(steps[0].finished_at == vclock.t);
    sked__step_records_free(steps, nsteps);
    sked__run_done(&r);
    /* The dead executor wakes up: fenced out. */
    assert_int_equal(op1(st, step_op(SKED_RUN_OP_STEP_END, "r", "a", "one",
                                     SKED_STEP_COMPLETED)),
                     SKED_ECONFLICT);
    assert_int_equal(op1(st, finish("r", "a", SKED_RUN_COMPLETED)),
                     SKED_ECONFLICT);
    static const char *const held_r[] = {"r"};
    assert_int_equal(sked__store_runs_renew(st, "a", held_r, 1, vclock.t, LEASE,
                                            &renewed, NULL, NULL, NULL),
                     0);
    assert_int_equal(renewed, 0);
    assert_int_equal(status_of(st, "r"), SKED_RUN_RUNNING);
    assert_int_equal(sql1("SELECT count(*) FROM steps WHERE status = "
                          "'completed'"),
                     0);
}

/* Put the database out of every server's reach, as a full disk does, or
 * bring it back. SQLite: the file moved away (every transaction then
 * fails, database_gone), and back. PostgreSQL: every new run and every
 * change of one fails with the server's own disk-full error (SQLSTATE
 * 53100). */
static void out_of_reach(bool on)
{
    static const char *const pg_sql[] = {
        "CREATE OR REPLACE FUNCTION sked_test_fail() RETURNS trigger "
        "LANGUAGE plpgsql AS $$BEGIN RAISE EXCEPTION "
        "'could not extend file' USING ERRCODE = 'disk_full'; END$$; "
        "CREATE TRIGGER sked_test_fail BEFORE INSERT OR UPDATE ON runs "
        "FOR EACH ROW EXECUTE FUNCTION sked_test_fail()",
        "DROP TRIGGER sked_test_fail ON runs; DROP FUNCTION sked_test_fail()"};

    if (strncmp(db_url, "sqlite:", 7) == 0)
        assert_int_equal(move_db(on), 0);
    else
        sql1("%s", pg_sql[on ? 0 : 1]);
}

/* Refuse the changes of run ID, and of it alone, with a plain error (a
 * check that fails), or no longer. */
static void refuse_run(const char *id, bool on)
{
    if (strncmp(db_url, "sqlite:", 7) == 0) {
        if (on)
            sql1("CREATE TRIGGER sked_test_fail BEFORE UPDATE ON runs "
                 "WHEN OLD.id = '%s' "
                 "BEGIN SELECT RAISE(ABORT, 'refused'); END",
                 id);
        else
            sql1("DROP TRIGGER sked_test_fail");
    } else if (on) {
        sql1("CREATE OR REPLACE FUNCTION sked_test_fail() RETURNS trigger "
             "LANGUAGE plpgsql AS $$BEGIN RAISE EXCEPTION 'refused'; END$$; "
             "CREATE TRIGGER sked_test_fail BEFORE UPDATE ON runs FOR EACH "
             "ROW WHEN (OLD.id = '%s') EXECUTE FUNCTION sked_test_fail()",
             id);
    } else {
        sql1("DROP TRIGGER sked_test_fail ON runs; "
             "DROP FUNCTION sked_test_fail()");
    }
}

/* CLAIMER's scheduler fires: a run of a workflow no one here claims,
 * reported as a firing. */
static void fire(sked_store *claimer)
{
    static int k;
    char id[32];
    sked_error err = {0};

    snprintf(id, sizeof id, "f-%d", k++);
    sked_run_new r = {.id = id,
                      .workflow = "elsewhere",
                      .scheduled_for = SKED_TIME_NONE,
                      .not_before = SKED_TIME_NONE};
    int rc = sked__store_runs_insert(claimer, &r, 1, NULL, &err);
    sked__store_report(claimer, SKED_OP_FIRE, rc, &err);
}

/* One second of a server's background work, as the workers do it: the
 * heartbeat of OWNER renews the NHELD runs HELD, with leases of LEASE,
 * and CLAIMER's scheduler fires, then its dispatcher claims, unless
 * CLAIMS is false; each reports to its own store's health. Returns the
 * ids CLAIMER took, joined by spaces, into BUF ("" when the claim failed
 * or was not made). */
static const char *second(sked_store *owner, const char *const *held,
                          size_t nheld, sked_store *claimer, bool claims,
                          sked_dur lease, char *buf, size_t size)
{
    sked_claim_req req = {.executor = "b", .now = vclock.t, .lease = lease};
    sked_run *runs = NULL;
    size_t n = 0, renewed = 0;
    sked_error err = {0};
    int rc = 0;

    req.max = 100;
    req.workflows = report_v1;
    req.nworkflows = 1;

    if (owner) {
        rc = sked__store_runs_renew(owner, "a", held, nheld, vclock.t, lease,
                                    &renewed, NULL, NULL, &err);
        sked__store_report(owner, SKED_OP_RENEW, rc, &err);
        assert_true(rc != 0 || renewed == nheld);
    }
    fire(claimer);
    if (!claims)
        return ids_of(NULL, 0, buf, size);
    rc = sked__store_runs_claim(claimer, &req, &runs, &n, NULL, NULL, &err);
    sked__store_report(claimer, SKED_OP_CLAIM, rc, &err);
    return ids_of(runs, rc == 0 ? n : 0, buf, size);
}

/* The database fails for every server at once, for longer than the lease
 * (a full disk, a PostgreSQL restart): no lease can be renewed, and every
 * one of the live executor "a" runs out. When the database is back,
 * another server "b" must not take a's runs before a could renew them (a
 * step a completed meanwhile would be recorded by nobody, and run again):
 * for one lease after its own failures ended, b recovers only the leases
 * that had run out before the failure began (those of "c", dead long
 * before), and a, renewing within a third of the lease, keeps its runs
 * and records their ends. A dead a loses its runs a lease after the
 * database came back. Over several leases, outage lengths, a live or a
 * dead a, and a b whose claims meet the failure or only its firings (its
 * claims not made, or with nothing to write). */
static void test_lease_kept_after_store_failure(void **state)
{
    static const char *const held[] = {"a-0", "a-1", "a-2"};
    static const sked_dur leases[] = {2 * SEC, 5 * SEC, 30 * SEC};
    static const int outages[] = {1, 2, 3, 7}; /* in leases, at least one */
    sked_store *b = *state, *a = NULL;
    sked_error err;
    char buf[256];

    if (open_store(&a, &err) != 0)
        fail_msg("open %s: %s", db_url, err.msg);
    for (size_t li = 0; li < sizeof leases / sizeof *leases; li++)
        for (size_t oi = 0; oi < sizeof outages / sizeof *outages; oi++)
            for (int c = 0; c < 4; c++) {
                sked_dur lease = leases[li];
                bool alive = c & 1, claims = c & 2;
                sql1("DELETE FROM steps");
                sql1("DELETE FROM runs");
                /* c died long ago, holding c-0. */
                add(b, (sked_run_new){.id = "c-0"});
                assert_string_equal(
                    claim_ids(b, (claim_opts){.executor = "c", .lease = lease},
                              buf, sizeof buf),
                    "c-0");
                for (int i = 0; i < 3; i++)
                    add(b, (sked_run_new){.id = held[i]});
                assert_string_equal(
                    claim_ids(a, (claim_opts){.executor = "a", .lease = lease},
                              buf, sizeof buf),
                    "a-0 a-1 a-2");
                for (int i = 0; i < 3; i++)
                    assert_int_equal(
                        op1(a, step_op(SKED_RUN_OP_STEP_BEGIN, held[i], "a",
                                       "one", SKED_STEP_RUNNING)),
                        0);
                /* a renews, c does not: c-0 is b's as soon as b claims,
                 * which it does only once the database fails. */
                for (sked_time end = vclock.t + 3 * lease; vclock.t < end;
                     vclock.t += lease / 3)
                    assert_int_equal(
                        sked__store_runs_renew(a, "a", held, 3, vclock.t, lease,
                                               NULL, NULL, NULL, NULL),
                        0);
                out_of_reach(true);
                sked_time until = vclock.t + outages[oi] * lease + SEC;
                for (; vclock.t < until; vclock.t += lease / 5)
                    assert_string_equal(
                        second(a, held, 3, b, claims, lease, buf, sizeof buf),
                        "");
                assert_true(sked__store_fault(a, NULL));
                assert_true(sked__store_fault(b, NULL));
                out_of_reach(false);
                /* Back: b claims first, a renews a third of the lease
                 * later (its heartbeat's longest wait), b claiming all
                 * along. */
                sked_time back = vclock.t;
                assert_string_equal(
                    second(NULL, NULL, 0, b, true, lease, buf, sizeof buf),
                    "c-0");
                assert_false(sked__store_fault(b, NULL));
                for (vclock.t += lease / 10; vclock.t < back + lease;
                     vclock.t += lease / 10) {
                    bool renews = alive && vclock.t >= back + lease / 3;
                    assert_string_equal(second(renews ? a : NULL, held, 3, b,
                                               true, lease, buf, sizeof buf),
                                        "");
                }
                if (!alive) {
                    /* A lease after the database came back: a is dead. */
                    vclock.t = back + lease;
                    assert_string_equal(
                        second(NULL, NULL, 0, b, true, lease, buf, sizeof buf),
                        "a-0 a-1 a-2");
                    continue;
                }
                /* a renewed: its runs stay its own, a lease later too, and
                 * the ends of its steps are recorded, once. */
                vclock.t = back + lease;
                assert_string_equal(
                    second(a, held, 3, b, true, lease, buf, sizeof buf), "");
                for (int i = 0; i < 3; i++) {
                    assert_int_equal(
                        op1(a, step_op(SKED_RUN_OP_STEP_END, held[i], "a",
                                       "one", SKED_STEP_COMPLETED)),
                        0);
                    assert_int_equal(
                        op1(a, finish(held[i], "a", SKED_RUN_COMPLETED)), 0);
                }
                assert_int_equal(sql1("SELECT count(*) FROM steps WHERE "
                                      "status = 'completed' AND attempt = 1"),
                                 3);
                assert_int_equal(sql1("SELECT count(*) FROM steps"), 3);
                /* Long after: recovery is back to the lease alone. */
                vclock.t += 10 * lease;
                assert_true(sked__store_recover_before(b, vclock.t, lease) ==
                            vclock.t);
            }
    sked__store_close(a);
}

/* A call refused for one run (a check that fails, for as long as the
 * run lasts) is not the database out of reach: it holds no recovery
 * back. b's renewals of its own b-0 fail; the lease of c, dead long
 * ago, is recovered as ever. */
static void test_refused_call_holds_nothing_back(void **state)
{
    static const char *const held[] = {"b-0"};
    sked_store *b = *state;
    sked_error err;
    char buf[256];

    add(b, (sked_run_new){.id = "c-0"});
    assert_string_equal(
        claim_ids(b, (claim_opts){.executor = "c"}, buf, sizeof buf), "c-0");
    add(b, (sked_run_new){.id = "b-0"});
    assert_string_equal(
        claim_ids(b, (claim_opts){.executor = "b"}, buf, sizeof buf), "b-0");
    refuse_run("b-0", true);
    for (sked_time end = vclock.t + 3 * LEASE; vclock.t < end;
         vclock.t += LEASE / 3) {
        int rc = sked__store_runs_renew(b, "b", held, 1, vclock.t, LEASE, NULL,
                                        NULL, NULL, &err);
        sked__store_report(b, SKED_OP_RENEW, rc, &err);
        assert_int_not_equal(rc, 0);
    }
    assert_true(sked__store_fault(b, NULL));
    assert_string_equal(
        claim_ids(b, (claim_opts){.executor = "b", .held = held, .nheld = 1},
                  buf, sizeof buf),
        "c-0");
    refuse_run("b-0", false);
}

/* Renewing moves the leases of the runs the executor says it holds (and
 * only those, and only its own), and names the runs with a cancel
 * asked. */
static void test_renew(void **state)
{
    sked_store *st = *state;
    char **ids = NULL, buf[256];
    size_t renewed = 0, nids = 0;
    sked_run r;

    add_many(st, "n", NULL, 3);
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "a", .max = 2}, buf, sizeof buf),
        "n-0000 n-0001");
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "b"}, buf, sizeof buf),
        "n-0002");
    assert_int_equal(
        sked__store_run_cancel(st, "n-0001", vclock.t, NULL, NULL, NULL, NULL),
        0);
    vclock.t += 20 * SEC;
    /* "a" holds n-0000 and n-0001; n-0002 is b's, and "nope" no one's. */
    static const char *const held[] = {"n-0000", "n-0001", "n-0002", "nope"};
    assert_int_equal(sked__store_runs_renew(st, "a", held, 4, vclock.t, LEASE,
                                            &renewed, &ids, &nids, NULL),
                     0);
    assert_int_equal(renewed, 2);
    assert_int_equal(nids, 1);
    assert_string_equal(ids[0], "n-0001");
    free(ids[0]);
    free(ids);
    get(st, "n-0000", &r);
    assert_true(r.lease_until == vclock.t + LEASE);
    sked__run_done(&r);
    get(st, "n-0002", &r);
    assert_true(r.lease_until == vclock.t - 20 * SEC + LEASE);
    sked__run_done(&r);
    /* A run "a" no longer says it holds (its last writes were lost) is not
     * renewed: its lease lapses and it is recovered. */
    vclock.t += 20 * SEC;
    assert_int_equal(sked__store_runs_renew(st, "a", held, 1, vclock.t, LEASE,
                                            &renewed, NULL, NULL, NULL),
                     0);
    assert_int_equal(renewed, 1);
    get(st, "n-0001", &r);
    assert_true(r.lease_until == vclock.t - 20 * SEC + LEASE);
    sked__run_done(&r);
}

/* A stopping server gives its runs back: pending (waiting when their
 * not_before is ahead), running steps closed as interrupted, and another
 * executor takes them at once. */
static void test_release(void **state)
{
    sked_store *st = *state;
    sked_step_record *steps = NULL;
    size_t nsteps = 0;
    sked_time first_start;
    sked_run r;
    char buf[256];

    add(st, (sked_run_new){.id = "x"});
    add(st, (sked_run_new){.id = "y"});
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "a"}, buf, sizeof buf), "x y");
    assert_int_equal(op1(st, step_op(SKED_RUN_OP_STEP_BEGIN, "x", "a", "s",
                                     SKED_STEP_RUNNING)),
                     0);
    assert_int_equal(sked__store_runs_release(st, "a", vclock.t, NULL), 0);
    assert_int_equal(sked__store_run_get(st, "x", &r, &steps, &nsteps, NULL),
                     0);
    assert_int_equal(r.status, SKED_RUN_PENDING);
    assert_null(r.executor);
    assert_true(r.lease_until == SKED_TIME_NONE);
    first_start = r.started_at;
    assert_int_equal(nsteps, 1);
    assert_int_equal(steps[0].status, SKED_STEP_CANCELLED);
    assert_string_equal(steps[0].error_code, "interrupted");
    sked__step_records_free(steps, nsteps);
    sked__run_done(&r);
    vclock.t += SEC;
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "b"}, buf, sizeof buf), "x y");
    get(st, "x", &r);
    assert_int_equal(r.attempts, 2);
    assert_true(r.started_at == first_start);
    sked__run_done(&r);
    /* A run taken again started before: no second run.started. */
    assert_int_equal(sql1("SELECT count(*) FROM events WHERE type = "
                          "'run.started'"),
                     2);
}

/* ---- recording ----------------------------------------------------------- */

/* A step's begin written again, as the retry of a batch whose commit
 * was lost writes it (the first commit did land): one row, no error,
 * and the attempt's end still applies. PostgreSQL inserts begun
 * attempts without ON CONFLICT and must fall back when the row exists.
 * The output has what an array literal must escape. */
static void test_ops_begin_again(void **state)
{
    sked_store *st = *state;
    sked_step_record *steps = NULL;
    size_t nsteps = 0;
    sked_run_op ops[2];
    int result[2];
    sked_error err;
    sked_run r;
    char buf[64];

    add(st, (sked_run_new){.id = "again"});
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "a"}, buf, sizeof buf), "again");
    assert_int_equal(op1(st, step_op(SKED_RUN_OP_STEP_BEGIN, "again", "a", "s",
                                     SKED_STEP_RUNNING)),
                     0);
    vclock.t += SEC;
    ops[0] =
        step_op(SKED_RUN_OP_STEP_BEGIN, "again", "a", "s", SKED_STEP_RUNNING);
    ops[1] =
        step_op(SKED_RUN_OP_STEP_END, "again", "a", "s", SKED_STEP_COMPLETED);
    /* What an array literal must escape, and what it must not mistake
     * for its own syntax. */
    ops[1].step.output = "say \"hi\" \\ {a,b} NULL";
    assert_int_equal(sked__store_run_ops(st, ops, 2, result, NULL, NULL, &err),
                     0);
    assert_int_equal(result[0], 0);
    assert_int_equal(result[1], 0);
    assert_int_equal(
        sked__store_run_get(st, "again", &r, &steps, &nsteps, NULL), 0);
    assert_int_equal(nsteps, 1);
    assert_int_equal(steps[0].status, SKED_STEP_COMPLETED);
    assert_string_equal(steps[0].output, "say \"hi\" \\ {a,b} NULL");
    assert_int_equal(steps[0].attempt, 1);
    sked__step_records_free(steps, nsteps);
    sked__run_done(&r);
}

/* Ops of several runs in one batch: those whose run belongs to another
 * executor, or that follow their run's FINISH or WAIT, write nothing
 * (nor their events); the others apply. */
static void test_ops_batch(void **state)
{
    sked_store *st = *state;
    sked_step_record *steps = NULL;
    sked_event *ev = NULL;
    size_t nev = 0, nsteps = 0;
    sked_run_op ops[8];
    int result[8];
    sked_run r;
    char buf[256];

    add(st, (sked_run_new){.id = "r1"});
    add(st, (sked_run_new){.id = "r2"});
    add(st, (sked_run_new){.id = "r3"});
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "a", .max = 2}, buf, sizeof buf),
        "r1 r2");
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "b"}, buf, sizeof buf), "r3");
    vclock.t += SEC;
    ops[0] = step_op(SKED_RUN_OP_STEP_BEGIN, "r1", "a", "s", SKED_STEP_RUNNING);
    ops[0].events[0] = (sked_run_op_event){"step.started", NULL, NULL};
    ops[0].nevents = 1;
    ops[1] = step_op(SKED_RUN_OP_STEP_END, "r1", "a", "s", SKED_STEP_COMPLETED);
    ops[1].step.output = "hello";
    ops[1].step.exit_code = 0;
    ops[1].at = vclock.t + 5;
    ops[2] = finish("r1", "a", SKED_RUN_COMPLETED);
    ops[2].output = "{\"ok\":true}";
    ops[2].events[0] = (sked_run_op_event){"run.completed", NULL, "{\"x\":1}"};
    ops[2].nevents = 1;
    ops[3] = step_op(SKED_RUN_OP_STEP_BEGIN, "r3", "a", "s", SKED_STEP_RUNNING);
    ops[3].events[0] = (sked_run_op_event){"step.started", NULL, NULL};
    ops[3].nevents = 1;
    ops[4] = (sked_run_op){.kind = SKED_RUN_OP_WAIT,
                           .run_id = "r2",
                           .executor = "a",
                           .at = vclock.t,
                           .not_before = vclock.t + 60 * SEC};
    ops[5] = step_op(SKED_RUN_OP_STEP_BEGIN, "r2", "a", "t", SKED_STEP_RUNNING);
    ops[6] =
        step_op(SKED_RUN_OP_STEP_BEGIN, "nope", "a", "t", SKED_STEP_RUNNING);
    ops[7] = finish("r1", "a", SKED_RUN_FAILED);
    assert_int_equal(sked__store_run_ops(st, ops, 8, result, &ev, &nev, NULL),
                     0);
    assert_int_equal(result[0], 0);
    assert_int_equal(result[1], 0);
    assert_int_equal(result[2], 0);
    assert_int_equal(result[3], SKED_ECONFLICT);
    assert_int_equal(result[4], 0);
    assert_int_equal(result[5], SKED_ECONFLICT);
    assert_int_equal(result[6], SKED_ECONFLICT);
    assert_int_equal(result[7], SKED_ECONFLICT);
    assert_int_equal(nev, 2);
    assert_string_equal(ev[0].type, "step.started");
    assert_string_equal(ev[0].subject, "r1");
    assert_string_equal(ev[0].payload, "{\"actor\":\"library\"}");
    assert_string_equal(ev[1].type, "run.completed");
    assert_string_equal(ev[1].payload, "{\"x\":1,\"actor\":\"library\"}");
    sked__events_free(ev, nev);
    assert_int_equal(sked__store_run_get(st, "r1", &r, &steps, &nsteps, NULL),
                     0);
    assert_int_equal(r.status, SKED_RUN_COMPLETED);
    assert_string_equal(r.output, "{\"ok\":true}");
    assert_true(r.finished_at == vclock.t);
    assert_null(r.executor);
    assert_true(r.lease_until == SKED_TIME_NONE);
    assert_int_equal(nsteps, 1);
    assert_int_equal(steps[0].status, SKED_STEP_COMPLETED);
    assert_string_equal(steps[0].output, "hello");
    assert_int_equal(steps[0].exit_code, 0);
    assert_true(steps[0].started_at == vclock.t);
    assert_true(steps[0].finished_at == vclock.t + 5);
    sked__step_records_free(steps, nsteps);
    sked__run_done(&r);
    get(st, "r2", &r);
    assert_int_equal(r.status, SKED_RUN_WAITING);
    assert_true(r.not_before == vclock.t + 60 * SEC);
    assert_null(r.executor);
    sked__run_done(&r);
    assert_int_equal(sql1("SELECT count(*) FROM steps"), 1);
    assert_int_equal(sql1("SELECT count(*) FROM events"), 2 + 3);
}

/* The failure path: FAILING records the outcome and the error, a mark
 * records the soft timeout, and FINISH keeps the error it was not given. */
static void test_ops_failure_path(void **state)
{
    sked_store *st = *state;
    sked_run_op ops[3];
    int result[3];
    sked_run r;
    char buf[64];

    add(st, (sked_run_new){.id = "f"});
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "a"}, buf, sizeof buf), "f");
    ops[0] = (sked_run_op){.kind = SKED_RUN_OP_TIMEOUT_MARK,
                           .run_id = "f",
                           .executor = "a",
                           .at = vclock.t + 1};
    ops[1] = (sked_run_op){.kind = SKED_RUN_OP_FAILING,
                           .run_id = "f",
                           .executor = "a",
                           .at = vclock.t + 2,
                           .status = SKED_RUN_FAILED,
                           .error = "Workflow timeout.",
                           .error_code = "timeout"};
    assert_int_equal(sked__store_run_ops(st, ops, 2, result, NULL, NULL, NULL),
                     0);
    get(st, "f", &r);
    assert_true(r.failing);
    assert_int_equal(r.outcome, SKED_RUN_FAILED);
    assert_int_equal(r.status, SKED_RUN_RUNNING);
    assert_true(r.timeout_exceeded_at == vclock.t + 1);
    assert_string_equal(r.error, "Workflow timeout.");
    sked__run_done(&r);
    ops[2] = finish("f", "a", SKED_RUN_FAILED);
    assert_int_equal(
        sked__store_run_ops(st, &ops[2], 1, result, NULL, NULL, NULL), 0);
    assert_int_equal(result[0], 0);
    get(st, "f", &r);
    assert_int_equal(r.status, SKED_RUN_FAILED);
    assert_string_equal(r.error, "Workflow timeout.");
    assert_string_equal(r.error_code, "timeout");
    sked__run_done(&r);
}

/* Claim run ID for "a" (it must be the next one). */
static void claim_one(sked_store *st, const char *id)
{
    char buf[256];

    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "a", .max = 1}, buf, sizeof buf),
        id);
}

/* FINISH counts a schedule's consecutive failed runs: completed resets
 * the count, cancelled leaves it, and reaching pause_after_failures
 * pauses the schedule (schedule.paused), in op order within a batch. */
static void test_finish_failures_pause(void **state)
{
    sked_store *st = *state;
    const char *ids[] = {"f1", "f2", "f3", "f4", "f5"};
    sked_run_op ops[2];
    sked_event *ev = NULL;
    size_t nev = 0;
    int result[2];
    sked_schedule s;

    create_schedule(st, "f", SKED_OVERLAP_ALLOW, 2);
    for (int i = 0; i < 5; i++) {
        add(st, (sked_run_new){.id = ids[i], .schedule = "f"});
        vclock.t++;
    }
    claim_one(st, "f1");
    assert_int_equal(op1(st, finish("f1", "a", SKED_RUN_FAILED)), 0);
    assert_int_equal(sql1("SELECT consecutive_failures FROM schedules"), 1);
    claim_one(st, "f2");
    assert_int_equal(op1(st, finish("f2", "a", SKED_RUN_COMPLETED)), 0);
    assert_int_equal(sql1("SELECT consecutive_failures FROM schedules"), 0);
    claim_one(st, "f3");
    assert_int_equal(op1(st, finish("f3", "a", SKED_RUN_FAILED)), 0);
    claim_one(st, "f4");
    assert_int_equal(op1(st, finish("f4", "a", SKED_RUN_CANCELLED)), 0);
    assert_int_equal(sql1("SELECT consecutive_failures FROM schedules"), 1);
    claim_one(st, "f5");
    ops[0] = finish("f5", "a", SKED_RUN_FAILED);
    ops[1] = finish("f5", "a", SKED_RUN_FAILED); /* fenced out */
    assert_int_equal(sked__store_run_ops(st, ops, 2, result, &ev, &nev, NULL),
                     0);
    assert_int_equal(result[1], SKED_ECONFLICT);
    assert_int_equal(nev, 1);
    assert_string_equal(ev[0].type, "schedule.paused");
    assert_string_equal(ev[0].subject, "f");
    assert_string_equal(ev[0].payload,
                        "{\"name\":\"f\",\"reason\":\"paused after 2 "
                        "consecutive failed runs\",\"actor\":\"library\"}");
    sked__events_free(ev, nev);
    assert_int_equal(sked__store_schedule_get(st, "f", &s, NULL), 0);
    assert_int_equal(s.status, SKED_SCHEDULE_PAUSED);
    assert_int_equal(s.consecutive_failures, 2);
    assert_true(s.next_fire_at == SKED_TIME_NONE);
    assert_string_equal(s.last_error, "paused after 2 consecutive failed runs");
    assert_true(s.updated_at == vclock.t);
    sked_schedule_done(&s);
}

/* In one batch, a schedule reaching its limit pauses even when a later
 * run of the batch completes; a run whose schedule is gone counts
 * nothing. */
static void test_failures_batch_order(void **state)
{
    sked_store *st = *state;
    const char *ids[] = {"g1", "g2", "g3", "h1"};
    sked_run_op ops[4];
    int result[4];
    sked_schedule s;
    char buf[256];

    create_schedule(st, "g", SKED_OVERLAP_ALLOW, 2);
    for (int i = 0; i < 4; i++) {
        add(st, (sked_run_new){.id = ids[i], .schedule = i < 3 ? "g" : "h"});
        vclock.t++;
    }
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "a"}, buf, sizeof buf),
        "g1 g2 g3 h1");
    ops[0] = finish("g1", "a", SKED_RUN_FAILED);
    ops[1] = finish("h1", "a", SKED_RUN_FAILED);
    ops[2] = finish("g2", "a", SKED_RUN_FAILED);
    ops[3] = finish("g3", "a", SKED_RUN_COMPLETED);
    assert_int_equal(sked__store_run_ops(st, ops, 4, result, NULL, NULL, NULL),
                     0);
    assert_int_equal(sked__store_schedule_get(st, "g", &s, NULL), 0);
    assert_int_equal(s.status, SKED_SCHEDULE_PAUSED);
    assert_int_equal(s.consecutive_failures, 0);
    sked_schedule_done(&s);
}

/* ---- cancel ------------------------------------------------------------- */

/* SPEC 4.3: pending cancelled at once; running and waiting asked (a
 * waiting one becomes claimable now); finished ones refused; unknown
 * ones not found; asking twice changes nothing. */
static void test_cancel(void **state)
{
    sked_store *st = *state;
    sked_run_status status = SKED_RUN_PENDING;
    sked_event *ev = NULL;
    size_t nev = 0;
    sked_error err;
    sked_run r;
    char buf[256];

    add(st, (sked_run_new){.id = "run"});
    vclock.t++;
    add(st, (sked_run_new){.id = "wait"});
    vclock.t++;
    add(st, (sked_run_new){.id = "done"});
    vclock.t++;
    add(st, (sked_run_new){.id = "pend", .schedule = "s"});
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "a", .max = 3}, buf, sizeof buf),
        "run wait done");
    assert_int_equal(op1(st, (sked_run_op){.kind = SKED_RUN_OP_WAIT,
                                           .run_id = "wait",
                                           .executor = "a",
                                           .at = vclock.t,
                                           .not_before = vclock.t + 600 * SEC}),
                     0);
    assert_int_equal(op1(st, finish("done", "a", SKED_RUN_COMPLETED)), 0);
    vclock.t += SEC;

    assert_int_equal(
        sked__store_run_cancel(st, "pend", vclock.t, &status, &ev, &nev, &err),
        0);
    assert_int_equal(status, SKED_RUN_CANCELLED);
    assert_int_equal(nev, 1);
    assert_string_equal(ev[0].type, "run.cancelled");
    assert_string_equal(ev[0].payload, "{\"workflow\":\"report\",\"schedule\":"
                                       "\"s\",\"reason\":\"cancel\","
                                       "\"actor\":\"library\"}");
    sked__events_free(ev, nev);
    get(st, "pend", &r);
    assert_int_equal(r.status, SKED_RUN_CANCELLED);
    assert_string_equal(r.error, "Cancelled.");
    assert_string_equal(r.error_code, "cancelled");
    assert_true(r.finished_at == vclock.t);
    sked__run_done(&r);

    assert_int_equal(
        sked__store_run_cancel(st, "run", vclock.t, &status, &ev, &nev, &err),
        0);
    assert_int_equal(status, SKED_RUN_RUNNING);
    assert_int_equal(nev, 0);
    sked__events_free(ev, nev);
    get(st, "run", &r);
    assert_true(r.cancel_requested_at == vclock.t);
    assert_string_equal(r.executor, "a");
    sked__run_done(&r);

    assert_int_equal(
        sked__store_run_cancel(st, "wait", vclock.t, &status, NULL, NULL, &err),
        0);
    assert_int_equal(status, SKED_RUN_WAITING);
    get(st, "wait", &r);
    assert_true(r.cancel_requested_at == vclock.t);
    assert_true(r.not_before == vclock.t);
    sked__run_done(&r);
    /* Asked again later: kept as first asked. */
    vclock.t += SEC;
    assert_int_equal(
        sked__store_run_cancel(st, "wait", vclock.t, &status, NULL, NULL, &err),
        0);
    get(st, "wait", &r);
    assert_true(r.cancel_requested_at == vclock.t - SEC);
    sked__run_done(&r);
    /* The waiting run is taken to run its failure path. */
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "b"}, buf, sizeof buf), "wait");

    assert_int_equal(
        sked__store_run_cancel(st, "done", vclock.t, &status, NULL, NULL, &err),
        SKED_ECONFLICT);
    assert_string_equal(err.msg, "run done is already completed");
    assert_int_equal(sked__store_run_cancel(st, "ghost", vclock.t, &status,
                                            NULL, NULL, &err),
                     SKED_ENOTFOUND);
}

/* The decide callback of the cancel_other firing below: one run at the
 * occurrence in CTX, cancelling the others. */
static int decide_cancel(void *ctx, const sked_schedule *s,
                         const sked__occ_days *days, const sked_time *skips,
                         size_t nskips, int64_t active, sked_firing *out)
{
    (void) skips;
    (void) nskips;
    (void) days;
    sked_time occ = *(const sked_time *) ctx;

    (void) active;
    out->runs = calloc(1, sizeof *out->runs);
    out->key = strdup("schedule:c");
    if (!out->runs || !out->key)
        return SKED_ENOMEM;
    out->runs[0] = (sked_run_new){.id = strdup("c-new"),
                                  .workflow = s->workflow,
                                  .schedule = s->name,
                                  .scheduled_for = occ,
                                  .serial_key = out->key};
    out->nruns = 1;
    out->cursor = occ;
    out->next_fire_at = s->next_fire_at;
    out->status = SKED_SCHEDULE_ACTIVE;
    out->cancel_others = true;
    return out->runs[0].id ? 0 : SKED_ENOMEM;
}

/* SPEC 3.4 cancel_other, through a real firing: the run that never
 * started is cancelled at once, the running one is asked to stop, the
 * new one waits for its key. */
static void test_cancel_other_firing(void **state)
{
    const char *const names[] = {"c"};
    sked_store *st = *state;
    sked_time occ = T("2026-01-10T12:00:00Z");
    sked_firing f;
    sked_event *ev = NULL;
    size_t nev = 0;
    sked_error err;
    sked_run r;
    char buf[256];

    create_schedule(st, "c", SKED_OVERLAP_CANCEL_OTHER, 0);
    add(st, (sked_run_new){.id = "c-old",
                           .schedule = "c",
                           .scheduled_for = occ - 7200 * SEC,
                           .serial_key = "schedule:c"});
    add(st, (sked_run_new){.id = "c-mid",
                           .schedule = "c",
                           .scheduled_for = occ - 3600 * SEC,
                           .serial_key = "schedule:c"});
    add(st, (sked_run_new){.id = "other", .schedule = "x"});
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "a", .max = 1}, buf, sizeof buf),
        "c-old");
    vclock.t += SEC;
    if (sked__store_fire(st, names, 1, decide_cancel, &occ, &f, &ev, &nev,
                         &err) != 0)
        fail_msg("fire: %s", err.msg);
    assert_int_equal(f.created, 1);
    sked__firing_done(&f);
    assert_int_equal(events_of(ev, nev, "run.created", "c-new"), 1);
    assert_int_equal(events_of(ev, nev, "run.cancelled", "c-mid"), 1);
    assert_int_equal(events_of(ev, nev, "run.cancelled", NULL), 1);
    sked__events_free(ev, nev);
    assert_int_equal(status_of(st, "c-mid"), SKED_RUN_CANCELLED);
    get(st, "c-old", &r);
    assert_int_equal(r.status, SKED_RUN_RUNNING);
    assert_true(r.cancel_requested_at == vclock.t);
    sked__run_done(&r);
    assert_int_equal(status_of(st, "c-new"), SKED_RUN_PENDING);
    assert_int_equal(status_of(st, "other"), SKED_RUN_PENDING);
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "b"}, buf, sizeof buf), "other");
    assert_int_equal(op1(st, finish("c-old", "a", SKED_RUN_CANCELLED)), 0);
    assert_string_equal(
        claim_ids(st, (claim_opts){.executor = "b"}, buf, sizeof buf), "c-new");
}

/* ---- reading ------------------------------------------------------------ */

static void test_get_steps_order(void **state)
{
    sked_store *st = *state;
    sked_step_record *steps = NULL;
    size_t nsteps = 0;
    sked_run_op ops[4];
    int result[4];
    sked_run r;
    sked_error err;

    add(st, (sked_run_new){.id = "g",
                           .context = "{\"k\":1}",
                           .scheduled_for = T("2026-01-10T11:59:00Z"),
                           .trigger = SKED_TRIGGER_CATCHUP});
    claim_one(st, "g");
    ops[0] = step_op(SKED_RUN_OP_STEP_END, "g", "a", "b", SKED_STEP_FAILED);
    ops[0].step.started_at = vclock.t + 2;
    ops[0].step.error = "exit 3";
    ops[0].step.error_code = "exit";
    ops[0].step.exit_code = 3;
    ops[0].step.stderr_text = "boom";
    ops[0].step.truncated = 2;
    ops[1] = step_op(SKED_RUN_OP_STEP_END, "g", "a", "a", SKED_STEP_COMPLETED);
    ops[1].step.started_at = vclock.t + 1;
    ops[2] = ops[0];
    ops[2].step.attempt = 2;
    ops[2].step.started_at = vclock.t + 3;
    ops[3] = step_op(SKED_RUN_OP_STEP_BEGIN, "g", "a", "a", SKED_STEP_RUNNING);
    ops[3].step.compensation = true;
    ops[3].step.started_at = vclock.t + 4;
    assert_int_equal(sked__store_run_ops(st, ops, 4, result, NULL, NULL, NULL),
                     0);
    assert_int_equal(sked__store_run_get(st, "g", &r, &steps, &nsteps, &err),
                     0);
    assert_string_equal(r.context, "{\"k\":1}");
    assert_int_equal(r.trigger, SKED_TRIGGER_CATCHUP);
    assert_true(r.scheduled_for == T("2026-01-10T11:59:00Z"));
    assert_string_equal(r.queue, "default");
    assert_false(r.failing);
    sked__run_done(&r);
    assert_int_equal(nsteps, 4);
    assert_string_equal(steps[0].step, "a");
    assert_false(steps[0].compensation);
    assert_int_equal(steps[0].exit_code, -1);
    assert_string_equal(steps[1].step, "b");
    assert_int_equal(steps[1].attempt, 1);
    assert_int_equal(steps[1].exit_code, 3);
    assert_string_equal(steps[1].stderr_text, "boom");
    assert_int_equal(steps[1].truncated, 2);
    assert_string_equal(steps[1].error_code, "exit");
    assert_int_equal(steps[2].attempt, 2);
    assert_true(steps[3].compensation);
    assert_int_equal(steps[3].status, SKED_STEP_RUNNING);
    assert_true(steps[3].finished_at == SKED_TIME_NONE);
    sked__step_records_free(steps, nsteps);
    assert_int_equal(sked__store_run_get(st, "zz", &r, NULL, NULL, &err),
                     SKED_ENOTFOUND);
}

/* Newest first, in pages by (created_at, id), with filters. */
static void test_list(void **state)
{
    sked_store *st = *state;
    sked_run_filter f = {.status = -1, .limit = 2};
    sked_run *runs = NULL;
    size_t n = 0;
    bool more = false;

    add(st, (sked_run_new){.id = "l1", .schedule = "s"});
    vclock.t += SEC;
    add(st, (sked_run_new){.id = "l2", .schedule = "s", .workflow = "w2"});
    add(st, (sked_run_new){.id = "l3", .schedule = "t"});
    vclock.t += SEC;
    add(st, (sked_run_new){.id = "l4"});
    assert_int_equal(sked__store_run_list(st, &f, &runs, &n, &more, NULL), 0);
    assert_int_equal(n, 2);
    assert_true(more);
    assert_string_equal(runs[0].id, "l4");
    assert_string_equal(runs[1].id, "l3");
    f.before_created = runs[1].created_at;
    f.before_id = "l3";
    sked__runs_free(runs, n);
    assert_int_equal(sked__store_run_list(st, &f, &runs, &n, &more, NULL), 0);
    assert_int_equal(n, 2);
    assert_false(more);
    assert_string_equal(runs[0].id, "l2");
    assert_string_equal(runs[1].id, "l1");
    sked__runs_free(runs, n);
    f = (sked_run_filter){.status = -1, .schedule = "s"};
    assert_int_equal(sked__store_run_list(st, &f, &runs, &n, &more, NULL), 0);
    assert_int_equal(n, 2);
    sked__runs_free(runs, n);
    f = (sked_run_filter){.status = -1, .workflow = "w2"};
    assert_int_equal(sked__store_run_list(st, &f, &runs, &n, &more, NULL), 0);
    assert_int_equal(n, 1);
    assert_string_equal(runs[0].id, "l2");
    sked__runs_free(runs, n);
    claim_one(st, "l1");
    f = (sked_run_filter){.status = SKED_RUN_RUNNING};
    assert_int_equal(sked__store_run_list(st, &f, &runs, &n, &more, NULL), 0);
    assert_int_equal(n, 1);
    assert_string_equal(runs[0].id, "l1");
    sked__runs_free(runs, n);
}

/* ---- bad input ------------------------------------------------------------
 */

/* Calls that make no sense are refused before anything is written. */
static void test_bad_input(void **state)
{
    sked_store *st = *state;
    sked_claim_req req = {.executor = "a",
                          .now = vclock.t,
                          .lease = LEASE,
                          .max = 0,
                          .workflows = report_v1,
                          .nworkflows = 1};
    sked_queue_def twice[] = {{.name = "q"}, {.name = "q"}};
    sked_run_filter f = {
        .status = -1, .before_id = "x", .before_created = SKED_TIME_NONE};
    sked_run_op op = finish("r", "a", SKED_RUN_RUNNING);
    sked_run *runs = NULL;
    size_t n = 0;
    int result = 0;
    bool more;
    sked_error err;

    add(st, (sked_run_new){.id = "r"});
    assert_int_equal(
        sked__store_runs_claim(st, &req, &runs, &n, NULL, NULL, &err),
        SKED_EINVAL);
    assert_string_equal(err.field, "max");
    req.max = SKED_STORE_BATCH_MAX + 1;
    assert_int_equal(
        sked__store_runs_claim(st, &req, &runs, &n, NULL, NULL, &err),
        SKED_EINVAL);
    req = (sked_claim_req){
        .executor = "a", .now = vclock.t, .lease = LEASE, .max = 1};
    assert_int_equal(
        sked__store_runs_claim(st, &req, &runs, &n, NULL, NULL, &err), 0);
    assert_int_equal(n, 0); /* no workflow: nothing to run */
    claim_one(st, "r");
    assert_int_equal(sked__store_run_ops(st, &op, 1, &result, NULL, NULL, &err),
                     SKED_EINVAL);
    assert_string_equal(err.field, "status");
    assert_int_equal(status_of(st, "r"), SKED_RUN_RUNNING);
    assert_int_equal(sked__store_queues_put(st, twice, 2, &err), SKED_EINVAL);
    assert_int_equal(sked__store_run_list(st, &f, &runs, &n, &more, &err),
                     SKED_EINVAL);
    assert_int_equal(
        sked__store_run_cancel(st, "", vclock.t, NULL, NULL, NULL, &err),
        SKED_EINVAL);
    assert_int_equal(sql1("SELECT count(*) FROM queues"), 0);
}

/* Write EXPR (SQL) into OUT as the back-end spells it: SQLite's chr()
 * is char(). */
static void spell(const char *expr, bool sqlite, char *out, size_t size)
{
    snprintf(out, size, "%s", expr);
    for (char *q = out; sqlite && (q = strstr(q, "chr(")) != NULL; q++)
        memmove(q + 4, q + 3, strlen(q + 3) + 1), memcpy(q, "char", 4);
}

/* Claim with executor EXEC until nothing comes (at most LIMIT claims of
 * MAX); the ids joined in BUF, the run.failed events counted in *failed
 * (each with error code "unreadable"). */
static const char *claim_all(sked_store *st, const char *exec, size_t max,
                             int limit, char *buf, size_t size, int *failed)
{
    size_t len = 0;

    buf[0] = '\0';
    for (int round = 0; round < limit; round++) {
        sked_event *ev = NULL;
        sked_run *runs = NULL;
        size_t nev = 0;
        size_t n = claim(st, (claim_opts){.executor = exec, .max = max}, &runs,
                         &ev, &nev);
        for (size_t i = 0; i < n; i++)
            len += (size_t) snprintf(buf + len, size - len, "%s%s",
                                     len ? " " : "", runs[i].id);
        for (size_t i = 0; i < nev; i++)
            if (strcmp(ev[i].type, "run.failed") == 0) {
                assert_non_null(strstr(ev[i].payload, "\"unreadable\""));
                (*failed)++;
            }
        sked__runs_free(runs, n);
        sked__events_free(ev, nev);
        if (n == 0 && nev == 0)
            break;
    }
    return buf;
}

/* Issue 14: a run row no write of sked makes (an id of invalid UTF-8 or
 * with a control character or a '/', a queue that is not a name: an
 * older sked's, or a hand's) is set aside by the claim that meets it (a
 * claim meets only the workflows its executor has, all names), failed with
 * error code "unreadable" and a run.failed event, and every other run is
 * claimed as before. Each bad row is planted under the store, among good runs,
 * on both back-ends; expired leases take the same road as ready runs. */
static void test_claim_sets_aside_unreadable(void **state)
{
    sked_store *st = *state;
    bool sqlite = strncmp(db_url, "sqlite:", 7) == 0;
    /* The first ones only SQLite stores (PostgreSQL refuses invalid
     * UTF-8 in text). */
    const char *const sqlite_only[] = {
        "id = 'api-report-key-' || CAST(X'FF' AS TEXT)",
        "id = 'k' || CAST(X'C0AF' AS TEXT)",   /* an overlong '/' */
        "id = 'k' || CAST(X'EDA080' AS TEXT)", /* a surrogate */
        "id = 'k' || CAST(X'E282' AS TEXT)",   /* cut short */
    };
    const char *const both[] = {
        "id = 'api-report-key-a/b'",
        "id = 'k' || chr(1)",
        "id = 'k' || chr(127)",
        "id = '..'",
        "id = ' k'",
        "id = 'k' || chr(10) || 'v'",
        "queue = 'q/1'",
        "queue = '..'",
    };
    size_t nsq = sqlite ? sizeof sqlite_only / sizeof *sqlite_only : 0;
    size_t nbad = nsq + sizeof both / sizeof *both;
    char id[32], expr[128], buf[512];
    int failed = 0;

    for (size_t i = 0; i < nbad; i++) {
        snprintf(id, sizeof id, "plant-%02zu", i);
        add(st, (sked_run_new){.id = id});
        vclock.t++;
        spell(i < nsq ? sqlite_only[i] : both[i - nsq], sqlite, expr,
              sizeof expr);
        sql1("UPDATE runs SET %s WHERE id = '%s'", expr, id);
    }
    add_many(st, "good", NULL, 3);
    assert_int_equal(sql1("SELECT count(*) FROM runs"), (long long) nbad + 3);

    assert_string_equal(claim_all(st, "a", 2, 20, buf, sizeof buf, &failed),
                        "good-0000 good-0001 good-0002");
    assert_int_equal(failed, (int) nbad);
    assert_int_equal(sql1("SELECT count(*) FROM runs WHERE status = 'failed' "
                          "AND error_code = 'unreadable' "
                          "AND error LIKE 'unreadable run set aside: %%' "
                          "AND finished_at IS NOT NULL"),
                     (long long) nbad);

    /* An expired lease of a row made unreadable while it ran. */
    vclock.t += LEASE + SEC;
    sql1("UPDATE runs SET queue = 'no way' WHERE id = 'good-0000'");
    failed = 0;
    assert_string_equal(claim_all(st, "b", 5, 5, buf, sizeof buf, &failed),
                        "good-0001 good-0002");
    assert_int_equal(failed, 1);
    assert_int_equal(sql1("SELECT count(*) FROM runs WHERE id = 'good-0000' "
                          "AND status = 'failed' AND error_code = "
                          "'unreadable' AND executor IS NULL"),
                     1);
}

/* A released run that had started is asked to cancel, not cancelled at
 * once: it may have completed steps to compensate. */
static void test_cancel_started_pending(void **state)
{
    sked_store *st = *state;
    sked_run_status status = SKED_RUN_RUNNING;
    sked_run r;

    add(st, (sked_run_new){.id = "p"});
    claim_one(st, "p");
    assert_int_equal(sked__store_runs_release(st, "a", vclock.t, NULL), 0);
    assert_int_equal(
        sked__store_run_cancel(st, "p", vclock.t, &status, NULL, NULL, NULL),
        0);
    assert_int_equal(status, SKED_RUN_PENDING);
    get(st, "p", &r);
    assert_true(r.cancel_requested_at == vclock.t);
    sked__run_done(&r);
    claim_one(st, "p");
}

/* ---- queues and workflow versions ---------------------------------------- */

/* Every declared queue, and every queue an active run names, with its
 * depth. */
static void test_queues_list(void **state)
{
    sked_queue_def q[] = {{.name = "q1", .concurrency = 3},
                          {.name = "empty",
                           .worker_concurrency = 2,
                           .rate_limit = 10,
                           .rate_period = 60 * SEC}};
    sked_store *st = *state;
    sked_queue_info *info = NULL;
    size_t n = 0;

    assert_int_equal(sked__store_queues_put(st, q, 2, NULL), 0);
    add_many(st, "a", "q1", 3);
    add_many(st, "d", NULL, 2);
    claim_one(st, "a-0000");
    assert_int_equal(op1(st, finish("a-0000", "a", SKED_RUN_COMPLETED)), 0);
    claim_one(st, "a-0001");
    assert_int_equal(sked__store_queues_list(st, &info, &n, NULL), 0);
    assert_int_equal(n, 3);
    assert_string_equal(info[0].name, "default");
    assert_int_equal(info[0].pending, 2);
    assert_int_equal(info[0].running, 0);
    assert_int_equal(info[0].concurrency, 0);
    assert_string_equal(info[1].name, "empty");
    assert_int_equal(info[1].worker_concurrency, 2);
    assert_int_equal(info[1].rate_limit, 10);
    assert_true(info[1].rate_period == 60 * SEC);
    assert_int_equal(info[1].pending + info[1].running, 0);
    assert_string_equal(info[2].name, "q1");
    assert_int_equal(info[2].concurrency, 3);
    assert_int_equal(info[2].pending, 1);
    assert_int_equal(info[2].running, 1);
    sked__queue_infos_free(info, n);
    /* Replaced: the limit goes. */
    q[0].concurrency = 0;
    assert_int_equal(sked__store_queues_put(st, q, 1, NULL), 0);
    assert_int_equal(
        sql1("SELECT count(*) FROM queues WHERE concurrency IS NULL"), 2);
    q[1].rate_period = 0;
    assert_int_equal(sked__store_queues_put(st, &q[1], 1, NULL), SKED_EINVAL);
}

static void test_workflow_latest(void **state)
{
    sked_store *st = *state;
    char *v = NULL;

    assert_int_equal(sked__store_workflow_latest(st, "w", &v, NULL),
                     SKED_ENOTFOUND);
    assert_int_equal(sked__store_workflow_register(st, "w", "v1", NULL, NULL),
                     0);
    vclock.t += SEC;
    assert_int_equal(
        sked__store_workflow_register(st, "w", "v2", "{\"steps\":[]}", NULL),
        0);
    assert_int_equal(sked__store_workflow_latest(st, "w", &v, NULL), 0);
    assert_string_equal(v, "v2");
    free(v);
    vclock.t += SEC;
    assert_int_equal(sked__store_workflow_register(st, "w", "v1", NULL, NULL),
                     0);
    assert_int_equal(sked__store_workflow_latest(st, "w", &v, NULL), 0);
    assert_string_equal(v, "v1");
    free(v);
    assert_int_equal(sked__store_workflow_register(st, "w", "v3", "[", NULL),
                     SKED_EINVAL);
    assert_int_equal(sked__store_workflow_register(st, "w w", "v3", NULL, NULL),
                     SKED_EINVAL);
    assert_int_equal(sql1("SELECT count(*) FROM workflow_versions"), 2);
}

/* ---- many executors at once -------------------------------------------- */

#define THREADS 4
#define MANY    2000
#define LIMITED 3

struct worker {
    sked_store *st;
    char name[16];
    int claimed;
    int over; /* times the limited queue was seen over its limit */
    char (*seen)[MANY];
    pthread_mutex_t *mu;
    int rc;
};

/* Claim until nothing is left; finish what was claimed at once, checking
 * the limited queue never runs more than LIMITED. */
static void *worker_main(void *arg)
{
    struct worker *w = arg;
    int idle = 0;

    while (w->rc == 0 && idle < 3) {
        sked_claim_req req = {.executor = w->name,
                              .now = vclock.t,
                              .lease = LEASE,
                              .max = 50,
                              .workflows = report_v1,
                              .nworkflows = 1};
        sked_run *runs = NULL;
        sked_run_op *ops;
        int *result;
        size_t n = 0;

        w->rc =
            sked__store_runs_claim(w->st, &req, &runs, &n, NULL, NULL, NULL);
        if (w->rc != 0 || n == 0) {
            idle += n == 0;
            sked__runs_free(runs, n);
            continue;
        }
        idle = 0;
        if (sql1("SELECT count(*) FROM runs WHERE queue = 'lim' AND "
                 "status = 'running'") > LIMITED)
            w->over++;
        ops = calloc(n, sizeof *ops);
        result = calloc(n, sizeof *result);
        pthread_mutex_lock(w->mu);
        for (size_t i = 0; i < n; i++) {
            int k = atoi(strchr(runs[i].id, '-') + 1);
            (*w->seen)[k]++;
            ops[i] = finish(runs[i].id, w->name, SKED_RUN_COMPLETED);
        }
        pthread_mutex_unlock(w->mu);
        w->claimed += (int) n;
        w->rc = sked__store_run_ops(w->st, ops, n, result, NULL, NULL, NULL);
        for (size_t i = 0; w->rc == 0 && i < n; i++)
            w->rc = result[i];
        free(ops);
        free(result);
        sked__runs_free(runs, n);
    }
    return NULL;
}

/* Four executors claim from 2,000 runs until none is left: each run is
 * claimed once, and a limited queue never runs more than its limit. */
static void test_claim_threads(void **state)
{
    static char seen[MANY];
    sked_queue_def q = {.name = "lim", .concurrency = LIMITED};
    sked_store *st = *state;
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    struct worker w[THREADS];
    pthread_t th[THREADS];
    sked_run_new *runs = calloc(MANY, sizeof *runs);
    char(*ids)[32] = calloc(MANY, sizeof *ids);
    int total = 0;

    assert_non_null(runs);
    assert_non_null(ids);
    memset(seen, 0, sizeof seen);
    assert_int_equal(sked__store_queues_put(st, &q, 1, NULL), 0);
    for (int i = 0; i < MANY; i++) {
        snprintf(ids[i], sizeof ids[i], "t-%d", i);
        runs[i] = (sked_run_new){.id = ids[i],
                                 .workflow = "report",
                                 .queue = i % 4 == 0 ? "lim" : NULL,
                                 .not_before = vclock.t - MANY + i};
    }
    for (int i = 0; i < MANY; i += SKED_STORE_BATCH_MAX)
        assert_int_equal(sked__store_runs_insert(
                             st, &runs[i], SKED_STORE_BATCH_MAX, NULL, NULL),
                         0);
    for (int i = 0; i < THREADS; i++) {
        w[i] = (struct worker){.st = st, .seen = &seen, .mu = &mu};
        snprintf(w[i].name, sizeof w[i].name, "node-%d", i);
        assert_int_equal(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        assert_int_equal(w[i].rc, 0);
        assert_int_equal(w[i].over, 0);
        total += w[i].claimed;
    }
    assert_int_equal(total, MANY);
    for (int i = 0; i < MANY; i++)
        assert_int_equal(seen[i], 1);
    assert_int_equal(
        sql1("SELECT count(*) FROM runs WHERE status = 'completed'"), MANY);
    free(runs);
    free(ids);
}

int main(void)
{
    const char *url = getenv("SKED_TEST_DB_URL");
    const struct CMUnitTest tests[] = {
#define T_(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
        T_(test_claim_order),
        T_(test_claim_max),
        T_(test_claim_versions),
        T_(test_claim_serial),
        T_(test_claim_serial_running_blocks),
        T_(test_claim_queue_concurrency),
        T_(test_claim_rate_limit),
        T_(test_claim_caps),
        T_(test_lease_recovery),
        T_(test_held_not_recovered),
        T_(test_lease_kept_after_store_failure),
        T_(test_refused_call_holds_nothing_back),
        T_(test_renew),
        T_(test_release),
        T_(test_ops_batch),
        T_(test_ops_begin_again),
        T_(test_ops_failure_path),
        T_(test_finish_failures_pause),
        T_(test_failures_batch_order),
        T_(test_cancel),
        T_(test_cancel_other_firing),
        T_(test_cancel_started_pending),
        T_(test_get_steps_order),
        T_(test_list),
        T_(test_queues_list),
        T_(test_workflow_latest),
        T_(test_bad_input),
        T_(test_claim_sets_aside_unreadable),
        T_(test_claim_threads),
#undef T_
    };
    int failed;

    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/sked-store-run-XXXXXX");
    if (!mkdtemp(tmp_dir))
        return 1;
    if (url && url[0])
        snprintf(db_url, sizeof db_url, "%s", url);
    else
        snprintf(db_url, sizeof db_url, "sqlite:%s/store.db", tmp_dir);
    if (sked_tzdb_open(SKED_TEST_DATA "/zoneinfo", &tzdb, NULL) != 0)
        return 1;
    sked__clock_virtual(&vclock, &clock_);
    failed = cmocka_run_group_tests(tests, NULL, NULL);
    sked_tzdb_close(tzdb);
    if (!failed) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
        (void) !system(cmd);
    }
    return failed;
}
