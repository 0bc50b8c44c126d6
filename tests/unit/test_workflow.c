/* SPDX-License-Identifier: MIT */
/* Workflow definitions: the public builder (src/engine/workflow.c) and
 * the checks it makes as it goes, each refusal naming its field; the
 * version hash (src/model/workflow_json.c), stable for one definition
 * and different for any change of shape; the JSON form; and the
 * translation of a workflows file (SPEC 10) into the definitions the
 * executor runs (src/engine/workflow_load.c), field by field.
 *
 * Step functions are never called here: one that does nothing serves. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "engine/workflow_int.h"
#include "sked/sked.h"

#define SEC SKED_USEC_PER_SEC
#define MIN (60 * SEC)
#define DAY (86400 * SEC)

static sked_tzdb *tzdb;

static int setup(void **state)
{
    char dir[512];

    (void) state;
    snprintf(dir, sizeof dir, "%s/zoneinfo", SKED_TEST_DATA);
    return sked_tzdb_open(dir, &tzdb, NULL);
}

static int teardown(void **state)
{
    (void) state;
    sked_tzdb_close(tzdb);
    return 0;
}

static int noop(sked_ctx *ctx, const char *input_json, char **output_json)
{
    (void) ctx;
    (void) input_json;
    (void) output_json;
    return 0;
}

static int other(sked_ctx *ctx, const char *input_json, char **output_json)
{
    (void) ctx;
    (void) input_json;
    (void) output_json;
    return 1;
}

static sked_workflow *wf_new(const char *name)
{
    sked_workflow *w = NULL;
    sked_error err = {0};

    if (sked_workflow_new(name, &w, &err) != 0)
        fail_msg("workflow %s: %s", name, err.msg);
    return w;
}

/* Assert that RC is SKED_EINVAL with ERR naming FIELD. */
static void assert_einval(int rc, const sked_error *err, const char *field)
{
    if (rc != SKED_EINVAL)
        fail_msg("want EINVAL on %s, got %d", field, rc);
    assert_int_equal(err->code, SKED_EINVAL);
    assert_string_equal(err->field, field);
    assert_true(err->msg[0] != '\0');
}

/* ---- names --------------------------------------------------------------- */

static char long_name[130];

static void test_workflow_names(void **state)
{
    const char *good[] = {"a", "Z", "0", "a-b_c.9", "morning-report", NULL};
    const char *bad[] = {NULL,          "",    "a b", "a/b",
                         "caf\xc3\xa9", "a\n", "a:b", "-\t"};
    sked_workflow *w, *sentinel = (sked_workflow *) &long_name;
    sked_error err;

    (void) state;
    for (size_t i = 0; good[i]; i++) {
        w = NULL;
        assert_int_equal(sked_workflow_new(good[i], &w, NULL), 0);
        assert_string_equal(w->name, good[i]);
        sked_workflow_free(w);
    }
    /* 128 bytes is the longest name. */
    memset(long_name, 'x', 128);
    long_name[128] = '\0';
    assert_int_equal(sked_workflow_new(long_name, &w, NULL), 0);
    sked_workflow_free(w);
    long_name[128] = 'x';
    long_name[129] = '\0';
    w = sentinel;
    memset(&err, 0, sizeof err);
    assert_einval(sked_workflow_new(long_name, &w, &err), &err, "name");
    assert_ptr_equal(w, sentinel);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        /* *out is untouched on failure. */
        w = sentinel;
        memset(&err, 0, sizeof err);
        assert_einval(sked_workflow_new(bad[i], &w, &err), &err, "name");
        assert_ptr_equal(w, sentinel);
    }
    /* A NULL error is allowed. */
    assert_int_equal(sked_workflow_new("", &w, NULL), SKED_EINVAL);
}

static void test_defaults(void **state)
{
    sked_workflow *w = wf_new("wf");

    (void) state;
    assert_string_equal(w->queue, "default");
    assert_null(w->version);
    assert_false(w->version_given);
    assert_true(w->timeout == 0);
    assert_true(w->fail_workflow);
    assert_true(w->hard);
    assert_int_equal(w->parallelism, 1);
    assert_int_equal(w->nsteps, 0);
    assert_int_equal(w->nschedules, 0);
    assert_int_equal(sked__workflow_step_index(w, "a"), -1);
    sked_workflow_free(w);
    /* Freeing nothing does nothing. */
    sked_workflow_free(NULL);
}

static void test_step_names(void **state)
{
    sked_workflow *w = wf_new("wf");
    sked_error err = {0};

    (void) state;
    assert_einval(sked_workflow_add_step(w, "", noop, NULL, &err), &err,
                  "name");
    assert_einval(sked_workflow_add_step(w, NULL, noop, NULL, &err), &err,
                  "name");
    assert_einval(sked_workflow_add_step(w, "a b", noop, NULL, &err), &err,
                  "name");
    assert_int_equal(sked_workflow_add_step(w, "a", noop, NULL, &err), 0);
    assert_int_equal(sked_workflow_add_step(w, "b", noop, NULL, &err), 0);
    /* Names are unique within the workflow. */
    memset(&err, 0, sizeof err);
    assert_einval(sked_workflow_add_step(w, "a", noop, NULL, &err), &err,
                  "name");
    assert_non_null(strstr(err.msg, "\"a\""));
    assert_int_equal(w->nsteps, 2);
    assert_int_equal(sked__workflow_step_index(w, "a"), 0);
    assert_int_equal(sked__workflow_step_index(w, "b"), 1);
    /* Names are case-sensitive. */
    assert_int_equal(sked_workflow_add_step(w, "A", noop, NULL, &err), 0);
    assert_int_equal(sked__workflow_step_index(w, "A"), 2);
    sked_workflow_free(w);
}

static void test_step_needs(void **state)
{
    sked_workflow *w = wf_new("wf");
    sked_error err = {0};
    const char *later[] = {"b"}, *self[] = {"b"}, *dup[] = {"a", "a"},
               *two[] = {"b", "a"}, *nul[] = {"a", NULL};

    (void) state;
    /* Needs name steps added before: the steps are a DAG by
     * construction, a cycle cannot even be written. */
    assert_einval(sked_workflow_add_step(
                      w, "a", noop,
                      &(sked_step_options){.needs = later, .nneeds = 1}, &err),
                  &err, "needs");
    assert_int_equal(w->nsteps, 0);
    assert_int_equal(sked_workflow_add_step(w, "a", noop, NULL, &err), 0);
    assert_einval(sked_workflow_add_step(
                      w, "b", noop,
                      &(sked_step_options){.needs = self, .nneeds = 1}, &err),
                  &err, "needs");
    assert_non_null(strstr(err.msg, "\"b\""));
    /* A NULL among the needs is refused, not dereferenced. */
    assert_einval(sked_workflow_add_step(
                      w, "b", noop,
                      &(sked_step_options){.needs = nul, .nneeds = 2}, &err),
                  &err, "needs");
    assert_int_equal(w->nsteps, 1);
    /* A need named twice is one need. */
    assert_int_equal(sked_workflow_add_step(
                         w, "b", noop,
                         &(sked_step_options){.needs = dup, .nneeds = 2}, &err),
                     0);
    assert_int_equal(w->steps[1].nneeds, 1);
    assert_int_equal(w->steps[1].needs[0], 0);
    /* Indexes, in the order given. */
    assert_int_equal(sked_workflow_add_step(
                         w, "c", noop,
                         &(sked_step_options){.needs = two, .nneeds = 2}, &err),
                     0);
    assert_int_equal(w->steps[2].nneeds, 2);
    assert_int_equal(w->steps[2].needs[0], 1);
    assert_int_equal(w->steps[2].needs[1], 0);
    assert_int_equal(w->steps[0].nneeds, 0);
    assert_null(w->steps[0].needs);
    sked_workflow_free(w);
}

/* ---- step options -------------------------------------------------------- */

static const struct bad_step {
    bool null_fn;
    int32_t attempts;
    double multiplier;
    sked_dur backoff, max_backoff, timeout;
    bool comp;
    int32_t comp_attempts;
    sked_dur comp_timeout;
    const char *field;
} bad_steps[] = {
    {.null_fn = true, .field = "fn"},
    {.attempts = -1, .field = "retry.attempts"},
    {.attempts = 101, .field = "retry.attempts"},
    {.attempts = INT32_MAX, .field = "retry.attempts"},
    {.multiplier = -1, .field = "retry.multiplier"},
    {.multiplier = 0.5, .field = "retry.multiplier"},
    {.multiplier = 100.5, .field = "retry.multiplier"},
    {.backoff = -1, .field = "retry.backoff"},
    {.max_backoff = -1, .field = "retry.max_backoff"},
    {.timeout = -1, .field = "timeout"},
    /* The step's own options are checked with a compensation present. */
    {.attempts = 101, .comp = true, .field = "retry.attempts"},
    {.timeout = -SEC, .comp = true, .field = "timeout"},
    {.comp = true, .comp_attempts = 101, .field = "compensate_retry.attempts"},
    {.comp = true, .comp_attempts = -3, .field = "compensate_retry.attempts"},
    {.comp = true, .comp_timeout = -1, .field = "compensate_timeout"},
};

/* Fill a stretch of the stack with non-zero bytes, so that a variable
 * the next call leaves uninitialised holds garbage, not a lucky zero.
 * Called through a volatile pointer so that it is never inlined. */
static void scribble_stack(void)
{
    volatile unsigned char junk[16384];

    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = 0xa5;
}

static void (*volatile scribble)(void) = scribble_stack;

static void test_step_options_refused(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof bad_steps / sizeof *bad_steps; i++) {
        const struct bad_step *c = &bad_steps[i];
        sked_workflow *w = wf_new("wf");
        sked_error err = {0};
        sked_step_options o = {
            .timeout = c->timeout,
            .retry = {.attempts = c->attempts,
                      .multiplier = c->multiplier,
                      .backoff = c->backoff,
                      .max_backoff = c->max_backoff},
            .compensate = c->comp ? noop : NULL,
            .compensate_timeout = c->comp_timeout,
            .compensate_retry = {.attempts = c->comp_attempts},
        };
        scribble();
        int rc =
            sked_workflow_add_step(w, "s", c->null_fn ? NULL : noop, &o, &err);
        if (rc != SKED_EINVAL || strcmp(err.field, c->field) != 0)
            fail_msg("case %zu: rc %d field \"%s\", want \"%s\"", i, rc,
                     err.field, c->field);
        /* Nothing was added, and the workflow is still usable. */
        assert_int_equal(w->nsteps, 0);
        assert_int_equal(sked_workflow_add_step(w, "s", noop, NULL, NULL), 0);
        sked_workflow_free(w);
    }
}

static void test_step_options_kept(void **state)
{
    sked_workflow *w = wf_new("wf");
    int32_t codes[] = {1, 75};
    int data = 7;
    const sked_action *a, *c;

    (void) state;
    /* No options: one attempt, no delay, no timeout, no compensation. */
    assert_int_equal(sked_workflow_add_step(w, "plain", noop, NULL, NULL), 0);
    a = &w->steps[0].act;
    assert_int_equal(a->kind, SKED_ACTION_FN);
    assert_ptr_equal(a->fn, noop);
    assert_null(a->userdata);
    assert_true(a->timeout == 0);
    assert_int_equal(a->retry.attempts, 1);
    assert_true(a->retry.multiplier == 1.0);
    assert_true(a->retry.backoff == 0 && a->retry.max_backoff == 0);
    assert_false(a->retry.jitter);
    assert_null(a->retry.retry_on);
    assert_int_equal(a->retry.nretry_on, 0);
    assert_null(w->steps[0].compensate);

    sked_step_options o = {
        .timeout = 5 * MIN,
        .retry = {.attempts = 100,
                  .backoff = 10 * SEC,
                  .multiplier = 100,
                  .max_backoff = 2 * MIN,
                  .jitter = true,
                  .retry_on = codes,
                  .nretry_on = 2},
        .compensate = other,
        .compensate_timeout = MIN,
        .compensate_retry = {.attempts = 2, .multiplier = 0},
        .userdata = &data,
    };
    assert_int_equal(sked_workflow_add_step(w, "full", noop, &o, NULL), 0);
    /* The retry_on list is copied: the caller's array is its own. */
    codes[0] = 99;
    a = &w->steps[1].act;
    assert_int_equal(a->kind, SKED_ACTION_FN);
    assert_ptr_equal(a->fn, noop);
    assert_ptr_equal(a->userdata, &data);
    assert_true(a->timeout == 5 * MIN);
    assert_int_equal(a->retry.attempts, 100);
    assert_true(a->retry.backoff == 10 * SEC);
    assert_true(a->retry.multiplier == 100.0);
    assert_true(a->retry.max_backoff == 2 * MIN);
    assert_true(a->retry.jitter);
    assert_int_equal(a->retry.nretry_on, 2);
    assert_int_equal(a->retry.retry_on[0], 1);
    assert_int_equal(a->retry.retry_on[1], 75);
    c = w->steps[1].compensate;
    assert_non_null(c);
    assert_int_equal(c->kind, SKED_ACTION_FN);
    assert_ptr_equal(c->fn, other);
    assert_ptr_equal(c->userdata, &data);
    assert_true(c->timeout == MIN);
    assert_int_equal(c->retry.attempts, 2);
    assert_true(c->retry.multiplier == 1.0);
    assert_int_equal(c->retry.nretry_on, 0);
    sked_workflow_free(w);
}

static void test_workflow_settings(void **state)
{
    sked_workflow *w = wf_new("wf");
    sked_error err = {0};
    char v129[130];

    (void) state;
    /* Parallelism 1..64; a refusal changes nothing. */
    assert_int_equal(sked_workflow_set_parallelism(w, 64, &err), 0);
    assert_int_equal(w->parallelism, 64);
    assert_int_equal(sked_workflow_set_parallelism(w, 1, &err), 0);
    assert_einval(sked_workflow_set_parallelism(w, 0, &err), &err,
                  "parallelism");
    assert_einval(sked_workflow_set_parallelism(w, -1, &err), &err,
                  "parallelism");
    assert_einval(sked_workflow_set_parallelism(w, 65, &err), &err,
                  "parallelism");
    assert_int_equal(w->parallelism, 1);
    /* The workflow timeout: 0 (none) to 366 days. */
    assert_einval(sked_workflow_set_timeout(w, -1, true, true, &err), &err,
                  "timeout.seconds");
    assert_einval(sked_workflow_set_timeout(w, 366 * DAY + 1, true, true, &err),
                  &err, "timeout.seconds");
    assert_true(w->timeout == 0 && w->fail_workflow && w->hard);
    assert_int_equal(sked_workflow_set_timeout(w, 366 * DAY, false, true, &err),
                     0);
    assert_true(w->timeout == 366 * DAY);
    assert_false(w->fail_workflow);
    assert_true(w->hard);
    assert_int_equal(sked_workflow_set_timeout(w, 10 * SEC, true, false, &err),
                     0);
    assert_true(w->timeout == 10 * SEC && w->fail_workflow && !w->hard);
    /* Queue names follow the names' rule. */
    assert_einval(sked_workflow_set_queue(w, "no space", &err), &err, "queue");
    assert_einval(sked_workflow_set_queue(w, "", &err), &err, "queue");
    assert_string_equal(w->queue, "default");
    assert_int_equal(sked_workflow_set_queue(w, "reports", &err), 0);
    assert_string_equal(w->queue, "reports");
    /* A version is 1 to 128 bytes. */
    memset(v129, 'v', 129);
    v129[129] = '\0';
    assert_einval(sked_workflow_set_version(w, "", &err), &err, "version");
    assert_einval(sked_workflow_set_version(w, NULL, &err), &err, "version");
    assert_einval(sked_workflow_set_version(w, v129, &err), &err, "version");
    assert_null(w->version);
    assert_false(w->version_given);
    v129[128] = '\0';
    assert_int_equal(sked_workflow_set_version(w, v129, &err), 0);
    assert_int_equal(sked_workflow_set_version(w, "2024.1", &err), 0);
    assert_string_equal(w->version, "2024.1");
    assert_true(w->version_given);
    sked_workflow_free(w);
}

static void assert_strv(char *const *v, const char *const *want);

/* env_inherit: names checked one by one, the field naming the refused
 * one, and the workflow unchanged by a refusal. */
static void test_env_inherit(void **state)
{
    sked_workflow *w = wf_new("wf");
    sked_error err = {0};
    const char *ok[] = {"HOME", "_x", "Path2", "LC_ALL"};
    const char *bad[][3] = {
        {"HOME", "SKED_TOKEN", NULL}, {"SKED_DB", NULL, NULL},
        {"A", "B", "SKED_SERVER"},    {"1A", NULL, NULL},
        {"A=B", NULL, NULL},          {"", NULL, NULL},
        {"A B", NULL, NULL},          {"é", NULL, NULL},
    };
    char name129[130], field[32];

    (void) state;
    assert_int_equal(sked_workflow_set_env_inherit(w, false, ok, 4, &err), 0);
    assert_strv(w->env_inherit,
                (const char *[]){"HOME", "_x", "Path2", "LC_ALL", NULL});
    assert_false(w->env_inherit_all);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t n = 0, refused;
        while (n < 3 && bad[i][n])
            n++;
        refused = n == 0 ? 0 : n - 1;
        assert_einval(
            sked_workflow_set_env_inherit(w, true, bad[i], n, &err), &err,
            (snprintf(field, sizeof field, "env_inherit[%zu]", refused),
             field));
        assert_strv(w->env_inherit,
                    (const char *[]){"HOME", "_x", "Path2", "LC_ALL", NULL});
        assert_false(w->env_inherit_all);
    }
    assert_non_null(strstr(err.msg, "env_inherit[0]"));
    memset(name129, 'A', 129);
    name129[129] = '\0';
    assert_einval(sked_workflow_set_env_inherit(
                      w, false, (const char *[]){name129}, 1, &err),
                  &err, "env_inherit[0]");
    name129[128] = '\0';
    assert_int_equal(sked_workflow_set_env_inherit(
                         w, false, (const char *[]){name129}, 1, &err),
                     0);
    assert_int_equal(sked_workflow_set_env_inherit(w, true, NULL, 0, &err), 0);
    assert_true(w->env_inherit_all);
    assert_null(w->env_inherit);
    assert_einval(sked_workflow_set_env_inherit(w, false, NULL, 2, &err), &err,
                  "env_inherit");
    sked_workflow_free(w);
}

static void test_add_schedule(void **state)
{
    sked_workflow *w = wf_new("report");
    sked_schedule s;

    (void) state;
    sked_schedule_init(&s);
    s.kind = SKED_SPEC_EVERY;
    s.every = 3600 * SEC;
    s.workflow = strdup("elsewhere");
    s.timezone = strdup("Europe/Paris");
    assert_int_equal(sked_workflow_add_schedule(w, &s, NULL), 0);
    /* Copied: the caller's schedule is its own. */
    sked_schedule_done(&s);
    s.kind = SKED_SPEC_CRON;
    s.cron = strdup("0 9 * * 1-5");
    s.name = strdup("weekdays");
    s.source = SKED_SOURCE_API;
    assert_int_equal(sked_workflow_add_schedule(w, &s, NULL), 0);
    sked_schedule_done(&s);

    assert_int_equal(w->nschedules, 2);
    /* The workflow is always W; the name defaults to W's name. */
    assert_string_equal(w->schedules[0].workflow, "report");
    assert_string_equal(w->schedules[0].name, "report");
    assert_int_equal(w->schedules[0].kind, SKED_SPEC_EVERY);
    assert_true(w->schedules[0].every == 3600 * SEC);
    assert_string_equal(w->schedules[0].timezone, "Europe/Paris");
    /* Declared in code: synced at start (SPEC 3.5). */
    assert_int_equal(w->schedules[0].source, SKED_SOURCE_CODE);
    assert_string_equal(w->schedules[1].workflow, "report");
    assert_string_equal(w->schedules[1].name, "weekdays");
    assert_string_equal(w->schedules[1].cron, "0 9 * * 1-5");
    assert_int_equal(w->schedules[1].source, SKED_SOURCE_CODE);
    sked_workflow_free(w);
}

/* ---- the version hash ---------------------------------------------------- */

enum variant {
    V_BASE,
    V_STEP_ADDED,
    V_STEP_RENAMED,
    V_STEPS_SWAPPED,
    V_NEED_DROPPED,
    V_ATTEMPTS,
    V_BACKOFF,
    V_MULTIPLIER,
    V_JITTER,
    V_RETRY_ON,
    V_STEP_TIMEOUT,
    V_COMPENSATE,
    V_TIMEOUT,
    V_TIMEOUT_SOFT,
    V_TIMEOUT_NOT_HARD,
    V_PARALLELISM,
    V_QUEUE,
    V_NAME,
    V_ENV_ALL,
    V_ENV_NAMES,
    V_COUNT,
    V_OTHER_FN = V_COUNT, /* the same shape with other functions */
};

/* The sealed version of the base workflow changed as V says (owned). */
static char *version_of(enum variant v)
{
    sked_workflow *w = wf_new(v == V_NAME ? "wf2" : "wf");
    const char *needs_a[] = {"a"};
    int32_t codes[] = {3};
    sked_step_fn fn = v == V_OTHER_FN ? other : noop;
    sked_step_options ob = {
        .needs = needs_a,
        .nneeds = v == V_NEED_DROPPED ? 0 : 1,
        .timeout = v == V_STEP_TIMEOUT ? 2 * MIN : MIN,
        .retry = {.attempts = v == V_ATTEMPTS ? 4 : 3,
                  .backoff = v == V_BACKOFF ? 11 * SEC : 10 * SEC,
                  .multiplier = v == V_MULTIPLIER ? 3 : 2,
                  .jitter = v == V_JITTER,
                  .retry_on = codes,
                  .nretry_on = v == V_RETRY_ON ? 1 : 0},
        .compensate = v == V_COMPENSATE ? fn : NULL,
    };

    if (v == V_STEPS_SWAPPED) {
        ob.nneeds = 0;
        assert_int_equal(sked_workflow_add_step(w, "b", fn, &ob, NULL), 0);
        assert_int_equal(sked_workflow_add_step(w, "a", fn, NULL, NULL), 0);
    } else {
        assert_int_equal(sked_workflow_add_step(w, "a", fn, NULL, NULL), 0);
        assert_int_equal(
            sked_workflow_add_step(w, v == V_STEP_RENAMED ? "b2" : "b", fn, &ob,
                                   NULL),
            0);
    }
    if (v == V_STEP_ADDED)
        assert_int_equal(sked_workflow_add_step(w, "c", fn, NULL, NULL), 0);
    assert_int_equal(sked_workflow_set_timeout(
                         w, v == V_TIMEOUT ? 601 * SEC : 600 * SEC,
                         v != V_TIMEOUT_SOFT, v != V_TIMEOUT_NOT_HARD, NULL),
                     0);
    assert_int_equal(
        sked_workflow_set_parallelism(w, v == V_PARALLELISM ? 3 : 2, NULL), 0);
    if (v == V_QUEUE)
        assert_int_equal(sked_workflow_set_queue(w, "q2", NULL), 0);
    if (v == V_ENV_ALL)
        assert_int_equal(sked_workflow_set_env_inherit(w, true, NULL, 0, NULL),
                         0);
    if (v == V_ENV_NAMES)
        assert_int_equal(sked_workflow_set_env_inherit(
                             w, false, (const char *[]){"HOME"}, 1, NULL),
                         0);
    assert_int_equal(sked__workflow_seal(w), 0);
    assert_false(w->version_given);
    char *s = strdup(w->version);
    sked_workflow_free(w);
    return s;
}

static void test_version_hash(void **state)
{
    char *v[V_COUNT];

    (void) state;
    for (int i = 0; i < V_COUNT; i++) {
        v[i] = version_of((enum variant) i);
        /* 48 bits of FNV-1a, as 12 hex digits. */
        assert_int_equal(strlen(v[i]), 12);
        assert_int_equal(strspn(v[i], "0123456789abcdef"), 12);
    }
    /* The same definition, built again, has the same version: two servers
     * agree without talking. */
    char *again = version_of(V_BASE);
    assert_string_equal(again, v[V_BASE]);
    /* Pinned: versions are stored, and a change of the hash would make
     * every stored version unknown to the servers. */
    assert_string_equal(v[V_BASE], "1d41763fb44c");
    assert_string_equal(v[V_JITTER], "11cc22530487");
    free(again);
    /* A C step's function is not part of its shape. */
    char *fn = version_of(V_OTHER_FN);
    assert_string_equal(fn, v[V_BASE]);
    free(fn);
    /* Every change of shape gives a version of its own. */
    for (int i = 0; i < V_COUNT; i++)
        for (int k = i + 1; k < V_COUNT; k++)
            if (strcmp(v[i], v[k]) == 0)
                fail_msg("variants %d and %d share version %s", i, k, v[i]);
    for (int i = 0; i < V_COUNT; i++)
        free(v[i]);
}

static void test_version_given(void **state)
{
    sked_workflow *w = wf_new("wf");

    (void) state;
    assert_int_equal(sked_workflow_add_step(w, "a", noop, NULL, NULL), 0);
    assert_int_equal(sked_workflow_set_version(w, "v7", NULL), 0);
    assert_int_equal(sked__workflow_seal(w), 0);
    assert_string_equal(w->version, "v7");
    assert_true(w->version_given);
    sked_workflow_free(w);
    /* Sealing twice keeps the first hash. */
    w = wf_new("wf");
    assert_int_equal(sked_workflow_add_step(w, "a", noop, NULL, NULL), 0);
    assert_int_equal(sked__workflow_seal(w), 0);
    char *first = strdup(w->version);
    assert_int_equal(sked__workflow_seal(w), 0);
    assert_string_equal(w->version, first);
    free(first);
    sked_workflow_free(w);
}

/* ---- JSON ---------------------------------------------------------------- */

static json_t *json_of(const sked_workflow *w)
{
    char *s = sked__workflow_json(w);
    json_error_t e;

    assert_non_null(s);
    json_t *o = json_loads(s, 0, &e);
    if (!o)
        fail_msg("not JSON: %s: %s", e.text, s);
    free(s);
    return o;
}

static const char *jstr(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_string(v))
        fail_msg("%s: not a string", key);
    return json_string_value(v);
}

static void test_json(void **state)
{
    sked_workflow *w = wf_new("wf");
    const char *needs_a[] = {"a"};
    int32_t codes[] = {2, 3};

    (void) state;
    assert_int_equal(sked_workflow_add_step(w, "a", noop, NULL, NULL), 0);
    assert_int_equal(sked_workflow_add_step(
                         w, "b", noop,
                         &(sked_step_options){.needs = needs_a,
                                              .nneeds = 1,
                                              .timeout = 90 * SEC,
                                              .retry = {.attempts = 3,
                                                        .backoff = 1500000,
                                                        .multiplier = 2,
                                                        .retry_on = codes,
                                                        .nretry_on = 2},
                                              .compensate = noop},
                         NULL),
                     0);
    assert_int_equal(sked_workflow_set_timeout(w, 600 * SEC, false, true, NULL),
                     0);
    assert_int_equal(sked_workflow_set_parallelism(w, 2, NULL), 0);

    json_t *o = json_of(w);
    assert_string_equal(jstr(o, "name"), "wf");
    assert_string_equal(jstr(o, "queue"), "default");
    assert_int_equal(json_integer_value(json_object_get(o, "parallelism")), 2);
    json_t *t = json_object_get(o, "timeout");
    assert_true(json_real_value(json_object_get(t, "seconds")) == 600.0);
    assert_true(json_is_false(json_object_get(t, "fail_workflow")));
    assert_true(json_is_true(json_object_get(t, "hard")));
    /* No version before sealing. */
    assert_null(json_object_get(o, "version"));
    json_t *steps = json_object_get(o, "steps");
    assert_int_equal(json_array_size(steps), 2);
    json_t *a = json_array_get(steps, 0), *b = json_array_get(steps, 1);
    assert_string_equal(jstr(a, "name"), "a");
    assert_string_equal(jstr(a, "kind"), "fn");
    assert_int_equal(json_array_size(json_object_get(a, "needs")), 0);
    assert_null(json_object_get(a, "compensate"));
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(a, "retry"), "attempts")),
                     1);
    assert_string_equal(jstr(b, "name"), "b");
    assert_string_equal(jstr(b, "kind"), "fn");
    assert_string_equal(
        json_string_value(json_array_get(json_object_get(b, "needs"), 0)), "a");
    assert_true(json_real_value(json_object_get(b, "timeout_secs")) == 90.0);
    json_t *r = json_object_get(b, "retry");
    assert_int_equal(json_integer_value(json_object_get(r, "attempts")), 3);
    assert_true(json_real_value(json_object_get(r, "backoff_secs")) == 1.5);
    assert_true(json_real_value(json_object_get(r, "multiplier")) == 2.0);
    assert_int_equal(
        json_integer_value(json_array_get(json_object_get(r, "retry_on"), 1)),
        3);
    assert_string_equal(jstr(json_object_get(b, "compensate"), "kind"), "fn");
    json_decref(o);
    /* Sealed, it carries its version. */
    assert_int_equal(sked__workflow_seal(w), 0);
    o = json_of(w);
    assert_string_equal(jstr(o, "version"), w->version);
    json_decref(o);
    sked_workflow_free(w);
}

/* ---- the workflows file -------------------------------------------------- */

/* Notify names a later step in its needs: the file allows any order
 * that is a DAG. */
static const char loader_yaml[] =
    "queues:\n"
    "  reports: {concurrency: 2}\n"
    "workflows:\n"
    "  report:\n"
    "    queue: reports\n"
    "    version: \"7\"\n"
    "    timeout: {seconds: 600, hard: false, fail_workflow: false}\n"
    "    parallelism: 4\n"
    "    steps:\n"
    "      - name: notify\n"
    "        needs: [extract]\n"
    "        http:\n"
    "          method: POST\n"
    "          url: http://127.0.0.1:9000/hook\n"
    "          headers: {X-Kind: report, Authorization: Bearer t0k}\n"
    "          body: '{\"ok\":true}'\n"
    "          expect: [200, 204]\n"
    "      - name: extract\n"
    "        run: [/usr/local/bin/extract, --day, yesterday]\n"
    "        env: {REPORT_DIR: /var/reports, MODE: fast=1}\n"
    "        cwd: /var/reports\n"
    "        user: nobody\n"
    "        timeout: 5m\n"
    "        kill_grace: 3s\n"
    "        retry: {attempts: 3, backoff: 10s, multiplier: 2,"
    " max_backoff: 2m, jitter: true, retry_on: [1, 75]}\n"
    "        compensate:\n"
    "          sh: rm -f /var/reports/partial\n"
    "          env: {A: b}\n"
    "          timeout: 1m\n"
    "          retry: {attempts: 2}\n"
    "      - name: settle\n"
    "        needs: [notify]\n"
    "        sleep: 30s\n"
    "      - name: shell\n"
    "        needs: [settle, extract]\n"
    "        sh: du -sh /var/reports\n"
    "        compensate: {http: {url: http://127.0.0.1:9000/undo}}\n"
    "    schedules:\n"
    "      - cron: \"0 9 * * 1-5\"\n"
    "        timezone: Europe/Paris\n"
    "  elsewhere:\n"
    "    schedules:\n"
    "      - every: 6h\n"
    "  plain:\n"
    "    steps:\n"
    "      - name: only\n"
    "        sh: \"true\"\n";

static void parse(const char *yaml, sked_wf_file *f)
{
    sked_wf_error e = {0};

    if (sked__workflow_file_parse(yaml, strlen(yaml), tzdb, f, &e) != 0)
        fail_msg("%d:%d: %s: %s", e.line, e.column, e.path, e.msg);
}

static void load(const char *yaml, sked_workflow ***list, size_t *n)
{
    sked_wf_file f;
    sked_error err = {0};

    parse(yaml, &f);
    if (sked__workflows_from_file(&f, list, n, &err) != 0)
        fail_msg("%s: %s", err.field, err.msg);
    /* The definitions own their strings: they outlive the file. */
    sked__workflow_file_done(&f);
}

static void assert_strv(char *const *v, const char *const *want)
{
    size_t i = 0;

    assert_non_null(v);
    for (; want[i]; i++) {
        assert_non_null(v[i]);
        assert_string_equal(v[i], want[i]);
    }
    assert_null(v[i]);
}

static void check_report_steps(const sked_workflow *w)
{
    const sked_action *a;

    assert_int_equal(w->nsteps, 4);
    /* notify: http, needing the step after it. */
    a = &w->steps[0].act;
    assert_string_equal(w->steps[0].name, "notify");
    assert_int_equal(a->kind, SKED_ACTION_HTTP);
    assert_string_equal(a->method, "POST");
    assert_string_equal(a->url, "http://127.0.0.1:9000/hook");
    assert_int_equal(a->nheaders, 2);
    assert_string_equal(a->headers[0], "X-Kind: report");
    assert_string_equal(a->headers[1], "Authorization: Bearer t0k");
    assert_string_equal(a->body, "{\"ok\":true}");
    assert_int_equal(a->nexpect, 2);
    assert_int_equal(a->expect[0], 200);
    assert_int_equal(a->expect[1], 204);
    assert_null(a->argv);
    assert_null(a->env);
    assert_null(w->steps[0].compensate);
    assert_int_equal(w->steps[0].nneeds, 1);
    assert_int_equal(w->steps[0].needs[0], 1);

    /* extract: argv, env, cwd, user, limits, retries, a compensation. */
    a = &w->steps[1].act;
    assert_string_equal(w->steps[1].name, "extract");
    assert_int_equal(a->kind, SKED_ACTION_EXEC);
    assert_strv(a->argv, (const char *[]){"/usr/local/bin/extract", "--day",
                                          "yesterday", NULL});
    assert_strv(a->env, (const char *[]){"REPORT_DIR=/var/reports",
                                         "MODE=fast=1", NULL});
    assert_string_equal(a->cwd, "/var/reports");
    assert_string_equal(a->user, "nobody");
    assert_null(a->sh);
    assert_null(a->url);
    assert_true(a->timeout == 5 * MIN);
    assert_true(a->kill_grace == 3 * SEC);
    assert_true(a->sleep == 0);
    assert_int_equal(a->retry.attempts, 3);
    assert_true(a->retry.backoff == 10 * SEC);
    assert_true(a->retry.multiplier == 2.0);
    assert_true(a->retry.max_backoff == 2 * MIN);
    assert_true(a->retry.jitter);
    assert_int_equal(a->retry.nretry_on, 2);
    assert_int_equal(a->retry.retry_on[0], 1);
    assert_int_equal(a->retry.retry_on[1], 75);
    assert_int_equal(w->steps[1].nneeds, 0);
    const sked_action *c = w->steps[1].compensate;
    assert_non_null(c);
    assert_int_equal(c->kind, SKED_ACTION_SH);
    assert_string_equal(c->sh, "rm -f /var/reports/partial");
    assert_strv(c->env, (const char *[]){"A=b", NULL});
    assert_true(c->timeout == MIN);
    assert_int_equal(c->retry.attempts, 2);
    assert_true(c->retry.multiplier == 1.0);
    assert_null(c->retry.retry_on);

    /* settle: a durable sleep. */
    a = &w->steps[2].act;
    assert_int_equal(a->kind, SKED_ACTION_SLEEP);
    assert_true(a->sleep == 30 * SEC);
    assert_int_equal(w->steps[2].nneeds, 1);
    assert_int_equal(w->steps[2].needs[0], 0);

    /* shell: /bin/sh -c, two needs in the order written; an http
     * compensation with the default method. */
    a = &w->steps[3].act;
    assert_int_equal(a->kind, SKED_ACTION_SH);
    assert_string_equal(a->sh, "du -sh /var/reports");
    assert_null(a->argv);
    assert_int_equal(w->steps[3].nneeds, 2);
    assert_int_equal(w->steps[3].needs[0], 2);
    assert_int_equal(w->steps[3].needs[1], 1);
    c = w->steps[3].compensate;
    assert_non_null(c);
    assert_int_equal(c->kind, SKED_ACTION_HTTP);
    assert_null(c->method);
    assert_string_equal(c->url, "http://127.0.0.1:9000/undo");
    assert_int_equal(c->nheaders, 0);
    assert_int_equal(c->nexpect, 0);
    assert_null(c->body);
}

/* env_inherit from a file reaches the definition, and its hash. */
static void test_load_env_inherit(void **state)
{
    sked_workflow **list = NULL;
    size_t n = 0;

    (void) state;
    load("workflows:\n"
         "  none:\n    steps: [{name: a, sh: x}]\n"
         "  all:\n    env_inherit: true\n    steps: [{name: a, sh: x}]\n"
         "  off:\n    env_inherit: false\n    steps: [{name: a, sh: x}]\n"
         "  some:\n    env_inherit: [HOME, DATABASE_URL]\n"
         "    steps: [{name: a, sh: x}]\n",
         &list, &n);
    assert_int_equal(n, 4);
    assert_false(list[0]->env_inherit_all);
    assert_null(list[0]->env_inherit);
    assert_true(list[1]->env_inherit_all);
    assert_false(list[2]->env_inherit_all);
    assert_null(list[2]->env_inherit);
    assert_false(list[3]->env_inherit_all);
    assert_strv(list[3]->env_inherit,
                (const char *[]){"HOME", "DATABASE_URL", NULL});
    sked__workflows_free(list, n);
    /* Asking for nothing is the same definition as saying nothing: the
     * version of a workflow that inherits nothing is what it was before
     * env_inherit existed. */
    char *v[4];
    const char *ask[4] = {"", "    env_inherit: false\n",
                          "    env_inherit: true\n",
                          "    env_inherit: [HOME]\n"};
    for (int i = 0; i < 4; i++) {
        char yaml[256];
        snprintf(yaml, sizeof yaml,
                 "workflows:\n  w:\n%s    steps: [{name: a, sh: x}]\n", ask[i]);
        load(yaml, &list, &n);
        v[i] = strdup(list[0]->version);
        sked__workflows_free(list, n);
    }
    assert_string_equal(v[0], v[1]);
    assert_string_not_equal(v[0], v[2]);
    assert_string_not_equal(v[0], v[3]);
    assert_string_not_equal(v[2], v[3]);
    for (int i = 0; i < 4; i++)
        free(v[i]);
}

static void test_load(void **state)
{
    sked_workflow **list = NULL;
    size_t n = 0;

    (void) state;
    load(loader_yaml, &list, &n);
    /* "elsewhere" has only schedules: its steps live in a C program. */
    assert_int_equal(n, 2);

    const sked_workflow *w = list[0];
    assert_string_equal(w->name, "report");
    assert_string_equal(w->queue, "reports");
    assert_string_equal(w->version, "7");
    assert_true(w->version_given);
    assert_true(w->timeout == 600 * SEC);
    assert_false(w->hard);
    assert_false(w->fail_workflow);
    assert_int_equal(w->parallelism, 4);
    /* The file's schedules are applied by the store, not carried here. */
    assert_int_equal(w->nschedules, 0);
    check_report_steps(w);

    /* Everything left out takes its default. */
    w = list[1];
    assert_string_equal(w->name, "plain");
    assert_string_equal(w->queue, "default");
    assert_false(w->version_given);
    assert_int_equal(strlen(w->version), 12);
    assert_true(w->timeout == 0);
    assert_true(w->hard && w->fail_workflow);
    assert_int_equal(w->parallelism, 1);
    assert_int_equal(w->nsteps, 1);
    const sked_action *a = &w->steps[0].act;
    assert_int_equal(a->kind, SKED_ACTION_SH);
    assert_string_equal(a->sh, "true");
    assert_null(a->env);
    assert_null(a->cwd);
    assert_null(a->user);
    assert_true(a->timeout == 0 && a->kill_grace == 0);
    assert_int_equal(a->retry.attempts, 1);
    assert_true(a->retry.multiplier == 1.0);
    assert_true(a->retry.backoff == 0 && a->retry.max_backoff == 0);
    assert_false(a->retry.jitter);
    assert_int_equal(a->retry.nretry_on, 0);
    assert_null(w->steps[0].compensate);
    assert_int_equal(w->steps[0].nneeds, 0);
    sked__workflows_free(list, n);
}

static void test_load_json_kinds(void **state)
{
    sked_workflow **list = NULL;
    size_t n = 0;

    (void) state;
    load(loader_yaml, &list, &n);
    json_t *o = json_of(list[0]);
    json_t *steps = json_object_get(o, "steps");
    assert_string_equal(jstr(o, "version"), "7");
    assert_int_equal(json_array_size(steps), 4);
    json_t *s0 = json_array_get(steps, 0), *s1 = json_array_get(steps, 1),
           *s2 = json_array_get(steps, 2), *s3 = json_array_get(steps, 3);
    assert_string_equal(jstr(s0, "kind"), "http");
    assert_string_equal(jstr(s0, "method"), "POST");
    assert_string_equal(
        json_string_value(json_array_get(json_object_get(s0, "headers"), 0)),
        "X-Kind: report");
    assert_string_equal(
        json_string_value(json_array_get(json_object_get(s0, "needs"), 0)),
        "extract");
    assert_string_equal(jstr(s1, "kind"), "run");
    assert_string_equal(
        json_string_value(json_array_get(json_object_get(s1, "run"), 2)),
        "yesterday");
    assert_string_equal(jstr(s1, "cwd"), "/var/reports");
    assert_string_equal(jstr(json_object_get(s1, "compensate"), "kind"), "sh");
    assert_true(json_real_value(json_object_get(s1, "kill_grace_secs")) == 3.0);
    assert_string_equal(jstr(s2, "kind"), "sleep");
    assert_true(json_real_value(json_object_get(s2, "sleep_secs")) == 30.0);
    assert_string_equal(jstr(s3, "kind"), "sh");
    /* An http action without a method is a GET. */
    assert_string_equal(jstr(json_object_get(s3, "compensate"), "method"),
                        "GET");
    json_decref(o);
    sked__workflows_free(list, n);
}

/* The version of a file's workflow is a hash of what it does. */
static void test_load_version(void **state)
{
    static const char base[] = "workflows:\n"
                               "  w:\n"
                               "    steps:\n"
                               "      - name: a\n"
                               "        run: [/bin/echo, one]\n";
    static const char changed[] = "workflows:\n"
                                  "  w:\n"
                                  "    steps:\n"
                                  "      - name: a\n"
                                  "        run: [/bin/echo, two]\n";
    /* Whitespace and flow style are not the definition. */
    static const char restyled[] = "workflows:\n"
                                   "  w: {steps: [{name: a,"
                                   " run: [\"/bin/echo\", one]}]}\n";
    sked_workflow **l1, **l2, **l3;
    size_t n1, n2, n3;

    (void) state;
    load(base, &l1, &n1);
    load(changed, &l2, &n2);
    load(restyled, &l3, &n3);
    assert_int_equal(n1, 1);
    assert_string_not_equal(l1[0]->version, l2[0]->version);
    assert_string_equal(l1[0]->version, l3[0]->version);
    sked__workflows_free(l1, n1);
    sked__workflows_free(l2, n2);
    sked__workflows_free(l3, n3);
}

static void test_load_only_schedules(void **state)
{
    sked_workflow **list = NULL;
    size_t n = 99;

    (void) state;
    load("workflows:\n"
         "  cleanup:\n"
         "    schedules:\n"
         "      - every: 6h\n",
         &list, &n);
    assert_int_equal(n, 0);
    sked__workflows_free(list, n);
    load("schedules:\n  - {workflow: w, every: 1h}\n", &list, &n);
    assert_int_equal(n, 0);
    sked__workflows_free(list, n);
}

/* The file refuses, with its line and key, what the builder would: the
 * limits of the definitions (src/model/workflow.h) are the file's too. */
static void test_load_limits(void **state)
{
    static const struct {
        const char *yaml, *path;
    } cases[] = {
        {"workflows:\n  w:\n    parallelism: 65\n"
         "    steps: [{name: a, sh: x}]\n",
         "workflows.w.parallelism"},
        {"workflows:\n  w:\n    steps:\n"
         "      - {name: a, sh: x, retry: {attempts: 101}}\n",
         "workflows.w.steps[0].retry.attempts"},
        {"workflows:\n  w:\n    steps:\n"
         "      - {name: a, sh: x, compensate: {sh: y, retry: {attempts: "
         "101}}}\n",
         "workflows.w.steps[0].compensate.retry.attempts"},
    };
    sked_wf_file f;
    sked_wf_error e;

    (void) state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        memset(&e, 0, sizeof e);
        int rc = sked__workflow_file_parse(cases[i].yaml, strlen(cases[i].yaml),
                                           tzdb, &f, &e);
        if (rc != SKED_EINVAL || strcmp(e.path, cases[i].path) != 0)
            fail_msg("case %zu: rc %d path \"%s\": %s", i, rc, e.path, e.msg);
        assert_true(e.line > 0);
    }
    /* The largest values allowed load. */
    sked_workflow **list;
    size_t n;
    load("workflows:\n  w:\n    parallelism: 64\n"
         "    steps: [{name: a, sh: x, retry: {attempts: 100}}]\n",
         &list, &n);
    assert_int_equal(list[0]->parallelism, 64);
    assert_int_equal(list[0]->steps[0].act.retry.attempts, 100);
    sked__workflows_free(list, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_workflow_names),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_step_names),
        cmocka_unit_test(test_step_needs),
        cmocka_unit_test(test_step_options_refused),
        cmocka_unit_test(test_step_options_kept),
        cmocka_unit_test(test_workflow_settings),
        cmocka_unit_test(test_add_schedule),
        cmocka_unit_test(test_version_hash),
        cmocka_unit_test(test_version_given),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_load_json_kinds),
        cmocka_unit_test(test_load_version),
        cmocka_unit_test(test_load_only_schedules),
        cmocka_unit_test(test_load_limits),
        cmocka_unit_test(test_env_inherit),
        cmocka_unit_test(test_load_env_inherit),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
