/* SPDX-License-Identifier: MIT */
/* The OpenAPI 3.1 document of the server (GET /api/v1/openapi.json),
 * built from the route tables themselves, so that it lists exactly the
 * routes the server answers, and a route added to a table is described
 * without more work: its operationId comes from its method and pattern,
 * its tag from its path, its errors from what every route can meet (a
 * malformed request, the token of a guarded path, an unknown {…} value,
 * the limits of a body). What a table cannot say (query parameters, the
 * schema of a body, a conflict) comes from the facts below, looked up by
 * method and pattern; a route without facts is still described, more
 * loosely. The schedule's schema comes from the model's field table. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "engine/request.h"
#include "http/http_int.h"
#include "model/calendar.h"
#include "model/notifier.h"
#include "model/schedule_json.h"
#include "sked/version.h"

/* What the route table does not say about a route. */
typedef struct facts {
    const char *method, *pattern;
    int query; /* its query's key table (engine/request.h); NONE: none */
    const sked__request_param *extra; /* more query parameters, to key NULL */
    const char *header;   /* a request header it reads; NULL: none */
    const char *body;     /* its body's schema in components; NULL: none */
    const char *conflict; /* when it answers 409; NULL: never */
    const char *answer;   /* its answer's schema in components; NULL: any */
} facts;

#define NONE (-1)

/* The query parameters read outside request.c's tables. */
static const sked__request_param occurrence_params[] = {
    {"n", 'n', 1, SKED_PREVIEW_MAX, false},
    {"after", 't', 0, 0, false},
    {NULL, 0, 0, 0, false},
};
static const sked__request_param calendar_day_params[] = {
    {"from", 'y', 0, 0, false},
    {"to", 'y', 0, 0, false},
    {"business", 'f', 0, 0, false},
    {NULL, 0, 0, 0, false},
};
static const sked__request_param unskip_params[] = {
    {"actor", 's', 0, 0, false},
    {NULL, 0, 0, 0, false},
};
static const sked__request_param simulate_params[] = {
    {"limit", 'n', 1, SKED__SIMULATE_LIMIT_MAX, false},
    {NULL, 0, 0, 0, false},
};

static const sked__request_param ping_params[] = {
    {"status", 's', 0, 0, false},
    {NULL, 0, 0, 0, false},
};
static const sked__request_param log_params[] = {
    {"before", 'n', 0, 0x7fffffffL, false},
    {"limit", 'n', 1, SKED_ENGINE_LIST_MAX, false},
    {NULL, 0, 0, 0, false},
};

static const facts route_facts[] = {
    {"POST", "/api/v1/schedules/{name}/ping", NONE, ping_params, NULL, NULL,
     "no occurrence awaits a ping: none is open and the next is more than a "
     "minute away",
     NULL},
    {"GET", "/api/v1/schedules", SKED__REQUEST_SCHEDULES, NULL, NULL, NULL,
     NULL, NULL},
    {"POST", "/api/v1/schedules", NONE, NULL, NULL, "NewSchedule",
     "a schedule of that name exists", "Schedule"},
    {"PUT", "/api/v1/schedules", NONE, NULL, NULL, "ScheduleSet",
     "a name of the set is a schedule of another app or of the API", NULL},
    {"GET", "/api/v1/schedules/{name}", NONE, NULL, NULL, NULL, NULL,
     "Schedule"},
    {"PATCH", "/api/v1/schedules/{name}", NONE, NULL, NULL, "Schedule", NULL,
     "Schedule"},
    {"POST", "/api/v1/schedules/{name}/pause", NONE, NULL, NULL, NULL, NULL,
     "Schedule"},
    {"POST", "/api/v1/schedules/{name}/resume", NONE, NULL, NULL, NULL, NULL,
     "Schedule"},
    {"POST", "/api/v1/schedules/{name}/trigger", NONE, NULL, NULL, NULL,
     "a run of an overlap: skip schedule is active", NULL},
    {"POST", "/api/v1/schedules/{name}/backfill", NONE, NULL, NULL, "Backfill",
     NULL, NULL},
    {"GET", "/api/v1/schedules/{name}/skips", NONE, NULL, NULL, NULL, NULL,
     NULL},
    {"POST", "/api/v1/schedules/{name}/skips", NONE, NULL, NULL, "Skip",
     "the occurrence is already decided", NULL},
    {"DELETE", "/api/v1/schedules/{name}/skips/{at}", NONE, unskip_params, NULL,
     NULL, "the occurrence is already decided", NULL},
    {"POST", "/api/v1/schedules/{name}/runs", NONE, NULL, NULL, "RunAt", NULL,
     NULL},
    {"GET", "/api/v1/schedules/{name}/occurrences", NONE, occurrence_params,
     NULL, NULL, NULL, NULL},
    {"POST", "/api/v1/schedules/{name}/simulate", NONE, simulate_params, NULL,
     "Simulate", NULL, NULL},
    {"POST", "/api/v1/calendars", NONE, NULL, NULL, "NewCalendar",
     "a calendar of that name exists, or its includes make a cycle",
     "Calendar"},
    {"PUT", "/api/v1/calendars", NONE, NULL, NULL, "CalendarSet",
     "a name of the set is a calendar of another app or of the API, its "
     "includes make a cycle, or one to prune is still included",
     NULL},
    {"GET", "/api/v1/calendars/{name}", NONE, NULL, NULL, NULL, NULL,
     "Calendar"},
    {"PUT", "/api/v1/calendars/{name}", NONE, NULL, NULL, "Calendar",
     "its includes make a cycle", "Calendar"},
    {"DELETE", "/api/v1/calendars/{name}", NONE, NULL, NULL, NULL,
     "another calendar includes it", NULL},
    {"GET", "/api/v1/calendars/{name}/days", NONE, calendar_day_params, NULL,
     NULL, NULL, NULL},
    {"PUT", "/api/v1/notifiers", NONE, NULL, NULL, "NotifierSet",
     "a name of the set is a notifier of another app's file", NULL},
    {"GET", "/api/v1/notifiers/{name}", NONE, NULL, NULL, NULL, NULL,
     "Notifier"},
    {"PUT", "/api/v1/notifiers/{name}", NONE, NULL, NULL, "Notifier", NULL,
     "Notifier"},
    {"GET", "/api/v1/notifiers/{name}/deliveries", NONE, log_params, NULL, NULL,
     NULL, NULL},
    {"GET", "/api/v1/deliveries", NONE, log_params, NULL, NULL, NULL, NULL},
    {"GET", "/api/v1/runs", SKED__REQUEST_RUNS, NULL, NULL, NULL, NULL, NULL},
    {"POST", "/api/v1/runs/{id}/cancel", NONE, NULL, NULL, NULL,
     "the run has finished", NULL},
    {"POST", "/api/v1/workflows/{name}/runs", NONE, NULL, "Idempotency-Key",
     "RunInput", NULL, NULL},
    {"GET", "/api/v1/events", SKED__REQUEST_EVENTS, NULL, "Last-Event-ID", NULL,
     NULL, NULL},
    {"GET", "/api/v1/cron/explain", SKED__REQUEST_CRON, NULL, NULL, NULL, NULL,
     NULL},
};

/* The tags, by the path they start: the first that matches names the
 * route's tag; a route under /api/v1/ that none names is tagged with its
 * first segment. */
static const struct {
    const char *prefix, *tag, *desc;
} tag_table[] = {
    {"/api/v1/schedules", "schedules",
     "Schedules: their definitions, state, runs on demand and replays"},
    {"/api/v1/calendars", "calendars",
     "Calendars: shared sets of days schedules exclude or keep to"},
    {"/api/v1/notifiers", "notifiers",
     "Notifiers: where chosen events are delivered, at least once"},
    {"/api/v1/deliveries", "notifiers", NULL},
    {"/api/v1/runs", "runs", "Runs: reading and cancelling them"},
    {"/api/v1/workflows", "workflows",
     "Workflows: the registered ones, and starting a run of one"},
    {"/api/v1/queues", "queues", "Queues: their limits and depths"},
    {"/api/v1/events", "events", "Events: stored, paged or streamed"},
    {"/api/v1/cron", "cron", "Cron expressions without a schedule behind them"},
    {"/api/v1/openapi.json", "service", NULL},
    {"/healthz", "service", NULL},
    {"/readyz", "service", NULL},
    {"/metrics", "service",
     "The server itself: health, readiness, metrics and this document"},
    {"/dashboard", "dashboard", "The dashboard's pages and files"},
    {"/mcp", "mcp", "The Model Context Protocol endpoint"},
};

static const facts *facts_of(const http_route *r)
{
    for (size_t i = 0; i < sizeof route_facts / sizeof route_facts[0]; i++)
        if (strcmp(route_facts[i].method, r->method) == 0 &&
            strcmp(route_facts[i].pattern, r->pattern) == 0)
            return &route_facts[i];
    return NULL;
}

/* The tag of PATTERN into BUF ("other" when it has none). */
static const char *tag_of(const char *pattern, char *buf, size_t size)
{
    size_t n;

    for (size_t i = 0; i < sizeof tag_table / sizeof tag_table[0]; i++) {
        n = strlen(tag_table[i].prefix);
        if (strncmp(pattern, tag_table[i].prefix, n) == 0 &&
            (pattern[n] == '\0' || pattern[n] == '/'))
            return tag_table[i].tag;
    }
    if (strcmp(pattern, "/") == 0)
        return "dashboard";
    if (strncmp(pattern, "/api/v1/", 8) == 0)
        pattern += 8;
    else
        pattern++;
    n = strcspn(pattern, "/{.");
    if (n == 0 || n >= size)
        return "other";
    memcpy(buf, pattern, n);
    buf[n] = '\0';
    return buf;
}

/* The description of tag TAG. */
static const char *tag_desc(const char *tag, char *buf, size_t size)
{
    for (size_t i = 0; i < sizeof tag_table / sizeof tag_table[0]; i++)
        if (tag_table[i].desc && strcmp(tag_table[i].tag, tag) == 0)
            return tag_table[i].desc;
    snprintf(buf, size, "The routes of %s", tag);
    return buf;
}

/* ---- operationId ---------------------------------------------------------
 * The method in lower case, then each literal segment of the pattern
 * (after /api/v1) with its first letter and every letter after a
 * non-alphanumeric in upper case, the others dropped: POST
 * /api/v1/schedules/{name}/pause is "postSchedulePause". A literal
 * followed by a {…} segment names one thing: a plural loses its s (GET
 * /api/v1/runs/{id} is "getRun"), a singular is followed by By and the
 * parameter (GET /dashboard/{file} is "getDashboardByFile"), and a {…}
 * after a {…} adds And and its name ("getDashboardByHashAndFile"). "/"
 * is "getRoot". Stable, and unique for the routes' patterns. */

/* Append S[0..N) to BUF (of SIZE, holding *LEN bytes), camel-cased. */
static void camel(char *buf, size_t size, size_t *len, const char *s, size_t n)
{
    bool up = true;

    for (size_t i = 0; i < n && *len + 1 < size; i++) {
        if (!isalnum((unsigned char) s[i])) {
            up = true;
            continue;
        }
        buf[(*len)++] = (char) (up ? toupper((unsigned char) s[i]) : s[i]);
        up = false;
    }
    buf[*len] = '\0';
}

static void operation_id(const http_route *r, char *buf, size_t size)
{
    const char *p = r->pattern;
    size_t len = 0;

    for (size_t i = 0; r->method[i] && len + 1 < size; i++)
        buf[len++] = (char) tolower((unsigned char) r->method[i]);
    buf[len] = '\0';
    if (strncmp(p, "/api/v1/", 8) == 0)
        p += 7;
    if (strcmp(p, "/") == 0)
        camel(buf, size, &len, "root", 4);
    for (bool after_param = false; *p == '/';) {
        const char *seg = ++p;
        size_t n = strcspn(seg, "/");
        bool before_param = seg[n] == '/' && seg[n + 1] == '{';

        p = seg + n;
        if (seg[0] == '{' && after_param) { /* {a}/{b}: ByAAndB */
            camel(buf, size, &len, "and", 3);
            camel(buf, size, &len, seg + 1, n > 2 ? n - 2 : 0);
        }
        after_param = seg[0] == '{';
        if (seg[0] == '{')
            continue;
        if (before_param && n > 1 && seg[n - 1] == 's' && seg[n - 2] != 's') {
            camel(buf, size, &len, seg, n - 1);
        } else if (before_param) {
            const char *param = seg + n + 2;
            camel(buf, size, &len, seg, n);
            camel(buf, size, &len, "by", 2);
            camel(buf, size, &len, param, strcspn(param, "}"));
        } else {
            camel(buf, size, &len, seg, n);
        }
    }
}

/* ---- keys and parameters ------------------------------------------------- */

static json_t *instant(const char *desc)
{
    return json_pack("{s:s, s:s, s:s}", "type", "string", "format", "date-time",
                     "description", desc);
}

static json_t *down_schema(void)
{
    return json_pack("{s:s, s:s, s:[s,s], s:{s:o, s:o}, s:b}", "description",
                     "an interval [from, to) the server is down", "type",
                     "object", "required", "from", "to", "properties", "from",
                     instant("its start"), "to", instant("its end"),
                     "additionalProperties", 0);
}

/* The schema of KEY, a key of the schedule's that names one of its
 * enumeration (dst: once or cadence), from the schedule's schema. */
static json_t *enum_schema(const char *key)
{
    json_t *schedule = sked__schedule_json_schema();
    json_t *names = json_object_get(
        json_object_get(json_object_get(schedule, "properties"), key), "enum");
    json_t *o = json_pack("{s:s, s:s}", "type", "string", "description",
                          "a name of the schedule field's enumeration");

    if (o && names && json_object_set(o, "enum", names) != 0) {
        json_decref(o);
        o = NULL;
    }
    json_decref(schedule);
    return o;
}

/* The schema of a key P of request.c's tables, with its description:
 * its type and bounds, as the reader takes it. */
static json_t *key_schema(const sked__request_param *p)
{
    switch (p->type) {
    case 'n':
    case 'i':
        return json_pack("{s:s, s:I, s:I, s:s}", "type", "integer", "minimum",
                         (json_int_t) p->min, "maximum",
                         (json_int_t) (p->max < LONG_MAX ? p->max : INT64_MAX),
                         "description", "a whole number");
    case 'd':
        return json_pack("{s:s, s:I, s:I, s:s}", "type", "number", "minimum",
                         (json_int_t) p->min, "maximum", (json_int_t) p->max,
                         "description", "a number of seconds");
    case 'c':
        return json_pack("{s:s, s:s, s:s}", "type", "string", "pattern",
                         "^([0-9]+|latest)$", "description",
                         "an event id, or latest: the newest one");
    case 'f':
        return json_pack("{s:s, s:[s,s,s,s], s:s}", "type", "string", "enum",
                         "1", "true", "0", "false", "description",
                         p->stream ? "1: a stream of events "
                                     "(text/event-stream) instead of a page"
                                   : "a flag");
    case 'b':
        return json_pack("{s:s, s:s}", "type", "boolean", "description",
                         "true or false");
    case 't':
        return json_pack("{s:s, s:s, s:s}", "type", "string", "format",
                         "date-time", "description", "an RFC 3339 instant");
    case 'y':
        return json_pack("{s:s, s:s, s:s}", "type", "string", "format", "date",
                         "description", "a date, YYYY-MM-DD");
    case 'p':
        return json_pack("{s:s, s:o, s:I, s:s}", "type", "array", "items",
                         down_schema(), "maxItems", (json_int_t) p->max,
                         "description", "intervals [from, to)");
    case 'a':
        return json_pack("{s:s, s:s}", "type", "array", "description",
                         "a list");
    case 'e':
        return enum_schema(p->key);
    default: /* 's' */
        return json_pack("{s:s, s:s}", "type", "string", "description", "text");
    }
}

/* Append the parameter NAME[0..N) in IN (path or header) to LIST.
 * Returns 0 or -1. */
static int add_param(json_t *list, const char *in, const char *name, size_t n)
{
    bool path = strcmp(in, "path") == 0;
    json_t *one = json_pack("{s:s%, s:s, s:b, s:s, s:{s:s}}", "name", name, n,
                            "in", in, "required", path, "description",
                            path ? "the name or id in the path, percent-encoded"
                                 : "see docs/api.md for its use",
                            "schema", "type", "string");

    return one ? json_array_append_new(list, one) : -1;
}

/* Append the query parameter P to LIST. Returns 0 or -1. */
static int add_query(json_t *list, const sked__request_param *p)
{
    json_t *schema = key_schema(p);
    json_t *one =
        json_pack("{s:s, s:s, s:b, s:O, s:o}", "name", p->key, "in", "query",
                  "required", 0, "description",
                  json_object_get(schema, "description"), "schema", schema);

    return one ? json_array_append_new(list, one) : -1;
}

/* The path parameters of R's pattern ("{name}" segments), then the header
 * and the query parameters of F. */
static json_t *parameters(const http_route *r, const facts *f)
{
    json_t *list = json_array();
    sked__request_param q;
    int rc = list ? 0 : -1;

    for (const char *p = strchr(r->pattern, '{'); p && rc == 0;
         p = strchr(p + 1, '{'))
        rc = add_param(list, "path", p + 1, strcspn(p + 1, "}"));
    if (f && f->header && rc == 0)
        rc = add_param(list, "header", f->header, strlen(f->header));
    for (size_t i = 0;
         f && f->query != NONE && rc == 0 &&
         sked__request_param_at((sked__request_table) f->query, i, &q);
         i++)
        rc = add_query(list, &q);
    for (size_t i = 0; f && f->extra && f->extra[i].key && rc == 0; i++)
        rc = add_query(list, &f->extra[i]);
    if (rc != 0) {
        json_decref(list);
        return NULL;
    }
    return list;
}

/* ---- operations ---------------------------------------------------------- */

/* True when R's path needs the token of a server that has one. */
static bool guarded(const http_route *r)
{
    /* A CORS preflight is answered without the token (server.c), since
     * a browser sends it before it sends the token. */
    if (strcmp(r->method, "OPTIONS") == 0)
        return false;
    return sked__http_guarded(r->pattern);
}

/* True when R takes a body: its facts say so, or, without facts, its
 * method is one that carries one. */
static bool takes_body(const http_route *r, const facts *f)
{
    if (f)
        return f->body != NULL;
    return strcmp(r->method, "POST") == 0 || strcmp(r->method, "PUT") == 0 ||
           strcmp(r->method, "PATCH") == 0;
}

static json_t *ref(const char *name)
{
    char path[96];

    snprintf(path, sizeof path, "#/components/schemas/%s", name);
    return json_pack("{s:s}", "$ref", path);
}

/* Set STATUS in RESPONSES to an error answer described by DESC. */
static int add_error(json_t *responses, const char *status, const char *desc)
{
    return json_object_set_new(responses, status,
                               json_pack("{s:s, s:{s:{s:o}}}", "description",
                                         desc, "content", "application/json",
                                         "schema", ref("Error")));
}

/* The errors R can answer with (SPEC 6's body, docs/api.md "Errors"). */
static int add_errors(json_t *responses, const http_route *r, const facts *f)
{
    bool body = takes_body(r, f);
    int rc;

    rc = add_error(responses, "400",
                   "a malformed request: JSON, query parameter, URI or "
                   "framing; an unknown field");
    if (guarded(r)) {
        rc |= add_error(responses, "401", "no token, or the wrong one");
        if (sked__http_route_scope(r) > SKED_SCOPE_READ)
            rc |= add_error(responses, "403",
                            "the token's scope does not allow it");
    }
    if (strchr(r->pattern, '{'))
        rc |= add_error(responses, "404", "nothing has that name or id");
    if (f && f->conflict)
        rc |= add_error(responses, "409", f->conflict);
    if (body)
        rc |= add_error(responses, "413", "a body over 1 MiB");
    if (body || (f && (f->query != NONE || f->extra)))
        rc |= add_error(responses, "422",
                        "a value of the wrong type or out of range (the "
                        "error's field names it)");
    rc |= json_object_set_new(
        responses, "default",
        json_pack("{s:s, s:{s:{s:o}}}", "description",
                  "the server's fault, or its database's (5XX)", "content",
                  "application/json", "schema", ref("Error")));
    return rc ? -1 : 0;
}

/* The answer of success of R. */
static json_t *success(const http_route *r, const facts *f)
{
    const char *type = "application/json";
    json_t *schema;

    if (r->ok_status == 204)
        return json_pack("{s:s}", "description", "done; no body");
    if (strcmp(r->pattern, "/") == 0 ||
        strncmp(r->pattern, "/dashboard", 10) == 0)
        return json_pack("{s:s, s:{s:{s:{}}}}", "description", "the file",
                         "content", "*/*", "schema");
    if (strcmp(r->pattern, "/metrics") == 0)
        return json_pack("{s:s, s:{s:{s:{s:s}}}}", "description",
                         "the Prometheus text format, version 0.0.4", "content",
                         "text/plain", "schema", "type", "string");
    schema =
        f && f->answer ? ref(f->answer) : json_pack("{s:s}", "type", "object");
    if (strcmp(r->pattern, "/api/v1/events") == 0) /* with follow=1 */
        return json_pack("{s:s, s:{s:{s:o}, s:{s:{s:s}}}}", "description",
                         "a page of events, or with follow=1 their stream",
                         "content", type, "schema", schema, "text/event-stream",
                         "schema", "type", "string");
    return json_pack("{s:s, s:{s:{s:o}}}", "description", "success", "content",
                     type, "schema", schema);
}

/* The description of R: its summary, then who may call it. */
static json_t *description(const http_route *r, const char *summary)
{
    char buf[512];

    if (guarded(r))
        snprintf(buf, sizeof buf,
                 "%s%s Needs, on a server with tokens, one of the scope %s "
                 "(docs/api.md).",
                 summary,
                 summary[0] && summary[strlen(summary) - 1] == '.' ? "" : ".",
                 sked__scope_name(sked__http_route_scope(r)));
    else
        snprintf(buf, sizeof buf, "%s%s Needs no token.", summary,
                 summary[0] && summary[strlen(summary) - 1] == '.' ? "" : ".");
    return json_string(buf);
}

/* The operation object of route R, its operationId ID, its tag TAG. */
static json_t *operation(const http_route *r, const char *id, const char *tag)
{
    const facts *f = facts_of(r);
    const char *summary = r->summary && r->summary[0] ? r->summary : r->pattern;
    unsigned status = r->ok_status ? r->ok_status : 200;
    json_t *op, *responses = json_object();
    char ok[16];
    int rc;

    snprintf(ok, sizeof ok, "%u", status);
    if (!responses || json_object_set_new(responses, ok, success(r, f)) < 0 ||
        add_errors(responses, r, f) < 0) {
        json_decref(responses);
        return NULL;
    }
    op = json_pack("{s:s, s:s, s:o, s:[s], s:o, s:o}", "operationId", id,
                   "summary", summary, "description", description(r, summary),
                   "tags", tag, "parameters", parameters(r, f), "responses",
                   responses);
    rc = op ? 0 : -1;
    if (rc == 0 && !guarded(r))
        rc = json_object_set_new(op, "security", json_array());
    if (rc == 0 && takes_body(r, f))
        rc = json_object_set_new(
            op, "requestBody",
            json_pack("{s:b, s:{s:{s:o}}}", "required",
                      f && strcmp(f->body, "RunInput") != 0, "content",
                      "application/json", "schema",
                      f ? ref(f->body) : json_pack("{s:s}", "type", "object")));
    if (rc != 0) {
        json_decref(op);
        return NULL;
    }
    return op;
}

/* ---- the schemas --------------------------------------------------------- */

static json_t *error_schema(void)
{
    return json_pack(
        "{s:s, s:s, s:[s], s:{s:{s:s, s:[s,s], s:{s:{s:s}, s:{s:s}, "
        "s:{s:s}, s:{s:s, s:i}}}}}",
        "description", "an error (SPEC 6, docs/api.md \"Errors\")", "type",
        "object", "required", "error", "properties", "error", "type", "object",
        "required", "code", "message", "properties", "code", "type", "string",
        "message", "type", "string", "field", "type", "string", "position",
        "type", "integer", "minimum", 0);
}

/* The schema of the body read with request.c's table T: an object of
 * its keys, A and B required, no other key. */
static json_t *table_schema(sked__request_table t, const char *a, const char *b,
                            const char *desc)
{
    json_t *props = json_object();
    sked__request_param p;

    for (size_t i = 0; props && sked__request_param_at(t, i, &p); i++)
        if (json_object_set_new(props, p.key, key_schema(&p)) != 0) {
            json_decref(props);
            props = NULL;
        }
    if (!b)
        return json_pack("{s:s, s:s, s:[s], s:o, s:b}", "description", desc,
                         "type", "object", "required", a, "properties", props,
                         "additionalProperties", 0);
    return json_pack("{s:s, s:s, s:[s,s], s:o, s:b}", "description", desc,
                     "type", "object", "required", a, b, "properties", props,
                     "additionalProperties", 0);
}

/* The schema of NAME, a body's (facts.body). */
static json_t *body_schema(const char *name)
{
    if (strcmp(name, "NewSchedule") == 0)
        return json_pack("{s:s, s:[o, {s:[s,s]}]}", "description",
                         "a schedule to create: name, workflow and one of "
                         "cron, every, at or rrule",
                         "allOf", ref("Schedule"), "required", "name",
                         "workflow");
    if (strcmp(name, "NewCalendar") == 0)
        return json_pack("{s:s, s:[o, {s:[s]}]}", "description",
                         "a calendar to create: a name and its days", "allOf",
                         ref("Calendar"), "required", "name");
    if (strcmp(name, "ScheduleSet") == 0)
        return json_pack(
            "{s:s, s:s, s:[s], s:{s:{s:s, s:o}, s:{s:s, s:b}, s:{s:s}}, s:b}",
            "description",
            "the code schedules of an app, applied all or nothing", "type",
            "object", "required", "schedules", "properties", "schedules",
            "type", "array", "items", ref("NewSchedule"), "prune", "type",
            "boolean", "default", 0, "app", "type", "string",
            "additionalProperties", 0);
    if (strcmp(name, "CalendarSet") == 0)
        return json_pack(
            "{s:s, s:s, s:[s], s:{s:{s:s, s:o}, s:{s:s, s:b}, s:{s:s}}, s:b}",
            "description",
            "the code calendars of an app, applied all or nothing", "type",
            "object", "required", "calendars", "properties", "calendars",
            "type", "array", "items", ref("NewCalendar"), "prune", "type",
            "boolean", "default", 0, "app", "type", "string",
            "additionalProperties", 0);
    if (strcmp(name, "NotifierSet") == 0)
        return json_pack(
            "{s:s, s:s, s:[s], s:{s:{s:s, s:o}, s:{s:s, s:b}, s:{s:s}}, s:b}",
            "description",
            "the code notifiers of an app, applied all or nothing", "type",
            "object", "required", "notifiers", "properties", "notifiers",
            "type", "array", "items", ref("Notifier"), "prune", "type",
            "boolean", "default", 0, "app", "type", "string",
            "additionalProperties", 0);
    if (strcmp(name, "Backfill") == 0)
        return table_schema(SKED__REQUEST_BACKFILL, "start", "end",
                            "the period (start, end) of the runs to create");
    if (strcmp(name, "Skip") == 0)
        return table_schema(SKED__REQUEST_SKIP, "at", NULL,
                            "the occurrence to skip (an instant of the "
                            "schedule's time spec), why, and who");
    if (strcmp(name, "RunAt") == 0)
        return table_schema(SKED__REQUEST_SKIP, "at", NULL,
                            "the past occurrence to run now (an instant of "
                            "the schedule's time spec); reason and actor are "
                            "ignored");
    if (strcmp(name, "Simulate") == 0)
        return table_schema(SKED__REQUEST_SIMULATE, "from", "to",
                            "the period (from, to] to replay, the intervals "
                            "the server is down, how long runs last, the "
                            "server's tick and how many decisions to list");
    if (strcmp(name, "RunInput") == 0)
        return json_pack("{s:s, s:s}", "description",
                         "the run's input; an empty body is {}", "type",
                         "object");
    return NULL;
}

/* Add to SCHEMAS every schema the operations of PATHS refer to. */
static int add_schemas(json_t *schemas, json_t *used)
{
    const char *name;
    json_t *v;
    int rc = json_object_set_new(schemas, "Error", error_schema());

    rc |=
        json_object_set_new(schemas, "Schedule", sked__schedule_json_schema());
    rc |=
        json_object_set_new(schemas, "Calendar", sked__calendar_json_schema());
    rc |=
        json_object_set_new(schemas, "Notifier", sked__notifier_json_schema());
    json_object_foreach(used, name, v)
    {
        if (!json_object_get(schemas, name))
            rc |= json_object_set_new(schemas, name, body_schema(name));
    }
    /* A set of schedules is made of new ones. */
    if (json_object_get(used, "ScheduleSet") &&
        !json_object_get(schemas, "NewSchedule"))
        rc |= json_object_set_new(schemas, "NewSchedule",
                                  body_schema("NewSchedule"));
    /* A set of calendars is made of new ones. */
    if (json_object_get(used, "CalendarSet") &&
        !json_object_get(schemas, "NewCalendar"))
        rc |= json_object_set_new(schemas, "NewCalendar",
                                  body_schema("NewCalendar"));
    return rc ? -1 : 0;
}

/* ---- the document -------------------------------------------------------- */

/* Add route R to PATHS, its tag to TAGS (name -> description), the body
 * schema it names to USED, its operationId to IDS. Returns 0 or -1. */
static int add_route(json_t *paths, json_t *tags, json_t *used, json_t *ids,
                     const http_route *r)
{
    json_t *item = json_object_get(paths, r->pattern);
    const facts *f = facts_of(r);
    char id[128], tbuf[64], dbuf[96], method[8];
    const char *tag = tag_of(r->pattern, tbuf, sizeof tbuf);
    size_t i;
    int rc = 0;

    operation_id(r, id, sizeof id);
    /* Two patterns that read the same: the later one is numbered. */
    for (int n = 2; json_object_get(ids, id) && n < 100; n++) {
        size_t len = strlen(id);
        snprintf(id + (len > sizeof id - 4 ? sizeof id - 4 : len), 4, "%d", n);
    }
    if (!item) {
        item = json_object();
        if (!item || json_object_set_new(paths, r->pattern, item) < 0)
            return -1;
    }
    for (i = 0; r->method[i] && i + 1 < sizeof method; i++)
        method[i] = (char) tolower((unsigned char) r->method[i]);
    method[i] = '\0';
    if (!json_object_get(tags, tag))
        rc |= json_object_set_new(
            tags, tag, json_string(tag_desc(tag, dbuf, sizeof dbuf)));
    if (f && f->body)
        rc |= json_object_set_new(used, f->body, json_true());
    rc |= json_object_set_new(ids, id, json_true());
    rc |= json_object_set_new(item, method, operation(r, id, tag));
    return rc ? -1 : 0;
}

/* The top-level tags: TAGS (name -> description) as tag objects. */
static json_t *tag_list(json_t *tags)
{
    json_t *list = json_array(), *v;
    const char *name;

    json_object_foreach(tags, name, v)
    {
        if (list &&
            json_array_append_new(list, json_pack("{s:s, s:O}", "name", name,
                                                  "description", v)) < 0) {
            json_decref(list);
            list = NULL;
        }
    }
    return list;
}

static json_t *info(void)
{
    return json_pack(
        "{s:s, s:s, s:s, s:{s:s, s:s}}", "title", "sked", "version",
        SKED_VERSION, "description",
        "The HTTP API of sked, a durable workflow scheduler: schedules, "
        "runs, workflows, queues, events, metrics and health. Errors have "
        "one body: {\"error\": {\"code\", \"message\", \"field\"}}.",
        "license", "name", "MIT", "identifier", "MIT");
}

json_t *sked__http_openapi(void)
{
    json_t *paths = json_object(), *tags = json_object();
    json_t *used = json_object(), *ids = json_object();
    json_t *schemas = json_object(), *doc = NULL;
    int rc = paths && tags && used && ids && schemas ? 0 : -1;

    for (size_t t = 0; rc == 0 && sked__http_tables[t]; t++)
        for (const http_route *r = sked__http_tables[t]; rc == 0 && r->method;
             r++)
            rc = add_route(paths, tags, used, ids, r);
    if (rc == 0)
        rc = add_schemas(schemas, used);
    if (rc == 0)
        doc = json_pack("{s:s, s:o, s:[{s:s, s:s}], s:O, s:o, s:{s:O, "
                        "s:{s:{s:s, s:s}}}, s:[{s:[]}]}",
                        "openapi", "3.1.0", "info", info(), "servers", "url",
                        "/", "description", "the server that serves this",
                        "paths", paths, "tags", tag_list(tags), "components",
                        "schemas", schemas, "securitySchemes", "bearer", "type",
                        "http", "scheme", "bearer", "security", "bearer");
    json_decref(paths);
    json_decref(tags);
    json_decref(used);
    json_decref(ids);
    json_decref(schemas);
    return doc;
}
