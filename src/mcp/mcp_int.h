/* SPDX-License-Identifier: MIT */
/* Inside a session (mcp.h): session.c speaks JSON-RPC and the protocol's
 * lifecycle, and hands each method's work to the module that owns it:
 * tools.c (tools/list, tools/call), resources.c (resources/..., and which
 * resources an event updates), prompts.c (prompts/...). Each of them
 * reaches sked through the API call of sked_mcp_options, only. */
#ifndef SKED_MCP_MCP_INT_H
#define SKED_MCP_MCP_INT_H

#include <jansson.h>

#include "mcp/mcp.h"

/* What a method handler needs of its session. */
typedef struct mcp_ctx {
    sked_mcp_api_fn api;
    void *api_ctx;
    const atomic_int *cancel; /* the request's; may be NULL */
} mcp_ctx;

/* Make one API request through C: METHOD, TARGET (path and query,
 * escaped), BODY (a JSON value, borrowed, or NULL). OUT: *status and
 * *answer (the parsed JSON body, a new reference; NULL when empty).
 * Returns 0 when the API answered (any status); a negative SKED_E...
 * code with ERR filled when it did not or its body is not JSON. */
int sked__mcp_api(const mcp_ctx *c, const char *method, const char *target,
                  json_t *body, const char *idempotency_key, unsigned *status,
                  json_t **answer, sked_error *err);

/* The same with the body the text TEXT as it is (NULL: none). */
int sked__mcp_api_text(const mcp_ctx *c, const char *method, const char *target,
                       const char *text, const char *idempotency_key,
                       unsigned *status, json_t **answer, sked_error *err);

/* ---- tools (tools.c) ----------------------------------------------------- */

/* The tools/list result: {"tools": [...]}, a new reference; NULL when
 * out of memory. Each tool with its inputSchema (from the model's field
 * tables), outputSchema and annotations. */
json_t *sked__mcp_tools_list(void);

/* The same as compact JSON text of *len bytes, built once and kept
 * (borrowed; never freed): what tools/list answers. NULL when out of
 * memory. */
const char *sked__mcp_tools_list_text(size_t *len);

/* Call the tool NAME with ARGS (borrowed; NULL: none) and put its
 * CallToolResult into *out (a new reference): content (text),
 * structuredContent and, when the tool failed (a bad argument, the API's
 * error), isError true with the API's message and field. Returns 0;
 * SKED_ENOTFOUND when there is no tool NAME, SKED_EINVAL when ARGS is
 * not an object (both answered -32602 by session.c); SKED_ENOMEM. */
int sked__mcp_tool_call(const mcp_ctx *c, const char *name, json_t *args,
                        json_t **out, sked_error *err);

/* ---- resources (resources.c) --------------------------------------------- */

/* The resources/list result for CURSOR (NULL: the first page), the
 * resources/templates/list result, and the resources/read result of URI
 * ("sked://schedules/NAME", "sked://runs/ID"): new references in *out.
 * Return 0; SKED_ENOTFOUND (no such resource: -32002), SKED_EINVAL (a bad
 * cursor or URI: -32602), or the API's failure with ERR filled. */
int sked__mcp_resources_list(const mcp_ctx *c, const char *cursor, json_t **out,
                             sked_error *err);
json_t *sked__mcp_resource_templates(void);
int sked__mcp_resource_read(const mcp_ctx *c, const char *uri, json_t **out,
                            sked_error *err);

/* Call FN with the URI of each resource that the event EVENT (one object
 * of GET /api/v1/events, borrowed) updates; LIST_CHANGED set when it
 * creates or deletes one (notifications/resources/list_changed). */
void sked__mcp_event_uris(json_t *event, void (*fn)(void *ctx, const char *uri),
                          void *ctx, bool *list_changed);

/* ---- prompts (prompts.c) ------------------------------------------------- */

/* The prompts/list result, a new reference (NULL: out of memory); the
 * prompts/get result of prompt NAME with ARGS (borrowed; may be NULL) in
 * *out. Returns 0, SKED_ENOTFOUND (no such prompt), SKED_EINVAL (a
 * missing or bad argument; ERR names it) — both -32602 — or the API's
 * failure. */
json_t *sked__mcp_prompts_list(void);
int sked__mcp_prompt_get(const mcp_ctx *c, const char *name, json_t *args,
                         json_t **out, sked_error *err);

#endif
