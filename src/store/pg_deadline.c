/* SPDX-License-Identifier: MIT */
/* Deadlines and heartbeats on PostgreSQL (store_ops.h, schema 0012): the
 * statements of sqlite_deadline.c, the runs they read locked FOR UPDATE
 * so that a check and a ping, or an executor finishing the run, take
 * their turns. Every value travels as text. */
#include "store/pg_deadline.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "store/pg.h"
#include "store/store_row.h"

static const sked__pg_stmt DUE = {
    SKED__PG_RUNS_DEADLINE_DUE, 3,
    "SELECT " SKED__RUN_COLUMNS " FROM runs WHERE schedule = $1 "
    "AND deadline_at IS NOT NULL AND deadline_at <= $2::bigint "
    "ORDER BY deadline_at, id LIMIT $3::bigint FOR UPDATE"};
static const sked__pg_stmt MARK = {
    SKED__PG_RUN_MARK, 11,
    "UPDATE runs SET status = coalesce($2, status), "
    "started_at = coalesce(started_at, $3::bigint), "
    "finished_at = coalesce($4::bigint, finished_at), "
    "output = coalesce($5, output), error = coalesce($6, error), "
    "error_code = coalesce($7, error_code), "
    "deadline_at = CASE WHEN $8::boolean THEN $9::bigint "
    "ELSE deadline_at END, "
    "deadline_missed = coalesce($10, deadline_missed), "
    "updated_at = $11::bigint WHERE id = $1"};
static const sked__pg_stmt SYNC = {
    SKED__PG_SCHEDULE_DEADLINE_SYNC, 3,
    "UPDATE schedules SET deadline_check_at = (SELECT min(deadline_at) "
    "FROM runs WHERE schedule = $1 AND deadline_at IS NOT NULL), "
    "deadlines_missed = deadlines_missed + $2::bigint, "
    "last_deadline_missed_at = coalesce($3::bigint, "
    "last_deadline_missed_at) WHERE name = $1 RETURNING deadline_check_at"};
#define OPEN_SQL(order)                                                        \
    "SELECT " SKED__RUN_COLUMNS " FROM runs WHERE schedule = $1 "              \
    "AND trigger_kind = 'heartbeat' AND status IN ('pending', 'running') "     \
    "AND scheduled_for > $2::bigint AND scheduled_for <= $3::bigint "          \
    "ORDER BY scheduled_for " order " LIMIT 1 FOR UPDATE"
static const sked__pg_stmt OPEN_LATEST = {SKED__PG_HEARTBEAT_LATEST, 3,
                                          OPEN_SQL("DESC")};
static const sked__pg_stmt OPEN_EARLIEST = {SKED__PG_HEARTBEAT_EARLIEST, 3,
                                            OPEN_SQL("ASC")};

/* T as text in BUF, or NULL for NONE. */
static const char *time_param(sked_time t, char *buf)
{
    return t == SKED_TIME_NONE ? NULL : sked__pg_num(t, buf);
}

int sked__pg_runs_deadline_due(sked__tx *tx, const char *schedule,
                               sked_time now, size_t limit, sked_run **out,
                               size_t *n, sked_error *err)
{
    char nb[SKED__PG_NUMLEN], lb[SKED__PG_NUMLEN];
    const char *params[3] = {schedule, sked__pg_num(now, nb),
                             sked__pg_num((int64_t) limit, lb)};

    return sked__pg_query_rows(tx, &DUE, params, &sked__row_run, (void **) out,
                               n, err);
}

int sked__pg_run_mark(sked__tx *tx, const sked__run_mark *m, sked_time now,
                      sked_error *err)
{
    char sb[SKED__PG_NUMLEN], fb[SKED__PG_NUMLEN], db[SKED__PG_NUMLEN],
        nb[SKED__PG_NUMLEN];
    const char *params[11] = {
        m->id,
        m->status < 0 ? NULL
                      : sked__run_status_name((sked_run_status) m->status),
        time_param(m->started_at, sb),
        time_param(m->finished_at, fb),
        m->output,
        m->error,
        m->error_code,
        m->deadline_set ? "true" : "false",
        time_param(m->deadline_at, db),
        m->deadline_missed,
        sked__pg_num(now, nb)};

    return sked__pg_exec(tx, &MARK, params, NULL, err);
}

int sked__pg_schedule_deadline_sync(sked__tx *tx, const char *schedule,
                                    int64_t missed, sked_time last,
                                    sked_time *check_at, sked_error *err)
{
    char mb[SKED__PG_NUMLEN], lb[SKED__PG_NUMLEN];
    const char *params[3] = {schedule, sked__pg_num(missed, mb),
                             time_param(last, lb)};
    PGresult *res = NULL;
    int rc = sked__pg_exec(tx, &SYNC, params, &res, err);

    *check_at = SKED_TIME_NONE;
    if (rc == 0 && PQntuples(res) > 0 && !PQgetisnull(res, 0, 0))
        *check_at = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
    PQclear(res);
    return rc;
}

int sked__pg_heartbeat_open(sked__tx *tx, const char *schedule, sked_time lo,
                            sked_time hi, bool latest, sked_run *out,
                            bool *found, sked_error *err)
{
    char lb[SKED__PG_NUMLEN], hb[SKED__PG_NUMLEN];
    const char *params[3] = {schedule, sked__pg_num(lo, lb),
                             sked__pg_num(hi, hb)};
    sked_run *v = NULL;
    size_t n = 0;
    int rc = sked__pg_query_rows(tx, latest ? &OPEN_LATEST : &OPEN_EARLIEST,
                                 params, &sked__row_run, (void **) &v, &n, err);

    *found = rc == 0 && n > 0;
    if (*found) {
        *out = v[0];
        free(v);
    } else {
        sked__runs_free(v, n);
    }
    return rc;
}
