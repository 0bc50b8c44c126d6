/* SPDX-License-Identifier: MIT */
/* The requests and answers the tools, the resources and the prompts
 * share (tools_int.h): a value escaped into a target, the API's error
 * said as the CLI says it ("timezone: unknown time zone ..."), a GET
 * whose failure is an error code, the two shapes of a tool's result,
 * and the check of a call's arguments against its input schema. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/json_text.h"
#include "mcp/tools_int.h"

void sked__mcp_escape(sked_buf *b, const char *v)
{
    /* A segment "." or ".." would be a step of the path to a client
     * that resolves dot segments (libcurl does): escaped, it is a name. */
    if (strcmp(v, ".") == 0 || strcmp(v, "..") == 0)
        (void) sked__buf_puts(b, v[1] ? "%2E%2E" : "%2E");
    else
        (void) sked__buf_escape(b, v);
}

/* A URI is the template's expansion (RFC 6570, {id}: every byte but
 * the unreserved escaped), so that the URI a client expands from
 * resources/templates/list is the one listed and notified. */
char *sked__mcp_uri(const char *prefix, const char *v)
{
    sked_buf b = {0};

    (void) sked__buf_puts(&b, prefix);
    (void) sked__buf_escape(&b, v);
    return sked__buf_take(&b, NULL);
}

/* The message and field of the error answer ANSWER. */
static void api_error(const json_t *answer, const char **msg,
                      const char **field)
{
    const json_t *e = json_object_get(answer, "error");

    *msg = json_string_value(json_object_get(e, "message"));
    *field = json_string_value(json_object_get(e, "field"));
    if (field[0] && !field[0][0])
        *field = NULL;
}

/* "FIELD: MSG" into OUT, unless MSG says its field already. */
static void field_message(const char *field, const char *msg, char *out,
                          size_t n)
{
    size_t flen = field ? strlen(field) : 0;

    if (flen > 0 && !(strncmp(msg, field, flen) == 0 && msg[flen] == ':'))
        (void) snprintf(out, n, "%s: %s", field, msg);
    else
        (void) snprintf(out, n, "%s", msg);
}

void sked__mcp_api_message(const json_t *answer, unsigned status, char *out,
                           size_t n)
{
    const char *msg, *field;
    char other[64];

    api_error(answer, &msg, &field);
    if (!msg) {
        (void) snprintf(other, sizeof other, "the API answered %u", status);
        msg = other;
    }
    field_message(field, msg, out, n);
}

/* The code of an API error answered with STATUS. */
static int status_code(unsigned status)
{
    switch (status) {
    case 400:
        return SKED_ESYNTAX;
    case 401:
        return SKED_EUNAUTH;
    case 404:
        return SKED_ENOTFOUND;
    case 409:
        return SKED_ECONFLICT;
    case 413:
        return SKED_ETOOBIG;
    case 422:
        return SKED_EINVAL;
    case 503:
        return SKED_EBUSY;
    default:
        return SKED_EIO;
    }
}

int sked__mcp_get(const mcp_ctx *c, const char *target, json_t **answer,
                  sked_error *err)
{
    const char *msg, *field;
    unsigned status = 0;
    int rc;

    *answer = NULL;
    rc = sked__mcp_api(c, "GET", target, NULL, NULL, &status, answer, err);
    if (rc != 0)
        return rc;
    if (status >= 200 && status < 300)
        return 0;
    api_error(*answer, &msg, &field);
    rc = sked__error_set(err, status_code(status), field, -1, "%s",
                         msg ? msg : "the API failed");
    json_decref(*answer);
    *answer = NULL;
    return rc;
}

static json_t *text_content(const char *text)
{
    return json_pack("[{s:s, s:s}]", "type", "text", "text", text);
}

json_t *sked__mcp_tool_result(json_t *answer, bool structured)
{
    char *text = sked__json_text(answer, NULL);
    json_t *r = text ? json_pack("{s:o}", "content", text_content(text)) : NULL;

    free(text);
    if (r && structured &&
        json_object_set(r, "structuredContent", answer) != 0) {
        json_decref(r);
        return NULL;
    }
    return r;
}

json_t *sked__mcp_tool_error(const char *field, const char *msg)
{
    char text[SKED_ERROR_MSG_MAX + SKED_ERROR_FIELD_MAX + 64];

    field_message(field, msg, text, sizeof text);
    return json_pack("{s:o, s:b}", "content", text_content(text), "isError", 1);
}

/* ---- checking the arguments ---------------------------------------------- */

/* Tell whether V is of the JSON Schema type TYPE. */
static bool is_type(const char *type, const json_t *v)
{
    if (strcmp(type, "string") == 0)
        return json_is_string(v);
    if (strcmp(type, "integer") == 0)
        return json_is_integer(v) ||
               (json_is_real(v) &&
                json_real_value(v) == (double) (json_int_t) json_real_value(v));
    if (strcmp(type, "number") == 0)
        return json_is_number(v);
    if (strcmp(type, "boolean") == 0)
        return json_is_boolean(v);
    if (strcmp(type, "object") == 0)
        return json_is_object(v);
    if (strcmp(type, "array") == 0)
        return json_is_array(v);
    if (strcmp(type, "null") == 0)
        return json_is_null(v);
    return true;
}

/* Check V against the type of PROP; else "expected T or U" into MSG. */
static bool type_ok(const json_t *prop, const json_t *v, char *msg, size_t n)
{
    const json_t *type = json_object_get(prop, "type"), *t;
    size_t i, len = 0;

    if (!type || (json_is_string(type) && is_type(json_string_value(type), v)))
        return true;
    json_array_foreach(type, i,
                       t) if (is_type(json_string_value(t), v)) return true;
    len = (size_t) snprintf(msg, n, "expected ");
    if (json_is_string(type))
        (void) snprintf(msg + len, n - len, "%s", json_string_value(type));
    json_array_foreach(type, i, t)
    {
        int w = snprintf(msg + len, n - len, "%s%s", i ? " or " : "",
                         json_string_value(t));
        if (w > 0 && (size_t) w < n - len)
            len += (size_t) w;
    }
    return false;
}

int sked__mcp_check_args(const json_t *schema, json_t *args, json_t **result)
{
    const json_t *props = json_object_get(schema, "properties"), *v, *req;
    char msg[160], field[SKED_ERROR_FIELD_MAX] = "";
    const char *key;
    size_t i;

    *result = NULL;
    json_object_foreach(args, key, v)
    {
        const json_t *p = json_object_get(props, key);
        if (!p) {
            *result = sked__mcp_tool_error(key, "unknown argument");
            return *result ? 0 : SKED_ENOMEM;
        }
        if (!type_ok(p, v, msg, sizeof msg)) {
            *result = sked__mcp_tool_error(key, msg);
            return *result ? 0 : SKED_ENOMEM;
        }
    }
    json_array_foreach(json_object_get(schema, "required"), i, req)
    {
        key = json_string_value(req);
        v = json_object_get(args, key);
        if (!v || json_is_null(v)) {
            (void) snprintf(field, sizeof field, "%s", key);
            *result = sked__mcp_tool_error(field, "required");
            return *result ? 0 : SKED_ENOMEM;
        }
    }
    return 0;
}
