/* SPDX-License-Identifier: MIT */
/* The store's side of execution, timed: no-op runs claimed and recorded
 * per second, and the time of one claim and of one group commit.
 *
 * For each engine (SQLite always, synchronous=FULL; PostgreSQL when
 * SKED_BENCH_PG_URL or SKED_TEST_PG_URL names a database) and each batch
 * size (100, 1000 runs): insert RUNS pending runs, then until none is
 * left, claim a batch (sked__store_runs_claim) and record it as the
 * executor would for a run of one step that does nothing: one
 * sked__store_run_ops call of three ops per run (STEP_BEGIN, STEP_END,
 * FINISH, with the events step.started, step.completed, run.completed).
 * Each executor (1, then 4; SKED_BENCH_THREADS=N measures N alone), a
 * thread of its own, does both in turn, so a figure for one executor is
 * what it gets without overlapping its claims and its commits.
 * PostgreSQL's tables are analysed after the fill. Output: a table for
 * people, then one line per case for scripts (tab-separated):
 *
 *     bench  run  ENGINE  BATCH  EXECUTORS  RUNS_PER_S  CLAIM_MS  OPS_MS
 *
 * Usage: bench_run [DIR] (the SQLite file goes to DIR, default $TMPDIR);
 * SKED_BENCH_SKIP_SQLITE=1 measures PostgreSQL alone. */
#include <inttypes.h>
#include <pthread.h>
#include <libpq-fe.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"
#include "store/store_run.h"

#define RUNS        20000
#define THREADS_MAX 16

static const sked_claim_workflow workflows[] = {{"noop", "1", true}};

static double now_s(void)
{
    struct timespec ts;

    (void) clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void die(const char *what, const sked_error *err)
{
    fprintf(stderr, "bench_run: %s: %s\n", what, err->msg);
    exit(1);
}

/* Insert RUNS pending runs with ids PREFIX-i. */
static void fill(sked_store *st, const char *prefix)
{
    static char ids[SKED_STORE_BATCH_MAX][48];
    sked_run_new runs[SKED_STORE_BATCH_MAX];
    sked_error err;

    for (int i = 0; i < RUNS; i += SKED_STORE_BATCH_MAX) {
        for (int k = 0; k < SKED_STORE_BATCH_MAX; k++) {
            snprintf(ids[k], sizeof ids[k], "%s-%06d", prefix, i + k);
            runs[k] = (sked_run_new){.id = ids[k],
                                     .workflow = "noop",
                                     .scheduled_for = SKED_TIME_NONE,
                                     .not_before = SKED_TIME_NONE};
        }
        if (sked__store_runs_insert(st, runs, SKED_STORE_BATCH_MAX, NULL,
                                    &err) != 0)
            die("insert", &err);
    }
}

/* The three ops of no-op run R held by EXECUTOR, finished at AT. */
static void ops_of(const sked_run *r, const char *executor, sked_time at,
                   sked_run_op *o)
{
    sked_step_record rec = {.step = "noop",
                            .attempt = 1,
                            .status = SKED_STEP_RUNNING,
                            .exit_code = -1,
                            .started_at = at,
                            .finished_at = SKED_TIME_NONE};

    o[0] = (sked_run_op){.kind = SKED_RUN_OP_STEP_BEGIN,
                         .run_id = r->id,
                         .executor = executor,
                         .at = at,
                         .step = rec,
                         .events = {{"step.started", NULL, NULL}},
                         .nevents = 1};
    rec.status = SKED_STEP_COMPLETED;
    rec.exit_code = 0;
    rec.finished_at = at;
    o[1] = o[0];
    o[1].kind = SKED_RUN_OP_STEP_END;
    o[1].step = rec;
    o[1].events[0] = (sked_run_op_event){"step.completed", NULL, NULL};
    o[2] = (sked_run_op){.kind = SKED_RUN_OP_FINISH,
                         .run_id = r->id,
                         .executor = executor,
                         .at = at,
                         .status = SKED_RUN_COMPLETED,
                         .events = {{"run.completed", NULL, NULL}},
                         .nevents = 1};
}

/* One executor draining the runs: its name and what it measured. */
typedef struct drainer {
    sked_store *st;
    size_t batch;
    char name[16];
    size_t done, rounds;
    double claim_s, ops_s;
} drainer;

/* Claim and record batches until none is left. */
static void *drain(void *arg)
{
    drainer *d = arg;
    sked_run_op *ops = malloc(3 * d->batch * sizeof *ops);
    int *result = malloc(3 * d->batch * sizeof *result);
    sked_error err;

    if (!ops || !result)
        exit(1);
    for (;;) {
        sked_claim_req req = {.executor = d->name,
                              .now = sked__clock_now(NULL),
                              .lease = 30 * SKED_USEC_PER_SEC,
                              .max = d->batch,
                              .workflows = workflows,
                              .nworkflows = 1};
        sked_run *runs = NULL;
        sked_event *ev = NULL;
        size_t n = 0, nev = 0;
        double t = now_s();

        if (sked__store_runs_claim(d->st, &req, &runs, &n, &ev, &nev, &err))
            die("claim", &err);
        sked__events_free(ev, nev);
        d->claim_s += now_s() - t;
        if (n == 0)
            break;
        for (size_t i = 0; i < n; i++)
            ops_of(&runs[i], d->name, req.now, &ops[3 * i]);
        t = now_s();
        if (sked__store_run_ops(d->st, ops, 3 * n, result, &ev, &nev, &err))
            die("ops", &err);
        d->ops_s += now_s() - t;
        sked__events_free(ev, nev);
        sked__runs_free(runs, n);
        d->done += n;
        d->rounds++;
    }
    free(ops);
    free(result);
    return NULL;
}

/* Drain with NTHREADS executors at once and print a line. */
static void drain_all(sked_store *st, const char *engine, size_t batch,
                      int nthreads)
{
    drainer d[THREADS_MAX];
    pthread_t th[THREADS_MAX];
    size_t done = 0, rounds = 0;
    double t0 = now_s(), claim_s = 0, ops_s = 0, rate, claim_ms, ops_ms;

    for (int i = 0; i < nthreads; i++) {
        d[i] = (drainer){.st = st, .batch = batch};
        snprintf(d[i].name, sizeof d[i].name, "bench-%d", i);
        if (pthread_create(&th[i], NULL, drain, &d[i]) != 0)
            exit(1);
    }
    for (int i = 0; i < nthreads; i++) {
        (void) pthread_join(th[i], NULL);
        done += d[i].done;
        rounds += d[i].rounds;
        claim_s += d[i].claim_s;
        ops_s += d[i].ops_s;
    }
    rounds = rounds ? rounds : 1;
    rate = (double) done / (now_s() - t0);
    claim_ms = 1000 * claim_s / (double) rounds;
    ops_ms = 1000 * ops_s / (double) rounds;
    printf("%-9s %6zu %9d %10.0f %9.2f %9.2f\n", engine, batch, nthreads, rate,
           claim_ms, ops_ms);
    printf("bench\trun\t%s\t%zu\t%d\t%.0f\t%.2f\t%.2f\n", engine, batch,
           nthreads, rate, claim_ms, ops_ms);
}

/* Bring PostgreSQL's statistics up to date after the fill, as they are
 * on a database in service (autovacuum would take a minute). */
static void analyze(const char *url)
{
    PGconn *c = PQconnectdb(url);
    PGresult *res = PQexec(c, "ANALYZE runs");

    if (PQresultStatus(res) != PGRES_COMMAND_OK)
        fprintf(stderr, "bench_run: ANALYZE: %s", PQerrorMessage(c));
    PQclear(res);
    PQfinish(c);
}

/* Fill and drain a fresh batch of runs on URL for each batch size, with
 * NTHREADS executors. */
static void run_engine(const char *engine, const char *url, int nthreads)
{
    static const size_t batches[] = {100, 1000};
    sked_store_options o = {.pg_pool_size = nthreads + 1};
    sked_error err;

    for (size_t b = 0; b < 2; b++) {
        sked_store *st = NULL;
        char prefix[48];

        if (sked__store_open(url, &o, &st, &err) != 0)
            die(url, &err);
        snprintf(prefix, sizeof prefix, "b%zu-%d-%ld", batches[b], nthreads,
                 (long) time(NULL));
        fill(st, prefix);
        if (strcmp(engine, "postgres") == 0)
            analyze(url);
        drain_all(st, engine, batches[b], nthreads);
        sked__store_close(st);
    }
}

/* Measure SQLite in DIR, then PostgreSQL at PG (may be NULL), with each
 * count of executors of COUNTS (N of them). */
static void run_all(const char *dir, const char *pg, const int *counts,
                    size_t n)
{
    char url[600], side[620];

    for (size_t i = 0; i < n && !getenv("SKED_BENCH_SKIP_SQLITE"); i++) {
        snprintf(url, sizeof url, "sqlite:%s/bench-run-%ld.db", dir,
                 (long) getpid());
        run_engine("sqlite", url, counts[i]);
        for (int k = 0; k < 3; k++) {
            snprintf(side, sizeof side, "%s%s", url + 7,
                     k == 0   ? ""
                     : k == 1 ? "-wal"
                              : "-shm");
            (void) unlink(side);
        }
    }
    for (size_t i = 0; i < n && pg && pg[0]; i++)
        run_engine("postgres", pg, counts[i]);
}

int main(int argc, char **argv)
{
    static const int counts[] = {1, 4};
    const char *pg = getenv("SKED_BENCH_PG_URL");
    const char *dir = argc > 1 ? argv[1] : getenv("TMPDIR");
    const char *threads = getenv("SKED_BENCH_THREADS");
    int one = threads ? atoi(threads) : 0;

    if (!pg || !pg[0])
        pg = getenv("SKED_TEST_PG_URL");
    printf("%-9s %6s %9s %10s %9s %9s\n", "engine", "batch", "executors",
           "runs/s", "claim ms", "ops ms");
    if (one >= 1 && one <= THREADS_MAX)
        run_all(dir ? dir : "/tmp", pg, &one, 1);
    else
        run_all(dir ? dir : "/tmp", pg, counts, 2);
    return 0;
}
