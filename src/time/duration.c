/* SPDX-License-Identifier: MIT */
/* Durations as people write them: "90s", "5m", "2h", "3d", "1w", "1h30m",
 * "1w2d3h4m5s", or whole seconds alone ("3600"). SPEC 2.3.
 *
 * Units are w (7 days), d (24 hours), h, m and s; each appears at most
 * once, in that order, after a number of plain decimal digits. There is no
 * sign, no space, no fraction and no month or year unit (their length
 * varies; a calendar period is a cron expression). The parser is exact and
 * overflow-safe: a value is refused as soon as it passes 100 years
 * (SKED_DUR_MAX_SECS, 100 years of 365.25 days).
 *
 * The writer uses the largest units that fit and writes sub-second parts
 * as a fraction of seconds ("1.5s"), which the parser does not take back:
 * parsed durations are whole seconds. */
#include "time/duration.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "sked/time.h"

typedef struct unit {
    char c;
    int64_t secs;
} unit;

static const unit units[] = {
    {'w', 7 * 86400}, {'d', 86400}, {'h', 3600}, {'m', 60}, {'s', 1},
};
#define NUNITS (sizeof units / sizeof units[0])

static int unit_index(char c)
{
    for (size_t i = 0; i < NUNITS; i++)
        if (units[i].c == c)
            return (int) i;
    return -1;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int fail(sked_error *err, size_t pos, const char *msg)
{
    return sked__error_set(err, SKED_EINVAL, "", (long) pos, "%s", msg);
}

static int too_large(sked_error *err, size_t pos)
{
    return sked__error_set(err, SKED_EINVAL, "", (long) pos,
                           "too large: at most 100 years (%lld seconds)",
                           (long long) SKED_DUR_MAX_SECS);
}

/* Explain why byte C at POS cannot start a number. */
static int bad_number_start(sked_error *err, const char *s, size_t pos)
{
    char c = s[pos];

    if (c == '\0')
        return fail(err, pos,
                    pos == 0 ? "empty duration"
                             : "expected a number, found end "
                               "of input");
    if (c == '+' || c == '-')
        return fail(err, pos, "a duration has no sign");
    if (c == ' ' || c == '\t')
        return fail(err, pos, "a duration has no spaces");
    if (unit_index(c) >= 0)
        return sked__error_set(err, SKED_EINVAL, "", (long) pos,
                               "expected a number before '%c'", c);
    return fail(err, pos, "expected a number");
}

/* Read the digits at *pos into *out, refusing values past the cap. */
static int read_number(const char *s, size_t *pos, int64_t *out,
                       sked_error *err)
{
    size_t start = *pos;
    int64_t v = 0;

    if (!is_digit(s[*pos]))
        return bad_number_start(err, s, *pos);
    for (; is_digit(s[*pos]); (*pos)++) {
        v = v * 10 + (s[*pos] - '0');
        if (v > SKED_DUR_MAX_SECS)
            return too_large(err, start);
    }
    *out = v;
    return 0;
}

/* Explain why byte C at POS, after the number N, is not a unit. */
static int bad_unit(sked_error *err, const char *s, size_t pos, int64_t n)
{
    char c = s[pos];

    if (c == '\0')
        return sked__error_set(err, SKED_EINVAL, "", (long) pos,
                               "%lld needs a unit: w, d, h, m or s",
                               (long long) n);
    if (c == ' ' || c == '\t')
        return fail(err, pos, "a duration has no spaces");
    if (c == '.' || c == ',')
        return fail(err, pos,
                    "fractions are not supported: write 1h30m, not 1.5h");
    if (c >= 'A' && c <= 'Z' && unit_index((char) (c - 'A' + 'a')) >= 0)
        return sked__error_set(err, SKED_EINVAL, "", (long) pos,
                               "units are lowercase: '%c', not '%c'",
                               c - 'A' + 'a', c);
    if (c > ' ' && c < 0x7f)
        return sked__error_set(err, SKED_EINVAL, "", (long) pos,
                               "unknown unit '%c': use w, d, h, m or s", c);
    return fail(err, pos, "expected a unit: w, d, h, m or s");
}

/* Read one unit letter at *pos, after units up to *last; update *last. */
static int read_unit(const char *s, size_t *pos, int *last, int64_t n,
                     sked_error *err)
{
    int i = unit_index(s[*pos]);

    if (i < 0)
        return bad_unit(err, s, *pos, n);
    if (s[*pos] == 'm' && s[*pos + 1] == 's')
        return fail(err, *pos,
                    "milliseconds are not supported: a duration "
                    "is whole seconds");
    if (i == *last)
        return sked__error_set(err, SKED_EINVAL, "", (long) *pos,
                               "unit '%c' appears twice", s[*pos]);
    if (i < *last)
        return sked__error_set(err, SKED_EINVAL, "", (long) *pos,
                               "unit '%c' after '%c': write the units in "
                               "the order w, d, h, m, s",
                               s[*pos], units[*last].c);
    *last = i;
    (*pos)++;
    return 0;
}

static int parse_units(const char *s, int64_t *out, sked_error *err)
{
    int64_t total = 0, n;
    size_t pos = 0, start;
    int last = -1, rc;

    do {
        start = pos;
        if ((rc = read_number(s, &pos, &n, err)) < 0 ||
            (rc = read_unit(s, &pos, &last, n, err)) < 0)
            return rc;
        if (n > (SKED_DUR_MAX_SECS - total) / units[last].secs)
            return too_large(err, start);
        total += n * units[last].secs;
    } while (s[pos] != '\0');
    *out = total;
    return 0;
}

int sked_dur_parse(const char *s, sked_dur *out, sked_error *err)
{
    int64_t secs;
    size_t pos = 0;
    int rc;

    if (!s || !out)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, "no duration");
    if (strnlen(s, SKED_TIME_INPUT_MAX + 1) > SKED_TIME_INPUT_MAX)
        return sked__error_set(err, SKED_EINVAL, "", SKED_TIME_INPUT_MAX,
                               "longer than %d bytes", SKED_TIME_INPUT_MAX);
    while (is_digit(s[pos]))
        pos++;
    if (pos > 0 && s[pos] == '\0') {
        /* Whole seconds alone: "3600". */
        pos = 0;
        rc = read_number(s, &pos, &secs, err);
    } else {
        rc = parse_units(s, &secs, err);
    }
    if (rc < 0)
        return rc;
    *out = secs * SKED_USEC_PER_SEC;
    return 0;
}

/* Append "<n><unit>" to TMP at *len. */
static void put_unit(char *tmp, size_t size, int *len, int64_t n, char c)
{
    *len +=
        snprintf(tmp + *len, size - (size_t) *len, "%lld%c", (long long) n, c);
}

/* Append seconds S and microseconds USEC, with the fraction's trailing
 * zeros dropped ("1.5s"). */
static void put_seconds(char *tmp, size_t size, int *len, int64_t s,
                        int64_t usec)
{
    char frac[8];
    int n;

    if (usec == 0) {
        put_unit(tmp, size, len, s, 's');
        return;
    }
    n = snprintf(frac, sizeof frac, "%06lld", (long long) usec);
    while (n > 0 && frac[n - 1] == '0')
        frac[--n] = '\0';
    *len += snprintf(tmp + *len, size - (size_t) *len, "%lld.%ss",
                     (long long) s, frac);
}

int sked_dur_format(sked_dur d, char *buf, size_t size)
{
    char tmp[SKED_DUR_STRLEN + 16];
    int64_t secs, usec;
    int len = 0;

    if (d < 0)
        return SKED_EINVAL;
    secs = d / SKED_USEC_PER_SEC;
    usec = d % SKED_USEC_PER_SEC;
    tmp[0] = '\0';
    for (size_t i = 0; i + 1 < NUNITS; i++) {
        int64_t n = secs / units[i].secs;

        if (n > 0)
            put_unit(tmp, sizeof tmp, &len, n, units[i].c);
        secs %= units[i].secs;
    }
    if (secs != 0 || usec != 0 || len == 0)
        put_seconds(tmp, sizeof tmp, &len, secs, usec);
    if (!buf || (size_t) len >= size)
        return SKED_ETOOBIG;
    memcpy(buf, tmp, (size_t) len + 1);
    return len;
}
