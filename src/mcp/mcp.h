/* SPDX-License-Identifier: MIT */
/* The Model Context Protocol server of "sked mcp" and of "/mcp" on
 * "sked server" (SPEC 8, docs/mcp.md): JSON-RPC 2.0 sessions whose tools,
 * resources and prompts mirror the HTTP API.
 *
 * A session knows nothing of its transport and nothing of the database:
 * every tool is one request of the HTTP API (docs/api.md), answered by
 * the function the session was opened with — the server's own router in
 * the same process ("/mcp", and "sked mcp --db", through
 * sked__http_call), or a server over the network ("sked mcp --server").
 * So a tool says exactly what the API says, in every mode, and reaches
 * the schedules through the engine's door only.
 *
 * The transports are around it: stdio.c reads newline-delimited messages
 * from a file descriptor and writes the answers to another; the server's
 * /mcp (src/http/) carries the same messages over Streamable HTTP. */
#ifndef SKED_MCP_MCP_H
#define SKED_MCP_MCP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "sked/error.h"
#include "sked/time.h"

/* ---- the API a session's tools call ------------------------------------- */

/* One request of the HTTP API. Everything borrowed for the call. */
typedef struct sked_mcp_call {
    const char *method; /* "GET", "POST", "PATCH", "PUT", "DELETE" */
    /* The path and query as on the wire, escaped:
     * "/api/v1/runs?status=failed&limit=20". */
    const char *target;
    const char *body;            /* a JSON text, or NULL: none */
    const char *idempotency_key; /* the Idempotency-Key header, or NULL */
    /* Set (non-zero) once the caller has given up on the answer; may be
     * NULL. What can stop early does; the rest finishes and its answer
     * is dropped. */
    const atomic_int *cancel;
} sked_mcp_call;

/* The API's answer. */
typedef struct sked_mcp_reply {
    unsigned status; /* the HTTP status */
    char *body;      /* owned (malloc), NUL-terminated; NULL: empty */
    size_t len;
} sked_mcp_reply;

/* Answer CALL into *reply (its body freed by the caller with free).
 * Returns 0 when the API answered, whatever the status; a negative
 * SKED_E... code with ERR filled when no answer came (the server cannot
 * be reached, memory). Called from the session's threads, several at
 * once: it must be thread-safe. */
typedef int (*sked_mcp_api_fn)(void *ctx, const sked_mcp_call *call,
                               sked_mcp_reply *reply, sked_error *err);

/* ---- sessions ------------------------------------------------------------ */

typedef struct sked_mcp sked_mcp;

/* Send one message the server starts (a notification: a resource
 * updated, a log message, a list changed): JSON text of LEN bytes, no
 * newline. Called from the session's own threads, one at a time. */
typedef void (*sked_mcp_notify_fn)(void *ctx, const char *json, size_t len);

typedef struct sked_mcp_options {
    sked_mcp_api_fn api; /* required */
    void *api_ctx;
    sked_mcp_notify_fn notify; /* NULL: notifications are dropped */
    void *notify_ctx;
    /* How often the session reads the event log (GET /api/v1/events)
     * for its subscriptions and log messages; 0: 500 ms. */
    sked_dur poll;
} sked_mcp_options;

/* The largest message a session reads (a larger one is answered with a
 * JSON-RPC error, -32600); the HTTP API's own body limit. */
#define SKED_MCP_MESSAGE_MAX (1024 * 1024)

/* Open a session on O (copied). OUT: *out (sked__mcp_close). Returns 0,
 * SKED_EINVAL (no api), SKED_ENOMEM. */
int sked__mcp_open(const sked_mcp_options *o, sked_mcp **out, sked_error *err);

/* Handle MSG (LEN bytes: one JSON-RPC message as received; need not be
 * NUL-terminated, nor valid UTF-8) and put the answer owed for it into
 * *reply (malloc'd JSON text of *reply_len bytes, no newline), or NULL
 * when none is owed: a notification, a response, a request cancelled
 * while it ran. Malformed input is answered with a JSON-RPC error and
 * leaves the session as it was. Blocks while a tool runs; callable from
 * several threads at once on one session, so that a
 * notifications/cancelled reaches the call it cancels. Returns 0, or
 * SKED_ENOMEM (no answer could be built). */
int sked__mcp_handle(sked_mcp *m, const char *msg, size_t len, char **reply,
                     size_t *reply_len);

/* The protocol version agreed at initialize ("2025-11-25"), or NULL
 * before it (the HTTP transport checks MCP-Protocol-Version against it). */
const char *sked__mcp_version(const sked_mcp *m);

/* Stop M: cancel the calls in flight and wait for them, stop reading
 * events, free it. NULL does nothing. */
void sked__mcp_close(sked_mcp *m);

/* ---- the stdio transport (stdio.c) --------------------------------------- */

/* Serve one session of O on IN (newline-delimited JSON-RPC messages) and
 * OUT (the answers and notifications, one a line; nothing else is ever
 * written to it), until IN ends or *STOP is set (may be NULL). Requests
 * run concurrently, so that a cancellation reaches a long call. A line
 * longer than SKED_MCP_MESSAGE_MAX is answered with -32600 and skipped.
 * Returns 0 at the end of IN, or a negative SKED_E... code with ERR
 * filled (OUT cannot be written). */
int sked__mcp_stdio(const sked_mcp_options *o, int in, int out,
                    volatile const int *stop, sked_error *err);

#endif
