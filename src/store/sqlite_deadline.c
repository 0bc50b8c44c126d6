/* SPDX-License-Identifier: MIT */
/* Deadlines and heartbeats on SQLite (store_ops.h, schema 0012): the runs
 * of a schedule due for a deadline check (runs_deadline), a run's mark, a
 * schedule's next check as the least deadline of its runs, and the open
 * heartbeat run a ping is for. BEGIN IMMEDIATE serialises the writers,
 * so reading is locking. */
#include "store/sqlite_deadline.h"

#include <stdlib.h>

#include "base/error.h"
#include "store/sqlite.h"
#include "store/store_row.h"

static const char *const DUE =
    "SELECT " SKED__RUN_COLUMNS " FROM runs INDEXED BY runs_deadline "
    "WHERE schedule = ?1 AND deadline_at IS NOT NULL AND deadline_at <= ?2 "
    "ORDER BY deadline_at, id LIMIT ?3";
static const char *const MARK =
    "UPDATE runs SET status = coalesce(?2, status), "
    "started_at = coalesce(started_at, ?3), "
    "finished_at = coalesce(?4, finished_at), output = coalesce(?5, output), "
    "error = coalesce(?6, error), error_code = coalesce(?7, error_code), "
    "deadline_at = CASE WHEN ?8 THEN ?9 ELSE deadline_at END, "
    "deadline_missed = coalesce(?10, deadline_missed), updated_at = ?11 "
    "WHERE id = ?1";
static const char *const SYNC =
    "UPDATE schedules SET deadline_check_at = (SELECT min(deadline_at) "
    "FROM runs INDEXED BY runs_deadline WHERE schedule = ?1 "
    "AND deadline_at IS NOT NULL), deadlines_missed = deadlines_missed + ?2, "
    "last_deadline_missed_at = coalesce(?3, last_deadline_missed_at) "
    "WHERE name = ?1 RETURNING deadline_check_at";
#define OPEN_SQL(order)                                                        \
    "SELECT " SKED__RUN_COLUMNS " FROM runs WHERE schedule = ?1 "              \
    "AND trigger_kind = 'heartbeat' AND (status = 'pending' "                  \
    "OR status = 'running') AND scheduled_for > ?2 AND scheduled_for <= ?3 "   \
    "ORDER BY scheduled_for " order " LIMIT 1"
static const char *const OPEN_LATEST = OPEN_SQL("DESC");
static const char *const OPEN_EARLIEST = OPEN_SQL("ASC");

int sked__sqlite_runs_deadline_due(sked__tx *c, const char *schedule,
                                   sked_time now, size_t limit, sked_run **out,
                                   size_t *n, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sked__sqlite_stmt(c, DUE, &s, err);

    if (rc != 0)
        return rc;
    if ((bind_text(s, 1, schedule) | sqlite3_bind_int64(s, 2, now) |
         sqlite3_bind_int64(s, 3, (sqlite3_int64) limit)) != SQLITE_OK) {
        sked__sqlite_done(s);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    return sked__sqlite_rows(c, s, &sked__row_run, "reading runs due a check",
                             (void **) out, n, err);
}

int sked__sqlite_run_mark(sked__tx *c, const sked__run_mark *m, sked_time now,
                          sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sked__sqlite_stmt(c, MARK, &s, err), bound;

    if (rc != 0)
        return rc;
    bound =
        bind_text(s, 1, m->id) |
        bind_text(s, 2,
                  m->status < 0
                      ? NULL
                      : sked__run_status_name((sked_run_status) m->status)) |
        bind_time(s, 3, m->started_at) | bind_time(s, 4, m->finished_at) |
        bind_text(s, 5, m->output) | bind_text(s, 6, m->error) |
        bind_text(s, 7, m->error_code) |
        sqlite3_bind_int(s, 8, m->deadline_set) |
        bind_time(s, 9, m->deadline_at) | bind_text(s, 10, m->deadline_missed) |
        sqlite3_bind_int64(s, 11, now);
    return sked__sqlite_exec(c, s, bound, "marking a run", err);
}

int sked__sqlite_schedule_deadline_sync(sked__tx *c, const char *schedule,
                                        int64_t missed, sked_time last,
                                        sked_time *check_at, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sked__sqlite_stmt(c, SYNC, &s, err), step;

    if (rc != 0)
        return rc;
    *check_at = SKED_TIME_NONE;
    if ((bind_text(s, 1, schedule) | sqlite3_bind_int64(s, 2, missed) |
         bind_time(s, 3, last)) != SQLITE_OK) {
        sked__sqlite_done(s);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    step = sqlite3_step(s);
    if (step == SQLITE_ROW) {
        *check_at = col_time(s, 0);
        step = sqlite3_step(s);
    }
    if (step != SQLITE_DONE)
        rc = sked__sqlite_fail(c, step, "setting a schedule's deadline check",
                               err);
    sked__sqlite_done(s);
    return rc;
}

int sked__sqlite_heartbeat_open(sked__tx *c, const char *schedule, sked_time lo,
                                sked_time hi, bool latest, sked_run *out,
                                bool *found, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    sked_run *v = NULL;
    size_t n = 0;
    int rc =
        sked__sqlite_stmt(c, latest ? OPEN_LATEST : OPEN_EARLIEST, &s, err);

    if (rc != 0)
        return rc;
    if ((bind_text(s, 1, schedule) | sqlite3_bind_int64(s, 2, lo) |
         sqlite3_bind_int64(s, 3, hi)) != SQLITE_OK) {
        sked__sqlite_done(s);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    rc = sked__sqlite_rows(c, s, &sked__row_run, "reading heartbeat runs",
                           (void **) &v, &n, err);
    *found = rc == 0 && n > 0;
    if (*found) {
        *out = v[0];
        free(v);
    } else {
        sked__runs_free(v, n);
    }
    return rc;
}
