/* SPDX-License-Identifier: MIT */
/* The inside of a sked__rrule, shared by its reader (rrule_parse.c) and
 * its search (rrule.c).
 *
 * The rule handed to libical is normalised: every part RFC 5545 3.3.10
 * says DTSTART fills in is written out (BYSECOND, BYMINUTE, BYHOUR below
 * the frequency; BYDAY for WEEKLY, BYMONTHDAY for MONTHLY, BYMONTH and
 * BYMONTHDAY for YEARLY when no day part is given), and a UTC UNTIL is
 * taken out (the caller applies it). So the occurrences depend on DTSTART
 * only as their lower bound and through INTERVAL's phase, and the search
 * may restart libical from a later, period-aligned start. */
#ifndef SKED_CRON_RRULE_INT_H
#define SKED_CRON_RRULE_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <libical/ical.h>

#include "cron/rrule.h"

/* Where the search stands: libical's iterator, started at FROM, whose
 * last answer is CUR; PREV is the occurrence before it when HAS_PREV
 * (none lies between them), END is set when it has no more (PREV is then
 * the last). It answers any search from LOW on: FROM before its first
 * step, PREV + 1 after. */
struct sked__rrule_cursor {
    icalrecur_iterator *it; /* owned; NULL: libical found nothing */
    int64_t from, low, cur, prev;
    bool has_prev, end, valid;
};

struct sked__rrule {
    struct icalrecurrencetype rule; /* normalised (see above) */
    int64_t dtstart;                /* wall seconds */
    int64_t until;                  /* floating UNTIL, or INT64_MAX */
    sked_time until_utc;            /* UTC UNTIL, or SKED_TIME_NONE */
    char *tzid;                     /* owned; NULL: none */
    bool has_count, has_setpos, has_weekno;
    /* FREQ=DAILY and coarser: the occurrences, days times times of day
     * (rrule_days.h), which the search reads instead of libical's. */
    struct sked__rrule_days *days;    /* owned; NULL: a finer FREQ */
    struct sked__rrule_steps *steps;  /* owned: HOURLY and finer */
    pthread_mutex_t lock;             /* guards cursor */
    struct sked__rrule_cursor cursor; /* mutable under lock */
};

/* Return the wall second of libical time T (floating, not a date). */
int64_t sked__rrule_wall_of(struct icaltimetype t);

/* Return wall second S as a floating libical time. */
struct icaltimetype sked__rrule_ical_of(int64_t s);

/* Start *c at wall second FROM (>= R's DTSTART, aligned as rrule.c's
 * seek_start says) and step it to its first occurrence. Returns 0,
 * SKED_ENOMEM or SKED_EINTERNAL; a rule with nothing left sets c->end. */
int sked__rrule_cursor_start(const sked__rrule *r, struct sked__rrule_cursor *c,
                             int64_t from, long *steps);

/* Step *c to its next occurrence, skipping repeats. Returns 0 (c->end set
 * when none is left), SKED_ERANGE past SKED__RRULE_MAX_STEPS or
 * SKED_EINTERNAL when libical went backwards. STEPS counts libical's. */
int sked__rrule_cursor_step(struct sked__rrule_cursor *c, long *steps);

void sked__rrule_cursor_done(struct sked__rrule_cursor *c);

#endif
