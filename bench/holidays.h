/* SPDX-License-Identifier: MIT */
/* The twenty holiday rules the calendar benchmarks compare on: sked's
 * (bench_daycal.c, bench_schedcal.c) and python3-dateutil's
 * (bench/peers/holiday_dateutil_bench.py, schedcal_dateutil_bench.py,
 * which read the rules from this file: one X("...") per rule).
 * SKED_BENCH_HOLIDAYS(X) expands X once per rule, in order. */
#ifndef SKED_BENCH_HOLIDAYS_H
#define SKED_BENCH_HOLIDAYS_H

#define SKED_BENCH_HOLIDAYS(X)                                                 \
    X("FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=1")                                    \
    X("FREQ=YEARLY;BYMONTH=1;BYDAY=3MO")                                       \
    X("FREQ=YEARLY;BYMONTH=2;BYDAY=3MO")                                       \
    X("FREQ=YEARLY;BYMONTH=5;BYDAY=-1MO")                                      \
    X("FREQ=YEARLY;BYMONTH=6;BYMONTHDAY=19")                                   \
    X("FREQ=YEARLY;BYMONTH=7;BYMONTHDAY=4")                                    \
    X("FREQ=YEARLY;BYMONTH=9;BYDAY=1MO")                                       \
    X("FREQ=YEARLY;BYMONTH=10;BYDAY=2MO")                                      \
    X("FREQ=YEARLY;BYMONTH=11;BYMONTHDAY=11")                                  \
    X("FREQ=YEARLY;BYMONTH=11;BYDAY=4TH")                                      \
    X("FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=25")                                  \
    X("FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=24")                                  \
    X("FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=31")                                  \
    X("FREQ=YEARLY;BYMONTH=11;BYDAY=4FR")                                      \
    X("FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=17")                                   \
    X("FREQ=YEARLY;BYMONTH=4;BYMONTHDAY=15")                                   \
    X("FREQ=YEARLY;BYMONTH=8;BYDAY=1MO")                                       \
    X("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=14")                                   \
    X("FREQ=YEARLY;BYMONTH=10;BYMONTHDAY=31")                                  \
    X("FREQ=YEARLY;BYMONTH=5;BYDAY=2SU")

/* The rules as an array of strings. */
#define SKED_BENCH_HOLIDAY_STR(rule) rule,
static const char *const sked_bench_holidays[] = {
    SKED_BENCH_HOLIDAYS(SKED_BENCH_HOLIDAY_STR)};
#define SKED_BENCH_NHOLIDAYS                                                   \
    (sizeof sked_bench_holidays / sizeof sked_bench_holidays[0])

#endif
