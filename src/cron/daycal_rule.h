/* SPDX-License-Identifier: MIT */
/* Recurrence rules (RFC 5545 RRULE) expanded to days, for the day
 * calendars (daycal.c) and the .ics reader (ics.c), through libical's
 * icalrecur. Only daily and coarser rules: a calendar is days. */
#ifndef SKED_CRON_DAYCAL_RULE_H
#define SKED_CRON_DAYCAL_RULE_H

#include <stddef.h>
#include <stdint.h>

#include "sked/error.h"

/* The longest rule read, in bytes. */
#define SKED__DAYCAL_RULE_MAX 1024

/* How many dates one rule may produce, range's end or not: a bound on
 * the search, far above a daily rule from 1900 to 2200 (110,000). */
#define SKED__DAYCAL_RULE_MAX_STEPS 400000L

/* Receives each day of an expansion that falls in the calendar range. */
typedef void (*sked__day_fn)(void *ctx, int64_t day);

/* Expand the rule TEXT (LEN bytes, not NUL-terminated) and call FN(CTX,
 * day) for each of its days in the range, in increasing order, stopping
 * at the range's end. START (a day number) is the rule's DTSTART; NULL
 * reads an optional "DTSTART=YYYYMMDD;" part or the two-line
 * "DTSTART…:YYYYMMDD\nRRULE:…" form from TEXT (default 1970-01-01).
 * *out_count (may be NULL) gets how many days FN received. Returns 0, or
 * SKED_EINVAL with err->field = FIELD and err->pos a byte of TEXT where
 * one applies; SKED_ENOMEM. */
int sked__daycal_rule_expand(const char *text, size_t len, const int64_t *start,
                             const char *field, sked__day_fn fn, void *ctx,
                             size_t *out_count, sked_error *err);

/* Read "YYYYMMDD" (the RFC 5545 DATE form; LEN bytes at S, at least 8)
 * into *out as a day number, checking the month and the day. Returns 0 or
 * SKED_EINVAL; the caller names the field. */
int sked__daycal_basic_date(const char *s, size_t len, int64_t *out);

#endif
