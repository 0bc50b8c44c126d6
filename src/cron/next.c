/* SPDX-License-Identifier: MIT */
/* Occurrences of a cron expression in a time zone (SPEC 2.1, 2.2).
 *
 * Words: a *segment* is a stretch of time with one UTC offset (zone.h);
 * a *gap* is the wall-clock range a forward change skips; a *fold* is the
 * range a backward change repeats. calendar.c finds matching wall-clock
 * seconds; this file maps them to instants, one segment at a time.
 *
 * The plan of next(after): take the segment holding AFTER and search the
 * calendar from AFTER's wall-clock second + 1. While the match lies past
 * the segment's wall-clock end, step to the next segment:
 *   - across a gap, a match inside the gap fires at the gap's end under
 *     the once rule (SPEC 2.2: "fires once, at the end of the gap"), or
 *     does not exist under cadence and the search resumes after the gap;
 *   - across a fold, the once rule keeps the match (the repeated wall
 *     times already had their first pass), while cadence searches the
 *     repeated range again, for the second pass.
 * Under the once rule a segment that starts with a fold also ignores the
 * wall times before its predecessor's end: they were its first pass.
 * Fixed-time expressions follow the once rule under either policy.
 * prev(before) mirrors this, walking segments backwards. */
#include <stdbool.h>

#include "cron/cron.h"
#include "time/civil.h"
#include "tz/zone.h"

/* Segments one search may cross: a valid expression matches within 400
 * years, and no zone changes its offset more than twice a year for long. */
#define MAX_SEGMENT_STEPS 4096
/* Twice the widest offset (26 h): a change this far before a match can
 * neither skip nor repeat its wall-clock time. */
#define FAR_SECS (52 * 3600)

static bool uses_once_rule(const sked_cron *c, sked_dst dst)
{
    return dst == SKED_DST_ONCE || sked_cron_is_fixed_time(c);
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Return how a DST change touched the wall-clock match WALL found in SEG:
 * the first pass of a fold at the segment's end, or the second pass of
 * a fold at its start. */
static sked_occ_mark fold_mark(const sked_tz *tz, const sked__tz_seg *seg,
                               int64_t wall)
{
    sked__tz_seg next;

    if (seg->prev_utoff > seg->utoff && seg->start != INT64_MIN &&
        wall < seg->start + seg->prev_utoff)
        return SKED_OCC_SECOND_PASS;
    if (seg->end == INT64_MAX)
        return SKED_OCC_NORMAL;
    sked__tz_segment(tz, seg->end, &next);
    if (next.utoff < seg->utoff && wall >= seg->end + next.utoff)
        return SKED_OCC_FIRST_PASS;
    return SKED_OCC_NORMAL;
}

/* Find the first occurrence after the second AFTER_SEC; fill out->mark
 * only when WANT_MARK, since it may cost one more segment lookup. */
static int next_in_zone(const sked_cron *c, const sked_tz *tz, bool once,
                        int64_t after_sec, bool want_mark, sked_occurrence *out)
{
    sked__tz_seg seg, nseg;
    int64_t wall, lo;
    int rc;

    sked__tz_segment(tz, after_sec, &seg);
    lo = after_sec + 1 + seg.utoff;
    if (once && seg.prev_utoff > seg.utoff && seg.start != INT64_MIN)
        lo = max64(lo, seg.start + seg.prev_utoff);
    if ((rc = sked__cron_civil_next(c, lo, &wall)) < 0)
        return rc;
    for (int step = 0; step < MAX_SEGMENT_STEPS; step++) {
        if (seg.end == INT64_MAX || wall < seg.end + seg.utoff) {
            out->at = (wall - seg.utoff) * SKED_USEC_PER_SEC;
            out->mark = want_mark ? fold_mark(tz, &seg, wall) : SKED_OCC_NORMAL;
            return 0;
        }
        /* A match years ahead (0 0 29 2 *) jumps over the changes
         * between: none of them can move it, and as it is the first match
         * after LO, no gap or repeated range among them holds another. */
        if (wall - seg.utoff - FAR_SECS > seg.end) {
            sked__tz_segment(tz, wall - seg.utoff - FAR_SECS, &seg);
            continue;
        }
        sked__tz_segment(tz, seg.end, &nseg);
        if (nseg.utoff > seg.utoff && wall < seg.end + nseg.utoff) {
            /* SPEC 2.2: a skipped local time fires once, at gap end. */
            if (once) {
                out->at = seg.end * SKED_USEC_PER_SEC;
                out->mark = SKED_OCC_SHIFTED;
                return 0;
            }
            rc = sked__cron_civil_next(c, seg.end + nseg.utoff, &wall);
        } else if (nseg.utoff < seg.utoff && !once) {
            /* Cadence: the repeated wall times fire again. */
            rc = sked__cron_civil_next(c, seg.end + nseg.utoff, &wall);
        }
        if (rc < 0)
            return rc;
        seg = nseg;
    }
    return SKED_ENOTFOUND;
}

static int prev_in_zone(const sked_cron *c, const sked_tz *tz, bool once,
                        int64_t before_sec, sked_time *out)
{
    sked__tz_seg seg;
    int64_t wall, lo;
    int rc;

    sked__tz_segment(tz, before_sec, &seg);
    if ((rc = sked__cron_civil_prev(c, before_sec + seg.utoff, &wall)) < 0)
        return rc;
    for (int step = 0; step < MAX_SEGMENT_STEPS; step++) {
        if (seg.start == INT64_MIN) {
            *out = (wall - seg.utoff) * SKED_USEC_PER_SEC;
            return 0;
        }
        lo = seg.start + seg.utoff;
        if (once && seg.prev_utoff > seg.utoff)
            lo = seg.start + seg.prev_utoff; /* the fold's first pass */
        if (wall >= lo) {
            *out = (wall - seg.utoff) * SKED_USEC_PER_SEC;
            return 0;
        }
        if (wall - seg.utoff + FAR_SECS < seg.start) { /* as in next */
            sked__tz_segment(tz, wall - seg.utoff + FAR_SECS, &seg);
            continue;
        }
        if (seg.prev_utoff < seg.utoff && wall >= seg.start + seg.prev_utoff) {
            if (once) { /* a match in the gap fired at its end */
                *out = seg.start * SKED_USEC_PER_SEC;
                return 0;
            }
            rc =
                sked__cron_civil_prev(c, seg.start + seg.prev_utoff - 1, &wall);
        } else if (seg.prev_utoff > seg.utoff && !once) {
            rc =
                sked__cron_civil_prev(c, seg.start + seg.prev_utoff - 1, &wall);
        }
        if (rc < 0)
            return rc;
        sked__tz_segment(tz, seg.start - 1, &seg);
    }
    return SKED_ENOTFOUND;
}

static int next_occurrence(const sked_cron *c, const sked_tz *tz, sked_dst dst,
                           sked_time after, bool want_mark,
                           sked_occurrence *out)
{
    sked_occurrence occ;
    int rc;

    if (!c || !tz || !out)
        return SKED_EINVAL;
    if (after >= SKED_TIME_MAX)
        return SKED_ENOTFOUND;
    if (after < SKED_TIME_MIN)
        after = SKED_TIME_MIN - 1;
    rc = next_in_zone(c, tz, uses_once_rule(c, dst),
                      sked__floor_div(after, SKED_USEC_PER_SEC), want_mark,
                      &occ);
    if (rc < 0)
        return rc;
    if (occ.at > SKED_TIME_MAX)
        return SKED_ENOTFOUND;
    *out = occ;
    return 0;
}

int sked_cron_next_occurrence(const sked_cron *c, const sked_tz *tz,
                              sked_dst dst, sked_time after,
                              sked_occurrence *out)
{
    return next_occurrence(c, tz, dst, after, true, out);
}

int sked_cron_next(const sked_cron *c, const sked_tz *tz, sked_dst dst,
                   sked_time after, sked_time *out)
{
    sked_occurrence occ;
    int rc;

    if (!out)
        return SKED_EINVAL;
    rc = next_occurrence(c, tz, dst, after, false, &occ);
    if (rc == 0)
        *out = occ.at;
    return rc;
}

int sked_cron_prev(const sked_cron *c, const sked_tz *tz, sked_dst dst,
                   sked_time before, sked_time *out)
{
    sked_time t;
    int64_t before_sec;
    int rc;

    if (!c || !tz || !out)
        return SKED_EINVAL;
    if (before <= SKED_TIME_MIN)
        return SKED_ENOTFOUND;
    if (before > SKED_TIME_MAX)
        before = SKED_TIME_MAX;
    /* The last whole second strictly before BEFORE. */
    before_sec = sked__floor_div(before - 1, SKED_USEC_PER_SEC);
    rc = prev_in_zone(c, tz, uses_once_rule(c, dst), before_sec, &t);
    if (rc < 0)
        return rc;
    if (t < SKED_TIME_MIN)
        return SKED_ENOTFOUND;
    *out = t;
    return 0;
}
