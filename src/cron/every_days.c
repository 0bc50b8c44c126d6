/* SPDX-License-Identifier: MIT */
/* Calendar-day intervals as a wall-clock source (SPEC 12).
 *
 * `every: 1d` counts durations: 24 hours, so 09:00 drifts to 10:00 across
 * a spring change. With calendar_days the occurrences are the anchor's
 * local wall time + k·N days (k >= 1), each mapped through the zone by
 * wall.c under the schedule's DST policy, so 09:00 stays 09:00. Being one
 * time of day, the source is fixed-time: cadence treats it as once. The
 * anchor's wall time is its whole second in the zone (its microseconds are
 * dropped, as occurrences are whole seconds). */
#include "cron/every_days.h"

#include "cron/wall.h"
#include "time/civil.h"
#include "tz/zone.h"

/* The latest wall-clock second a source offers (year 9999 ends): beyond
 * every instant sked_time holds, and far from overflow. */
#define WALL_MAX INT64_C(253402300799)
#define WALL_MIN (-WALL_MAX)

typedef struct every_days {
    int64_t first; /* the wall-clock second of k = 1 */
    int64_t step;  /* N days, in seconds */
} every_days;

static int days_next(const void *ctx, int64_t lo, int64_t *out)
{
    const every_days *e = ctx;
    int64_t k;

    if (lo > WALL_MAX)
        return SKED_ENOTFOUND;
    k = lo <= e->first ? 0 : sked__floor_div(lo - e->first - 1, e->step) + 1;
    if (e->first + k * e->step > WALL_MAX)
        return SKED_ENOTFOUND;
    *out = e->first + k * e->step;
    return 0;
}

static int days_prev(const void *ctx, int64_t hi, int64_t *out)
{
    const every_days *e = ctx;

    if (hi < e->first)
        return SKED_ENOTFOUND;
    if (hi > WALL_MAX)
        hi = WALL_MAX;
    *out = e->first + sked__floor_div(hi - e->first, e->step) * e->step;
    return 0;
}

/* Fill *e and *src for ANCHOR every DAYS days in TZ. */
static int source(sked_time anchor, int days, const sked_tz *tz, every_days *e,
                  sked__wall_src *src)
{
    sked__tz_seg seg;
    int64_t sec;

    if (!tz || days < 1 || days > SKED__EVERY_DAYS_MAX ||
        anchor < SKED_TIME_MIN || anchor > SKED_TIME_MAX)
        return SKED_EINVAL;
    sec = sked__floor_div(anchor, SKED_USEC_PER_SEC);
    sked__tz_segment(tz, sec, &seg);
    e->step = (int64_t) days * 86400;
    e->first = sec + seg.utoff + e->step;
    if (e->first < WALL_MIN || e->first > WALL_MAX)
        return SKED_EINVAL;
    *src = (sked__wall_src){
        .next = days_next, .prev = days_prev, .ctx = e, .fixed_time = true};
    return 0;
}

int sked__every_days_next(sked_time anchor, int days, const sked_tz *tz,
                          sked_dst dst, sked_time after, sked_occurrence *out)
{
    every_days e;
    sked__wall_src src;
    int rc;

    if ((rc = source(anchor, days, tz, &e, &src)) < 0)
        return rc;
    return sked__wall_next(&src, tz, dst, after, out);
}

int sked__every_days_prev(sked_time anchor, int days, const sked_tz *tz,
                          sked_dst dst, sked_time before, sked_time *out)
{
    every_days e;
    sked__wall_src src;
    int rc;

    if ((rc = source(anchor, days, tz, &e, &src)) < 0)
        return rc;
    return sked__wall_prev(&src, tz, dst, before, out);
}
