/* SPDX-License-Identifier: MIT */
/* Inside the HTTP server: requests, responses, handlers and routes.
 *
 * server.c owns libmicrohttpd: it reads a request (headers, then a body
 * of at most HTTP_BODY_MAX bytes, refused with 413 from Content-Length
 * before it is read), checks the token, finds the route (router.c: 404,
 * or 405 with Allow), calls its handler, and sends what the handler put
 * in the http_resp. Handlers know nothing of libmicrohttpd except the
 * streams (the event stream, /mcp's), which hand server.c a streaming
 * response.
 *
 * Every module of the API exports its table of routes (ending with a
 * zeroed entry); router.c looks through all of them, in the order of
 * sked__http_tables, and the OpenAPI document lists the same routes. */
#ifndef SKED_HTTP_HTTP_INT_H
#define SKED_HTTP_HTTP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "base/error.h"
#include "http/http.h"

struct MHD_Connection;
struct MHD_Response;

#define HTTP_BODY_MAX   (1024 * 1024)
#define HTTP_PARAMS_MAX 2

typedef struct http_req {
    const char *method; /* "GET" */
    const char *path;   /* without the query string */
    /* The {…} segments of the route's pattern, percent-decoded, in
     * order; owned by server.c for the request's lifetime. */
    const char *param[HTTP_PARAMS_MAX];
    size_t nparam;
    const char *body; /* NUL-terminated; "" when none */
    size_t body_len;
    sked_engine *engine;
    sked_http *server;           /* NULL outside a server (fuzz targets) */
    struct MHD_Connection *conn; /* for streams; NULL outside a server */
    /* The query parameter (HEADER false) or header KEY, or NULL: what
     * sked__http_query and sked__http_header return. */
    const char *(*value)(const struct http_req *req, bool header,
                         const char *key);
    void *value_ctx; /* for VALUE, when not libmicrohttpd's */
    /* Who asks (a token's name; "anonymous" on a server without tokens;
     * static or the server's) and what they may do. */
    const char *actor;
    sked_scope scope;
} http_req;

typedef struct http_resp {
    unsigned status; /* 0 until a handler sets it */
    char *body;      /* owned (malloc); NULL: empty */
    size_t len;
    const char *content_type;  /* static; NULL: application/json */
    const char *allow;         /* static; the Allow header of a 405 */
    const char *cache_control; /* static; NULL: no-store */
    const char *csp; /* static; the Content-Security-Policy, or NULL */
    /* A streaming response (the event stream): when set, server.c queues
     * it (and drops its reference) instead of BODY. */
    struct MHD_Response *stream;
    /* The Mcp-Session-Id header to send ("": none), for /mcp's answer
     * to an initialize: a copy, as the session may end meanwhile. */
    char mcp_session[40];
    /* /mcp's answer to a page of an allowed origin: the Origin (borrowed
     * from the request) that may read it, and whether it answers a
     * preflight (OPTIONS). */
    const char *cors_origin;
    bool cors_preflight;
    /* /mcp's answer to come: when set, the handler suspended the
     * connection, server.c sends nothing now, and once the connection
     * is resumed it sends what the call answers (mcp_http.h). */
    struct mcp_call *later;
    /* A shared route's answer to come: when set, the request runs on a
     * writer thread, its connection suspended (writers.c). */
    struct http_job *job;
} http_resp;

/* A handler fills RESP (through the helpers below) and returns 0, or a
 * negative SKED_E... code after filling RESP with the error. */
typedef int (*http_handler)(const http_req *req, http_resp *resp);

typedef struct http_route {
    const char *method;  /* "GET", "POST", "PUT", "PATCH", "DELETE" */
    const char *pattern; /* "/api/v1/schedules/{name}/pause" */
    http_handler handler;
    const char *summary; /* one line, for the OpenAPI document */
    unsigned ok_status;  /* the status of success; 0: 200 */
    /* The scope a token needs; 0: read for GET, admin for the rest. */
    sked_scope scope;
} http_route;

/* The tables of the modules (each ends with {0}). */
extern const http_route sked__api_schedule_routes[]; /* api_schedules.c */
extern const http_route sked__api_calendar_routes[]; /* api_calendars.c */
extern const http_route sked__api_notifier_routes[]; /* api_notifiers.c */
extern const http_route sked__api_run_routes[];      /* api_runs.c */
extern const http_route sked__api_event_routes[];    /* api_events.c */
extern const http_route sked__api_misc_routes[];     /* api_misc.c */
extern const http_route sked__api_cron_routes[];     /* api_cron.c */
extern const http_route sked__api_simulate_routes[]; /* api_simulate.c */
extern const http_route sked__mcp_routes[];          /* mcp_http.c */
/* Every table, NULL-terminated (router.c). */
extern const http_route *const sked__http_tables[];

/* The OpenAPI 3.1 document of every route of sked__http_tables
 * (openapi.c), or NULL when out of memory. */
json_t *sked__http_openapi(void);

/* ---- routing (router.c) ----------------------------------------------- */

/* The route of a request and its {…} values. */
typedef struct http_match {
    const http_route *route;      /* NULL when none */
    char *param[HTTP_PARAMS_MAX]; /* owned copies, in pattern order */
    size_t nparam;
    char allow[64]; /* "GET, POST": the methods of the
                       path, for a 405 */
} http_match;

/* Find the route of METHOD (HEAD is GET) and PATH into *m. Returns 0,
 * SKED_ENOTFOUND (no route has this path), SKED_EMETHOD (other methods
 * have it: m->allow lists them) or SKED_ENOMEM. */
int sked__http_route(const char *method, const char *path, http_match *m);

/* Free what *m owns. */
void sked__http_match_done(http_match *m);

/* Whether the handler of R waits for a commit it may share with other
 * requests (a run created, a ping, a schedule created): it then runs on
 * a writer thread (writers.c), not on the server's. */
bool sked__http_route_shared(const http_route *r);

/* Run M's handler for REQ, the changes it makes recorded as REQ's actor
 * (the audit trail), the thread's own actor restored after: a request on
 * a writer thread, and a call of MCP's tools, come here too. */
int sked__http_handle(http_req *req, http_resp *resp, const http_match *m);

/* Route REQ (its method and path) into *m, call the route's handler with
 * the {…} values, and fill RESP: 404 with no route, 405 with Allow (from
 * *m) for another method, 500 for a handler that sent nothing (neither
 * an answer, a stream, nor an answer to come). Free *m
 * with sked__http_match_done once RESP is sent. Returns RESP's code. */
int sked__http_serve(http_req *req, http_resp *resp, http_match *m);

/* ---- requests on writer threads (writers.c) ---------------------------- */

typedef struct http_writers http_writers;
typedef struct http_job http_job;

/* The writers of the server H (NULL outside a server: server.c). */
http_writers *sked__http_writers(sked_http *h);
/* Returns 0 or SKED_ENOMEM. */
int sked__http_writers_new(http_writers **out);
/* Hand REQ, routed by *m (its params then the job's), to a writer:
 * suspend its connection and set resp->job. Returns 0, or a negative
 * code when the caller must run the handler itself (the writers stop,
 * out of memory; *m is as it was). */
int sked__http_job_submit(http_writers *w, const http_req *req, http_match *m,
                          http_resp *resp);
/* Move the answer of JOB, its connection resumed, into RESP, and let go
 * of JOB. */
void sked__http_job_answer(http_writers *w, http_job *job, http_resp *resp);
/* Let go of JOB, its connection closed before it was answered. */
void sked__http_job_drop(http_writers *w, http_job *job);
/* Take no more jobs; wait until those queued are answered and the
 * writers end. Before the daemon stops: no connection stays suspended. */
void sked__http_writers_stop(http_writers *w);
void sked__http_writers_free(http_writers *w);

/* ---- query strings (call.c) -------------------------------------------- */

/* Most query parameters a request may have (more: 400). */
#define HTTP_PAIRS_MAX 64

/* Keys and values, borrowed from the string they were split from. */
typedef struct http_pairs {
    const char *key[HTTP_PAIRS_MAX], *val[HTTP_PAIRS_MAX];
    size_t n;
} http_pairs;

/* Split QUERY ("a=1&b", may be NULL) in place into P, decoded as the
 * server decodes it; past HTTP_PAIRS_MAX parameters, the rest is left. */
void sked__http_split_query(char *query, http_pairs *p);

/* The value of KEY in P (compared ignoring case when NOCASE), or NULL. */
const char *sked__http_pairs_get(const http_pairs *p, bool nocase,
                                 const char *key);

/* ---- responses (reply.c) ---------------------------------------------- */

/* Send BODY (a new reference, taken also on failure) as JSON with
 * STATUS. Returns 0, or SKED_ENOMEM with a 500 in RESP. */
int sked__http_json(http_resp *resp, unsigned status, json_t *body);

/* Send the error body of SPEC 6 for CODE (a SKED_E... code: the status
 * and the code string come from the error table), with FIELD (may be
 * NULL or "") and a message. Returns CODE. */
int sked__http_error(http_resp *resp, int code, const char *field,
                     const char *fmt, ...) SKED__PRINTF(4, 5);

/* Send the failure RC of an engine or store call, with ERR's message and
 * field (its default message when ERR has none). Returns RC. */
int sked__http_fail(http_resp *resp, int rc, const sked_error *err);

/* ---- framing (framing.c) ---------------------------------------------- */

/* What a request's headers declare of its body. */
typedef struct http_framing {
    uint64_t length;      /* Content-Length; 0 when none */
    bool body;            /* a body follows: a length above 0, or chunked */
    bool expect_continue; /* "Expect: 100-continue": the client waits */
} http_framing;

/* Check how the request on CONN frames its body (RFC 9112 section 6) and
 * fill *f. Returns NULL, or why the request is malformed (to be answered
 * 400, its connection closed: its body cannot be told from what follows). */
const char *sked__http_framing(struct MHD_Connection *conn, http_framing *f);

/* ---- header lines (headers_whole.c) ------------------------------------ */

/* Check that no header of the request on CONN (METHOD the access
 * handler's, where libmicrohttpd read the request line) holds a NUL
 * byte, or was folded onto a second line. Returns NULL, or why the
 * request is malformed (to be answered 400), written into BUF (SIZE
 * bytes), and the header's name into FIELD (FIELD_SIZE bytes; "" when
 * NULL is returned). */
const char *sked__http_headers_whole(struct MHD_Connection *conn,
                                     const char *method, char *field,
                                     size_t field_size, char *buf, size_t size);

/* ---- requests (server.c) ---------------------------------------------- */

/* ---- tokens and scopes (auth.c) ---------------------------------------- */

/* True when PATH needs a token (of a server that has any): the API, the
 * metrics and MCP. Health checks and the dashboard's files are open. */
bool sked__http_guarded(const char *path);

/* The token of the N TOKENS that AUTH (the Authorization header, may be
 * NULL) presents as "Bearer SECRET", or NULL. Every token is compared,
 * in a time that does not depend on which one matches or where a
 * mismatch is. */
const sked_http_token *sked__http_token_find(const sked_http_token *tokens,
                                             size_t n, const char *auth);

/* The scope route R needs: its own, else read for GET and admin for
 * anything else. */
sked_scope sked__http_route_scope(const http_route *r);

/* Decode the %XX escapes of S in place, except %00 (left as written: a
 * NUL would cut the string short). Returns the new length. */
size_t sked__http_unescape(char *s);

/* The value of query parameter KEY (decoded), or NULL when absent. */
const char *sked__http_query(const http_req *req, const char *key);

/* sked__http_query for engine/request.h's readers: REQ is the request. */
const char *sked__http_query_get(void *req, const char *key);

/* The value of header NAME (case-insensitive), or NULL when absent. */
const char *sked__http_header(const http_req *req, const char *name);

/* Parse the body as a JSON object into *out (a new reference). An empty
 * body is {} when EMPTY_OK. On failure fill RESP with 400 (malformed
 * JSON with its line and column, invalid UTF-8, not an object) and
 * return SKED_ESYNTAX. */
int sked__http_body_object(const http_req *req, http_resp *resp, bool empty_ok,
                           json_t **out);

/* Read query parameter KEY as a whole number in MIN..MAX into *out,
 * DFLT when absent. On a malformed or out-of-range value fill RESP
 * (400 or 422, field KEY) and return the error code. */
int sked__http_query_long(const http_req *req, http_resp *resp, const char *key,
                          long min, long max, long dflt, long *out);

#endif
