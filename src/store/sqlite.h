/* SPDX-License-Identifier: MIT */
/* The SQLite back-end. Everything goes through its method table,
 * sked__store_sqlite_ops (store_ops.h); this header names what sqlite.c
 * (connections and transactions) shares with the files of its SQL:
 * sqlite_schedule.c, sqlite_rows.c, sqlite_run.c and sqlite_queue.c. That
 * is the connection's statement cache, the error mapping, the reading of
 * a statement's rows into an array, and the small binding and reading
 * helpers they all use. */
#ifndef SKED_STORE_SQLITE_H
#define SKED_STORE_SQLITE_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/alloc.h"
#include "store/store_ops.h"
#include "store/store_row.h"

/* Statements a connection caches for the files of the SQL. */
#define SKED__SQLITE_MORE_STMTS 64

/* Close B and every connection of its pool. Every transaction must have
 * ended. NULL does nothing. */
void sked__sqlite_close(sked__backend *b);

/* Return in *out C's statement for SQL, prepared on first use and cached
 * by the address of SQL, which must be static. Finish with it by
 * sked__sqlite_done (or sked__sqlite_exec). */
int sked__sqlite_stmt(sked__tx *c, const char *sql, sqlite3_stmt **out,
                      sked_error *err);

/* Reset statement S and clear its bindings. */
void sked__sqlite_done(sqlite3_stmt *s);

/* Step S, which returns no rows, once its parameters are bound (BOUND:
 * the bind calls' codes or-ed together, SQLITE_OK when all went well),
 * and finish with it. Returns 0 or the code of sked__sqlite_fail. */
int sked__sqlite_exec(sked__tx *c, sqlite3_stmt *s, int bound, const char *what,
                      sked_error *err);

/* Turn the SQLite result RC on C's connection into a sked code, with a
 * message naming the file and WHAT was being done (store_ops.h rules:
 * busy is SKED_EBUSY, a constraint SKED_ECONFLICT). */
int sked__sqlite_fail(sked__tx *c, int rc, const char *what, sked_error *err);

/* C's connection. */
sqlite3 *sked__sqlite_db(sked__tx *c);

/* The path of C's database file, for messages. */
const char *sked__sqlite_path(sked__tx *c);

/* Read the current row of statement S into ROW, one zeroed element of a
 * sked__sqlite_list; return 0 or a sked code, leaving nothing allocated
 * in ROW on failure. */
typedef int (*sked__sqlite_row_fn)(sked__tx *c, sqlite3_stmt *s, void *row,
                                   sked_error *err);

/* The rows of a listing, read into a growing array: set size, read (or
 * kind, a reader of the shared store) and what (designated initializers,
 * the rest zero); v and n are the result. */
typedef struct sked__sqlite_list {
    size_t size;                /* bytes a row */
    sked__sqlite_row_fn read;   /* reads one row, when KIND is NULL */
    const sked__row_kind *kind; /* reads one row (store_row.h) */
    const char *what;           /* for errors: "listing events" */
    void *v;                    /* owned: n rows, room for cap */
    size_t n, cap;
} sked__sqlite_list;

/* Step S (bound) to its end, appending each row to L. S is finished
 * either way. On failure the rows read so far stay in L: the caller frees
 * them (the free function of their type). Returns 0, SKED_ENOMEM, the
 * code of READ or that of sked__sqlite_fail. */
int sked__sqlite_collect(sked__tx *c, sqlite3_stmt *s, sked__sqlite_list *l,
                         sked_error *err);

/* How the shared store reads a column of a statement's row (store_row.h;
 * sked__row.res is the sqlite3_stmt). */
extern const sked__row_driver sked__sqlite_row_driver;

/* Step S (bound) to its end, reading its rows as KIND into *out, an
 * array of *n (nothing left on failure). Returns 0 or a sked code. */
int sked__sqlite_rows(sked__tx *c, sqlite3_stmt *s, const sked__row_kind *kind,
                      const char *what, void **out, size_t *n, sked_error *err);

/* The active runs (pending, waiting, running), in the very words of the
 * partial indexes over them (schema/sqlite/0004_fire_rate.sql), which is
 * how SQLite's planner knows such an index applies. COL: the status
 * column, qualified or not. Written with an IN of two: a longer constant
 * list makes SQLite build a b-tree of it for every row an index's
 * predicate is checked on. */
#define SKED__SQLITE_ACTIVE(col)                                               \
    "(" col " IN ('pending', 'waiting') OR " col " = 'running')"

/* ---- batches ----------------------------------------------------------
 *
 * A statement costs SQLite about as much to start and finish (a cursor
 * on the table and on every index opened, then closed) as writing one
 * run's row costs: measured, one statement per run took twice the time
 * of one statement per 32 runs. So the firing transaction writes
 * SKED__SQLITE_BATCH rows to a statement, as rows of VALUES
 * (SKED__SQLITE_ROWS32), each row's parameters after the previous row's.
 * 64 rows measured no faster than 32. */

#define SKED__SQLITE_BATCH    32
#define SKED__SQLITE_ROWS2(r) r "," r
#define SKED__SQLITE_ROWS8(r)                                                  \
    SKED__SQLITE_ROWS2(SKED__SQLITE_ROWS2(SKED__SQLITE_ROWS2(r)))
#define SKED__SQLITE_ROWS32(r)                                                 \
    SKED__SQLITE_ROWS2(SKED__SQLITE_ROWS2(SKED__SQLITE_ROWS8(r)))

/* How many of LEFT rows the next statement takes: a whole batch, or one
 * (a batched statement comes in those two sizes). */
static inline size_t sked__sqlite_chunk(size_t left)
{
    return left >= SKED__SQLITE_BATCH ? SKED__SQLITE_BATCH : 1;
}

/* Bind row I of CTX's rows to S, its parameters from BASE + 1 on; 0 or
 * the bind calls' codes or-ed together. */
typedef int (*sked__sqlite_bind_fn)(sqlite3_stmt *s, int base, size_t i,
                                    const void *ctx);

/* Bind rows FROM to FROM + K - 1 to S, PARAMS parameters a row, step S
 * (which returns no rows) and finish with it. *changed: the rows it
 * changed. Returns 0 or the code of sked__sqlite_fail. */
int sked__sqlite_exec_rows(sked__tx *c, sqlite3_stmt *s, int params,
                           sked__sqlite_bind_fn bind, const void *ctx,
                           size_t from, size_t k, const char *what,
                           int64_t *changed, sked_error *err);

/* Row I was written by a batch; CHANGED: it changed a row. Returns 0 or
 * a sked code, which ends the batch. */
typedef int (*sked__sqlite_row_done_fn)(sked__tx *c, size_t i, bool changed,
                                        void *ctx, sked_error *err);

/* A write of rows that may leave some rows unchanged (a conflict, a
 * compare-and-set) where the caller must know which. */
typedef struct sked__sqlite_batch {
    const char *one;  /* static SQL writing one row */
    const char *many; /* the same writing SKED__SQLITE_BATCH rows */
    int params;       /* parameters a row */
    sked__sqlite_bind_fn bind;
    sked__sqlite_row_done_fn done;
    void *ctx; /* of bind and done */
    const char *what;
} sked__sqlite_batch;

/* Write rows 0 to N - 1 of B: SKED__SQLITE_BATCH rows at a time by MANY
 * under a savepoint, kept when every row changed; otherwise undone and
 * written again one row at a time by ONE, as is the tail that does not
 * fill a batch. B's done function learns the outcome of every row, in
 * order. Returns 0 or a sked code (the transaction is then to be rolled
 * back). */
int sked__sqlite_write_rows(sked__tx *c, const sked__sqlite_batch *b, size_t n,
                            sked_error *err);

/* The binding and reading helpers of the SQL's files: static
 * inline, so nothing leaks from libsked by these short names. */

/* Bind text T (NULL: SQL NULL) to parameter I; SQLITE_STATIC is safe since
 * every caller steps the statement before its strings go away. */
static inline int bind_text(sqlite3_stmt *s, int i, const char *t)
{
    return t ? sqlite3_bind_text(s, i, t, -1, SQLITE_STATIC)
             : sqlite3_bind_null(s, i);
}

/* Bind instant T (SKED_TIME_NONE: NULL) to parameter I. */
static inline int bind_time(sqlite3_stmt *s, int i, sked_time t)
{
    return t == SKED_TIME_NONE ? sqlite3_bind_null(s, i)
                               : sqlite3_bind_int64(s, i, t);
}

/* Copy text column I into *dst (NULL for SQL NULL); false on ENOMEM. */
static inline bool col_text(sqlite3_stmt *s, int i, char **dst)
{
    const unsigned char *t = sqlite3_column_text(s, i);

    if (!t) {
        *dst = NULL;
        return sqlite3_errcode(sqlite3_db_handle(s)) != SQLITE_NOMEM;
    }
    *dst = sked__strdup((const char *) t);
    return *dst != NULL;
}

/* Instant column I; SQL NULL is SKED_TIME_NONE. */
static inline sked_time col_time(sqlite3_stmt *s, int i)
{
    if (sqlite3_column_type(s, i) == SQLITE_NULL)
        return SKED_TIME_NONE;
    return sqlite3_column_int64(s, i);
}

#endif
