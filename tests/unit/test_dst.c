/* SPDX-License-Identifier: MIT */
/* Tests of the DST matrix (SPEC 2.2, 12) written out by hand: its text
 * form (every spelling, the canonical names, each conflict and its byte),
 * each policy on the change days of pinned zones (Europe/Paris,
 * America/New_York, Australia/Lord_Howe's 30-minute change, the midnight
 * changes of America/Santiago and Asia/Gaza) for fixed-time and other
 * expressions, next and prev, and the marks. Calendar-day intervals:
 * test_every_days.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sked/sked.h"
#include "time/civil.h"

#include "zone_test.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dst_parse_spellings),
        cmocka_unit_test(test_dst_parse_conflicts),
        cmocka_unit_test(test_dst_policies_by_hand),
        cmocka_unit_test(test_dst_prev_from_inside_a_fold),
        cmocka_unit_test(test_dst_marks),
        cmocka_unit_test(test_dst_out_of_range),
    };

    return cmocka_run_group_tests(tests, zone_setup, zone_teardown);
}
