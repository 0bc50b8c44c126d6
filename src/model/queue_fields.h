/* SPDX-License-Identifier: MIT */
/* The queue's field tables: the two rows a back-end reads of a queue,
 * each field once with its member, its kind, the SQL it is selected as
 * and its JSON key ("" for none). A queue's load (sked__queue_load, what
 * a claim counts: SKED__QUEUE_LOAD_FIELDS) and its figures as listed
 * (sked_queue_info: SKED__QUEUE_INFO_FIELDS). From them come the column
 * lists both back-ends select, the column numbers and the one reading of
 * each row (store/store_row.c).
 *
 * The tables call F for the first field and X for each of the others, as
 * SKED__RUN_FIELDS does (run_fields.h). Kinds: TEXT (a string), I32 and
 * I64 (SQL NULL is 0). The figures are counted by expressions: the two
 * counts of a load are worded per dialect, so a back-end defines
 * SKED__QUEUE_RUNNING_SQL and SKED__QUEUE_STARTED_SQL before it uses
 * SKED__QUEUE_LOAD_COLUMNS; a listing selects its figures from a subquery
 * l of columns name, c, w, r, p, pending and running (the limits, 0 for
 * none, and the counts). Header only. */
#ifndef SKED_MODEL_QUEUE_FIELDS_H
#define SKED_MODEL_QUEUE_FIELDS_H

#include "model/fields.h"

#define SKED__QUEUE_LOAD_FIELDS(F, X)                                          \
    F(name, TEXT, "name", "")                                                  \
    X(concurrency, I32, "coalesce(concurrency, 0)", "")                        \
    X(rate_limit, I32, "coalesce(rate_limit, 0)", "")                          \
    X(rate_period, I64, "coalesce(rate_period_us, 0)", "")                     \
    X(running, I64, SKED__QUEUE_RUNNING_SQL, "")                               \
    X(started, I64, SKED__QUEUE_STARTED_SQL, "")

#define SKED__QUEUE_INFO_FIELDS(F, X)                                          \
    F(name, TEXT, "name", "name")                                              \
    X(concurrency, I32, "max(c)", "concurrency")                               \
    X(worker_concurrency, I32, "max(w)", "worker_concurrency")                 \
    X(rate_limit, I32, "max(r)", "rate_limit")                                 \
    X(rate_period, I64, "max(p)", "rate_period_secs")                          \
    X(pending, I64, "sum(pending)", "pending")                                 \
    X(running, I64, "sum(running)", "running")

/* The column numbers of the two rows. */
#define SKED__QUEUE_LOAD_COL_ENUM(m, kind, col, json) SKED__QUEUE_LOAD_COL_##m,
#define SKED__QUEUE_INFO_COL_ENUM(m, kind, col, json) SKED__QUEUE_INFO_COL_##m,
enum {
    SKED__QUEUE_LOAD_FIELDS(SKED__QUEUE_LOAD_COL_ENUM,
                            SKED__QUEUE_LOAD_COL_ENUM) SKED__QUEUE_LOAD_NCOLUMNS
};
enum {
    SKED__QUEUE_INFO_FIELDS(SKED__QUEUE_INFO_COL_ENUM,
                            SKED__QUEUE_INFO_COL_ENUM) SKED__QUEUE_INFO_NCOLUMNS
};
#undef SKED__QUEUE_LOAD_COL_ENUM
#undef SKED__QUEUE_INFO_COL_ENUM

/* The select lists of the two rows, in the tables' order. */
#define SKED__QUEUE_LOAD_COLUMNS SKED__COLUMNS(SKED__QUEUE_LOAD_FIELDS)
#define SKED__QUEUE_INFO_COLUMNS SKED__COLUMNS(SKED__QUEUE_INFO_FIELDS)

#endif
