/* SPDX-License-Identifier: MIT */
/* Notifiers and their outbox on the PostgreSQL back-end (pg_notify.c,
 * schema 0013), as the method table of store_ops.h wants them. */
#ifndef SKED_STORE_PG_NOTIFY_H
#define SKED_STORE_PG_NOTIFY_H

#include "store/store_ops.h"

int sked__pg_notifiers_read(sked__tx *tx, const char *name, char **out,
                            sked_error *err);
int sked__pg_notifier_write(sked__tx *tx, const sked__notifier_row *r,
                            bool *created, sked_error *err);
int sked__pg_notifier_delete(sked__tx *tx, const char *name, sked_time now,
                             bool *existed, sked_error *err);
int sked__pg_deliveries_queue(sked__tx *tx, const char *text, sked_error *err);
int sked__pg_deliveries_expand(sked__tx *tx, sked_error *err);
int sked__pg_deliveries_claim(sked__tx *tx, const sked__delivery_claim *q,
                              char **out, sked_error *err);
int sked__pg_delivery_finish(sked__tx *tx, const sked__delivery_end *e,
                             bool *applied, sked_error *err);
int sked__pg_deliveries_list(sked__tx *tx, const char *notifier,
                             int64_t before_id, size_t limit, char **out,
                             sked_error *err);
int sked__pg_deliveries_due(sked__tx *tx, sked_time now, int64_t *out,
                            sked_error *err);

int sked__pg_deliveries_prune(sked__tx *tx, sked_time before, sked_error *err);

#endif
