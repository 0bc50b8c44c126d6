/* SPDX-License-Identifier: MIT */
/* Notifiers and their outbox in the store (store_notify.c, schema 0013;
 * docs/notifications.md): notifiers written and read, and the deliveries
 * the event transactions write (sked__ev_flush), claimed with a lease,
 * ended attempt by attempt, and listed for the notify log. For the
 * engine; the layers above reach them through sked/engine.h. */
#ifndef SKED_STORE_STORE_NOTIFY_H
#define SKED_STORE_STORE_NOTIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/notifier.h"
#include "store/store.h"
#include "store/store_ops.h"

/* One claimed delivery: the event to send to NOTIFIER. */
typedef struct sked_delivery {
    int64_t id, event_id;
    char *notifier; /* owned */
    char *event;    /* owned: the event's JSON text, as it is sent */
    int attempts;   /* with this one */
    sked_time deadline_at, created_at;
} sked_delivery;

void sked__deliveries_free(sked_delivery *v, size_t n);

/* Write N (validated first) as an API notifier, or as SOURCE's when it
 * says code; *created (may be NULL) tells whether it is new. */
int sked__store_notifier_put(sked_store *st, const sked_notifier *n,
                             bool *created, sked_error *err);
/* Read NAME into *out (sked__notifier_done); SKED_ENOTFOUND. */
int sked__store_notifier_get(sked_store *st, const char *name,
                             sked_notifier *out, sked_error *err);
/* Every notifier by name (sked__notifiers_free). */
int sked__store_notifier_list(sked_store *st, sked_notifier **out, size_t *n,
                              sked_error *err);
/* Delete NAME (its pending deliveries fail); SKED_ENOTFOUND. */
int sked__store_notifier_delete(sked_store *st, const char *name,
                                sked_error *err);
/* Make the N notifiers SET the code notifiers of APP, in one
 * transaction: each written, and APP's code notifiers not in SET
 * deleted. An API notifier of a name in SET becomes APP's; a name
 * another app holds is SKED_ECONFLICT, naming "notifiers.NAME".
 * *changed (may be NULL) is the count written or deleted. */
int sked__store_notifiers_sync(sked_store *st, const char *app,
                               const sked_notifier *set, size_t n,
                               size_t *changed, sked_error *err);
/* The same with the deletion only with PRUNE (sked apply --prune), and
 * what changed into *res (may be NULL): created, updated, unchanged and
 * deleted, with their first names. */
int sked__store_notifiers_apply(sked_store *st, const char *app,
                                const sked_notifier *set, size_t n, bool prune,
                                sked_apply_result *res, sked_error *err);

/* Lease to OWNER for LEASE at most LIMIT due deliveries (store_ops.h
 * deliveries_claim); *out of *n (sked__deliveries_free). */
int sked__store_deliveries_claim(sked_store *st, const char *owner,
                                 sked_dur lease, size_t limit,
                                 sked_delivery **out, size_t *n,
                                 sked_error *err);
/* End one attempt (store_ops.h delivery_finish), at the store's now. */
int sked__store_delivery_finish(sked_store *st, sked__delivery_end *e,
                                bool *applied, sked_error *err);
/* The notify log: deliveries of NOTIFIER (NULL: all) with id < BEFORE
 * (0: any), newest first, at most LIMIT (0: 100; at most 1000), as one
 * JSON array text (*out owned). */
int sked__store_deliveries_log(sked_store *st, const char *notifier,
                               int64_t before, size_t limit, char **out,
                               sked_error *err);
/* Whether any delivery is due now (*out 1, else 0): a read. */
int sked__store_deliveries_due(sked_store *st, int64_t *out, sked_error *err);

#endif
