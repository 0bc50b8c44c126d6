/* SPDX-License-Identifier: MIT */
/* Stand-ins for tools.c, resources.c and prompts.c (mcp_int.h), until
 * they exist: one tool, list_schedules, and the two resources, each one
 * request of the API. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "mcp/mcp_int.h"

json_t *sked__mcp_tools_list(void)
{
    return json_pack("{s:[{s:s, s:s, s:{s:s}}]}", "tools", "name",
                     "list_schedules", "description", "The schedules.",
                     "inputSchema", "type", "object");
}

int sked__mcp_tool_call(const mcp_ctx *c, const char *name, json_t *args,
                        json_t **out, sked_error *err)
{
    json_t *answer = NULL;
    unsigned status;
    char *text;
    int rc;

    if (strcmp(name, "list_schedules") != 0)
        return sked__error_set(err, SKED_ENOTFOUND, "name", -1, NULL);
    if (args && !json_is_object(args))
        return sked__error_set(err, SKED_EINVAL, "arguments", -1,
                               "must be an object");
    rc = sked__mcp_api(c, "GET", "/api/v1/schedules", NULL, NULL, &status,
                       &answer, err);
    if (rc != 0)
        return rc;
    text = json_dumps(answer, JSON_COMPACT);
    *out = json_pack("{s:[{s:s, s:s}], s:o, s:b}", "content", "type", "text",
                     "text", text ? text : "", "structuredContent",
                     answer ? answer : json_object(), "isError", status >= 400);
    free(text);
    return *out ? 0 : SKED_ENOMEM;
}

int sked__mcp_resources_list(const mcp_ctx *c, const char *cursor, json_t **out,
                             sked_error *err)
{
    (void) c, (void) cursor, (void) err;
    *out = json_pack("{s:[]}", "resources");
    return *out ? 0 : SKED_ENOMEM;
}

json_t *sked__mcp_resource_templates(void)
{
    return json_pack("{s:[{s:s, s:s}, {s:s, s:s}]}", "resourceTemplates",
                     "uriTemplate", "sked://schedules/{name}", "name",
                     "schedule", "uriTemplate", "sked://runs/{id}", "name",
                     "run");
}

int sked__mcp_resource_read(const mcp_ctx *c, const char *uri, json_t **out,
                            sked_error *err)
{
    json_t *answer = NULL;
    char target[600];
    unsigned status;
    char *text;
    int rc;

    if (strncmp(uri, "sked://schedules/", 17) == 0)
        snprintf(target, sizeof target, "/api/v1/schedules/%.500s", uri + 17);
    else if (strncmp(uri, "sked://runs/", 12) == 0)
        snprintf(target, sizeof target, "/api/v1/runs/%.500s", uri + 12);
    else
        return sked__error_set(err, SKED_EINVAL, "uri", -1, "not sked://");
    if (strpbrk(target + 8, "?#%"))
        return sked__error_set(err, SKED_EINVAL, "uri", -1, "bad name");
    if ((rc = sked__mcp_api(c, "GET", target, NULL, NULL, &status, &answer,
                            err)) != 0)
        return rc;
    if (status == 404) {
        json_decref(answer);
        return sked__error_set(err, SKED_ENOTFOUND, "uri", -1, NULL);
    }
    text = json_dumps(answer, JSON_COMPACT);
    json_decref(answer);
    *out = json_pack("{s:[{s:s, s:s, s:s}]}", "contents", "uri", uri,
                     "mimeType", "application/json", "text", text ? text : "");
    free(text);
    return *out ? 0 : SKED_ENOMEM;
}

void sked__mcp_event_uris(json_t *event, void (*fn)(void *ctx, const char *uri),
                          void *ctx, bool *list_changed)
{
    const char *type = json_string_value(json_object_get(event, "type"));
    const char *subject = json_string_value(json_object_get(event, "subject"));
    char uri[600];

    if (!type || !subject)
        return;
    if (strncmp(type, "schedule.", 9) == 0) {
        snprintf(uri, sizeof uri, "sked://schedules/%.500s", subject);
        *list_changed = strcmp(type, "schedule.created") == 0 ||
                        strcmp(type, "schedule.deleted") == 0;
    } else if (strncmp(type, "run.", 4) == 0) {
        snprintf(uri, sizeof uri, "sked://runs/%.500s", subject);
    } else {
        return;
    }
    fn(ctx, uri);
}

json_t *sked__mcp_prompts_list(void)
{
    return json_pack("{s:[]}", "prompts");
}

int sked__mcp_prompt_get(const mcp_ctx *c, const char *name, json_t *args,
                         json_t **out, sked_error *err)
{
    (void) c, (void) name, (void) args, (void) out;
    return sked__error_set(err, SKED_ENOTFOUND, "name", -1, NULL);
}
