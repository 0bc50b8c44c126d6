/* SPDX-License-Identifier: MIT */
/* Describes a parsed cron expression in English.
 *
 * The description is built from the bitsets, not from the text, so every
 * spelling of one schedule reads the same ("1-5", "MON-FRI" and "1,2,3-5"
 * all give "Monday through Friday"). It has up to four parts: the time of
 * day ("At 09:00", "Every 15 minutes, between 09:00 and 17:59"), the days
 * ("Monday through Friday", "on the last day of the month"), the months
 * ("only in February"), and the zone in parentheses. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cron/cron.h"

static const char *const month_words[13] = {
    "",     "January", "February",  "March",   "April",    "May",     "June",
    "July", "August",  "September", "October", "November", "December"};
static const char *const day_words[7] = {"Sunday",    "Monday",   "Tuesday",
                                         "Wednesday", "Thursday", "Friday",
                                         "Saturday"};
static const char *const ordinal_words[5] = {"first", "second", "third",
                                             "fourth", "fifth"};

/* An output buffer that remembers when it ran out of room. */
struct out {
    char *buf;
    size_t size, len;
    bool overflow;
};

static void put(struct out *o, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (o->overflow)
        return;
    va_start(ap, fmt);
    n = vsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t) n >= o->size - o->len) {
        o->overflow = true;
        return;
    }
    o->len += (size_t) n;
}

static int count_bits(uint64_t mask)
{
    return __builtin_popcountll(mask);
}

static int lowest(uint64_t mask)
{
    return __builtin_ctzll(mask);
}

/* True when MASK, over LO..HI, is every STEP-th value from LO. */
static bool is_step_from(uint64_t mask, int lo, int hi, int *step)
{
    int first = lowest(mask), n = count_bits(mask), s;
    uint64_t expect = 0;

    if (first != lo || n < 2)
        return false;
    mask &= mask - 1;
    s = lowest(mask) - first;
    for (int v = lo; v <= hi; v += s)
        expect |= UINT64_C(1) << v;
    *step = s;
    return (expect | (UINT64_C(1) << first)) == (mask | (UINT64_C(1) << first));
}

static bool is_full(uint64_t mask, int lo, int hi)
{
    uint64_t full = ((hi >= 63 ? ~UINT64_C(0) : (UINT64_C(2) << hi) - 1) >> lo)
                    << lo;
    return (mask & full) == full;
}

typedef void (*name_fn)(struct out *o, int v);

static void put_number(struct out *o, int v)
{
    put(o, "%d", v);
}

static void put_month(struct out *o, int v)
{
    put(o, "%s", month_words[v]);
}

static void put_day(struct out *o, int v)
{
    put(o, "%s", day_words[v]);
}

/* Write MASK over LO..HI as "a, b through c and d". */
static void put_set(struct out *o, uint64_t mask, int lo, int hi, name_fn name)
{
    int runs = 0, written = 0;

    for (int v = lo; v <= hi; v++)
        if ((mask >> v & 1) && (v == lo || !(mask >> (v - 1) & 1)))
            runs++;
    for (int v = lo; v <= hi; v++) {
        int end = v;
        if (!(mask >> v & 1))
            continue;
        while (end < hi && (mask >> (end + 1) & 1))
            end++;
        if (written > 0)
            put(o, written == runs - 1 ? " and " : ", ");
        name(o, v);
        if (end > v + 1)
            put(o, " through "), name(o, end);
        else if (end == v + 1)
            put(o, written + 1 == runs ? " and " : ", "), name(o, end);
        written++;
        v = end;
    }
}

/* "At 09:00", "At 09:00 and 17:30", "At 09:00:15": every time of day when
 * the clock fields are few single values. */
static bool put_clock_times(struct out *o, const sked_cron *c)
{
    int hours = count_bits(c->hour);
    bool show_sec = c->sec != 1;

    if (count_bits(c->sec) != 1 || count_bits(c->min) != 1 || hours > 6)
        return false;
    put(o, "At ");
    for (int h = 0, i = 0; h < 24; h++) {
        if (!(c->hour >> h & 1))
            continue;
        if (i > 0)
            put(o, i == hours - 1 ? " and " : ", ");
        put(o, "%02d:%02d", h, lowest(c->min));
        if (show_sec)
            put(o, ":%02d", lowest(c->sec));
        i++;
    }
    return true;
}

/* Describe one clock field ("every 15 minutes", "at minutes 0 and 30");
 * UNIT is singular. */
static void put_clock_field(struct out *o, uint64_t mask, int hi,
                            const char *unit, bool *started)
{
    int step;

    put(o, *started ? ", " : "");
    if (is_full(mask, 0, hi))
        put(o, *started ? "every %s" : "Every %s", unit);
    else if (is_step_from(mask, 0, hi, &step))
        put(o, *started ? "every %d %ss" : "Every %d %ss", step, unit);
    else {
        put(o, *started ? "at %s%s " : "At %s%s ", unit,
            count_bits(mask) > 1 ? "s" : "");
        put_set(o, mask, 0, hi, put_number);
    }
    *started = true;
}

static void put_hours(struct out *o, uint32_t hours, bool *started)
{
    int step;

    if (is_full(hours, 0, 23))
        return;
    put(o, *started ? ", " : "");
    if (is_step_from(hours, 0, 23, &step)) {
        put(o, *started ? "every %d hours" : "Every %d hours", step);
    } else if (count_bits(hours) == 1) {
        put(o, "between %02d:00 and %02d:59", lowest(hours), lowest(hours));
    } else {
        int lo = lowest(hours), hi = 31 - __builtin_clz(hours);
        if (count_bits(hours) == hi - lo + 1)
            put(o, "between %02d:00 and %02d:59", lo, hi);
        else {
            put(o, "during hours ");
            put_set(o, hours, 0, 23, put_number);
        }
    }
    *started = true;
}

static void put_time_of_day(struct out *o, const sked_cron *c)
{
    bool started = false;

    if (put_clock_times(o, c))
        return;
    if (c->sec != 1)
        put_clock_field(o, c->sec, 59, "second", &started);
    if (c->min == 1 && !started && is_full(c->hour, 0, 23)) {
        put(o, "Every hour");
        return;
    }
    /* "Every 30 seconds" already says every minute. */
    if (!(started && is_full(c->min, 0, 59)))
        put_clock_field(o, c->min, 59, "minute", &started);
    put_hours(o, c->hour, &started);
}

static void put_dom(struct out *o, const sked_cron *c)
{
    bool any = false;

    if (c->dom) {
        put(o, "on day%s ", count_bits(c->dom) > 1 ? "s" : "");
        put_set(o, c->dom, 1, 31, put_number);
        put(o, " of the month");
        any = true;
    }
    for (int n = 0; n <= 30; n++) {
        if (!(c->dom_last >> n & 1))
            continue;
        put(o, "%s", any ? " and " : "");
        if (n == 0)
            put(o, "on the last day of the month");
        else
            put(o, "on the last day of the month minus %d day%s", n,
                n > 1 ? "s" : "");
        any = true;
    }
    for (int d = 1; d <= 31; d++) {
        if (!(c->dom_near >> d & 1))
            continue;
        put(o, "%son the weekday nearest day %d of the month",
            any ? " and " : "", d);
        any = true;
    }
    if (c->flags & SKED_CRON_DOM_LW)
        put(o, "%son the last weekday of the month", any ? " and " : "");
}

static void put_dow(struct out *o, const sked_cron *c)
{
    bool any = false;

    if (c->dow) {
        /* "Monday through Friday" reads well alone; anything else gets
         * "only on" ("only on Monday and Thursday"). */
        int lo = lowest(c->dow), hi = 31 - __builtin_clz(c->dow);
        bool one_run = hi - lo >= 2 && is_full(c->dow, lo, hi) &&
                       count_bits(c->dow) == hi - lo + 1;
        put(o, one_run ? "" : "only on ");
        put_set(o, c->dow, 0, 6, put_day);
        any = true;
    }
    for (int wd = 0; wd < 7; wd++) {
        if (c->dow_last >> wd & 1) {
            put(o, "%son the last %s of the month", any ? " and " : "",
                day_words[wd]);
            any = true;
        }
        for (int n = 0; n < 5; n++) {
            if (!(c->dow_nth[wd] >> n & 1))
                continue;
            put(o, "%son the %s %s of the month", any ? " and " : "",
                ordinal_words[n], day_words[wd]);
            any = true;
        }
    }
}

static void put_days(struct out *o, const sked_cron *c)
{
    bool dom = !(c->flags & SKED_CRON_DOM_STAR);
    bool dow = !(c->flags & SKED_CRON_DOW_STAR);

    if (dom) {
        put(o, ", ");
        put_dom(o, c);
    }
    if (dow) {
        put(o, dom ? " or " : ", ");
        put_dow(o, c);
    }
    if (!is_full(c->month, 1, 12)) {
        put(o, ", only in ");
        put_set(o, c->month, 1, 12, put_month);
    }
}

int sked_cron_explain(const sked_cron *c, const char *tzname, char *buf,
                      size_t size)
{
    struct out o = {.buf = buf, .size = size};

    if (!c || !buf || size == 0)
        return SKED_EINVAL;
    buf[0] = '\0';
    put_time_of_day(&o, c);
    put_days(&o, c);
    if (tzname)
        put(&o, " (%s)", tzname);
    if (o.overflow) {
        buf[0] = '\0';
        return SKED_ETOOBIG;
    }
    return (int) o.len;
}
