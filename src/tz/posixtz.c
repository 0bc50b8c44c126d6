/* SPDX-License-Identifier: MIT */
/* POSIX TZ strings: parsing, and the DST rule evaluated at an instant.
 *
 * Grammar (POSIX.1-2017 8.3, with the RFC 8536 3.3.1 extensions):
 *   std offset [dst [offset] [,start[/time],end[/time]]]
 * Names are three or more letters, or <...> of letters, digits, '+' and
 * '-'. Offsets are [+-]hh[:mm[:ss]] with hh <= 24, positive west of
 * Greenwich. Rules are Jn (1..365, February 29 never counted), n (0..365)
 * or Mm.w.d; a rule time is [+-]hh[:mm[:ss]] with hh <= 167 (RFC 8536),
 * 02:00 by default. The DST offset defaults to one hour ahead of standard
 * time. A DST name without rules gets the United States rules
 * M3.2.0,M11.1.0 (as glibc and the tz code's default "posixrules" zone
 * do); TZif footers always spell their rules out.
 *
 * Evaluation follows the tz reference code: each year Y has a start
 * instant S(Y) and an end instant E(Y); the DST flag at t is set by the
 * latest of these instants at or before t. A year in which DST would last
 * the whole year or more (E - S >= the year's length, "J365/25") means
 * DST never ends. */
#include "tz/posixtz.h"

#include <stdbool.h>
#include <string.h>

#include "base/error.h"
#include "sked/tz.h"
#include "time/civil.h"

#define SECS_PER_DAY      INT64_C(86400)
#define SECS_PER_HOUR     3600
#define OFFSET_HOURS_MAX  24
#define RULE_HOURS_MAX    167
#define DEFAULT_RULE_SECS (2 * SECS_PER_HOUR)

/* A parse in progress: the input, the read position, where errors go. */
struct cursor {
    const char *s;
    size_t len;
    size_t i;
    long base;
    sked_error *err;
};

static int peek(const struct cursor *c)
{
    return c->i < c->len ? (unsigned char) c->s[c->i] : -1;
}

static bool is_alpha(int ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

static bool is_digit(int ch)
{
    return ch >= '0' && ch <= '9';
}

static int fail(const struct cursor *c, const char *msg)
{
    return sked__error_set(c->err, SKED_EINVAL, "timezone",
                           c->base + (long) c->i, "TZ string: %s", msg);
}

/* Read a name: letters only, or <...> with letters, digits, '+', '-'. */
static int parse_name(struct cursor *c, char *out)
{
    bool quoted = peek(c) == '<';
    size_t start, n;

    c->i += quoted;
    start = c->i;
    while (quoted ? is_alpha(peek(c)) || is_digit(peek(c)) || peek(c) == '+' ||
                        peek(c) == '-'
                  : is_alpha(peek(c)))
        c->i++;
    n = c->i - start;
    if (quoted && peek(c) != '>')
        return fail(c, "expected '>' closing the abbreviation");
    if (n < 3) {
        c->i = start;
        return fail(c, "abbreviation shorter than 3 characters");
    }
    if (n > SKED__POSIXTZ_NAME_MAX) {
        c->i = start;
        return fail(c, "abbreviation too long");
    }
    memcpy(out, c->s + start, n);
    out[n] = '\0';
    c->i += quoted;
    return 0;
}

/* Read up to three digits as a number no larger than MAX. */
static int parse_num(struct cursor *c, int max, int *out)
{
    int v = 0, digits = 0;

    if (!is_digit(peek(c)))
        return fail(c, "expected a number");
    while (is_digit(peek(c)) && digits < 3) {
        v = v * 10 + (peek(c) - '0');
        c->i++;
        digits++;
    }
    if (is_digit(peek(c)) || v > max) {
        c->i -= (size_t) digits;
        return fail(c, "number out of range");
    }
    *out = v;
    return 0;
}

/* Read [+-]hh[:mm[:ss]] with hh <= MAX_HOURS into seconds. */
static int parse_hms(struct cursor *c, int max_hours, int32_t *out)
{
    int sign = 1, h = 0, m = 0, s = 0, rc;

    if (peek(c) == '+' || peek(c) == '-')
        sign = c->s[c->i++] == '-' ? -1 : 1;
    if ((rc = parse_num(c, max_hours, &h)) != 0)
        return rc;
    if (peek(c) == ':') {
        c->i++;
        if ((rc = parse_num(c, 59, &m)) != 0)
            return rc;
        if (peek(c) == ':') {
            c->i++;
            if ((rc = parse_num(c, 59, &s)) != 0)
                return rc;
        }
    }
    *out = sign * (h * SECS_PER_HOUR + m * 60 + s);
    return 0;
}

/* Read a POSIX offset (positive west) as seconds east of UTC. */
static int parse_offset(struct cursor *c, int32_t *out)
{
    int32_t west;
    int rc = parse_hms(c, OFFSET_HOURS_MAX, &west);

    if (rc == 0)
        *out = -west;
    return rc;
}

/* Read the date part of a rule: Jn, n or Mm.w.d. */
static int parse_date(struct cursor *c, sked__posix_rule *r)
{
    int a, b, d, rc;

    if (peek(c) == 'J') {
        c->i++;
        if ((rc = parse_num(c, 365, &a)) != 0)
            return rc;
        if (a < 1) {
            c->i--;
            return fail(c, "Julian day must be 1..365");
        }
        *r = (sked__posix_rule){.kind = SKED__RULE_JULIAN, .day = (int16_t) a};
        return 0;
    }
    if (is_digit(peek(c))) {
        if ((rc = parse_num(c, 365, &a)) != 0)
            return rc;
        *r = (sked__posix_rule){.kind = SKED__RULE_ZERO, .day = (int16_t) a};
        return 0;
    }
    if (peek(c) != 'M')
        return fail(c, "expected a rule (Jn, n or Mm.w.d)");
    c->i++;
    if ((rc = parse_num(c, 12, &a)) != 0)
        return rc;
    if (a < 1 || peek(c) != '.')
        return fail(c, a < 1 ? "month must be 1..12" : "expected '.'");
    c->i++;
    if ((rc = parse_num(c, 5, &b)) != 0)
        return rc;
    if (b < 1 || peek(c) != '.')
        return fail(c, b < 1 ? "week must be 1..5" : "expected '.'");
    c->i++;
    if ((rc = parse_num(c, 6, &d)) != 0)
        return rc;
    *r = (sked__posix_rule){.kind = SKED__RULE_MONTH,
                            .month = (uint8_t) a,
                            .week = (uint8_t) b,
                            .wday = (uint8_t) d};
    return 0;
}

/* Read one rule with its optional /time. */
static int parse_rule(struct cursor *c, sked__posix_rule *out)
{
    sked__posix_rule r;
    int32_t secs = DEFAULT_RULE_SECS;
    int rc;

    if ((rc = parse_date(c, &r)) != 0)
        return rc;
    if (peek(c) == '/') {
        c->i++;
        if ((rc = parse_hms(c, RULE_HOURS_MAX, &secs)) != 0)
            return rc;
    }
    r.secs = secs;
    *out = r;
    return 0;
}

/* Read ",start,end", or supply the default rules at the end of input. */
static int parse_rules(struct cursor *c, sked__posixtz *p)
{
    int rc;

    if (c->i == c->len) {
        /* No rules: the United States rules since 2007 (see above). */
        p->start = (sked__posix_rule){.kind = SKED__RULE_MONTH,
                                      .month = 3,
                                      .week = 2,
                                      .secs = DEFAULT_RULE_SECS};
        p->end = (sked__posix_rule){.kind = SKED__RULE_MONTH,
                                    .month = 11,
                                    .week = 1,
                                    .secs = DEFAULT_RULE_SECS};
        return 0;
    }
    if (peek(c) != ',')
        return fail(c, "expected ',' before the DST rules");
    c->i++;
    if ((rc = parse_rule(c, &p->start)) != 0)
        return rc;
    if (peek(c) != ',')
        return fail(c, "expected ',' before the end rule");
    c->i++;
    return parse_rule(c, &p->end);
}

/* Read "dst [offset] [rules]" after the standard part. */
static int parse_dst(struct cursor *c, sked__posixtz *p)
{
    int rc;

    if ((rc = parse_name(c, p->dst_name)) != 0)
        return rc;
    p->dst_utoff = p->std_utoff + SECS_PER_HOUR;
    if (peek(c) == '+' || peek(c) == '-' || is_digit(peek(c)))
        if ((rc = parse_offset(c, &p->dst_utoff)) != 0)
            return rc;
    return parse_rules(c, p);
}

/* Return the day number of the day rule R names in YEAR. */
static int64_t rule_day(const sked__posix_rule *r, int64_t year)
{
    int64_t first, day;
    int wd;

    switch (r->kind) {
    case SKED__RULE_JULIAN:
        first = sked__days_from_civil(year, 1, 1);
        return first + r->day - 1 + (r->day >= 60 && sked__is_leap(year));
    case SKED__RULE_ZERO:
        return sked__days_from_civil(year, 1, 1) + r->day;
    default:
        first = sked__days_from_civil(year, r->month, 1);
        wd = sked__weekday_from_days(first);
        day = first + (r->wday - wd + 7) % 7 + 7 * (r->week - 1);
        if (day >= first + sked__days_in_month(year, r->month))
            day -= 7;
        return day;
    }
}

/* Return the POSIX second at which rule R fires in YEAR, its time being
 * read on a clock UTOFF seconds east of UTC. */
static int64_t rule_time(const sked__posix_rule *r, int64_t year, int32_t utoff)
{
    return rule_day(r, year) * SECS_PER_DAY + r->secs - utoff;
}

/* One start (dst = 1) or end (dst = 0) instant of one year. */
struct event {
    int64_t at;
    int64_t year;
    int dst;
};

/* Order events by instant; at one instant, the earlier year first, and
 * within a year the start before the end, so that the later event wins:
 * DST that ends exactly when next year's begins goes on, and DST that
 * starts and ends at once never happens. */
static bool event_before(const struct event *a, const struct event *b)
{
    if (a->at != b->at)
        return a->at < b->at;
    if (a->year != b->year)
        return a->year < b->year;
    return a->dst > b->dst;
}

#define WINDOW_YEARS  5
#define WINDOW_EVENTS (2 * WINDOW_YEARS)

/* Fill EV with the sorted events of the years around T's year. Every
 * year's events fall within about a week of that year (rule times are
 * at most 167 h, offsets 25 h), so the latest event at or before T and
 * the first after it are always among years Y-2..Y+2. */
static void window(const sked__posixtz *p, int64_t t, struct event *ev)
{
    int64_t y, yt;
    int m, d, n = 0;

    sked__civil_from_days(sked__floor_div(t, SECS_PER_DAY), &yt, &m, &d);
    for (y = yt - 2; y <= yt + 2; y++) {
        struct event s = {rule_time(&p->start, y, p->std_utoff), y, 1};
        struct event e = {rule_time(&p->end, y, p->dst_utoff), y, 0};
        ev[n++] = s;
        ev[n++] = e;
    }
    for (int i = 1; i < n; i++) {
        struct event k = ev[i];
        int j = i - 1;
        for (; j >= 0 && event_before(&k, &ev[j]); j--)
            ev[j + 1] = ev[j];
        ev[j + 1] = k;
    }
}

/* Return the index of the last event at or before T (-1: none). */
static int last_at_or_before(const struct event *ev, int64_t t)
{
    int i = WINDOW_EVENTS - 1;

    while (i >= 0 && ev[i].at > t)
        i--;
    return i;
}

/* Return 1 if event I changes the DST flag: it is the last event at its
 * instant and the flag before that instant differs (I > 0 assumed). The
 * window's last instant is never a change: an event of the next year,
 * outside the window, may share it and win (DST all year). The first
 * instant needs no such care, as a tie is won by the later year. */
static bool is_change(const struct event *ev, int i)
{
    int j = i - 1;

    if (ev[i].at == ev[WINDOW_EVENTS - 1].at)
        return false;
    if (ev[i + 1].at == ev[i].at)
        return false;
    while (j > 0 && ev[j].at == ev[i].at)
        j--;
    return ev[j].at != ev[i].at && ev[j].dst != ev[i].dst;
}

int sked__posixtz_isdst(const sked__posixtz *p, int64_t t)
{
    struct event ev[WINDOW_EVENTS];
    int i;

    if (p->constant != SKED__POSIX_VARIES)
        return p->constant == SKED__POSIX_DST_ALL;
    window(p, t, ev);
    i = last_at_or_before(ev, t);
    return i >= 0 ? ev[i].dst : 0;
}

void sked__posixtz_span_at(const sked__posixtz *p, int64_t t,
                           sked__posixtz_span *out)
{
    struct event ev[WINDOW_EVENTS];
    int i, k;

    if (p->constant != SKED__POSIX_VARIES) {
        int dst = p->constant == SKED__POSIX_DST_ALL;
        *out = (sked__posixtz_span){INT64_MIN, INT64_MAX, dst, dst};
        return;
    }
    window(p, t, ev);
    i = last_at_or_before(ev, t);
    out->dst = i >= 0 ? ev[i].dst : 0;
    if (p->std_utoff == p->dst_utoff) {
        out->prev = INT64_MIN;
        out->next = INT64_MAX;
        out->prev_dst = out->dst;
        return;
    }
    for (k = i; k > 0 && !is_change(ev, k); k--)
        ;
    out->prev = k > 0 ? ev[k].at : ev[0].at;
    out->prev_dst = k > 0 ? !out->dst : out->dst;
    for (k = i + 1; k < WINDOW_EVENTS && !is_change(ev, k); k++)
        ;
    out->next = k < WINDOW_EVENTS ? ev[k].at : ev[WINDOW_EVENTS - 1].at;
}

/* Return whether the DST flag ever changes, trying every year of one
 * 400-year Gregorian cycle (after which the rules repeat). */
static bool flag_varies(const sked__posixtz *p)
{
    struct event ev[WINDOW_EVENTS];
    int64_t jan1;

    for (int64_t y = 2000; y < 2400; y++) {
        jan1 = sked__days_from_civil(y, 1, 1) * SECS_PER_DAY;
        window(p, jan1, ev);
        for (int i = 1; i < WINDOW_EVENTS; i++)
            if (is_change(ev, i))
                return true;
    }
    return false;
}

/* Decide p->constant once the string is read. */
static void classify(sked__posixtz *p)
{
    struct event ev[WINDOW_EVENTS];

    p->constant = SKED__POSIX_VARIES;
    if (flag_varies(p))
        return;
    window(p, 0, ev);
    p->constant = ev[last_at_or_before(ev, 0)].dst ? SKED__POSIX_DST_ALL
                                                   : SKED__POSIX_STD_ALL;
}

int sked__posixtz_parse(const char *s, size_t len, long base,
                        sked__posixtz *out, sked_error *err)
{
    struct cursor c = {s, len, 0, base, err};
    sked__posixtz p;
    int rc;

    memset(&p, 0, sizeof p);
    if (len > SKED_POSIXTZ_MAX)
        return fail(&c, "longer than SKED_POSIXTZ_MAX");
    if ((rc = parse_name(&c, p.std_name)) != 0)
        return rc;
    if ((rc = parse_offset(&c, &p.std_utoff)) != 0)
        return rc;
    if (c.i == c.len) {
        memcpy(p.dst_name, p.std_name, sizeof p.dst_name);
        p.dst_utoff = p.std_utoff;
        p.constant = SKED__POSIX_STD_ALL;
        *out = p;
        return 0;
    }
    if ((rc = parse_dst(&c, &p)) != 0)
        return rc;
    if (c.i != c.len)
        return fail(&c, "unexpected character");
    classify(&p);
    *out = p;
    return 0;
}
