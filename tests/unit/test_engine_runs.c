/* SPDX-License-Identifier: MIT */
/* Tests of runs, workflows and queues read through the engine door as
 * structs (sked_engine_run_read_one, sked_engine_run_read,
 * sked_engine_workflow_read, sked_engine_queue_read): every field of a
 * run and of its attempts reads back as the API's JSON shows it, and the
 * pages of every filter and limit walk to the end, each run once, in the
 * order and with the cursors of the JSON list. On a real SQLite file in
 * a temporary directory, runs executed by the engine on a virtual
 * clock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "engine/engine_int.h"
#include "model/run_json.h"
#include "model/run_page.h"
#include "sked/sked.h"

static char tmp_dir[256];
static sked_time vnow;
static sked_clock clock_;

static sked_time read_now(void *ctx)
{
    (void) ctx;
    return vnow;
}

static void remove_db(void)
{
    static const char *const ends[] = {"", "-wal", "-shm"};
    char path[400];

    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/runs.db%s", tmp_dir, ends[i]);
        unlink(path);
    }
}

/* ---- the workflows: outputs of every kind, a failure, a compensation */

static int step_json_out(sked_ctx *c, const char *in, char **out)
{
    (void) c;
    (void) in;
    *out = strdup("{\"rows\":[1,2,3],\"ok\":true}");
    return 0;
}

static int step_text_out(sked_ctx *c, const char *in, char **out)
{
    (void) c;
    (void) in;
    *out = strdup("plain words");
    return 0;
}

static int step_fail(sked_ctx *c, const char *in, char **out)
{
    (void) in;
    (void) out;
    sked_ctx_fail(c, "the disk is full");
    return 3;
}

static int step_undo(sked_ctx *c, const char *in, char **out)
{
    (void) c;
    (void) in;
    (void) out;
    return 0;
}

static void add(sked_workflow *w, const char *name, sked_step_fn fn,
                const char *need, sked_step_options o)
{
    sked_error err;

    o.needs = need ? &need : NULL;
    o.nneeds = need ? 1 : 0;
    if (sked_workflow_add_step(w, name, fn, &o, &err) != 0)
        fail_msg("step %s: %s", name, err.msg);
}

static void define(sked_engine *e)
{
    sked_workflow *ok = NULL, *bad = NULL;
    sked_error err;

    assert_int_equal(sked_workflow_new("ok", &ok, NULL), 0);
    add(ok, "a", step_json_out, NULL, (sked_step_options){0});
    add(ok, "b", step_text_out, "a", (sked_step_options){0});
    assert_int_equal(sked_workflow_new("bad", &bad, NULL), 0);
    assert_int_equal(sked_workflow_set_queue(bad, "slow", NULL), 0);
    add(bad, "prepare", step_json_out, NULL,
        (sked_step_options){.compensate = step_undo});
    add(bad, "load", step_fail, "prepare",
        (sked_step_options){.retry = {.attempts = 2}});
    if (sked_engine_register(e, ok, &err) != 0 ||
        sked_engine_register(e, bad, &err) != 0)
        fail_msg("register: %s", err.msg);
}

static int setup(void **state)
{
    char url[400];
    sked_engine_options o = {.db_url = url,
                             .tzdir = SKED_TEST_DATA "/zoneinfo",
                             .clock = &clock_,
                             .node_id = "node-1",
                             .sqlite_synchronous = "normal",
                             .workers = -1};
    sked_engine *e = NULL;
    sked_error err;

    vnow = 1774000000 * SKED_USEC_PER_SEC;
    remove_db();
    snprintf(url, sizeof url, "sqlite:%s/runs.db", tmp_dir);
    if (sked_engine_open(&o, &e, &err) != 0)
        fail_msg("open %s: %s", url, err.msg);
    define(e);
    if (sked_engine_start(e, &err) != 0)
        fail_msg("start: %s", err.msg);
    *state = e;
    return 0;
}

static int teardown(void **state)
{
    sked_engine_close(*state);
    remove_db();
    return 0;
}

/* Claim and execute every run that is due, until none is left. */
static void work_all(sked_engine *e)
{
    size_t done = 0;
    sked_error err;

    for (int i = 0; i < 50; i++) {
        if (sked__engine_work(e, 16, &done, &err) != 0)
            fail_msg("work: %s", err.msg);
        if (done == 0)
            return;
        vnow += 2 * SKED_USEC_PER_SEC;
    }
}

/* RUNS runs: of "ok" and "bad" in turn, some by key at one instant (the
 * cursor's tie on created_at), some of the schedule "nightly" (a manual
 * trigger), some left pending. */
#define RUNS 23

static void make_runs(sked_engine *e)
{
    sked_schedule s;
    sked_error err;
    char key[32], input[64];

    sked_schedule_init(&s);
    s.name = strdup("nightly");
    s.workflow = strdup("ok");
    s.cron = strdup("0 3 * * *");
    if (sked_engine_schedule_create(e, &s, &err) != 0)
        fail_msg("schedule: %s", err.msg);
    sked_schedule_done(&s);
    for (int i = 0; i < RUNS; i++) {
        snprintf(key, sizeof key, "k%02d", i);
        snprintf(input, sizeof input, "{\"i\":%d,\"s\":\"x%d\"}", i, i);
        if (i % 5 == 4)
            assert_int_equal(sked_engine_trigger(e, "nightly", NULL, &err), 0);
        else
            assert_int_equal(sked_engine_run_start(e, i % 3 ? "ok" : "bad",
                                                   input, i % 4 ? NULL : key,
                                                   NULL, &err),
                             0);
        if (i % 4 != 3)
            vnow += 1000;
        if (i == 15)
            work_all(e); /* the later ones stay pending */
    }
}

/* ---- comparing a view with the JSON -------------------------------- */

static void same_text(const char *view, json_t *j, const char *key)
{
    json_t *v = json_object_get(j, key);

    assert_non_null(v);
    if (!view) {
        assert_true(json_is_null(v));
        return;
    }
    assert_true(json_is_string(v));
    assert_string_equal(json_string_value(v), view);
}

/* A document: embedded as JSON when it is JSON, else a string. */
static void same_doc(const char *view, json_t *j, const char *key)
{
    json_t *v = json_object_get(j, key);
    json_t *parsed = view ? json_loads(view, JSON_DECODE_ANY, NULL) : NULL;

    assert_non_null(v);
    if (!view)
        assert_true(json_is_null(v));
    else if (parsed)
        assert_true(json_equal(parsed, v));
    else
        assert_string_equal(json_string_value(v), view);
    json_decref(parsed);
}

static void same_time(sked_time t, json_t *j, const char *key)
{
    char buf[SKED_TIME_STRLEN];

    if (t == SKED_TIME_NONE) {
        same_text(NULL, j, key);
        return;
    }
    assert_true(sked_time_format(t, buf, sizeof buf) > 0);
    same_text(buf, j, key);
}

static void same_int(int64_t v, json_t *j, const char *key)
{
    json_t *x = json_object_get(j, key);

    assert_true(json_is_integer(x));
    assert_int_equal(json_integer_value(x), v);
}

static void same_step(const sked_step_view *s, json_t *j)
{
    same_text(s->step, j, "step");
    assert_true(json_is_boolean(json_object_get(j, "compensation")));
    assert_int_equal(json_is_true(json_object_get(j, "compensation")),
                     s->compensation);
    same_int(s->attempt, j, "attempt");
    same_text(sked_step_status_name(s->status), j, "status");
    if (s->exit_code < 0)
        same_text(NULL, j, "exit_code");
    else
        same_int(s->exit_code, j, "exit_code");
    same_time(s->started_at, j, "started_at");
    same_time(s->finished_at, j, "finished_at");
    same_text(s->output, j, "output");
    same_text(s->stderr_text, j, "stderr");
    assert_int_equal(json_is_true(json_object_get(j, "output_truncated")),
                     s->output_truncated);
    assert_int_equal(json_is_true(json_object_get(j, "stderr_truncated")),
                     s->stderr_truncated);
    same_text(s->error, j, "error");
    same_text(s->error_code, j, "error_code");
    /* 13 fields and the duration: no key the view does not hold. */
    assert_int_equal(json_object_size(j), 14);
}

static void same_run(const sked_run_view *r, json_t *j)
{
    same_text(r->id, j, "id");
    same_text(r->workflow, j, "workflow");
    same_text(r->workflow_version, j, "workflow_version");
    same_text(sked_run_status_name(r->status), j, "status");
    same_text(sked_trigger_name(r->trigger), j, "trigger");
    same_text(r->schedule, j, "schedule");
    same_text(r->queue, j, "queue");
    same_int(r->priority, j, "priority");
    same_text(r->concurrency_key, j, "concurrency_key");
    same_doc(r->context, j, "context");
    same_doc(r->output, j, "output");
    same_text(r->error, j, "error");
    same_text(r->error_code, j, "error_code");
    same_int(r->attempts, j, "attempts");
    same_text(r->executor, j, "executor");
    same_time(r->scheduled_for, j, "scheduled_for");
    same_time(r->occurrence, j, "occurrence");
    same_time(r->not_before, j, "not_before");
    same_time(r->created_at, j, "created_at");
    same_time(r->started_at, j, "started_at");
    same_time(r->finished_at, j, "finished_at");
    same_time(r->updated_at, j, "updated_at");
    same_time(r->lease_until, j, "lease_until");
    same_time(r->cancel_requested_at, j, "cancel_requested_at");
    same_time(r->timeout_exceeded_at, j, "timeout_exceeded_at");
    same_time(r->deadline_at, j, "deadline_at");
    same_text(r->deadline_missed, j, "deadline_missed");
    json_t *steps = json_object_get(j, "steps");
    /* 27 fields and the duration, and the steps when read. */
    assert_int_equal(json_object_size(j), 28 + (r->steps != NULL));
    if (!r->steps) {
        assert_null(steps);
        return;
    }
    assert_true(json_is_array(steps));
    assert_int_equal(json_array_size(steps), r->nsteps);
    for (size_t i = 0; i < r->nsteps; i++)
        same_step(&r->steps[i], json_array_get(steps, i));
}

/* What the runs went through, known without the JSON. */
static void known(const sked_run_view *r)
{
    bool bad = strcmp(r->workflow, "bad") == 0;

    assert_string_equal(r->queue, bad ? "slow" : "default");
    assert_true(r->created_at != SKED_TIME_NONE);
    if (r->trigger == SKED_TRIGGER_MANUAL)
        assert_string_equal(r->schedule, "nightly");
    else
        assert_true(r->trigger == SKED_TRIGGER_API && !r->schedule &&
                    strstr(r->context, "\"i\":"));
    if (r->status == SKED_RUN_PENDING)
        return;
    assert_true(r->attempts >= 1);        /* claimed */
    assert_non_null(r->workflow_version); /* taken as it is claimed */
    assert_true(r->started_at != SKED_TIME_NONE &&
                r->finished_at >= r->started_at);
    assert_int_equal(r->status, bad ? SKED_RUN_FAILED : SKED_RUN_COMPLETED);
    for (size_t k = 0; k < r->nsteps; k++) {
        const sked_step_view *s = &r->steps[k];
        if (strcmp(s->step, "b") == 0)
            assert_string_equal(s->output, "plain words");
        else if (strcmp(s->step, "load") == 0)
            assert_true(s->status == SKED_STEP_FAILED &&
                        strstr(s->error, "the disk is full"));
        else if (!s->compensation)
            assert_string_equal(s->output, "{\"rows\":[1,2,3],\"ok\":true}");
    }
    assert_int_equal(r->nsteps, bad ? 4 : 2); /* 2 tries, 1 undo */
}

static json_t *parse(char *text)
{
    json_t *j = json_loads(text, 0, NULL);

    assert_non_null(j);
    sked_free(text);
    return j;
}

/* The JSON J (a run when ONE, else a list) read back by the model's
 * reader is the same views: the writer writes J again from them. */
static void round_trip(json_t *j, bool one)
{
    sked_run_page p;
    sked_error err;

    if (sked__run_page_from_json(json_incref(j), one, &p, &err) != 0)
        fail_msg("read back: %s", err.msg);
    json_t *again = one ? sked__run_view_json(&p.items[0])
                        : sked__run_list_json(p.items, p.n, p.next_cursor);
    assert_true(json_equal(again, j));
    if (one)
        same_run(&p.items[0], j);
    json_decref(again);
    sked_run_page_done(&p);
}

/* Every run read by id equals its JSON, field by field; what the runs
 * went through shows in them. */
static void test_run_fields(void **state)
{
    sked_engine *e = *state;
    sked_run_page all, one;
    size_t failed = 0, compensations = 0, retried = 0, pending = 0;
    char *text = NULL;

    make_runs(e);
    assert_int_equal(
        sked_engine_run_read(e, &(sked_run_query){.limit = 1000}, &all, NULL),
        0);
    assert_int_equal(all.n, RUNS);
    assert_null(all.next_cursor);
    for (size_t i = 0; i < all.n; i++) {
        const char *id = all.items[i].id;
        assert_int_equal(sked_engine_run_read_one(e, id, &one, NULL), 0);
        assert_int_equal(one.n, 1);
        assert_null(one.next_cursor);
        assert_non_null(one.items[0].steps);
        assert_int_equal(sked_engine_run_get(e, id, &text, NULL), 0);
        json_t *j = parse(text);
        same_run(&one.items[0], j);
        round_trip(j, true);
        json_decref(j);
        const sked_run_view *r = &one.items[0];
        known(r);
        failed += r->status == SKED_RUN_FAILED;
        pending += r->status == SKED_RUN_PENDING && r->nsteps == 0;
        for (size_t k = 0; k < r->nsteps; k++) {
            compensations += r->steps[k].compensation;
            retried += r->steps[k].attempt == 2;
        }
        /* The list's view is the same run without its attempts. */
        assert_null(all.items[i].steps);
        assert_string_equal(all.items[i].id, r->id);
        assert_int_equal(all.items[i].updated_at, r->updated_at);
        sked_run_page_done(&one);
    }
    /* Runs of every kind were compared: failed ones with a retried step
     * and a compensation, completed ones, pending ones without steps. */
    assert_true(failed > 0);
    assert_true(compensations > 0);
    assert_true(retried > 0);
    assert_true(pending > 0);
    sked_run_page_done(&all);
    sked_run_page_done(NULL);
}

/* Whether R matches Q, as the store's filter says. */
static bool matches(const sked_run_view *r, const sked_run_query *q)
{
    return (!q->status ||
            strcmp(q->status, sked_run_status_name(r->status)) == 0) &&
           (!q->workflow || strcmp(q->workflow, r->workflow) == 0) &&
           (!q->schedule ||
            (r->schedule && strcmp(q->schedule, r->schedule) == 0));
}

/* Walk Q's pages of structs and of JSON side by side to the end: the
 * same runs, the same cursors, equal to the matching runs of ALL in its
 * order. */
static void walk(sked_engine *e, sked_run_query q, const sked_run_page *all)
{
    size_t at = 0, pages = 0;
    char cursor[300] = "";

    for (;;) {
        sked_run_page p;
        char *text = NULL;
        q.cursor = cursor[0] ? cursor : NULL;
        assert_int_equal(sked_engine_run_read(e, &q, &p, NULL), 0);
        assert_int_equal(sked_engine_run_list(e, &q, &text, NULL), 0);
        json_t *j = parse(text), *runs = json_object_get(j, "runs");
        assert_int_equal(json_array_size(runs), p.n);
        assert_true(p.n <= q.limit);
        for (size_t i = 0; i < p.n; i++) {
            same_run(&p.items[i], json_array_get(runs, i));
            while (at < all->n && !matches(&all->items[at], &q))
                at++;
            assert_true(at < all->n);
            assert_string_equal(p.items[i].id, all->items[at].id);
            at++;
        }
        same_text(p.next_cursor, j, "next_cursor");
        round_trip(j, false);
        json_decref(j);
        pages++;
        bool more = p.next_cursor != NULL;
        if (more)
            snprintf(cursor, sizeof cursor, "%s", p.next_cursor);
        sked_run_page_done(&p);
        if (!more)
            break;
    }
    while (at < all->n && !matches(&all->items[at], &q))
        at++;
    assert_int_equal(at, all->n); /* none left out */
    assert_true(pages >= 1);
}

static void test_run_pages(void **state)
{
    sked_engine *e = *state;
    static const sked_run_query filters[] = {
        {0},
        {.workflow = "ok"},
        {.workflow = "bad"},
        {.status = "completed"},
        {.status = "failed"},
        {.status = "pending"},
        {.status = "cancelled"},
        {.schedule = "nightly"},
        {.schedule = "nightly", .status = "completed"},
        {.workflow = "none"},
    };
    static const size_t limits[] = {1, 2, 3, 4, 7, 22, 23, 24, 1000};
    sked_run_page all;

    make_runs(e);
    assert_int_equal(
        sked_engine_run_read(e, &(sked_run_query){.limit = 1000}, &all, NULL),
        0);
    /* Newest first, by created_at then id. */
    for (size_t i = 1; i < all.n; i++)
        assert_true(all.items[i - 1].created_at > all.items[i].created_at ||
                    (all.items[i - 1].created_at == all.items[i].created_at &&
                     strcmp(all.items[i - 1].id, all.items[i].id) > 0));
    for (size_t f = 0; f < sizeof filters / sizeof *filters; f++)
        for (size_t l = 0; l < sizeof limits / sizeof *limits; l++) {
            sked_run_query q = filters[f];
            q.limit = limits[l];
            walk(e, q, &all);
        }
    sked_run_page_done(&all);
}

/* An answer with a field missing or of another kind is refused, naming
 * it, for every field of a run and of an attempt. */
static void test_read_refuses(void **state)
{
    sked_engine *e = *state;
    char *text = NULL;
    sked_run_page p, all;
    sked_error err;

    make_runs(e);
    assert_int_equal(
        sked_engine_run_read(e, &(sked_run_query){.limit = 1000}, &all, NULL),
        0);
    /* A failed run: it has attempts. */
    size_t k = 0;
    while (k < all.n && all.items[k].status != SKED_RUN_FAILED)
        k++;
    assert_true(k < all.n);
    assert_int_equal(sked_engine_run_get(e, all.items[k].id, &text, NULL), 0);
    json_t *run = parse(text);
    sked_run_page_done(&all);
    const char *key;
    json_t *v;
    json_object_foreach(run, key, v)
    {
        if (strcmp(key, "duration_secs") == 0 || strcmp(key, "context") == 0 ||
            strcmp(key, "output") == 0)
            continue; /* computed, not read; any JSON is a document */
        char want[96];
        json_t *list = json_pack("{s:[O], s:n}", "runs", run, "next_cursor");
        json_t *copy = json_array_get(json_object_get(list, "runs"), 0);
        copy = json_deep_copy(copy);
        json_array_set_new(json_object_get(list, "runs"), 0, copy);
        json_object_set_new(copy, key, json_true());
        assert_int_equal(sked__run_page_from_json(list, false, &p, &err),
                         SKED_EINVAL);
        snprintf(want, sizeof want, "runs[0].%s", key);
        assert_string_equal(err.field, want);
    }
    json_t *step = json_array_get(json_object_get(run, "steps"), 0);
    json_object_foreach(step, key, v)
    {
        if (strcmp(key, "duration_secs") == 0)
            continue;
        json_t *copy = json_deep_copy(run);
        json_object_set_new(json_array_get(json_object_get(copy, "steps"), 0),
                            key, json_integer(7));
        if (strcmp(key, "attempt") == 0 || strcmp(key, "exit_code") == 0) {
            /* A number is of its kind there. */
            assert_int_equal(sked__run_page_from_json(copy, true, &p, &err), 0);
            sked_run_page_done(&p);
            continue;
        }
        assert_int_equal(sked__run_page_from_json(copy, true, &p, &err),
                         SKED_EINVAL);
        assert_string_equal(err.field, key);
    }
    json_decref(run);
}

static void test_run_refusals(void **state)
{
    sked_engine *e = *state;
    sked_run_page p = {.n = 7};
    sked_error err;

    assert_int_equal(sked_engine_run_read_one(e, "nope", &p, &err),
                     SKED_ENOTFOUND);
    assert_int_equal(p.n, 7); /* untouched */
    assert_int_equal(sked_engine_run_read_one(e, NULL, &p, &err), SKED_EINVAL);
    assert_string_equal(err.field, "id");
    assert_int_equal(
        sked_engine_run_read(e, &(sked_run_query){.status = "done"}, &p, &err),
        SKED_EINVAL);
    assert_string_equal(err.field, "status");
    assert_int_equal(
        sked_engine_run_read(e, &(sked_run_query){.limit = 1001}, &p, &err),
        SKED_EINVAL);
    assert_string_equal(err.field, "limit");
    assert_int_equal(
        sked_engine_run_read(e, &(sked_run_query){.cursor = "12"}, &p, &err),
        SKED_EINVAL);
    assert_string_equal(err.field, "cursor");
    assert_int_equal(p.n, 7);
}

/* Workflows and queues read as structs equal their JSON. */
static void test_workflows_queues(void **state)
{
    sked_engine *e = *state;
    sked_workflow_page w;
    sked_queue_page q;
    char *text = NULL;

    make_runs(e);
    assert_int_equal(sked_engine_workflow_read(e, &w, NULL), 0);
    assert_int_equal(sked_engine_workflow_list(e, &text, NULL), 0);
    json_t *j = parse(text), *a = json_object_get(j, "workflows");
    assert_int_equal(w.n, 2);
    assert_int_equal(json_array_size(a), w.n);
    assert_string_equal(w.items[0].name, "bad"); /* by name */
    assert_string_equal(w.items[1].name, "ok");
    for (size_t i = 0; i < w.n; i++) {
        json_t *o = json_array_get(a, i);
        same_text(w.items[i].name, o, "name");
        same_text(w.items[i].version, o, "version");
        same_time(w.items[i].registered_at, o, "registered_at");
        assert_true(w.items[i].registered_at != SKED_TIME_NONE);
        same_doc(w.items[i].definition, o, "definition");
        assert_non_null(strstr(w.items[i].definition, "\"steps\""));
        assert_int_equal(json_object_size(o), 4);
    }
    /* The API's list read back is the same list. */
    sked_workflow_page back;
    assert_int_equal(
        sked__workflow_page_from_json(json_incref(j), a, &back, NULL), 0);
    json_t *again = sked__workflow_list_json(back.items, back.n);
    assert_true(json_equal(again, j));
    json_decref(again);
    sked_workflow_page_done(&back);
    json_decref(j);
    sked_workflow_page_done(&w);
    sked_workflow_page_done(NULL);

    assert_int_equal(sked_engine_queue_read(e, &q, NULL), 0);
    assert_int_equal(sked_engine_queue_list(e, &text, NULL), 0);
    j = parse(text);
    a = json_object_get(j, "queues");
    assert_int_equal(json_array_size(a), q.n);
    int64_t pending = 0;
    for (size_t i = 0; i < q.n; i++) {
        json_t *o = json_array_get(a, i);
        same_text(q.items[i].name, o, "name");
        same_int(q.items[i].pending, o, "pending");
        same_int(q.items[i].running, o, "running");
        pending += q.items[i].pending;
        if (i > 0)
            assert_true(strcmp(q.items[i - 1].name, q.items[i].name) < 0);
    }
    assert_true(pending > 0);
    json_decref(j);
    sked_queue_page_done(&q);
    sked_queue_page_done(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_run_fields, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_pages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_refusals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_refuses, setup, teardown),
        cmocka_unit_test_setup_teardown(test_workflows_queues, setup, teardown),
    };
    const char *tmp = getenv("TMPDIR");
    int rc;

    clock_ = (sked_clock){read_now, read_now, NULL};
    snprintf(tmp_dir, sizeof tmp_dir, "%s/sked-runs-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tmp_dir))
        return 1;
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(tmp_dir);
    return rc;
}
