/* SPDX-License-Identifier: MIT */
/* Rows read once for every back-end: a back-end hands the store a row as
 * a sked__row, a cursor on its result with three readers (a column's
 * text, its integer, whether it is NULL), and the readers here map the
 * columns to a run, a candidate of a claim, a step attempt, an event, a
 * queue's load, a queue's figures or a schedule's freshness. The mappings of a
 * run, a step attempt, an event and a queue's two rows come from their field
 * tables (model/run_fields.h, step_fields.h, event_fields.h, queue_fields.h),
 * with the column lists both dialects select; the others' column orders
 * are named beside their SQL below.
 *
 * A reader fills one zeroed element and leaves nothing allocated in it
 * on failure; sked__row_kind pairs a reader with the size of its element
 * and the free function of an array of them, so that a back-end reads
 * every kind of list with one loop. No reader allocates but the strings
 * it copies, and none looks a column up by name: a claim reads its rows
 * through them. */
#ifndef SKED_STORE_STORE_ROW_H
#define SKED_STORE_STORE_ROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "model/step_fields.h"
#include "store/store_ops.h"

typedef struct sked__row sked__row;

/* How a back-end reads column I of its current row. */
typedef struct sked__row_driver {
    /* *out: the column's text, NULL for SQL NULL, valid until the next
     * row; false when reading it ran out of memory. */
    bool (*text)(const sked__row *r, int i, const char **out);
    /* The column as an integer (0 for NULL). */
    int64_t (*i64)(const sked__row *r, int i);
    /* Whether the column is SQL NULL. */
    bool (*null)(const sked__row *r, int i);
} sked__row_driver;

struct sked__row {
    const sked__row_driver *d;
    void *res; /* the back-end's statement or result */
    int row;   /* the row within RES, for back-ends that keep them all */
};

/* Read the current row of R into DST, one zeroed element; 0 or a sked
 * code with ERR filled, DST then holding nothing allocated. */
typedef int (*sked__row_fn)(const sked__row *r, void *dst, sked_error *err);

/* One kind of row and its array. */
typedef struct sked__row_kind {
    size_t size; /* bytes an element */
    sked__row_fn read;
    void (*free)(void *v, size_t n); /* the array V of N elements */
} sked__row_kind;

/* A sked_run: SKED__RUN_COLUMNS. */
extern const sked__row_kind sked__row_run;

/* A run a claim may take: id, workflow, workflow_version, queue, status,
 * executor, priority, not_before, created_at and started_at, the rest of
 * the sked_run as sked__run_init leaves it. */
#define SKED__CAND_COLUMNS                                                     \
    "id, workflow, workflow_version, queue, status, executor, priority, "      \
    "not_before, created_at, started_at"
extern const sked__row_kind sked__row_cand;

/* A sked_step_record: SKED__STEP_COLUMNS (model/step_fields.h). */
extern const sked__row_kind sked__row_step;

/* The columns a step attempt is written with, and the clause that makes
 * the insert an update of the row of its key, keeping the stored
 * started_at unless the attempt runs again (store_ops.h, steps_write):
 * the same words in both dialects. */
#define SKED__STEP_WRITE_COLUMNS "run_id, " SKED__STEP_COLUMNS
#define SKED__STEP_UPSERT                                                      \
    "ON CONFLICT (run_id, step, compensation, attempt) DO UPDATE SET "         \
    "status = excluded.status, output = excluded.output, "                     \
    "stderr_text = excluded.stderr_text, truncated = excluded.truncated, "     \
    "error = excluded.error, error_code = excluded.error_code, "               \
    "exit_code = excluded.exit_code, finished_at = excluded.finished_at, "     \
    "started_at = CASE WHEN excluded.status = 'running' "                      \
    "THEN excluded.started_at ELSE steps.started_at END"

/* A sked_event: SKED__EVENT_COLUMNS (model/event_fields.h). */
extern const sked__row_kind sked__row_event;

/* A sked__queue_load: SKED__QUEUE_LOAD_COLUMNS (model/queue_fields.h). */
extern const sked__row_kind sked__row_queue_load;

/* A sked_queue_info: SKED__QUEUE_INFO_COLUMNS (model/queue_fields.h). */
extern const sked__row_kind sked__row_queue_info;

/* A sked_schedule_fresh: name, last_run, last_success, as
 * SKED__SCHEDULE_FRESH_SQL selects them. Both reads are correlated
 * subqueries on runs_schedule (schedule, created_at, id), so a scrape
 * reads a few index entries per schedule, not every run: the latest run
 * is the index's last entry, the latest success the first completed one
 * walking back. ORDER is the dialect's ORDER BY clause. */
#define SKED__SCHEDULE_FRESH_SQL(order)                                        \
    "SELECT s.name, (SELECT max(r.created_at) FROM runs r "                    \
    "WHERE r.schedule = s.name), (SELECT r.finished_at FROM runs r "           \
    "WHERE r.schedule = s.name AND r.status = 'completed' "                    \
    "ORDER BY r.created_at DESC, r.id DESC LIMIT 1) FROM schedules s " order
extern const sked__row_kind sked__row_schedule_fresh;

/* A run whose lease was renewed: id, and 1 when a cancel is requested
 * (else 0). An element is a char *, the id when a cancel is requested,
 * else NULL. */
extern const sked__row_kind sked__row_renewed;

/* Turn the N rows ROWS of sked__row_renewed (taken) into the answer of
 * runs_renew (store_ops.h): *renewed N, *cancel_ids the ids with a cancel
 * requested (NULL when none), *ncancel their count. */
void sked__renewed_pick(char **rows, size_t n, size_t *renewed,
                        char ***cancel_ids, size_t *ncancel);

/* The fence of a run (store_ops.h) from its row: id, status, executor,
 * schedule, and where the row lies (NULL when the back-end has no such
 * thing). *f zeroed first; returns 0 or SKED_ENOMEM, F then empty. */
#define SKED__FENCE_COLUMNS "id, status, executor, schedule"
int sked__row_fence(const sked__row *r, sked__fence *f, sked_error *err);

/* A schedule's count of consecutive failures (store_ops.h) from its row:
 * name, status, consecutive_failures, pause_after_failures. */
#define SKED__FAILURES_COLUMNS                                                 \
    "name, status, consecutive_failures, pause_after_failures"
void sked__row_failures(const sked__row *r, sked__failures *f);

/* Copy column I of R into *dst (NULL for SQL NULL); false on ENOMEM. */
bool sked__row_dup(const sked__row *r, int i, char **dst);

/* The out-of-memory error, set in ERR: SKED_ENOMEM. */
int sked__nomem(sked_error *err);

#endif
