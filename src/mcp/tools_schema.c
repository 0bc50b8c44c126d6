/* SPDX-License-Identifier: MIT */
/* The JSON Schemas of the tools (tools_int.h), written from the tables
 * the API itself reads and writes with: a schedule's properties from its
 * OpenAPI schema (model/schedule_json.h, itself from the field table), a
 * list's query parameters from request.c's key tables, a run's fields
 * from the run's field table. So a field added to a table is a property
 * of the tools at once, with its type, bounds and description. */
#include <limits.h>
#include <string.h>

#include "mcp/tools_int.h"
#include "model/run_fields.h"
#include "model/schedule_fields.h"
#include "model/schedule_json.h"
#include "sked/run.h"

json_t *sked__mcp_prop(const char *type, const char *desc)
{
    return json_pack("{s:s, s:s}", "type", type, "description", desc);
}

json_t *sked__mcp_object(json_t *props, const char *const *required,
                         bool closed)
{
    json_t *o, *req = json_array();

    for (size_t i = 0; req && required && required[i]; i++)
        if (json_array_append_new(req, json_string(required[i])) != 0) {
            json_decref(req);
            req = NULL;
        }
    if (!props || !req) {
        json_decref(props);
        json_decref(req);
        return NULL;
    }
    o = json_pack("{s:s, s:o}", "type", "object", "properties", props);
    if (o && json_array_size(req) > 0)
        (void) json_object_set(o, "required", req);
    json_decref(req);
    if (o && closed &&
        json_object_set_new(o, "additionalProperties", json_false()) != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *sked__mcp_list_of(const char *key, json_t *item)
{
    return sked__mcp_object(
        item ? json_pack("{s:{s:s, s:o}}", key, "type", "array", "items", item)
             : NULL,
        (const char *const[]){key, NULL}, false);
}

/* ---- schedules ----------------------------------------------------------- */

json_t *sked__mcp_schedule_props(bool writable)
{
    json_t *schema = sked__schedule_json_schema(), *props, *p;
    const char *key;
    void *tmp;

    if (!schema)
        return NULL;
    props = json_incref(json_object_get(schema, "properties"));
    json_decref(schema);
    if (!props || !writable)
        return props;
    json_object_foreach_safe(props, tmp, key, p)
    {
        if (json_is_true(json_object_get(p, "readOnly")))
            (void) json_object_del(props, key);
        else
            (void) json_object_del(p, "writeOnly");
    }
    return props;
}

json_t *sked__mcp_schedule_prop(const char *key, const char *desc)
{
    json_t *props = sked__mcp_schedule_props(false), *p;

    p = props ? json_deep_copy(json_object_get(props, key)) : NULL;
    json_decref(props);
    if (p && desc &&
        json_object_set_new(p, "description", json_string(desc)) != 0) {
        json_decref(p);
        return NULL;
    }
    return p;
}

json_t *sked__mcp_schedule_schema(void)
{
    json_t *props = sked__mcp_schedule_props(false);

    if (props &&
        json_object_set_new(props, "warnings",
                            json_pack("{s:s, s:{s:s}, s:s}", "type", "array",
                                      "items", "type", "string", "description",
                                      "workflows no server has registered "
                                      "yet (absent when none)")) != 0) {
        json_decref(props);
        props = NULL;
    }
    /* Open: an answer may carry keys a newer server adds. */
    return sked__mcp_object(props, NULL, false);
}

/* {"ARRAY": [ITEM...], "next_cursor": string | null}. */
static json_t *page_schema(const char *array, json_t *item, const char *what)
{
    json_t *props =
        item ? json_pack("{s:{s:s, s:o}, s:{s:[s, s], s:s}}", array, "type",
                         "array", "items", item, "next_cursor", "type",
                         "string", "null", "description", what)
             : NULL;

    return sked__mcp_object(props, (const char *const[]){array, NULL}, false);
}

json_t *sked__mcp_schedule_page_schema(void)
{
    return page_schema("schedules", sked__mcp_schedule_schema(),
                       "the cursor of the next page; null on the last");
}

/* ---- query parameters and bodies ----------------------------------------- */

/* What a request key means, by its name and type; the tables know only
 * the type. A text key that is also a schedule's field (timezone, dst)
 * takes the schedule's property instead. */
static const struct {
    const char *key;
    char type; /* 0: any */
    const char *desc;
} key_docs[] = {
    {"status", 0, "only those with this status"},
    {"workflow", 0, "only those of this workflow"},
    {"schedule", 0, "only the runs of this schedule"},
    {"prefix", 0, "only the schedules whose name starts with this"},
    {"limit", 'n', "the most items listed"},
    {"cursor", 0,
     "the next_cursor of the previous page, for the page after it"},
    {"after", 't',
     "the occurrences strictly after this RFC 3339 instant "
     "(default: now)"},
    {"after", 0,
     "only the events after this id: the next_cursor of the "
     "previous page (latest: from the newest on)"},
    {"type", 0,
     "only the events of these types: exact names, comma-separated, at "
     "most 16 (\"run.failed,schedule.occurrences_missed\")"},
    {"subject", 0,
     "only the events of this subject: a schedule's name or a "
     "run's id"},
    {"start", 0, "the occurrences after this RFC 3339 instant"},
    {"end", 0, "the occurrences up to this RFC 3339 instant"},
    {"expr", 0,
     "the cron expression: 5 fields (minute hour day-of-month "
     "month day-of-week), 6 with seconds first, or a macro such "
     "as @daily"},
    {"n", 0, "how many next occurrences"},
    {"from", 0, "the start of the period: an RFC 3339 instant"},
    {"to", 0, "the end of the period: an RFC 3339 instant"},
    {"down", 0,
     "periods the scheduler was not running ({from, to} each), to "
     "see what catch-up does after them"},
    {"run_duration_secs", 0,
     "how long each run lasts, in seconds (for "
     "overlap)"},
    {"tick_secs", 0, "how often the scheduler looks, in seconds"},
    {"at", 0,
     "the occurrence: an RFC 3339 instant of the schedule's time spec"},
    {"reason", 0, "why it is skipped, kept with the skip (at most 1 KiB)"},
    {"actor", 0, "who skips it (default mcp)"},
};

static const char *key_doc(const char *key, char type)
{
    for (size_t i = 0; i < sizeof key_docs / sizeof key_docs[0]; i++)
        if (strcmp(key_docs[i].key, key) == 0 &&
            (!key_docs[i].type || key_docs[i].type == type))
            return key_docs[i].desc;
    return key;
}

/* An array of periods {"from", "to"}, both RFC 3339 instants, at most
 * MAX of them. */
static json_t *periods_prop(const char *desc, long max)
{
    return json_pack("{s:s, s:s, s:I, s:{s:s, s:{s:{s:s, s:s}, s:{s:s, s:s}}, "
                     "s:[s, s], s:b}}",
                     "type", "array", "description", desc, "maxItems",
                     (json_int_t) max, "items", "type", "object", "properties",
                     "from", "type", "string", "format", "date-time", "to",
                     "type", "string", "format", "date-time", "required",
                     "from", "to", "additionalProperties", 0);
}

/* The schedule's property KEY as a text value of a request, or NULL when
 * the schedule has no such field. */
static json_t *schedule_text_prop(const char *key)
{
    json_t *p =
        sked__sf_by_json(key) ? sked__mcp_schedule_prop(key, NULL) : NULL;

    if (p && (json_object_del(p, "default"), json_object_del(p, "readOnly"),
              json_object_set_new(p, "type", json_string("string")) != 0)) {
        json_decref(p);
        return NULL;
    }
    return p;
}

/* The values a status filter takes, for table T; NULL: none known. */
static json_t *status_enum(sked__request_table t)
{
    json_t *names = json_array();

    if (t == SKED__REQUEST_SCHEDULES)
        for (int i = 0; names && i < sked__enum_status.count; i++)
            (void) json_array_append_new(
                names, json_string(sked__enum_status.names[i]));
    if (t == SKED__REQUEST_RUNS)
        for (int i = SKED_RUN_PENDING; names && i <= SKED_RUN_CANCELLED; i++)
            (void) json_array_append_new(
                names, json_string(sked_run_status_name((sked_run_status) i)));
    return names;
}

/* The property of the key P of table T. */
static json_t *param_prop(sked__request_table t, const sked__request_param *p)
{
    /* "actor" names who skips in a skip, whom to keep in the events. */
    const char *desc = t == SKED__REQUEST_EVENTS && strcmp(p->key, "actor") == 0
                           ? "only the events this actor caused (the "
                             "payload's actor): a token's name, "
                             "user:LOGIN, code:APP or scheduler"
                           : key_doc(p->key, p->type);
    json_t *o = NULL;

    switch (p->type) {
    case 'n':
        o = json_pack("{s:s, s:s, s:I, s:I}", "type", "integer", "description",
                      desc, "minimum", (json_int_t) p->min, "maximum",
                      (json_int_t) p->max);
        break;
    case 'd':
        o = json_pack("{s:s, s:s, s:I, s:I}", "type", "number", "description",
                      desc, "minimum", (json_int_t) p->min, "maximum",
                      (json_int_t) p->max);
        break;
    case 'i':
    case 'c':
        /* A cursor is the id's text: either is taken. */
        o = json_pack("{s:[s, s], s:s, s:I, s:s}", "type", "integer", "string",
                      "description", desc, "minimum", (json_int_t) p->min,
                      "pattern",
                      p->type == 'c' ? "^([0-9]+|latest)$" : "^[0-9]+$");
        if (o && p->max < LONG_MAX &&
            json_object_set_new(o, "maximum",
                                json_integer((json_int_t) p->max)) != 0) {
            json_decref(o);
            o = NULL;
        }
        break;
    case 't':
        o = json_pack("{s:s, s:s, s:s}", "type", "string", "format",
                      "date-time", "description", desc);
        break;
    case 'f':
    case 'b':
        o = sked__mcp_prop("boolean", desc);
        break;
    case 'p':
        o = periods_prop(desc, p->max);
        break;
    case 'a':
        o = sked__mcp_prop("array", desc);
        break;
    default: /* 's', 'e' */
        /* Described here or not, a text key of the schedule's. */
        if ((p->type != 'e' && desc != p->key) ||
            !(o = schedule_text_prop(p->key)))
            o = sked__mcp_prop("string", desc);
        break;
    }
    if (o && strcmp(p->key, "status") == 0) {
        json_t *names = status_enum(t);
        if (json_array_size(names) > 0)
            (void) json_object_set(o, "enum", names);
        json_decref(names);
    }
    return o;
}

json_t *sked__mcp_request_props(sked__request_table t)
{
    json_t *props = json_object();
    sked__request_param p;

    for (size_t i = 0; props && sked__request_param_at(t, i, &p); i++) {
        if (p.stream)
            continue;
        if (json_object_set_new(props, p.key, param_prop(t, &p)) != 0) {
            json_decref(props);
            props = NULL;
        }
    }
    return props;
}

/* ---- runs ---------------------------------------------------------------- */

/* A run field's schema by its kind (run_fields.h): a DOC (context,
 * output) holds any JSON, so it has no type. */
#define RUN_PROP_ANY(m, kind, col, key) RUN_PROP_##kind(key)

json_t *sked__mcp_run_schema(void)
{
    json_t *props = json_object(), *steps;

#define RUN_PROP_TEXT(key)                                                     \
    RUN_ONE(key, json_pack("{s:[s, s]}", "type", "string", "null"))
#define RUN_PROP_TIME(key)    RUN_PROP_TEXT(key)
#define RUN_PROP_TRIGGER(key) RUN_PROP_TEXT(key)
#define RUN_PROP_STATUS(key)  RUN_ONE(key, json_pack("{s:s}", "type", "string"))
#define RUN_PROP_I32(key)                                                      \
    RUN_ONE(key, json_pack("{s:[s, s]}", "type", "integer", "null"))
#define RUN_PROP_DOC(key) RUN_ONE(key, json_object())
#define RUN_ONE(key, v)                                                        \
    if (props && json_object_set_new(props, key, v) != 0) {                    \
        json_decref(props);                                                    \
        props = NULL;                                                          \
    }
    SKED__RUN_SHOWN(RUN_PROP_ANY, RUN_PROP_ANY)
    steps = json_pack(
        "{s:s, s:s, s:{s:s, s:{s:{s:s}, s:{s:s}, s:{s:[s, s]}, s:{s:[s, s]}, "
        "s:{s:[s, s]}, s:{s:[s, s]}}}}",
        "type", "array", "description",
        "every attempt of every step, in order (get_run only)", "items", "type",
        "object", "properties", "step", "type", "string", "status", "type",
        "string", "exit_code", "type", "integer", "null", "output", "type",
        "string", "null", "stderr", "type", "string", "null", "error", "type",
        "string", "null");
    RUN_ONE("steps", steps)
#undef RUN_ONE
    return sked__mcp_object(props, NULL, false);
}

json_t *sked__mcp_run_page_schema(void)
{
    return page_schema("runs", sked__mcp_run_schema(),
                       "the cursor of the next page; null on the last");
}

json_t *sked__mcp_workflows_schema(void)
{
    json_t *item =
        json_pack("{s:s, s:{s:{s:[s, s]}, s:{s:[s, s]}, s:{s:[s, s]}, s:{}}}",
                  "type", "object", "properties", "name", "type", "string",
                  "null", "version", "type", "string", "null", "registered_at",
                  "type", "string", "null", "definition");
    return sked__mcp_list_of("workflows", item);
}

json_t *sked__mcp_event_page_schema(void)
{
    json_t *item = json_pack(
        "{s:s, s:{s:{s:s}, s:{s:s}, s:{s:s}, s:{}, s:{s:s}}}", "type", "object",
        "properties", "id", "type", "integer", "type", "type", "string",
        "subject", "type", "string", "payload", "at", "type", "string");

    return page_schema("events", item,
                       "the id to pass as after for the next page; null on "
                       "the last");
}

/* ---- the output schemas of tools.c's table
 * ------------------------------------------------------ */

json_t *sked__mcp_out_run_id(void)
{
    return sked__mcp_object(json_pack("{s:{s:s, s:s}}", "run_id", "type",
                                      "string", "description",
                                      "the id of the run created"),
                            (const char *const[]){"run_id", NULL}, false);
}

json_t *sked__mcp_out_backfill(void)
{
    return sked__mcp_object(
        json_pack("{s:{s:s, s:s}, s:{s:s, s:s}}", "created", "type", "integer",
                  "description", "runs created", "skipped", "type", "integer",
                  "description", "occurrences that already had a run"),
        (const char *const[]){"created", "skipped", NULL}, false);
}

static json_t *occurrence_item(void)
{
    return json_pack("{s:s, s:{s:{s:s}, s:{s:s}, s:{s:[s, s]}}}", "type",
                     "object", "properties", "at", "type", "string", "local",
                     "type", "string", "mark", "type", "string", "null");
}

json_t *sked__mcp_out_occurrences(void)
{
    json_t *item = occurrence_item();

    return sked__mcp_list_of("occurrences", item);
}

json_t *sked__mcp_out_explain(void)
{
    json_t *item = occurrence_item();

    return sked__mcp_object(
        item ? json_pack("{s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s, s:o}}", "expr",
                         "type", "string", "timezone", "type", "string",
                         "description", "type", "string", "occurrences", "type",
                         "array", "items", item)
             : NULL,
        (const char *const[]){"description", "occurrences", NULL}, false);
}

json_t *sked__mcp_out_simulate(void)
{
    json_t *item =
        json_pack("{s:s, s:{s:{s:s, s:[s, s]}, s:{}, s:{}, s:{}}}", "type",
                  "object", "properties", "decision", "type", "string", "enum",
                  "fire", "drop", "occurrence", "reason", "run_id");

    return sked__mcp_list_of("decisions", item);
}

json_t *sked__mcp_out_skip(void)
{
    return sked__mcp_object(
        json_pack("{s:{s:s}, s:{s:s}, s:{s:s, s:s}, s:{s:s, s:s}}", "schedule",
                  "type", "string", "occurrence", "type", "string", "skipped",
                  "type", "boolean", "description",
                  "whether the occurrence is skipped now", "changed", "type",
                  "boolean", "description",
                  "false: it was so already, nothing changed"),
        (const char *const[]){"schedule", "occurrence", "skipped", "changed",
                              NULL},
        false);
}

json_t *sked__mcp_out_skips(void)
{
    json_t *item = json_pack(
        "{s:s, s:{s:{s:s}, s:{s:s}, s:{s:[s, s]}, s:{s:s}}}", "type", "object",
        "properties", "occurrence", "type", "string", "actor", "type", "string",
        "reason", "type", "string", "null", "created_at", "type", "string");

    return sked__mcp_object(
        item ? json_pack("{s:{s:s}, s:{s:s, s:o}}", "schedule", "type",
                         "string", "skips", "type", "array", "items", item)
             : NULL,
        (const char *const[]){"schedule", "skips", NULL}, false);
}

json_t *sked__mcp_out_run_occurrence(void)
{
    return sked__mcp_object(
        json_pack("{s:{s:s, s:s}, s:{s:s, s:s}}", "run_id", "type", "string",
                  "description", "the occurrence's run (the id firing gives)",
                  "created", "type", "boolean", "description",
                  "false: the run existed already"),
        (const char *const[]){"run_id", "created", NULL}, false);
}

json_t *sked__mcp_out_deleted(void)
{
    return sked__mcp_object(
        json_pack("{s:{s:s}, s:{s:s, s:s}}", "name", "type", "string",
                  "deleted", "type", "boolean", "description",
                  "true: the schedule is gone (also when it did not exist)"),
        (const char *const[]){"name", "deleted", NULL}, false);
}
