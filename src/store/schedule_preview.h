/* SPDX-License-Identifier: MIT */
/* A schedule's next occurrences with their DST marks (SPEC 3.5 preview):
 * what "sked schedule preview" prints and what
 * GET /api/v1/schedules/{name}/occurrences answers, computed once. */
#ifndef SKED_STORE_SCHEDULE_PREVIEW_H
#define SKED_STORE_SCHEDULE_PREVIEW_H

#include <stddef.h>

#include "sked/cron.h"
#include "sked/schedule.h"

/* Store in OUT up to MAX of the occurrences of S strictly after AFTER, in
 * its zone TZ (NULL: UTC), each with the mark the cron engine gives it;
 * *n is how many. The scheduler's own rule decides the instants
 * (sked__schedule_next_fire); a done schedule has none, and max_runs caps
 * them at the runs it may still create. A paused schedule lists the
 * occurrences it would have. Returns 0, or the error of
 * sked_cron_parse when the stored expression does not parse. */
int sked__schedule_preview(const sked_schedule *s, const sked_tz *tz,
                           sked_time after, size_t max, sked_occurrence *out,
                           size_t *n, sked_error *err);

/* Return "shifted", "first_pass", "second_pass", or NULL for a normal
 * occurrence. */
const char *sked__schedule_preview_mark(sked_occ_mark m);

#endif
