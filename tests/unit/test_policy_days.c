/* SPDX-License-Identifier: MIT */
/* Firing decisions through calendars (src/sched/policy.c with
 * src/model/schedule_slots.c): an occurrence on an excluded day dropped
 * with reason "excluded", or moved to the next or previous business day
 * with both instants kept (the run's id from its occurrence, its
 * scheduled_for the day it moved to); catch-up across excluded days; and
 * the invariant every decision must keep, on generated calendars, zones
 * and decision times: each slot of the schedule is decided exactly once,
 * as a fire or a drop, whatever moments the scheduler decides at. And
 * the replay (simulate) adds up with calendars. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cron/daycal.h"
#include "model/schedule_occ.h"
#include "sched/policy.h"
#include "sched/simulate.h"
#include "sked/sked.h"

#define SEC  SKED_USEC_PER_SEC
#define HOUR (3600 * SEC)
#define DAY  (86400 * SEC)
#define NONE SKED_TIME_NONE

static sked_tzdb *tzdb;

static sked_time T(const char *s)
{
    sked_time t = 0;

    if (sked_time_parse(s, &t, NULL) != 0)
        fail_msg("bad instant %s", s);
    return t;
}

static const sked_tz *zone(const char *name)
{
    const sked_tz *tz = NULL;

    if (!name || strcmp(name, "UTC") == 0)
        return sked_tz_utc();
    if (sked_tzdb_get(tzdb, name, &tz, NULL) != 0)
        fail_msg("zone %s", name);
    return tz;
}

/* A calendar of the N dates DATES (Monday to Friday business days). */
static sked__daycal *cal(const char *const *dates, size_t n)
{
    sked__daycal_spec spec = {.name = "c", .dates = dates, .ndates = n};
    sked__daycal *c = NULL;
    sked_error err;

    if (sked__daycal_build(&spec, NULL, NULL, &c, &err) != 0)
        fail_msg("calendar: %s", err.msg);
    return c;
}

static void cron_sched(sked_schedule *s, const char *expr, const char *tz,
                       const char *cursor)
{
    sked_schedule_init(s);
    s->name = strdup("r");
    s->workflow = strdup("wf");
    s->kind = SKED_SPEC_CRON;
    s->cron = strdup(expr);
    s->timezone = tz ? strdup(tz) : NULL;
    s->created_at = T("2020-01-01T00:00:00Z");
    s->last_fired_at = cursor ? T(cursor) : NONE;
}

static void tfmt(sked_time t, char *buf, size_t size)
{
    if (t == NONE || sked_time_format(t, buf, size) < 0)
        snprintf(buf, size, "-");
}

/* Decide S at NOW through DAYS and describe it: "F ID TRIGGER [at T]"
 * per fire (at only for a moved one), "M REASON N FIRST LAST" per
 * reason, then the cursor and the next instant. */
static void decide(sked_schedule *s, const sked__occ_days *days,
                   const char *now, char *buf, size_t size)
{
    sked_policy_in in = {.s = s,
                         .tz = zone(s->timezone),
                         .now = T(now),
                         .tick = SEC,
                         .days = days};
    sked_policy_out o;
    char id[SKED_RUN_ID_MAX], a[48], b[48];
    size_t n = 0;

    assert_int_equal(sked__policy_plan(&in, &o), 0);
    buf[0] = '\0';
    for (size_t i = 0; i < o.nfires; i++) {
        const sked_fire *f = &o.fires[i];
        assert_true(
            sked__run_id_scheduled(s->name, f->occurrence, id, sizeof id) > 0);
        tfmt(f->at, a, sizeof a);
        n += (size_t) snprintf(buf + n, size - n, "F %s %s%s%s\n", id,
                               sked__trigger_name(f->trigger),
                               f->at != f->occurrence ? " at " : "",
                               f->at != f->occurrence ? a : "");
    }
    for (int r = 0; r < SKED_MISS__COUNT; r++) {
        if (o.missed[r].count == 0)
            continue;
        tfmt(o.missed[r].first, a, sizeof a);
        tfmt(o.missed[r].last, b, sizeof b);
        n += (size_t) snprintf(buf + n, size - n, "M %s %lld %s %s\n",
                               sked__miss_reason_name((sked_miss_reason) r),
                               (long long) o.missed[r].count, a, b);
    }
    tfmt(o.cursor, a, sizeof a);
    tfmt(o.next, b, sizeof b);
    snprintf(buf + n, size - n, "cursor %s\nnext %s\n", a, b);
    s->last_fired_at = o.cursor;
    s->next_fire_at = o.next;
    sked__policy_done(&o);
}

static const char *const XMAS[] = {"2026-12-25"};

/* ---- the cases a user reads ------------------------------------------- */

static void test_excluded_is_dropped_with_its_reason(void **state)
{
    sked__daycal *c = cal(XMAS, 1);
    sked__occ_days days = {c, NULL, SKED_ON_EXCLUDED_SKIP};
    sked_schedule s;
    char out[1024];

    (void) state;
    cron_sched(&s, "0 9 * * *", "Europe/Paris", "2026-12-24T08:00:00Z");
    decide(&s, &days, "2026-12-25T08:00:00Z", out, sizeof out);
    assert_string_equal(out, "M excluded 1 2026-12-25T08:00:00Z "
                             "2026-12-25T08:00:00Z\n"
                             "cursor 2026-12-25T08:00:00Z\n"
                             "next 2026-12-26T08:00:00Z\n");
    decide(&s, &days, "2026-12-26T08:00:00Z", out, sizeof out);
    assert_string_equal(out, "F sched-r-2026-12-26T08:00:00Z cron\n"
                             "cursor 2026-12-26T08:00:00Z\n"
                             "next 2026-12-27T08:00:00Z\n");
    sked_schedule_done(&s);
    sked__daycal_free(c);
}

static void test_moved_to_the_next_business_day(void **state)
{
    sked__daycal *c = cal(XMAS, 1);
    sked__occ_days days = {c, NULL, SKED_ON_EXCLUDED_NEXT_BUSINESS_DAY};
    sked_schedule s;
    char out[1024];

    (void) state;
    /* The 25th, a Friday, fires on Monday the 28th at 09:00 Paris. */
    cron_sched(&s, "0 9 25 * *", "Europe/Paris", "2026-11-25T08:00:00Z");
    decide(&s, &days, "2026-12-25T08:00:00Z", out, sizeof out);
    assert_string_equal(out, "cursor 2026-11-25T08:00:00Z\n"
                             "next 2026-12-28T08:00:00Z\n");
    decide(&s, &days, "2026-12-28T08:00:00Z", out, sizeof out);
    assert_string_equal(out, "F sched-r-2026-12-25T08:00:00Z cron at "
                             "2026-12-28T08:00:00Z\n"
                             "cursor 2026-12-28T08:00:00Z\n"
                             "next 2027-01-25T08:00:00Z\n");
    sked_schedule_done(&s);
    sked__daycal_free(c);
}

static void test_moved_to_the_previous_business_day(void **state)
{
    sked__daycal *c = cal(XMAS, 1);
    sked__occ_days days = {c, NULL, SKED_ON_EXCLUDED_PREVIOUS_BUSINESS_DAY};
    sked_schedule s;
    char out[1024];

    (void) state;
    cron_sched(&s, "0 18 25 * *", "America/New_York", "2026-11-25T23:00:00Z");
    decide(&s, &days, "2026-12-01T00:00:00Z", out, sizeof out);
    assert_string_equal(out, "cursor 2026-11-25T23:00:00Z\n"
                             "next 2026-12-24T23:00:00Z\n");
    decide(&s, &days, "2026-12-24T23:00:00Z", out, sizeof out);
    assert_string_equal(out, "F sched-r-2026-12-25T23:00:00Z cron at "
                             "2026-12-24T23:00:00Z\n"
                             "cursor 2026-12-24T23:00:00Z\n"
                             "next 2027-01-25T23:00:00Z\n");
    sked_schedule_done(&s);
    sked__daycal_free(c);
}

/* A one-time schedule moved to the business day before its instant fires
 * there, and is done. */
static void test_one_time_moved_back(void **state)
{
    sked__daycal *c = cal(XMAS, 1);
    sked__occ_days days = {c, NULL, SKED_ON_EXCLUDED_PREVIOUS_BUSINESS_DAY};
    sked_schedule s;
    char out[1024];

    (void) state;
    cron_sched(&s, "0 9 * * *", "UTC", NULL);
    free(s.cron);
    s.cron = NULL;
    s.kind = SKED_SPEC_AT;
    s.at = T("2026-12-25T09:00:00Z");
    s.created_at = T("2026-12-20T00:00:00Z");
    decide(&s, &days, "2026-12-24T09:00:00Z", out, sizeof out);
    assert_string_equal(out, "F sched-r-2026-12-25T09:00:00Z cron at "
                             "2026-12-24T09:00:00Z\n"
                             "cursor 2026-12-24T09:00:00Z\n"
                             "next -\n");
    sked_schedule_done(&s);
    sked__daycal_free(c);
}

/* A daily schedule moved off a holiday lands where it fires anyway: it
 * runs once that day, the holiday's occurrence dropped as excluded. */
static void test_a_move_onto_a_fire_merges(void **state)
{
    static const char *const two[] = {"2026-12-25", "2026-12-28"};
    sked__daycal *c = cal(two, 2);
    sked__occ_days days = {c, NULL, SKED_ON_EXCLUDED_NEXT_BUSINESS_DAY};
    sked_schedule s;
    char out[1024];

    (void) state;
    cron_sched(&s, "0 9 * * *", "UTC", "2026-12-24T09:00:00Z");
    s.catchup_window = 30 * DAY;
    decide(&s, &days, "2026-12-29T09:00:00Z", out, sizeof out);
    /* The latest late one fires (27th), the 26th is superseded, the 29th
     * is on time; the 25th and 28th move onto the 29th: excluded. */
    assert_string_equal(out, "F sched-r-2026-12-27T09:00:00Z catchup\n"
                             "F sched-r-2026-12-29T09:00:00Z cron\n"
                             "M superseded 1 2026-12-26T09:00:00Z "
                             "2026-12-26T09:00:00Z\n"
                             "M excluded 2 2026-12-25T09:00:00Z "
                             "2026-12-28T09:00:00Z\n"
                             "cursor 2026-12-29T09:00:00Z\n"
                             "next 2026-12-30T09:00:00Z\n");
    sked_schedule_done(&s);
    sked__daycal_free(c);
}

/* "only": fires on the calendar's days alone. */
static void test_only_its_days(void **state)
{
    static const char *const days1[] = {"2027-01-04", "2027-01-06"};
    sked__daycal *c = cal(days1, 2);
    sked__occ_days days = {NULL, c, SKED_ON_EXCLUDED_SKIP};
    sked_schedule s;
    char out[1024];

    (void) state;
    cron_sched(&s, "0 9 * * *", "UTC", "2027-01-03T09:00:00Z");
    s.catchup = SKED_CATCHUP_ALL;
    s.catchup_window = 30 * DAY;
    decide(&s, &days, "2027-01-07T09:00:00Z", out, sizeof out);
    assert_string_equal(out, "F sched-r-2027-01-04T09:00:00Z catchup\n"
                             "F sched-r-2027-01-06T09:00:00Z catchup\n"
                             "M excluded 2 2027-01-05T09:00:00Z "
                             "2027-01-07T09:00:00Z\n"
                             "cursor 2027-01-07T09:00:00Z\n"
                             "next 2027-01-08T09:00:00Z\n");
    sked_schedule_done(&s);
    sked__daycal_free(c);
}

/* ---- every slot decided once -------------------------------------------- */

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Random dates of 2026-2027 in runs of 1 to 4 days. */
static sked__daycal *random_cal(char dates[][11], size_t max, size_t *n)
{
    const char *ptrs[128];
    sked_time t;
    size_t k = 0;

    while (k + 4 < max) {
        t = T("2026-01-01T12:00:00Z") + (sked_time) (next_rand() % 700) * DAY;
        for (int run = (int) (next_rand() % 4) + 1; run > 0 && k < max;
             run--, t += DAY) {
            char buf[SKED_TIME_STRLEN];
            assert_true(sked_time_format(t, buf, sizeof buf) > 0);
            memcpy(dates[k], buf, 10);
            dates[k][10] = '\0';
            ptrs[k] = dates[k];
            k++;
        }
    }
    *n = k;
    return cal(ptrs, k);
}

/* Walk S's slots in (FROM, TO] and count them. */
static int64_t slots_in(const sked_schedule *s, const sked__occ_days *days,
                        sked_time from, sked_time to)
{
    sked__occ_spec o;
    sked__occ_slot x = {.at = from};
    int64_t n = 0;

    assert_int_equal(
        sked__occ_spec_init(&o, s, zone(s->timezone), NULL, days, from, NULL),
        0);
    while (sked__occ_slot_next(&o, x.at, &x) == 0 && x.at <= to)
        n++;
    sked__occ_spec_done(&o);
    return n;
}

static void test_every_slot_decided_once(void **state)
{
    static const char *const zones[] = {"Europe/Paris", "America/New_York",
                                        "Australia/Lord_Howe", "Asia/Kolkata",
                                        "UTC"};
    static const char *const exprs[] = {
        "30 2 * * *",      "0 9 * * 1-5", "0 */6 * * *",
        "0 9 25 * *",      "30 1 * * *",  "0 9 1,15 * *",
        "0 9,17 1,25 * *", "0 8 * * 1",   "0 9,18 * * 3"};
    char dates[128][11], when[SKED_TIME_STRLEN];
    sked_time from = T("2026-01-01T00:00:00Z"), to = T("2027-12-31T00:00:00Z");

    (void) state;
    for (int round = 0; round < 400; round++) {
        size_t n;
        sked__daycal *c = random_cal(dates, 120, &n);
        /* Each choice drawn on its own, so that every pairing occurs. */
        sked__occ_days days = {c, NULL, (sked_on_excluded) (next_rand() % 3)};
        sked_schedule s;
        int64_t fired = 0, dropped = 0, want;
        sked_time now = from;

        if (next_rand() % 5 == 4) { /* only, some rounds */
            days.only = days.exclude;
            days.exclude = NULL;
        }
        cron_sched(&s, exprs[next_rand() % 9], zones[next_rand() % 5], NULL);
        tfmt(from, when, sizeof when);
        s.last_fired_at = from;
        /* Every catch-up policy and window: what is late is dropped by
         * each reason in turn, moved slots among them. */
        s.catchup = (sked_catchup) (next_rand() % 3);
        s.catchup_max = (int32_t) (next_rand() % 5) + 1;
        s.catchup_window = ((sked_dur) (next_rand() % 20) + 1) * DAY;
        want = slots_in(&s, &days, from, to);
        /* Decide at random moments, some long after the last: outages. */
        while (now < to) {
            sked_policy_in in = {.s = &s,
                                 .tz = zone(s.timezone),
                                 .now = now,
                                 .tick = SEC,
                                 .days = &days};
            sked_policy_out o;
            assert_int_equal(sked__policy_plan(&in, &o), 0);
            fired += (int64_t) o.nfires;
            for (int r = 0; r < SKED_MISS__COUNT; r++)
                dropped += o.missed[r].count;
            for (size_t i = 1; i < o.nfires; i++)
                assert_true(o.fires[i - 1].at < o.fires[i].at);
            s.last_fired_at = o.cursor;
            sked__policy_done(&o);
            static const sked_dur gaps[] = {12 * HOUR, 3 * DAY, 40 * DAY};
            now +=
                (sked_time) (next_rand() % (uint64_t) gaps[next_rand() % 3]) +
                SEC;
        }
        /* Up to TO exactly: decide once more there. */
        {
            sked_policy_in in = {.s = &s,
                                 .tz = zone(s.timezone),
                                 .now = to,
                                 .tick = SEC,
                                 .days = &days};
            sked_policy_out o;
            assert_int_equal(sked__policy_plan(&in, &o), 0);
            fired += (int64_t) o.nfires;
            for (int r = 0; r < SKED_MISS__COUNT; r++)
                dropped += o.missed[r].count;
            sked__policy_done(&o);
        }
        if (fired + dropped != want)
            fail_msg("round %d (%s in %s, mode %d): %lld fired + %lld "
                     "dropped, %lld slots",
                     round, s.cron, s.timezone, (int) days.on_excluded,
                     (long long) fired, (long long) dropped, (long long) want);
        sked_schedule_done(&s);
        sked__daycal_free(c);
    }
}

/* The replay adds up (it fails itself when a decision's records do not)
 * and shows the moved run's day. */
static void test_simulate_with_calendars(void **state)
{
    sked__daycal *c = cal(XMAS, 1);
    sked__occ_days days = {c, NULL, SKED_ON_EXCLUDED_NEXT_BUSINESS_DAY};
    sked_sim_down down = {T("2026-12-27T00:00:00Z"), T("2026-12-29T00:00:00Z")};
    sked_schedule s;
    sked_sim_in in = {.s = &s,
                      .tz = zone("Europe/Paris"),
                      .days = &days,
                      .from = T("2026-12-01T00:00:00Z"),
                      .to = T("2027-01-31T00:00:00Z"),
                      .down = &down,
                      .ndown = 1,
                      .tick = SEC};
    sked_sim_out out;
    sked_error err;
    bool moved = false;

    (void) state;
    cron_sched(&s, "0 9 25 * *", "Europe/Paris", NULL);
    if (sked__simulate(&in, &out, &err) != 0)
        fail_msg("simulate: %s", err.msg);
    for (size_t i = 0; i < out.n; i++)
        if (out.records[i].occurrence == T("2026-12-25T08:00:00Z")) {
            moved = true;
            assert_true(out.records[i].fire);
            assert_int_equal(out.records[i].scheduled_for,
                             T("2026-12-28T08:00:00Z"));
            /* Down then: decided when the server came back. */
            assert_int_equal(out.records[i].at, T("2026-12-29T00:00:00Z"));
        }
    assert_true(moved);
    sked__simulate_done(&out);
    sked_schedule_done(&s);
    sked__daycal_free(c);
}

static int setup(void **state)
{
    (void) state;
    return sked_tzdb_open(NULL, &tzdb, NULL);
}

static int teardown(void **state)
{
    (void) state;
    sked_tzdb_close(tzdb);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_excluded_is_dropped_with_its_reason),
        cmocka_unit_test(test_moved_to_the_next_business_day),
        cmocka_unit_test(test_moved_to_the_previous_business_day),
        cmocka_unit_test(test_one_time_moved_back),
        cmocka_unit_test(test_a_move_onto_a_fire_merges),
        cmocka_unit_test(test_only_its_days),
        cmocka_unit_test(test_every_slot_decided_once),
        cmocka_unit_test(test_simulate_with_calendars),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
