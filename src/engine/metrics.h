/* SPDX-License-Identifier: MIT */
/* The counters behind GET /metrics (SPEC 5) that the engine keeps itself:
 * finished runs by workflow and status, workflow timeouts, the run
 * duration and the fire lag histograms. They are fed by the events this
 * engine delivers (sked__engine_deliver), so they count what this engine
 * did since it opened, as Prometheus counters should; the gauges are read
 * at scrape time by sked_engine_metrics (metrics.c). */
#ifndef SKED_ENGINE_METRICS_H
#define SKED_ENGINE_METRICS_H

#include <stddef.h>

#include "store/store.h"

typedef struct sked_metrics sked_metrics;

/* OUT: *out, freed with sked__metrics_free. Returns 0 or SKED_ENOMEM. */
int sked__metrics_new(sked_metrics **out);

/* NULL does nothing. */
void sked__metrics_free(sked_metrics *m);

/* Count the N committed events EV (any thread; M may be NULL). */
void sked__metrics_observe(sked_metrics *m, const sked_event *ev, size_t n);

/* Count one attempt of a delivery to NOTIFIER with RESULT: "delivered",
 * "retry" or "failed" (sked_notifications_total{notifier,result}). */
void sked__metrics_notify(sked_metrics *m, const char *notifier,
                          const char *result);

#endif
