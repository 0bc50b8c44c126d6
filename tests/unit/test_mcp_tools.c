/* SPDX-License-Identifier: MIT */
/* Tests of the MCP server's tools, resources and prompts (src/mcp/
 * tools.c, resources.c, prompts.c) on a real engine over a SQLite file
 * in a temporary directory, through the API answered in the same process
 * (sked__http_call): what a client lists, each tool called with valid
 * input and with bad input (a tool error naming the field, nothing
 * changed), each result's structured content checked against the tool's
 * output schema, the resources listed and read, the prompts got. */
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

#include "base/error.h"
#include "engine/engine_int.h"
#include "engine/request.h"
#include "http/http.h"
#include "mcp/mcp_int.h"
#include "model/schedule_fields.h"
#include "sked/sked.h"

static char tmp_dir[256];
static sked_time vnow;
static sked_clock clock_;
static sked_engine *engine;
static mcp_ctx ctx;

static sked_time read_now(void *c)
{
    (void) c;
    return vnow;
}

static void remove_db(void)
{
    static const char *const ends[] = {"", "-wal", "-shm"};
    char path[400];

    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/mcp.db%s", tmp_dir, ends[i]);
        unlink(path);
    }
}

static int step_ok(sked_ctx *c, const char *in, char **out)
{
    (void) c;
    (void) in;
    *out = strdup("{\"rows\":3}");
    return 0;
}

static int step_fail(sked_ctx *c, const char *in, char **out)
{
    (void) in;
    (void) out;
    sked_ctx_fail(c, "the disk is full");
    return 3;
}

static void define(const char *name, sked_step_fn fn)
{
    sked_workflow *w = NULL;
    sked_step_options o = {0};
    sked_error err;

    assert_int_equal(sked_workflow_new(name, &w, NULL), 0);
    if (sked_workflow_add_step(w, "load", fn, &o, &err) != 0 ||
        sked_engine_register(engine, w, &err) != 0)
        fail_msg("workflow %s: %s", name, err.msg);
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
    sked_error err;

    (void) state;
    vnow = 1774000000 * SKED_USEC_PER_SEC; /* 2026-03-20 */
    remove_db();
    snprintf(url, sizeof url, "sqlite:%s/mcp.db", tmp_dir);
    if (sked_engine_open(&o, &engine, &err) != 0)
        fail_msg("open %s: %s", url, err.msg);
    define("ok", step_ok);
    define("bad", step_fail);
    if (sked_engine_start(engine, &err) != 0)
        fail_msg("start: %s", err.msg);
    ctx = (mcp_ctx){.api = sked__http_call, .api_ctx = engine};
    return 0;
}

static int teardown(void **state)
{
    (void) state;
    sked_engine_close(engine);
    engine = NULL;
    remove_db();
    return 0;
}

/* ---- a small JSON Schema check, of what the SDK's validator checks ------ */

static bool is_type(const char *t, const json_t *v)
{
    if (strcmp(t, "string") == 0)
        return json_is_string(v);
    if (strcmp(t, "integer") == 0)
        return json_is_integer(v);
    if (strcmp(t, "number") == 0)
        return json_is_number(v);
    if (strcmp(t, "boolean") == 0)
        return json_is_boolean(v);
    if (strcmp(t, "object") == 0)
        return json_is_object(v);
    if (strcmp(t, "array") == 0)
        return json_is_array(v);
    if (strcmp(t, "null") == 0)
        return json_is_null(v);
    fail_msg("unknown type %s", t);
    return false;
}

/* Fail naming PATH unless V conforms to SCHEMA: type, enum, required,
 * properties, additionalProperties false, items. */
static void conforms(const json_t *schema, const json_t *v, const char *path)
{
    const json_t *type = json_object_get(schema, "type"), *x, *req;
    const char *key;
    char sub[256];
    size_t i;
    bool ok = !type;

    if (json_is_string(type))
        ok = is_type(json_string_value(type), v);
    json_array_foreach(type, i, x) ok = ok || is_type(json_string_value(x), v);
    if (!ok)
        fail_msg("%s: not of type %s", path,
                 json_dumps(type, JSON_COMPACT | JSON_ENCODE_ANY));
    if ((x = json_object_get(schema, "enum")) && !json_is_null(v)) {
        bool in = false;
        json_array_foreach(x, i, req) in = in || json_equal(req, v);
        if (!in)
            fail_msg("%s: not in its enum", path);
    }
    json_array_foreach(json_object_get(schema, "required"), i, req)
    {
        if (!json_object_get(v, json_string_value(req)))
            fail_msg("%s: %s is required", path, json_string_value(req));
    }
    if (json_is_object(v))
        json_object_foreach((json_t *) v, key, x)
        {
            const json_t *p =
                json_object_get(json_object_get(schema, "properties"), key);
            snprintf(sub, sizeof sub, "%s.%s", path, key);
            if (p)
                conforms(p, x, sub);
            else if (json_is_false(
                         json_object_get(schema, "additionalProperties")))
                fail_msg("%s: not allowed", sub);
        }
    if (json_is_array(v) && json_object_get(schema, "items"))
        json_array_foreach(v, i, x)
        {
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            conforms(json_object_get(schema, "items"), x, sub);
        }
}

/* ---- calling ------------------------------------------------------------ */

static json_t *tool_of(const char *name)
{
    static json_t *list;
    json_t *t;
    size_t i;

    if (!list)
        list = sked__mcp_tools_list();
    json_array_foreach(json_object_get(list, "tools"), i, t)
    {
        if (strcmp(json_string_value(json_object_get(t, "name")), name) == 0)
            return t;
    }
    fail_msg("no tool %s", name);
    return NULL;
}

/* Call NAME with ARGS (JSON text, NULL: none): the result. */
static json_t *call(const char *name, const char *args)
{
    json_t *a = args ? json_loads(args, 0, NULL) : NULL, *out = NULL;
    sked_error err;

    sked_error_clear(&err);
    if (args && !a)
        fail_msg("bad test JSON %s", args);
    if (sked__mcp_tool_call(&ctx, name, a, &out, &err) != 0)
        fail_msg("%s: %s", name, err.msg);
    json_decref(a);
    return out;
}

static const char *text_of(const json_t *r)
{
    const json_t *c = json_array_get(json_object_get(r, "content"), 0);

    assert_string_equal(json_string_value(json_object_get(c, "type")), "text");
    return json_string_value(json_object_get(c, "text"));
}

/* A successful result of NAME with ARGS: its structured content (owned
 * by the result, which is kept until the next ok()), checked against the
 * tool's output schema and against its text. */
static json_t *ok(const char *name, const char *args)
{
    static json_t *last;
    json_t *r = call(name, args), *sc, *text;

    json_decref(last);
    last = r;
    if (json_is_true(json_object_get(r, "isError")))
        fail_msg("%s %s: %s", name, args ? args : "", text_of(r));
    sc = json_object_get(r, "structuredContent");
    assert_non_null(sc);
    text = json_loads(text_of(r), 0, NULL);
    assert_true(json_equal(text, sc));
    json_decref(text);
    conforms(json_object_get(tool_of(name), "outputSchema"), sc, name);
    return sc;
}

/* A failed result of NAME with ARGS, whose text starts with WANT. */
static void bad(const char *name, const char *args, const char *want)
{
    json_t *r = call(name, args);
    const char *text = text_of(r);

    if (!json_is_true(json_object_get(r, "isError")))
        fail_msg("%s %s: not an error: %s", name, args, text);
    if (strncmp(text, want, strlen(want)) != 0)
        fail_msg("%s %s: \"%s\", not \"%s...\"", name, args, text, want);
    assert_null(json_object_get(r, "structuredContent"));
    json_decref(r);
}

/* Tell whether calling NAME with ARGS meets a route this API lacks. */
static bool no_route(const char *name, const char *args)
{
    json_t *r = call(name, args);
    bool none = json_is_true(json_object_get(r, "isError")) &&
                strstr(text_of(r), "no route");

    json_decref(r);
    return none;
}

static const char *str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));

    if (!s)
        fail_msg("no string %s", key);
    return s;
}

#define NIGHTLY                                                                \
    "{\"name\":\"nightly\",\"workflow\":\"ok\",\"cron\":\"0 3 * * *\","        \
    "\"timezone\":\"Europe/Paris\"}"

/* ---- tools/list --------------------------------------------------------- */

static const char *const all_tools[] = {
    "create_schedule",   "list_schedules",    "get_schedule",
    "update_schedule",   "pause_schedule",    "resume_schedule",
    "delete_schedule",   "trigger_schedule",  "backfill_schedule",
    "preview_schedule",  "list_runs",         "get_run",
    "cancel_run",        "start_run",         "list_workflows",
    "explain_cron",      "simulate_schedule", "list_events",
    "put_calendar",      "list_calendars",    "get_calendar",
    "calendar_days",     "delete_calendar",   "skip_occurrence",
    "unskip_occurrence", "list_skips",        "run_occurrence",
    "ping_schedule",     "list_notifiers",    "get_notifier",
    "apply_notifier",    "delete_notifier",   "list_deliveries",
};

#define NALL (sizeof all_tools / sizeof all_tools[0])

/* Every writable field of the schedule's table (its API key) is a
 * property of TOOL, with the table's description; no state field is, nor
 * the words of the expression (shown, never taken). */
static void covers_schedule(const char *tool)
{
    json_t *props = json_object_get(
        json_object_get(tool_of(tool), "inputSchema"), "properties");

    for (size_t i = 0; i < SKED__SF_COUNT; i++) {
        const sked__sfield *f = &sked__sfields[i];
        json_t *p = f->json ? json_object_get(props, f->json) : NULL;
        bool state = f->role == SKED__SR_STATE || f->role == SKED__SR_CREATED ||
                     f->kind == SKED__SK_WORDS;

        if (!f->json)
            continue;
        if (state) {
            if (p)
                fail_msg("%s: the state field %s is an input", tool, f->json);
            continue;
        }
        if (!p)
            fail_msg("%s: no property %s", tool, f->json);
        if (strcmp(f->json, "name") != 0)
            assert_string_equal(str(p, "description"), f->desc);
        if (f->kind == SKED__SK_ENUM) {
            /* Its names, or every spelling of one with its own text. */
            size_t n = (size_t) f->en->count;
            if (f->en->spellings)
                for (n = 0; f->en->spellings[n]; n++)
                    ;
            assert_int_equal(json_array_size(json_object_get(p, "enum")), n);
        }
    }
}

/* Every key of request table T but a stream flag is a property of TOOL. */
static void covers_request(const char *tool, sked__request_table t)
{
    json_t *props = json_object_get(
        json_object_get(tool_of(tool), "inputSchema"), "properties");
    sked__request_param p;
    size_t n = 0;

    for (size_t i = 0; sked__request_param_at(t, i, &p); i++) {
        if (p.stream) {
            assert_null(json_object_get(props, p.key));
            continue;
        }
        if (!json_object_get(props, p.key))
            fail_msg("%s: no property %s", tool, p.key);
        n++;
    }
    assert_true(n > 0);
}

static void test_list(void **state)
{
    json_t *list = sked__mcp_tools_list(), *t;
    size_t i;

    (void) state;
    assert_int_equal(json_array_size(json_object_get(list, "tools")), NALL);
    for (i = 0; i < NALL; i++) {
        json_t *in, *ann;

        t = tool_of(all_tools[i]);
        in = json_object_get(t, "inputSchema");
        ann = json_object_get(t, "annotations");
        assert_string_equal(str(in, "type"), "object");
        assert_true(json_is_object(json_object_get(in, "properties")));
        assert_true(json_is_false(json_object_get(in, "additionalProperties")));
        assert_string_equal(str(json_object_get(t, "outputSchema"), "type"),
                            "object");
        assert_true(strlen(str(t, "description")) > 40);
        assert_non_null(str(t, "title"));
        assert_true(json_is_boolean(json_object_get(ann, "readOnlyHint")));
        assert_true(json_is_boolean(json_object_get(ann, "destructiveHint")));
        assert_true(json_is_boolean(json_object_get(ann, "idempotentHint")));
        assert_true(json_is_false(json_object_get(ann, "openWorldHint")));
    }
    covers_schedule("create_schedule");
    covers_schedule("update_schedule");
    covers_request("list_schedules", SKED__REQUEST_SCHEDULES);
    covers_request("list_runs", SKED__REQUEST_RUNS);
    covers_request("list_events", SKED__REQUEST_EVENTS);
    covers_request("backfill_schedule", SKED__REQUEST_BACKFILL);
    covers_request("simulate_schedule", SKED__REQUEST_SIMULATE);
    covers_request("explain_cron", SKED__REQUEST_CRON);
    covers_request("skip_occurrence", SKED__REQUEST_SKIP);
    /* The bounds and enums come along. */
    t = json_object_get(
        json_object_get(
            json_object_get(tool_of("create_schedule"), "inputSchema"),
            "properties"),
        "catchup_max");
    assert_int_equal(json_integer_value(json_object_get(t, "maximum")),
                     SKED_CATCHUP_MAX_LIMIT);
    t = json_object_get(
        json_object_get(tool_of("create_schedule"), "inputSchema"), "required");
    assert_int_equal(json_array_size(t), 2);
    assert_true(json_is_true(json_object_get(
        json_object_get(tool_of("delete_schedule"), "annotations"),
        "destructiveHint")));
    assert_true(json_is_true(json_object_get(
        json_object_get(tool_of("get_run"), "annotations"), "readOnlyHint")));
    json_decref(list);
}

/* ---- schedules ---------------------------------------------------------- */

static void test_schedules(void **state)
{
    json_t *s;

    (void) state;
    s = ok("create_schedule", NIGHTLY);
    assert_string_equal(str(s, "name"), "nightly");
    assert_string_equal(str(s, "timezone"), "Europe/Paris");
    assert_non_null(str(s, "next_fire_at"));
    bad("create_schedule",
        "{\"name\":\"mars\",\"workflow\":\"ok\",\"cron\":\"0 3 * * *\","
        "\"timezone\":\"Mars/Olympus\"}",
        "timezone: unknown time zone \"Mars/Olympus\"");
    bad("create_schedule",
        "{\"name\":7,\"workflow\":\"ok\",\"cron\":\"@daily\"}",
        "name: expected string");
    bad("create_schedule",
        "{\"name\":\"x\",\"workflow\":\"ok\",\"cron\":\"@daily\",\"colour\":1}",
        "colour: unknown argument");
    bad("create_schedule", "{\"name\":\"x\",\"cron\":\"@daily\"}",
        "workflow: required");
    bad("create_schedule",
        "{\"name\":\"x\",\"workflow\":\"ok\",\"cron\":\"61 * * * *\"}", "cron");
    bad("create_schedule", NIGHTLY, "");
    /* None of those made a schedule. */
    s = ok("list_schedules", NULL);
    assert_int_equal(json_array_size(json_object_get(s, "schedules")), 1);

    s = ok("get_schedule", "{\"name\":\"nightly\"}");
    assert_string_equal(str(s, "cron"), "0 3 * * *");
    bad("get_schedule", "{\"name\":\"nope\"}", "");
    bad("get_schedule", "{}", "name: required");
    bad("get_schedule", "{\"name\":[1]}", "name: expected string");

    s = ok("update_schedule", "{\"name\":\"nightly\",\"jitter_secs\":5,"
                              "\"notes\":\"ask ops\"}");
    assert_int_equal(json_integer_value(json_object_get(s, "jitter_secs")), 5);
    assert_string_equal(str(s, "notes"), "ask ops");
    bad("update_schedule", "{\"name\":\"nightly\",\"catchup\":\"sometimes\"}",
        "catchup: ");
    bad("update_schedule", "{\"name\":\"nightly\",\"jitter_secs\":\"5s\"}",
        "jitter_secs: expected number");
    s = ok("get_schedule", "{\"name\":\"nightly\"}");
    assert_string_equal(str(s, "catchup"), "latest");
}

/* The operations on a schedule: pause, resume, trigger, backfill,
 * preview, skip, unskip and run one occurrence, the list's pages and
 * filters, delete. */
static void test_schedule_ops(void **state)
{
    json_t *s;

    (void) state;
    ok("create_schedule", NIGHTLY);
    s = ok("pause_schedule", "{\"name\":\"nightly\"}");
    assert_string_equal(str(s, "status"), "paused");
    s = ok("resume_schedule", "{\"name\":\"nightly\"}");
    assert_string_equal(str(s, "status"), "active");
    bad("pause_schedule", "{\"name\":\"nope\"}", "");
    bad("resume_schedule", "{\"name\":true}", "name: expected string");

    s = ok("trigger_schedule", "{\"name\":\"nightly\"}");
    assert_non_null(str(s, "run_id"));
    bad("trigger_schedule", "{\"name\":\"nope\"}", "");

    s = ok("backfill_schedule", "{\"name\":\"nightly\",\"start\":"
                                "\"2026-03-15T00:00:00Z\",\"end\":"
                                "\"2026-03-18T00:00:00Z\"}");
    assert_int_equal(json_integer_value(json_object_get(s, "created")), 3);
    s = ok("backfill_schedule", "{\"name\":\"nightly\",\"start\":"
                                "\"2026-03-15T00:00:00Z\",\"end\":"
                                "\"2026-03-18T00:00:00Z\"}");
    assert_int_equal(json_integer_value(json_object_get(s, "skipped")), 3);
    bad("backfill_schedule",
        "{\"name\":\"nightly\",\"start\":\"yesterday\",\"end\":"
        "\"2026-03-18T00:00:00Z\"}",
        "start: ");
    bad("backfill_schedule",
        "{\"name\":\"nightly\",\"start\":"
        "\"2026-03-15T00:00:00Z\"}",
        "end: required");

    s = ok("preview_schedule", "{\"name\":\"nightly\",\"n\":3,\"after\":"
                               "\"2026-03-28T00:00:00Z\"}");
    assert_int_equal(json_array_size(json_object_get(s, "occurrences")), 3);
    assert_string_equal(
        str(json_array_get(json_object_get(s, "occurrences"), 0), "at"),
        "2026-03-28T02:00:00Z");
    bad("preview_schedule", "{\"name\":\"nightly\",\"n\":0}", "n: ");
    bad("preview_schedule", "{\"name\":\"nightly\",\"n\":2.5}",
        "n: expected integer");

    /* One occurrence: skipped as mcp, listed, unskipped; a past one run. */
    s = ok("skip_occurrence", "{\"name\":\"nightly\",\"at\":"
                              "\"2026-03-21T02:00:00Z\",\"reason\":\"move\"}");
    assert_true(json_is_true(json_object_get(s, "changed")));
    s = ok("list_skips", "{\"name\":\"nightly\"}");
    assert_int_equal(json_array_size(json_object_get(s, "skips")), 1);
    assert_string_equal(
        str(json_array_get(json_object_get(s, "skips"), 0), "actor"), "mcp");
    assert_string_equal(
        str(json_array_get(json_object_get(s, "skips"), 0), "reason"), "move");
    s = ok("preview_schedule", "{\"name\":\"nightly\",\"n\":1}");
    assert_true(json_is_true(json_object_get(
        json_array_get(json_object_get(s, "occurrences"), 0), "skipped")));
    bad("skip_occurrence",
        "{\"name\":\"nightly\",\"at\":\"2026-03-21T02:30:00Z\"}", "at: ");
    bad("skip_occurrence", "{\"name\":\"nightly\"}", "at: required");
    s = ok("unskip_occurrence",
           "{\"name\":\"nightly\",\"at\":\"2026-03-21T02:00:00Z\"}");
    assert_true(json_is_true(json_object_get(s, "changed")));
    assert_false(json_is_true(json_object_get(s, "skipped")));
    s = ok("list_skips", "{\"name\":\"nightly\"}");
    assert_int_equal(json_array_size(json_object_get(s, "skips")), 0);
    s = ok("run_occurrence",
           "{\"name\":\"nightly\",\"at\":\"2026-03-10T02:00:00Z\"}");
    assert_string_equal(str(s, "run_id"), "sched-nightly-2026-03-10T02:00:00Z");
    assert_true(json_is_true(json_object_get(s, "created")));
    s = ok("run_occurrence",
           "{\"name\":\"nightly\",\"at\":\"2026-03-10T02:00:00Z\"}");
    assert_false(json_is_true(json_object_get(s, "created")));
    bad("run_occurrence",
        "{\"name\":\"nightly\",\"at\":\"2026-03-25T02:00:00Z\"}", "at: ");

    ok("create_schedule", "{\"name\":\"a.first\",\"workflow\":\"bad\","
                          "\"every_secs\":3600}");
    s = ok("list_schedules", "{\"limit\":1}");
    assert_int_equal(json_array_size(json_object_get(s, "schedules")), 1);
    assert_string_equal(str(s, "next_cursor"), "a.first");
    s = ok("list_schedules", "{\"limit\":1,\"cursor\":\"a.first\"}");
    assert_string_equal(
        str(json_array_get(json_object_get(s, "schedules"), 0), "name"),
        "nightly");
    s = ok("list_schedules", "{\"workflow\":\"bad\"}");
    assert_int_equal(json_array_size(json_object_get(s, "schedules")), 1);
    bad("list_schedules", "{\"limit\":5000}", "limit: ");
    bad("list_schedules", "{\"status\":\"sleeping\"}", "status: ");

    s = ok("delete_schedule", "{\"name\":\"a.first\"}");
    assert_true(json_is_true(json_object_get(s, "deleted")));
    bad("delete_schedule", "{\"name\":12}", "name: expected string");
    bad("get_schedule", "{\"name\":\"a.first\"}", "");
}

/* A name is one path segment however it is spelled: escaped, never a
 * path of its own. */
static void test_escaped(void **state)
{
    (void) state;
    ok("create_schedule", NIGHTLY);
    bad("get_schedule", "{\"name\":\"nightly/pause\"}", "");
    bad("get_schedule", "{\"name\":\"../schedules\"}", "");
    bad("get_schedule", "{\"name\":\"nightly?x=1\"}", "");
    bad("get_schedule", "{\"name\":\"..\"}", "");
    bad("get_schedule", "{\"name\":\"\"}", "name: must not be empty");
    bad("get_run", "{\"id\":\".\"}", "");
    ok("get_schedule", "{\"name\":\"nightly\"}");
}

/* ---- runs, workflows, events --------------------------------------------- */

static void test_runs(void **state)
{
    json_t *s;
    char id[128], args[256];

    (void) state;
    s = ok("start_run", "{\"workflow\":\"ok\",\"input\":{\"x\":1},"
                        "\"idempotency_key\":\"k1\"}");
    snprintf(id, sizeof id, "%s", str(s, "id"));
    assert_string_equal(str(s, "status"), "pending");
    s = ok("start_run", "{\"workflow\":\"ok\",\"idempotency_key\":\"k1\"}");
    assert_string_equal(str(s, "id"), id);
    bad("start_run", "{\"workflow\":\"no such/one\"}", "");
    bad("start_run", "{\"workflow\":\"ok\",\"input\":[1]}",
        "input: expected object");
    bad("start_run", "{\"input\":{}}", "workflow: required");

    s = ok("list_runs", "{\"status\":\"pending\"}");
    assert_int_equal(json_array_size(json_object_get(s, "runs")), 1);
    s = ok("list_runs", "{\"workflow\":\"bad\"}");
    assert_int_equal(json_array_size(json_object_get(s, "runs")), 0);
    bad("list_runs", "{\"status\":\"bogus\"}", "status: ");
    bad("list_runs", "{\"limit\":\"ten\"}", "limit: expected integer");

    snprintf(args, sizeof args, "{\"id\":\"%s\"}", id);
    s = ok("get_run", args);
    assert_string_equal(str(s, "workflow"), "ok");
    assert_true(json_is_array(json_object_get(s, "steps")));
    bad("get_run", "{\"id\":\"no-such-run\"}", "");
    bad("get_run", "{\"id\":3}", "id: expected string");

    s = ok("cancel_run", args);
    assert_string_equal(str(s, "status"), "cancelled");
    bad("cancel_run", args, "");
    bad("cancel_run", "{}", "id: required");

    s = ok("list_workflows", NULL);
    assert_int_equal(json_array_size(json_object_get(s, "workflows")), 2);
    bad("list_workflows", "{\"all\":true}", "all: unknown argument");

    ok("create_schedule", NIGHTLY);
    s = ok("list_events", "{\"limit\":2}");
    assert_int_equal(json_array_size(json_object_get(s, "events")), 2);
    snprintf(args, sizeof args, "{\"after\":\"%s\"}", str(s, "next_cursor"));
    s = ok("list_events", args);
    assert_true(json_array_size(json_object_get(s, "events")) > 0);
    bad("list_events", "{\"after\":\"abc\"}", "after: ");
    bad("list_events", "{\"follow\":true}", "follow: unknown argument");
}

/* ---- explain_cron, simulate_schedule ------------------------------------- */

static void test_explain(void **state)
{
    json_t *s;

    (void) state;
    if (no_route("explain_cron", "{\"expr\":\"0 3 * * *\"}"))
        skip();
    s = ok("explain_cron", "{\"expr\":\"30 2 * * *\",\"timezone\":"
                           "\"Europe/Paris\",\"n\":2,\"after\":"
                           "\"2026-03-28T12:00:00Z\"}");
    assert_string_equal(str(s, "timezone"), "Europe/Paris");
    assert_true(strlen(str(s, "description")) > 0);
    assert_int_equal(json_array_size(json_object_get(s, "occurrences")), 2);
    bad("explain_cron",
        "{\"expr\":\"0 3 * * *\",\"timezone\":\"Mars/Olympus\"}",
        "timezone: unknown time zone \"Mars/Olympus\"");
    bad("explain_cron", "{\"expr\":\"99 * * * *\"}", "expr: ");
    bad("explain_cron", "{}", "expr: required");
    bad("explain_cron", "{\"expr\":\"@daily\",\"dst\":\"twice\"}", "dst: ");
}

static void test_simulate(void **state)
{
    json_t *s, *d;
    size_t i, fired = 0;

    (void) state;
    ok("create_schedule", NIGHTLY);
    if (no_route("simulate_schedule",
                 "{\"name\":\"nightly\",\"from\":\"2026-03-10T00:00:00Z\","
                 "\"to\":\"2026-03-12T00:00:00Z\"}"))
        skip();
    s = ok("simulate_schedule",
           "{\"name\":\"nightly\",\"from\":\"2026-03-10T00:00:00Z\","
           "\"to\":\"2026-03-15T00:00:00Z\",\"down\":[{\"from\":"
           "\"2026-03-11T00:00:00Z\",\"to\":\"2026-03-13T12:00:00Z\"}]}");
    json_array_foreach(json_object_get(s, "decisions"), i, d)
    {
        fired += strcmp(str(d, "decision"), "fire") == 0;
    }
    /* Catch-up latest: of the three missed while down, one fires. */
    assert_int_equal(json_array_size(json_object_get(s, "decisions")), 5);
    assert_int_equal(fired, 3);
    bad("simulate_schedule",
        "{\"name\":\"nightly\",\"from\":\"soon\","
        "\"to\":\"2026-03-15T00:00:00Z\"}",
        "from: ");
    bad("simulate_schedule",
        "{\"name\":\"nightly\",\"from\":"
        "\"2026-03-10T00:00:00Z\"}",
        "to: required");
    bad("simulate_schedule",
        "{\"name\":\"nope\",\"from\":"
        "\"2026-03-10T00:00:00Z\",\"to\":"
        "\"2026-03-15T00:00:00Z\"}",
        "");
}

/* ---- resources ------------------------------------------------------------
 */

static void collect(void *c, const char *uri)
{
    json_array_append_new(c, json_string(uri));
}

static void test_resources(void **state)
{
    json_t *out = NULL, *r, *ev, *uris;
    sked_error err;
    char run_uri[200];

    (void) state;
    sked_error_clear(&err);
    ok("create_schedule", NIGHTLY);
    r = ok("start_run", "{\"workflow\":\"ok\"}");
    /* The template's expansion: a run id's ':' escaped. */
    snprintf(run_uri, sizeof run_uri, "sked://runs/%s", str(r, "id"));
    for (char *p; (p = strchr(run_uri + 5, ':'));) {
        memmove(p + 3, p + 1, strlen(p + 1) + 1);
        memcpy(p, "%3A", 3);
    }

    assert_int_equal(sked__mcp_resources_list(&ctx, NULL, &out, &err), 0);
    r = json_array_get(json_object_get(out, "resources"), 0);
    assert_string_equal(str(r, "uri"), "sked://schedules/nightly");
    assert_string_equal(str(r, "mimeType"), "application/json");
    assert_string_equal(str(out, "nextCursor"), "r:");
    json_decref(out);
    assert_int_equal(sked__mcp_resources_list(&ctx, "r:", &out, &err), 0);
    r = json_array_get(json_object_get(out, "resources"), 0);
    assert_string_equal(str(r, "uri"), run_uri);
    assert_null(json_object_get(out, "nextCursor"));
    json_decref(out);
    assert_int_equal(sked__mcp_resources_list(&ctx, "zz", &out, &err),
                     SKED_EINVAL);

    out = sked__mcp_resource_templates();
    assert_int_equal(json_array_size(json_object_get(out, "resourceTemplates")),
                     2);
    json_decref(out);

    assert_int_equal(
        sked__mcp_resource_read(&ctx, "sked://schedules/nightly", &out, &err),
        0);
    r = json_array_get(json_object_get(out, "contents"), 0);
    assert_string_equal(str(r, "uri"), "sked://schedules/nightly");
    ev = json_loads(str(r, "text"), 0, NULL);
    assert_string_equal(str(ev, "workflow"), "ok");
    json_decref(ev);
    json_decref(out);
    assert_int_equal(sked__mcp_resource_read(&ctx, run_uri, &out, &err), 0);
    json_decref(out);
    assert_int_equal(
        sked__mcp_resource_read(&ctx, "sked://schedules/nope", &out, &err),
        SKED_ENOTFOUND);
    assert_int_equal(
        sked__mcp_resource_read(&ctx, "sked://runs/nope", &out, &err),
        SKED_ENOTFOUND);
    assert_int_equal(
        sked__mcp_resource_read(&ctx, "file:///etc/passwd", &out, &err),
        SKED_EINVAL);
    assert_int_equal(
        sked__mcp_resource_read(&ctx, "sked://schedules/a/pause", &out, &err),
        SKED_EINVAL);

    /* A run's event updates its run and its schedule; a schedule's
     * creation changes the list. */
    bool changed = false;
    uris = json_array();
    ev = json_loads("{\"id\":9,\"type\":\"run.completed\",\"subject\":"
                    "\"nightly-1\",\"payload\":{\"schedule\":\"nightly\"},"
                    "\"at\":\"2026-03-20T08:00:00Z\"}",
                    0, NULL);
    sked__mcp_event_uris(ev, collect, uris, &changed);
    assert_int_equal(json_array_size(uris), 2);
    assert_string_equal(json_string_value(json_array_get(uris, 0)),
                        "sked://runs/nightly-1");
    assert_string_equal(json_string_value(json_array_get(uris, 1)),
                        "sked://schedules/nightly");
    assert_false(changed);
    json_decref(ev);
    ev = json_loads("{\"id\":10,\"type\":\"schedule.created\",\"subject\":"
                    "\"b\",\"payload\":{}}",
                    0, NULL);
    sked__mcp_event_uris(ev, collect, uris, &changed);
    assert_true(changed);
    assert_string_equal(json_string_value(json_array_get(uris, 2)),
                        "sked://schedules/b");
    json_decref(ev);
    json_decref(uris);

    /* The engine's own events, as the log has them. */
    changed = false;
    uris = json_array();
    r = ok("list_events", NULL);
    size_t i;
    json_array_foreach(json_object_get(r, "events"), i, ev)
    {
        sked__mcp_event_uris(ev, collect, uris, &changed);
    }
    assert_true(changed);
    assert_true(json_array_size(uris) >= 2);
    json_decref(uris);
}

/* ---- prompts ------------------------------------------------------------- */

static const char *prompt_text(const json_t *out)
{
    const json_t *m = json_array_get(json_object_get(out, "messages"), 0);

    assert_string_equal(str(m, "role"), "user");
    return str(json_object_get(m, "content"), "text");
}

static void test_prompts(void **state)
{
    json_t *out = sked__mcp_prompts_list(), *args, *r;
    sked_error err;
    size_t done = 0;
    char buf[300];

    (void) state;
    sked_error_clear(&err);
    assert_int_equal(json_array_size(json_object_get(out, "prompts")), 2);
    json_decref(out);

    r = ok("start_run", "{\"workflow\":\"bad\"}");
    snprintf(buf, sizeof buf, "{\"run_id\":\"%s\"}", str(r, "id"));
    for (int i = 0; i < 20; i++) {
        assert_int_equal(sked__engine_work(engine, 16, &done, &err), 0);
        vnow += 60 * SKED_USEC_PER_SEC;
    }
    args = json_loads(buf, 0, NULL);
    assert_int_equal(
        sked__mcp_prompt_get(&ctx, "diagnose_run", args, &out, &err), 0);
    json_decref(args);
    assert_non_null(strstr(prompt_text(out), "is failed"));
    assert_non_null(strstr(prompt_text(out), "the disk is full"));
    assert_non_null(strstr(prompt_text(out), "- load, attempt 1: failed"));
    assert_string_equal(
        str(json_object_get(
                json_object_get(
                    json_array_get(json_object_get(out, "messages"), 1),
                    "content"),
                "resource"),
            "mimeType"),
        "application/json");
    json_decref(out);
    args = json_loads("{\"run_id\":\"nope\"}", 0, NULL);
    assert_int_equal(
        sked__mcp_prompt_get(&ctx, "diagnose_run", args, &out, &err),
        SKED_ENOTFOUND);
    assert_string_equal(err.field, "run_id"); /* the prompt's argument */
    json_decref(args);
    assert_int_equal(
        sked__mcp_prompt_get(&ctx, "diagnose_run", NULL, &out, &err),
        SKED_EINVAL);
    assert_string_equal(err.field, "run_id");

    ok("create_schedule", NIGHTLY);
    ok("pause_schedule", "{\"name\":\"nightly\"}");
    args = json_loads("{\"schedule\":\"nightly\",\"from\":"
                      "\"2026-03-10T00:00:00Z\",\"to\":"
                      "\"2026-03-15T00:00:00Z\"}",
                      0, NULL);
    assert_int_equal(
        sked__mcp_prompt_get(&ctx, "why_not_fired", args, &out, &err), 0);
    json_decref(args);
    assert_non_null(strstr(prompt_text(out), "Schedule nightly:"));
    assert_non_null(strstr(prompt_text(out), "status: paused"));
    assert_non_null(strstr(prompt_text(out), "Its next occurrences"));
    json_decref(out);
    args = json_loads("{\"schedule\":\"nope\"}", 0, NULL);
    assert_int_equal(
        sked__mcp_prompt_get(&ctx, "why_not_fired", args, &out, &err),
        SKED_ENOTFOUND);
    json_decref(args);
    args = json_loads("{\"schedule\":1}", 0, NULL);
    assert_int_equal(
        sked__mcp_prompt_get(&ctx, "why_not_fired", args, &out, &err),
        SKED_EINVAL);
    json_decref(args);
    assert_int_equal(sked__mcp_prompt_get(&ctx, "nope", NULL, &out, &err),
                     SKED_ENOTFOUND);
}

/* ---- an API that does not answer ------------------------------------------
 */

/* A server that cannot be reached (remote mode), or answers what is not
 * JSON. */
static int api_down(void *c, const sked_mcp_call *call, sked_mcp_reply *reply,
                    sked_error *err)
{
    (void) call;
    memset(reply, 0, sizeof *reply);
    if (c)
        return sked__error_set(err, SKED_EIO, NULL, -1,
                               "cannot reach the server: Connection refused");
    reply->status = 200;
    reply->body = strdup("<html>");
    reply->len = strlen(reply->body);
    return 0;
}

static void test_api_down(void **state)
{
    mcp_ctx saved = ctx;
    json_t *out = NULL;
    sked_error err;

    (void) state;
    sked_error_clear(&err);
    ctx = (mcp_ctx){.api = api_down, .api_ctx = &saved};
    bad("get_schedule", "{\"name\":\"nightly\"}",
        "cannot reach the server: Connection refused");
    bad("list_runs", NULL, "cannot reach the server");
    assert_int_equal(
        sked__mcp_resource_read(&ctx, "sked://schedules/n", &out, &err),
        SKED_EIO);
    assert_null(out);
    ctx.api_ctx = NULL;
    bad("list_workflows", NULL, "the API answered 200 with a body that is not");
    assert_int_equal(sked__mcp_resources_list(&ctx, NULL, &out, &err),
                     SKED_EIO);
    ctx = saved;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_list, setup, teardown),
        cmocka_unit_test_setup_teardown(test_schedules, setup, teardown),
        cmocka_unit_test_setup_teardown(test_schedule_ops, setup, teardown),
        cmocka_unit_test_setup_teardown(test_escaped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_runs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_explain, setup, teardown),
        cmocka_unit_test_setup_teardown(test_simulate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resources, setup, teardown),
        cmocka_unit_test_setup_teardown(test_prompts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_api_down, setup, teardown),
    };
    const char *tmp = getenv("TMPDIR");
    int rc;

    clock_ = (sked_clock){read_now, read_now, NULL};
    snprintf(tmp_dir, sizeof tmp_dir, "%s/sked-mcp-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tmp_dir))
        return 1;
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(tmp_dir);
    return rc;
}
