/* SPDX-License-Identifier: MIT */
/* The queue and workflow-version methods of the PostgreSQL back-end
 * (pg_queue.c), as the method table of store_ops.h wants them; pg.c lists
 * them in sked__store_pg_ops. */
#ifndef SKED_STORE_PG_QUEUE_H
#define SKED_STORE_PG_QUEUE_H

#include "store/store_ops.h"

int sked__pg_queue_loads(sked__tx *tx, sked_time now, sked__queue_load **out,
                         size_t *n, sked_error *err);
int sked__pg_queue_put(sked__tx *tx, const sked_queue_def *q, sked_time now,
                       sked_error *err);
int sked__pg_queue_list(sked__tx *tx, sked_queue_info **out, size_t *n,
                        sked_error *err);
int sked__pg_queue_workflow_register(sked__tx *tx, const char *workflow,
                                     const char *version,
                                     const char *definition, sked_time now,
                                     sked_error *err);
int sked__pg_queue_workflows_list(sked__tx *tx, char **out, sked_error *err);
int sked__pg_queue_workflow_latest(sked__tx *tx, const char *workflow,
                                   char **out, sked_error *err);

#endif
