/* SPDX-License-Identifier: MIT */
/* A schedule's occurrences seen through its calendars (schedule_occ.h,
 * SPEC 12): each occurrence of the time spec becomes one slot, a moment
 * the scheduler decides something at — it fires there (on a day that is
 * not excluded), it fires moved to another business day at its time of
 * day, or it is dropped as excluded.
 *
 * Words: a *day* is a local date of the schedule's zone as a day number
 * (days since 1970-01-01); an *excluded* day is one of the exclude
 * calendars' days, or a day outside the only calendars; a *target* is a
 * day a moved occurrence may land on: not excluded, and one of the
 * exclude calendars' business weekdays. Only the exclude calendars' days
 * move their occurrences (on_excluded); a day outside the only calendars
 * drops them: "only" says when the schedule runs at all.
 *
 * Slots are ordered by when they are decided, which for moved ones is
 * not the order of their occurrences: a moved slot is at or after its
 * occurrence (next_business_day) or at or before it (previous). The
 * searches below therefore scan the occurrences of a window wide enough
 * to hold every occurrence whose slot can be the answer, and stop as
 * soon as no later (earlier) occurrence can beat the best slot found.
 *
 * Two occurrences never share a slot. A moved occurrence landing where
 * the schedule fires anyway, or where an earlier moved one lands, is
 * dropped as excluded at its own instant: a daily schedule moved off a
 * holiday runs once on the next business day, not twice. */
#include <string.h>

#include "cron/wall.h"
#include "model/schedule_occ.h"
#include "time/civil.h"
#include "tz/zone.h"

#define DAY_SEC INT64_C(86400)
#define SEC     SKED_USEC_PER_SEC
/* How far a move may search for a target (longer runs of excluded days
 * drop their occurrences), and how far a UTC offset reaches. */
#define MOVE_MAX_DAYS 366
#define OFFSET_MAX    (INT64_C(26) * 3600 * SEC)
/* Occurrences one search may step over before it gives up. */
#define SCAN_MAX 2000000

/* The local wall second of the instant T. */
static int64_t wall_sec(const sked_tz *tz, sked_time t)
{
    int64_t sec = sked__floor_div(t, SEC);
    sked__tz_seg seg;

    sked__tz_segment(tz, sec, &seg);
    return sec + seg.utoff;
}

static int64_t day_of(const sked_tz *tz, sked_time t)
{
    return sked__floor_div(wall_sec(tz, t), DAY_SEC);
}

/* O's calendars, or NULL when it has none: the time spec alone. */
static const sked__occ_days *days_of(const sked__occ_spec *o)
{
    const sked__occ_days *d = o->days;

    return d && (d->exclude || d->only) ? d : NULL;
}

static bool excluded(const sked__occ_days *d, int64_t day)
{
    return (d->exclude && sked__daycal_has(d->exclude, day)) ||
           (d->only && !sked__daycal_has(d->only, day));
}

/* Whether DAY's occurrences move (on_excluded): an exclude calendar's. */
static bool moves(const sked__occ_days *d, int64_t day)
{
    return d->exclude && sked__daycal_has(d->exclude, day) &&
           !(d->only && !sked__daycal_has(d->only, day));
}

static bool is_target(const sked__occ_days *d, int64_t day)
{
    int wd = (int) sked__floor_mod(day + 4, 7); /* 1970-01-01: Thursday */

    return d->exclude && !excluded(d, day) &&
           (sked__daycal_weekdays(d->exclude) >> wd & 1u);
}

/* The first target after DAY going DIR (+1 or -1), within MOVE_MAX_DAYS. */
static int target_from(const sked__occ_days *d, int64_t day, int dir,
                       int64_t *out)
{
    for (int i = 1; i <= MOVE_MAX_DAYS; i++)
        if (is_target(d, day + dir * i)) {
            *out = day + dir * i;
            return 0;
        }
    return SKED_ENOTFOUND;
}

static int move_dir(const sked__occ_days *d)
{
    return d->on_excluded == SKED_ON_EXCLUDED_PREVIOUS_BUSINESS_DAY ? -1 : 1;
}

/* ---- one wall time as instants ------------------------------------------ */

static int one_next(const void *ctx, int64_t lo, int64_t *out)
{
    int64_t w = *(const int64_t *) ctx;

    if (w < lo)
        return SKED_ENOTFOUND;
    *out = w;
    return 0;
}

static int one_prev(const void *ctx, int64_t hi, int64_t *out)
{
    int64_t w = *(const int64_t *) ctx;

    if (w > hi)
        return SKED_ENOTFOUND;
    *out = w;
    return 0;
}

/* The instant of wall second WALL (plus USEC) under DST, after AFTER:
 * the first pass of a repeated time (the second under "last"), the end
 * of a gap under "shift", none under "skip". */
static int wall_instant(const sked__occ_spec *o, int64_t wall, int64_t usec,
                        sked_time after, sked_dst dst, sked_occurrence *out)
{
    sked__wall_src src = {one_next, one_prev, &wall, true};
    int rc = sked__wall_next(&src, o->tz, dst, after, out);

    if (rc == 0)
        out->at += usec;
    return rc;
}

static sked_time wall_floor(int64_t wall)
{
    return (wall * SEC) - OFFSET_MAX;
}

/* Tell whether the time spec has an occurrence at exactly T. */
static bool raw_at(const sked__occ_spec *o, sked_time t)
{
    sked_occurrence x;

    return sked__occ_next(o, t - 1, &x) == 0 && x.at == t;
}

/* Tell whether an occurrence before R, on a moving day from LO to RDAY
 * (all of which move to the same target), has a wall time from TOD_LO to
 * TOD_HI, seconds of its day: one that lands where R would. The first
 * occurrence to land on an instant is the one that moves there. */
static bool earlier_mover(const sked__occ_spec *o, int64_t lo, int64_t rday,
                          int64_t tod_lo, int64_t tod_hi, sked_time r)
{
    for (int64_t e = lo; e <= rday; e++) {
        int64_t w_lo = e * DAY_SEC + tod_lo, w_hi = e * DAY_SEC + tod_hi;
        sked_occurrence x = {wall_floor(w_lo), SKED_OCC_NORMAL};

        if (!moves(o->days, e))
            continue;
        while (sked__occ_next(o, x.at, &x) == 0 && x.at < r &&
               x.at <= w_hi * SEC + OFFSET_MAX) {
            int64_t w = wall_sec(o->tz, x.at);
            if (w >= w_lo && w <= w_hi)
                return true;
        }
    }
    return false;
}

/* The wall times of day TARGET (seconds of the day, *lo to *hi) that land
 * on the instant M there: its own, or under "shift" every time of the gap
 * it ends. */
static void landing_times(const sked__occ_spec *o, const sked_occurrence *m,
                          int64_t target, int64_t tod, int64_t *lo, int64_t *hi)
{
    int64_t sec = sked__floor_div(m->at, SEC);
    sked__tz_seg before, after;

    *lo = *hi = tod;
    if (m->mark != SKED_OCC_SHIFTED)
        return;
    sked__tz_segment(o->tz, sec - 1, &before);
    sked__tz_segment(o->tz, sec, &after);
    *lo = sec + before.utoff - target * DAY_SEC;
    *hi = sec + after.utoff - 1 - target * DAY_SEC;
}

/* The slot of the occurrence OCC. */
static void slot_of(const sked__occ_spec *o, const sked_occurrence *occ,
                    sked__occ_slot *out)
{
    const sked__occ_days *d = days_of(o);
    int64_t wall = wall_sec(o->tz, occ->at), day, target, tod, lo, t_lo, t_hi;
    sked_occurrence m;
    int dir;

    *out = (sked__occ_slot){occ->at, occ->at, SKED__SLOT_FIRE, occ->mark};
    day = sked__floor_div(wall, DAY_SEC);
    if (!d || !excluded(d, day))
        return;
    out->kind = SKED__SLOT_EXCLUDED;
    if (d->on_excluded == SKED_ON_EXCLUDED_SKIP || !moves(d, day))
        return;
    dir = move_dir(d);
    if (target_from(d, day, dir, &target) != 0)
        return;
    tod = wall - day * DAY_SEC;
    if (wall_instant(o, target * DAY_SEC + tod, sked__floor_mod(occ->at, SEC),
                     wall_floor(target * DAY_SEC + tod), o->s->dst, &m) != 0 ||
        raw_at(o, m.at))
        return; /* a skipped local time, or where it fires anyway */
    /* The days that move to TARGET: after the target before it (within
     * the reach of a move), or, moving back, after TARGET. */
    if (dir > 0 && target_from(d, target, -1, &lo) != 0)
        lo = target - MOVE_MAX_DAYS - 1;
    if (dir < 0)
        lo = target;
    landing_times(o, &m, target, tod, &t_lo, &t_hi);
    if (earlier_mover(o, lo + 1, day, t_lo, t_hi, occ->at))
        return;
    *out = (sked__occ_slot){m.at, occ->at, SKED__SLOT_MOVED, m.mark};
}

/* ---- the searches -------------------------------------------------------- */

int sked__occ_slot_next(const sked__occ_spec *o, sked_time after,
                        sked__occ_slot *out)
{
    const sked__occ_days *d = days_of(o);
    sked__occ_slot best = {0}, s;
    sked_occurrence occ;
    sked_time pos = after;
    int64_t stop_day = INT64_MAX, p;
    bool found = false;
    int rc;

    if (!d || d->on_excluded == SKED_ON_EXCLUDED_SKIP || !d->exclude) {
        if ((rc = sked__occ_next(o, after, &occ)) == 0)
            slot_of(o, &occ, out);
        return rc;
    }
    /* Moving forward, an occurrence from the day after the target before
     * AFTER's day on can land after AFTER. */
    if (move_dir(d) > 0) {
        int64_t a = day_of(o->tz, after);
        if (target_from(d, a, -1, &p) != 0)
            p = a - MOVE_MAX_DAYS;
        if (wall_floor((p + 1) * DAY_SEC) < pos)
            pos = wall_floor((p + 1) * DAY_SEC);
        if (pos < SKED_TIME_MIN)
            pos = SKED_TIME_MIN;
    }
    for (int i = 0; i < SCAN_MAX; i++) {
        if ((rc = sked__occ_next(o, pos, &occ)) == SKED_ENOTFOUND)
            break;
        if (rc != 0)
            return rc;
        /* Forward: no later occurrence's slot is before it. Backward: none
         * past the target after the best's day moves before it. */
        if (found && occ.at > best.at &&
            (move_dir(d) > 0 || day_of(o->tz, occ.at) >= stop_day))
            break;
        slot_of(o, &occ, &s);
        if (s.at > after && (!found || s.at < best.at)) {
            best = s;
            found = true;
            if (move_dir(d) < 0 &&
                target_from(d, day_of(o->tz, s.at), 1, &stop_day) != 0)
                stop_day = day_of(o->tz, s.at) + MOVE_MAX_DAYS;
        }
        pos = occ.at;
    }
    if (!found)
        return SKED_ENOTFOUND;
    *out = best;
    return 0;
}

int sked__occ_slot_prev(const sked__occ_spec *o, sked_time before,
                        sked__occ_slot *out)
{
    const sked__occ_days *d = days_of(o);
    sked__occ_slot best = {0}, s;
    sked_occurrence occ = {0, SKED_OCC_NORMAL};
    sked_time pos = before;
    int64_t stop_day = INT64_MIN, p;
    bool found = false;
    int rc;

    if (!d || d->on_excluded == SKED_ON_EXCLUDED_SKIP || !d->exclude) {
        if ((rc = sked__occ_prev(o, before, &occ.at)) == 0)
            slot_of(o, &occ, out);
        return rc;
    }
    /* Moving backward, an occurrence up to the target after BEFORE's day
     * can land before BEFORE. */
    if (move_dir(d) < 0) {
        int64_t b = day_of(o->tz, before);
        if (target_from(d, b, 1, &p) != 0)
            p = b + MOVE_MAX_DAYS;
        if (p * DAY_SEC * SEC + OFFSET_MAX > pos)
            pos = p * DAY_SEC * SEC + OFFSET_MAX;
        if (pos > SKED_TIME_MAX)
            pos = SKED_TIME_MAX;
    }
    for (int i = 0; i < SCAN_MAX; i++) {
        if ((rc = sked__occ_prev(o, pos, &occ.at)) == SKED_ENOTFOUND)
            break;
        if (rc != 0)
            return rc;
        if (found && occ.at < best.at &&
            (move_dir(d) < 0 || day_of(o->tz, occ.at) <= stop_day))
            break;
        occ.mark = SKED_OCC_NORMAL;
        slot_of(o, &occ, &s);
        if (s.at < before && (!found || s.at > best.at)) {
            best = s;
            found = true;
            if (move_dir(d) > 0 &&
                target_from(d, day_of(o->tz, s.at), -1, &stop_day) != 0)
                stop_day = day_of(o->tz, s.at) - MOVE_MAX_DAYS;
        }
        pos = occ.at;
    }
    if (!found)
        return SKED_ENOTFOUND;
    *out = best;
    return 0;
}
