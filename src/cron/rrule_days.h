/* SPDX-License-Identifier: MIT */
/* The occurrences of an RRULE computed by sked rather than by libical's
 * iterator (rrule_days.c): a rule of days as its days times its times of
 * day, a finer one as its periods times their offsets. The RRULE search
 * (rrule.c) reads them. Wall seconds, as rrule.h's. */
#ifndef SKED_CRON_RRULE_DAYS_H
#define SKED_CRON_RRULE_DAYS_H

#include <stdbool.h>
#include <stdint.h>

#include <libical/ical.h>

#include "sked/error.h"

struct sked__rrule_days; /* immutable once built */

/* Build the occurrences of RULE (normalised as rrule_int.h says: its
 * times of day written out) from DTSTART, up to a floating UNTIL
 * (INT64_MAX: none) and its COUNT. Returns 0, or SKED_EINVAL with field
 * "rrule" (no occurrence; BYSETPOS with several times a day; a DTSTART
 * outside 1970..2200) or SKED_ENOMEM. */
int sked__rrule_days_build(const struct icalrecurrencetype *rule,
                           int64_t dtstart, int64_t until, bool has_setpos,
                           struct sked__rrule_days **out, sked_error *err);
void sked__rrule_days_free(struct sked__rrule_days *d);

/* The first occurrence >= LO, the last <= HI: 0 or SKED_ENOTFOUND. */
int sked__rrule_days_next(const struct sked__rrule_days *d, int64_t lo,
                          int64_t *out);
int sked__rrule_days_prev(const struct sked__rrule_days *d, int64_t hi,
                          int64_t *out);

/* The occurrences of an HOURLY, MINUTELY or SECONDLY rule with only its
 * expanding parts (BYMINUTE, BYSECOND), up to a floating UNTIL, the wall
 * second END and its COUNT: the same three calls. */
struct sked__rrule_steps;
int sked__rrule_steps_build(const struct icalrecurrencetype *rule,
                            int64_t dtstart, int64_t until, int64_t end,
                            struct sked__rrule_steps **out, sked_error *err);
void sked__rrule_steps_free(struct sked__rrule_steps *s);
int sked__rrule_steps_next(const struct sked__rrule_steps *s, int64_t lo,
                           int64_t *out);
int sked__rrule_steps_prev(const struct sked__rrule_steps *s, int64_t hi,
                           int64_t *out);

#endif
