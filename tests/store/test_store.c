/* SPDX-License-Identifier: MIT */
/* The store suite: one set of tests run against every back-end. The
 * database is SKED_TEST_DB_URL (sqlite:PATH or postgres://...); without it
 * a fresh SQLite file in a temporary directory. Each test starts from
 * empty tables, on a virtual clock, with the pinned zoneinfo.
 *
 * Checks that need to look under the store (the meta table, a database
 * marked newer than the binary, a corrupt file) use the engine's own
 * client library directly, never a hook in libsked. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_db.h"

#include "base/clock.h"
#include "base/error.h"
#include "model/calendar.h"
#include "model/schedule_fields.h"
#include "model/schedule_json.h"
#include "sched/loop.h"
#include "store/store.h"
#include "store/store_health.h"
#include "store/store_ops.h"

/* The schema version of this binary: the last of the migrations in
 * src/store/schema, which the build embeds. */
static int schema_latest(void)
{
    int n = 0;

    while (sked__schema_sqlite[n].version)
        n++;
    return sked__schema_sqlite[n - 1].version;
}

static char db_url[1024];
static char tmp_dir[256];
static sked_tzdb *tzdb;
static sked_virtual_clock vclock;
static sked_clock clock_;

static sked_time T(const char *s)
{
    sked_time t = 0;
    assert_int_equal(sked_time_parse(s, &t, NULL), 0);
    return t;
}

static bool is_sqlite(void)
{
    return strncmp(db_url, "sqlite:", 7) == 0;
}

/* ---- the engine's own client, for looking under the store ------------- */

/* Run SQL on the database directly (tests/lib/test_db.h). */
static int raw(const char *sql, long long *out)
{
    return sked_test_sql(db_url, sql, out);
}

/* The rows of TABLE, those matching the SQL condition WHERE when not
 * NULL. */
static long long count_rows(const char *table, const char *where)
{
    char sql[256];
    long long n = -1;

    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s%s%s", table,
             where ? " WHERE " : "", where ? where : "");
    assert_int_equal(raw(sql, &n), 0);
    return n;
}

static long long count(const char *table)
{
    return count_rows(table, NULL);
}

/* ---- fixtures ---------------------------------------------------------- */

static int open_store(sked_store **out, sked_error *err)
{
    sked_store_options o = {.tzdb = tzdb, .clock = &clock_};
    return sked__store_open(db_url, &o, out, err);
}

static int setup(void **state)
{
    const char *const tables[] = {
        "steps",     "runs",   sked_test_events_table(db_url),
        "schedules", "queues", "workflow_versions"};
    sked_store *st = NULL;
    sked_error err;
    char sql[128];

    vclock.t = T("2026-01-10T12:00:00Z");
    if (open_store(&st, &err) != 0)
        fail_msg("open %s: %s", db_url, err.msg);
    /* A fault a failed test left (fail_inserts). */
    assert_int_equal(raw(is_sqlite() ? "DROP TRIGGER IF EXISTS sked_test_fail"
                                     : "DROP TRIGGER IF EXISTS sked_test_fail "
                                       "ON runs",
                         NULL),
                     0);
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        snprintf(sql, sizeof sql, "DELETE FROM %s", tables[i]);
        assert_int_equal(raw(sql, NULL), 0);
    }
    *state = st;
    return 0;
}

static int teardown(void **state)
{
    sked__store_close(*state);
    return 0;
}

/* Fill *s with a valid cron schedule NAME. */
static void make(sked_schedule *s, const char *name, const char *cron)
{
    sked_schedule_init(s);
    s->name = strdup(name);
    s->workflow = strdup("report");
    s->cron = strdup(cron);
    s->timezone = strdup("Europe/Paris");
}

static void create(sked_store *st, const char *name, const char *cron)
{
    sked_schedule s;
    sked_error err;

    make(&s, name, cron);
    if (sked__store_schedule_create(st, &s, &err) != 0)
        fail_msg("create %s: %s: %s", name, err.field, err.msg);
    sked_schedule_done(&s);
}

/* A schedule of each new time spec comes back as written, and its next
 * occurrence is the spec's own: an RFC 5545 rule in its zone under a
 * DST policy of the matrix, and an interval of calendar days. */
static void test_rrule_and_calendar_days_round_trip(void **state)
{
    sked_schedule s, back;
    sked_error err;
    sked_time want;

    sked_schedule_init(&s);
    s.name = strdup("fri");
    s.workflow = strdup("report");
    s.kind = SKED_SPEC_RRULE;
    s.rrule = strdup("DTSTART:20991023T023000\nRRULE:FREQ=WEEKLY;BYDAY=FR");
    s.timezone = strdup("Europe/Paris");
    s.dst = SKED_DST_SKIP_LAST;
    sked_error_clear(&err);
    if (sked__store_schedule_create(*state, &s, &err) != 0)
        fail_msg("create: %s: %s", err.field, err.msg);
    assert_int_equal(sked__store_schedule_get(*state, "fri", &back, NULL), 0);
    assert_int_equal(back.kind, SKED_SPEC_RRULE);
    assert_string_equal(back.rrule, s.rrule);
    assert_int_equal(back.dst, SKED_DST_SKIP_LAST);
    /* 2099-10-23 is a Friday, 02:30 CEST. */
    assert_int_equal(sked_time_parse("2099-10-23T00:30:00Z", &want, NULL), 0);
    assert_int_equal(back.next_fire_at, want);
    sked_schedule_done(&back);
    sked_schedule_done(&s);

    sked_schedule_init(&s);
    s.name = strdup("days");
    s.workflow = strdup("report");
    s.kind = SKED_SPEC_EVERY;
    s.every = 2 * 86400 * SKED_USEC_PER_SEC;
    s.calendar_days = 1;
    assert_int_equal(sked_time_parse("2099-01-01T08:00:00Z", &s.anchor, NULL),
                     0);
    s.timezone = strdup("Europe/Paris");
    if (sked__store_schedule_create(*state, &s, &err) != 0)
        fail_msg("create: %s: %s", err.field, err.msg);
    assert_int_equal(sked__store_schedule_get(*state, "days", &back, NULL), 0);
    assert_int_equal(back.calendar_days, 1);
    assert_int_equal(back.every, s.every);
    assert_int_equal(sked_time_parse("2099-01-03T08:00:00Z", &want, NULL), 0);
    assert_int_equal(back.next_fire_at, want);
    sked_schedule_done(&back);
    sked_schedule_done(&s);
}

/* ---- migrations and URLs ----------------------------------------------- */

static void test_meta_records_version(void **state)
{
    sked_store *again = NULL;
    long long v = 0;

    assert_int_equal(
        raw("SELECT value FROM meta WHERE key = 'schema_version'", &v), 0);
    assert_int_equal(v, schema_latest());
    create(*state, "kept", "0 9 * * *");
    /* Opening again is a no-op: same version, data kept. */
    assert_int_equal(open_store(&again, NULL), 0);
    sked__store_close(again);
    assert_int_equal(
        raw("SELECT value FROM meta WHERE key = 'schema_version'", &v), 0);
    assert_int_equal(v, schema_latest());
    assert_int_equal(count("schedules"), 1);
}

/* Give the field F of S a valid value other than its default, from its
 * kind and bounds: the longest text, the last name of an enum, a number
 * inside its range. */
static void fill_field(sked_schedule *s, const sked__sfield *f, int i)
{
    void *p = (char *) s + f->off;
    char *text;

    switch (f->kind) {
    case SKED__SK_NAME:
        free(*(char **) p);
        *(char **) p = strdup(f->field);
        return;
    case SKED__SK_STR:
        if (f->hi == 0) /* the zone: a real one */
            return;
        text = malloc((size_t) f->hi + 1);
        assert_non_null(text);
        memset(text, 'a' + i % 26, (size_t) f->hi);
        text[f->hi] = '\0';
        free(*(char **) p);
        *(char **) p = text;
        return;
    case SKED__SK_CONTEXT:
        free(*(char **) p);
        *(char **) p = strdup("{\"k\":[1,\"v\"]}");
        return;
    case SKED__SK_CALS: /* calendars the test creates */
        free(*(char **) p);
        *(char **) p = strdup("cal-a,cal-b");
        return;
    case SKED__SK_INSTANT: /* later rows later: end_at after start_at */
        if (s->kind == SKED_SPEC_EVERY ||
            f->off != offsetof(sked_schedule, anchor))
            *(sked_time *) p = T("2026-01-01T00:00:00Z") +
                               (sked_time) i * 3600 * SKED_USEC_PER_SEC;
        return;
    case SKED__SK_DUR:
        *(sked_dur *) p =
            (f->lo + f->hi) / 2 / SKED_USEC_PER_SEC * SKED_USEC_PER_SEC;
        return;
    case SKED__SK_I32:
        *(int32_t *) p = f->lo == INT32_MIN ? -7 : (int32_t) f->lo + 1;
        return;
    case SKED__SK_I64:
        *(int64_t *) p = f->lo == INT64_MIN ? -7 : f->lo + 1;
        return;
    case SKED__SK_BOOL: /* automatic_backfill rewrites the catch-up fields,
                           calendar_days needs an interval (tested below),
                           heartbeat an overlap allow (the ENUM rows take
                           their last value; test_engine_deadlines.c) */
        *(int32_t *) p =
            f->off != offsetof(sked_schedule, automatic_backfill) &&
            f->off != offsetof(sked_schedule, calendar_days) &&
            f->off != offsetof(sked_schedule, heartbeat);
        return;
    case SKED__SK_ENUM:
        *(int *) p = f->en->count - 1;
        return;
    default: /* the time spec is set as a whole; views have no member */
        return;
    }
}

/* Store a calendar NAME of one date. */
static void make_calendar(sked_store *st, const char *name)
{
    sked_calendar c;
    sked_error err;

    sked_calendar_init(&c);
    c.name = strdup(name);
    assert_int_equal(sked__strlist_add(&c.dates, "2026-12-25"), 0);
    if (sked__store_calendar_write(st, &c, SKED__CAL_CREATE, NULL, &err) != 0)
        fail_msg("calendar %s: %s", name, err.msg);
    sked_calendar_done(&c);
}

/* Every field of a schedule's definition, each given a value other than
 * its default, comes back as written (the field table's rows, so a new
 * field is tried without a word here). */
static void test_every_field_round_trips(void **state)
{
    sked_schedule s, back;
    json_t *a = NULL, *b = NULL;
    sked_error err;

    make(&s, "f", "0 9 * * *");
    make_calendar(*state, "cal-a");
    make_calendar(*state, "cal-b");
    for (size_t i = 0; i < SKED__SF_COUNT; i++)
        if (sked__sfields[i].role == SKED__SR_DEF ||
            sked__sfields[i].role == SKED__SR_KEY)
            fill_field(&s, &sked__sfields[i], (int) i);
    sked_error_clear(&err);
    if (sked__store_schedule_create(*state, &s, &err) != 0)
        fail_msg("create: %s: %s", err.field, err.msg);
    assert_int_equal(sked__store_schedule_get(*state, s.name, &back, NULL), 0);
    assert_int_equal(sked__schedule_to_json(&s, &a, NULL), 0);
    assert_int_equal(sked__schedule_to_json(&back, &b, NULL), 0);
    for (size_t i = 0; i < SKED__SF_COUNT; i++) {
        const sked__sfield *f = &sked__sfields[i];
        if (f->json && f->role == SKED__SR_DEF &&
            !json_equal(json_object_get(a, f->json),
                        json_object_get(b, f->json)))
            fail_msg("%s changed", f->json);
    }
    json_decref(a);
    json_decref(b);
    sked_schedule_done(&s);
    sked_schedule_done(&back);
}

static void test_newer_database_refused(void **state)
{
    sked_store *st = NULL;
    sked_error err;
    char restore[128];

    (void) state;
    assert_int_equal(raw("UPDATE meta SET value = '999' "
                         "WHERE key = 'schema_version'",
                         NULL),
                     0);
    assert_int_equal(open_store(&st, &err), SKED_ECONFLICT);
    assert_null(st);
    assert_non_null(strstr(err.msg, "newer"));
    assert_non_null(strstr(err.msg, "999"));
    snprintf(restore, sizeof restore,
             "UPDATE meta SET value = '%d' WHERE key = 'schema_version'",
             schema_latest());
    assert_int_equal(raw(restore, NULL), 0);
}

static void test_bad_urls(void **state)
{
    static const char *const bad[] = {"mysql://x/y", "sqlite:", "sked.db", ""};
    sked_store *st = NULL;
    sked_error err;

    (void) state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sked_error_clear(&err);
        assert_int_equal(sked__store_open(bad[i], NULL, &st, &err),
                         SKED_EINVAL);
        assert_string_equal(err.field, "db");
        assert_null(st);
    }
}

static void test_corrupt_file(void **state)
{
    char path[512], url[600];
    sked_store *st = NULL;
    sked_error err;
    FILE *f;

    (void) state;
    if (!is_sqlite())
        skip();
    snprintf(path, sizeof path, "%s/corrupt.db", tmp_dir);
    f = fopen(path, "wb");
    assert_non_null(f);
    for (int i = 0; i < 4096; i++)
        fputc("not a database "[i % 15], f);
    fclose(f);
    snprintf(url, sizeof url, "sqlite:%s", path);
    assert_int_equal(sked__store_open(url, NULL, &st, &err), SKED_EIO);
    assert_non_null(strstr(err.msg, "corrupt.db"));
    assert_null(st);
}

/* ---- schedules --------------------------------------------------------- */

static void test_create_get(void **state)
{
    sked_store *st = *state;
    sked_schedule s;
    sked_error err;

    create(st, "morning", "0 9 * * *");
    assert_int_equal(sked__store_schedule_get(st, "morning", &s, &err), 0);
    assert_string_equal(s.workflow, "report");
    assert_string_equal(s.cron, "0 9 * * *");
    assert_string_equal(s.timezone, "Europe/Paris");
    assert_string_equal(s.context, "{}");
    assert_int_equal(s.status, SKED_SCHEDULE_ACTIVE);
    assert_int_equal(s.source, SKED_SOURCE_API);
    assert_int_equal(s.catchup, SKED_CATCHUP_LATEST);
    assert_int_equal(s.catchup_max, 10);
    assert_true(s.catchup_window == SKED_CATCHUP_WINDOW_DEFAULT);
    assert_true(s.created_at == vclock.t && s.updated_at == vclock.t);
    assert_true(s.next_fire_at == T("2026-01-11T08:00:00Z"));
    assert_true(s.last_fired_at == SKED_TIME_NONE);
    assert_null(s.last_error);
    sked_schedule_done(&s);
    /* The name is unique. */
    make(&s, "morning", "0 10 * * *");
    assert_int_equal(sked__store_schedule_create(st, &s, &err), SKED_ECONFLICT);
    /* Worded once, the same on both back-ends (this test runs on both). */
    assert_string_equal(err.field, "name");
    assert_string_equal(err.msg, "a schedule named \"morning\" already exists");
    sked_schedule_done(&s);
    assert_int_equal(sked__store_schedule_get(st, "nope", &s, &err),
                     SKED_ENOTFOUND);
    assert_string_equal(err.msg, "no schedule named \"nope\"");
    assert_int_equal(count("events"), 1);
}

static void test_invalid_writes_nothing(void **state)
{
    sked_store *st = *state;
    sked_schedule s;
    sked_error err;

    make(&s, "bad", "0 9 * * *");
    free(s.timezone);
    s.timezone = strdup("Europe/Pariss");
    assert_int_equal(sked__store_schedule_create(st, &s, &err), SKED_EINVAL);
    assert_string_equal(err.field, "timezone");
    assert_non_null(strstr(err.msg, "Europe/Pariss"));
    s.catchup_max = 0;
    free(s.timezone);
    s.timezone = NULL;
    assert_int_equal(sked__store_schedule_create(st, &s, &err), SKED_EINVAL);
    assert_string_equal(err.field, "catchup_max");
    sked_schedule_done(&s);
    assert_int_equal(count("schedules"), 0);
    assert_int_equal(count("events"), 0);
}

static void test_update(void **state)
{
    sked_store *st = *state;
    sked_schedule s, got;
    sked_error err;

    create(st, "u", "0 9 * * *");
    vclock.t += 60 * SKED_USEC_PER_SEC;
    make(&s, "u", "30 7 * * *");
    free(s.timezone);
    s.timezone = strdup("America/New_York");
    s.overlap = SKED_OVERLAP_SKIP;
    assert_int_equal(sked__store_schedule_update(st, &s, &err), 0);
    assert_int_equal(sked__store_schedule_get(st, "u", &got, &err), 0);
    assert_string_equal(got.cron, "30 7 * * *");
    assert_string_equal(got.timezone, "America/New_York");
    assert_int_equal(got.overlap, SKED_OVERLAP_SKIP);
    assert_true(got.updated_at == vclock.t);
    assert_true(got.created_at == vclock.t - 60 * SKED_USEC_PER_SEC);
    assert_true(got.next_fire_at == T("2026-01-10T12:30:00Z"));
    sked_schedule_done(&got);
    /* Updating a missing schedule, or with a bad value, changes nothing. */
    free(s.name);
    s.name = strdup("missing");
    assert_int_equal(sked__store_schedule_update(st, &s, &err), SKED_ENOTFOUND);
    free(s.name);
    s.name = strdup("u");
    s.jitter = SKED_JITTER_MAX + 1;
    assert_int_equal(sked__store_schedule_update(st, &s, &err), SKED_EINVAL);
    assert_string_equal(err.field, "jitter");
    sked_schedule_done(&s);
    assert_int_equal(count("events"), 2);
}

static void test_delete_idempotent(void **state)
{
    sked_store *st = *state;
    bool existed = false;

    create(st, "d", "0 9 * * *");
    assert_int_equal(sked__store_schedule_delete(st, "d", &existed, NULL), 0);
    assert_true(existed);
    assert_int_equal(sked__store_schedule_delete(st, "d", &existed, NULL), 0);
    assert_false(existed);
    assert_int_equal(count("schedules"), 0);
    assert_int_equal(count("events"), 2); /* created, deleted */
}

static void test_pause_resume(void **state)
{
    sked_store *st = *state;
    sked_schedule s;

    create(st, "p", "0 9 * * *");
    assert_int_equal(sked__store_schedule_pause(st, "p", NULL), 0);
    assert_int_equal(sked__store_schedule_pause(st, "p", NULL), 0);
    assert_int_equal(sked__store_schedule_get(st, "p", &s, NULL), 0);
    assert_int_equal(s.status, SKED_SCHEDULE_PAUSED);
    assert_true(s.next_fire_at == SKED_TIME_NONE);
    sked_schedule_done(&s);
    /* Resumed three days later: next occurrence from then, no catch-up. */
    assert_int_equal(
        sked__store_schedule_resume(st, "p", T("2026-01-13T09:00:00Z"), NULL),
        0);
    assert_int_equal(sked__store_schedule_get(st, "p", &s, NULL), 0);
    assert_int_equal(s.status, SKED_SCHEDULE_ACTIVE);
    assert_true(s.next_fire_at == T("2026-01-14T08:00:00Z"));
    sked_schedule_done(&s);
    assert_int_equal(sked__store_schedule_resume(st, "p", vclock.t, NULL), 0);
    assert_int_equal(sked__store_schedule_pause(st, "zz", NULL),
                     SKED_ENOTFOUND);
    assert_int_equal(count("events"), 3); /* created, paused, resumed */
}

static void test_next_fire_kinds(void **state)
{
    sked_store *st = *state;
    sked_schedule s, got;

    sked_schedule_init(&s);
    s.name = strdup("every");
    s.workflow = strdup("w");
    s.kind = SKED_SPEC_EVERY;
    s.every = 3600 * SKED_USEC_PER_SEC;
    assert_int_equal(sked__store_schedule_create(st, &s, NULL), 0);
    assert_int_equal(sked__store_schedule_get(st, "every", &got, NULL), 0);
    assert_true(got.anchor == vclock.t);
    assert_true(got.next_fire_at == vclock.t + s.every);
    sked_schedule_done(&got);
    sked_schedule_done(&s);

    /* An instant already past, allowed, is kept for the catch-up
     * policy... */
    sked_schedule_init(&s);
    s.name = strdup("at");
    s.workflow = strdup("w");
    s.kind = SKED_SPEC_AT;
    s.at = T("2026-01-10T11:59:00Z");
    s.allow_past = 1;
    assert_int_equal(sked__store_schedule_create(st, &s, NULL), 0);
    assert_int_equal(sked__store_schedule_get(st, "at", &got, NULL), 0);
    assert_true(got.next_fire_at == s.at);
    assert_int_equal(got.status, SKED_SCHEDULE_ACTIVE);
    sked_schedule_done(&got);
    /* ...but a resumed schedule is never caught up: it is done. */
    assert_int_equal(sked__store_schedule_pause(st, "at", NULL), 0);
    assert_int_equal(sked__store_schedule_resume(st, "at", vclock.t, NULL), 0);
    assert_int_equal(sked__store_schedule_get(st, "at", &got, NULL), 0);
    assert_int_equal(got.status, SKED_SCHEDULE_DONE);
    assert_true(got.next_fire_at == SKED_TIME_NONE);
    sked_schedule_done(&got);
    sked_schedule_done(&s);

    /* Bounds: the first occurrence is at or after start_at. */
    make(&s, "bounded", "0 9 * * *");
    s.start_at = T("2026-02-01T08:00:00Z");
    assert_int_equal(sked__store_schedule_create(st, &s, NULL), 0);
    assert_int_equal(sked__store_schedule_get(st, "bounded", &got, NULL), 0);
    assert_true(got.next_fire_at == T("2026-02-01T08:00:00Z"));
    sked_schedule_done(&got);
    sked_schedule_done(&s);
}

static void test_list_filters_and_pages(void **state)
{
    sked_store *st = *state;
    sked_schedule_filter f = {.status = -1, .limit = 10};
    sked_schedule *list;
    char name[32], after[32] = "";
    size_t n, total = 0, pages = 0;
    bool more = true;

    for (int i = 0; i < 25; i++) {
        snprintf(name, sizeof name, "%s-%02d", i % 2 ? "odd" : "even", i);
        create(st, name, "0 9 * * *");
    }
    assert_int_equal(sked__store_schedule_pause(st, "odd-01", NULL), 0);
    while (more) {
        assert_int_equal(
            sked__store_schedule_list(st, &f, &list, &n, &more, NULL), 0);
        for (size_t i = 0; i < n; i++)
            assert_true(strcmp(list[i].name, after) > 0);
        if (n)
            snprintf(after, sizeof after, "%s", list[n - 1].name);
        total += n;
        pages++;
        sked__schedules_free(list, n);
        f.after_name = after;
    }
    assert_int_equal(total, 25);
    assert_int_equal(pages, 3);

    f = (sked_schedule_filter){.status = -1, .name_prefix = "odd"};
    assert_int_equal(sked__store_schedule_list(st, &f, &list, &n, &more, NULL),
                     0);
    assert_int_equal(n, 12);
    assert_false(more);
    sked__schedules_free(list, n);
    f = (sked_schedule_filter){.status = SKED_SCHEDULE_PAUSED};
    assert_int_equal(sked__store_schedule_list(st, &f, &list, &n, &more, NULL),
                     0);
    assert_int_equal(n, 1);
    assert_string_equal(list[0].name, "odd-01");
    sked__schedules_free(list, n);
    f = (sked_schedule_filter){.status = -1, .workflow = "other"};
    assert_int_equal(sked__store_schedule_list(st, &f, &list, &n, &more, NULL),
                     0);
    assert_int_equal(n, 0);
    sked__schedules_free(list, n);
}

/* ---- apply ------------------------------------------------------------- */

static void test_apply(void **state)
{
    sked_store *st = *state;
    sked_schedule set[3];
    sked_apply_result r;
    sked_error err;
    sked_schedule got;

    create(st, "by-hand", "0 8 * * *"); /* source api: never pruned */
    make(&set[0], "a", "0 9 * * *");
    make(&set[1], "b", "0 10 * * *");
    make(&set[2], "c", "0 11 * * *");
    assert_int_equal(
        sked__store_schedule_apply(st, set, 3, "app-a", true, &r, &err), 0);
    assert_true(r.created == 3 && r.updated == 0 && r.unchanged == 0 &&
                r.deleted == 0);
    assert_int_equal(
        sked__store_schedule_apply(st, set, 3, "app-a", true, &r, &err), 0);
    assert_true(r.created == 0 && r.updated == 0 && r.unchanged == 3);
    /* Change a, drop c, prune. */
    free(set[0].cron);
    set[0].cron = strdup("15 9 * * *");
    assert_int_equal(
        sked__store_schedule_apply(st, set, 2, "app-a", true, &r, &err), 0);
    assert_true(r.created == 0 && r.updated == 1 && r.unchanged == 1 &&
                r.deleted == 1);
    assert_int_equal(sked__store_schedule_get(st, "c", &got, NULL),
                     SKED_ENOTFOUND);
    assert_int_equal(sked__store_schedule_get(st, "by-hand", &got, NULL), 0);
    sked_schedule_done(&got);
    assert_int_equal(sked__store_schedule_get(st, "a", &got, NULL), 0);
    assert_int_equal(got.source, SKED_SOURCE_CODE);
    assert_string_equal(got.cron, "15 9 * * *");
    sked_schedule_done(&got);
    for (int i = 0; i < 3; i++)
        sked_schedule_done(&set[i]);
}

static void test_apply_all_or_nothing(void **state)
{
    sked_store *st = *state;
    sked_schedule set[3];
    sked_apply_result r = {0};
    sked_error err;
    long long events;

    make(&set[0], "a", "0 9 * * *");
    assert_int_equal(
        sked__store_schedule_apply(st, set, 1, "app-a", false, &r, &err), 0);
    events = count("events");
    free(set[0].cron);
    set[0].cron = strdup("0 12 * * *");
    make(&set[1], "b", "0 10 * * *");
    make(&set[2], "c", "0 11 * * *");
    free(set[2].timezone);
    set[2].timezone = strdup("Mars/Olympus");
    assert_int_equal(
        sked__store_schedule_apply(st, set, 3, "app-a", true, &r, &err),
        SKED_EINVAL);
    assert_string_equal(err.field, "schedules[2].timezone");
    /* A name given twice is refused too. */
    free(set[2].name);
    set[2].name = strdup("a");
    free(set[2].timezone);
    set[2].timezone = NULL;
    assert_int_equal(
        sked__store_schedule_apply(st, set, 3, "app-a", true, &r, &err),
        SKED_EINVAL);
    assert_int_equal(count("schedules"), 1);
    assert_int_equal(count("events"), events);
    for (int i = 0; i < 3; i++)
        sked_schedule_done(&set[i]);
}

/* Apply SET (N) as APP with prune; returns the code, *r the result. */
static int apply_as(sked_store *st, const char *app, sked_schedule *set,
                    size_t n, sked_apply_result *r, sked_error *err)
{
    memset(r, 0, sizeof *r);
    return sked__store_schedule_apply(st, set, n, app, true, r, err);
}

/* SPEC 3.5: a sync creates, updates and prunes only its own app's code
 * schedules. Apps with sets of every size, each synced again with a
 * smaller set: the others' schedules never move, a name another app owns
 * is a conflict that changes nothing, and the names of the changes are
 * reported while they are few. */
static void test_apply_apps(void **state)
{
    sked_store *st = *state;
    enum { APPS = 4, MOST = 14 };
    sked_schedule set[MOST];
    sked_apply_result r;
    sked_error err;
    char name[32], app[16], where[64];

    create(st, "by-hand", "0 8 * * *"); /* source api */
    for (int a = 0; a < APPS; a++) {
        size_t n = (size_t) (a * 4 + 2); /* 2, 6, 10, 14 */
        snprintf(app, sizeof app, "app-%d", a);
        for (size_t i = 0; i < n; i++) {
            snprintf(name, sizeof name, "a%d-s%02zu", a, i);
            make(&set[i], name, "0 9 * * *");
        }
        assert_int_equal(apply_as(st, app, set, n, &r, &err), 0);
        assert_int_equal(r.created, n);
        if (n <= SKED_APPLY_NAMES_MAX)
            assert_string_equal(r.names[SKED_APPLY_CREATED][n - 1], name);
        for (size_t i = 0; i < n; i++)
            sked_schedule_done(&set[i]);
    }
    /* Each app again with only its first schedule: prunes its own. */
    for (int a = 0; a < APPS; a++) {
        size_t had = (size_t) (a * 4 + 2);
        long long others = count("schedules") - (long long) had;
        snprintf(app, sizeof app, "app-%d", a);
        snprintf(name, sizeof name, "a%d-s00", a);
        make(&set[0], name, "0 9 * * *");
        assert_int_equal(apply_as(st, app, set, 1, &r, &err), 0);
        assert_int_equal(r.deleted, had - 1);
        assert_int_equal(r.unchanged, 1);
        if (had - 1 <= SKED_APPLY_NAMES_MAX) {
            snprintf(name, sizeof name, "a%d-s01", a);
            assert_string_equal(r.names[SKED_APPLY_DELETED][0], name);
        }
        assert_int_equal(count("schedules"), others + 1);
        snprintf(where, sizeof where, "app = '%s'", app);
        assert_int_equal(count_rows("schedules", where), 1);
        sked_schedule_done(&set[0]);
    }
    /* A name of another app, or of the API: a conflict, nothing moves. */
    long long before = count("schedules");
    make(&set[0], "a0-s00", "0 10 * * *");
    make(&set[1], "new-one", "0 10 * * *");
    assert_int_equal(apply_as(st, "app-1", set, 2, &r, &err), SKED_ECONFLICT);
    assert_non_null(strstr(err.msg, "belongs to app \"app-0\""));
    assert_int_equal(count("schedules"), before);
    free(set[0].name);
    set[0].name = strdup("by-hand");
    assert_int_equal(apply_as(st, "app-1", set, 2, &r, &err), SKED_ECONFLICT);
    assert_int_equal(count("schedules"), before);
    for (int i = 0; i < 2; i++)
        sked_schedule_done(&set[i]);
    /* An empty set prunes its app only: the others and by-hand stay. */
    assert_int_equal(apply_as(st, "app-3", NULL, 0, &r, &err), 0);
    assert_int_equal(r.deleted, 1);
    assert_int_equal(count("schedules"), before - 1);
    assert_int_equal(count_rows("schedules", "source = 'api'"), 1);
    /* An app must be a name. */
    assert_int_equal(apply_as(st, "", NULL, 0, &r, &err), SKED_EINVAL);
    assert_string_equal(err.field, "app");
    assert_int_equal(apply_as(st, "a b", NULL, 0, &r, &err), SKED_EINVAL);
    assert_int_equal(count("schedules"), before - 1);
}

/* A code schedule from before apps (none) is taken over by the first set
 * naming it, and pruned by no set that does not. */
static void test_apply_adopts(void **state)
{
    sked_store *st = *state;
    sked_schedule set[2];
    sked_apply_result r;
    sked_error err;
    sked_schedule got;

    make(&set[0], "old-a", "0 9 * * *");
    make(&set[1], "old-b", "0 9 * * *");
    assert_int_equal(apply_as(st, "x", set, 2, &r, &err), 0);
    assert_int_equal(raw("UPDATE schedules SET app = NULL", NULL), 0);
    assert_int_equal(apply_as(st, "y", set, 1, &r, &err), 0);
    assert_int_equal(r.updated, 1); /* taken over */
    assert_int_equal(r.deleted, 0); /* old-b has no app: kept */
    assert_int_equal(sked__store_schedule_get(st, "old-a", &got, NULL), 0);
    assert_string_equal(got.app, "y");
    sked_schedule_done(&got);
    assert_int_equal(sked__store_schedule_get(st, "old-b", &got, NULL), 0);
    assert_null(got.app);
    sked_schedule_done(&got);
    /* Updated through the API, a code schedule keeps its app. */
    make(&got, "old-a", "0 11 * * *");
    assert_int_equal(sked__store_schedule_update(st, &got, NULL), 0);
    sked_schedule_done(&got);
    assert_int_equal(sked__store_schedule_get(st, "old-a", &got, NULL), 0);
    assert_string_equal(got.app, "y");
    assert_string_equal(got.cron, "0 11 * * *");
    sked_schedule_done(&got);
    /* An API schedule has none, whatever the caller put in. */
    make(&got, "api-one", "0 9 * * *");
    got.app = strdup("x");
    assert_int_equal(sked__store_schedule_create(st, &got, NULL), 0);
    sked_schedule_done(&got);
    assert_int_equal(sked__store_schedule_get(st, "api-one", &got, NULL), 0);
    assert_null(got.app);
    sked_schedule_done(&got);
    for (int i = 0; i < 2; i++)
        sked_schedule_done(&set[i]);
}

/* Threads applying one set at once, as servers started together sync
 * one workflows file (SPEC 3.5). */
#define TOGETHER_THREADS 4
#define TOGETHER_SET     12

struct together_arg {
    sked_store *st;
    pthread_barrier_t *gate;
    int round;
    sked_apply_result res;
    int rc;
    char msg[SKED_ERROR_MSG_MAX];
};

static void *apply_thread(void *p)
{
    struct together_arg *a = p;
    sked_schedule set[TOGETHER_SET];
    char name[32], cron[32];
    sked_error err;

    /* Each round a set of its own size and names, so rounds differ. */
    size_t n = TOGETHER_SET - (size_t) (a->round % 4);
    for (size_t i = 0; i < n; i++) {
        snprintf(name, sizeof name, "r%d-s%zu", a->round, i);
        snprintf(cron, sizeof cron, "%zu %d * * *", i, a->round % 24);
        make(&set[i], name, cron);
    }
    (void) pthread_barrier_wait(a->gate);
    a->rc =
        sked__store_schedule_apply(a->st, set, n, "app-a", true, &a->res, &err);
    if (a->rc != 0)
        snprintf(a->msg, sizeof a->msg, "%s", err.msg);
    for (size_t i = 0; i < n; i++)
        sked_schedule_done(&set[i]);
    return NULL;
}

/* Every apply of the same set at once succeeds; together they create
 * each schedule once, and the set replaces the last round's. */
static void test_apply_together(void **state)
{
    struct together_arg a[TOGETHER_THREADS];
    pthread_t th[TOGETHER_THREADS];
    pthread_barrier_t gate;

    for (int round = 0; round < 8; round++) {
        size_t created = 0, n = TOGETHER_SET - (size_t) (round % 4);
        assert_int_equal(pthread_barrier_init(&gate, NULL, TOGETHER_THREADS),
                         0);
        for (int i = 0; i < TOGETHER_THREADS; i++) {
            a[i] = (struct together_arg){
                .st = *state, .gate = &gate, .round = round};
            assert_int_equal(pthread_create(&th[i], NULL, apply_thread, &a[i]),
                             0);
        }
        for (int i = 0; i < TOGETHER_THREADS; i++) {
            assert_int_equal(pthread_join(th[i], NULL), 0);
            if (a[i].rc != 0)
                fail_msg("round %d, apply %d: %s", round, i, a[i].msg);
            created += a[i].res.created;
        }
        (void) pthread_barrier_destroy(&gate);
        assert_int_equal(created, n);
        assert_int_equal(count("schedules"), (long long) n);
    }
}

/* ---- runs -------------------------------------------------------------- */

static sked_run_new run(const char *id, const char *key)
{
    return (sked_run_new){.id = id,
                          .workflow = "report",
                          .schedule = "morning",
                          .trigger = SKED_TRIGGER_CRON,
                          .scheduled_for = T("2026-01-10T08:00:00Z"),
                          .concurrency_key = key,
                          .not_before = SKED_TIME_NONE};
}

static void test_runs_insert_if_absent(void **state)
{
    sked_store *st = *state;
    sked_run_new a[3] = {run("r1", NULL), run("r2", NULL), run("r3", NULL)};
    sked_run_new b[3] = {run("r2", NULL), run("r4", NULL), run("r3", NULL)};
    bool created[3];

    assert_int_equal(sked__store_runs_insert(st, a, 3, created, NULL), 0);
    assert_true(created[0] && created[1] && created[2]);
    assert_int_equal(sked__store_runs_insert(st, b, 3, created, NULL), 0);
    assert_true(!created[0] && created[1] && !created[2]);
    assert_int_equal(count("runs"), 4);
}

static void test_concurrency_key(void **state)
{
    sked_store *st = *state;
    sked_run_new first = run("k1", "schedule:morning");
    sked_run_new batch[2] = {run("free", NULL), run("k2", "schedule:morning")};
    bool created[2];
    sked_error err;

    assert_int_equal(sked__store_runs_insert(st, &first, 1, created, NULL), 0);
    assert_int_equal(sked__store_runs_insert(st, batch, 2, created, &err),
                     SKED_ECONFLICT);
    assert_non_null(strstr(err.msg, "schedule:morning"));
    assert_int_equal(count("runs"), 1); /* nothing from that batch */
    /* Once the run is no longer active, the key is free again. */
    assert_int_equal(
        raw("UPDATE runs SET status = 'completed' WHERE id = 'k1'", NULL), 0);
    assert_int_equal(sked__store_runs_insert(st, batch, 2, created, &err), 0);
    assert_true(created[0] && created[1]);
}

/* A refused key is named the same way on every back-end: the field, the
 * first run of the batch holding it, and the key in the message (cut at
 * 100 bytes), for keys of every length up to the limit and the holder at
 * every place of the batch. */
static void test_concurrency_key_named(void **state)
{
    static const size_t lens[] = {1, 99, 100, 127, 128, 129, 160, 200};
    sked_store *st = *state;
    char key[SKED_RUN_KEY_MAX + 1], ids[4][16], want[160];
    bool created[3];
    sked_error err;
    int round = 0;

    for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++)
        for (size_t at = 0; at < 3; at++, round++) {
            sked_run_new held, batch[3];
            for (size_t i = 0; i < lens[l]; i++)
                key[i] = (char) ('a' + (i + (size_t) round) % 26);
            key[lens[l]] = '\0';
            for (int i = 0; i < 4; i++)
                snprintf(ids[i], sizeof ids[i], "n%d-%d", round, i);
            held = run(ids[0], key);
            for (size_t i = 0; i < 3; i++)
                batch[i] = run(ids[i + 1], i == at ? key : NULL);
            assert_int_equal(
                sked__store_runs_insert(st, &held, 1, created, NULL), 0);
            assert_int_equal(
                sked__store_runs_insert(st, batch, 3, created, &err),
                SKED_ECONFLICT);
            snprintf(want, sizeof want,
                     "an active run holds the concurrency key \"%.100s\"", key);
            assert_string_equal(err.field, "concurrency_key");
            assert_int_equal(err.pos, (int) at);
            assert_string_equal(err.msg, want);
        }
    assert_int_equal(count("runs"), round); /* only the holders */
}

/* The store writes runs many to a statement; a statement where some runs
 * already exist or are refused by the active-key index must still tell
 * each run's fate, and write run.created for exactly the runs created,
 * each event's id the one stored. 130 runs: batches with existing runs,
 * one with a refused run, one whole, and a tail. */
static void test_runs_create_lenient_batches(void **state)
{
    enum { N = 130 };
    sked_store *st = *state;
    static char ids[N][16];
    sked_run_new runs[N], holder = run("holder", "schedule:morning");
    sked_run_insert_state got[N];
    sked_event *ev = NULL, *stored = NULL;
    size_t nev = 0, nstored = 0, k = 0;
    bool created[1];
    sked_error err;

    for (int i = 0; i < N; i++) {
        snprintf(ids[i], sizeof ids[i], "run-%03d", i);
        runs[i] = run(ids[i], i == 70 ? "schedule:morning" : NULL);
    }
    assert_int_equal(sked__store_runs_insert(st, &holder, 1, created, NULL), 0);
    for (int i = 0; i < N; i++)
        if ((i >= 10 && i < 20) || (i >= 45 && i <= 50))
            assert_int_equal(
                sked__store_runs_insert(st, &runs[i], 1, created, NULL), 0);
    if (sked__store_runs_create(st, runs, N, false, got, &ev, &nev, &err) != 0)
        fail_msg("runs_create: %s", err.msg);
    for (int i = 0; i < N; i++) {
        sked_run_insert_state want = SKED_RUN_INSERTED;
        if ((i >= 10 && i < 20) || (i >= 45 && i <= 50))
            want = SKED_RUN_EXISTED;
        else if (i == 70)
            want = SKED_RUN_REFUSED;
        if (got[i] != want)
            fail_msg("run %d: state %d, want %d", i, got[i], want);
    }
    assert_int_equal(count("runs"), 1 + N - 1);
    /* One run.created per run created, in the runs' order, each with the
     * id and subject the log holds. */
    assert_int_equal(nev, N - 16 - 1);
    assert_int_equal(
        sked__store_event_list(st, 0, 1000, &stored, &nstored, NULL), 0);
    assert_int_equal(nstored, nev);
    for (int i = 0; i < N; i++) {
        if (got[i] != SKED_RUN_INSERTED)
            continue;
        assert_string_equal(ev[k].type, "run.created");
        assert_string_equal(ev[k].subject, ids[i]);
        assert_true(ev[k].id == stored[k].id);
        assert_string_equal(stored[k].subject, ids[i]);
        assert_string_equal(stored[k].payload, ev[k].payload);
        k++;
    }
    sked__events_free(ev, nev);
    sked__events_free(stored, nstored);
}

/* The same on random mixes, against a model: 40 rounds, each a batch of
 * 0 to 150 runs of which some exist already (inserted in an earlier
 * round) and some carry a concurrency key an active run holds; every
 * third round is all new runs. Every run's fate, the number of rows, and the
 * run.created events (one per run created, in order, ids as stored) must match
 * the model. */
static void test_runs_create_random(void **state)
{
    enum { MAX = 150, KEYS = 5 };
    sked_store *st = *state;
    static char ids[MAX][24], keys[KEYS][24];
    static bool stored[40 * MAX];
    sked_run_new runs[MAX];
    sked_run_insert_state got[MAX], want[MAX];
    uint64_t seed = 0x9e3779b97f4a7c15u;
    long long rows = 0;
    int64_t last_id = 0; /* the log's last event */

    for (int k = 0; k < KEYS; k++) {
        sked_run_new holder;
        bool created;
        char hid[24];
        snprintf(keys[k], sizeof keys[k], "key-%d", k);
        snprintf(hid, sizeof hid, "holder-%d", k);
        holder = run(hid, keys[k]);
        assert_int_equal(
            sked__store_runs_insert(st, &holder, 1, &created, NULL), 0);
        rows++;
    }
    for (int round = 0; round < 40; round++) {
        sked_event *ev = NULL, *log = NULL;
        size_t nev = 0, nlog = 0, k = 0, n, made = 0;
        sked_error err;

        seed = seed * 6364136223846793005u + 1442695040888963407u;
        n = (size_t) (seed >> 33) % (MAX + 1);
        for (size_t i = 0; i < n; i++) {
            /* ids from a pool of 40 * MAX, so rounds meet earlier runs */
            seed = seed * 6364136223846793005u + 1442695040888963407u;
            size_t pick = (size_t) (seed >> 33) % (40 * MAX);
            /* every third round all new: whole batches of a statement */
            bool fresh = round % 3 == 0;
            bool keyed = !fresh && (seed >> 20) % 13 == 0;
            bool dup = false;
            snprintf(ids[i], sizeof ids[i], "r-%d", (int) pick);
            for (size_t j = 0; j < i; j++)
                dup |= strcmp(ids[j], ids[i]) == 0;
            if (fresh || dup) /* a new id, never in the pool */
                snprintf(ids[i], sizeof ids[i], "u-%d-%zu", round, i);
            runs[i] = run(ids[i], keyed ? keys[(seed >> 8) % KEYS] : NULL);
            if (ids[i][0] == 'r' && stored[pick])
                want[i] = SKED_RUN_EXISTED;
            else if (keyed)
                want[i] = SKED_RUN_REFUSED;
            else
                want[i] = SKED_RUN_INSERTED;
        }
        if (sked__store_runs_create(st, runs, n, false, got, &ev, &nev, &err) !=
            0)
            fail_msg("round %d: %s", round, err.msg);
        for (size_t i = 0; i < n; i++) {
            if (got[i] != want[i])
                fail_msg("round %d, run %zu (%s): state %d, want %d", round, i,
                         ids[i], got[i], want[i]);
            if (want[i] != SKED_RUN_INSERTED)
                continue;
            made++;
            if (ids[i][0] == 'r')
                stored[atoi(ids[i] + 2)] = true;
        }
        rows += (long long) made;
        assert_int_equal(count("runs"), rows);
        assert_int_equal(nev, made);
        assert_int_equal(
            sked__store_event_list(st, last_id, 1000, &log, &nlog, NULL), 0);
        assert_int_equal(nlog, made);
        for (size_t i = 0; i < n; i++) {
            if (want[i] != SKED_RUN_INSERTED)
                continue;
            assert_string_equal(ev[k].subject, ids[i]);
            assert_true(ev[k].id == log[k].id);
            assert_string_equal(log[k].subject, ids[i]);
            k++;
        }
        if (nev > 0)
            last_id = ev[nev - 1].id;
        sked__events_free(ev, nev);
        sked__events_free(log, nlog);
    }
}

/* The firing transaction reads and moves schedules many to a statement:
 * among 100 names, every third has no schedule, every third is disabled
 * by its decision (an expression that no longer loads), and the rest
 * each fire one run and move their cursor. */
/* Decide for S one run "fire-NAME" at OCC, the cursor moved there and
 * the next occurrence NEXT later. */
static int decide_run(const sked_schedule *s, sked_time occ, sked_dur next,
                      sked_firing *out)
{
    char id[SKED_RUN_ID_MAX];

    snprintf(id, sizeof id, "fire-%s", s->name);
    out->runs = calloc(1, sizeof *out->runs);
    if (!out->runs || !(out->runs[0].id = strdup(id)))
        return SKED_ENOMEM;
    out->runs[0].workflow = s->workflow;
    out->runs[0].schedule = s->name;
    out->runs[0].scheduled_for = occ;
    out->runs[0].not_before = SKED_TIME_NONE;
    out->nruns = 1;
    out->cursor = occ;
    out->next_fire_at = occ + next;
    out->status = SKED_SCHEDULE_ACTIVE;
    return 0;
}

static int decide_one(void *ctx, const sked_schedule *s,
                      const sked__occ_days *days, const sked_time *skips,
                      size_t nskips, int64_t active, sked_firing *out)
{
    (void) skips;
    (void) nskips;
    (void) days;
    (void) active;
    if (atoi(s->name + 1) % 3 == 1) {
        out->disable = strdup("the expression no longer loads");
        return out->disable ? 0 : SKED_ENOMEM;
    }
    return decide_run(s, *(const sked_time *) ctx, 3600 * SKED_USEC_PER_SEC,
                      out);
}

static void test_fire_many(void **state)
{
    enum { N = 100 };
    sked_store *st = *state;
    static char names[N][16];
    const char *list[N];
    sked_firing f[N];
    sked_time occ = T("2026-01-10T12:00:00Z");
    sked_event *ev = NULL;
    size_t nev = 0, fired = 0, disabled = 0;
    sked_error err;

    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "s%03d", i);
        list[i] = names[i];
        if (i % 3 != 0)
            create(st, names[i], "0 * * * *");
    }
    vclock.t += 60 * SKED_USEC_PER_SEC;
    memset(f, 0, sizeof f);
    if (sked__store_fire(st, list, N, decide_one, &occ, f, &ev, &nev, &err) !=
        0)
        fail_msg("fire: %s", err.msg);
    for (int i = 0; i < N; i++) {
        sked_schedule s;
        assert_int_equal(f[i].found, i % 3 != 0);
        assert_int_equal(f[i].created, i % 3 == 2);
        sked__firing_done(&f[i]);
        if (i % 3 == 0)
            continue;
        assert_int_equal(sked__store_schedule_get(st, names[i], &s, NULL), 0);
        if (i % 3 == 1) {
            disabled++;
            assert_int_equal(s.status, SKED_SCHEDULE_DISABLED);
            assert_string_equal(s.last_error, "the expression no longer loads");
            assert_true(s.next_fire_at == SKED_TIME_NONE);
            assert_true(s.last_fired_at == SKED_TIME_NONE);
            assert_true(s.updated_at == vclock.t);
        } else {
            fired++;
            assert_int_equal(s.status, SKED_SCHEDULE_ACTIVE);
            assert_null(s.last_error);
            assert_true(s.last_fired_at == occ);
            assert_true(s.next_fire_at == occ + 3600 * SKED_USEC_PER_SEC);
            assert_int_equal(s.runs_created, 1);
            assert_true(s.updated_at < vclock.t); /* a move is no change */
        }
        sked_schedule_done(&s);
    }
    assert_int_equal(disabled, 33);
    assert_int_equal(fired, 33);
    assert_int_equal(count("runs"), (long long) fired);
    assert_int_equal(nev, fired + disabled);
    for (size_t k = 0; k < nev; k++)
        assert_true(strcmp(ev[k].type, "run.created") == 0 ||
                    strcmp(ev[k].type, "schedule.disabled") == 0);
    sked__events_free(ev, nev);
}

/* The firing transaction counts the active runs of the schedules whose
 * overlap policy needs them, for a whole batch at once: 70 schedules,
 * every other one "overlap: skip", schedule i with i % 4 active runs and
 * two finished ones; decide sees each count (and 0 for "allow"). */
struct seen_active {
    int64_t active[70];
    int calls;
};

static int decide_count(void *ctx, const sked_schedule *s,
                        const sked__occ_days *days, const sked_time *skips,
                        size_t nskips, int64_t active, sked_firing *out)
{
    (void) skips;
    (void) nskips;
    (void) days;
    struct seen_active *seen = ctx;

    seen->active[atoi(s->name + 1)] = active;
    seen->calls++;
    out->cursor = s->last_fired_at;
    out->next_fire_at = s->next_fire_at;
    out->status = s->status;
    return 0;
}

static void test_fire_counts_active(void **state)
{
    enum { N = 70 };
    sked_store *st = *state;
    static char names[N][16], ids[N][6][32];
    const char *list[N];
    sked_firing f[N];
    struct seen_active seen = {{0}, 0};
    sked_error err;

    for (int i = 0; i < N; i++) {
        sked_schedule s;
        snprintf(names[i], sizeof names[i], "a%02d", i);
        list[i] = names[i];
        make(&s, names[i], "0 * * * *");
        s.overlap = i % 2 ? SKED_OVERLAP_SKIP : SKED_OVERLAP_ALLOW;
        if (sked__store_schedule_create(st, &s, &err) != 0)
            fail_msg("create: %s", err.msg);
        sked_schedule_done(&s);
        for (int k = 0; k < i % 4 + 2; k++) {
            sked_run_new r = run(ids[i][k], NULL);
            bool created;
            snprintf(ids[i][k], sizeof ids[i][k], "%s-%d", names[i], k);
            r.id = ids[i][k];
            r.schedule = names[i];
            assert_int_equal(sked__store_runs_insert(st, &r, 1, &created, NULL),
                             0);
        }
    }
    /* The first two runs of every schedule are finished. */
    assert_int_equal(raw("UPDATE runs SET status = 'completed' "
                         "WHERE id LIKE '%-0' OR id LIKE '%-1'",
                         NULL),
                     0);
    memset(f, 0, sizeof f);
    if (sked__store_fire(st, list, N, decide_count, &seen, f, NULL, NULL,
                         &err) != 0)
        fail_msg("fire: %s", err.msg);
    assert_int_equal(seen.calls, N);
    for (int i = 0; i < N; i++) {
        sked__firing_done(&f[i]);
        if (seen.active[i] != (i % 2 ? i % 4 : 0))
            fail_msg("schedule %s: %lld active, want %d", names[i],
                     (long long) seen.active[i], i % 2 ? i % 4 : 0);
    }
}

/* ---- a firing whose run insert fails ------------------------------------ */

/* Make every insert of a run of the schedule "broken" fail (ON), with a
 * trigger of the database itself, or stop it. */
static void fail_inserts(bool on)
{
    static const char *const sqlite_sql[] = {
        "CREATE TRIGGER sked_test_fail BEFORE INSERT ON runs "
        "WHEN NEW.schedule = 'broken' "
        "BEGIN SELECT RAISE(ABORT, 'injected insert failure'); END",
        "DROP TRIGGER sked_test_fail"};
    static const char *const pg_sql[] = {
        "CREATE OR REPLACE FUNCTION sked_test_fail() RETURNS trigger "
        "LANGUAGE plpgsql AS $$BEGIN "
        "RAISE EXCEPTION 'injected insert failure'; END$$; "
        "CREATE TRIGGER sked_test_fail BEFORE INSERT ON runs FOR EACH ROW "
        "WHEN (NEW.schedule = 'broken') EXECUTE FUNCTION sked_test_fail()",
        "DROP TRIGGER sked_test_fail ON runs; DROP FUNCTION sked_test_fail()"};

    assert_int_equal(raw((is_sqlite() ? sqlite_sql : pg_sql)[on ? 0 : 1], NULL),
                     0);
}

static long long events_of(const char *type)
{
    char sql[160];
    long long n = -1;

    snprintf(sql, sizeof sql, "SELECT count(*) FROM events WHERE type = '%s'",
             type);
    assert_int_equal(raw(sql, &n), 0);
    return n;
}

/* Decide one run at the row's next occurrence and two occurrences
 * dropped before it, and move the cursor there. */
static int decide_run_and_miss(void *ctx, const sked_schedule *s,
                               const sked__occ_days *days,
                               const sked_time *skips, size_t nskips,
                               int64_t active, sked_firing *out)
{
    (void) skips;
    (void) nskips;
    (void) days;
    (void) ctx;
    (void) active;
    out->missed[0] = (sked_fire_miss){"superseded", 2, s->next_fire_at - 120,
                                      s->next_fire_at - 60};
    out->nmissed = 1;
    return decide_run(s, s->next_fire_at, 60 * SKED_USEC_PER_SEC, out);
}

/* Assert that NAME's cursor and next occurrence are still WANT's. */
static void assert_unmoved(sked_store *st, const char *name,
                           const sked_schedule *want)
{
    sked_schedule s;

    assert_int_equal(sked__store_schedule_get(st, name, &s, NULL), 0);
    if (s.last_fired_at != want->last_fired_at ||
        s.next_fire_at != want->next_fire_at)
        fail_msg("%s moved: last_fired_at %lld -> %lld, next_fire_at %lld -> "
                 "%lld",
                 name, (long long) want->last_fired_at,
                 (long long) s.last_fired_at, (long long) want->next_fire_at,
                 (long long) s.next_fire_at);
    assert_int_equal(s.runs_created, want->runs_created);
    sked_schedule_done(&s);
}

/* A firing whose run insert fails fails as a whole (issue 14: with the
 * insert's result ignored, the cursor moved, the occurrence was lost and
 * run.created named a run that did not exist): it returns the error,
 * neither cursor of the batch moves, no run, run.created or
 * occurrences_missed is written. */
static void test_fire_insert_fails(void **state)
{
    sked_store *st = *state;
    const char *list[] = {"broken", "fine"};
    sked_schedule before[2];
    sked_firing f[2];
    sked_event *ev = NULL;
    size_t nev = 0;
    sked_error err;
    int rc;

    create(st, "broken", "* * * * *");
    create(st, "fine", "* * * * *");
    for (int i = 0; i < 2; i++)
        assert_int_equal(
            sked__store_schedule_get(st, list[i], &before[i], NULL), 0);
    fail_inserts(true);
    vclock.t += 120 * SKED_USEC_PER_SEC;
    memset(f, 0, sizeof f);
    rc = sked__store_fire(st, list, 2, decide_run_and_miss, NULL, f, &ev, &nev,
                          &err);
    if (rc == 0)
        fail_msg("the firing succeeded with its insert failing");
    assert_non_null(strstr(err.msg, "injected insert failure"));
    assert_int_equal(nev, 0);
    assert_null(ev);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(f[i].created, 0);
        assert_unmoved(st, list[i], &before[i]);
        sked_schedule_done(&before[i]);
    }
    assert_int_equal(count("runs"), 0);
    assert_int_equal(events_of("run.created"), 0);
    assert_int_equal(events_of("schedule.occurrences_missed"), 0);
    fail_inserts(false);
}

/* The same through the scheduler loop, the real decision: the failing
 * pass is reported to the store's health (the server logs it, /readyz
 * answers 503), with the database's message; once the fault is gone, the
 * next pass fires the occurrence exactly once and the fault clears. */
static void test_fire_insert_fails_then_recovers(void **state)
{
    sked_store *st = *state;
    sked_loop_options o = {
        .store = st, .tzdb = tzdb, .clock = &clock_, .tick = SKED_USEC_PER_SEC};
    sked_schedule before;
    sked_store_fault fault;
    sked_loop *l = NULL;
    sked_error err;
    char sql[200];
    long long n = -1;

    create(st, "broken", "* * * * *");
    assert_int_equal(sked__store_schedule_get(st, "broken", &before, NULL), 0);
    assert_int_equal(sked__loop_new(&o, &l, &err), 0);
    fail_inserts(true);
    vclock.t = before.next_fire_at + 1;
    assert_int_not_equal(sked__loop_pass(l, &err), 0);
    assert_true(sked__store_fault(st, &fault));
    assert_int_equal(fault.op, SKED_OP_FIRE);
    assert_non_null(strstr(fault.msg, "injected insert failure"));
    assert_unmoved(st, "broken", &before);
    assert_int_equal(count("runs"), 0);
    assert_int_equal(events_of("run.created"), 0);
    assert_int_equal(events_of("schedule.occurrences_missed"), 0);
    /* Still failing: tried again a second later, still nothing written. */
    vclock.t += SKED_USEC_PER_SEC;
    assert_int_not_equal(sked__loop_pass(l, &err), 0);
    assert_unmoved(st, "broken", &before);
    fail_inserts(false);
    for (int i = 0; i < 3; i++, vclock.t += SKED_USEC_PER_SEC)
        if (sked__loop_pass(l, &err) != 0)
            fail_msg("pass %d after the fault: %s", i, err.msg);
    assert_false(sked__store_fault(st, NULL));
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM runs WHERE schedule = 'broken' AND "
             "scheduled_for = %lld",
             (long long) before.next_fire_at);
    assert_int_equal(raw(sql, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(count("runs"), 1);
    assert_int_equal(events_of("run.created"), 1);
    sked__loop_free(l);
    sked_schedule_done(&before);
}

/* ---- the store's health ------------------------------------------------- */

struct error_counts {
    char rows[16][64];
    size_t n;
};

static void count_row(void *ctx, const char *op, const char *kind, uint64_t n)
{
    struct error_counts *c = ctx;

    if (c->n < 16)
        snprintf(c->rows[c->n++], sizeof c->rows[0], "%s/%s=%llu", op, kind,
                 (unsigned long long) n);
}

/* What a failing op leaves in the store's health, in order: failing from
 * its first failure to its next success, the op failing longest named
 * with its last error, episodes counted from healthy to healthy, every
 * failed try counted by (op, kind), successes counted nowhere. */
static void test_health(void **state)
{
    sked_store *st = *state;
    sked_store_fault f;
    struct error_counts c = {.n = 0};
    sked_error e1, e2;

    assert_false(sked__store_fault(st, &f));
    sked__store_report(st, SKED_OP_FIRE, 0, NULL);
    assert_false(sked__store_fault(st, NULL));
    sked__error_set(&e1, SKED_ENOSPC, "db", -1, "x.db: the disk is full");
    sked__error_set(&e2, SKED_EBUSY, "db", -1, "unreachable");
    sked__store_report(st, SKED_OP_FIRE, SKED_ENOSPC, &e1);
    vclock.t += SKED_USEC_PER_SEC;
    sked__store_report(st, SKED_OP_WRITE, SKED_EBUSY, &e2);
    sked__store_report(st, SKED_OP_FIRE, SKED_ENOSPC, &e1);
    assert_true(sked__store_fault(st, &f));
    assert_int_equal(f.op, SKED_OP_FIRE); /* failing longest */
    assert_int_equal(f.code, SKED_ENOSPC);
    assert_string_equal(f.msg, "x.db: the disk is full");
    assert_true(f.since == vclock.t - SKED_USEC_PER_SEC);
    assert_int_equal(f.failures, 3);
    assert_int_equal(f.episode, 1);
    /* One op recovers: the other still fails, the episode goes on. */
    sked__store_report(st, SKED_OP_FIRE, 0, NULL);
    assert_true(sked__store_fault(st, &f));
    assert_int_equal(f.op, SKED_OP_WRITE);
    assert_string_equal(f.msg, "unreachable");
    assert_int_equal(f.episode, 1);
    sked__store_report(st, SKED_OP_WRITE, 0, NULL);
    assert_false(sked__store_fault(st, NULL));
    /* A new failure is a new episode, its tries counted from 1. */
    sked__store_report(st, SKED_OP_CLAIM, SKED_ESTALE, NULL);
    assert_true(sked__store_fault(st, &f));
    assert_int_equal(f.episode, 2);
    assert_int_equal(f.failures, 1);
    assert_string_equal(f.msg, sked_strerror(SKED_ESTALE));
    sked__store_errors_each(st, count_row, &c);
    assert_int_equal(c.n, 3);
    assert_string_equal(c.rows[0], "fire/disk_full=2");
    assert_string_equal(c.rows[1], "claim/database_gone=1");
    assert_string_equal(c.rows[2], "write/unavailable=1");
    /* The words a client reads name no file. */
    for (int code = -1; code >= -18; code--)
        assert_null(strstr(sked__store_fault_reason(code), ".db"));
}

static void test_runs_bad_input(void **state)
{
    sked_store *st = *state;
    sked_run_new r = run("", NULL);
    sked_error err;

    assert_int_equal(sked__store_runs_insert(st, &r, 1, NULL, &err),
                     SKED_EINVAL);
    r = run("x", NULL);
    r.context = "[1]";
    assert_int_equal(sked__store_runs_insert(st, &r, 1, NULL, &err),
                     SKED_EINVAL);
    assert_string_equal(err.field, "runs[0].context");
    assert_int_equal(
        sked__store_runs_insert(st, &r, SKED_STORE_BATCH_MAX + 1, NULL, &err),
        SKED_EINVAL);
    assert_int_equal(count("runs"), 0);
}

static void test_run_ids(void **state)
{
    char buf[SKED_RUN_ID_MAX];

    (void) state;
    assert_true(sked__run_id_scheduled("morning-report",
                                       T("2026-11-30T08:00:00Z"), buf,
                                       sizeof buf) > 0);
    assert_string_equal(buf, "sched-morning-report-2026-11-30T08:00:00Z");
    assert_true(sked__run_id_trigger("morning-report",
                                     T("2026-11-30T08:00:01.000250Z"), buf,
                                     sizeof buf) > 0);
    assert_string_equal(buf, "sched-morning-report-trigger-2026-11-30T08:00:01."
                             "000250Z");
    assert_int_equal(sked__run_id_trigger("x", 0, buf, 8), SKED_ETOOBIG);
}

struct thread_arg {
    sked_store *st;
    int seed;
    size_t created;
    int rc;
};

/* Insert runs t-0000 .. t-0999 in batches of 50, from an offset. */
static void *insert_thread(void *p)
{
    struct thread_arg *a = p;
    char ids[1000][16];
    sked_run_new batch[50];
    bool created[50];

    for (int i = 0; i < 1000; i++)
        snprintf(ids[i], sizeof ids[i], "t-%04d", i);
    for (int k = 0; k < 20 && a->rc == 0; k++) {
        int from = ((k + a->seed * 5) % 20) * 50;
        for (int i = 0; i < 50; i++)
            batch[i] = run(ids[from + i], NULL);
        a->rc = sked__store_runs_insert(a->st, batch, 50, created, NULL);
        for (int i = 0; i < 50 && a->rc == 0; i++)
            a->created += created[i];
    }
    return NULL;
}

/* Threads share one store: each gets its own connection, and every run
 * is created once. */
static void test_threads(void **state)
{
    struct thread_arg a[4];
    pthread_t th[4];
    size_t total = 0;

    for (int i = 0; i < 4; i++) {
        a[i] = (struct thread_arg){*state, i, 0, 0};
        assert_int_equal(pthread_create(&th[i], NULL, insert_thread, &a[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        assert_int_equal(a[i].rc, 0);
        total += a[i].created;
    }
    assert_int_equal(total, 1000);
    assert_int_equal(count("runs"), 1000);
}

/* ---- events ------------------------------------------------------------ */

static void test_events(void **state)
{
    sked_store *st = *state;
    sked_event *ev;
    size_t n;
    int64_t deleted = 0, last = -1;

    assert_int_equal(sked__store_event_last(st, &last, NULL), 0);
    assert_int_equal(last, 0); /* none yet */
    assert_int_equal(
        sked__store_event_append(st, "run.created", "r1", "{\"a\":1}", NULL),
        0);
    vclock.t += 3600 * SKED_USEC_PER_SEC;
    assert_int_equal(
        sked__store_event_append(st, "run.started", "r1", NULL, NULL), 0);
    assert_int_equal(sked__store_event_append(st, "x", "r1", "[", NULL),
                     SKED_EINVAL);
    assert_int_equal(sked__store_event_list(st, 0, 10, &ev, &n, NULL), 0);
    assert_int_equal(n, 2);
    assert_string_equal(ev[0].type, "run.created");
    assert_string_equal(ev[0].payload, "{\"a\":1,\"actor\":\"library\"}");
    assert_string_equal(ev[1].payload, "{\"actor\":\"library\"}");
    assert_true(ev[0].id < ev[1].id);
    assert_true(ev[1].at == vclock.t);
    int64_t first = ev[0].id;
    /* The newest event is where a reader of what comes next starts. */
    assert_int_equal(sked__store_event_last(st, &last, NULL), 0);
    assert_int_equal(last, ev[1].id);
    sked__events_free(ev, n);
    assert_int_equal(sked__store_event_list(st, first, 10, &ev, &n, NULL), 0);
    assert_int_equal(n, 1);
    sked__events_free(ev, n);
    assert_int_equal(sked__store_event_prune(st, vclock.t, &deleted, NULL), 0);
    assert_int_equal(deleted, 1);
    assert_int_equal(count("events"), 1);
}

static void test_schedule_events_in_order(void **state)
{
    static const char *const want[] = {"schedule.created", "schedule.paused",
                                       "schedule.resumed", "schedule.updated",
                                       "schedule.deleted"};
    sked_store *st = *state;
    sked_schedule s;
    sked_event *ev;
    size_t n;

    create(st, "e", "0 9 * * *");
    assert_int_equal(sked__store_schedule_pause(st, "e", NULL), 0);
    assert_int_equal(sked__store_schedule_resume(st, "e", vclock.t, NULL), 0);
    make(&s, "e", "0 10 * * *");
    assert_int_equal(sked__store_schedule_update(st, &s, NULL), 0);
    sked_schedule_done(&s);
    assert_int_equal(sked__store_schedule_delete(st, "e", NULL, NULL), 0);
    assert_int_equal(sked__store_event_list(st, 0, 0, &ev, &n, NULL), 0);
    assert_int_equal(n, 5);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(ev[i].type, want[i]);
        assert_string_equal(ev[i].subject, "e");
    }
    assert_non_null(strstr(ev[0].payload, "\"cron\":\"0 9 * * *\""));
    sked__events_free(ev, n);
}

int main(void)
{
    const char *url = getenv("SKED_TEST_DB_URL");
    const struct CMUnitTest tests[] = {
#define T_(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
        T_(test_every_field_round_trips),
        T_(test_rrule_and_calendar_days_round_trip),
        T_(test_meta_records_version),
        T_(test_newer_database_refused),
        T_(test_bad_urls),
        T_(test_corrupt_file),
        T_(test_create_get),
        T_(test_invalid_writes_nothing),
        T_(test_update),
        T_(test_delete_idempotent),
        T_(test_pause_resume),
        T_(test_next_fire_kinds),
        T_(test_list_filters_and_pages),
        T_(test_apply),
        T_(test_apply_all_or_nothing),
        T_(test_apply_together),
        T_(test_apply_apps),
        T_(test_apply_adopts),
        T_(test_runs_insert_if_absent),
        T_(test_concurrency_key),
        T_(test_concurrency_key_named),
        T_(test_runs_create_lenient_batches),
        T_(test_runs_create_random),
        T_(test_fire_many),
        T_(test_fire_counts_active),
        T_(test_fire_insert_fails),
        T_(test_fire_insert_fails_then_recovers),
        T_(test_health),
        T_(test_runs_bad_input),
        T_(test_threads),
        T_(test_run_ids),
        T_(test_events),
        T_(test_schedule_events_in_order),
#undef T_
    };
    int failed;

    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/sked-store-XXXXXX");
    if (!mkdtemp(tmp_dir))
        return 1;
    if (url && url[0])
        snprintf(db_url, sizeof db_url, "%s", url);
    else
        snprintf(db_url, sizeof db_url, "sqlite:%s/store.db", tmp_dir);
    if (sked_tzdb_open(SKED_TEST_DATA "/zoneinfo", &tzdb, NULL) != 0)
        return 1;
    sked__clock_virtual(&vclock, &clock_);
    failed = cmocka_run_group_tests(tests, NULL, NULL);
    sked_tzdb_close(tzdb);
    if (!failed) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
        (void) !system(cmd);
    }
    return failed;
}
