/* SPDX-License-Identifier: MIT */
/* Schedules over calendars through the engine (include/sked/engine.h) on
 * a virtual clock: an occurrence on an excluded day is traced as
 * "excluded" (event and counter) and creates no run; one moved to the
 * next business day fires there with both instants kept (its run id and
 * occurrence from the holiday, its scheduled_for the day it fires, and
 * the run.created event saying both); a holiday added to a calendar
 * after the schedule was written is honoured at the next decision; a
 * calendar in use cannot be deleted, an unknown one is refused by
 * field; the preview shows what the scheduler will do. The database is
 * SKED_TEST_DB_URL when set, else a fresh SQLite file. */
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
    const char *const tables[] = {"runs", "events", "schedules", "calendars"};

    sked_tv_setup(state, tables, sizeof tables / sizeof tables[0]);
    return 0;
}

/* The last event of TYPE seen, its payload copied. */
static char last_payload[1024];
static char last_type[64];

static void on_event(void *ctx, const sked_event_view *ev)
{
    const char *want = ctx;

    if (strcmp(ev->type, want ? want : ev->type) != 0)
        return;
    snprintf(last_type, sizeof last_type, "%s", ev->type);
    snprintf(last_payload, sizeof last_payload, "%s", ev->payload);
}

static void calendar(sked_engine *e, const char *name, const char *date)
{
    sked_calendar c;
    sked_error err;
    char *d = strdup(date);

    sked_calendar_init(&c);
    c.name = strdup(name);
    c.dates = (sked_strlist){&d, 1};
    if (sked_engine_calendar_put(e, &c, NULL, &err) != 0)
        fail_msg("calendar %s: %s", name, err.msg);
    c.dates = (sked_strlist){NULL, 0};
    free(d);
    sked_calendar_done(&c);
}

static int create(sked_engine *e, const char *name, const char *cron,
                  const char *exclude, sked_on_excluded mode, sked_error *err)
{
    sked_schedule s;
    int rc;

    sked_schedule_init(&s);
    s.name = strdup(name);
    s.workflow = strdup("report");
    s.cron = strdup(cron);
    s.timezone = strdup("Europe/Paris");
    s.exclude = exclude ? strdup(exclude) : NULL;
    s.on_excluded = mode;
    rc = sked_engine_schedule_create(e, &s, err);
    sked_schedule_done(&s);
    return rc;
}

static void test_excluded_traced_no_run(void **state)
{
    sked_engine *e = *state;
    sked_subscription *sub = NULL;
    sked_schedule s;
    sked_error err;

    calendar(e, "hol", "2026-12-25");
    assert_int_equal(
        create(e, "daily", "0 9 * * *", "hol", SKED_ON_EXCLUDED_SKIP, &err), 0);
    assert_int_equal(sked_subscribe(e, on_event,
                                    (void *) "schedule.occurrences_missed",
                                    &sub, NULL),
                     0);
    sked_tv_set(sked_tv_time("2026-12-24T08:00:00Z"));
    sked_tv_tick_at(e, "2026-12-24T08:00:00Z");
    sked_tv_tick_at(e, "2026-12-25T08:00:00Z");
    assert_int_equal(sked_tv_q("SELECT count(*) FROM runs WHERE id = "
                               "'sched-daily-2026-12-25T08:00:00Z'"),
                     0);
    assert_string_equal(
        last_payload,
        "{\"schedule\":\"daily\",\"reason\":\"excluded\","
        "\"count\":1,\"first\":\"2026-12-25T08:00:00Z\","
        "\"last\":\"2026-12-25T08:00:00Z\",\"actor\":\"scheduler\"}");
    sked_tv_tick_at(e, "2026-12-26T08:00:00Z");
    assert_int_equal(sked_tv_q("SELECT count(*) FROM runs WHERE id = "
                               "'sched-daily-2026-12-26T08:00:00Z'"),
                     1);
    assert_int_equal(sked_engine_schedule_get(e, "daily", &s, NULL), 0);
    assert_int_equal(s.next_fire_at, sked_tv_time("2026-12-27T08:00:00Z"));
    sked_schedule_done(&s);
    sked_unsubscribe(e, sub);
}

static void test_moved_run_keeps_both_instants(void **state)
{
    sked_engine *e = *state;
    sked_subscription *sub = NULL;
    sked_preview p;
    sked_error err;

    calendar(e, "hol", "2026-12-25");
    assert_int_equal(create(e, "month", "0 9 25 * *", "hol",
                            SKED_ON_EXCLUDED_NEXT_BUSINESS_DAY, &err),
                     0);
    /* The preview says where it goes. */
    assert_int_equal(
        sked_engine_schedule_preview(e, "month", SKED_TIME_NONE, 2, &p, &err),
        0);
    assert_int_equal(p.n, 2);
    assert_int_equal(p.items[0].at, sked_tv_time("2026-12-28T08:00:00Z"));
    assert_int_equal(p.items[0].occurrence,
                     sked_tv_time("2026-12-25T08:00:00Z"));
    assert_false(p.items[0].excluded);
    sked_preview_done(&p);
    assert_int_equal(
        sked_subscribe(e, on_event, (void *) "run.created", &sub, NULL), 0);
    sked_tv_tick_at(e, "2026-12-25T08:00:00Z");
    assert_int_equal(sked_tv_q("SELECT count(*) FROM runs"), 0);
    sked_tv_tick_at(e, "2026-12-28T08:00:00Z");
    assert_int_equal(
        sked_tv_q("SELECT count(*) FROM runs WHERE id = "
                  "'sched-month-2026-12-25T08:00:00Z' AND scheduled_for = "
                  "1798444800000000 AND occurrence_at = 1798185600000000"),
        1);
    assert_string_equal(
        last_payload,
        "{\"run_id\":\"sched-month-2026-12-25T08:00:00Z\","
        "\"workflow\":\"report\",\"schedule\":\"month\","
        "\"trigger\":\"cron\","
        "\"scheduled_for\":\"2026-12-28T08:00:00Z\","
        "\"occurrence\":\"2026-12-25T08:00:00Z\","
        "\"not_before\":\"2026-12-28T08:00:00Z\",\"actor\":\"scheduler\"}");
    sked_unsubscribe(e, sub);
}

/* A holiday added after the schedule was written counts from the next
 * decision: no restart, no rewrite of the schedule. */
static void test_calendar_change_seen(void **state)
{
    sked_engine *e = *state;
    sked_error err;

    sked_tv_set(sked_tv_time("2026-12-02T07:00:00Z"));
    calendar(e, "hol", "2026-12-25");
    assert_int_equal(
        create(e, "daily", "0 9 * * *", "hol", SKED_ON_EXCLUDED_SKIP, &err), 0);
    sked_tv_tick_at(e, "2026-12-02T08:00:00Z");
    assert_int_equal(sked_tv_q("SELECT count(*) FROM runs"), 1);
    calendar(e, "hol", "2026-12-03");
    sked_tv_tick_at(e, "2026-12-03T08:00:00Z");
    assert_int_equal(sked_tv_q("SELECT count(*) FROM runs"), 1);
    sked_tv_tick_at(e, "2026-12-04T08:00:00Z");
    assert_int_equal(sked_tv_q("SELECT count(*) FROM runs"), 2);
}

/* A holiday added tomorrow moves tomorrow's occurrence to today: the
 * schedule's next instant is planned again when the calendar changes,
 * so the scheduler does not sleep past it. */
static void test_calendar_change_replans(void **state)
{
    sked_engine *e = *state;
    sked_schedule s;
    sked_error err;

    sked_tv_set(sked_tv_time("2026-12-20T00:00:00Z"));
    calendar(e, "hol", "2026-12-01");
    assert_int_equal(create(e, "month", "0 9 25 * *", "hol",
                            SKED_ON_EXCLUDED_PREVIOUS_BUSINESS_DAY, &err),
                     0);
    assert_int_equal(sked_engine_schedule_get(e, "month", &s, NULL), 0);
    assert_int_equal(s.next_fire_at, sked_tv_time("2026-12-25T08:00:00Z"));
    sked_schedule_done(&s);
    calendar(e, "hol", "2026-12-25");
    assert_int_equal(sked_engine_schedule_get(e, "month", &s, NULL), 0);
    assert_int_equal(s.next_fire_at, sked_tv_time("2026-12-24T08:00:00Z"));
    sked_schedule_done(&s);
    sked_tv_tick_at(e, "2026-12-24T08:00:00Z");
    assert_int_equal(
        sked_tv_q("SELECT count(*) FROM runs WHERE id = "
                  "'sched-month-2026-12-25T08:00:00Z' AND scheduled_for = "
                  "1798099200000000"),
        1);
}

/* A backfill creates what firing would have: no run on an excluded day,
 * a moved one on its business day with the occurrence's id. */
static void test_backfill_through_calendars(void **state)
{
    sked_engine *e = *state;
    sked_backfill_result r;
    sked_error err;

    sked_tv_set(sked_tv_time("2027-01-10T00:00:00Z"));
    calendar(e, "hol", "2026-12-25");
    assert_int_equal(
        create(e, "daily", "0 9 * * *", "hol", SKED_ON_EXCLUDED_SKIP, &err), 0);
    assert_int_equal(create(e, "month", "0 9 25 * *", "hol",
                            SKED_ON_EXCLUDED_NEXT_BUSINESS_DAY, &err),
                     0);
    assert_int_equal(sked_engine_backfill(e, "daily",
                                          sked_tv_time("2026-12-20T00:00:00Z"),
                                          sked_tv_time("2026-12-31T00:00:00Z"),
                                          NULL, NULL, &r, &err),
                     0);
    assert_int_equal(r.created, 10);
    assert_int_equal(sked_tv_q("SELECT count(*) FROM runs WHERE id = "
                               "'sched-daily-2026-12-25T08:00:00Z'"),
                     0);
    assert_int_equal(sked_engine_backfill(e, "month",
                                          sked_tv_time("2026-12-20T00:00:00Z"),
                                          sked_tv_time("2026-12-31T00:00:00Z"),
                                          NULL, NULL, &r, &err),
                     0);
    assert_int_equal(r.created, 1);
    assert_int_equal(
        sked_tv_q("SELECT count(*) FROM runs WHERE id = "
                  "'sched-month-2026-12-25T08:00:00Z' AND scheduled_for = "
                  "1798444800000000 AND occurrence_at = 1798185600000000"),
        1);
}

static void test_bad_and_used_calendars(void **state)
{
    sked_engine *e = *state;
    sked_error err;

    calendar(e, "hol", "2026-12-25");
    assert_int_equal(
        create(e, "a", "0 9 * * *", "hol,nope", SKED_ON_EXCLUDED_SKIP, &err),
        SKED_EINVAL);
    assert_string_equal(err.field, "exclude[1]");
    assert_int_equal(sked_tv_q("SELECT count(*) FROM schedules"), 0);
    assert_int_equal(create(e, "b", "0 9 * * *", NULL,
                            SKED_ON_EXCLUDED_NEXT_BUSINESS_DAY, &err),
                     SKED_EINVAL);
    assert_string_equal(err.field, "on_excluded");
    assert_int_equal(
        create(e, "c", "0 9 * * *", "hol,hol", SKED_ON_EXCLUDED_SKIP, &err),
        SKED_EINVAL);
    assert_string_equal(err.field, "exclude[1]");
    assert_int_equal(
        create(e, "d", "0 9 * * *", "hol", SKED_ON_EXCLUDED_SKIP, &err), 0);
    assert_int_equal(sked_engine_calendar_delete(e, "hol", NULL, &err),
                     SKED_ECONFLICT);
    assert_non_null(strstr(err.msg, "schedule \"d\" uses it"));
    assert_int_equal(sked_tv_q("SELECT count(*) FROM calendars"), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_excluded_traced_no_run, setup,
                                        sked_tv_teardown),
        cmocka_unit_test_setup_teardown(test_moved_run_keeps_both_instants,
                                        setup, sked_tv_teardown),
        cmocka_unit_test_setup_teardown(test_calendar_change_seen, setup,
                                        sked_tv_teardown),
        cmocka_unit_test_setup_teardown(test_calendar_change_replans, setup,
                                        sked_tv_teardown),
        cmocka_unit_test_setup_teardown(test_backfill_through_calendars, setup,
                                        sked_tv_teardown),
        cmocka_unit_test_setup_teardown(test_bad_and_used_calendars, setup,
                                        sked_tv_teardown),
    };
    int rc;

    if (sked_tv_init("engine.db") != 0)
        return 1;
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    sked_tv_done();
    return rc;
}
