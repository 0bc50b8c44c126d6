/* SPDX-License-Identifier: MIT */
/* Occurrences of any source of wall-clock times in a zone, under a DST
 * policy (SPEC 2.2, 12): the gap and fold walk of wall.c, shared by cron
 * expressions (next.c) and calendar-day intervals (every_days.c), and by
 * any later rule that can list its matching local times. */
#ifndef SKED_CRON_WALL_H
#define SKED_CRON_WALL_H

#include <stdbool.h>
#include <stdint.h>

#include "sked/cron.h"

/* A source of wall-clock seconds (seconds since 1970-01-01T00:00 local).
 * next stores the first match >= LO, prev the last match <= HI; both
 * return 0 or SKED_ENOTFOUND, and must be bounded (no match within 400
 * years is "none"). */
typedef struct sked__wall_src {
    int (*next)(const void *ctx, int64_t lo, int64_t *out);
    int (*prev)(const void *ctx, int64_t hi, int64_t *out);
    const void *ctx; /* borrowed: the rule the source reads */
    bool fixed_time; /* one time of day: cadence treats it as once */
} sked__wall_src;

/* Store in *out the first occurrence of SRC strictly after AFTER in TZ
 * under DST, with its mark. Returns 0, SKED_ENOTFOUND (none before
 * SKED_TIME_MAX) or SKED_EINVAL (NULL argument, DST out of range). */
int sked__wall_next(const sked__wall_src *src, const sked_tz *tz, sked_dst dst,
                    sked_time after, sked_occurrence *out);

/* Like sked__wall_next without the mark, which may cost a segment
 * lookup: the scheduler's path. */
int sked__wall_next_time(const sked__wall_src *src, const sked_tz *tz,
                         sked_dst dst, sked_time after, sked_time *out);

/* Store in *out the last occurrence of SRC strictly before BEFORE: the
 * mirror of sked__wall_next over the same set. Returns 0, SKED_ENOTFOUND
 * (none after SKED_TIME_MIN) or SKED_EINVAL. */
int sked__wall_prev(const sked__wall_src *src, const sked_tz *tz, sked_dst dst,
                    sked_time before, sked_time *out);

/* The wall source of a cron expression (CTX is a const sked_cron *). The
 * walk calls the calendar directly when it meets these: the cron search
 * stays free of indirect calls. */
int sked__wall_cron_next(const void *ctx, int64_t lo, int64_t *out);
int sked__wall_cron_prev(const void *ctx, int64_t hi, int64_t *out);

#endif
