/* SPDX-License-Identifier: MIT */
/* The freshness of schedules (store_run.h): when each last made a run and
 * when its latest completed run finished, read for the metrics' scrape
 * (engine/metrics.c) from the runs themselves, so every server reports
 * the same figures and a restart forgets none. */
#include <stdlib.h>

#include "base/error.h"
#include "store/store_int.h"

void sked__schedule_fresh_free(sked_schedule_fresh *list, size_t n)
{
    for (size_t i = 0; list && i < n; i++)
        free(list[i].name);
    free(list);
}

struct fresh_arg {
    sked_schedule_fresh *list;
    size_t n;
};

static int fresh_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct fresh_arg *a = arg;

    sked__schedule_fresh_free(a->list, a->n);
    a->list = NULL;
    a->n = 0;
    return st->ops->schedules_fresh(tx, &a->list, &a->n, err);
}

int sked__store_schedules_fresh(sked_store *st, sked_schedule_fresh **out,
                                size_t *n, sked_error *err)
{
    struct fresh_arg a = {0};
    int rc = sked__store_run_tx(st, SKED__TX_READ, fresh_tx, &a, err);

    if (rc != 0) {
        sked__schedule_fresh_free(a.list, a.n);
        return rc;
    }
    *out = a.list;
    *n = a.n;
    return 0;
}
