/* SPDX-License-Identifier: MIT */
/* Tests of the engine (include/sked/engine.h) on a virtual clock: the
 * scheduler is driven pass by pass with sked_engine_tick while the test
 * moves the clock. The database is SKED_TEST_DB_URL when set (the same
 * tests on PostgreSQL), else a fresh SQLite file in a temporary
 * directory; zones come from the pinned zoneinfo.
 *
 * The catch-up figures follow SPEC 3.3 with the default tick (1 s, so a
 * grace of 60 s): an occurrence more than a minute old is late. */
#include <pthread.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_db.h"

#include "base/clock.h"
#include "engine/engine_int.h"
#include "sked/engine.h"
#include "sked/sked.h"

static char db_url[1024];
static char tmp_dir[256];
/* A virtual clock the scheduler thread may read while the test moves it. */
static _Atomic sked_time vnow;
static sked_clock clock_;

static sked_time read_now(void *ctx)
{
    (void) ctx;
    return vnow;
}

static void set_now(sked_time t)
{
    vnow = t;
}

/* The events a subscriber saw. */
#define EVENTS_MAX 4096
static struct seen {
    char type[64];
    char subject[256];
    char payload[512];
} seen[EVENTS_MAX];
static size_t nseen;
static pthread_mutex_t seen_mu = PTHREAD_MUTEX_INITIALIZER;

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

/* Run SQL on the database directly (tests/lib/test_db.h). */
static int raw(const char *sql, long long *out)
{
    return sked_test_sql(db_url, sql, out);
}

static long long q(const char *sql)
{
    long long v = -1;
    assert_int_equal(raw(sql, &v), 0);
    return v;
}

/* Count the runs whose id is ID (0 or 1). */
static long long has_run(const char *id)
{
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM runs WHERE id = '%s'", id);
    return q(sql);
}

static long long runs_of(const char *schedule)
{
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM runs WHERE schedule = '%s'",
             schedule);
    return q(sql);
}

static void on_event(void *ctx, const sked_event_view *ev)
{
    (void) ctx;
    pthread_mutex_lock(&seen_mu);
    if (nseen < EVENTS_MAX) {
        snprintf(seen[nseen].type, sizeof seen[nseen].type, "%s", ev->type);
        snprintf(seen[nseen].subject, sizeof seen[nseen].subject, "%s",
                 ev->subject);
        snprintf(seen[nseen].payload, sizeof seen[nseen].payload, "%s",
                 ev->payload);
        nseen++;
    }
    pthread_mutex_unlock(&seen_mu);
}

/* Return the payload of the Nth (0-based) event of TYPE about SUBJECT,
 * or NULL. */
static const char *event(const char *type, const char *subject, int nth)
{
    for (size_t i = 0; i < nseen; i++)
        if (strcmp(seen[i].type, type) == 0 &&
            strcmp(seen[i].subject, subject) == 0 && nth-- == 0)
            return seen[i].payload;
    return NULL;
}

static size_t count_events(const char *type)
{
    size_t n = 0;
    for (size_t i = 0; i < nseen; i++)
        n += strcmp(seen[i].type, type) == 0;
    return n;
}

/* ---- fixtures ------------------------------------------------------------*/

static sked_engine *open_engine(void)
{
    sked_engine_options o = {.db_url = db_url,
                             .tzdir = SKED_TEST_DATA "/zoneinfo",
                             .clock = &clock_,
                             .sqlite_synchronous = "normal"};
    sked_subscription *sub = NULL;
    sked_engine *e = NULL;
    sked_error err;

    if (sked_engine_open(&o, &e, &err) != 0)
        fail_msg("open %s: %s", db_url, err.msg);
    assert_int_equal(sked_subscribe(e, on_event, NULL, &sub, NULL), 0);
    return e;
}

static int setup(void **state)
{
    const char *const tables[] = {"runs", sked_test_events_table(db_url),
                                  "schedules"};
    sked_engine *e;
    char sql[128];

    set_now(T("2026-01-10T08:00:00Z"));
    nseen = 0;
    e = open_engine();
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        snprintf(sql, sizeof sql, "DELETE FROM %s", tables[i]);
        assert_int_equal(raw(sql, NULL), 0);
    }
    sked_engine_close(e);
    *state = open_engine();
    nseen = 0;
    return 0;
}

static int teardown(void **state)
{
    sked_engine_close(*state);
    return 0;
}

typedef void (*tweak_fn)(sked_schedule *s);

static void create(sked_engine *e, const char *name, const char *cron,
                   const char *tz, tweak_fn tweak)
{
    sked_schedule s;
    sked_error err;

    sked_schedule_init(&s);
    s.name = strdup(name);
    s.workflow = strdup("report");
    s.cron = strdup(cron);
    s.timezone = tz ? strdup(tz) : NULL;
    if (tweak)
        tweak(&s);
    if (sked_engine_schedule_create(e, &s, &err) != 0)
        fail_msg("create %s: %s: %s", name, err.field, err.msg);
    sked_schedule_done(&s);
}

/* Move the clock to AT and run one pass. */
static void tick_at(sked_engine *e, const char *at)
{
    sked_error err;

    set_now(T(at));
    if (sked_engine_tick(e, &err) != 0)
        fail_msg("tick at %s: %s", at, err.msg);
}

static void get(sked_engine *e, const char *name, sked_schedule *out)
{
    assert_int_equal(sked_engine_schedule_get(e, name, out, NULL), 0);
}

static void assert_time(sked_time got, const char *want)
{
    char g[SKED_TIME_STRLEN] = "NONE";
    if (got != SKED_TIME_NONE)
        sked_time_format(got, g, sizeof g);
    assert_string_equal(g, want);
}

/* ---- firing on time
 * --------------------------------------------------------*/

static void test_fires_on_time(void **state)
{
    sked_engine *e = *state;
    sked_schedule s;

    set_now(T("2026-01-10T07:30:00Z"));
    create(e, "daily", "0 9 * * *", "Europe/Paris", NULL);
    assert_int_equal(sked_engine_next_wakeup(e), T("2026-01-10T08:00:00Z"));
    tick_at(e, "2026-01-10T07:59:59Z");
    assert_int_equal(runs_of("daily"), 0);
    tick_at(e, "2026-01-10T08:00:00Z");
    assert_int_equal(has_run("sched-daily-2026-01-10T08:00:00Z"), 1);
    assert_int_equal(runs_of("daily"), 1);
    assert_int_equal(q("SELECT count(*) FROM runs WHERE trigger_kind = 'cron' "
                       "AND status = 'pending' AND scheduled_for = not_before"),
                     1);
    get(e, "daily", &s);
    assert_time(s.last_fired_at, "2026-01-10T08:00:00Z");
    assert_time(s.next_fire_at, "2026-01-11T08:00:00Z");
    assert_int_equal(s.runs_created, 1);
    sked_schedule_done(&s);
    assert_int_equal(sked_engine_next_wakeup(e), T("2026-01-11T08:00:00Z"));
    /* A second pass at the same instant creates nothing more. */
    tick_at(e, "2026-01-10T08:00:01Z");
    assert_int_equal(runs_of("daily"), 1);
    assert_string_equal(
        event("run.created", "sched-daily-2026-01-10T08:00:00Z", 0),
        "{\"run_id\":\"sched-daily-2026-01-10T08:00:00Z\","
        "\"workflow\":\"report\",\"schedule\":\"daily\",\"trigger\":\"cron\","
        "\"scheduled_for\":\"2026-01-10T08:00:00Z\","
        "\"not_before\":\"2026-01-10T08:00:00Z\",\"actor\":\"scheduler\"}");
    assert_int_equal(count_events("schedule.occurrences_missed"), 0);
}

/* SPEC 2.2: 30 2 * * * in Europe/Paris on the spring change day fires at
 * the end of the gap, once. */
static void test_fires_across_spring_change(void **state)
{
    sked_engine *e = *state;

    set_now(T("2025-03-29T12:00:00Z"));
    create(e, "dst", "30 2 * * *", "Europe/Paris", NULL);
    tick_at(e, "2025-03-30T01:00:00Z");
    assert_int_equal(has_run("sched-dst-2025-03-30T01:00:00Z"), 1);
    tick_at(e, "2025-03-31T00:30:00Z");
    assert_int_equal(has_run("sched-dst-2025-03-31T00:30:00Z"), 1);
    assert_int_equal(runs_of("dst"), 2);
}

/* ---- backlogs -----------------------------------------------------------*/

static void catchup_all_max_2(sked_schedule *s)
{
    s->catchup = SKED_CATCHUP_ALL;
    s->catchup_max = 2;
}

/* The clock jumps five and a half hours: the default policy (latest)
 * fires the most recent late occurrence and reports the others. */
static void test_backlog_latest(void **state)
{
    sked_engine *e = *state;

    set_now(T("2026-01-10T08:30:00Z"));
    create(e, "hourly", "0 * * * *", NULL, NULL);
    tick_at(e, "2026-01-10T09:00:00Z");
    assert_int_equal(has_run("sched-hourly-2026-01-10T09:00:00Z"), 1);
    tick_at(e, "2026-01-10T14:30:00Z");
    assert_int_equal(runs_of("hourly"), 2);
    assert_int_equal(has_run("sched-hourly-2026-01-10T14:00:00Z"), 1);
    assert_int_equal(q("SELECT count(*) FROM runs WHERE trigger_kind = "
                       "'catchup'"),
                     1);
    assert_string_equal(
        event("schedule.occurrences_missed", "hourly", 0),
        "{\"schedule\":\"hourly\",\"reason\":\"superseded\",\"count\":4,"
        "\"first\":\"2026-01-10T10:00:00Z\",\"last\":\"2026-01-10T13:00:"
        "00Z\",\"actor\":\"scheduler\"}");
    assert_null(event("schedule.occurrences_missed", "hourly", 1));
    assert_int_equal(sked__engine_missed(e, "hourly", SKED_MISS_SUPERSEDED), 4);
    assert_int_equal(sked__engine_missed(e, "hourly", SKED_MISS_CATCHUP_MAX),
                     0);
    assert_int_equal(sked_engine_next_wakeup(e), T("2026-01-10T15:00:00Z"));
}

static void test_backlog_all_with_max(void **state)
{
    sked_engine *e = *state;

    set_now(T("2026-01-10T08:30:00Z"));
    create(e, "all", "0 * * * *", NULL, catchup_all_max_2);
    tick_at(e, "2026-01-10T09:00:00Z");
    tick_at(e, "2026-01-10T14:30:00Z");
    assert_int_equal(runs_of("all"), 3);
    assert_int_equal(has_run("sched-all-2026-01-10T13:00:00Z"), 1);
    assert_int_equal(has_run("sched-all-2026-01-10T14:00:00Z"), 1);
    assert_string_equal(
        event("schedule.occurrences_missed", "all", 0),
        "{\"schedule\":\"all\",\"reason\":\"catchup_max\",\"count\":3,"
        "\"first\":\"2026-01-10T10:00:00Z\",\"last\":\"2026-01-10T12:00:"
        "00Z\",\"actor\":\"scheduler\"}");
}

/* ---- two engines on one database -----------------------------------------*/

struct racer {
    sked_engine *e;
    int rc;
};

static void *race_tick(void *arg)
{
    struct racer *r = arg;
    r->rc = sked_engine_tick(r->e, NULL);
    return NULL;
}

/* Run FA(A) and FB(B) in two threads at once, and wait for both. */
static void race(void *(*fa)(void *), struct racer *a, void *(*fb)(void *),
                 struct racer *b)
{
    pthread_t ta, tb;

    assert_int_equal(pthread_create(&ta, NULL, fa, a), 0);
    assert_int_equal(pthread_create(&tb, NULL, fb, b), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
}

/* Both engines decide the same occurrences at the same instants, in
 * parallel: every run is created once and every cursor moves once. */
static void test_two_engines_fire_once(void **state)
{
    sked_engine *a = *state, *b = open_engine();
    char name[32];

    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof name, "s%02d", i);
        create(a, name, "* * * * *", NULL, NULL);
    }
    assert_int_equal(sked_engine_tick(b, NULL), 0); /* b reads them */
    for (int minute = 1; minute <= 5; minute++) {
        struct racer ra = {a, -1}, rb = {b, -1};
        set_now(T("2026-01-10T08:00:00Z") + minute * 60 * SKED_USEC_PER_SEC);
        race(race_tick, &ra, race_tick, &rb);
        assert_int_equal(ra.rc, 0);
        assert_int_equal(rb.rc, 0);
    }
    assert_int_equal(q("SELECT count(*) FROM runs"), 40 * 5);
    assert_int_equal(count_events("run.created"), 40 * 5);
    assert_int_equal(count_events("schedule.occurrences_missed"), 0);
    assert_int_equal(q("SELECT sum(runs_created) FROM schedules"), 40 * 5);
    assert_int_equal(q("SELECT count(*) FROM schedules WHERE last_fired_at = "
                       "(SELECT max(scheduled_for) FROM runs)"),
                     40);
    assert_int_equal(q("SELECT count(*) FROM events WHERE type = "
                       "'run.created'"),
                     40 * 5);
    sked_engine_close(b);
}

/* ---- pause and resume
 * ------------------------------------------------------*/

static void test_pause_resume_no_catchup(void **state)
{
    sked_engine *e = *state;
    sked_schedule s;

    set_now(T("2026-01-10T08:30:00Z"));
    create(e, "p", "0 * * * *", NULL, catchup_all_max_2);
    assert_int_equal(sked_engine_schedule_pause(e, "p", NULL), 0);
    assert_int_equal(sked_engine_next_wakeup(e), SKED_TIME_NONE);
    tick_at(e, "2026-01-10T09:00:00Z");
    tick_at(e, "2026-01-10T12:30:00Z");
    assert_int_equal(runs_of("p"), 0);
    assert_int_equal(sked_engine_schedule_resume(e, "p", NULL), 0);
    get(e, "p", &s);
    assert_time(s.next_fire_at, "2026-01-10T13:00:00Z");
    sked_schedule_done(&s);
    tick_at(e, "2026-01-10T12:30:01Z");
    assert_int_equal(runs_of("p"), 0);
    tick_at(e, "2026-01-10T13:00:00Z");
    assert_int_equal(runs_of("p"), 1);
    assert_int_equal(has_run("sched-p-2026-01-10T13:00:00Z"), 1);
    assert_int_equal(count_events("schedule.occurrences_missed"), 0);
    assert_non_null(event("schedule.paused", "p", 0));
    assert_non_null(event("schedule.resumed", "p", 0));
}

/* ---- disabling
 * ---------------------------------------------------------------*/

/* SPEC 2.2: a stored zone the engine no longer knows, or an expression
 * that no longer parses, disables the schedule with the reason. */
static void test_disabled_when_spec_no_longer_loads(void **state)
{
    sked_engine *e = *state;
    sked_schedule s;

    create(e, "zone", "0 9 * * *", "Europe/Paris", NULL);
    create(e, "expr", "0 9 * * *", NULL, NULL);
    assert_int_equal(raw("UPDATE schedules SET timezone = 'Mars/Olympus', "
                         "updated_at = updated_at + 1 WHERE name = 'zone'",
                         NULL),
                     0);
    assert_int_equal(raw("UPDATE schedules SET cron = '0 9 * * * * * *', "
                         "updated_at = updated_at + 1 WHERE name = 'expr'",
                         NULL),
                     0);
    tick_at(e, "2026-01-10T08:00:02Z");
    get(e, "zone", &s);
    assert_int_equal(s.status, SKED_SCHEDULE_DISABLED);
    assert_non_null(s.last_error);
    assert_non_null(strstr(s.last_error, "Mars/Olympus"));
    sked_schedule_done(&s);
    get(e, "expr", &s);
    assert_int_equal(s.status, SKED_SCHEDULE_DISABLED);
    assert_non_null(strstr(s.last_error, "cron"));
    sked_schedule_done(&s);
    assert_non_null(event("schedule.disabled", "zone", 0));
    assert_non_null(event("schedule.disabled", "expr", 0));
    tick_at(e, "2026-01-10T09:00:00Z");
    assert_int_equal(q("SELECT count(*) FROM runs"), 0);
    assert_int_equal(sked_engine_next_wakeup(e), SKED_TIME_NONE);
}

/* ---- trigger
 * -----------------------------------------------------------------*/

static void overlap_skip(sked_schedule *s)
{
    s->overlap = SKED_OVERLAP_SKIP;
}

static void test_trigger_conflicts_with_overlap_skip(void **state)
{
    sked_engine *e = *state;
    sked_error err;
    char *id = NULL;

    create(e, "solo", "0 9 * * *", NULL, overlap_skip);
    create(e, "free", "0 9 * * *", NULL, NULL);
    assert_int_equal(sked_engine_trigger(e, "solo", &id, &err), 0);
    assert_string_equal(id, "sched-solo-trigger-2026-01-10T08:00:00.000000Z");
    sked_free(id);
    assert_int_equal(
        q("SELECT count(*) FROM runs WHERE trigger_kind = 'manual' AND "
          "scheduled_for IS NULL AND concurrency_key = 'schedule:solo' AND "
          "serial_key = 'schedule:solo'"),
        1);
    set_now(vnow + 1000);
    assert_int_equal(sked_engine_trigger(e, "solo", NULL, &err),
                     SKED_ECONFLICT);
    assert_int_equal(sked_engine_trigger(e, "free", NULL, &err), 0);
    /* The same microsecond is the same run (SPEC 3.1): created once. */
    assert_int_equal(sked_engine_trigger(e, "free", NULL, &err), 0);
    set_now(vnow + 1);
    assert_int_equal(sked_engine_trigger(e, "free", NULL, &err), 0);
    assert_int_equal(sked_engine_trigger(e, "nope", NULL, &err),
                     SKED_ENOTFOUND);
    /* The occurrence at 09:00 meets the active manual run: overlap. */
    tick_at(e, "2026-01-10T09:00:00Z");
    assert_int_equal(runs_of("solo"), 1);
    assert_string_equal(
        event("schedule.occurrences_missed", "solo", 0),
        "{\"schedule\":\"solo\",\"reason\":\"overlap\","
        "\"count\":1,\"first\":\"2026-01-10T09:00:00Z\","
        "\"last\":\"2026-01-10T09:00:00Z\",\"actor\":\"scheduler\"}");
    assert_int_equal(sked__engine_missed(e, "solo", SKED_MISS_OVERLAP), 1);
    assert_int_equal(runs_of("free"), 3);
}

/* SPEC 3.4, for every overlap policy: the runs a schedule fires carry
 * the concurrency key "schedule:NAME" under "skip" only, and the serial
 * key under every policy but "allow". Issue 14: fired runs of "skip"
 * without their key passed every test, the policy's own count hiding
 * it on one server. */
static sked_overlap key_policy;

static void set_key_policy(sked_schedule *s)
{
    s->overlap = key_policy;
}

static void test_fired_runs_carry_keys(void **state)
{
    static const struct {
        sked_overlap overlap;
        const char *name;
        bool concurrency, serial;
    } cases[] = {
        {SKED_OVERLAP_ALLOW, "k-allow", false, false},
        {SKED_OVERLAP_SKIP, "k-skip", true, true},
        {SKED_OVERLAP_BUFFER_ONE, "k-buffer-one", false, true},
        {SKED_OVERLAP_BUFFER_ALL, "k-buffer-all", false, true},
        {SKED_OVERLAP_CANCEL_OTHER, "k-cancel-other", false, true},
    };
    sked_engine *e = *state;
    char sql[512];

    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        key_policy = cases[i].overlap;
        create(e, cases[i].name, "0 9 * * *", NULL, set_key_policy);
    }
    tick_at(e, "2026-01-10T09:00:00Z");
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *n = cases[i].name;
        snprintf(sql, sizeof sql,
                 "SELECT count(*) FROM runs WHERE schedule = '%s' AND "
                 "trigger_kind = 'cron' AND concurrency_key %s AND "
                 "serial_key %s",
                 n, cases[i].concurrency ? "= 'schedule:k-skip'" : "IS NULL",
                 cases[i].serial ? "IS NOT NULL" : "IS NULL");
        if (q(sql) != 1)
            fail_msg("%s: the fired run's keys are not as SPEC 3.4 says", n);
    }
    assert_int_equal(q("SELECT count(*) FROM runs WHERE schedule = 'k-skip' "
                       "AND serial_key = 'schedule:k-skip'"),
                     1);
}

/* A trigger after a firing: the fired run of an "overlap: skip" schedule
 * is active, so the trigger is refused with a conflict and creates
 * nothing; once the run has finished, a trigger creates its run. */
static void test_trigger_after_firing_conflicts(void **state)
{
    sked_engine *e = *state;
    sked_error err;

    create(e, "solo", "0 9 * * *", NULL, overlap_skip);
    tick_at(e, "2026-01-10T09:00:00Z");
    assert_int_equal(runs_of("solo"), 1);
    set_now(vnow + 1000);
    assert_int_equal(sked_engine_trigger(e, "solo", NULL, &err),
                     SKED_ECONFLICT);
    assert_int_equal(runs_of("solo"), 1);
    assert_int_equal(
        raw("UPDATE runs SET status = 'completed' WHERE schedule = 'solo'",
            NULL),
        0);
    set_now(vnow + 1000);
    assert_int_equal(sked_engine_trigger(e, "solo", NULL, &err), 0);
    assert_int_equal(runs_of("solo"), 2);
}

static void *race_trigger(void *arg)
{
    struct racer *r = arg;
    r->rc = sked_engine_trigger(r->e, "solo", NULL, NULL);
    return NULL;
}

/* Two engines on one database, one firing an occurrence while the other
 * triggers the same "overlap: skip" schedule, at the same instant, over
 * and over: whichever wins, one run is active, never two; the firing
 * that lost drops its occurrence as overlap, the trigger that lost is a
 * conflict. */
static void test_firing_races_trigger(void **state)
{
    enum { ROUNDS = 30 };
    sked_engine *a = *state, *b = open_engine();
    long long triggered = 0, fired;

    create(a, "solo", "* * * * *", NULL, overlap_skip);
    assert_int_equal(sked_engine_tick(b, NULL), 0);
    for (int minute = 1; minute <= ROUNDS; minute++) {
        struct racer ra = {a, -1}, rb = {b, -1};
        set_now(T("2026-01-10T08:00:00Z") + minute * 60 * SKED_USEC_PER_SEC);
        race(race_tick, &ra, race_trigger, &rb);
        assert_int_equal(ra.rc, 0);
        if (rb.rc != 0 && rb.rc != SKED_ECONFLICT)
            fail_msg("round %d: the trigger failed with %d", minute, rb.rc);
        triggered += rb.rc == 0;
        if (q("SELECT count(*) FROM runs WHERE schedule = 'solo' AND status "
              "IN ('pending', 'running', 'waiting')") != 1)
            fail_msg("round %d: not exactly one active run", minute);
        assert_int_equal(raw("UPDATE runs SET status = 'completed' WHERE "
                             "schedule = 'solo'",
                             NULL),
                         0);
    }
    fired = q("SELECT count(*) FROM runs WHERE schedule = 'solo' AND "
              "trigger_kind = 'cron'");
    assert_int_equal(fired + triggered, ROUNDS);
    assert_int_equal(fired + sked__engine_missed(a, "solo", SKED_MISS_OVERLAP),
                     ROUNDS);
    sked_engine_close(b);
}

/* ---- backfill
 * ----------------------------------------------------------------*/

struct progress {
    size_t calls, last_done, last_total;
};

static void on_progress(void *ctx, size_t done, size_t total)
{
    struct progress *p = ctx;
    p->calls++;
    p->last_done = done;
    p->last_total = total;
}

static void test_backfill_counts_and_cap(void **state)
{
    sked_engine *e = *state;
    sked_backfill_result r = {99, 99};
    struct progress p = {0};
    sked_error err;

    create(e, "bf", "0 * * * *", NULL, overlap_skip);
    /* The open interval (00:00, 10:00): 01:00 to 09:00. */
    assert_int_equal(sked_engine_backfill(e, "bf", T("2026-01-09T00:00:00Z"),
                                          T("2026-01-09T10:00:00Z"),
                                          on_progress, &p, &r, &err),
                     0);
    assert_int_equal(r.created, 9);
    assert_int_equal(r.skipped, 0);
    assert_int_equal(p.last_done, 9);
    assert_int_equal(p.last_total, 9);
    assert_int_equal(has_run("sched-bf-2026-01-09T01:00:00Z"), 1);
    assert_int_equal(has_run("sched-bf-2026-01-09T09:00:00Z"), 1);
    assert_int_equal(has_run("sched-bf-2026-01-09T10:00:00Z"), 0);
    /* Backfill never drops: no concurrency key, one at a time. */
    assert_int_equal(q("SELECT count(*) FROM runs WHERE trigger_kind = "
                       "'backfill' AND concurrency_key IS NULL AND "
                       "serial_key = 'schedule:bf'"),
                     9);
    assert_int_equal(sked_engine_backfill(e, "bf", T("2026-01-09T05:30:00Z"),
                                          T("2026-01-09T12:00:00Z"), NULL, NULL,
                                          &r, &err),
                     0);
    assert_int_equal(r.created, 2); /* 10:00 and 11:00 */
    assert_int_equal(r.skipped, 4); /* 06:00 to 09:00 */
    assert_int_equal(count_events("run.created"), 11);
    /* Bad ranges, the cap, an unknown schedule: nothing written. */
    assert_int_equal(sked_engine_backfill(e, "bf", T("2026-01-09T10:00:00Z"),
                                          T("2026-01-09T00:00:00Z"), NULL, NULL,
                                          &r, &err),
                     SKED_EINVAL);
    assert_int_equal(sked_engine_backfill(e, "bf", T("2026-01-09T10:00:00Z"),
                                          T("2026-01-09T10:00:00Z"), NULL, NULL,
                                          &r, &err),
                     SKED_EINVAL);
    assert_int_equal(sked_engine_backfill(e, "bf", SKED_TIME_NONE,
                                          T("2026-01-09T10:00:00Z"), NULL, NULL,
                                          &r, &err),
                     SKED_EINVAL);
    create(e, "secs", "* * * * * *", NULL, NULL);
    assert_int_equal(sked_engine_backfill(e, "secs", T("2026-01-01T00:00:00Z"),
                                          T("2026-01-03T00:00:00Z"), NULL, NULL,
                                          &r, &err),
                     SKED_ERANGE);
    assert_int_equal(runs_of("secs"), 0);
    /* Exactly the cap is allowed: (00:00:00, 27:46:41) holds 100,000. */
    assert_int_equal(sked_engine_backfill(e, "secs", T("2026-01-01T00:00:00Z"),
                                          T("2026-01-02T03:46:41Z"), NULL, NULL,
                                          &r, &err),
                     0);
    assert_int_equal(r.created, SKED_BACKFILL_MAX);
    assert_int_equal(sked_engine_backfill(e, "nope", T("2026-01-09T00:00:00Z"),
                                          T("2026-01-09T10:00:00Z"), NULL, NULL,
                                          &r, &err),
                     SKED_ENOTFOUND);
}

/* ---- deletion and changes by others
 * ------------------------------------------*/

static void test_changes_by_another_engine(void **state)
{
    sked_engine *a = *state, *b = open_engine();

    create(b, "other", "30 8 * * *", NULL, NULL);
    /* a learns of it at its next pass (the tick has passed). */
    set_now(T("2026-01-10T08:00:05Z"));
    assert_int_equal(sked_engine_tick(a, NULL), 0);
    assert_int_equal(sked_engine_next_wakeup(a), T("2026-01-10T08:30:00Z"));
    assert_int_equal(sked_engine_schedule_delete(b, "other", NULL), 0);
    tick_at(a, "2026-01-10T08:30:00Z");
    assert_int_equal(runs_of("other"), 0);
    assert_int_equal(sked_engine_next_wakeup(a), SKED_TIME_NONE);
    sked_engine_close(b);
}

/* ---- the thread
 * ---------------------------------------------------------------*/

/* With the thread started, a schedule due now fires without a tick. */
static void test_thread_fires(void **state)
{
    sked_engine *e = *state;

    assert_int_equal(sked_engine_start(e, NULL), 0);
    assert_int_equal(sked_engine_start(e, NULL), SKED_EINVAL);
    set_now(T("2026-01-10T08:59:59Z"));
    create(e, "t", "0 9 * * *", NULL, NULL);
    set_now(T("2026-01-10T09:00:00Z"));
    for (int i = 0; i < 500 && runs_of("t") == 0; i++)
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    assert_int_equal(runs_of("t"), 1);
}

/* SPEC 3.2 on PostgreSQL: another server's change wakes a started
 * engine at once, long before its tick (an hour here). */
static void test_notify_wakes_other_engine(void **state)
{
    sked_engine_options o = {.db_url = db_url,
                             .tzdir = SKED_TEST_DATA "/zoneinfo",
                             .clock = &clock_,
                             .tick = INT64_C(3600) * SKED_USEC_PER_SEC};
    sked_engine *a = NULL, *b = *state;

    if (is_sqlite())
        skip();
    set_now(T("2026-01-10T08:00:00.500Z"));
    assert_int_equal(sked_engine_open(&o, &a, NULL), 0);
    assert_int_equal(sked_engine_start(a, NULL), 0);
    nanosleep(&(struct timespec){0, 200000000}, NULL); /* a is asleep */
    create(b, "n", "* * * * * *", NULL, NULL);
    set_now(T("2026-01-10T08:00:01Z"));
    for (int i = 0; i < 300 && runs_of("n") == 0; i++)
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    assert_int_equal(has_run("sched-n-2026-01-10T08:00:01Z"), 1);
    sked_engine_close(a);
}

/* Open an engine of app APP on the test database; NULL when it fails
 * (ERR says why). */
static sked_engine *open_app(const char *app, sked_error *err)
{
    sked_engine_options o = {.db_url = db_url,
                             .tzdir = SKED_TEST_DATA "/zoneinfo",
                             .clock = &clock_,
                             .app = app};
    sked_engine *e = NULL;

    return sked_engine_open(&o, &e, err) == 0 ? e : NULL;
}

/* SPEC 3.5: each program syncs and prunes its own app's code schedules
 * only; an empty set empties its app, not the database. */
static void test_sync_apps(void **state)
{
    sked_engine *p1 = open_app("p1", NULL), *p2 = open_app("p2", NULL);
    sked_schedule set[3];
    sked_error err;
    char name[16];

    (void) state;
    assert_non_null(p1);
    assert_non_null(p2);
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "s%d", i);
        sked_schedule_init(&set[i]);
        set[i].name = strdup(name);
        set[i].workflow = strdup("w");
        set[i].cron = strdup("0 9 * * *");
    }
    assert_int_equal(sked_engine_sync(p1, set, 2, &err), 0);
    assert_int_equal(sked_engine_sync(p2, &set[2], 1, &err), 0);
    assert_int_equal(sked_engine_sync(p1, NULL, 0, &err), 0);
    sked_schedule got;
    assert_int_equal(sked_engine_schedule_get(p2, "s0", &got, NULL),
                     SKED_ENOTFOUND);
    assert_int_equal(sked_engine_schedule_get(p2, "s2", &got, NULL), 0);
    assert_string_equal(got.app, "p2");
    sked_schedule_done(&got);
    /* p2 may not take p1's names while p1 has them. */
    assert_int_equal(sked_engine_sync(p1, set, 1, &err), 0);
    assert_int_equal(sked_engine_sync(p2, set, 1, &err), SKED_ECONFLICT);
    for (int i = 0; i < 3; i++)
        sked_schedule_done(&set[i]);
    sked_engine_close(p1);
    sked_engine_close(p2);
    /* An app is a name. */
    assert_null(open_app("no such/app", &err));
    assert_string_equal(err.field, "app");
}

/* The value of the metric line NAME (with its labels) in TEXT, or -1. */
static double metric(const char *text, const char *name)
{
    size_t n = strlen(name);

    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
        if (strncmp(p, name, n) == 0 && p[n] == ' ')
            return strtod(p + n + 1, NULL);
    return -1;
}

/* The metrics read the events' payloads: a workflow's runs by outcome,
 * the durations, the timeouts (a failure with error_code "timeout", a
 * soft timeout), whether the payload is sked's compact text, spaced, or
 * has a workflow name with escapes (which the scan leaves to jansson);
 * a payload that is not JSON counts for nothing. */
static void test_metrics_from_payloads(void **state)
{
    sked_engine *e = *state;
    const sked_event ev[] = {
        {.type = "run.completed",
         .subject = "r1",
         .payload = "{\"workflow\":\"w\",\"duration_secs\":0.5}"},
        {.type = "run.completed",
         .subject = "r2",
         .payload = " { \"duration_secs\" : 2 , \"workflow\" : \"w\" } "},
        {.type = "run.failed",
         .subject = "r3",
         .payload = "{\"workflow\":\"w\",\"error_code\":\"timeout\","
                    "\"duration_secs\":30.0}"},
        {.type = "run.failed",
         .subject = "r4",
         .payload = "{\"workflow\":\"w\",\"error_code\":\"exit\"}"},
        {.type = "run.timeout_exceeded",
         .subject = "r5",
         .payload = "{\"workflow\":\"w\"}"},
        {.type = "run.completed",
         .subject = "r6",
         .payload = "{\"workflow\":\"q\\\"x\",\"duration_secs\":1e-3}"},
        {.type = "run.completed", .subject = "r7", .payload = "not json"},
        {.type = "run.cancelled",
         .subject = "r8",
         .payload = "{\"meta\":{\"workflow\":\"no\"},\"workflow\":\"w\"}"},
    };
    char *text = NULL;

    sked__engine_deliver(e, ev, sizeof ev / sizeof *ev);
    assert_int_equal(sked_engine_metrics(e, &text, NULL), 0);
    assert_true(
        metric(text, "sked_runs_total{workflow=\"w\",status=\"completed\"}") ==
        2);
    assert_true(
        metric(text, "sked_runs_total{workflow=\"w\",status=\"failed\"}") == 2);
    assert_true(
        metric(text, "sked_runs_total{workflow=\"w\",status=\"cancelled\"}") ==
        1);
    assert_true(metric(text, "sked_runs_total{workflow=\"q\\\"x\","
                             "status=\"completed\"}") == 1);
    assert_true(metric(text, "sked_runs_total{workflow=\"no\","
                             "status=\"cancelled\"}") == -1);
    assert_true(metric(text, "sked_run_timeouts_total{workflow=\"w\"}") == 2);
    assert_true(metric(text, "sked_run_duration_seconds_count") == 4);
    assert_true(metric(text, "sked_run_duration_seconds_sum") == 32.501);
    free(text);
}

/* ---- one rule for what becomes part of a URL (issue 14) -------------- */

/* Tell whether the key "a" B "z" may be used: independent of the rule's
 * code, byte by byte: no control character, no '/', no lone byte of a
 * multi-byte sequence. */
static bool byte_key_ok(unsigned b)
{
    return b >= 0x20 && b != 0x7f && b < 0x80 && b != '/';
}

/* Every one-byte key in the middle of "a?z", and a table of multi-byte
 * ones, through the library (sked_engine_run_start): refused with
 * SKED_EINVAL naming idempotency_key and no run written, or accepted. */
static void test_run_key_rule(void **state)
{
    sked_engine *e = *state;
    static const struct {
        const char *key;
        bool ok;
    } table[] = {
        {"\xc3\xa9t\xc3\xa9", true},        /* été */
        {"\xe6\x97\xa5\xe6\x9c\xac", true}, /* 日本 */
        {"\xf0\x9f\x98\x80", true},         /* an emoji */
        {"a\xc2\xa0z", true},               /* U+00A0, printable */
        {"a b", true},
        {"a\xc2\x85z", false},       /* U+0085, a C1 control */
        {"a\xc2\x9fz", false},       /* U+009F */
        {"\xc0\xaf", false},         /* an overlong '/' */
        {"\xed\xa0\x80", false},     /* a surrogate */
        {"\xf4\x90\x80\x80", false}, /* over U+10FFFF */
        {"\xe2\x82", false},         /* cut short */
        {".", false},
        {"..", false},
        {"...", true},
        {" a", false},
        {"a ", false},
        {"", false},
    };
    char key[8], *id = NULL;
    long long before = -1, after = -1;
    sked_error err;
    int rc;

    assert_int_equal(raw("SELECT count(*) FROM runs", &before), 0);
    for (unsigned b = 1; b < 256; b++) {
        snprintf(key, sizeof key, "a%cz", (char) b);
        rc = sked_engine_run_start(e, "report", NULL, key, &id, &err);
        if (byte_key_ok(b)) {
            assert_int_equal(rc, 0);
            sked_free(id);
            id = NULL;
            before++;
        } else {
            if (rc != SKED_EINVAL)
                fail_msg("byte 0x%02x: accepted", b);
            assert_string_equal(err.field, "idempotency_key");
        }
    }
    for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
        rc = sked_engine_run_start(e, "report", NULL, table[i].key, &id, &err);
        if (table[i].ok != (rc == 0))
            fail_msg("key %zu: rc %d (%s)", i, rc, rc ? err.msg : "");
        if (rc == 0)
            before++;
        sked_free(id);
        id = NULL;
    }
    char *longest = malloc(SKED_RUN_KEY_MAX + 2);
    memset(longest, 'k', SKED_RUN_KEY_MAX + 1);
    longest[SKED_RUN_KEY_MAX + 1] = '\0';
    assert_int_equal(
        sked_engine_run_start(e, "report", NULL, longest, &id, &err),
        SKED_EINVAL);
    longest[SKED_RUN_KEY_MAX] = '\0';
    assert_int_equal(
        sked_engine_run_start(e, "report", NULL, longest, &id, &err), 0);
    sked_free(id);
    free(longest);
    assert_int_equal(raw("SELECT count(*) FROM runs", &after), 0);
    assert_int_equal(after, before + 1);
}

/* "." and ".." are no schedule, workflow or queue name; "..." is. */
static void test_dot_names_refused(void **state)
{
    sked_engine *e = *state;
    static const char *const dots[] = {".", ".."};
    sked_schedule s;
    sked_error err;

    for (size_t i = 0; i < 2; i++) {
        for (int f = 0; f < 3; f++) {
            sked_schedule_init(&s);
            s.name = strdup(f == 0 ? dots[i] : "dots");
            s.workflow = strdup(f == 1 ? dots[i] : "report");
            s.queue = f == 2 ? strdup(dots[i]) : NULL;
            s.cron = strdup("* * * * *");
            assert_int_equal(sked_engine_schedule_create(e, &s, &err),
                             SKED_EINVAL);
            assert_string_equal(err.field, f == 0   ? "name"
                                           : f == 1 ? "workflow"
                                                    : "queue");
            sked_schedule_done(&s);
        }
    }
    sked_schedule_init(&s);
    s.name = strdup("...");
    s.workflow = strdup("report");
    s.cron = strdup("* * * * *");
    assert_int_equal(sked_engine_schedule_create(e, &s, &err), 0);
    sked_schedule_done(&s);
}

/* Issue 14: a one-time schedule at an instant already past is refused
 * (SKED_EINVAL naming "at") unless allow_past; an update that keeps the
 * stored instant passes, one to another past instant does not. Instants
 * from a microsecond to years before now. */
static void test_at_in_the_past(void **state)
{
    sked_engine *e = *state;
    static const sked_dur before[] = {1, SKED_USEC_PER_SEC,
                                      3600 * SKED_USEC_PER_SEC,
                                      400 * 86400 * SKED_USEC_PER_SEC};
    sked_time now = T("2026-01-10T08:00:00Z");
    long long n = -1;
    sked_schedule s;
    sked_error err;

    for (size_t i = 0; i < sizeof before / sizeof *before; i++) {
        sked_schedule_init(&s);
        s.name = strdup("once");
        s.workflow = strdup("report");
        s.kind = SKED_SPEC_AT;
        s.at = now - before[i];
        assert_int_equal(sked_engine_schedule_create(e, &s, &err), SKED_EINVAL);
        assert_string_equal(err.field, "at");
        assert_non_null(strstr(err.msg, "in the past"));
        sked_schedule_done(&s);
    }
    assert_int_equal(raw("SELECT count(*) FROM schedules", &n), 0);
    assert_int_equal(n, 0);
    sked_schedule_init(&s);
    s.name = strdup("once");
    s.workflow = strdup("report");
    s.kind = SKED_SPEC_AT;
    s.at = now; /* now is not past */
    assert_int_equal(sked_engine_schedule_create(e, &s, &err), 0);
    s.at = now - SKED_USEC_PER_SEC;
    s.allow_past = 1;
    s.name[0] = 'O';
    assert_int_equal(sked_engine_schedule_create(e, &s, &err), 0);
    s.allow_past = 0;
    free(s.description);
    s.description = strdup("kept");
    assert_int_equal(sked_engine_schedule_update(e, &s, &err), 0);
    s.at = now - 2 * SKED_USEC_PER_SEC;
    assert_int_equal(sked_engine_schedule_update(e, &s, &err), SKED_EINVAL);
    assert_string_equal(err.field, "at");
    sked_schedule_done(&s);
}

/* SPEC 3.2: the database clock skew the scheduler measures is exported
 * as sked_clock_skew_seconds. The engine runs on a virtual clock here,
 * so on PostgreSQL the skew is the real time (the server's clock) minus
 * the virtual one; SQLite has no clock of its own: the family is there,
 * with no sample. */
static void test_metrics_clock_skew(void **state)
{
    sked_engine *e = *state;
    char *text = NULL;
    double skew, want;

    tick_at(e, "2026-01-10T08:00:05Z");
    assert_int_equal(sked_engine_metrics(e, &text, NULL), 0);
    assert_non_null(strstr(text, "# TYPE sked_clock_skew_seconds gauge\n"));
    skew = metric(text, "sked_clock_skew_seconds");
    if (is_sqlite()) {
        assert_true(skew == -1);
    } else {
        want = (double) (sked__clock_now(NULL) - vnow) / 1e6;
        if (skew < want - 5 || skew > want + 5)
            fail_msg("sked_clock_skew_seconds %f, want about %f", skew, want);
    }
    free(text);
}

int main(void)
{
    const char *url = getenv("SKED_TEST_DB_URL");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_fires_on_time, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fires_across_spring_change, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_backlog_latest, setup, teardown),
        cmocka_unit_test_setup_teardown(test_backlog_all_with_max, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_two_engines_fire_once, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_pause_resume_no_catchup, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_disabled_when_spec_no_longer_loads,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_trigger_conflicts_with_overlap_skip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fired_runs_carry_keys, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_trigger_after_firing_conflicts,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_firing_races_trigger, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_backfill_counts_and_cap, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_changes_by_another_engine, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_thread_fires, setup, teardown),
        cmocka_unit_test_setup_teardown(test_notify_wakes_other_engine, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_sync_apps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_key_rule, setup, teardown),
        cmocka_unit_test_setup_teardown(test_at_in_the_past, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dot_names_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_metrics_from_payloads, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_metrics_clock_skew, setup,
                                        teardown),
    };
    int rc;

    clock_ = (sked_clock){read_now, read_now, NULL};
    if (url && url[0]) {
        snprintf(db_url, sizeof db_url, "%s", url);
    } else {
        snprintf(tmp_dir, sizeof tmp_dir, "/tmp/sked-engine-XXXXXX");
        if (!mkdtemp(tmp_dir))
            return 1;
        snprintf(db_url, sizeof db_url, "sqlite:%s/engine.db", tmp_dir);
    }
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (tmp_dir[0]) {
        char path[512];
        snprintf(path, sizeof path, "%s/engine.db", tmp_dir);
        unlink(path);
        snprintf(path, sizeof path, "%s/engine.db-wal", tmp_dir);
        unlink(path);
        snprintf(path, sizeof path, "%s/engine.db-shm", tmp_dir);
        unlink(path);
        rmdir(tmp_dir);
    }
    return rc;
}
