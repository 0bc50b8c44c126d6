/* SPDX-License-Identifier: MIT */
/* Remote mode's HTTP client (SPEC 7): a small libcurl client of the API
 * of docs/api.md, for the commands given --server URL or $SKED_SERVER.
 *
 * A call sends one request and reads its JSON answer. An error answer
 * ({"error":{"code","message","field"}}) comes back as the sked_error
 * the server's engine filled, its code mapped back through the error
 * table, so that a command reports it as direct mode does. A failure of
 * the exchange itself (no connection, a timeout, a refused token, an
 * answer that is not the API's) is printed here, once, as one line
 * naming the server ("sked: cannot reach http://...: Connection
 * refused"), and returned as SKED_EIO: the command's own report of it is
 * then silent (cli_fail_once). */
#ifndef SKED_CMD_REMOTE_H
#define SKED_CMD_REMOTE_H

#include <stdbool.h>

#include <jansson.h>

#include "mcp/mcp.h"
#include "sked/sked.h"

typedef struct remote remote;

/* Connect to nothing yet: remember the server URL (a trailing slash is
 * dropped) and the token $SKED_TOKEN (sent as "Authorization: Bearer").
 * OUT: *out. Returns 0 or SKED_ENOMEM (printed). */
int remote_open(const char *url, remote **out);

void remote_close(remote *r);

/* Send METHOD PATH (escaped, with its query string) with the JSON BODY
 * (borrowed; NULL: none) and, when KEY is not NULL, an Idempotency-Key
 * header. OUT: *out (may be NULL), the answer's JSON, NULL for an empty
 * one. Returns 0, or the error's code with ERR filled. */
int remote_call(remote *r, const char *method, const char *path,
                const json_t *body, const char *key, json_t **out,
                sked_error *err);

/* Send the request CALL as it is given (its target escaped, its body a
 * JSON text) and put the answer into *reply as it came, whatever its
 * status: the sked_mcp_api_fn of "sked mcp --server" (mcp/mcp.h), for
 * one thread at a time on R. Nothing is printed. CALL->cancel, once
 * set, ends the exchange. Returns 0 when the server answered; SKED_EIO
 * (no answer: ERR says why), SKED_ECANCELED, SKED_ETOOBIG (the answer is
 * larger than remote.c's limit), SKED_EINVAL (an idempotency key with a
 * control character), SKED_ENOMEM. */
int remote_raw(remote *r, const sked_mcp_call *call, sked_mcp_reply *reply,
               sked_error *err);

/* Return S percent-encoded for a path segment or a query value, to be
 * freed with free(); NULL when out of memory. */
char *remote_escape(const char *s);

/* One event of the stream: its id, type and data (the event object). */
typedef void (*remote_event_fn)(void *ctx, const char *id, const char *type,
                                const char *data);

/* Read the event stream at PATH (text/event-stream), with no time limit,
 * calling FN for each event, until the server ends it or *STOP becomes
 * true (checked at least once a second). Returns 0 (ended or stopped),
 * or the error's code with ERR filled. */
int remote_stream(remote *r, const char *path, remote_event_fn fn, void *ctx,
                  volatile const int *stop, sked_error *err);

#endif
