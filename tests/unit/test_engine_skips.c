/* SPDX-License-Identifier: MIT */
/* One occurrence of a schedule through the engine (include/sked/engine.h)
 * on a virtual clock: tomorrow's 09:00 skipped does not run, traced as
 * "skipped" (event with who and why), and the day after runs; unskipped,
 * it runs again; an instant that is no occurrence is refused naming the
 * nearest ones, one already decided is refused; the preview marks the
 * skipped one; a past occurrence run now gets the id firing gives it, and
 * twice is still one run; skips go with their schedule. The database is
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
    const char *const tables[] = {"runs", "events", "schedule_skips",
                                  "schedules"};

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

static int create(sked_engine *e, const char *name, const char *cron,
                  sked_error *err)
{
    sked_schedule s;
    int rc;

    sked_schedule_init(&s);
    s.name = strdup(name);
    s.workflow = strdup("report");
    s.cron = strdup(cron);
    s.timezone = strdup("Europe/Paris");
    rc = sked_engine_schedule_create(e, &s, err);
    sked_schedule_done(&s);
    return rc;
}

static void test_skip_tomorrow(void **state)
{
    sked_engine *e = *state;
    sked_subscription *sub = NULL, *sub2 = NULL;
    sked_skip *k = NULL;
    size_t n = 0;
    bool changed = false;
    sked_error err;

    sked_tv_set(sked_tv_time("2026-12-24T07:00:00Z"));
    assert_int_equal(create(e, "daily", "0 9 * * *", &err), 0);
    assert_int_equal(sked_subscribe(e, on_event,
                                    (void *) "schedule.occurrence_skipped",
                                    &sub, NULL),
                     0);
    /* The event says who the skip names ("by") and who made it. */
    assert_int_equal(sked_engine_actor("ops-a"), 0);
    assert_int_equal(sked_engine_schedule_skip(
                         e, "daily", sked_tv_time("2026-12-25T08:00:00Z"),
                         "cli", "holiday party", &changed, &err),
                     0);
    assert_true(changed);
    assert_string_equal(last_payload,
                        "{\"schedule\":\"daily\",\"occurrence\":"
                        "\"2026-12-25T08:00:00Z\",\"by\":\"cli\","
                        "\"reason\":\"holiday party\",\"actor\":\"ops-a\"}");
    sked_unsubscribe(e, sub);
    assert_int_equal(sked_engine_actor(NULL), 0);
    /* Again: nothing changes. */
    assert_int_equal(sked_engine_schedule_skip(
                         e, "daily", sked_tv_time("2026-12-25T08:00:00Z"),
                         "cli", NULL, &changed, &err),
                     0);
    assert_false(changed);
    assert_int_equal(sked_engine_schedule_skips(e, "daily", &k, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(k[0].occurrence, sked_tv_time("2026-12-25T08:00:00Z"));
    assert_string_equal(k[0].reason, "holiday party");
    sked_skips_free(k, n);

    /* The preview marks it. */
    sked_preview p;
    assert_int_equal(
        sked_engine_schedule_preview(e, "daily", SKED_TIME_NONE, 3, &p, &err),
        0);
    assert_int_equal(p.n, 3);
    assert_false(p.items[0].skipped);
    assert_true(p.items[1].skipped);
    assert_int_equal(p.items[1].at, sked_tv_time("2026-12-25T08:00:00Z"));
    assert_false(p.items[2].skipped);
    sked_preview_done(&p);

    assert_int_equal(sked_subscribe(e, on_event,
                                    (void *) "schedule.occurrences_missed",
                                    &sub2, NULL),
                     0);
    sked_tv_tick_at(e, "2026-12-24T08:00:00Z");
    sked_tv_tick_at(e, "2026-12-25T08:00:00Z");
    assert_int_equal(sked_tv_q("SELECT count(*) FROM runs WHERE id = "
                               "'sched-daily-2026-12-25T08:00:00Z'"),
                     0);
    assert_string_equal(
        last_payload,
        "{\"schedule\":\"daily\",\"reason\":\"skipped\","
        "\"count\":1,\"first\":\"2026-12-25T08:00:00Z\","
        "\"last\":\"2026-12-25T08:00:00Z\",\"actor\":\"scheduler\"}");
    sked_unsubscribe(e, sub2);
    sked_tv_tick_at(e, "2026-12-26T08:00:00Z");
    assert_int_equal(sked_tv_q("SELECT count(*) FROM runs WHERE id = "
                               "'sched-daily-2026-12-26T08:00:00Z'"),
                     1);
    /* Decided now: no longer pending, and not unskipped. */
    assert_int_equal(sked_engine_schedule_skips(e, "daily", &k, &n, &err), 0);
    assert_int_equal(n, 0);
    sked_skips_free(k, n);
    assert_int_equal(sked_engine_schedule_unskip(
                         e, "daily", sked_tv_time("2026-12-25T08:00:00Z"),
                         "cli", &changed, &err),
                     SKED_ECONFLICT);
    assert_string_equal(err.field, "at");
}

static void test_unskip_restores(void **state)
{
    sked_engine *e = *state;
    sked_subscription *sub = NULL;
    bool changed = false;
    sked_error err;

    sked_tv_set(sked_tv_time("2026-12-24T07:00:00Z"));
    assert_int_equal(create(e, "daily", "0 9 * * *", &err), 0);
    assert_int_equal(sked_engine_schedule_skip(
                         e, "daily", sked_tv_time("2026-12-25T08:00:00Z"), NULL,
                         NULL, &changed, &err),
                     0);
    assert_int_equal(sked_subscribe(e, on_event,
                                    (void *) "schedule.occurrence_unskipped",
                                    &sub, NULL),
                     0);
    assert_int_equal(sked_engine_schedule_unskip(
                         e, "daily", sked_tv_time("2026-12-25T08:00:00Z"),
                         "mcp", &changed, &err),
                     0);
    assert_true(changed);
    assert_string_equal(last_payload, "{\"schedule\":\"daily\",\"occurrence\":"
                                      "\"2026-12-25T08:00:00Z\",\"by\":\"mcp\","
                                      "\"reason\":null,\"actor\":\"library\"}");
    sked_unsubscribe(e, sub);
    assert_int_equal(sked_engine_schedule_unskip(
                         e, "daily", sked_tv_time("2026-12-25T08:00:00Z"),
                         "mcp", &changed, &err),
                     0);
    assert_false(changed);
    sked_tv_tick_at(e, "2026-12-24T08:00:00Z");
    sked_tv_tick_at(e, "2026-12-25T08:00:00Z");
    assert_int_equal(sked_tv_q("SELECT count(*) FROM runs WHERE id = "
                               "'sched-daily-2026-12-25T08:00:00Z'"),
                     1);
    /* A skip goes with its schedule. */
    assert_int_equal(sked_engine_schedule_skip(
                         e, "daily", sked_tv_time("2026-12-27T08:00:00Z"), NULL,
                         NULL, &changed, &err),
                     0);
    assert_int_equal(sked_tv_q("SELECT count(*) FROM schedule_skips"), 1);
    assert_int_equal(sked_engine_schedule_delete(e, "daily", &err), 0);
    assert_int_equal(sked_tv_q("SELECT count(*) FROM schedule_skips"), 0);
}

static void test_refused(void **state)
{
    sked_engine *e = *state;
    char big[SKED_SKIP_REASON_MAX + 2];
    sked_error err;

    sked_tv_set(sked_tv_time("2026-12-24T07:00:00Z"));
    assert_int_equal(create(e, "daily", "0 9 * * *", &err), 0);
    assert_int_equal(sked_engine_schedule_skip(
                         e, "daily", sked_tv_time("2026-12-25T08:30:00Z"), NULL,
                         NULL, NULL, &err),
                     SKED_EINVAL);
    assert_string_equal(err.field, "at");
    assert_non_null(strstr(err.msg, "2026-12-25T08:00:00Z before"));
    assert_non_null(strstr(err.msg, "2026-12-26T08:00:00Z after"));
    /* Before the schedule existed: decided. */
    assert_int_equal(sked_engine_schedule_skip(
                         e, "daily", sked_tv_time("2026-12-23T08:00:00Z"), NULL,
                         NULL, NULL, &err),
                     SKED_ECONFLICT);
    assert_string_equal(err.field, "at");
    assert_non_null(strstr(err.msg, "already decided"));
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_int_equal(sked_engine_schedule_skip(
                         e, "daily", sked_tv_time("2026-12-25T08:00:00Z"), NULL,
                         big, NULL, &err),
                     SKED_EINVAL);
    assert_string_equal(err.field, "reason");
    assert_int_equal(sked_engine_schedule_skip(
                         e, "nope", sked_tv_time("2026-12-25T08:00:00Z"), NULL,
                         NULL, NULL, &err),
                     SKED_ENOTFOUND);
    assert_int_equal(sked_tv_q("SELECT count(*) FROM schedule_skips"), 0);
}

static void test_run_past_occurrence(void **state)
{
    sked_engine *e = *state;
    char *id = NULL;
    bool created = false;
    sked_error err;

    sked_tv_set(sked_tv_time("2026-12-20T07:00:00Z"));
    assert_int_equal(create(e, "daily", "0 9 * * *", &err), 0);
    sked_tv_tick_at(e, "2026-12-24T12:00:00Z");
    assert_int_equal(sked_tv_q("SELECT count(*) FROM runs WHERE id = "
                               "'sched-daily-2026-12-22T08:00:00Z'"),
                     0);
    assert_int_equal(sked_engine_schedule_run_at(
                         e, "daily", sked_tv_time("2026-12-22T08:00:00Z"), &id,
                         &created, &err),
                     0);
    assert_string_equal(id, "sched-daily-2026-12-22T08:00:00Z");
    assert_true(created);
    sked_free(id);
    id = NULL;
    assert_int_equal(sked_engine_schedule_run_at(
                         e, "daily", sked_tv_time("2026-12-22T08:00:00Z"), &id,
                         &created, &err),
                     0);
    assert_string_equal(id, "sched-daily-2026-12-22T08:00:00Z");
    assert_false(created);
    sked_free(id);
    assert_int_equal(
        sked_tv_q("SELECT count(*) FROM runs WHERE id = "
                  "'sched-daily-2026-12-22T08:00:00Z' AND trigger_kind = "
                  "'backfill'"),
        1);
    /* The one firing made (latest catch-up) is the same run. */
    assert_int_equal(sked_engine_schedule_run_at(
                         e, "daily", sked_tv_time("2026-12-24T08:00:00Z"), NULL,
                         &created, &err),
                     0);
    assert_false(created);
    assert_int_equal(
        sked_engine_schedule_run_at(
            e, "daily", sked_tv_time("2026-12-22T08:00:01Z"), NULL, NULL, &err),
        SKED_EINVAL);
    assert_string_equal(err.field, "at");
    assert_int_equal(
        sked_engine_schedule_run_at(
            e, "daily", sked_tv_time("2026-12-25T08:00:00Z"), NULL, NULL, &err),
        SKED_EINVAL);
    assert_string_equal(err.field, "at");
    assert_int_equal(sked_tv_q("SELECT count(*) FROM runs"), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_skip_tomorrow, setup,
                                        sked_tv_teardown),
        cmocka_unit_test_setup_teardown(test_unskip_restores, setup,
                                        sked_tv_teardown),
        cmocka_unit_test_setup_teardown(test_refused, setup, sked_tv_teardown),
        cmocka_unit_test_setup_teardown(test_run_past_occurrence, setup,
                                        sked_tv_teardown),
    };
    int rc;

    if (sked_tv_init("engine.db") != 0)
        return 1;
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    sked_tv_done();
    return rc;
}
