/* SPDX-License-Identifier: MIT */
/* The requests and answers the tools, the resources and the prompts
 * share (tools_int.h): a value escaped into a target, the API's error
 * said as the CLI says it ("timezone: unknown time zone ..."), a GET
 * whose failure is an error code, and the two shapes of a tool's
 * result. */
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
