/* SPDX-License-Identifier: MIT */
/* The executor's writes on PostgreSQL (store_ops.h; store_run_ops.c
 * decides them): the fence that locks a batch's runs in id order, then
 * one statement per kind of row (the step attempts, the runs, the
 * schedules' consecutive failures), each a batch sent as arrays through
 * unnest(). The locking rules are pg_run.c's. */
#include "store/pg_run.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "model/step_fields.h"
#include "store/pg.h"

static const sked__pg_stmt FENCE = {
    SKED__PG_FENCE, 1,
    "SELECT " SKED__FENCE_COLUMNS ", ctid FROM runs "
    "WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE"};

#define STEPS_INSERT_SQL                                                       \
    "INSERT INTO steps (" SKED__STEP_WRITE_COLUMNS ") "                        \
    "SELECT * FROM unnest($1::text[], $2::text[], $3::integer[], "             \
    "$4::integer[], $5::text[], $6::text[], $7::text[], $8::integer[], "       \
    "$9::text[], $10::text[], $11::integer[], $12::bigint[], "                 \
    "$13::bigint[]) "

/* The attempts begun in the batch: a plain insert, which looks for a row
 * of the same key once, where ON CONFLICT looks, inserts and confirms. */
static const sked__pg_stmt STEPS_INSERT = {SKED__PG_STEPS_INSERT, 13,
                                           STEPS_INSERT_SQL};

static const sked__pg_stmt STEPS_WRITE = {SKED__PG_STEPS_WRITE, 13,
                                          STEPS_INSERT_SQL SKED__STEP_UPSERT};

/* The runs are found where the fence locked them ($11, their ctids),
 * without a search of the primary key; their ids are checked too. Only
 * a nested loop over the arrays can fetch rows by ctid: with a hash join
 * the planner reads the whole table, and it would choose one for a table
 * of some thousand runs (BY_TID around the statement). */
static const sked__pg_stmt RUNS_WRITE = {
    SKED__PG_RUNS_WRITE, 11,
    "UPDATE runs r SET status = coalesce(u.st, r.status), "
    "outcome = coalesce(u.oc, r.outcome), output = coalesce(u.out, r.output), "
    "error = coalesce(u.err, r.error), "
    "error_code = coalesce(u.code, r.error_code), "
    "not_before = coalesce(u.nb, r.not_before), "
    "finished_at = coalesce(u.fin, r.finished_at), "
    "timeout_exceeded_at = coalesce(u.mark, r.timeout_exceeded_at), "
    "executor = CASE WHEN u.st IS NULL THEN r.executor END, "
    "lease_until = CASE WHEN u.st IS NULL THEN r.lease_until END, "
    "updated_at = $10::bigint "
    "FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], "
    "$5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::bigint[], "
    "$11::tid[]) AS u(uid, st, oc, out, err, code, nb, fin, mark, t) "
    "WHERE r.ctid = u.t AND r.id = u.uid"};

static const sked__pg_stmt BY_TID = {
    SKED__PG_BY_TID, 0,
    "SELECT set_config('enable_hashjoin', 'off', true), "
    "set_config('enable_mergejoin', 'off', true)"};
static const sked__pg_stmt BY_ANY = {
    SKED__PG_BY_ANY, 0,
    "SELECT set_config('enable_hashjoin', 'on', true), "
    "set_config('enable_mergejoin', 'on', true)"};

static const sked__pg_stmt FAILURES = {
    SKED__PG_FAILURES, 1,
    "SELECT " SKED__FAILURES_COLUMNS
    " FROM schedules WHERE name = ANY($1::text[]) ORDER BY name FOR UPDATE"};

static const sked__pg_stmt FAILURES_SET = {
    SKED__PG_FAILURES_SET, 2,
    "UPDATE schedules s SET consecutive_failures = u.c "
    "FROM unnest($1::text[], $2::integer[]) AS u(n, c) "
    "WHERE s.name = u.n AND s.name = ANY($1::text[])"};

/* Fill OUT (N, in the order of the sorted IDS) from the rows of RES,
 * which come in the same order; ids not returned stay not found. */
static int fences_read(const PGresult *res, const char *const *ids, size_t n,
                       sked__fence *out, sked_error *err)
{
    sked__row r = {&sked__pg_row_driver, (void *) res, 0};
    int rows = PQntuples(res), rc = 0;

    for (size_t i = 0; rc == 0 && i < n && r.row < rows; i++) {
        if (strcmp(PQgetvalue(res, r.row, 0), ids[i]) != 0)
            continue;
        rc = sked__row_fence(&r, &out[i], err);
        r.row++;
    }
    return rc;
}

int sked__pg_run_fence(sked__tx *tx, const char *const *ids, size_t n,
                       sked__fence *out, sked_error *err)
{
    sked__pg_alit a = {0};
    const char *params[1];
    PGresult *res = NULL;
    int rc = 0;

    for (size_t i = 0; i < n; i++)
        sked__pg_alit_text(&a, ids[i], i == 0);
    if (sked__pg_alits_close(&a, 1, n, params))
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (rc == 0)
        rc = sked__pg_exec(tx, &FENCE, params, &res, err);
    if (rc == 0)
        rc = fences_read(res, ids, n, out, err);
    PQclear(res);
    free(a.p);
    return rc;
}

/* The arrays of a batch of step attempts: run_id, then the field of
 * column C (model/step_fields.h) at C + 1. */
enum { W_RUN, W_N = SKED__STEP_NCOLUMNS + 1 };
/* STEPS_INSERT_SQL casts each array: a new field adds its own there. */
_Static_assert(W_N == 13, "STEPS_INSERT_SQL takes 13 arrays");

/* The appending of one step field V to array A by its kind; FIRST: the
 * first element. */
#define ALIT_TEXT(a, v)        sked__pg_alit_text(a, v, first);
#define ALIT_BOOL(a, v)        sked__pg_alit_int(a, (v) ? 1 : 0, false, first);
#define ALIT_I32(a, v)         sked__pg_alit_int(a, v, false, first);
#define ALIT_STEP_STATUS(a, v) ALIT_TEXT(a, sked__step_status_name(v))
#define ALIT_FLAGS(a, v)       ALIT_I32(a, v)
#define ALIT_EXIT(a, v)        sked__pg_alit_int(a, v, (v) < 0, first);
#define ALIT_TIME(a, v)        sked__pg_alit_int(a, v, (v) == SKED_TIME_NONE, first);
#define ALIT_STEP(m, kind, col, json)                                          \
    ALIT_##kind(&a[SKED__STEP_COL_##m + 1], r->m)

/* Write the step attempts of W (N) whose fresh flag is FRESH with STMT. */
static int steps_write(sked__tx *tx, const sked__pg_stmt *stmt,
                       const sked__step_write *w, size_t n, bool fresh,
                       sked_error *err)
{
    sked__pg_alit a[W_N] = {{0}};
    const char *params[W_N];
    size_t k = 0;
    int rc = 0;

    for (size_t i = 0; i < n; i++) {
        const sked_step_record *r = w[i].rec;
        bool first = k == 0;
        if (w[i].fresh != fresh)
            continue;
        k++;
        sked__pg_alit_text(&a[W_RUN], w[i].run_id, first);
        SKED__STEP_FIELDS(ALIT_STEP, ALIT_STEP)
    }
    if (k == 0)
        return 0;
    if (sked__pg_alits_close(a, W_N, k, params))
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (rc == 0)
        rc = sked__pg_exec(tx, stmt, params, NULL, err);
    sked__pg_alits_free(a, W_N);
    return rc;
}

int sked__pg_run_steps_write(sked__tx *tx, const sked__step_write *w, size_t n,
                             sked_error *err)
{
    int rc = steps_write(tx, &STEPS_INSERT, w, n, true, err);

    /* A fresh attempt already stored: the retry of a lost commit. Again,
     * with the upsert (store_ops.h). */
    if (rc == SKED_ECONFLICT)
        rc = sked__error_set(err, SKED_EBUSY, NULL, -1,
                             "PostgreSQL: a step attempt begun in this batch "
                             "was already stored; writing the batch again");
    if (rc == 0)
        rc = steps_write(tx, &STEPS_WRITE, w, n, false, err);
    return rc;
}

enum { U_ID, U_ST, U_OC, U_OUT, U_ERR, U_CODE, U_NB, U_FIN, U_MARK, U_N };
#define U_TID (U_N + 1) /* after the time of the write */

int sked__pg_run_runs_write(sked__tx *tx, const sked__run_write *w, size_t n,
                            sked_time now, sked_error *err)
{
    sked__pg_alit a[U_N] = {{0}}, tids = {0};
    char nowbuf[SKED__PG_NUMLEN];
    const char *params[U_TID + 1];
    int rc = 0;

    for (size_t i = 0; i < n; i++) {
        bool first = i == 0;
        sked__pg_alit_text(&a[U_ID], w[i].id, first);
        sked__pg_alit_text(&a[U_ST], sked__pg_run_status(w[i].status), first);
        sked__pg_alit_text(&a[U_OC], sked__pg_run_status(w[i].outcome), first);
        sked__pg_alit_text(&a[U_OUT], w[i].output, first);
        sked__pg_alit_text(&a[U_ERR], w[i].error, first);
        sked__pg_alit_text(&a[U_CODE], w[i].error_code, first);
        sked__pg_alit_int(&a[U_NB], w[i].not_before,
                          w[i].not_before == SKED_TIME_NONE, first);
        sked__pg_alit_int(&a[U_FIN], w[i].finished_at,
                          w[i].finished_at == SKED_TIME_NONE, first);
        sked__pg_alit_int(&a[U_MARK], w[i].timeout_exceeded_at,
                          w[i].timeout_exceeded_at == SKED_TIME_NONE, first);
        sked__pg_alit_text(&tids, w[i].tid, first);
    }
    if (sked__pg_alits_close(a, U_N, n, params) ||
        sked__pg_alits_close(&tids, 1, n, &params[U_TID]))
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    params[U_N] = sked__pg_num(now, nowbuf);
    if (rc == 0)
        rc = sked__pg_exec(tx, &BY_TID, NULL, NULL, err);
    if (rc == 0)
        rc = sked__pg_exec(tx, &RUNS_WRITE, params, NULL, err);
    if (rc == 0)
        rc = sked__pg_exec(tx, &BY_ANY, NULL, NULL, err);
    sked__pg_alits_free(a, U_N);
    free(tids.p);
    return rc;
}

/* Fill F (N, sorted) from the rows of RES, in the same order. */
static void failures_read(const PGresult *res, sked__failures *f, size_t n)
{
    sked__row r = {&sked__pg_row_driver, (void *) res, 0};
    int rows = PQntuples(res);

    for (size_t i = 0; i < n; i++) {
        f[i].found = false;
        if (r.row >= rows || strcmp(PQgetvalue(res, r.row, 0), f[i].name) != 0)
            continue;
        sked__row_failures(&r, &f[i]);
        r.row++;
    }
}

int sked__pg_run_failures(sked__tx *tx, sked__failures *f, size_t n,
                          sked_error *err)
{
    sked__pg_alit a = {0};
    const char *params[1];
    PGresult *res = NULL;
    int rc = 0;

    for (size_t i = 0; i < n; i++)
        sked__pg_alit_text(&a, f[i].name, i == 0);
    if (sked__pg_alits_close(&a, 1, n, params))
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (rc == 0)
        rc = sked__pg_exec(tx, &FAILURES, params, &res, err);
    if (rc == 0)
        failures_read(res, f, n);
    PQclear(res);
    free(a.p);
    return rc;
}

int sked__pg_run_failures_set(sked__tx *tx, const sked__failures *f, size_t n,
                              sked_error *err)
{
    sked__pg_alit a[2] = {{0}};
    const char *params[2];
    int rc = 0;

    for (size_t i = 0; i < n; i++) {
        sked__pg_alit_text(&a[0], f[i].name, i == 0);
        sked__pg_alit_int(&a[1], f[i].count, false, i == 0);
    }
    if (sked__pg_alits_close(a, 2, n, params))
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (rc == 0)
        rc = sked__pg_exec(tx, &FAILURES_SET, params, NULL, err);
    sked__pg_alits_free(a, 2);
    return rc;
}
