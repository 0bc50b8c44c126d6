/* SPDX-License-Identifier: MIT */
/* What the store's own files share (store.c, store_schedule.c), and the
 * URL dispatch that test tools use to reach a back-end directly. Not for
 * the layers above: they use store.h. */
#ifndef SKED_STORE_STORE_INT_H
#define SKED_STORE_STORE_INT_H

#include <stdbool.h>

#include "store/store.h"
#include "store/store_ops.h"

struct sked_store {
    const struct sked__store_ops *ops; /* borrowed: static */
    sked__backend *b;                  /* owned */
    sked_tzdb *tzdb;                   /* borrowed, or own_tzdb */
    sked_tzdb *own_tzdb;               /* owned; NULL when given */
    const sked_clock *clock;           /* borrowed; NULL: the real one */
};

/* Pick the back-end for URL (NULL: SKED_STORE_DEFAULT_URL). OUT: *ops and
 * *target (the URL without "sqlite:"; borrowed from URL). Returns 0 or
 * SKED_EINVAL with err->field "db". */
int sked__store_url_parse(const char *url, const struct sked__store_ops **ops,
                          const char **target, sked_error *err);

/* One transaction's work; returns 0 to commit, else the code (rolled back).
 * May run several times (retries): it must reset what it reports. */
typedef int (*sked__tx_fn)(sked_store *st, sked__tx *tx, void *arg,
                           sked_error *err);

/* Run FN in a transaction of MODE, retrying SKED_EBUSY (store.c). */
int sked__store_run_tx(sked_store *st, sked__tx_mode mode, sked__tx_fn fn,
                       void *arg, sked_error *err);

/* The store clock's wall time. */
sked_time sked__store_now(const sked_store *st);

/* Set S->next_fire_at (and status done when nothing is left) from NOW;
 * KEEP_PAST_AT keeps an "at" instant already past (create, update). */
int sked__store_plan_next(sked_store *st, sked_schedule *s, sked_time now,
                          bool keep_past_at, sked_error *err);

#endif
