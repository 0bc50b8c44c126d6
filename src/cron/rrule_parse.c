/* SPDX-License-Identifier: MIT */
/* Reads an rrule value (RFC 5545 content lines) into a sked__rrule.
 *
 * The value is the bare rule, or an optional DTSTART line and one RRULE
 * line. This file checks every byte itself, so that each error names the
 * part at fault and its position (libical's parser only says "malformed"),
 * and refuses what RFC 5545 3.3.10 says MUST NOT be written (COUNT with
 * UNTIL, BYWEEKNO outside YEARLY, ...). The checked rule then goes
 * through libical's icalrecurrencetype_from_string; the parts DTSTART
 * fills in are written out (rrule_int.h says why), and a probe expansion
 * refuses a rule that produces nothing or that libical cannot advance.
 * EXDATE and RDATE are refused: a schedule that needs exceptions uses a
 * calendar (SPEC 12). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/error.h"
#include "cron/rrule_days.h"
#include "cron/rrule_int.h"
#include "time/civil.h"

#define FIELD        "rrule"
#define SECS_PER_DAY INT64_C(86400)
/* The widest UTC offset any zone has used, with margin: a UTC UNTIL this
 * far before DTSTART's wall time is before DTSTART in every zone. */
#define MAX_OFFSET_SECS (16 * 3600)

enum part {
    P_FREQ,
    P_UNTIL,
    P_COUNT,
    P_INTERVAL,
    P_BYSECOND,
    P_BYMINUTE,
    P_BYHOUR,
    P_BYDAY,
    P_BYMONTHDAY,
    P_BYYEARDAY,
    P_BYWEEKNO,
    P_BYMONTH,
    P_BYSETPOS,
    P_WKST,
    P_NPARTS
};

/* A numeric list part: its range, whether negative values count from the
 * end, and the most values libical's array holds. */
struct part_def {
    const char *name;
    int lo, hi;
    bool neg;
    int max_items;
};

static const struct part_def part_defs[P_NPARTS] = {
    [P_FREQ] = {"FREQ", 0, 0, false, 1},
    [P_UNTIL] = {"UNTIL", 0, 0, false, 1},
    [P_COUNT] = {"COUNT", 0, 1000000000, false, 1},
    [P_INTERVAL] = {"INTERVAL", 1, 32767, false, 1},
    [P_BYSECOND] = {"BYSECOND", 0, 59, false, ICAL_BY_SECOND_SIZE - 1},
    [P_BYMINUTE] = {"BYMINUTE", 0, 59, false, ICAL_BY_MINUTE_SIZE - 1},
    [P_BYHOUR] = {"BYHOUR", 0, 23, false, ICAL_BY_HOUR_SIZE - 1},
    [P_BYDAY] = {"BYDAY", 1, 53, true, ICAL_BY_DAY_SIZE - 1},
    [P_BYMONTHDAY] = {"BYMONTHDAY", 1, 31, true, ICAL_BY_MONTHDAY_SIZE - 1},
    [P_BYYEARDAY] = {"BYYEARDAY", 1, 366, true, ICAL_BY_YEARDAY_SIZE - 1},
    [P_BYWEEKNO] = {"BYWEEKNO", 1, 53, true, ICAL_BY_WEEKNO_SIZE - 1},
    [P_BYMONTH] = {"BYMONTH", 1, 12, false, ICAL_BY_MONTH_SIZE - 1},
    [P_BYSETPOS] = {"BYSETPOS", 1, 366, true, ICAL_BY_SETPOS_SIZE - 1},
    [P_WKST] = {"WKST", 0, 0, false, 1},
};

static const char *const freq_names[] = {
    "SECONDLY", "MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY"};
static const char *const day_names[7] = {"SU", "MO", "TU", "WE",
                                         "TH", "FR", "SA"};

/* What the checks learnt of the rule, with each part's position. */
struct parts {
    int freq; /* index in freq_names, as libical numbers them */
    long count;
    bool until_z, until_seen, byday_ordinal;
    int64_t until; /* wall seconds, or UTC seconds when until_z */
    int pos[P_NPARTS];
    unsigned seen; /* bit per enum part */
};

/* A read in progress: the whole value, for positions in errors. */
struct reader {
    const char *value;
    sked_error *err;
    int64_t dtstart;
    bool has_dtstart;
    char *tzid; /* owned until handed to the rule */
    const char *rule;
    size_t rule_len;
};

static int fail(struct reader *rd, const char *at, const char *fmt,
                const char *detail)
{
    return sked__error_set(rd->err, SKED_EINVAL, FIELD,
                           at ? (long) (at - rd->value) : -1, fmt, detail);
}

/* Return whether [S, S+N) equals the upper-case word W, ignoring case. */
static bool word_is(const char *s, size_t n, const char *w)
{
    return strlen(w) == n && strncasecmp(s, w, n) == 0;
}

/* Read N digits at S as a number into *v; false when one is not a digit. */
static bool digits(const char *s, int n, int *v)
{
    *v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char) s[i]))
            return false;
        *v = *v * 10 + (s[i] - '0');
    }
    return true;
}

/* Read "YYYYMMDDTHHMMSS" at S (N bytes, with an optional 'Z' when Z is
 * not NULL) into *out, wall seconds. WHAT names the part in messages. */
static int read_datetime(struct reader *rd, const char *s, size_t n,
                         const char *what, bool *z, int64_t *out)
{
    int y, mo, d, h, mi, se;

    if (n == 8 && digits(s, 8, &y))
        return fail(rd, s,
                    "%s is a date without a time: VALUE=DATE is for "
                    "calendars; write YYYYMMDDTHHMMSS",
                    what);
    if (n == 16 && (s[15] == 'Z' || s[15] == 'z')) {
        if (z == NULL)
            return fail(rd, s + 15,
                        "%s must be a floating local time or name its "
                        "zone with TZID, not end in Z (UTC)",
                        what);
        *z = true;
        n = 15;
    }
    if (n != 15 || (s[8] != 'T' && s[8] != 't') || !digits(s, 4, &y) ||
        !digits(s + 4, 2, &mo) || !digits(s + 6, 2, &d) ||
        !digits(s + 9, 2, &h) || !digits(s + 11, 2, &mi) ||
        !digits(s + 13, 2, &se))
        return fail(rd, s, "%s must be written YYYYMMDDTHHMMSS", what);
    if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > sked__days_in_month(y, mo) ||
        h > 23 || mi > 59 || se > 59)
        return fail(rd, s, "%s is not a valid date and time", what);
    *out = sked__days_from_civil(y, mo, d) * SECS_PER_DAY + h * 3600 + mi * 60 +
           se;
    return 0;
}

/* Read one DTSTART parameter, NAME=VALUE at P (N bytes). */
static int read_dtstart_param(struct reader *rd, const char *p, size_t n)
{
    const char *eq = memchr(p, '=', n);
    size_t vlen;

    if (eq == NULL)
        return fail(rd, p, "DTSTART parameter %s has no '='", "");
    vlen = n - (size_t) (eq + 1 - p);
    if (word_is(p, (size_t) (eq - p), "VALUE")) {
        if (word_is(eq + 1, vlen, "DATE-TIME"))
            return 0;
        return fail(rd, eq + 1,
                    "DTSTART must be a DATE-TIME: VALUE=DATE is for "
                    "calendars%s",
                    "");
    }
    if (!word_is(p, (size_t) (eq - p), "TZID"))
        return fail(rd, p, "unknown DTSTART parameter (TZID and VALUE%s)",
                    " are known");
    if (vlen >= 2 && eq[1] == '"' && eq[vlen] == '"')
        eq++, vlen -= 2;
    if (vlen == 0)
        return fail(rd, eq + 1, "DTSTART;TZID names no zone%s", "");
    if (rd->tzid != NULL)
        return fail(rd, p, "DTSTART names TZID twice%s", "");
    rd->tzid = sked__strndup(eq + 1, vlen);
    return rd->tzid ? 0 : SKED_ENOMEM;
}

/* Read the DTSTART line at LINE (N bytes; "DTSTART" already seen). */
static int read_dtstart(struct reader *rd, const char *line, size_t n)
{
    const char *p = line + 7, *end = line + n, *colon;
    int rc;

    if (rd->has_dtstart)
        return fail(rd, line, "DTSTART is given twice%s", "");
    colon = memchr(p, ':', (size_t) (end - p));
    if (colon == NULL)
        return fail(rd, line, "DTSTART has no ':' before its value%s", "");
    while (p < colon && *p == ';') {
        const char *q = p + 1;
        while (q < colon && *q != ';')
            q++;
        if ((rc = read_dtstart_param(rd, p + 1, (size_t) (q - p - 1))) != 0)
            return rc;
        p = q;
    }
    if (p != colon)
        return fail(rd, p, "DTSTART must be followed by ':' or ';'%s", "");
    rc = read_datetime(rd, colon + 1, (size_t) (end - colon - 1), "DTSTART",
                       NULL, &rd->dtstart);
    rd->has_dtstart = rc == 0;
    return rc;
}

/* Sort one content line (N bytes at LINE) into the reader. */
static int read_line(struct reader *rd, const char *line, size_t n)
{
    size_t name = strcspn(line, ":;=\n");

    if (name > n)
        name = n;
    if (name < n && line[name] == '=') { /* the bare rule */
        if (rd->rule != NULL)
            return fail(rd, line, "more than one rule is given%s", "");
        rd->rule = line, rd->rule_len = n;
        return 0;
    }
    if (word_is(line, name, "DTSTART"))
        return read_dtstart(rd, line, n);
    if (word_is(line, name, "RRULE") && name < n && line[name] == ':') {
        if (rd->rule != NULL)
            return fail(rd, line, "more than one RRULE line is given%s", "");
        rd->rule = line + name + 1, rd->rule_len = n - name - 1;
        return 0;
    }
    if (word_is(line, name, "EXDATE") || word_is(line, name, "RDATE"))
        return fail(rd, line,
                    "%s lines are not supported: exclude days with a "
                    "calendar",
                    word_is(line, name, "RDATE") ? "RDATE" : "EXDATE");
    return fail(rd, line, "unknown line (only DTSTART and RRULE%s)",
                " are read");
}

/* Split the value into lines (LF or CRLF; one final newline allowed). */
static int read_lines(struct reader *rd)
{
    const char *p = rd->value;
    int rc;

    while (*p != '\0') {
        size_t n = strcspn(p, "\n");
        size_t len = n > 0 && p[n - 1] == '\r' ? n - 1 : n;
        if (len == 0)
            return fail(rd, p, "empty line%s", "");
        if ((rc = read_line(rd, p, len)) != 0)
            return rc;
        p += n;
        if (*p == '\n')
            p++;
    }
    if (rd->rule == NULL)
        return fail(rd, rd->value, "no rule is given (FREQ=...)%s", "");
    return 0;
}

/* Read a signed number at *S (at most 10 digits) into *v. */
static bool read_number(const char **s, const char *end, long *v)
{
    const char *p = *s;
    int sign = 1, n = 0;

    if (p < end && (*p == '+' || *p == '-'))
        sign = *p++ == '-' ? -1 : 1;
    for (*v = 0; p < end && isdigit((unsigned char) *p) && n < 10; p++, n++)
        *v = *v * 10 + (*p - '0');
    if (n == 0 || (p < end && isdigit((unsigned char) *p)))
        return false;
    *v *= sign;
    *s = p;
    return true;
}

/* Return the weekday (0 Sunday) named by the two letters at S, or -1. */
static int weekday_at(const char *s, const char *end)
{
    if (end - s < 2)
        return -1;
    for (int i = 0; i < 7; i++)
        if (strncasecmp(s, day_names[i], 2) == 0)
            return i;
    return -1;
}

/* Check one BYDAY item, [+-][n]DD, at S..E. */
static int check_byday_item(struct reader *rd, struct parts *pt, const char *s,
                            const char *e)
{
    const char *p = s;
    long n = 0;

    if (p < e && (isdigit((unsigned char) *p) || *p == '+' || *p == '-')) {
        if (!read_number(&p, e, &n) || n == 0 || n < -53 || n > 53)
            return fail(rd, s, "BYDAY's ordinal must be 1 to 53 or -53 to -1%s",
                        "");
        pt->byday_ordinal = true;
    }
    if (weekday_at(p, e) < 0 || p + 2 != e)
        return fail(rd, s, "BYDAY takes weekdays SU MO TU WE TH FR SA%s", "");
    if (n != 0 && pt->freq == ICAL_MONTHLY_RECURRENCE && (n > 5 || n < -5))
        return fail(rd, s, "a month has at most 5 of a weekday%s", "");
    return 0;
}

/* Check the comma-separated list of part K at S..E. */
static int check_list(struct reader *rd, struct parts *pt, enum part k,
                      const char *s, const char *e)
{
    const struct part_def *d = &part_defs[k];
    int items = 0, rc;

    for (const char *p = s; p <= e; p++) {
        const char *q = p, *item = p;
        long v;
        while (q < e && *q != ',')
            q++;
        if (++items > d->max_items)
            return fail(rd, p, "too many values in %s", d->name);
        if (k == P_BYDAY) {
            if ((rc = check_byday_item(rd, pt, p, q)) != 0)
                return rc;
        } else if (!read_number(&p, q, &v) || p != q) {
            return fail(rd, p, "%s takes numbers separated by ','", d->name);
        } else if ((v < d->lo || v > d->hi) &&
                   !(d->neg && v <= -d->lo && v >= -d->hi)) {
            return sked__error_set(
                rd->err, SKED_EINVAL, FIELD, (long) (item - rd->value),
                "%s value %ld is out of range %s%d to %d", d->name, v,
                d->neg ? "+/-" : "", d->lo, d->hi);
        }
        p = q;
    }
    return 0;
}

/* Check the single-valued part K (FREQ, UNTIL, COUNT, INTERVAL, WKST). */
static int check_single(struct reader *rd, struct parts *pt, enum part k,
                        const char *s, const char *e)
{
    const struct part_def *d = &part_defs[k];
    const char *p = s;
    long v;

    if (k == P_FREQ) {
        for (int i = 0; i < 7; i++)
            if (word_is(s, (size_t) (e - s), freq_names[i]))
                return pt->freq = i, 0;
        return fail(rd, s,
                    "FREQ must be SECONDLY, MINUTELY, HOURLY, DAILY, "
                    "WEEKLY, MONTHLY or YEARLY%s",
                    "");
    }
    if (k == P_UNTIL)
        return read_datetime(rd, s, (size_t) (e - s), "UNTIL", &pt->until_z,
                             &pt->until);
    if (k == P_WKST) {
        if (weekday_at(s, e) < 0 || e - s != 2)
            return fail(rd, s, "WKST takes a weekday SU MO TU WE TH FR SA%s",
                        "");
        return 0;
    }
    if (!read_number(&p, e, &v) || p != e || v < d->lo || v > d->hi)
        return sked__error_set(
            rd->err, SKED_EINVAL, FIELD, (long) (s - rd->value),
            "%s must be a whole number from %d to %d", d->name, d->lo, d->hi);
    if (k == P_COUNT && v == 0)
        return fail(rd, s, "COUNT=0 never produces an occurrence%s", "");
    if (k == P_COUNT)
        pt->count = v;
    return 0;
}

/* Check one NAME=VALUE part at S..E. */
static int check_part(struct reader *rd, struct parts *pt, const char *s,
                      const char *e)
{
    const char *eq = memchr(s, '=', (size_t) (e - s));
    int k;

    if (s == e)
        return fail(rd, s, "empty rule part (two ';' in a row?)%s", "");
    if (eq == NULL)
        return fail(rd, s, "rule part has no '=' (NAME=VALUE)%s", "");
    for (k = 0; k < P_NPARTS; k++)
        if (word_is(s, (size_t) (eq - s), part_defs[k].name))
            break;
    if (k == P_NPARTS) {
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int) (eq - s), s);
        return fail(rd, s, "unknown rule part %s", name);
    }
    if (pt->seen & (1u << k))
        return fail(rd, s, "%s is given twice", part_defs[k].name);
    pt->seen |= 1u << k;
    pt->pos[k] = (int) (s - rd->value);
    if (eq + 1 == e)
        return fail(rd, eq + 1, "%s has no value", part_defs[k].name);
    if (k == P_FREQ || k == P_UNTIL || k == P_COUNT || k == P_INTERVAL ||
        k == P_WKST)
        return check_single(rd, pt, (enum part) k, eq + 1, e);
    return check_list(rd, pt, (enum part) k, eq + 1, e);
}

#define HAS(pt, k) (((pt)->seen >> (k)) & 1u)

static int fail_at(struct reader *rd, const struct parts *pt, enum part k,
                   const char *msg)
{
    return sked__error_set(rd->err, SKED_EINVAL, FIELD, pt->pos[k], "%s", msg);
}

/* Refuse what libical 3.0 expands wrongly or too slowly: BYSETPOS below
 * DAILY (FREQ=MINUTELY;BYSECOND=16,55;BYSETPOS=2 gives both seconds),
 * and day parts that make it scan second by second (or minute by minute)
 * between matching days: SECONDLY;BYYEARDAY=184 takes libical 37 s to
 * reach its first occurrence. */
static int check_engine_limits(struct reader *rd, const struct parts *pt)
{
    int f = pt->freq;

    if (HAS(pt, P_BYSETPOS) && f < ICAL_DAILY_RECURRENCE)
        return fail_at(rd, pt, P_BYSETPOS,
                       "BYSETPOS is only supported with FREQ=DAILY or "
                       "coarser");
    if (f == ICAL_SECONDLY_RECURRENCE &&
        (HAS(pt, P_BYMONTH) || HAS(pt, P_BYMONTHDAY) || HAS(pt, P_BYYEARDAY)))
        return fail_at(rd, pt,
                       HAS(pt, P_BYMONTH)      ? P_BYMONTH
                       : HAS(pt, P_BYMONTHDAY) ? P_BYMONTHDAY
                                               : P_BYYEARDAY,
                       "FREQ=SECONDLY with BYMONTH, BYMONTHDAY or BYYEARDAY "
                       "is not supported: use FREQ=MINUTELY or coarser");
    if (f == ICAL_MINUTELY_RECURRENCE && HAS(pt, P_BYYEARDAY))
        return fail_at(rd, pt, P_BYYEARDAY,
                       "FREQ=MINUTELY with BYYEARDAY is not supported: use "
                       "FREQ=HOURLY or coarser");
    return 0;
}

/* Refuse what RFC 5545 3.3.10 says a rule MUST NOT combine. */
static int check_combinations(struct reader *rd, const struct parts *pt)
{
    int f = pt->freq;

    if (HAS(pt, P_COUNT) && HAS(pt, P_UNTIL))
        return fail_at(rd, pt,
                       pt->pos[P_COUNT] > pt->pos[P_UNTIL] ? P_COUNT : P_UNTIL,
                       "COUNT and UNTIL cannot both be given");
    if (HAS(pt, P_BYWEEKNO) && f != ICAL_YEARLY_RECURRENCE)
        return fail_at(rd, pt, P_BYWEEKNO, "BYWEEKNO is only for FREQ=YEARLY");
    if (HAS(pt, P_BYYEARDAY) && f >= ICAL_DAILY_RECURRENCE &&
        f <= ICAL_MONTHLY_RECURRENCE)
        return fail_at(rd, pt, P_BYYEARDAY,
                       "BYYEARDAY is not for FREQ=DAILY, WEEKLY or MONTHLY");
    if (HAS(pt, P_BYMONTHDAY) && f == ICAL_WEEKLY_RECURRENCE)
        return fail_at(rd, pt, P_BYMONTHDAY, "BYMONTHDAY is not for WEEKLY");
    if (pt->byday_ordinal && f != ICAL_MONTHLY_RECURRENCE &&
        f != ICAL_YEARLY_RECURRENCE)
        return fail_at(rd, pt, P_BYDAY,
                       "BYDAY's ordinals (1MO, -1FR) are only for MONTHLY "
                       "and YEARLY");
    if (pt->byday_ordinal && HAS(pt, P_BYWEEKNO))
        return fail_at(rd, pt, P_BYDAY,
                       "BYDAY's ordinals cannot be used with BYWEEKNO");
    if (HAS(pt, P_BYSETPOS) &&
        (pt->seen & ((1u << P_BYSETPOS) - 1) & ~((1u << P_BYSECOND) - 1)) == 0)
        return fail_at(rd, pt, P_BYSETPOS,
                       "BYSETPOS needs another BYxxx part to select from");
    return check_engine_limits(rd, pt);
}

/* Check the whole rule text, part by part. */
static int check_rule(struct reader *rd, struct parts *pt)
{
    const char *p = rd->rule, *end = rd->rule + rd->rule_len;
    int rc;

    /* FREQ decides what the other parts may hold: find it first. */
    pt->freq = -1;
    for (const char *q = p; q < end; q++) {
        const char *e = q;
        while (e < end && *e != ';')
            e++;
        if (word_is(q, (size_t) (e - q < 5 ? 0 : 5), "FREQ="))
            if ((rc = check_single(rd, pt, P_FREQ, q + 5, e)) != 0)
                return rc;
        q = e;
    }
    if (pt->freq < 0)
        return fail(rd, p, "the rule has no FREQ part%s", "");
    while (p <= end) {
        const char *e = p;
        while (e < end && *e != ';')
            e++;
        if (p == end && p != rd->rule)
            break; /* a final ';' */
        if ((rc = check_part(rd, pt, p, e)) != 0)
            return rc;
        p = e + 1;
    }
    return check_combinations(rd, pt);
}

/* Hand the checked rule to libical's reader (upper-cased: it knows only
 * upper-case names). */
static int make_ical(struct reader *rd, struct icalrecurrencetype *out)
{
    char *text = sked__malloc(rd->rule_len + 1);

    if (text == NULL)
        return SKED_ENOMEM;
    for (size_t i = 0; i < rd->rule_len; i++)
        text[i] = (char) toupper((unsigned char) rd->rule[i]);
    text[rd->rule_len] = '\0';
    icalerror_clear_errno();
    *out = icalrecurrencetype_from_string(text);
    free(text);
    if (out->freq == ICAL_NO_RECURRENCE) {
        int oom = icalerrno == ICAL_NEWFAILED_ERROR;
        icalerror_clear_errno();
        return oom ? SKED_ENOMEM
                   : fail(rd, rd->rule, "libical cannot read this rule%s", "");
    }
    return 0;
}

/* Set ARR to the one value V when the rule gave it no values. */
static void fill_one(short *arr, int v)
{
    if (arr[0] != ICAL_RECURRENCE_ARRAY_MAX)
        return;
    arr[0] = (short) v;
    arr[1] = ICAL_RECURRENCE_ARRAY_MAX;
}

static int cmp_short(const void *a, const void *b)
{
    return *(const short *) a - *(const short *) b;
}

/* Sort libical list A (SIZE slots): libical 3.0 expands BYSECOND,
 * BYMINUTE, BYHOUR and BYMONTH in the order written, so
 * BYMINUTE=34,31 would go back in time. */
static void sort_list(short *a, int size)
{
    int n = 0;

    while (n < size && a[n] != ICAL_RECURRENCE_ARRAY_MAX)
        n++;
    qsort(a, (size_t) n, sizeof *a, cmp_short);
}

/* Write out the parts DTSTART fills in (RFC 5545 3.3.10; dateutil's
 * rrule fills the same ones). */
static void fill_from_dtstart(struct icalrecurrencetype *rule, int64_t ds)
{
    int64_t y, sod = sked__floor_mod(ds, SECS_PER_DAY);
    int64_t z = sked__floor_div(ds, SECS_PER_DAY);
    int mo, d, f = (int) rule->freq;
    bool no_day = rule->by_week_no[0] == ICAL_RECURRENCE_ARRAY_MAX &&
                  rule->by_year_day[0] == ICAL_RECURRENCE_ARRAY_MAX &&
                  rule->by_month_day[0] == ICAL_RECURRENCE_ARRAY_MAX &&
                  rule->by_day[0] == ICAL_RECURRENCE_ARRAY_MAX;

    sked__civil_from_days(z, &y, &mo, &d);
    if (no_day && f == ICAL_YEARLY_RECURRENCE)
        fill_one(rule->by_month, mo);
    if (no_day && (f == ICAL_YEARLY_RECURRENCE || f == ICAL_MONTHLY_RECURRENCE))
        fill_one(rule->by_month_day, d);
    if (no_day && f == ICAL_WEEKLY_RECURRENCE) /* libical: 1 is Sunday */
        fill_one(rule->by_day, sked__weekday_from_days(z) + 1);
    if (f > ICAL_HOURLY_RECURRENCE)
        fill_one(rule->by_hour, (int) (sod / 3600));
    if (f > ICAL_MINUTELY_RECURRENCE)
        fill_one(rule->by_minute, (int) (sod / 60 % 60));
    if (f > ICAL_SECONDLY_RECURRENCE)
        fill_one(rule->by_second, (int) (sod % 60));
    sort_list(rule->by_second, ICAL_BY_SECOND_SIZE);
    sort_list(rule->by_minute, ICAL_BY_MINUTE_SIZE);
    sort_list(rule->by_hour, ICAL_BY_HOUR_SIZE);
    sort_list(rule->by_month, ICAL_BY_MONTH_SIZE);
}

/* Set R's DTSTART: the line's, or DEFAULT_START floored to the rule's
 * resolution (its frequency's unit, the day for DAILY and coarser). */
static int set_dtstart(struct reader *rd, sked__rrule *r, int64_t def)
{
    static const int64_t unit[] = {1, 60, 3600};
    int64_t u = r->rule.freq <= ICAL_HOURLY_RECURRENCE ? unit[r->rule.freq]
                                                       : SECS_PER_DAY;
    int64_t first = sked__days_from_civil(1, 1, 1) * SECS_PER_DAY;
    int64_t last =
        sked__days_from_civil(SKED__RRULE_YEAR_LAST + 1, 1, 1) * SECS_PER_DAY;

    if (rd->has_dtstart)
        r->dtstart = rd->dtstart;
    else if (def >= first && def < last)
        r->dtstart = sked__floor_div(def, u) * u;
    else
        return sked__error_set(rd->err, SKED_EINVAL, FIELD, -1,
                               "the default start is outside years 1 to %d",
                               SKED__RRULE_YEAR_LAST);
    if (r->dtstart >= last)
        return sked__error_set(rd->err, SKED_EINVAL, FIELD,
                               rd->has_dtstart ? 0 : -1,
                               "DTSTART is after %d, the last year libical "
                               "expands",
                               SKED__RRULE_YEAR_LAST);
    return 0;
}

/* Apply UNTIL: a floating one stays in libical's rule, a UTC one goes to
 * the caller. Refuse one before DTSTART. */
static int set_until(struct reader *rd, const struct parts *pt, sked__rrule *r)
{
    if (!HAS(pt, P_UNTIL))
        return 0;
    if (pt->until_z) {
        r->until_utc = pt->until * SKED_USEC_PER_SEC;
        r->rule.until = icaltime_null_time();
        if (pt->until < r->dtstart - MAX_OFFSET_SECS)
            return fail_at(rd, pt, P_UNTIL,
                           "UNTIL is before DTSTART in every zone: the rule "
                           "never produces an occurrence");
        return 0;
    }
    /* RFC 5545 3.3.10: with a TZID DTSTART, UNTIL MUST be in UTC. */
    if (rd->tzid != NULL)
        return fail_at(rd, pt, P_UNTIL,
                       "with DTSTART;TZID, UNTIL must be in UTC (end in Z)");
    r->until = pt->until;
    r->rule.until = sked__rrule_ical_of(pt->until);
    if (pt->until < r->dtstart)
        return fail_at(rd, pt, P_UNTIL,
                       "UNTIL is before DTSTART: the rule never produces an "
                       "occurrence");
    return 0;
}

/* A rule of days: its occurrences are its days times its times of day
 * (rrule_days.h), which agree with RFC 5545 where libical's own times do
 * not; a refusal points at the rule. */
static int days_of(struct reader *rd, sked__rrule *r)
{
    sked_error e;
    int rc;

    sked_error_clear(&e);
    rc = sked__rrule_days_build(&r->rule, r->dtstart, r->until, r->has_setpos,
                                &r->days, &e);
    if (rc == SKED_ENOMEM)
        return rc;
    return rc ? fail(rd, rd->rule, "%s", e.msg) : 0;
}

/* The last wall second a rule may reach: 9999-12-31T23:59:59. */
#define WALL_LAST (sked__days_from_civil(10000, 1, 1) * 86400 - 1)

/* A rule finer than a day: its periods times their offsets, which allow
 * only the parts that expand it; a limit (BYHOUR of an HOURLY rule, a
 * day part) is refused at its byte, where a rule of days or a cron
 * expression says the same. */
static int steps_of(struct reader *rd, const struct parts *pt, sked__rrule *r)
{
    static const int limits[] = {P_BYHOUR,    P_BYDAY,    P_BYMONTHDAY,
                                 P_BYYEARDAY, P_BYWEEKNO, P_BYMONTH,
                                 P_BYSETPOS,  P_BYMINUTE, P_BYSECOND};
    int f = (int) r->rule.freq;
    size_t n = sizeof limits / sizeof limits[0];
    sked_error e;
    int rc;

    /* BYMINUTE expands an HOURLY rule, BYSECOND an HOURLY or MINUTELY. */
    n -= f == ICAL_HOURLY_RECURRENCE ? 2 : f == ICAL_MINUTELY_RECURRENCE;
    for (size_t i = 0; i < n; i++)
        if (HAS(pt, limits[i]))
            return fail(rd, rd->value + pt->pos[limits[i]],
                        "%s limits a rule finer than a day, which sked does "
                        "not read: give a rule of days (FREQ=DAILY;BYHOUR=...) "
                        "or a cron expression",
                        part_defs[limits[i]].name);
    sked_error_clear(&e);
    rc = sked__rrule_steps_build(&r->rule, r->dtstart, r->until, WALL_LAST,
                                 &r->steps, &e);
    if (rc == SKED_ENOMEM)
        return rc;
    return rc ? fail(rd, rd->rule, "%s", e.msg) : 0;
}

/* Build R from the checked lines and parts; its search too when SEARCH. */
static int build(struct reader *rd, const struct parts *pt, sked__rrule *r,
                 int64_t default_start, bool search)
{
    int rc;

    if ((rc = make_ical(rd, &r->rule)) != 0 ||
        (rc = set_dtstart(rd, r, default_start)) != 0)
        return rc;
    fill_from_dtstart(&r->rule, r->dtstart);
    if ((rc = set_until(rd, pt, r)) != 0)
        return rc;
    r->has_setpos = HAS(pt, P_BYSETPOS);
    if (!search)
        return 0;
    if (r->rule.freq >= ICAL_DAILY_RECURRENCE)
        return days_of(rd, r);
    return steps_of(rd, pt, r);
}

/* sked__rrule_parse, or with SEARCH false sked__rrule_parse_words. */
static int parse(const char *value, int64_t default_start, bool search,
                 sked__rrule **out, sked_error *err)
{
    struct reader rd = {.value = value, .err = err};
    struct parts pt = {0};
    sked__rrule *r = NULL;
    int rc;

    if (value == NULL || out == NULL)
        return sked__error_set(err, SKED_EINVAL, FIELD, -1, "no rrule value");
    if (strlen(value) > SKED__RRULE_MAX_LEN)
        return sked__error_set(err, SKED_EINVAL, FIELD, SKED__RRULE_MAX_LEN,
                               "the value is longer than %d bytes",
                               SKED__RRULE_MAX_LEN);
    if ((rc = read_lines(&rd)) != 0 || (rc = check_rule(&rd, &pt)) != 0)
        goto out;
    rc = SKED_ENOMEM;
    if ((r = sked__calloc(1, sizeof *r)) == NULL)
        goto out;
    r->until = INT64_MAX;
    r->until_utc = SKED_TIME_NONE;
    if ((rc = build(&rd, &pt, r, default_start, search)) != 0)
        goto out;
    r->tzid = rd.tzid, rd.tzid = NULL;
    *out = r, r = NULL;
out:
    if (rc == SKED_ENOMEM)
        sked__error_set(err, SKED_ENOMEM, FIELD, -1, NULL);
    free(rd.tzid);
    sked__rrule_free(r);
    return rc;
}

int sked__rrule_parse(const char *value, int64_t default_start,
                      sked__rrule **out, sked_error *err)
{
    return parse(value, default_start, true, out, err);
}

int sked__rrule_parse_words(const char *value, int64_t default_start,
                            sked__rrule **out, sked_error *err)
{
    return parse(value, default_start, false, out, err);
}
