/* SPDX-License-Identifier: MIT */
/* Tests of the DST matrix (SPEC 2.2, 12) written out by hand: its text
 * form (every spelling, the canonical names, each conflict and its byte),
 * each policy on the change days of pinned zones (Europe/Paris,
 * America/New_York, Australia/Lord_Howe's 30-minute change, the midnight
 * changes of America/Santiago and Asia/Gaza) for fixed-time and other
 * expressions, next and prev, the marks, and calendar-day intervals,
 * also against a brute force over several zones. */
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

#define SEC SKED_USEC_PER_SEC

static sked_tzdb *pinned;

static sked_time utc(const char *s)
{
    int y, mo, d, h, mi, se;

    if (sscanf(s, "%d-%d-%dT%d:%d:%dZ", &y, &mo, &d, &h, &mi, &se) != 6)
        fail_msg("bad instant in test table: %s", s);
    return (sked__days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se) *
           SEC;
}

static void fmt(sked_time t, char *buf, size_t size)
{
    int64_t s = sked__floor_div(t, SEC), y;
    int mo, d;
    int64_t sod = sked__floor_mod(s, 86400);

    sked__civil_from_days(sked__floor_div(s, 86400), &y, &mo, &d);
    snprintf(buf, size, "%04lld-%02d-%02dT%02d:%02d:%02dZ", (long long) y, mo,
             d, (int) (sod / 3600), (int) (sod / 60 % 60), (int) (sod % 60));
}

static const sked_tz *zone(const char *name)
{
    const sked_tz *tz = NULL;
    sked_error err;

    if (sked_tzdb_get(pinned, name, &tz, &err) != 0)
        fail_msg("zone %s: %s", name, err.msg);
    return tz;
}

static sked_dst dst_of(const char *name)
{
    sked_dst d;
    sked_error err;

    if (sked_dst_parse(name, &d, &err) != 0)
        fail_msg("dst %s: %s", name, err.msg);
    return d;
}

static int setup(void **state)
{
    sked_error err;

    (void) state;
    return sked_tzdb_open(SKED_TEST_DATA "/zoneinfo", &pinned, &err) ? -1 : 0;
}

static int teardown(void **state)
{
    (void) state;
    sked_tzdb_close(pinned);
    return 0;
}

/* ---- the text form */

static void test_dst_parse_spellings(void **state)
{
    static const struct {
        const char *text, *canonical;
        sked_dst want;
    } cases[] = {
        {"once", "once", SKED_DST_ONCE},
        {"cadence", "cadence", SKED_DST_CADENCE},
        {"shift", "once", SKED_DST_ONCE},
        {"first", "once", SKED_DST_ONCE},
        {"shift,first", "once", SKED_DST_ONCE},
        {"first,shift", "once", SKED_DST_ONCE},
        {"last", "shift,last", SKED_DST_SHIFT_LAST},
        {"shift,last", "shift,last", SKED_DST_SHIFT_LAST},
        {"last,shift", "shift,last", SKED_DST_SHIFT_LAST},
        {"both", "shift,both", SKED_DST_SHIFT_BOTH},
        {"both,shift", "shift,both", SKED_DST_SHIFT_BOTH},
        {"shift,both", "shift,both", SKED_DST_SHIFT_BOTH},
        {"skip", "skip,first", SKED_DST_SKIP_FIRST},
        {"skip,first", "skip,first", SKED_DST_SKIP_FIRST},
        {"first,skip", "skip,first", SKED_DST_SKIP_FIRST},
        {"skip,last", "skip,last", SKED_DST_SKIP_LAST},
        {"last,skip", "skip,last", SKED_DST_SKIP_LAST},
        {"skip,both", "skip,both", SKED_DST_SKIP_BOTH},
        {"both,skip", "skip,both", SKED_DST_SKIP_BOTH},
    };

    (void) state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sked_dst d = (sked_dst) 99, back;
        sked_error err;
        if (sked_dst_parse(cases[i].text, &d, &err) != 0)
            fail_msg("\"%s\" rejected: %s", cases[i].text, err.msg);
        assert_int_equal(d, cases[i].want);
        assert_string_equal(sked_dst_name(d), cases[i].canonical);
        /* The canonical name reads back to the same policy. */
        assert_int_equal(sked_dst_parse(sked_dst_name(d), &back, &err), 0);
        assert_int_equal(back, d);
    }
    /* Every value has a distinct canonical name within the size. */
    for (int v = 0; v < SKED_DST_COUNT; v++) {
        assert_true(strlen(sked_dst_name((sked_dst) v)) < SKED_DST_NAME_MAX);
        for (int w = 0; w < v; w++)
            assert_string_not_equal(sked_dst_name((sked_dst) v),
                                    sked_dst_name((sked_dst) w));
    }
    assert_string_equal(sked_dst_name((sked_dst) SKED_DST_COUNT), "unknown");
    assert_string_equal(sked_dst_name((sked_dst) -1), "unknown");
}

static void test_dst_parse_conflicts(void **state)
{
    static const struct {
        const char *text;
        int pos; /* the offending word's byte */
    } cases[] = {
        {"shift,skip", 6},
        {"skip,shift", 5},
        {"skip,skip", 5},
        {"first,last", 6},
        {"both,first", 5},
        {"last,last", 5},
        {"skip,last,both", 10},
        {"last,skip,shift", 10},
        {"once,skip", 5},
        {"skip,once", 5},
        {"once,once", 5},
        {"cadence,both", 8},
        {"first,cadence", 6},
        {"once,cadence", 5},
        {"", 0},
        {",", 0},
        {"skip,", 5},
        {",skip", 0},
        {"skip,,last", 5},
        {"Once", 0},
        {"SKIP", 0},
        {" skip", 0},
        {"skip ,last", 0},
        {"skip,lst", 5},
        {"shift;last", 0},
        {"always", 0},
    };

    (void) state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sked_dst d = SKED_DST_SKIP_BOTH;
        sked_error err;
        if (sked_dst_parse(cases[i].text, &d, &err) != SKED_EINVAL)
            fail_msg("\"%s\" accepted", cases[i].text);
        assert_string_equal(err.field, "dst");
        if (err.pos != cases[i].pos)
            fail_msg("\"%s\": error at byte %d, want %d (%s)", cases[i].text,
                     err.pos, cases[i].pos, err.msg);
        assert_true(err.msg[0] != '\0');
        assert_int_equal(d, SKED_DST_SKIP_BOTH); /* untouched */
    }
    assert_int_equal(sked_dst_parse(NULL, &(sked_dst){0}, NULL), SKED_EINVAL);
}

/* ---- each policy on change days, by hand */

struct dst_case {
    const char *expr, *zone, *dst, *after;
    const char *want[4]; /* consecutive occurrences, UTC */
};

static const struct dst_case dst_cases[] = {
    /* Europe/Paris, 2025-03-30: 02:00-03:00 skipped (at 01:00Z). */
    {"30 2 * * *",
     "Europe/Paris",
     "once",
     "2025-03-29T12:00:00Z",
     {"2025-03-30T01:00:00Z", "2025-03-31T00:30:00Z"}},
    {"30 2 * * *",
     "Europe/Paris",
     "shift,both",
     "2025-03-29T12:00:00Z",
     {"2025-03-30T01:00:00Z", "2025-03-31T00:30:00Z"}},
    {"30 2 * * *",
     "Europe/Paris",
     "skip",
     "2025-03-29T12:00:00Z",
     {"2025-03-31T00:30:00Z", "2025-04-01T00:30:00Z"}},
    {"30 2 * * *",
     "Europe/Paris",
     "skip,both",
     "2025-03-29T12:00:00Z",
     {"2025-03-31T00:30:00Z", "2025-04-01T00:30:00Z"}},
    /* cadence: fixed-time follows once; the explicit cells apply as is. */
    {"30 2 * * *",
     "Europe/Paris",
     "cadence",
     "2025-03-29T12:00:00Z",
     {"2025-03-30T01:00:00Z", "2025-03-31T00:30:00Z"}},
    {"0 30 1-3 * * *",
     "Europe/Paris",
     "shift,last",
     "2025-03-30T00:00:00Z",
     {"2025-03-30T00:30:00Z", "2025-03-30T01:00:00Z", "2025-03-30T01:30:00Z"}},
    {"0 30 1-3 * * *",
     "Europe/Paris",
     "skip,last",
     "2025-03-30T00:00:00Z",
     {"2025-03-30T00:30:00Z", "2025-03-30T01:30:00Z", "2025-03-30T23:30:00Z"}},
    {"0 30 1-3 * * *",
     "Europe/Paris",
     "cadence",
     "2025-03-30T00:00:00Z",
     {"2025-03-30T00:30:00Z", "2025-03-30T01:30:00Z", "2025-03-30T23:30:00Z"}},
    /* Europe/Paris, 2025-10-26: 02:00-03:00 twice, CEST 00:00-01:00Z then
     * CET 01:00-02:00Z. */
    {"30 2 * * *",
     "Europe/Paris",
     "once",
     "2025-10-25T12:00:00Z",
     {"2025-10-26T00:30:00Z", "2025-10-27T01:30:00Z"}},
    {"30 2 * * *",
     "Europe/Paris",
     "skip,first",
     "2025-10-25T12:00:00Z",
     {"2025-10-26T00:30:00Z", "2025-10-27T01:30:00Z"}},
    {"30 2 * * *",
     "Europe/Paris",
     "last",
     "2025-10-25T12:00:00Z",
     {"2025-10-26T01:30:00Z", "2025-10-27T01:30:00Z"}},
    {"30 2 * * *",
     "Europe/Paris",
     "skip,both",
     "2025-10-25T12:00:00Z",
     {"2025-10-26T00:30:00Z", "2025-10-26T01:30:00Z", "2025-10-27T01:30:00Z"}},
    {"30 2 * * *",
     "Europe/Paris",
     "cadence",
     "2025-10-25T12:00:00Z",
     {"2025-10-26T00:30:00Z", "2025-10-27T01:30:00Z"}},
    {"0 30 1-3 * * *",
     "Europe/Paris",
     "once",
     "2025-10-25T23:00:00Z",
     {"2025-10-25T23:30:00Z", "2025-10-26T00:30:00Z", "2025-10-26T02:30:00Z"}},
    {"0 30 1-3 * * *",
     "Europe/Paris",
     "skip,last",
     "2025-10-25T23:00:00Z",
     {"2025-10-25T23:30:00Z", "2025-10-26T01:30:00Z", "2025-10-26T02:30:00Z"}},
    {"0 30 1-3 * * *",
     "Europe/Paris",
     "both",
     "2025-10-25T23:00:00Z",
     {"2025-10-25T23:30:00Z", "2025-10-26T00:30:00Z", "2025-10-26T01:30:00Z",
      "2025-10-26T02:30:00Z"}},
    /* After 02:40 CEST (first pass): "last" goes on with the second pass
     * from 02:00 CET, "first" at 03:00 CET. */
    {"*/15 * * * *",
     "Europe/Paris",
     "once",
     "2025-10-26T00:40:00Z",
     {"2025-10-26T00:45:00Z", "2025-10-26T02:00:00Z"}},
    {"*/15 * * * *",
     "Europe/Paris",
     "last",
     "2025-10-26T00:40:00Z",
     {"2025-10-26T01:00:00Z", "2025-10-26T01:15:00Z"}},
    {"*/15 * * * *",
     "Europe/Paris",
     "cadence",
     "2025-10-26T00:40:00Z",
     {"2025-10-26T00:45:00Z", "2025-10-26T01:00:00Z", "2025-10-26T01:15:00Z"}},
    {"*/15 * * * *",
     "Europe/Paris",
     "skip",
     "2025-03-30T00:40:00Z",
     {"2025-03-30T00:45:00Z", "2025-03-30T01:00:00Z", "2025-03-30T01:15:00Z"}},
    /* Sparse: the next wall time is a year ahead, yet the second passes
     * of the fold just crossed come first. */
    {"0,30 2 26 10 *",
     "Europe/Paris",
     "both",
     "2025-10-26T00:30:00Z",
     {"2025-10-26T01:00:00Z", "2025-10-26T01:30:00Z", "2026-10-26T01:00:00Z"}},
    {"0,30 2 26 10 *",
     "Europe/Paris",
     "skip,last",
     "2025-10-26T00:10:00Z",
     {"2025-10-26T01:00:00Z", "2025-10-26T01:30:00Z", "2026-10-26T01:00:00Z"}},
    /* America/New_York, 2025: 02:00-03:00 skipped on 03-09 (07:00Z),
     * 01:00-02:00 twice on 11-02 (EDT 05:00-06:00Z, EST 06:00-07:00Z). */
    {"30 2 * * *",
     "America/New_York",
     "shift,last",
     "2025-03-08T12:00:00Z",
     {"2025-03-09T07:00:00Z", "2025-03-10T06:30:00Z"}},
    {"30 2 * * *",
     "America/New_York",
     "skip,last",
     "2025-03-08T12:00:00Z",
     {"2025-03-10T06:30:00Z"}},
    {"30 1 * * *",
     "America/New_York",
     "once",
     "2025-11-01T12:00:00Z",
     {"2025-11-02T05:30:00Z", "2025-11-03T06:30:00Z"}},
    {"30 1 * * *",
     "America/New_York",
     "skip,last",
     "2025-11-01T12:00:00Z",
     {"2025-11-02T06:30:00Z", "2025-11-03T06:30:00Z"}},
    {"30 1 * * *",
     "America/New_York",
     "shift,both",
     "2025-11-01T12:00:00Z",
     {"2025-11-02T05:30:00Z", "2025-11-02T06:30:00Z", "2025-11-03T06:30:00Z"}},
    /* Australia/Lord_Howe, 30 minutes: 01:30-02:00 twice on 2024-04-07
     * (+11 14:30-15:00Z, +1030 15:00-15:30Z), 02:00-02:30 skipped on
     * 2024-10-06 (15:30Z). */
    {"45 1 * * *",
     "Australia/Lord_Howe",
     "once",
     "2024-04-06T00:00:00Z",
     {"2024-04-06T14:45:00Z", "2024-04-07T15:15:00Z"}},
    {"45 1 * * *",
     "Australia/Lord_Howe",
     "last",
     "2024-04-06T00:00:00Z",
     {"2024-04-06T15:15:00Z", "2024-04-07T15:15:00Z"}},
    {"45 1 * * *",
     "Australia/Lord_Howe",
     "both",
     "2024-04-06T00:00:00Z",
     {"2024-04-06T14:45:00Z", "2024-04-06T15:15:00Z", "2024-04-07T15:15:00Z"}},
    {"15 2 * * *",
     "Australia/Lord_Howe",
     "once",
     "2024-10-05T00:00:00Z",
     {"2024-10-05T15:30:00Z", "2024-10-06T15:15:00Z"}},
    {"15 2 * * *",
     "Australia/Lord_Howe",
     "skip,both",
     "2024-10-05T00:00:00Z",
     {"2024-10-06T15:15:00Z"}},
    /* America/Santiago, midnight: 00:00-01:00 skipped on 2024-09-08
     * (04:00Z), 23:00-24:00 twice on 2024-04-06 (-03 02:00-03:00Z, -04
     * 03:00-04:00Z). */
    {"0 0 * * *",
     "America/Santiago",
     "once",
     "2024-09-07T12:00:00Z",
     {"2024-09-08T04:00:00Z", "2024-09-09T03:00:00Z"}},
    {"0 0 * * *",
     "America/Santiago",
     "skip",
     "2024-09-07T12:00:00Z",
     {"2024-09-09T03:00:00Z"}},
    {"30 23 * * *",
     "America/Santiago",
     "once",
     "2024-04-06T12:00:00Z",
     {"2024-04-07T02:30:00Z", "2024-04-08T03:30:00Z"}},
    {"30 23 * * *",
     "America/Santiago",
     "skip,last",
     "2024-04-06T12:00:00Z",
     {"2024-04-07T03:30:00Z", "2024-04-08T03:30:00Z"}},
    {"30 23 * * *",
     "America/Santiago",
     "both",
     "2024-04-06T12:00:00Z",
     {"2024-04-07T02:30:00Z", "2024-04-07T03:30:00Z", "2024-04-08T03:30:00Z"}},
    /* Asia/Gaza, midnight in 2019: 00:00-01:00 skipped on 03-29
     * (03-28T22:00Z), 23:00-24:00 twice on 10-25 (EEST 20:00-21:00Z, EET
     * 21:00-22:00Z). */
    {"0 0 * * *",
     "Asia/Gaza",
     "shift,last",
     "2019-03-28T12:00:00Z",
     {"2019-03-28T22:00:00Z", "2019-03-29T21:00:00Z"}},
    {"0 0 * * *",
     "Asia/Gaza",
     "skip,first",
     "2019-03-28T12:00:00Z",
     {"2019-03-29T21:00:00Z"}},
    {"30 23 * * *",
     "Asia/Gaza",
     "once",
     "2019-10-25T12:00:00Z",
     {"2019-10-25T20:30:00Z", "2019-10-26T21:30:00Z"}},
    {"30 23 * * *",
     "Asia/Gaza",
     "last",
     "2019-10-25T12:00:00Z",
     {"2019-10-25T21:30:00Z", "2019-10-26T21:30:00Z"}},
    {"*/20 23 * * *",
     "Asia/Gaza",
     "skip,both",
     "2019-10-25T19:50:00Z",
     {"2019-10-25T20:00:00Z", "2019-10-25T20:20:00Z", "2019-10-25T20:40:00Z",
      "2019-10-25T21:00:00Z"}},
};

static void test_dst_policies_by_hand(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof dst_cases / sizeof dst_cases[0]; i++) {
        const struct dst_case *k = &dst_cases[i];
        sked_cron c;
        sked_error err;
        const sked_tz *tz = zone(k->zone);
        sked_dst d = dst_of(k->dst);
        sked_time t = utc(k->after), got, back;
        char g[48];

        assert_int_equal(sked_cron_parse(k->expr, &c, &err), 0);
        for (int n = 0; n < 4 && k->want[n]; n++) {
            int rc = sked_cron_next(&c, tz, d, t, &got);
            fmt(got, g, sizeof g);
            if (rc != 0 || got != utc(k->want[n]))
                fail_msg("%s in %s (%s) after %s #%d: got %s (rc %d), want %s",
                         k->expr, k->zone, k->dst, k->after, n, g, rc,
                         k->want[n]);
            /* prev mirrors next over the same occurrences. */
            if (n > 0) {
                assert_int_equal(sked_cron_prev(&c, tz, d, got, &back), 0);
                assert_int_equal(back, t);
            }
            t = got;
        }
    }
}

/* Catch-up asks prev from "now", which may lie inside a fold. */
static void test_dst_prev_from_inside_a_fold(void **state)
{
    const sked_tz *paris = zone("Europe/Paris");
    sked_cron c;
    sked_time got;

    (void) state;
    assert_int_equal(sked_cron_parse("*/15 * * * *", &c, NULL), 0);
    /* Now 02:20 CET (second pass): under once, 02:45 CEST fired last. */
    assert_int_equal(sked_cron_prev(&c, paris, SKED_DST_ONCE,
                                    utc("2025-10-26T01:20:00Z"), &got),
                     0);
    assert_int_equal(got, utc("2025-10-26T00:45:00Z"));
    /* Under last: 02:15 CET. */
    assert_int_equal(sked_cron_prev(&c, paris, SKED_DST_SKIP_LAST,
                                    utc("2025-10-26T01:20:00Z"), &got),
                     0);
    assert_int_equal(got, utc("2025-10-26T01:15:00Z"));
    /* Now 02:20 CEST (first pass): under last, 01:45 CEST fired last. */
    assert_int_equal(sked_cron_prev(&c, paris, SKED_DST_SHIFT_LAST,
                                    utc("2025-10-26T00:20:00Z"), &got),
                     0);
    assert_int_equal(got, utc("2025-10-25T23:45:00Z"));
    /* The wall time before 02:10 CET is a year back, yet the first pass
     * of 02:30 CEST came after it. */
    assert_int_equal(sked_cron_parse("30 2 26 10 *", &c, NULL), 0);
    assert_int_equal(sked_cron_prev(&c, paris, SKED_DST_ONCE,
                                    utc("2025-10-26T01:10:00Z"), &got),
                     0);
    assert_int_equal(got, utc("2025-10-26T00:30:00Z"));
    assert_int_equal(sked_cron_prev(&c, paris, SKED_DST_SKIP_BOTH,
                                    utc("2025-10-26T01:10:00Z"), &got),
                     0);
    assert_int_equal(got, utc("2025-10-26T00:30:00Z"));
}

static void test_dst_marks(void **state)
{
    static const struct {
        const char *expr, *dst, *after, *at;
        sked_occ_mark mark;
    } cases[] = {
        {"*/15 * * * *", "once", "2025-03-30T00:50:00Z", "2025-03-30T01:00:00Z",
         SKED_OCC_SHIFTED},
        {"*/15 * * * *", "skip", "2025-03-30T00:50:00Z", "2025-03-30T01:00:00Z",
         SKED_OCC_NORMAL},
        {"30 2 * * *", "both", "2025-10-25T12:00:00Z", "2025-10-26T00:30:00Z",
         SKED_OCC_FIRST_PASS},
        {"30 2 * * *", "both", "2025-10-26T00:30:00Z", "2025-10-26T01:30:00Z",
         SKED_OCC_SECOND_PASS},
        {"30 2 * * *", "last", "2025-10-25T12:00:00Z", "2025-10-26T01:30:00Z",
         SKED_OCC_SECOND_PASS},
        {"30 2 * * *", "skip", "2025-10-25T12:00:00Z", "2025-10-26T00:30:00Z",
         SKED_OCC_FIRST_PASS},
        {"30 2 * * *", "skip,last", "2025-10-26T01:30:00Z",
         "2025-10-27T01:30:00Z", SKED_OCC_NORMAL},
    };
    const sked_tz *paris = zone("Europe/Paris");

    (void) state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sked_cron c;
        sked_occurrence occ;
        assert_int_equal(sked_cron_parse(cases[i].expr, &c, NULL), 0);
        assert_int_equal(sked_cron_next_occurrence(&c, paris,
                                                   dst_of(cases[i].dst),
                                                   utc(cases[i].after), &occ),
                         0);
        assert_int_equal(occ.at, utc(cases[i].at));
        if (occ.mark != cases[i].mark)
            fail_msg("%s (%s) at %s: mark %d, want %d", cases[i].expr,
                     cases[i].dst, cases[i].at, (int) occ.mark,
                     (int) cases[i].mark);
    }
}

static void test_dst_out_of_range(void **state)
{
    sked_cron c;
    sked_time got;
    sked_occurrence occ;

    (void) state;
    assert_int_equal(sked_cron_parse("0 0 * * *", &c, NULL), 0);
    assert_int_equal(
        sked_cron_next(&c, sked_tz_utc(), (sked_dst) SKED_DST_COUNT, 0, &got),
        SKED_EINVAL);
    assert_int_equal(
        sked_cron_next_occurrence(&c, sked_tz_utc(), (sked_dst) -1, 0, &occ),
        SKED_EINVAL);
    assert_int_equal(
        sked_cron_prev(&c, sked_tz_utc(), (sked_dst) 7, SEC * 86400, &got),
        SKED_EINVAL);
}

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
        cmocka_unit_test(test_dst_parse_spellings),
        cmocka_unit_test(test_dst_parse_conflicts),
        cmocka_unit_test(test_dst_policies_by_hand),
        cmocka_unit_test(test_dst_prev_from_inside_a_fold),
        cmocka_unit_test(test_dst_marks),
        cmocka_unit_test(test_dst_out_of_range),
        cmocka_unit_test(test_every_days_by_hand),
        cmocka_unit_test(test_every_days_bounds),
        cmocka_unit_test(test_every_days_against_brute_force),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
