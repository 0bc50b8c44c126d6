/* SPDX-License-Identifier: MIT */
/* Day calendars: named sets of days a schedule may exclude or be limited
 * to (SPEC 12, "Calendars").
 *
 * A calendar is the union of its explicit dates, the days of its RFC 5545
 * recurrence rules, the days of an iCalendar file's events (ics.c) and
 * the sets of the calendars it includes. Its observed rule adds, beside a
 * holiday that falls on a weekend, the weekday it is observed on. Its
 * business weekdays (Monday to Friday unless told) minus the set are its
 * business days.
 *
 * Words: a *day* is a day number, days since 1970-01-01 (time/civil.h);
 * the *range* is 1970-01-01 to 2200-12-31, the days a calendar knows.
 * A calendar is a bitset over the range (about 10 KB, and as much again
 * for its business days), so every query is a bit test or a word scan.
 * Outside the range nothing is known: no day is in the set and none is a
 * business day. Built calendars are immutable: any thread may query one. */
#ifndef SKED_CRON_DAYCAL_H
#define SKED_CRON_DAYCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sked/error.h"

/* The range: day 0 (1970-01-01) to SKED__DAYCAL_LAST_DAY (2200-12-31). */
#define SKED__DAYCAL_FIRST_YEAR 1970
#define SKED__DAYCAL_LAST_YEAR  2200
#define SKED__DAYCAL_LAST_DAY   INT64_C(84370)
#define SKED__DAYCAL_NDAYS      (SKED__DAYCAL_LAST_DAY + 1)
#define SKED__DAYCAL_NWORDS     ((size_t) ((SKED__DAYCAL_NDAYS + 63) / 64))

/* How deep includes may nest below the calendar built (17 calendars). */
#define SKED__DAYCAL_MAX_DEPTH 16

/* Bit N of a weekday mask is weekday N, 0 = Sunday … 6 = Saturday. */
#define SKED__DAYCAL_MON_FRI 0x3e

/* Where a holiday on a weekend is observed, beside the day itself. */
typedef enum sked__observed {
    SKED__OBSERVED_NONE = 0,
    SKED__OBSERVED_NEAREST_WEEKDAY = 1, /* Sat → Fri, Sun → Mon */
    SKED__OBSERVED_NEXT_MONDAY = 2,     /* Sat, Sun → Mon */
} sked__observed;

/* Parse "none", "nearest_weekday" or "next_monday" (exactly, lower case)
 * into *out. Returns 0, or SKED_EINVAL with err->field = FIELD and a
 * message listing the names; *out untouched on error. */
int sked__observed_parse(const char *s, const char *field, sked__observed *out,
                         sked_error *err);

/* Return O's name as sked__observed_parse reads it; "none" for a value
 * outside the enum. Static storage. */
const char *sked__observed_name(sked__observed o);

/* What a calendar is made of. Every pointer is borrowed for the call to
 * sked__daycal_build only; nothing is kept. */
typedef struct sked__daycal_spec {
    const char *name;         /* for messages; may be NULL */
    const char *const *dates; /* "YYYY-MM-DD", in range */
    size_t ndates;
    /* RRULE values, e.g. "FREQ=YEARLY;BYMONTH=11;BYDAY=4TH". An optional
     * leading "DTSTART=YYYYMMDD;" part, or a two-line form
     * "DTSTART;VALUE=DATE:YYYYMMDD\nRRULE:…", sets the first day (1900 to
     * 2200; default 1970-01-01). The first day is a day of the set only
     * when the rule matches it (as python-dateutil reads rules). FREQ is
     * DAILY or coarser; BYSETPOS needs MONTHLY or YEARLY; no BYWEEKNO. */
    const char *const *rules;
    size_t nrules;
    const char *const *include; /* other calendars' names */
    size_t ninclude;
    const char *ics; /* iCalendar text (ics.c), or NULL */
    size_t ics_len;
    sked__observed observed; /* applies to its own dates, rules and ics */
    unsigned weekdays;       /* business weekdays; 0 means Mon–Fri */
} sked__daycal_spec;

/* Resolve an included calendar's spec by name into *out: 0, or
 * SKED_ENOTFOUND. The spec must stay valid until the build returns. */
typedef int (*sked__daycal_lookup)(void *ctx, const char *name,
                                   const sked__daycal_spec **out);

/* Parse the date S ("YYYY-MM-DD", in the range) into its day number.
 * SKED_EINVAL (shape, month, day) or SKED_ERANGE naming FIELD with the
 * position. */
int sked__daycal_parse_date(const char *s, const char *field, int64_t *out,
                            sked_error *err);

typedef struct sked__daycal sked__daycal; /* opaque, immutable once built */

/* Build the calendar SPEC describes into *out (free it with
 * sked__daycal_free), resolving includes through LOOKUP(CTX, name)
 * (LOOKUP may be NULL when SPEC includes nothing). Includes keep their
 * own observed rules; only SPEC's weekdays count. Returns 0, or:
 * SKED_EINVAL with err->field "dates[i]", "rules[i]", "ics" (pos: the
 * line) or "weekdays" and err->pos the byte in the value where one
 * applies; SKED_ERANGE for a date outside the range; SKED_ETOOBIG for an
 * .ics over SKED__ICS_MAX; SKED_ENOTFOUND for an unknown include
 * ("include[i]"); SKED_ECONFLICT for an include cycle (the message names
 * it); SKED_ENOMEM. An error inside an included calendar names it in the
 * message. *out untouched on error. */
int sked__daycal_build(const sked__daycal_spec *spec,
                       sked__daycal_lookup lookup, void *ctx,
                       sked__daycal **out, sked_error *err);

/* Free C; NULL does nothing. */
void sked__daycal_free(sked__daycal *c);

/* Whether DAY is in C's set (false outside the range). O(1). */
bool sked__daycal_has(const sked__daycal *c, int64_t day);

/* Whether DAY is one of C's business weekdays and not in its set (false
 * outside the range). O(1). */
bool sked__daycal_business(const sked__daycal *c, int64_t day);

/* Store in *out the first business day after DAY (next) or before DAY
 * (prev). Returns 0, or SKED_ENOTFOUND when the range has none that way.
 * A word scan: a long run of holidays costs one step per 64 days. */
int sked__daycal_next_business(const sked__daycal *c, int64_t day,
                               int64_t *out);
int sked__daycal_prev_business(const sked__daycal *c, int64_t day,
                               int64_t *out);

/* Store in *out the last business day of the month DAY is in. Returns 0,
 * or SKED_ENOTFOUND when that month has none (or is outside the range). */
int sked__daycal_last_business_of_month(const sked__daycal *c, int64_t day,
                                        int64_t *out);

/* Return C's business weekdays (a weekday mask, never 0). */
unsigned sked__daycal_weekdays(const sked__daycal *c);

#endif
