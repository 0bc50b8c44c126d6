/* SPDX-License-Identifier: MIT */
/* The execution methods of the SQLite back-end (sqlite_run.c), as the
 * method table of store_ops.h wants them; sqlite.c lists them in
 * sked__store_sqlite_ops. */
#ifndef SKED_STORE_SQLITE_RUN_H
#define SKED_STORE_SQLITE_RUN_H

#include "store/store_ops.h"

int sked__sqlite_run_candidates(sked__tx *c, const sked__claim_query *q,
                                sked_run **out, size_t *n, sked_error *err);
int sked__sqlite_run_take(sked__tx *c, const sked__claim_set *set,
                          sked_run **out, size_t *n, sked_error *err);
int sked__sqlite_run_steps_close(sked__tx *c, const sked__steps_close *sc,
                                 sked_error *err);
int sked__sqlite_run_renew(sked__tx *c, const char *executor,
                           const char *const *held, size_t nheld,
                           sked_time lease_until, size_t *renewed,
                           char ***cancel_ids, size_t *ncancel,
                           sked_error *err);
int sked__sqlite_run_release(sked__tx *c, const char *executor, const char *why,
                             sked_time now, sked_error *err);
int sked__sqlite_run_fence(sked__tx *c, const char *const *ids, size_t n,
                           sked__fence *out, sked_error *err);
int sked__sqlite_run_steps_write(sked__tx *c, const sked__step_write *w,
                                 size_t n, sked_error *err);
int sked__sqlite_run_runs_write(sked__tx *c, const sked__run_write *w, size_t n,
                                sked_time now, sked_error *err);
int sked__sqlite_run_failures(sked__tx *c, sked__failures *f, size_t n,
                              sked_error *err);
int sked__sqlite_run_failures_set(sked__tx *c, const sked__failures *f,
                                  size_t n, sked_error *err);
int sked__sqlite_run_get(sked__tx *c, const char *id, bool lock, sked_run *out,
                         sked_error *err);
int sked__sqlite_run_of_schedule(sked__tx *c, const char *schedule,
                                 sked_run **out, size_t *n, sked_error *err);
int sked__sqlite_run_cancel(sked__tx *c, const char *id, const char *why,
                            sked_time now, sked_error *err);
int sked__sqlite_run_steps_list(sked__tx *c, const char *run_id,
                                sked_step_record **out, size_t *n,
                                sked_error *err);
int sked__sqlite_run_list(sked__tx *c, const sked_run_filter *f, size_t limit,
                          sked_run **out, size_t *n, sked_error *err);

#endif
