/* SPDX-License-Identifier: MIT */
/* The new runs and the events of the SQLite back-end (sqlite_rows.c), as
 * the method table of store_ops.h wants them; sqlite.c lists them in
 * sked__store_sqlite_ops. */
#ifndef SKED_STORE_SQLITE_ROWS_H
#define SKED_STORE_SQLITE_ROWS_H

#include "store/store_ops.h"

int sked__sqlite_rows_runs_insert(sked__tx *c, const sked_run_new *runs,
                                  size_t n, sked_time now, bool *created,
                                  sked_error *err);
int sked__sqlite_rows_runs_insert_lenient(sked__tx *c, const sked_run_new *runs,
                                          size_t n, sked_time now,
                                          sked_run_insert_state *state,
                                          sked_error *err);
int sked__sqlite_rows_runs_active(sked__tx *c, const char *const *schedules,
                                  size_t n, int64_t *counts, sked_error *err);
int sked__sqlite_rows_event_append(sked__tx *c, const char *type,
                                   const char *subject, const char *payload,
                                   sked_time at, sked_error *err);
int sked__sqlite_rows_events_append(sked__tx *c, const sked_event *ev, size_t n,
                                    int64_t *ids, sked_error *err);
int sked__sqlite_rows_event_list(sked__tx *c, int64_t after_id, size_t limit,
                                 const sked__event_filter *f, sked_event **out,
                                 size_t *n, sked_error *err);
int sked__sqlite_rows_event_last(sked__tx *c, int64_t *out, sked_error *err);
int sked__sqlite_rows_event_prune(sked__tx *c, sked_time before,
                                  int64_t *deleted, sked_error *err);

#endif
