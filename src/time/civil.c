/* SPDX-License-Identifier: MIT */
/* Wall-clock readings split into calendar fields and back (sked_civil).
 *
 * A reading is a sked_time counted as if the wall clock were UTC, so the
 * same code serves UTC instants and local times. Days are split with
 * floor division, so instants before 1970 split like any other. The
 * calendar arithmetic itself is in civil.h. */
#include "time/civil.h"

#include "sked/time.h"

#define SECS_PER_DAY INT64_C(86400)

void sked_civil_from_time(sked_time t, sked_civil *out)
{
    int64_t secs = sked__floor_div(t, SKED_USEC_PER_SEC);
    int64_t days = sked__floor_div(secs, SECS_PER_DAY);
    int64_t sod = sked__floor_mod(secs, SECS_PER_DAY);
    int64_t y;
    int m, d;

    if (!out)
        return;
    sked__civil_from_days(days, &y, &m, &d);
    out->year = (int32_t) y;
    out->month = m;
    out->day = d;
    out->hour = (int32_t) (sod / 3600);
    out->minute = (int32_t) (sod / 60 % 60);
    out->second = (int32_t) (sod % 60);
    out->usec = (int32_t) sked__floor_mod(t, SKED_USEC_PER_SEC);
    out->wday = sked__weekday_from_days(days);
}

sked_time sked_civil_to_time(const sked_civil *c)
{
    int64_t days, secs;

    if (!c)
        return 0;
    days = sked__days_from_civil(c->year, c->month, c->day);
    /* Unchecked fields may be absurd: wrap in unsigned arithmetic rather
     * than overflow (undefined); in-range fields never come near. */
    secs = (int64_t) ((uint64_t) days * (uint64_t) SECS_PER_DAY +
                      (uint64_t) ((int64_t) c->hour * 3600 +
                                  (int64_t) c->minute * 60 + c->second));
    return (int64_t) ((uint64_t) secs * (uint64_t) SKED_USEC_PER_SEC +
                      (uint64_t) (int64_t) c->usec);
}
