/* SPDX-License-Identifier: MIT */
/* Reading and writing JSON-RPC 2.0 messages (jsonrpc.h). A message is
 * refused before anything reads its method: text that is not JSON
 * (invalid UTF-8 included, which jansson checks) is a parse error; JSON
 * that is no request, notification or response is an invalid request,
 * answered with the message's id when that id is valid, else with a
 * null one, as the specification says. Nothing here knows MCP's
 * methods. */
#include "mcp/jsonrpc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json_io.h"
#include "base/json_text.h"
#include "base/utf8.h"
#include "mcp/mcp.h"

int sked__rpc_fail(rpc_error *e, int code, const char *fmt, ...)
{
    va_list ap;

    e->code = code;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    /* The message may quote the input, which may be any bytes: an
     * answer must stay valid UTF-8. */
    sked__utf8_scrub(e->msg);
    return code;
}

/* Refuse text jansson could not read. Valid JSON that jansson will not
 * hold (a number past 64 bits, a \u0000, nesting past its depth) is an
 * invalid request rather than a parse error. */
static int parse_failure(const json_error_t *je, rpc_error *e)
{
    int at = je->position;

    switch (json_error_code(je)) {
    case json_error_numeric_overflow:
        return sked__rpc_fail(e, RPC_INVALID_REQUEST,
                              "Invalid Request: a number is out of range (at "
                              "byte %d)",
                              at);
    case json_error_null_character:
    case json_error_null_byte_in_key:
        return sked__rpc_fail(e, RPC_INVALID_REQUEST,
                              "Invalid Request: a string holds \\u0000 (at "
                              "byte %d)",
                              at);
    case json_error_stack_overflow:
        return sked__rpc_fail(e, RPC_INVALID_REQUEST,
                              "Invalid Request: nested too deep (at byte %d)",
                              at);
    case json_error_invalid_utf8:
        return sked__rpc_fail(e, RPC_PARSE_ERROR,
                              "Parse error: invalid UTF-8 (at byte %d)", at);
    default:
        return sked__rpc_fail(e, RPC_PARSE_ERROR,
                              "Parse error: %s (at byte %d)", je->text, at);
    }
}

static bool valid_id(const json_t *id)
{
    return json_is_string(id) || json_is_integer(id);
}

/* Check the members of the object ROOT and fill OUT. Returns 0 or the
 * error's code with E filled. */
static int read_members(json_t *root, rpc_msg *out, rpc_error *e)
{
    json_t *v = json_object_get(root, "jsonrpc");
    json_t *id = json_object_get(root, "id");
    json_t *method = json_object_get(root, "method");

    if (!json_is_string(v) || strcmp(json_string_value(v), "2.0") != 0)
        return sked__rpc_fail(e, RPC_INVALID_REQUEST,
                              "Invalid Request: jsonrpc: must be \"2.0\"");
    if (id && !valid_id(id))
        return sked__rpc_fail(e, RPC_INVALID_REQUEST,
                              "Invalid Request: id: must be a string or an "
                              "integer");
    if (!method) {
        if (id && (json_object_get(root, "result") ||
                   json_object_get(root, "error"))) {
            out->kind = RPC_RESPONSE;
            out->id = id;
            return 0;
        }
        return sked__rpc_fail(e, RPC_INVALID_REQUEST,
                              "Invalid Request: method: missing");
    }
    if (!json_is_string(method))
        return sked__rpc_fail(e, RPC_INVALID_REQUEST,
                              "Invalid Request: method: must be a string");
    out->kind = id ? RPC_REQUEST : RPC_NOTIFICATION;
    out->id = id;
    out->method = json_string_value(method);
    out->params = json_object_get(root, "params");
    return 0;
}

int sked__rpc_read(const char *text, size_t len, rpc_msg *out, json_t **id,
                   rpc_error *e)
{
    json_error_t je;
    json_t *root, *v;
    int rc;

    memset(out, 0, sizeof *out);
    *id = NULL;
    if (len > SKED_MCP_MESSAGE_MAX)
        return sked__rpc_fail(e, RPC_INVALID_REQUEST,
                              "Invalid Request: the message is larger than "
                              "%d bytes",
                              SKED_MCP_MESSAGE_MAX);
    /* Any value, so that "5" is an invalid request, not a parse error;
     * memory that ran out is not the message's fault. */
    rc = sked__json_load(text, len, JSON_DECODE_ANY, &root, &je);
    if (rc == SKED_ENOMEM)
        return sked__rpc_fail(e, RPC_INTERNAL_ERROR,
                              "Internal error: out of memory");
    if (rc != 0)
        return parse_failure(&je, e);
    if (json_is_array(root)) {
        json_decref(root);
        return sked__rpc_fail(e, RPC_INVALID_REQUEST,
                              "Invalid Request: a batch (an array of "
                              "messages) is not accepted since MCP "
                              "2025-06-18: send each message alone");
    }
    if (!json_is_object(root)) {
        json_decref(root);
        return sked__rpc_fail(e, RPC_INVALID_REQUEST,
                              "Invalid Request: a message must be a JSON "
                              "object");
    }
    if ((v = json_object_get(root, "id")) && valid_id(v))
        *id = json_incref(v);
    if ((rc = read_members(root, out, e)) != 0) {
        json_decref(root);
        memset(out, 0, sizeof *out);
        return rc;
    }
    out->root = root;
    return 0;
}

void sked__rpc_msg_done(rpc_msg *m)
{
    json_decref(m->root);
    memset(m, 0, sizeof *m);
}

/* Write O (stolen) as text. */
static char *text_of(json_t *o, size_t *len)
{
    char *t = o ? sked__json_text(o, len) : NULL;

    json_decref(o);
    return t;
}

char *sked__rpc_result(json_t *id, json_t *result, size_t *len)
{
    if (!result)
        return NULL;
    return text_of(json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id",
                             id ? id : json_null(), "result", result),
                   len);
}

char *sked__rpc_result_text(json_t *id, const char *result, size_t n,
                            size_t *len)
{
    size_t idn;
    char *idt = sked__json_text(id ? id : json_null(), &idn);
    sked_buf b = {0};

    if (!idt)
        return NULL;
    /* As sked__rpc_result writes it: the members in that order. */
    (void) sked__buf_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":");
    (void) sked__buf_add(&b, idt, idn);
    (void) sked__buf_puts(&b, ",\"result\":");
    (void) sked__buf_add(&b, result, n);
    (void) sked__buf_add(&b, "}", 1);
    free(idt);
    return sked__buf_take(&b, len);
}

char *sked__rpc_error(json_t *id, rpc_error *e, size_t *len)
{
    json_t *err = json_pack("{s:i, s:s}", "code", e->code, "message", e->msg);
    json_t *data = e->data;

    e->data = NULL;
    if (err && data && json_object_set_new(err, "data", data) != 0)
        json_decref(err), err = NULL;
    else if (!err)
        json_decref(data);
    if (!err)
        return NULL;
    return text_of(json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id",
                             id ? id : json_null(), "error", err),
                   len);
}

char *sked__rpc_notification(const char *method, json_t *params, size_t *len)
{
    json_t *o = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", method);

    if (o && params && json_object_set_new(o, "params", params) != 0)
        json_decref(o), o = NULL;
    else if (!o)
        json_decref(params);
    return text_of(o, len);
}
