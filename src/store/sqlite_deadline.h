/* SPDX-License-Identifier: MIT */
/* Deadlines and heartbeats on SQLite (sqlite_deadline.c, schema 0012), as
 * the method table of store_ops.h wants them. */
#ifndef SKED_STORE_SQLITE_DEADLINE_H
#define SKED_STORE_SQLITE_DEADLINE_H

#include "store/store_ops.h"

int sked__sqlite_runs_deadline_due(sked__tx *c, const char *schedule,
                                   sked_time now, size_t limit, sked_run **out,
                                   size_t *n, sked_error *err);
int sked__sqlite_run_mark(sked__tx *c, const sked__run_mark *m, sked_time now,
                          sked_error *err);
int sked__sqlite_schedule_deadline_sync(sked__tx *c, const char *schedule,
                                        int64_t missed, sked_time last,
                                        sked_time *check_at, sked_error *err);
int sked__sqlite_heartbeat_open(sked__tx *c, const char *schedule, sked_time lo,
                                sked_time hi, bool latest, sked_run *out,
                                bool *found, sked_error *err);

#endif
