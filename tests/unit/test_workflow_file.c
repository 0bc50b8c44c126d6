/* SPDX-License-Identifier: MIT */
/* Tests of the workflows file reader (SPEC 10): tables of YAML snippets
 * with the error each must give (code, line, column, path, message) or
 * the values each must read, and the example of SPEC 10 read whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine/workflow_file.h"
#include "model/notifier.h"
#include "sked/sked.h"

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

/* ---- errors ------------------------------------------------------------- */

static const struct bad_case {
    const char *yaml;
    int code, line, column;
    const char *path;
    const char *msg; /* a part of the message */
} bad_cases[] = {
    /* YAML itself */
    {"a: [\n", SKED_ESYNTAX, 2, 1, "", "closing bracket"},
    {"a: 1\na: 2\n", SKED_ESYNTAX, 2, 1, "", "duplicate key"},
    {"- 1\n", SKED_EINVAL, 1, 3, "", "expected a mapping, found a list"},
    {"a: 1\nb: \x01\n", SKED_ESYNTAX, 2, 4, "", "control character 0x01"},
    {"a: é\x7f\n", SKED_ESYNTAX, 1, 5, "", "control character 0x7f"},
    {"a: 1\n%x\xe0# \n", SKED_ESYNTAX, 2, 3, "", "invalid UTF-8 (byte 0xe0)"},
    {"a: \xc0\xaf\n", SKED_ESYNTAX, 1, 4, "", "invalid UTF-8"},
    {"a: \xed\xa0\x80\n", SKED_ESYNTAX, 1, 4, "", "invalid UTF-8"},
    {"a: \xf4\x90\x80\x80\n", SKED_ESYNTAX, 1, 4, "", "invalid UTF-8"},
    {"a: &x 1\nb: *x\n", SKED_EINVAL, 2, 5, "", "aliases are not supported"},
    /* Issue 14: tags are refused, not ignored; one document only. */
    {"queues:\n  q: !!map {}\n", SKED_EINVAL, 2, 6, "", "tags"},
    {"queues: !custom\n  q: {}\n", SKED_EINVAL, 1, 9, "", "tags"},
    {"schedules:\n  - name: !!str a\n", SKED_EINVAL, 2, 11, "", "tags"},
    {"schedules: !!seq []\n", SKED_EINVAL, 1, 12, "", "tags"},
    {"schedules:\n  - every: !<tag:yaml.org,2002:str> 1h\n", SKED_EINVAL, 2, 12,
     "", "tags"},
    {"queues: {}\n---\nqueues: {}\n", SKED_EINVAL, 2, 1, "",
     "a second YAML document"},
    {"---\nqueues: {}\n...\n---\n", SKED_EINVAL, 4, 1, "",
     "a second YAML document"},
    {"---\n---\n", SKED_EINVAL, 2, 1, "", "a second YAML document"},
    /* unknown keys, with suggestions */
    {"queue: {}\n", SKED_EINVAL, 1, 1, "queue",
     "unknown key (did you mean \"queues\"?)"},
    {"version: 1\n", SKED_EINVAL, 1, 1, "version", "unknown key"},
    {"schedules:\n  - workflow: w\n    every: 1h\n    timezon: UTC\n",
     SKED_EINVAL, 4, 5, "schedules[0].timezon",
     "unknown key (did you mean \"timezone\"?)"},
    {"queues:\n  q: {concurency: 2}\n", SKED_EINVAL, 2, 7,
     "queues.q.concurency", "did you mean \"concurrency\"?"},
    {"workflows:\n  w:\n    steps:\n      - name: a\n        sh: x\n"
     "        retry: {attempt: 3}\n",
     SKED_EINVAL, 6, 17, "workflows.w.steps[0].retry.attempt",
     "did you mean \"attempts\"?"},
    /* types */
    {"schedules: {}\n", SKED_EINVAL, 1, 1, "schedules",
     "expected a list, found a mapping"},
    {"schedules:\n  - workflow: [w]\n    every: 1h\n", SKED_EINVAL, 2, 16,
     "schedules[0].workflow", "expected a string, found a list"},
    {"schedules:\n  - workflow: w\n    every: 1h\n    catchup_max: ten\n",
     SKED_EINVAL, 4, 5, "schedules[0].catchup_max", "expected a whole number"},
    {"schedules:\n  - workflow: w\n    every: 1h\n    catchup_max: \"5\"\n",
     SKED_EINVAL, 4, 5, "schedules[0].catchup_max", "quoted"},
    {"schedules:\n  - workflow: w\n    every: 1h\n    paused: yes\n",
     SKED_EINVAL, 4, 5, "schedules[0].paused", "expected true or false"},
    {"schedules:\n  - workflow: w\n    every: 1h\n    context: [1]\n",
     SKED_EINVAL, 4, 15, "schedules[0].context", "expected a mapping"},
    /* values, as sked_schedule_validate judges them */
    {"schedules:\n  - workflow: w\n    cron: \"0 9 * * *\"\n"
     "    timezone: Europe/Pariss\n",
     SKED_EINVAL, 4, 5, "schedules[0].timezone",
     "unknown time zone \"Europe/Pariss\""},
    {"schedules:\n  - workflow: w\n    cron: \"0 9 * *\"\n", SKED_EINVAL, 3, 5,
     "schedules[0].cron", "fields"},
    {"schedules:\n  - workflow: w\n    every: 1h\n    catchup_max: 1001\n",
     SKED_EINVAL, 4, 5, "schedules[0].catchup_max", "between 1 and 1000"},
    {"schedules:\n  - workflow: w\n    every: 1h\n    catchup_window: 59\n",
     SKED_EINVAL, 4, 5, "schedules[0].catchup_window", "between 60"},
    {"schedules:\n  - workflow: w\n    every: 1h\n    jitter: 2h\n",
     SKED_EINVAL, 4, 5, "schedules[0].jitter", "between 0 and 3600"},
    {"schedules:\n  - workflow: w\n    every: 0s\n", SKED_EINVAL, 3, 5,
     "schedules[0].every", "between 1"},
    {"schedules:\n  - workflow: w\n    every: 1 h\n", SKED_EINVAL, 3, 5,
     "schedules[0].every", "invalid duration"},
    {"schedules:\n  - workflow: w\n    at: 2026-12-01T09:00:00\n", SKED_EINVAL,
     3, 5, "schedules[0].at", "offset"},
    {"schedules:\n  - workflow: w\n    every: 1h\n    catchup: most\n",
     SKED_EINVAL, 4, 5, "schedules[0].catchup", "not one of"},
    {"schedules:\n  - workflow: w\n    every: 1h\n    overlap: never\n",
     SKED_EINVAL, 4, 5, "schedules[0].overlap", "not one of"},
    {"schedules:\n  - workflow: w\n    every: 1h\n    dst: twice\n",
     SKED_EINVAL, 4, 5, "schedules[0].dst", "once"},
    {"schedules:\n  - workflow: w\n    every: 1h\n"
     "    start_at: 2027-01-01T00:00:00Z\n    end_at: 2026-01-01T00:00:00Z\n",
     SKED_EINVAL, 5, 5, "schedules[0].end_at", "after start_at"},
    {"schedules:\n  - workflow: w\n    name: a b\n    every: 1h\n", SKED_EINVAL,
     3, 5, "schedules[0].name", "not a letter"},
    {"schedules:\n  - workflow: w/x\n    every: 1h\n", SKED_EINVAL, 2, 5,
     "schedules[0].workflow", "not a letter"},
    /* the shape of a schedule */
    {"schedules:\n  - workflow: w\n", SKED_EINVAL, 2, 5, "schedules[0]",
     "missing one of cron, every, at or rrule"},
    {"schedules:\n  - cron: \"0 9 * * *\"\n", SKED_EINVAL, 2, 5, "schedules[0]",
     "missing key \"workflow\""},
    {"schedules:\n  - workflow: w\n    at: 2026-12-01T09:00:00Z\n"
     "    anchor: 2026-01-01T00:00:00Z\n",
     SKED_EINVAL, 4, 5, "schedules[0].anchor", "needs \"every\""},
    {"schedules:\n  - {workflow: w, every: 1h}\n  - {workflow: w, at: "
     "2030-01-01T00:00:00Z}\n",
     SKED_EINVAL, 3, 6, "schedules[1]", "another schedule has this name"},
    {"workflows:\n  w:\n    schedules:\n      - workflow: v\n        every: "
     "1h\n",
     SKED_EINVAL, 4, 9, "workflows.w.schedules[0].workflow",
     "differs from the enclosing workflow"},
    /* workflows, steps and queues */
    {"workflows:\n  w: {}\n", SKED_EINVAL, 2, 3, "workflows.w",
     "needs \"steps\" or \"schedules\""},
    {"workflows:\n  bad name:\n    steps: []\n", SKED_EINVAL, 2, 3,
     "workflows.bad name", "only letters"},
    {"workflows:\n  w:\n    parallelism: 0\n    steps: []\n", SKED_EINVAL, 3, 5,
     "workflows.w.parallelism", "out of range"},
    {"workflows:\n  w:\n    steps:\n      - name: a\n", SKED_EINVAL, 4, 9,
     "workflows.w.steps[0]", "missing one of run, sh, http or sleep"},
    {"workflows:\n  w:\n    steps:\n      - sh: x\n", SKED_EINVAL, 4, 9,
     "workflows.w.steps[0]", "missing key \"name\""},
    {"workflows:\n  w:\n    steps:\n      - {name: a, sh: x}\n"
     "      - {name: a, sh: y}\n",
     SKED_EINVAL, 5, 10, "workflows.w.steps[1].name",
     "another step has this name"},
    {"workflows:\n  w:\n    steps:\n      - {name: a, sh: x, needs: [a]}\n",
     SKED_EINVAL, 4, 10, "workflows.w.steps", "cycle"},
    {"workflows:\n  w:\n    steps:\n      - {name: a, sh: x, needs: [b]}\n"
     "      - {name: b, sh: x, needs: [a]}\n",
     SKED_EINVAL, 4, 10, "workflows.w.steps", "cycle"},
    {"workflows:\n  w:\n    steps:\n      - {name: a, run: []}\n", SKED_EINVAL,
     4, 19, "workflows.w.steps[0].run", "the program"},
    {"workflows:\n  w:\n    steps:\n      - {name: a, http: {method: GET}}\n",
     SKED_EINVAL, 4, 19, "workflows.w.steps[0].http", "missing key \"url\""},
    {"workflows:\n  w:\n    steps:\n      - name: a\n        sh: x\n"
     "        compensate: {sleep: 1s}\n",
     SKED_EINVAL, 6, 22, "workflows.w.steps[0].compensate.sleep",
     "cannot sleep"},
    {"workflows:\n  w:\n    steps:\n      - {name: a, sleep: 0s}\n",
     SKED_EINVAL, 4, 19, "workflows.w.steps[0].sleep", "out of range"},
    {"workflows:\n  w:\n    steps:\n      - name: a\n        sh: x\n"
     "        retry: {retry_on: [1, 600]}\n",
     SKED_EINVAL, 6, 31, "workflows.w.steps[0].retry.retry_on[1]",
     "out of range"},
    {"workflows:\n  w:\n    steps:\n      - {name: a, sh: x, kill_grace: 0s}\n",
     SKED_EINVAL, 4, 26, "workflows.w.steps[0].kill_grace", "out of range"},
    /* env_inherit: true, false or names; never sked's own */
    {"workflows:\n  w:\n    env_inherit: [HOME, SKED_TOKEN]\n    steps: []\n",
     SKED_EINVAL, 3, 25, "workflows.w.env_inherit[1]",
     "sked's own variables (SKED_*) are never passed to steps"},
    {"workflows:\n  w:\n    env_inherit:\n      - SKED_DB\n    steps: []\n",
     SKED_EINVAL, 4, 9, "workflows.w.env_inherit[0]", "SKED_*"},
    {"workflows:\n  w:\n    env_inherit: [\"1X\"]\n    steps: []\n",
     SKED_EINVAL, 3, 20, "workflows.w.env_inherit[0]",
     "not starting with a digit"},
    {"workflows:\n  w:\n    env_inherit: [A=B]\n    steps: []\n", SKED_EINVAL,
     3, 19, "workflows.w.env_inherit[0]", "a variable name"},
    {"workflows:\n  w:\n    env_inherit: [\"\"]\n    steps: []\n", SKED_EINVAL,
     3, 20, "workflows.w.env_inherit[0]", "1 to 128 bytes"},
    {"workflows:\n  w:\n    env_inherit: [[A]]\n    steps: []\n", SKED_EINVAL,
     3, 20, "workflows.w.env_inherit[0]", "found a list"},
    {"workflows:\n  w:\n    env_inherit: all\n    steps: []\n", SKED_EINVAL, 3,
     5, "workflows.w.env_inherit", "expected true or false"},
    {"workflows:\n  w:\n    env_inherit: {A: 1}\n    steps: []\n", SKED_EINVAL,
     3, 19, "workflows.w.env_inherit", "expected true or false"},
    {"queues:\n  q: {rate_limit: {limit: 10}}\n", SKED_EINVAL, 2, 7,
     "queues.q.rate_limit", "both \"limit\" and \"period\""},
    {"queues:\n  q: {concurrency: -1}\n", SKED_EINVAL, 2, 7,
     "queues.q.concurrency", "out of range"},
    /* notifiers: the API's object, errors at the key they name */
    {"notifiers:\n  h:\n    webhook: {url: \"ftp://x\"}\n"
     "    events: [run.failed]\n",
     SKED_EINVAL, 3, 5, "notifiers.h.webhook", "webhook.url: an http://"},
    {"notifiers:\n  h:\n    webhook: {url: \"http://x\"}\n"
     "    events: [run.failed, run.started]\n",
     SKED_EINVAL, 4, 5, "notifiers.h.events", "events[1]: \"run.started\""},
    {"notifiers:\n  h:\n    webhook: {url: \"http://x\", secret_file: "
     "/no/such/secret}\n    events: [run.failed]\n",
     SKED_EINVAL, 3, 5, "notifiers.h.webhook", "cannot be read"},
    {"notifiers:\n  h:\n    command: {argv: [x]}\n    events: [run.failed]\n"
     "    colour: red\n",
     SKED_EINVAL, 5, 5, "notifiers.h.colour", "unknown key"},
    {"notifiers: [a]\n", SKED_EINVAL, 1, 13, "notifiers",
     "a mapping of names to notifiers"},
    {"notifiers:\n  \"a b\": {}\n", SKED_EINVAL, 2, 4, "notifiers.a b",
     "a name has only letters"},
};

static void test_errors(void **state)
{
    int failures = 0;

    (void) state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const struct bad_case *c = &bad_cases[i];
        sked_wf_file f;
        sked_wf_error e;
        int rc;

        rc = sked__workflow_file_parse(c->yaml, strlen(c->yaml), tzdb, &f, &e);
        if (rc != c->code || e.line != c->line || e.column != c->column ||
            strcmp(e.path, c->path) != 0 || !strstr(e.msg, c->msg)) {
            print_error("case %zu:\n%s\ngot %d %d:%d: %s: %s\n"
                        "want %d %d:%d: %s: ...%s...\n",
                        i, c->yaml, rc, e.line, e.column, e.path, e.msg,
                        c->code, c->line, c->column, c->path, c->msg);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

/* ---- values ------------------------------------------------------------- */

static void parse_ok(const char *yaml, sked_wf_file *f)
{
    sked_wf_error e;
    int rc = sked__workflow_file_parse(yaml, strlen(yaml), tzdb, f, &e);

    if (rc != 0) {
        print_error("%s\n%d:%d: %s: %s\n", yaml, e.line, e.column, e.path,
                    e.msg);
        fail();
    }
}

static void test_empty(void **state)
{
    static const char *const empties[] = {"", "# nothing\n", "---\n", "{}\n"};
    sked_wf_file f;

    (void) state;
    for (size_t i = 0; i < sizeof empties / sizeof empties[0]; i++) {
        parse_ok(empties[i], &f);
        assert_int_equal(f.n_schedules + f.n_workflows + f.n_queues, 0);
        sked__workflow_file_done(&f);
    }
}

static void test_schedule_values(void **state)
{
    sked_wf_file f;
    const sked_schedule *s;

    (void) state;
    parse_ok("schedules:\n"
             "  - name: full\n"
             "    workflow: w\n"
             "    every: 1h30m\n"
             "    anchor: 2026-01-01T00:00:00+01:00\n"
             "    timezone: Europe/Paris\n"
             "    dst: cadence\n"
             "    context: {a: 1, b: [true, null, \"x\"], c: 1.5, d: '7'}\n"
             "    catchup: skip\n"
             "    catchup_max: 7\n"
             "    catchup_window: 3600\n"
             "    overlap: buffer_all\n"
             "    priority: -3\n"
             "    queue: q\n"
             "    jitter: 1m\n"
             "    paused: true\n"
             "    automatic_backfill: false\n"
             "    start_at: 2026-01-01T00:00:00Z\n"
             "    end_at: 2027-01-01T00:00:00Z\n"
             "    max_runs: 12\n"
             "    pause_after_failures: 3\n"
             "    description: all of it\n",
             &f);
    assert_int_equal(f.n_schedules, 1);
    s = &f.schedules[0];
    assert_string_equal(s->name, "full");
    assert_int_equal(s->kind, SKED_SPEC_EVERY);
    assert_true(s->every == 5400 * SKED_USEC_PER_SEC);
    assert_true(s->anchor == INT64_C(1767222000) * SKED_USEC_PER_SEC);
    assert_int_equal(s->dst, SKED_DST_CADENCE);
    assert_string_equal(
        s->context, "{\"a\":1,\"b\":[true,null,\"x\"],\"c\":1.5,\"d\":\"7\"}");
    assert_int_equal(s->catchup, SKED_CATCHUP_SKIP);
    assert_int_equal(s->catchup_max, 7);
    assert_true(s->catchup_window == 3600 * SKED_USEC_PER_SEC);
    assert_int_equal(s->overlap, SKED_OVERLAP_BUFFER_ALL);
    assert_int_equal(s->priority, -3);
    assert_string_equal(s->queue, "q");
    assert_true(s->jitter == 60 * SKED_USEC_PER_SEC);
    assert_int_equal(s->status, SKED_SCHEDULE_PAUSED);
    assert_int_equal(s->source, SKED_SOURCE_CODE);
    assert_true(s->max_runs == 12);
    assert_int_equal(s->pause_after_failures, 3);
    assert_string_equal(s->description, "all of it");
    assert_int_equal(f.where[0].line, 2);
    assert_string_equal(f.where[0].path, "schedules[0]");
    sked__workflow_file_done(&f);
}

/* SPEC 10's example, word for word (tests/data/spec_workflows.yaml). */
static void test_spec_example(void **state)
{
    char path[512];
    sked_wf_file f;
    sked_wf_error e;
    const sked_wf_workflow *w;
    const sked_wf_step *st;

    (void) state;
    snprintf(path, sizeof path, "%s/spec_workflows.yaml", SKED_TEST_DATA);
    assert_int_equal(sked__workflow_file_load(path, tzdb, &f, &e), 0);
    assert_int_equal(f.n_queues, 1);
    assert_string_equal(f.queues[0].name, "reports");
    assert_int_equal(f.queues[0].concurrency, 2);
    assert_int_equal(f.queues[0].rate_limit, 10);
    assert_true(f.queues[0].rate_period == 60 * SKED_USEC_PER_SEC);
    assert_int_equal(f.n_workflows, 1);
    w = &f.workflows[0];
    assert_string_equal(w->name, "morning-report");
    assert_string_equal(w->version, "3");
    assert_true(w->timeout.seconds == 600 * SKED_USEC_PER_SEC);
    assert_true(w->timeout.hard && w->timeout.fail_workflow);
    assert_int_equal(w->parallelism, 4);
    assert_int_equal(w->n_steps, 4);
    st = &w->steps[0];
    assert_int_equal(st->a.kind, SKED_WF_ACTION_RUN);
    assert_int_equal(st->a.run.n, 3);
    assert_string_equal(st->a.run.v[2], "yesterday");
    assert_string_equal(st->a.env.v[0].key, "REPORT_DIR");
    assert_int_equal(st->a.retry.attempts, 3);
    assert_true(st->a.retry.multiplier == 2.0);
    assert_int_equal(st->a.retry.retry_on.n, 2);
    assert_int_equal(st->a.retry.retry_on.v[1], 75);
    assert_non_null(st->compensate);
    assert_int_equal(st->compensate->kind, SKED_WF_ACTION_RUN);
    assert_int_equal(w->steps[1].a.kind, SKED_WF_ACTION_HTTP);
    assert_string_equal(w->steps[1].a.http.method, "POST");
    assert_int_equal(w->steps[1].a.http.expect.v[1], 204);
    assert_string_equal(w->steps[1].needs.v[0], "extract");
    assert_int_equal(w->steps[2].a.kind, SKED_WF_ACTION_SLEEP);
    assert_true(w->steps[2].a.sleep == 30 * SKED_USEC_PER_SEC);
    assert_int_equal(w->steps[3].a.kind, SKED_WF_ACTION_SH);
    assert_int_equal(f.n_schedules, 3);
    assert_string_equal(f.schedules[0].name, "morning-report");
    assert_string_equal(f.schedules[0].workflow, "morning-report");
    assert_int_equal(f.schedules[0].catchup_max, 5);
    assert_true(f.schedules[0].catchup_window == 3 * 86400 * SKED_USEC_PER_SEC);
    assert_string_equal(f.schedules[1].context, "{\"weekend\":true}");
    assert_string_equal(f.schedules[2].workflow, "cleanup");
    assert_int_equal(f.schedules[2].kind, SKED_SPEC_EVERY);
    sked__workflow_file_done(&f);
}

/* examples/workflows.yaml, the one "sked server" runs out of the box:
 * it loads, and holds what the README says it shows (one workflow every
 * 10 s, one in a DST zone, one with retries and a timeout, one with
 * overlap skip, one started by hand). */
static void test_runnable_example(void **state)
{
    char path[512];
    sked_wf_file f;
    sked_wf_error e;
    const char *names[] = {"heartbeat", "nightly-dst", "morning-report",
                           "slow-sync", "webhook-demo"};

    (void) state;
    snprintf(path, sizeof path, "%s/../../examples/workflows.yaml",
             SKED_TEST_DATA);
    assert_int_equal(sked__workflow_file_load(path, tzdb, &f, &e), 0);
    assert_int_equal(f.n_workflows, 5);
    for (size_t i = 0; i < 5; i++) {
        assert_string_equal(f.workflows[i].name, names[i]);
        assert_true(f.workflows[i].n_steps > 0);
    }
    assert_true(f.schedules[0].every == 10 * SKED_USEC_PER_SEC);
    assert_string_equal(f.schedules[1].timezone, "Europe/Paris");
    assert_true(f.workflows[2].timeout.seconds > 0);
    assert_int_equal(f.workflows[2].steps[3].a.retry.attempts, 3);
    assert_int_equal(f.schedules[4].overlap, SKED_OVERLAP_SKIP);
    sked__workflow_file_done(&f);
}

/* The example: the API's object, read by the model's reader. */
static void test_notifiers(void **state)
{
    sked_wf_file f;

    (void) state;
    parse_ok("notifiers:\n"
             "  ops-hook:\n"
             "    webhook: {url: \"http://127.0.0.1:9000/hook\",\n"
             "              secret_env: HOOK_SECRET, headers: {X-A: b}}\n"
             "    events: [run.failed, schedule.deadline_missed]\n"
             "    schedules: [\"nightly-*\"]\n"
             "  mail:\n"
             "    email: {to: [ops@example.com]}\n"
             "    events: [schedule.paused]\n"
             "    retry_for: 2h\n",
             &f);
    assert_int_equal(f.n_notifiers, 2);
    assert_string_equal(f.notifiers[0].name, "ops-hook");
    assert_int_equal(f.notifiers[0].kind, SKED_NOTIFIER_WEBHOOK);
    assert_string_equal(f.notifiers[0].url, "http://127.0.0.1:9000/hook");
    assert_string_equal(f.notifiers[0].secret_env, "HOOK_SECRET");
    assert_string_equal(f.notifiers[0].headers.v[0], "X-A: b");
    assert_int_equal(f.notifiers[0].events.n, 2);
    assert_string_equal(f.notifiers[0].schedules.v[0], "nightly-*");
    assert_int_equal(f.notifiers[0].source, SKED_SOURCE_CODE);
    assert_int_equal(f.notifiers[1].kind, SKED_NOTIFIER_EMAIL);
    assert_int_equal(f.notifiers[1].retry_for, 2 * 3600 * SKED_USEC_PER_SEC);
    sked__workflow_file_done(&f);
}

static void test_error_format(void **state)
{
    sked_wf_error e = {.code = SKED_EINVAL, .line = 12, .column = 5};
    char buf[256];

    (void) state;
    snprintf(e.path, sizeof e.path, "schedules[0].timezone");
    snprintf(e.msg, sizeof e.msg, "unknown time zone \"Europe/Pariss\"");
    sked__workflow_file_error_format(&e, "workflows.yaml", buf, sizeof buf);
    assert_string_equal(buf, "workflows.yaml:12:5: schedules[0].timezone: "
                             "unknown time zone \"Europe/Pariss\"");
    e.line = 0;
    e.path[0] = '\0';
    sked__workflow_file_error_format(&e, "w.yaml", buf, sizeof buf);
    assert_string_equal(buf, "w.yaml: unknown time zone \"Europe/Pariss\"");
    sked__workflow_file_error_format(&e, "w.yaml", buf, 4);
    assert_string_equal(buf, "w.y");
}

/* A second document is named by its line wherever it starts. */
static void test_second_document_line(void **state)
{
    char yaml[1024];
    sked_wf_file f;
    sked_wf_error e;

    (void) state;
    for (int lines = 0; lines < 30; lines++) {
        size_t n = (size_t) snprintf(yaml, sizeof yaml, "queues:\n  q: {}\n");
        for (int i = 0; i < lines; i++)
            n += (size_t) snprintf(yaml + n, sizeof yaml - n, "# %d\n", i);
        snprintf(yaml + n, sizeof yaml - n, "---\nworkflows: {}\n");
        assert_int_equal(
            sked__workflow_file_parse(yaml, strlen(yaml), tzdb, &f, &e),
            SKED_EINVAL);
        assert_int_equal(e.line, 3 + lines);
        assert_non_null(strstr(e.msg, "second YAML document"));
    }
}

/* Issue 14: the step limit is reported at the first step past it, with
 * its line and column; a workflow at the limit is read. */
static void test_steps_limit_line(void **state)
{
    static char yaml[64 * 1024];
    sked_wf_file f;
    sked_wf_error e;

    (void) state;
    for (int n = 256; n <= 258; n++) {
        size_t len = (size_t) snprintf(yaml, sizeof yaml,
                                       "workflows:\n  w:\n    steps:\n");
        for (int i = 0; i < n; i++)
            len += (size_t) snprintf(yaml + len, sizeof yaml - len,
                                     "      - {name: s%d, sh: x}\n", i);
        int rc = sked__workflow_file_parse(yaml, len, tzdb, &f, &e);
        if (n == 256) {
            assert_int_equal(rc, 0);
            assert_int_equal(f.workflows[0].n_steps, 256);
            sked__workflow_file_done(&f);
            continue;
        }
        assert_int_equal(rc, SKED_ETOOBIG);
        assert_int_equal(e.line, 3 + 257);
        assert_int_equal(e.column, 10);
        assert_string_equal(e.path, "workflows.w.steps");
        assert_non_null(strstr(e.msg, "at most 256 steps"));
    }
}

/* A FIFO, a device or a directory given as the file is refused at once,
 * never read (a FIFO would block for ever, /dev/zero never end). */
static void test_not_a_regular_file(void **state)
{
    char dir[] = "/tmp/sked-wf-XXXXXX", fifo[64], file[64];
    const char *const paths[] = {fifo, "/dev/null", "/dev/zero", dir};
    const char *const kinds[] = {"a FIFO", "a device", "a device",
                                 "a directory"};
    sked_wf_file f;
    sked_wf_error e;
    FILE *fp;

    (void) state;
    assert_non_null(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/fifo.yaml", dir);
    snprintf(file, sizeof file, "%s/ok.yaml", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(sked__workflow_file_load(paths[i], tzdb, &f, &e),
                         SKED_EINVAL);
        if (!strstr(e.msg, kinds[i]) || !strstr(e.msg, "not a regular file"))
            fail_msg("%s: %s", paths[i], e.msg);
    }
    assert_non_null(fp = fopen(file, "w"));
    fputs("queues:\n  q: {}\n", fp);
    assert_int_equal(fclose(fp), 0);
    assert_int_equal(sked__workflow_file_load(file, tzdb, &f, &e), 0);
    assert_int_equal(f.n_queues, 1);
    sked__workflow_file_done(&f);
    (void) unlink(fifo);
    (void) unlink(file);
    (void) rmdir(dir);
}

static void test_limits(void **state)
{
    static char big[SKED_WF_FILE_MAX + 2];
    sked_wf_file f;
    sked_wf_error e;

    (void) state;
    memset(big, '#', sizeof big - 1);
    assert_int_equal(
        sked__workflow_file_parse(big, sizeof big - 1, tzdb, &f, &e),
        SKED_ETOOBIG);
    assert_int_equal(
        sked__workflow_file_load("/nonexistent/x.yaml", tzdb, &f, &e),
        SKED_EIO);
    assert_non_null(strstr(e.msg, "cannot open"));
    /* libfyaml 0.7 loops on a NUL in a directive: refused before it. */
    assert_int_equal(sked__workflow_file_parse("%--\0\0-", 6, tzdb, &f, &e),
                     SKED_ESYNTAX);
    assert_int_equal(e.line, 1);
    assert_int_equal(e.column, 4);
    sked__workflow_file_done(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_schedule_values),
        cmocka_unit_test(test_spec_example),
        cmocka_unit_test(test_runnable_example),
        cmocka_unit_test(test_error_format),
        cmocka_unit_test(test_notifiers),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_second_document_line),
        cmocka_unit_test(test_steps_limit_line),
        cmocka_unit_test(test_not_a_regular_file),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
