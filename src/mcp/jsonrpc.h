/* SPDX-License-Identifier: MIT */
/* JSON-RPC 2.0 messages as a session reads and writes them (jsonrpc.c):
 * one message is read into its parts, or refused with the error code
 * the specification gives (-32700 for text that is not JSON, -32600 for
 * JSON that is not a request, a notification or a response), and the
 * answers are written as compact text on one line.
 *
 * Words: a request has a method and an id (a string or an integer; MCP
 * allows no null id); a notification has a method and no id; a response
 * has an id and a result or an error. A batch (an array) is no message
 * since MCP 2025-06-18, and is refused whole. */
#ifndef SKED_MCP_JSONRPC_H
#define SKED_MCP_JSONRPC_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "base/error.h"

/* The error codes of JSON-RPC 2.0, and MCP's for a missing resource. */
enum {
    RPC_PARSE_ERROR = -32700,
    RPC_INVALID_REQUEST = -32600,
    RPC_METHOD_NOT_FOUND = -32601,
    RPC_INVALID_PARAMS = -32602,
    RPC_INTERNAL_ERROR = -32603,
    RPC_RESOURCE_NOT_FOUND = -32002,
};

typedef enum rpc_kind {
    RPC_REQUEST,
    RPC_NOTIFICATION,
    RPC_RESPONSE,
} rpc_kind;

/* One message read. */
typedef struct rpc_msg {
    json_t *root; /* owned: the whole message */
    rpc_kind kind;
    json_t *id;         /* borrowed from root; NULL for a notification */
    const char *method; /* borrowed from root; NULL for a response */
    json_t *params;     /* borrowed from root; NULL when absent */
} rpc_msg;

/* A refusal: its code, its message and, when not NULL, its data. */
typedef struct rpc_error {
    int code;
    char msg[256];
    json_t *data; /* owned; may be NULL */
} rpc_error;

/* Fill E with CODE and a printf-style message; return CODE. */
int sked__rpc_fail(rpc_error *e, int code, const char *fmt, ...)
    SKED__PRINTF(3, 4);

/* Read the LEN bytes at TEXT (any bytes) as one message into *out.
 * Returns 0, or the error's code with E filled and *id set to a new
 * reference to the message's id when it could be read (else NULL: the
 * answer's id is null). */
int sked__rpc_read(const char *text, size_t len, rpc_msg *out, json_t **id,
                   rpc_error *e);

/* Release M's parts. */
void sked__rpc_msg_done(rpc_msg *m);

/* The answer to the request ID (borrowed; NULL: null) with RESULT
 * (stolen), as compact text of *len bytes (malloc); NULL when out of
 * memory. */
char *sked__rpc_result(json_t *id, json_t *result, size_t *len);

/* The same with RESULT given as the compact JSON text of N bytes
 * (borrowed), for a result that is always the same. */
char *sked__rpc_result_text(json_t *id, const char *result, size_t n,
                            size_t *len);

/* The error answer E to the request ID (borrowed; NULL: null); E's data
 * is stolen. NULL when out of memory. */
char *sked__rpc_error(json_t *id, rpc_error *e, size_t *len);

/* The notification METHOD with PARAMS (stolen; NULL: none) as text;
 * NULL when out of memory. */
char *sked__rpc_notification(const char *method, json_t *params, size_t *len);

#endif
