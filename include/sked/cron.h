/* SPDX-License-Identifier: MIT */
/* Cron expressions: parse once, then ask for occurrences in a zone.
 *
 * Syntax: SPEC 2.1. Five fields "minute hour day-of-month month
 * day-of-week", or six with seconds first; names, macros, '?', steps,
 * and the extensions L, L-n, nW, LW (day of month), dL and d#n (day of
 * week). When both day fields are restricted (neither is "*" nor "?"),
 * a day matches when either matches.
 *
 * DST: SPEC 2.2 and 12, the DST matrix. A policy says what a local time
 * skipped by a forward change does (shift: fire at the gap's end, all
 * times of one gap as one firing; skip: it does not exist) and what a
 * local time repeated by a backward change does (first: fire on its first
 * pass; last: on its second; both: on each). SKED_DST_ONCE (the default)
 * is shift + first, so every local time fires at most once; with
 * SKED_DST_CADENCE a fixed-time expression follows once and any other
 * keeps its real-time rhythm (skip + both). The explicit combinations
 * apply as written, to fixed-time expressions too.
 *
 * A sked_cron is a plain value (bitsets), safe to copy and to share
 * between threads. Searches never allocate and are bounded. */
#ifndef SKED_CRON_H
#define SKED_CRON_H

#include <stddef.h>
#include <stdint.h>

#include "sked/error.h"
#include "sked/time.h"
#include "sked/tz.h"

#define SKED_CRON_MAX_LEN 256
/* A buffer size that fits any sked_cron_explain output. */
#define SKED_CRON_EXPLAIN_MAX 1024

/* sked_cron.flags */
#define SKED_CRON_DOM_STAR 0x01u /* day-of-month is "*" or "?" */
#define SKED_CRON_DOW_STAR 0x02u /* day-of-week is "*" or "?" */
#define SKED_CRON_DOM_LW   0x04u /* LW: last weekday of the month */
#define SKED_CRON_SECONDS  0x08u /* written with a seconds field */

typedef struct sked_cron {
    uint64_t sec;       /* bit s: second s (0-59) */
    uint64_t min;       /* bit m: minute m (0-59) */
    uint32_t hour;      /* bit h: hour h (0-23) */
    uint32_t dom;       /* bit d: day d of the month (1-31) */
    uint32_t dom_last;  /* bit n: the n-th day before the last (L-n, L=0) */
    uint32_t dom_near;  /* bit d: the weekday nearest day d (dW) */
    uint16_t month;     /* bit m: month m (1-12) */
    uint8_t dow;        /* bit d: weekday d (0 = Sunday .. 6) */
    uint8_t dow_last;   /* bit d: the last weekday d of the month (dL) */
    uint8_t dow_nth[7]; /* bit n-1 of [d]: the n-th weekday d (d#n) */
    uint8_t flags;      /* SKED_CRON_* */
} sked_cron;

/* Values 0 and 1 are stored by schedules: they never change meaning. */
typedef enum sked_dst {
    SKED_DST_ONCE = 0,       /* shift + first: each local time at most once */
    SKED_DST_CADENCE = 1,    /* the real-time rhythm (Vixie cron), see above */
    SKED_DST_SHIFT_LAST = 2, /* gap: shift; repeated: second pass only */
    SKED_DST_SHIFT_BOTH = 3, /* gap: shift; repeated: both passes */
    SKED_DST_SKIP_FIRST = 4, /* gap: none; repeated: first pass only */
    SKED_DST_SKIP_LAST = 5,  /* gap: none; repeated: second pass only */
    SKED_DST_SKIP_BOTH = 6,  /* gap: none; repeated: both passes */
} sked_dst;

/* The number of sked_dst values (0 .. SKED_DST_COUNT - 1). */
#define SKED_DST_COUNT 7

/* A buffer size that fits any sked_dst_name. */
#define SKED_DST_NAME_MAX 16

/* How a DST change moved an occurrence (SPEC 3.5, preview). */
typedef enum sked_occ_mark {
    SKED_OCC_NORMAL = 0,
    SKED_OCC_SHIFTED = 1,     /* a skipped local time, fired at gap end */
    SKED_OCC_FIRST_PASS = 2,  /* a repeated local time, its first pass */
    SKED_OCC_SECOND_PASS = 3, /* a repeated local time, second pass */
} sked_occ_mark;

typedef struct sked_occurrence {
    sked_time at;       /* the instant, UTC, whole seconds */
    sked_occ_mark mark; /* how a DST change moved it */
} sked_occurrence;

/* Parse EXPR (at most SKED_CRON_MAX_LEN bytes) into *out. Returns 0, or
 * SKED_EINVAL with err->field ("minute", "day-of-week", ...) and err->pos
 * (0-based byte offset) set; *out untouched on error. Expressions that can
 * never fire ("0 0 30 2 *") are rejected. */
SKED_API int sked_cron_parse(const char *expr, sked_cron *out, sked_error *err);

/* Store in *out the first occurrence strictly after AFTER, in zone TZ,
 * under the DST policy DST. Returns 0, SKED_ENOTFOUND (no occurrence
 * before SKED_TIME_MAX) or SKED_EINVAL (NULL argument, or DST not a
 * sked_dst value). Never allocates. */
SKED_API int sked_cron_next(const sked_cron *c, const sked_tz *tz, sked_dst dst,
                            sked_time after, sked_time *out);

/* Like sked_cron_next, and also tell how a DST change moved it: SHIFTED
 * for a skipped time fired at the gap's end, FIRST_PASS / SECOND_PASS for
 * a repeated time (both passes are marked under "both"). */
SKED_API int sked_cron_next_occurrence(const sked_cron *c, const sked_tz *tz,
                                       sked_dst dst, sked_time after,
                                       sked_occurrence *out);

/* Store in *out the last occurrence strictly before BEFORE: the mirror of
 * sked_cron_next, over the same set of occurrences. Returns 0,
 * SKED_ENOTFOUND (none after SKED_TIME_MIN) or SKED_EINVAL. */
SKED_API int sked_cron_prev(const sked_cron *c, const sked_tz *tz, sked_dst dst,
                            sked_time before, sked_time *out);

/* Return 1 when C is fixed-time (a single second, minute and hour), the
 * expressions SKED_DST_CADENCE treats like SKED_DST_ONCE. */
SKED_API int sked_cron_is_fixed_time(const sked_cron *c);

/* Describe C in English into BUF of SIZE bytes, ending with the zone in
 * parentheses when TZNAME is not NULL: "At 09:00, Monday through Friday
 * (Europe/Paris)". Returns the length, or SKED_ETOOBIG. */
SKED_API int sked_cron_explain(const sked_cron *c, const char *tzname,
                               char *buf, size_t size);

/* Parse a DST policy into *out: "once", "cadence", or a comma-separated
 * list of at most one gap word ("shift", "skip") and at most one fold
 * word ("first", "last", "both") in either order, a missing half taking
 * its default (shift, first): "skip", "last", "skip,both", "both,shift".
 * Returns 0, or SKED_EINVAL with err->field "dst" and err->pos the byte
 * offset of the offending word (an unknown or empty word, a second gap or
 * fold word, "once" or "cadence" beside another word); *out untouched on
 * error. */
SKED_API int sked_dst_parse(const char *s, sked_dst *out, sked_error *err);

/* Return the canonical name of DST: "once", "cadence", or "GAP,FOLD"
 * ("shift,last", "skip,first", ...), which sked_dst_parse reads back to
 * DST; "unknown" for a value outside sked_dst. A static string. */
SKED_API const char *sked_dst_name(sked_dst dst);

#endif
