/* SPDX-License-Identifier: MIT */
/* The execution methods of the PostgreSQL back-end (pg_run.c, and
 * pg_run_ops.c for the executor's writes), as the method table of
 * store_ops.h wants them; pg.c lists them in sked__store_pg_ops. */
#ifndef SKED_STORE_PG_RUN_H
#define SKED_STORE_PG_RUN_H

#include <libpq-fe.h>

#include "store/pg.h"
#include "store/store_ops.h"

/* The word of run status S (a sked_run_status), or NULL when S < 0. */
const char *sked__pg_run_status(int s);

int sked__pg_run_candidates(sked__tx *tx, const sked__claim_query *q,
                            sked_run **out, size_t *n, sked_error *err);
int sked__pg_run_take(sked__tx *tx, const sked__claim_set *set, sked_run **out,
                      size_t *n, sked_error *err);
int sked__pg_run_take_ready(sked__tx *tx, const sked__claim_query *q,
                            const sked__claim_set *set, sked_run **out,
                            bool **first, size_t *n, sked_error *err);
int sked__pg_run_steps_close(sked__tx *tx, const sked__steps_close *sc,
                             sked_error *err);
int sked__pg_run_renew(sked__tx *tx, const char *executor,
                       const char *const *held, size_t nheld,
                       sked_time lease_until, size_t *renewed,
                       char ***cancel_ids, size_t *ncancel, sked_error *err);
int sked__pg_run_release(sked__tx *tx, const char *executor, const char *why,
                         sked_time now, sked_error *err);
int sked__pg_run_fence(sked__tx *tx, const char *const *ids, size_t n,
                       sked__fence *out, sked_error *err);
int sked__pg_run_steps_write(sked__tx *tx, const sked__step_write *w, size_t n,
                             sked_error *err);
int sked__pg_run_runs_write(sked__tx *tx, const sked__run_write *w, size_t n,
                            sked_time now, sked_error *err);
int sked__pg_run_failures(sked__tx *tx, sked__failures *f, size_t n,
                          sked_error *err);
int sked__pg_run_failures_set(sked__tx *tx, const sked__failures *f, size_t n,
                              sked_error *err);
int sked__pg_run_get(sked__tx *tx, const char *id, bool lock, sked_run *out,
                     sked_error *err);
int sked__pg_run_of_schedule(sked__tx *tx, const char *schedule, sked_run **out,
                             size_t *n, sked_error *err);
int sked__pg_run_cancel(sked__tx *tx, const char *id, const char *why,
                        sked_time now, sked_error *err);
int sked__pg_run_steps_list(sked__tx *tx, const char *run_id,
                            sked_step_record **out, size_t *n, sked_error *err);
int sked__pg_run_list(sked__tx *tx, const sked_run_filter *f, size_t limit,
                      sked_run **out, size_t *n, sked_error *err);

#endif
