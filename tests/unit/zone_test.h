/* SPDX-License-Identifier: MIT */
/* What the tests of occurrences in zones share (test_cron.c, test_dst.c,
 * test_every_days.c): instants written as RFC 3339 UTC, independent of
 * the time module under test elsewhere, and the pinned tz database of
 * tests/data/zoneinfo, opened by zone_setup. Include after cmocka.h. */
#ifndef SKED_TESTS_ZONE_TEST_H
#define SKED_TESTS_ZONE_TEST_H

#include <stdio.h>
#include <string.h>

#include "sked/sked.h"
#include "time/civil.h"

#define SEC SKED_USEC_PER_SEC

static sked_tzdb *pinned;

static inline sked_time utc(const char *s)
{
    int y, mo, d, h, mi, se;

    if (sscanf(s, "%d-%d-%dT%d:%d:%dZ", &y, &mo, &d, &h, &mi, &se) != 6)
        fail_msg("bad instant in test table: %s", s);
    return (sked__days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se) *
           SEC;
}

static inline void fmt(sked_time t, char *buf, size_t size)
{
    int64_t s = sked__floor_div(t, SEC), y;
    int mo, d;
    int64_t sod = sked__floor_mod(s, 86400);

    sked__civil_from_days(sked__floor_div(s, 86400), &y, &mo, &d);
    snprintf(buf, size, "%04lld-%02d-%02dT%02d:%02d:%02dZ", (long long) y, mo,
             d, (int) (sod / 3600), (int) (sod / 60 % 60), (int) (sod % 60));
}

static inline const sked_tz *zone(const char *name)
{
    const sked_tz *tz = NULL;
    sked_error err;

    if (strcmp(name, "UTC") == 0)
        return sked_tz_utc();
    if (sked_tzdb_get(pinned, name, &tz, &err) != 0)
        fail_msg("zone %s: %s", name, err.msg);
    return tz;
}

static inline sked_dst dst_of(const char *name)
{
    sked_dst d;
    sked_error err;

    if (sked_dst_parse(name, &d, &err) != 0)
        fail_msg("dst %s: %s", name, err.msg);
    return d;
}

static inline int zone_setup(void **state)
{
    sked_error err;

    (void) state;
    return sked_tzdb_open(SKED_TEST_DATA "/zoneinfo", &pinned, &err) ? -1 : 0;
}

static inline int zone_teardown(void **state)
{
    (void) state;
    sked_tzdb_close(pinned);
    return 0;
}

#endif
