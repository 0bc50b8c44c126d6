/* SPDX-License-Identifier: MIT */
/* The gap and fold walk: occurrences of a source of wall-clock times in a
 * zone (SPEC 2.2, 12), as static inline functions that each source's
 * file instantiates (wall.c for any source, next.c for cron, whose
 * calendar is then called directly on the scheduler's hot path).
 *
 * Words: a *segment* is a stretch of time with one UTC offset (zone.h);
 * a *gap* is the wall-clock range a forward change skips; a *fold* is the
 * range a backward change repeats, its *first pass* at the end of the
 * segment before the change, its *second pass* at the start of the one
 * after. The source (cron's calendar, a calendar-day interval) lists
 * matching wall-clock seconds; this file maps them to instants, one
 * segment at a time, under a policy of the DST matrix: a match in a gap
 * shifts to the gap's end or is skipped; a match in a fold keeps its
 * first pass, its last, or both.
 *
 * The plan of next(after): take the segment holding AFTER and search the
 * source from AFTER's wall-clock second + 1 (under "first", from past the
 * fold a segment starts with: those wall times were its first pass).
 * A match inside the segment's wall-clock range is the answer ("last"
 * ends the range where a closing fold's first pass begins). Past it, step
 * to the next segment:
 *   - across a gap, a match inside the gap fires at the gap's end under
 *     shift (SPEC 2.2: "fires once, at the end of the gap") or, under
 *     skip, does not exist and the search resumes after the gap;
 *   - across a fold, "first" keeps the match (the repeated wall times had
 *     their first pass), while "last" and "both" search the repeated range
 *     again, for the second pass.
 * prev(before) mirrors this, walking segments backwards. */
#ifndef SKED_CRON_WALL_WALK_H
#define SKED_CRON_WALL_WALK_H

#include "cron/cron.h"
#include "cron/wall.h"
#include "time/civil.h"
#include "tz/zone.h"

/* Segments one search may cross: a valid source matches within 400
 * years, and no zone changes its offset more than twice a year for long. */
#define MAX_SEGMENT_STEPS 4096
/* Twice the widest offset (26 h): a change this far before a match can
 * neither skip nor repeat its wall-clock time. */
#define FAR_SECS (52 * 3600)

typedef enum fold_rule { FOLD_FIRST, FOLD_LAST, FOLD_BOTH } fold_rule;

/* One cell of the DST matrix. */
typedef struct rule {
    bool shift;     /* a match in a gap fires at its end (else: none) */
    fold_rule fold; /* which passes of a repeated match fire */
} rule;

/* Decode DST for a source; cadence depends on whether it is fixed-time. */
static inline int rule_of(sked_dst dst, bool fixed_time, rule *out)
{
    static const rule rules[SKED_DST_COUNT] = {
        [SKED_DST_ONCE] = {true, FOLD_FIRST},
        [SKED_DST_CADENCE] = {false, FOLD_BOTH},
        [SKED_DST_SHIFT_LAST] = {true, FOLD_LAST},
        [SKED_DST_SHIFT_BOTH] = {true, FOLD_BOTH},
        [SKED_DST_SKIP_FIRST] = {false, FOLD_FIRST},
        [SKED_DST_SKIP_LAST] = {false, FOLD_LAST},
        [SKED_DST_SKIP_BOTH] = {false, FOLD_BOTH},
    };

    if ((unsigned) dst >= SKED_DST_COUNT)
        return SKED_EINVAL;
    /* SPEC 2.2: under cadence a fixed-time expression follows once. */
    if (dst == SKED_DST_CADENCE && fixed_time)
        dst = SKED_DST_ONCE;
    *out = rules[dst];
    return 0;
}

/* Ask SRC for its first match >= LO; cron's calendar without an indirect
 * call, as sked_cron_next is the scheduler's hot path. */
static inline int src_next(const sked__wall_src *src, int64_t lo, int64_t *out)
{
    if (src->next == sked__wall_cron_next)
        return sked__cron_civil_next(src->ctx, lo, out);
    return src->next(src->ctx, lo, out);
}

static inline int src_prev(const sked__wall_src *src, int64_t hi, int64_t *out)
{
    if (src->prev == sked__wall_cron_prev)
        return sked__cron_civil_prev(src->ctx, hi, out);
    return src->prev(src->ctx, hi, out);
}

static inline int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static inline int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* Return the first wall-clock second past SEG's share of the wall clock
 * (SEG has an end): its wall end, or under "last" the start of the fold
 * that closes it, whose first pass does not fire. Looks the next segment
 * up only when WALL is within a fold's width of the end. */
static inline int64_t wall_end(const sked_tz *tz, const sked__tz_seg *seg,
                               fold_rule fold, int64_t wall)
{
    int64_t end = seg->end + seg->utoff;
    sked__tz_seg next;

    if (fold != FOLD_LAST || wall < end - FAR_SECS)
        return end;
    sked__tz_segment(tz, seg->end, &next);
    return next.utoff < seg->utoff ? seg->end + next.utoff : end;
}

/* Return how a DST change touched the wall-clock match WALL found in SEG:
 * the first pass of a fold at the segment's end, or the second pass of
 * a fold at its start. */
static inline sked_occ_mark fold_mark(const sked_tz *tz,
                                      const sked__tz_seg *seg, int64_t wall)
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

/* Move from SEG (ending before WALL's instant) into the segment after it,
 * updating *wall for the gap or fold between; return 1 with *out filled
 * when a gap's end is the answer, else 0 or a negative status. */
static inline int cross_forward(const sked__wall_src *src, const sked_tz *tz,
                                rule r, sked__tz_seg *seg, int64_t *wall,
                                int64_t *out)
{
    sked__tz_seg nseg;
    int rc = 0;

    sked__tz_segment(tz, seg->end, &nseg);
    if (nseg.utoff > seg->utoff && *wall < seg->end + nseg.utoff) {
        /* SPEC 2.2: a skipped local time fires once, at gap end. */
        if (r.shift) {
            *out = seg->end;
            return 1;
        }
        rc = src_next(src, seg->end + nseg.utoff, wall);
    } else if (nseg.utoff < seg->utoff && r.fold != FOLD_FIRST) {
        /* The repeated wall times fire (again) on their second pass. */
        rc = src_next(src, seg->end + nseg.utoff, wall);
    }
    *seg = nseg;
    return rc;
}

/* Find the first occurrence after the second AFTER_SEC; fill out->mark
 * only when WANT_MARK, since it may cost one more segment lookup. */
static inline int next_in_zone(const sked__wall_src *src, const sked_tz *tz,
                               rule r, int64_t after_sec, bool want_mark,
                               sked_occurrence *out)
{
    sked__tz_seg seg;
    int64_t wall, lo, gap_end = 0;
    int rc;

    sked__tz_segment(tz, after_sec, &seg);
    lo = after_sec + 1 + seg.utoff;
    if (r.fold == FOLD_FIRST && seg.prev_utoff > seg.utoff &&
        seg.start != INT64_MIN)
        lo = max64(lo, seg.start + seg.prev_utoff);
    if ((rc = src_next(src, lo, &wall)) < 0)
        return rc;
    for (int step = 0; step < MAX_SEGMENT_STEPS; step++) {
        if (seg.end == INT64_MAX || wall < wall_end(tz, &seg, r.fold, wall)) {
            out->at = (wall - seg.utoff) * SKED_USEC_PER_SEC;
            out->mark = want_mark ? fold_mark(tz, &seg, wall) : SKED_OCC_NORMAL;
            return 0;
        }
        /* A match years ahead (0 0 29 2 *) jumps over the changes
         * between: none of them can move it, and as it is the first match
         * after LO, no gap or repeated range among them holds another.
         * Under "last" and "both" a fold may repeat wall times before LO
         * (their second pass is still to come): jump only from a segment
         * whose wall times all lie far past LO. */
        if (wall - seg.utoff - FAR_SECS > seg.end &&
            (r.fold == FOLD_FIRST ||
             (seg.start != INT64_MIN &&
              seg.start + seg.utoff - FAR_SECS >= lo))) {
            sked__tz_segment(tz, wall - seg.utoff - FAR_SECS, &seg);
            continue;
        }
        if ((rc = cross_forward(src, tz, r, &seg, &wall, &gap_end)) < 0)
            return rc;
        if (rc == 1) {
            out->at = gap_end * SKED_USEC_PER_SEC;
            out->mark = SKED_OCC_SHIFTED;
            return 0;
        }
    }
    return SKED_ENOTFOUND;
}

/* Move from SEG into the segment before it, updating *wall for the gap
 * or fold between; return 1 with *out filled when a gap's end is the
 * answer, else 0 or a negative status. */
static inline int cross_backward(const sked__wall_src *src, const sked_tz *tz,
                                 rule r, sked__tz_seg *seg, int64_t *wall,
                                 int64_t *out)
{
    int64_t start = seg->start;
    int rc = 0;

    if (seg->prev_utoff < seg->utoff && *wall >= start + seg->prev_utoff) {
        if (r.shift) { /* a match in the gap fired at its end */
            *out = start;
            return 1;
        }
        rc = src_prev(src, start + seg->prev_utoff - 1, wall);
    } else if (seg->prev_utoff > seg->utoff && r.fold != FOLD_LAST) {
        /* The first passes of the repeated range, whose wall times may lie
         * after the one BEFORE's second pass had. */
        rc = src_prev(src, start + seg->prev_utoff - 1, wall);
    }
    sked__tz_segment(tz, start - 1, seg);
    return rc;
}

static inline int prev_in_zone(const sked__wall_src *src, const sked_tz *tz,
                               rule r, int64_t before_sec, int64_t *out)
{
    sked__tz_seg seg;
    int64_t wall, lo, hi;
    int rc;

    sked__tz_segment(tz, before_sec, &seg);
    hi = before_sec + seg.utoff;
    if (r.fold == FOLD_LAST && seg.end != INT64_MAX) /* as "first" in next */
        hi = min64(hi, wall_end(tz, &seg, r.fold, hi) - 1);
    rc = src_prev(src, hi, &wall);
    if (rc == SKED_ENOTFOUND && r.fold != FOLD_LAST && seg.start != INT64_MIN &&
        seg.prev_utoff > seg.utoff) {
        /* None up to HI, but the fold SEG starts with had first passes of
         * later wall times (a source that starts there). */
        rc = src_prev(src, seg.start + seg.prev_utoff - 1, &wall);
        sked__tz_segment(tz, seg.start - 1, &seg);
    }
    if (rc < 0)
        return rc;
    for (int step = 0; step < MAX_SEGMENT_STEPS; step++) {
        if (seg.start == INT64_MIN) {
            *out = wall - seg.utoff;
            return 0;
        }
        lo = seg.start + seg.utoff;
        if (r.fold == FOLD_FIRST && seg.prev_utoff > seg.utoff)
            lo = seg.start + seg.prev_utoff; /* the fold's first pass */
        if (wall >= lo) {
            *out = wall - seg.utoff;
            return 0;
        }
        if (wall - seg.utoff + FAR_SECS < seg.start && /* as in next */
            (r.fold == FOLD_LAST ||
             (seg.end != INT64_MAX && seg.end + seg.utoff + FAR_SECS <= hi))) {
            sked__tz_segment(tz, wall - seg.utoff + FAR_SECS, &seg);
            continue;
        }
        if ((rc = cross_backward(src, tz, r, &seg, &wall, out)) != 0)
            return rc < 0 ? rc : 0;
    }
    return SKED_ENOTFOUND;
}

static inline int next_occurrence(const sked__wall_src *src, const sked_tz *tz,
                                  sked_dst dst, sked_time after, bool want_mark,
                                  sked_occurrence *out)
{
    sked_occurrence occ;
    rule r;
    int rc;

    if (!src || !tz || !out || rule_of(dst, src->fixed_time, &r) < 0)
        return SKED_EINVAL;
    if (after >= SKED_TIME_MAX)
        return SKED_ENOTFOUND;
    if (after < SKED_TIME_MIN)
        after = SKED_TIME_MIN - 1;
    rc = next_in_zone(src, tz, r, sked__floor_div(after, SKED_USEC_PER_SEC),
                      want_mark, &occ);
    if (rc < 0)
        return rc;
    if (occ.at > SKED_TIME_MAX)
        return SKED_ENOTFOUND;
    *out = occ;
    return 0;
}

static inline int prev_occurrence(const sked__wall_src *src, const sked_tz *tz,
                                  sked_dst dst, sked_time before,
                                  sked_time *out)
{
    int64_t before_sec, t = 0;
    rule r;
    int rc;

    if (!src || !tz || !out || rule_of(dst, src->fixed_time, &r) < 0)
        return SKED_EINVAL;
    if (before <= SKED_TIME_MIN)
        return SKED_ENOTFOUND;
    if (before > SKED_TIME_MAX)
        before = SKED_TIME_MAX;
    /* The last whole second strictly before BEFORE. */
    before_sec = sked__floor_div(before - 1, SKED_USEC_PER_SEC);
    rc = prev_in_zone(src, tz, r, before_sec, &t);
    if (rc < 0)
        return rc;
    if (t * SKED_USEC_PER_SEC < SKED_TIME_MIN)
        return SKED_ENOTFOUND;
    *out = t * SKED_USEC_PER_SEC;
    return 0;
}

#endif
