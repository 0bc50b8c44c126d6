/* SPDX-License-Identifier: MIT */
/* The SQL of execution on PostgreSQL (store_ops.h, schema 0003):
 * claiming, leases, cancel and reading runs (the executor's writes:
 * pg_run_ops.c; queues and workflow versions: pg_queue.c).
 *
 * Every batch is one statement, its columns sent as arrays through
 * unnest() (one round trip whatever its size). Locks, at READ COMMITTED:
 * - a claim locks the queue rows with a limit first, in name order, and
 *   counts their load in a second statement (its snapshot is taken after
 *   the lock, so it sees the claims committed before); then it reads its
 *   candidate runs FOR UPDATE SKIP LOCKED, which never waits, so no lock
 *   order can deadlock it;
 * - every other write locks the runs it touches in id order (the fence of
 *   the executor's batch, renewal, release, cancel), so two of them wait
 *   for each other but cannot deadlock; a schedule row is locked after its
 *   runs (counting failures), the one order the firing transaction takes
 *   the other way round (a cancel_other firing): PostgreSQL detects that
 *   rare deadlock and the store retries the transaction.
 * A batch joined to its table by unnest() also names its keys with
 * "= ANY(...)": the planner then reaches the rows through the primary
 * key whatever it guesses of the array's length, never by a scan of the
 * whole (growing) table. Values travel as text both ways. */
#include "store/pg_run.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "store/pg.h"

#define ACTIVE "('pending', 'running', 'waiting')"
/* The version routing of a claim: $2 the workflows whose latest version
 * the executor has, $3 its "workflow/version" keys. */
#define ROUTED                                                                 \
    "CASE WHEN workflow_version IS NULL THEN workflow = ANY($2::text[]) "      \
    "ELSE (workflow || '/' || workflow_version) = ANY($3::text[]) END"
/* Lock the runs of executor $1 in id order. */
#define OWNED_LOCKED                                                           \
    "id IN (SELECT id FROM runs WHERE executor = $1 "                          \
    "AND status = 'running' ORDER BY id FOR UPDATE)"

/* The ready runs r at $1 that the executor may run: a serial run goes
 * only as the first active run of its key, with none of the key running
 * (two index seeks: runs_serial, runs_serial_running). */
#define READY                                                                  \
    "status IN ('pending', 'waiting') AND not_before <= $1::bigint "           \
    "AND " ROUTED " "                                                          \
    "AND (serial_key IS NULL OR (NOT EXISTS (SELECT 1 FROM runs o "            \
    "WHERE o.serial_key = r.serial_key AND o.status = 'running') "             \
    "AND (SELECT o.id FROM runs o WHERE o.serial_key = r.serial_key "          \
    "AND o.status IN " ACTIVE " "                                              \
    "ORDER BY coalesce(o.scheduled_for, o.created_at), o.id LIMIT 1) "         \
    "= r.id)) "
#define CLAIM_ORDER "ORDER BY priority, not_before, created_at, id "

static const sked__pg_stmt CAND_READY = {
    SKED__PG_CAND_READY, 5,
    "SELECT " SKED__CAND_COLUMNS " FROM runs r WHERE " READY
    "AND NOT (queue = ANY($4::text[])) " CLAIM_ORDER "LIMIT $5::bigint "
    "FOR UPDATE SKIP LOCKED"};

/* Around the one query that reads ready runs: read them in the order of
 * runs_ready and stop at the limit. With the statistics behind a burst of
 * new runs (autovacuum has not analysed them yet), the planner would
 * read and sort every pending run at every claim instead. */
static const sked__pg_stmt CAND_ORDERED = {
    SKED__PG_CAND_ORDERED, 0,
    "SELECT set_config('enable_sort', 'off', true), "
    "set_config('enable_bitmapscan', 'off', true)"};
static const sked__pg_stmt CAND_PLAIN = {
    SKED__PG_CAND_PLAIN, 0,
    "SELECT set_config('enable_sort', 'on', true), "
    "set_config('enable_bitmapscan', 'on', true)"};

static const sked__pg_stmt CAND_EXPIRED = {
    SKED__PG_CAND_EXPIRED, 5,
    "SELECT " SKED__CAND_COLUMNS " FROM runs "
    "WHERE status = 'running' AND lease_until < $1::bigint AND " ROUTED
    " AND NOT (id = ANY($5::text[])) " CLAIM_ORDER "LIMIT $4::bigint "
    "FOR UPDATE SKIP LOCKED"};

/* Take the runs; a run started now in a queue with a rate limit is a
 * start that queue counts (queue_starts, schema/pg/0005_run_rate.sql). */
static const sked__pg_stmt TAKE = {
    SKED__PG_TAKE, 5,
    "WITH taken AS (UPDATE runs r SET status = 'running', executor = $1, "
    "lease_until = $2::bigint, started_at = coalesce(r.started_at, "
    "$3::bigint), attempts = r.attempts + 1, "
    "workflow_version = coalesce(r.workflow_version, u.v), "
    "updated_at = $3::bigint "
    "FROM unnest($4::text[], $5::text[]) AS u(uid, v) "
    "WHERE r.id = u.uid AND r.id = ANY($4::text[]) "
    "RETURNING " SKED__RUN_COLUMNS "), "
    "starts AS (INSERT INTO queue_starts (queue, started_at) "
    "SELECT t.queue, t.started_at FROM taken t "
    "JOIN queues q ON q.name = t.queue COLLATE \"C\" "
    "WHERE t.started_at = $3::bigint AND q.rate_limit IS NOT NULL "
    "AND q.rate_period_us IS NOT NULL) "
    "SELECT " SKED__RUN_COLUMNS " FROM taken"};

/* Take the first $4 ready runs in one statement, when no queue has a
 * limit (then no start is counted either): the candidates are locked
 * and updated where they lie (their ctid), without their ids going to
 * the client and back. The run's version, when it had none, is the one
 * the executor has latest ($7, beside the names $2). The last column
 * tells whether this is the run's first start. */
static const sked__pg_stmt TAKE_READY = {
    SKED__PG_TAKE_READY, 7,
    "WITH c AS (SELECT ctid AS tid, started_at IS NULL AS first "
    "FROM runs r WHERE " READY CLAIM_ORDER "LIMIT $4::bigint "
    "FOR UPDATE SKIP LOCKED) "
    "UPDATE runs r SET status = 'running', executor = $5, "
    "lease_until = $6::bigint, started_at = coalesce(r.started_at, "
    "$1::bigint), attempts = r.attempts + 1, "
    "workflow_version = coalesce(r.workflow_version, "
    "($7::text[])[array_position($2::text[], r.workflow)]), "
    "updated_at = $1::bigint FROM c WHERE r.ctid = c.tid "
    "RETURNING " SKED__RUN_COLUMNS ", c.first"};

static const sked__pg_stmt STEPS_CLOSE = {
    SKED__PG_STEPS_CLOSE, 5,
    "UPDATE steps s SET status = $3, error_code = $4, error = u.err, "
    "finished_at = $5::bigint "
    "FROM unnest($1::text[], $2::text[]) AS u(rid, err) "
    "WHERE s.run_id = u.rid AND s.run_id = ANY($1::text[]) "
    "AND s.status = 'running'"};

static const sked__pg_stmt RENEW = {
    SKED__PG_RENEW, 3,
    "UPDATE runs SET lease_until = $2::bigint WHERE id IN (SELECT id FROM "
    "runs WHERE id = ANY($3::text[]) AND executor = $1 "
    "AND status = 'running' ORDER BY id FOR UPDATE) "
    "RETURNING id, (cancel_requested_at IS NOT NULL)::integer"};

static const sked__pg_stmt RELEASE_STEPS = {
    SKED__PG_RELEASE_STEPS, 3,
    "UPDATE steps SET status = 'cancelled', error_code = 'interrupted', "
    "error = $2, finished_at = $3::bigint WHERE status = 'running' "
    "AND run_id IN (SELECT id FROM runs WHERE executor = $1 "
    "AND status = 'running' ORDER BY id FOR UPDATE)"};

static const sked__pg_stmt RELEASE_RUNS = {
    SKED__PG_RELEASE_RUNS, 2,
    "UPDATE runs SET status = CASE WHEN not_before > $2::bigint "
    "THEN 'waiting' ELSE 'pending' END, executor = NULL, "
    "lease_until = NULL, updated_at = $2::bigint WHERE " OWNED_LOCKED};

static const sked__pg_stmt RUN_GET = {SKED__PG_RUN_GET, 1,
                                      "SELECT " SKED__RUN_COLUMNS
                                      " FROM runs WHERE id = $1"};

static const sked__pg_stmt RUN_LOCK = {SKED__PG_RUN_LOCK, 1,
                                       "SELECT " SKED__RUN_COLUMNS
                                       " FROM runs WHERE id = $1 FOR UPDATE"};

static const sked__pg_stmt RUNS_OF_SCHEDULE = {
    SKED__PG_RUNS_OF_SCHEDULE, 1,
    "SELECT " SKED__RUN_COLUMNS " FROM runs WHERE schedule = $1 "
    "AND status IN " ACTIVE " ORDER BY id FOR UPDATE"};

static const sked__pg_stmt CANCEL_NOW = {
    SKED__PG_CANCEL_NOW, 3,
    "UPDATE runs SET status = 'cancelled', finished_at = $2::bigint, "
    "error = $3, error_code = 'cancelled', executor = NULL, "
    "lease_until = NULL, "
    "cancel_requested_at = coalesce(cancel_requested_at, $2::bigint), "
    "updated_at = $2::bigint WHERE id = $1"};

static const sked__pg_stmt CANCEL_ASK = {
    SKED__PG_CANCEL_ASK, 2,
    "UPDATE runs SET "
    "cancel_requested_at = coalesce(cancel_requested_at, $2::bigint), "
    "not_before = CASE WHEN status <> 'running' AND not_before > $2::bigint "
    "THEN $2::bigint ELSE not_before END, updated_at = $2::bigint "
    "WHERE id = $1"};

static const sked__pg_stmt STEPS_LIST = {
    SKED__PG_STEPS_LIST, 1,
    "SELECT " SKED__STEP_COLUMNS " FROM steps WHERE run_id = $1 "
    "ORDER BY started_at, step, compensation, attempt"};

/* A page of runs, newest first, those of schedule $2 by SCHEDULE. */
#define RUNS_LIST(schedule)                                                    \
    "SELECT " SKED__RUN_COLUMNS " FROM runs WHERE " schedule " "               \
    "AND ($1::text IS NULL OR status = $1) "                                   \
    "AND ($3::text IS NULL OR workflow = $3) "                                 \
    "AND ($5::text IS NULL OR created_at < $4::bigint "                        \
    "OR (created_at = $4::bigint AND id < $5)) "                               \
    "ORDER BY created_at DESC, id DESC LIMIT $6::bigint"

static const sked__pg_stmt RUNS_LIST = {
    SKED__PG_RUNS_LIST, 6, RUNS_LIST("($2::text IS NULL OR schedule = $2)")};

/* One schedule's runs: a generic plan walks runs_schedule (schedule,
 * created_at, id) backwards, which "$2 IS NULL OR" would hide. */
static const sked__pg_stmt RUNS_LIST_SCHEDULE = {SKED__PG_RUNS_LIST_SCHEDULE, 6,
                                                 RUNS_LIST("schedule = $2")};

/* ---- values --------------------------------------------------------------*/

const char *sked__pg_run_status(int s)
{
    return s < 0 ? NULL : sked__run_status_name((sked_run_status) s);
}

/* Text of instant T into BUF, or NULL for NONE. */
static const char *time_param(sked_time t, char *buf)
{
    return t == SKED_TIME_NONE ? NULL : sked__pg_num(t, buf);
}

/* Run STMT with PARAMS and read its rows, runs of KIND. */
static int query_runs(sked__tx *tx, const sked__pg_stmt *stmt,
                      const char *const *params, const sked__row_kind *kind,
                      sked_run **out, size_t *n, sked_error *err)
{
    return sked__pg_query_rows(tx, stmt, params, kind, (void **) out, n, err);
}

/* ---- claiming ------------------------------------------------------------ */

/* The array literals of a claim (sked__claim_lists), A_N of them in the
 * order of sked__claim_list, and how many elements each has so far. */
#define A_N SKED__CLAIM_NLISTS

typedef struct claim_alits {
    sked__pg_alit a[A_N];
    size_t n[A_N];
    const char *p[A_N]; /* the closed literals */
} claim_alits;

static bool list_add(void *ctx, sked__claim_list list, const char *s)
{
    claim_alits *c = ctx;

    sked__pg_alit_text(&c->a[list], s, c->n[list]++ == 0);
    return !c->a[list].failed;
}

/* Build C's literals from Q's lists. Returns 0 or SKED_ENOMEM. */
static int claim_arrays(const sked__claim_query *q, claim_alits *c,
                        sked_error *err)
{
    bool oom = sked__claim_lists(q, list_add, c, err) != 0;

    for (int k = 0; k < A_N; k++)
        oom = sked__pg_alits_close(&c->a[k], 1, c->n[k], &c->p[k]) || oom;
    return oom ? sked__nomem(err) : 0;
}

int sked__pg_run_candidates(sked__tx *tx, const sked__claim_query *q,
                            sked_run **out, size_t *n, sked_error *err)
{
    claim_alits a = {0};
    char nowbuf[SKED__PG_NUMLEN], limbuf[SKED__PG_NUMLEN];
    const char *params[5];
    int rc = claim_arrays(q, &a, err);

    params[0] = sked__pg_num(q->now, nowbuf);
    params[1] = a.p[SKED__CLAIM_LATEST];
    params[2] = a.p[SKED__CLAIM_KEYS];
    params[3] = q->expired ? sked__pg_num((int64_t) q->limit, limbuf)
                           : a.p[SKED__CLAIM_THIRD];
    params[4] = q->expired ? a.p[SKED__CLAIM_THIRD]
                           : sked__pg_num((int64_t) q->limit, limbuf);
    if (rc == 0 && !q->expired)
        rc = sked__pg_exec(tx, &CAND_ORDERED, NULL, NULL, err);
    if (rc == 0)
        rc = query_runs(tx, q->expired ? &CAND_EXPIRED : &CAND_READY, params,
                        &sked__row_cand, out, n, err);
    if (rc == 0 && !q->expired)
        rc = sked__pg_exec(tx, &CAND_PLAIN, NULL, NULL, err);
    sked__pg_alits_free(a.a, A_N);
    return rc;
}

/* Read the rows of TAKE_READY into *out, and their first-start flags
 * (the column after SKED__RUN_COLUMNS) into *first. */
static int taken_rows(const PGresult *res, sked_run **out, bool **first,
                      size_t *n, sked_error *err)
{
    int rc = sked__pg_rows(res, &sked__row_run, (void **) out, n, err);

    if (rc != 0)
        return rc;
    *first = sked__calloc(*n ? *n : 1, sizeof **first);
    if (!*first) {
        sked__runs_free(*out, *n);
        *out = NULL;
        *n = 0;
        return sked__nomem(err);
    }
    for (size_t k = 0; k < *n; k++)
        (*first)[k] = PQgetvalue(res, (int) k, SKED__RUN_NCOLUMNS)[0] == 't';
    return 0;
}

int sked__pg_run_take_ready(sked__tx *tx, const sked__claim_query *q,
                            const sked__claim_set *set, sked_run **out,
                            bool **first, size_t *n, sked_error *err)
{
    claim_alits a = {0};
    char nowbuf[SKED__PG_NUMLEN], limbuf[SKED__PG_NUMLEN],
        lease[SKED__PG_NUMLEN];
    const char *params[7] = {sked__pg_num(q->now, nowbuf),
                             NULL,
                             NULL,
                             sked__pg_num((int64_t) q->limit, limbuf),
                             set->executor,
                             sked__pg_num(set->lease_until, lease),
                             NULL};
    PGresult *res = NULL;
    int rc = claim_arrays(q, &a, err);

    params[1] = a.p[SKED__CLAIM_LATEST];
    params[2] = a.p[SKED__CLAIM_KEYS];
    params[6] = a.p[SKED__CLAIM_VERSIONS];
    if (rc == 0)
        rc = sked__pg_exec(tx, &CAND_ORDERED, NULL, NULL, err);
    if (rc == 0)
        rc = sked__pg_exec(tx, &TAKE_READY, params, &res, err);
    if (rc == 0)
        rc = taken_rows(res, out, first, n, err);
    PQclear(res);
    if (rc == 0)
        rc = sked__pg_exec(tx, &CAND_PLAIN, NULL, NULL, err);
    sked__pg_alits_free(a.a, A_N);
    return rc;
}

int sked__pg_run_take(sked__tx *tx, const sked__claim_set *set, sked_run **out,
                      size_t *n, sked_error *err)
{
    sked__pg_alit a[2] = {{0}};
    char lease[SKED__PG_NUMLEN], nowbuf[SKED__PG_NUMLEN];
    const char *params[5] = {set->executor,
                             sked__pg_num(set->lease_until, lease),
                             sked__pg_num(set->now, nowbuf)};
    int rc = 0;

    for (size_t i = 0; i < set->n; i++) {
        sked__pg_alit_text(&a[0], set->ids[i], i == 0);
        sked__pg_alit_text(&a[1], set->versions[i], i == 0);
    }
    if (sked__pg_alits_close(a, 2, set->n, &params[3]))
        rc = sked__nomem(err);
    if (rc == 0)
        rc = query_runs(tx, &TAKE, params, &sked__row_run, out, n, err);
    sked__pg_alits_free(a, 2);
    return rc;
}

int sked__pg_run_steps_close(sked__tx *tx, const sked__steps_close *sc,
                             sked_error *err)
{
    sked__pg_alit a[2] = {{0}};
    char at[SKED__PG_NUMLEN];
    const char *params[5];
    int rc = 0;

    for (size_t i = 0; i < sc->n; i++) {
        sked__pg_alit_text(&a[0], sc->run_ids[i], i == 0);
        sked__pg_alit_text(&a[1], sc->errors[i], i == 0);
    }
    if (sked__pg_alits_close(a, 2, sc->n, params))
        rc = sked__nomem(err);
    params[2] = sked__step_status_name(sc->status);
    params[3] = sc->error_code;
    params[4] = sked__pg_num(sc->at, at);
    if (rc == 0)
        rc = sked__pg_exec(tx, &STEPS_CLOSE, params, NULL, err);
    sked__pg_alits_free(a, 2);
    return rc;
}

/* ---- leases ------------------------------------------------------------- */

int sked__pg_run_renew(sked__tx *tx, const char *executor,
                       const char *const *held, size_t nheld,
                       sked_time lease_until, size_t *renewed,
                       char ***cancel_ids, size_t *ncancel, sked_error *err)
{
    char lease[SKED__PG_NUMLEN];
    sked__pg_alit a = {0};
    const char *params[3] = {executor, sked__pg_num(lease_until, lease), NULL};
    char **rows = NULL;
    size_t n = 0;
    int rc = 0;

    for (size_t i = 0; i < nheld; i++)
        sked__pg_alit_text(&a, held[i], i == 0);
    if (sked__pg_alits_close(&a, 1, nheld, &params[2]))
        rc = sked__nomem(err);
    if (rc == 0)
        rc = sked__pg_query_rows(tx, &RENEW, params, &sked__row_renewed,
                                 (void **) &rows, &n, err);
    free(a.p);
    if (rc == 0)
        sked__renewed_pick(rows, n, renewed, cancel_ids, ncancel);
    return rc;
}

int sked__pg_run_release(sked__tx *tx, const char *executor, const char *why,
                         sked_time now, sked_error *err)
{
    char nowbuf[SKED__PG_NUMLEN];
    const char *params[3] = {executor, why, sked__pg_num(now, nowbuf)};
    const char *params2[2] = {executor, nowbuf};
    int rc = sked__pg_exec(tx, &RELEASE_STEPS, params, NULL, err);
    if (rc == 0)
        rc = sked__pg_exec(tx, &RELEASE_RUNS, params2, NULL, err);
    return rc;
}

/* ---- cancel and reading ------------------------------------------------- */

int sked__pg_run_get(sked__tx *tx, const char *id, bool lock, sked_run *out,
                     sked_error *err)
{
    const char *params[1] = {id};
    sked_run *v = NULL;
    size_t n = 0;
    int rc = query_runs(tx, lock ? &RUN_LOCK : &RUN_GET, params, &sked__row_run,
                        &v, &n, err);

    if (rc == 0 && n == 0)
        rc = sked__error_set(err, SKED_ENOTFOUND, "id", -1, NULL);
    if (rc == 0)
        *out = v[0];
    free(v);
    return rc;
}

int sked__pg_run_of_schedule(sked__tx *tx, const char *schedule, sked_run **out,
                             size_t *n, sked_error *err)
{
    const char *params[1] = {schedule};

    return query_runs(tx, &RUNS_OF_SCHEDULE, params, &sked__row_run, out, n,
                      err);
}

int sked__pg_run_cancel(sked__tx *tx, const char *id, const char *why,
                        sked_time now, sked_error *err)
{
    char nowbuf[SKED__PG_NUMLEN];
    const char *params[3] = {id, sked__pg_num(now, nowbuf), why};

    return sked__pg_exec(tx, why ? &CANCEL_NOW : &CANCEL_ASK, params, NULL,
                         err);
}

int sked__pg_run_steps_list(sked__tx *tx, const char *run_id,
                            sked_step_record **out, size_t *n, sked_error *err)
{
    const char *params[1] = {run_id};

    return sked__pg_query_rows(tx, &STEPS_LIST, params, &sked__row_step,
                               (void **) out, n, err);
}

int sked__pg_run_list(sked__tx *tx, const sked_run_filter *f, size_t limit,
                      sked_run **out, size_t *n, sked_error *err)
{
    char before[SKED__PG_NUMLEN], lim[SKED__PG_NUMLEN];
    const char *params[6] = {
        sked__pg_run_status(f->status),
        f->schedule,
        f->workflow,
        f->before_id ? time_param(f->before_created, before) : NULL,
        f->before_id,
        sked__pg_num((int64_t) limit, lim)};

    return query_runs(tx, f->schedule ? &RUNS_LIST_SCHEDULE : &RUNS_LIST,
                      params, &sked__row_run, out, n, err);
}
