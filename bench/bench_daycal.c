/* SPDX-License-Identifier: MIT */
/* The day calendars: the time to build the US federal calendar (eleven
 * rules through libical, observed days), then nanoseconds per has(), per
 * next_business() on it, and per next_business() across a run of
 * seventy years of holidays (the word scan's worst case), and the next
 * occurrence of "09:00 on business days, but not on a day of a 20-rule
 * holiday calendar", chained, against python3-dateutil's rruleset on the
 * same rules (bench/peers/holiday_dateutil_bench.py).
 *
 * Benchmarks measure the process clock directly (CLOCK_MONOTONIC); the
 * library itself reads time only through sked_clock. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cron/daycal.h"
#include "holidays.h"
#include "sked/sked.h"

#define QUERIES 10000000L

static double now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

static sked__daycal *build(const char *const *rules, size_t n,
                           sked__observed observed)
{
    sked__daycal_spec spec = {
        .rules = rules, .nrules = n, .observed = observed};
    sked__daycal *c = NULL;
    sked_error err;

    if (sked__daycal_build(&spec, NULL, NULL, &c, &err) != 0) {
        fprintf(stderr, "bench_daycal: %s: %s\n", err.field, err.msg);
        exit(1);
    }
    return c;
}

#define CHAIN 300

/* Nanoseconds per occurrence of "09:00 UTC, Monday to Friday, not on a
 * day of CAL", chained from 2026-01-01 as the scheduler asks: the cron
 * expression's next, stepped on while it falls on a day of the set. */
static double holiday_next_ns(const sked__daycal *cal, long *sum,
                              sked_time *last)
{
    sked_cron c;
    double t0, t1;
    long rounds = QUERIES / 20 / CHAIN;

    if (sked_cron_parse("0 9 * * 1-5", &c, NULL) != 0)
        exit(1);
    t0 = now_ns();
    for (long k = 0; k < rounds; k++) {
        sked_time t = INT64_C(1767225600) * SKED_USEC_PER_SEC; /* 2026-01-01 */
        for (int i = 0; i < CHAIN; i++) {
            do {
                if (sked_cron_next(&c, sked_tz_utc(), SKED_DST_ONCE, t, &t))
                    exit(1);
            } while (sked__daycal_has(cal, t / SKED_USEC_PER_SEC / 86400));
            *sum += (long) (t / SKED_USEC_PER_SEC % 1000);
        }
        *last = t;
    }
    t1 = now_ns();
    return (t1 - t0) / ((double) rounds * CHAIN);
}

int main(void)
{
    static const char *const us[] = {
        "FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=1",
        "FREQ=YEARLY;BYMONTH=1;BYDAY=3MO",
        "FREQ=YEARLY;BYMONTH=2;BYDAY=3MO",
        "FREQ=YEARLY;BYMONTH=5;BYDAY=-1MO",
        "DTSTART=20210101;FREQ=YEARLY;BYMONTH=6;BYMONTHDAY=19",
        "FREQ=YEARLY;BYMONTH=7;BYMONTHDAY=4",
        "FREQ=YEARLY;BYMONTH=9;BYDAY=1MO",
        "FREQ=YEARLY;BYMONTH=10;BYDAY=2MO",
        "FREQ=YEARLY;BYMONTH=11;BYMONTHDAY=11",
        "FREQ=YEARLY;BYMONTH=11;BYDAY=4TH",
        "FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=25"};
    static const char *const run[] = {
        "DTSTART=20300101;FREQ=DAILY;UNTIL=20991231"};
    sked__daycal *c, *r;
    double t0, t1;
    long hits = 0;
    int64_t out;
    sked_time last = 0;
    char when[SKED_TIME_STRLEN];

    t0 = now_ns();
    c = build(us, sizeof us / sizeof us[0], SKED__OBSERVED_NEAREST_WEEKDAY);
    t1 = now_ns();
    printf("build US federal (11 rules, 1970-2200): %.2f ms\n",
           (t1 - t0) / 1e6);
    t0 = now_ns();
    for (long i = 0; i < QUERIES; i++)
        hits += sked__daycal_has(c, i % SKED__DAYCAL_NDAYS);
    t1 = now_ns();
    printf("has: %.2f ns/op (%ld hits)\n", (t1 - t0) / QUERIES, hits);
    t0 = now_ns();
    for (long i = 0; i < QUERIES; i++)
        hits += sked__daycal_next_business(c, i % 80000, &out) == 0;
    t1 = now_ns();
    printf("next_business: %.2f ns/op\n", (t1 - t0) / QUERIES);
    r = build(run, 1, SKED__OBSERVED_NONE);
    t0 = now_ns();
    for (long i = 0; i < QUERIES / 10; i++)
        hits += sked__daycal_next_business(r, 21915 + i % 97, &out) == 0;
    t1 = now_ns();
    printf("next_business across 70 years of holidays: %.2f ns/op (%ld)\n",
           (t1 - t0) / (QUERIES / 10), hits);
    sked__daycal_free(r);
    sked__daycal_free(c);
    /* No observed days: dateutil's exrules have none. */
    c = build(sked_bench_holidays, SKED_BENCH_NHOLIDAYS, SKED__OBSERVED_NONE);
    t0 = holiday_next_ns(c, &hits, &last);
    (void) sked_time_format(last, when, sizeof when);
    printf("next 09:00 business day, 20-rule holiday calendar, chained: "
           "%.1f ns (occurrence %d: %s)\n",
           t0, CHAIN, when);
    /* The last occurrence, which the peer's must equal. */
    printf("bench\tholiday\tsked\t20\t%.1f\t%s\n", t0, when);
    sked__daycal_free(c);
    return 0;
}
