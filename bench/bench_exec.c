/* SPDX-License-Identifier: MIT */
/* Execution's figures (issue 5's targets), through the public engine:
 *
 *   runs   N no-op runs (one C step that returns at once) created up
 *          front, then executed by an engine with 1, 4 and 16 workers:
 *          runs per second end to end (claimed, executed, completed and
 *          committed), from the first run.started to the last
 *          run.completed (the peer is timed the same way).
 *          Target: SQLite >= 10,000/s (synchronous=FULL); PostgreSQL
 *          ahead of graphile-worker (bench/peers/graphile_bench.mjs, the
 *          same load on the same server in the same run).
 *   servers  the same runs on PostgreSQL executed by 1, 2 and 4 servers
 *          (processes, each an engine of 8 workers) sharing the database,
 *          as replicas of one deployment do: runs per second from the
 *          moment they all start to the last run completed (polled in
 *          the database every 10 ms).
 *   step   the cost of an exec step: runs of 20 steps running /bin/true
 *          against runs of 20 no-op C steps, one worker; the difference
 *          per step.                       Target: <= 2 ms per step.
 *
 * SQLite always (a file in DIR); PostgreSQL when SKED_BENCH_PG_URL names
 * a database (its public schema is dropped and recreated before each
 * measurement). Lines for people, then one per figure for scripts:
 *
 *     bench  exec_runs  ENGINE  WORKERS  RUNS  RUNS_PER_S
 *     bench  exec_servers  ENGINE  SERVERS  WORKERS  RUNS  RUNS_PER_S
 *     bench  exec_step  ENGINE  STEPS  MS_PER_EXEC_STEP  MS_PER_C_STEP
 *
 * Usage: bench_exec [DIR]. SKED_BENCH_EXEC_RUNS sets N (default 20000);
 * SKED_BENCH_EXEC_WORKERS a list of worker counts instead of "1,4,16";
 * SKED_BENCH_EXEC_SERVERS a list of server counts instead of "1,2,4"
 * ("0": none);
 * SKED_BENCH_EXEC_STEP=0 leaves out the exec step's figure (A/B runs of
 * one figure go faster). */
#include <libpq-fe.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "engine/engine_int.h"
#include "engine/workflow_int.h"
#include "sked/sked.h"
#include "store/store.h"

#define STEP_RUNS  20
#define STEP_COUNT 20
/* Each server's workers when several share the database. */
#define SERVER_WORKERS 8
#define SERVERS_MAX    16

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long completed;
static double first_start; /* when the first run.started was seen */

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "bench_exec: %s: %s\n", what, msg);
    exit(1);
}

static double mono_s(void)
{
    return (double) sked__clock_mono(NULL) / 1e6;
}

static void on_event(void *ctx, const sked_event_view *ev)
{
    (void) ctx;
    if (strcmp(ev->type, "run.started") == 0) {
        pthread_mutex_lock(&mu);
        if (first_start == 0)
            first_start = mono_s();
        pthread_mutex_unlock(&mu);
        return;
    }
    if (strcmp(ev->type, "run.completed") != 0 &&
        strcmp(ev->type, "run.failed") != 0)
        return;
    pthread_mutex_lock(&mu);
    completed++;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static int noop(sked_ctx *ctx, const char *input, char **output)
{
    (void) ctx;
    (void) input;
    (void) output;
    return 0;
}

/* CPU seconds the whole machine spent busy so far (every process:
 * the database server's too), from /proc/stat; -1 when unreadable. */
static double machine_busy_s(void)
{
    unsigned long long v[8] = {0};
    FILE *f = fopen("/proc/stat", "r");
    int got = f ? fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
                         &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7])
                : 0;
    long hz = sysconf(_SC_CLK_TCK);

    if (f)
        fclose(f);
    if (got != 8 || hz <= 0)
        return -1;
    /* user nice system idle iowait irq softirq steal: all but idle and
     * iowait */
    return (double) (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double) hz;
}

/* Empty the database URL (SQLite: remove the file PATH). */
static void reset(const char *url, const char *path)
{
    if (path) {
        char p[600];
        unlink(path);
        snprintf(p, sizeof p, "%s-wal", path);
        unlink(p);
        snprintf(p, sizeof p, "%s-shm", path);
        unlink(p);
        return;
    }
    PGconn *c = PQconnectdb(url);
    if (PQstatus(c) != CONNECTION_OK)
        die("postgres", PQerrorMessage(c));
    PGresult *r = PQexec(c, "SET client_min_messages = warning; DROP SCHEMA "
                            "public CASCADE; CREATE SCHEMA public");
    if (PQresultStatus(r) != PGRES_COMMAND_OK)
        die("postgres", PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
}

/* A workflow NAME of STEPS steps, each a no-op C function or /bin/true. */
static sked_workflow *workflow(const char *name, int steps, bool exec)
{
    sked_workflow *w;
    sked_error err;
    if (sked_workflow_new(name, &w, &err) != 0)
        die("workflow", err.msg);
    for (int i = 0; i < steps; i++) {
        char step[16], prev_name[16];
        const char *prev = prev_name;
        sked_step_options o = {0};
        snprintf(step, sizeof step, "s%d", i);
        snprintf(prev_name, sizeof prev_name, "s%d", i - 1);
        if (i > 0) {
            o.needs = &prev;
            o.nneeds = 1;
        }
        if (!exec) {
            if (sked_workflow_add_step(w, step, noop, &o, &err) != 0)
                die("step", err.msg);
            continue;
        }
        sked_action a = {.kind = SKED_ACTION_EXEC,
                         .retry = {.attempts = 1, .multiplier = 1}};
        a.argv = calloc(2, sizeof *a.argv);
        if (!a.argv || !(a.argv[0] = strdup("/bin/true")))
            die("step", "out of memory");
        if (sked__workflow_add(w, step, &a, NULL, &err) != 0)
            die("step", err.msg);
        if (i > 0)
            sked__workflow_need(w, (size_t) i, (size_t) i - 1, &err);
    }
    return w;
}

/* Create N runs of WORKFLOW straight through the store, in batches. */
static void create_runs(sked_engine *e, const char *wf, long n)
{
    sked_run_new *runs = calloc(SKED_STORE_BATCH_MAX, sizeof *runs);
    char(*ids)[48] = calloc(SKED_STORE_BATCH_MAX, sizeof *ids);
    sked_error err;
    if (!runs || !ids)
        die("runs", "out of memory");
    for (long i = 0; i < n; i += SKED_STORE_BATCH_MAX) {
        size_t m =
            (size_t) (n - i < SKED_STORE_BATCH_MAX ? n - i
                                                   : SKED_STORE_BATCH_MAX);
        for (size_t k = 0; k < m; k++) {
            snprintf(ids[k], sizeof ids[k], "bench-%s-%ld", wf, i + (long) k);
            runs[k] = (sked_run_new){.id = ids[k],
                                     .workflow = wf,
                                     .trigger = SKED_TRIGGER_API,
                                     .scheduled_for = SKED_TIME_NONE,
                                     .not_before = SKED_TIME_NONE};
        }
        if (sked__store_runs_create(sked__engine_store(e), runs, m, false, NULL,
                                    NULL, NULL, &err) != 0)
            die("runs", err.msg);
    }
    free(runs);
    free(ids);
}

/* Execute N runs of a workflow NAME of STEPS steps (EXEC: /bin/true,
 * else no-op C steps) on URL with WORKERS workers; return the seconds
 * from start to the last completion, and in *BUSY the CPU seconds the
 * machine spent meanwhile. */
static double measure(const char *url, const char *path, const char *name,
                      long n, int steps, bool exec, int workers, double *busy)
{
    sked_engine_options o = {.db_url = url, .workers = workers};
    sked_workflow *w = workflow(name, steps, exec);
    sked_subscription *sub;
    sked_engine *e;
    sked_error err;

    reset(url, path);
    if (sked_engine_open(&o, &e, &err) != 0)
        die("open", err.msg);
    create_runs(e, name, n);
    if (sked_engine_register(e, w, &err) != 0 ||
        sked_subscribe(e, on_event, NULL, &sub, &err) != 0)
        die("register", err.msg);
    pthread_mutex_lock(&mu);
    completed = 0;
    first_start = 0;
    pthread_mutex_unlock(&mu);
    double b0 = machine_busy_s();
    double t0 = mono_s();
    if (sked_engine_start(e, &err) != 0)
        die("start", err.msg);
    pthread_mutex_lock(&mu);
    while (completed < n)
        pthread_cond_wait(&cv, &mu);
    /* From the first start, as graphile_bench.mjs times from its first
     * job:start: the engine's own start (threads, the listener's
     * connection) is not the load. */
    double start = first_start > 0 ? first_start : t0;
    pthread_mutex_unlock(&mu);
    double t = mono_s() - start;
    *busy = machine_busy_s() - b0;
    sked_unsubscribe(e, sub);
    sked_engine_close(e);
    return t;
}

/* The counts of the list in the environment variable VAR ("1,4,16"),
 * DEFAULTS when unset, each from LO to HI (a 0 is left out: "0" is an
 * empty list); return how many (at most MAX) went into OUT. */
static size_t counts(const char *var, const char *defaults, long lo, long hi,
                     int *out, size_t max)
{
    const char *s = getenv(var);
    size_t n = 0;
    char *end;

    if (!s || !*s)
        s = defaults;
    while (n < max && *s) {
        long v = strtol(s, &end, 10);
        if (end == s || v < lo || v > hi) {
            fprintf(stderr, "bench_exec: %s: a list of counts, %ld-%ld\n", var,
                    lo, hi);
            exit(1);
        }
        if (v > 0)
            out[n++] = (int) v;
        s = *end == ',' ? end + 1 : end;
    }
    return n;
}

/* A server of the "servers" measurement, in a child process: open an
 * engine of SERVER_WORKERS workers on URL, say so on READY, wait for the
 * byte on GO, start, and run until SIGTERM. */
static void server_child(const char *url, int ready, int go)
{
    sked_engine_options o = {.db_url = url, .workers = SERVER_WORKERS};
    sked_workflow *w = workflow("noop", 1, false);
    sigset_t term;
    sked_engine *e;
    sked_error err;
    char byte = 0;
    int sig;

    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    (void) sigprocmask(SIG_BLOCK, &term, NULL);
    if (sked_engine_open(&o, &e, &err) != 0 ||
        sked_engine_register(e, w, &err) != 0)
        die("server", err.msg);
    if (write(ready, &byte, 1) != 1 || read(go, &byte, 1) != 1)
        die("server", "its pipe broke");
    if (sked_engine_start(e, &err) != 0)
        die("server", err.msg);
    (void) sigwait(&term, &sig);
    sked_engine_close(e);
    _exit(0);
}

/* The runs of URL completed so far. */
static long completed_runs(PGconn *c)
{
    PGresult *r =
        PQexec(c, "SELECT count(*) FROM runs WHERE status = 'completed'");
    long n = PQresultStatus(r) == PGRES_TUPLES_OK
                 ? strtol(PQgetvalue(r, 0, 0), NULL, 10)
                 : -1;

    PQclear(r);
    return n;
}

/* N runs on URL executed by SERVERS servers at once: runs per second. */
static double measure_servers(const char *url, long n, int servers)
{
    sked_engine_options o = {.db_url = url, .workers = -1};
    pid_t pid[SERVERS_MAX];
    int ready[2], go[2];
    PGconn *c;
    sked_engine *e;
    sked_error err;
    char byte = 0;
    long done;

    reset(url, NULL);
    if (sked_engine_open(&o, &e, &err) != 0)
        die("open", err.msg);
    create_runs(e, "noop", n);
    sked_engine_close(e); /* before the fork: no thread of it is left */
    if (pipe(ready) != 0 || pipe(go) != 0)
        die("servers", "no pipe");
    fflush(stdout);
    for (int i = 0; i < servers; i++)
        if ((pid[i] = fork()) == 0)
            server_child(url, ready[1], go[0]);
        else if (pid[i] < 0)
            die("servers", "cannot fork");
    for (int i = 0; i < servers; i++)
        if (read(ready[0], &byte, 1) != 1)
            die("servers", "a server did not open");
    c = PQconnectdb(url);
    if (PQstatus(c) != CONNECTION_OK)
        die("postgres", PQerrorMessage(c));
    double t0 = mono_s();
    for (int i = 0; i < servers; i++)
        if (write(go[1], &byte, 1) != 1)
            die("servers", "its pipe broke");
    while ((done = completed_runs(c)) >= 0 && done < n)
        (void) nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
    double t = mono_s() - t0;
    PQfinish(c);
    for (int i = 0; i < servers; i++)
        (void) kill(pid[i], SIGTERM);
    for (int i = 0; i < servers; i++)
        (void) waitpid(pid[i], NULL, 0);
    for (int i = 0; i < 2; i++) {
        close(ready[i]);
        close(go[i]);
    }
    if (done < 0)
        die("servers", "the count of completed runs failed");
    return (double) n / t;
}

static void bench_servers(const char *url, long n)
{
    int servers[SERVERS_MAX];
    size_t k = counts("SKED_BENCH_EXEC_SERVERS", "1,2,4", 0, SERVERS_MAX,
                      servers, SERVERS_MAX);

    for (size_t i = 0; i < k; i++) {
        double rate = measure_servers(url, n, servers[i]);
        printf("postgres  %2d servers of %d workers  %6ld runs  %8.0f runs/s\n",
               servers[i], SERVER_WORKERS, n, rate);
        printf("bench\texec_servers\tpostgres\t%d\t%d\t%ld\t%.0f\n", servers[i],
               SERVER_WORKERS, n, rate);
        fflush(stdout);
    }
}

static void bench_engine(const char *engine, const char *url, const char *path,
                         long n)
{
    int workers[16];
    size_t nworkers =
        counts("SKED_BENCH_EXEC_WORKERS", "1,4,16", 1, 1024, workers, 16);
    const char *step = getenv("SKED_BENCH_EXEC_STEP");

    for (size_t i = 0; i < nworkers; i++) {
        double busy;
        double t = measure(url, path, "noop", n, 1, false, workers[i], &busy);
        printf("%-9s %2d workers  %6ld runs  %6.2f s  %8.0f runs/s  "
               "(machine CPU %.0f us/run)\n",
               engine, workers[i], n, t, (double) n / t,
               busy / (double) n * 1e6);
        printf("bench\texec_runs\t%s\t%d\t%ld\t%.0f\n", engine, workers[i], n,
               (double) n / t);
        fflush(stdout);
    }
    if (step && strcmp(step, "0") == 0)
        return;
    double busy;
    double tc =
        measure(url, path, "csteps", STEP_RUNS, STEP_COUNT, false, 1, &busy);
    double te =
        measure(url, path, "execsteps", STEP_RUNS, STEP_COUNT, true, 1, &busy);
    double steps = STEP_RUNS * STEP_COUNT;
    printf("%-9s exec step %.3f ms, C step %.3f ms (%d runs of %d steps)\n",
           engine, te / steps * 1e3, tc / steps * 1e3, STEP_RUNS, STEP_COUNT);
    printf("bench\texec_step\t%s\t%d\t%.3f\t%.3f\n", engine, STEP_COUNT,
           te / steps * 1e3, tc / steps * 1e3);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : getenv("TMPDIR");
    const char *pg = getenv("SKED_BENCH_PG_URL");
    const char *nenv = getenv("SKED_BENCH_EXEC_RUNS");
    long n = nenv ? atol(nenv) : 20000;
    char path[512], url[600];

    snprintf(path, sizeof path, "%s/bench_exec.db", dir ? dir : "/tmp");
    snprintf(url, sizeof url, "sqlite:%s", path);
    if (!getenv("SKED_BENCH_SKIP_SQLITE"))
        bench_engine("sqlite", url, path, n);
    if (pg && *pg) {
        bench_engine("postgres", pg, NULL, n);
        bench_servers(pg, n);
    }
    reset(url, path);
    return 0;
}
