/* SPDX-License-Identifier: MIT */
/* The HTTP server (http.h): libmicrohttpd's daemon with a pool of
 * threads, each running an epoll loop, so connections cost sockets and a
 * little memory and only requests being answered hold a thread.
 *
 * A request goes through these gates, in order: its request line (a URI
 * of at most 4096 bytes, at most 64 query parameters, no NUL), its
 * header lines (no NUL, none folded: headers_whole.c), its framing
 * (framing.c), the token (401), the declared body size (413 from
 * Content-Length; a chunked body is counted as it arrives and dropped
 * past the limit), the route (404, or 405 with Allow), and the handler.
 * A refusal with a body on its way is sent once the body is read and
 * dropped, so that the client reads it. libmicrohttpd parses HTTP
 * itself; sked never does. A connection must finish each request's
 * headers within the header timeout (watch.c) and is closed when idle
 * longer than the timeout, which is also the request timeout for clients
 * that stop sending. */
#include <pthread.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/json_io.h"
#include "engine/request.h"
#include "http/http_int.h"
#include "http/mcp_http.h"
#include "http/sse.h"
#include "http/watch.h"

#define TIMEOUT_DEFAULT        30
#define HEADER_TIMEOUT_DEFAULT 10
#define CONNECTIONS_DEFAULT    4096
/* Per connection: the request line and headers must fit (a bigger header
 * block gets 431). Small, so idle event streams stay cheap. */
#define CONN_MEMORY (16 * 1024)

struct sked_http {
    struct MHD_Daemon *daemon;
    sked_engine *engine;       /* borrowed */
    bool loopback;             /* it listens on this machine only */
    pthread_mutex_t tokens_mu; /* guards the tokens: SIGHUP replaces them */
    sked_http_token *tokens;   /* owned; none: no auth */
    size_t n_tokens;
    sked_sse_hub *hub;     /* owned */
    sked_mcp_hub *mcp;     /* owned: the sessions of /mcp */
    http_watch *watch;     /* owned */
    http_writers *writers; /* owned: the shared routes' threads */
    unsigned port;
    sked_http_access_fn access;
    void *access_ctx;
};

/* One request's state, from its first call to its completion. */
typedef struct req_state {
    int64_t started_us;  /* monotonic, at the first call */
    sked_buf body;       /* the body so far */
    uint64_t dropped;    /* bytes of the body read and dropped */
    int refusal;         /* SKED_E...: answer it once the body is read */
    const char *why;     /* static: the refusal's message */
    const char *uri_end; /* where the URI's string ends, as read (on_uri) */
    bool seen;           /* the access handler has had its first call */
    bool answered;       /* a response is queued already */
    /* /mcp's call in flight: the connection is suspended until its
     * answer is ready (mcp_calls.c). */
    struct mcp_call *later;
    /* A shared route's request on a writer thread (writers.c): the
     * connection is suspended until its answer is ready. */
    struct http_job *job;
    /* Who presented a token, and its scope; "" and 0: no token needed. */
    char actor[SKED_TOKEN_NAME_MAX + 1];
    sked_scope scope;
} req_state;

/* ---- addresses ---------------------------------------------------------- */

typedef struct listen_addr {
    struct sockaddr_storage ss;
    bool v6;
} listen_addr;

/* Split "HOST:PORT", "[V6]:PORT" or ":PORT" into HOST (empty: every
 * address) and PORT. Returns 0 or SKED_EINVAL. */
static int split_listen(const char *s, char *host, size_t size, long *port,
                        sked_error *err)
{
    const char *colon = strrchr(s, ':');
    const char *h = s, *h_end = colon;
    char *end;

    if (!colon)
        return sked__error_set(err, SKED_EINVAL, "listen", -1,
                               "\"%.64s\": expected HOST:PORT", s);
    if (s[0] == '[') {
        h = s + 1;
        h_end = strchr(s, ']');
        if (!h_end || h_end + 1 != colon)
            return sked__error_set(err, SKED_EINVAL, "listen", -1,
                                   "\"%.64s\": expected [ADDRESS]:PORT", s);
    }
    if ((size_t) (h_end - h) >= size)
        return sked__error_set(err, SKED_EINVAL, "listen", -1,
                               "\"%.64s\": host name too long", s);
    memcpy(host, h, (size_t) (h_end - h));
    host[h_end - h] = '\0';
    *port = strtol(colon + 1, &end, 10);
    if (colon[1] < '0' || colon[1] > '9' || *end || *port > 65535)
        return sked__error_set(err, SKED_EINVAL, "listen",
                               (int) (colon + 1 - s),
                               "\"%.64s\": expected a port from 0 to 65535", s);
    return 0;
}

/* Resolve LISTEN into *out. Returns 0 or SKED_EINVAL. */
static int resolve_listen(const char *listen, listen_addr *out, sked_error *err)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *ai = NULL;
    char host[256], port_s[8];
    long port = 0;
    int rc = split_listen(listen, host, sizeof host, &port, err);

    if (rc < 0)
        return rc;
    snprintf(port_s, sizeof port_s, "%ld", port);
    if (getaddrinfo(host[0] ? host : NULL, port_s, &hints, &ai) != 0 || !ai)
        return sked__error_set(err, SKED_EINVAL, "listen", -1,
                               "\"%.64s\": cannot resolve \"%.64s\"", listen,
                               host);
    memset(out, 0, sizeof *out);
    memcpy(&out->ss, ai->ai_addr, ai->ai_addrlen);
    out->v6 = ai->ai_family == AF_INET6;
    freeaddrinfo(ai);
    return 0;
}

bool sked__http_listen_is_loopback(const char *listen)
{
    listen_addr a;
    sked_error err;

    if (!listen)
        return true;
    if (resolve_listen(listen, &a, &err) < 0)
        return false;
    if (a.v6) {
        const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *) &a.ss;
        return IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr);
    }
    const struct sockaddr_in *s4 = (const struct sockaddr_in *) &a.ss;
    return (ntohl(s4->sin_addr.s_addr) >> 24) == 127;
}

/* ---- requests ----------------------------------------------------------- */

const char *sked__http_query(const http_req *req, const char *key)
{
    return req->value(req, false, key);
}

const char *sked__http_header(const http_req *req, const char *name)
{
    return req->value(req, true, name);
}

static const char *mhd_value(const http_req *req, bool header, const char *key)
{
    return MHD_lookup_connection_value(
        req->conn, header ? MHD_HEADER_KIND : MHD_GET_ARGUMENT_KIND, key);
}

sked_sse_hub *sked__http_hub(const http_req *req)
{
    return req->server ? req->server->hub : NULL;
}

sked_mcp_hub *sked__http_mcp_hub(const http_req *req)
{
    return req->server ? req->server->mcp : NULL;
}

/* Whether the request may go on: a path that needs no token, a server
 * with none, or the token of one of the server's (its name and scope
 * copied into RS: the tokens may change while the request runs). */
static bool authorized(sked_http *h, struct MHD_Connection *conn,
                       const char *method, const char *path, req_state *rs)
{
    const sked_http_token *t;
    bool ok;

    /* A browser asks before it sends the token (a CORS preflight), and
     * /mcp answers that with what it allows, nothing more. */
    if (strcmp(method, "OPTIONS") == 0 && sked__mcp_http_path(path))
        return true;
    if (!sked__http_guarded(path))
        return true;
    pthread_mutex_lock(&h->tokens_mu);
    ok = h->n_tokens == 0;
    t = ok ? NULL
           : sked__http_token_find(
                 h->tokens, h->n_tokens,
                 MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                             MHD_HTTP_HEADER_AUTHORIZATION));
    if (t) {
        snprintf(rs->actor, sizeof rs->actor, "%s", t->name);
        rs->scope = t->scope;
        ok = true;
    }
    pthread_mutex_unlock(&h->tokens_mu);
    return ok;
}

int sked__http_set_tokens(sked_http *h, const sked_http_token *tokens, size_t n)
{
    sked_http_token *copy = NULL;

    /* No token would open an API that other machines reach. */
    if (n == 0 && !h->loopback)
        return SKED_EINVAL;
    if (n > 0 && !(copy = sked__calloc(n, sizeof *copy)))
        return SKED_ENOMEM;
    if (n > 0)
        memcpy(copy, tokens, n * sizeof *copy);
    pthread_mutex_lock(&h->tokens_mu);
    sked_http_token *old = h->tokens;
    h->tokens = copy;
    h->n_tokens = n;
    pthread_mutex_unlock(&h->tokens_mu);
    free(old);
    return 0;
}

int sked__http_body_object(const http_req *req, http_resp *resp, bool empty_ok,
                           json_t **out)
{
    json_error_t je;
    json_t *j;

    *out = NULL;
    if (req->body_len == 0 && empty_ok) {
        *out = json_object();
        return *out ? 0
                    : sked__http_error(resp, SKED_ENOMEM, NULL, "%s",
                                       sked_strerror(SKED_ENOMEM));
    }
    /* jansson refuses invalid UTF-8 and NUL bytes itself. */
    int rc = sked__json_load(req->body, req->body_len, JSON_REJECT_DUPLICATES,
                             &j, &je);
    if (rc == SKED_ENOMEM)
        return sked__http_error(resp, rc, NULL, "%s", sked_strerror(rc));
    if (rc != 0)
        return sked__http_error(resp, SKED_ESYNTAX, NULL,
                                "malformed JSON at line %d, column %d: %s",
                                je.line, je.column, je.text);
    if (!json_is_object(j)) {
        json_decref(j);
        return sked__http_error(resp, SKED_ESYNTAX, NULL,
                                "expected a JSON object");
    }
    *out = j;
    return 0;
}

int sked__http_query_long(const http_req *req, http_resp *resp, const char *key,
                          long min, long max, long dflt, long *out)
{
    sked_error err;
    int rc;

    sked_error_clear(&err);
    rc = sked__query_long(sked__http_query(req, key), key, min, max, dflt, out,
                          &err);
    return rc != 0 ? sked__http_fail(resp, rc, &err) : 0;
}

const char *sked__http_query_get(void *req, const char *key)
{
    return sked__http_query(req, key);
}

/* ---- responses ---------------------------------------------------------- */

static int64_t mono_us(void)
{
    struct timespec ts;

    (void) clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Tell the access callback about the request answered with STATUS. */
static void report(const sked_http *h, const char *method, const char *path,
                   const req_state *rs, unsigned status)
{
    if (h->access)
        h->access(h->access_ctx, method, path, status,
                  mono_us() - rs->started_us);
}

/* Queue RESP on CONN; the body passes to libmicrohttpd. */
static enum MHD_Result send_resp(struct MHD_Connection *conn, http_resp *resp)
{
    struct MHD_Response *r = resp->stream;
    enum MHD_Result ok;

    if (!r && resp->body) {
        r = MHD_create_response_from_buffer(resp->len, resp->body,
                                            MHD_RESPMEM_MUST_FREE);
        if (r)
            resp->body = NULL;
    } else if (!r) {
        r = MHD_create_response_from_buffer(0, (void *) "",
                                            MHD_RESPMEM_PERSISTENT);
    }
    free(resp->body);
    resp->body = NULL;
    if (!r)
        return MHD_NO;
    if (!resp->stream)
        (void) MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                                       resp->content_type ? resp->content_type
                                                          : "application/json");
    if (resp->allow)
        (void) MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, resp->allow);
    if (resp->status == 401)
        (void) MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                                       "Bearer");
    if (resp->cors_origin)
        sked__mcp_http_cors(r, resp);
    if (resp->mcp_session[0] &&
        MHD_add_response_header(r, "Mcp-Session-Id", resp->mcp_session) !=
            MHD_YES) {
        MHD_destroy_response(r); /* a session its client cannot name */
        return MHD_NO;
    }
    (void) MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL,
                                   resp->cache_control ? resp->cache_control
                                                       : "no-store");
    if (resp->csp) {
        (void) MHD_add_response_header(
            r, MHD_HTTP_HEADER_CONTENT_SECURITY_POLICY, resp->csp);
        (void) MHD_add_response_header(
            r, MHD_HTTP_HEADER_X_CONTENT_TYPE_OPTIONS, "nosniff");
    }
    ok = MHD_queue_response(conn, resp->status, r);
    MHD_destroy_response(r);
    return ok;
}

/* Answer with the error CODE at once (before the body is read). */
static enum MHD_Result refuse(const sked_http *h, struct MHD_Connection *conn,
                              const char *method, const char *path,
                              req_state *rs, int code, const char *field,
                              const char *msg)
{
    http_resp resp = {0};

    (void) sked__http_error(&resp, code, field, "%s", msg);
    if (sked__mcp_http_path(path))
        sked__mcp_http_refusal(&resp, h->mcp, conn);
    rs->answered = true;
    report(h, method, path, rs, resp.status);
    return send_resp(conn, &resp);
}

/* Route and handle the complete request. */
static enum MHD_Result dispatch(sked_http *h, struct MHD_Connection *conn,
                                const char *method, const char *path,
                                req_state *rs)
{
    http_req req = {.method = method,
                    .path = path,
                    .body = rs->body.p ? rs->body.p : "",
                    .body_len = rs->body.len,
                    .engine = h->engine,
                    .server = h,
                    .conn = conn,
                    .value = mhd_value,
                    /* No token needed: a server without any, or an open
                     * path, which needs no scope either. */
                    .actor = rs->actor[0] ? rs->actor : "anonymous",
                    .scope = rs->scope ? rs->scope : SKED_SCOPE_ADMIN};
    http_resp resp = {0};
    http_match m;

    (void) sked__http_serve(&req, &resp, &m);
    if (resp.later) { /* suspended: answered once resumed (answer_later) */
        rs->later = resp.later;
        sked__http_match_done(&m);
        return MHD_YES;
    }
    if (resp.job) { /* on a writer: answered once resumed (answer_job) */
        rs->job = resp.job;
        sked__http_match_done(&m);
        return MHD_YES;
    }
    if (sked__mcp_http_path(path) && resp.status >= 400 && !resp.stream)
        sked__mcp_http_refusal(&resp, h->mcp, conn); /* the router's 405 */
    rs->answered = true;
    report(h, method, path, rs, resp.stream ? 200 : resp.status);
    enum MHD_Result ok = send_resp(conn, &resp);
    sked__http_match_done(&m);
    return ok;
}

/* Send the answer of the /mcp call of RS, its connection resumed. */
static enum MHD_Result answer_later(sked_http *h, struct MHD_Connection *conn,
                                    const char *method, const char *path,
                                    req_state *rs)
{
    http_resp resp = {0};

    sked__mcp_call_answer(sked__mcp_hub_calls(h->mcp), rs->later, &resp);
    rs->later = NULL;
    rs->answered = true;
    report(h, method, path, rs, resp.status);
    return send_resp(conn, &resp);
}

/* Send the answer of the writer's job of RS, its connection resumed. */
static enum MHD_Result answer_job(sked_http *h, struct MHD_Connection *conn,
                                  const char *method, const char *path,
                                  req_state *rs)
{
    http_resp resp = {0};

    sked__http_job_answer(h->writers, rs->job, &resp);
    rs->job = NULL;
    rs->answered = true;
    report(h, method, path, rs, resp.status);
    return send_resp(conn, &resp);
}

/* A refusal known from the headers (401, 413) is sent once the body is
 * read, not at once: a client that does not ask "Expect: 100-continue"
 * sends its body whatever the answer, and many (Python's urllib and
 * requests) read no answer before they have sent it all, so a connection
 * closed under them (reset, for the bytes left unread) is a broken pipe
 * to them, never a 413. The body is read and dropped, up to DRAIN_MAX
 * bytes: a body declared larger is answered at once, and a chunked one
 * that grows past it has its connection closed. */
#define DRAIN_MAX ((uint64_t) 64 * 1024 * 1024)

#define TOO_BIG_MSG "the body is over 1 MiB (1048576 bytes)"

/* Refuse the request with CODE and WHY (static) once its body is read. */
static void refuse_later(req_state *rs, int code, const char *why)
{
    rs->refusal = code;
    rs->why = why;
}

/* Keep the N bytes of DATA of the body, or drop them once the request is
 * refused (past the limit, or before). False when the connection must
 * close: out of memory, or more dropped than DRAIN_MAX. */
static bool body_take(req_state *rs, const char *data, size_t n)
{
    if (!rs->refusal && rs->body.len + n > HTTP_BODY_MAX) {
        refuse_later(rs, SKED_ETOOBIG, TOO_BIG_MSG);
        rs->dropped = rs->body.len;
        sked__buf_reset(&rs->body);
    }
    if (rs->refusal) {
        rs->dropped += n;
        return rs->dropped <= DRAIN_MAX;
    }
    return sked__buf_add(&rs->body, data, n);
}

/* False when the request line held a NUL byte. libmicrohttpd 0.9.75
 * reads the request line in place and hands out its parts as C strings,
 * so a NUL cuts the target short ("/healthz\0junk" naming /healthz)
 * without a word. The target's string (on_uri) ends at the space it
 * wrote a NUL over, and VERSION starts after it (and after any more
 * spaces): anything else between the two is the rest of a target cut
 * short. The bytes looked at are the line's own, up to its version. */
static bool target_whole(const req_state *rs, const char *version)
{
    const char *p;

    if (!rs->uri_end || !version || !version[0])
        return true;
    for (p = rs->uri_end + 1; p != version && (*p == ' ' || *p == '\t'); p++)
        ;
    return p == version;
}

/* The first call of a request: its framing, the token and the declared
 * size. A refusal with no body to wait for goes out at once. */
static enum MHD_Result on_first(sked_http *h, struct MHD_Connection *conn,
                                const char *method, const char *path,
                                const char *version, req_state *rs)
{
    char field[SKED_ERROR_FIELD_MAX], msg[SKED_ERROR_MSG_MAX];
    const char *why = sked__http_headers_whole(conn, method, field,
                                               sizeof field, msg, sizeof msg);
    http_framing f;

    if (!why)
        why = sked__http_framing(conn, &f);
    if (!why && !target_whole(rs, version))
        why = "a NUL byte in the request line";
    if (why)
        return refuse(h, conn, method, path, rs, SKED_ESYNTAX,
                      field[0] ? field : NULL, why);
    if (rs->refusal)
        ; /* the request line is refused already (on_uri) */
    else if (!authorized(h, conn, method, path, rs))
        refuse_later(rs, SKED_EUNAUTH,
                     "a valid bearer token is required "
                     "(Authorization: Bearer TOKEN)");
    else if (f.length > HTTP_BODY_MAX)
        refuse_later(rs, SKED_ETOOBIG, TOO_BIG_MSG);
    if (rs->refusal && (!f.body || f.expect_continue || f.length > DRAIN_MAX))
        return refuse(h, conn, method, path, rs, rs->refusal, NULL, rs->why);
    return MHD_YES;
}

/* What libmicrohttpd 0.9.75 cannot answer: a query whose parameters do
 * not fit in the connection's memory (CONN_MEMORY) leaves the connection
 * hanging, unanswered, until the timeout. So a URI over URI_MAX bytes, or
 * a query of more than QUERY_PARAMS_MAX parameters, is refused (400)
 * before libmicrohttpd splits it: its query is emptied here, in the
 * request line libmicrohttpd is reading, which is the one thing this
 * callback can still change. Both limits are far above what any route
 * takes, and small enough that what they let through always fits. */
#define URI_MAX          4096
#define QUERY_PARAMS_MAX 64

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
    req_state *rs = sked__calloc(1, sizeof *rs);
    char *query = strchr((char *) uri, '?'); /* see above */
    size_t params = 1;

    (void) cls;
    (void) conn;
    if (!rs)
        return NULL; /* on_request tries again, then closes */
    rs->started_us = mono_us();
    rs->uri_end = uri + strlen(uri);
    for (const char *p = query; p && *p; p++)
        params += *p == '&';
    if ((size_t) (rs->uri_end - uri) > URI_MAX)
        refuse_later(rs, SKED_ESYNTAX, "the URI is over 4096 bytes");
    else if (query && params > QUERY_PARAMS_MAX)
        refuse_later(rs, SKED_ESYNTAX, "the query has more than 64 parameters");
    if (rs->refusal && query)
        query[1] = '\0';
    return rs;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
                                  const char *url, const char *method,
                                  const char *version, const char *upload,
                                  size_t *upload_size, void **state)
{
    sked_http *h = cls;
    req_state *rs = *state;

    if (!rs) {
        if (!(rs = sked__calloc(1, sizeof *rs)))
            return MHD_NO;
        *state = rs;
        rs->started_us = mono_us();
    }
    if (!rs->seen) {
        rs->seen = true;
        sked__http_watch_headers(h->watch, conn, true);
        return on_first(h, conn, method, url, version, rs);
    }
    if (rs->later)
        return answer_later(h, conn, method, url, rs);
    if (rs->job)
        return answer_job(h, conn, method, url, rs);
    if (rs->answered) {
        *upload_size = 0;
        return MHD_YES;
    }
    if (*upload_size) {
        bool ok = body_take(rs, upload, *upload_size);
        *upload_size = 0;
        return ok ? MHD_YES : MHD_NO;
    }
    if (rs->refusal)
        return refuse(h, conn, method, url, rs, rs->refusal, NULL, rs->why);
    return dispatch(h, conn, method, url, rs);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **state,
                         enum MHD_RequestTerminationCode why)
{
    req_state *rs = *state;

    (void) why;
    sked__http_watch_headers(((sked_http *) cls)->watch, conn, false);
    if (rs) {
        if (rs->later) /* closed before its answer: the server stops */
            sked__mcp_call_drop(sked__mcp_hub_calls(((sked_http *) cls)->mcp),
                                rs->later);
        if (rs->job) /* closed before its answer: the server stops */
            sked__http_job_drop(((sked_http *) cls)->writers, rs->job);
        sked__buf_reset(&rs->body);
        free(rs);
    }
    *state = NULL;
}

/* ---- the daemon -----------------------------------------------------------
 */

/* The value of the hex digit C, or -1. */
static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

size_t sked__http_unescape(char *s)
{
    char *out = s;

    for (const char *in = s; *in; out++) {
        int hi, lo;
        if (in[0] == '%' && (hi = hex_digit(in[1])) >= 0 &&
            (lo = hex_digit(in[2])) >= 0 && (hi | lo) != 0) {
            *out = (char) (hi * 16 + lo);
            in += 3;
        } else {
            *out = *in++;
        }
    }
    *out = '\0';
    return (size_t) (out - s);
}

/* libmicrohttpd's unescape callback, for the path and the query: as
 * libmicrohttpd would decode, except %00, which would cut the path short
 * ("index.html%00.js" naming index.html) and so names nothing. */
static size_t unescape(void *cls, struct MHD_Connection *conn, char *uri)
{
    (void) cls;
    (void) conn;
    return sked__http_unescape(uri);
}

/* One thread per core: a request to SQLite is mostly CPU, and more
 * threads than cores only add switches to the tail latency (measured with
 * bench/bench_http.sh: 2 threads on 2 cores gave the best p99). */
static unsigned default_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);

    return n < 2 ? 2 : n > 64 ? 64 : (unsigned) n;
}

/* Check OPTS and copy the tokens into H. Returns 0 or SKED_EINVAL. */
static int configure(sked_http *h, const sked_http_options *o,
                     const char *listen, sked_error *err)
{
    if (o->n_tokens > 0) {
        if (!(h->tokens = sked__calloc(o->n_tokens, sizeof *h->tokens)))
            return sked__error_set(err, SKED_ENOMEM, NULL, -1, "%s",
                                   sked_strerror(SKED_ENOMEM));
        memcpy(h->tokens, o->tokens, o->n_tokens * sizeof *h->tokens);
        h->n_tokens = o->n_tokens;
    } else if (!sked__http_listen_is_loopback(listen)) {
        return sked__error_set(err, SKED_EINVAL, "listen", -1,
                               "%.64s is reachable from other machines: "
                               "give a token (--token-file or SKED_TOKEN) "
                               "or listen on 127.0.0.1",
                               listen);
    }
    return 0;
}

/* The writer threads of H's shared routes (none started yet). */
static int writers_new(sked_http *h, sked_error *err)
{
    return sked__http_writers_new(&h->writers) == 0
               ? 0
               : sked__error_set(err, SKED_ENOMEM, NULL, -1, "%s",
                                 sked_strerror(SKED_ENOMEM));
}

int sked__http_start(sked_engine *e, const sked_http_options *opts,
                     sked_http **out, sked_error *err)
{
    static const sked_http_options defaults = {0};
    const sked_http_options *o = opts ? opts : &defaults;
    const char *listen = o->listen ? o->listen : SKED_HTTP_LISTEN_DEFAULT;
    sked_http *h = sked__calloc(1, sizeof *h);
    listen_addr a;
    int rc;

    sked_error_clear(err);
    *out = NULL;
    if (!h)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, "%s",
                               sked_strerror(SKED_ENOMEM));
    h->engine = e;
    (void) pthread_mutex_init(&h->tokens_mu, NULL);
    h->loopback = sked__http_listen_is_loopback(listen);
    h->access = o->access;
    h->access_ctx = o->access_ctx;
    if ((rc = resolve_listen(listen, &a, err)) < 0 ||
        (rc = configure(h, o, listen, err)) < 0 ||
        (rc = sked__sse_hub_new(e, &h->hub, err)) < 0 ||
        (rc = writers_new(h, err)) < 0 ||
        (rc = sked__mcp_hub_new(e, o->mcp_allow_origin, o->n_mcp_allow_origin,
                                o->mcp_idle, &h->mcp, err)) < 0 ||
        (rc = sked__http_watch_start(o->header_timeout_secs
                                         ? o->header_timeout_secs
                                         : HEADER_TIMEOUT_DEFAULT,
                                     &h->watch, err)) < 0) {
        sked__http_stop(h);
        return rc;
    }
    h->daemon = MHD_start_daemon(
        MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME |
            (a.v6 ? MHD_USE_IPv6 : 0),
        0, NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR, &a.ss,
        MHD_OPTION_THREAD_POOL_SIZE,
        (unsigned) (o->threads ? o->threads : default_threads()),
        MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned) (o->timeout_secs ? o->timeout_secs : TIMEOUT_DEFAULT),
        MHD_OPTION_CONNECTION_LIMIT,
        (unsigned) (o->max_connections ? o->max_connections
                                       : CONNECTIONS_DEFAULT),
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t) CONN_MEMORY,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
        MHD_OPTION_URI_LOG_CALLBACK, on_uri, h, MHD_OPTION_NOTIFY_CONNECTION,
        sked__http_watch_notify, h->watch, MHD_OPTION_UNESCAPE_CALLBACK,
        unescape, h, MHD_OPTION_END);
    if (!h->daemon) {
        sked__http_stop(h);
        return sked__error_set(err, SKED_EIO, "listen", -1,
                               "cannot listen on %.64s: the port is in use or "
                               "the address is not this machine's (--listen "
                               "HOST:PORT chooses another)",
                               listen);
    }
    const union MHD_DaemonInfo *info =
        MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
    h->port = info ? info->port : 0;
    *out = h;
    return 0;
}

http_writers *sked__http_writers(sked_http *h)
{
    return h ? h->writers : NULL;
}

unsigned sked__http_port(const sked_http *h)
{
    return h->port;
}

void sked__http_stop(sked_http *h)
{
    if (!h)
        return;
    if (h->hub)
        sked__sse_hub_shutdown(h->hub);
    sked__mcp_hub_shutdown(h->mcp);
    sked__http_writers_stop(h->writers);
    if (h->daemon)
        MHD_stop_daemon(h->daemon);
    sked__http_writers_free(h->writers);
    sked__http_watch_stop(h->watch);
    sked__sse_hub_free(h->hub);
    sked__mcp_hub_free(h->mcp);
    free(h->tokens);
    pthread_mutex_destroy(&h->tokens_mu);
    free(h);
}
