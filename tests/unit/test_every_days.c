/* SPDX-License-Identifier: MIT */
/* Tests of calendar-day intervals (SPEC 12, every: Nd with calendar_days):
 * the anchor's local time every N days across DST changes under each
 * policy of the DST matrix, written out by hand in pinned zones, their
 * bounds, and against a brute force that maps each wall time with the
 * zone's offsets alone (sked_tz_lookup), over nine zones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cron/every_days.h"
#include "sked/sked.h"
#include "time/civil.h"

#include "zone_test.h"

/* ---- calendar-day intervals */

static void test_every_days_by_hand(void **state)
{
    static const struct {
        const char *zone, *anchor;
        int days;
        const char *dst, *after, *want[3];
    } cases[] = {
        /* 09:00 CET stays 09:00 across the spring change (a duration of
         * 24 h would give 10:00 CEST, 08:00Z). */
        {"Europe/Paris",
         "2025-03-29T08:00:00Z",
         1,
         "once",
         "2025-03-29T08:00:00Z",
         {"2025-03-30T07:00:00Z", "2025-03-31T07:00:00Z"}},
        {"Europe/Paris",
         "2025-10-25T07:00:00Z",
         1,
         "skip,both",
         "2025-10-25T07:00:00Z",
         {"2025-10-26T08:00:00Z", "2025-10-27T08:00:00Z"}},
        /* 02:30 CET, in the gap the next day. */
        {"Europe/Paris",
         "2025-03-29T01:30:00Z",
         1,
         "once",
         "2025-03-29T01:30:00Z",
         {"2025-03-30T01:00:00Z", "2025-03-31T00:30:00Z"}},
        {"Europe/Paris",
         "2025-03-29T01:30:00Z",
         1,
         "skip",
         "2025-03-29T01:30:00Z",
         {"2025-03-31T00:30:00Z", "2025-04-01T00:30:00Z"}},
        /* 02:30 CEST, repeated the next day. cadence: one time of day,
         * so once. */
        {"Europe/Paris",
         "2025-10-25T00:30:00Z",
         1,
         "cadence",
         "2025-10-25T00:30:00Z",
         {"2025-10-26T00:30:00Z", "2025-10-27T01:30:00Z"}},
        {"Europe/Paris",
         "2025-10-25T00:30:00Z",
         1,
         "last",
         "2025-10-25T00:30:00Z",
         {"2025-10-26T01:30:00Z", "2025-10-27T01:30:00Z"}},
        {"Europe/Paris",
         "2025-10-25T00:30:00Z",
         1,
         "both",
         "2025-10-25T00:30:00Z",
         {"2025-10-26T00:30:00Z", "2025-10-26T01:30:00Z",
          "2025-10-27T01:30:00Z"}},
        /* A week: 7 days, from a Monday 09:00 EST to Mondays 09:00 EDT. */
        {"America/New_York",
         "2025-03-03T14:00:00Z",
         7,
         "once",
         "2025-03-03T14:00:00Z",
         {"2025-03-10T13:00:00Z", "2025-03-17T13:00:00Z"}},
        /* Midnight in Santiago, every 2 days: 2024-09-08 00:00 is in the
         * gap. */
        {"America/Santiago",
         "2024-09-06T04:00:00Z",
         2,
         "once",
         "2024-09-06T04:00:00Z",
         {"2024-09-08T04:00:00Z", "2024-09-10T03:00:00Z"}},
        {"America/Santiago",
         "2024-09-06T04:00:00Z",
         2,
         "skip",
         "2024-09-06T04:00:00Z",
         {"2024-09-10T03:00:00Z"}},
        /* A 366-day step. */
        {"Australia/Lord_Howe",
         "2023-04-06T15:15:00Z",
         366,
         "last",
         "2023-04-06T15:15:00Z",
         {"2024-04-06T15:15:00Z"}},
    };

    (void) state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const sked_tz *tz = zone(cases[i].zone);
        sked_dst d = dst_of(cases[i].dst);
        sked_time anchor = utc(cases[i].anchor), t = utc(cases[i].after);
        sked_occurrence occ;
        sked_time back;
        char g[48];
        for (int n = 0; n < 3 && cases[i].want[n]; n++) {
            int rc =
                sked__every_days_next(anchor, cases[i].days, tz, d, t, &occ);
            fmt(occ.at, g, sizeof g);
            if (rc != 0 || occ.at != utc(cases[i].want[n]))
                fail_msg("every %dd from %s in %s (%s) #%d: got %s (rc %d), "
                         "want %s",
                         cases[i].days, cases[i].anchor, cases[i].zone,
                         cases[i].dst, n, g, rc, cases[i].want[n]);
            if (n > 0 && (sked__every_days_prev(anchor, cases[i].days, tz, d,
                                                occ.at, &back) != 0 ||
                          back != t))
                fail_msg("every %dd from %s in %s (%s): prev before #%d",
                         cases[i].days, cases[i].anchor, cases[i].zone,
                         cases[i].dst, n);
            t = occ.at;
        }
    }
}

static void test_every_days_bounds(void **state)
{
    const sked_tz *paris = zone("Europe/Paris");
    sked_time a = utc("2025-01-01T08:00:00Z"), got;
    sked_occurrence occ;

    (void) state;
    assert_int_equal(sked__every_days_next(a, 0, paris, 0, a, &occ),
                     SKED_EINVAL);
    assert_int_equal(sked__every_days_next(a, 367, paris, 0, a, &occ),
                     SKED_EINVAL);
    assert_int_equal(sked__every_days_next(a, 1, NULL, 0, a, &occ),
                     SKED_EINVAL);
    assert_int_equal(sked__every_days_next(a, 1, paris, (sked_dst) 9, a, &occ),
                     SKED_EINVAL);
    /* The anchor itself is no occurrence (k >= 1). */
    assert_int_equal(sked__every_days_next(a, 1, paris, 0, a - 1, &occ), 0);
    assert_int_equal(occ.at, utc("2025-01-02T08:00:00Z"));
    assert_int_equal(sked__every_days_prev(a, 1, paris, 0, occ.at, &got),
                     SKED_ENOTFOUND);
    /* Near the end of time: no occurrence past SKED_TIME_MAX. */
    assert_int_equal(sked__every_days_next(a, 366, paris, 0,
                                           SKED_TIME_MAX - 86400 * SEC, &occ),
                     SKED_ENOTFOUND);
}

/* Store the instants whose local time in TZ is WALL, by sampling the
 * offsets around it; return their count (0: a gap; then *gap_end). */
static int brute_instants(const sked_tz *tz, int64_t wall, int64_t *u,
                          int64_t *gap_end)
{
    int n = 0;
    int64_t lo = wall - 27 * 3600, prev_u = lo;
    sked_tz_info info;

    for (int64_t s = lo; s <= wall + 27 * 3600; s += 1800) {
        assert_int_equal(sked_tz_lookup(tz, s * SEC, &info), 0);
        int64_t cand = wall - info.utoff;
        sked_tz_info at;
        bool dup = false;
        assert_int_equal(sked_tz_lookup(tz, cand * SEC, &at), 0);
        for (int j = 0; j < n; j++)
            dup = dup || u[j] == cand;
        if (at.utoff == info.utoff && !dup && n < 4) {
            int j = n++;
            while (j > 0 && u[j - 1] > cand) {
                u[j] = u[j - 1];
                j--;
            }
            u[j] = cand;
        }
    }
    if (n > 0)
        return n;
    /* The first second whose local time passes WALL: the gap's end. */
    for (int64_t s = lo;; s += 1800) {
        assert_int_equal(sked_tz_lookup(tz, s * SEC, &info), 0);
        if (s + info.utoff > wall) {
            int64_t a = prev_u, b = s;
            while (b - a > 1) {
                int64_t mid = a + (b - a) / 2;
                assert_int_equal(sked_tz_lookup(tz, mid * SEC, &info), 0);
                if (mid + info.utoff > wall)
                    b = mid;
                else
                    a = mid;
            }
            *gap_end = b;
            return 0;
        }
        prev_u = s;
    }
}

#define EVERY_MAX 160

/* Compare sked__every_days_next/prev, chained, with the definition. */
static int check_every(const char *zname, sked_time anchor, int days, int *gaps,
                       int *folds)
{
    const sked_tz *tz = zone(zname);
    struct {
        int64_t first, last, gap_end;
        int k;
    } w[EVERY_MAX];
    sked_tz_info info;
    int compared = 0;

    assert_int_equal(sked_tz_lookup(tz, anchor, &info), 0);
    for (int k = 1; k <= EVERY_MAX; k++) {
        int64_t wall = anchor / SEC + info.utoff + (int64_t) k * days * 86400;
        int64_t u[4], g = 0;
        int n = brute_instants(tz, wall, u, &g);
        w[k - 1].k = n;
        w[k - 1].first = n ? u[0] : g;
        w[k - 1].last = n ? u[n - 1] : g;
        *gaps += n == 0;
        *folds += n > 1;
    }
    for (int d = 0; d < SKED_DST_COUNT; d++) {
        static const int shift[] = {1, 1, 1, 1, 0, 0, 0};
        static const int fold[] = {0, 0, 1, 2, 0, 1, 2}; /* cadence: once */
        int64_t e[2 * EVERY_MAX];
        int n = 0;
        for (int k = 0; k < EVERY_MAX; k++) {
            if (w[k].k == 0 && shift[d])
                e[n++] = w[k].first;
            if (w[k].k == 1)
                e[n++] = w[k].first;
            if (w[k].k > 1 && fold[d] != 1)
                e[n++] = w[k].first;
            if (w[k].k > 1 && fold[d] != 0)
                e[n++] = w[k].last;
        }
        sked_time t = anchor, got;
        sked_occurrence occ;
        for (int i = 0; i < n; i++, compared++) {
            assert_int_equal(
                sked__every_days_next(anchor, days, tz, (sked_dst) d, t, &occ),
                0);
            if (occ.at != e[i] * SEC) {
                char g[48], x[48];
                fmt(occ.at, g, sizeof g);
                fmt(e[i] * SEC, x, sizeof x);
                fail_msg("every %dd in %s (%s) #%d: got %s, want %s", days,
                         zname, sked_dst_name((sked_dst) d), i, g, x);
            }
            t = occ.at;
        }
        for (int i = n - 1; i >= 0; i--, compared++) {
            assert_int_equal(sked__every_days_prev(anchor, days, tz,
                                                   (sked_dst) d, t + 1, &got),
                             0);
            assert_int_equal(got, e[i] * SEC);
            t = got - 1;
        }
        assert_int_equal(sked__every_days_prev(anchor, days, tz, (sked_dst) d,
                                               e[0] * SEC, &got),
                         SKED_ENOTFOUND);
    }
    return compared;
}

static void test_every_days_against_brute_force(void **state)
{
    static const char *const zones[] = {
        "Europe/Paris",     "America/New_York", "Australia/Lord_Howe",
        "America/Santiago", "Asia/Gaza",        "Antarctica/Troll",
        "Pacific/Apia",     "Pacific/Chatham",  "Africa/Casablanca",
    };
    static const int steps[] = {1, 1, 2, 3, 7, 14, 30, 366};
    uint64_t r = 0x9e3779b97f4a7c15u;
    int compared = 0, gaps = 0, folds = 0;

    (void) state;
    for (size_t z = 0; z < sizeof zones / sizeof zones[0]; z++)
        for (int trial = 0; trial < 40; trial++) {
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            /* 2000 .. 2030, at a local time of the night's changes. */
            static const int tods[] = {0,    1800, 3600, 5400, 6300,
                                       7200, 8100, 9000, 84600};
            int64_t day = 10957 + (int64_t) (r % (30u * 365));
            int64_t tod = tods[(r >> 24) % (sizeof tods / sizeof tods[0])];
            int days = steps[(r >> 40) % (sizeof steps / sizeof steps[0])];
            sked_tz_info info;
            assert_int_equal(sked_tz_lookup(zone(zones[z]),
                                            (day * 86400 + 43200) * SEC, &info),
                             0);
            compared +=
                check_every(zones[z], (day * 86400 + tod - info.utoff) * SEC,
                            days, &gaps, &folds);
        }
    print_message("every days: %d answers compared, %d gaps, %d folds\n",
                  compared, gaps, folds);
    assert_true(compared > 10000);
    assert_true(gaps > 0 && folds > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_days_by_hand),
        cmocka_unit_test(test_every_days_bounds),
        cmocka_unit_test(test_every_days_against_brute_force),
    };

    return cmocka_run_group_tests(tests, zone_setup, zone_teardown);
}
