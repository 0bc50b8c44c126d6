/* SPDX-License-Identifier: MIT */
/* What the outbox costs the events it follows (issue 19: at most 10%):
 * failed runs recorded, with and without a notifier that wants them.
 *
 * For each engine (SQLite always, synchronous=FULL; PostgreSQL when
 * SKED_BENCH_PG_URL or SKED_TEST_PG_URL names a database, emptied first):
 * record RUNS runs of the schedule "nightly-db" without a notifier and
 * RUNS with one, on the same database, in ROUNDS rounds of one batch
 * each that alternate which case goes first (ABBA), so that the
 * machine's drift (other processes, the disk's flushes, a checkpoint)
 * falls on both alike. A round inserts its pending runs, claims them in
 * a batch of 100 and records each as the executor does a run whose one
 * step failed (one sked__store_run_ops call of three ops a run, the
 * events step.started, step.failed and run.failed). In the rounds with
 * a notifier, a webhook notifier of run.failed and "nightly-*" exists,
 * so that every run.failed writes its delivery in the same transaction:
 * the worst case, as every event of the batch is notifiable (a run that
 * completes pays one scan of its events' types). Only the ops are
 * timed. Deliveries are not sent here: the delivery thread makes them
 * rows and sends them later, outside these transactions (the notifier's
 * deletion at the end of its round makes them rows and fails them).
 * Output: a table, then
 * one line per case for scripts (tab-separated):
 *
 *     bench  notify  ENGINE  RUNS  NOTIFIER  RUNS_PER_S  OPS_MS  RATIO
 *
 * RUNS is "failed" (the worst case above) or "completed" (the same runs
 * completing: with a notifier of run.failed, what the runs that do not
 * fail pay).
 *
 * Usage: bench_notify [DIR] (the SQLite files go to DIR, default
 * $TMPDIR). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "model/calendar.h"
#include "model/notifier.h"
#include "store/store.h"
#include "store/store_notify.h"
#include "store/store_run.h"

#define RUNS   5000
#define BATCH  100
#define ROUNDS 50
#define CHUNK  100 /* runs inserted at once; divides RUNS / ROUNDS */

static const sked_claim_workflow workflows[] = {{"noop", "1", true}};

static double now_s(void)
{
    struct timespec ts;

    (void) clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void die(const char *what, const sked_error *err)
{
    fprintf(stderr, "bench_notify: %s: %s\n", what, err->msg);
    exit(1);
}

/* Insert RUNS / ROUNDS pending runs PREFIX-i of the schedule "nightly-db". */
static void fill(sked_store *st, const char *prefix)
{
    static char ids[CHUNK][48];
    sked_run_new runs[CHUNK];
    sked_error err;

    for (int i = 0; i < RUNS / ROUNDS; i += CHUNK) {
        for (int k = 0; k < CHUNK; k++) {
            snprintf(ids[k], sizeof ids[k], "%s-%06d", prefix, i + k);
            runs[k] = (sked_run_new){.id = ids[k],
                                     .workflow = "noop",
                                     .scheduled_for = SKED_TIME_NONE,
                                     .not_before = SKED_TIME_NONE};
        }
        if (sked__store_runs_insert(st, runs, CHUNK, NULL, &err) != 0)
            die("insert", &err);
    }
}

/* Whether the runs fail (each run.failed notifiable), or complete. */
static bool failing;

/* The three ops of run R failing (or completing) in its one step, at AT. */
static void ops_of(const sked_run *r, sked_time at, sked_run_op *o)
{
    static const char payload[] =
        "{\"workflow\":\"noop\",\"queue\":\"default\",\"schedule\":"
        "\"nightly-db\",\"error\":\"exit status 3\",\"error_code\":"
        "\"step_failed\"}";
    sked_step_record rec = {.step = "noop",
                            .attempt = 1,
                            .status = SKED_STEP_RUNNING,
                            .exit_code = -1,
                            .started_at = at,
                            .finished_at = SKED_TIME_NONE};

    o[0] = (sked_run_op){.kind = SKED_RUN_OP_STEP_BEGIN,
                         .run_id = r->id,
                         .executor = "bench",
                         .at = at,
                         .step = rec,
                         .events = {{"step.started", NULL, NULL}},
                         .nevents = 1};
    rec.status = failing ? SKED_STEP_FAILED : SKED_STEP_COMPLETED;
    rec.exit_code = failing ? 3 : 0;
    rec.finished_at = at;
    o[1] = o[0];
    o[1].kind = SKED_RUN_OP_STEP_END;
    o[1].step = rec;
    o[1].events[0] = (sked_run_op_event){
        failing ? "step.failed" : "step.completed", NULL, NULL};
    o[2] = (sked_run_op){.kind = SKED_RUN_OP_FINISH,
                         .run_id = r->id,
                         .executor = "bench",
                         .at = at,
                         .status = SKED_RUN_FAILED,
                         .error = "exit status 3",
                         .error_code = "step_failed",
                         .events = {{"run.failed", NULL, payload}},
                         .nevents = 1};
    if (!failing) {
        o[2].status = SKED_RUN_COMPLETED;
        o[2].error = o[2].error_code = NULL;
        o[2].events[0] = (sked_run_op_event){"run.completed", NULL, NULL};
    }
}

/* Claim and record every run; the seconds spent in the ops. */
static double drain(sked_store *st)
{
    static sked_run_op ops[3 * BATCH];
    static int result[3 * BATCH];
    double ops_s = 0;
    sked_error err;

    for (;;) {
        sked_claim_req req = {.executor = "bench",
                              .now = sked__clock_now(NULL),
                              .lease = 30 * SKED_USEC_PER_SEC,
                              .max = BATCH,
                              .workflows = workflows,
                              .nworkflows = 1};
        sked_run *runs = NULL;
        sked_event *ev = NULL;
        size_t n = 0, nev = 0;
        double t;

        if (sked__store_runs_claim(st, &req, &runs, &n, &ev, &nev, &err))
            die("claim", &err);
        sked__events_free(ev, nev);
        if (n == 0)
            return ops_s;
        for (size_t i = 0; i < n; i++)
            ops_of(&runs[i], req.now, &ops[3 * i]);
        t = now_s();
        if (sked__store_run_ops(st, ops, 3 * n, result, &ev, &nev, &err))
            die("ops", &err);
        ops_s += now_s() - t;
        sked__events_free(ev, nev);
        sked__runs_free(runs, n);
    }
}

static void add_notifier(sked_store *st)
{
    sked_notifier n = {.kind = SKED_NOTIFIER_WEBHOOK};
    sked_error err;

    n.name = "ops-hook";
    n.url = "http://127.0.0.1:9/hook";
    if (sked__strlist_add(&n.events, "run.failed") != 0 ||
        sked__strlist_add(&n.schedules, "nightly-*") != 0)
        exit(1);
    if (sked__store_notifier_put(st, &n, NULL, &err) != 0)
        die("notifier", &err);
    sked__strlist_done(&n.events);
    sked__strlist_done(&n.schedules);
}

/* Empty the PostgreSQL database URL: a run of the bench starts from
 * nothing, as a fresh server would. */
static void pg_reset(const char *url)
{
    PGconn *c = PQconnectdb(url);
    PGresult *r;

    if (PQstatus(c) != CONNECTION_OK) {
        fprintf(stderr, "bench_notify: postgres: %s", PQerrorMessage(c));
        exit(1);
    }
    r = PQexec(c, "SET client_min_messages = warning; DROP SCHEMA public "
                  "CASCADE; CREATE SCHEMA public");
    if (PQresultStatus(r) != PGRES_COMMAND_OK) {
        fprintf(stderr, "bench_notify: postgres: %s", PQerrorMessage(c));
        exit(1);
    }
    PQclear(r);
    PQfinish(c);
}

static void report(const char *engine, bool notifier, double s, double base)
{
    double rate = RUNS / s, ms = s * 1e3 / (RUNS / BATCH);
    double ratio = base > 0 ? s / base : 1.0;
    const char *runs = failing ? "failed" : "completed";

    printf("%-9s %-9s %-9s %10.0f %9.3f %6.2f\n", engine, runs,
           notifier ? "yes" : "no", rate, ms, ratio);
    printf("bench\tnotify\t%s\t%s\t%s\t%.0f\t%.3f\t%.3f\n", engine, runs,
           notifier ? "yes" : "no", rate, ms, ratio);
}

/* Both cases on one database at URL, in ROUNDS rounds of RUNS / ROUNDS
 * runs each, alternating which case goes first (ABBA). The notifier
 * exists only during its case's rounds. */
static void both(const char *engine, const char *url)
{
    sked_store_options o = {.sqlite_synchronous = "full"};
    sked_store *st = NULL;
    sked_error err;
    double s[2] = {0, 0};

    if (sked__store_open(url, &o, &st, &err) != 0)
        die("open", &err);
    for (int r = 0; r < ROUNDS; r++) {
        for (int k = 0; k < 2; k++) {
            bool notifier = (k == 0) == (r % 2 == 1);
            char prefix[48];
            snprintf(prefix, sizeof prefix, "%s-%s-%d", failing ? "f" : "c",
                     notifier ? "with" : "without", r);
            fill(st, prefix);
            if (notifier)
                add_notifier(st);
            s[notifier] += drain(st);
            if (notifier &&
                sked__store_notifier_delete(st, "ops-hook", &err) != 0)
                die("delete the notifier", &err);
        }
    }
    report(engine, false, s[0], 0);
    report(engine, true, s[1], s[0]);
    sked__store_close(st);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : getenv("TMPDIR");
    const char *pg = getenv("SKED_BENCH_PG_URL");
    char url[512];

    if (!dir)
        dir = "/tmp";
    if (!pg || !pg[0])
        pg = getenv("SKED_TEST_PG_URL");
    printf("%-9s %-9s %-9s %10s %9s %6s\n", "engine", "runs", "notifier",
           "runs/s", "ops ms", "ratio");
    for (int f = 0; f < 2; f++) {
        static const char *const ext[] = {"", "-wal", "-shm"};
        char path[600];

        failing = f == 0;
        snprintf(url, sizeof url, "sqlite:%s/bench-notify-%ld.db", dir,
                 (long) getpid());
        both("sqlite", url);
        for (int k = 0; k < 3; k++) {
            snprintf(path, sizeof path, "%s%s", url + 7, ext[k]);
            (void) unlink(path);
        }
        if (pg && pg[0]) {
            pg_reset(pg);
            both("postgres", pg);
        }
    }
    return 0;
}
