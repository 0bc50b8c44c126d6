/* SPDX-License-Identifier: MIT */
/* What the tools, the resources and the prompts of a session share
 * (tools.c, tools_schema.c, tools_call.c, resources.c, prompts.c): the
 * JSON Schemas written from the model's field tables and the request key
 * tables, the escaping of a value put into a target, and the reading of
 * the API's answers and errors. */
#ifndef SKED_MCP_TOOLS_INT_H
#define SKED_MCP_TOOLS_INT_H

#include <stdbool.h>

#include <jansson.h>

#include "base/buf.h"
#include "engine/request.h"
#include "mcp/mcp_int.h"

/* ---- schemas (tools_schema.c) -------------------------------------------- */

/* The properties of the API's schedule object, each {type, description,
 * bounds, default, enum} as OpenAPI has it; WRITABLE: only those a request
 * may set (the scheduler's state left out). NULL when out of memory. */
json_t *sked__mcp_schedule_props(bool writable);

/* A copy of the property KEY of the schedule object (NULL when out of
 * memory, or no such key), its description DESC when not NULL. */
json_t *sked__mcp_schedule_prop(const char *key, const char *desc);

/* The properties of the request T (request.h's key tables): each key with
 * its type, bounds and a description; a stream flag left out. */
json_t *sked__mcp_request_props(sked__request_table t);

/* The output schemas: a schedule, a page of them, a run (with its steps),
 * a page of runs, the workflows, a page of events. */
json_t *sked__mcp_schedule_schema(void);
json_t *sked__mcp_schedule_page_schema(void);
json_t *sked__mcp_run_schema(void);
json_t *sked__mcp_run_page_schema(void);
json_t *sked__mcp_workflows_schema(void);
json_t *sked__mcp_event_page_schema(void);

/* The output schemas of the other tools of tools.c's table: a run's id,
 * a backfill's counts, occurrences, a cron expression explained, a
 * simulation's decisions, a skip, the skips, a run of an occurrence and
 * a schedule deleted. */
json_t *sked__mcp_out_run_id(void);
json_t *sked__mcp_out_backfill(void);
json_t *sked__mcp_out_occurrences(void);
json_t *sked__mcp_out_explain(void);
json_t *sked__mcp_out_simulate(void);
json_t *sked__mcp_out_skip(void);
json_t *sked__mcp_out_skips(void);
json_t *sked__mcp_out_run_occurrence(void);
json_t *sked__mcp_out_deleted(void);

/* The calendar tools' schemas (tools_calendar.c): the input of a put
 * (every writable field, the name required), of a name, of the days of a
 * period; the output of a calendar, a list, the days and a delete. */
json_t *sked__mcp_calendar_in_put(void);
json_t *sked__mcp_calendar_in_name(void);
json_t *sked__mcp_calendar_in_days(void);
json_t *sked__mcp_calendar_schema(void);
json_t *sked__mcp_calendar_list_schema(void);
json_t *sked__mcp_calendar_days_schema(void);
json_t *sked__mcp_calendar_deleted_schema(void);

/* The notifier tools' schemas and ping_schedule's (tools_notifier.c):
 * the input of an apply (every writable key, the name required), of a
 * name, of the notify log's filters, of a ping; the output of a
 * notifier, a list, a page of deliveries and a delete. */
json_t *sked__mcp_notifier_in_apply(void);
json_t *sked__mcp_notifier_in_name(void);
json_t *sked__mcp_deliveries_in(void);
json_t *sked__mcp_ping_in(void);
json_t *sked__mcp_notifier_schema(void);
json_t *sked__mcp_notifier_list_schema(void);
json_t *sked__mcp_deliveries_schema(void);
json_t *sked__mcp_notifier_deleted_schema(void);

/* {"type": TYPE, "description": DESC}, TYPE a JSON Schema type name. */
json_t *sked__mcp_prop(const char *type, const char *desc);

/* {"type": "object", "properties": PROPS (taken), "required": [the
 * NULL-terminated names of REQUIRED], additionalProperties false when
 * CLOSED}. NULL when out of memory (PROPS freed). */
json_t *sked__mcp_object(json_t *props, const char *const *required,
                         bool closed);

/* The schema of an object whose one required key KEY is a list of ITEM
 * (taken; NULL: out of memory, then NULL is returned). */
json_t *sked__mcp_list_of(const char *key, json_t *item);

/* ---- requests and answers (tools_call.c) --------------------------------- */

/* Check ARGS against the input SCHEMA of a tool: a key not among its
 * properties, a value not of its type or a required one missing is a
 * tool error naming the argument, put into *result. Returns 0 (*result
 * NULL when nothing is wrong) or SKED_ENOMEM. */
int sked__mcp_check_args(const json_t *schema, json_t *args, json_t **result);

/* Append V to B percent-encoded: every byte but RFC 3986's unreserved,
 * and the dots of "." and "..", so that a name is one path segment or
 * one query value. */
void sked__mcp_escape(sked_buf *b, const char *v);

/* PREFIX then V as one segment of a URI's path ("sked://runs/" and a
 * run id), as a client expands the URI template (RFC 6570): every byte
 * but RFC 3986's unreserved escaped. A new string; NULL when out of
 * memory. */
char *sked__mcp_uri(const char *prefix, const char *v);

/* "FIELD: MESSAGE" of the API's error answer ANSWER (may be NULL) of
 * STATUS into OUT (room for N), as the CLI says it. */
void sked__mcp_api_message(const json_t *answer, unsigned status, char *out,
                           size_t n);

/* GET TARGET through C into *answer (a new reference). Returns 0 on 2xx;
 * else the code of the API's error (SKED_ENOTFOUND for 404, ...), ERR
 * holding its message and field. */
int sked__mcp_get(const mcp_ctx *c, const char *target, json_t **answer,
                  sked_error *err);

/* A CallToolResult: the text of ANSWER (borrowed) and, when STRUCTURED,
 * ANSWER as its structuredContent. NULL when out of memory. */
json_t *sked__mcp_tool_result(json_t *answer, bool structured);

/* A CallToolResult of a failed call: isError true, text "FIELD: MSG"
 * (FIELD NULL or "": MSG alone). NULL when out of memory. */
json_t *sked__mcp_tool_error(const char *field, const char *msg);

#endif
