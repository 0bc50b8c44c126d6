/* SPDX-License-Identifier: MIT */
/* The run's field table: every column of the runs table that a sked_run
 * holds, once, with its member, its kind, its SQL column and its JSON key
 * ("" for the columns the API does not show). From it come the column
 * list both back-ends select (SKED__RUN_COLUMNS), the column numbers, the
 * one reading of a row (store_row.c), the freeing and initialising of a
 * sked_run and the run's JSON (run_json.c).
 *
 * SKED__RUN_FIELDS(F, X) calls F for the first field and X for each of
 * the others (a column list joins them with ", "; other uses pass one
 * macro twice). The order is the JSON's: the columns of a row come in it
 * too. Kinds: TEXT (a string, SQL NULL is NULL), DOC (text holding JSON,
 * embedded as JSON when it parses), STATUS (a sked_run_status word),
 * TRIGGER (a sked_trigger word), I32, TIME (an instant, SQL NULL is
 * SKED_TIME_NONE) and OUTCOME (NULL, or the status the failure path ends
 * with: sets failing and outcome). Header only. */
#ifndef SKED_MODEL_RUN_FIELDS_H
#define SKED_MODEL_RUN_FIELDS_H

#include "model/fields.h"

#define SKED__RUN_FIELDS(F, X) SKED__RUN_SHOWN(F, X) SKED__RUN_HIDDEN(X)

/* The fields the API shows, which a public sked_run_view holds under the
 * same names, and those it does not. */
#define SKED__RUN_SHOWN(F, X)                                                  \
    F(id, TEXT, "id", "id")                                                    \
    X(workflow, TEXT, "workflow", "workflow")                                  \
    X(workflow_version, TEXT, "workflow_version", "workflow_version")          \
    X(status, STATUS, "status", "status")                                      \
    X(trigger, TRIGGER, "trigger_kind", "trigger")                             \
    X(schedule, TEXT, "schedule", "schedule")                                  \
    X(queue, TEXT, "queue", "queue")                                           \
    X(priority, I32, "priority", "priority")                                   \
    X(concurrency_key, TEXT, "concurrency_key", "concurrency_key")             \
    X(context, DOC, "context", "context")                                      \
    X(output, DOC, "output", "output")                                         \
    X(error, TEXT, "error", "error")                                           \
    X(error_code, TEXT, "error_code", "error_code")                            \
    X(attempts, I32, "attempts", "attempts")                                   \
    X(executor, TEXT, "executor", "executor")                                  \
    X(scheduled_for, TIME, "scheduled_for", "scheduled_for")                   \
    X(occurrence, TIME, "occurrence_at", "occurrence")                         \
    X(not_before, TIME, "not_before", "not_before")                            \
    X(created_at, TIME, "created_at", "created_at")                            \
    X(started_at, TIME, "started_at", "started_at")                            \
    X(finished_at, TIME, "finished_at", "finished_at")                         \
    X(updated_at, TIME, "updated_at", "updated_at")                            \
    X(lease_until, TIME, "lease_until", "lease_until")                         \
    X(cancel_requested_at, TIME, "cancel_requested_at", "cancel_requested_at") \
    X(timeout_exceeded_at, TIME, "timeout_exceeded_at", "timeout_exceeded_at") \
    X(deadline_at, TIME, "deadline_at", "deadline_at")                         \
    X(deadline_missed, TEXT, "deadline_missed", "deadline_missed")
#define SKED__RUN_HIDDEN(X)                                                    \
    X(serial_key, TEXT, "serial_key", "")                                      \
    X(outcome, OUTCOME, "outcome", "")

/* The column numbers of a row read as SKED__RUN_COLUMNS, and their count
 * (SKED__RUN_NCOLUMNS: the first column after them). */
#define SKED__RUN_COL_ENUM(m, kind, col, json) SKED__RUN_COL_##m,
enum {
    SKED__RUN_FIELDS(SKED__RUN_COL_ENUM, SKED__RUN_COL_ENUM) SKED__RUN_NCOLUMNS
};
#undef SKED__RUN_COL_ENUM

/* The columns of the runs table, in the table's order, for a SELECT or a
 * RETURNING. */
#define SKED__RUN_COLUMNS SKED__COLUMNS(SKED__RUN_FIELDS)

#endif
