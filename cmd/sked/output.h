/* SPDX-License-Identifier: MIT */
/* What the commands that read print: aligned tables for people, JSON for
 * scripts (SPEC 7), and instants written in UTC or in a zone.
 *
 * A table is filled row by row and printed once, so that every column is
 * as wide as its widest cell. Cells are copied; the table owns them. */
#ifndef SKED_CMD_OUTPUT_H
#define SKED_CMD_OUTPUT_H

#include <stddef.h>

#include <jansson.h>

#include "sked/sked.h"

/* Most columns a table has. */
#define OUT_COLS_MAX 8
/* A buffer for out_time_local / out_time_utc. */
#define OUT_TIME_MAX 48

typedef struct out_table {
    size_t ncols;
    const char *heads[OUT_COLS_MAX]; /* borrowed */
    char **cells;                    /* owned: nrows * ncols strings */
    size_t nrows, cap;
} out_table;

/* Start a table of NCOLS columns named by HEADS (borrowed). */
void out_table_init(out_table *t, size_t ncols, const char *const *heads);

/* Append a row of t->ncols cells (copied; NULL prints "-"). Returns 0 or
 * SKED_ENOMEM. */
int out_table_add(out_table *t, const char *const *cells);

/* Print T to stdout, heads in capitals, two spaces between columns. */
void out_table_print(const out_table *t);

void out_table_done(out_table *t);

/* Print J (a reference the call takes) to stdout as indented JSON, and
 * flush. Returns the exit code (0, or 1 when writing failed). */
int out_json(json_t *j);

/* Print each string of the array WARNINGS (SPEC 3.5's "warnings" of an
 * answer; NULL or not an array: none) on stderr, as cli_warn does. */
void out_warnings(const json_t *warnings);

/* Write T in UTC ("2026-11-30T08:00:00Z") into BUF, or "-" when T is
 * SKED_TIME_NONE. */
void out_time_utc(sked_time t, char *buf, size_t size);

/* Write T as the wall clock of TZ shows it, with the offset
 * ("2026-11-30T09:00:00+01:00"), or "-" when T is SKED_TIME_NONE. */
void out_time_local(sked_time t, const sked_tz *tz, char *buf, size_t size);

#endif
