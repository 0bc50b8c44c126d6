/* SPDX-License-Identifier: MIT */
/* The MCP endpoint of the server (/mcp, docs/mcp.md): the Streamable
 * HTTP transport of the Model Context Protocol around the sessions of
 * mcp/mcp.h.
 *
 * mcp_http.c answers the requests (POST a message, GET the session's
 * stream of notifications, DELETE the session) and checks what comes
 * before a session (the Origin, the Accept header, the session id, the
 * protocol version); mcp_sessions.c keeps the sessions: their ids, their
 * queues of notifications, their streams, and a thread that ends idle
 * sessions and keeps the streams alive; mcp_calls.c runs the requests
 * POSTed on a pool of workers, so that a long tool call holds none of
 * the server's threads. */
#ifndef SKED_HTTP_MCP_HTTP_H
#define SKED_HTTP_MCP_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include "http/http_int.h"
#include "mcp/mcp.h"

/* Most sessions at once; an initialize beyond them is refused (503). */
#define SKED_MCP_SESSIONS_MAX 256
/* A session with no request and no stream for this long ends, unless
 * the server says otherwise (sked_http_options.mcp_idle). */
#define SKED_MCP_IDLE (30 * 60 * SKED_USEC_PER_SEC)
/* Notifications a session keeps for its stream: past either bound the
 * oldest are dropped (and counted). */
#define SKED_MCP_QUEUE_MAX   256
#define SKED_MCP_QUEUE_BYTES (128 * 1024)
/* Most requests of one session in flight at once; one more is refused
 * (503) until one is answered. */
#define SKED_MCP_CALLS_MAX 8
/* A session id: 128 random bits in hex. */
#define SKED_MCP_ID_LEN 32

typedef struct sked_mcp_hub sked_mcp_hub;
typedef struct mcp_session mcp_session;
typedef struct mcp_calls mcp_calls;
typedef struct mcp_call mcp_call;

/* ---- the sessions (mcp_sessions.c) --------------------------------------- */

/* Create the sessions of the server serving E (borrowed), which allows
 * the Origins ORIGINS (N of them, "scheme://host[:port]", copied) besides
 * loopback ones, and ends sessions idle for IDLE (0: SKED_MCP_IDLE).
 * Returns 0, SKED_EINVAL (a malformed origin, field "mcp-allow-origin"),
 * SKED_ENOMEM. */
int sked__mcp_hub_new(sked_engine *e, const char *const *origins, size_t n,
                      sked_dur idle, sked_mcp_hub **out, sked_error *err);

/* End every stream (their connections resume and finish) before the
 * daemon stops; new sessions and streams are refused from then on. */
void sked__mcp_hub_shutdown(sked_mcp_hub *hub);

/* End every session and free HUB, after the daemon stopped. NULL does
 * nothing. */
void sked__mcp_hub_free(sked_mcp_hub *hub);

/* True when ORIGIN (the Origin header, "scheme://host[:port]") may use
 * the endpoint: its host is loopback, or it is one HUB allows. */
bool sked__mcp_origin_allowed(const sked_mcp_hub *hub, const char *origin);

/* A new session of ACTOR (a token's name, copied), whose tools may do
 * what SCOPE allows: not yet findable, counted against the limit, with
 * one reference for the caller. Returns 0, SKED_EBUSY
 * (SKED_MCP_SESSIONS_MAX open, or the server stops), SKED_ENOMEM. */
int sked__mcp_session_new(sked_mcp_hub *hub, const char *actor,
                          sked_scope scope, mcp_session **out);

/* The actor who opened S: only they may use it. */
const char *sked__mcp_session_actor(const mcp_session *s);

/* Make S findable by its id (after its initialize succeeded). */
void sked__mcp_session_publish(mcp_session *s);

/* The session of ID with a new reference, or NULL (none, or ended). */
mcp_session *sked__mcp_session_find(sked_mcp_hub *hub, const char *id);

/* Take one more reference to S. */
void sked__mcp_session_retain(mcp_session *s);

/* Drop a reference; the last one closes the session. NULL does nothing. */
void sked__mcp_session_release(mcp_session *s);

/* End S: it is no longer found, its stream ends, and it closes once the
 * requests in flight drop their references. */
void sked__mcp_session_end(mcp_session *s);

sked_mcp *sked__mcp_session_mcp(const mcp_session *s);
const char *sked__mcp_session_id(const mcp_session *s);

/* Answer REQ with S's stream of notifications (RESP->stream). Returns 0,
 * SKED_ECONFLICT (S has a stream), SKED_EBUSY (the server stops),
 * SKED_ENOMEM; the caller answers the errors. */
int sked__mcp_stream_open(mcp_session *s, const http_req *req, http_resp *resp);

/* The requests in flight of HUB's sessions. */
mcp_calls *sked__mcp_hub_calls(sked_mcp_hub *hub);

/* ---- the requests in flight (mcp_calls.c) -------------------------------- */

/* Make the pool of workers (none started yet). Returns 0, SKED_ENOMEM. */
int sked__mcp_calls_new(mcp_calls **out);

/* Run the request REQ (its id ID_TEXT, JSON text, owned from here on
 * success) of S
 * on a worker: REQ's connection is suspended, and resumed once *out is
 * answered (sked__mcp_call_answer). CORS_ORIGIN (borrowed from REQ) may
 * read the answer. Returns 0, SKED_EBUSY (S has SKED_MCP_CALLS_MAX
 * requests in flight), SKED_ECANCELED (the server stops), SKED_ENOMEM;
 * the caller answers the errors. */
int sked__mcp_call_submit(mcp_calls *c, mcp_session *s, const http_req *req,
                          const char *cors_origin, char *id_text,
                          mcp_call **out);

/* Fill RESP with CALL's answer, once its connection resumed, and let go
 * of CALL. */
void sked__mcp_call_answer(mcp_calls *c, mcp_call *call, http_resp *resp);

/* Let go of CALL, whose connection ended unanswered. */
void sked__mcp_call_drop(mcp_calls *c, mcp_call *call);

/* Answer the requests of S in flight (404: the session ended) at once,
 * and cancel those running. The caller holds a reference to S. */
void sked__mcp_calls_end(mcp_calls *c, mcp_session *s);

/* Answer every request in flight (503) and cancel those running, before
 * the daemon stops: it may stop no suspended connection. NULL does
 * nothing. */
void sked__mcp_calls_stop(mcp_calls *c);

/* Stop C, wait for its workers (each finishes its call, whose answer is
 * dropped), free it, after the daemon stopped. NULL does nothing. */
void sked__mcp_calls_free(mcp_calls *c);

/* ---- the endpoint (mcp_http.c) ------------------------------------------- */

/* The sessions of the server serving REQ, or NULL (no server: the API
 * answered in the same process, which has no /mcp). server.c. */
sked_mcp_hub *sked__http_mcp_hub(const http_req *req);

/* True for the path of the endpoint. */
bool sked__mcp_http_path(const char *path);

/* Replace the error body of SPEC 6 in RESP (a refusal of the server
 * before /mcp's handlers: 401, 405, 413...) with a JSON-RPC error object
 * of the same message, as MCP clients read it, readable by the page of
 * the request on CONN when HUB allows its origin. A body that is
 * JSON-RPC already is kept. */
void sked__mcp_http_refusal(http_resp *resp, const sked_mcp_hub *hub,
                            struct MHD_Connection *conn);

/* Add to R the CORS headers of RESP (its cors_origin set). */
void sked__mcp_http_cors(struct MHD_Response *r, const http_resp *resp);

#endif
