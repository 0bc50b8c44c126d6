/* SPDX-License-Identifier: MIT */
/* POSIX TZ strings ("CET-1CEST,M3.5.0,M10.5.0/3"), as found in the footer
 * of a TZif file and accepted by sked_tz_parse_posix.
 *
 * Wording: the *start* rule is when daylight saving time begins (written
 * in standard time), the *end* rule when it ends (written in DST). "DST"
 * is whatever the string's second part names, even when its offset is
 * smaller than standard time's (Europe/Dublin: "IST-1GMT0,M10.5.0,M3.5.0/1").
 * All instants are POSIX seconds (int64_t), not sked_time microseconds. */
#ifndef SKED_TZ_POSIXTZ_H
#define SKED_TZ_POSIXTZ_H

#include <stddef.h>
#include <stdint.h>

#include "sked/error.h"

/* Longest abbreviation kept ("<+0545>" keeps "+0545"). */
#define SKED__POSIXTZ_NAME_MAX 32

enum sked__posix_rule_kind {
    SKED__RULE_JULIAN = 1, /* Jn: day 1..365, February 29 never counted */
    SKED__RULE_ZERO = 2,   /* n: day 0..365, February 29 counted */
    SKED__RULE_MONTH = 3,  /* Mm.w.d: weekday d of week w of month m */
};

typedef struct sked__posix_rule {
    int32_t secs; /* local time of day of the change, -167h..167h */
    int16_t day;  /* JULIAN and ZERO */
    uint8_t kind; /* enum sked__posix_rule_kind */
    uint8_t month, week, wday;
} sked__posix_rule;

/* How the DST flag behaves over all years. */
enum sked__posix_const {
    SKED__POSIX_VARIES = 0,  /* DST starts and ends every year */
    SKED__POSIX_STD_ALL = 1, /* standard time only (no DST part) */
    SKED__POSIX_DST_ALL = 2, /* DST all year ("EST5EDT,0/0,J365/25") */
};

typedef struct sked__posixtz {
    char std_name[SKED__POSIXTZ_NAME_MAX + 1];
    char dst_name[SKED__POSIXTZ_NAME_MAX + 1]; /* std_name if no DST */
    int32_t std_utoff;                         /* seconds east of UTC */
    int32_t dst_utoff;                         /* std_utoff if no DST */
    sked__posix_rule start, end;
    int32_t constant; /* enum sked__posix_const, computed by the parser */
} sked__posixtz;

/* Parse the LEN bytes at S (no NUL needed) into *out. Errors are
 * SKED_EINVAL with err->pos the byte offset of the problem within S plus
 * BASE (so a TZif footer reports its position in the file). */
int sked__posixtz_parse(const char *s, size_t len, long base,
                        sked__posixtz *out, sked_error *err);

/* Return 1 if DST is in force at the POSIX second T, else 0. */
int sked__posixtz_isdst(const sked__posixtz *p, int64_t t);

/* The stretch of constant UTC offset around one instant. In contrived
 * rules whose DST periods overlap from one year to the next the bounds
 * may be conservative: the offset is constant on [prev, next), but it
 * may not change at prev or next (then prev_dst == dst). */
typedef struct sked__posixtz_span {
    int64_t prev; /* last second <= T where the offset changes; INT64_MIN */
    int64_t next; /* first second > T where it changes; INT64_MAX: none */
    int dst;      /* the DST flag at T */
    int prev_dst; /* the DST flag just before prev */
} sked__posixtz_span;

/* Fill *out with the span around the POSIX second T. Never allocates;
 * about ten rule evaluations. */
void sked__posixtz_span_at(const sked__posixtz *p, int64_t t,
                           sked__posixtz_span *out);

#endif
