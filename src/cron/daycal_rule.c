/* SPDX-License-Identifier: MIT */
/* Recurrence rules (RFC 5545 RRULE) expanded to days through libical.
 *
 * The plan: split off an optional DTSTART, check the parts libical lets
 * through or reads loosely (FREQ finer than DAILY, BYSETPOS out of
 * -366..366 or 0, BYMONTH out of 1..12, RSCALE, unknown parts, the parts
 * RFC 5545 forbids with the FREQ) so each error names its byte, parse
 * with icalrecurrencetype_from_string, then walk icalrecur_iterator_next
 * from DTSTART to the range's end. BYWEEKNO is refused: libical 3.0
 * counts its weeks otherwise than RFC 5545 and dateutil at the year's
 * edges, and holidays do not need it.
 *
 * libical 3.0's quirks, met and guarded (tests/oracle/test_daycal_rrule.sh
 * compares the result with python-dateutil day by day): an iterator may
 * hand out one date twice or stop advancing (FREQ=DAILY;UNTIL=… from a
 * DATE whose hour is -1), so dates that do not advance are dropped and a
 * run of them, or a walk past SKED__DAYCAL_RULE_MAX_STEPS, is an error,
 * never a loop. COUNT and INTERVAL are applied here over libical's
 * distinct dates of every period, a DAILY rule's BYMONTHDAY is a filter
 * here, and a YEARLY BYMONTHDAY without BYMONTH gets every month (see
 * take_filter for what libical does instead).
 */
#include "cron/daycal_rule.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <libical/ical.h>

#include "base/error.h"
#include "cron/daycal.h"
#include "time/civil.h"

/* How many dates in a row may fail to advance before the walk stops. */
#define MAX_STALLS 1000

/* The parts a rule may have, as libical reads them (RFC 5545 3.3.10). */
static const char *const known_parts[] = {
    "FREQ",     "UNTIL",   "COUNT",    "INTERVAL",   "BYSECOND",
    "BYMINUTE", "BYHOUR",  "BYDAY",    "BYMONTHDAY", "BYYEARDAY",
    "BYWEEKNO", "BYMONTH", "BYSETPOS", "WKST",
};

static const char *const freqs[] = {"YEARLY", "MONTHLY", "WEEKLY", "DAILY"};
static const char *const fine_freqs[] = {"HOURLY", "MINUTELY", "SECONDLY"};

static bool word_is(const char *s, size_t n, const char *w)
{
    return strlen(w) == n && strncmp(s, w, n) == 0;
}

static bool in_list(const char *s, size_t n, const char *const *list,
                    size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (word_is(s, n, list[i]))
            return true;
    return false;
}

int sked__daycal_basic_date(const char *s, size_t len, int64_t *out)
{
    int v[8], y, m, d;

    if (len < 8)
        return SKED_EINVAL;
    for (int i = 0; i < 8; i++) {
        if (s[i] < '0' || s[i] > '9')
            return SKED_EINVAL;
        v[i] = s[i] - '0';
    }
    y = v[0] * 1000 + v[1] * 100 + v[2] * 10 + v[3];
    m = v[4] * 10 + v[5];
    d = v[6] * 10 + v[7];
    if (y < 1 || m < 1 || m > 12 || d < 1 || d > sked__days_in_month(y, m))
        return SKED_EINVAL;
    *out = sked__days_from_civil(y, m, d);
    return 0;
}

/* The rule proper, after any DTSTART: its bytes and where they start. */
struct rule_text {
    const char *s;
    size_t len, off;
    int64_t start;
};

static int bad(sked_error *err, const char *field, size_t pos, const char *what)
{
    return sked__error_set(err, SKED_EINVAL, field, (long) pos, "%s", what);
}

/* Read the two-line "DTSTART[;params]:DATE\nRRULE:…" form at TEXT. */
static int split_two_lines(const char *text, size_t len, const char *field,
                           struct rule_text *r, sked_error *err)
{
    const char *nl = memchr(text, '\n', len), *colon;
    size_t eol, v;

    if (!nl)
        return bad(err, field, 0, "DTSTART… needs a second line, RRULE:…");
    eol = (size_t) (nl - text);
    colon = memchr(text, ':', eol);
    if (!colon)
        return bad(err, field, 7, "DTSTART needs ':' and a date");
    v = (size_t) (colon - text) + 1;
    if (sked__daycal_basic_date(text + v, eol - v, &r->start) != 0)
        return bad(err, field, v, "DTSTART needs a date YYYYMMDD");
    v = eol + 1;
    if (len - v < 6 || strncmp(text + v, "RRULE:", 6) != 0)
        return bad(err, field, v, "the second line must start with RRULE:");
    r->off = v + 6;
    return 0;
}

/* Split TEXT into its DTSTART (default 1970-01-01) and its rule. */
static int split_start(const char *text, size_t len, const char *field,
                       struct rule_text *r, sked_error *err)
{
    const char *semi;
    int rc;

    r->start = 0;
    r->off = 0;
    if (len >= 8 && strncmp(text, "DTSTART=", 8) == 0) {
        semi = memchr(text, ';', len);
        if (!semi ||
            sked__daycal_basic_date(text + 8, (size_t) (semi - text) - 8,
                                    &r->start) != 0 ||
            semi - text != 16)
            return bad(err, field, 8, "DTSTART= needs a date YYYYMMDD and ';'");
        r->off = 17;
    } else if (len >= 8 && strncmp(text, "DTSTART", 7) == 0) {
        rc = split_two_lines(text, len, field, r, err);
        if (rc != 0)
            return rc;
    } else if (len >= 6 && strncmp(text, "RRULE:", 6) == 0) {
        r->off = 6;
    }
    if (r->start < sked__days_from_civil(1900, 1, 1) ||
        r->start > SKED__DAYCAL_LAST_DAY)
        return bad(err, field, 8, "DTSTART must be in 1900 to 2200");
    r->s = text + r->off;
    r->len = len - r->off;
    return 0;
}

/* The bounds of a numeric list part: BYSETPOS (RFC 5545 3.3.10) and
 * BYMONTH, which libical reads up to 13 (leap months) and then refuses
 * to expand without saying why. */
struct bounds {
    const char *name;
    long lo, hi;
    bool negative; /* -hi..-lo too */
};

static const struct bounds setpos_bounds = {"BYSETPOS", 1, 366, true};
static const struct bounds month_bounds = {"BYMONTH", 1, 12, false};

/* Check the list V (N bytes at offset POS) against B. */
static int check_numbers(const char *v, size_t n, size_t pos,
                         const struct bounds *b, const char *field,
                         sked_error *err)
{
    size_t i = 0;

    while (i <= n) {
        size_t j = i, digits;
        long x = 0;
        bool neg = false;

        if (j < n && (v[j] == '-' || v[j] == '+'))
            neg = v[j++] == '-';
        digits = j;
        while (j < n && v[j] >= '0' && v[j] <= '9' && x <= 1000)
            x = x * 10 + (v[j++] - '0');
        if (j == digits || (j < n && v[j] != ','))
            return sked__error_set(err, SKED_EINVAL, field, (long) (pos + i),
                                   "%s needs numbers", b->name);
        if (x < b->lo || x > b->hi || (neg && !b->negative))
            return sked__error_set(err, SKED_EINVAL, field, (long) (pos + i),
                                   "%s %s%ld is outside %s%ld..%ld%s", b->name,
                                   neg ? "-" : "", x, b->negative ? "-" : "",
                                   b->negative ? b->hi : b->lo, b->hi,
                                   b->negative ? " or 0" : "");
        i = j + 1;
    }
    return 0;
}

/* What check_part saw of the parts so far. */
struct seen {
    int freq;       /* index in freqs, or -1 */
    long setpos_at; /* where BYSETPOS is, or -1; the same for: */
    long yearday_at, weekno_at, monthday_at, month_at, byday_at;
    bool ordinal, plain; /* BYDAY has a day with (without) an ordinal */
};

/* Note in SEEN whether the BYDAY list V (N bytes) has days with and
 * without an ordinal ("-2FR" and "SA"). */
static void byday_kinds(const char *v, size_t n, struct seen *seen)
{
    for (size_t i = 0; i < n; i++) {
        bool num = v[i] == '+' || v[i] == '-' || (v[i] >= '0' && v[i] <= '9');
        if (i == 0 || v[i - 1] == ',')
            *(num ? &seen->ordinal : &seen->plain) = true;
    }
}

/* Check one part NAME=VALUE (N bytes at offset POS of the value). */
static int check_part(const char *p, size_t n, size_t pos, const char *field,
                      struct seen *seen, sked_error *err)
{
    const char *eq = memchr(p, '=', n);
    size_t k, vl;

    if (!eq)
        return bad(err, field, pos, "each part of a rule is NAME=VALUE");
    k = (size_t) (eq - p);
    vl = n - k - 1;
    if (!in_list(p, k, known_parts, sizeof known_parts / sizeof *known_parts))
        return sked__error_set(err, SKED_EINVAL, field, (long) pos,
                               "unknown rule part '%.*s'", (int) k, p);
    if (word_is(p, k, "BYYEARDAY"))
        seen->yearday_at = (long) pos;
    if (word_is(p, k, "BYWEEKNO"))
        seen->weekno_at = (long) pos;
    if (word_is(p, k, "BYMONTHDAY"))
        seen->monthday_at = (long) pos;
    if (word_is(p, k, "BYMONTH"))
        seen->month_at = (long) pos;
    if (word_is(p, k, "BYDAY")) {
        seen->byday_at = (long) pos;
        byday_kinds(eq + 1, vl, seen);
    }
    if (word_is(p, k, "BYSETPOS")) {
        seen->setpos_at = (long) pos;
        return check_numbers(eq + 1, vl, pos + k + 1, &setpos_bounds, field,
                             err);
    }
    if (word_is(p, k, "BYMONTH"))
        return check_numbers(eq + 1, vl, pos + k + 1, &month_bounds, field,
                             err);
    if (!word_is(p, k, "FREQ"))
        return 0;
    for (int i = 0; i < 4; i++)
        if (word_is(eq + 1, vl, freqs[i]))
            seen->freq = i;
    if (in_list(eq + 1, vl, fine_freqs, 3))
        return sked__error_set(err, SKED_EINVAL, field, (long) (pos + k + 1),
                               "FREQ=%.*s is finer than DAILY: a calendar "
                               "is days",
                               (int) vl, eq + 1);
    if (!in_list(eq + 1, vl, freqs, 4))
        return bad(err, field, pos + k + 1,
                   "FREQ must be YEARLY, MONTHLY, WEEKLY or DAILY");
    return 0;
}

/* Refuse the parts RFC 5545 3.3.10 forbids with SEEN's FREQ, and those
 * libical 3.0 expands otherwise than RFC 5545 (tests/oracle). */
static int check_combination(const struct seen *seen, size_t off,
                             const char *field, sked_error *err)
{
    bool yearly = seen->freq == 0, monthly = seen->freq == 1;

    if (seen->freq < 0)
        return bad(err, field, off, "a rule needs FREQ=");
    if (seen->yearday_at >= 0 && !yearly)
        return bad(err, field, (size_t) seen->yearday_at,
                   "BYYEARDAY needs FREQ=YEARLY (RFC 5545)");
    if (seen->monthday_at >= 0 && seen->freq == 2)
        return bad(err, field, (size_t) seen->monthday_at,
                   "BYMONTHDAY is not for FREQ=WEEKLY (RFC 5545)");
    /* libical 3.0 ignores BYSETPOS in a WEEKLY or DAILY rule, and counts
     * BYWEEKNO's weeks otherwise than RFC 5545 at the year's edges. */
    if (seen->setpos_at >= 0 && !yearly && !monthly)
        return bad(err, field, (size_t) seen->setpos_at,
                   "BYSETPOS needs FREQ=MONTHLY or YEARLY");
    if (seen->weekno_at >= 0)
        return bad(err, field, (size_t) seen->weekno_at,
                   "BYWEEKNO is not supported");
    /* A YEARLY rule's BYDAY with ordinals: libical 3.0 scopes them to the
     * month beside BYMONTHDAY or BYYEARDAY, and it and dateutil disagree
     * on a list mixing days with and without one. */
    if (yearly && seen->ordinal &&
        (seen->plain || (seen->month_at < 0 &&
                         (seen->monthday_at >= 0 || seen->yearday_at >= 0))))
        return bad(err, field, (size_t) seen->byday_at,
                   seen->plain ? "BYDAY mixing days with and without an "
                                 "ordinal in a YEARLY rule is not supported"
                               : "BYDAY with an ordinal beside BYMONTHDAY or "
                                 "BYYEARDAY in a YEARLY rule without BYMONTH "
                                 "is not supported");
    return 0;
}

static int check_rule(const struct rule_text *r, const char *field,
                      sked_error *err)
{
    struct seen seen = {.freq = -1,
                        .setpos_at = -1,
                        .yearday_at = -1,
                        .weekno_at = -1,
                        .month_at = -1,
                        .byday_at = -1,
                        .monthday_at = -1};
    size_t i = 0;
    int rc;

    while (i < r->len) {
        const char *semi = memchr(r->s + i, ';', r->len - i);
        size_t n = semi ? (size_t) (semi - (r->s + i)) : r->len - i;

        rc = check_part(r->s + i, n, r->off + i, field, &seen, err);
        if (rc != 0)
            return rc;
        i += n + 1;
    }
    return check_combination(&seen, r->off, field, err);
}

/* Find the part libical refuses, once it refused the whole rule. */
static int refused_part(const struct rule_text *r, const char *field,
                        sked_error *err)
{
    char buf[SKED__DAYCAL_RULE_MAX + 16];
    size_t i = 0;

    while (i < r->len) {
        const char *semi = memchr(r->s + i, ';', r->len - i);
        size_t n = semi ? (size_t) (semi - (r->s + i)) : r->len - i;
        struct icalrecurrencetype rt;

        /* Each part beside a FREQ, or alone when it is the FREQ. */
        snprintf(buf, sizeof buf, "%s%.*s",
                 n >= 5 && strncmp(r->s + i, "FREQ=", 5) == 0 ? ""
                                                              : "FREQ=YEARLY;",
                 (int) n, r->s + i);
        rt = icalrecurrencetype_from_string(buf);
        icalerror_clear_errno();
        if (rt.freq == ICAL_NO_RECURRENCE)
            return sked__error_set(err, SKED_EINVAL, field, (long) (r->off + i),
                                   "libical refuses '%.*s'", (int) n, r->s + i);
        i += n + 1;
    }
    return bad(err, field, r->off, "libical refuses the rule");
}

/* What the walk does itself rather than trust libical with (see the
 * quirks above): COUNT, INTERVAL and a DAILY rule's BYMONTHDAY. */
struct filter {
    int count;    /* 0: no limit */
    int interval; /* >= 1 */
    icalrecurrencetype_frequency freq;
    int wkst;      /* the weekday a week starts on, 0 = Sunday */
    int64_t phase; /* the period of DTSTART */
    short monthdays[ICAL_BY_MONTHDAY_SIZE];
    int nmonthdays; /* 0: no BYMONTHDAY filter */
};

/* Return the number of the day, week, month or year DAY is in. */
static int64_t period_of(const struct filter *f, int64_t day)
{
    int64_t y;
    int m, d;

    if (f->freq == ICAL_DAILY_RECURRENCE)
        return day;
    /* Day 0 is a Thursday: weeks start on the days (wkst - 4) mod 7. */
    if (f->freq == ICAL_WEEKLY_RECURRENCE)
        return sked__floor_div(day - (f->wkst + 3) % 7, 7);
    sked__civil_from_days(day, &y, &m, &d);
    return f->freq == ICAL_MONTHLY_RECURRENCE ? y * 12 + m - 1 : y;
}

static bool keeps(const struct filter *f, int64_t day)
{
    int64_t y;
    int m, d, dim;

    if (sked__floor_mod(period_of(f, day) - f->phase, f->interval) != 0)
        return false;
    if (f->nmonthdays == 0)
        return true;
    sked__civil_from_days(day, &y, &m, &d);
    dim = sked__days_in_month(y, m);
    for (int i = 0; i < f->nmonthdays; i++)
        if (f->monthdays[i] == d || dim + 1 + f->monthdays[i] == d)
            return true;
    return false;
}

/* Walk IT, calling FN for each distinct date F keeps in the range. */
static int walk(icalrecur_iterator *it, const struct filter *f,
                const char *field, sked__day_fn fn, void *ctx, size_t *emitted,
                sked_error *err)
{
    int64_t prev = INT64_MIN, d;
    long steps = 0, stalls = 0, nth = 0;
    struct icaltimetype t;

    while (!icaltime_is_null_time(t = icalrecur_iterator_next(it))) {
        if (++steps > SKED__DAYCAL_RULE_MAX_STEPS || t.year > 9999)
            return bad(err, field, 0, "the rule expands to too many dates");
        d = sked__days_from_civil(t.year, t.month, t.day);
        if (d <= prev) {
            if (++stalls > MAX_STALLS)
                return bad(err, field, 0,
                           "libical's expansion of the rule stopped "
                           "advancing");
            continue;
        }
        stalls = 0;
        prev = d;
        if (d > SKED__DAYCAL_LAST_DAY)
            break;
        if (!keeps(f, d))
            continue;
        if (f->count > 0 && ++nth > f->count)
            break;
        if (d >= 0) {
            fn(ctx, d);
            (*emitted)++;
        }
    }
    return 0;
}

/* Take from RT what the walk does itself, into F, and mend what libical
 * 3.0 reads otherwise than RFC 5545 and dateutil do. */
static void take_filter(struct icalrecurrencetype *rt, int64_t start,
                        struct filter *f)
{
    f->count = rt->count;
    f->interval = rt->interval > 0 ? rt->interval : 1;
    f->freq = rt->freq;
    f->wkst = rt->week_start >= ICAL_SUNDAY_WEEKDAY
                  ? (int) rt->week_start - ICAL_SUNDAY_WEEKDAY
                  : 1;
    f->phase = period_of(f, start);
    /* COUNT over distinct dates; INTERVAL by phase over libical's every
     * period, since with INTERVAL > 1 it finds the first period off by
     * one when DTSTART does not match (WEEKLY;INTERVAL=2;BYDAY=SU from a
     * Wednesday skips that week's Sunday). */
    rt->count = 0;
    rt->interval = 1;
    /* A DAILY rule's negative BYMONTHDAY matches nothing in libical. */
    if (rt->freq == ICAL_DAILY_RECURRENCE) {
        for (int i = 0; i < ICAL_BY_MONTHDAY_SIZE &&
                        rt->by_month_day[i] != ICAL_RECURRENCE_ARRAY_MAX;
             i++)
            f->monthdays[f->nmonthdays++] = rt->by_month_day[i];
        rt->by_month_day[0] = ICAL_RECURRENCE_ARRAY_MAX;
    }
    /* YEARLY;BYMONTHDAY=… without BYMONTH is every month's day (RFC 5545
     * expands it); libical keeps only DTSTART's month. */
    if (rt->freq == ICAL_YEARLY_RECURRENCE &&
        rt->by_month_day[0] != ICAL_RECURRENCE_ARRAY_MAX &&
        rt->by_month[0] == ICAL_RECURRENCE_ARRAY_MAX &&
        rt->by_year_day[0] == ICAL_RECURRENCE_ARRAY_MAX &&
        rt->by_week_no[0] == ICAL_RECURRENCE_ARRAY_MAX) {
        for (short m = 0; m < 12; m++)
            rt->by_month[m] = (short) (m + 1);
        rt->by_month[12] = ICAL_RECURRENCE_ARRAY_MAX;
    }
}

int sked__daycal_rule_expand(const char *text, size_t len, const int64_t *start,
                             const char *field, sked__day_fn fn, void *ctx,
                             size_t *out_count, sked_error *err)
{
    char buf[SKED__DAYCAL_RULE_MAX + 1];
    struct rule_text r = {.s = text, .len = len};
    struct icalrecurrencetype rt;
    struct icaltimetype st = icaltime_null_time();
    icalrecur_iterator *it;
    int64_t y;
    size_t emitted = 0;
    struct filter f = {0};
    int rc;

    if (len > SKED__DAYCAL_RULE_MAX)
        return sked__error_set(err, SKED_EINVAL, field, SKED__DAYCAL_RULE_MAX,
                               "a rule is at most %d bytes",
                               SKED__DAYCAL_RULE_MAX);
    if (memchr(text, '\0', len))
        return bad(err, field,
                   (size_t) ((const char *) memchr(text, '\0', len) - text),
                   "a rule holds no NUL");
    rc = start ? 0 : split_start(text, len, field, &r, err);
    if (start)
        r.start = *start;
    if (rc == 0)
        rc = check_rule(&r, field, err);
    if (rc != 0)
        return rc;
    memcpy(buf, r.s, r.len);
    buf[r.len] = '\0';
    rt = icalrecurrencetype_from_string(buf);
    icalerror_clear_errno();
    if (rt.freq == ICAL_NO_RECURRENCE)
        return refused_part(&r, field, err);
    take_filter(&rt, r.start, &f);
    /* A DATE built from icaltime_null_time: icaltime_null_date's hour of
     * -1 is what makes libical's daily walk stall. */
    sked__civil_from_days(r.start, &y, &st.month, &st.day);
    st.year = (int) y;
    st.is_date = 1;
    it = icalrecur_iterator_new(rt, st);
    icalerror_clear_errno();
    if (!it)
        return bad(err, field, r.off,
                   "the rule has no date (libical "
                   "refuses to expand it)");
    rc = walk(it, &f, field, fn, ctx, &emitted, err);
    icalrecur_iterator_free(it);
    if (rc == 0 && out_count)
        *out_count = emitted;
    return rc;
}
