/* SPDX-License-Identifier: MIT */
/* The engine's inside (engine.c), for the layers that sit beside it in
 * sked itself: the server's metrics and logs. Not installed. */
#ifndef SKED_ENGINE_ENGINE_INT_H
#define SKED_ENGINE_ENGINE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "sched/loop.h"
#include "sked/engine.h"
#include "store/store.h"

/* The engine's store and scheduler loop, borrowed until
 * sked_engine_close. */
sked_store *sked__engine_store(sked_engine *e);
sked_loop *sked__engine_loop(sked_engine *e);

/* The occurrences of SCHEDULE dropped for reason R since the engine
 * opened (sked_schedule_missed_total{schedule,reason}). */
int64_t sked__engine_missed(sked_engine *e, const char *schedule,
                            sked_miss_reason r);

/* Call FN for every (schedule, reason) with a count above 0, under the
 * loop's lock: FN must not call back into the engine. */
void sked__engine_missed_each(sked_engine *e, sked_missed_fn fn, void *ctx);

/* The database clock minus the engine's (sked_clock_skew_seconds), as
 * last measured; false when not measured (SQLite). SPEC 3.2: over 1 s,
 * the server logs a warning. */
bool sked__engine_clock_skew(sked_engine *e, sked_dur *out);

#endif
