/* SPDX-License-Identifier: MIT */
/* Calendar-day intervals (SPEC 12: `every: Nd` with calendar_days): the
 * anchor's local time of day every N days, across DST changes. */
#ifndef SKED_CRON_EVERY_DAYS_H
#define SKED_CRON_EVERY_DAYS_H

#include "sked/cron.h"

/* The widest interval in days (SPEC 2.3: every is at most 366 days). */
#define SKED__EVERY_DAYS_MAX 366

/* Store in *out the first occurrence strictly after AFTER of "every DAYS
 * calendar days from ANCHOR" in TZ under DST: the anchor's wall-clock time
 * (its whole second, in TZ) + k * DAYS days for k >= 1, mapped to an
 * instant by the policy, with its mark. Returns 0, SKED_ENOTFOUND, or
 * SKED_EINVAL (NULL argument, DAYS outside 1..366, DST out of range). */
int sked__every_days_next(sked_time anchor, int days, const sked_tz *tz,
                          sked_dst dst, sked_time after, sked_occurrence *out);

/* Store in *out the last occurrence strictly before BEFORE: the mirror of
 * sked__every_days_next (k >= 1 still: the anchor itself is none). */
int sked__every_days_prev(sked_time anchor, int days, const sked_tz *tz,
                          sked_dst dst, sked_time before, sked_time *out);

#endif
