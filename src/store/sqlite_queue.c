/* SPDX-License-Identifier: MIT */
/* Queues and workflow versions on SQLite (store_ops.h, schema 0003): the
 * load of the queues with a limit, as a claim counts it, the queues'
 * definitions and depth, and the versions executors registered. */
#include "store/sqlite_queue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "model/queue_fields.h"
#include "store/sqlite.h"

enum queue_stmt {
    Q_LOADS,
    Q_PUT,
    Q_LIST,
    Q_WF_REGISTER,
    Q_WF_LATEST,
    Q_WF_LIST,
    Q_COUNT
};

/* The two counts of a queue's load (model/queue_fields.h). Without
 * statistics SQLite would count the running runs through runs_started,
 * which holds the queue's whole history. */
#define SKED__QUEUE_RUNNING_SQL                                                \
    "(SELECT count(*) FROM runs r INDEXED BY runs_running_queue "              \
    "WHERE r.queue = q.name AND r.status = 'running')"
#define SKED__QUEUE_STARTED_SQL                                                \
    "CASE WHEN rate_limit IS NULL OR rate_period_us IS NULL THEN 0 "           \
    "ELSE (SELECT count(*) FROM runs r WHERE r.queue = q.name "                \
    "AND r.started_at > ?1 - q.rate_period_us) END"

static const char *const queue_sql[Q_COUNT] = {
    [Q_LOADS] = "SELECT " SKED__QUEUE_LOAD_COLUMNS " "
                "FROM queues q WHERE concurrency IS NOT NULL "
                "OR rate_limit IS NOT NULL ORDER BY name",
    [Q_PUT] =
        "INSERT INTO queues (name, concurrency, worker_concurrency, "
        "rate_limit, rate_period_us, source, created_at, updated_at) "
        "VALUES (?1, ?2, ?3, ?4, ?5, 'code', ?6, ?6) "
        "ON CONFLICT (name) DO UPDATE SET concurrency = excluded.concurrency, "
        "worker_concurrency = excluded.worker_concurrency, "
        "rate_limit = excluded.rate_limit, "
        "rate_period_us = excluded.rate_period_us, source = 'code', "
        "updated_at = excluded.updated_at",
    [Q_LIST] =
        "SELECT " SKED__QUEUE_INFO_COLUMNS
        " FROM (SELECT name, coalesce(concurrency, 0) AS c, "
        "coalesce(worker_concurrency, 0) AS w, coalesce(rate_limit, 0) AS r, "
        "coalesce(rate_period_us, 0) AS p, 0 AS pending, 0 AS running "
        "FROM queues UNION ALL SELECT queue, 0, 0, 0, 0, "
        "sum(status <> 'running'), sum(status = 'running') FROM runs "
        "WHERE " SKED__SQLITE_ACTIVE("status") " GROUP BY queue "
                                               "HAVING queue <> '') "
                                               "GROUP BY name ORDER BY name",
    [Q_WF_REGISTER] = "INSERT INTO workflow_versions (workflow, version, "
                      "definition, registered_at) VALUES (?1, ?2, ?3, ?4) "
                      "ON CONFLICT (workflow, version) DO UPDATE SET "
                      "definition = excluded.definition, "
                      "registered_at = excluded.registered_at",
    [Q_WF_LATEST] = "SELECT version FROM workflow_versions "
                    "WHERE workflow = ?1 "
                    "ORDER BY registered_at DESC, version DESC LIMIT 1",
    [Q_WF_LIST] =
        "SELECT coalesce(json_group_array(json_object('name', workflow, "
        "'version', version, 'registered_at', registered_at, 'definition', "
        "json(definition))), '[]') FROM (SELECT *, row_number() OVER "
        "(PARTITION BY workflow ORDER BY registered_at DESC, version DESC) "
        "AS k FROM workflow_versions ORDER BY workflow) WHERE k = 1",
};

/* Return the cached statement ID of C in *out. */
static int stmt(sked__tx *c, enum queue_stmt id, sqlite3_stmt **out,
                sked_error *err)
{
    return sked__sqlite_stmt(c, queue_sql[id], out, err);
}

/* ---- the load of limited queues ------------------------------------------ */

int sked__sqlite_queue_loads(sked__tx *c, sked_time now, sked__queue_load **out,
                             size_t *n, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, Q_LOADS, &s, err);

    if (rc != 0)
        return rc;
    sqlite3_bind_int64(s, 1, now);
    return sked__sqlite_rows(c, s, &sked__row_queue_load,
                             "counting queue loads", (void **) out, n, err);
}

/* ---- definitions, depth and versions ------------------------------------ */

/* Bind V to parameter I, 0 as NULL (no limit). */
static int bind_limit(sqlite3_stmt *s, int i, int64_t v)
{
    return v > 0 ? sqlite3_bind_int64(s, i, v) : sqlite3_bind_null(s, i);
}

int sked__sqlite_queue_put(sked__tx *c, const sked_queue_def *q, sked_time now,
                           sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, Q_PUT, &s, err);

    if (rc != 0)
        return rc;
    return sked__sqlite_exec(
        c, s,
        bind_text(s, 1, q->name) | bind_limit(s, 2, q->concurrency) |
            bind_limit(s, 3, q->worker_concurrency) |
            bind_limit(s, 4, q->rate_limit) |
            bind_limit(s, 5, q->rate_limit > 0 ? q->rate_period : 0) |
            sqlite3_bind_int64(s, 6, now),
        "writing a queue", err);
}

int sked__sqlite_queue_list(sked__tx *c, sked_queue_info **out, size_t *n,
                            sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, Q_LIST, &s, err);

    if (rc != 0)
        return rc;
    return sked__sqlite_rows(c, s, &sked__row_queue_info, "listing queues",
                             (void **) out, n, err);
}

int sked__sqlite_queue_workflow_register(sked__tx *c, const char *workflow,
                                         const char *version,
                                         const char *definition, sked_time now,
                                         sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, Q_WF_REGISTER, &s, err);

    if (rc != 0)
        return rc;
    return sked__sqlite_exec(
        c, s,
        bind_text(s, 1, workflow) | bind_text(s, 2, version) |
            bind_text(s, 3, definition) | sqlite3_bind_int64(s, 4, now),
        "registering a workflow version", err);
}

int sked__sqlite_queue_workflow_latest(sked__tx *c, const char *workflow,
                                       char **out, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    char *v = NULL;
    int rc = stmt(c, Q_WF_LATEST, &s, err), step;

    if (rc != 0)
        return rc;
    bind_text(s, 1, workflow);
    step = sqlite3_step(s);
    if (step == SQLITE_ROW && !col_text(s, 0, &v))
        rc = sked__nomem(err);
    else if (step == SQLITE_DONE)
        rc = sked__error_set(err, SKED_ENOTFOUND, "workflow", -1, NULL);
    else if (step != SQLITE_ROW)
        rc = sked__sqlite_fail(c, step, "reading workflow versions", err);
    sked__sqlite_done(s);
    if (rc == 0)
        *out = v;
    return rc;
}

int sked__sqlite_queue_workflows_list(sked__tx *c, char **out, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    char *v = NULL;
    int rc = stmt(c, Q_WF_LIST, &s, err), step;

    if (rc != 0)
        return rc;
    step = sqlite3_step(s);
    if (step == SQLITE_ROW && !col_text(s, 0, &v))
        rc = sked__nomem(err);
    else if (step != SQLITE_ROW)
        rc = sked__sqlite_fail(c, step, "reading workflow versions", err);
    sked__sqlite_done(s);
    if (rc == 0)
        *out = v;
    return rc;
}
