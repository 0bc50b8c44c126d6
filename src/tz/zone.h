/* SPDX-License-Identifier: MIT */
/* Internal view of a zone for the cron engine: segments of one offset.
 *
 * A segment is a maximal stretch of time during which a zone's UTC offset
 * does not change. Transitions that change only the abbreviation or the
 * DST flag do not end a segment. The cron search (src/cron/next.c) walks
 * segments to find gaps (the offset grows) and repeated times (it
 * shrinks). */
#ifndef SKED_TZ_ZONE_H
#define SKED_TZ_ZONE_H

#include <stdint.h>

#include "sked/tz.h"

typedef struct sked__tz_seg {
    int64_t start;      /* first second of the segment; INT64_MIN: none */
    int64_t end;        /* first second after it; INT64_MAX: none */
    int32_t utoff;      /* offset within [start, end), seconds east */
    int32_t prev_utoff; /* offset just before start; utoff if none */
} sked__tz_seg;

/* Fill *out with the segment holding the POSIX second T. T may be any
 * second within SKED_TIME_MIN..SKED_TIME_MAX widened by a week. Never
 * allocates; O(log transitions), plus a few rule evaluations past the
 * last transition. Segments agree with sked_tz_lookup: the offset is
 * utoff on all of [start, end). They are maximal for every real zone; a
 * contrived TZ rule whose DST periods overlap from year to year may give
 * a bound where the offset does not change (then prev_utoff == utoff). */
void sked__tz_segment(const sked_tz *tz, int64_t t, sked__tz_seg *out);

#endif
