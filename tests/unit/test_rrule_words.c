/* SPDX-License-Identifier: MIT */
/* Tests of an RRULE in words (src/cron/rrule_words.c): each kind of part
 * said as a reader expects, the times the start fills in said too, one
 * reading for every spelling of a rule, a buffer too small refused and
 * left empty, and generated rules that all read within the bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cron/rrule.h"
#include "time/civil.h"

/* 2026-12-02T10:17:23, a Wednesday: the start of a rule without DTSTART. */
static int64_t default_start(void)
{
    return sked__days_from_civil(2026, 12, 2) * 86400 + 10 * 3600 + 17 * 60 +
           23;
}

static const char *words_of(const char *value, char *buf, size_t size)
{
    sked__rrule *r = NULL;
    sked_error err;

    if (sked__rrule_parse(value, default_start(), &r, &err) != 0)
        fail_msg("%s: refused at %d: %s", value, err.pos, err.msg);
    int n = sked__rrule_explain(r, buf, size);
    sked__rrule_free(r);
    if (n < 0)
        fail_msg("%s: no words (%d)", value, n);
    assert_int_equal((size_t) n, strlen(buf));
    return buf;
}

static const struct {
    const char *rule, *words;
} cases[] = {
    {"FREQ=WEEKLY;INTERVAL=2;BYDAY=FR;BYHOUR=9",
     "At 09:00, every 2 weeks on Friday, starting 2026-12-02"},
    /* the start, floored to the day, fills in the time of day; weekly, the
     * weekday */
    {"FREQ=DAILY", "At 00:00, every day"},
    {"FREQ=WEEKLY;BYHOUR=8;BYMINUTE=30;BYSECOND=0",
     "At 08:30, every week on Wednesday"},
    {"FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0;BYDAY=MO,TU,WE,TH,FR",
     "At 09:00, every day, only on Monday through Friday"},
    {"FREQ=DAILY;BYHOUR=9,17;BYMINUTE=0;BYSECOND=0",
     "At 09:00 and 17:00, every day"},
    {"FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;BYHOUR=18;BYMINUTE=0;"
     "BYSECOND=0",
     "At 18:00, every month on Monday through Friday, only the last of each "
     "month"},
    {"FREQ=YEARLY;BYMONTH=11;BYDAY=4TH;BYHOUR=12;BYMINUTE=0;BYSECOND=0",
     "At 12:00, every year in November on the fourth Thursday"},
    {"FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=24,25;BYHOUR=0;BYMINUTE=0;BYSECOND=0",
     "At 00:00, every year on December 24 and 25"},
    {"FREQ=MONTHLY;BYMONTHDAY=1,15,-1;BYHOUR=6;BYMINUTE=0;BYSECOND=0",
     "At 06:00, every month on days 1 and 15 and the last day"},
    {"FREQ=MONTHLY;BYMONTHDAY=13;BYDAY=FR;BYHOUR=0;BYMINUTE=0;BYSECOND=0",
     "At 00:00, every month on day 13, if a Friday"},
    {"FREQ=MONTHLY;BYDAY=1MO,-1FR,-2SU;BYHOUR=7;BYMINUTE=0;BYSECOND=0",
     "At 07:00, every month on the first Monday, the last Friday and the "
     "second-to-last Sunday"},
    {"FREQ=MONTHLY;INTERVAL=3;BYMONTHDAY=-3;BYHOUR=7;BYMINUTE=0;BYSECOND=0",
     "At 07:00, every 3 months on the third-to-last day, starting 2026-12-02"},
    {"FREQ=HOURLY;INTERVAL=2;BYMINUTE=15;BYSECOND=0",
     "Every 2 hours, at minute 15, starting 2026-12-02 10:00"},
    {"FREQ=HOURLY;BYMINUTE=0,30;BYSECOND=0", "Every hour, at minutes 0 and 30"},
    {"FREQ=MINUTELY;BYSECOND=10,40", "Every minute, at seconds 10 and 40"},
    {"FREQ=MINUTELY;INTERVAL=15;BYSECOND=0",
     "Every 15 minutes, starting 2026-12-02 10:17"},
    {"FREQ=SECONDLY;INTERVAL=30",
     "Every 30 seconds, starting 2026-12-02 10:17:23"},
    {"FREQ=DAILY;COUNT=5;BYHOUR=9;BYMINUTE=0;BYSECOND=0",
     "At 09:00, every day, starting 2026-12-02, 5 times"},
    {"FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0;BYSECOND=0;"
     "UNTIL=20270101T000000Z",
     "At 09:00, every week on Monday, until 2027-01-01 00:00 UTC"},
    {"DTSTART:20260105T083000\nRRULE:FREQ=WEEKLY;INTERVAL=3;BYDAY=MO,WE;"
     "UNTIL=20270101T120000",
     "At 08:30, every 3 weeks on Monday and Wednesday, starting 2026-01-05, "
     "until 2027-01-01 12:00"},
    {"FREQ=YEARLY;BYYEARDAY=1,-1;BYHOUR=0;BYMINUTE=0;BYSECOND=0",
     "At 00:00, every year on day 1, 1 from the end of the year"},
    {"FREQ=DAILY;BYMONTH=1,7;BYHOUR=0;BYMINUTE=0;BYSECOND=0",
     "At 00:00, every day, only in January and July"},
};

static void test_cases(void **state)
{
    (void) state;
    char buf[SKED__RRULE_WORDS_MAX];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = words_of(cases[i].rule, buf, sizeof buf);
        if (strcmp(got, cases[i].words) != 0)
            fail_msg("%s:\n  got  %s\n  want %s", cases[i].rule, got,
                     cases[i].words);
    }
}

/* One rule, spelled in any order and case, reads the same. */
static void test_spellings(void **state)
{
    (void) state;
    char a[SKED__RRULE_WORDS_MAX], b[SKED__RRULE_WORDS_MAX],
        c[SKED__RRULE_WORDS_MAX];
    words_of("FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;BYHOUR=18", a,
             sizeof a);
    words_of("RRULE:byhour=18;bysetpos=-1;byday=FR,TH,WE,TU,MO;freq=monthly", b,
             sizeof b);
    words_of("FREQ=MONTHLY;INTERVAL=1;BYSETPOS=-1;BYDAY=TU,MO,WE,FR,TH;"
             "BYHOUR=18;BYMINUTE=0;BYSECOND=0",
             c, sizeof c);
    assert_string_equal(a, b);
    assert_string_equal(a, c);
}

/* Too small a buffer: SKED_ETOOBIG and an empty string, never a cut. */
static void test_too_small(void **state)
{
    (void) state;
    sked__rrule *r = NULL;
    sked_error err;
    char full[SKED__RRULE_WORDS_MAX], small[16];

    assert_int_equal(sked__rrule_parse("FREQ=WEEKLY;BYDAY=MO,FR;BYHOUR=9",
                                       default_start(), &r, &err),
                     0);
    int n = sked__rrule_explain(r, full, sizeof full);
    assert_true(n > (int) sizeof small);
    memset(small, 'x', sizeof small);
    assert_int_equal(sked__rrule_explain(r, small, sizeof small), SKED_ETOOBIG);
    assert_string_equal(small, "");
    assert_int_equal(sked__rrule_explain(r, full, (size_t) n + 1), n);
    assert_int_equal(sked__rrule_explain(r, full, (size_t) n), SKED_ETOOBIG);
    assert_int_equal(sked__rrule_explain(NULL, full, sizeof full), SKED_EINVAL);
    sked__rrule_free(r);
}

/* A random list of LEN values drawn from LO..HI, comma-separated. */
static void put_list(char *buf, size_t size, int len, int lo, int hi,
                     bool negative)
{
    size_t at = strlen(buf);
    for (int i = 0; i < len; i++) {
        int v = lo + rand() % (hi - lo + 1);
        if (negative && rand() % 3 == 0)
            v = -v;
        at += (size_t) snprintf(buf + at, size - at, "%s%d", i ? "," : "", v);
    }
}

/* Generated rules: every one the reader takes reads within the bound,
 * starts as the time of day or the period does, and never says a part
 * the rule has not ("only the" without BYSETPOS, "times" without COUNT). */
static void test_generated(void **state)
{
    (void) state;
    static const char *const freqs[] = {"SECONDLY", "MINUTELY", "HOURLY",
                                        "DAILY",    "WEEKLY",   "MONTHLY",
                                        "YEARLY"};
    static const char *const days[] = {"MO", "TU", "WE", "TH",
                                       "FR", "SA", "SU"};
    char rule[512], buf[SKED__RRULE_WORDS_MAX];
    int read = 0;

    srand(5545);
    for (int i = 0; i < 1200; i++) {
        int f = rand() % 7;
        snprintf(rule, sizeof rule, "FREQ=%s", freqs[f]);
        if (rand() % 3 == 0)
            snprintf(rule + strlen(rule), sizeof rule - strlen(rule),
                     ";INTERVAL=%d", 1 + rand() % 12);
        if (f >= 3 && rand() % 2) {
            strcat(rule, ";BYHOUR=");
            put_list(rule, sizeof rule, 1 + rand() % 3, 0, 23, false);
        }
        if (f >= 2 && rand() % 2) {
            strcat(rule, ";BYMINUTE=");
            put_list(rule, sizeof rule, 1 + rand() % 3, 0, 59, false);
        }
        if (rand() % 2) {
            strcat(rule, ";BYDAY=");
            for (int k = 0, n = 1 + rand() % 3; k < n; k++) {
                int pos = f >= 5 && rand() % 2 ? 1 + rand() % 4 : 0;
                snprintf(rule + strlen(rule), sizeof rule - strlen(rule),
                         "%s%s%s", k ? "," : "",
                         pos ? (rand() % 2 ? "-1" : "2") : "",
                         days[rand() % 7]);
            }
        }
        if (f >= 5 && rand() % 2) {
            strcat(rule, ";BYMONTHDAY=");
            put_list(rule, sizeof rule, 1 + rand() % 3, 1, 28, true);
        }
        if (f == 6 && rand() % 2) {
            strcat(rule, ";BYMONTH=");
            put_list(rule, sizeof rule, 1 + rand() % 3, 1, 12, false);
        }
        bool setpos = f >= 4 && rand() % 4 == 0;
        if (setpos)
            strcat(rule, rand() % 2 ? ";BYSETPOS=-1" : ";BYSETPOS=1,2");
        bool count = rand() % 5 == 0;
        if (count)
            strcat(rule, ";COUNT=7");
        sked__rrule *r = NULL;
        sked_error err;
        if (sked__rrule_parse(rule, default_start(), &r, &err) != 0)
            continue; /* a rule sked refuses, or one that never occurs */
        read++;
        int n = sked__rrule_explain(r, buf, sizeof buf);
        sked__rrule_free(r);
        if (n <= 0)
            fail_msg("%s: no words (%d)", rule, n);
        if (strncmp(buf, "At ", 3) != 0 && strncmp(buf, "Every ", 6) != 0)
            fail_msg("%s: %s", rule, buf);
        if ((strstr(buf, "only the ") != NULL) != setpos ||
            (strstr(buf, " times") != NULL || strstr(buf, " time,") != NULL) !=
                count)
            fail_msg("%s: %s", rule, buf);
    }
    assert_true(read > 600);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_spellings),
        cmocka_unit_test(test_too_small),
        cmocka_unit_test(test_generated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
