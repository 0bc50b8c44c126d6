/* SPDX-License-Identifier: MIT */
/* An RFC 5545 rule in English, as "sked cron explain" says a cron
 * expression: "At 09:00, every 2 weeks on Friday, starting 2026-12-04".
 *
 * The words are built from the normalised rule (rrule_int.h), so the
 * times DTSTART fills in are said too, and every spelling of one rule
 * reads the same. The time of day is the cron words' own (words.h): a
 * rule of days has a set of hours, minutes and seconds, as a cron
 * expression does. Then the period and its interval, the days it keeps,
 * the positions BYSETPOS keeps, and the bounds (COUNT, UNTIL, and the
 * start when an interval or a count counts from it). */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cron/rrule.h"
#include "cron/rrule_int.h"
#include "cron/words.h"
#include "time/civil.h"

#define END ICAL_RECURRENCE_ARRAY_MAX

/* The set of values LO..HI of the list V (SIZE entries, END-terminated);
 * negative values are left out (they count from the end). */
static uint64_t mask_of(const short *v, int size, int lo, int hi)
{
    uint64_t m = 0;
    for (int i = 0; i < size && v[i] != END; i++)
        if (v[i] >= lo && v[i] <= hi)
            m |= UINT64_C(1) << v[i];
    return m;
}

static bool all_positive(const short *v, int size)
{
    for (int i = 0; i < size && v[i] != END; i++)
        if (v[i] < 0)
            return false;
    return true;
}

static bool has(const short *v)
{
    return v[0] != END;
}

/* "first", "second", ..., "21st" for N >= 1. */
static void put_nth(struct sked__out *o, int n)
{
    const char *sfx = "th";
    if (n <= 5) {
        sked__put(o, "%s", sked__ordinal_words[n - 1]);
        return;
    }
    if (n % 100 < 11 || n % 100 > 13)
        sfx = n % 10 == 1   ? "st"
              : n % 10 == 2 ? "nd"
              : n % 10 == 3 ? "rd"
                            : "th";
    sked__put(o, "%d%s", n, sfx);
}

/* A position: 1 "first", -1 "last", -2 "second-to-last". */
static void put_position(struct sked__out *o, int n)
{
    if (n == -1) {
        sked__put(o, "last");
        return;
    }
    put_nth(o, n > 0 ? n : -n);
    if (n < 0)
        sked__put(o, "-to-last");
}

/* " and " before the last of N items, ", " between the others. */
static void put_sep(struct sked__out *o, int i, int n)
{
    if (i > 0)
        sked__put(o, i == n - 1 ? " and " : ", ");
}

static const char *period_noun(icalrecurrencetype_frequency f)
{
    switch (f) {
    case ICAL_SECONDLY_RECURRENCE:
        return "second";
    case ICAL_MINUTELY_RECURRENCE:
        return "minute";
    case ICAL_HOURLY_RECURRENCE:
        return "hour";
    case ICAL_DAILY_RECURRENCE:
        return "day";
    case ICAL_WEEKLY_RECURRENCE:
        return "week";
    case ICAL_MONTHLY_RECURRENCE:
        return "month";
    default:
        return "year";
    }
}

/* ", every 2 weeks" or "Every hour" (CAPITAL: the words begin here). */
static void put_period(struct sked__out *o, const struct icalrecurrencetype *r,
                       bool capital)
{
    const char *every = capital ? "Every" : ", every";
    if (r->interval > 1)
        sked__put(o, "%s %d %ss", every, r->interval, period_noun(r->freq));
    else
        sked__put(o, "%s %s", every, period_noun(r->freq));
}

/* The days of the month, BYMONTHDAY: "day 1 and 15", "the last day". */
static int put_month_days(struct sked__out *o, const short *v, int items)
{
    uint64_t pos = mask_of(v, ICAL_BY_MONTHDAY_SIZE, 1, 31);
    int nneg = 0;
    for (int i = 0; i < ICAL_BY_MONTHDAY_SIZE && v[i] != END; i++)
        nneg += v[i] < 0;
    if (pos) {
        sked__put(o, "day%s ", sked__count_bits(pos) > 1 ? "s" : "");
        sked__put_set(o, pos, 1, 31, sked__put_number);
        items++;
    }
    for (int i = 0, k = 0; i < ICAL_BY_MONTHDAY_SIZE && v[i] != END; i++) {
        if (v[i] >= 0)
            continue;
        put_sep(o, k + (pos != 0), nneg + (pos != 0));
        sked__put(o, "the ");
        put_position(o, v[i]);
        sked__put(o, " day");
        k++;
        items++;
    }
    return items;
}

/* The weekdays, BYDAY: "Monday through Friday", "the last Friday". */
static void put_weekdays(struct sked__out *o, const short *v)
{
    uint64_t plain = 0;
    int nth = 0;
    for (int i = 0; i < ICAL_BY_DAY_SIZE && v[i] != END; i++) {
        int wd = (int) icalrecurrencetype_day_day_of_week(v[i]) - 1;
        if (icalrecurrencetype_day_position(v[i]) == 0)
            plain |= UINT64_C(1) << wd;
        else
            nth++;
    }
    if (plain)
        sked__put_set(o, plain, 0, 6, sked__put_day);
    for (int i = 0, k = 0; i < ICAL_BY_DAY_SIZE && v[i] != END; i++) {
        int pos = icalrecurrencetype_day_position(v[i]);
        int wd = (int) icalrecurrencetype_day_day_of_week(v[i]) - 1;
        if (pos == 0)
            continue;
        put_sep(o, k + (plain != 0), nth + (plain != 0));
        sked__put(o, "the ");
        put_position(o, pos);
        sked__put(o, " %s", sked__day_words[wd]);
        k++;
    }
}

/* The days the rule keeps: " on Monday and Friday", " in November on the
 * fourth Thursday", " on day 13, if a Friday". */
static void put_days(struct sked__out *o, const struct icalrecurrencetype *r)
{
    uint64_t months = mask_of(r->by_month, ICAL_BY_MONTH_SIZE, 1, 12);
    bool mday = has(r->by_month_day), wday = has(r->by_day);
    /* A period of days or longer picks its days; a finer one is limited
     * to them. */
    const char *on = r->freq >= ICAL_WEEKLY_RECURRENCE ? " on " : ", only on ";

    /* "every year on December 24 and 25" */
    if (r->freq == ICAL_YEARLY_RECURRENCE && sked__count_bits(months) == 1 &&
        mday && !wday && !has(r->by_year_day) &&
        all_positive(r->by_month_day, ICAL_BY_MONTHDAY_SIZE)) {
        uint64_t pos = mask_of(r->by_month_day, ICAL_BY_MONTHDAY_SIZE, 1, 31);
        sked__put(o, " on %s ", sked__month_words[sked__lowest(months)]);
        sked__put_set(o, pos, 1, 31, sked__put_number);
        return;
    }
    if (months && !sked__is_full(months, 1, 12)) {
        sked__put(o, r->freq == ICAL_YEARLY_RECURRENCE ? " in " : ", only in ");
        sked__put_set(o, months, 1, 12, sked__put_month);
    }
    if (has(r->by_year_day)) {
        sked__put(o, "%sday", on);
        for (int i = 0; i < ICAL_BY_YEARDAY_SIZE && r->by_year_day[i] != END;
             i++) {
            sked__put(o, i ? ", " : " ");
            if (r->by_year_day[i] < 0)
                sked__put(o, "%d from the end", -r->by_year_day[i]);
            else
                sked__put(o, "%d", r->by_year_day[i]);
        }
        sked__put(o, " of the year");
    }
    if (mday) {
        sked__put(o, "%s", on);
        put_month_days(o, r->by_month_day, 0);
    }
    if (wday) {
        sked__put(o, "%s", mday ? ", if a " : on);
        put_weekdays(o, r->by_day);
    }
}

/* ", only the last of each month" (BYSETPOS). */
static void put_setpos(struct sked__out *o, const struct icalrecurrencetype *r)
{
    int n = 0;
    while (n < ICAL_BY_SETPOS_SIZE && r->by_set_pos[n] != END)
        n++;
    if (n == 0)
        return;
    sked__put(o, ", only the ");
    for (int i = 0; i < n; i++) {
        put_sep(o, i, n);
        put_position(o, r->by_set_pos[i]);
    }
    sked__put(o, " of each %s", period_noun(r->freq));
}

/* "2026-12-04" or "2026-12-04 09:30" or "... 09:30:15": wall second S. */
static void put_wall(struct sked__out *o, int64_t s, bool with_time)
{
    int64_t days = sked__floor_div(s, 86400), y;
    int64_t sod = sked__floor_mod(s, 86400);
    int m, d;

    sked__civil_from_days(days, &y, &m, &d);
    sked__put(o, "%04lld-%02d-%02d", (long long) y, m, d);
    if (!with_time)
        return;
    sked__put(o, " %02d:%02d", (int) (sod / 3600), (int) (sod / 60 % 60));
    if (sod % 60)
        sked__put(o, ":%02d", (int) (sod % 60));
}

static void put_bounds(struct sked__out *o, const sked__rrule *rr)
{
    const struct icalrecurrencetype *r = &rr->rule;
    bool days = r->freq >= ICAL_DAILY_RECURRENCE;

    if (r->interval > 1 || r->count > 0) {
        sked__put(o, ", starting ");
        put_wall(o, rr->dtstart, !days);
    }
    if (r->count > 0)
        sked__put(o, ", %d time%s", r->count, r->count > 1 ? "s" : "");
    if (rr->until != INT64_MAX) {
        sked__put(o, ", until ");
        put_wall(o, rr->until, true);
    } else if (rr->until_utc != SKED_TIME_NONE) {
        sked__put(o, ", until ");
        put_wall(o, rr->until_utc / SKED_USEC_PER_SEC, true);
        sked__put(o, " UTC");
    }
}

/* A rule finer than a day: its period, then the offsets within it
 * (sked reads no other part for it): "Every 2 hours, at minute 15". */
static void put_fine(struct sked__out *o, const struct icalrecurrencetype *r)
{
    uint64_t sec = mask_of(r->by_second, ICAL_BY_SECOND_SIZE, 0, 59);
    uint64_t min = mask_of(r->by_minute, ICAL_BY_MINUTE_SIZE, 0, 59);

    put_period(o, r, true);
    if (r->freq == ICAL_HOURLY_RECURRENCE && min) {
        sked__put(o, ", at minute%s ", sked__count_bits(min) > 1 ? "s" : "");
        sked__put_set(o, min, 0, 59, sked__put_number);
    }
    if (r->freq != ICAL_SECONDLY_RECURRENCE && sec && sec != 1) {
        sked__put(o, ", at second%s ", sked__count_bits(sec) > 1 ? "s" : "");
        sked__put_set(o, sec, 0, 59, sked__put_number);
    }
}

int sked__rrule_explain(const sked__rrule *rr, char *buf, size_t size)
{
    struct sked__out o = {.buf = buf, .size = size};
    const struct icalrecurrencetype *r;

    if (!rr || !buf || size == 0)
        return SKED_EINVAL;
    r = &rr->rule;
    buf[0] = '\0';
    if (r->freq >= ICAL_DAILY_RECURRENCE) {
        sked_cron c = {
            .sec = mask_of(r->by_second, ICAL_BY_SECOND_SIZE, 0, 59),
            .min = mask_of(r->by_minute, ICAL_BY_MINUTE_SIZE, 0, 59),
            .hour = (uint32_t) mask_of(r->by_hour, ICAL_BY_HOUR_SIZE, 0, 23),
        };
        sked__put_clock(&o, &c);
        put_period(&o, r, false);
    } else {
        put_fine(&o, r);
    }
    put_days(&o, r);
    put_setpos(&o, r);
    put_bounds(&o, rr);
    if (o.overflow) {
        buf[0] = '\0';
        return SKED_ETOOBIG;
    }
    return (int) o.len;
}
