/* SPDX-License-Identifier: MIT */
/* The search of an RRULE: its occurrences at or after (at or before) a
 * wall second, with libical's icalrecur iterator doing the expansion.
 *
 * libical only walks forward from DTSTART, and its
 * icalrecur_iterator_set_start is wrong in 3.0.16 for sub-daily
 * intervals (FREQ=HOURLY;INTERVAL=5 from 00:00 restarted on the next day
 * answers 00:07, not 01:07) and is refused with COUNT. So the plan:
 *
 * - A cursor (rrule_int.h) remembers where the last search stopped; a
 *   search at or after it steps on from there, one libical step per
 *   occurrence, as a scheduler asking for later and later times does.
 * - Further ahead, or behind the cursor, a rule without COUNT restarts
 *   libical from a later DTSTART: the start of the period (INTERVAL
 *   times FREQ's unit, counted from DTSTART) that holds the target, or
 *   the target's day inside a month or year. Since the rule is
 *   normalised, the occurrences from there are the rule's own. With
 *   BYSETPOS the positions count over the whole period, so the restart is
 *   at the period's start; with BYWEEKNO a year's weeks spill into the
 *   next, so it is one period earlier.
 * - A rule with COUNT counts from DTSTART: it restarts there, and the
 *   cursor makes later searches cheap.
 * - prev searches windows ending at HI, doubling their length until one
 *   holds an occurrence or reaches DTSTART.
 *
 * Every search takes at most SKED__RRULE_MAX_STEPS libical steps. */
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

void sked__rrule_cursor_done(struct sked__rrule_cursor *c)
{
    if (c->it != NULL)
        icalrecur_iterator_free(c->it);
    *c = (struct sked__rrule_cursor){0};
}

int sked__rrule_cursor_start(const sked__rrule *r, struct sked__rrule_cursor *c,
                             int64_t from, long *steps)
{
    sked__rrule_cursor_done(c);
    c->from = c->low = from;
    c->end = c->valid = true;
    if (from >= WALL_END || from > r->until)
        return 0;
    icalerror_clear_errno();
    c->it = icalrecur_iterator_new(r->rule, sked__rrule_ical_of(from));
    if (c->it == NULL) {
        /* libical refuses a rule it finds empty; only a failed malloc is
         * an error. */
        int oom = icalerrno == ICAL_NEWFAILED_ERROR;
        icalerror_clear_errno();
        return oom ? SKED_ENOMEM : 0;
    }
    c->end = false;
    c->cur = from - 1; /* before any answer: the first step sets it */
    return sked__rrule_cursor_step(c, steps);
}

int sked__rrule_cursor_step(struct sked__rrule_cursor *c, long *steps)
{
    bool started = c->cur >= c->from;

    while (!c->end) {
        struct icaltimetype t;
        int64_t w;
        if (++*steps > SKED__RRULE_MAX_STEPS)
            return SKED_ERANGE;
        t = icalrecur_iterator_next(c->it);
        if (icaltime_is_null_time(t) ||
            (w = sked__rrule_wall_of(t)) >= WALL_END) {
            c->end = true;
            c->has_prev = started;
            c->prev = c->cur;
            c->low = started ? c->cur + 1 : c->from;
            return 0;
        }
        if (started && w < c->cur)
            return SKED_EINTERNAL; /* libical went backwards */
        /* Skip a value two BYxxx parts both give, and a week of the year
         * before FROM that BYWEEKNO brings in. */
        if ((started && w == c->cur) || w < c->from)
            continue;
        c->has_prev = started;
        c->prev = c->cur;
        c->low = started ? c->cur + 1 : c->from;
        c->cur = w;
        return 0;
    }
    return 0;
}

/* Return the wall second that starts period N of R's frequency, N units
 * (seconds ... years, not INTERVALs) after the one holding DTSTART: weeks
 * start on WKST, months and years by the calendar. */
static int64_t period_start(const sked__rrule *r, int64_t n)
{
    int64_t ds = r->dtstart, y;
    int64_t z = sked__floor_div(ds, SECS_PER_DAY);
    int mo, d, wkst = (int) r->rule.week_start - 1; /* 0 Sunday */
    static const int64_t unit[] = {1, 60, 3600, SECS_PER_DAY};

    sked__civil_from_days(z, &y, &mo, &d);
    switch (r->rule.freq) {
    case ICAL_WEEKLY_RECURRENCE:
        z -= (sked__weekday_from_days(z) - wkst + 7) % 7;
        return (z + n * 7) * SECS_PER_DAY;
    case ICAL_MONTHLY_RECURRENCE: {
        int64_t m = y * 12 + (mo - 1) + n;
        return sked__days_from_civil(sked__floor_div(m, 12),
                                     (int) sked__floor_mod(m, 12) + 1, 1) *
               SECS_PER_DAY;
    }
    case ICAL_YEARLY_RECURRENCE:
        return sked__days_from_civil(y + n, 1, 1) * SECS_PER_DAY;
    default: {
        int64_t u = unit[r->rule.freq];
        return sked__floor_div(ds, u) * u + n * u;
    }
    }
}

/* Return the number of periods (FREQ units, not INTERVALs) from the one
 * holding DTSTART to the one holding T, found from an estimate corrected
 * by a step each way. */
static int64_t period_index(const sked__rrule *r, int64_t t)
{
    static const int64_t approx[] = {
        1,       60, 3600, SECS_PER_DAY, 7 * SECS_PER_DAY,
        2629746, /* a mean month */
        31556952 /* a mean year */};
    int64_t n = (t - period_start(r, 0)) / approx[r->rule.freq];

    while (n > 0 && period_start(r, n) > t)
        n--;
    while (period_start(r, n + 1) <= t)
        n++;
    return n;
}

/* Return where to restart libical so that it produces every occurrence
 * >= LO (LO > DTSTART, rule without COUNT): the plan's second point. */
static int64_t seek_start(const sked__rrule *r, int64_t lo)
{
    int64_t iv = r->rule.interval, n = period_index(r, lo), start;
    int64_t k = n / iv * iv; /* the last aligned period at or before */
    /* Not WEEKLY: libical started mid-week puts a BYDAY before the start
     * day in the next week, out of INTERVAL's phase. */
    bool coarse = r->rule.freq >= ICAL_MONTHLY_RECURRENCE;

    if (r->has_weekno)
        k = k >= iv ? k - iv : 0;
    else if (k != n) /* LO lies between aligned periods */
        k += iv;
    start = period_start(r, k);
    if (coarse && k == n && !r->has_setpos && !r->has_weekno) {
        int64_t day = sked__floor_div(lo, SECS_PER_DAY) * SECS_PER_DAY;
        if (day > start)
            start = day;
    }
    return start > r->dtstart ? start : r->dtstart;
}

/* Return a span longer than one INTERVAL of R's periods, in seconds. */
static int64_t period_span(const sked__rrule *r)
{
    static const int64_t len[] = {1,
                                  60,
                                  3600,
                                  SECS_PER_DAY,
                                  7 * SECS_PER_DAY,
                                  31 * SECS_PER_DAY,
                                  366 * SECS_PER_DAY};

    return len[r->rule.freq] * r->rule.interval;
}

/* Move R's cursor to the first occurrence >= LO: step on from where it
 * stands, or restart libical when LO is behind it or far ahead. */
static int next_locked(const sked__rrule *r, struct sked__rrule_cursor *c,
                       int64_t lo, long *steps)
{
    bool far = !r->has_count && !c->end && c->cur < lo &&
               lo - c->cur > 2 * period_span(r);
    int rc;

    if (!c->valid || lo < c->low || far) {
        int64_t start =
            r->has_count || lo <= r->dtstart ? r->dtstart : seek_start(r, lo);
        if ((rc = sked__rrule_cursor_start(r, c, start, steps)) != 0)
            return rc;
    }
    while (!c->end && c->cur < lo)
        if ((rc = sked__rrule_cursor_step(c, steps)) != 0)
            return rc;
    return c->end ? SKED_ENOTFOUND : 0;
}

int sked__rrule_civil_next(const sked__rrule *r, int64_t lo, int64_t *out)
{
    sked__rrule *m = (sked__rrule *) r; /* the cursor is a cache */
    long steps = 0;
    int rc;

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
    pthread_mutex_lock(&m->lock);
    rc = next_locked(r, &m->cursor, lo, &steps);
    if (rc == 0)
        *out = m->cursor.cur;
    pthread_mutex_unlock(&m->lock);
    return rc;
}

/* Find the last occurrence <= HI with COUNT: from the cursor, which
 * always starts at DTSTART then. */
static int prev_counted(const sked__rrule *r, struct sked__rrule_cursor *c,
                        int64_t hi, long *steps, int64_t *out)
{
    int rc;

    if (c->has_prev && c->prev > hi)
        sked__rrule_cursor_done(c);
    rc = next_locked(r, c, hi + 1, steps);
    if (rc != 0 && rc != SKED_ENOTFOUND)
        return rc;
    if (!c->has_prev)
        return SKED_ENOTFOUND;
    *out = c->prev;
    return 0;
}

/* Find the last occurrence <= HI without COUNT, in windows ending at HI
 * that double in length. */
static int prev_windows(const sked__rrule *r, int64_t hi, long *steps,
                        int64_t *out)
{
    struct sked__rrule_cursor w = {0};
    int64_t span = period_span(r);
    int rc;

    for (;;) {
        int64_t lo = hi - span > r->dtstart ? hi - span : r->dtstart;
        int64_t start = lo > r->dtstart ? seek_start(r, lo) : r->dtstart;
        bool found = false;
        rc = sked__rrule_cursor_start(r, &w, start, steps);
        while (rc == 0 && !w.end && w.cur <= hi) {
            *out = w.cur, found = true;
            rc = sked__rrule_cursor_step(&w, steps);
        }
        sked__rrule_cursor_done(&w);
        if (rc != 0 || found)
            return rc;
        if (start <= r->dtstart)
            return SKED_ENOTFOUND;
        span = span > INT64_MAX / 4 ? INT64_MAX / 2 : span * 2;
    }
}

int sked__rrule_civil_prev(const sked__rrule *r, int64_t hi, int64_t *out)
{
    sked__rrule *m = (sked__rrule *) r; /* the cursor is a cache */
    struct sked__rrule_cursor *c = &m->cursor;
    long steps = 0;
    int rc;

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
    pthread_mutex_lock(&m->lock);
    if (c->valid && c->has_prev && c->prev <= hi && (c->end || c->cur > hi))
        *out = c->prev, rc = 0; /* the common case: just behind the cursor */
    else if (r->has_count)
        rc = prev_counted(r, c, hi, &steps, out);
    else
        rc = prev_windows(r, hi, &steps, out);
    pthread_mutex_unlock(&m->lock);
    return rc;
}

void sked__rrule_free(sked__rrule *r)
{
    if (r == NULL)
        return;
    sked__rrule_cursor_done(&r->cursor);
    sked__rrule_days_free(r->days);
    sked__rrule_steps_free(r->steps);
    pthread_mutex_destroy(&r->lock);
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
