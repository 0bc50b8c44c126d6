/* SPDX-License-Identifier: MIT */
/* Tests of the day calendars (src/cron/daycal.h): the US federal holidays
 * of 2020-2030 with their observed days against a table python-dateutil
 * wrote (tests/data/daycal/gen_us_federal.py), business days and their
 * searches (last business day of each month, a Sunday-Thursday week, a
 * long run of holidays, the range's ends), observed rules, includes and
 * their cycles, and every error path of dates, rules and specs, with the
 * field and the position named. The .ics reader is test_daycal_ics.c; the
 * random rules compared with dateutil day by day are
 * tests/oracle/test_daycal_rrule.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cron/daycal.h"
#include "cron/daycal_rule.h"
#include "time/civil.h"
#include "daycal_test.h"

#define MAX_RULES 32

/* The US federal table: its rules and its days (a bitset over 2020-2030). */
struct federal {
    char rules_text[MAX_RULES][128];
    const char *rules[MAX_RULES];
    size_t nrules;
    bool day[11 * 366 + 8];
    int ndays;
};

static void read_federal(struct federal *f)
{
    char line[256], a[64], b[128];
    FILE *in = fopen(SKED_TEST_DATA "/daycal/us_federal_2020_2030.tsv", "r");

    assert_non_null(in);
    memset(f, 0, sizeof *f);
    while (fgets(line, sizeof line, in)) {
        if (sscanf(line, "rule\t%63[^\t]\t%127[^\n]", a, b) == 2) {
            assert_true(f->nrules < MAX_RULES);
            strcpy(f->rules_text[f->nrules], b);
            f->rules[f->nrules] = f->rules_text[f->nrules];
            f->nrules++;
        } else if (sscanf(line, "day\t%63[^\t]", a) == 1) {
            f->day[day_of(a) - day_of("2020-01-01")] = true;
            f->ndays++;
        }
    }
    fclose(in);
    assert_int_equal(f->nrules, 11);
    assert_true(f->ndays > 100);
}

static sked__daycal *us_calendar(struct federal *f)
{
    sked__daycal_spec spec = {.name = "us",
                              .observed = SKED__OBSERVED_NEAREST_WEEKDAY};

    read_federal(f);
    spec.rules = f->rules;
    spec.nrules = f->nrules;
    return build_ok(&spec, NULL, NULL);
}

/* ---- holidays and business days ---------------------------------------- */

static void test_us_federal_vs_dateutil(void **state)
{
    static struct federal f;
    sked__daycal *c = us_calendar(&f);
    int64_t first = day_of("2020-01-01"), last = day_of("2030-12-31");
    char buf[16];
    int agree = 0;

    (void) state;
    for (int64_t d = first; d <= last; d++) {
        if (sked__daycal_has(c, d) != f.day[d - first])
            fail_msg("%s: sked %d, dateutil %d", fmt_day(d, buf, sizeof buf),
                     sked__daycal_has(c, d), f.day[d - first]);
        agree += f.day[d - first];
        /* A holiday is never a business day; a plain weekday is. */
        assert_int_equal(sked__daycal_business(c, d),
                         !f.day[d - first] &&
                             sked__weekday_from_days(d) % 6 != 0);
    }
    assert_int_equal(agree, f.ndays);
    /* The observed days the table must hold, checked by name too. */
    assert_true(sked__daycal_has(c, day_of("2021-12-31"))); /* New Year */
    assert_true(sked__daycal_has(c, day_of("2022-01-01")));
    assert_true(sked__daycal_has(c, day_of("2021-06-18")));  /* Juneteenth */
    assert_false(sked__daycal_has(c, day_of("2020-06-19"))); /* not yet */
    assert_true(sked__daycal_has(c, day_of("2026-11-26")));  /* Thanksgiving */
    print_message("US federal 2020-2030: %d holidays and observed days "
                  "agree with dateutil\n",
                  agree);
    sked__daycal_free(c);
}

static void test_last_business_of_month_2026(void **state)
{
    static const char *const want[12] = {
        "2026-01-30", "2026-02-27", "2026-03-31", "2026-04-30",
        "2026-05-29", "2026-06-30", "2026-07-31", "2026-08-31",
        "2026-09-30", "2026-10-30", "2026-11-30", "2026-12-31"};
    static struct federal f;
    sked__daycal *c = us_calendar(&f);
    char buf[16];
    int64_t got;

    (void) state;
    for (int m = 1; m <= 12; m++) {
        /* Any day of the month gives its last business day. */
        for (int d = 1; d <= sked__days_in_month(2026, m); d += 9) {
            assert_int_equal(sked__daycal_last_business_of_month(
                                 c, sked__days_from_civil(2026, m, d), &got),
                             0);
            assert_day_equal(got, want[m - 1]);
        }
    }
    /* 2027-12-31, a Friday, is New Year 2028's observed day. */
    assert_int_equal(
        sked__daycal_last_business_of_month(c, day_of("2027-12-15"), &got), 0);
    assert_day_equal(got, "2027-12-30");
    (void) buf;
    sked__daycal_free(c);
}

static void test_next_prev_business(void **state)
{
    static struct federal f;
    sked__daycal *c = us_calendar(&f);
    int64_t got;

    (void) state;
    /* Thanksgiving Thursday: next is Friday, prev is Wednesday. */
    assert_int_equal(sked__daycal_next_business(c, day_of("2026-11-26"), &got),
                     0);
    assert_day_equal(got, "2026-11-27");
    assert_int_equal(sked__daycal_prev_business(c, day_of("2026-11-26"), &got),
                     0);
    assert_day_equal(got, "2026-11-25");
    /* Friday 2021-12-31 (observed) and the weekend: Monday 2022-01-03. */
    assert_int_equal(sked__daycal_next_business(c, day_of("2021-12-30"), &got),
                     0);
    assert_day_equal(got, "2022-01-03");
    assert_int_equal(sked__daycal_prev_business(c, day_of("2022-01-03"), &got),
                     0);
    assert_day_equal(got, "2021-12-30");
    /* Strictly after and before: a business day is not its own answer. */
    assert_int_equal(sked__daycal_next_business(c, day_of("2026-03-02"), &got),
                     0);
    assert_day_equal(got, "2026-03-03");
    sked__daycal_free(c);
}

static void test_range_ends(void **state)
{
    sked__daycal_spec spec = {.name = "empty"};
    sked__daycal *c = build_ok(&spec, NULL, NULL);
    int64_t got = 42;

    (void) state;
    assert_false(sked__daycal_has(c, -1));
    assert_false(sked__daycal_business(c, -1));
    assert_false(sked__daycal_business(c, SKED__DAYCAL_LAST_DAY + 1));
    assert_int_equal(sked__daycal_weekdays(c), SKED__DAYCAL_MON_FRI);
    /* 1970-01-01 was a Thursday; 2200-12-31 is a Wednesday. */
    assert_true(sked__daycal_business(c, 0));
    assert_true(sked__daycal_business(c, SKED__DAYCAL_LAST_DAY));
    assert_int_equal(sked__daycal_prev_business(c, 0, &got), SKED_ENOTFOUND);
    assert_int_equal(sked__daycal_next_business(c, SKED__DAYCAL_LAST_DAY, &got),
                     SKED_ENOTFOUND);
    assert_int_equal(got, 42);
    assert_int_equal(sked__daycal_next_business(c, -100, &got), 0);
    assert_int_equal(got, 0);
    assert_int_equal(sked__daycal_prev_business(c, INT64_C(1) << 40, &got), 0);
    assert_int_equal(got, SKED__DAYCAL_LAST_DAY);
    assert_int_equal(sked__daycal_last_business_of_month(c, -1, &got),
                     SKED_ENOTFOUND);
    assert_int_equal(
        sked__daycal_last_business_of_month(c, SKED__DAYCAL_LAST_DAY, &got), 0);
    assert_day_equal(got, "2200-12-31");
    sked__daycal_free(c);
}

/* Every day from 2030 through 2099 is a holiday: the searches cross the
 * run in a word scan, and none is a business day. */
static void test_long_run_of_holidays(void **state)
{
    const char *rules[] = {"DTSTART=20300101;FREQ=DAILY;UNTIL=20991231"};
    sked__daycal_spec spec = {.rules = rules, .nrules = 1};
    sked__daycal *c = build_ok(&spec, NULL, NULL);
    int64_t got;

    (void) state;
    assert_int_equal(sked__daycal_next_business(c, day_of("2029-12-31"), &got),
                     0);
    assert_day_equal(got, "2100-01-01"); /* a Friday */
    assert_int_equal(sked__daycal_prev_business(c, day_of("2100-01-01"), &got),
                     0);
    assert_day_equal(got, "2029-12-31");
    for (int i = 0; i < 100000; i++) {
        assert_int_equal(
            sked__daycal_next_business(c, day_of("2030-06-01") + i % 97, &got),
            0);
        assert_true(got == day_of("2100-01-01"));
    }
    assert_int_equal(
        sked__daycal_last_business_of_month(c, day_of("2050-05-05"), &got),
        SKED_ENOTFOUND);
    sked__daycal_free(c);
}

/* Sunday to Thursday, with a holiday on Sunday 2026-03-22. */
static void test_sunday_thursday_week(void **state)
{
    const char *dates[] = {"2026-03-22"};
    sked__daycal_spec spec = {.dates = dates, .ndates = 1, .weekdays = 0x1f};
    sked__daycal *c = build_ok(&spec, NULL, NULL);
    int64_t got;

    (void) state;
    assert_int_equal(sked__daycal_weekdays(c), 0x1f);
    assert_true(sked__daycal_business(c, day_of("2026-03-15")));  /* Sun */
    assert_true(sked__daycal_business(c, day_of("2026-03-19")));  /* Thu */
    assert_false(sked__daycal_business(c, day_of("2026-03-20"))); /* Fri */
    assert_false(sked__daycal_business(c, day_of("2026-03-21"))); /* Sat */
    assert_int_equal(sked__daycal_next_business(c, day_of("2026-03-12"), &got),
                     0);
    assert_day_equal(got, "2026-03-15");
    /* Thursday 19th: Sunday 22nd is a holiday, so Monday 23rd. */
    assert_int_equal(sked__daycal_next_business(c, day_of("2026-03-19"), &got),
                     0);
    assert_day_equal(got, "2026-03-23");
    /* Last business day of 2026-10 (31st is a Saturday): Thursday 29th. */
    assert_int_equal(
        sked__daycal_last_business_of_month(c, day_of("2026-10-01"), &got), 0);
    assert_day_equal(got, "2026-10-29");
    sked__daycal_free(c);
}

/* ---- observed rules ------------------------------------------------------ */

static void test_observed(void **state)
{
    /* Saturday 2026-07-04 and Sunday 2026-01-04, a Wednesday 2026-03-04. */
    const char *dates[] = {"2026-07-04", "2026-01-04", "2026-03-04"};
    static const struct {
        sked__observed o;
        const char *in[4], *out[3];
    } cases[] = {
        {SKED__OBSERVED_NONE,
         {"2026-07-04", "2026-01-04", "2026-03-04"},
         {"2026-07-03", "2026-07-06", "2026-01-05"}},
        {SKED__OBSERVED_NEAREST_WEEKDAY,
         {"2026-07-04", "2026-07-03", "2026-01-05", "2026-03-04"},
         {"2026-07-06", "2026-03-05", "2026-01-03"}},
        {SKED__OBSERVED_NEXT_MONDAY,
         {"2026-07-04", "2026-07-06", "2026-01-05", "2026-01-04"},
         {"2026-07-03", "2026-03-05", "2026-03-03"}},
    };

    (void) state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sked__daycal_spec spec = {
            .dates = dates, .ndates = 3, .observed = cases[i].o};
        sked__daycal *c = build_ok(&spec, NULL, NULL);

        for (int k = 0; k < 4 && cases[i].in[k]; k++)
            if (!sked__daycal_has(c, day_of(cases[i].in[k])))
                fail_msg("%s: %s missing", sked__observed_name(cases[i].o),
                         cases[i].in[k]);
        for (int k = 0; k < 3; k++)
            if (sked__daycal_has(c, day_of(cases[i].out[k])))
                fail_msg("%s: %s is in", sked__observed_name(cases[i].o),
                         cases[i].out[k]);
        sked__daycal_free(c);
    }
}

static void test_observed_names(void **state)
{
    const char *names[] = {"none", "nearest_weekday", "next_monday"};
    sked__observed o = SKED__OBSERVED_NEXT_MONDAY;
    sked_error err;

    (void) state;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(sked__observed_parse(names[i], "observed", &o, &err),
                         0);
        assert_int_equal(o, i);
        assert_string_equal(sked__observed_name(o), names[i]);
    }
    o = SKED__OBSERVED_NEAREST_WEEKDAY;
    assert_int_equal(
        sked__observed_parse("Nearest", "calendars[2].observed", &o, &err),
        SKED_EINVAL);
    assert_int_equal(o, SKED__OBSERVED_NEAREST_WEEKDAY);
    assert_string_equal(err.field, "calendars[2].observed");
    assert_non_null(strstr(err.msg, "none, nearest_weekday or next_monday"));
    assert_int_equal(sked__observed_parse(NULL, "o", &o, &err), SKED_EINVAL);
    assert_string_equal(sked__observed_name((sked__observed) 9), "none");
}

/* ---- includes ------------------------------------------------------------ */

static void test_includes_union(void **state)
{
    const char *a_dates[] = {"2026-03-04"}, *b_dates[] = {"2026-07-04"},
               *c_dates[] = {"2026-12-25"};
    const char *a_inc[] = {"b", "c"}, *b_inc[] = {"c"};
    sked__daycal_spec specs[] = {
        {.name = "a",
         .dates = a_dates,
         .ndates = 1,
         .include = a_inc,
         .ninclude = 2,
         .weekdays = 0x1f},
        /* b's observed rule moves its Saturday; a's does not apply to it. */
        {.name = "b",
         .dates = b_dates,
         .ndates = 1,
         .include = b_inc,
         .ninclude = 1,
         .observed = SKED__OBSERVED_NEAREST_WEEKDAY,
         .weekdays = 0x7f},
        {.name = "c", .dates = c_dates, .ndates = 1},
    };
    struct book book = {specs, 3};
    sked__daycal *c = build_ok(&specs[0], look_up, &book);

    (void) state;
    assert_true(sked__daycal_has(c, day_of("2026-03-04")));
    assert_true(sked__daycal_has(c, day_of("2026-07-04")));
    assert_true(sked__daycal_has(c, day_of("2026-07-03")));
    assert_true(sked__daycal_has(c, day_of("2026-12-25")));
    assert_false(sked__daycal_has(c, day_of("2026-07-05")));
    /* Only a's weekdays count: Sunday to Thursday. */
    assert_int_equal(sked__daycal_weekdays(c), 0x1f);
    assert_true(sked__daycal_business(c, day_of("2026-07-05")));
    sked__daycal_free(c);
}

static void test_include_errors(void **state)
{
    const char *to_b[] = {"b"}, *to_a[] = {"a"}, *to_self[] = {"s"};
    const char *unknown[] = {"ok", "nope"}, *bad_dates[] = {"2026-02-30"};
    const char *to_bad[] = {"bad"};
    sked__daycal_spec specs[] = {
        {.name = "a", .include = to_b, .ninclude = 1},
        {.name = "b", .include = to_a, .ninclude = 1},
        {.name = "s", .include = to_self, .ninclude = 1},
        {.name = "u", .include = unknown, .ninclude = 2},
        {.name = "bad", .dates = bad_dates, .ndates = 1},
        {.name = "w", .include = to_bad, .ninclude = 1},
        {.name = "ok"},
    };
    struct book book = {specs, 7};

    (void) state;
    build_fails(&specs[0], look_up, &book, SKED_ECONFLICT, "include[0]", -2,
                "include cycle: a -> b -> a");
    build_fails(&specs[2], look_up, &book, SKED_ECONFLICT, "include[0]", -1,
                "include cycle: s -> s");
    build_fails(&specs[3], look_up, &book, SKED_ENOTFOUND, "include[1]", -1,
                "unknown calendar 'nope'");
    /* Without a lookup, every include is unknown. */
    build_fails(&specs[3], NULL, NULL, SKED_ENOTFOUND, "include[0]", -1,
                "unknown calendar 'ok'");
    /* An error inside an include names the include and its own field. */
    build_fails(&specs[5], look_up, &book, SKED_EINVAL, "include[0]", 8,
                "'bad': dates[0]: 2026-02 has no day 30");
}

/* A chain of 17 calendars, each including the next: one too deep. */
static void test_include_depth(void **state)
{
    static char names[18][8];
    static const char *inc[18][1];
    sked__daycal_spec specs[18];
    struct book book = {specs, 18};
    sked__daycal *c;

    (void) state;
    memset(specs, 0, sizeof specs);
    for (int i = 0; i < 18; i++) {
        snprintf(names[i], sizeof names[i], "c%d", i);
        specs[i].name = names[i];
    }
    for (int i = 0; i < 17; i++) {
        snprintf(names[i + 1], sizeof names[i + 1], "c%d", i + 1);
        inc[i][0] = names[i + 1];
        specs[i].include = inc[i];
        specs[i].ninclude = 1;
    }
    /* c1 .. c16 and c17 below c0: 17 levels. */
    build_fails(&specs[0], look_up, &book, SKED_EINVAL, "include[0]", -2,
                "deeper than 16");
    /* From c1 it is 16 levels: fine. */
    c = build_ok(&specs[1], look_up, &book);
    sked__daycal_free(c);
}

/* ---- bad dates, rules and weekdays -------------------------------------- */

static void test_date_errors(void **state)
{
    static const struct {
        const char *date;
        int code, pos;
        const char *msg;
    } cases[] = {
        {"2026-13-01", SKED_EINVAL, 5, "no month 13"},
        {"2026-00-10", SKED_EINVAL, 5, "no month 00"},
        {"2026-02-29", SKED_EINVAL, 8, "2026-02 has no day 29"},
        {"2026-04-31", SKED_EINVAL, 8, "has no day 31"},
        {"2026-2-01", SKED_EINVAL, 6, "YYYY-MM-DD"},
        {"26-02-01", SKED_EINVAL, 2, "YYYY-MM-DD"},
        {"2026/02/01", SKED_EINVAL, 4, "YYYY-MM-DD"},
        {"2026-01-011", SKED_EINVAL, 10, "nothing after"},
        {"", SKED_EINVAL, 0, "YYYY-MM-DD"},
        {"1969-12-31", SKED_ERANGE, 0, "1970-01-01 to 2200-12-31"},
        {"2201-01-01", SKED_ERANGE, 0, "1970-01-01 to 2200-12-31"},
    };

    (void) state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *dates[] = {"2024-02-29", cases[i].date};
        sked__daycal_spec spec = {.name = "d", .dates = dates, .ndates = 2};

        build_fails(&spec, NULL, NULL, cases[i].code, "dates[1]", cases[i].pos,
                    cases[i].msg);
    }
}

static void test_rule_errors(void **state)
{
    static char long_rule[SKED__DAYCAL_RULE_MAX + 8];
    static const struct {
        const char *rule;
        int pos;
        const char *msg;
    } cases[] = {
        {"FREQ=HOURLY", 5, "FREQ=HOURLY is finer than DAILY"},
        {"FREQ=MINUTELY;COUNT=3", 5, "finer than DAILY"},
        {"COUNT=3;FREQ=SECONDLY", 13, "finer than DAILY"},
        {"FREQ=FORTNIGHTLY", 5, "YEARLY, MONTHLY, WEEKLY or DAILY"},
        {"FREQ=MONTHLY;BYDAY=MO;BYSETPOS=367", 31,
         "BYSETPOS 367 is outside -366..366 or 0"},
        {"FREQ=MONTHLY;BYDAY=MO;BYSETPOS=1,-367", 33, "BYSETPOS -367"},
        {"FREQ=MONTHLY;BYDAY=MO;BYSETPOS=0", 31, "BYSETPOS 0"},
        {"FREQ=MONTHLY;BYDAY=MO;BYSETPOS=1,,2", 33, "needs numbers"},
        {"FREQ=MONTHLY;BYDAY=MO;BYSETPOS=x", 31, "needs numbers"},
        {"BYDAY=MO", 0, "needs FREQ="},
        {"FREQ=WEEKLY;BYDAY=MO,TU;BYSETPOS=-1", 24,
         "BYSETPOS needs FREQ=MONTHLY or YEARLY"},
        {"BYSETPOS=1;FREQ=DAILY", 0, "BYSETPOS needs FREQ=MONTHLY"},
        {"FREQ=YEARLY;BYWEEKNO=1;BYDAY=TH", 12, "BYWEEKNO is not supported"},
        {"FREQ=DAILY;BYYEARDAY=100", 11, "BYYEARDAY needs FREQ=YEARLY"},
        {"FREQ=WEEKLY;BYMONTHDAY=1", 12, "BYMONTHDAY is not for FREQ=WEEKLY"},
        {"FREQ=YEARLY;BYMONTH", 12, "NAME=VALUE"},
        {"FREQ=YEARLY;FOO=1", 12, "unknown rule part 'FOO'"},
        {"FREQ=YEARLY;RSCALE=HEBREW", 12, "unknown rule part 'RSCALE'"},
        {"FREQ=DAILY;COUNT=3;DTSTART=20260101", 19, "unknown rule part"},
        {"FREQ=YEARLY;BYMONTH=13", 20, "BYMONTH 13 is outside 1..12"},
        {"FREQ=YEARLY;BYMONTH=1,-2", 22, "BYMONTH -2 is outside 1..12"},
        {"FREQ=YEARLY;BYMONTHDAY=32", 12, "libical refuses 'BYMONTHDAY=32'"},
        {"FREQ=YEARLY;COUNT=x", 12, "libical refuses 'COUNT=x'"},
        {"FREQ=YEARLY;UNTIL=2026", 12, "libical refuses 'UNTIL=2026'"},
        {"FREQ=WEEKLY;BYDAY=XX", 12, "libical refuses 'BYDAY=XX'"},
        {"FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30", -2, "no da"},
        {"FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;UNTIL=19710101", -1,
         "no day in 1970-01-01 to 2200-12-31"},
        {"DTSTART=19700132;FREQ=DAILY", 8, "DTSTART= needs a date"},
        {"DTSTART=2026010;FREQ=DAILY", 8, "DTSTART= needs a date"},
        {"DTSTART=18991231;FREQ=YEARLY", 8, "DTSTART must be in 1900 to 2200"},
        {"DTSTART;VALUE=DATE:20260101\nFREQ=YEARLY", 28, "RRULE:"},
        {"DTSTART;VALUE=DATE:2026\nRRULE:FREQ=YEARLY", 19, "needs a date"},
        {"DTSTART;VALUE=DATE:20260101", 0, "second line"},
        {"DTSTART20260101\nRRULE:FREQ=DAILY", 7, "needs ':'"},
        {long_rule, SKED__DAYCAL_RULE_MAX, "at most 1024 bytes"},
    };

    (void) state;
    memset(long_rule, 'A', sizeof long_rule - 1);
    memcpy(long_rule, "FREQ=DAILY;", 11);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *rules[] = {"FREQ=YEARLY", cases[i].rule};
        sked__daycal_spec spec = {.name = "r", .rules = rules, .nrules = 2};

        build_fails(&spec, NULL, NULL, SKED_EINVAL, "rules[1]", cases[i].pos,
                    cases[i].msg);
    }
}

/* The rules that work, one of them past libical's stalling quirk. */
static void test_rule_forms(void **state)
{
    static const struct {
        const char *rule;
        const char *first, *last;
        int count; /* days in the range; 0: not checked */
    } cases[] = {
        {"FREQ=DAILY;UNTIL=19700301", "1970-01-01", "1970-03-01", 60},
        {"FREQ=YEARLY;BYMONTH=11;BYDAY=4TH", "1970-11-26", "2200-11-27", 231},
        {"DTSTART=20260101;FREQ=YEARLY;BYMONTH=7;BYMONTHDAY=4", "2026-07-04",
         "2200-07-04", 175},
        {"DTSTART;VALUE=DATE:20260101\nRRULE:FREQ=MONTHLY;BYMONTHDAY=-1;"
         "COUNT=3",
         "2026-01-31", "2026-03-31", 3},
        {"DTSTART:20260101\r\nRRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=SU;COUNT=2",
         "2026-01-04", "2026-01-18", 2},
        {"RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=2",
         "1970-01-30", "1970-02-27", 2},
        {"DTSTART=19000101;FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=1", "1970-01-01",
         "2200-01-01", 231},
    };

    (void) state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *rules[] = {cases[i].rule};
        sked__daycal_spec spec = {.rules = rules, .nrules = 1};
        sked__daycal *c = build_ok(&spec, NULL, NULL);
        int64_t first = -1, last = -1;
        int n = 0;

        for (int64_t d = 0; d <= SKED__DAYCAL_LAST_DAY; d++) {
            if (!sked__daycal_has(c, d))
                continue;
            if (first < 0)
                first = d;
            last = d;
            n++;
        }
        assert_day_equal(first, cases[i].first);
        assert_day_equal(last, cases[i].last);
        if (n != cases[i].count)
            fail_msg("%s: %d days, want %d", cases[i].rule, n, cases[i].count);
        sked__daycal_free(c);
    }
}

static void test_spec_errors(void **state)
{
    const char *null_date[] = {NULL}, *null_rule[] = {NULL};
    sked__daycal_spec weekdays = {.weekdays = 0x80};
    sked__daycal_spec nd = {.dates = null_date, .ndates = 1};
    sked__daycal_spec nr = {.rules = null_rule, .nrules = 1};
    sked__daycal_spec obs = {.observed = (sked__observed) 7};
    sked__daycal *c = NULL;

    (void) state;
    build_fails(&weekdays, NULL, NULL, SKED_EINVAL, "weekdays", -1,
                "mask of bits 0 (Sunday) to 6");
    build_fails(&nd, NULL, NULL, SKED_EINVAL, "dates[0]", -1, "no date");
    build_fails(&nr, NULL, NULL, SKED_EINVAL, "rules[0]", -1, "no rule");
    build_fails(&obs, NULL, NULL, SKED_EINVAL, "observed", -1, "unknown");
    assert_int_equal(sked__daycal_build(NULL, NULL, NULL, &c, NULL),
                     SKED_EINVAL);
    assert_null(c);
    sked__daycal_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_us_federal_vs_dateutil),
        cmocka_unit_test(test_last_business_of_month_2026),
        cmocka_unit_test(test_next_prev_business),
        cmocka_unit_test(test_range_ends),
        cmocka_unit_test(test_long_run_of_holidays),
        cmocka_unit_test(test_sunday_thursday_week),
        cmocka_unit_test(test_observed),
        cmocka_unit_test(test_observed_names),
        cmocka_unit_test(test_includes_union),
        cmocka_unit_test(test_include_errors),
        cmocka_unit_test(test_include_depth),
        cmocka_unit_test(test_date_errors),
        cmocka_unit_test(test_rule_errors),
        cmocka_unit_test(test_rule_forms),
        cmocka_unit_test(test_spec_errors),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
