/* SPDX-License-Identifier: MIT */
/* Tests of the cron engine: the parser (every syntax form and every
 * error), the calendar search in UTC, the DST days of SPEC 2.2 written
 * out by hand in six zones, and, over every zone of the system database,
 * next/prev checked against a brute-force reading of SPEC 2.2 built on
 * sked_tz_local_to_utc. Pinned zones come from tests/data/zoneinfo. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cron/cron.h"
#include "sked/sked.h"
#include "time/civil.h"

#include "zone_test.h"

#define assert_time_equal(a, b) assert_time_equal_at(a, b, __FILE__, __LINE__)

static void assert_time_equal_at(sked_time got, sked_time want,
                                 const char *file, int line)
{
    char g[48], w[48];

    if (got == want)
        return;
    fmt(got, g, sizeof g);
    fmt(want, w, sizeof w);
    fail_msg("%s:%d: got %s, want %s", file, line, g, w);
}

static sked_cron parse_ok(const char *expr)
{
    sked_cron c;
    sked_error err;

    if (sked_cron_parse(expr, &c, &err) != 0)
        fail_msg("\"%s\" rejected: %s: %s (byte %d)", expr, err.field, err.msg,
                 err.pos);
    return c;
}

/* ---- parsing: every syntax form */

struct next_case {
    const char *expr;
    const char *zone;
    const char *after;
    const char *want[4]; /* consecutive occurrences, UTC */
};

static void check_next_table(const struct next_case *cases, size_t n,
                             sked_dst dst)
{
    for (size_t i = 0; i < n; i++) {
        sked_cron c = parse_ok(cases[i].expr);
        const sked_tz *tz = zone(cases[i].zone);
        sked_time t = utc(cases[i].after), got, back;
        for (int k = 0; k < 4 && cases[i].want[k]; k++) {
            int rc = sked_cron_next(&c, tz, dst, t, &got);
            if (rc != 0)
                fail_msg("%s in %s: next #%d failed %d", cases[i].expr,
                         cases[i].zone, k, rc);
            if (got != utc(cases[i].want[k])) {
                char g[48];
                fmt(got, g, sizeof g);
                fail_msg("%s in %s (%s) after %s #%d: got %s, want %s",
                         cases[i].expr, cases[i].zone, sked_dst_name(dst),
                         cases[i].after, k, g, cases[i].want[k]);
            }
            /* prev is the mirror of next over the same occurrences. */
            if (k > 0) {
                assert_int_equal(sked_cron_prev(&c, tz, dst, got, &back), 0);
                assert_time_equal(back, t);
            }
            t = got;
        }
    }
}

static void test_syntax_forms(void **state)
{
    /* clang-format off */
    static const struct next_case cases[] = {
        {"* * * * *", "UTC", "2025-01-01T00:00:00Z", {"2025-01-01T00:01:00Z", "2025-01-01T00:02:00Z"}},
        {"*/5 * * * *", "UTC", "2025-01-01T00:03:10Z", {"2025-01-01T00:05:00Z", "2025-01-01T00:10:00Z"}},
        {"7/20 * * * *", "UTC", "2025-01-01T00:00:00Z", {"2025-01-01T00:07:00Z", "2025-01-01T00:27:00Z", "2025-01-01T00:47:00Z", "2025-01-01T01:07:00Z"}},
        {"10-20/5 3 * * *", "UTC", "2025-01-01T00:00:00Z", {"2025-01-01T03:10:00Z", "2025-01-01T03:15:00Z", "2025-01-01T03:20:00Z", "2025-01-02T03:10:00Z"}},
        {"0 0 1,15 * *", "UTC", "2025-01-02T00:00:00Z", {"2025-01-15T00:00:00Z", "2025-02-01T00:00:00Z"}},
        {"0 12 * JAN,jul *", "UTC", "2025-01-31T13:00:00Z", {"2025-07-01T12:00:00Z"}},
        {"0 12 * * mon-WED",
         "UTC",
         "2025-01-01T13:00:00Z", /* Wed */
         {"2025-01-06T12:00:00Z", "2025-01-07T12:00:00Z",
          "2025-01-08T12:00:00Z", "2025-01-13T12:00:00Z"}},
        {"0 0 * * 7", "UTC", "2025-01-01T00:00:00Z", {"2025-01-05T00:00:00Z"}},
        {"0 0 * * 0,7", "UTC", "2025-01-01T00:00:00Z", {"2025-01-05T00:00:00Z", "2025-01-12T00:00:00Z"}},
        {"0 0 * * FRI-SUN", "UTC", "2025-01-01T00:00:00Z", {"2025-01-03T00:00:00Z", "2025-01-04T00:00:00Z", "2025-01-05T00:00:00Z", "2025-01-10T00:00:00Z"}},
        {"0 0 * * 5-0", "UTC", "2025-01-05T12:00:00Z", {"2025-01-10T00:00:00Z", "2025-01-11T00:00:00Z", "2025-01-12T00:00:00Z"}},
        {"0 0 * * 5-7", "UTC", "2025-01-05T12:00:00Z", {"2025-01-10T00:00:00Z"}},
        /* SUN-SUN is Sunday alone; "a/n" in day-of-week runs to 7, Sunday. */
        {"0 0 * * 0-0", "UTC", "2025-01-01T00:00:00Z", {"2025-01-05T00:00:00Z", "2025-01-12T00:00:00Z"}},
        {"0 0 * * SUN-SUN", "UTC", "2025-01-01T00:00:00Z", {"2025-01-05T00:00:00Z", "2025-01-12T00:00:00Z"}},
        {"0 0 * * 5/1", "UTC", "2025-01-01T00:00:00Z", {"2025-01-03T00:00:00Z", "2025-01-04T00:00:00Z", "2025-01-05T00:00:00Z", "2025-01-10T00:00:00Z"}},
        {"0 0 * * 1/3", "UTC", "2025-01-01T00:00:00Z", {"2025-01-02T00:00:00Z", "2025-01-05T00:00:00Z", "2025-01-06T00:00:00Z", "2025-01-09T00:00:00Z"}},
        {"0 0 1-5,3 * *", "UTC", "2025-01-04T12:00:00Z", {"2025-01-05T00:00:00Z", "2025-02-01T00:00:00Z"}},
        {"0 0 ? * 1", "UTC", "2025-01-01T00:00:00Z", {"2025-01-06T00:00:00Z"}},
        /* Vixie OR rule: the 13th or any Friday. */
        {"0 0 13 * 5", "UTC", "2025-01-01T00:00:00Z", {"2025-01-03T00:00:00Z", "2025-01-10T00:00:00Z", "2025-01-13T00:00:00Z", "2025-01-17T00:00:00Z"}},
        {"0 0 */10 * 1", "UTC", "2025-01-01T00:00:00Z", {"2025-01-06T00:00:00Z", "2025-01-11T00:00:00Z", "2025-01-13T00:00:00Z", "2025-01-20T00:00:00Z"}},
        {"@yearly", "UTC", "2025-06-01T00:00:00Z", {"2026-01-01T00:00:00Z"}},
        {"@ANNUALLY", "UTC", "2025-06-01T00:00:00Z", {"2026-01-01T00:00:00Z"}},
        {"@monthly", "UTC", "2025-06-01T00:00:00Z", {"2025-07-01T00:00:00Z"}},
        {"@weekly", "UTC", "2025-06-01T00:00:00Z", {"2025-06-08T00:00:00Z"}},
        {"@daily", "UTC", "2025-06-01T00:00:00Z", {"2025-06-02T00:00:00Z"}},
        {"@midnight", "UTC", "2025-06-01T00:00:00Z", {"2025-06-02T00:00:00Z"}},
        {"@hourly", "UTC", "2025-06-01T00:00:00Z", {"2025-06-01T01:00:00Z"}},
        {"*/30 * * * * *", "UTC", "2025-06-01T00:00:00Z", {"2025-06-01T00:00:30Z", "2025-06-01T00:01:00Z"}},
        {"0 0 9 * * *", "UTC", "2025-06-01T09:00:00Z", {"2025-06-02T09:00:00Z"}},
        {"15,45 * * * * *", "UTC", "2025-06-01T00:00:15Z", {"2025-06-01T00:00:45Z", "2025-06-01T00:01:15Z"}},
        {"0 0 29 2 *", "UTC", "2025-01-01T00:00:00Z", {"2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z"}},
        {"0 0 29 2 *", "UTC", "2096-03-01T00:00:00Z", {"2104-02-29T00:00:00Z"}},
        {"0 0 31 * *", "UTC", "2025-01-31T00:00:00Z", {"2025-03-31T00:00:00Z", "2025-05-31T00:00:00Z"}},
        /* Extensions. */
        {"15 10 L * ?", "UTC", "2024-01-31T11:00:00Z", {"2024-02-29T10:15:00Z", "2024-03-31T10:15:00Z", "2024-04-30T10:15:00Z"}},
        {"0 0 L-2 * *", "UTC", "2025-01-01T00:00:00Z", {"2025-01-29T00:00:00Z", "2025-02-26T00:00:00Z"}},
        {"0 0 LW * *",
         "UTC",
         "2025-05-01T00:00:00Z", /* May 31 is Sat */
         {"2025-05-30T00:00:00Z", "2025-06-30T00:00:00Z",
          "2025-07-31T00:00:00Z", "2025-08-29T00:00:00Z"}},
        /* 2025-02-01 is a Saturday: 1W is Monday the 3rd; 2025-03-15 a
         * Saturday: Friday the 14th; 2025-06-15 a Sunday: Monday. */
        {"0 0 1W * *", "UTC", "2025-01-15T00:00:00Z", {"2025-02-03T00:00:00Z", "2025-03-03T00:00:00Z"}},
        {"0 0 15W * *", "UTC", "2025-03-01T00:00:00Z", {"2025-03-14T00:00:00Z", "2025-04-15T00:00:00Z", "2025-05-15T00:00:00Z", "2025-06-16T00:00:00Z"}},
        /* 2025-08-31 is a Sunday: 31W is Friday the 29th. */
        {"0 0 31W * *", "UTC", "2025-08-01T00:00:00Z", {"2025-08-29T00:00:00Z", "2025-10-31T00:00:00Z"}},
        {"0 0 * * 5L", "UTC", "2025-01-01T00:00:00Z", {"2025-01-31T00:00:00Z", "2025-02-28T00:00:00Z", "2025-03-28T00:00:00Z"}},
        {"0 0 * * FRIL", "UTC", "2025-01-01T00:00:00Z", {"2025-01-31T00:00:00Z"}},
        {"0 12 * * 5#3", "UTC", "2025-01-01T00:00:00Z", {"2025-01-17T12:00:00Z", "2025-02-21T12:00:00Z"}},
        {"0 12 * * 1#1,1#3", "UTC", "2025-01-01T00:00:00Z", {"2025-01-06T12:00:00Z", "2025-01-20T12:00:00Z", "2025-02-03T12:00:00Z"}},
        /* A fifth Friday only in some months. */
        {"0 0 * * 5#5", "UTC", "2025-01-01T00:00:00Z", {"2025-01-31T00:00:00Z", "2025-05-30T00:00:00Z"}},
        {"0 0 * 2 0#5", "UTC", "2016-01-01T00:00:00Z", {"2032-02-29T00:00:00Z"}},
        /* Sub-second starts: strictly after. */
        {"* * * * * *", "UTC", "2025-01-01T00:00:00Z", {"2025-01-01T00:00:01Z"}},
        /* Far past and far future. */
        {"0 0 1 1 *", "UTC", "1899-12-31T00:00:00Z", {"1900-01-01T00:00:00Z", "1901-01-01T00:00:00Z"}},
        {"59 23 31 12 *", "UTC", "9998-12-31T23:59:00Z", {"9999-12-31T23:59:00Z"}},
    };
    /* clang-format on */

    (void) state;
    check_next_table(cases, sizeof cases / sizeof cases[0], SKED_DST_ONCE);
}

static void test_fraction_strictly_after(void **state)
{
    sked_cron c = parse_ok("* * * * * *");
    sked_time got;

    (void) state;
    assert_int_equal(sked_cron_next(&c, sked_tz_utc(), SKED_DST_ONCE,
                                    utc("2025-01-01T00:00:00Z") + 999999, &got),
                     0);
    assert_time_equal(got, utc("2025-01-01T00:00:01Z"));
    assert_int_equal(sked_cron_prev(&c, sked_tz_utc(), SKED_DST_ONCE,
                                    utc("2025-01-01T00:00:01Z") + 1, &got),
                     0);
    assert_time_equal(got, utc("2025-01-01T00:00:01Z"));
    assert_int_equal(sked_cron_prev(&c, sked_tz_utc(), SKED_DST_ONCE,
                                    utc("2025-01-01T00:00:01Z"), &got),
                     0);
    assert_time_equal(got, utc("2025-01-01T00:00:00Z"));
}

static void test_end_of_time(void **state)
{
    sked_cron c = parse_ok("0 0 1 1 *");
    sked_time got = 42;

    (void) state;
    assert_int_equal(sked_cron_next(&c, sked_tz_utc(), SKED_DST_ONCE,
                                    utc("9999-06-01T00:00:00Z"), &got),
                     SKED_ENOTFOUND);
    assert_int_equal(got, 42); /* untouched on error */
    assert_int_equal(sked_cron_prev(&c, sked_tz_utc(), SKED_DST_ONCE,
                                    utc("0001-01-01T00:00:00Z"), &got),
                     SKED_ENOTFOUND);
    assert_int_equal(sked_cron_next(&c, NULL, SKED_DST_ONCE, 0, &got),
                     SKED_EINVAL);
}

/* ---- parsing: every error names the field and the byte */

struct error_case {
    const char *expr;
    const char *field;
    int pos;
    const char *msg; /* a substring of the message */
};

static void test_parse_errors(void **state)
{
    static const struct error_case cases[] = {
        {"60 * * * *", "minute", 0, "60 is out of range 0-59"},
        {"* 24 * * *", "hour", 2, "24 is out of range 0-23"},
        {"* * 0 * *", "day-of-month", 4, "0 is out of range 1-31"},
        {"* * 32 * *", "day-of-month", 4, "32 is out of range 1-31"},
        {"* * * 13 *", "month", 6, "13 is out of range 1-12"},
        {"* * * 0 *", "month", 6, "0 is out of range 1-12"},
        {"* * * * 8", "day-of-week", 8, "8 is out of range 0-7"},
        {"61 * * * * *", "second", 0, "61 is out of range 0-59"},
        {"*/0 * * * *", "minute", 2, "step must be at least 1"},
        {"1-5/0 * * * *", "minute", 4, "step must be at least 1"},
        {"*/61 * * * *", "minute", 2, "larger than"},
        {"5-2 * * * *", "minute", 2, "range 5-2 is reversed"},
        {"* * * * 5-2", "day-of-week", 10, "reversed"},
        {"* * * FOO *", "month", 6, "unknown name \"FOO\""},
        {"* * * * MONDAY", "day-of-week", 8, "unknown name"},
        {"* * * JANUARY *", "month", 6, "unknown name"},
        {"* MON * * *", "hour", 2, "unknown name"},
        {"* * * * ", "expression", 8, "expected 5 or 6 fields, got 4"},
        {"* * * * * * *", "expression", 12, "expected 5 or 6 fields, got 7"},
        {"", "expression", 0, "got 0"},
        {"   ", "expression", 3, "got 0"},
        {"* * * * *x", "day-of-week", 9, "unexpected character 'x'"},
        {"1,,2 * * * *", "minute", 2, "expected a value"},
        {"1, * * * *", "minute", 2, "expected a value after ','"},
        {"1- * * * *", "minute", 2, "expected a value"},
        {"*/ * * * *", "minute", 2, "expected a step"},
        {"? * * * *", "minute", 0, "only allowed in the day fields"},
        {"0 0 30 2 *", "expression", -1, "can never fire"},
        {"0 0 31 4,6,9,11 *", "expression", -1, "can never fire"},
        {"0 0 L-31 * *", "day-of-month", 6, "out of range"},
        {"0 0 L- * *", "day-of-month", 6, "expected 0-30"},
        {"0 0 32W * *", "day-of-month", 4, "32 is out of range"},
        {"0 0 * * 5#6", "day-of-week", 10, "#6 is out of range"},
        {"0 0 * * 5#0", "day-of-week", 10, "#0 is out of range"},
        {"0 0 * * 5#", "day-of-week", 10, "expected 1-5"},
        {"@reboot", "expression", 0, "unknown macro \"@reboot\""},
        {"@daily *", "expression", 7, "unexpected text after @daily"},
        {"1234567 * * * *", "minute", 0, "too long"},
        {"-1 * * * *", "minute", 0, "expected a value"},
        {"0 0 1 1 * 2020", "day-of-week", 10, "2020 is out of range"},
        {"* * * * * \x01", "day-of-week", 10, "unexpected character"},
    };
    sked_cron before, c;
    sked_error err;

    (void) state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memset(&c, 0xab, sizeof c);
        before = c;
        sked_error_clear(&err);
        if (sked_cron_parse(cases[i].expr, &c, &err) != SKED_EINVAL)
            fail_msg("\"%s\" was accepted", cases[i].expr);
        if (strcmp(err.field, cases[i].field) != 0 || err.pos != cases[i].pos ||
            !strstr(err.msg, cases[i].msg))
            fail_msg("\"%s\": got %s at %d: %s; want %s at %d: %s",
                     cases[i].expr, err.field, err.pos, err.msg, cases[i].field,
                     cases[i].pos, cases[i].msg);
        assert_memory_equal(&c, &before, sizeof c); /* untouched */
    }
}

static void test_parse_too_long(void **state)
{
    char expr[SKED_CRON_MAX_LEN + 2];
    sked_cron c;
    sked_error err;

    (void) state;
    /* 256 bytes with blanks is fine; 257 is not. */
    memset(expr, ' ', sizeof expr);
    memcpy(expr, "* * * * *", 9);
    expr[SKED_CRON_MAX_LEN] = '\0';
    assert_int_equal(sked_cron_parse(expr, &c, &err), 0);
    expr[SKED_CRON_MAX_LEN] = ' ';
    expr[SKED_CRON_MAX_LEN + 1] = '\0';
    assert_int_equal(sked_cron_parse(expr, &c, &err), SKED_EINVAL);
    assert_string_equal(err.field, "expression");
    assert_int_equal(err.pos, SKED_CRON_MAX_LEN);
    assert_int_equal(sked_cron_parse(NULL, &c, &err), SKED_EINVAL);
}

/* Equivalent spellings compile to the same bitsets. */
static void test_equivalent_spellings(void **state)
{
    static const char *const pairs[][2] = {
        {"0 0 * * 0", "0 0 * * 7"},
        {"0 0 * * SUN", "0 0 * * sun"},
        {"0 0 * * 1-5", "0 0 * * MON-FRI"},
        {"0 0 * * 5-7", "0 0 * * FRI-SUN"},
        {"0 0 * * 5-0", "0 0 * * 5,6,0"},
        {"*/15 * * * *", "0,15,30,45 * * * *"},
        {"0 0 * jan-mar *", "0 0 * 1-3 *"},
        {"@daily", "0 0 * * *"},
        {"@weekly", "0 0 * * 0"},
        {"0 0 ? * *", "0 0 * * *"},
        {"0 9 * * *", "0 0 9 * * *"},
        {"5/15 * * * *", "5,20,35,50 * * * *"},
        {"  0  9\t* * *  ", "0 9 * * *"},
    };

    (void) state;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        sked_cron a = parse_ok(pairs[i][0]), b = parse_ok(pairs[i][1]);
        a.flags &= (uint8_t) ~SKED_CRON_SECONDS;
        b.flags &= (uint8_t) ~SKED_CRON_SECONDS;
        if (memcmp(&a, &b, sizeof a) != 0)
            fail_msg("\"%s\" and \"%s\" differ", pairs[i][0], pairs[i][1]);
    }
}

/* ---- SPEC 2.2: DST days, written out by hand */

static void test_dst_once(void **state)
{
    /* clang-format off */
    static const struct next_case cases[] = {
        /* Europe/Paris 2025: 02:00 CET -> 03:00 CEST on 03-30 (01:00Z);
         * 03:00 CEST -> 02:00 CET on 10-26 (01:00Z). */
        {"30 2 * * *", "Europe/Paris", "2025-03-29T12:00:00Z", {"2025-03-30T01:00:00Z", "2025-03-31T00:30:00Z"}},
        {"30 2 * * *", "Europe/Paris", "2025-10-25T12:00:00Z", {"2025-10-26T00:30:00Z", "2025-10-27T01:30:00Z"}},
        {"*/15 * * * *", "Europe/Paris", "2025-03-30T00:40:00Z", {"2025-03-30T00:45:00Z", "2025-03-30T01:00:00Z", "2025-03-30T01:15:00Z"}},
        {"*/15 * * * *", "Europe/Paris", "2025-10-26T00:40:00Z", {"2025-10-26T00:45:00Z", "2025-10-26T02:00:00Z"}},
        {"0 * * * *", "Europe/Paris", "2025-10-25T22:30:00Z", {"2025-10-25T23:00:00Z", "2025-10-26T00:00:00Z", "2025-10-26T02:00:00Z"}},
        /* Two gap times and the gap's end fire once, at 03:00 CEST. */
        {"0,30 2,3 * * *", "Europe/Paris", "2025-03-29T12:00:00Z", {"2025-03-30T01:00:00Z", "2025-03-30T01:30:00Z", "2025-03-31T00:00:00Z"}},
        {"0 9 * * *", "Europe/Paris", "2025-03-29T12:00:00Z", {"2025-03-30T07:00:00Z", "2025-03-31T07:00:00Z"}},
        {"0 9 * * *", "Europe/Paris", "2025-10-25T12:00:00Z", {"2025-10-26T08:00:00Z", "2025-10-27T08:00:00Z"}},
        /* America/New_York 2025: 02:00 EST -> 03:00 EDT on 03-09 (07:00Z);
         * 02:00 EDT -> 01:00 EST on 11-02 (06:00Z). */
        {"30 2 * * *", "America/New_York", "2025-03-08T12:00:00Z", {"2025-03-09T07:00:00Z", "2025-03-10T06:30:00Z"}},
        {"30 1 * * *", "America/New_York", "2025-11-01T12:00:00Z", {"2025-11-02T05:30:00Z", "2025-11-03T06:30:00Z"}},
        {"0 9 * * 1-5", "America/New_York", "2025-03-07T15:00:00Z", {"2025-03-10T13:00:00Z", "2025-03-11T13:00:00Z"}},
        /* Australia/Lord_Howe: +10:30 / +11, a 30-minute shift. 2025-04-06
         * 02:00 +11 -> 01:30 +10:30 (04-05T15:00Z); 2025-10-05 02:00
         * +10:30 -> 02:30 +11 (10-04T15:30Z). */
        {"45 1 * * *", "Australia/Lord_Howe", "2025-04-05T00:00:00Z", {"2025-04-05T14:45:00Z", "2025-04-06T15:15:00Z"}},
        {"15 2 * * *", "Australia/Lord_Howe", "2025-10-04T00:00:00Z", {"2025-10-04T15:30:00Z", "2025-10-05T15:15:00Z"}},
        {"*/20 * * * *", "Australia/Lord_Howe", "2025-10-04T15:05:00Z", {"2025-10-04T15:10:00Z", "2025-10-04T15:30:00Z", "2025-10-04T15:40:00Z"}},
        /* Pacific/Chatham: +12:45 / +13:45. 2025-09-28 02:45 -> 03:45
         * (09-27T14:00Z); 2025-04-06 03:45 -> 02:45 (04-05T14:00Z). */
        {"0 3 * * *", "Pacific/Chatham", "2025-09-27T00:00:00Z", {"2025-09-27T14:00:00Z", "2025-09-28T13:15:00Z"}},
        {"0 3 * * *", "Pacific/Chatham", "2025-04-05T00:00:00Z", {"2025-04-05T13:15:00Z", "2025-04-06T14:15:00Z"}},
        /* America/Sao_Paulo, changes at midnight: 2018-11-04 00:00 -03 ->
         * 01:00 -02 (03:00Z); 2019-02-17 00:00 -02 -> 02-16 23:00 -03
         * (02:00Z). */
        {"0 0 * * *", "America/Sao_Paulo", "2018-11-03T12:00:00Z", {"2018-11-04T03:00:00Z", "2018-11-05T02:00:00Z"}},
        {"30 23 * * *", "America/Sao_Paulo", "2019-02-16T12:00:00Z", {"2019-02-17T01:30:00Z", "2019-02-18T02:30:00Z"}},
        {"0 0 * * *", "America/Sao_Paulo", "2019-02-16T12:00:00Z", {"2019-02-17T03:00:00Z", "2019-02-18T03:00:00Z"}},
        /* Europe/London 2025: 01:00 GMT -> 02:00 BST on 03-30 (01:00Z);
         * 02:00 BST -> 01:00 GMT on 10-26 (01:00Z). */
        {"30 1 * * *", "Europe/London", "2025-03-29T12:00:00Z", {"2025-03-30T01:00:00Z", "2025-03-31T00:30:00Z"}},
        {"30 1 * * *", "Europe/London", "2025-10-25T12:00:00Z", {"2025-10-26T00:30:00Z", "2025-10-27T01:30:00Z"}},
        /* Pacific/Apia skipped 2011-12-30 whole (-10 -> +14): the lost
         * noon fires at the end of the 24-hour gap, 12-31 00:00 +14. */
        {"0 12 * * *", "Pacific/Apia", "2011-12-28T00:00:00Z", {"2011-12-28T22:00:00Z", "2011-12-29T22:00:00Z", "2011-12-30T10:00:00Z", "2011-12-30T22:00:00Z"}},
        /* Past the last transition of the file: the POSIX footer. */
        {"30 2 * * *", "Europe/Paris", "2100-03-27T12:00:00Z", {"2100-03-28T01:00:00Z", "2100-03-29T00:30:00Z"}},
    };
    /* clang-format on */

    (void) state;
    check_next_table(cases, sizeof cases / sizeof cases[0], SKED_DST_ONCE);
}

static void test_dst_cadence(void **state)
{
    /* clang-format off */
    static const struct next_case cases[] = {
        /* Fixed-time expressions keep the once rule. */
        {"30 2 * * *", "Europe/Paris", "2025-03-29T12:00:00Z", {"2025-03-30T01:00:00Z", "2025-03-31T00:30:00Z"}},
        {"30 2 * * *", "Europe/Paris", "2025-10-25T12:00:00Z", {"2025-10-26T00:30:00Z", "2025-10-27T01:30:00Z"}},
        /* Others keep their real-time rhythm through both changes. */
        {"*/15 * * * *", "Europe/Paris", "2025-03-30T00:40:00Z", {"2025-03-30T00:45:00Z", "2025-03-30T01:00:00Z", "2025-03-30T01:15:00Z"}},
        {"*/15 * * * *", "Europe/Paris", "2025-10-26T00:40:00Z", {"2025-10-26T00:45:00Z", "2025-10-26T01:00:00Z", "2025-10-26T01:15:00Z", "2025-10-26T01:30:00Z"}},
        {"0 * * * *", "Europe/Paris", "2025-10-25T23:30:00Z", {"2025-10-26T00:00:00Z", "2025-10-26T01:00:00Z", "2025-10-26T02:00:00Z"}},
        /* Gap times do not exist under cadence. */
        {"0,30 2,3 * * *", "Europe/Paris", "2025-03-29T12:00:00Z", {"2025-03-30T01:00:00Z", "2025-03-30T01:30:00Z", "2025-03-31T00:00:00Z"}},
        {"*/20 * * * *", "Australia/Lord_Howe", "2025-10-04T15:05:00Z", {"2025-10-04T15:10:00Z", "2025-10-04T15:40:00Z"}},
        {"*/10 1 * * *", "America/New_York", "2025-11-02T05:45:00Z", {"2025-11-02T05:50:00Z", "2025-11-02T06:00:00Z", "2025-11-02T06:10:00Z"}},
    };
    /* clang-format on */

    (void) state;
    check_next_table(cases, sizeof cases / sizeof cases[0], SKED_DST_CADENCE);
}

static void test_marks(void **state)
{
    sked_cron c = parse_ok("30 2 * * *");
    const sked_tz *paris = zone("Europe/Paris");
    sked_occurrence occ;
    sked_cron q = parse_ok("*/30 * * * *");

    (void) state;
    assert_int_equal(sked_cron_next_occurrence(&c, paris, SKED_DST_ONCE,
                                               utc("2025-03-29T12:00:00Z"),
                                               &occ),
                     0);
    assert_int_equal(occ.mark, SKED_OCC_SHIFTED);
    assert_int_equal(
        sked_cron_next_occurrence(&c, paris, SKED_DST_ONCE, occ.at, &occ), 0);
    assert_int_equal(occ.mark, SKED_OCC_NORMAL);
    assert_int_equal(sked_cron_next_occurrence(&c, paris, SKED_DST_ONCE,
                                               utc("2025-10-25T12:00:00Z"),
                                               &occ),
                     0);
    assert_int_equal(occ.mark, SKED_OCC_FIRST_PASS);
    /* Cadence: 02:30 CEST is a first pass, 02:30 CET a second one. */
    assert_int_equal(sked_cron_next_occurrence(&q, paris, SKED_DST_CADENCE,
                                               utc("2025-10-26T00:15:00Z"),
                                               &occ),
                     0);
    assert_time_equal(occ.at, utc("2025-10-26T00:30:00Z"));
    assert_int_equal(occ.mark, SKED_OCC_FIRST_PASS);
    assert_int_equal(sked_cron_next_occurrence(&q, paris, SKED_DST_CADENCE,
                                               utc("2025-10-26T01:15:00Z"),
                                               &occ),
                     0);
    assert_time_equal(occ.at, utc("2025-10-26T01:30:00Z"));
    assert_int_equal(occ.mark, SKED_OCC_SECOND_PASS);
}

/* ---- every zone: next and prev against SPEC 2.2 read literally */

#define MAX_REF 4096

/* Collect, by brute force, the occurrences of C in TZ over the instants
 * (from, to]: every matching wall-clock second in a slightly wider range,
 * mapped with sked_tz_local_to_utc and SPEC 2.2's rules. */
static int reference(const sked_cron *c, const sked_tz *tz, bool once,
                     int64_t from, int64_t to, int64_t *out)
{
    int64_t wall, n = 0;
    int64_t lo = from - 2 * 86400, hi = to + 2 * 86400;

    for (wall = lo; sked__cron_civil_next(c, wall, &wall) == 0 && wall <= hi;
         wall++) {
        sked_local_result r;
        int64_t cand[2];
        int k = 0;
        assert_int_equal(sked_tz_local_to_utc(tz, wall * SEC, &r), 0);
        if (r.kind == SKED_LOCAL_UNIQUE)
            cand[k++] = r.first / SEC;
        else if (r.kind == SKED_LOCAL_GAP && once)
            cand[k++] = r.first / SEC;
        else if (r.kind == SKED_LOCAL_REPEATED) {
            cand[k++] = r.first / SEC;
            if (!once)
                cand[k++] = r.second / SEC;
        }
        for (int j = 0; j < k; j++) {
            int64_t i = n;
            if (cand[j] <= from || cand[j] > to)
                continue;
            while (i > 0 && out[i - 1] > cand[j])
                i--;
            if (i > 0 && out[i - 1] == cand[j])
                continue; /* merged: one firing per instant */
            if (n >= MAX_REF)
                return (int) n;
            memmove(out + i + 1, out + i, (size_t) (n - i) * sizeof *out);
            out[i] = cand[j];
            n++;
        }
    }
    return (int) n;
}

static const char *const random_exprs[] = {
    "*/15 * * * *", "0 * * * *",   "30 * * * *",     "*/7 * * * *",
    "0 2 * * *",    "30 2 * * *",  "0,30 1-3 * * *", "15 0 * * *",
    "45 23 * * *",  "0 */2 * * *", "*/20 0-4 * * *", "59 1 * * *",
    "0 3 * * 0",    "0 0 * * *",   "10 2,3 * * 1-5", "0 12 * * *",
};

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Compare next and prev with the reference over a window around a DST
 * change of TZ; returns the number of occurrences checked. */
static int check_window(const sked_cron *c, const char *expr, const char *zname,
                        const sked_tz *tz, sked_dst dst, int64_t from,
                        int64_t to)
{
    int64_t ref[MAX_REF];
    bool once = dst == SKED_DST_ONCE || sked_cron_is_fixed_time(c);
    int n = reference(c, tz, once, from, to, ref);
    sked_time t = from * SEC, got;

    for (int i = 0; i < n; i++) {
        int rc = sked_cron_next(c, tz, dst, t, &got);
        if (rc != 0 || got != ref[i] * SEC) {
            char a[48], b[48], f[48];
            fmt(got, a, sizeof a);
            fmt(ref[i] * SEC, b, sizeof b);
            fmt(t, f, sizeof f);
            fail_msg("%s in %s (%s) after %s: got %s (rc %d), want %s", expr,
                     zname, sked_dst_name(dst), f, a, rc, b);
        }
        if (i > 0) {
            sked_time back;
            assert_int_equal(sked_cron_prev(c, tz, dst, got, &back), 0);
            if (back != ref[i - 1] * SEC) {
                char a[48], b[48];
                fmt(back, a, sizeof a);
                fmt(ref[i - 1] * SEC, b, sizeof b);
                fail_msg("%s in %s (%s): prev before %lld: got %s, want %s",
                         expr, zname, sked_dst_name(dst), (long long) ref[i], a,
                         b);
            }
        }
        t = got;
    }
    if (sked_cron_next(c, tz, dst, t, &got) == 0 && got <= to * SEC) {
        char a[48];
        fmt(got, a, sizeof a);
        fail_msg("%s in %s: extra occurrence %s", expr, zname, a);
    }
    return n;
}

/* Find a forward or backward change of TZ near T by scanning offsets. */
static int64_t find_change(const sked_tz *tz, int64_t t)
{
    sked_tz_info a, b;

    assert_int_equal(sked_tz_lookup(tz, t * SEC, &a), 0);
    for (int64_t step = 0; step < 400; step++) {
        int64_t u = t + step * 86400;
        assert_int_equal(sked_tz_lookup(tz, u * SEC, &b), 0);
        if (b.utoff != a.utoff) {
            int64_t lo = u - 86400, hi = u; /* change in (lo, hi] */
            while (hi - lo > 1) {
                int64_t mid = lo + (hi - lo) / 2;
                assert_int_equal(sked_tz_lookup(tz, mid * SEC, &b), 0);
                if (b.utoff == a.utoff)
                    lo = mid;
                else
                    hi = mid;
            }
            return hi;
        }
    }
    return INT64_MIN;
}

static void check_zone(sked_tzdb *db, const char *zname, int *windows,
                       int *occurrences)
{
    const sked_tz *tz;
    sked_error err;

    if (sked_tzdb_get(db, zname, &tz, &err) != 0)
        return;
    for (int trial = 0; trial < 6; trial++) {
        int64_t start = (int64_t) (rng() % (200u * 365)) * 86400 -
                        INT64_C(1900000000); /* 1909 .. 2109 */
        int64_t change = find_change(tz, start);
        const char *expr = random_exprs[rng() % (sizeof random_exprs /
                                                 sizeof random_exprs[0])];
        sked_cron c = parse_ok(expr);
        if (change == INT64_MIN)
            change = start;
        for (int d = 0; d < 2; d++) {
            *occurrences +=
                check_window(&c, expr, zname, tz, (sked_dst) d,
                             change - 2 * 86400, change + 2 * 86400);
            (*windows)++;
        }
    }
}

/* Every zone listed in zone1970.tab of the system database (or the pinned
 * zones when the system has none), a few windows each around a change. */
static void test_every_zone_against_spec(void **state)
{
    sked_tzdb *db;
    sked_error err;
    char path[512], line[512];
    FILE *f;
    int zones = 0, windows = 0, occurrences = 0;

    (void) state;
    assert_int_equal(sked_tzdb_open(NULL, &db, &err), 0);
    snprintf(path, sizeof path, "%s/zone1970.tab", sked_tzdb_dir(db));
    f = fopen(path, "r");
    if (!f) {
        sked_tzdb_close(db);
        skip();
    }
    while (fgets(line, sizeof line, f)) {
        char *cols[4], *save = NULL;
        int n = 0;
        if (line[0] == '#')
            continue;
        for (char *tok = strtok_r(line, "\t\n", &save); tok && n < 4;
             tok = strtok_r(NULL, "\t\n", &save))
            cols[n++] = tok;
        if (n < 3)
            continue;
        check_zone(db, cols[2], &windows, &occurrences);
        zones++;
    }
    fclose(f);
    sked_tzdb_close(db);
    print_message("checked %d zones, %d windows, %d occurrences\n", zones,
                  windows, occurrences);
    assert_true(zones > 300);
    assert_true(occurrences > 10000);
}

/* Sparse expressions whose matches lie years apart, in DST zones, from
 * the tz tables into the POSIX-rule years (past 2200): the search jumps
 * over the changes between matches and must land exactly. */
static void test_sparse_far_matches(void **state)
{
    static const char *const exprs[] = {"0 0 29 2 *", "30 2 29 2 *",
                                        "0 0 * 2 0#5", "0 2 31 3,10 *"};
    static const char *const zones[] = {"Europe/Paris", "America/New_York",
                                        "Australia/Lord_Howe",
                                        "America/Sao_Paulo"};
    int total = 0;

    (void) state;
    for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
        sked_cron c = parse_ok(exprs[i]);
        for (size_t z = 0; z < sizeof zones / sizeof zones[0]; z++)
            for (int d = 0; d < 2; d++)
                total += check_window(&c, exprs[i], zones[z], zone(zones[z]),
                                      (sked_dst) d,
                                      utc("1950-01-01T00:00:00Z") / SEC,
                                      utc("2400-01-01T00:00:00Z") / SEC);
    }
    assert_true(total > 1000);
}

/* Random expressions in UTC: next is increasing and prev mirrors it. */
static void test_next_prev_mirror(void **state)
{
    static const char *const exprs[] = {
        "*/7 */5 * * *", "0 0 L * *",   "0 0 LW * *",     "0 0 15W * *",
        "0 0 * * 5L",    "0 0 * * 2#2", "0 0 13 * 5",     "1-59/13 3 * * *",
        "0 0 29 2 *",    "0 0 1 * 1",   "*/13 * * * * *", "0 0 L-5 2 *",
    };

    (void) state;
    for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
        sked_cron c = parse_ok(exprs[i]);
        for (int trial = 0; trial < 50; trial++) {
            sked_time t = (sked_time) (rng() % (INT64_C(4102444800))) * SEC, a,
                      b, p;
            assert_int_equal(sked_cron_next(&c, sked_tz_utc(), 0, t, &a), 0);
            assert_true(a > t);
            assert_int_equal(sked_cron_next(&c, sked_tz_utc(), 0, a, &b), 0);
            assert_true(b > a);
            assert_int_equal(sked_cron_prev(&c, sked_tz_utc(), 0, b, &p), 0);
            assert_time_equal(p, a);
            assert_int_equal(sked_cron_prev(&c, sked_tz_utc(), 0, a + 1, &p),
                             0);
            assert_time_equal(p, a);
        }
    }
}

static void test_explain(void **state)
{
    static const char *const cases[][3] = {
        {"0 9 * * 1-5", "Europe/Paris",
         "At 09:00, Monday through Friday (Europe/Paris)"},
        {"0 9 * * MON-FRI", NULL, "At 09:00, Monday through Friday"},
        {"* * * * *", NULL, "Every minute"},
        {"*/5 * * * *", NULL, "Every 5 minutes"},
        {"0 * * * *", NULL, "Every hour"},
        {"*/30 * * * * *", NULL, "Every 30 seconds"},
        {"0 0 29 2 *", NULL,
         "At 00:00, on day 29 of the month, only in "
         "February"},
        {"15 10 L * ?", NULL, "At 10:15, on the last day of the month"},
        {"0 12 * * 5#3", NULL, "At 12:00, on the third Friday of the month"},
        {"0 0 * * 5L", NULL, "At 00:00, on the last Friday of the month"},
        {"0 9,17 * * *", "UTC", "At 09:00 and 17:00 (UTC)"},
        {"*/15 9-17 * * *", NULL, "Every 15 minutes, between 09:00 and 17:59"},
        {"0 0 1 * 1", NULL,
         "At 00:00, on day 1 of the month or only on "
         "Monday"},
        {"0 0 * * 0", NULL, "At 00:00, only on Sunday"},
        {"30 4 1 1,7 *", NULL,
         "At 04:30, on day 1 of the month, only in "
         "January and July"},
    };
    char buf[SKED_CRON_EXPLAIN_MAX], tiny[8];

    (void) state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sked_cron c = parse_ok(cases[i][0]);
        assert_true(sked_cron_explain(&c, cases[i][1], buf, sizeof buf) > 0);
        if (strcmp(buf, cases[i][2]) != 0)
            fail_msg("explain \"%s\": got \"%s\", want \"%s\"", cases[i][0],
                     buf, cases[i][2]);
    }
    {
        sked_cron c = parse_ok("0 9 * * 1-5");
        assert_int_equal(sked_cron_explain(&c, NULL, tiny, sizeof tiny),
                         SKED_ETOOBIG);
    }
}

static void test_dst_parse(void **state)
{
    sked_dst d = SKED_DST_CADENCE;
    sked_error err;

    (void) state;
    assert_int_equal(sked_dst_parse("once", &d, &err), 0);
    assert_int_equal(d, SKED_DST_ONCE);
    assert_int_equal(sked_dst_parse("cadence", &d, &err), 0);
    assert_int_equal(d, SKED_DST_CADENCE);
    assert_int_equal(sked_dst_parse("Once", &d, &err), SKED_EINVAL);
    assert_string_equal(err.field, "dst");
    assert_string_equal(sked_dst_name(SKED_DST_CADENCE), "cadence");
}

/* ---- messages are whole UTF-8 (issue 14) ------------------------------ */

/* Encode the code point CP as UTF-8 into OUT; return its length. Written
 * from the definition (RFC 3629), not with sked's own decoder. */
static size_t encode(uint32_t cp, char *out)
{
    if (cp < 0x80)
        return out[0] = (char) cp, 1;
    if (cp < 0x800) {
        out[0] = (char) (0xC0 | cp >> 6);
        out[1] = (char) (0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char) (0xE0 | cp >> 12);
        out[1] = (char) (0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char) (0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char) (0xF0 | cp >> 18);
    out[1] = (char) (0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char) (0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char) (0x80 | (cp & 0x3F));
    return 4;
}

/* Tell whether S is valid UTF-8 (RFC 3629: no overlong form, no
 * surrogate, nothing past U+10FFFF). */
static bool valid_utf8(const char *s)
{
    const unsigned char *u = (const unsigned char *) s;

    while (*u) {
        uint32_t cp;
        int n = *u < 0x80       ? 0
                : *u >> 5 == 6  ? 1
                : *u >> 4 == 14 ? 2
                : *u >> 3 == 30 ? 3
                                : -1;
        if (n < 0)
            return false;
        cp = n == 0 ? *u : *u & (0x3F >> n);
        for (int i = 1; i <= n; i++) {
            if ((u[i] & 0xC0) != 0x80)
                return false;
            cp = cp << 6 | (u[i] & 0x3F);
        }
        if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) ||
            (n == 3 && cp < 0x10000) || cp > 0x10FFFF ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        u += n + 1;
    }
    return true;
}

/* Every printable character of a sample of code points (Latin-1, Greek,
 * CJK, emoji), put where each field expects a value, is quoted whole in
 * the message: "unexpected character '½'"; every byte that is no UTF-8
 * is named "byte 0xNN"; each message is valid UTF-8. */
static void test_error_quotes_whole_characters(void **state)
{
    static const uint32_t from[] = {0xA1, 0x391, 0x65E5, 0x1F600, 0x10FFD0};
    static const char *const forms[] = {"%s * * * *", "1,%s * * * *",
                                        "* * * * %s", "0 0 %s * *"};
    char ch[8], want[32], expr[64];
    sked_cron c;
    sked_error err;
    int checked = 0;

    (void) state;
    for (size_t f = 0; f < sizeof from / sizeof *from; f++)
        for (uint32_t cp = from[f]; cp < from[f] + 40; cp++) {
            ch[encode(cp, ch)] = '\0';
            snprintf(want, sizeof want, "unexpected character '%s'", ch);
            for (size_t k = 0; k < sizeof forms / sizeof *forms; k++) {
                snprintf(expr, sizeof expr, forms[k], ch);
                sked_error_clear(&err);
                assert_int_equal(sked_cron_parse(expr, &c, &err), SKED_EINVAL);
                if (!strstr(err.msg, want) || !valid_utf8(err.msg))
                    fail_msg("U+%04X in \"%s\": %s", cp, expr, err.msg);
                checked++;
            }
        }
    for (unsigned b = 0x80; b < 0x100; b++) {
        snprintf(expr, sizeof expr, "1,%c * * * *", (char) b);
        snprintf(want, sizeof want, "byte 0x%02x", b);
        assert_int_equal(sked_cron_parse(expr, &c, &err), SKED_EINVAL);
        if (!strstr(err.msg, want) || !valid_utf8(err.msg))
            fail_msg("byte 0x%02x: %s", b, err.msg);
    }
    assert_int_equal(checked, 5 * 40 * 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_syntax_forms),
        cmocka_unit_test(test_error_quotes_whole_characters),
        cmocka_unit_test(test_fraction_strictly_after),
        cmocka_unit_test(test_end_of_time),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_parse_too_long),
        cmocka_unit_test(test_equivalent_spellings),
        cmocka_unit_test(test_dst_once),
        cmocka_unit_test(test_dst_cadence),
        cmocka_unit_test(test_marks),
        cmocka_unit_test(test_next_prev_mirror),
        cmocka_unit_test(test_sparse_far_matches),
        cmocka_unit_test(test_every_zone_against_spec),
        cmocka_unit_test(test_explain),
        cmocka_unit_test(test_dst_parse),
    };

    return cmocka_run_group_tests(tests, zone_setup, zone_teardown);
}
