/* SPDX-License-Identifier: MIT */
/* Runs inserted per second through the store, beside a plain loop on the
 * same engine without sked, in the same run (ARCHITECTURE 6: ratios, since
 * these machines are shared and noisy).
 *
 * For each engine (SQLite always; PostgreSQL when SKED_BENCH_PG_URL or
 * SKED_TEST_PG_URL names a database) and each batch size (1, 100, 1000
 * runs per transaction):
 *   - "sked": sked__store_runs_insert, one call per batch;
 *   - "plain": one prepared INSERT ... ON CONFLICT (id) DO NOTHING into
 *     the same table, executed once per run, BEGIN/COMMIT around each
 *     batch (autocommit for batches of 1): raw sqlite3 with the pragmas
 *     of sqlite.c, raw libpq.
 * Every measurement starts from an empty runs table (a new SQLite file;
 * TRUNCATE on PostgreSQL), plain and sked alternate, and each figure is
 * the best of REPEATS. Output: a table for people, then one line per case
 * for scripts:
 *
 *     bench  store  ENGINE  BATCH  PLAIN_ROWS_PER_S  SKED_ROWS_PER_S  RATIO
 *
 * Usage: bench_store [DIR]  (SQLite files go to DIR, default $TMPDIR);
 * SKED_BENCH_SKIP_SQLITE=1 measures PostgreSQL alone. */
#include <inttypes.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"

#define REPEATS 3

typedef enum engine { SQLITE, PG } engine;

typedef struct bench {
    engine eng;
    const char *url; /* the store URL */
    char path[512];  /* SQLite: the file */
    PGconn *admin;   /* PostgreSQL: for TRUNCATE and the plain loop */
    sked_run_new *runs;
    char (*ids)[48];
    size_t nruns;
} bench;

#define INSERT_COLS                                                            \
    "id, workflow, workflow_version, status, trigger_kind, schedule, "         \
    "scheduled_for, queue, priority, concurrency_key, not_before, context, "   \
    "created_at, updated_at"

static double now_s(void)
{
    struct timespec ts;

    (void) clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "bench_store: %s: %s\n", what, msg);
    exit(1);
}

/* The runs every measurement inserts: as the scheduler makes them. */
static void make_runs(bench *b, size_t n)
{
    size_t i;

    b->runs = calloc(n, sizeof(*b->runs));
    b->ids = calloc(n, sizeof(*b->ids));
    if (b->runs == NULL || b->ids == NULL)
        die("make_runs", "out of memory");
    for (i = 0; i < n; i++) {
        sked_time t = INT64_C(1780000000000000) + (int64_t) i * 60000000;
        (void) snprintf(b->ids[i], sizeof(b->ids[i]), "sched-bench-%09zu", i);
        b->runs[i] = (sked_run_new){
            .id = b->ids[i],
            .workflow = "bench",
            .schedule = "bench",
            .trigger = SKED_TRIGGER_CRON,
            .scheduled_for = t,
            .not_before = t,
            .context = "{}",
        };
    }
    b->nruns = n;
}

static void pq_command(PGconn *c, const char *sql)
{
    PGresult *res = PQexec(c, sql);

    if (PQresultStatus(res) != PGRES_COMMAND_OK)
        die(sql, PQerrorMessage(c));
    PQclear(res);
}

/* Start from an empty, migrated database. */
static void reset(bench *b)
{
    sked_store *st;
    sked_error err = {0};

    if (b->eng == SQLITE) {
        char side[600];
        (void) unlink(b->path);
        (void) snprintf(side, sizeof(side), "%s-wal", b->path);
        (void) unlink(side);
        (void) snprintf(side, sizeof(side), "%s-shm", b->path);
        (void) unlink(side);
    }
    if (sked__store_open(b->url, NULL, &st, &err) < 0)
        die(b->url, err.msg);
    sked__store_close(st);
    if (b->eng == PG) {
        pq_command(b->admin, "TRUNCATE runs CASCADE");
        pq_command(b->admin, "VACUUM ANALYZE runs");
    }
}

/* Insert N runs through the store, BATCH per call; rows per second. */
static double run_sked(bench *b, size_t n, size_t batch)
{
    bool created[1000];
    sked_error err = {0};
    sked_store *st;
    size_t i;
    double t0, t1;

    reset(b);
    if (sked__store_open(b->url, NULL, &st, &err) < 0)
        die(b->url, err.msg);
    t0 = now_s();
    for (i = 0; i < n; i += batch)
        if (sked__store_runs_insert(st, b->runs + i, batch, created, &err) < 0)
            die("sked__store_runs_insert", err.msg);
    t1 = now_s();
    sked__store_close(st);
    return (double) n / (t1 - t0);
}

static void sq_exec(sqlite3 *db, const char *sql)
{
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
        die(sql, sqlite3_errmsg(db));
}

static void sq_bind_run(sqlite3_stmt *s, const sked_run_new *r)
{
    int rc = 0;

    rc |= sqlite3_bind_text(s, 1, r->id, -1, SQLITE_STATIC);
    rc |= sqlite3_bind_text(s, 2, r->workflow, -1, SQLITE_STATIC);
    rc |= sqlite3_bind_null(s, 3);
    rc |= sqlite3_bind_text(s, 4, "cron", -1, SQLITE_STATIC);
    rc |= sqlite3_bind_text(s, 5, r->schedule, -1, SQLITE_STATIC);
    rc |= sqlite3_bind_int64(s, 6, r->scheduled_for);
    rc |= sqlite3_bind_text(s, 7, "default", -1, SQLITE_STATIC);
    rc |= sqlite3_bind_int(s, 8, r->priority);
    rc |= sqlite3_bind_null(s, 9);
    rc |= sqlite3_bind_int64(s, 10, r->not_before);
    rc |= sqlite3_bind_text(s, 11, r->context, -1, SQLITE_STATIC);
    rc |= sqlite3_bind_int64(s, 12, r->not_before);
    if (rc != SQLITE_OK)
        die("bind", "failed");
}

/* The plain SQLite loop: same file, same pragmas, no sked. */
static double plain_sqlite(bench *b, size_t n, size_t batch)
{
    sqlite3 *db;
    sqlite3_stmt *s;
    size_t i;
    double t0, t1;

    reset(b);
    if (sqlite3_open(b->path, &db) != SQLITE_OK)
        die(b->path, sqlite3_errmsg(db));
    sq_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; "
                "PRAGMA foreign_keys=ON; PRAGMA busy_timeout=5000");
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO runs (" INSERT_COLS ") VALUES "
                           "(?1, ?2, ?3, 'pending', ?4, ?5, ?6, ?7, ?8, ?9, "
                           "?10, ?11, ?12, ?12) ON CONFLICT (id) DO NOTHING",
                           -1, &s, NULL) != SQLITE_OK)
        die("prepare", sqlite3_errmsg(db));
    t0 = now_s();
    for (i = 0; i < n; i++) {
        if (batch > 1 && i % batch == 0)
            sq_exec(db, "BEGIN IMMEDIATE");
        sq_bind_run(s, &b->runs[i]);
        if (sqlite3_step(s) != SQLITE_DONE)
            die("insert", sqlite3_errmsg(db));
        (void) sqlite3_reset(s);
        if (batch > 1 && (i + 1) % batch == 0)
            sq_exec(db, "COMMIT");
    }
    t1 = now_s();
    (void) sqlite3_finalize(s);
    (void) sqlite3_close(db);
    return (double) n / (t1 - t0);
}

/* Prepare the plain loop's INSERT on the admin connection (after the
 * first reset, which creates the table). */
static void prepare_plain(bench *b)
{
    PGresult *res;

    reset(b);
    res = PQprepare(b->admin, "plain",
                    "INSERT INTO runs (" INSERT_COLS ") VALUES "
                    "($1, $2, $3, 'pending', $4, $5, $6, $7, $8, $9, "
                    "$10, $11, $12, $12) ON CONFLICT (id) DO NOTHING",
                    12, NULL);
    if (PQresultStatus(res) != PGRES_COMMAND_OK)
        die("prepare", PQerrorMessage(b->admin));
    PQclear(res);
}

/* The plain libpq loop: one prepared single-row INSERT per run. */
static double plain_pg(bench *b, size_t n, size_t batch)
{
    char sf[24], nb[24];
    const char *p[12];
    PGresult *res;
    size_t i;
    double t0, t1;

    reset(b);
    t0 = now_s();
    for (i = 0; i < n; i++) {
        const sked_run_new *r = &b->runs[i];
        if (batch > 1 && i % batch == 0)
            pq_command(b->admin, "BEGIN");
        (void) snprintf(sf, sizeof(sf), "%" PRId64, r->scheduled_for);
        (void) snprintf(nb, sizeof(nb), "%" PRId64, r->not_before);
        p[0] = r->id, p[1] = r->workflow, p[2] = NULL, p[3] = "cron";
        p[4] = r->schedule, p[5] = sf, p[6] = "default", p[7] = "0";
        p[8] = NULL, p[9] = nb, p[10] = r->context, p[11] = nb;
        res = PQexecPrepared(b->admin, "plain", 12, p, NULL, NULL, 0);
        if (PQresultStatus(res) != PGRES_COMMAND_OK)
            die("insert", PQerrorMessage(b->admin));
        PQclear(res);
        if (batch > 1 && (i + 1) % batch == 0)
            pq_command(b->admin, "COMMIT");
    }
    t1 = now_s();
    return (double) n / (t1 - t0);
}

/* Rows per measurement: single-row transactions wait for the disk. */
static size_t rows_for(size_t batch)
{
    return batch == 1 ? 2000 : 100000;
}

static void measure(bench *b, const char *name)
{
    static const size_t batches[] = {1, 100, 1000};
    size_t k;
    int r;

    for (k = 0; k < 3; k++) {
        size_t batch = batches[k], n = rows_for(batch);
        double plain = 0, sked = 0, v;
        for (r = 0; r < REPEATS; r++) {
            v = b->eng == SQLITE ? plain_sqlite(b, n, batch)
                                 : plain_pg(b, n, batch);
            plain = v > plain ? v : plain;
            v = run_sked(b, n, batch);
            sked = v > sked ? v : sked;
        }
        printf("%-9s %6zu %8zu %14.0f %14.0f %7.2f\n", name, batch, n, plain,
               sked, sked / plain);
        printf("bench\tstore\t%s\t%zu\t%.0f\t%.0f\t%.3f\n", name, batch, plain,
               sked, sked / plain);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : getenv("TMPDIR");
    const char *pg = getenv("SKED_BENCH_PG_URL");
    char url[600];
    bench b = {0};

    if (pg == NULL || pg[0] == '\0')
        pg = getenv("SKED_TEST_PG_URL");
    make_runs(&b, rows_for(1000));
    printf("%-9s %6s %8s %14s %14s %7s\n", "engine", "batch", "rows",
           "plain rows/s", "sked rows/s", "ratio");

    b.eng = SQLITE;
    (void) snprintf(b.path, sizeof(b.path), "%s/sked-bench-%ld.db",
                    dir ? dir : "/tmp", (long) getpid());
    (void) snprintf(url, sizeof(url), "sqlite:%s", b.path);
    b.url = url;
    if (getenv("SKED_BENCH_SKIP_SQLITE") == NULL)
        measure(&b, "sqlite");
    reset(&b);
    (void) unlink(b.path);

    if (pg == NULL || pg[0] == '\0') {
        printf("postgres: skipped (set SKED_BENCH_PG_URL; scripts/bench.sh "
               "starts a server)\n");
        return 0;
    }
    b.eng = PG;
    b.url = pg;
    b.admin = PQconnectdb(pg);
    if (PQstatus(b.admin) != CONNECTION_OK)
        die(pg, PQerrorMessage(b.admin));
    pq_command(b.admin, "SET client_min_messages = warning");
    prepare_plain(&b);
    measure(&b, "postgres");
    PQfinish(b.admin);
    return 0;
}
