/* SPDX-License-Identifier: MIT */
/* The decision of a firing (SPEC 3.2-3.4), inside its transaction: the
 * store has locked schedule S's row and counted its ACTIVE runs; the
 * policy plans from them at NOW, and the plan becomes the decision OUT
 * (sked_firing, store.h): the runs to create, with their ids, serial and
 * concurrency keys and jitter, the cursor to move, the occurrences
 * missed, and whether to cancel the others. A schedule whose expression
 * or zone no longer loads is disabled, with the reason. The loop calls
 * this for every row it fires (sched/loop.c). */
#ifndef SKED_SCHED_DECIDE_H
#define SKED_SCHED_DECIDE_H

#include <stdint.h>

#include "sched/policy.h"
#include "store/store.h"

/* Decide the firing of S at NOW, TICK the loop's tick, zones from TZDB
 * (borrowed), its calendars DAYS and skipped occurrences SKIPS (NSKIPS,
 * ascending; both borrowed, may be NULL). Returns 0, or a negative SKED_E...
 * code; OUT then holds what was built so far, which the store frees either way.
 */
int sked__decide(sked_tzdb *tzdb, sked_time now, sked_dur tick,
                 const sked_schedule *s, const sked__occ_days *days,
                 const sked_time *skips, size_t nskips, int64_t active,
                 sked_firing *out);

#endif
