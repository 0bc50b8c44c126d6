/* SPDX-License-Identifier: MIT */
/* Tests of the day calendars' .ics reader (src/cron/ics.c) through
 * sked__daycal_build: folded lines (CRLF and LF, space and tab), RRULE +
 * EXDATE + RDATE, a multi-day all-day event, a DATE-TIME event, nested and
 * other components ignored; malformed structure, bad values, invalid
 * UTF-8, NUL and oversized files, each refused with its line; and a build
 * with includes and an .ics under allocation failures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/alloc.h"
#include "cron/daycal.h"
#include "cron/ics.h"
#include "daycal_test.h"

/* ---- the .ics reader ----------------------------------------------------- */

/* CRLF lines, a folded SUMMARY and a folded RRULE, RRULE + EXDATE +
 * RDATE, a VALARM and a VTIMEZONE whose DTSTARTs are not the event's, then
 * LF lines: a three-day all-day event, a quoted ':' in a parameter, a
 * DATE-TIME event and a VTODO (ignored). */
static const char good_ics[] = "BEGIN:VCALENDAR\r\n"
                               "VERSION:2.0\r\n"
                               "PRODID:-//sked//test//EN\r\n"
                               "BEGIN:VTIMEZONE\r\n"
                               "TZID:Europe/Paris\r\n"
                               "BEGIN:STANDARD\r\n"
                               "DTSTART:19701025T030000\r\n"
                               "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r\n"
                               "END:STANDARD\r\n"
                               "END:VTIMEZONE\r\n"
                               "BEGIN:VEVENT\r\n"
                               "UID:1\r\n"
                               "SUMMARY:Monthly closing, folded over\r\n"
                               "  two lines\r\n"
                               "DTSTART;VALUE=DATE:20260105\r\n"
                               "RRULE:FREQ=MONTHLY;BYDAY=1MO;\r\n"
                               "\tCOUNT=6\r\n"
                               "EXDATE;VALUE=DATE:20260302,20260504\r\n"
                               "RDATE;VALUE=DATE:20260615\r\n"
                               "BEGIN:VALARM\r\n"
                               "TRIGGER:-PT15M\r\n"
                               "DTSTART:20270101T000000\r\n"
                               "END:VALARM\r\n"
                               "END:VEVENT\r\n"
                               "BEGIN:VEVENT\n"
                               "DTSTART;VALUE=DATE:20261224\n"
                               "DTEND;VALUE=DATE:20261227\n"
                               "SUMMARY;LANGUAGE=\"en:US\":Winter break\n"
                               "END:VEVENT\n"
                               "begin:vevent\n"
                               "DTSTART;TZID=Europe/Paris:20261111T090000\n"
                               "DTEND;TZID=Europe/Paris:20261113T100000\n"
                               "END:VEVENT\n"
                               "BEGIN:VTODO\n"
                               "DTSTART;VALUE=DATE:20260909\n"
                               "END:VTODO\n"
                               "END:VCALENDAR\n";

static void test_ics_days(void **state)
{
    static const char *const want[] = {
        "2026-01-05", "2026-02-02", "2026-04-06", "2026-06-01", "2026-06-15",
        "2026-11-11", "2026-12-24", "2026-12-25", "2026-12-26"};
    sked__daycal_spec spec = {.ics = good_ics, .ics_len = strlen(good_ics)};
    sked__daycal *c = build_ok(&spec, NULL, NULL);
    size_t n = 0, k = 0;
    char buf[16];

    (void) state;
    for (int64_t d = 0; d <= SKED__DAYCAL_LAST_DAY; d++) {
        if (!sked__daycal_has(c, d))
            continue;
        fmt_day(d, buf, sizeof buf);
        if (k >= 9 || strcmp(buf, want[k]) != 0)
            fail_msg("day %zu: got %s, want %s", k, buf,
                     k < 9 ? want[k] : "none");
        k++;
        n++;
    }
    assert_int_equal(n, 9);
    sked__daycal_free(c);

    /* The spec's observed rule applies to the file's days: Saturday
     * 2026-12-26 is also observed on Monday the 28th. */
    spec.observed = SKED__OBSERVED_NEXT_MONDAY;
    c = build_ok(&spec, NULL, NULL);
    assert_true(sked__daycal_has(c, day_of("2026-12-28")));
    sked__daycal_free(c);
}

static void test_ics_errors(void **state)
{
#define CAL(body) "BEGIN:VCALENDAR\n" body "END:VCALENDAR\n"
#define EV(body)  CAL("BEGIN:VEVENT\n" body "END:VEVENT\n")
    static const struct {
        const char *text;
        int line;
        const char *msg;
    } cases[] = {
        {"", 1, "line 1: no BEGIN:VCALENDAR"},
        {"\r\n\n", 1, "no BEGIN:VCALENDAR"},
        {"VERSION:2.0\nBEGIN:VCALENDAR\nEND:VCALENDAR\n", 1,
         "VERSION outside BEGIN:VCALENDAR"},
        {"BEGIN:VEVENT\nEND:VEVENT\n", 1, "where BEGIN:VCALENDAR belongs"},
        {CAL("GARBAGE\n"), 2, "line 2: a content line is NAME[;PARAMS]:VALUE"},
        {CAL(";X=1:y\n"), 2, "NAME[;PARAMS]:VALUE"},
        {CAL("X;P=\"a:b:c\n"), 2, "NAME[;PARAMS]:VALUE"},
        {CAL("BEGIN:\n"), 2, "BEGIN: where"},
        {CAL("") "END:VCALENDAR\n", 3, "END:VCALENDAR without BEGIN"},
        {"BEGIN:VCALENDAR\nBEGIN:VEVENT\nDTSTART:20260101\nEND:VCALENDAR\n", 4,
         "END:VCALENDAR does not close BEGIN:VEVENT of line 2"},
        {"BEGIN:VCALENDAR\nBEGIN:VEVENT\nDTSTART:20260101\nEND:VEVENT\n", 1,
         "line 1: BEGIN:VCALENDAR without END"},
        {"BEGIN:VCALENDAR\nBEGIN:X\nBEGIN:X\nBEGIN:X\nBEGIN:X\nBEGIN:X\n"
         "BEGIN:X\nBEGIN:X\nBEGIN:X\nBEGIN:X\nBEGIN:X\nBEGIN:X\nBEGIN:X\n"
         "BEGIN:X\nBEGIN:X\nBEGIN:X\nBEGIN:X\n",
         17, "nest deeper than 16"},
        {EV("SUMMARY:no start\n"), 2, "line 2: BEGIN:VEVENT without DTSTART"},
        {EV("DTSTART;VALUE=DATE:20261301\n"), 3,
         "line 3: DTSTART needs a date"},
        {EV("DTSTART:2026-01-01\n"), 3, "DTSTART needs a date"},
        {EV("DTSTART:20260101T25\n"), 3, "DTSTART needs a date"},
        {EV("DTSTART:20260101\nDTSTART:20260102\n"), 4, "a second DTSTART"},
        {EV("DTSTART:20260105\nDTEND:20260101\n"), 2,
         "DTEND is before its DTSTART"},
        {EV("DTSTART:20260105\nDTEND:2026\n"), 4, "DTEND needs a date"},
        {EV("DTSTART:20260105\nRRULE:FREQ=HOURLY\n"), 4,
         "line 4: RRULE: FREQ=HOURLY is finer than DAILY"},
        {EV("DTSTART:20260105\nRRULE:FREQ=MONTHLY;BYSETPOS=400;BYDAY=MO\n"), 4,
         "BYSETPOS 400 is outside"},
        {EV("DTSTART:20260105\nEXDATE:20260105,x\n"), 4, "EXDATE needs dates"},
        {EV("DTSTART:20260105\nRDATE:\n"), 4, "RDATE needs dates"},
        /* Folded lines count as the lines they are written on. */
        {EV("SUMMARY:a\n b\n c\nDTSTART:2026\n"), 6, "line 6: DTSTART"},
        {CAL("SUMMARY:caf\xe9\n"), 2, "line 2: not UTF-8"},
        {CAL("X:\xc3\n"), 2, "not UTF-8"},
        {CAL("X:\xed\xa0\x80\n"), 2, "not UTF-8"},
    };

    (void) state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sked__daycal_spec spec = {.name = "f",
                                  .ics = cases[i].text,
                                  .ics_len = strlen(cases[i].text)};

        build_fails(&spec, NULL, NULL, SKED_EINVAL, "ics", cases[i].line,
                    cases[i].msg);
    }
#undef EV
#undef CAL
}

static void test_ics_bytes(void **state)
{
    static const char nul[] = "BEGIN:VCALENDAR\nX:a\0b\nEND:VCALENDAR\n";
    sked__daycal_spec spec = {.ics = nul, .ics_len = sizeof nul - 1};
    char *big = malloc(SKED__ICS_MAX + 1);

    (void) state;
    build_fails(&spec, NULL, NULL, SKED_EINVAL, "ics", 2, "line 2: not UTF-8");
    assert_non_null(big);
    memset(big, '\n', SKED__ICS_MAX + 1);
    memcpy(big, "BEGIN:VCALENDAR\n", 16);
    spec.ics = big;
    spec.ics_len = SKED__ICS_MAX + 1;
    build_fails(&spec, NULL, NULL, SKED_ETOOBIG, "ics", -1,
                "the .ics is 1048577 bytes, over the 1048576 allowed");
    /* At the cap exactly it is read (and is missing its END). */
    spec.ics_len = SKED__ICS_MAX;
    build_fails(&spec, NULL, NULL, SKED_EINVAL, "ics", 1,
                "BEGIN:VCALENDAR without END");
    free(big);
}

/* ---- allocation failures ------------------------------------------------- */

static void test_alloc_failures(void **state)
{
    const char *rules[] = {"FREQ=YEARLY;BYMONTH=7;BYMONTHDAY=4"};
    const char *inc[] = {"b"}, *dates[] = {"2026-03-04"};
    sked__daycal_spec specs[] = {
        {.name = "a",
         .rules = rules,
         .nrules = 1,
         .include = inc,
         .ninclude = 1,
         .ics = good_ics,
         .ics_len = sizeof good_ics - 1},
        {.name = "b",
         .dates = dates,
         .ndates = 1,
         .ics = good_ics,
         .ics_len = sizeof good_ics - 1},
    };
    struct book book = {specs, 2};
    long n;

    (void) state;
    for (n = 1; n < 1000; n++) {
        sked__daycal *c = NULL;
        sked_error err;
        int rc;

        sked__alloc_fail_at(n, 0);
        rc = sked__daycal_build(&specs[0], look_up, &book, &c, &err);
        sked__alloc_fail_at(0, 0);
        if (rc == 0) {
            assert_true(sked__daycal_has(c, day_of("2026-03-04")));
            assert_true(sked__daycal_has(c, day_of("2026-12-25")));
            sked__daycal_free(c);
            if (sked__alloc_failed() == 0)
                break;
            continue;
        }
        assert_int_equal(rc, SKED_ENOMEM);
        assert_null(c);
    }
    assert_true(n > 2 && n < 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ics_days),
        cmocka_unit_test(test_ics_errors),
        cmocka_unit_test(test_ics_bytes),
        cmocka_unit_test(test_alloc_failures),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
