/* SPDX-License-Identifier: MIT */
/* The iCalendar (.ics, RFC 5545) reader of the day calendars: the days
 * of a file's VEVENTs. */
#ifndef SKED_CRON_ICS_H
#define SKED_CRON_ICS_H

#include <stddef.h>

#include "cron/daycal_rule.h"
#include "sked/error.h"

/* The largest .ics read, in bytes. */
#define SKED__ICS_MAX (1 << 20)

/* Read the iCalendar TEXT (LEN bytes) and call FN(CTX, day) for each day
 * of each VEVENT that falls in the calendar range: DTSTART's date (a
 * DATE, or a DATE-TIME's date as written), every day before DTEND for a
 * multi-day all-day event, the RRULE's and RDATE's occurrences, minus
 * EXDATE's. A day may come more than once. Returns 0, or SKED_EINVAL
 * (invalid UTF-8, malformed structure or values) or SKED_ETOOBIG (LEN
 * over SKED__ICS_MAX) with err->field "ics", err->pos the 1-based line
 * and the line in err->msg; SKED_ENOMEM. */
int sked__ics_read(const char *text, size_t len, sked__day_fn fn, void *ctx,
                   sked_error *err);

#endif
