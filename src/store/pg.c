/* SPDX-License-Identifier: MIT */
/* The PostgreSQL back-end: libpq connections in a small pool, one
 * transaction per borrowed connection, prepared statements, migrations
 * under an advisory lock, and the mapping of server errors to the codes
 * of store_ops.h. The SQL of the rows themselves is in pg_rows.c.
 *
 * The pool holds opts->pg_pool_size slots (default 4). open() connects
 * one, so an unreachable server is reported at once; the others connect
 * on first use. A thread borrows a slot at begin and gives it back at
 * commit or rollback; when none is free it waits on a condition variable.
 * A slot whose connection dropped reconnects at the next begin and
 * prepares its statements again; the transaction that saw the drop
 * returns SKED_EBUSY, and store.c runs it again. A COMMIT lost with its
 * connection is ambiguous: the retry of an idempotent write (runs are
 * inserted with ON CONFLICT DO NOTHING) is safe, but may then report an
 * already committed run as not created.
 *
 * Isolation: writes run at READ COMMITTED, where unique indexes make
 * concurrent inserts safe; reads at REPEATABLE READ, READ ONLY, so a read
 * of several statements sees one snapshot. Server notices never reach
 * stderr: libsked does not print. */
#include "store/pg_calendar.h"
#include "store/pg_skip.h"
#include "store/pg_deadline.h"
#include "store/pg_notify.h"
#include "store/pg.h"
#include "base/alloc.h"
#include "store/pg_queue.h"
#include "store/pg_run.h"
#include "store/pg_schedule.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"

#define DEFAULT_POOL_SIZE 4
#define MAX_POOL_SIZE     64
/* pg_advisory_xact_lock key of migrations: "sked" in ASCII. */
#define MIGRATION_LOCK_KEY "1936418148"
/* pg_advisory_xact_lock key of SKED__TX_SERIAL: "sked" + 1. */
#define SERIAL_LOCK_KEY "1936418149"
/* Seconds to wait for a connection when the URL does not say. */
#define CONNECT_TIMEOUT "10"

struct sked__tx {
    sked__backend *b; /* borrowed: the pool this slot belongs to */
    PGconn *conn;     /* owned; NULL until first used */
    /* Bit i%64 of word i/64: statement i is prepared on conn. */
    uint64_t prepared[SKED__PG_MASK_WORDS];
    bool busy; /* lent to a thread, guarded by b->mu */
    /* The DETAIL of the last error, "" when none: room for that of a
     * unique violation of the longest key, "Key (concurrency_key)=(KEY)
     * already exists.", which names the run refused (pg_rows.c). */
    char detail[SKED_RUN_KEY_MAX + 64];
};

struct sked__backend {
    char *url;       /* owned: the connection URL as given */
    char where[160]; /* "host/dbname", for messages */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int size;
    struct sked__tx *slots; /* owned, SIZE of them */
};

/* Discard server notices (a CREATE ... IF NOT EXISTS, a dropped lock). */
static void quiet_notice(void *arg, const char *msg)
{
    (void) arg;
    (void) msg;
}

/* Copy libpq's message (often several lines ending in '\n') into ERR's
 * buffer as one line. */
static void one_line(char *dst, size_t cap, const char *msg)
{
    size_t i, j = 0;
    bool space = false;

    for (i = 0; msg != NULL && msg[i] != '\0' && j + 1 < cap; i++) {
        bool ws = msg[i] == '\n' || msg[i] == '\t' || msg[i] == ' ';
        if (ws) {
            space = j > 0;
            continue;
        }
        if (space && j + 2 < cap)
            dst[j++] = ' ';
        space = false;
        dst[j++] = msg[i];
    }
    dst[j] = '\0';
}

/* Copy the first line of MSG into DST (CAP bytes). */
static void first_line(char *dst, size_t cap, const char *msg)
{
    size_t n = strcspn(msg, "\n");

    if (n >= cap)
        n = cap - 1;
    memcpy(dst, msg, n);
    dst[n] = '\0';
}

/* Fill B->where with "host:port/dbname" from the URL, for messages; the
 * URL is parsed by libpq, so every form it accepts is named right. */
static int describe_target(sked__backend *b, sked_error *err)
{
    PQconninfoOption *opts, *o;
    const char *host = NULL, *port = NULL, *db = NULL, *user = NULL;
    char *msg = NULL;

    opts = PQconninfoParse(b->url, &msg);
    if (opts == NULL) {
        char line[160];
        one_line(line, sizeof(line), msg ? msg : "out of memory");
        PQfreemem(msg);
        return sked__error_set(err, SKED_EINVAL, "db", -1,
                               "malformed PostgreSQL URL: %s", line);
    }
    for (o = opts; o->keyword != NULL; o++) {
        if (o->val == NULL || o->val[0] == '\0')
            continue;
        if (strcmp(o->keyword, "host") == 0)
            host = o->val;
        else if (strcmp(o->keyword, "port") == 0)
            port = o->val;
        else if (strcmp(o->keyword, "dbname") == 0)
            db = o->val;
        else if (strcmp(o->keyword, "user") == 0)
            user = o->val;
    }
    (void) snprintf(b->where, sizeof(b->where), "%s%s%s/%s",
                    host ? host : "localhost", port ? ":" : "",
                    port ? port : "", db ? db : (user ? user : ""));
    PQconninfoFree(opts);
    return 0;
}

/* (Re)connect slot T. Returns 0 or SKED_EBUSY naming the server. */
static int slot_connect(struct sked__tx *t, sked_error *err)
{
    /* The URL is expanded from "dbname"; what it says wins over the
     * defaults listed before it. */
    const char *const keys[] = {"connect_timeout", "fallback_application_name",
                                "dbname", NULL};
    const char *const vals[] = {CONNECT_TIMEOUT, "sked", t->b->url, NULL};
    char line[200];

    if (t->conn != NULL)
        PQfinish(t->conn);
    memset(t->prepared, 0, sizeof t->prepared);
    t->conn = PQconnectdbParams(keys, vals, 1);
    if (t->conn == NULL)
        return sked__error_set(err, SKED_ENOMEM, "db", -1,
                               "cannot connect to PostgreSQL at %s: "
                               "out of memory",
                               t->b->where);
    if (PQstatus(t->conn) != CONNECTION_OK) {
        /* The first line says it all; libpq's second is a hint. A server
         * that cannot be reached is unavailable: it may come back. */
        first_line(line, sizeof(line), PQerrorMessage(t->conn));
        PQfinish(t->conn);
        t->conn = NULL;
        return sked__error_set(err, SKED_EBUSY, "db", -1,
                               "cannot connect to PostgreSQL at %s: %s",
                               t->b->where, line);
    }
    (void) PQsetNoticeProcessor(t->conn, quiet_notice, NULL);
    return 0;
}

static void backend_free(sked__backend *b)
{
    int i;

    if (b == NULL)
        return;
    for (i = 0; b->slots != NULL && i < b->size; i++)
        if (b->slots[i].conn != NULL)
            PQfinish(b->slots[i].conn);
    free(b->slots);
    free(b->url);
    (void) pthread_cond_destroy(&b->cv);
    (void) pthread_mutex_destroy(&b->mu);
    free(b);
}

static int pg_open(const char *target, const sked_store_options *opts,
                   sked__backend **out, sked_error *err)
{
    sked__backend *b;
    int i, rc;

    b = sked__calloc(1, sizeof(*b));
    if (b == NULL)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (pthread_mutex_init(&b->mu, NULL) != 0) {
        free(b);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    if (pthread_cond_init(&b->cv, NULL) != 0) {
        (void) pthread_mutex_destroy(&b->mu);
        free(b);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    b->size = opts->pg_pool_size > 0 ? opts->pg_pool_size : DEFAULT_POOL_SIZE;
    if (b->size > MAX_POOL_SIZE)
        b->size = MAX_POOL_SIZE;
    b->url = sked__strdup(target);
    b->slots = sked__calloc((size_t) b->size, sizeof(*b->slots));
    if (b->url == NULL || b->slots == NULL) {
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
        goto out;
    }
    for (i = 0; i < b->size; i++)
        b->slots[i].b = b;
    rc = describe_target(b, err);
    if (rc < 0)
        goto out;
    rc = slot_connect(&b->slots[0], err);
    if (rc < 0)
        goto out;
    *out = b;
    return 0;
out:
    backend_free(b);
    return rc;
}

static void pg_close(sked__backend *b)
{
    backend_free(b);
}

/* Take a free slot, waiting for one; connected slots first. */
static struct sked__tx *slot_borrow(sked__backend *b)
{
    struct sked__tx *pick = NULL;
    int i;

    (void) pthread_mutex_lock(&b->mu);
    for (;;) {
        for (i = 0; i < b->size; i++) {
            struct sked__tx *t = &b->slots[i];
            if (t->busy)
                continue;
            if (pick == NULL || (pick->conn == NULL && t->conn != NULL))
                pick = t;
        }
        if (pick != NULL)
            break;
        (void) pthread_cond_wait(&b->cv, &b->mu);
    }
    pick->busy = true;
    (void) pthread_mutex_unlock(&b->mu);
    return pick;
}

static void slot_release(struct sked__tx *t)
{
    sked__backend *b = t->b;

    (void) pthread_mutex_lock(&b->mu);
    t->busy = false;
    (void) pthread_cond_signal(&b->cv);
    (void) pthread_mutex_unlock(&b->mu);
}

/* SQLSTATEs a retry of the whole transaction may cure. */
static bool retryable_state(const char *state)
{
    static const char *const states[] = {
        "40001", /* serialization_failure */
        "40P01", /* deadlock_detected */
        "57P01", /* admin_shutdown: the server is restarting */
        "57P02", /* crash_shutdown */
        "57P03", /* cannot_connect_now */
        NULL,
    };
    int i;

    if (strncmp(state, "08", 2) == 0) /* connection exceptions */
        return true;
    for (i = 0; states[i] != NULL; i++)
        if (strcmp(state, states[i]) == 0)
            return true;
    return false;
}

int sked__pg_error(sked__tx *tx, const PGresult *res, const char *what,
                   sked_error *err)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    const char *msg =
        res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    char line[160];
    int code = SKED_EIO;

    if (msg == NULL)
        msg = PQerrorMessage(tx->conn);
    first_line(tx->detail, sizeof(tx->detail),
               res && PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL)
                   ? PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL)
                   : "");
    one_line(line, sizeof(line), msg);
    if (PQstatus(tx->conn) == CONNECTION_BAD)
        code = SKED_EBUSY;
    else if (state != NULL && retryable_state(state))
        code = SKED_EBUSY;
    else if (state != NULL && strcmp(state, "23505") == 0)
        code = SKED_ECONFLICT;
    else if (state != NULL && strcmp(state, "53100") == 0) /* disk_full */
        code = SKED_ENOSPC;
    else if (state != NULL && strcmp(state, "25006") == 0)
        code = SKED_EROFS; /* read_only_sql_transaction: a standby */
    return sked__error_set(err, code, NULL, -1, "PostgreSQL at %s: %s: %s",
                           tx->b->where, what, line);
}

/* Run the simple command SQL (no parameters, no rows) on TX. */
static int command(sked__tx *tx, const char *sql, const char *what,
                   sked_error *err)
{
    PGresult *res = PQexec(tx->conn, sql);
    int rc = 0;

    if (PQresultStatus(res) != PGRES_COMMAND_OK &&
        PQresultStatus(res) != PGRES_TUPLES_OK)
        rc = sked__pg_error(tx, res, what, err);
    PQclear(res);
    return rc;
}

const char *sked__pg_error_detail(const sked__tx *tx)
{
    return tx->detail;
}

static int prepare(sked__tx *tx, const sked__pg_stmt *stmt, sked_error *err)
{
    char name[32];
    PGresult *res;
    int rc = 0;

    (void) snprintf(name, sizeof(name), "sked_%d", (int) stmt->id);
    res = PQprepare(tx->conn, name, stmt->sql, stmt->nparams, NULL);
    if (PQresultStatus(res) != PGRES_COMMAND_OK)
        rc = sked__pg_error(tx, res, "prepare", err);
    else
        tx->prepared[stmt->id / 64] |= UINT64_C(1) << (stmt->id % 64);
    PQclear(res);
    return rc;
}

int sked__pg_exec(sked__tx *tx, const sked__pg_stmt *stmt,
                  const char *const *params, PGresult **out, sked_error *err)
{
    char name[32];
    PGresult *res;
    ExecStatusType st;
    int rc;

    if (!(tx->prepared[stmt->id / 64] & (UINT64_C(1) << (stmt->id % 64)))) {
        rc = prepare(tx, stmt, err);
        if (rc < 0)
            return rc;
    }
    (void) snprintf(name, sizeof(name), "sked_%d", (int) stmt->id);
    res = PQexecPrepared(tx->conn, name, stmt->nparams, params, NULL, NULL, 0);
    st = PQresultStatus(res);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        rc = sked__pg_error(tx, res, "query", err);
        PQclear(res);
        return rc;
    }
    if (out != NULL)
        *out = res;
    else
        PQclear(res);
    return 0;
}

/* Read what the pipeline of N runs of a statement sent back, up to its
 * sync: each run's result to RESULT, until one fails (the server then
 * aborts the rest). */
static int pipeline_read(sked__tx *tx, size_t n, sked__pg_result_fn result,
                         void *ctx, int rc, sked_error *err)
{
    PGresult *res;

    for (size_t i = 0; i < n; i++) {
        res = PQgetResult(tx->conn);
        if (!res) /* a run that was never sent */
            break;
        ExecStatusType st = PQresultStatus(res);
        if (rc == 0 && st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
            rc = sked__pg_error(tx, res, "query", err);
        else if (rc == 0 && (rc = result(ctx, i, res)) != 0)
            rc = sked__error_set(err, rc, NULL, -1, NULL);
        PQclear(res);
        while ((res = PQgetResult(tx->conn)) != NULL) /* the run's end */
            PQclear(res);
    }
    while ((res = PQgetResult(tx->conn)) != NULL) {
        bool sync = PQresultStatus(res) == PGRES_PIPELINE_SYNC;
        PQclear(res);
        if (sync)
            break;
    }
    return rc;
}

int sked__pg_exec_many(sked__tx *tx, const sked__pg_stmt *stmt, size_t n,
                       sked__pg_params_fn params, sked__pg_result_fn result,
                       void *ctx, sked_error *err)
{
    const char *p[16];
    char name[32];
    size_t sent = 0;
    int rc = 0;

    if (n == 0)
        return 0;
    if (stmt->nparams > 16)
        return sked__error_set(err, SKED_EINVAL, NULL, -1,
                               "too many parameters for a pipeline");
    if (!(tx->prepared[stmt->id / 64] & (UINT64_C(1) << (stmt->id % 64))) &&
        (rc = prepare(tx, stmt, err)) < 0)
        return rc;
    (void) snprintf(name, sizeof(name), "sked_%d", (int) stmt->id);
    if (!PQenterPipelineMode(tx->conn))
        return sked__pg_error(tx, NULL, "pipeline", err);
    for (; rc == 0 && sent < n; sent++) {
        if ((rc = params(ctx, sent, p)) != 0)
            rc = sked__error_set(err, rc, NULL, -1, NULL);
        if (rc == 0 && !PQsendQueryPrepared(tx->conn, name, stmt->nparams, p,
                                            NULL, NULL, 0))
            rc = sked__pg_error(tx, NULL, "query", err);
    }
    if (rc != 0)
        sent -= sent > 0; /* the one whose parameters or send failed */
    if (!PQpipelineSync(tx->conn) && rc == 0)
        rc = sked__pg_error(tx, NULL, "pipeline", err);
    rc = pipeline_read(tx, sent, result, ctx, rc, err);
    if (!PQexitPipelineMode(tx->conn) && rc == 0)
        rc = sked__pg_error(tx, NULL, "pipeline", err);
    return rc;
}

static const char *begin_sql(sked__tx_mode mode)
{
    switch (mode) {
    case SKED__TX_READ:
        return "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";
    case SKED__TX_MIGRATE:
        /* One migrator at a time; the others wait, then see its work. */
        return "BEGIN ISOLATION LEVEL READ COMMITTED; "
               "SELECT pg_advisory_xact_lock(" MIGRATION_LOCK_KEY ")";
    case SKED__TX_SERIAL:
        /* Read committed: after the wait, each statement sees what the
         * transaction that held the lock committed. */
        return "BEGIN ISOLATION LEVEL READ COMMITTED; "
               "SELECT pg_advisory_xact_lock(" SERIAL_LOCK_KEY ")";
    case SKED__TX_WRITE:
    default:
        return "BEGIN ISOLATION LEVEL READ COMMITTED";
    }
}

/* Start the transaction on slot T, reconnecting first when its
 * connection is missing or dropped. A connection found dropped by BEGIN
 * itself is replaced once at once: nothing was done on it yet. A
 * reconnection that fails is SKED_EBUSY: the server answered before
 * (open connected), so it is restarting or out of reach for a while,
 * and the caller may try again. */
static int slot_begin(struct sked__tx *t, sked__tx_mode mode, sked_error *err)
{
    int attempt, rc = 0;

    for (attempt = 0; attempt < 2; attempt++) {
        if (t->conn == NULL || PQstatus(t->conn) != CONNECTION_OK) {
            rc = slot_connect(t, err);
            if (rc == SKED_EIO) {
                if (err)
                    err->code = SKED_EBUSY;
                rc = SKED_EBUSY;
            }
            if (rc < 0)
                return rc;
        }
        rc = command(t, begin_sql(mode), "begin", err);
        if (rc == 0 || PQstatus(t->conn) == CONNECTION_OK)
            return rc;
    }
    return rc;
}

static int pg_begin(sked__backend *b, sked__tx_mode mode, sked__tx **out,
                    sked_error *err)
{
    struct sked__tx *t = slot_borrow(b);
    int rc = slot_begin(t, mode, err);

    if (rc < 0) {
        /* A half-started transaction block must not reach the next user. */
        if (t->conn != NULL && PQtransactionStatus(t->conn) != PQTRANS_IDLE)
            (void) command(t, "ROLLBACK", "rollback", NULL);
        slot_release(t);
        return rc;
    }
    *out = t;
    return 0;
}

static int pg_commit(sked__tx *tx, sked_error *err)
{
    PGresult *res = PQexec(tx->conn, "COMMIT");
    int rc = 0;

    if (PQresultStatus(res) != PGRES_COMMAND_OK)
        rc = sked__pg_error(tx, res, "commit", err);
    else if (strcmp(PQcmdStatus(res), "COMMIT") != 0)
        /* COMMIT of a failed transaction answers ROLLBACK. */
        rc = sked__error_set(err, SKED_EIO, NULL, -1,
                             "PostgreSQL at %s: the transaction was rolled "
                             "back",
                             tx->b->where);
    PQclear(res);
    slot_release(tx);
    return rc;
}

static int pg_mark(sked__tx *tx, sked__mark_op op, sked_error *err)
{
    static const char *const sql[] = {
        "SAVEPOINT sked_op", "ROLLBACK TO SAVEPOINT sked_op",
        "RELEASE SAVEPOINT sked_op",
        "RELEASE SAVEPOINT sked_op; SAVEPOINT sked_op"};

    return command(tx, sql[op], "mark an operation", err);
}

/* The slots of the pool but one, left for the reads. */
static int pg_writers(const sked__backend *b)
{
    return b->size > 2 ? (int) b->size - 1 : 1;
}

static void pg_rollback(sked__tx *tx)
{
    if (PQstatus(tx->conn) == CONNECTION_OK &&
        PQtransactionStatus(tx->conn) != PQTRANS_IDLE)
        (void) command(tx, "ROLLBACK", "rollback", NULL);
    slot_release(tx);
}

/* Run the one-value query SQL; *out is its value, NULL when there is no
 * row or the value is NULL (the caller frees it). */
static int query_value(sked__tx *tx, const char *sql, char **out,
                       sked_error *err)
{
    PGresult *res = PQexec(tx->conn, sql);
    char *v = NULL;
    int rc = 0;

    if (PQresultStatus(res) != PGRES_TUPLES_OK) {
        rc = sked__pg_error(tx, res, "read the schema version", err);
    } else if (PQntuples(res) == 1 && !PQgetisnull(res, 0, 0)) {
        v = sked__strdup(PQgetvalue(res, 0, 0));
        if (v == NULL)
            rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    PQclear(res);
    if (rc == 0)
        *out = v;
    return rc;
}

static int pg_schema_version(sked__tx *tx, int *out, sked_error *err)
{
    char *v = NULL;
    int rc;

    /* A new database has no meta table: version 0. Not to_regclass():
     * it takes no lock, so after waiting for another migrator it may
     * answer from this backend's stale cache that meta does not exist;
     * a query on the catalog reads it with a fresh snapshot. */
    rc = query_value(tx,
                     "SELECT 1 FROM pg_catalog.pg_tables "
                     "WHERE schemaname = current_schema() "
                     "AND tablename = 'meta'",
                     &v, err);
    if (rc < 0 || v == NULL) {
        if (rc == 0)
            *out = 0;
        return rc;
    }
    free(v);
    v = NULL;
    rc = query_value(tx, "SELECT value FROM meta WHERE key = 'schema_version'",
                     &v, err);
    if (rc == 0)
        *out = v ? atoi(v) : 0;
    free(v);
    return rc;
}

static int pg_migrate_step(sked__tx *tx, const struct sked__migration *m,
                           sked_error *err)
{
    char version[16], what[64];
    const char *params[1] = {version};
    PGresult *res;
    int rc;

    (void) snprintf(what, sizeof(what), "migration %s", m->name);
    rc = command(tx, m->sql, what, err);
    if (rc < 0)
        return rc;
    (void) snprintf(version, sizeof(version), "%d", m->version);
    res = PQexecParams(tx->conn,
                       "INSERT INTO meta (key, value) "
                       "VALUES ('schema_version', $1) "
                       "ON CONFLICT (key) DO UPDATE SET value = $1",
                       1, NULL, params, NULL, NULL, 0);
    if (PQresultStatus(res) != PGRES_COMMAND_OK)
        rc = sked__pg_error(tx, res, what, err);
    PQclear(res);
    return rc;
}

/* ---- notifications ---------------------------------------------------- */

/* A listener: a connection of its own and a pipe that wakes its poll. */
typedef struct pg_listener {
    sked__backend *b;  /* borrowed */
    struct sked__tx c; /* its connection, as a slot outside the pool */
    char channel[64];  /* an identifier: [a-z_] */
    int wake[2];       /* owned pipe: [0] polled, [1] written to wake */
    bool listening;    /* LISTEN done on c.conn */
} pg_listener;

static void pg_listen_close(void *arg)
{
    pg_listener *l = arg;

    if (!l)
        return;
    if (l->c.conn != NULL)
        PQfinish(l->c.conn);
    if (l->wake[0] >= 0)
        (void) close(l->wake[0]);
    if (l->wake[1] >= 0)
        (void) close(l->wake[1]);
    free(l);
}

/* (Re)connect L and LISTEN on its channel. */
static int listen_connect(pg_listener *l, sked_error *err)
{
    char sql[96];
    int rc;

    l->listening = false;
    rc = slot_connect(&l->c, err);
    if (rc < 0)
        return rc;
    (void) snprintf(sql, sizeof(sql), "LISTEN %s", l->channel);
    rc = command(&l->c, sql, "listen", err);
    l->listening = rc == 0;
    return rc;
}

static int pg_listen_open(sked__backend *b, const char *channel, void **out,
                          sked_error *err)
{
    pg_listener *l;
    int rc;

    if (strlen(channel) >= sizeof(((pg_listener *) 0)->channel) ||
        strspn(channel, "abcdefghijklmnopqrstuvwxyz_") != strlen(channel))
        return sked__error_set(err, SKED_EINVAL, "channel", -1,
                               "a channel is [a-z_], shorter than 64");
    l = sked__calloc(1, sizeof(*l));
    if (l == NULL)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    l->b = b;
    l->c.b = b;
    l->wake[0] = l->wake[1] = -1;
    (void) snprintf(l->channel, sizeof(l->channel), "%s", channel);
    if (pipe(l->wake) != 0 || fcntl(l->wake[0], F_SETFL, O_NONBLOCK) != 0 ||
        fcntl(l->wake[1], F_SETFL, O_NONBLOCK) != 0) {
        pg_listen_close(l);
        return sked__error_set(err, SKED_EIO, NULL, -1,
                               "cannot make a pipe: %s", strerror(errno));
    }
    rc = listen_connect(l, err);
    if (rc < 0) {
        pg_listen_close(l);
        return rc;
    }
    *out = l;
    return 0;
}

/* Call FN for every notification that arrived on L. */
static int drain(pg_listener *l, void (*fn)(void *, const char *), void *ctx,
                 sked_error *err)
{
    PGnotify *n;

    if (PQconsumeInput(l->c.conn) == 0)
        return sked__error_set(err, SKED_EIO, "db", -1,
                               "PostgreSQL at %s: the listening connection "
                               "dropped",
                               l->b->where);
    while ((n = PQnotifies(l->c.conn)) != NULL) {
        fn(ctx, n->extra);
        PQfreemem(n);
    }
    return 0;
}

static int pg_listen_wait(void *arg, int timeout_ms,
                          void (*fn)(void *, const char *), void *ctx,
                          sked_error *err)
{
    pg_listener *l = arg;
    struct pollfd p[2];
    char buf[64];
    int rc;

    if (!l->listening || PQstatus(l->c.conn) != CONNECTION_OK) {
        rc = listen_connect(l, err);
        if (rc < 0)
            return rc;
    }
    p[0] = (struct pollfd){.fd = PQsocket(l->c.conn), .events = POLLIN};
    p[1] = (struct pollfd){.fd = l->wake[0], .events = POLLIN};
    rc = poll(p, 2, timeout_ms);
    if (rc < 0 && errno != EINTR)
        return sked__error_set(err, SKED_EIO, NULL, -1, "poll: %s",
                               strerror(errno));
    while (read(l->wake[0], buf, sizeof(buf)) > 0)
        ; /* empty the pipe */
    return rc > 0 && (p[0].revents & (POLLIN | POLLHUP | POLLERR))
               ? drain(l, fn, ctx, err)
               : 0;
}

static void pg_listen_wake(void *arg)
{
    pg_listener *l = arg;

    (void) !write(l->wake[1], "w", 1); /* a full pipe wakes all the same */
}

const struct sked__store_ops sked__store_pg_ops = {
    .version = SKED__STORE_OPS_VERSION,
    .kind = "postgres",
    .migrations = sked__schema_pg,
    .open = pg_open,
    .close = pg_close,
    .begin = pg_begin,
    .commit = pg_commit,
    .rollback = pg_rollback,
    .mark = pg_mark,
    .writers = pg_writers,
    .schema_version = pg_schema_version,
    .migrate_step = pg_migrate_step,
    .schedule_get = sked__pg_schedule_get,
    .schedule_insert = sked__pg_schedule_insert,
    .schedule_update = sked__pg_schedule_update,
    .schedule_delete = sked__pg_schedule_delete,
    .schedule_list = sked__pg_schedule_list,
    .runs_insert = sked__pg_rows_runs_insert,
    .schedule_heads = sked__pg_schedule_heads,
    .schedule_lock = sked__pg_schedule_lock,
    .schedule_advance = sked__pg_schedule_advance,
    .runs_insert_lenient = sked__pg_rows_runs_insert_lenient,
    .runs_active = sked__pg_rows_runs_active,
    .db_clock = sked__pg_rows_db_clock,
    .queue_loads = sked__pg_queue_loads,
    .runs_candidates = sked__pg_run_candidates,
    .runs_take = sked__pg_run_take,
    .runs_take_ready = sked__pg_run_take_ready,
    .steps_close = sked__pg_run_steps_close,
    .runs_renew = sked__pg_run_renew,
    .runs_release = sked__pg_run_release,
    .runs_fence = sked__pg_run_fence,
    .steps_write = sked__pg_run_steps_write,
    .runs_write = sked__pg_run_runs_write,
    .schedule_failures = sked__pg_run_failures,
    .schedule_failures_set = sked__pg_run_failures_set,
    .run_get = sked__pg_run_get,
    .runs_of_schedule = sked__pg_run_of_schedule,
    .run_cancel = sked__pg_run_cancel,
    .steps_list = sked__pg_run_steps_list,
    .runs_list = sked__pg_run_list,
    .queue_put = sked__pg_queue_put,
    .queues_list = sked__pg_queue_list,
    .schedules_fresh = sked__pg_schedules_fresh,
    .runs_deadline_due = sked__pg_runs_deadline_due,
    .run_mark = sked__pg_run_mark,
    .schedule_deadline_sync = sked__pg_schedule_deadline_sync,
    .heartbeat_open = sked__pg_heartbeat_open,
    .workflow_register = sked__pg_queue_workflow_register,
    .workflow_latest = sked__pg_queue_workflow_latest,
    .workflows_list = sked__pg_queue_workflows_list,
    .calendars_read = sked__pg_calendars_read,
    .calendar_write = sked__pg_calendar_write,
    .calendar_delete = sked__pg_calendar_delete,
    .calendars_stamp = sked__pg_calendars_stamp,
    .calendar_users = sked__pg_calendar_users,
    .skip_write = sked__pg_skip_write,
    .skip_delete = sked__pg_skip_delete,
    .skips_read = sked__pg_skips_read,
    .notifiers_read = sked__pg_notifiers_read,
    .notifier_write = sked__pg_notifier_write,
    .notifier_delete = sked__pg_notifier_delete,
    .deliveries_queue = sked__pg_deliveries_queue,
    .deliveries_expand = sked__pg_deliveries_expand,
    .deliveries_claim = sked__pg_deliveries_claim,
    .delivery_finish = sked__pg_delivery_finish,
    .deliveries_list = sked__pg_deliveries_list,
    .deliveries_due = sked__pg_deliveries_due,
    .deliveries_prune = sked__pg_deliveries_prune,
    .listen_open = pg_listen_open,
    .listen_wait = pg_listen_wait,
    .listen_wake = pg_listen_wake,
    .listen_close = pg_listen_close,
    .events_append = sked__pg_rows_events_append,
    .event_append = sked__pg_rows_event_append,
    .event_list = sked__pg_rows_event_list,
    .event_last = sked__pg_rows_event_last,
    .event_prune = sked__pg_rows_event_prune,
};
