/* SPDX-License-Identifier: MIT */
/* A schedule in words (the WORDS rows of its field table): its cron
 * expression as "sked cron explain" says it, its RRULE with the times
 * its start fills in, and its calendars with what an excluded day does.
 * Shown by the API's object, never read. */
#ifndef SKED_MODEL_SCHEDULE_WORDS_H
#define SKED_MODEL_SCHEDULE_WORDS_H

#include <jansson.h>

#include "model/schedule_fields.h"

/* The words of the WORDS field F of S, or null when S has none of that
 * kind (or they do not load); NULL when out of memory. */
json_t *sked__schedule_words(const sked_schedule *s, const sked__sfield *f);

#endif
