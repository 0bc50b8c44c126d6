/* SPDX-License-Identifier: MIT */
/* RFC 3339 instants: "2026-12-01T09:00:00Z", "2026-12-01T10:00:00.25+01:00".
 *
 * The parser takes the profile of RFC 3339 section 5.6 and nothing more:
 * exact digit counts, "T", "t" or a space between date and time, "Z"/"z"
 * or a numeric offset up to 23:59, a fraction of 1 to 9 digits (truncated
 * to microseconds, which floors for any instant). An instant without an
 * offset is rejected (SPEC 2.3), as is the leap second ":60": sked_time is
 * POSIX time. Errors name the component ("month", "offset", ...) and the
 * byte where it went wrong.
 *
 * The formatters write what RFC 3339 can write: years 1 to 9999 and
 * offsets in whole minutes. An offset with seconds (local mean time before
 * 1900 or so) is rounded to the nearest minute and the local time is
 * written to match it, as RFC 3339's own example "+00:20" for the
 * Netherlands' +00:19:32.13 does: the string names the exact instant. */
#include "time/rfc3339.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/utf8.h"
#include "sked/time.h"
#include "time/civil.h"

#define SECS_PER_DAY INT64_C(86400)
/* Largest offset written: 23:59, in seconds. */
#define UTOFF_MAX (23 * 3600 + 59 * 60)

/* The parser's state: the input and where the next byte is. */
typedef struct parser {
    const char *s;
    size_t pos;
    sked_error *err;
} parser;

/* The components of an instant as read, before any range check. */
typedef struct fields {
    int year, month, day, hour, minute, second;
    int usec;
    int utoff; /* seconds east of UTC */
    size_t pos[6];
    size_t offset_pos;
} fields;

/* Name the character at S for a message: a whole character quoted. */
static const char *describe(const char *s, char *buf, size_t size)
{
    if (s[0] == '\0')
        return "end of input";
    if (s[0] == ' ')
        return "a space";
    return sked__utf8_quote_char(s, buf, size);
}

/* Report that FIELD wanted WHAT at the current byte. */
static int expected(parser *p, const char *field, const char *what)
{
    char buf[16];

    return sked__error_set(p->err, SKED_EINVAL, field, (long) p->pos,
                           "expected %s, found %s", what,
                           describe(p->s + p->pos, buf, sizeof buf));
}

/* Read exactly N (1..4) decimal digits into *out. */
static int read_num(parser *p, int n, const char *field, int *out)
{
    int v = 0;

    for (int i = 0; i < n; i++) {
        char c = p->s[p->pos];

        if (c < '0' || c > '9')
            return expected(p, field, "a digit");
        v = v * 10 + (c - '0');
        p->pos++;
    }
    *out = v;
    return 0;
}

/* Consume the byte C, which belongs before FIELD. */
static int read_sep(parser *p, char c, const char *field)
{
    char want[8];

    if (p->s[p->pos] != c) {
        snprintf(want, sizeof want, "'%c'", c);
        return expected(p, field, want);
    }
    p->pos++;
    return 0;
}

static int read_date(parser *p, fields *f)
{
    int rc;

    f->pos[0] = p->pos;
    if ((rc = read_num(p, 4, "year", &f->year)) < 0 ||
        (rc = read_sep(p, '-', "month")) < 0)
        return rc;
    f->pos[1] = p->pos;
    if ((rc = read_num(p, 2, "month", &f->month)) < 0 ||
        (rc = read_sep(p, '-', "day")) < 0)
        return rc;
    f->pos[2] = p->pos;
    return read_num(p, 2, "day", &f->day);
}

static int read_date_time_sep(parser *p)
{
    char c = p->s[p->pos];

    if (c == 'T' || c == 't' || c == ' ') {
        p->pos++;
        return 0;
    }
    if (c == '\0')
        return sked__error_set(p->err, SKED_EINVAL, "hour", (long) p->pos,
                               "missing the time of day: write it as "
                               "\"T00:00:00Z\" after the date");
    return expected(p, "hour", "'T' between the date and the time");
}

static int read_clock(parser *p, fields *f)
{
    int rc;

    f->pos[3] = p->pos;
    if ((rc = read_num(p, 2, "hour", &f->hour)) < 0 ||
        (rc = read_sep(p, ':', "minute")) < 0)
        return rc;
    f->pos[4] = p->pos;
    if ((rc = read_num(p, 2, "minute", &f->minute)) < 0 ||
        (rc = read_sep(p, ':', "second")) < 0)
        return rc;
    f->pos[5] = p->pos;
    return read_num(p, 2, "second", &f->second);
}

/* Read ".d{1,9}" when present; digits past the sixth are dropped, which
 * floors the instant whatever its sign (the fraction is added). */
static int read_fraction(parser *p, fields *f)
{
    int usec = 0, n = 0;
    char c;

    f->usec = 0;
    if (p->s[p->pos] != '.')
        return 0;
    p->pos++;
    while ((c = p->s[p->pos]) >= '0' && c <= '9') {
        if (n == 9)
            return sked__error_set(p->err, SKED_EINVAL, "fraction",
                                   (long) p->pos, "at most 9 fraction digits");
        if (n < 6)
            usec = usec * 10 + (c - '0');
        n++;
        p->pos++;
    }
    if (n == 0)
        return expected(p, "fraction", "a digit after '.'");
    for (int i = n; i < 6; i++)
        usec *= 10;
    f->usec = usec;
    return 0;
}

static int read_numeric_offset(parser *p, fields *f)
{
    int sign = p->s[p->pos] == '-' ? -1 : 1;
    int hh = 0, mm = 0, rc;
    size_t at;

    p->pos++;
    at = p->pos;
    if ((rc = read_num(p, 2, "offset", &hh)) < 0)
        return rc;
    if (hh > 23)
        return sked__error_set(p->err, SKED_EINVAL, "offset", (long) at,
                               "hours %d is out of range 0-23", hh);
    if ((rc = read_sep(p, ':', "offset")) < 0)
        return rc;
    at = p->pos;
    if ((rc = read_num(p, 2, "offset", &mm)) < 0)
        return rc;
    if (mm > 59)
        return sked__error_set(p->err, SKED_EINVAL, "offset", (long) at,
                               "minutes %d is out of range 0-59", mm);
    f->utoff = sign * (hh * 3600 + mm * 60);
    return 0;
}

static int read_offset(parser *p, fields *f)
{
    char c = p->s[p->pos];

    f->offset_pos = p->pos;
    if (c == 'Z' || c == 'z') {
        f->utoff = 0;
        p->pos++;
        return 0;
    }
    if (c == '+' || c == '-')
        return read_numeric_offset(p, f);
    if (c == '\0')
        return sked__error_set(p->err, SKED_EINVAL, "offset", (long) p->pos,
                               "missing UTC offset: add \"Z\" for UTC or "
                               "an offset such as \"+01:00\"");
    return expected(p, "offset", "'Z' or an offset such as \"+01:00\"");
}

static int out_of_range(parser *p, const char *field, size_t at, int v, int lo,
                        int hi)
{
    return sked__error_set(p->err, SKED_EINVAL, field, (long) at,
                           "%d is out of range %d-%d", v, lo, hi);
}

/* Check each component's range; the day against its month and year. */
static int check_ranges(parser *p, const fields *f)
{
    int mdays;

    if (f->year < 1)
        return out_of_range(p, "year", f->pos[0], f->year, 1, 9999);
    if (f->month < 1 || f->month > 12)
        return out_of_range(p, "month", f->pos[1], f->month, 1, 12);
    mdays = sked__days_in_month(f->year, f->month);
    if (f->day < 1 || f->day > mdays)
        return sked__error_set(p->err, SKED_EINVAL, "day", (long) f->pos[2],
                               "%d is out of range 1-%d in %04d-%02d", f->day,
                               mdays, f->year, f->month);
    if (f->hour > 23)
        return out_of_range(p, "hour", f->pos[3], f->hour, 0, 23);
    if (f->minute > 59)
        return out_of_range(p, "minute", f->pos[4], f->minute, 0, 59);
    if (f->second == 60)
        return sked__error_set(p->err, SKED_EINVAL, "second", (long) f->pos[5],
                               "60 is a leap second; sked counts POSIX "
                               "time, which has none: use 59");
    if (f->second > 59)
        return out_of_range(p, "second", f->pos[5], f->second, 0, 59);
    return 0;
}

static int parse_fields(parser *p, fields *f)
{
    int rc;

    if ((rc = read_date(p, f)) < 0 || (rc = read_date_time_sep(p)) < 0 ||
        (rc = read_clock(p, f)) < 0 || (rc = read_fraction(p, f)) < 0 ||
        (rc = read_offset(p, f)) < 0)
        return rc;
    if (p->s[p->pos] != '\0')
        return sked__error_set(p->err, SKED_EINVAL, "", (long) p->pos,
                               "unexpected text after the offset");
    return check_ranges(p, f);
}

int sked_time_parse(const char *s, sked_time *out, sked_error *err)
{
    parser p = {.s = s, .pos = 0, .err = err};
    fields f = {0};
    int64_t days, secs;
    int rc;

    if (!s || !out)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, "no instant");
    if (strnlen(s, SKED_TIME_INPUT_MAX + 1) > SKED_TIME_INPUT_MAX)
        return sked__error_set(err, SKED_EINVAL, "", SKED_TIME_INPUT_MAX,
                               "longer than %d bytes", SKED_TIME_INPUT_MAX);
    if ((rc = parse_fields(&p, &f)) < 0)
        return rc;
    days = sked__days_from_civil(f.year, f.month, f.day);
    secs = days * SECS_PER_DAY + f.hour * 3600 + f.minute * 60 + f.second -
           f.utoff;
    /* The local reading is in range; the offset can push it out. */
    if (secs < SKED_TIME_MIN / SKED_USEC_PER_SEC ||
        secs > SKED_TIME_MAX / SKED_USEC_PER_SEC)
        return sked__error_set(err, SKED_EINVAL, "offset", (long) f.offset_pos,
                               "the instant is outside "
                               "0001-01-01T00:00:00Z..9999-12-31T23:59:59Z");
    *out = secs * SKED_USEC_PER_SEC + f.usec;
    return 0;
}

/* Write the wall-clock reading LOCAL (in range) and SUFFIX into BUF. */
/* Write V (0 <= V < 10^WIDTH) as WIDTH digits at P; return the end. */
static char *put_digits(char *p, int v, int width)
{
    for (int i = width - 1; i >= 0; i--, v /= 10)
        p[i] = (char) ('0' + v % 10);
    return p + width;
}

/* Format LOCAL as "YYYY-MM-DDTHH:MM:SS[.ffffff]" followed by SUFFIX. By
 * hand rather than with snprintf: every instant of every API answer goes
 * through here, and the years are 1 to 9999 by SKED_TIME_MIN/MAX. */
static int format_local(sked_time local, const char *suffix, char *buf,
                        size_t size)
{
    char tmp[SKED_TIME_STRLEN], *p = tmp;
    size_t slen = strlen(suffix), n;
    sked_civil c;

    sked_civil_from_time(local, &c);
    p = put_digits(p, (int) c.year, 4);
    *p++ = '-';
    p = put_digits(p, c.month, 2);
    *p++ = '-';
    p = put_digits(p, c.day, 2);
    *p++ = 'T';
    p = put_digits(p, c.hour, 2);
    *p++ = ':';
    p = put_digits(p, c.minute, 2);
    *p++ = ':';
    p = put_digits(p, c.second, 2);
    if (c.usec != 0) {
        *p++ = '.';
        p = put_digits(p, c.usec, 6);
    }
    n = (size_t) (p - tmp);
    if (!buf || n + slen >= size || n + slen >= sizeof tmp)
        return SKED_ETOOBIG;
    memcpy(buf, tmp, n);
    memcpy(buf + n, suffix, slen + 1);
    return (int) (n + slen);
}

int sked_time_format(sked_time t, char *buf, size_t size)
{
    if (t < SKED_TIME_MIN || t > SKED_TIME_MAX)
        return SKED_ERANGE;
    return format_local(t, "Z", buf, size);
}

int32_t sked__rfc3339_round_utoff(int32_t utoff)
{
    int32_t mag = utoff < 0 ? -utoff : utoff;

    /* Ties (:30) round away from zero. */
    mag = (mag + 30) / 60 * 60;
    return utoff < 0 ? -mag : mag;
}

int sked_time_format_offset(sked_time t, int32_t utoff, char *buf, size_t size)
{
    char suffix[16];
    int32_t off, mag;
    sked_time local;

    if (utoff < -UTOFF_MAX - 29 || utoff > UTOFF_MAX + 29)
        return SKED_ERANGE;
    off = sked__rfc3339_round_utoff(utoff);
    mag = off < 0 ? -off : off;
    if (t < SKED_TIME_MIN || t > SKED_TIME_MAX)
        return SKED_ERANGE;
    local = t + (sked_time) off * SKED_USEC_PER_SEC;
    if (local < SKED_TIME_MIN || local > SKED_TIME_MAX)
        return SKED_ERANGE;
    snprintf(suffix, sizeof suffix, "%c%02d:%02d", off < 0 ? '-' : '+',
             (int) (mag / 3600), (int) (mag / 60 % 60));
    return format_local(local, suffix, buf, size);
}
