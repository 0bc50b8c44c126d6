/* SPDX-License-Identifier: MIT */
/* The schedule methods of the SQLite back-end (sqlite_schedule.c), rows
 * and the scheduler's reads and writes, as the method table of
 * store_ops.h wants them; sqlite.c lists them in sked__store_sqlite_ops. */
#ifndef SKED_STORE_SQLITE_SCHEDULE_H
#define SKED_STORE_SQLITE_SCHEDULE_H

#include "store/store_ops.h"

int sked__sqlite_schedule_get(sked__tx *c, const char *name, sked_schedule *out,
                              sked_error *err);
int sked__sqlite_schedule_insert(sked__tx *c, const sked_schedule *r,
                                 sked_error *err);
int sked__sqlite_schedule_update(sked__tx *c, const sked_schedule *r,
                                 sked_error *err);
int sked__sqlite_schedule_delete(sked__tx *c, const char *name, bool *existed,
                                 sked_error *err);
int sked__sqlite_schedule_list(sked__tx *c, const sked__schedule_query *q,
                               sked_schedule **out, size_t *n, sked_error *err);
int sked__sqlite_schedule_heads(sked__tx *c, sked_time since,
                                const char *after_name, size_t limit,
                                sked_schedule_head **out, size_t *n,
                                sked_error *err);
int sked__sqlite_schedule_lock(sked__tx *c, const char *const *names, size_t n,
                               sked_schedule **out, size_t *nout,
                               sked_error *err);
int sked__sqlite_schedule_advance(sked__tx *c, const sked__advance *a, size_t n,
                                  bool *applied, sked_error *err);
int sked__sqlite_schedules_fresh(sked__tx *c, sked_schedule_fresh **out,
                                 size_t *n, sked_error *err);

#endif
