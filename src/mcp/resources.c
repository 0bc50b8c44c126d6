/* SPDX-License-Identifier: MIT */
/* The resources of a session (mcp_int.h): each schedule as
 * sked://schedules/{name} and each run as sked://runs/{id}, their text
 * the API's JSON of them (GET /api/v1/schedules/{name}, GET
 * /api/v1/runs/{id}).
 *
 * The list is the schedules by name, a page of the API's list at a time,
 * then the most recent runs (one page of the runs list, newest first: a
 * database holds far more runs than anyone browses). Its cursor is
 * opaque to the client and is, inside, "s:" and the schedules list's
 * cursor, or "r:" for the runs. Which resources an event updates comes
 * from the event objects the engine writes: a schedule.* event's subject
 * is the schedule, a run.* or step.* event's subject is the run and its
 * payload's "schedule" the schedule it belongs to. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/json_text.h"
#include "mcp/tools_int.h"

#define PAGE          "100"
#define SCHEDULE_URI  "sked://schedules/"
#define RUN_URI       "sked://runs/"
#define MIME          "application/json"
#define SCHEDULE_PATH "/api/v1/schedules/"
#define RUN_PATH      "/api/v1/runs/"

/* The string member KEY of O, "" when none. */
static const char *str_of(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));

    return s ? s : "";
}

/* PREFIX then V escaped as one path segment of the API, a new string
 * (NULL: out of memory). */
static char *joined(const char *prefix, const char *v, const char *suffix)
{
    sked_buf b = {0};

    (void) sked__buf_puts(&b, prefix);
    sked__mcp_escape(&b, v);
    (void) sked__buf_puts(&b, suffix);
    return sked__buf_take(&b, NULL);
}

/* Append to LIST the resource URI of NAME, described as DESC. */
static int add_resource(json_t *list, const char *prefix, const char *name,
                        const char *title, const char *desc)
{
    char *uri = sked__mcp_uri(prefix, name);
    json_t *r =
        uri ? json_pack("{s:s, s:s, s:s, s:s, s:s}", "uri", uri, "name", name,
                        "title", title, "description", desc, "mimeType", MIME)
            : NULL;

    free(uri);
    return r && json_array_append_new(list, r) == 0 ? 0 : SKED_ENOMEM;
}

/* The schedule S as a resource of LIST. */
static int add_schedule(json_t *list, const json_t *s)
{
    const char *name = json_string_value(json_object_get(s, "name"));
    const char *desc = json_string_value(json_object_get(s, "description"));
    char text[200];

    if (!name)
        return 0;
    if (!desc)
        (void) snprintf(text, sizeof text, "schedule of workflow %.60s, %.20s",
                        str_of(s, "workflow"), str_of(s, "status"));
    return add_resource(list, SCHEDULE_URI, name, "schedule",
                        desc ? desc : text);
}

/* The run R as a resource of LIST. */
static int add_run(json_t *list, const json_t *r)
{
    const char *id = json_string_value(json_object_get(r, "id"));
    char text[200];

    if (!id)
        return 0;
    (void) snprintf(text, sizeof text, "run of workflow %.60s, %.20s",
                    str_of(r, "workflow"), str_of(r, "status"));
    return add_resource(list, RUN_URI, id, "run", text);
}

/* One page of the list: KIND 's' (schedules after AFTER, NULL: from the
 * first) or 'r' (the recent runs) into *out. */
static int list_page(const mcp_ctx *c, char kind, const char *after,
                     json_t **out, sked_error *err)
{
    char *target =
        kind == 'r' ? strdup("/api/v1/runs?limit=" PAGE)
        : after ? joined("/api/v1/schedules?limit=" PAGE "&cursor=", after, "")
                : strdup("/api/v1/schedules?limit=" PAGE);
    json_t *answer = NULL, *list = json_array(), *item;
    const char *next;
    size_t i;
    int rc =
        target && list ? sked__mcp_get(c, target, &answer, err) : SKED_ENOMEM;

    free(target);
    json_array_foreach(
        json_object_get(answer, kind == 'r' ? "runs" : "schedules"), i, item)
    {
        if (rc == 0)
            rc = kind == 'r' ? add_run(list, item) : add_schedule(list, item);
    }
    if (rc == 0 && !(*out = json_pack("{s:O}", "resources", list)))
        rc = SKED_ENOMEM;
    /* After the last schedule, the runs; after the runs, nothing. */
    next = json_string_value(json_object_get(answer, "next_cursor"));
    if (rc == 0 && kind == 's') {
        char *cursor = next ? joined("s:", next, "") : strdup("r:");
        if (!cursor ||
            json_object_set_new(*out, "nextCursor", json_string(cursor)) != 0)
            rc = SKED_ENOMEM;
        free(cursor);
    }
    json_decref(answer);
    json_decref(list);
    if (rc == SKED_ENOMEM && !err->code)
        (void) sked__error_set(err, rc, NULL, -1, "out of memory");
    return rc;
}

/* Decode the percent-escapes of S in place. Returns false for a bad one
 * or a NUL. */
static bool unescape(char *s)
{
    char *w = s;

    for (const char *r = s; *r; r++) {
        if (*r != '%') {
            *w++ = *r;
            continue;
        }
        char hex[3] = {r[1], r[1] ? r[2] : '\0', '\0'}, *end;
        long v = strtol(hex, &end, 16);
        if (!hex[0] || !hex[1] || *end || v == 0)
            return false;
        *w++ = (char) v;
        r += 2;
    }
    *w = '\0';
    return true;
}

int sked__mcp_resources_list(const mcp_ctx *c, const char *cursor, json_t **out,
                             sked_error *err)
{
    char *after;
    int rc;

    *out = NULL;
    if (!cursor)
        return list_page(c, 's', NULL, out, err);
    if (strcmp(cursor, "r:") == 0)
        return list_page(c, 'r', NULL, out, err);
    if (strncmp(cursor, "s:", 2) != 0 || !cursor[2])
        return sked__error_set(err, SKED_EINVAL, "cursor", -1,
                               "not a cursor of this list");
    if (!(after = strdup(cursor + 2)))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, "out of memory");
    rc = unescape(after) ? list_page(c, 's', after, out, err)
                         : sked__error_set(err, SKED_EINVAL, "cursor", -1,
                                           "not a cursor of this list");
    free(after);
    return rc;
}

json_t *sked__mcp_resource_templates(void)
{
    return json_pack(
        "{s:[{s:s, s:s, s:s, s:s, s:s}, {s:s, s:s, s:s, s:s, s:s}]}",
        "resourceTemplates", "uriTemplate", SCHEDULE_URI "{name}", "name",
        "schedule", "title", "A schedule", "description",
        "a schedule's definition and state, as GET /api/v1/schedules/{name} "
        "answers it",
        "mimeType", MIME, "uriTemplate", RUN_URI "{id}", "name", "run", "title",
        "A run", "description",
        "a run with every attempt of its steps, as GET /api/v1/runs/{id} "
        "answers it",
        "mimeType", MIME);
}

/* The API path of URI into *target (a new string); SKED_EINVAL when URI
 * is not one of the two kinds. */
static int uri_target(const char *uri, char **target, sked_error *err)
{
    const char *path = NULL, *rest = NULL;
    char *key;
    int rc = 0;

    *target = NULL;
    if (strncmp(uri, SCHEDULE_URI, strlen(SCHEDULE_URI)) == 0)
        path = SCHEDULE_PATH, rest = uri + strlen(SCHEDULE_URI);
    else if (strncmp(uri, RUN_URI, strlen(RUN_URI)) == 0)
        path = RUN_PATH, rest = uri + strlen(RUN_URI);
    if (!rest || !*rest || strchr(rest, '/') || strchr(rest, '?'))
        return sked__error_set(err, SKED_EINVAL, "uri", -1,
                               "not a resource of sked: %.80s (%s{name} or "
                               "%s{id})",
                               uri, SCHEDULE_URI, RUN_URI);
    if (!(key = strdup(rest)))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, "out of memory");
    if (!unescape(key))
        rc = sked__error_set(err, SKED_EINVAL, "uri", -1,
                             "a bad escape in %.80s", uri);
    else if (!(*target = joined(path, key, "")))
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, "out of memory");
    free(key);
    return rc;
}

int sked__mcp_resource_read(const mcp_ctx *c, const char *uri, json_t **out,
                            sked_error *err)
{
    json_t *answer = NULL;
    char *target, *text = NULL;
    int rc;

    *out = NULL;
    if ((rc = uri_target(uri, &target, err)) != 0)
        return rc;
    rc = sked__mcp_get(c, target, &answer, err);
    free(target);
    if (rc == SKED_ENOTFOUND)
        (void) sked__error_set(err, rc, "uri", -1, "no resource %.120s", uri);
    if (rc == 0 &&
        (!(text = sked__json_text(answer, NULL)) ||
         !(*out = json_pack("{s:[{s:s, s:s, s:s}]}", "contents", "uri", uri,
                            "mimeType", MIME, "text", text))))
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, "out of memory");
    free(text);
    json_decref(answer);
    return rc;
}

/* Call FN with PREFIX and V escaped. */
static void call_uri(void (*fn)(void *ctx, const char *uri), void *ctx,
                     const char *prefix, const char *v)
{
    char *uri = v && *v ? sked__mcp_uri(prefix, v) : NULL;

    if (uri)
        fn(ctx, uri);
    free(uri);
}

void sked__mcp_event_uris(json_t *event, void (*fn)(void *ctx, const char *uri),
                          void *ctx, bool *list_changed)
{
    const char *type = json_string_value(json_object_get(event, "type"));
    const char *subject = json_string_value(json_object_get(event, "subject"));
    const json_t *payload = json_object_get(event, "payload");

    if (!type || !subject)
        return;
    if (strncmp(type, "schedule.", 9) == 0) {
        call_uri(fn, ctx, SCHEDULE_URI, subject);
        if ((strcmp(type, "schedule.created") == 0 ||
             strcmp(type, "schedule.deleted") == 0) &&
            list_changed)
            *list_changed = true;
    } else if (strncmp(type, "run.", 4) == 0 ||
               strncmp(type, "step.", 5) == 0) {
        call_uri(fn, ctx, RUN_URI, subject);
        call_uri(fn, ctx, SCHEDULE_URI,
                 json_string_value(json_object_get(payload, "schedule")));
    }
}
