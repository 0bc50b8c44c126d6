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
 * Errors name the file: "sked.db: file is not a database". A full disk
 * is SKED_ENOSPC, a file that cannot be written (read-only, immutable, a
 * read-only file system) SKED_EROFS.
 *
 * Identity: the back-end remembers which file (device and inode) its
 * path named at open, and every transaction first checks that the path
 * still names it. A file deleted or replaced under a running process
 * would otherwise keep taking writes on an inode nobody will open again,
 * all lost at the next start: from then on every transaction is refused
 * with SKED_ESTALE, until the process is restarted on the file to use.
 *
 * This file holds the connections, transactions and migrations, and the
 * method table; the SQL of rows is beside it: schedules and the
 * scheduler's reads and writes (sqlite_schedule.c), new runs and events
 * (sqlite_rows.c), execution (sqlite_run.c), queues (sqlite_queue.c). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/error.h"
#include "store/sqlite_calendar.h"
#include "store/sqlite_skip.h"
#include "store/sqlite_deadline.h"
#include "store/sqlite_notify.h"
#include "store/sqlite.h"
#include "store/sqlite_queue.h"
#include "store/sqlite_rows.h"
#include "store/sqlite_run.h"
#include "store/sqlite_schedule.h"

#define BUSY_TIMEOUT_MS 10000

/* The statements of transactions and migrations a connection caches;
 * SQL below, in the same order. The files of the other SQL have theirs
 * cached by address (sked__sqlite_stmt). */
enum stmt_id {
    S_BEGIN_READ,
    S_BEGIN_WRITE,
    S_BEGIN_EXCL,
    S_COMMIT,
    S_ROLLBACK,
    S_HAS_META,
    S_META_GET,
    S_META_SET,
    S_SAVEPOINT,
    S_RELEASE,
    S_UNDO,
    S_MARK_SET,
    S_MARK_UNDO,
    S_MARK_DROP,
    S_COUNT
};

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
    [S_SAVEPOINT] = "SAVEPOINT sked_batch",
    [S_RELEASE] = "RELEASE sked_batch",
    [S_UNDO] = "ROLLBACK TO sked_batch",
    [S_MARK_SET] = "SAVEPOINT sked_op",
    [S_MARK_UNDO] = "ROLLBACK TO sked_op",
    [S_MARK_DROP] = "RELEASE sked_op",
};

/* A connection; as a transaction, it is the sked__tx. */
struct sked__tx {
    sqlite3 *db;                 /* owned */
    sqlite3_stmt *stmt[S_COUNT]; /* owned, prepared on first use */
    struct sked__backend *b;     /* borrowed: its owner */
    struct sked__tx *next;       /* in the free list */
    bool writer;                 /* holds b->write_mu for this transaction */
    /* the statements of the SQL's files, prepared on first use, each
     * found by the address of its SQL text */
    struct {
        const char *sql;  /* borrowed: static */
        sqlite3_stmt *st; /* owned */
    } more[SKED__SQLITE_MORE_STMTS];
};

struct sked__backend {
    char *path; /* owned */
    dev_t dev;  /* the file PATH named at open */
    ino_t ino;
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

/* Tell whether PATH and its WAL may be written (a missing WAL may). */
static bool writable(const char *path)
{
    char wal[4200];

    if (access(path, W_OK) != 0)
        return false;
    if (snprintf(wal, sizeof wal, "%s-wal", path) >= (int) sizeof wal)
        return true;
    return access(wal, W_OK) == 0 || errno == ENOENT;
}

/* Turn the SQLite result RC on DB into a sked code with a message naming
 * the file and WHAT was being done. */
static int fail(const struct sked__backend *b, sqlite3 *db, int rc,
                const char *what, sked_error *err)
{
    const char *msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    int sys = db ? sqlite3_system_errno(db) : 0;

    /* An I/O error says more by the system's errno, or, when a later
     * call (a COMMIT after a failed write) lost it, by the file: made
     * immutable or read-only under the server, or a full disk. */
    if ((rc & 0xff) == SQLITE_IOERR && sys == ENOSPC)
        rc = SQLITE_FULL;
    else if ((rc & 0xff) == SQLITE_IOERR &&
             (sys == EROFS || sys == EPERM || sys == EACCES ||
              !writable(b->path)))
        rc = SQLITE_READONLY;
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
        return sked__error_set(err, SKED_EROFS, "db", -1,
                               "%.100s: the database file is read-only (%s)",
                               b->path, what);
    case SQLITE_FULL:
        return sked__error_set(err, SKED_ENOSPC, "db", -1,
                               "%.100s: the disk is full (%s)", b->path, what);
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

/* Run "PRAGMA journal_mode = WAL" on C's connection, leaving the step's
 * code in *RC and the statement in *ST (to finalize). Several processes
 * opening a new file at once contend for the lock that switching it to
 * WAL takes, and SQLite answers some of them SQLITE_BUSY at once, without
 * its busy handler (it sees a deadlock): those try again, every 5 ms,
 * for as long as the busy handler would have waited. */
static void wal_mode(struct sked__tx *c, sqlite3_stmt **st, int *rc)
{
    for (int waited = 0;; waited += 5) {
        *rc = sqlite3_prepare_v2(c->db, "PRAGMA journal_mode = WAL", -1, st,
                                 NULL);
        if (*rc == SQLITE_OK)
            *rc = sqlite3_step(*st);
        if (*rc != SQLITE_BUSY || waited >= BUSY_TIMEOUT_MS)
            return;
        sqlite3_finalize(*st);
        *st = NULL;
        sqlite3_sleep(5);
    }
}

/* Run the setup statements on a new connection C. */
static int conn_setup(struct sked__tx *c, sked_error *err)
{
    struct sked__backend *b = c->b;
    sqlite3_stmt *st = NULL;
    char sync[128];
    int rc;

    sqlite3_busy_timeout(c->db, BUSY_TIMEOUT_MS);
    /* A short-lived process (the CLI) would otherwise checkpoint and
     * delete the WAL at every close: three more syncs per command. The
     * WAL is checkpointed as it grows instead (wal_autocheckpoint). */
    (void) sqlite3_db_config(c->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
    wal_mode(c, &st, &rc);
    if (rc == SQLITE_ROW &&
        sqlite3_stricmp((const char *) sqlite3_column_text(st, 0), "wal")) {
        sqlite3_finalize(st);
        return sked__error_set(err, SKED_EIO, "db", -1,
                               "%.100s: cannot use WAL mode", b->path);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return fail(b, c->db, rc, "opening", err);
    /* A page cache of 16 MiB instead of SQLite's 2 MiB: a firing writes
     * the tails of the runs table, its indexes and the events, and reads
     * schedules in name order; with 2 MiB those pages were read back
     * from the file over and over (a sixth of a firing's time, in the
     * kernel). Measured on 100,000 occurrences at once: 64 MiB did no
     * better than 16. The cache fills only as pages are read, so an
     * idle connection of the pool stays small. */
    (void) snprintf(sync, sizeof sync,
                    "PRAGMA synchronous = %s; PRAGMA foreign_keys = ON; "
                    "PRAGMA cache_size = -16384",
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
    struct sked__tx *c = sked__calloc(1, sizeof *c);
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

int sked__sqlite_exec_rows(sked__tx *c, sqlite3_stmt *s, int params,
                           sked__sqlite_bind_fn bind, const void *ctx,
                           size_t from, size_t k, const char *what,
                           int64_t *changed, sked_error *err)
{
    int bound = SQLITE_OK, rc;

    for (size_t j = 0; j < k; j++)
        bound |= bind(s, (int) j * params, from + j, ctx);
    rc = sked__sqlite_exec(c, s, bound, what, err);
    *changed = rc == 0 ? sqlite3_changes64(c->db) : 0;
    return rc;
}

/* Run the savepoint statement ID of C. */
static int savepoint(struct sked__tx *c, enum stmt_id id, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, id, &s, err);

    return rc == 0 ? sked__sqlite_exec(c, s, SQLITE_OK, "batching rows", err)
                   : rc;
}

/* Write rows FROM to FROM + K - 1 of B one statement each. */
static int write_each(struct sked__tx *c, const sked__sqlite_batch *b,
                      size_t from, size_t k, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int64_t changed;
    int rc = sked__sqlite_stmt(c, b->one, &s, err);

    for (size_t i = from; rc == 0 && i < from + k; i++) {
        rc = sked__sqlite_exec_rows(c, s, b->params, b->bind, b->ctx, i, 1,
                                    b->what, &changed, err);
        if (rc == 0)
            rc = b->done(c, i, changed > 0, b->ctx, err);
    }
    return rc;
}

/* Write the SKED__SQLITE_BATCH rows of B from FROM by one statement,
 * telling in *whole whether every row changed (else nothing is kept). */
static int write_batch(struct sked__tx *c, const sked__sqlite_batch *b,
                       size_t from, bool *whole, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int64_t changed = 0;
    int rc = sked__sqlite_stmt(c, b->many, &s, err);

    if (rc == 0)
        rc = savepoint(c, S_SAVEPOINT, err);
    if (rc == 0)
        rc = sked__sqlite_exec_rows(c, s, b->params, b->bind, b->ctx, from,
                                    SKED__SQLITE_BATCH, b->what, &changed, err);
    *whole = rc == 0 && changed == SKED__SQLITE_BATCH;
    if (rc == 0 && !*whole)
        rc = savepoint(c, S_UNDO, err);
    if (rc == 0)
        rc = savepoint(c, S_RELEASE, err);
    for (size_t i = from; rc == 0 && *whole && i < from + SKED__SQLITE_BATCH;
         i++)
        rc = b->done(c, i, true, b->ctx, err);
    return rc;
}

int sked__sqlite_write_rows(sked__tx *c, const sked__sqlite_batch *b, size_t n,
                            sked_error *err)
{
    size_t i = 0;
    int rc = 0;

    while (rc == 0 && n - i >= SKED__SQLITE_BATCH) {
        bool whole = false;
        rc = write_batch(c, b, i, &whole, err);
        if (rc == 0 && !whole)
            rc = write_each(c, b, i, SKED__SQLITE_BATCH, err);
        i += SKED__SQLITE_BATCH;
    }
    return rc == 0 ? write_each(c, b, i, n - i, err) : rc;
}

int sked__sqlite_fail(sked__tx *c, int rc, const char *what, sked_error *err)
{
    return fail(c->b, c->db, rc, what, err);
}

sqlite3 *sked__sqlite_db(sked__tx *c)
{
    return c->db;
}

const char *sked__sqlite_path(sked__tx *c)
{
    return c->b->path;
}

int sked__sqlite_collect(sked__tx *c, sqlite3_stmt *s, sked__sqlite_list *l,
                         sked_error *err)
{
    sked__row r = {&sked__sqlite_row_driver, s, 0};
    int rc = 0, step;

    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        char *row;
        if (l->n == l->cap) {
            size_t ncap = l->cap ? 2 * l->cap : 16;
            void *v = sked__realloc(l->v, ncap * l->size);
            if (!v) {
                rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
                break;
            }
            l->v = v;
            l->cap = ncap;
        }
        row = (char *) l->v + l->n * l->size;
        memset(row, 0, l->size);
        rc = l->kind ? l->kind->read(&r, row, err) : l->read(c, s, row, err);
        if (rc != 0)
            break;
        l->n++;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = fail(c->b, c->db, step, l->what, err);
    done(s);
    return rc;
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

/* Remember which file B's path names: the file its connections have
 * open, created by the first if it did not exist. */
static int identify(struct sked__backend *b, sked_error *err)
{
    struct stat sb;

    if (stat(b->path, &sb) != 0)
        return sked__error_set(err, SKED_EIO, "db", -1, "%.100s: %s", b->path,
                               strerror(errno));
    b->dev = sb.st_dev;
    b->ino = sb.st_ino;
    return 0;
}

/* Check that B's path still names the file its connections have open.
 * Once it was deleted or replaced (another inode), every connection
 * works on a file nobody will open again: what it wrote would be gone
 * at the next start, so every transaction is refused from then on. A
 * stat() a transaction: a microsecond beside its commit. */
static int check_file(const struct sked__backend *b, sked_error *err)
{
    struct stat sb;

    if (stat(b->path, &sb) == 0 && sb.st_dev == b->dev && sb.st_ino == b->ino)
        return 0;
    return sked__error_set(err, SKED_ESTALE, "db", -1,
                           "%.100s: the database file was deleted or "
                           "replaced since it was opened: restart sked on "
                           "the file to use",
                           b->path);
}

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
    b = sked__calloc(1, sizeof *b);
    if (!b || !(b->path = sked__strdup(target))) {
        free(b);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    b->sync_normal = sync && strcmp(sync, "normal") == 0;
    pthread_mutex_init(&b->mu, NULL);
    pthread_mutex_init(&b->write_mu, NULL);
    rc = conn_open(b, &c, err); /* fail now on an unusable file */
    if (rc == 0 && (rc = identify(b, err)) != 0)
        conn_close(c);
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
                                         S_BEGIN_EXCL, S_BEGIN_WRITE};
    struct sked__tx *c;
    int rc = check_file(b, err);

    if (rc == 0)
        rc = conn_get(b, &c, err);
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

static int sqlite_mark(sked__tx *c, sked__mark_op op, sked_error *err)
{
    static const enum stmt_id id[] = {S_MARK_SET, S_MARK_UNDO, S_MARK_DROP,
                                      S_MARK_DROP};
    int rc = exec_stmt(c, id[op], "marking an operation", err);

    if (rc == 0 && op == SKED__MARK_NEXT)
        rc = exec_stmt(c, S_MARK_SET, "marking an operation", err);
    return rc;
}

/* One: SQLite lets one writer in at a time (write_mu). */
static int sqlite_writers(const sked__backend *b)
{
    (void) b;
    return 1;
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

const struct sked__store_ops sked__store_sqlite_ops = {
    .version = SKED__STORE_OPS_VERSION,
    .kind = "sqlite",
    .migrations = sked__schema_sqlite,
    .open = sqlite_open,
    .close = sked__sqlite_close,
    .begin = sqlite_begin,
    .commit = sqlite_commit,
    .rollback = sqlite_rollback,
    .mark = sqlite_mark,
    .writers = sqlite_writers,
    .schema_version = sqlite_schema_version,
    .migrate_step = sqlite_migrate_step,
    .schedule_get = sked__sqlite_schedule_get,
    .schedule_insert = sked__sqlite_schedule_insert,
    .schedule_update = sked__sqlite_schedule_update,
    .schedule_delete = sked__sqlite_schedule_delete,
    .schedule_list = sked__sqlite_schedule_list,
    .runs_insert = sked__sqlite_rows_runs_insert,
    .schedule_heads = sked__sqlite_schedule_heads,
    .schedule_lock = sked__sqlite_schedule_lock,
    .schedule_advance = sked__sqlite_schedule_advance,
    .runs_insert_lenient = sked__sqlite_rows_runs_insert_lenient,
    .runs_active = sked__sqlite_rows_runs_active,
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
    .schedules_fresh = sked__sqlite_schedules_fresh,
    .runs_deadline_due = sked__sqlite_runs_deadline_due,
    .run_mark = sked__sqlite_run_mark,
    .schedule_deadline_sync = sked__sqlite_schedule_deadline_sync,
    .heartbeat_open = sked__sqlite_heartbeat_open,
    .workflow_register = sked__sqlite_queue_workflow_register,
    .workflow_latest = sked__sqlite_queue_workflow_latest,
    .workflows_list = sked__sqlite_queue_workflows_list,
    .calendars_read = sked__sqlite_calendars_read,
    .calendar_write = sked__sqlite_calendar_write,
    .calendar_delete = sked__sqlite_calendar_delete,
    .calendars_stamp = sked__sqlite_calendars_stamp,
    .calendar_users = sked__sqlite_calendar_users,
    .skip_write = sked__sqlite_skip_write,
    .skip_delete = sked__sqlite_skip_delete,
    .skips_read = sked__sqlite_skips_read,
    .notifiers_read = sked__sqlite_notifiers_read,
    .notifier_write = sked__sqlite_notifier_write,
    .notifier_delete = sked__sqlite_notifier_delete,
    .deliveries_queue = sked__sqlite_deliveries_queue,
    .deliveries_expand = sked__sqlite_deliveries_expand,
    .deliveries_claim = sked__sqlite_deliveries_claim,
    .delivery_finish = sked__sqlite_delivery_finish,
    .deliveries_list = sked__sqlite_deliveries_list,
    .deliveries_due = sked__sqlite_deliveries_due,
    .deliveries_prune = sked__sqlite_deliveries_prune,
    .events_append = sked__sqlite_rows_events_append,
    .event_append = sked__sqlite_rows_event_append,
    .event_list = sked__sqlite_rows_event_list,
    .event_last = sked__sqlite_rows_event_last,
    .event_prune = sked__sqlite_rows_event_prune,
};
