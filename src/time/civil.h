/* SPDX-License-Identifier: MIT */
/* Proleptic Gregorian calendar arithmetic on day numbers.
 *
 * A day number counts days since 1970-01-01 (day 0), negative before.
 * The conversions are Howard Hinnant's "days_from_civil" and
 * "civil_from_days" algorithms: exact for every year an int32 holds, no
 * loops, no tables. Inline because the cron search calls them per step. */
#ifndef SKED_TIME_CIVIL_H
#define SKED_TIME_CIVIL_H

#include <stdint.h>

/* Return the day number of Y-M-D (M 1..12, D 1..31, not checked). */
static inline int64_t sked__days_from_civil(int64_t y, int m, int d)
{
    int64_t era, yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* Split day number Z into *y, *m (1..12) and *d (1..31). */
static inline void sked__civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
    int64_t era, doe, yoe, doy, mp;

    z += 719468;
    era = (z >= 0 ? z : z - 146096) / 146097;
    doe = z - era * 146097;
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    *d = (int) (doy - (153 * mp + 2) / 5 + 1);
    *m = (int) (mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

/* Return the weekday of day number Z, 0 = Sunday. */
static inline int sked__weekday_from_days(int64_t z)
{
    return (int) (z >= -4 ? (z + 4) % 7 : (z + 5) % 7 + 6);
}

static inline int sked__is_leap(int64_t y)
{
    return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

/* Return the number of days in month M (1..12) of year Y. */
static inline int sked__days_in_month(int64_t y, int m)
{
    static const int8_t days[12] = {31, 28, 31, 30, 31, 30,
                                    31, 31, 30, 31, 30, 31};
    return m == 2 ? 28 + sked__is_leap(y) : days[m - 1];
}

/* Floor division and modulo for possibly negative A (B > 0). */
static inline int64_t sked__floor_div(int64_t a, int64_t b)
{
    return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

static inline int64_t sked__floor_mod(int64_t a, int64_t b)
{
    return a - sked__floor_div(a, b) * b;
}

#endif
