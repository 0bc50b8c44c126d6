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

typedef struct sked_http_options {
    const char *listen;           /* "HOST:PORT", "[V6]:PORT" or ":PORT" (every
                                     address); NULL: SKED_HTTP_LISTEN_DEFAULT;
                                     port 0: any free port (sked__http_port) */
    const char *token;            /* bearer token; NULL or "": no auth */
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

/* True when the listen address LISTEN (as in the options) accepts
 * connections from this machine only (127.0.0.0/8, ::1, "localhost"). */
bool sked__http_listen_is_loopback(const char *listen);

#endif
