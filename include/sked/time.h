/* SPDX-License-Identifier: MIT */
/* Instants and durations.
 *
 * sked_time is an instant: microseconds since 1970-01-01T00:00:00Z, UTC,
 * POSIX time (no leap seconds). sked_dur is a length of time in
 * microseconds. Instants are written in RFC 3339 with an explicit offset
 * (SPEC 2.3); durations as "90s", "5m", "1h30m", "3d", "1w" or whole
 * seconds. Both parsers accept only the whole string and report the byte
 * position of the first problem. */
#ifndef SKED_TIME_H
#define SKED_TIME_H

#include <stddef.h>
#include <stdint.h>

#include "sked/error.h"

typedef int64_t sked_time; /* µs since the Unix epoch, UTC */
typedef int64_t sked_dur;  /* µs */

#define SKED_USEC_PER_SEC INT64_C(1000000)
/* 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z: the instants
 * RFC 3339 can write. */
#define SKED_TIME_MIN (INT64_C(-62135596800) * SKED_USEC_PER_SEC)
#define SKED_TIME_MAX (INT64_C(253402300800) * SKED_USEC_PER_SEC - 1)
/* "Not set", for an instant that may be absent. */
#define SKED_TIME_NONE INT64_MIN
/* Longest accepted input, and a buffer size that fits any output. */
#define SKED_TIME_INPUT_MAX 64
#define SKED_TIME_STRLEN    40
#define SKED_DUR_STRLEN     40

/* Parse the RFC 3339 instant S ("2026-12-01T09:00:00Z",
 * "2026-12-01T10:00:00.25+01:00") into *out. An instant without an offset
 * is rejected. Fractions beyond microseconds are truncated.
 * Returns 0, or SKED_EINVAL with err->field (the component: "month",
 * "offset", ...) and err->pos set; *out untouched on error. */
SKED_API int sked_time_parse(const char *s, sked_time *out, sked_error *err);

/* Write T in UTC ("2026-11-30T08:00:00Z"; six fraction digits only when
 * the instant has microseconds) into BUF of SIZE bytes.
 * Returns the length written, or SKED_ERANGE (T outside SKED_TIME_MIN..MAX)
 * or SKED_ETOOBIG (BUF too small). */
SKED_API int sked_time_format(sked_time t, char *buf, size_t size);

/* Like sked_time_format, but in local time at UTOFF seconds east of UTC,
 * with the offset written out ("2025-03-30T03:00:00+02:00"). RFC 3339
 * offsets are whole minutes: an offset with seconds (local mean time) is
 * rounded to the nearest minute, ties away from zero, and the local time
 * written to match it, so the string still names T exactly (RFC 3339
 * 5.8's "1937-01-01T12:00:27.87+00:20"). Returns SKED_ERANGE too when
 * the rounded offset passes 23:59 or the local time leaves years 1-9999. */
SKED_API int sked_time_format_offset(sked_time t, int32_t utoff, char *buf,
                                     size_t size);

/* Parse the duration S ("90s", "1h30m", "3d", "1w", "3600") into *out.
 * Units w, d, h, m, s, each at most once and in that order; the result is
 * whole seconds, at most 100 years. Returns 0, or SKED_EINVAL with
 * err->pos set; *out untouched on error. */
SKED_API int sked_dur_parse(const char *s, sked_dur *out, sked_error *err);

/* Write D in the largest units that fit ("1h30m", "2d", "45s", "0s");
 * sub-second parts are written as a fraction of seconds ("1.5s").
 * Returns the length written, or SKED_EINVAL (negative D) or
 * SKED_ETOOBIG (BUF too small). */
SKED_API int sked_dur_format(sked_dur d, char *buf, size_t size);

/* Civil date and time, as read on a wall clock (no zone). */
typedef struct sked_civil {
    int32_t year;  /* 1..9999 */
    int32_t month; /* 1..12 */
    int32_t day;   /* 1..31 */
    int32_t hour, minute, second;
    int32_t usec;
    int32_t wday; /* 0 = Sunday; filled by sked_civil_from_time */
} sked_civil;

/* Split T (taken as a wall-clock reading) into *out. Never fails for
 * T in SKED_TIME_MIN..MAX. */
SKED_API void sked_civil_from_time(sked_time t, sked_civil *out);

/* Return the wall-clock reading of C as µs since 1970-01-01T00:00; wday
 * is ignored. Fields are not range-checked. */
SKED_API sked_time sked_civil_to_time(const sked_civil *c);

#endif
