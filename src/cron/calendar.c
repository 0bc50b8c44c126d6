/* SPDX-License-Identifier: MIT */
/* The calendar search: matching wall-clock seconds of a cron expression.
 *
 * This file knows nothing of zones. It answers "which days of this month
 * match" and "what is the first (last) matching wall-clock second at or
 * after (before) this one", on a proleptic Gregorian calendar, with the
 * bitsets of a sked_cron. next.c maps wall-clock seconds to instants.
 *
 * The plan of the forward search (the backward one mirrors it): split the
 * starting second into year, month, day, hour, minute, second; then,
 * from the largest unit down, move each unit to its next allowed value,
 * resetting the smaller units to their minimum whenever a larger one
 * moves, and carrying into the larger unit when a unit runs out. Each
 * step is a bit scan, so a search costs a handful of operations per
 * month it crosses. A valid expression matches within 400 years (parse.c
 * checks), so the loop is bounded; the year 10000 stops it regardless. */
#include <stdbool.h>

#include "cron/cron.h"
#include "sked/error.h"
#include "time/civil.h"

#define SECS_PER_DAY INT64_C(86400)
#define YEAR_FIRST   1
#define YEAR_LAST    9999

/* Days 1, 8, 15, 22 and 29: a weekday's days when the month starts on it. */
#define EVERY_SEVENTH_DAY UINT64_C(0x10204081)

/* Return the day of month M (DIM days, day 1 a weekday WD1) that is the
 * weekday nearest day N, never leaving the month (Quartz "nW"); 0 when
 * the month has no day N. */
static int nearest_weekday(int n, int dim, int wd1)
{
    int wd;

    if (n > dim)
        return 0;
    wd = (wd1 + n - 1) % 7;
    if (wd == 6) /* Saturday: Friday, or Monday when the 1st. */
        return n == 1 ? 3 : n - 1;
    if (wd == 0) /* Sunday: Monday, or Friday when the last day. */
        return n == dim ? n - 2 : n + 1;
    return n;
}

/* Return the set of days matching the day-of-month field's extensions. */
static uint32_t dom_special_days(const sked_cron *c, int dim, int wd1)
{
    uint32_t days = 0, set;

    for (set = c->dom_last; set; set &= set - 1) {
        int n = __builtin_ctz(set);
        if (dim - n >= 1)
            days |= UINT32_C(1) << (dim - n);
    }
    for (set = c->dom_near; set; set &= set - 1) {
        int d = nearest_weekday(__builtin_ctz(set), dim, wd1);
        if (d)
            days |= UINT32_C(1) << d;
    }
    if (c->flags & SKED_CRON_DOM_LW) {
        int wd = (wd1 + dim - 1) % 7;
        days |= UINT32_C(1) << (wd == 6 ? dim - 1 : wd == 0 ? dim - 2 : dim);
    }
    return days;
}

/* Return the set of days matching the day-of-week field. */
static uint32_t dow_days(const sked_cron *c, int dim, int wd1)
{
    /* Bit i of WEEK is day i+1, weekday (wd1 + i) % 7: rotate the weekday
     * set so the month's first day comes first, then repeat it weekly. */
    unsigned rot = ((unsigned) c->dow >> wd1 | (unsigned) c->dow << (7 - wd1));
    uint64_t days = (uint64_t) (rot & 0x7fu) * EVERY_SEVENTH_DAY << 1;

    for (int wd = 0; wd < 7; wd++) {
        unsigned nth = c->dow_nth[wd];
        int first;
        if (!nth && !((c->dow_last >> wd) & 1u))
            continue; /* most weekdays have neither "#" nor "L" */
        first = 1 + (wd - wd1 + 7) % 7; /* first day with weekday wd */
        if ((c->dow_last >> wd) & 1u)
            days |= UINT64_C(1) << (first + (dim - first) / 7 * 7);
        for (; nth; nth &= nth - 1) {
            int d = first + 7 * __builtin_ctz(nth);
            if (d <= dim)
                days |= UINT64_C(1) << d;
        }
    }
    return (uint32_t) days;
}

uint32_t sked__cron_month_days(const sked_cron *c, int64_t y, int m)
{
    int dim = sked__days_in_month(y, m), wd1;
    uint32_t valid = (uint32_t) ((UINT64_C(1) << (dim + 1)) - 2);
    uint32_t dom, dow;

    if ((c->flags & SKED_CRON_DOM_STAR) && (c->flags & SKED_CRON_DOW_STAR))
        return valid; /* the common case needs no weekday */
    wd1 = sked__weekday_from_days(sked__days_from_civil(y, m, 1));

    dom = (c->flags & SKED_CRON_DOM_STAR)
              ? valid
              : c->dom | dom_special_days(c, dim, wd1);
    dow = (c->flags & SKED_CRON_DOW_STAR) ? valid : dow_days(c, dim, wd1);
    /* SPEC 2.1: when both are restricted, either may match (Vixie). */
    if (!(c->flags & SKED_CRON_DOM_STAR) && !(c->flags & SKED_CRON_DOW_STAR))
        return (dom | dow) & valid;
    return dom & dow & valid;
}

/* Return the lowest set bit of MASK at or above FROM, or -1. */
static int bit_at_or_above(uint64_t mask, int from)
{
    if (from > 63)
        return -1;
    mask &= ~UINT64_C(0) << from;
    return mask ? __builtin_ctzll(mask) : -1;
}

/* Return the highest set bit of MASK at or below FROM, or -1. */
static int bit_at_or_below(uint64_t mask, int from)
{
    if (from < 0)
        return -1;
    if (from < 63)
        mask &= (UINT64_C(2) << from) - 1;
    return mask ? 63 - __builtin_clzll(mask) : -1;
}

/* A wall-clock reading being moved by the search. Z0, Y0 and MO0 keep
 * the day number and month it started from, so a search that stays in
 * its month converts back without calendar arithmetic. */
struct wall {
    int64_t y;
    int mo, d, h, mi, s;
    int64_t z0, y0;
    int mo0, d0;
};

static void wall_from_secs(int64_t t, struct wall *w)
{
    int64_t sod = sked__floor_mod(t, SECS_PER_DAY);

    w->z0 = sked__floor_div(t, SECS_PER_DAY);
    sked__civil_from_days(w->z0, &w->y, &w->mo, &w->d);
    w->y0 = w->y, w->mo0 = w->mo, w->d0 = w->d;
    w->h = (int) (sod / 3600);
    w->mi = (int) (sod / 60 % 60);
    w->s = (int) (sod % 60);
}

static int64_t wall_to_secs(const struct wall *w)
{
    int64_t z = w->y == w->y0 && w->mo == w->mo0
                    ? w->z0 + (w->d - w->d0)
                    : sked__days_from_civil(w->y, w->mo, w->d);

    return z * SECS_PER_DAY + w->h * 3600 + w->mi * 60 + w->s;
}

/* Move W to the first second of the next month. */
static void next_month(struct wall *w)
{
    if (++w->mo > 12)
        w->mo = 1, w->y++;
    w->d = 1, w->h = 0, w->mi = 0, w->s = 0;
}

/* Move W to the first allowed month at or after its own; false when the
 * search has run past the last year. */
static bool first_month(const sked_cron *c, struct wall *w)
{
    int m = bit_at_or_above(c->month, w->mo);

    if (m < 0) {
        w->y++;
        m = bit_at_or_above(c->month, 1);
        w->d = 1, w->h = 0, w->mi = 0, w->s = 0;
    } else if (m != w->mo) {
        w->d = 1, w->h = 0, w->mi = 0, w->s = 0;
    }
    w->mo = m;
    return w->y <= YEAR_LAST;
}

/* Find the first matching time of day at or after W's, within W's day.
 * Returns false when the day has none left. */
static bool time_at_or_after(const sked_cron *c, struct wall *w)
{
    while (w->h < 24) {
        int h = bit_at_or_above(c->hour, w->h), mi, s;
        if (h < 0)
            return false;
        if (h != w->h)
            w->h = h, w->mi = 0, w->s = 0;
        mi = bit_at_or_above(c->min, w->mi);
        if (mi >= 0 && mi != w->mi)
            w->mi = mi, w->s = 0;
        s = mi >= 0 ? bit_at_or_above(c->sec, w->s) : -1;
        if (s >= 0 && s < 60) {
            w->s = s;
            return true;
        }
        if (mi >= 0 && (mi = bit_at_or_above(c->min, w->mi + 1)) >= 0) {
            w->mi = mi, w->s = 0;
            w->s = bit_at_or_above(c->sec, 0);
            return true;
        }
        w->h++, w->mi = 0, w->s = 0;
    }
    return false;
}

int sked__cron_civil_next(const sked_cron *c, int64_t lo, int64_t *out)
{
    struct wall w;
    int64_t days_y = INT64_MIN; /* the month DAYS was computed for */
    int days_mo = 0;
    uint32_t days = 0;

    wall_from_secs(lo, &w);
    if (w.y < YEAR_FIRST)
        wall_from_secs(sked__days_from_civil(YEAR_FIRST, 1, 1) * SECS_PER_DAY,
                       &w);
    /* Each pass either returns or moves to a later month or day: bounded
     * by the months up to YEAR_LAST. */
    while (first_month(c, &w)) {
        int d;
        /* A search that moves to the next day stays in its month. */
        if (w.y != days_y || w.mo != days_mo) {
            days = sked__cron_month_days(c, w.y, w.mo);
            days_y = w.y, days_mo = w.mo;
        }
        d = bit_at_or_above(days, w.d);
        if (d < 0) {
            next_month(&w);
            continue;
        }
        if (d != w.d)
            w.d = d, w.h = 0, w.mi = 0, w.s = 0;
        if (time_at_or_after(c, &w)) {
            *out = wall_to_secs(&w);
            return 0;
        }
        if (w.d >= 31) {
            next_month(&w);
            continue;
        }
        w.d++, w.h = 0, w.mi = 0, w.s = 0;
    }
    return SKED_ENOTFOUND;
}

/* Mirror of first_month: the last allowed month at or before W's. */
static bool last_month(const sked_cron *c, struct wall *w)
{
    int m = bit_at_or_below(c->month, w->mo);

    if (m < 0) {
        w->y--;
        m = bit_at_or_below(c->month, 12);
        w->d = 31, w->h = 23, w->mi = 59, w->s = 59;
    } else if (m != w->mo) {
        w->d = 31, w->h = 23, w->mi = 59, w->s = 59;
    }
    w->mo = m;
    return w->y >= YEAR_FIRST;
}

static void prev_month(struct wall *w)
{
    if (--w->mo < 1)
        w->mo = 12, w->y--;
    w->d = 31, w->h = 23, w->mi = 59, w->s = 59;
}

/* Mirror of time_at_or_after: the last matching time of day at or before
 * W's, within W's day. */
static bool time_at_or_before(const sked_cron *c, struct wall *w)
{
    while (w->h >= 0) {
        int h = bit_at_or_below(c->hour, w->h), mi, s;
        if (h < 0)
            return false;
        if (h != w->h)
            w->h = h, w->mi = 59, w->s = 59;
        mi = bit_at_or_below(c->min, w->mi);
        if (mi >= 0 && mi != w->mi)
            w->mi = mi, w->s = 59;
        s = mi >= 0 ? bit_at_or_below(c->sec, w->s) : -1;
        if (s >= 0) {
            w->s = s;
            return true;
        }
        if (mi >= 0 && (mi = bit_at_or_below(c->min, w->mi - 1)) >= 0) {
            w->mi = mi;
            w->s = bit_at_or_below(c->sec, 59);
            return true;
        }
        w->h--, w->mi = 59, w->s = 59;
    }
    return false;
}

int sked__cron_civil_prev(const sked_cron *c, int64_t hi, int64_t *out)
{
    struct wall w;
    int64_t days_y = INT64_MIN; /* the month DAYS was computed for */
    int days_mo = 0;
    uint32_t days = 0;

    wall_from_secs(hi, &w);
    if (w.y > YEAR_LAST)
        w = (struct wall){
            .y = YEAR_LAST, .mo = 12, .d = 31, .h = 23, .mi = 59, .s = 59};
    while (last_month(c, &w)) {
        int d;
        if (w.y != days_y || w.mo != days_mo) {
            days = sked__cron_month_days(c, w.y, w.mo);
            days_y = w.y, days_mo = w.mo;
        }
        d = bit_at_or_below(days, w.d);
        if (d < 0) {
            prev_month(&w);
            continue;
        }
        if (d != w.d)
            w.d = d, w.h = 23, w.mi = 59, w.s = 59;
        if (time_at_or_before(c, &w)) {
            *out = wall_to_secs(&w);
            return 0;
        }
        if (w.d <= 1) {
            prev_month(&w);
            continue;
        }
        w.d--, w.h = 23, w.mi = 59, w.s = 59;
    }
    return SKED_ENOTFOUND;
}
