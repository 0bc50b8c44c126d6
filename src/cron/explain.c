/* SPDX-License-Identifier: MIT */
/* Describes a parsed cron expression in English.
 *
 * The description is built from the bitsets, not from the text, so every
 * spelling of one schedule reads the same ("1-5", "MON-FRI" and "1,2,3-5"
 * all give "Monday through Friday"). It has up to four parts: the time of
 * day ("At 09:00", "Every 15 minutes, between 09:00 and 17:59"), the days
 * ("Monday through Friday", "on the last day of the month"), the months
 * ("only in February"), and the zone in parentheses. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cron/cron.h"
#include "cron/words.h"

/* "At 09:00", "At 09:00 and 17:30", "At 09:00:15": every time of day when
 * the clock fields are few single values. */
static bool put_clock_times(struct sked__out *o, const sked_cron *c)
{
    int hours = sked__count_bits(c->hour);
    bool show_sec = c->sec != 1;

    if (sked__count_bits(c->sec) != 1 || sked__count_bits(c->min) != 1 ||
        hours > 6)
        return false;
    sked__put(o, "At ");
    for (int h = 0, i = 0; h < 24; h++) {
        if (!(c->hour >> h & 1))
            continue;
        if (i > 0)
            sked__put(o, i == hours - 1 ? " and " : ", ");
        sked__put(o, "%02d:%02d", h, sked__lowest(c->min));
        if (show_sec)
            sked__put(o, ":%02d", sked__lowest(c->sec));
        i++;
    }
    return true;
}

/* Describe one clock field ("every 15 minutes", "at minutes 0 and 30");
 * UNIT is singular. */
static void put_clock_field(struct sked__out *o, uint64_t mask, int hi,
                            const char *unit, bool *started)
{
    int step;

    sked__put(o, *started ? ", " : "");
    if (sked__is_full(mask, 0, hi))
        sked__put(o, *started ? "every %s" : "Every %s", unit);
    else if (sked__is_step_from(mask, 0, hi, &step))
        sked__put(o, *started ? "every %d %ss" : "Every %d %ss", step, unit);
    else {
        sked__put(o, *started ? "at %s%s " : "At %s%s ", unit,
                  sked__count_bits(mask) > 1 ? "s" : "");
        sked__put_set(o, mask, 0, hi, sked__put_number);
    }
    *started = true;
}

static void put_hours(struct sked__out *o, uint32_t hours, bool *started)
{
    int step;

    if (sked__is_full(hours, 0, 23))
        return;
    sked__put(o, *started ? ", " : "");
    if (sked__is_step_from(hours, 0, 23, &step)) {
        sked__put(o, *started ? "every %d hours" : "Every %d hours", step);
    } else if (sked__count_bits(hours) == 1) {
        sked__put(o, "between %02d:00 and %02d:59", sked__lowest(hours),
                  sked__lowest(hours));
    } else {
        int lo = sked__lowest(hours), hi = 31 - __builtin_clz(hours);
        if (sked__count_bits(hours) == hi - lo + 1)
            sked__put(o, "between %02d:00 and %02d:59", lo, hi);
        else {
            sked__put(o, "during hours ");
            sked__put_set(o, hours, 0, 23, sked__put_number);
        }
    }
    *started = true;
}

void sked__put_clock(struct sked__out *o, const sked_cron *c)
{
    bool started = false;

    if (put_clock_times(o, c))
        return;
    if (c->sec != 1)
        put_clock_field(o, c->sec, 59, "second", &started);
    if (c->min == 1 && !started && sked__is_full(c->hour, 0, 23)) {
        sked__put(o, "Every hour");
        return;
    }
    /* "Every 30 seconds" already says every minute. */
    if (!(started && sked__is_full(c->min, 0, 59)))
        put_clock_field(o, c->min, 59, "minute", &started);
    put_hours(o, c->hour, &started);
}

static void put_dom(struct sked__out *o, const sked_cron *c)
{
    bool any = false;

    if (c->dom) {
        sked__put(o, "on day%s ", sked__count_bits(c->dom) > 1 ? "s" : "");
        sked__put_set(o, c->dom, 1, 31, sked__put_number);
        sked__put(o, " of the month");
        any = true;
    }
    for (int n = 0; n <= 30; n++) {
        if (!(c->dom_last >> n & 1))
            continue;
        sked__put(o, "%s", any ? " and " : "");
        if (n == 0)
            sked__put(o, "on the last day of the month");
        else
            sked__put(o, "on the last day of the month minus %d day%s", n,
                      n > 1 ? "s" : "");
        any = true;
    }
    for (int d = 1; d <= 31; d++) {
        if (!(c->dom_near >> d & 1))
            continue;
        sked__put(o, "%son the weekday nearest day %d of the month",
                  any ? " and " : "", d);
        any = true;
    }
    if (c->flags & SKED_CRON_DOM_LW)
        sked__put(o, "%son the last weekday of the month", any ? " and " : "");
}

static void put_dow(struct sked__out *o, const sked_cron *c)
{
    bool any = false;

    if (c->dow) {
        /* "Monday through Friday" reads well alone; anything else gets
         * "only on" ("only on Monday and Thursday"). */
        int lo = sked__lowest(c->dow), hi = 31 - __builtin_clz(c->dow);
        bool one_run = hi - lo >= 2 && sked__is_full(c->dow, lo, hi) &&
                       sked__count_bits(c->dow) == hi - lo + 1;
        sked__put(o, one_run ? "" : "only on ");
        sked__put_set(o, c->dow, 0, 6, sked__put_day);
        any = true;
    }
    for (int wd = 0; wd < 7; wd++) {
        if (c->dow_last >> wd & 1) {
            sked__put(o, "%son the last %s of the month", any ? " and " : "",
                      sked__day_words[wd]);
            any = true;
        }
        for (int n = 0; n < 5; n++) {
            if (!(c->dow_nth[wd] >> n & 1))
                continue;
            sked__put(o, "%son the %s %s of the month", any ? " and " : "",
                      sked__ordinal_words[n], sked__day_words[wd]);
            any = true;
        }
    }
}

static void put_days(struct sked__out *o, const sked_cron *c)
{
    bool dom = !(c->flags & SKED_CRON_DOM_STAR);
    bool dow = !(c->flags & SKED_CRON_DOW_STAR);

    if (dom) {
        sked__put(o, ", ");
        put_dom(o, c);
    }
    if (dow) {
        sked__put(o, dom ? " or " : ", ");
        put_dow(o, c);
    }
    if (!sked__is_full(c->month, 1, 12)) {
        sked__put(o, ", only in ");
        sked__put_set(o, c->month, 1, 12, sked__put_month);
    }
}

int sked_cron_explain(const sked_cron *c, const char *tzname, char *buf,
                      size_t size)
{
    struct sked__out o = {.buf = buf, .size = size};

    if (!c || !buf || size == 0)
        return SKED_EINVAL;
    buf[0] = '\0';
    sked__put_clock(&o, c);
    put_days(&o, c);
    if (tzname)
        sked__put(&o, " (%s)", tzname);
    if (o.overflow) {
        buf[0] = '\0';
        return SKED_ETOOBIG;
    }
    return (int) o.len;
}
