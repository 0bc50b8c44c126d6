/* SPDX-License-Identifier: MIT */
/* Tests of the RRULE core (src/cron/rrule*.c): every refusal with its
 * position, the default start's flooring, DTSTART as first occurrence,
 * COUNT and UNTIL, the cursor moved back and forth (a search behind the
 * cursor and a far jump must answer as a fresh walk from DTSTART does),
 * the fixed-time test and allocation failures. dateutil's agreement over
 * generated rules is tests/oracle/test_rrule_differential.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/alloc.h"
#include "cron/rrule.h"
#include "time/civil.h"

/* Return "YYYYMMDDTHHMMSS" as wall seconds. */
static int64_t wall(const char *s)
{
    int y, mo, d, h, mi, se;

    if (sscanf(s, "%4d%2d%2dT%2d%2d%2d", &y, &mo, &d, &h, &mi, &se) != 6)
        fail_msg("bad time in table: %s", s);
    return sked__days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
}

static sked__rrule *parse_ok(const char *v, const char *def)
{
    sked__rrule *r = NULL;
    sked_error err;

    if (sked__rrule_parse(v, wall(def), &r, &err) != 0)
        fail_msg("%s: refused at %d: %s", v, err.pos, err.msg);
    return r;
}

static const struct {
    const char *value;
    int pos;
} refusals[] = {
    {"FREQ=DAILY;BYFOO=1", 11},
    {"FREQ=FORTNIGHTLY", 5},
    {"FREQ=MONTHLY;BYDAY=MO;BYSETPOS=0", 31},
    {"FREQ=MONTHLY;BYDAY=MO;BYSETPOS=367", 31},
    {"FREQ=MONTHLY;BYSETPOS=1", 13},
    {"FREQ=YEARLY;BYMONTH=13", 20},
    {"FREQ=DAILY;COUNT=0", 17},
    {"FREQ=DAILY;COUNT=3;UNTIL=20300101T000000", 19},
    {"FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30", 0},
    {"DTSTART:20260101T000000\nRRULE:FREQ=DAILY;UNTIL=20250101T000000", 41},
    {"DTSTART:20260101\nRRULE:FREQ=DAILY", 8},
    {"DTSTART;VALUE=DATE:20260101\nRRULE:FREQ=DAILY", 14},
    {"DTSTART:20260101T000000Z\nRRULE:FREQ=DAILY", 23},
    {"DTSTART;TZID=:20260101T000000\nRRULE:FREQ=DAILY", 13},
    {"DTSTART;TZID=X:20260101T000000\nRRULE:FREQ=DAILY;UNTIL=20270101T000000",
     48},
    {"DTSTART:20260101T000000\nEXDATE:20260102T000000\nRRULE:FREQ=DAILY", 24},
    {"FREQ=MONTHLY;BYWEEKNO=3", 13},
    {"FREQ=DAILY;BYDAY=1MO", 11},
    {"INTERVAL=2", 0},
    {"FREQ=DAILY;;INTERVAL=2", 11},
    {"FREQ=DAILY;BYHOUR=24", 18},
    {"FREQ=DAILY;FREQ=DAILY", 11},
    {"FREQ=HOURLY;BYMINUTE=1,2;BYSETPOS=1", 25},
    {"FREQ=SECONDLY;BYYEARDAY=184", 14},
    {"DTSTART:30000101T000000\nRRULE:FREQ=DAILY", 0},
    {"", 0},
};

static void test_refusals(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
        sked__rrule *r = NULL;
        sked_error err;
        int rc = sked__rrule_parse(refusals[i].value, wall("20260101T000000"),
                                   &r, &err);
        if (rc != SKED_EINVAL || r != NULL)
            fail_msg("%s: accepted (rc %d)", refusals[i].value, rc);
        if (strcmp(err.field, "rrule") != 0 || err.pos != refusals[i].pos ||
            err.msg[0] == '\0')
            fail_msg("%s: field %s pos %d (want %d): %s", refusals[i].value,
                     err.field, err.pos, refusals[i].pos, err.msg);
    }
}

/* VALUE from DEFAULT: the first three occurrences >= AFTER. */
static const struct {
    const char *value, *def, *after, *want[3];
} nexts[] = {
    /* The default start is floored to the rule's resolution. */
    {"FREQ=DAILY",
     "20260101T123456",
     "20260101T000000",
     {"20260101T000000", "20260102T000000", "20260103T000000"}},
    {"FREQ=HOURLY",
     "20260101T123456",
     "20260101T000000",
     {"20260101T120000", "20260101T130000", "20260101T140000"}},
    {"FREQ=MINUTELY;INTERVAL=30",
     "20260101T123456",
     "20260101T000000",
     {"20260101T123400", "20260101T130400", "20260101T133400"}},
    {"FREQ=SECONDLY;INTERVAL=10",
     "20260101T123456",
     "20260101T000000",
     {"20260101T123456", "20260101T123506", "20260101T123516"}},
    {"FREQ=WEEKLY;INTERVAL=2;BYDAY=FR;BYHOUR=9",
     "20260101T123456",
     "20270101T000000",
     {"20270101T090000", "20270115T090000", "20270129T090000"}},
    /* DTSTART counts when it matches, not when it does not. */
    {"DTSTART:20260102T090000\nRRULE:FREQ=WEEKLY;BYDAY=FR",
     "20200101T000000",
     "20200101T000000",
     {"20260102T090000", "20260109T090000", "20260116T090000"}},
    {"DTSTART:20260101T090000\r\nRRULE:FREQ=WEEKLY;BYDAY=FR",
     "20200101T000000",
     "20200101T000000",
     {"20260102T090000", "20260109T090000", "20260116T090000"}},
    /* libical's set_start would answer 00:07 here (see rrule.c). */
    {"DTSTART:20260101T000000\nRRULE:FREQ=HOURLY;INTERVAL=5;BYMINUTE=7",
     "20200101T000000",
     "20260102T000000",
     {"20260102T010700", "20260102T060700", "20260102T110700"}},
    {"FREQ=MONTHLY;INTERVAL=3;BYDAY=MO,TU;BYSETPOS=-1",
     "20260101T000000",
     "20300101T000000",
     {"20300129T000000", "20300430T000000", "20300730T000000"}},
    {"FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO",
     "20260101T000000",
     "20260101T000000",
     {"20440229T000000", "20720229T000000", "21120229T000000"}},
    {"RRULE:FREQ=DAILY;COUNT=2",
     "20260101T000000",
     "20260101T000000",
     {"20260101T000000", "20260102T000000", NULL}},
    {"DTSTART:20260101T080000\nRRULE:FREQ=DAILY;UNTIL=20260102T080000",
     "20200101T000000",
     "20251231T000000",
     {"20260101T080000", "20260102T080000", NULL}},
};

static void check_nexts(size_t i, sked__rrule *r)
{
    int64_t t = wall(nexts[i].after), got;

    for (int k = 0; k < 3; k++) {
        int rc = sked__rrule_civil_next(r, t, &got);
        if (nexts[i].want[k] == NULL) {
            if (rc != SKED_ENOTFOUND)
                fail_msg("%s: #%d: rc %d, want none", nexts[i].value, k, rc);
            return;
        }
        if (rc != 0 || got != wall(nexts[i].want[k]))
            fail_msg("%s: #%d: rc %d, got %lld, want %s", nexts[i].value, k, rc,
                     (long long) got, nexts[i].want[k]);
        t = got + 1;
    }
}

static void test_next(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof nexts / sizeof nexts[0]; i++) {
        sked__rrule *r = parse_ok(nexts[i].value, nexts[i].def);
        check_nexts(i, r);
        check_nexts(i, r); /* again: now behind the cursor */
        sked__rrule_free(r);
    }
}

/* Every occurrence found by stepping from DTSTART, and prev's mirror. */
static void test_prev_mirrors_next(void **state)
{
    static const char *const rules[] = {
        "FREQ=WEEKLY;INTERVAL=2;BYDAY=FR,MO;BYHOUR=9,17",
        "FREQ=MONTHLY;BYDAY=-1FR;BYSETPOS=1",
        "FREQ=DAILY;COUNT=40;BYHOUR=1,13",
        "FREQ=HOURLY;INTERVAL=7;BYMINUTE=0,30",
        "FREQ=YEARLY;BYMONTH=5;BYDAY=MO,FR;BYHOUR=8",
    };
    (void) state;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        sked__rrule *r = parse_ok(rules[i], "20260315T101010");
        int64_t occ[40], t = 0, p;
        int n = 0;
        while (n < 40 && sked__rrule_civil_next(r, t, &occ[n]) == 0)
            t = occ[n++] + 1;
        for (int k = n - 1; k > 0; k--) {
            assert_int_equal(sked__rrule_civil_prev(r, occ[k] - 1, &p), 0);
            assert_true(p == occ[k - 1]);
        }
        assert_int_equal(sked__rrule_civil_prev(r, occ[0] - 1, &p),
                         SKED_ENOTFOUND);
        /* A far jump, then back: the same answers as the walk. */
        assert_int_equal(sked__rrule_civil_next(r, occ[n - 1], &p), 0);
        assert_true(p == occ[n - 1]);
        assert_int_equal(sked__rrule_civil_next(r, occ[n / 2], &p), 0);
        assert_true(p == occ[n / 2]);
        sked__rrule_free(r);
    }
}

static void test_accessors(void **state)
{
    sked__rrule *r;

    (void) state;
    r = parse_ok("DTSTART;TZID=Europe/Paris:20260101T090000\nRRULE:FREQ="
                 "DAILY;UNTIL=20260110T080000Z",
                 "20200101T000000");
    assert_string_equal(sked__rrule_tzid(r), "Europe/Paris");
    assert_true(sked__rrule_until_utc(r) ==
                wall("20260110T080000") * SKED_USEC_PER_SEC);
    assert_true(sked__rrule_is_fixed_time(r));
    sked__rrule_free(r);
    r = parse_ok("FREQ=DAILY;BYHOUR=9,10", "20260101T000000");
    assert_null(sked__rrule_tzid(r));
    assert_true(sked__rrule_until_utc(r) == SKED_TIME_NONE);
    assert_false(sked__rrule_is_fixed_time(r));
    sked__rrule_free(r);
    r = parse_ok("FREQ=HOURLY", "20260101T000000");
    assert_false(sked__rrule_is_fixed_time(r));
    sked__rrule_free(r);
}

static void test_alloc_failures(void **state)
{
    (void) state;
    for (long n = 1; n < 50; n++) {
        sked__rrule *r = NULL;
        sked_error err;
        int rc;
        sked__alloc_fail_at(n, 0);
        rc = sked__rrule_parse("DTSTART;TZID=UTC:20260101T000000\nRRULE:"
                               "FREQ=DAILY",
                               0, &r, &err);
        sked__alloc_fail_at(0, 0);
        if (rc == 0) {
            sked__rrule_free(r);
            break;
        }
        assert_int_equal(rc, SKED_ENOMEM);
        assert_null(r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_next),
        cmocka_unit_test(test_prev_mirrors_next),
        cmocka_unit_test(test_accessors),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
