/* SPDX-License-Identifier: MIT */
/* The SQLite back-end (store_ops.h): one database file in WAL mode.
 *
 * Connections: a connection is used by one thread at a time, never
 * shared. Idle connections wait in a mutex-guarded free list; begin takes
 * one (or opens a new one) and commit or rollback gives it back, so each
 * thread in a transaction has its own connection and a pool holds as many
 * connections as there were concurrent transactions at the peak. A free
 * list rather than thread-local storage: no destructor runs when a
 * caller's thread exits, and closing the store closes every connection.
 * Each connection caches its prepared statements (prepared on first use).
 *
 * Durability: WAL with synchronous=FULL by default ("normal" on request),
 * foreign keys on, and a busy timeout; writers start with BEGIN IMMEDIATE
 * so they queue for the write lock up front instead of failing on the
 * upgrade from a read lock, which is how concurrent writers lose nothing.
 * Migrations run under BEGIN EXCLUSIVE. What still comes back busy is
 * SKED_EBUSY and store.c retries the whole transaction.
 *
 * Errors name the file: "sked.db: file is not a database". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/error.h"
#include "store/sqlite.h"
#include "store/sqlite_queue.h"
#include "store/sqlite_run.h"

#define BUSY_TIMEOUT_MS 10000

/* The statements a connection caches; SQL below, in the same order. */
enum stmt_id {
    S_BEGIN_READ,
    S_BEGIN_WRITE,
    S_BEGIN_EXCL,
    S_COMMIT,
    S_ROLLBACK,
    S_HAS_META,
    S_META_GET,
    S_META_SET,
    S_SCHED_GET,
    S_SCHED_INSERT,
    S_SCHED_UPDATE,
    S_SCHED_DELETE,
    S_SCHED_LIST,
    S_RUN_INSERT,
    S_EVENT_APPEND,
    S_EVENT_LIST,
    S_EVENT_PRUNE,
    S_HEADS,
    S_HEADS_SINCE,
    S_HEADS_FEW,
    S_HEADS_COUNT,
    S_ADVANCE,
    S_RUN_INSERT_LENIENT,
    S_RUN_EXISTS,
    S_RUNS_ACTIVE,
    S_COUNT
};

/* The columns of schedules, in the order sched_bind and sched_read use. */
#define SCHED_COLS SKED__SCHEDULE_COLUMNS

static const char *const stmt_sql[S_COUNT] = {
    [S_BEGIN_READ] = "BEGIN",
    [S_BEGIN_WRITE] = "BEGIN IMMEDIATE",
    [S_BEGIN_EXCL] = "BEGIN EXCLUSIVE",
    [S_COMMIT] = "COMMIT",
    [S_ROLLBACK] = "ROLLBACK",
    [S_HAS_META] = "SELECT count(*) FROM sqlite_master "
                   "WHERE type = 'table' AND name = 'meta'",
    [S_META_GET] = "SELECT value FROM meta WHERE key = 'schema_version'",
    [S_META_SET] = "INSERT INTO meta (key, value) "
                   "VALUES ('schema_version', ?1) "
                   "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    [S_SCHED_GET] = "SELECT " SCHED_COLS " FROM schedules WHERE name = ?1",
    [S_SCHED_INSERT] =
        "INSERT INTO schedules (" SCHED_COLS ") VALUES (?1, ?2, ?3, ?4, ?5, "
        "?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, "
        "?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32)",
    [S_SCHED_UPDATE] =
        "UPDATE schedules SET workflow = ?2, kind = ?3, cron = ?4, "
        "every_us = ?5, anchor_at = ?6, at = ?7, timezone = ?8, dst = ?9, "
        "context = ?10, catchup = ?11, catchup_max = ?12, "
        "catchup_window_us = ?13, overlap = ?14, priority = ?15, "
        "queue = ?16, jitter_us = ?17, automatic_backfill = ?18, "
        "start_at = ?19, end_at = ?20, max_runs = ?21, "
        "pause_after_failures = ?22, description = ?23, status = ?24, "
        "source = ?25, next_fire_at = ?26, last_fired_at = ?27, "
        "last_error = ?28, runs_created = ?29, consecutive_failures = ?30, "
        "updated_at = ?32 WHERE name = ?1",
    [S_SCHED_DELETE] = "DELETE FROM schedules WHERE name = ?1",
    [S_SCHED_LIST] =
        "SELECT " SCHED_COLS " FROM schedules "
        "WHERE (?1 IS NULL OR status = ?1) AND (?2 IS NULL OR source = ?2) "
        "AND (?3 IS NULL OR workflow = ?3) "
        "AND (?4 IS NULL OR (name >= ?4 AND substr(name, 1, length(?4)) = ?4)) "
        "AND (?5 IS NULL OR name > ?5) ORDER BY name LIMIT ?6",
/* SPEC 4.2: a run's queue is its schedule's, else its workflow's (the
 * latest registered definition's), else "default". */
#define RUN_QUEUE                                                              \
    "coalesce(?7, (SELECT json_extract(definition, '$.queue') "                \
    "FROM workflow_versions WHERE workflow = ?2 AND registered_at = "          \
    "(SELECT max(registered_at) FROM workflow_versions WHERE workflow = ?2) "  \
    "LIMIT 1), 'default')"
    [S_RUN_INSERT] =
        "INSERT INTO runs (id, workflow, workflow_version, status, "
        "trigger_kind, schedule, scheduled_for, queue, priority, "
        "concurrency_key, not_before, context, attempts, created_at, "
        "updated_at, serial_key) VALUES (?1, ?2, ?3, "
        "CASE WHEN ?14 THEN 'waiting' ELSE 'pending' END, ?4, ?5, "
        "?6, " RUN_QUEUE
        ", ?8, ?9, ?10, ?11, 0, ?12, ?12, ?13) ON CONFLICT (id) DO NOTHING",
    [S_EVENT_APPEND] = "INSERT INTO events (type, subject, payload, at) "
                       "VALUES (?1, ?2, ?3, ?4)",
    [S_EVENT_LIST] = "SELECT id, type, subject, payload, at FROM events "
                     "WHERE id > ?1 ORDER BY id LIMIT ?2",
    [S_EVENT_PRUNE] = "DELETE FROM events WHERE at < ?1",
    /* The heads, three ways, so that each can seek. Written as one
     * statement with "?1 IS NULL OR ..." SQLite scanned the name index
     * from its start on every page (reading 1M schedules took 8 s) and
     * on every reread of changes. All of them, by name: */
    [S_HEADS] = "SELECT name, status, next_fire_at, updated_at, cron, "
                "timezone FROM schedules "
                "WHERE name > coalesce(?2, '') ORDER BY name LIMIT ?3",
    /* Changed since ?1, many of them: by name, filtered (linear over the
     * pages of one scan). */
    [S_HEADS_SINCE] = "SELECT name, status, next_fire_at, updated_at, cron, "
                      "timezone FROM schedules "
                      "WHERE updated_at >= ?1 AND name > coalesce(?2, '') "
                      "ORDER BY name LIMIT ?3",
    /* Changed since ?1, at most a page of them (the usual reread): found
     * by updated_at, then sorted. */
    [S_HEADS_FEW] = "SELECT name, status, next_fire_at, updated_at, cron, "
                    "timezone FROM schedules INDEXED BY schedules_updated "
                    "WHERE updated_at >= ?1 AND name > coalesce(?2, '') "
                    "ORDER BY name LIMIT ?3",
    /* How many changed since ?1, counting at most ?2 (index only). */
    [S_HEADS_COUNT] = "SELECT count(*) FROM (SELECT 1 FROM schedules "
                      "INDEXED BY schedules_updated WHERE updated_at >= ?1 "
                      "LIMIT ?2)",
    [S_ADVANCE] = "UPDATE schedules SET last_fired_at = ?2, next_fire_at = ?3, "
                  "status = ?4, runs_created = runs_created + ?5, "
                  "last_error = coalesce(?6, last_error), "
                  "updated_at = coalesce(?7, updated_at) "
                  "WHERE name = ?1 AND last_fired_at IS ?8",
    /* No conflict target: DO NOTHING covers the id and the active-key
     * index alike; run_state tells them apart. */
    [S_RUN_INSERT_LENIENT] =
        "INSERT INTO runs (id, workflow, workflow_version, status, "
        "trigger_kind, schedule, scheduled_for, queue, priority, "
        "concurrency_key, not_before, context, attempts, created_at, "
        "updated_at, serial_key) VALUES (?1, ?2, ?3, "
        "CASE WHEN ?14 THEN 'waiting' ELSE 'pending' END, ?4, ?5, "
        "?6, " RUN_QUEUE
        ", ?8, ?9, ?10, ?11, 0, ?12, ?12, ?13) ON CONFLICT DO NOTHING",
    [S_RUN_EXISTS] = "SELECT 1 FROM runs WHERE id = ?1",
    [S_RUNS_ACTIVE] = "SELECT count(*) FROM runs WHERE schedule = ?1 "
                      "AND status IN ('pending', 'running', 'waiting')",
};

/* A connection; as a transaction, it is the sked__tx. */
struct sked__tx {
    sqlite3 *db;                 /* owned */
    sqlite3_stmt *stmt[S_COUNT]; /* owned, prepared on first use */
    struct sked__backend *b;     /* borrowed: its owner */
    struct sked__tx *next;       /* in the free list */
    bool writer;                 /* holds b->write_mu for this transaction */
    /* sqlite_run.c's and sqlite_queue.c's statements, prepared on first
     * use, each found by the address of its SQL text */
    struct {
        const char *sql;  /* borrowed: static */
        sqlite3_stmt *st; /* owned */
    } more[SKED__SQLITE_MORE_STMTS];
};

struct sked__backend {
    char *path;       /* owned */
    bool sync_normal; /* synchronous=NORMAL instead of FULL */
    pthread_mutex_t mu;
    struct sked__tx *idle; /* owned: the free list, under mu */
    /* Held by this process's one writing transaction. SQLite lets one
     * writer in at a time; the others of the same process wait here,
     * handed the lock at its release, instead of sleeping in the busy
     * handler and retrying (which made a contended write's latency
     * hundreds of milliseconds). Other processes still meet busy. */
    pthread_mutex_t write_mu;
};

/* ---- errors ------------------------------------------------------------ */

/* Turn the SQLite result RC on DB into a sked code with a message naming
 * the file and WHAT was being done. */
static int fail(const struct sked__backend *b, sqlite3 *db, int rc,
                const char *what, sked_error *err)
{
    const char *msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);

    switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return sked__error_set(err, SKED_EBUSY, "db", -1,
                               "%.100s: database is busy (%s)", b->path, what);
    case SQLITE_CONSTRAINT:
        return sked__error_set(err, SKED_ECONFLICT, NULL, -1, "%s: %.120s",
                               what, msg);
    case SQLITE_NOMEM:
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    case SQLITE_READONLY:
        return sked__error_set(err, SKED_EIO, "db", -1,
                               "%.100s: the database file is read-only",
                               b->path);
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
        return sked__error_set(err, SKED_EIO, "db", -1,
                               "%.100s: not a sked database, or corrupt",
                               b->path);
    default:
        return sked__error_set(err, SKED_EIO, "db", -1, "%.100s: %s: %.60s",
                               b->path, what, msg);
    }
}

/* ---- connections ------------------------------------------------------- */

static void conn_close(struct sked__tx *c)
{
    if (!c)
        return;
    for (int i = 0; i < S_COUNT; i++)
        sqlite3_finalize(c->stmt[i]);
    for (int i = 0; i < SKED__SQLITE_MORE_STMTS; i++)
        sqlite3_finalize(c->more[i].st);
    sqlite3_close(c->db);
    free(c);
}

/* Run the setup statements on a new connection C. */
static int conn_setup(struct sked__tx *c, sked_error *err)
{
    struct sked__backend *b = c->b;
    sqlite3_stmt *st = NULL;
    char sync[64];
    int rc;

    sqlite3_busy_timeout(c->db, BUSY_TIMEOUT_MS);
    /* A short-lived process (the CLI) would otherwise checkpoint and
     * delete the WAL at every close: three more syncs per command. The
     * WAL is checkpointed as it grows instead (wal_autocheckpoint). */
    (void) sqlite3_db_config(c->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
    rc = sqlite3_prepare_v2(c->db, "PRAGMA journal_mode = WAL", -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc == SQLITE_ROW &&
        sqlite3_stricmp((const char *) sqlite3_column_text(st, 0), "wal")) {
        sqlite3_finalize(st);
        return sked__error_set(err, SKED_EIO, "db", -1,
                               "%.100s: cannot use WAL mode", b->path);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return fail(b, c->db, rc, "opening", err);
    (void) snprintf(sync, sizeof sync,
                    "PRAGMA synchronous = %s; PRAGMA foreign_keys = ON",
                    b->sync_normal ? "NORMAL" : "FULL");
    rc = sqlite3_exec(c->db, sync, NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return fail(b, c->db, rc, "opening", err);
    return 0;
}

/* Open a new connection to B's file. */
static int conn_open(struct sked__backend *b, struct sked__tx **out,
                     sked_error *err)
{
    struct sked__tx *c = calloc(1, sizeof *c);
    int rc;

    if (!c)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    c->b = b;
    rc = sqlite3_open_v2(
        b->path, &c->db,
        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        rc = c->db ? fail(b, c->db, rc, "opening", err)
                   : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
        conn_close(c);
        return rc;
    }
    rc = conn_setup(c, err);
    if (rc != 0) {
        conn_close(c);
        return rc;
    }
    *out = c;
    return 0;
}

/* Take an idle connection of B, or open one. */
static int conn_get(struct sked__backend *b, struct sked__tx **out,
                    sked_error *err)
{
    struct sked__tx *c;

    pthread_mutex_lock(&b->mu);
    c = b->idle;
    if (c)
        b->idle = c->next;
    pthread_mutex_unlock(&b->mu);
    if (c) {
        c->next = NULL;
        *out = c;
        return 0;
    }
    return conn_open(b, out, err);
}

/* Give C back to its pool; a connection still in a transaction (its
 * rollback failed) is closed instead. */
static void conn_put(struct sked__tx *c)
{
    struct sked__backend *b = c->b;

    if (!sqlite3_get_autocommit(c->db)) {
        conn_close(c);
        return;
    }
    pthread_mutex_lock(&b->mu);
    c->next = b->idle;
    b->idle = c;
    pthread_mutex_unlock(&b->mu);
}

/* Return C's cached statement ID, reset and unbound, in *out. */
static int stmt(struct sked__tx *c, enum stmt_id id, sqlite3_stmt **out,
                sked_error *err)
{
    int rc;

    if (!c->stmt[id]) {
        rc = sqlite3_prepare_v3(c->db, stmt_sql[id], -1,
                                SQLITE_PREPARE_PERSISTENT, &c->stmt[id], NULL);
        if (rc != SQLITE_OK)
            return fail(c->b, c->db, rc, "preparing", err);
    }
    *out = c->stmt[id];
    return 0;
}

/* Finish with statement S (reset, bindings cleared). */
static void done(sqlite3_stmt *s)
{
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
}

/* A linear search: a few dozen pointers, compared by address. */
int sked__sqlite_stmt(sked__tx *c, const char *sql, sqlite3_stmt **out,
                      sked_error *err)
{
    int i, rc;

    for (i = 0; i < SKED__SQLITE_MORE_STMTS && c->more[i].sql; i++)
        if (c->more[i].sql == sql) {
            *out = c->more[i].st;
            return 0;
        }
    if (i == SKED__SQLITE_MORE_STMTS)
        return sked__error_set(err, SKED_EINTERNAL, NULL, -1,
                               "more than %d cached statements",
                               SKED__SQLITE_MORE_STMTS);
    rc = sqlite3_prepare_v3(c->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
                            &c->more[i].st, NULL);
    if (rc != SQLITE_OK)
        return fail(c->b, c->db, rc, "preparing", err);
    c->more[i].sql = sql;
    *out = c->more[i].st;
    return 0;
}

void sked__sqlite_done(sqlite3_stmt *s)
{
    done(s);
}

int sked__sqlite_exec(sked__tx *c, sqlite3_stmt *s, int bound, const char *what,
                      sked_error *err)
{
    int rc = bound == SQLITE_OK ? sqlite3_step(s) : bound;

    done(s);
    if (rc != SQLITE_DONE)
        return fail(c->b, c->db, rc, what, err);
    return 0;
}

int sked__sqlite_fail(sked__tx *c, int rc, const char *what, sked_error *err)
{
    return fail(c->b, c->db, rc, what, err);
}

sqlite3 *sked__sqlite_db(sked__tx *c)
{
    return c->db;
}

/* Run the statement ID that returns no rows. */
static int exec_stmt(struct sked__tx *c, enum stmt_id id, const char *what,
                     sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, id, &s, err);

    if (rc != 0)
        return rc;
    rc = sqlite3_step(s);
    done(s);
    if (rc != SQLITE_DONE)
        return fail(c->b, c->db, rc, what, err);
    return 0;
}

/* ---- open, close, transactions ----------------------------------------- */

static int sqlite_open(const char *target, const sked_store_options *opts,
                       sked__backend **out, sked_error *err)
{
    const char *sync = opts->sqlite_synchronous;
    struct sked__backend *b;
    struct sked__tx *c;
    int rc;

    if (sync && strcmp(sync, "full") != 0 && strcmp(sync, "normal") != 0)
        return sked__error_set(err, SKED_EINVAL, "sqlite_synchronous", -1,
                               "\"%.40s\" is not one of full, normal", sync);
    if (!sqlite3_threadsafe())
        return sked__error_set(err, SKED_EIO, "db", -1,
                               "this SQLite library is not thread-safe");
    b = calloc(1, sizeof *b);
    if (!b || !(b->path = strdup(target))) {
        free(b);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    b->sync_normal = sync && strcmp(sync, "normal") == 0;
    pthread_mutex_init(&b->mu, NULL);
    pthread_mutex_init(&b->write_mu, NULL);
    rc = conn_open(b, &c, err); /* fail now on an unusable file */
    if (rc != 0) {
        sked__sqlite_close(b);
        return rc;
    }
    conn_put(c);
    *out = b;
    return 0;
}

void sked__sqlite_close(sked__backend *b)
{
    if (!b)
        return;
    while (b->idle) {
        struct sked__tx *c = b->idle;
        b->idle = c->next;
        conn_close(c);
    }
    pthread_mutex_destroy(&b->mu);
    pthread_mutex_destroy(&b->write_mu);
    free(b->path);
    free(b);
}

/* End C's transaction: let the next writer of this process in, and give
 * the connection back to the pool. */
static void tx_end(struct sked__tx *c)
{
    if (c->writer) {
        c->writer = false;
        (void) pthread_mutex_unlock(&c->b->write_mu);
    }
    conn_put(c);
}

static int sqlite_begin(sked__backend *b, sked__tx_mode mode, sked__tx **out,
                        sked_error *err)
{
    static const enum stmt_id begin[] = {S_BEGIN_READ, S_BEGIN_WRITE,
                                         S_BEGIN_EXCL};
    struct sked__tx *c;
    int rc = conn_get(b, &c, err);

    if (rc != 0)
        return rc;
    c->writer = mode != SKED__TX_READ;
    if (c->writer)
        (void) pthread_mutex_lock(&b->write_mu);
    rc = exec_stmt(c, begin[mode], "beginning a transaction", err);
    if (rc != 0) {
        tx_end(c);
        return rc;
    }
    *out = c;
    return 0;
}

static void sqlite_rollback(sked__tx *c)
{
    sqlite3_stmt *s = NULL;

    if (!sqlite3_get_autocommit(c->db) && stmt(c, S_ROLLBACK, &s, NULL) == 0) {
        (void) sqlite3_step(s);
        done(s);
    }
    tx_end(c);
}

static int sqlite_commit(sked__tx *c, sked_error *err)
{
    int rc = exec_stmt(c, S_COMMIT, "committing", err);

    if (rc != 0) {
        sqlite_rollback(c);
        return rc;
    }
    tx_end(c);
    return 0;
}

/* ---- migrations -------------------------------------------------------- */

/* Step the one-row, one-column query S into *out. */
static int read_int64(struct sked__tx *c, sqlite3_stmt *s, int64_t *out,
                      sked_error *err)
{
    int rc = sqlite3_step(s);

    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(s, 0);
    done(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return fail(c->b, c->db, rc, "reading the schema version", err);
    return rc == SQLITE_ROW ? 0 : SKED_ENOTFOUND;
}

static int sqlite_schema_version(sked__tx *c, int *out, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int64_t has = 0, v = 0;
    int rc = stmt(c, S_HAS_META, &s, err);

    if (rc == 0)
        rc = read_int64(c, s, &has, err);
    if (rc != 0 || has == 0) {
        if (rc == 0)
            *out = 0;
        return rc;
    }
    rc = stmt(c, S_META_GET, &s, err);
    if (rc == 0)
        rc = read_int64(c, s, &v, err);
    if (rc == SKED_ENOTFOUND)
        v = 0, rc = 0;
    if (rc == 0 && (v < 0 || v > 1000000))
        return sked__error_set(err, SKED_EIO, "db", -1,
                               "%.100s: bad schema version in meta",
                               c->b->path);
    if (rc == 0)
        *out = (int) v;
    return rc;
}

static int sqlite_migrate_step(sked__tx *c, const struct sked__migration *m,
                               sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_exec(c->db, m->sql, NULL, NULL, NULL);

    if (rc != SQLITE_OK)
        return fail(c->b, c->db, rc, m->name, err);
    rc = stmt(c, S_META_SET, &s, err);
    if (rc != 0)
        return rc;
    sqlite3_bind_int(s, 1, m->version);
    rc = sqlite3_step(s);
    done(s);
    if (rc != SQLITE_DONE)
        return fail(c->b, c->db, rc, "recording the schema version", err);
    return 0;
}

/* ---- schedules --------------------------------------------------------- */

/* Bind the 32 columns of R in SCHED_COLS order; 0 or an SQLite code. */
static int sched_bind(sqlite3_stmt *s, const sked_schedule *r)
{
    int rc = 0;

    rc |= bind_text(s, 1, r->name);
    rc |= bind_text(s, 2, r->workflow);
    rc |= bind_text(s, 3, sked_spec_kind_name(r->kind));
    rc |= bind_text(s, 4, r->kind == SKED_SPEC_CRON ? r->cron : NULL);
    rc |= r->kind == SKED_SPEC_EVERY ? sqlite3_bind_int64(s, 5, r->every)
                                     : sqlite3_bind_null(s, 5);
    rc |= bind_time(s, 6, r->anchor);
    rc |= bind_time(s, 7, r->at);
    rc |= bind_text(s, 8, r->timezone ? r->timezone : "UTC");
    rc |= bind_text(s, 9, sked_dst_name(r->dst));
    rc |= bind_text(s, 10, r->context ? r->context : "{}");
    rc |= bind_text(s, 11, sked_catchup_name(r->catchup));
    rc |= sqlite3_bind_int(s, 12, r->catchup_max);
    rc |= sqlite3_bind_int64(s, 13, r->catchup_window);
    rc |= bind_text(s, 14, sked_overlap_name(r->overlap));
    rc |= sqlite3_bind_int(s, 15, r->priority);
    rc |= bind_text(s, 16, r->queue);
    rc |= sqlite3_bind_int64(s, 17, r->jitter);
    rc |= sqlite3_bind_int(s, 18, r->automatic_backfill);
    rc |= bind_time(s, 19, r->start_at);
    rc |= bind_time(s, 20, r->end_at);
    rc |= sqlite3_bind_int64(s, 21, r->max_runs);
    rc |= sqlite3_bind_int(s, 22, r->pause_after_failures);
    rc |= bind_text(s, 23, r->description);
    rc |= bind_text(s, 24, sked_schedule_status_name(r->status));
    rc |= bind_text(s, 25, sked_source_name(r->source));
    rc |= bind_time(s, 26, r->next_fire_at);
    rc |= bind_time(s, 27, r->last_fired_at);
    rc |= bind_text(s, 28, r->last_error);
    rc |= sqlite3_bind_int64(s, 29, r->runs_created);
    rc |= sqlite3_bind_int(s, 30, r->consecutive_failures);
    rc |= bind_time(s, 31, r->created_at);
    rc |= bind_time(s, 32, r->updated_at);
    return rc;
}

static int32_t col_i32(sqlite3_stmt *s, int i)
{
    return (int32_t) sqlite3_column_int(s, i);
}

/* Parse the enum word of column I with PARSE into *v; -1 when unknown. */
#define COL_ENUM(parse, s, i, v)                                               \
    (parse((const char *) sqlite3_column_text(s, i), "", v, NULL) == 0)

/* Read the current row of S (SCHED_COLS) into *out. */
static int sched_read(struct sked__tx *c, sqlite3_stmt *s, sked_schedule *out,
                      sked_error *err)
{
    sked_schedule r;
    bool ok;

    sked_schedule_init(&r);
    ok = col_text(s, 0, &r.name) && col_text(s, 1, &r.workflow) &&
         col_text(s, 3, &r.cron) && col_text(s, 7, &r.timezone) &&
         col_text(s, 9, &r.context) && col_text(s, 15, &r.queue) &&
         col_text(s, 22, &r.description) && col_text(s, 27, &r.last_error);
    if (!ok) {
        sked_schedule_done(&r);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    ok = COL_ENUM(sked_spec_kind_parse, s, 2, &r.kind) &&
         sked_dst_parse((const char *) sqlite3_column_text(s, 8), &r.dst,
                        NULL) == 0 &&
         COL_ENUM(sked_catchup_parse, s, 10, &r.catchup) &&
         COL_ENUM(sked_overlap_parse, s, 13, &r.overlap) &&
         COL_ENUM(sked_schedule_status_parse, s, 23, &r.status) &&
         COL_ENUM(sked_source_parse, s, 24, &r.source);
    if (!ok) {
        sked_schedule_done(&r);
        return sked__error_set(err, SKED_EIO, "db", -1,
                               "%.100s: schedule with an unknown enum value",
                               c->b->path);
    }
    r.every = sqlite3_column_int64(s, 4);
    r.anchor = col_time(s, 5);
    r.at = col_time(s, 6);
    r.catchup_max = col_i32(s, 11);
    r.catchup_window = sqlite3_column_int64(s, 12);
    r.priority = col_i32(s, 14);
    r.jitter = sqlite3_column_int64(s, 16);
    r.automatic_backfill = col_i32(s, 17);
    r.start_at = col_time(s, 18);
    r.end_at = col_time(s, 19);
    r.max_runs = sqlite3_column_int64(s, 20);
    r.pause_after_failures = col_i32(s, 21);
    r.next_fire_at = col_time(s, 25);
    r.last_fired_at = col_time(s, 26);
    r.runs_created = sqlite3_column_int64(s, 28);
    r.consecutive_failures = col_i32(s, 29);
    r.created_at = col_time(s, 30);
    r.updated_at = col_time(s, 31);
    *out = r;
    return 0;
}

static int sqlite_schedule_get(sked__tx *c, const char *name,
                               sked_schedule *out, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, S_SCHED_GET, &s, err);

    if (rc != 0)
        return rc;
    bind_text(s, 1, name);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        rc = sched_read(c, s, out, err);
    else if (rc == SQLITE_DONE)
        rc = sked__error_set(err, SKED_ENOTFOUND, "name", -1,
                             "no schedule named \"%.100s\"", name);
    else
        rc = fail(c->b, c->db, rc, "reading a schedule", err);
    done(s);
    return rc;
}

/* Run the insert or update statement ID for R. */
static int sched_write(struct sked__tx *c, enum stmt_id id,
                       const sked_schedule *r, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, id, &s, err);

    if (rc != 0)
        return rc;
    rc = sched_bind(s, r);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    done(s);
    if (rc != SQLITE_DONE)
        return fail(c->b, c->db, rc, "writing a schedule", err);
    if (id == S_SCHED_UPDATE && sqlite3_changes(c->db) == 0)
        return sked__error_set(err, SKED_ENOTFOUND, "name", -1,
                               "no schedule named \"%.100s\"", r->name);
    return 0;
}

static int sqlite_schedule_insert(sked__tx *c, const sked_schedule *r,
                                  sked_error *err)
{
    int rc = sched_write(c, S_SCHED_INSERT, r, err);

    if (rc == SKED_ECONFLICT)
        return sked__error_set(err, rc, "name", -1,
                               "a schedule named \"%.100s\" exists", r->name);
    return rc;
}

static int sqlite_schedule_update(sked__tx *c, const sked_schedule *r,
                                  sked_error *err)
{
    return sched_write(c, S_SCHED_UPDATE, r, err);
}

static int sqlite_schedule_delete(sked__tx *c, const char *name, bool *existed,
                                  sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, S_SCHED_DELETE, &s, err);

    if (rc != 0)
        return rc;
    bind_text(s, 1, name);
    rc = sqlite3_step(s);
    done(s);
    if (rc != SQLITE_DONE)
        return fail(c->b, c->db, rc, "deleting a schedule", err);
    *existed = sqlite3_changes(c->db) > 0;
    return 0;
}

/* Bind the query Q to the list statement S. */
static int list_bind(sqlite3_stmt *s, const sked__schedule_query *q)
{
    int rc = 0;

    rc |= bind_text(s, 1,
                    q->status >= 0 ? sked_schedule_status_name(
                                         (sked_schedule_status) q->status)
                                   : NULL);
    rc |= bind_text(s, 2,
                    q->source >= 0 ? sked_source_name((sked_source) q->source)
                                   : NULL);
    rc |= bind_text(s, 3, q->workflow);
    rc |= bind_text(s, 4, q->name_prefix);
    rc |= bind_text(s, 5, q->after_name);
    rc |= sqlite3_bind_int64(s, 6, (sqlite3_int64) q->limit);
    return rc;
}

static int sqlite_schedule_list(sked__tx *c, const sked__schedule_query *q,
                                sked_schedule **out, size_t *n, sked_error *err)
{
    sked_schedule *list = calloc(q->limit ? q->limit : 1, sizeof *list);
    sqlite3_stmt *s = NULL;
    size_t k = 0;
    int rc = list ? stmt(c, S_SCHED_LIST, &s, err)
                  : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);

    if (rc == 0 && list_bind(s, q) != SQLITE_OK)
        rc = fail(c->b, c->db, SQLITE_ERROR, "listing schedules", err);
    while (rc == 0 && k < q->limit) {
        int step = sqlite3_step(s);
        if (step == SQLITE_DONE)
            break;
        if (step != SQLITE_ROW)
            rc = fail(c->b, c->db, step, "listing schedules", err);
        else if ((rc = sched_read(c, s, &list[k], err)) == 0)
            k++;
    }
    if (s)
        done(s);
    if (rc != 0) {
        sked__schedules_free(list, k);
        return rc;
    }
    *out = list;
    *n = k;
    return 0;
}

/* ---- runs -------------------------------------------------------------- */

/* Bind run R, created at NOW, to the insert statement S. */
static int run_bind(sqlite3_stmt *s, const sked_run_new *r, sked_time now)
{
    int rc = 0;

    rc |= bind_text(s, 1, r->id);
    rc |= bind_text(s, 2, r->workflow);
    rc |= bind_text(s, 3, r->workflow_version);
    rc |= bind_text(s, 4, sked__trigger_name(r->trigger));
    rc |= bind_text(s, 5, r->schedule);
    rc |= bind_time(s, 6, r->scheduled_for);
    rc |= bind_text(s, 7, r->queue);
    rc |= sqlite3_bind_int(s, 8, r->priority);
    rc |= bind_text(s, 9, r->concurrency_key);
    rc |= sqlite3_bind_int64(
        s, 10, r->not_before == SKED_TIME_NONE ? now : r->not_before);
    rc |= bind_text(s, 11, r->context ? r->context : "{}");
    rc |= sqlite3_bind_int64(s, 12, now);
    rc |= sqlite3_bind_int(s, 14, r->buffered);
    rc |= bind_text(s, 13, r->serial_key);
    return rc;
}

static int sqlite_runs_insert(sked__tx *c, const sked_run_new *runs, size_t n,
                              sked_time now, bool *created, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, S_RUN_INSERT, &s, err);

    for (size_t i = 0; rc == 0 && i < n; i++) {
        rc = run_bind(s, &runs[i], now);
        if (rc == SQLITE_OK)
            rc = sqlite3_step(s);
        sqlite3_reset(s);
        if (rc != SQLITE_DONE) {
            rc = fail(c->b, c->db, rc, "inserting runs", err);
            if (rc == SKED_ECONFLICT)
                rc = sked__error_set(
                    err, rc, "concurrency_key", (long) i,
                    "an active run holds the concurrency "
                    "key \"%.100s\"",
                    runs[i].concurrency_key ? runs[i].concurrency_key : "");
            break;
        }
        created[i] = sqlite3_changes(c->db) > 0;
        rc = 0;
    }
    if (rc == 0 || s)
        sqlite3_clear_bindings(s);
    return rc;
}

/* Tell in *out whether a run with id ID exists. */
static int run_exists(struct sked__tx *c, const char *id, bool *out,
                      sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, S_RUN_EXISTS, &s, err);

    if (rc != 0)
        return rc;
    bind_text(s, 1, id);
    rc = sqlite3_step(s);
    done(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return fail(c->b, c->db, rc, "reading a run", err);
    *out = rc == SQLITE_ROW;
    return 0;
}

static int sqlite_runs_insert_lenient(sked__tx *c, const sked_run_new *runs,
                                      size_t n, sked_time now,
                                      sked_run_insert_state *state,
                                      sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, S_RUN_INSERT_LENIENT, &s, err);

    for (size_t i = 0; rc == 0 && i < n; i++) {
        bool exists = false;
        rc = run_bind(s, &runs[i], now);
        if (rc == SQLITE_OK)
            rc = sqlite3_step(s);
        done(s);
        if (rc != SQLITE_DONE)
            return fail(c->b, c->db, rc, "inserting runs", err);
        rc = 0;
        if (sqlite3_changes(c->db) > 0) {
            state[i] = SKED_RUN_INSERTED;
            continue;
        }
        rc = run_exists(c, runs[i].id, &exists, err);
        state[i] = exists ? SKED_RUN_EXISTED : SKED_RUN_REFUSED;
    }
    return rc;
}

static int sqlite_runs_active(sked__tx *c, const char *schedule, int64_t *out,
                              sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, S_RUNS_ACTIVE, &s, err);

    if (rc != 0)
        return rc;
    bind_text(s, 1, schedule);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(s, 0);
    done(s);
    if (rc != SQLITE_ROW)
        return fail(c->b, c->db, rc, "counting active runs", err);
    return 0;
}

/* ---- the scheduler's reads and writes ---------------------------------- */

/* Read the current row of the heads statement S into *h. */
static int head_read(sqlite3_stmt *s, sked_schedule_head *h, sked_error *err)
{
    memset(h, 0, sizeof *h);
    if (!col_text(s, 0, &h->name) || !col_text(s, 4, &h->cron) ||
        !col_text(s, 5, &h->timezone)) {
        free(h->name);
        free(h->cron);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    if (!COL_ENUM(sked_schedule_status_parse, s, 1, &h->status))
        h->status = SKED_SCHEDULE_DISABLED; /* unknown: never fired */
    h->next_fire_at = col_time(s, 2);
    h->updated_at = col_time(s, 3);
    return 0;
}

/* Choose the heads statement for SINCE: all (NONE); the few changed
 * rows by updated_at when at most LIMIT changed; else a filtered scan by
 * name. The count reads at most LIMIT + 1 index entries. */
static int heads_stmt(sked__tx *c, sked_time since, size_t limit,
                      sqlite3_stmt **out, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    sqlite3_int64 changed;
    int rc;

    if (since == SKED_TIME_NONE)
        return stmt(c, S_HEADS, out, err);
    if ((rc = stmt(c, S_HEADS_COUNT, &s, err)) != 0)
        return rc;
    bind_time(s, 1, since);
    sqlite3_bind_int64(s, 2, (sqlite3_int64) limit + 1);
    rc = sqlite3_step(s);
    changed = sqlite3_column_int64(s, 0);
    done(s);
    if (rc != SQLITE_ROW)
        return fail(c->b, c->db, rc, "counting changed schedules", err);
    return stmt(c,
                changed <= (sqlite3_int64) limit ? S_HEADS_FEW : S_HEADS_SINCE,
                out, err);
}

static int sqlite_schedule_heads(sked__tx *c, sked_time since,
                                 const char *after_name, size_t limit,
                                 sked_schedule_head **out, size_t *n,
                                 sked_error *err)
{
    sked_schedule_head *list = calloc(limit ? limit : 1, sizeof *list);
    sqlite3_stmt *s = NULL;
    size_t k = 0;
    int rc = list ? heads_stmt(c, since, limit, &s, err)
                  : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);

    if (rc == 0) {
        bind_time(s, 1, since);
        bind_text(s, 2, after_name);
        sqlite3_bind_int64(s, 3, (sqlite3_int64) limit);
    }
    while (rc == 0 && k < limit) {
        int step = sqlite3_step(s);
        if (step == SQLITE_DONE)
            break;
        if (step != SQLITE_ROW)
            rc = fail(c->b, c->db, step, "listing schedules", err);
        else if ((rc = head_read(s, &list[k], err)) == 0)
            k++;
    }
    if (s)
        done(s);
    if (rc != 0) {
        sked__schedule_heads_free(list, k);
        return rc;
    }
    *out = list;
    *n = k;
    return 0;
}

static int sqlite_schedule_lock(sked__tx *c, const char *const *names, size_t n,
                                sked_schedule **out, size_t *nout,
                                sked_error *err)
{
    sked_schedule *list = calloc(n ? n : 1, sizeof *list);
    size_t k = 0;
    int rc = list ? 0 : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);

    /* BEGIN IMMEDIATE took the write lock: the rows cannot move. */
    for (size_t i = 0; rc == 0 && i < n; i++) {
        rc = sqlite_schedule_get(c, names[i], &list[k], err);
        if (rc == 0)
            k++;
        else if (rc == SKED_ENOTFOUND)
            rc = 0;
    }
    if (rc != 0) {
        sked__schedules_free(list, k);
        return rc;
    }
    *out = list;
    *nout = k;
    return 0;
}

static int advance_one(sked__tx *c, const sked__advance *a, bool *applied,
                       sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, S_ADVANCE, &s, err);

    if (rc != 0)
        return rc;
    rc = bind_text(s, 1, a->name) | bind_time(s, 2, a->cursor) |
         bind_time(s, 3, a->next) |
         bind_text(s, 4, sked_schedule_status_name(a->status)) |
         sqlite3_bind_int64(s, 5, a->added) | bind_text(s, 6, a->last_error) |
         bind_time(s, 7, a->updated_at) | bind_time(s, 8, a->expect);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    done(s);
    if (rc != SQLITE_DONE)
        return fail(c->b, c->db, rc, "advancing a schedule", err);
    *applied = sqlite3_changes(c->db) > 0;
    return 0;
}

/* One prepared statement run per row: in-process, so no round trips to
 * save by a set-based statement. */
static int sqlite_schedule_advance(sked__tx *c, const sked__advance *a,
                                   size_t n, bool *applied, sked_error *err)
{
    int rc = 0;

    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = advance_one(c, &a[i], &applied[i], err);
    return rc;
}

/* ---- events ------------------------------------------------------------ */

static int sqlite_event_append(sked__tx *c, const char *type,
                               const char *subject, const char *payload,
                               sked_time at, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, S_EVENT_APPEND, &s, err);

    if (rc != 0)
        return rc;
    rc = bind_text(s, 1, type) | bind_text(s, 2, subject) |
         bind_text(s, 3, payload) | sqlite3_bind_int64(s, 4, at);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    done(s);
    if (rc != SQLITE_DONE)
        return fail(c->b, c->db, rc, "appending an event", err);
    return 0;
}

/* Read the current row of the event list S into *e. */
static int event_read(sqlite3_stmt *s, sked_event *e, sked_error *err)
{
    e->id = sqlite3_column_int64(s, 0);
    e->at = sqlite3_column_int64(s, 4);
    if (!col_text(s, 1, &e->type) || !col_text(s, 2, &e->subject) ||
        !col_text(s, 3, &e->payload)) {
        free(e->type);
        free(e->subject);
        free(e->payload);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    return 0;
}

static int sqlite_event_list(sked__tx *c, int64_t after_id, size_t limit,
                             sked_event **out, size_t *n, sked_error *err)
{
    sked_event *list = calloc(limit ? limit : 1, sizeof *list);
    sqlite3_stmt *s = NULL;
    size_t k = 0;
    int rc = list ? stmt(c, S_EVENT_LIST, &s, err)
                  : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);

    if (rc == 0) {
        sqlite3_bind_int64(s, 1, after_id);
        sqlite3_bind_int64(s, 2, (sqlite3_int64) limit);
    }
    while (rc == 0 && k < limit) {
        int step = sqlite3_step(s);
        if (step == SQLITE_DONE)
            break;
        if (step != SQLITE_ROW)
            rc = fail(c->b, c->db, step, "listing events", err);
        else if ((rc = event_read(s, &list[k], err)) == 0)
            k++;
    }
    if (s)
        done(s);
    if (rc != 0) {
        sked__events_free(list, k);
        return rc;
    }
    *out = list;
    *n = k;
    return 0;
}

static int sqlite_events_append(sked__tx *c, const sked_event *ev, size_t n,
                                int64_t *ids, sked_error *err)
{
    int rc = 0;

    for (size_t i = 0; rc == 0 && i < n; i++) {
        rc = sqlite_event_append(c, ev[i].type, ev[i].subject, ev[i].payload,
                                 ev[i].at, err);
        ids[i] = sqlite3_last_insert_rowid(c->db);
    }
    return rc;
}

static int sqlite_event_prune(sked__tx *c, sked_time before, int64_t *deleted,
                              sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, S_EVENT_PRUNE, &s, err);

    if (rc != 0)
        return rc;
    sqlite3_bind_int64(s, 1, before);
    rc = sqlite3_step(s);
    done(s);
    if (rc != SQLITE_DONE)
        return fail(c->b, c->db, rc, "pruning events", err);
    *deleted = sqlite3_changes64(c->db);
    return 0;
}

const struct sked__store_ops sked__store_sqlite_ops = {
    .version = SKED__STORE_OPS_VERSION,
    .kind = "sqlite",
    .migrations = sked__schema_sqlite,
    .open = sqlite_open,
    .close = sked__sqlite_close,
    .begin = sqlite_begin,
    .commit = sqlite_commit,
    .rollback = sqlite_rollback,
    .schema_version = sqlite_schema_version,
    .migrate_step = sqlite_migrate_step,
    .schedule_get = sqlite_schedule_get,
    .schedule_insert = sqlite_schedule_insert,
    .schedule_update = sqlite_schedule_update,
    .schedule_delete = sqlite_schedule_delete,
    .schedule_list = sqlite_schedule_list,
    .runs_insert = sqlite_runs_insert,
    .schedule_heads = sqlite_schedule_heads,
    .schedule_lock = sqlite_schedule_lock,
    .schedule_advance = sqlite_schedule_advance,
    .runs_insert_lenient = sqlite_runs_insert_lenient,
    .runs_active = sqlite_runs_active,
    .queue_loads = sked__sqlite_queue_loads,
    .runs_candidates = sked__sqlite_run_candidates,
    .runs_take = sked__sqlite_run_take,
    .steps_close = sked__sqlite_run_steps_close,
    .runs_renew = sked__sqlite_run_renew,
    .runs_release = sked__sqlite_run_release,
    .runs_fence = sked__sqlite_run_fence,
    .steps_write = sked__sqlite_run_steps_write,
    .runs_write = sked__sqlite_run_runs_write,
    .schedule_failures = sked__sqlite_run_failures,
    .schedule_failures_set = sked__sqlite_run_failures_set,
    .run_get = sked__sqlite_run_get,
    .runs_of_schedule = sked__sqlite_run_of_schedule,
    .run_cancel = sked__sqlite_run_cancel,
    .steps_list = sked__sqlite_run_steps_list,
    .runs_list = sked__sqlite_run_list,
    .queue_put = sked__sqlite_queue_put,
    .queues_list = sked__sqlite_queue_list,
    .workflow_register = sked__sqlite_queue_workflow_register,
    .workflow_latest = sked__sqlite_queue_workflow_latest,
    .workflows_list = sked__sqlite_queue_workflows_list,
    .events_append = sqlite_events_append,
    .event_append = sqlite_event_append,
    .event_list = sqlite_event_list,
    .event_prune = sqlite_event_prune,
};
