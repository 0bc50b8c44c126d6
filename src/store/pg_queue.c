/* SPDX-License-Identifier: MIT */
/* Queues and workflow versions on PostgreSQL (store_ops.h, schema 0003):
 * the load of the queues with a limit, as a claim counts it (pg_run.c
 * says how the locks go), the queues' definitions and depth, and the
 * versions executors registered. runs.queue compares to queues.name
 * (COLLATE "C") under the default collation, so its indexes apply. */
#include "store/pg_queue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "model/queue_fields.h"
#include "store/pg.h"
#include "store/pg_run.h"

#define ACTIVE "('pending', 'running', 'waiting')"

static const sked__pg_stmt QUEUES_LOCK = {
    SKED__PG_QUEUES_LOCK, 0,
    "SELECT name FROM queues WHERE concurrency IS NOT NULL "
    "OR rate_limit IS NOT NULL ORDER BY name FOR UPDATE"};

/* The two counts of a queue's load (model/queue_fields.h): its runs
 * running, and its starts in the period of its rate limit (queue_starts,
 * written by the claims). */
#define SKED__QUEUE_RUNNING_SQL                                                \
    "(SELECT count(*) FROM runs r WHERE r.queue = q.name COLLATE \"default\" " \
    "AND r.status = 'running')"
#define SKED__QUEUE_STARTED_SQL                                                \
    "CASE WHEN rate_limit IS NULL OR rate_period_us IS NULL THEN 0 "           \
    "ELSE (SELECT count(*) FROM queue_starts s WHERE s.queue = q.name "        \
    "AND s.started_at > $1::bigint - q.rate_period_us) END"

/* Each limited queue's load at $1. The starts out of every period are
 * dropped on the way. */
static const sked__pg_stmt QUEUE_LOADS = {
    SKED__PG_QUEUE_LOADS, 1,
    "WITH gone AS (DELETE FROM queue_starts s WHERE NOT EXISTS "
    "(SELECT 1 FROM queues q WHERE q.name = s.queue "
    "AND q.rate_limit IS NOT NULL AND q.rate_period_us IS NOT NULL "
    "AND s.started_at > $1::bigint - q.rate_period_us)) "
    "SELECT " SKED__QUEUE_LOAD_COLUMNS " "
    "FROM queues q WHERE concurrency IS NOT NULL OR rate_limit IS NOT NULL "
    "ORDER BY name"};

static const sked__pg_stmt QUEUE_PUT = {
    SKED__PG_QUEUE_PUT, 6,
    "INSERT INTO queues (name, concurrency, worker_concurrency, rate_limit, "
    "rate_period_us, source, created_at, updated_at) "
    "VALUES ($1, $2::integer, $3::integer, $4::integer, $5::bigint, 'code', "
    "$6::bigint, $6::bigint) "
    "ON CONFLICT (name) DO UPDATE SET concurrency = excluded.concurrency, "
    "worker_concurrency = excluded.worker_concurrency, "
    "rate_limit = excluded.rate_limit, "
    "rate_period_us = excluded.rate_period_us, source = 'code', "
    "updated_at = excluded.updated_at"};

static const sked__pg_stmt QUEUES_LIST = {
    SKED__PG_QUEUES_LIST, 0,
    "SELECT " SKED__QUEUE_INFO_COLUMNS
    " FROM (SELECT name, coalesce(concurrency, 0) AS c, "
    "coalesce(worker_concurrency, 0) AS w, coalesce(rate_limit, 0) AS r, "
    "coalesce(rate_period_us, 0) AS p, 0::bigint AS pending, "
    "0::bigint AS running FROM queues UNION ALL "
    "SELECT queue COLLATE \"C\", 0, 0, 0, 0, "
    "count(*) FILTER (WHERE status <> 'running'), "
    "count(*) FILTER (WHERE status = 'running') FROM runs "
    "WHERE status IN " ACTIVE " GROUP BY queue HAVING queue <> '') AS l "
    "GROUP BY name ORDER BY name"};

static const sked__pg_stmt WF_REGISTER = {
    SKED__PG_WF_REGISTER, 4,
    "INSERT INTO workflow_versions (workflow, version, definition, "
    "registered_at) VALUES ($1, $2, $3, $4::bigint) "
    "ON CONFLICT (workflow, version) DO UPDATE SET "
    "definition = excluded.definition, "
    "registered_at = excluded.registered_at"};

static const sked__pg_stmt WF_LATEST = {
    SKED__PG_WF_LATEST, 1,
    "SELECT version FROM workflow_versions WHERE workflow = $1 "
    "ORDER BY registered_at DESC, version COLLATE \"C\" DESC LIMIT 1"};

static const sked__pg_stmt WF_LIST = {
    SKED__PG_WF_LIST, 0,
    "SELECT coalesce(json_agg(json_build_object('name', workflow, "
    "'version', version, 'registered_at', registered_at, 'definition', "
    "definition::json) ORDER BY workflow COLLATE \"C\"), '[]')::text "
    "FROM (SELECT DISTINCT ON (workflow) * FROM workflow_versions "
    "ORDER BY workflow, registered_at DESC, version COLLATE \"C\" DESC) w"};

/* ---- the load of limited queues ------------------------------------------ */

/* Read the loads of the queues locked by QUEUES_LOCK. */
static int loads_read(sked__tx *tx, sked_time now, sked__queue_load **out,
                      size_t *n, sked_error *err)
{
    char nowbuf[SKED__PG_NUMLEN];
    const char *params[1] = {sked__pg_num(now, nowbuf)};

    return sked__pg_query_rows(tx, &QUEUE_LOADS, params, &sked__row_queue_load,
                               (void **) out, n, err);
}

int sked__pg_queue_loads(sked__tx *tx, sked_time now, sked__queue_load **out,
                         size_t *n, sked_error *err)
{
    PGresult *res = NULL;
    int rows, rc = sked__pg_exec(tx, &QUEUES_LOCK, NULL, &res, err);

    if (rc != 0)
        return rc;
    rows = PQntuples(res);
    PQclear(res);
    if (rows == 0) { /* no limits: nothing to count */
        *out = NULL;
        *n = 0;
        return 0;
    }
    return loads_read(tx, now, out, n, err);
}

/* ---- definitions, depth and versions ------------------------------------ */

/* Text of limit V into BUF, or NULL for 0 (no limit). */
static const char *limit_param(int64_t v, char *buf)
{
    return v > 0 ? sked__pg_num(v, buf) : NULL;
}

int sked__pg_queue_put(sked__tx *tx, const sked_queue_def *q, sked_time now,
                       sked_error *err)
{
    char b[5][SKED__PG_NUMLEN];
    const char *params[6] = {
        q->name,
        limit_param(q->concurrency, b[0]),
        limit_param(q->worker_concurrency, b[1]),
        limit_param(q->rate_limit, b[2]),
        limit_param(q->rate_limit > 0 ? q->rate_period : 0, b[3]),
        sked__pg_num(now, b[4])};

    return sked__pg_exec(tx, &QUEUE_PUT, params, NULL, err);
}

int sked__pg_queue_list(sked__tx *tx, sked_queue_info **out, size_t *n,
                        sked_error *err)
{
    return sked__pg_query_rows(tx, &QUEUES_LIST, NULL, &sked__row_queue_info,
                               (void **) out, n, err);
}

int sked__pg_queue_workflow_register(sked__tx *tx, const char *workflow,
                                     const char *version,
                                     const char *definition, sked_time now,
                                     sked_error *err)
{
    char nowbuf[SKED__PG_NUMLEN];
    const char *params[4] = {workflow, version, definition,
                             sked__pg_num(now, nowbuf)};

    return sked__pg_exec(tx, &WF_REGISTER, params, NULL, err);
}

int sked__pg_queue_workflow_latest(sked__tx *tx, const char *workflow,
                                   char **out, sked_error *err)
{
    const char *params[1] = {workflow};
    PGresult *res = NULL;
    char *v = NULL;
    int rc = sked__pg_exec(tx, &WF_LATEST, params, &res, err);

    if (rc != 0)
        return rc;
    if (PQntuples(res) == 0)
        rc = sked__error_set(err, SKED_ENOTFOUND, "workflow", -1, NULL);
    else if (!(v = sked__strdup(PQgetvalue(res, 0, 0))))
        rc = sked__nomem(err);
    PQclear(res);
    if (rc == 0)
        *out = v;
    return rc;
}

int sked__pg_queue_workflows_list(sked__tx *tx, char **out, sked_error *err)
{
    PGresult *res = NULL;
    char *v = NULL;
    int rc = sked__pg_exec(tx, &WF_LIST, NULL, &res, err);

    if (rc != 0)
        return rc;
    if (PQntuples(res) != 1 || !(v = sked__strdup(PQgetvalue(res, 0, 0))))
        rc = sked__nomem(err);
    PQclear(res);
    if (rc == 0)
        *out = v;
    return rc;
}
