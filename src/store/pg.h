/* SPDX-License-Identifier: MIT */
/* The PostgreSQL back-end's internals, shared by pg.c (connections, the
 * pool, transactions, errors, migrations), pg_schedule.c (the SQL of
 * schedules and the scheduler), pg_rows.c (the SQL of new runs and
 * events), pg_run.c, pg_run_ops.c and pg_queue.c (the SQL of execution).
 *
 * Words: a "slot" is one pooled connection; a transaction (sked__tx) is a
 * slot borrowed by one thread from begin until commit or rollback. A
 * "statement" is one SQL text prepared once per connection, on first use,
 * under the name "sked_<id>". */
#ifndef SKED_STORE_PG_H
#define SKED_STORE_PG_H

#include <libpq-fe.h>

#include "base/buf.h"
#include "store/store_ops.h"
#include "store/store_row.h"

/* The prepared statements, one bit each in a connection's mask. */
typedef enum sked__pg_stmt_id {
    SKED__PG_SCHEDULE_GET,
    SKED__PG_SCHEDULE_INSERT,
    SKED__PG_SCHEDULE_UPDATE,
    SKED__PG_SCHEDULE_DELETE,
    SKED__PG_SCHEDULE_LIST,
    SKED__PG_RUNS_INSERT,
    SKED__PG_EVENT_APPEND,
    SKED__PG_EVENT_LIST,
    SKED__PG_EVENT_FIND,
    SKED__PG_EVENT_FIND_ACTOR,
    SKED__PG_EVENT_PRUNE,
    SKED__PG_EVENT_LAST,
    SKED__PG_SCHEDULE_HEADS,
    SKED__PG_SCHEDULE_LOCK,
    SKED__PG_SCHEDULE_ADVANCE,
    SKED__PG_RUNS_INSERT_LENIENT,
    SKED__PG_RUNS_EXISTING,
    SKED__PG_RUNS_ACTIVE,
    SKED__PG_EVENTS_APPEND,
    SKED__PG_DB_CLOCK,
    /* execution: pg_run.c, pg_run_ops.c, pg_queue.c */
    SKED__PG_QUEUES_LOCK,
    SKED__PG_QUEUE_LOADS,
    SKED__PG_CAND_READY,
    SKED__PG_CAND_ORDERED,
    SKED__PG_CAND_PLAIN,
    SKED__PG_CAND_EXPIRED,
    SKED__PG_TAKE,
    SKED__PG_TAKE_READY,
    SKED__PG_STEPS_CLOSE,
    SKED__PG_RENEW,
    SKED__PG_RELEASE_STEPS,
    SKED__PG_RELEASE_RUNS,
    SKED__PG_FENCE,
    SKED__PG_STEPS_INSERT,
    SKED__PG_BY_TID,
    SKED__PG_BY_ANY,
    SKED__PG_STEPS_WRITE,
    SKED__PG_RUNS_WRITE,
    SKED__PG_FAILURES,
    SKED__PG_FAILURES_SET,
    SKED__PG_RUN_GET,
    SKED__PG_RUN_LOCK,
    SKED__PG_RUNS_OF_SCHEDULE,
    SKED__PG_CANCEL_NOW,
    SKED__PG_CANCEL_ASK,
    SKED__PG_STEPS_LIST,
    SKED__PG_RUNS_LIST,
    SKED__PG_RUNS_LIST_SCHEDULE,
    SKED__PG_QUEUE_PUT,
    SKED__PG_QUEUES_LIST,
    SKED__PG_SCHEDULES_FRESH,
    SKED__PG_WF_REGISTER,
    SKED__PG_WF_LATEST,
    SKED__PG_WF_LIST,
    SKED__PG_CAL_READ_ALL,
    SKED__PG_CAL_READ_ONE,
    SKED__PG_CAL_INSERT,
    SKED__PG_CAL_UPDATE,
    SKED__PG_CAL_DELETE,
    SKED__PG_CAL_STAMP,
    SKED__PG_CAL_BUMP,
    SKED__PG_CAL_USERS,
    SKED__PG_SKIP_INSERT,
    SKED__PG_SKIP_DELETE,
    SKED__PG_SKIPS_READ,
    SKED__PG_RUNS_DEADLINE_DUE,
    SKED__PG_RUN_MARK,
    SKED__PG_SCHEDULE_DEADLINE_SYNC,
    SKED__PG_HEARTBEAT_LATEST,
    SKED__PG_HEARTBEAT_EARLIEST,
    SKED__PG_NOTIFIERS_READ_ALL,
    SKED__PG_NOTIFIERS_READ_ONE,
    SKED__PG_NOTIFIER_EXISTS,
    SKED__PG_NOTIFIER_UPSERT,
    SKED__PG_NOTIFIER_DELETE,
    SKED__PG_NOTIFIER_ORPHAN,
    SKED__PG_DELIVERY_QUEUE,
    SKED__PG_DELIVERY_EXPAND,
    SKED__PG_DELIVERY_CLAIM,
    SKED__PG_DELIVERY_FINISH,
    SKED__PG_DELIVERY_LOG_ALL,
    SKED__PG_DELIVERY_LOG_ONE,
    SKED__PG_DELIVERY_DUE,
    SKED__PG_DELIVERY_PRUNE,
    SKED__PG_STMT_COUNT
} sked__pg_stmt_id;

/* A connection's mask of prepared statements: 64 bits a word. */
#define SKED__PG_MASK_WORDS 2
_Static_assert(SKED__PG_STMT_COUNT <= 64 * SKED__PG_MASK_WORDS,
               "too many prepared statements");

typedef struct sked__pg_stmt {
    sked__pg_stmt_id id;
    int nparams;
    const char *sql;
} sked__pg_stmt;

/* Run the prepared statement STMT in TX with NPARAMS text parameters
 * (NULL entries are SQL NULL), preparing it first on this connection if
 * needed. OUT: *out, a result with rows or a command status, to PQclear;
 * OUT may be NULL when the caller needs nothing back. Returns 0 or the
 * code of sked__pg_error. */
int sked__pg_exec(sked__tx *tx, const sked__pg_stmt *stmt,
                  const char *const *params, PGresult **out, sked_error *err);

/* Fill PARAMS with the parameters of the Ith run of a statement (valid
 * until the next call); return 0 or a SKED_E... code (ENOMEM, say),
 * which sked__pg_exec_many reports with its usual message. */
typedef int (*sked__pg_params_fn)(void *ctx, size_t i, const char **params);
/* Read the result RES of the Ith run; return 0 or a SKED_E... code, as
 * sked__pg_params_fn. */
typedef int (*sked__pg_result_fn)(void *ctx, size_t i, const PGresult *res);

/* Run STMT N times in TX in one round trip (libpq's pipeline mode), with
 * the parameters PARAMS gives, each result handed to RESULT in order.
 * For many small statements whose parameters do not depend on each
 * other's results. Returns 0, the first callback's error, or the code of
 * sked__pg_error for the first run that failed (the transaction is then
 * aborted). */
int sked__pg_exec_many(sked__tx *tx, const sked__pg_stmt *stmt, size_t n,
                       sked__pg_params_fn params, sked__pg_result_fn result,
                       void *ctx, sked_error *err);

/* Turn the failed RES (may be NULL) on TX's connection into a code, fill
 * ERR, and return the code: SKED_EBUSY for what a retry may cure
 * (serialization failure, deadlock, a dropped connection, a server
 * shutting down), SKED_ECONFLICT for a unique violation, SKED_EIO for
 * the rest. WHAT names the operation ("insert runs"). */
int sked__pg_error(sked__tx *tx, const PGresult *res, const char *what,
                   sked_error *err);

/* The DETAIL line of the last error sked__pg_error saw on TX ("Key
 * (id)=(x) already exists."), "" when it had none; valid until the next
 * error on TX. */
const char *sked__pg_error_detail(const sked__tx *tx);

/* How the shared store reads a column of a result's row (store_row.h;
 * sked__row.res is the PGresult, sked__row.row the row). */
extern const sked__row_driver sked__pg_row_driver;

/* Read every row of RES as KIND into *out, an array of *n (nothing left
 * on failure). Returns 0 or a sked code. */
int sked__pg_rows(const PGresult *res, const sked__row_kind *kind, void **out,
                  size_t *n, sked_error *err);

/* Run STMT with PARAMS and read its rows as sked__pg_rows does. */
int sked__pg_query_rows(sked__tx *tx, const sked__pg_stmt *stmt,
                        const char *const *params, const sked__row_kind *kind,
                        void **out, size_t *n, sked_error *err);

/* Bytes of the text of a 64-bit integer parameter, sign and NUL included. */
#define SKED__PG_NUMLEN 24

/* A growing array literal ("{...}") for the arrays a batch sends, with
 * a sticky out-of-memory flag (pg_rows.c). Start zeroed; free p. */
typedef sked_buf sked__pg_alit; /* failed: out of memory */

/* Append N bytes of S as they are. */
void sked__pg_alit_put(sked__pg_alit *a, const char *s, size_t n);
/* Append S as one element (FIRST opens the literal): quoted, with '"' and
 * '\' escaped; NULL for NULL. Close the literal with "}". */
void sked__pg_alit_text(sked__pg_alit *a, const char *s, bool first);
/* Append V as one element; SQL NULL when NULL is true. */
void sked__pg_alit_int(sked__pg_alit *a, int64_t v, bool null, bool first);
/* Close the N array literals A (ELEMS elements each, maybe 0) into
 * PARAMS; true when one ran out of memory. */
bool sked__pg_alits_close(sked__pg_alit *a, int n, size_t elems,
                          const char **params);
/* Free the N array literals A. */
void sked__pg_alits_free(sked__pg_alit *a, int n);
/* Write V as text into BUF (SKED__PG_NUMLEN bytes) and return BUF. */
const char *sked__pg_num(int64_t v, char *buf);
/* Run STMT with A, a closed literal, as its one parameter, and free A.
 * OUT: *res as for sked__pg_exec. Returns 0, SKED_ENOMEM when building A
 * ran out of memory, or the code of sked__pg_exec. */
int sked__pg_alit_exec(sked__tx *tx, const sked__pg_stmt *stmt,
                       sked__pg_alit *a, PGresult **res, sked_error *err);

/* The methods of pg_rows.c, new runs and events, as the method table
 * wants them. */
int sked__pg_rows_runs_insert(sked__tx *tx, const sked_run_new *runs, size_t n,
                              sked_time now, bool *created, sked_error *err);
int sked__pg_rows_event_append(sked__tx *tx, const char *type,
                               const char *subject, const char *payload,
                               sked_time at, sked_error *err);
int sked__pg_rows_event_list(sked__tx *tx, int64_t after_id, size_t limit,
                             const sked__event_filter *f, sked_event **out,
                             size_t *n, sked_error *err);
int sked__pg_rows_event_last(sked__tx *tx, int64_t *out, sked_error *err);
int sked__pg_rows_event_prune(sked__tx *tx, sked_time before, int64_t *deleted,
                              sked_error *err);
int sked__pg_rows_runs_insert_lenient(sked__tx *tx, const sked_run_new *runs,
                                      size_t n, sked_time now,
                                      sked_run_insert_state *state,
                                      sked_error *err);
int sked__pg_rows_runs_active(sked__tx *tx, const char *const *schedules,
                              size_t n, int64_t *counts, sked_error *err);
int sked__pg_rows_db_clock(sked__tx *tx, sked_time *out, sked_error *err);
int sked__pg_rows_events_append(sked__tx *tx, const sked_event *ev, size_t n,
                                int64_t *ids, sked_error *err);

#endif
