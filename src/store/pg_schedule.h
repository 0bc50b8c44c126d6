/* SPDX-License-Identifier: MIT */
/* The schedule methods of the PostgreSQL back-end (pg_schedule.c), rows
 * and the scheduler's reads and writes, as the method table of
 * store_ops.h wants them; pg.c lists them in sked__store_pg_ops. */
#ifndef SKED_STORE_PG_SCHEDULE_H
#define SKED_STORE_PG_SCHEDULE_H

#include "store/store_ops.h"

int sked__pg_schedule_get(sked__tx *tx, const char *name, sked_schedule *out,
                          sked_error *err);
int sked__pg_schedule_insert(sked__tx *tx, const sked_schedule *s,
                             sked_error *err);
int sked__pg_schedule_update(sked__tx *tx, const sked_schedule *s,
                             sked_error *err);
int sked__pg_schedule_delete(sked__tx *tx, const char *name, bool *existed,
                             sked_error *err);
int sked__pg_schedule_list(sked__tx *tx, const sked__schedule_query *q,
                           sked_schedule **out, size_t *n, sked_error *err);
int sked__pg_schedule_heads(sked__tx *tx, sked_time since,
                            const char *after_name, size_t limit,
                            sked_schedule_head **out, size_t *n,
                            sked_error *err);
int sked__pg_schedule_lock(sked__tx *tx, const char *const *names, size_t n,
                           sked_schedule **out, size_t *nout, sked_error *err);
int sked__pg_schedule_advance(sked__tx *tx, const sked__advance *a, size_t n,
                              bool *applied, sked_error *err);

int sked__pg_schedules_fresh(sked__tx *tx, sked_schedule_fresh **out, size_t *n,
                             sked_error *err);

#endif
