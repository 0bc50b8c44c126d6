/* SPDX-License-Identifier: MIT */
/* Schedules on PostgreSQL (store_ops.h, schema: schema/pg/): their rows
 * (get, insert, update, delete, list) and the scheduler's reads and
 * writes of them: the heads it indexes, the rows of a firing locked FOR
 * UPDATE, and the compare-and-set that advances them past what fired.
 *
 * Every value travels as text, both ways. A schedule row maps to a
 * sked_schedule through the field table (model/schedule_fields.h), read
 * and written in SCHEDULE_COLS order: each field's stored value, an
 * integer or a text or NULL, is the model's; here it only becomes text.
 * The moves of a firing go as arrays through unnest(), in one
 * statement. */
#include "store/pg_schedule.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "store/pg.h"
#include "store/schedule_sql.h"
#include "store/store_row.h"

/* ---- schedules ---------------------------------------------------------*/

#define SCHEDULE_COLS SKED__SCHEDULE_COLUMNS

static const char *status_name(int v)
{
    return sked_schedule_status_name((sked_schedule_status) v);
}

static const sked__pg_stmt SCHEDULE_GET = {SKED__PG_SCHEDULE_GET, 1,
                                           "SELECT " SCHEDULE_COLS
                                           " FROM schedules WHERE name = $1"};

/* The insert, or the update of every column but created_at
 * (schedule_sql.h). */
static sked__pg_stmt write_stmt(bool update)
{
    return (sked__pg_stmt){
        update ? SKED__PG_SCHEDULE_UPDATE : SKED__PG_SCHEDULE_INSERT,
        sked__schedule_sql_params(update), sked__schedule_sql('$', update)};
}

static const sked__pg_stmt SCHEDULE_DELETE = {
    SKED__PG_SCHEDULE_DELETE, 1, "DELETE FROM schedules WHERE name = $1"};

/* NULL filters match everything; the prefix is literal (no LIKE). */
static const sked__pg_stmt SCHEDULE_LIST = {
    SKED__PG_SCHEDULE_LIST, 7,
    "SELECT " SCHEDULE_COLS " FROM schedules "
    "WHERE ($1::text IS NULL OR status = $1) "
    "AND ($2::text IS NULL OR source = $2) "
    "AND ($3::text IS NULL OR workflow = $3) "
    "AND ($4::text IS NULL OR starts_with(name, $4)) "
    "AND ($5::text IS NULL OR name > $5) "
    "AND ($7::text IS NULL OR app = $7) "
    "ORDER BY name LIMIT $6::bigint"};

#define NUMLEN SKED__PG_NUMLEN

/* A row of a result, read column by column (sked__schedule_col_fn). */
struct pg_row {
    const PGresult *res;
    int row;
};

static int col_value(void *ctx, int col, bool as_int, sked__sval *v)
{
    const struct pg_row *r = ctx;
    char *end;

    *v = (sked__sval){.type = SKED__SV_NULL};
    if (PQgetisnull(r->res, r->row, col))
        return 0;
    v->s = PQgetvalue(r->res, r->row, col);
    v->type = SKED__SV_TEXT;
    if (!as_int)
        return 0;
    errno = 0;
    v->type = SKED__SV_INT;
    v->i = strtoll(v->s, &end, 10);
    return errno != 0 || *end != '\0' ? SKED_EIO : 0;
}

/* Read row ROW of RES into *out (a schedule it initialises). */
static int row_to_schedule(const PGresult *res, int row, sked_schedule *out,
                           sked_error *err)
{
    struct pg_row r = {res, row};
    int col, rc = sked__schedule_read(col_value, &r, out, &col);

    if (rc == SKED_ENOMEM)
        return sked__error_set(err, rc, NULL, -1, NULL);
    if (rc < 0)
        return sked__error_set(err, SKED_EIO, NULL, -1,
                               "PostgreSQL: schedule %s: bad value in "
                               "column %d",
                               PQgetvalue(res, row, 0), col);
    return 0;
}

int sked__pg_schedule_get(sked__tx *tx, const char *name, sked_schedule *out,
                          sked_error *err)
{
    const char *params[1] = {name};
    PGresult *res;
    int rc;

    rc = sked__pg_exec(tx, &SCHEDULE_GET, params, &res, err);
    if (rc < 0)
        return rc;
    if (PQntuples(res) == 0)
        rc = sked__schedule_missing(name, err);
    else
        rc = row_to_schedule(res, 0, out, err);
    PQclear(res);
    return rc;
}

/* Run the insert or (UPDATE) the update of S. OUT: *affected, the rows
 * the command touched. */
static int schedule_write(sked__tx *tx, const sked_schedule *s, bool update,
                          int64_t *affected, sked_error *err)
{
    sked__pg_stmt stmt = write_stmt(update);
    sked__sval v[SKED__SF_COUNT];
    char nums[SKED__SF_COUNT][NUMLEN];
    const char *params[SKED__SF_COUNT];
    int n = sked__schedule_params(s, update, v), rc;
    PGresult *res;

    for (int k = 0; k < n; k++) {
        if (v[k].type == SKED__SV_INT)
            (void) snprintf(nums[k], NUMLEN, "%" PRId64, v[k].i);
        params[k] = v[k].type == SKED__SV_INT ? nums[k] : v[k].s;
    }
    rc = sked__pg_exec(tx, &stmt, params, &res, err);
    if (rc < 0)
        return rc;
    *affected = strtoll(PQcmdTuples(res), NULL, 10);
    PQclear(res);
    return 0;
}

int sked__pg_schedule_insert(sked__tx *tx, const sked_schedule *s,
                             sked_error *err)
{
    int64_t n;
    int rc = schedule_write(tx, s, false, &n, err);

    if (rc == SKED_ECONFLICT)
        return sked__schedule_taken(s->name, err);
    return rc;
}

int sked__pg_schedule_update(sked__tx *tx, const sked_schedule *s,
                             sked_error *err)
{
    int64_t n;
    int rc = schedule_write(tx, s, true, &n, err);

    if (rc == 0 && n == 0)
        return sked__schedule_missing(s->name, err);
    return rc;
}

int sked__pg_schedule_delete(sked__tx *tx, const char *name, bool *existed,
                             sked_error *err)
{
    const char *params[1] = {name};
    PGresult *res;
    int rc;

    rc = sked__pg_exec(tx, &SCHEDULE_DELETE, params, &res, err);
    if (rc < 0)
        return rc;
    if (existed != NULL)
        *existed = strcmp(PQcmdTuples(res), "0") != 0;
    PQclear(res);
    return 0;
}

/* Free the first N schedules of LIST and LIST (an error path's undo). */
static void free_schedules(sked_schedule *list, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        sked_schedule_done(&list[i]);
    free(list);
}

static int rows_to_schedules(const PGresult *res, sked_schedule **out,
                             size_t *n, sked_error *err)
{
    size_t i, rows = (size_t) PQntuples(res);
    sked_schedule *list = NULL;
    int rc;

    if (rows > 0) {
        list = sked__calloc(rows, sizeof(*list));
        if (list == NULL)
            return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    for (i = 0; i < rows; i++) {
        rc = row_to_schedule(res, (int) i, &list[i], err);
        if (rc < 0) {
            free_schedules(list, i);
            return rc;
        }
    }
    *out = list;
    *n = rows;
    return 0;
}

int sked__pg_schedule_list(sked__tx *tx, const sked__schedule_query *q,
                           sked_schedule **out, size_t *n, sked_error *err)
{
    char limit[NUMLEN];
    const char *params[7];
    PGresult *res;
    int rc;

    params[0] = q->status >= 0 ? status_name(q->status) : NULL;
    params[1] =
        q->source >= 0 ? sked_source_name((sked_source) q->source) : NULL;
    params[2] = q->workflow;
    params[3] = q->name_prefix;
    params[4] = q->after_name;
    (void) snprintf(limit, sizeof(limit), "%zu", q->limit);
    params[5] = limit;
    params[6] = q->app;
    rc = sked__pg_exec(tx, &SCHEDULE_LIST, params, &res, err);
    if (rc < 0)
        return rc;
    rc = rows_to_schedules(res, out, n, err);
    PQclear(res);
    return rc;
}

/* ---- the scheduler's reads and writes ----------------------------------*/

static const sked__pg_stmt SCHEDULE_HEADS = {
    SKED__PG_SCHEDULE_HEADS, 3,
    "SELECT name, status, next_fire_at, updated_at, cron, timezone, "
    "deadline_check_at FROM schedules WHERE ($1::bigint IS NULL OR updated_at >= $1::bigint) "
    "AND ($2::text IS NULL OR name > $2) ORDER BY name LIMIT $3::bigint"};

/* Row locks taken in name order, so overlapping batches cannot deadlock. */
static const sked__pg_stmt SCHEDULE_LOCK = {
    SKED__PG_SCHEDULE_LOCK, 1,
    "SELECT " SCHEDULE_COLS " FROM schedules WHERE name = ANY($1::text[]) "
    "ORDER BY name FOR UPDATE"};

/* The moves of a whole firing in one statement; a row whose
 * compare-and-set fails is not returned. */
static const sked__pg_stmt SCHEDULE_ADVANCE = {
    SKED__PG_SCHEDULE_ADVANCE, 8,
    "UPDATE schedules s SET last_fired_at = u.cursor, "
    "next_fire_at = u.next, status = u.status, "
    "runs_created = s.runs_created + u.added, "
    "last_error = coalesce(u.last_error, s.last_error), "
    "updated_at = coalesce(u.updated_at, s.updated_at) "
    "FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], "
    "$5::bigint[], $6::text[], $7::bigint[], $8::bigint[]) "
    "AS u(name, cursor, next, status, added, last_error, updated_at, expect) "
    "WHERE s.name = u.name "
    "AND s.last_fired_at IS NOT DISTINCT FROM u.expect RETURNING s.name"};

/* Text of instant T into BUF, or NULL for NONE. */
static const char *time_param(sked_time t, char *buf)
{
    if (t == SKED_TIME_NONE)
        return NULL;
    (void) snprintf(buf, NUMLEN, "%" PRId64, t);
    return buf;
}

/* Copy the value of (ROW, COL) of RES into *dst; NULL stays NULL. */
static bool dup_value(const PGresult *res, int row, int col, char **dst)
{
    *dst = NULL;
    if (PQgetisnull(res, row, col))
        return true;
    *dst = sked__strdup(PQgetvalue(res, row, col));
    return *dst != NULL;
}

/* The instant at (ROW, COL) of RES; NONE for NULL. */
static sked_time head_time(const PGresult *res, int row, int col)
{
    return PQgetisnull(res, row, col)
               ? SKED_TIME_NONE
               : strtoll(PQgetvalue(res, row, col), NULL, 10);
}

/* Read row ROW of the heads query RES into *h. */
static int row_to_head(const PGresult *res, int row, sked_schedule_head *h)
{
    int st = SKED_SCHEDULE_DISABLED;

    memset(h, 0, sizeof(*h));
    if (!dup_value(res, row, 0, &h->name) ||
        !dup_value(res, row, 4, &h->cron) ||
        !dup_value(res, row, 5, &h->timezone))
        return SKED_ENOMEM;
    for (int i = 0; i < 4; i++)
        if (strcmp(status_name(i), PQgetvalue(res, row, 1)) == 0)
            st = i;
    h->status = (sked_schedule_status) st;
    h->next_fire_at = head_time(res, row, 2);
    h->updated_at = head_time(res, row, 3);
    h->deadline_check_at = head_time(res, row, 6);
    return 0;
}

int sked__pg_schedule_heads(sked__tx *tx, sked_time since,
                            const char *after_name, size_t limit,
                            sked_schedule_head **out, size_t *n,
                            sked_error *err)
{
    char sincebuf[NUMLEN], lim[NUMLEN];
    const char *params[3] = {time_param(since, sincebuf), after_name, lim};
    sked_schedule_head *list;
    size_t i, rows;
    PGresult *res;
    int rc;

    (void) snprintf(lim, sizeof(lim), "%zu", limit);
    rc = sked__pg_exec(tx, &SCHEDULE_HEADS, params, &res, err);
    if (rc < 0)
        return rc;
    rows = (size_t) PQntuples(res);
    list = sked__calloc(rows ? rows : 1, sizeof(*list));
    for (i = 0; list != NULL && i < rows && rc == 0; i++)
        rc = row_to_head(res, (int) i, &list[i]);
    PQclear(res);
    if (list == NULL || rc < 0) {
        sked__schedule_heads_free(list, list ? i : 0);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    *out = list;
    *n = rows;
    return 0;
}

/* Build the text-array literal of the N strings V into *a. */
static void strings_to_array(const char *const *v, size_t n, sked__pg_alit *a)
{
    for (size_t i = 0; i < n; i++)
        sked__pg_alit_text(a, v[i], i == 0);
    if (n == 0)
        sked__pg_alit_put(a, "{", 1);
    sked__pg_alit_put(a, "}", 1);
}

int sked__pg_schedule_lock(sked__tx *tx, const char *const *names, size_t n,
                           sked_schedule **out, size_t *nout, sked_error *err)
{
    sked__pg_alit a = {0};
    PGresult *res;
    int rc;

    strings_to_array(names, n, &a);
    rc = sked__pg_alit_exec(tx, &SCHEDULE_LOCK, &a, &res, err);
    if (rc < 0)
        return rc;
    *out = NULL;
    *nout = 0;
    rc = rows_to_schedules(res, out, nout, err);
    PQclear(res);
    return rc;
}

enum { A_NAME, A_CUR, A_NEXT, A_STATUS, A_ADDED, A_ERR, A_UPD, A_EXP, A_N };

/* Build the eight array literals of the N moves A into L. */
static void advances_to_arrays(const sked__advance *a, size_t n,
                               sked__pg_alit *l)
{
    for (size_t i = 0; i < n; i++) {
        bool first = i == 0;
        sked__pg_alit_text(&l[A_NAME], a[i].name, first);
        sked__pg_alit_int(&l[A_CUR], a[i].cursor, a[i].cursor == SKED_TIME_NONE,
                          first);
        sked__pg_alit_int(&l[A_NEXT], a[i].next, a[i].next == SKED_TIME_NONE,
                          first);
        sked__pg_alit_text(&l[A_STATUS], status_name((int) a[i].status), first);
        sked__pg_alit_int(&l[A_ADDED], a[i].added, false, first);
        sked__pg_alit_text(&l[A_ERR], a[i].last_error, first);
        sked__pg_alit_int(&l[A_UPD], a[i].updated_at,
                          a[i].updated_at == SKED_TIME_NONE, first);
        sked__pg_alit_int(&l[A_EXP], a[i].expect, a[i].expect == SKED_TIME_NONE,
                          first);
    }
    for (int k = 0; k < A_N; k++)
        sked__pg_alit_put(&l[k], n == 0 ? "{}" : "}", n == 0 ? 2 : 1);
}

/* Mark in APPLIED the moves whose names RES returns. */
static void mark_applied(const PGresult *res, const sked__advance *a, size_t n,
                         bool *applied)
{
    size_t rows = (size_t) PQntuples(res);

    for (size_t i = 0; i < n; i++)
        applied[i] = rows == n; /* names are distinct: every row moved */
    for (size_t r = 0; rows != n && r < rows; r++) {
        const char *name = PQgetvalue(res, (int) r, 0);
        for (size_t i = 0; i < n; i++)
            if (!applied[i] && strcmp(name, a[i].name) == 0) {
                applied[i] = true;
                break;
            }
    }
}

int sked__pg_schedule_advance(sked__tx *tx, const sked__advance *a, size_t n,
                              bool *applied, sked_error *err)
{
    sked__pg_alit l[A_N] = {{0}};
    const char *params[A_N];
    PGresult *res = NULL;
    int rc = 0;

    if (n == 0)
        return 0;
    advances_to_arrays(a, n, l);
    for (int k = 0; k < A_N; k++) {
        params[k] = l[k].p;
        if (l[k].failed)
            rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    if (rc == 0)
        rc = sked__pg_exec(tx, &SCHEDULE_ADVANCE, params, &res, err);
    for (int k = 0; k < A_N; k++)
        free(l[k].p);
    if (rc < 0)
        return rc;
    mark_applied(res, a, n, applied);
    PQclear(res);
    return 0;
}

static const sked__pg_stmt SCHEDULES_FRESH = {
    SKED__PG_SCHEDULES_FRESH, 0,
    SKED__SCHEDULE_FRESH_SQL("ORDER BY s.name COLLATE \"C\"")};

int sked__pg_schedules_fresh(sked__tx *tx, sked_schedule_fresh **out, size_t *n,
                             sked_error *err)
{
    return sked__pg_query_rows(tx, &SCHEDULES_FRESH, NULL,
                               &sked__row_schedule_fresh, (void **) out, n,
                               err);
}
