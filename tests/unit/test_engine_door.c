/* SPDX-License-Identifier: MIT */
/* Tests of what the API, the CLI and the server reach the engine by
 * (include/sked/engine.h): listing schedules page by page, applying a
 * set, previewing and simulating a schedule, reading events as structs,
 * starting a run with a key, loading a workflows file, and the store's
 * health. On a real SQLite file in a temporary directory, zones from the
 * pinned zoneinfo, a virtual clock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/error.h"
#include "engine/engine_int.h"
#include "sched/simulate.h"
#include "sked/sked.h"

static char tmp_dir[256];
static sked_time vnow;
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

static sked_engine *open_engine(void)
{
    char url[400];
    sked_engine_options o = {.db_url = url,
                             .tzdir = SKED_TEST_DATA "/zoneinfo",
                             .clock = &clock_,
                             .sqlite_synchronous = "normal"};
    sked_engine *e = NULL;
    sked_error err;

    snprintf(url, sizeof url, "sqlite:%s/door.db", tmp_dir);
    if (sked_engine_open(&o, &e, &err) != 0)
        fail_msg("open %s: %s", url, err.msg);
    return e;
}

static void remove_db(void)
{
    static const char *const ends[] = {"", "-wal", "-shm"};
    char path[400];

    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/door.db%s", tmp_dir, ends[i]);
        unlink(path);
    }
}

static int setup(void **state)
{
    vnow = T("2026-03-20T08:00:00Z");
    remove_db();
    *state = open_engine();
    return 0;
}

static int teardown(void **state)
{
    sked_engine_close(*state);
    remove_db();
    return 0;
}

/* Fill *s as a cron schedule NAME of WORKFLOW (strings owned by *s). */
static void make(sked_schedule *s, const char *name, const char *workflow,
                 const char *cron, const char *tz)
{
    sked_schedule_init(s);
    s->name = strdup(name);
    s->workflow = strdup(workflow);
    s->cron = strdup(cron);
    s->timezone = tz ? strdup(tz) : NULL;
}

static void create(sked_engine *e, const char *name, const char *workflow,
                   const char *cron, const char *tz)
{
    sked_schedule s;
    sked_error err;

    make(&s, name, workflow, cron, tz);
    if (sked_engine_schedule_create(e, &s, &err) != 0)
        fail_msg("create %s: %s: %s", name, err.field, err.msg);
    sked_schedule_done(&s);
}

/* ---- list ----------------------------------------------------------- */

/* A filter of the list, and whether schedule sI matches it: names
 * s00..s40, every third of workflow "b" (else "a"), every fifth paused. */
typedef struct filter {
    const char *status, *workflow, *prefix;
} filter;

#define LIST_N 41

static bool matches(const filter *f, int i)
{
    char name[16];

    snprintf(name, sizeof name, "s%02d", i);
    return (!f->status ||
            strcmp(f->status, i % 5 == 0 ? "paused" : "active") == 0) &&
           (!f->workflow || strcmp(f->workflow, i % 3 == 0 ? "b" : "a") == 0) &&
           (!f->prefix || strncmp(name, f->prefix, strlen(f->prefix)) == 0);
}

/* Walk the list filtered by F in pages of LIMIT to its end by
 * next_cursor: it must give exactly the matching names, in order, once. */
static void walk(sked_engine *e, const filter *f, size_t limit)
{
    sked_schedule_query q = {.status = f->status,
                             .workflow = f->workflow,
                             .prefix = f->prefix,
                             .limit = limit};
    char cursor[SKED_NAME_MAX + 1], name[16];
    int next = 0; /* the first index not yet seen */
    bool more;

    do {
        sked_schedule_page p;
        assert_int_equal(sked_engine_schedule_list(e, &q, &p, NULL), 0);
        assert_true(p.n <= limit);
        for (size_t k = 0; k < p.n; k++, next++) {
            while (next < LIST_N && !matches(f, next))
                next++;
            snprintf(name, sizeof name, "s%02d", next);
            assert_string_equal(p.items[k].name, name);
        }
        more = p.next_cursor != NULL;
        if (more) {
            assert_string_equal(p.next_cursor, p.items[p.n - 1].name);
            snprintf(cursor, sizeof cursor, "%s", p.next_cursor);
            q.cursor = cursor;
        }
        sked_schedule_page_done(&p);
        assert_null(p.items);
    } while (more);
    for (; next < LIST_N; next++)
        if (matches(f, next))
            fail_msg("limit %zu: s%02d missing", limit, next);
}

static void test_list_pages(void **state)
{
    sked_engine *e = *state;
    static const filter filters[] = {
        {NULL, NULL, NULL}, {"paused", NULL, NULL}, {"active", "b", NULL},
        {NULL, NULL, "s1"}, {NULL, "a", "s2"},      {"done", NULL, NULL},
    };
    char name[16];

    for (int i = 0; i < LIST_N; i++) {
        snprintf(name, sizeof name, "s%02d", i);
        create(e, name, i % 3 == 0 ? "b" : "a", "*/5 * * * *", NULL);
        if (i % 5 == 0)
            assert_int_equal(sked_engine_schedule_pause(e, name, NULL), 0);
    }
    for (size_t f = 0; f < sizeof filters / sizeof *filters; f++)
        for (size_t limit = 1; limit <= 13; limit += 4)
            walk(e, &filters[f], limit);
}

static void test_list_refuses(void **state)
{
    sked_engine *e = *state;
    sked_schedule_page p = {NULL, 0, NULL};
    sked_error err;

    sked_schedule_query bad = {.status = "sleeping"};
    assert_int_equal(sked_engine_schedule_list(e, &bad, &p, &err), SKED_EINVAL);
    assert_string_equal(err.field, "status");
    sked_schedule_query big = {.limit = SKED_ENGINE_LIST_MAX + 1};
    assert_int_equal(sked_engine_schedule_list(e, &big, &p, &err), SKED_EINVAL);
    assert_string_equal(err.field, "limit");
    assert_null(p.items);
    /* NULL: the first page of everything. */
    create(e, "only", "a", "0 * * * *", NULL);
    assert_int_equal(sked_engine_schedule_list(e, NULL, &p, NULL), 0);
    assert_int_equal(p.n, 1);
    assert_null(p.next_cursor);
    sked_schedule_page_done(&p);
}

/* ---- apply ---------------------------------------------------------- */

static void test_apply_counts(void **state)
{
    sked_engine *e = *state;
    sked_schedule set[3];
    sked_apply_result r;
    sked_schedule s;
    sked_error err;

    make(&set[0], "x", "w", "0 1 * * *", NULL);
    make(&set[1], "y", "w", "0 2 * * *", NULL);
    make(&set[2], "z", "w", "0 3 * * *", NULL);
    assert_int_equal(
        sked_engine_schedule_apply(e, "billing", set, 3, true, &r, &err), 0);
    assert_int_equal(r.created, 3);
    assert_string_equal(r.names[SKED_APPLY_CREATED][2], "z");
    assert_int_equal(sked_engine_schedule_get(e, "y", &s, NULL), 0);
    assert_int_equal(s.source, SKED_SOURCE_CODE);
    assert_string_equal(s.app, "billing");
    sked_schedule_done(&s);
    /* Again, one changed, one left out: updated 1, unchanged 1, deleted
     * 1 with prune; the same without prune deletes nothing. */
    free(set[1].cron);
    set[1].cron = strdup("0 4 * * *");
    assert_int_equal(
        sked_engine_schedule_apply(e, "billing", set, 2, false, &r, &err), 0);
    assert_int_equal(r.updated, 1);
    assert_int_equal(r.unchanged, 1);
    assert_int_equal(r.deleted, 0);
    assert_int_equal(
        sked_engine_schedule_apply(e, "billing", set, 2, true, &r, &err), 0);
    assert_int_equal(r.deleted, 1);
    assert_string_equal(r.names[SKED_APPLY_DELETED][0], "z");
    assert_int_equal(sked_engine_schedule_get(e, "z", &s, NULL),
                     SKED_ENOTFOUND);
    /* Another app may not take them; an API schedule's name neither. */
    assert_int_equal(
        sked_engine_schedule_apply(e, "other", set, 1, false, &r, &err),
        SKED_ECONFLICT);
    create(e, "api-made", "w", "0 5 * * *", NULL);
    free(set[2].name);
    set[2].name = strdup("api-made");
    assert_int_equal(
        sked_engine_schedule_apply(e, "billing", &set[2], 1, false, &r, &err),
        SKED_ECONFLICT);
    /* A bad field is named by its index in the set; nothing written. */
    free(set[1].cron);
    set[1].cron = strdup("61 * * * *");
    assert_int_equal(
        sked_engine_schedule_apply(e, "billing", set, 2, true, &r, &err),
        SKED_EINVAL);
    assert_string_equal(err.field, "schedules[1].cron");
    assert_int_equal(sked_engine_schedule_get(e, "y", &s, NULL), 0);
    assert_string_equal(s.cron, "0 4 * * *");
    sked_schedule_done(&s);
    for (int i = 0; i < 3; i++)
        sked_schedule_done(&set[i]);
}

/* NULL app: the engine's (SKED_APP_DEFAULT); and the applied schedule
 * fires at the next pass. */
static void test_apply_fires(void **state)
{
    sked_engine *e = *state;
    sked_schedule s;
    sked_apply_result r;
    sked_error err;

    make(&s, "soon", "w", "5 8 * * *", "UTC");
    assert_int_equal(
        sked_engine_schedule_apply(e, NULL, &s, 1, false, &r, &err), 0);
    sked_schedule_done(&s);
    assert_int_equal(sked_engine_schedule_get(e, "soon", &s, NULL), 0);
    assert_string_equal(s.app, SKED_APP_DEFAULT);
    sked_schedule_done(&s);
    vnow = T("2026-03-20T08:05:00Z");
    assert_int_equal(sked_engine_tick(e, &err), 0);
    assert_int_equal(sked_engine_schedule_get(e, "soon", &s, NULL), 0);
    assert_int_equal(s.last_fired_at, T("2026-03-20T08:05:00Z"));
    sked_schedule_done(&s);
}

/* ---- preview -------------------------------------------------------- */

/* 02:30 in Paris around the spring change of 2026-03-29: the day
 * before at +01:00, that day shifted to 03:00 CEST (01:00Z), then at
 * +02:00. By name (the engine's zones) as by the pure function. */
static void test_preview_dst(void **state)
{
    sked_engine *e = *state;
    sked_preview p, q;
    sked_schedule s;
    const sked_tz *tz;
    sked_tzdb *db;

    create(e, "night", "w", "30 2 * * *", "Europe/Paris");
    assert_int_equal(sked_engine_schedule_preview(
                         e, "night", T("2026-03-27T12:00:00Z"), 4, &p, NULL),
                     0);
    assert_int_equal(p.n, 4);
    assert_int_equal(p.items[0].at, T("2026-03-28T01:30:00Z"));
    assert_int_equal(p.items[0].utoff, 3600);
    assert_int_equal(p.items[0].mark, SKED_OCC_NORMAL);
    assert_int_equal(p.items[1].at, T("2026-03-29T01:00:00Z"));
    assert_int_equal(p.items[1].mark, SKED_OCC_SHIFTED);
    assert_string_equal(sked_occ_mark_name(p.items[1].mark), "shifted");
    assert_int_equal(p.items[1].utoff, 7200);
    assert_int_equal(p.items[2].at, T("2026-03-30T00:30:00Z"));
    assert_int_equal(p.items[3].at, T("2026-03-31T00:30:00Z"));
    for (size_t i = 0; i < p.n; i++)
        assert_true(p.items[i].has_local);
    assert_null(sked_occ_mark_name(SKED_OCC_NORMAL));

    assert_int_equal(sked_tzdb_open(SKED_TEST_DATA "/zoneinfo", &db, NULL), 0);
    assert_int_equal(sked_tzdb_get(db, "Europe/Paris", &tz, NULL), 0);
    assert_int_equal(sked_engine_schedule_get(e, "night", &s, NULL), 0);
    assert_int_equal(
        sked_schedule_preview(&s, tz, T("2026-03-27T12:00:00Z"), 4, &q, NULL),
        0);
    assert_int_equal(q.n, p.n);
    assert_memory_equal(q.items, p.items, p.n * sizeof *p.items);
    sked_preview_done(&q);
    /* max_runs caps the preview at the runs left; done: none. */
    s.max_runs = 2;
    assert_int_equal(sked_schedule_preview(&s, tz, 0, 10, &q, NULL), 0);
    assert_int_equal(q.n, 2);
    sked_preview_done(&q);
    s.status = SKED_SCHEDULE_DONE;
    assert_int_equal(sked_schedule_preview(&s, tz, 0, 10, &q, NULL), 0);
    assert_int_equal(q.n, 0);
    sked_preview_done(&q);
    sked_schedule_done(&s);
    sked_tzdb_close(db);
    sked_preview_done(&p);
    assert_null(p.items);
}

/* From now when AFTER is SKED_TIME_NONE; N out of range and an unknown
 * name refused. */
static void test_preview_now_and_refusals(void **state)
{
    sked_engine *e = *state;
    sked_preview p = {NULL, 0};
    sked_error err;

    create(e, "hourly", "w", "0 * * * *", NULL);
    assert_int_equal(
        sked_engine_schedule_preview(e, "hourly", SKED_TIME_NONE, 3, &p, NULL),
        0);
    assert_int_equal(p.n, 3);
    assert_int_equal(p.items[0].at, T("2026-03-20T09:00:00Z"));
    assert_int_equal(p.items[2].at, T("2026-03-20T11:00:00Z"));
    sked_preview_done(&p);
    assert_int_equal(sked_engine_schedule_preview(e, "hourly", SKED_TIME_NONE,
                                                  SKED_PREVIEW_MAX + 1, &p,
                                                  &err),
                     SKED_EINVAL);
    assert_string_equal(err.field, "n");
    assert_int_equal(
        sked_engine_schedule_preview(e, "hourly", SKED_TIME_NONE, 0, &p, &err),
        SKED_EINVAL);
    assert_int_equal(
        sked_engine_schedule_preview(e, "nope", SKED_TIME_NONE, 3, &p, &err),
        SKED_ENOTFOUND);
    assert_null(p.items);
}

/* ---- simulate ------------------------------------------------------- */

/* The engine's replay, by name, is the simulator's record for record,
 * for every overlap and catch-up policy, with and without downtime. */
static void test_simulate_matches(void **state)
{
    sked_engine *e = *state;
    static const char *const overlaps[] = {"allow", "skip", "buffer_one",
                                           "cancel_other"};
    static const char *const catchups[] = {"latest", "all", "skip"};
    const sked_sim_span down[] = {
        {T("2026-03-21T03:10:00Z"), T("2026-03-21T05:50:00Z")},
        {T("2026-03-21T09:00:00Z"), T("2026-03-21T09:20:00Z")},
    };
    sked_tzdb *db;
    char name[32];

    assert_int_equal(sked_tzdb_open(SKED_TEST_DATA "/zoneinfo", &db, NULL), 0);
    for (size_t o = 0; o < 4; o++) {
        for (size_t c = 0; c < 3; c++) {
            for (size_t nd = 0; nd <= 2; nd += 2) {
                sked_schedule s;
                sked_simulation sim;
                sked_sim_out want = {0};
                const sked_tz *tz;

                snprintf(name, sizeof name, "sim-%zu-%zu-%zu", o, c, nd);
                make(&s, name, "w", "*/20 * * * *", "America/New_York");
                assert_int_equal(
                    sked_overlap_parse(overlaps[o], "overlap", &s.overlap, 0),
                    0);
                assert_int_equal(
                    sked_catchup_parse(catchups[c], "catchup", &s.catchup, 0),
                    0);
                assert_int_equal(sked_engine_schedule_create(e, &s, NULL), 0);
                sked_simulate_options opt = {.from = T("2026-03-21T00:00:00Z"),
                                             .to = T("2026-03-21T12:00:00Z"),
                                             .down = down,
                                             .ndown = nd,
                                             .tick = SKED_TICK_DEFAULT,
                                             .run_duration =
                                                 (sked_dur) (o * 25 + 5) * 60 *
                                                 SKED_USEC_PER_SEC};
                assert_int_equal(
                    sked_engine_schedule_simulate(e, name, &opt, &sim, NULL),
                    0);
                assert_int_equal(sked_tzdb_get(db, s.timezone, &tz, NULL), 0);
                sked_sim_in in = {.s = &s,
                                  .tz = tz,
                                  .from = opt.from,
                                  .to = opt.to,
                                  .down = (const sked_sim_down *) down,
                                  .ndown = nd,
                                  .tick = opt.tick,
                                  .run_duration = opt.run_duration};
                assert_int_equal(sked__simulate(&in, &want, NULL), 0);
                assert_int_equal(sim.n, want.n);
                assert_true(sim.n >= 36);
                for (size_t i = 0; i < sim.n; i++) {
                    const sked_sim_decision *d = &sim.items[i];
                    const sked_sim_record *r = &want.records[i];
                    assert_int_equal(d->occurrence, r->occurrence);
                    assert_int_equal(d->at, r->at);
                    assert_int_equal(d->fire, r->fire != 0);
                    if (!d->fire)
                        assert_string_equal(sked_miss_reason_name(d->why),
                                            sked__miss_reason_name(r->why));
                    assert_int_equal(d->catchup,
                                     r->fire &&
                                         r->trigger == SKED_TRIGGER_CATCHUP);
                    assert_int_equal(d->buffered, r->buffered != 0);
                    assert_int_equal(d->cancel_active, r->cancel_active != 0);
                }
                sked__simulate_done(&want);
                sked_simulation_done(&sim);
                assert_null(sim.items);
                sked_schedule_done(&s);
            }
        }
    }
    sked_tzdb_close(db);
}

static void test_simulate_refusals(void **state)
{
    sked_engine *e = *state;
    sked_simulation sim = {NULL, 0};
    sked_error err;
    char id[SKED_RUN_ID_MAX];

    create(e, "r", "w", "0 * * * *", NULL);
    sked_simulate_options opt = {.from = T("2026-03-21T00:00:00Z"),
                                 .to = T("2026-03-20T00:00:00Z"),
                                 .tick = SKED_TICK_DEFAULT};
    assert_int_equal(sked_engine_schedule_simulate(e, "r", &opt, &sim, &err),
                     SKED_EINVAL);
    assert_string_equal(err.field, "to");
    assert_int_equal(sked_engine_schedule_simulate(e, "none", &opt, &sim, &err),
                     SKED_ENOTFOUND);
    assert_null(sim.items);
    /* The id a fired occurrence's run gets. */
    assert_true(sked_run_id_of("r", T("2026-03-21T01:00:00Z"), id, sizeof id) >
                0);
    assert_string_equal(id, "sched-r-2026-03-21T01:00:00Z");
}

/* ---- events --------------------------------------------------------- */

/* Pages of every size read every event once, oldest first, as the JSON
 * list has them. */
static void test_event_pages(void **state)
{
    sked_engine *e = *state;
    sked_event_page all, p;
    char name[16];
    sked_error err;

    for (int i = 0; i < 23; i++) {
        snprintf(name, sizeof name, "ev%02d", i);
        create(e, name, "w", "0 * * * *", NULL);
    }
    assert_int_equal(sked_engine_event_read(e, 0, 1000, &all, NULL), 0);
    assert_int_equal(all.n, 23);
    for (size_t i = 0; i < all.n; i++) {
        snprintf(name, sizeof name, "ev%02d", (int) i);
        assert_string_equal(all.items[i].type, "schedule.created");
        assert_string_equal(all.items[i].subject, name);
        assert_true(strstr(all.items[i].payload, name) != NULL);
        assert_true(i == 0 || all.items[i].id > all.items[i - 1].id);
        assert_int_equal(all.items[i].at, vnow);
    }
    for (size_t size = 1; size <= 10; size += 3) {
        int64_t after = 0;
        size_t seen = 0;
        do {
            assert_int_equal(sked_engine_event_read(e, after, size, &p, NULL),
                             0);
            assert_true(p.n <= size);
            for (size_t i = 0; i < p.n; i++, seen++) {
                assert_int_equal(p.items[i].id, all.items[seen].id);
                assert_string_equal(p.items[i].subject,
                                    all.items[seen].subject);
            }
            if (p.n > 0)
                after = p.items[p.n - 1].id;
            size_t n = p.n;
            sked_event_page_done(&p);
            if (n < size)
                break;
        } while (1);
        assert_int_equal(seen, all.n);
    }
    /* The JSON list, from the same reads. */
    char *json = NULL;
    assert_int_equal(sked_engine_event_list(e, all.items[20].id, 5, &json, 0),
                     0);
    assert_non_null(strstr(json, "\"subject\":\"ev21\""));
    assert_non_null(strstr(json, "\"subject\":\"ev22\""));
    assert_null(strstr(json, "\"subject\":\"ev20\""));
    assert_non_null(strstr(json, "\"next_cursor\":null"));
    sked_free(json);
    sked_event_page_done(&all);
    assert_int_equal(sked_engine_event_read(e, 0, 0, &p, &err), SKED_EINVAL);
    assert_string_equal(err.field, "limit");
    assert_int_equal(sked_engine_event_read(e, -1, 5, &p, &err), SKED_EINVAL);
    assert_string_equal(err.field, "after");
}

/* The engine's filtered page: a subject's events, a cursor only when
 * more match; a malformed filter is SKED_EINVAL naming it. */
static void test_event_query_filter(void **state)
{
    sked_engine *e = *state;
    sked_event_query q = {.limit = 1};
    sked_error err;
    char *json = NULL;

    create(e, "fa", "w", "0 * * * *", NULL);
    create(e, "fb", "w", "0 * * * *", NULL);
    q.filter.subject = "fb";
    q.filter.types[0] = "schedule.created";
    q.filter.ntypes = 1;
    assert_int_equal(sked_engine_event_query(e, &q, &json, &err), 0);
    assert_non_null(strstr(json, "\"subject\":\"fb\""));
    assert_null(strstr(json, "\"subject\":\"fa\""));
    assert_non_null(strstr(json, "\"next_cursor\":null")); /* the last */
    sked_free(json);
    q.filter.subject = NULL; /* fa's and fb's: a cursor after fa's */
    assert_int_equal(sked_engine_event_query(e, &q, &json, &err), 0);
    assert_non_null(strstr(json, "\"subject\":\"fa\""));
    assert_null(strstr(json, "\"next_cursor\":null"));
    sked_free(json);
    q.filter.types[0] = "no.such.type";
    q.limit = 5;
    assert_int_equal(sked_engine_event_query(e, &q, &json, &err), 0);
    assert_string_equal(json, "{\"events\":[],\"next_cursor\":null}");
    sked_free(json);
    q.filter.types[0] = "";
    assert_int_equal(sked_engine_event_query(e, &q, &json, &err), SKED_EINVAL);
    assert_string_equal(err.field, "type");
    q.filter.types[0] = "schedule.created";
    q.filter.subject = "a\nb";
    assert_int_equal(sked_engine_event_query(e, &q, &json, &err), SKED_EINVAL);
    assert_string_equal(err.field, "subject");
}

static void test_event_follows(void **state)
{
    (void) state;
    assert_true(sked_event_follows(0, 1));
    assert_true(sked_event_follows(41, 42));
    assert_false(sked_event_follows(41, 43));
    assert_false(sked_event_follows(41, 41));
    /* The first id of the next page follows any id of the page before. */
    assert_true(sked_event_follows(10, SKED_EVENT_PAGE));
    assert_true(sked_event_follows(SKED_EVENT_PAGE - 1, SKED_EVENT_PAGE));
    assert_false(sked_event_follows(10, SKED_EVENT_PAGE + 1));
    assert_true(sked_event_follows(SKED_EVENT_PAGE, 2 * SKED_EVENT_PAGE));
}

/* ---- runs, workflows file, health ----------------------------------- */

static void test_run_start_created(void **state)
{
    sked_engine *e = *state;
    char *a = NULL, *b = NULL;
    bool created = false;

    assert_int_equal(
        sked_engine_run_start_ex(e, "w", "{\"n\":1}", "k1", &a, &created, NULL),
        0);
    assert_true(created);
    assert_int_equal(
        sked_engine_run_start_ex(e, "w", "{\"n\":2}", "k1", &b, &created, NULL),
        0);
    assert_false(created);
    assert_string_equal(a, b);
    assert_string_equal(a, "api-w-key-k1");
    sked_free(a);
    sked_free(b);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

static void test_load_workflows(void **state)
{
    sked_engine *e = *state;
    static sked_workflows_loaded wl;
    char path[400], want[480];
    sked_schedule_page p;
    sked_error err;

    snprintf(path, sizeof path, "%s/jobs.yaml", tmp_dir);
    write_file(path, "workflows:\n"
                     "  beat:\n"
                     "    steps:\n"
                     "      - name: one\n"
                     "        sh: 'true'\n"
                     "    schedules:\n"
                     "      - cron: '0 * * * *'\n"
                     "      - name: beat-nightly\n"
                     "        cron: '0 3 * * *'\n");
    assert_int_equal(sked_engine_load_workflows(e, path, &wl, &err), 0);
    assert_string_equal(wl.app, "jobs");
    assert_int_equal(wl.workflows, 1);
    assert_int_equal(wl.schedules, 2);
    assert_int_equal(wl.applied.created, 2);
    assert_string_equal(wl.error, "");
    assert_int_equal(sked_engine_schedule_list(e, NULL, &p, NULL), 0);
    assert_int_equal(p.n, 2);
    assert_string_equal(p.items[0].app, "jobs");
    sked_schedule_page_done(&p);
    /* Loaded again: nothing changes. */
    assert_int_equal(sked_engine_load_workflows(e, path, &wl, &err), 0);
    assert_int_equal(wl.applied.unchanged, 2);

    /* A bad key: FILE:LINE:COLUMN, and nothing taken. */
    write_file(path, "workflows:\n"
                     "  beat:\n"
                     "    steps:\n"
                     "      - name: one\n"
                     "        sh: 'true'\n"
                     "        colour: red\n");
    assert_int_equal(sked_engine_load_workflows(e, path, &wl, &err),
                     SKED_EINVAL);
    snprintf(want, sizeof want, "%s:6:9: ", path);
    assert_memory_equal(wl.error, want, strlen(want));
    assert_non_null(strstr(wl.error, "colour"));

    /* A name the API owns: where that schedule stands in the file. */
    create(e, "taken", "w", "0 1 * * *", NULL);
    write_file(path, "schedules:\n"
                     "  - name: free\n"
                     "    workflow: w\n"
                     "    cron: '0 2 * * *'\n"
                     "  - name: taken\n"
                     "    workflow: w\n"
                     "    cron: '0 2 * * *'\n");
    assert_int_equal(sked_engine_load_workflows(e, path, &wl, &err),
                     SKED_ECONFLICT);
    snprintf(want, sizeof want, "%s:5:5: ", path);
    assert_memory_equal(wl.error, want, strlen(want));
    /* A file that is not there. */
    snprintf(path, sizeof path, "%s/missing.yaml", tmp_dir);
    assert_int_equal(sked_engine_load_workflows(e, path, &wl, &err), SKED_EIO);
    assert_non_null(strstr(wl.error, "missing.yaml"));
}

static void test_failing(void **state)
{
    sked_engine *e = *state;
    sked_fault f;
    sked_dur skew = 0;
    sked_error err;

    assert_false(sked_engine_failing(e, &f));
    assert_false(sked_engine_clock_skew(e, &skew)); /* SQLite: never */
    vnow = T("2026-03-20T09:00:00Z");
    sked__error_set(&err, SKED_ENOSPC, "db", -1, "door.db: the disk is full");
    sked__store_report(sked__engine_store(e), SKED_OP_CLAIM, SKED_ENOSPC, &err);
    assert_true(sked_engine_failing(e, NULL));
    assert_true(sked_engine_failing(e, &f));
    assert_string_equal(f.op, "claim");
    assert_int_equal(f.code, SKED_ENOSPC);
    assert_int_equal(f.episode, 1);
    assert_int_equal(f.failures, 1);
    assert_string_equal(f.msg, "door.db: the disk is full");
    assert_int_equal(sked_engine_ready(e, &err), SKED_EBUSY);
    sked__store_report(sked__engine_store(e), SKED_OP_CLAIM, 0, NULL);
    assert_false(sked_engine_failing(e, &f));
    assert_int_equal(sked_engine_now(e), vnow);
}

/* A client engine reads and writes schedules, fires nothing and refuses
 * to schedule; a scheduling engine on the same file fires what it made. */
static void test_client(void **state)
{
    sked_engine *e = *state, *c;
    char url[400];
    sked_engine_options o = {.db_url = url,
                             .tzdir = SKED_TEST_DATA "/zoneinfo",
                             .clock = &clock_,
                             .client = true};
    sked_schedule_page p;
    sked_schedule s;
    sked_error err;

    snprintf(url, sizeof url, "sqlite:%s/door.db", tmp_dir);
    assert_int_equal(sked_engine_open(&o, &c, &err), 0);
    create(c, "from-client", "w", "10 8 * * *", "Europe/Paris");
    assert_int_equal(sked_engine_schedule_pause(c, "from-client", NULL), 0);
    assert_int_equal(sked_engine_schedule_resume(c, "from-client", NULL), 0);
    assert_int_equal(sked_engine_schedule_list(c, NULL, &p, NULL), 0);
    assert_int_equal(p.n, 1);
    sked_schedule_page_done(&p);
    assert_int_equal(sked_engine_next_wakeup(c), SKED_TIME_NONE);
    assert_int_equal(sked_engine_tick(c, &err), SKED_EINVAL);
    assert_string_equal(err.field, "client");
    assert_int_equal(sked_engine_start(c, &err), SKED_EINVAL);
    assert_string_equal(err.field, "client");
    sked_engine_close(c);
    /* 08:10 in Paris is 07:10Z the next day (the clock is 08:00Z). */
    vnow = T("2026-03-21T07:10:00Z");
    assert_int_equal(sked_engine_tick(e, &err), 0);
    assert_int_equal(sked_engine_schedule_get(e, "from-client", &s, NULL), 0);
    assert_int_equal(s.last_fired_at, T("2026-03-21T07:10:00Z"));
    sked_schedule_done(&s);
}

/* A negative tick or retention is refused at open, naming the option,
 * and opens nothing. */
static void test_open_refuses(void **state)
{
    char url[400];
    sked_engine_options o = {
        .db_url = url, .tzdir = SKED_TEST_DATA "/zoneinfo", .clock = &clock_};
    sked_engine *c = NULL;
    sked_error err;

    (void) state;
    snprintf(url, sizeof url, "sqlite:%s/refused.db", tmp_dir);
    o.retention = -1;
    assert_int_equal(sked_engine_open(&o, &c, &err), SKED_EINVAL);
    assert_string_equal(err.field, "retention");
    o.retention = 0;
    o.tick = -1;
    assert_int_equal(sked_engine_open(&o, &c, &err), SKED_EINVAL);
    assert_string_equal(err.field, "tick");
    assert_null(c);
    assert_int_equal(access(url + strlen("sqlite:"), F_OK), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_open_refuses, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_pages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_refuses, setup, teardown),
        cmocka_unit_test_setup_teardown(test_apply_counts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_apply_fires, setup, teardown),
        cmocka_unit_test_setup_teardown(test_preview_dst, setup, teardown),
        cmocka_unit_test_setup_teardown(test_preview_now_and_refusals, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_simulate_matches, setup, teardown),
        cmocka_unit_test_setup_teardown(test_simulate_refusals, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_event_pages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_event_query_filter, setup,
                                        teardown),
        cmocka_unit_test(test_event_follows),
        cmocka_unit_test_setup_teardown(test_run_start_created, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_load_workflows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_client, setup, teardown),
    };
    int rc;

    clock_ = (sked_clock){read_now, read_now, NULL};
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/sked-door-XXXXXX");
    if (!mkdtemp(tmp_dir))
        return 1;
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    char path[400];
    snprintf(path, sizeof path, "%s/jobs.yaml", tmp_dir);
    unlink(path);
    rmdir(tmp_dir);
    return rc;
}
