/* SPDX-License-Identifier: MIT */
/* The tools of a session (mcp_int.h, SPEC 8): one table, a row a tool,
 * each tool one request of the HTTP API (docs/api.md).
 *
 * A row says what a client lists (name, title, description, the input
 * and output schemas, the hints) and the request the tool makes: its
 * method and path, where "{arg}" is the argument ARG escaped as one path
 * segment; the other arguments go into the query or the body, as the
 * row says, one may be the whole body and one the Idempotency-Key. The
 * input schemas come from the model's tables (tools_schema.c), and the
 * arguments are checked against them before any request: a key not in
 * the schema, a value of the wrong type or a required one missing is a
 * tool error naming the argument, and nothing is asked of the API. What
 * the API answers is the result: its JSON as the text and as the
 * structured content, or its error as a tool error, "FIELD: MESSAGE". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/json_text.h"
#include "mcp/tools_int.h"
#include "sked/engine.h"

/* The hints a client lists, and AS_MCP and RAW (not listed). AS_MCP:
 * the request says "actor": "mcp" (in its body, or its query) unless the
 * arguments give one. RAW: the whole body is the text of its argument, a
 * string, as it is (a ping's body is any text, not JSON). */
enum { RO = 1, DESTRUCTIVE = 2, IDEMPOTENT = 4, AS_MCP = 8, RAW = 16 };

typedef struct tool {
    const char *name, *title, *desc;
    const char *method, *path;
    char rest;          /* the other arguments: 'q' query, 'b' body */
    const char *whole;  /* the argument that is the whole body, or NULL */
    const char *header; /* the argument sent as Idempotency-Key, or NULL */
    unsigned hints;
    json_t *(*input)(void);
    json_t *(*output)(void);
    /* The key under which an answer that is a JSON array is the result's
     * object (structured content is an object), or NULL. */
    const char *wrap;
    /* The path instead of PATH when every "{arg}" of it is given (a
     * filter the API has as a route of its own), or NULL. */
    const char *by;
} tool;

/* ---- input schemas ------------------------------------------------------- */

static const char *const need_name[] = {"name", NULL};
static const char *const need_id[] = {"id", NULL};

/* PROPS with the schedule's name as "name", described as DESC. */
static json_t *with_name(json_t *props, const char *desc)
{
    if (props && json_object_set_new(props, "name",
                                     sked__mcp_schedule_prop("name", desc))) {
        json_decref(props);
        return NULL;
    }
    return props;
}

static json_t *in_create(void)
{
    return sked__mcp_object(sked__mcp_schedule_props(true),
                            (const char *const[]){"name", "workflow", NULL},
                            true);
}

static json_t *in_update(void)
{
    return sked__mcp_object(
        with_name(sked__mcp_schedule_props(true),
                  "the schedule to change (a name cannot be changed)"),
        need_name, true);
}

static json_t *in_name(void)
{
    return sked__mcp_object(with_name(json_object(), "the schedule's name"),
                            need_name, true);
}

static json_t *in_list_schedules(void)
{
    return sked__mcp_object(sked__mcp_request_props(SKED__REQUEST_SCHEDULES),
                            NULL, true);
}

static json_t *in_backfill(void)
{
    return sked__mcp_object(
        with_name(sked__mcp_request_props(SKED__REQUEST_BACKFILL),
                  "the schedule whose missed occurrences to run"),
        (const char *const[]){"name", "start", "end", NULL}, true);
}

/* The occurrence AT of a schedule, as an argument. */
static json_t *at_prop(const char *desc)
{
    return json_pack("{s:s, s:s, s:s}", "type", "string", "format", "date-time",
                     "description", desc);
}

static json_t *in_skip(void)
{
    return sked__mcp_object(
        with_name(sked__mcp_request_props(SKED__REQUEST_SKIP),
                  "the schedule whose occurrence to skip"),
        (const char *const[]){"name", "at", NULL}, true);
}

static json_t *in_unskip(void)
{
    json_t *props =
        json_pack("{s:o, s:{s:s, s:s, s:i, s:i}}", "at",
                  at_prop("the skipped occurrence (RFC 3339) to fire again"),
                  "actor", "type", "string", "description", "who (default mcp)",
                  "minLength", 1, "maxLength", SKED_SKIP_ACTOR_MAX);

    return sked__mcp_object(with_name(props, "the schedule"),
                            (const char *const[]){"name", "at", NULL}, true);
}

static json_t *in_run_occurrence(void)
{
    json_t *props = json_pack(
        "{s:o}", "at",
        at_prop("the past occurrence (RFC 3339) of the schedule to run now"));

    return sked__mcp_object(with_name(props, "the schedule"),
                            (const char *const[]){"name", "at", NULL}, true);
}

static json_t *in_preview(void)
{
    json_t *props = json_pack(
        "{s:{s:s, s:s, s:i, s:i, s:i}, s:{s:s, s:s, s:s}}", "n", "type",
        "integer", "description", "how many occurrences", "minimum", 1,
        "maximum", SKED_PREVIEW_MAX, "default", 10, "after", "type", "string",
        "format", "date-time", "description",
        "the occurrences strictly after this RFC 3339 instant (default: now)");

    return sked__mcp_object(with_name(props, "the schedule to preview"),
                            need_name, true);
}

static json_t *in_list_runs(void)
{
    return sked__mcp_object(sked__mcp_request_props(SKED__REQUEST_RUNS), NULL,
                            true);
}

static json_t *in_run_id(void)
{
    return sked__mcp_object(
        json_pack("{s:{s:s, s:s}}", "id", "type", "string", "description",
                  "the run's id (the run_id of a trigger, the id of a run)"),
        need_id, true);
}

static json_t *in_start_run(void)
{
    json_t *props = json_pack(
        "{s:o, s:{s:s, s:s}, s:{s:s, s:s, s:i, s:i}}", "workflow",
        sked__mcp_schedule_prop("workflow", "the registered workflow to run"),
        "input", "type", "object", "description",
        "the run's input: a JSON object handed to its steps (default {})",
        "idempotency_key", "type", "string", "description",
        "a key of this start: another start with the same key returns the "
        "run it started instead of starting one more",
        "minLength", 1, "maxLength", SKED_RUN_KEY_MAX);

    return sked__mcp_object(props, (const char *const[]){"workflow", NULL},
                            true);
}

static json_t *in_none(void)
{
    return sked__mcp_object(json_object(), NULL, true);
}

static json_t *in_explain(void)
{
    return sked__mcp_object(sked__mcp_request_props(SKED__REQUEST_CRON),
                            (const char *const[]){"expr", NULL}, true);
}

static json_t *in_simulate(void)
{
    return sked__mcp_object(
        with_name(sked__mcp_request_props(SKED__REQUEST_SIMULATE),
                  "the schedule to simulate"),
        (const char *const[]){"name", "from", "to", NULL}, true);
}

static json_t *in_list_events(void)
{
    return sked__mcp_object(sked__mcp_request_props(SKED__REQUEST_EVENTS), NULL,
                            true);
}

/* ---- the table ----------------------------------------------------------- */

#define SCHEDULE "/api/v1/schedules/{name}"
#define CALENDAR "/api/v1/calendars/{name}"
#define NOTIFIER "/api/v1/notifiers/{name}"

static const tool tools[] = {
    {"create_schedule", "Create a schedule",
     "Create a schedule that starts runs of a workflow: give name, workflow "
     "and exactly one time spec: cron (a cron expression, read in timezone), "
     "every_secs (an interval) or at (one RFC 3339 instant). The other "
     "fields are optional and take the defaults shown. Answers the "
     "schedule as stored, with next_fire_at.",
     "POST", "/api/v1/schedules", 'b', NULL, NULL, 0, in_create,
     sked__mcp_schedule_schema, NULL, NULL},
    {"list_schedules", "List schedules",
     "List schedules by name, a page at a time, optionally only those of a "
     "status, a workflow or a name prefix. Pass next_cursor back as cursor "
     "for the next page.",
     "GET", "/api/v1/schedules", 'q', NULL, NULL, RO | IDEMPOTENT,
     in_list_schedules, sked__mcp_schedule_page_schema, NULL, NULL},
    {"get_schedule", "Get a schedule",
     "Read one schedule: its definition and the state the scheduler keeps "
     "(status, next_fire_at, last_fired_at, last_error).",
     "GET", SCHEDULE, 0, NULL, NULL, RO | IDEMPOTENT, in_name,
     sked__mcp_schedule_schema, NULL, NULL},
    {"update_schedule", "Update a schedule",
     "Change some fields of a schedule: give its name and only the fields "
     "to change (null clears a field). A time spec given replaces the old "
     "one. Answers the schedule as stored.",
     "PATCH", SCHEDULE, 'b', NULL, NULL, IDEMPOTENT, in_update,
     sked__mcp_schedule_schema, NULL, NULL},
    {"pause_schedule", "Pause a schedule",
     "Pause a schedule: it fires nothing until resumed; its occurrences "
     "meanwhile are missed, and resume_schedule applies its catch-up policy "
     "to them.",
     "POST", SCHEDULE "/pause", 0, NULL, NULL, IDEMPOTENT, in_name,
     sked__mcp_schedule_schema, NULL, NULL},
    {"resume_schedule", "Resume a schedule",
     "Resume a paused schedule: it fires again from its next occurrence, and "
     "its catch-up policy decides what of those missed while paused runs.",
     "POST", SCHEDULE "/resume", 0, NULL, NULL, IDEMPOTENT, in_name,
     sked__mcp_schedule_schema, NULL, NULL},
    {"delete_schedule", "Delete a schedule",
     "Delete a schedule for good: it fires no more. Its runs are kept. "
     "Succeeds also when there is no such schedule.",
     "DELETE", SCHEDULE, 0, NULL, NULL, DESTRUCTIVE | IDEMPOTENT, in_name,
     sked__mcp_out_deleted, NULL, NULL},
    {"trigger_schedule", "Trigger a schedule now",
     "Start one run of a schedule's workflow now, outside its time spec, "
     "with its context. Answers the new run's id; refused (conflict) while "
     "a run is active and the schedule's overlap is skip.",
     "POST", SCHEDULE "/trigger", 0, NULL, NULL, 0, in_name,
     sked__mcp_out_run_id, NULL, NULL},
    {"backfill_schedule", "Backfill a schedule",
     "Create a run for each occurrence of a schedule after start and up to "
     "end that has none yet (past occurrences, for example after an "
     "outage). Answers how many runs were created and how many occurrences "
     "were skipped because they had one.",
     "POST", SCHEDULE "/backfill", 'b', NULL, NULL, IDEMPOTENT, in_backfill,
     sked__mcp_out_backfill, NULL, NULL},
    {"skip_occurrence", "Skip one occurrence of a schedule",
     "Drop one occurrence of a schedule ahead of time: at must be an "
     "instant of its time spec not yet decided (the error names the nearest "
     "occurrences). The scheduler then records it as missed with reason "
     "skipped and creates no run. Give why as reason. Skipping it again "
     "changes nothing.",
     "POST", SCHEDULE "/skips", 'b', NULL, NULL, IDEMPOTENT | AS_MCP, in_skip,
     sked__mcp_out_skip, NULL, NULL},
    {"unskip_occurrence", "Undo the skip of one occurrence",
     "Undo skip_occurrence: the occurrence fires as it would have. Refused "
     "(conflict) once it is decided.",
     "DELETE", SCHEDULE "/skips/{at}", 'q', NULL, NULL, IDEMPOTENT | AS_MCP,
     in_unskip, sked__mcp_out_skip, NULL, NULL},
    {"list_skips", "List a schedule's skipped occurrences",
     "List the occurrences of a schedule skipped and not yet decided, with "
     "who skipped them (actor) and why (reason).",
     "GET", SCHEDULE "/skips", 0, NULL, NULL, RO | IDEMPOTENT, in_name,
     sked__mcp_out_skips, NULL, NULL},
    {"run_occurrence", "Run one past occurrence now",
     "Run one past occurrence of a schedule now, with the id firing gives "
     "it: when it ran already, or runs later, it is the same run, never two. "
     "Answers the run's id and whether this call created it.",
     "POST", SCHEDULE "/runs", 'b', NULL, NULL, IDEMPOTENT, in_run_occurrence,
     sked__mcp_out_run_occurrence, NULL, NULL},
    {"preview_schedule", "Preview a schedule's occurrences",
     "List the next n occurrences of a schedule after an instant, each in "
     "UTC (at) and on the schedule zone's clock (local), marked when a "
     "daylight saving change shifted or doubled it.",
     "GET", SCHEDULE "/occurrences", 'q', NULL, NULL, RO | IDEMPOTENT,
     in_preview, sked__mcp_out_occurrences, NULL, NULL},
    {"put_calendar", "Create or replace a calendar",
     "Create a calendar, or replace the one of that name: a named set of "
     "days (holidays, closing days) that schedules can exclude. Its days "
     "are the union of dates (YYYY-MM-DD), RFC 5545 rules of days (rules, "
     "e.g. FREQ=YEARLY;BYMONTH=11;BYDAY=4TH), an iCalendar file's text "
     "(ics) and the calendars it includes; observed adds the weekday a "
     "weekend day is observed on; weekdays are its business weekdays. "
     "Answers the calendar as stored.",
     "PUT", CALENDAR, 'b', NULL, NULL, IDEMPOTENT, sked__mcp_calendar_in_put,
     sked__mcp_calendar_schema, NULL, NULL},
    {"list_calendars", "List calendars",
     "List every calendar, by name, with its dates, rules, includes and "
     "business weekdays.",
     "GET", "/api/v1/calendars", 0, NULL, NULL, RO | IDEMPOTENT, in_none,
     sked__mcp_calendar_list_schema, NULL, NULL},
    {"get_calendar", "Get a calendar",
     "Read one calendar's definition: its dates, rules, iCalendar text, "
     "includes, observed rule and business weekdays.",
     "GET", CALENDAR, 0, NULL, NULL, RO | IDEMPOTENT,
     sked__mcp_calendar_in_name, sked__mcp_calendar_schema, NULL, NULL},
    {"calendar_days", "List a calendar's days",
     "List the days of a calendar from one date to another (holidays), or "
     "with business true its business days: its weekdays not among its "
     "days.",
     "GET", CALENDAR "/days", 'q', NULL, NULL, RO | IDEMPOTENT,
     sked__mcp_calendar_in_days, sked__mcp_calendar_days_schema, NULL, NULL},
    {"delete_calendar", "Delete a calendar",
     "Delete a calendar; refused (conflict) while another calendar includes "
     "it. Succeeds also when there is no such calendar.",
     "DELETE", CALENDAR, 0, NULL, NULL, DESTRUCTIVE | IDEMPOTENT,
     sked__mcp_calendar_in_name, sked__mcp_calendar_deleted_schema, NULL, NULL},
    {"list_runs", "List runs",
     "List runs, newest first, a page at a time, optionally only those of a "
     "status, a schedule or a workflow (status failed: what went wrong). "
     "Pass next_cursor back as cursor for the next page.",
     "GET", "/api/v1/runs", 'q', NULL, NULL, RO | IDEMPOTENT, in_list_runs,
     sked__mcp_run_page_schema, NULL, NULL},
    {"get_run", "Get a run",
     "Read one run with every attempt of every step: status, error, exit "
     "code, output and stderr of each.",
     "GET", "/api/v1/runs/{id}", 0, NULL, NULL, RO | IDEMPOTENT, in_run_id,
     sked__mcp_run_schema, NULL, NULL},
    {"cancel_run", "Cancel a run",
     "Cancel a pending, waiting or running run: its running step is stopped "
     "and its compensations run. Refused (conflict) when the run has "
     "already finished.",
     "POST", "/api/v1/runs/{id}/cancel", 0, NULL, NULL,
     DESTRUCTIVE | IDEMPOTENT, in_run_id, sked__mcp_run_schema, NULL, NULL},
    {"start_run", "Start a run of a workflow",
     "Start one run of a registered workflow now with an input object. With "
     "an idempotency_key, starting again with the same key returns the "
     "same run instead of a new one.",
     "POST", "/api/v1/workflows/{workflow}/runs", 0, "input", "idempotency_key",
     0, in_start_run, sked__mcp_run_schema, NULL, NULL},
    {"list_workflows", "List workflows",
     "List the workflows the servers have registered, with their version "
     "and definition (steps, queue, retries): the names a schedule's "
     "workflow may take.",
     "GET", "/api/v1/workflows", 0, NULL, NULL, RO | IDEMPOTENT, in_none,
     sked__mcp_workflows_schema, NULL, NULL},
    {"explain_cron", "Explain a cron expression",
     "Say in words what a cron expression means and list its next "
     "occurrences in a time zone, with what daylight saving changes do to "
     "them. Use it to check an expression before creating a schedule.",
     "GET", "/api/v1/cron/explain", 'q', NULL, NULL, RO | IDEMPOTENT,
     in_explain, sked__mcp_out_explain, NULL, NULL},
    {"simulate_schedule", "Simulate a schedule",
     "Replay a schedule over a period without running anything: for each "
     "occurrence whether it would fire or be dropped and why (catch-up, "
     "overlap, window), given periods the scheduler was down. Use it to "
     "see why a schedule did or did not fire.",
     "POST", SCHEDULE "/simulate", 'b', NULL, NULL, RO | IDEMPOTENT,
     in_simulate, sked__mcp_out_simulate, NULL, NULL},
    {"ping_schedule", "Ping a heartbeat schedule",
     "Report on the job a heartbeat schedule watches (it runs elsewhere): "
     "status start (it began), success (default: its run completes) or fail "
     "(its run fails), with an optional body kept as the run's output. The "
     "ping is for the run of the latest occurrence not yet ended, else the "
     "next one when it is at most a minute away; refused (conflict) when "
     "none awaits a ping, and for a schedule that is no heartbeat. Answers "
     "the run.",
     "POST", SCHEDULE "/ping", 'q', "body", NULL, RAW, sked__mcp_ping_in,
     sked__mcp_run_schema, NULL, NULL},
    {"list_notifiers", "List notifiers",
     "List every notifier, by name: its kind (webhook, command or email) "
     "and settings, the event types and schedules it wants, and where it "
     "came from (a workflows file or the API). A secret is never shown, "
     "only where the server reads it (secret_file, secret_env).",
     "GET", "/api/v1/notifiers", 0, NULL, NULL, RO | IDEMPOTENT, in_none,
     sked__mcp_notifier_list_schema, "notifiers", NULL},
    {"get_notifier", "Get a notifier",
     "Read one notifier: its kind and settings, the event types and "
     "schedules it wants, its retry_for.",
     "GET", NOTIFIER, 0, NULL, NULL, RO | IDEMPOTENT,
     sked__mcp_notifier_in_name, sked__mcp_notifier_schema, NULL, NULL},
    {"apply_notifier", "Create or replace a notifier",
     "Create a notifier, or replace the one of that name: exactly one of "
     "webhook {url, headers, body, secret_file or secret_env, timeout}, "
     "command {argv, timeout} or email {to, from, subject, program, "
     "timeout}; events, the event types it wants (run.failed, "
     "run.timeout_exceeded, run.recovered, schedule.occurrences_missed, "
     "schedule.deadline_missed, schedule.disabled, schedule.paused); "
     "optionally schedules (names or globs) and retry_for. Each event it "
     "wants is delivered at least once. Answers the notifier as stored.",
     "PUT", NOTIFIER, 'b', NULL, NULL, IDEMPOTENT, sked__mcp_notifier_in_apply,
     sked__mcp_notifier_schema, NULL, NULL},
    {"delete_notifier", "Delete a notifier",
     "Delete a notifier: its deliveries not yet made fail. An unknown "
     "notifier is an error (not found).",
     "DELETE", NOTIFIER, 0, NULL, NULL, DESTRUCTIVE | IDEMPOTENT,
     sked__mcp_notifier_in_name, sked__mcp_notifier_deleted_schema, NULL, NULL},
    {"list_deliveries", "List notifier deliveries",
     "List the notify log, newest first: each delivery of an event to a "
     "notifier with its state (pending, delivered, failed), attempts, last "
     "error and status, and the event as sent; optionally one notifier's "
     "only. Pass the id of the last delivery as before for the next page.",
     "GET", "/api/v1/deliveries", 'q', NULL, NULL, RO | IDEMPOTENT,
     sked__mcp_deliveries_in, sked__mcp_deliveries_schema, "deliveries",
     "/api/v1/notifiers/{notifier}/deliveries"},
    {"list_events", "List events",
     "List the event log, oldest first, a page at a time: schedules "
     "created, changed, paused, disabled; runs created, started, finished; "
     "steps; and schedule.occurrences_missed, the occurrences that did not "
     "fire with the reason. Each payload's actor says who caused it (a "
     "token's name, user:LOGIN, code:APP, scheduler); actor keeps one's. "
     "Pass next_cursor back as after for the next page.",
     "GET", "/api/v1/events", 'q', NULL, NULL, RO | IDEMPOTENT, in_list_events,
     sked__mcp_event_page_schema, NULL, NULL},
};

#define NTOOLS (sizeof tools / sizeof tools[0])

static json_t *annotations(const tool *t)
{
    return json_pack("{s:s, s:b, s:b, s:b, s:b}", "title", t->title,
                     "readOnlyHint", (t->hints & RO) != 0, "destructiveHint",
                     (t->hints & DESTRUCTIVE) != 0, "idempotentHint",
                     (t->hints & IDEMPOTENT) != 0, "openWorldHint", 0);
}

/* The tools/list result, built from the tables. */
static json_t *tools_build(void)
{
    json_t *list = json_array();

    for (size_t i = 0; list && i < NTOOLS; i++) {
        const tool *t = &tools[i];
        json_t *in = t->input(), *out = t->output(), *a = annotations(t);
        json_t *o = in && out && a
                        ? json_pack("{s:s, s:s, s:s, s:o, s:o, s:o}", "name",
                                    t->name, "title", t->title, "description",
                                    t->desc, "inputSchema", in, "outputSchema",
                                    out, "annotations", a)
                        : NULL;
        if (!o) {
            if (!(in && out && a)) {
                json_decref(in);
                json_decref(out);
                json_decref(a);
            }
            json_decref(list);
            return NULL;
        }
        if (json_array_append_new(list, o) != 0) {
            json_decref(list);
            return NULL;
        }
    }
    return list ? json_pack("{s:o}", "tools", list) : NULL;
}

/* The tables are constants of the program, so the list is built once and
 * only read after: a tools/list or a call does not write the schemas
 * again. NULL when it could not be built (each is built again then). */
static pthread_once_t built_once = PTHREAD_ONCE_INIT;
static json_t *built;
/* Its text: a tools/list answers it as it is, instead of copying the
 * list and writing it again at each call (some 100 KB of schemas, which
 * took most of a tools/list's 2 ms). */
static char *built_text;
static size_t built_len;

static void build(void)
{
    built = tools_build();
    built_text = built ? sked__json_text(built, &built_len) : NULL;
}

static const json_t *tools_built(void)
{
    (void) pthread_once(&built_once, build);
    return built;
}

const char *sked__mcp_tools_list_text(size_t *len)
{
    (void) tools_built();
    *len = built_len;
    return built_text;
}

json_t *sked__mcp_tools_list(void)
{
    const json_t *list = tools_built();

    /* A copy: the caller may add to it (a cursor, _meta). */
    return list ? json_deep_copy(list) : tools_build();
}

/* The input schema of tool I: borrowed from the list built once, which
 * calls on several threads read at once (jansson's reference counts are
 * not atomic, so the shared list is never increfed), or, when it could
 * not be built, made anew into *owned (freed by the caller). NULL: out
 * of memory. */
static const json_t *input_schema(size_t i, json_t **owned)
{
    const json_t *list = json_object_get(tools_built(), "tools");
    json_t *in = json_object_get(json_array_get(list, i), "inputSchema");

    *owned = in ? NULL : tools[i].input();
    return in ? in : *owned;
}

/* ---- the request --------------------------------------------------------- */

/* Tell whether KEY is one of T's path arguments. */
static bool in_path(const tool *t, const char *key)
{
    size_t n = strlen(key);

    for (const char *p = strchr(t->path, '{'); p; p = strchr(p + 1, '{'))
        if (strncmp(p + 1, key, n) == 0 && p[n + 1] == '}')
            return true;
    return false;
}

/* The path of T for ARGS: T's by when ARGS give every "{arg}" of it. */
static const char *path_of(const tool *t, json_t *args)
{
    char name[64];

    if (!t->by)
        return t->path;
    for (const char *p = strchr(t->by, '{'); p; p = strchr(p + 1, '{')) {
        size_t n = (size_t) (strchr(p, '}') - p - 1);
        (void) snprintf(name, sizeof name, "%.*s", (int) n, p + 1);
        if (!json_is_string(json_object_get(args, name)))
            return t->path;
    }
    return t->by;
}

/* Refuse an empty path argument of T into *result: the path would name
 * another route. Returns 0 or SKED_ENOMEM. */
static int check_path(const tool *t, json_t *args, json_t **result)
{
    const char *key;
    json_t *v;

    *result = NULL;
    json_object_foreach(args, key, v)
    {
        if (in_path(t, key) && json_string_length(v) == 0) {
            *result = sked__mcp_tool_error(key, "must not be empty");
            return *result ? 0 : SKED_ENOMEM;
        }
    }
    return 0;
}

/* Tell whether the argument KEY of T goes where the rest does. */
static bool is_rest(const tool *t, const char *key)
{
    return !in_path(t, key) && !(t->whole && strcmp(t->whole, key) == 0) &&
           !(t->header && strcmp(t->header, key) == 0);
}

/* Append the value V of a query parameter to B. */
static void query_value(sked_buf *b, const json_t *v)
{
    char num[48];

    if (json_is_string(v)) {
        sked__mcp_escape(b, json_string_value(v));
        return;
    }
    if (json_is_integer(v))
        (void) snprintf(num, sizeof num, "%lld",
                        (long long) json_integer_value(v));
    else if (json_is_real(v) &&
             json_real_value(v) == (double) (json_int_t) json_real_value(v))
        (void) snprintf(num, sizeof num, "%lld",
                        (long long) json_real_value(v));
    else if (json_is_real(v))
        (void) snprintf(num, sizeof num, "%.17g", json_real_value(v));
    else
        (void) snprintf(num, sizeof num, "%s", json_is_true(v) ? "1" : "0");
    (void) sked__buf_puts(b, num);
}

/* The target of T with ARGS: its path with each "{arg}" escaped, then
 * the query. NULL when out of memory. */
static char *target_of(const tool *t, json_t *args)
{
    sked_buf b = {0};
    const char *key, *p = t->path, *end;
    const json_t *v;
    char sep = '?', name[64];

    for (; (end = strchr(p, '{')); p = strchr(end, '}') + 1) {
        size_t n = (size_t) (strchr(end, '}') - end - 1);
        (void) sked__buf_add(&b, p, (size_t) (end - p));
        (void) snprintf(name, sizeof name, "%.*s", (int) n, end + 1);
        sked__mcp_escape(&b, json_string_value(json_object_get(args, name)));
    }
    (void) sked__buf_puts(&b, p);
    json_object_foreach(args, key, v)
    {
        if (t->rest != 'q' || !is_rest(t, key) || json_is_null(v))
            continue;
        (void) sked__buf_printf(&b, "%c", sep);
        sked__mcp_escape(&b, key);
        (void) sked__buf_puts(&b, "=");
        query_value(&b, v);
        sep = '&';
    }
    if (t->rest == 'q' && (t->hints & AS_MCP) &&
        !json_object_get(args, "actor"))
        (void) sked__buf_printf(&b, "%cactor=mcp", sep);
    return sked__buf_take(&b, NULL);
}

/* The body of T with ARGS into *body (NULL: none). */
static int body_of(const tool *t, json_t *args, json_t **body)
{
    const char *key;
    json_t *v;

    *body = NULL;
    if (t->whole) {
        v = json_object_get(args, t->whole);
        *body = v ? json_incref(v) : json_object();
    } else if (t->rest == 'b') {
        *body = json_object();
        json_object_foreach(args, key, v)
        {
            if (*body && is_rest(t, key) && json_object_set(*body, key, v)) {
                json_decref(*body);
                *body = NULL;
            }
        }
        if (*body && (t->hints & AS_MCP) && !json_object_get(*body, "actor") &&
            json_object_set_new(*body, "actor", json_string("mcp")) != 0) {
            json_decref(*body);
            *body = NULL;
        }
    } else {
        return 0;
    }
    return *body ? 0 : SKED_ENOMEM;
}

/* What a request answered with no body (a DELETE's 204) stands for. */
static json_t *empty_answer(const tool *t, json_t *args)
{
    if (strcmp(t->method, "DELETE") == 0)
        return json_pack("{s:O, s:b}", "name", json_object_get(args, "name"),
                         "deleted", 1);
    return json_object();
}

/* ANSWER (taken) as the object of T's result: an array under T's wrap
 * key. NULL when out of memory. */
static json_t *wrapped(const tool *t, json_t *answer)
{
    if (!t->wrap || !json_is_array(answer))
        return answer;
    return json_pack("{s:o}", t->wrap, answer);
}

/* Ask the API T's request with ARGS (checked) for TARGET: the body as
 * JSON, or as its text for a RAW tool. */
static int ask(const mcp_ctx *c, const tool *t, json_t *args,
               const char *target, unsigned *status, json_t **answer,
               sked_error *err)
{
    const char *key =
        t->header ? json_string_value(json_object_get(args, t->header)) : NULL;
    json_t *body = NULL;
    int rc;

    if (t->hints & RAW)
        return sked__mcp_api_text(
            c, t->method, target,
            json_string_value(json_object_get(args, t->whole)), key, status,
            answer, err);
    if ((rc = body_of(t, args, &body)) != 0)
        return rc;
    rc = sked__mcp_api(c, t->method, target, body, key, status, answer, err);
    json_decref(body);
    return rc;
}

/* Make T's request with ARGS (checked) and put its result into *out. */
static int request(const mcp_ctx *c, const tool *t, json_t *args, json_t **out,
                   sked_error *err)
{
    char *target = target_of(t, args), msg[SKED_ERROR_MSG_MAX + 64];
    json_t *answer = NULL;
    unsigned status = 0;
    int rc =
        target ? ask(c, t, args, target, &status, &answer, err) : SKED_ENOMEM;
    bool ok = rc == 0 && status >= 200 && status < 300;

    free(target);
    if (ok && !answer)
        answer = empty_answer(t, args);
    if (ok && answer)
        answer = wrapped(t, answer);
    if (rc == SKED_ENOMEM || (ok && !answer))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, "out of memory");
    if (rc != 0) /* no answer: the server cannot be reached */
        *out = sked__mcp_tool_error(err->field, err->msg);
    else if (status < 200 || status >= 300) {
        sked__mcp_api_message(answer, status, msg, sizeof msg);
        *out = sked__mcp_tool_error(NULL, msg);
    } else
        *out = sked__mcp_tool_result(answer, true);
    json_decref(answer);
    return *out ? 0 : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
}

int sked__mcp_tool_call(const mcp_ctx *c, const char *name, json_t *args,
                        json_t **out, sked_error *err)
{
    const tool *t = NULL;
    const json_t *schema;
    json_t *owned = NULL, *none = NULL;
    tool u;
    int rc;

    *out = NULL;
    for (size_t i = 0; !t && i < NTOOLS; i++)
        if (strcmp(tools[i].name, name) == 0)
            t = &tools[i];
    if (!t)
        return sked__error_set(err, SKED_ENOTFOUND, "name", -1,
                               "no tool \"%.60s\"", name);
    if (args && !json_is_object(args))
        return sked__error_set(err, SKED_EINVAL, "arguments", -1,
                               "the arguments are not an object");
    if (!args && !(args = none = json_object()))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    /* The call's own row: the path its arguments choose. */
    u = *t;
    u.path = path_of(t, args);
    if (!(schema = input_schema((size_t) (t - tools), &owned)))
        rc = SKED_ENOMEM;
    else if ((rc = sked__mcp_check_args(schema, args, out)) == 0 && !*out &&
             (rc = check_path(&u, args, out)) == 0 && !*out)
        rc = request(c, &u, args, out, err);
    json_decref(owned);
    json_decref(none);
    if (rc == SKED_ENOMEM && !err->code)
        (void) sked__error_set(err, SKED_ENOMEM, NULL, -1, "out of memory");
    return rc;
}
