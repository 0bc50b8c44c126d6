/* SPDX-License-Identifier: MIT */
/* The scheduler's figures (issue 4's targets), through the public engine:
 *
 *   load   sked_engine_open and its first pass (which reads every
 *          schedule into the heap) on a database of N schedules (100,000 and
 *          1,000,000): seconds, and the peak RSS (VmHWM) of the process
 *          that opened it.                  Target: 1M in <= 5 s, <= 300 MB.
 *   rate   100,000 schedules due in the same second, decided and fired
 *          by one sked_engine_tick on a virtual clock: occurrences
 *          created per second.     Target: >= 50,000/s SQLite, >= 10,000/s
 *          PostgreSQL. The same with 1,000 due at once: DBOS Transact's
 *          case (bench/peers/dbos/dbos_bench.mjs, "scheduled").
 *   lag    1,000 interval schedules of 1 s, their occurrences spread one
 *          per millisecond, fired by the scheduler thread on the real
 *          clock for LAG_SECONDS: the delay from each occurrence to the
 *          run.created event (after commit), p50 and p99.
 *                                          Target: p99 <= 20 ms.
 *   idle   the CPU time an engine with 100,000 schedules (none due) uses
 *          over IDLE_SECONDS, as a share of one core.  Target: < 1 %.
 *
 * The schedules are written with one INSERT ... SELECT straight into the
 * store's table (after the store has migrated the database), so the set-up
 * costs seconds, not what sked_engine_schedule_create would. Every
 * measurement runs in a child process of its own, so its peak RSS is its
 * own. SQLite always; PostgreSQL when SKED_BENCH_PG_URL names a database
 * (its public schema is dropped and recreated). Output: lines for people,
 * then one line per figure for scripts (scripts/bench.sh):
 *
 *     bench  fire_load  ENGINE  N  SECONDS  PEAK_MB
 *     bench  fire_rate  ENGINE  N  OCCURRENCES_PER_S
 *     bench  fire_lag   ENGINE  RATE  P50_MS  P99_MS  RUNS
 *     bench  fire_idle  ENGINE  N  CPU_PERCENT
 *
 * Usage: bench_fire [DIR] (SQLite files in DIR, default $TMPDIR).
 * SKED_BENCH_FIRE_MAX caps N (default 1000000); SKED_BENCH_FIRE_ONLY=load,
 * rate, lag or idle runs one measurement; SKED_BENCH_SKIP_SQLITE=1
 * measures PostgreSQL alone. */
#include <inttypes.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "sked/sked.h"
#include "store/store.h"

#define LAG_SCHEDULES 1000
#define LAG_SECONDS   10
#define IDLE_SECONDS  10
#define RATE_N        100000
#define RATE_PEER_N   1000 /* DBOS's case: 1,000 schedules due each second */
#define LAG_MAX       (LAG_SCHEDULES * (LAG_SECONDS + 5))

typedef enum engine_kind { SQLITE, PG } engine_kind;

typedef struct bench {
    engine_kind kind;
    const char *name; /* "sqlite", "postgres" */
    char url[600];    /* the store URL */
    char path[512];   /* SQLite: the file */
    sked_time t0;     /* the instant the schedules were written around */
} bench;

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "bench_fire: %s: %s\n", what, msg);
    exit(1);
}

static double mono_s(void)
{
    return (double) sked__clock_mono(NULL) / 1e6;
}

/* Return the peak resident set of this process, in MB (VmHWM). */
static double peak_mb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;

    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
            break;
    (void) fclose(f);
    return kb < 0 ? -1 : (double) kb / 1024.0;
}

/* Return the CPU time (user + system) this process used, in seconds. */
static double cpu_s(void)
{
    struct rusage ru;

    if (getrusage(RUSAGE_SELF, &ru) != 0)
        die("getrusage", "failed");
    return (double) ru.ru_utime.tv_sec + (double) ru.ru_utime.tv_usec / 1e6 +
           (double) ru.ru_stime.tv_sec + (double) ru.ru_stime.tv_usec / 1e6;
}

/* ---- the database -------------------------------------------------------- */

static void sql_exec(const bench *b, const char *sql)
{
    if (b->kind == SQLITE) {
        sqlite3 *db = NULL;
        char *msg = NULL;

        if (sqlite3_open(b->path, &db) != SQLITE_OK)
            die(b->path, sqlite3_errmsg(db));
        if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
            die("sqlite", msg ? msg : "exec failed");
        (void) sqlite3_close(db);
        return;
    }
    PGconn *c = PQconnectdb(b->url);
    PGresult *r;

    if (PQstatus(c) != CONNECTION_OK)
        die("postgres", PQerrorMessage(c));
    r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_COMMAND_OK &&
        PQresultStatus(r) != PGRES_TUPLES_OK)
        die("postgres", PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
}

/* Delete the SQLite file of B and its WAL and shared-memory files. */
static void remove_files(const bench *b)
{
    char p[600];

    (void) unlink(b->path);
    (void) snprintf(p, sizeof p, "%s-wal", b->path);
    (void) unlink(p);
    (void) snprintf(p, sizeof p, "%s-shm", b->path);
    (void) unlink(p);
}

/* Empty the database, then let the store create its schema. */
static void reset(const bench *b)
{
    sked_store *st = NULL;
    sked_error err;

    if (b->kind == SQLITE) {
        remove_files(b);
    } else {
        sql_exec(b, "SET client_min_messages = warning; DROP SCHEMA public "
                    "CASCADE; CREATE SCHEMA public");
    }
    sked_error_clear(&err);
    if (sked__store_open(b->url, NULL, &st, &err) < 0)
        die(b->url, err.msg);
    sked__store_close(st);
}

/* What the schedules of one measurement look like. */
typedef enum shape {
    YEARLY,  /* cron "0 0 1 1 *": never due while we watch; written
                one after the other over the day before T0, as in a
                server's steady state (every tick the engine rereads the
                rows changed within a minute of the newest change: had
                they all been written at once, it would reread them all) */
    SECONDS, /* cron "* * * * * *", decided up to T0, due at T0 + 1 s */
    SPREAD,  /* every 1 s, the i-th first due at T0 + (i % 1000) ms */
} shape;

/* Insert N schedules named b-0000001... of SHAPE around the instant T0. */
static void insert_schedules(const bench *b, long n, shape sh, sked_time t0)
{
    static const char *const cols =
        "name, workflow, kind, cron, every_us, anchor_at, next_fire_at, "
        "last_fired_at, created_at, updated_at";
    char sql[2048], name[128], gen[256], sel[700];
    const char *i = b->kind == SQLITE ? "i" : "i::bigint";
    const long long t = (long long) t0, s = 1000000;

    if (b->kind == SQLITE) {
        snprintf(gen, sizeof gen,
                 "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
                 "FROM c WHERE i < %ld) ",
                 n);
        snprintf(name, sizeof name, "printf('b-%%07d', i)");
    } else {
        snprintf(gen, sizeof gen, " ");
        snprintf(name, sizeof name, "'b-' || lpad(i::text, 7, '0')");
    }
    if (sh == YEARLY)
        snprintf(sel, sizeof sel,
                 "%s, 'noop', 'cron', '0 0 1 1 *', NULL, NULL, %lld, NULL, "
                 "%lld - %lld + %s * %lld, %lld - %lld + %s * %lld",
                 name, t + 400LL * 86400 * s, t, 86400 * s, i, 86400 * s / n, t,
                 86400 * s, i, 86400 * s / n);
    else if (sh == SECONDS)
        snprintf(sel, sizeof sel,
                 "%s, 'noop', 'cron', '* * * * * *', NULL, NULL, %lld, %lld, "
                 "%lld, %lld",
                 name, t + s, t, t - s, t - s);
    else
        snprintf(sel, sizeof sel,
                 "%s, 'noop', 'every', NULL, %lld, %lld + (%s %% 1000) * 1000 "
                 "- %lld, %lld + (%s %% 1000) * 1000, %lld + (%s %% 1000) * "
                 "1000 - %lld, %lld, %lld",
                 name, s, t, i, s, t, i, t, i, s, t - s, t - s);
    if (b->kind == SQLITE)
        snprintf(sql, sizeof sql,
                 "%sINSERT INTO schedules (%s) SELECT %s FROM c", gen, cols,
                 sel);
    else
        snprintf(sql, sizeof sql,
                 "INSERT INTO schedules (%s) SELECT %s FROM "
                 "generate_series(1, %ld) AS g(i)",
                 cols, sel, n);
    sql_exec(b, sql);
}

static sked_engine *open_engine(const bench *b, const sked_clock *clock)
{
    sked_engine_options opts = {.db_url = b->url, .clock = clock};
    sked_engine *e = NULL;
    sked_error err;

    sked_error_clear(&err);
    if (sked_engine_open(&opts, &e, &err) < 0)
        die("sked_engine_open", err.msg);
    return e;
}

/* Run FN(B, ARG) in a child process and wait for it. */
static void in_child(void (*fn)(const bench *, long), const bench *b, long arg)
{
    int status = 0;
    pid_t pid;

    (void) fflush(stdout);
    pid = fork();
    if (pid < 0)
        die("fork", "failed");
    if (pid == 0) {
        fn(b, arg);
        (void) fflush(stdout);
        _exit(0);
    }
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        fprintf(stderr, "bench_fire: a measurement on %s failed\n", b->name);
}

/* ---- load ---------------------------------------------------------------- */

static void child_load(const bench *b, long n)
{
    double t0 = mono_s(), t1, t2;
    sked_engine *e = open_engine(b, NULL);
    sked_error err;

    /* The engine reads its schedules at open, and its first pass rereads
     * what changed: time both. */
    t1 = mono_s();
    sked_error_clear(&err);
    if (sked_engine_tick(e, &err) < 0)
        die("sked_engine_tick", err.msg);
    t2 = mono_s();
    printf("load   %-8s %8ld schedules: %6.2f s (open %.2f s, first pass "
           "%.2f s), peak RSS %6.1f MB\n",
           b->name, n, t2 - t0, t1 - t0, t2 - t1, peak_mb());
    printf("bench\tfire_load\t%s\t%ld\t%.3f\t%.1f\n", b->name, n, t2 - t0,
           peak_mb());
    sked_engine_close(e);
}

static void measure_load(const bench *b, long n)
{
    reset(b);
    insert_schedules(b, n, YEARLY, sked__clock_now(NULL));
    in_child(child_load, b, n);
}

/* ---- rate ---------------------------------------------------------------- */

/* Return the number of runs in the database. */
static long count_runs(const bench *b)
{
    const char *sql = "SELECT count(*) FROM runs";
    long n = -1;

    if (b->kind == SQLITE) {
        sqlite3 *db = NULL;
        sqlite3_stmt *st = NULL;

        if (sqlite3_open(b->path, &db) != SQLITE_OK ||
            sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
            die("count", sqlite3_errmsg(db));
        if (sqlite3_step(st) == SQLITE_ROW)
            n = (long) sqlite3_column_int64(st, 0);
        (void) sqlite3_finalize(st);
        (void) sqlite3_close(db);
        return n;
    }
    PGconn *c = PQconnectdb(b->url);
    PGresult *r = PQexec(c, sql);

    if (PQresultStatus(r) == PGRES_TUPLES_OK)
        n = strtol(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    PQfinish(c);
    return n;
}

static void child_rate(const bench *b, long n)
{
    sked_virtual_clock vc = {.t = b->t0};
    sked_clock clock;
    sked_engine *e;
    sked_error err;
    double t0, t1, c0, c1;
    long made;

    sked__clock_virtual(&vc, &clock);
    e = open_engine(b, &clock);
    vc.t += 1000000; /* every schedule is due now */
    sked_error_clear(&err);
    t0 = mono_s();
    c0 = cpu_s();
    if (sked_engine_tick(e, &err) < 0)
        die("sked_engine_tick", err.msg);
    c1 = cpu_s();
    t1 = mono_s();
    sked_engine_close(e);
    made = count_runs(b);
    printf("rate   %-8s %8ld due at once: %ld runs in %.2f s, %.0f/s "
           "(%.1f us of this process's CPU a run)\n",
           b->name, n, made, t1 - t0, (double) made / (t1 - t0),
           made > 0 ? (c1 - c0) * 1e6 / (double) made : 0.0);
    printf("bench\tfire_rate\t%s\t%ld\t%.0f\n", b->name, n,
           (double) made / (t1 - t0));
}

static void measure_rate(bench *b, long n)
{
    /* The child's virtual clock starts at this whole second. */
    b->t0 = (sked__clock_now(NULL) / 1000000) * 1000000;
    reset(b);
    insert_schedules(b, n, SECONDS, b->t0);
    in_child(child_rate, b, n);
}

/* ---- lag ----------------------------------------------------------------- */

/* The lags seen by the run.created subscriber, in µs. */
typedef struct lags {
    pthread_mutex_t mu;
    sked_dur *v;
    size_t n;
} lags;

/* A sked_event_fn: record now − occurrence for each run created; the
 * occurrence is the end of the run id, sched-b-NNNNNNN-{occurrence}. */
static void on_event(void *ctx, const sked_event_view *ev)
{
    const size_t prefix = strlen("sched-b-0000000-");
    lags *l = ctx;
    sked_time now = sked__clock_now(NULL), occ;

    if (strcmp(ev->type, "run.created") != 0 || strlen(ev->subject) <= prefix ||
        sked_time_parse(ev->subject + prefix, &occ, NULL) < 0)
        return;
    (void) pthread_mutex_lock(&l->mu);
    if (l->n < LAG_MAX)
        l->v[l->n++] = now - occ;
    (void) pthread_mutex_unlock(&l->mu);
}

static int cmp_dur(const void *a, const void *b)
{
    sked_dur x = *(const sked_dur *) a, y = *(const sked_dur *) b;

    return (x > y) - (x < y);
}

static void sleep_s(double s)
{
    struct timespec ts = {.tv_sec = (time_t) s,
                          .tv_nsec = (long) ((s - (double) (time_t) s) * 1e9)};

    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void report_lag(const bench *b, lags *l)
{
    double p50, p99;

    if (l->n == 0) {
        printf("lag    %-8s no run.created events seen\n", b->name);
        return;
    }
    qsort(l->v, l->n, sizeof *l->v, cmp_dur);
    p50 = (double) l->v[l->n / 2] / 1000.0;
    p99 = (double) l->v[(l->n * 99) / 100] / 1000.0;
    printf("lag    %-8s %d firings/s for %d s: %zu runs, p50 %.2f ms, p99 "
           "%.2f ms, max %.2f ms\n",
           b->name, LAG_SCHEDULES, LAG_SECONDS, l->n, p50, p99,
           (double) l->v[l->n - 1] / 1000.0);
    printf("bench\tfire_lag\t%s\t%d\t%.3f\t%.3f\t%zu\n", b->name, LAG_SCHEDULES,
           p50, p99, l->n);
}

static void child_lag(const bench *b, long n)
{
    lags l = {.v = calloc(LAG_MAX, sizeof(sked_dur))};
    sked_subscription *sub = NULL;
    sked_engine *e;
    sked_error err;

    (void) n;
    if (!l.v || pthread_mutex_init(&l.mu, NULL) != 0)
        die("lag", "out of memory");
    e = open_engine(b, NULL);
    sked_error_clear(&err);
    if (sked_subscribe(e, on_event, &l, &sub, &err) < 0 ||
        sked_engine_start(e, &err) < 0)
        die("engine", err.msg);
    /* The first occurrences are due at t0; watch LAG_SECONDS from there. */
    sleep_s((double) (b->t0 - sked__clock_now(NULL)) / 1e6 + LAG_SECONDS);
    sked_unsubscribe(e, sub);
    sked_engine_close(e);
    report_lag(b, &l);
    free(l.v);
}

static void measure_lag(bench *b, long n)
{
    /* Far enough ahead for the child to open the engine first. */
    b->t0 = (sked__clock_now(NULL) / 1000000 + 3) * 1000000;
    reset(b);
    insert_schedules(b, n, SPREAD, b->t0);
    in_child(child_lag, b, n);
}

/* ---- idle ---------------------------------------------------------------- */

static void child_idle(const bench *b, long n)
{
    sked_engine *e = open_engine(b, NULL);
    sked_error err;
    double c0, c1;

    sked_error_clear(&err);
    if (sked_engine_start(e, &err) < 0)
        die("sked_engine_start", err.msg);
    sleep_s(1); /* let the start settle */
    c0 = cpu_s();
    sleep_s(IDLE_SECONDS);
    c1 = cpu_s();
    sked_engine_close(e);
    printf("idle   %-8s %8ld schedules: %.3f s CPU in %d s, %.2f%% of a "
           "core\n",
           b->name, n, c1 - c0, IDLE_SECONDS, (c1 - c0) * 100.0 / IDLE_SECONDS);
    printf("bench\tfire_idle\t%s\t%ld\t%.3f\n", b->name, n,
           (c1 - c0) * 100.0 / IDLE_SECONDS);
}

static void measure_idle(bench *b, long n)
{
    reset(b);
    insert_schedules(b, n, YEARLY, sked__clock_now(NULL));
    in_child(child_idle, b, n);
}

/* ---- main ---------------------------------------------------------------- */

/* Tell whether the measurement WHAT runs: SKED_BENCH_FIRE_ONLY, when set,
 * names the one to run (load, rate, lag or idle). */
static int wanted(const char *what)
{
    const char *only = getenv("SKED_BENCH_FIRE_ONLY");

    return !only || !only[0] || strcmp(only, what) == 0;
}

static void run_all(bench *b, long max)
{
    static const long loads[] = {100000, 1000000};

    for (size_t i = 0; wanted("load") && i < sizeof loads / sizeof *loads; i++)
        if (loads[i] <= max)
            measure_load(b, loads[i]);
    if (wanted("rate")) {
        measure_rate(b, RATE_N < max ? RATE_N : max);
        measure_rate(b, RATE_PEER_N < max ? RATE_PEER_N : max);
    }
    if (wanted("lag"))
        measure_lag(b, LAG_SCHEDULES);
    if (wanted("idle"))
        measure_idle(b, 100000 < max ? 100000 : max);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : getenv("TMPDIR");
    const char *pg = getenv("SKED_BENCH_PG_URL");
    const char *cap = getenv("SKED_BENCH_FIRE_MAX");
    const char *skip = getenv("SKED_BENCH_SKIP_SQLITE");
    long max = cap ? strtol(cap, NULL, 10) : 1000000;
    bench b = {0};

    if (max <= 0)
        die("SKED_BENCH_FIRE_MAX", "expected a positive number");
    if (!skip || strcmp(skip, "1") != 0) {
        b.kind = SQLITE;
        b.name = "sqlite";
        snprintf(b.path, sizeof b.path, "%s/bench_fire_%ld.db",
                 dir ? dir : "/tmp", (long) getpid());
        snprintf(b.url, sizeof b.url, "sqlite:%s", b.path);
        run_all(&b, max);
        remove_files(&b);
    }
    if (pg && pg[0]) {
        b = (bench){.kind = PG, .name = "postgres"};
        snprintf(b.url, sizeof b.url, "%s", pg);
        run_all(&b, max);
    }
    return 0;
}
