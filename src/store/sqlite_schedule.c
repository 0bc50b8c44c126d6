/* SPDX-License-Identifier: MIT */
/* Schedules on SQLite (store_ops.h): their rows (get, insert, update,
 * delete, list) and the scheduler's reads and writes of them: the heads
 * it indexes, the rows of a firing locked, and the compare-and-set that
 * advances a schedule past the occurrences it fired.
 *
 * A schedule row is bound and read through the field table, in
 * SKED__SCHEDULE_COLUMNS order (schedule_sql.h); its enumerations are
 * stored as their API words. BEGIN IMMEDIATE already
 * serialises every writer, so "locking" rows is reading them. A firing's
 * reads and cursor moves go SKED__SQLITE_BATCH schedules to a statement
 * (sqlite.h, "batches"). The statements are cached per connection by
 * sqlite.c. */
#include "store/sqlite_schedule.h"

#include <stdlib.h>

#include "base/alloc.h"
#include "base/error.h"
#include "store/schedule_sql.h"
#include "store/store_row.h"
#include "store/sqlite.h"

enum sched_stmt {
    S_SCHED_GET,
    S_SCHED_INSERT,
    S_SCHED_UPDATE,
    S_SCHED_DELETE,
    S_SCHED_LIST,
    S_HEADS,
    S_HEADS_SINCE,
    S_HEADS_FEW,
    S_HEADS_COUNT,
    S_ADVANCE,
    S_ADVANCE_MANY,
    S_MOVE,
    S_MOVE_MANY,
    S_LOCK_MANY,
    S_FRESH,
    S_COUNT
};

/* The columns of schedules, in the order sched_bind and sched_read use. */
#define SCHED_COLS SKED__SCHEDULE_COLUMNS

/* A schedule's cursor move: the parameters of one row of VALUES, which
 * ADVANCE reads as v.column1 to v.column8 (advance_bind's order). */
#define ADVANCE_ROW "(?, ?, ?, ?, ?, ?, ?, ?)"

/* Move the cursors of ROWS (ADVANCE_ROW, once or more), each a
 * compare-and-set on last_fired_at; MORE: more columns to set. */
#define MOVE(rows, more)                                                       \
    "UPDATE schedules SET last_fired_at = v.column2, "                         \
    "next_fire_at = v.column3, status = v.column4, "                           \
    "runs_created = runs_created + v.column5" more " FROM (VALUES " rows       \
    ") AS v WHERE name = v.column1 AND last_fired_at IS v.column8"

/* The same, setting last_error and updated_at too (a schedule disabled).
 * A plain move leaves them out: naming updated_at, even to keep its
 * value, makes SQLite rewrite the row's schedules_updated entry. */
#define ADVANCE(rows)                                                          \
    MOVE(rows, ", last_error = coalesce(v.column6, last_error), "              \
               "updated_at = coalesce(v.column7, updated_at)")

static const char *const sched_sql[S_COUNT] = {
    [S_SCHED_GET] = "SELECT " SCHED_COLS " FROM schedules WHERE name = ?1",
    /* S_SCHED_INSERT, S_SCHED_UPDATE: schedule_sql.h. */
    [S_SCHED_DELETE] = "DELETE FROM schedules WHERE name = ?1",
    [S_SCHED_LIST] =
        "SELECT " SCHED_COLS " FROM schedules "
        "WHERE (?1 IS NULL OR status = ?1) AND (?2 IS NULL OR source = ?2) "
        "AND (?3 IS NULL OR workflow = ?3) "
        "AND (?4 IS NULL OR (name >= ?4 AND substr(name, 1, length(?4)) = ?4)) "
        "AND (?5 IS NULL OR name > ?5) AND (?7 IS NULL OR app = ?7) "
        "ORDER BY name LIMIT ?6",
    /* The heads, three ways, so that each can seek. Written as one
     * statement with "?1 IS NULL OR ..." SQLite scanned the name index
     * from its start on every page (reading 1M schedules took 8 s) and
     * on every reread of changes. All of them, by name: */
    [S_HEADS] = "SELECT name, status, next_fire_at, updated_at, cron, "
                "timezone, deadline_check_at FROM schedules "
                "WHERE name > coalesce(?2, '') ORDER BY name LIMIT ?3",
    /* Changed since ?1, many of them: by name, filtered (linear over the
     * pages of one scan). */
    [S_HEADS_SINCE] = "SELECT name, status, next_fire_at, updated_at, cron, "
                      "timezone, deadline_check_at FROM schedules "
                      "WHERE updated_at >= ?1 AND name > coalesce(?2, '') "
                      "ORDER BY name LIMIT ?3",
    /* Changed since ?1, at most a page of them (the usual reread): found
     * by updated_at, then sorted. */
    [S_HEADS_FEW] = "SELECT name, status, next_fire_at, updated_at, cron, "
                    "timezone, deadline_check_at FROM schedules "
                    "INDEXED BY schedules_updated "
                    "WHERE updated_at >= ?1 AND name > coalesce(?2, '') "
                    "ORDER BY name LIMIT ?3",
    /* How many changed since ?1, counting at most ?2 (index only). */
    [S_HEADS_COUNT] = "SELECT count(*) FROM (SELECT 1 FROM schedules "
                      "INDEXED BY schedules_updated WHERE updated_at >= ?1 "
                      "LIMIT ?2)",
    [S_ADVANCE] = ADVANCE(ADVANCE_ROW),
    [S_ADVANCE_MANY] = ADVANCE(SKED__SQLITE_ROWS32(ADVANCE_ROW)),
    [S_MOVE] = MOVE(ADVANCE_ROW, ""),
    [S_MOVE_MANY] = MOVE(SKED__SQLITE_ROWS32(ADVANCE_ROW), ""),
    [S_LOCK_MANY] = "SELECT " SCHED_COLS " FROM schedules WHERE name IN "
                    "(" SKED__SQLITE_ROWS32("?") ")",
    [S_FRESH] = SKED__SCHEDULE_FRESH_SQL("ORDER BY s.name"),
};

/* Return the cached statement ID of C in *out. */
static int stmt(sked__tx *c, enum sched_stmt id, sqlite3_stmt **out,
                sked_error *err)
{
    const char *sql = id == S_SCHED_INSERT   ? sked__schedule_sql('?', false)
                      : id == S_SCHED_UPDATE ? sked__schedule_sql('?', true)
                                             : sched_sql[id];

    return sked__sqlite_stmt(c, sql, out, err);
}

/* ---- schedules --------------------------------------------------------- */

/* Bind the parameters of R an insert or (UPDATE) an update takes, in
 * SCHED_COLS order; 0 or an SQLite code. */
static int sched_bind(sqlite3_stmt *s, const sked_schedule *r, bool update)
{
    sked__sval v[SKED__SF_COUNT];
    int n = sked__schedule_params(r, update, v), rc = 0;

    for (int k = 0; k < n; k++)
        rc |= v[k].type == SKED__SV_INT ? sqlite3_bind_int64(s, k + 1, v[k].i)
                                        : bind_text(s, k + 1, v[k].s);
    return rc;
}

/* Read column COL of the current row of the statement CTX into *v
 * (sked__schedule_col_fn). */
static int col_value(void *ctx, int col, bool as_int, sked__sval *v)
{
    sqlite3_stmt *s = ctx;

    *v = (sked__sval){.type = SKED__SV_NULL};
    if (sqlite3_column_type(s, col) == SQLITE_NULL)
        return 0;
    if (as_int) {
        *v = (sked__sval){.type = SKED__SV_INT,
                          .i = sqlite3_column_int64(s, col)};
        return 0;
    }
    if (!(v->s = (const char *) sqlite3_column_text(s, col)))
        return SKED_ENOMEM;
    v->type = SKED__SV_TEXT;
    return 0;
}

/* Read the current row of S (SCHED_COLS) into ROW, a sked_schedule. */
static int sched_read(sked__tx *c, sqlite3_stmt *s, void *row, sked_error *err)
{
    int col, rc = sked__schedule_read(col_value, s, row, &col);

    if (rc == SKED_ENOMEM)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (rc != 0)
        return sked__error_set(err, SKED_EIO, "db", -1,
                               "%.100s: schedule with an unknown enum value",
                               sked__sqlite_path(c));
    return 0;
}

int sked__sqlite_schedule_get(sked__tx *c, const char *name, sked_schedule *out,
                              sked_error *err)
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
        rc = sked__schedule_missing(name, err);
    else
        rc = sked__sqlite_fail(c, rc, "reading a schedule", err);
    sked__sqlite_done(s);
    return rc;
}

/* Run the insert or update statement ID for R. */
static int sched_write(sked__tx *c, enum sched_stmt id, const sked_schedule *r,
                       sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, id, &s, err);

    if (rc == 0)
        rc = sked__sqlite_exec(c, s, sched_bind(s, r, id == S_SCHED_UPDATE),
                               "writing a schedule", err);
    if (rc != 0)
        return rc;
    if (id == S_SCHED_UPDATE && sqlite3_changes(sked__sqlite_db(c)) == 0)
        return sked__schedule_missing(r->name, err);
    return 0;
}

int sked__sqlite_schedule_insert(sked__tx *c, const sked_schedule *r,
                                 sked_error *err)
{
    int rc = sched_write(c, S_SCHED_INSERT, r, err);

    if (rc == SKED_ECONFLICT)
        return sked__schedule_taken(r->name, err);
    return rc;
}

int sked__sqlite_schedule_update(sked__tx *c, const sked_schedule *r,
                                 sked_error *err)
{
    return sched_write(c, S_SCHED_UPDATE, r, err);
}

int sked__sqlite_schedule_delete(sked__tx *c, const char *name, bool *existed,
                                 sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, S_SCHED_DELETE, &s, err);

    if (rc == 0)
        rc = sked__sqlite_exec(c, s, bind_text(s, 1, name),
                               "deleting a schedule", err);
    if (rc != 0)
        return rc;
    *existed = sqlite3_changes(sked__sqlite_db(c)) > 0;
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
    rc |= bind_text(s, 7, q->app);
    return rc;
}

int sked__sqlite_schedule_list(sked__tx *c, const sked__schedule_query *q,
                               sked_schedule **out, size_t *n, sked_error *err)
{
    sked__sqlite_list l = {.size = sizeof(sked_schedule),
                           .read = sched_read,
                           .what = "listing schedules"};
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, S_SCHED_LIST, &s, err);

    if (rc != 0)
        return rc;
    if (list_bind(s, q) != SQLITE_OK)
        return sked__sqlite_exec(c, s, SQLITE_ERROR, l.what, err);
    rc = sked__sqlite_collect(c, s, &l, err);
    if (rc != 0)
        sked__schedules_free(l.v, l.n);
    else
        *out = l.v, *n = l.n;
    return rc;
}

/* ---- the scheduler's reads and writes ---------------------------------- */

/* Parse the enum word of column I with PARSE into *v; -1 when unknown. */
#define COL_ENUM(parse, s, i, v)                                               \
    (parse((const char *) sqlite3_column_text(s, i), "", v, NULL) == 0)

/* Read the current row of the heads statement S into ROW, a zeroed
 * sked_schedule_head. */
static int head_read(sked__tx *c, sqlite3_stmt *s, void *row, sked_error *err)
{
    sked_schedule_head *h = row;

    (void) c;
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
    h->deadline_check_at = col_time(s, 6);
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
    sked__sqlite_done(s);
    if (rc != SQLITE_ROW)
        return sked__sqlite_fail(c, rc, "counting changed schedules", err);
    return stmt(c,
                changed <= (sqlite3_int64) limit ? S_HEADS_FEW : S_HEADS_SINCE,
                out, err);
}

int sked__sqlite_schedule_heads(sked__tx *c, sked_time since,
                                const char *after_name, size_t limit,
                                sked_schedule_head **out, size_t *n,
                                sked_error *err)
{
    sked__sqlite_list l = {.size = sizeof(sked_schedule_head),
                           .read = head_read,
                           .what = "listing schedules"};
    sqlite3_stmt *s = NULL;
    int rc = heads_stmt(c, since, limit, &s, err);

    if (rc != 0)
        return rc;
    bind_time(s, 1, since);
    bind_text(s, 2, after_name);
    sqlite3_bind_int64(s, 3, (sqlite3_int64) limit);
    rc = sked__sqlite_collect(c, s, &l, err);
    if (rc != 0)
        sked__schedule_heads_free(l.v, l.n);
    else
        *out = l.v, *n = l.n;
    return rc;
}

/* Append to L the schedules S reads, once its parameters are bound
 * (BOUND: the bind calls' codes or-ed together). */
static int read_locked(sked__tx *c, sqlite3_stmt *s, int bound,
                       sked__sqlite_list *l, sked_error *err)
{
    if (bound != SQLITE_OK) {
        sked__sqlite_done(s);
        return sked__sqlite_fail(c, bound, "reading schedules", err);
    }
    return sked__sqlite_collect(c, s, l, err);
}

/* BEGIN IMMEDIATE took the write lock: the rows cannot move. They are
 * read SKED__SQLITE_BATCH names to a statement; a name without a row is
 * left out. */
int sked__sqlite_schedule_lock(sked__tx *c, const char *const *names, size_t n,
                               sked_schedule **out, size_t *nout,
                               sked_error *err)
{
    sked__sqlite_list l = {.size = sizeof(sked_schedule),
                           .read = sched_read,
                           .what = "reading schedules"};
    size_t i = 0;
    int rc = 0;

    while (rc == 0 && i < n) {
        size_t k = sked__sqlite_chunk(n - i);
        sqlite3_stmt *s = NULL;
        int bound = SQLITE_OK;
        rc = stmt(c, k > 1 ? S_LOCK_MANY : S_SCHED_GET, &s, err);
        for (size_t j = 0; rc == 0 && j < k; j++)
            bound |= bind_text(s, (int) j + 1, names[i + j]);
        if (rc == 0)
            rc = read_locked(c, s, bound, &l, err);
        i += k;
    }
    if (rc != 0) {
        sked__schedules_free(l.v, l.n);
        return rc;
    }
    *out = l.v;
    *nout = l.n;
    return 0;
}

/* Some cursor moves of an advance (those of IDX, in order) and which of
 * them held. */
struct advance_rows {
    const sked__advance *a;
    bool *applied;
    const size_t *idx; /* the moves' indexes in a */
};

/* Bind cursor move I of CTX (a struct advance_rows) to S from parameter
 * BASE + 1. */
static int advance_bind(sqlite3_stmt *s, int base, size_t i, const void *ctx)
{
    const struct advance_rows *rows = ctx;
    const sked__advance *a = &rows->a[rows->idx[i]];

    return bind_text(s, base + 1, a->name) | bind_time(s, base + 2, a->cursor) |
           bind_time(s, base + 3, a->next) |
           bind_text(s, base + 4, sked_schedule_status_name(a->status)) |
           sqlite3_bind_int64(s, base + 5, a->added) |
           bind_text(s, base + 6, a->last_error) |
           bind_time(s, base + 7, a->updated_at) |
           bind_time(s, base + 8, a->expect);
}

static int advance_done(sked__tx *c, size_t i, bool changed, void *ctx,
                        sked_error *err)
{
    struct advance_rows *rows = ctx;

    (void) c;
    (void) err;
    rows->applied[rows->idx[i]] = changed;
    return 0;
}

/* The plain moves first, then those that also set last_error or
 * updated_at (disables), each kind by its own statement. */
int sked__sqlite_schedule_advance(sked__tx *c, const sked__advance *a, size_t n,
                                  bool *applied, sked_error *err)
{
    size_t *idx = sked__malloc((n ? n : 1) * sizeof *idx), moves = 0, k = n;
    struct advance_rows rows = {a, applied, idx};
    sked__sqlite_batch b = {.one = sched_sql[S_MOVE],
                            .many = sched_sql[S_MOVE_MANY],
                            .params = 8,
                            .bind = advance_bind,
                            .done = advance_done,
                            .ctx = &rows,
                            .what = "advancing schedules"};
    int rc;

    if (!idx)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    for (size_t i = 0; i < n; i++) {
        if (!a[i].last_error && a[i].updated_at == SKED_TIME_NONE)
            idx[moves++] = i;
        else
            idx[--k] = i;
    }
    rc = sked__sqlite_write_rows(c, &b, moves, err);
    if (rc == 0 && moves < n) {
        rows.idx = idx + moves;
        b.one = sched_sql[S_ADVANCE];
        b.many = sched_sql[S_ADVANCE_MANY];
        rc = sked__sqlite_write_rows(c, &b, n - moves, err);
    }
    free(idx);
    return rc;
}

int sked__sqlite_schedules_fresh(sked__tx *c, sked_schedule_fresh **out,
                                 size_t *n, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, S_FRESH, &s, err);

    if (rc != 0)
        return rc;
    return sked__sqlite_rows(c, s, &sked__row_schedule_fresh,
                             "reading the schedules' last runs", (void **) out,
                             n, err);
}
