/* SPDX-License-Identifier: MIT */
/* The step attempt's field table: every column of the steps table that a
 * sked_step_record holds (all but run_id, the run it belongs to), once,
 * with its member, its kind, its SQL column and its JSON key ("" for the
 * one the API shows otherwise: truncated, as two flags). From it come the
 * column list both back-ends select and write (SKED__STEP_COLUMNS), the
 * column numbers, the one reading of a row (store/store_row.c), the
 * binding of one on each back-end (store/sqlite_run.c, pg_run_ops.c) and
 * the freeing of a sked_step_record (run.c).
 *
 * SKED__STEP_FIELDS(F, X) calls F for the first field and X for each of
 * the others, as SKED__RUN_FIELDS does (run_fields.h). Kinds: TEXT (a
 * string, SQL NULL is NULL), BOOL (0 or 1), I32, STEP_STATUS (a
 * sked_step_status word), FLAGS (an int of bits), EXIT (an exit status,
 * SQL NULL is -1) and TIME (an instant, SQL NULL is SKED_TIME_NONE).
 * Header only. */
#ifndef SKED_MODEL_STEP_FIELDS_H
#define SKED_MODEL_STEP_FIELDS_H

#include "model/fields.h"

#define SKED__STEP_FIELDS(F, X)                                                \
    F(step, TEXT, "step", "step")                                              \
    X(compensation, BOOL, "compensation", "compensation")                      \
    X(attempt, I32, "attempt", "attempt")                                      \
    X(status, STEP_STATUS, "status", "status")                                 \
    X(output, TEXT, "output", "output")                                        \
    X(stderr_text, TEXT, "stderr_text", "stderr")                              \
    X(truncated, FLAGS, "truncated", "")                                       \
    X(error, TEXT, "error", "error")                                           \
    X(error_code, TEXT, "error_code", "error_code")                            \
    X(exit_code, EXIT, "exit_code", "exit_code")                               \
    X(started_at, TIME, "started_at", "started_at")                            \
    X(finished_at, TIME, "finished_at", "finished_at")

/* The column numbers of a row read as SKED__STEP_COLUMNS, and their
 * count. */
#define SKED__STEP_COL_ENUM(m, kind, col, json) SKED__STEP_COL_##m,
enum {
    SKED__STEP_FIELDS(SKED__STEP_COL_ENUM, SKED__STEP_COL_ENUM)
        SKED__STEP_NCOLUMNS
};
#undef SKED__STEP_COL_ENUM

/* The columns of a step attempt, in the table's order, for a SELECT, or
 * after run_id for an INSERT. */
#define SKED__STEP_COLUMNS SKED__COLUMNS(SKED__STEP_FIELDS)

#endif
