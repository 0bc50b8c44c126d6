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

#include "base/clock.h"
#include "sked/engine.h"
#include "sked/sked.h"

static char db_url[1024];
static char tmp_dir[256];
static _Atomic sked_time vnow;
static sked_clock clock_;

static sked_time read_now(void *ctx)
{
    (void) ctx;
    return vnow;
}

static sked_time T(const char *s)
{
    sked_time t = 0;
    assert_int_equal(sked_time_parse(s, &t, NULL), 0);
    return t;
}

static long long q(const char *sql)
{
    long long v = -1;
    assert_int_equal(sked_test_sql(db_url, sql, &v), 0);
    return v;
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

static sked_engine *open_engine(void)
{
    sked_engine_options o = {.db_url = db_url,
                             .tzdir = SKED_TEST_DATA "/zoneinfo",
                             .clock = &clock_,
                             .sqlite_synchronous = "normal"};
    sked_engine *e = NULL;
    sked_error err;

    if (sked_engine_open(&o, &e, &err) != 0)
        fail_msg("open %s: %s", db_url, err.msg);
    return e;
}

static int setup(void **state)
{
    const char *const tables[] = {"runs", sked_test_events_table(db_url),
                                  "schedule_skips", "schedules"};
    sked_engine *e;
    char sql[128];

    vnow = T("2026-12-01T00:00:00Z");
    e = open_engine();
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        snprintf(sql, sizeof sql, "DELETE FROM %s", tables[i]);
        assert_int_equal(sked_test_sql(db_url, sql, NULL), 0);
    }
    *state = e;
    return 0;
}

static int teardown(void **state)
{
    sked_engine_close(*state);
    return 0;
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

static void tick_at(sked_engine *e, const char *at)
{
    sked_error err;

    vnow = T(at);
    if (sked_engine_tick(e, &err) != 0)
        fail_msg("tick at %s: %s", at, err.msg);
}

static void test_skip_tomorrow(void **state)
{
    sked_engine *e = *state;
    sked_subscription *sub = NULL, *sub2 = NULL;
    sked_skip *k = NULL;
    size_t n = 0;
    bool changed = false;
    sked_error err;

    vnow = T("2026-12-24T07:00:00Z");
    assert_int_equal(create(e, "daily", "0 9 * * *", &err), 0);
    assert_int_equal(sked_subscribe(e, on_event,
                                    (void *) "schedule.occurrence_skipped",
                                    &sub, NULL),
                     0);
    assert_int_equal(sked_engine_schedule_skip(e, "daily",
                                               T("2026-12-25T08:00:00Z"), "cli",
                                               "holiday party", &changed, &err),
                     0);
    assert_true(changed);
    assert_string_equal(last_payload,
                        "{\"schedule\":\"daily\",\"occurrence\":"
                        "\"2026-12-25T08:00:00Z\",\"actor\":\"cli\","
                        "\"reason\":\"holiday party\"}");
    sked_unsubscribe(e, sub);
    /* Again: nothing changes. */
    assert_int_equal(sked_engine_schedule_skip(e, "daily",
                                               T("2026-12-25T08:00:00Z"), "cli",
                                               NULL, &changed, &err),
                     0);
    assert_false(changed);
    assert_int_equal(sked_engine_schedule_skips(e, "daily", &k, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(k[0].occurrence, T("2026-12-25T08:00:00Z"));
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
    assert_int_equal(p.items[1].at, T("2026-12-25T08:00:00Z"));
    assert_false(p.items[2].skipped);
    sked_preview_done(&p);

    assert_int_equal(sked_subscribe(e, on_event,
                                    (void *) "schedule.occurrences_missed",
                                    &sub2, NULL),
                     0);
    tick_at(e, "2026-12-24T08:00:00Z");
    tick_at(e, "2026-12-25T08:00:00Z");
    assert_int_equal(q("SELECT count(*) FROM runs WHERE id = "
                       "'sched-daily-2026-12-25T08:00:00Z'"),
                     0);
    assert_string_equal(last_payload,
                        "{\"schedule\":\"daily\",\"reason\":\"skipped\","
                        "\"count\":1,\"first\":\"2026-12-25T08:00:00Z\","
                        "\"last\":\"2026-12-25T08:00:00Z\"}");
    sked_unsubscribe(e, sub2);
    tick_at(e, "2026-12-26T08:00:00Z");
    assert_int_equal(q("SELECT count(*) FROM runs WHERE id = "
                       "'sched-daily-2026-12-26T08:00:00Z'"),
                     1);
    /* Decided now: no longer pending, and not unskipped. */
    assert_int_equal(sked_engine_schedule_skips(e, "daily", &k, &n, &err), 0);
    assert_int_equal(n, 0);
    sked_skips_free(k, n);
    assert_int_equal(sked_engine_schedule_unskip(e, "daily",
                                                 T("2026-12-25T08:00:00Z"),
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

    vnow = T("2026-12-24T07:00:00Z");
    assert_int_equal(create(e, "daily", "0 9 * * *", &err), 0);
    assert_int_equal(sked_engine_schedule_skip(e, "daily",
                                               T("2026-12-25T08:00:00Z"), NULL,
                                               NULL, &changed, &err),
                     0);
    assert_int_equal(sked_subscribe(e, on_event,
                                    (void *) "schedule.occurrence_unskipped",
                                    &sub, NULL),
                     0);
    assert_int_equal(sked_engine_schedule_unskip(e, "daily",
                                                 T("2026-12-25T08:00:00Z"),
                                                 "mcp", &changed, &err),
                     0);
    assert_true(changed);
    assert_string_equal(last_payload,
                        "{\"schedule\":\"daily\",\"occurrence\":"
                        "\"2026-12-25T08:00:00Z\",\"actor\":\"mcp\","
                        "\"reason\":null}");
    sked_unsubscribe(e, sub);
    assert_int_equal(sked_engine_schedule_unskip(e, "daily",
                                                 T("2026-12-25T08:00:00Z"),
                                                 "mcp", &changed, &err),
                     0);
    assert_false(changed);
    tick_at(e, "2026-12-24T08:00:00Z");
    tick_at(e, "2026-12-25T08:00:00Z");
    assert_int_equal(q("SELECT count(*) FROM runs WHERE id = "
                       "'sched-daily-2026-12-25T08:00:00Z'"),
                     1);
    /* A skip goes with its schedule. */
    assert_int_equal(sked_engine_schedule_skip(e, "daily",
                                               T("2026-12-27T08:00:00Z"), NULL,
                                               NULL, &changed, &err),
                     0);
    assert_int_equal(q("SELECT count(*) FROM schedule_skips"), 1);
    assert_int_equal(sked_engine_schedule_delete(e, "daily", &err), 0);
    assert_int_equal(q("SELECT count(*) FROM schedule_skips"), 0);
}

static void test_refused(void **state)
{
    sked_engine *e = *state;
    char big[SKED_SKIP_REASON_MAX + 2];
    sked_error err;

    vnow = T("2026-12-24T07:00:00Z");
    assert_int_equal(create(e, "daily", "0 9 * * *", &err), 0);
    assert_int_equal(sked_engine_schedule_skip(e, "daily",
                                               T("2026-12-25T08:30:00Z"), NULL,
                                               NULL, NULL, &err),
                     SKED_EINVAL);
    assert_string_equal(err.field, "at");
    assert_non_null(strstr(err.msg, "2026-12-25T08:00:00Z before"));
    assert_non_null(strstr(err.msg, "2026-12-26T08:00:00Z after"));
    /* Before the schedule existed: decided. */
    assert_int_equal(sked_engine_schedule_skip(e, "daily",
                                               T("2026-12-23T08:00:00Z"), NULL,
                                               NULL, NULL, &err),
                     SKED_ECONFLICT);
    assert_string_equal(err.field, "at");
    assert_non_null(strstr(err.msg, "already decided"));
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_int_equal(sked_engine_schedule_skip(e, "daily",
                                               T("2026-12-25T08:00:00Z"), NULL,
                                               big, NULL, &err),
                     SKED_EINVAL);
    assert_string_equal(err.field, "reason");
    assert_int_equal(sked_engine_schedule_skip(e, "nope",
                                               T("2026-12-25T08:00:00Z"), NULL,
                                               NULL, NULL, &err),
                     SKED_ENOTFOUND);
    assert_int_equal(q("SELECT count(*) FROM schedule_skips"), 0);
}

static void test_run_past_occurrence(void **state)
{
    sked_engine *e = *state;
    char *id = NULL;
    bool created = false;
    sked_error err;

    vnow = T("2026-12-20T07:00:00Z");
    assert_int_equal(create(e, "daily", "0 9 * * *", &err), 0);
    tick_at(e, "2026-12-24T12:00:00Z");
    assert_int_equal(q("SELECT count(*) FROM runs WHERE id = "
                       "'sched-daily-2026-12-22T08:00:00Z'"),
                     0);
    assert_int_equal(sked_engine_schedule_run_at(e, "daily",
                                                 T("2026-12-22T08:00:00Z"), &id,
                                                 &created, &err),
                     0);
    assert_string_equal(id, "sched-daily-2026-12-22T08:00:00Z");
    assert_true(created);
    sked_free(id);
    id = NULL;
    assert_int_equal(sked_engine_schedule_run_at(e, "daily",
                                                 T("2026-12-22T08:00:00Z"), &id,
                                                 &created, &err),
                     0);
    assert_string_equal(id, "sched-daily-2026-12-22T08:00:00Z");
    assert_false(created);
    sked_free(id);
    assert_int_equal(q("SELECT count(*) FROM runs WHERE id = "
                       "'sched-daily-2026-12-22T08:00:00Z' AND trigger_kind = "
                       "'backfill'"),
                     1);
    /* The one firing made (latest catch-up) is the same run. */
    assert_int_equal(sked_engine_schedule_run_at(e, "daily",
                                                 T("2026-12-24T08:00:00Z"),
                                                 NULL, &created, &err),
                     0);
    assert_false(created);
    assert_int_equal(sked_engine_schedule_run_at(e, "daily",
                                                 T("2026-12-22T08:00:01Z"),
                                                 NULL, NULL, &err),
                     SKED_EINVAL);
    assert_string_equal(err.field, "at");
    assert_int_equal(sked_engine_schedule_run_at(e, "daily",
                                                 T("2026-12-25T08:00:00Z"),
                                                 NULL, NULL, &err),
                     SKED_EINVAL);
    assert_string_equal(err.field, "at");
    assert_int_equal(q("SELECT count(*) FROM runs"), 2);
}

int main(void)
{
    const char *url = getenv("SKED_TEST_DB_URL");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_skip_tomorrow, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unskip_restores, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_past_occurrence, setup,
                                        teardown),
    };
    int rc;

    clock_ = (sked_clock){read_now, read_now, NULL};
    if (url && url[0]) {
        snprintf(db_url, sizeof db_url, "%s", url);
    } else {
        snprintf(tmp_dir, sizeof tmp_dir, "/tmp/sked-engskip-XXXXXX");
        if (!mkdtemp(tmp_dir))
            return 1;
        snprintf(db_url, sizeof db_url, "sqlite:%s/engine.db", tmp_dir);
    }
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (tmp_dir[0]) {
        const char *const ext[] = {"", "-wal", "-shm"};
        char path[512];
        for (size_t i = 0; i < 3; i++) {
            snprintf(path, sizeof path, "%s/engine.db%s", tmp_dir, ext[i]);
            unlink(path);
        }
        rmdir(tmp_dir);
    }
    return rc;
}
