/* SPDX-License-Identifier: MIT */
/* Fuzz target for what an MCP session reads (src/mcp/session.c,
 * jsonrpc.c): JSON-RPC messages of any bytes, on a session whose API is
 * the server's own router and handlers (sked__http_call) on a real
 * engine over a SQLite file, so that tools, resources and prompts run
 * for real with whatever arguments get through.
 *
 * The input is one message a line, handed one after another to a fresh
 * session (so that an initialize in the input opens the methods behind
 * it). Every answer must be a JSON-RPC 2.0 object with an id (a string,
 * an integer or null) and either a result object or an error with an
 * integer code and a message; a request gets one with its own id, a
 * notification none, and a request whose id an earlier
 * notifications/cancelled named may go unanswered (the session keeps a
 * cancel that comes before its request, as a transport's queue can
 * deliver them). Any other outcome aborts; leaks are found by the
 * sanitizers. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "http/http.h"
#include "mcp/mcp.h"
#include "engine_fixture.h"
#include "sked/engine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Most messages read from one input. */
#define MESSAGES_MAX 64

/* Say what the answer broke, and abort. */
static void broken(const char *what, const char *msg, size_t len,
                   const char *reply, size_t reply_len)
{
    fprintf(stderr, "fuzz_mcp_jsonrpc: %s\n  message: %.*s\n  answer: %.*s\n",
            what, (int) (len > 300 ? 300 : len), msg,
            (int) (reply_len > 300 ? 300 : reply_len), reply);
    abort();
}

/* The answer's checks: JSON-RPC 2.0, an id, a result or an error. */
static void check_answer(const char *msg, size_t len, const char *reply,
                         size_t reply_len)
{
    json_t *j = json_loadb(reply, reply_len, 0, NULL);
    json_t *id = json_object_get(j, "id");
    json_t *result = json_object_get(j, "result");
    json_t *error = json_object_get(j, "error");
    const char *v = json_string_value(json_object_get(j, "jsonrpc"));

    if (!json_is_object(j))
        broken("an answer that is not a JSON object", msg, len, reply,
               reply_len);
    if (!v || strcmp(v, "2.0") != 0)
        broken("an answer without jsonrpc \"2.0\"", msg, len, reply, reply_len);
    if (!json_is_string(id) && !json_is_integer(id) && !json_is_null(id))
        broken("an answer without a valid id", msg, len, reply, reply_len);
    if (!result == !error)
        broken("an answer without exactly one of result and error", msg, len,
               reply, reply_len);
    if (result && !json_is_object(result))
        broken("a result that is not an object", msg, len, reply, reply_len);
    if (error && (!json_is_integer(json_object_get(error, "code")) ||
                  !json_is_string(json_object_get(error, "message"))))
        broken("an error without its integer code and message", msg, len, reply,
               reply_len);
    if (memchr(reply, '\n', reply_len))
        broken("an answer of more than one line", msg, len, reply, reply_len);
    json_decref(j);
}

/* Remember the request id a cancel notification J names in CANCELLED
 * (an array). */
static void note_cancel(json_t *j, json_t *cancelled)
{
    const char *method = json_string_value(json_object_get(j, "method"));
    json_t *rid = json_object_get(json_object_get(j, "params"), "requestId");

    if (method && strcmp(method, "notifications/cancelled") == 0 &&
        (json_is_string(rid) || json_is_integer(rid)))
        (void) json_array_append(cancelled, rid);
}

/* Whether ID is in CANCELLED; taken out of it then, as the session
 * forgets a cancel once it has kept its request from running. */
static bool take_cancelled(json_t *cancelled, json_t *id)
{
    size_t i;
    json_t *v;

    json_array_foreach(cancelled, i, v)
    {
        if (json_equal(v, id)) {
            (void) json_array_remove(cancelled, i);
            return true;
        }
    }
    return false;
}

/* A request (an object of JSON-RPC 2.0 with a valid id and a method)
 * is owed an answer with its id, unless CANCELLED holds its id; a
 * notification is owed none. */
static void check_owed(const char *msg, size_t len, const char *reply,
                       size_t reply_len, json_t *cancelled)
{
    json_t *j =
        len <= SKED_MCP_MESSAGE_MAX ? json_loadb(msg, len, 0, NULL) : NULL;
    json_t *id = json_object_get(j, "id"), *a;
    const char *v = json_string_value(json_object_get(j, "jsonrpc"));

    if (!j || !v || strcmp(v, "2.0") != 0 ||
        !json_is_string(json_object_get(j, "method"))) {
        json_decref(j);
        return;
    }
    if (!id && reply)
        broken("an answer to a notification", msg, len, reply, reply_len);
    if (!id)
        note_cancel(j, cancelled);
    if (json_is_string(id) || json_is_integer(id)) {
        bool excused = !reply && take_cancelled(cancelled, id);

        a = reply ? json_loadb(reply, reply_len, 0, NULL) : NULL;
        if (!excused && !json_equal(json_object_get(a, "id"), id))
            broken("a request without its answer", msg, len, reply ? reply : "",
                   reply_len);
        json_decref(a);
    }
    json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sked_mcp_options o = {.api = sked__http_call,
                          .api_ctx = fuzz_engine("mcp.db")};
    const char *p = (const char *) data, *end = p + size;
    sked_mcp *m = NULL;
    json_t *cancelled = json_array();
    sked_error err;

    if (!cancelled || sked__mcp_open(&o, &m, &err) != 0)
        abort();
    for (int i = 0; i < MESSAGES_MAX && p < end; i++) {
        const char *nl = memchr(p, '\n', (size_t) (end - p));
        size_t len = nl ? (size_t) (nl - p) : (size_t) (end - p);
        char *reply = NULL;
        size_t reply_len = 0;

        if (sked__mcp_handle(m, p, len, &reply, &reply_len) != 0)
            abort(); /* out of memory, which the fuzzer does not cause */
        if (reply)
            check_answer(p, len, reply, reply_len);
        check_owed(p, len, reply, reply_len, cancelled);
        free(reply);
        p += len + (nl ? 1 : 0);
    }
    sked__mcp_close(m);
    json_decref(cancelled);
    return 0;
}
