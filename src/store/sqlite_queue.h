/* SPDX-License-Identifier: MIT */
/* The queue and workflow-version methods of the SQLite back-end
 * (sqlite_queue.c), as the method table of store_ops.h wants them;
 * sqlite.c lists them in sked__store_sqlite_ops. */
#ifndef SKED_STORE_SQLITE_QUEUE_H
#define SKED_STORE_SQLITE_QUEUE_H

#include "store/store_ops.h"

int sked__sqlite_queue_loads(sked__tx *c, sked_time now, sked__queue_load **out,
                             size_t *n, sked_error *err);
int sked__sqlite_queue_put(sked__tx *c, const sked_queue_def *q, sked_time now,
                           sked_error *err);
int sked__sqlite_queue_list(sked__tx *c, sked_queue_info **out, size_t *n,
                            sked_error *err);
int sked__sqlite_queue_workflow_register(sked__tx *c, const char *workflow,
                                         const char *version,
                                         const char *definition, sked_time now,
                                         sked_error *err);
int sked__sqlite_queue_workflows_list(sked__tx *c, char **out, sked_error *err);
int sked__sqlite_queue_workflow_latest(sked__tx *c, const char *workflow,
                                       char **out, sked_error *err);

#endif
