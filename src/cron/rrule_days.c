/* SPDX-License-Identifier: MIT */
/* RRULE schedules of FREQ=DAILY and coarser, as their days times their
 * times of day (rrule_days.h).
 *
 * libical 3.0.16 expands such rules wrongly in several ways when it does
 * the times of day itself (lists kept in the order written, INTERVAL's
 * first period off by one when DTSTART does not match, a negative
 * BYMONTHDAY with INTERVAL), while the day calendars' expander
 * (daycal_rule.c) agrees with python-dateutil day by day: it applies
 * INTERVAL and COUNT itself over libical's dates. A rule of days with
 * BYHOUR, BYMINUTE and BYSECOND is exactly the product of its days and
 * those times (RFC 5545 3.3.10: below the frequency they expand), so
 * here the days come from that expander, with the rule's time parts,
 * COUNT and UNTIL taken out, and the times are the sorted product; COUNT
 * and a floating UNTIL are then applied to the instants, from DTSTART.
 * BYSETPOS counts positions among a period's instants, not its days: a
 * rule with it and more than one time a day is not a product, and is
 * refused. Days run over the calendars' range, 1970 to 2200. */
#include "cron/rrule_days.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "cron/daycal.h"
#include "cron/daycal_rule.h"
#include "sked/error.h"

#define DAY INT64_C(86400)

struct sked__rrule_days {
    uint64_t set[SKED__DAYCAL_NWORDS]; /* bit D: day D (since 1970) */
    int32_t tod[ICAL_BY_HOUR_SIZE * ICAL_BY_MINUTE_SIZE];
    size_t ntod;
    int64_t first, last; /* the first and last instants, wall seconds */
};

static bool has_day(const struct sked__rrule_days *d, int64_t day)
{
    return day >= 0 && day <= SKED__DAYCAL_LAST_DAY &&
           (d->set[day >> 6] >> (day & 63)) & 1u;
}

static void add_day(void *ctx, int64_t day)
{
    struct sked__rrule_days *d = ctx;

    if (day >= 0 && day <= SKED__DAYCAL_LAST_DAY)
        d->set[day >> 6] |= UINT64_C(1) << (day & 63);
}

/* The first day of D's set >= DAY (<= DAY when BACK), or -1. */
static int64_t scan(const struct sked__rrule_days *d, int64_t day, bool back)
{
    for (; day >= 0 && day <= SKED__DAYCAL_LAST_DAY; day += back ? -1 : 1) {
        uint64_t w = d->set[day >> 6];
        if (!back && (w >> (day & 63)) == 0) {
            day |= 63; /* the rest of this word is empty */
            continue;
        }
        if (back && (w << (63 - (day & 63))) == 0) {
            day &= ~INT64_C(63);
            continue;
        }
        if ((w >> (day & 63)) & 1u)
            return day;
    }
    return -1;
}

static int cmp_tod(const void *a, const void *b)
{
    int32_t x = *(const int32_t *) a, y = *(const int32_t *) b;

    return (x > y) - (x < y);
}

static size_t list_of(const short *v, size_t max, short *out)
{
    size_t n = 0;

    while (n < max && v[n] != ICAL_RECURRENCE_ARRAY_MAX) {
        out[n] = v[n];
        n++;
    }
    return n;
}

/* Fill D's times of day: the product of the rule's hours, minutes and
 * seconds (written out from DTSTART when the rule gave none). */
static void take_times(const struct icalrecurrencetype *rt,
                       struct sked__rrule_days *d)
{
    short h[ICAL_BY_HOUR_SIZE], m[ICAL_BY_MINUTE_SIZE], s[ICAL_BY_SECOND_SIZE];
    size_t nh = list_of(rt->by_hour, ICAL_BY_HOUR_SIZE, h);
    size_t nm = list_of(rt->by_minute, ICAL_BY_MINUTE_SIZE, m);
    size_t ns = list_of(rt->by_second, ICAL_BY_SECOND_SIZE, s);

    d->ntod = 0;
    for (size_t i = 0; i < nh; i++)
        for (size_t k = 0; k < nm; k++)
            for (size_t j = 0; j < ns && s[j] < 60; j++)
                if (d->ntod < sizeof d->tod / sizeof d->tod[0])
                    d->tod[d->ntod++] = h[i] * 3600 + m[k] * 60 + s[j];
    qsort(d->tod, d->ntod, sizeof d->tod[0], cmp_tod);
}

/* The first instant of D at or after LO (ignoring first and last). */
static int64_t raw_next(const struct sked__rrule_days *d, int64_t lo)
{
    int64_t day = lo >= 0 ? lo / DAY : 0, s = lo >= 0 ? lo % DAY : 0;

    if (has_day(d, day))
        for (size_t i = 0; i < d->ntod; i++)
            if (d->tod[i] >= s)
                return day * DAY + d->tod[i];
    day = scan(d, day + 1, false);
    return day < 0 ? -1 : day * DAY + d->tod[0];
}

static int64_t raw_prev(const struct sked__rrule_days *d, int64_t hi)
{
    int64_t day = hi / DAY, s = hi % DAY;

    if (hi < 0)
        return -1;
    if (has_day(d, day))
        for (size_t i = d->ntod; i-- > 0;)
            if (d->tod[i] <= s)
                return day * DAY + d->tod[i];
    day = scan(d, day - 1, true);
    return day < 0 ? -1 : day * DAY + d->tod[d->ntod - 1];
}

/* Set D's last instant: the COUNT-th from the first, a floating UNTIL, or
 * the range's end. */
static int take_last(struct sked__rrule_days *d, int count, int64_t until)
{
    int64_t t = d->first, end = (SKED__DAYCAL_LAST_DAY + 1) * DAY - 1;

    d->last = raw_prev(d, until < end ? until : end);
    if (count <= 0 || d->first < 0)
        return 0;
    /* Instants after the range's end are none: at most every second of
     * it, so the walk ends. */
    for (int k = 1; k < count && t >= 0 && t <= d->last; k++)
        t = raw_next(d, t + 1);
    if (t >= 0 && t < d->last)
        d->last = t;
    return 0;
}

int sked__rrule_days_build(const struct icalrecurrencetype *rule,
                           int64_t dtstart, int64_t until, bool has_setpos,
                           struct sked__rrule_days **out, sked_error *err)
{
    struct icalrecurrencetype days = *rule;
    struct sked__rrule_days *d;
    int64_t start = dtstart >= 0 ? dtstart / DAY : -1;
    char *text;
    int rc;

    *out = NULL;
    if (start < 0 || start > SKED__DAYCAL_LAST_DAY)
        return sked__error_set(err, SKED_EINVAL, "rrule", -1,
                               "DTSTART must be in 1970 to 2200");
    if (!(d = sked__calloc(1, sizeof *d)))
        return sked__error_set(err, SKED_ENOMEM, "rrule", -1, NULL);
    take_times(rule, d);
    if (d->ntod == 0 || (has_setpos && d->ntod > 1)) {
        const char *why = d->ntod ? "BYSETPOS with more than one time a day "
                                    "is not supported"
                                  : "the rule has no time of day";
        free(d);
        return sked__error_set(err, SKED_EINVAL, "rrule", -1, "%s", why);
    }
    days.by_hour[0] = days.by_minute[0] = days.by_second[0] =
        ICAL_RECURRENCE_ARRAY_MAX;
    days.count = 0;
    days.until = icaltime_null_time();
    if (!(text = icalrecurrencetype_as_string_r(&days))) {
        free(d);
        return sked__error_set(err, SKED_ENOMEM, "rrule", -1, NULL);
    }
    rc = sked__daycal_rule_expand(text, strlen(text), &start, "rrule", add_day,
                                  d, NULL, err);
    icalmemory_free_buffer(text);
    if (rc == 0) {
        d->first = raw_next(d, dtstart);
        rc = take_last(d, rule->count, until);
    }
    if (rc == 0 && (d->first < 0 || d->last < d->first))
        rc = sked__error_set(err, SKED_EINVAL, "rrule", -1,
                             "the rule produces no occurrence");
    if (rc != 0) {
        free(d);
        return rc;
    }
    *out = d;
    return 0;
}

void sked__rrule_days_free(struct sked__rrule_days *d)
{
    free(d);
}

int sked__rrule_days_next(const struct sked__rrule_days *d, int64_t lo,
                          int64_t *out)
{
    int64_t t = raw_next(d, lo < d->first ? d->first : lo);

    if (t < 0 || t > d->last)
        return SKED_ENOTFOUND;
    *out = t;
    return 0;
}

int sked__rrule_days_prev(const struct sked__rrule_days *d, int64_t hi,
                          int64_t *out)
{
    int64_t t = raw_prev(d, hi > d->last ? d->last : hi);

    if (t < 0 || t < d->first)
        return SKED_ENOTFOUND;
    *out = t;
    return 0;
}

/* ---- finer than a day ------------------------------------------------------
 * HOURLY, MINUTELY and SECONDLY rules with only the parts that expand
 * them (BYMINUTE and BYSECOND for HOURLY, BYSECOND for MINUTELY; the
 * reader refuses the limits): every INTERVAL-th period from DTSTART's,
 * at each of the sorted offsets. Arithmetic, so any instant is a few
 * steps away. */

struct sked__rrule_steps {
    int64_t base, period; /* DTSTART's period start; its length in s */
    int32_t off[ICAL_BY_MINUTE_SIZE * ICAL_BY_SECOND_SIZE];
    size_t noff;
    int64_t first, last;
};

/* The first instant >= LO (base <= LO), ignoring first and last. */
static int64_t step_next(const struct sked__rrule_steps *s, int64_t lo)
{
    int64_t k = (lo - s->base) / s->period, at = s->base + k * s->period;

    for (size_t j = 0; j < s->noff; j++)
        if (at + s->off[j] >= lo)
            return at + s->off[j];
    return at + s->period + s->off[0];
}

static int64_t step_prev(const struct sked__rrule_steps *s, int64_t hi)
{
    int64_t k, at;

    if (hi < s->base + s->off[0])
        return -1;
    k = (hi - s->base) / s->period;
    at = s->base + k * s->period;
    for (size_t j = s->noff; j-- > 0;)
        if (at + s->off[j] <= hi)
            return at + s->off[j];
    return k > 0 ? at - s->period + s->off[s->noff - 1] : -1;
}

int sked__rrule_steps_build(const struct icalrecurrencetype *rule,
                            int64_t dtstart, int64_t until, int64_t end,
                            struct sked__rrule_steps **out, sked_error *err)
{
    static const int64_t unit[] = {1, 60, 3600};
    short m[ICAL_BY_MINUTE_SIZE], sec[ICAL_BY_SECOND_SIZE];
    size_t nm = 1, ns, j0 = 0;
    struct sked__rrule_steps *s;
    int f = (int) rule->freq;
    int64_t idx;

    *out = NULL;
    if (f < 0 || f > ICAL_HOURLY_RECURRENCE || dtstart < 0)
        return sked__error_set(err, SKED_EINVAL, "rrule", -1,
                               "not a rule finer than a day");
    if (!(s = sked__calloc(1, sizeof *s)))
        return sked__error_set(err, SKED_ENOMEM, "rrule", -1, NULL);
    s->period = unit[f] * (rule->interval > 0 ? rule->interval : 1);
    s->base = dtstart - dtstart % unit[f];
    m[0] = 0;
    if (f == ICAL_HOURLY_RECURRENCE)
        nm = list_of(rule->by_minute, ICAL_BY_MINUTE_SIZE, m);
    sec[0] = 0;
    ns = f == ICAL_SECONDLY_RECURRENCE
             ? 1
             : list_of(rule->by_second, ICAL_BY_SECOND_SIZE, sec);
    for (size_t i = 0; i < nm; i++)
        for (size_t k = 0; k < ns; k++)
            if (sec[k] < 60)
                s->off[s->noff++] = m[i] * 60 + sec[k];
    if (s->noff == 0) {
        free(s);
        return sked__error_set(err, SKED_EINVAL, "rrule", -1,
                               "the rule has no second of its period");
    }
    qsort(s->off, s->noff, sizeof s->off[0], cmp_tod);
    s->first = step_next(s, dtstart);
    while (j0 < s->noff && s->base + s->off[j0] < dtstart)
        j0++;
    s->last = step_prev(s, until < end ? until : end);
    if (rule->count > 0) {
        idx = (int64_t) j0 + rule->count - 1;
        int64_t nth = s->base + idx / (int64_t) s->noff * s->period +
                      s->off[idx % (int64_t) s->noff];
        if (nth < s->last)
            s->last = nth;
    }
    if (s->last < s->first) {
        free(s);
        return sked__error_set(err, SKED_EINVAL, "rrule", -1,
                               "the rule produces no occurrence");
    }
    *out = s;
    return 0;
}

void sked__rrule_steps_free(struct sked__rrule_steps *s)
{
    free(s);
}

int sked__rrule_steps_next(const struct sked__rrule_steps *s, int64_t lo,
                           int64_t *out)
{
    int64_t t = step_next(s, lo < s->first ? s->first : lo);

    if (t > s->last)
        return SKED_ENOTFOUND;
    *out = t;
    return 0;
}

int sked__rrule_steps_prev(const struct sked__rrule_steps *s, int64_t hi,
                           int64_t *out)
{
    int64_t t = step_prev(s, hi > s->last ? s->last : hi);

    if (t < 0 || t < s->first)
        return SKED_ENOTFOUND;
    *out = t;
    return 0;
}
