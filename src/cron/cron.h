/* SPDX-License-Identifier: MIT */
/* Internal helpers shared by the cron parser, search and describer. */
#ifndef SKED_CRON_CRON_H
#define SKED_CRON_CRON_H

#include <stdint.h>

#include "sked/cron.h"

/* Return the set of days (bit d = day d) of month M of year Y on which C
 * matches, applying the day-of-month / day-of-week rules of SPEC 2.1. */
uint32_t sked__cron_month_days(const sked_cron *c, int64_t y, int m);

/* Store in *out the first wall-clock second >= LO (seconds since
 * 1970-01-01T00:00, local) that C matches. Returns 0 or SKED_ENOTFOUND
 * (none before year 10000). */
int sked__cron_civil_next(const sked_cron *c, int64_t lo, int64_t *out);

/* Store in *out the last wall-clock second <= HI that C matches. Returns
 * 0 or SKED_ENOTFOUND (none from year 1). */
int sked__cron_civil_prev(const sked_cron *c, int64_t hi, int64_t *out);

#endif
