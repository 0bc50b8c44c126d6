/* SPDX-License-Identifier: MIT */
/* The HTTP server of "sked server" (SPEC 6, docs/api.md): the API, the
 * event stream, the metrics, the dashboard and the MCP endpoint (/mcp),
 * on libmicrohttpd's thread pool, calling the engine, which is
 * thread-safe.
 *
 * Every connection is event-driven (epoll), so a slow or half-open client
 * costs a socket and at most 16 KiB, never a thread; a connection that
 * does not finish a request's headers within the header timeout (from
 * its start, or from its last answer when kept alive) is closed, and so
 * is one idle for longer than the timeout, except the event streams and
 * the MCP sessions' streams, which are kept alive by a comment every
 * 15 s. */
#ifndef SKED_HTTP_HTTP_H
#define SKED_HTTP_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sked/engine.h"

typedef struct sked_http sked_http;

#define SKED_HTTP_LISTEN_DEFAULT "127.0.0.1:8080"

/* Called once per answered request, from the thread that answered it:
 * METHOD, PATH (without the query), the status sent and how long the
 * request took from its headers to its response. Event streams are
 * reported when they start. */
typedef void (*sked_http_access_fn)(void *ctx, const char *method,
                                    const char *path, unsigned status,
                                    int64_t elapsed_us);

/* What a token may do; each scope allows what the one before it does
 * (docs/configuration.md#tokens). */
typedef enum sked_scope {
    SKED_SCOPE_READ = 1,    /* GET routes, the event stream, metrics */
    SKED_SCOPE_OPERATE = 2, /* also trigger, pause, resume, cancel, ... */
    SKED_SCOPE_ADMIN = 3,   /* everything: create, update, delete, apply */
} sked_scope;

/* "read", "operate" or "admin". */
const char *sked__scope_name(sked_scope s);

/* Parse a scope's name into *out. Returns 0 or SKED_EINVAL. */
int sked__scope_parse(const char *s, sked_scope *out);

/* The longest name of a token: a name like a schedule's. */
#define SKED_TOKEN_NAME_MAX 64
/* A token is accepted when it holds this many characters or more. */
#define SKED_TOKEN_MIN 16
#define SKED_TOKEN_MAX 4096

/* A token the server accepts: who presents it (the actor of what they
 * do) and what they may do. Only the secret's SHA-256 is kept. */
typedef struct sked_http_token {
    char name[SKED_TOKEN_NAME_MAX + 1];
    unsigned char sha256[32];
    sked_scope scope;
} sked_http_token;

/* Fill the SHA-256 of SECRET (LEN bytes) into OUT. */
void sked__token_hash(const char *secret, size_t len, unsigned char out[32]);

typedef struct sked_http_options {
    const char *listen; /* "HOST:PORT", "[V6]:PORT" or ":PORT" (every
                           address); NULL: SKED_HTTP_LISTEN_DEFAULT;
                           port 0: any free port (sked__http_port) */
    /* The N_TOKENS tokens accepted as "Authorization: Bearer TOKEN"
     * (copied); none: no auth, every request may do everything. */
    const sked_http_token *tokens;
    size_t n_tokens;
    unsigned threads;             /* 0: one per core (2 to 64) */
    unsigned timeout_secs;        /* idle connection timeout; 0: 30 */
    unsigned header_timeout_secs; /* to finish a request's headers, from
                                     the connection's start or its last
                                     answer; 0: 10 */
    unsigned max_connections;     /* 0: 4096 */
    /* The Origins allowed to call /mcp besides loopback ones
     * ("https://app.example:8443"), N_MCP_ALLOW_ORIGIN of them. */
    const char *const *mcp_allow_origin;
    size_t n_mcp_allow_origin;
    /* An MCP session with no request and no open stream for this long
     * ends; 0: 30 minutes. */
    sked_dur mcp_idle;
    sked_http_access_fn access; /* may be NULL */
    void *access_ctx;
} sked_http_options;

/* Start serving E (borrowed; it must outlive the server) as OPTS says.
 * A listen address beyond loopback without a token is refused
 * (SKED_EINVAL, field "listen"). OUT: *out, stopped with sked__http_stop.
 * Returns 0, SKED_EINVAL (bad address, field "listen"), SKED_EIO (cannot
 * bind: the message says why), SKED_ENOMEM. */
int sked__http_start(sked_engine *e, const sked_http_options *opts,
                     sked_http **out, sked_error *err);

/* Accept the N TOKENS (copied) from now on, in place of the ones given
 * at start; requests already admitted go on as they were. Returns 0,
 * SKED_EINVAL (none, on an address beyond loopback) or SKED_ENOMEM. */
int sked__http_set_tokens(sked_http *h, const sked_http_token *tokens,
                          size_t n);

/* The TCP port the server listens on. */
unsigned sked__http_port(const sked_http *h);

/* Stop serving: end the event streams, close every connection, free H.
 * NULL does nothing. */
void sked__http_stop(sked_http *h);

struct sked_mcp_call;
struct sked_mcp_reply;

/* Answer one API request in this process, through the router and the
 * handlers the server uses (no socket, no token): the sked_mcp_api_fn of
 * mcp/mcp.h, with ENGINE the sked_engine (borrowed) to serve. The event
 * stream (follow=1) cannot be answered this way. Returns 0, or
 * SKED_ENOMEM. */
int sked__http_call(void *engine, const struct sked_mcp_call *call,
                    struct sked_mcp_reply *reply, sked_error *err);

/* Who an in-process call is made for: the engine to serve (borrowed),
 * the actor (borrowed) and the scope, as a token gives them. */
typedef struct sked_http_caller {
    sked_engine *engine;
    const char *actor;
    sked_scope scope;
} sked_http_caller;

/* sked__http_call for CALLER, a sked_http_caller: a route its scope does
 * not allow is answered 403. */
int sked__http_call_as(void *caller, const struct sked_mcp_call *call,
                       struct sked_mcp_reply *reply, sked_error *err);

/* True when the listen address LISTEN (as in the options) accepts
 * connections from this machine only (127.0.0.0/8, ::1, "localhost"). */
bool sked__http_listen_is_loopback(const char *listen);

#endif
