/* SPDX-License-Identifier: MIT */
/* The occurrences of a schedule's time spec (schedule_occ.h). Cron and
 * RRULE schedules list wall-clock times that the zone walk of
 * cron/wall.h maps to instants under the DST policy; intervals are
 * arithmetic, or, in calendar days, the anchor's local time every N days
 * (cron/every_days.h). */
#include "model/schedule_occ.h"

#include <string.h>

#include "base/error.h"
#include "cron/every_days.h"
#include "cron/wall.h"
#include "time/civil.h"
#include "tz/zone.h"

#define DAY_US (INT64_C(86400) * SKED_USEC_PER_SEC)

static int rrule_next(const void *ctx, int64_t lo, int64_t *out)
{
    return sked__rrule_civil_next(ctx, lo, out);
}

static int rrule_prev(const void *ctx, int64_t hi, int64_t *out)
{
    return sked__rrule_civil_prev(ctx, hi, out);
}

static sked__wall_src rrule_src(const sked__occ_spec *o)
{
    return (sked__wall_src){rrule_next, rrule_prev, o->rrule,
                            sked__rrule_is_fixed_time(o->rrule)};
}

/* The wall second of the instant T in TZ. */
static int64_t wall_of(const sked_tz *tz, sked_time t)
{
    int64_t sec = sked__floor_div(t, SKED_USEC_PER_SEC);
    sked__tz_seg seg;

    sked__tz_segment(tz, sec, &seg);
    return sec + seg.utoff;
}

int sked__occ_spec_init(sked__occ_spec *o, const sked_schedule *s,
                        const sked_tz *tz, const sked_cron *parsed,
                        sked_time now, sked_error *err)
{
    sked_time start;

    memset(o, 0, sizeof *o);
    o->s = s;
    o->tz = tz ? tz : sked_tz_utc();
    o->until = SKED_TIME_NONE;
    switch (s->kind) {
    case SKED_SPEC_CRON:
        if (parsed) {
            o->cron = *parsed;
            return 0;
        }
        return s->cron && sked_cron_parse(s->cron, &o->cron, err) == 0
                   ? 0
                   : SKED_EINVAL;
    case SKED_SPEC_RRULE:
        start = s->created_at != SKED_TIME_NONE ? s->created_at : now;
        if (!s->rrule || sked__rrule_parse(s->rrule, wall_of(o->tz, start),
                                           &o->rrule, err) != 0)
            return SKED_EINVAL;
        o->until = sked__rrule_until_utc(o->rrule);
        return 0;
    case SKED_SPEC_EVERY:
        if (s->every <= 0 || s->anchor == SKED_TIME_NONE ||
            (s->calendar_days && s->every % DAY_US != 0))
            return SKED_EINVAL;
        return 0;
    case SKED_SPEC_AT:
        return s->at != SKED_TIME_NONE ? 0 : SKED_EINVAL;
    }
    return SKED_EINVAL;
}

void sked__occ_spec_done(sked__occ_spec *o)
{
    if (o && o->rrule) {
        sked__rrule_free(o->rrule);
        o->rrule = NULL;
    }
}

/* Interval occurrences anchor + k * every, k >= 1. */
static int every_next(const sked_schedule *s, sked_time after, sked_time *out)
{
    int64_t k = 1;

    if (after >= s->anchor)
        k = (after - s->anchor) / s->every + 1;
    if (k > (SKED_TIME_MAX - s->anchor) / s->every)
        return SKED_ENOTFOUND;
    *out = s->anchor + k * s->every;
    return 0;
}

static int every_prev(const sked_schedule *s, sked_time before, sked_time *out)
{
    int64_t k;

    if (before <= s->anchor)
        return SKED_ENOTFOUND;
    k = (before - s->anchor - 1) / s->every;
    if (k > (SKED_TIME_MAX - s->anchor) / s->every)
        k = (SKED_TIME_MAX - s->anchor) / s->every;
    if (k < 1)
        return SKED_ENOTFOUND;
    *out = s->anchor + k * s->every;
    return 0;
}

int sked__occ_next(const sked__occ_spec *o, sked_time after,
                   sked_occurrence *out)
{
    const sked_schedule *s = o->s;
    sked__wall_src src;
    int rc;

    *out = (sked_occurrence){0, SKED_OCC_NORMAL};
    switch (s->kind) {
    case SKED_SPEC_CRON:
        return sked_cron_next_occurrence(&o->cron, o->tz, s->dst, after, out);
    case SKED_SPEC_RRULE:
        src = rrule_src(o);
        rc = sked__wall_next(&src, o->tz, s->dst, after, out);
        return rc == 0 && o->until != SKED_TIME_NONE && out->at > o->until
                   ? SKED_ENOTFOUND
                   : rc;
    case SKED_SPEC_EVERY:
        if (s->calendar_days)
            return sked__every_days_next(s->anchor, (int) (s->every / DAY_US),
                                         o->tz, s->dst, after, out);
        return every_next(s, after, &out->at);
    case SKED_SPEC_AT:
        out->at = s->at;
        return s->at > after ? 0 : SKED_ENOTFOUND;
    }
    return SKED_EINVAL;
}

int sked__occ_prev(const sked__occ_spec *o, sked_time before, sked_time *out)
{
    const sked_schedule *s = o->s;
    sked__wall_src src;

    switch (s->kind) {
    case SKED_SPEC_CRON:
        return sked_cron_prev(&o->cron, o->tz, s->dst, before, out);
    case SKED_SPEC_RRULE:
        if (o->until != SKED_TIME_NONE && before > o->until)
            before = o->until + 1;
        src = rrule_src(o);
        return sked__wall_prev(&src, o->tz, s->dst, before, out);
    case SKED_SPEC_EVERY:
        if (s->calendar_days)
            return sked__every_days_prev(s->anchor, (int) (s->every / DAY_US),
                                         o->tz, s->dst, before, out);
        return every_prev(s, before, out);
    case SKED_SPEC_AT:
        *out = s->at;
        return s->at < before ? 0 : SKED_ENOTFOUND;
    }
    return SKED_EINVAL;
}
