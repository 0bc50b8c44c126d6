/* SPDX-License-Identifier: MIT */
/* The replay of a period (src/sched/simulate.c): decisions at each
 * occurrence while the server runs and once at the end of each outage,
 * runs that last so overlap policies show, and the bad periods refused.
 *
 * A replay is written as text, one line per occurrence:
 *   01:00 fire cron @01:00       (times of day, UTC, on 2026-01-01;
 *                                 seconds only when not zero)
 *   02:00 drop overlap @02:00 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sched/simulate.h"
#include "sked/sked.h"

#define SEC  SKED_USEC_PER_SEC
#define MIN  (60 * SEC)
#define HOUR (3600 * SEC)
#define DAY  (86400 * SEC)

static sked_tzdb *tzdb;

static sked_time T(const char *s)
{
    sked_time t = 0;

    if (sked_time_parse(s, &t, NULL) != 0)
        fail_msg("bad instant %s", s);
    return t;
}

/* An instant on 2026-01-01 from "HH:MM". */
static sked_time H(const char *hhmm)
{
    char buf[32];

    snprintf(buf, sizeof buf, "2026-01-01T%s:00Z", hhmm);
    return T(buf);
}

static void hourly(sked_schedule *s, const char *expr)
{
    sked_schedule_init(s);
    s->name = strdup("r");
    s->workflow = strdup("wf");
    s->cron = strdup(expr);
}

/* Write the time of T: "HH:MM" on 2026-01-01, else RFC 3339. */
static void tshort(sked_time t, char *buf, size_t size)
{
    char full[48];

    sked_time_format(t, full, sizeof full);
    if (strncmp(full, "2026-01-01T", 11) == 0)
        snprintf(buf, size, "%.*s", strncmp(full + 17, "00", 2) ? 8 : 5,
                 full + 11);
    else
        snprintf(buf, size, "%s", full);
}

static void describe(const sked_sim_out *o, char *buf, size_t size)
{
    size_t n = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < o->n && n < size; i++) {
        const sked_sim_record *r = &o->records[i];
        char occ[48], at[48];

        tshort(r->occurrence, occ, sizeof occ);
        tshort(r->at, at, sizeof at);
        n += (size_t) snprintf(buf + n, size - n, "%s %s %s%s%s @%s\n", occ,
                               r->fire ? "fire" : "drop",
                               r->fire ? sked__trigger_name(r->trigger)
                                       : sked__miss_reason_name(r->why),
                               r->buffered ? " buffered" : "",
                               r->cancel_active ? " cancel" : "", at);
    }
}

typedef struct run_opts {
    const char *tz;
    sked_dur duration;
    const sked_sim_down *down;
    size_t ndown;
} run_opts;

/* check_sim(s, from, to, want, options...): the options are run_opts's
 * designated initializers. */
#define check_sim(s, from, to, want, ...)                                      \
    check_sim_at(s, from, to, &(run_opts){__VA_ARGS__}, want, __LINE__)
static void check_sim_at(const sked_schedule *s, sked_time from, sked_time to,
                         const run_opts *o, const char *want, int line)
{
    const sked_tz *tz = sked_tz_utc();
    sked_sim_in in = {.s = s, .from = from, .to = to, .tick = SEC};
    static char got[1 << 16];
    sked_sim_out out;
    sked_error err;
    int rc;

    if (o && o->tz && sked_tzdb_get(tzdb, o->tz, &tz, NULL) != 0)
        fail_msg("zone %s", o->tz);
    in.tz = tz;
    if (o) {
        in.run_duration = o->duration;
        in.down = o->down;
        in.ndown = o->ndown;
    }
    if ((rc = sked__simulate(&in, &out, &err)) != 0)
        fail_msg("line %d: simulate returned %d: %s: %s", line, rc, err.field,
                 err.msg);
    describe(&out, got, sizeof got);
    sked__simulate_done(&out);
    if (strcmp(got, want) != 0)
        fail_msg("line %d: got\n%s\nwant\n%s", line, got, want);
}

static void test_no_outage(void **state)
{
    sked_schedule s;

    (void) state;
    hourly(&s, "0 * * * *");
    /* (from, to]: 00:00 is not in the period, 03:00 is. */
    check_sim(&s, H("00:00"), H("03:00"),
              "01:00 fire cron @01:00\n"
              "02:00 fire cron @02:00\n"
              "03:00 fire cron @03:00\n",
              0);
    sked_schedule_done(&s);
}

static void test_outage_policies(void **state)
{
    const sked_sim_down down[] = {{H("01:30"), H("04:30")}};
    sked_schedule s;

    (void) state;
    hourly(&s, "0 * * * *");
    check_sim(&s, H("00:00"), H("05:00"),
              "01:00 fire cron @01:00\n"
              "02:00 drop superseded @04:30\n"
              "03:00 drop superseded @04:30\n"
              "04:00 fire catchup @04:30\n"
              "05:00 fire cron @05:00\n",
              .down = down, .ndown = 1);
    s.catchup = SKED_CATCHUP_SKIP;
    check_sim(&s, H("00:00"), H("05:00"),
              "01:00 fire cron @01:00\n"
              "02:00 drop catchup_skip @04:30\n"
              "03:00 drop catchup_skip @04:30\n"
              "04:00 drop catchup_skip @04:30\n"
              "05:00 fire cron @05:00\n",
              .down = down, .ndown = 1);
    s.catchup = SKED_CATCHUP_ALL;
    s.catchup_max = 2;
    s.catchup_window = 2 * HOUR;
    check_sim(&s, H("00:00"), H("05:00"),
              "01:00 fire cron @01:00\n"
              "02:00 drop outside_window @04:30\n"
              "03:00 fire catchup @04:30\n"
              "04:00 fire catchup @04:30\n"
              "05:00 fire cron @05:00\n",
              .down = down, .ndown = 1);
    sked_schedule_done(&s);
}

/* Back exactly at an occurrence: it is on time; shorter than the grace
 * the outage changes nothing. */
static void test_outage_edges(void **state)
{
    const sked_sim_down at_occ[] = {{H("01:30"), H("03:00")}};
    const sked_sim_down short_one[] = {
        {T("2026-01-01T01:59:30Z"), T("2026-01-01T02:00:40Z")}};
    sked_schedule s;

    (void) state;
    hourly(&s, "0 * * * *");
    s.catchup = SKED_CATCHUP_SKIP;
    check_sim(&s, H("00:00"), H("03:00"),
              "01:00 fire cron @01:00\n"
              "02:00 drop catchup_skip @03:00\n"
              "03:00 fire cron @03:00\n",
              .down = at_occ, .ndown = 1);
    check_sim(&s, H("00:00"), H("03:00"),
              "01:00 fire cron @01:00\n"
              "02:00 fire cron @02:00:40\n"
              "03:00 fire cron @03:00\n",
              .down = short_one, .ndown = 1);
    sked_schedule_done(&s);
}

/* Runs last; each overlap policy over an hourly schedule. */
static void test_overlap_with_durations(void **state)
{
    sked_schedule s;

    (void) state;
    hourly(&s, "0 * * * *");
    s.overlap = SKED_OVERLAP_SKIP;
    check_sim(&s, H("00:00"), H("05:00"),
              "01:00 fire cron @01:00\n"
              "02:00 drop overlap @02:00\n"
              "03:00 fire cron @03:00\n"
              "04:00 drop overlap @04:00\n"
              "05:00 fire cron @05:00\n",
              .duration = 90 * MIN);
    /* A run ending exactly at the next occurrence leaves the key free. */
    check_sim(&s, H("00:00"), H("03:00"),
              "01:00 fire cron @01:00\n"
              "02:00 fire cron @02:00\n"
              "03:00 fire cron @03:00\n",
              .duration = HOUR);
    s.overlap = SKED_OVERLAP_BUFFER_ONE;
    check_sim(&s, H("00:00"), H("06:00"),
              "01:00 fire cron @01:00\n"
              "02:00 fire cron buffered @02:00\n"
              "03:00 drop overlap @03:00\n"
              "04:00 fire cron buffered @04:00\n"
              "05:00 drop overlap @05:00\n"
              "06:00 fire cron buffered @06:00\n",
              .duration = 150 * MIN);
    s.overlap = SKED_OVERLAP_BUFFER_ALL;
    check_sim(&s, H("00:00"), H("04:00"),
              "01:00 fire cron @01:00\n"
              "02:00 fire cron buffered @02:00\n"
              "03:00 fire cron buffered @03:00\n"
              "04:00 fire cron buffered @04:00\n",
              .duration = 90 * MIN);
    s.overlap = SKED_OVERLAP_CANCEL_OTHER;
    check_sim(&s, H("00:00"), H("03:00"),
              "01:00 fire cron @01:00\n"
              "02:00 fire cron cancel @02:00\n"
              "03:00 fire cron cancel @03:00\n",
              .duration = 90 * MIN);
    s.overlap = SKED_OVERLAP_ALLOW;
    check_sim(&s, H("00:00"), H("03:00"),
              "01:00 fire cron @01:00\n"
              "02:00 fire cron @02:00\n"
              "03:00 fire cron @03:00\n",
              .duration = 3 * HOUR);
    sked_schedule_done(&s);
}

/* The seed: morning-report, catchup all (5, 3 d), overlap skip, down from
 * Thursday noon to Monday 12:00 Paris across the spring change; runs last
 * 30 minutes. Saturday's run takes the key; Tuesday fires on time. */
static void test_seed_morning_report(void **state)
{
    const sked_sim_down down[] = {
        {T("2026-03-26T12:00:00Z"), T("2026-03-30T10:00:00Z")}};
    sked_schedule s;

    (void) state;
    hourly(&s, "0 9 * * *");
    free(s.name);
    s.name = strdup("morning-report");
    s.catchup = SKED_CATCHUP_ALL;
    s.catchup_max = 5;
    s.catchup_window = 3 * DAY;
    s.overlap = SKED_OVERLAP_SKIP;
    check_sim(&s, T("2026-03-25T00:00:00Z"), T("2026-04-01T00:00:00Z"),
              "2026-03-25T08:00:00Z fire cron @2026-03-25T08:00:00Z\n"
              "2026-03-26T08:00:00Z fire cron @2026-03-26T08:00:00Z\n"
              "2026-03-27T08:00:00Z drop outside_window "
              "@2026-03-30T10:00:00Z\n"
              "2026-03-28T08:00:00Z fire catchup @2026-03-30T10:00:00Z\n"
              "2026-03-29T07:00:00Z drop overlap @2026-03-30T10:00:00Z\n"
              "2026-03-30T07:00:00Z drop overlap @2026-03-30T10:00:00Z\n"
              "2026-03-31T07:00:00Z fire cron @2026-03-31T07:00:00Z\n",
              .tz = "Europe/Paris", .duration = 30 * MIN, .down = down,
              .ndown = 1);
    sked_schedule_done(&s);
}

static void test_max_runs_and_interval(void **state)
{
    sked_schedule s;

    (void) state;
    sked_schedule_init(&s);
    s.name = strdup("tick");
    s.workflow = strdup("wf");
    s.kind = SKED_SPEC_EVERY;
    s.every = 90 * MIN;
    s.anchor = H("00:00");
    s.max_runs = 2;
    check_sim(&s, H("00:00"), H("06:00"),
              "01:30 fire cron @01:30\n"
              "03:00 fire cron @03:00\n",
              0);
    sked_schedule_done(&s);
}

static void test_bad_periods(void **state)
{
    sked_schedule s;
    sked_sim_in in = {.s = &s, .from = H("01:00"), .to = H("01:00")};
    sked_sim_down down[2] = {{H("02:00"), H("03:00")},
                             {H("02:30"), H("04:00")}};
    sked_sim_out out = {.n = 7};
    sked_error err;

    (void) state;
    hourly(&s, "0 * * * *");
    assert_int_equal(sked__simulate(&in, &out, &err), SKED_EINVAL);
    assert_string_equal(err.field, "to");
    in.to = H("00:00");
    assert_int_equal(sked__simulate(&in, &out, &err), SKED_EINVAL);
    assert_string_equal(err.field, "to");
    in.to = H("05:00");
    in.down = down;
    in.ndown = 2;
    assert_int_equal(sked__simulate(&in, &out, &err), SKED_EINVAL);
    assert_string_equal(err.field, "down[1]");
    down[1] = (sked_sim_down){H("04:00"), H("06:00")};
    assert_int_equal(sked__simulate(&in, &out, &err), SKED_EINVAL);
    assert_string_equal(err.field, "down[1]");
    down[1] = (sked_sim_down){H("04:00"), H("04:00")};
    assert_int_equal(sked__simulate(&in, &out, &err), SKED_EINVAL);
    assert_string_equal(err.field, "down[1]");
    in.ndown = 0;
    in.run_duration = -1;
    assert_int_equal(sked__simulate(&in, &out, &err), SKED_EINVAL);
    assert_string_equal(err.field, "run_duration");
    in.run_duration = 0;
    in.max_records = 3;
    assert_int_equal(sked__simulate(&in, &out, &err), SKED_ETOOBIG);
    assert_string_equal(err.field, "to");
    assert_int_equal(out.n, 7); /* untouched */
    in.max_records = 4;
    assert_int_equal(sked__simulate(&in, &out, &err), 0);
    assert_int_equal(out.n, 4);
    sked__simulate_done(&out);
    free(s.cron);
    s.cron = strdup("bad");
    assert_int_equal(sked__simulate(&in, &out, &err), SKED_EINVAL);
    assert_string_equal(err.field, "cron");
    sked_schedule_done(&s);
    sked__simulate_done(NULL);
}

/* A year of a per-minute schedule down for a month: replayed whole, each
 * count adding up, in well under a second. */
static void test_long_replay(void **state)
{
    const sked_sim_down down[] = {
        {T("2026-03-01T00:00:00Z"), T("2026-04-01T00:00:00Z")}};
    sked_sim_in in = {.from = T("2026-01-01T00:00:00Z"),
                      .to = T("2026-07-01T00:00:00Z"),
                      .down = down,
                      .ndown = 1,
                      .tick = SEC};
    sked_schedule s;
    sked_sim_out out;
    sked_error err;
    size_t fired = 0, outside = 0;

    (void) state;
    hourly(&s, "* * * * *");
    in.s = &s;
    assert_int_equal(sked__simulate(&in, &out, &err), 0);
    assert_int_equal(out.n, 181 * 24 * 60);
    for (size_t i = 0; i < out.n; i++) {
        fired += (size_t) out.records[i].fire;
        outside += !out.records[i].fire &&
                   out.records[i].why == SKED_MISS_OUTSIDE_WINDOW;
    }
    /* 31 days down: 30 days outside the 1-day window. */
    assert_int_equal(outside, 30 * 24 * 60);
    assert_int_equal(fired, out.n - 31 * 24 * 60 + 1);
    sked__simulate_done(&out);
    sked_schedule_done(&s);
}

static int setup(void **state)
{
    (void) state;
    return sked_tzdb_open(SKED_TEST_DATA "/zoneinfo", &tzdb, NULL) == 0 ? 0
                                                                        : -1;
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
        cmocka_unit_test(test_no_outage),
        cmocka_unit_test(test_outage_policies),
        cmocka_unit_test(test_outage_edges),
        cmocka_unit_test(test_overlap_with_durations),
        cmocka_unit_test(test_seed_morning_report),
        cmocka_unit_test(test_max_runs_and_interval),
        cmocka_unit_test(test_bad_periods),
        cmocka_unit_test(test_long_replay),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
