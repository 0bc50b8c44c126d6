/* SPDX-License-Identifier: MIT */
/* Rows read once for every back-end: a back-end hands the store a row as
 * a sked__row, a cursor on its result with three readers (a column's
 * text, its integer, whether it is NULL), and the readers here map the
 * columns to a run, a candidate of a claim, a step attempt, an event, a
 * queue's load or a queue's figures. The mapping of a run comes from its
 * field table (model/run_fields.h); the others' column orders are named
 * beside their SQL below, which both dialects select in.
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

/* A sked_step_record. */
#define SKED__STEP_COLUMNS                                                     \
    "step, compensation, attempt, status, output, stderr_text, truncated, "    \
    "error, error_code, exit_code, started_at, finished_at"
extern const sked__row_kind sked__row_step;

/* A sked_event: id, type, subject, payload, at. */
extern const sked__row_kind sked__row_event;

/* A sked__queue_load: name, concurrency, rate limit, rate period,
 * running, started (0 for none). */
extern const sked__row_kind sked__row_queue_load;

/* A sked_queue_info: name, concurrency, worker concurrency, rate limit,
 * rate period, pending, running (0 for none). */
extern const sked__row_kind sked__row_queue_info;

/* Copy column I of R into *dst (NULL for SQL NULL); false on ENOMEM. */
bool sked__row_dup(const sked__row *r, int i, char **dst);

/* The out-of-memory error, set in ERR: SKED_ENOMEM. */
int sked__nomem(sked_error *err);

#endif
