/* SPDX-License-Identifier: MIT */
/* The search of an RRULE: its occurrences at or after (at or before) a
 * wall second.
 *
 * libical reads the rule (rrule_parse.c), but its iterator expands times
 * otherwise than RFC 5545 and python-dateutil in many ways (3.0.16: lists
 * kept in the order written, INTERVAL's first period off by one when
 * DTSTART does not match, a sub-daily rule's filters applied to the wrong
 * unit, set_start wrong for sub-daily intervals). So the occurrences are
 * sked's own (rrule_days.h): a rule of days is its days, which the day
 * calendars' expander gives right, times its times of day; a finer rule
 * is its periods times their offsets. Both are immutable once read, so a
 * rule may be searched from several threads at once, and each search is
 * a few bit scans or a division. */
#include <stdlib.h>

#include "cron/rrule_days.h"
#include "cron/rrule_int.h"
#include "sked/error.h"
#include "time/civil.h"

#define SECS_PER_DAY INT64_C(86400)
/* The first second of the first year libical does not expand. */
#define WALL_END                                                               \
    (sked__days_from_civil(SKED__RRULE_YEAR_LAST + 1, 1, 1) * SECS_PER_DAY)

int64_t sked__rrule_wall_of(struct icaltimetype t)
{
    return sked__days_from_civil(t.year, t.month, t.day) * SECS_PER_DAY +
           t.hour * 3600 + t.minute * 60 + t.second;
}

struct icaltimetype sked__rrule_ical_of(int64_t s)
{
    struct icaltimetype t = icaltime_null_time();
    int64_t y, sod = sked__floor_mod(s, SECS_PER_DAY);

    sked__civil_from_days(sked__floor_div(s, SECS_PER_DAY), &y, &t.month,
                          &t.day);
    t.year = (int) y;
    t.hour = (int) (sod / 3600);
    t.minute = (int) (sod / 60 % 60);
    t.second = (int) (sod % 60);
    return t;
}

int sked__rrule_civil_next(const sked__rrule *r, int64_t lo, int64_t *out)
{
    if (r == NULL || out == NULL)
        return SKED_EINVAL;
    if (lo >= WALL_END)
        return SKED_ENOTFOUND;
    if (lo < r->dtstart)
        lo = r->dtstart;
    if (r->days)
        return sked__rrule_days_next(r->days, lo, out);
    if (r->steps)
        return sked__rrule_steps_next(r->steps, lo, out);
    return SKED_EINTERNAL;
}

int sked__rrule_civil_prev(const sked__rrule *r, int64_t hi, int64_t *out)
{
    if (r == NULL || out == NULL)
        return SKED_EINVAL;
    if (hi < r->dtstart)
        return SKED_ENOTFOUND;
    if (hi >= WALL_END)
        hi = WALL_END - 1;
    if (r->days)
        return sked__rrule_days_prev(r->days, hi, out);
    if (r->steps)
        return sked__rrule_steps_prev(r->steps, hi, out);
    return SKED_EINTERNAL;
}

void sked__rrule_free(sked__rrule *r)
{
    if (r == NULL)
        return;
    sked__rrule_days_free(r->days);
    sked__rrule_steps_free(r->steps);
    free(r->tzid);
    free(r);
}

const char *sked__rrule_tzid(const sked__rrule *r)
{
    return r->tzid;
}

sked_time sked__rrule_until_utc(const sked__rrule *r)
{
    return r->until_utc;
}

int64_t sked__rrule_dtstart(const sked__rrule *r)
{
    return r->dtstart;
}

/* Return the number of values in libical list A (at most SIZE). */
static int list_len(const short *a, int size)
{
    int n = 0;

    while (n < size && a[n] != ICAL_RECURRENCE_ARRAY_MAX)
        n++;
    return n;
}

bool sked__rrule_is_fixed_time(const sked__rrule *r)
{
    return r->rule.freq >= ICAL_DAILY_RECURRENCE &&
           list_len(r->rule.by_hour, ICAL_BY_HOUR_SIZE) == 1 &&
           list_len(r->rule.by_minute, ICAL_BY_MINUTE_SIZE) == 1 &&
           list_len(r->rule.by_second, ICAL_BY_SECOND_SIZE) == 1;
}
