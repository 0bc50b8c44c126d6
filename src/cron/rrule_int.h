/* SPDX-License-Identifier: MIT */
/* The inside of a sked__rrule, shared by its reader (rrule_parse.c) and
 * its search (rrule.c).
 *
 * The rule handed to libical is normalised: every part RFC 5545 3.3.10
 * says DTSTART fills in is written out (BYSECOND, BYMINUTE, BYHOUR below
 * the frequency; BYDAY for WEEKLY, BYMONTHDAY for MONTHLY, BYMONTH and
 * BYMONTHDAY for YEARLY when no day part is given), and a UTC UNTIL is
 * taken out (the caller applies it). From it the reader builds the
 * occurrences the search reads (rrule_days.h): exactly one of DAYS and
 * STEPS is set. */
#ifndef SKED_CRON_RRULE_INT_H
#define SKED_CRON_RRULE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <libical/ical.h>

#include "cron/rrule.h"

struct sked__rrule {
    struct icalrecurrencetype rule; /* normalised (see above) */
    int64_t dtstart;                /* wall seconds */
    int64_t until;                  /* floating UNTIL, or INT64_MAX */
    sked_time until_utc;            /* UTC UNTIL, or SKED_TIME_NONE */
    char *tzid;                     /* owned; NULL: none */
    bool has_setpos;
    struct sked__rrule_days *days;   /* owned: DAILY and coarser */
    struct sked__rrule_steps *steps; /* owned: HOURLY and finer */
};

/* Return the wall second of libical time T (floating, not a date). */
int64_t sked__rrule_wall_of(struct icaltimetype t);

/* Return wall second S as a floating libical time. */
struct icaltimetype sked__rrule_ical_of(int64_t s);

#endif
