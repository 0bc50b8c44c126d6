/* SPDX-License-Identifier: MIT */
/* The SQL of execution on SQLite (store_ops.h, schema 0003): claiming,
 * leases, the executor's writes, cancel and reading runs.
 *
 * BEGIN IMMEDIATE already serialises every writer, so nothing here locks
 * rows: what a transaction reads stays true until its commit. Batches go
 * one prepared statement run per row (in-process: no round trips to
 * save), and lists travel into SQL as JSON arrays read by json_each; the
 * claim's workflow versions as "workflow/version" keys (a workflow name
 * holds no '/'). The statements are cached per connection by sqlite.c.
 * Queues and workflow versions are in sqlite_queue.c. */
#include "store/sqlite_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/json_text.h"
#include "model/step_fields.h"
#include "store/sqlite.h"

/* Active runs, in the words of the partial indexes (sqlite.h). */
#define ACTIVE   SKED__SQLITE_ACTIVE("status")
#define O_ACTIVE SKED__SQLITE_ACTIVE("o.status")

/* The version routing of a claim: ?2 the workflows whose latest version
 * the executor has, ?3 its "workflow/version" keys. */
#define ROUTED                                                                 \
    "CASE WHEN workflow_version IS NULL "                                      \
    "THEN workflow IN (SELECT value FROM json_each(?2)) "                      \
    "ELSE workflow || '/' || workflow_version "                                \
    "IN (SELECT value FROM json_each(?3)) END"

enum run_stmt {
    R_CAND_READY,
    R_CAND_EXPIRED,
    R_TAKE,
    R_TAKEN,
    R_STEPS_CLOSE,
    R_RENEW,
    R_RELEASE_STEPS,
    R_RELEASE_RUNS,
    R_FENCE,
    R_STEP_WRITE,
    R_RUN_WRITE,
    R_FAILURES,
    R_FAILURES_SET,
    R_RUN_GET,
    R_RUNS_OF_SCHEDULE,
    R_CANCEL_NOW,
    R_CANCEL_ASK,
    R_STEPS_LIST,
    R_RUNS_LIST,
    R_RUNS_LIST_SCHEDULE,
    R_COUNT
};

/* A page of runs, newest first, those of schedule ?2 by SCHEDULE. */
#define RUNS_LIST(schedule)                                                    \
    "SELECT " SKED__RUN_COLUMNS " FROM runs WHERE " schedule " "               \
    "AND (?1 IS NULL OR status = ?1) AND (?3 IS NULL OR workflow = ?3) "       \
    "AND (?5 IS NULL OR created_at < ?4 OR (created_at = ?4 AND id < ?5)) "    \
    "ORDER BY created_at DESC, id DESC LIMIT ?6"

static const char *const run_sql[R_COUNT] = {
    /* A serial run goes only as the first active run of its key, with
     * none of the key running (two seeks: runs_serial, and
     * runs_serial_running). */
    [R_CAND_READY] =
        "SELECT " SKED__CAND_COLUMNS " FROM runs r "
        "WHERE status IN ('pending', 'waiting') AND not_before <= ?1 "
        "AND " ROUTED " AND queue NOT IN (SELECT value FROM json_each(?4)) "
        "AND (serial_key IS NULL OR (NOT EXISTS (SELECT 1 FROM runs o "
        "WHERE o.serial_key = r.serial_key AND o.status = 'running') "
        "AND (SELECT o.id FROM runs o WHERE o.serial_key = r.serial_key "
        "AND " O_ACTIVE " "
        "ORDER BY coalesce(o.scheduled_for, o.created_at), o.id LIMIT 1) "
        "= r.id)) "
        "ORDER BY priority, not_before, created_at, id LIMIT ?5",
    [R_CAND_EXPIRED] = "SELECT " SKED__CAND_COLUMNS " FROM runs "
                       "WHERE status = 'running' AND lease_until < ?1 "
                       "AND " ROUTED " "
                       "AND id NOT IN (SELECT value FROM json_each(?4)) "
                       "ORDER BY priority, not_before, created_at, id "
                       "LIMIT ?5",
    /* ?1 is [[id, version or null], ...]: one statement for the batch,
     * the rows read back after (RETURNING costs a temporary table per
     * statement: a third of the claim). */
    [R_TAKE] = "UPDATE runs SET status = 'running', executor = ?2, "
               "lease_until = ?3, started_at = coalesce(started_at, ?4), "
               "attempts = attempts + 1, "
               "workflow_version = coalesce(workflow_version, "
               "json_extract(u.value, '$[1]')), updated_at = ?4 "
               "FROM json_each(?1) AS u "
               "WHERE runs.id = json_extract(u.value, '$[0]')",
    [R_TAKEN] = "SELECT " SKED__RUN_COLUMNS " FROM runs WHERE id IN "
                "(SELECT json_extract(value, '$[0]') FROM json_each(?1))",
    [R_STEPS_CLOSE] = "UPDATE steps SET status = ?2, error_code = ?3, "
                      "error = ?4, finished_at = ?5 "
                      "WHERE run_id = ?1 AND status = 'running'",
    [R_RENEW] = "UPDATE runs SET lease_until = ?2 "
                "WHERE executor = ?1 AND status = 'running' "
                "AND id IN (SELECT value FROM json_each(?3)) "
                "RETURNING id, cancel_requested_at IS NOT NULL",
    [R_RELEASE_STEPS] = "UPDATE steps SET status = 'cancelled', "
                        "error_code = 'interrupted', error = ?2, "
                        "finished_at = ?3 WHERE status = 'running' "
                        "AND run_id IN (SELECT id FROM runs "
                        "WHERE executor = ?1 AND status = 'running')",
    [R_RELEASE_RUNS] = "UPDATE runs SET status = CASE WHEN not_before > ?2 "
                       "THEN 'waiting' ELSE 'pending' END, executor = NULL, "
                       "lease_until = NULL, updated_at = ?2 "
                       "WHERE executor = ?1 AND status = 'running'",
    [R_FENCE] = "SELECT " SKED__FENCE_COLUMNS ", NULL FROM runs WHERE id = ?1",
    [R_STEP_WRITE] =
        "INSERT INTO steps (" SKED__STEP_WRITE_COLUMNS ") VALUES (?1, ?2, "
        "?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) " SKED__STEP_UPSERT,
    [R_RUN_WRITE] =
        "UPDATE runs SET status = coalesce(?2, status), "
        "outcome = coalesce(?3, outcome), output = coalesce(?4, output), "
        "error = coalesce(?5, error), error_code = coalesce(?6, error_code), "
        "not_before = coalesce(?7, not_before), "
        "finished_at = coalesce(?8, finished_at), "
        "timeout_exceeded_at = coalesce(?9, timeout_exceeded_at), "
        "executor = CASE WHEN ?2 IS NULL THEN executor END, "
        "lease_until = CASE WHEN ?2 IS NULL THEN lease_until END, "
        "updated_at = ?10 WHERE id = ?1",
    [R_FAILURES] = "SELECT " SKED__FAILURES_COLUMNS " FROM schedules "
                   "WHERE name = ?1",
    [R_FAILURES_SET] = "UPDATE schedules SET consecutive_failures = ?2 "
                       "WHERE name = ?1",
    [R_RUN_GET] = "SELECT " SKED__RUN_COLUMNS " FROM runs WHERE id = ?1",
    [R_RUNS_OF_SCHEDULE] = "SELECT " SKED__RUN_COLUMNS " FROM runs "
                           "WHERE schedule = ?1 AND " ACTIVE " ORDER BY id",
    [R_CANCEL_NOW] = "UPDATE runs SET status = 'cancelled', "
                     "finished_at = ?2, error = ?3, "
                     "error_code = 'cancelled', executor = NULL, "
                     "lease_until = NULL, "
                     "cancel_requested_at = coalesce(cancel_requested_at, "
                     "?2), updated_at = ?2 WHERE id = ?1",
    [R_CANCEL_ASK] = "UPDATE runs SET "
                     "cancel_requested_at = coalesce(cancel_requested_at, "
                     "?2), not_before = CASE WHEN status <> 'running' "
                     "AND not_before > ?2 THEN ?2 ELSE not_before END, "
                     "updated_at = ?2 WHERE id = ?1",
    [R_STEPS_LIST] = "SELECT " SKED__STEP_COLUMNS " FROM steps "
                     "WHERE run_id = ?1 "
                     "ORDER BY started_at, step, compensation, attempt",
    [R_RUNS_LIST] = RUNS_LIST("(?2 IS NULL OR schedule = ?2)"),
    /* One schedule's runs: the planner walks runs_schedule (schedule,
     * created_at, id) backwards, which "?2 IS NULL OR" would hide. */
    [R_RUNS_LIST_SCHEDULE] = RUNS_LIST("schedule = ?2"),
};

/* Return the cached statement ID of C in *out. */
static int stmt(sked__tx *c, enum run_stmt id, sqlite3_stmt **out,
                sked_error *err)
{
    return sked__sqlite_stmt(c, run_sql[id], out, err);
}

/* Run the bound S and hand back its runs (read as KIND). */
static int runs_query(sked__tx *c, sqlite3_stmt *s, const sked__row_kind *kind,
                      const char *what, sked_run **out, size_t *n,
                      sked_error *err)
{
    return sked__sqlite_rows(c, s, kind, what, (void **) out, n, err);
}

/* ---- claiming ------------------------------------------------------------ */

/* Dump the JSON value J (taken) into *out; false on ENOMEM. */
static bool json_take(json_t *j, char **out)
{
    *out = j ? sked__json_text(j, NULL) : NULL;
    json_decref(j);
    return *out != NULL;
}

/* Append S to the JSON array of LIST among CTX's (the versions are not
 * sent: SQLite has no claim in one statement). */
static bool list_add(void *ctx, sked__claim_list list, const char *s)
{
    json_t **a = ctx;

    return list == SKED__CLAIM_VERSIONS ||
           json_array_append_new(a[list], json_string(s)) == 0;
}

/* The JSON arrays of a claim (sked__claim_lists): [0] the workflows
 * whose latest version the executor has, [1] its "workflow/version"
 * keys, [2] the full queues or the runs held. */
static int claim_arrays(const sked__claim_query *q, char *a[3], sked_error *err)
{
    json_t *j[3] = {json_array(), json_array(), json_array()};
    int rc = j[0] && j[1] && j[2] ? sked__claim_lists(q, list_add, j, err)
                                  : sked__nomem(err);
    bool ok = true;

    if (rc != 0) {
        for (int k = 0; k < 3; k++)
            json_decref(j[k]);
        return rc;
    }
    /* Each one taken, whatever became of the others: the caller frees. */
    for (int k = 0; k < 3; k++)
        ok = json_take(j[k], &a[k]) && ok;
    return ok ? 0 : sked__nomem(err);
}

int sked__sqlite_run_candidates(sked__tx *c, const sked__claim_query *q,
                                sked_run **out, size_t *n, sked_error *err)
{
    char *a[3] = {NULL, NULL, NULL};
    sqlite3_stmt *s = NULL;
    int rc = claim_arrays(q, a, err);

    if (rc == 0)
        rc = stmt(c, q->expired ? R_CAND_EXPIRED : R_CAND_READY, &s, err);
    if (rc == 0) {
        rc = sqlite3_bind_int64(s, 1, q->now) | bind_text(s, 2, a[0]) |
             bind_text(s, 3, a[1]) |
             sqlite3_bind_int64(s, 5, (sqlite3_int64) q->limit);
        rc |= bind_text(s, 4, a[2]);
        rc = rc == SQLITE_OK
                 ? runs_query(c, s, &sked__row_cand, "reading runs to claim",
                              out, n, err)
                 : sked__sqlite_exec(c, s, rc, "reading runs to claim", err);
    }
    for (int i = 0; i < 3; i++)
        free(a[i]);
    return rc;
}

/* The JSON [[id, version or null], ...] of the claim SET into *out. */
static int take_json(const sked__claim_set *set, char **out, sked_error *err)
{
    json_t *a = json_array();
    bool ok = a != NULL;

    for (size_t i = 0; ok && i < set->n; i++) {
        json_t *pair = json_pack("[s,s?]", set->ids[i], set->versions[i]);
        ok = json_array_append_new(a, pair) == 0;
    }
    if (!ok) {
        json_decref(a);
        return sked__nomem(err);
    }
    return json_take(a, out) ? 0 : sked__nomem(err);
}

int sked__sqlite_run_take(sked__tx *c, const sked__claim_set *set,
                          sked_run **out, size_t *n, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    char *ids = NULL;
    int rc = take_json(set, &ids, err);

    if (rc == 0)
        rc = stmt(c, R_TAKE, &s, err);
    if (rc == 0)
        rc = sked__sqlite_exec(c, s,
                               bind_text(s, 1, ids) |
                                   bind_text(s, 2, set->executor) |
                                   sqlite3_bind_int64(s, 3, set->lease_until) |
                                   sqlite3_bind_int64(s, 4, set->now),
                               "claiming runs", err);
    if (rc == 0)
        rc = stmt(c, R_TAKEN, &s, err);
    if (rc == 0) {
        bind_text(s, 1, ids);
        rc = runs_query(c, s, &sked__row_run, "claiming runs", out, n, err);
    }
    free(ids);
    return rc;
}

int sked__sqlite_run_steps_close(sked__tx *c, const sked__steps_close *sc,
                                 sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, R_STEPS_CLOSE, &s, err);

    for (size_t i = 0; rc == 0 && i < sc->n; i++)
        rc = sked__sqlite_exec(
            c, s,
            bind_text(s, 1, sc->run_ids[i]) |
                bind_text(s, 2, sked__step_status_name(sc->status)) |
                bind_text(s, 3, sc->error_code) |
                bind_text(s, 4, sc->errors[i]) | bind_time(s, 5, sc->at),
            "closing step attempts", err);
    return rc;
}

/* ---- leases ------------------------------------------------------------- */

/* HELD (N ids) as a JSON array; NULL when out of memory. */
static char *ids_json(const char *const *held, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_string(held[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    char *s = a ? sked__json_text(a, NULL) : NULL;
    json_decref(a);
    return s;
}

int sked__sqlite_run_renew(sked__tx *c, const char *executor,
                           const char *const *held, size_t nheld,
                           sked_time lease_until, size_t *renewed,
                           char ***cancel_ids, size_t *ncancel, sked_error *err)
{
    char **rows = NULL;
    size_t n = 0;
    sqlite3_stmt *s = NULL;
    char *held_json = ids_json(held, nheld);
    int rc = held_json ? stmt(c, R_RENEW, &s, err) : sked__nomem(err);

    if (rc == 0) {
        bind_text(s, 1, executor);
        sqlite3_bind_int64(s, 2, lease_until);
        bind_text(s, 3, held_json);
        rc = sked__sqlite_rows(c, s, &sked__row_renewed, "renewing leases",
                               (void **) &rows, &n, err);
    }
    free(held_json);
    if (rc == 0)
        sked__renewed_pick(rows, n, renewed, cancel_ids, ncancel);
    return rc;
}

int sked__sqlite_run_release(sked__tx *c, const char *executor, const char *why,
                             sked_time now, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, R_RELEASE_STEPS, &s, err);

    if (rc == 0)
        rc =
            sked__sqlite_exec(c, s,
                              bind_text(s, 1, executor) | bind_text(s, 2, why) |
                                  sqlite3_bind_int64(s, 3, now),
                              "releasing runs", err);
    if (rc == 0)
        rc = stmt(c, R_RELEASE_RUNS, &s, err);
    if (rc == 0)
        rc = sked__sqlite_exec(
            c, s, bind_text(s, 1, executor) | sqlite3_bind_int64(s, 2, now),
            "releasing runs", err);
    return rc;
}

/* ---- the executor's writes ---------------------------------------------- */

/* Read the fence of run ID into *f. */
static int fence_one(sked__tx *c, sqlite3_stmt *s, const char *id,
                     sked__fence *f, sked_error *err)
{
    sked__row r = {&sked__sqlite_row_driver, s, 0};
    int rc = bind_text(s, 1, id), step;

    step = rc == SQLITE_OK ? sqlite3_step(s) : rc;
    memset(f, 0, sizeof *f);
    if (step == SQLITE_ROW) {
        rc = sked__row_fence(&r, f, err);
    } else if (step != SQLITE_DONE) {
        rc = sked__sqlite_fail(c, step, "reading runs", err);
    }
    sked__sqlite_done(s);
    return rc;
}

int sked__sqlite_run_fence(sked__tx *c, const char *const *ids, size_t n,
                           sked__fence *out, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, R_FENCE, &s, err);

    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = fence_one(c, s, ids[i], &out[i], err);
    return rc;
}

/* The binding of one step field V to parameter I by its kind
 * (model/step_fields.h). */
#define BIND_TEXT(v, i)        bind_text(s, i, v)
#define BIND_BOOL(v, i)        sqlite3_bind_int(s, i, (v) ? 1 : 0)
#define BIND_I32(v, i)         sqlite3_bind_int(s, i, v)
#define BIND_STEP_STATUS(v, i) bind_text(s, i, sked__step_status_name(v))
#define BIND_FLAGS(v, i)       sqlite3_bind_int(s, i, v)
#define BIND_EXIT(v, i)                                                        \
    ((v) < 0 ? sqlite3_bind_null(s, i) : sqlite3_bind_int(s, i, v))
#define BIND_TIME(v, i) bind_time(s, i, v)
/* After run_id (?1), the field of column C is ?C+2; R_STEP_WRITE's
 * VALUES name them one by one, so a new field adds its own there. */
_Static_assert(SKED__STEP_NCOLUMNS == 12, "R_STEP_WRITE binds 12 fields");
#define BIND_STEP(m, kind, col, json)                                          \
    | BIND_##kind(r->m, SKED__STEP_COL_##m + 2)

/* Bind the step attempt W to the upsert S. */
static int step_bind(sqlite3_stmt *s, const sked__step_write *w)
{
    const sked_step_record *r = w->rec;

    return bind_text(s, 1, w->run_id) SKED__STEP_FIELDS(BIND_STEP, BIND_STEP);
}

int sked__sqlite_run_steps_write(sked__tx *c, const sked__step_write *w,
                                 size_t n, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, R_STEP_WRITE, &s, err);

    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = sked__sqlite_exec(c, s, step_bind(s, &w[i]), "recording steps",
                               err);
    return rc;
}

/* Bind run write W at NOW to S. */
static int run_write_bind(sqlite3_stmt *s, const sked__run_write *w,
                          sked_time now)
{
    return bind_text(s, 1, w->id) |
           bind_text(s, 2,
                     w->status < 0
                         ? NULL
                         : sked__run_status_name((sked_run_status) w->status)) |
           bind_text(s, 3,
                     w->outcome < 0 ? NULL
                                    : sked__run_status_name(
                                          (sked_run_status) w->outcome)) |
           bind_text(s, 4, w->output) | bind_text(s, 5, w->error) |
           bind_text(s, 6, w->error_code) | bind_time(s, 7, w->not_before) |
           bind_time(s, 8, w->finished_at) |
           bind_time(s, 9, w->timeout_exceeded_at) |
           sqlite3_bind_int64(s, 10, now);
}

int sked__sqlite_run_runs_write(sked__tx *c, const sked__run_write *w, size_t n,
                                sked_time now, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, R_RUN_WRITE, &s, err);

    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = sked__sqlite_exec(c, s, run_write_bind(s, &w[i], now),
                               "recording runs", err);
    return rc;
}

int sked__sqlite_run_failures(sked__tx *c, sked__failures *f, size_t n,
                              sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, R_FAILURES, &s, err);
    sked__row r = {&sked__sqlite_row_driver, s, 0};

    for (size_t i = 0; rc == 0 && i < n; i++) {
        int step = (rc = bind_text(s, 1, f[i].name)) == SQLITE_OK
                       ? sqlite3_step(s)
                       : rc;
        rc = 0;
        f[i].found = false;
        if (step == SQLITE_ROW)
            sked__row_failures(&r, &f[i]);
        sked__sqlite_done(s);
        if (step != SQLITE_ROW && step != SQLITE_DONE)
            rc = sked__sqlite_fail(c, step, "reading schedules", err);
    }
    return rc;
}

int sked__sqlite_run_failures_set(sked__tx *c, const sked__failures *f,
                                  size_t n, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, R_FAILURES_SET, &s, err);

    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = sked__sqlite_exec(c, s,
                               bind_text(s, 1, f[i].name) |
                                   sqlite3_bind_int(s, 2, f[i].count),
                               "counting failures", err);
    return rc;
}

/* ---- cancel and reading ------------------------------------------------- */

int sked__sqlite_run_get(sked__tx *c, const char *id, bool lock, sked_run *out,
                         sked_error *err)
{
    sked_run *v = NULL;
    sqlite3_stmt *s = NULL;
    size_t n = 0;
    int rc = stmt(c, R_RUN_GET, &s, err);

    (void) lock; /* the write lock covers it */
    if (rc != 0)
        return rc;
    bind_text(s, 1, id);
    rc = runs_query(c, s, &sked__row_run, "reading a run", &v, &n, err);
    if (rc == 0 && n == 0)
        rc = sked__error_set(err, SKED_ENOTFOUND, "id", -1, NULL);
    if (rc == 0)
        *out = v[0];
    free(v);
    return rc;
}

int sked__sqlite_run_of_schedule(sked__tx *c, const char *schedule,
                                 sked_run **out, size_t *n, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, R_RUNS_OF_SCHEDULE, &s, err);

    if (rc != 0)
        return rc;
    bind_text(s, 1, schedule);
    return runs_query(c, s, &sked__row_run, "reading runs", out, n, err);
}

int sked__sqlite_run_cancel(sked__tx *c, const char *id, const char *why,
                            sked_time now, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, why ? R_CANCEL_NOW : R_CANCEL_ASK, &s, err);

    if (rc != 0)
        return rc;
    return sked__sqlite_exec(c, s,
                             bind_text(s, 1, id) |
                                 sqlite3_bind_int64(s, 2, now) |
                                 (why ? bind_text(s, 3, why) : SQLITE_OK),
                             "cancelling a run", err);
}

int sked__sqlite_run_steps_list(sked__tx *c, const char *run_id,
                                sked_step_record **out, size_t *n,
                                sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, R_STEPS_LIST, &s, err);

    if (rc != 0)
        return rc;
    bind_text(s, 1, run_id);
    return sked__sqlite_rows(c, s, &sked__row_step, "reading steps",
                             (void **) out, n, err);
}

int sked__sqlite_run_list(sked__tx *c, const sked_run_filter *f, size_t limit,
                          sked_run **out, size_t *n, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, f->schedule ? R_RUNS_LIST_SCHEDULE : R_RUNS_LIST, &s, err);

    if (rc != 0)
        return rc;
    rc = bind_text(s, 1,
                   f->status < 0
                       ? NULL
                       : sked__run_status_name((sked_run_status) f->status)) |
         bind_text(s, 2, f->schedule) | bind_text(s, 3, f->workflow) |
         bind_time(s, 4, f->before_id ? f->before_created : SKED_TIME_NONE) |
         bind_text(s, 5, f->before_id) |
         sqlite3_bind_int64(s, 6, (sqlite3_int64) limit);
    if (rc != SQLITE_OK)
        return sked__sqlite_exec(c, s, rc, "listing runs", err);
    return runs_query(c, s, &sked__row_run, "listing runs", out, n, err);
}
