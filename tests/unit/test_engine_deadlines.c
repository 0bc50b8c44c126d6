/* SPDX-License-Identifier: MIT */
/* Deadlines and heartbeat schedules through the engine (sked/engine.h,
 * model/deadline.h) on a virtual clock: a run completed in time misses
 * nothing, one still pending past its deadline misses it once (event,
 * the run's and the schedule's marks), a start deadline is its own miss;
 * a heartbeat schedule's runs wait for pings (on time, late, never,
 * twice, early by less than a minute, start then success, fail), and a
 * deadline is missed once with two engines checking it, across a DST
 * change too. A heartbeat run failed by its deadline or its ping counts
 * toward pause_after_failures, and a success resets the count. The rules of the
 * fields are refused with the field named. The database is SKED_TEST_DB_URL
 * when set, else a fresh SQLite file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_db.h"
#include "test_vclock.h"

#include "sked/engine.h"
#include "sked/sked.h"

static int setup(void **state)
{
    const char *const tables[] = {"runs", "events", "schedules"};

    sked_tv_setup(state, tables, sizeof tables / sizeof tables[0]);
    return 0;
}

#define MIN (INT64_C(60) * SKED_USEC_PER_SEC)

/* The count of events of TYPE whose payload holds TEXT. */
static long long events(const char *type, const char *text)
{
    char sql[512];

    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM events WHERE type = '%s' AND payload "
             "LIKE '%%%s%%'",
             type, text);
    return sked_tv_q(sql);
}

/* Fill S as schedule NAME of CRON in ZONE, DEADLINE and START deadline
 * (minutes; 0: none), a heartbeat when HEARTBEAT (then no workflow). */
static void define(sked_schedule *s, const char *name, const char *cron,
                   const char *zone, int deadline, int start, bool heartbeat)
{
    sked_schedule_init(s);
    s->name = strdup(name);
    s->workflow = heartbeat ? NULL : strdup("report");
    s->cron = strdup(cron);
    s->timezone = strdup(zone);
    s->deadline = deadline * MIN;
    s->start_deadline = start * MIN;
    s->heartbeat = heartbeat;
}

static void create(sked_engine *e, const char *name, const char *cron,
                   const char *zone, int deadline, int start, bool heartbeat)
{
    sked_schedule s;
    sked_error err;

    define(&s, name, cron, zone, deadline, start, heartbeat);
    if (sked_engine_schedule_create(e, &s, &err) != 0)
        fail_msg("create %s: %s: %s", name, err.field, err.msg);
    sked_schedule_done(&s);
}

static int ping(sked_engine *e, const char *at, const char *name,
                sked_ping_status status, const char *body, sked_error *err)
{
    sked_tv_set(sked_tv_time(at));
    return sked_engine_schedule_ping(e, name, status, body,
                                     body ? strlen(body) : 0, NULL, err);
}

static long long missed_of(const char *name)
{
    char sql[256];

    snprintf(sql, sizeof sql,
             "SELECT deadlines_missed FROM schedules WHERE name = '%s'", name);
    return sked_tv_q(sql);
}

static void test_completion_deadline(void **state)
{
    sked_engine *e = *state;

    sked_tv_set(sked_tv_time("2026-12-01T08:00:00Z"));
    create(e, "report", "0 9 * * *", "UTC", 30, 0, false);
    sked_tv_tick_at(e, "2026-12-01T09:00:00Z");
    assert_int_equal(sked_tv_q("SELECT count(*) FROM runs WHERE deadline_at = "
                               "(SELECT scheduled_for FROM runs) + 1800000000"),
                     1);
    /* Not yet: nothing is missed at 09:29. */
    sked_tv_tick_at(e, "2026-12-01T09:29:00Z");
    assert_int_equal(events("schedule.deadline_missed", ""), 0);
    sked_tv_tick_at(e, "2026-12-01T09:30:01Z");
    assert_int_equal(
        events("schedule.deadline_missed", "\"deadline\":\"completion\""), 1);
    assert_int_equal(
        events("schedule.deadline_missed", "\"state\":\"pending\""), 1);
    assert_int_equal(
        sked_tv_q("SELECT count(*) FROM runs WHERE deadline_missed = "
                  "'completion' AND deadline_at IS NULL"),
        1);
    assert_int_equal(missed_of("report"), 1);
    /* Once: later passes find nothing more. */
    sked_tv_tick_at(e, "2026-12-01T09:45:00Z");
    sked_tv_tick_at(e, "2026-12-01T10:45:00Z");
    assert_int_equal(events("schedule.deadline_missed", ""), 1);
    /* The next day's run completes in time: no miss. */
    sked_tv_tick_at(e, "2026-12-02T09:00:00Z");
    sked_tv_set(sked_tv_time("2026-12-02T09:10:00Z"));
    assert_int_equal(
        sked_test_sql(sked_tv_url(),
                      "UPDATE runs SET status = 'completed', started_at = "
                      "scheduled_for, finished_at = scheduled_for + "
                      "600000000 WHERE status = 'pending'",
                      NULL),
        0);
    sked_tv_tick_at(e, "2026-12-02T09:31:00Z");
    assert_int_equal(events("schedule.deadline_missed", ""), 1);
    assert_int_equal(
        sked_tv_q("SELECT count(*) FROM runs WHERE deadline_at IS NOT "
                  "NULL"),
        0);
    assert_int_equal(sked_tv_q("SELECT count(*) FROM schedules WHERE "
                               "deadline_check_at IS NULL"),
                     1);
}

static void test_start_deadline(void **state)
{
    sked_engine *e = *state;

    sked_tv_set(sked_tv_time("2026-12-01T08:00:00Z"));
    create(e, "etl", "0 9 * * *", "UTC", 60, 5, false);
    sked_tv_tick_at(e, "2026-12-01T09:00:00Z");
    sked_tv_tick_at(e, "2026-12-01T09:05:30Z");
    assert_int_equal(
        events("schedule.deadline_missed", "\"deadline\":\"start\""), 1);
    assert_int_equal(events("schedule.deadline_missed", "completion"), 0);
    /* Started late, completed in time: only its start was missed. */
    assert_int_equal(
        sked_test_sql(sked_tv_url(),
                      "UPDATE runs SET status = 'completed', started_at = "
                      "scheduled_for + 360000000, finished_at = "
                      "scheduled_for + 1200000000",
                      NULL),
        0);
    sked_tv_tick_at(e, "2026-12-01T10:00:30Z");
    assert_int_equal(events("schedule.deadline_missed", ""), 1);
    assert_int_equal(
        sked_tv_q("SELECT count(*) FROM runs WHERE deadline_missed = "
                  "'start' AND deadline_at IS NULL"),
        1);
    assert_int_equal(missed_of("etl"), 1);
}

static void test_heartbeat_pings(void **state)
{
    sked_engine *e = *state;
    sked_error err;

    sked_tv_set(sked_tv_time("2026-12-01T09:30:00Z"));
    create(e, "backup", "0 * * * *", "UTC", 10, 0, true);
    assert_int_equal(
        sked_tv_q("SELECT count(*) FROM schedules WHERE workflow = 'backup'"),
        1);
    /* On time. */
    sked_tv_tick_at(e, "2026-12-01T10:00:00Z");
    assert_int_equal(
        sked_tv_q("SELECT count(*) FROM runs WHERE trigger_kind = "
                  "'heartbeat' AND status = 'pending' AND queue = ''"),
        1);
    assert_int_equal(ping(e, "2026-12-01T10:04:00Z", "backup",
                          SKED_PING_SUCCESS, "{\"files\":12}", &err),
                     0);
    assert_int_equal(
        sked_tv_q("SELECT count(*) FROM runs WHERE status = 'completed' "
                  "AND output = '{\"files\":12}'"),
        1);
    sked_tv_tick_at(e, "2026-12-01T10:10:30Z");
    assert_int_equal(events("schedule.deadline_missed", ""), 0);
    /* Pinged twice: the second finds no occurrence awaiting it. */
    assert_int_equal(ping(e, "2026-12-01T10:20:00Z", "backup",
                          SKED_PING_SUCCESS, NULL, &err),
                     SKED_ECONFLICT);
    /* Never: at 11:10 the run fails, its deadline missed. */
    sked_tv_tick_at(e, "2026-12-01T11:00:00Z");
    sked_tv_tick_at(e, "2026-12-01T11:10:01Z");
    assert_int_equal(
        sked_tv_q("SELECT count(*) FROM runs WHERE status = 'failed' "
                  "AND error_code = 'deadline_missed'"),
        1);
    assert_int_equal(
        events("schedule.deadline_missed", "\"state\":\"pending\""), 1);
    assert_int_equal(events("run.failed", "deadline_missed"), 1);
    /* Late: the 11:00 occurrence has ended; the next is an hour away. */
    assert_int_equal(ping(e, "2026-12-01T11:15:00Z", "backup",
                          SKED_PING_SUCCESS, NULL, &err),
                     SKED_ECONFLICT);
    /* Early by 30 s (clocks differ): for 12:00, whose run it makes; the
     * firing at 12:00 finds it made. */
    assert_int_equal(ping(e, "2026-12-01T11:59:30Z", "backup",
                          SKED_PING_SUCCESS, NULL, &err),
                     0);
    /* Early twice: the refusal says the next was pinged already. */
    assert_int_equal(ping(e, "2026-12-01T11:59:40Z", "backup",
                          SKED_PING_SUCCESS, NULL, &err),
                     SKED_ECONFLICT);
    if (!strstr(err.msg, "the next (2026-12-01T12:00:00Z) was pinged already"))
        fail_msg("the refusal of a second early ping: %s", err.msg);
    sked_tv_tick_at(e, "2026-12-01T12:00:00Z");
    assert_int_equal(
        sked_tv_q("SELECT count(*) FROM runs WHERE scheduled_for = "
                  "(SELECT max(scheduled_for) FROM runs)"),
        1);
    assert_int_equal(
        sked_tv_q("SELECT count(*) FROM runs WHERE status = 'completed'"), 2);
    /* Start, then success: the run is running, then completed. */
    sked_tv_tick_at(e, "2026-12-01T13:00:00Z");
    assert_int_equal(
        ping(e, "2026-12-01T13:00:05Z", "backup", SKED_PING_START, NULL, &err),
        0);
    assert_int_equal(
        sked_tv_q("SELECT count(*) FROM runs WHERE status = 'running' "
                  "AND started_at IS NOT NULL"),
        1);
    assert_int_equal(ping(e, "2026-12-01T13:03:00Z", "backup",
                          SKED_PING_SUCCESS, NULL, &err),
                     0);
    assert_int_equal(
        sked_tv_q("SELECT count(*) FROM runs WHERE status = 'completed'"), 3);
    /* Fail: the run fails with the job's word. */
    sked_tv_tick_at(e, "2026-12-01T14:00:00Z");
    assert_int_equal(ping(e, "2026-12-01T14:01:00Z", "backup", SKED_PING_FAIL,
                          "disk full", &err),
                     0);
    assert_int_equal(
        sked_tv_q("SELECT count(*) FROM runs WHERE status = 'failed' AND "
                  "error_code = 'ping_failed' AND output = 'disk full'"),
        1);
    sked_tv_tick_at(e, "2026-12-01T14:10:30Z");
    /* A completion missed by the failed run too, and by the 11:00 one. */
    assert_int_equal(missed_of("backup"), 2);
    assert_int_equal(events("run.failed", "deadline_missed"), 1);
}

/* Create the heartbeat NAME, hourly, deadline 10 min, paused after two
 * consecutive failed runs. */
static void create_pausing(sked_engine *e, const char *name)
{
    sked_schedule s;
    sked_error err;

    define(&s, name, "0 * * * *", "UTC", 10, 0, true);
    s.pause_after_failures = 2;
    if (sked_engine_schedule_create(e, &s, &err) != 0)
        fail_msg("create %s: %s: %s", name, err.field, err.msg);
    sked_schedule_done(&s);
}

static long long failures_of(const char *name)
{
    char sql[256];

    snprintf(sql, sizeof sql,
             "SELECT consecutive_failures FROM schedules WHERE name = '%s' "
             "AND status = 'active'",
             name);
    return sked_tv_q(sql);
}

static long long paused(const char *name)
{
    char sql[256];

    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM schedules WHERE name = '%s' AND status = "
             "'paused' AND last_error = 'paused after 2 consecutive failed "
             "runs'",
             name);
    return sked_tv_q(sql);
}

/* Missed deadlines count as failed runs for pause_after_failures: two
 * with a success between them do not pause; two in a row do. */
static void test_heartbeat_pause_missed(void **state)
{
    sked_engine *e = *state;
    sked_error err;

    sked_tv_set(sked_tv_time("2026-12-01T09:30:00Z"));
    create_pausing(e, "beat");
    sked_tv_tick_at(e, "2026-12-01T10:00:00Z");
    sked_tv_tick_at(e, "2026-12-01T10:10:01Z");
    assert_int_equal(failures_of("beat"), 1);
    sked_tv_tick_at(e, "2026-12-01T11:00:00Z");
    assert_int_equal(
        ping(e, "2026-12-01T11:02:00Z", "beat", SKED_PING_SUCCESS, NULL, &err),
        0);
    assert_int_equal(failures_of("beat"), 0);
    sked_tv_tick_at(e, "2026-12-01T12:00:00Z");
    sked_tv_tick_at(e, "2026-12-01T12:10:01Z");
    assert_int_equal(sked_tv_q("SELECT count(*) FROM runs WHERE error_code = "
                               "'deadline_missed'"),
                     2);
    assert_int_equal(failures_of("beat"), 1);
    assert_int_equal(events("schedule.paused", ""), 0);
    /* The second miss in a row pauses it, with its event, once. */
    sked_tv_tick_at(e, "2026-12-01T13:00:00Z");
    sked_tv_tick_at(e, "2026-12-01T13:10:01Z");
    assert_int_equal(paused("beat"), 1);
    assert_int_equal(
        events("schedule.paused", "paused after 2 consecutive failed runs"), 1);
    assert_int_equal(sked_tv_q("SELECT count(*) FROM schedules WHERE "
                               "consecutive_failures = 2"),
                     1);
    /* Paused: no run for 14:00, and no ping is awaited. */
    sked_tv_tick_at(e, "2026-12-01T14:00:00Z");
    sked_tv_tick_at(e, "2026-12-01T14:30:00Z");
    assert_int_equal(sked_tv_q("SELECT count(*) FROM runs"), 4);
    assert_int_equal(
        ping(e, "2026-12-01T14:30:00Z", "beat", SKED_PING_SUCCESS, NULL, &err),
        SKED_ECONFLICT);
    assert_int_equal(events("schedule.paused", ""), 1);
}

/* A ping with status fail counts as a failed run too, with a missed
 * deadline after it; a ping of success between resets the count. */
static void test_heartbeat_pause_ping_fail(void **state)
{
    sked_engine *e = *state;
    sked_error err;

    sked_tv_set(sked_tv_time("2026-12-01T09:30:00Z"));
    create_pausing(e, "job");
    sked_tv_tick_at(e, "2026-12-01T10:00:00Z");
    assert_int_equal(
        ping(e, "2026-12-01T10:01:00Z", "job", SKED_PING_FAIL, "no disk", &err),
        0);
    assert_int_equal(failures_of("job"), 1);
    sked_tv_tick_at(e, "2026-12-01T11:00:00Z");
    assert_int_equal(
        ping(e, "2026-12-01T11:01:00Z", "job", SKED_PING_START, NULL, &err), 0);
    assert_int_equal(failures_of("job"), 1);
    assert_int_equal(
        ping(e, "2026-12-01T11:05:00Z", "job", SKED_PING_SUCCESS, NULL, &err),
        0);
    assert_int_equal(failures_of("job"), 0);
    sked_tv_tick_at(e, "2026-12-01T12:00:00Z");
    assert_int_equal(
        ping(e, "2026-12-01T12:01:00Z", "job", SKED_PING_FAIL, "no disk", &err),
        0);
    assert_int_equal(failures_of("job"), 1);
    assert_int_equal(paused("job"), 0);
    sked_tv_tick_at(e, "2026-12-01T13:00:00Z");
    sked_tv_tick_at(e, "2026-12-01T13:10:01Z");
    assert_int_equal(paused("job"), 1);
    assert_int_equal(events("schedule.paused", "\"name\":\"job\""), 1);
    /* Two pings of fail in a row pause it as well, once resumed. */
    assert_int_equal(sked_engine_schedule_resume(e, "job", &err), 0);
    assert_int_equal(failures_of("job"), 0);
    sked_tv_tick_at(e, "2026-12-01T14:00:00Z");
    assert_int_equal(
        ping(e, "2026-12-01T14:01:00Z", "job", SKED_PING_FAIL, NULL, &err), 0);
    sked_tv_tick_at(e, "2026-12-01T15:00:00Z");
    assert_int_equal(
        ping(e, "2026-12-01T15:01:00Z", "job", SKED_PING_FAIL, NULL, &err), 0);
    assert_int_equal(paused("job"), 1);
    assert_int_equal(events("schedule.paused", "\"name\":\"job\""), 2);
}

static void test_ping_refusals(void **state)
{
    sked_engine *e = *state;
    char big[SKED_PING_BODY_MAX + 2];
    sked_error err;

    sked_tv_set(sked_tv_time("2026-12-01T08:00:00Z"));
    create(e, "report", "0 9 * * *", "UTC", 30, 0, false);
    create(e, "beat", "0 9 * * *", "UTC", 30, 0, true);
    assert_int_equal(ping(e, "2026-12-01T09:00:10Z", "report",
                          SKED_PING_SUCCESS, NULL, &err),
                     SKED_EINVAL);
    assert_string_equal(err.field, "name");
    assert_int_equal(
        ping(e, "2026-12-01T09:00:10Z", "nope", SKED_PING_SUCCESS, NULL, &err),
        SKED_ENOTFOUND);
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_int_equal(
        ping(e, "2026-12-01T09:00:10Z", "beat", SKED_PING_SUCCESS, big, &err),
        SKED_ETOOBIG);
    assert_string_equal(err.field, "body");
    assert_int_equal(ping(e, "2026-12-01T09:00:10Z", "beat", SKED_PING_SUCCESS,
                          "\xff", &err),
                     SKED_EINVAL);
    assert_string_equal(err.field, "body");
    /* Nothing was written by the refusals. */
    assert_int_equal(sked_tv_q("SELECT count(*) FROM runs"), 0);
}

static void test_field_rules(void **state)
{
    sked_engine *e = *state;
    sked_schedule s;
    sked_error err;

    define(&s, "hb", "0 9 * * *", "UTC", 0, 0, true);
    assert_int_equal(sked_engine_schedule_create(e, &s, &err), SKED_EINVAL);
    assert_string_equal(err.field, "deadline");
    sked_schedule_done(&s);
    define(&s, "late", "0 9 * * *", "UTC", 10, 20, false);
    assert_int_equal(sked_engine_schedule_create(e, &s, &err), SKED_EINVAL);
    assert_string_equal(err.field, "start_deadline");
    sked_schedule_done(&s);
    define(&s, "hb", "0 9 * * *", "UTC", 10, 0, true);
    s.overlap = SKED_OVERLAP_SKIP;
    assert_int_equal(sked_engine_schedule_create(e, &s, &err), SKED_EINVAL);
    assert_string_equal(err.field, "overlap");
    sked_schedule_done(&s);
    define(&s, "long", "0 9 * * *", "UTC", 0, 0, false);
    s.deadline = SKED_DEADLINE_MAX + 1;
    assert_int_equal(sked_engine_schedule_create(e, &s, &err), SKED_EINVAL);
    assert_string_equal(err.field, "deadline");
    sked_schedule_done(&s);
    define(&s, "nowf", "0 9 * * *", "UTC", 10, 0, false);
    free(s.workflow);
    s.workflow = NULL;
    assert_int_equal(sked_engine_schedule_create(e, &s, &err), SKED_EINVAL);
    assert_string_equal(err.field, "workflow");
    sked_schedule_done(&s);
    assert_int_equal(sked_tv_q("SELECT count(*) FROM schedules"), 0);
}

/* Two engines check the same deadlines: each is missed once. */
static void test_two_engines_once(void **state)
{
    sked_engine *a = *state, *b = sked_tv_open();
    sked_error err;

    sked_tv_set(sked_tv_time("2026-12-01T08:00:00Z"));
    create(a, "beat", "*/5 * * * *", "UTC", 2, 0, true);
    create(a, "job", "*/5 * * * *", "UTC", 3, 1, false);
    assert_int_equal(sked_engine_tick(b, &err), 0);
    for (int m = 0; m <= 30; m++) {
        char at[32];
        snprintf(at, sizeof at, "2026-12-01T09:%02d:30Z", m);
        sked_tv_tick_at(m % 2 ? a : b, at);
        sked_tv_tick_at(m % 2 ? b : a, at);
    }
    /* 08:55 (caught up) to 09:25: seven heartbeats never pinged, seven
     * runs never run, each missed once; 09:30's deadlines are ahead. */
    assert_int_equal(
        events("schedule.deadline_missed", "\"schedule\":\"beat\""), 7);
    assert_int_equal(
        events("schedule.deadline_missed", "\"deadline\":\"start\""), 7);
    assert_int_equal(missed_of("job"), 14);
    assert_int_equal(events("run.failed", "deadline_missed"), 7);
    assert_int_equal(
        sked_tv_q("SELECT count(*) FROM runs WHERE deadline_at IS NOT "
                  "NULL"),
        2);
    sked_engine_close(b);
}

/* Across the spring change in Paris: 02:30 does not exist on 29 March,
 * the run fires at 03:00 CEST (01:00Z) and its deadline is an hour after. */
static void test_dst_gap(void **state)
{
    sked_engine *e = *state;

    sked_tv_set(sked_tv_time("2026-03-28T12:00:00Z"));
    create(e, "night", "30 2 * * *", "Europe/Paris", 60, 0, true);
    sked_tv_tick_at(e, "2026-03-29T01:00:00Z");
    assert_int_equal(
        sked_tv_q("SELECT count(*) FROM runs WHERE scheduled_for = "
                  "1774746000000000 AND deadline_at = "
                  "1774749600000000"),
        1);
    sked_tv_tick_at(e, "2026-03-29T01:59:00Z");
    assert_int_equal(events("schedule.deadline_missed", ""), 0);
    sked_tv_tick_at(e, "2026-03-29T02:00:01Z");
    assert_int_equal(events("schedule.deadline_missed", ""), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_completion_deadline, setup,
                                        sked_tv_teardown),
        cmocka_unit_test_setup_teardown(test_start_deadline, setup,
                                        sked_tv_teardown),
        cmocka_unit_test_setup_teardown(test_heartbeat_pings, setup,
                                        sked_tv_teardown),
        cmocka_unit_test_setup_teardown(test_heartbeat_pause_missed, setup,
                                        sked_tv_teardown),
        cmocka_unit_test_setup_teardown(test_heartbeat_pause_ping_fail, setup,
                                        sked_tv_teardown),
        cmocka_unit_test_setup_teardown(test_ping_refusals, setup,
                                        sked_tv_teardown),
        cmocka_unit_test_setup_teardown(test_field_rules, setup,
                                        sked_tv_teardown),
        cmocka_unit_test_setup_teardown(test_two_engines_once, setup,
                                        sked_tv_teardown),
        cmocka_unit_test_setup_teardown(test_dst_gap, setup, sked_tv_teardown),
    };
    int rc;

    if (sked_tv_init("engine.db") != 0)
        return 1;
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    sked_tv_done();
    return rc;
}
