/* SPDX-License-Identifier: MIT */
/* /mcp: the Streamable HTTP transport of MCP (mcp_http.h, docs/mcp.md).
 *
 * POST carries one JSON-RPC message: an initialize without a session id
 * opens a session (its id in the Mcp-Session-Id header of the answer);
 * any other message names a known session. A request runs on a worker
 * (mcp_calls.c) and is answered with its JSON-RPC response
 * (application/json), or 202 with no body once cancelled (nothing is
 * owed); a notification or a response is handled at once, never behind
 * the calls in flight it may cancel, and answered 202 with no body. GET
 * opens the session's stream of notifications, one per session; DELETE
 * ends the session and its calls in flight.
 *
 * Before a message reaches a session: the token (server.c, as for the
 * API), the Origin (a page of another site must not reach a server on
 * loopback through DNS rebinding: only loopback origins, and those of
 * --mcp-allow-origin, may send one), the Accept header, the session id
 * and the protocol version. Every refusal is a JSON-RPC error object with
 * id null, the form MCP clients read. */
#include "http/mcp_http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <microhttpd.h>

#include "base/alloc.h"
#include "base/json_text.h"
#include "base/utf8.h"

/* JSON-RPC error codes of the transport's refusals. */
#define RPC_PARSE_ERROR     (-32700)
#define RPC_INVALID_REQUEST (-32600)
#define RPC_SERVER_ERROR    (-32000) /* a refusal of the transport */
#define RPC_NO_SESSION      (-32001)

/* The protocol version a request without MCP-Protocol-Version speaks. */
#define VERSION_ASSUMED "2025-03-26"

static const char *const versions[] = {"2025-11-25", "2025-06-18", "2025-03-26",
                                       "2024-11-05"};

bool sked__mcp_http_path(const char *path)
{
    return strcmp(path, "/mcp") == 0;
}

/* A JSON string of MSG, whose bytes that are not UTF-8 (a parser's
 * message quoting the body) become U+FFFD. */
static json_t *text_of(const char *msg)
{
    json_t *j = json_string(msg);
    char *clean;
    size_t n;

    if (j || sked__utf8_sanitize(msg, strlen(msg), &clean, &n) < 0)
        return j;
    j = json_stringn(clean, n);
    free(clean);
    return j;
}

/* Answer STATUS with the JSON-RPC error CODE and MSG, for the request
 * of id ID (JSON text; NULL: id null). */
static int rpc_error_of(http_resp *resp, unsigned status, int code,
                        const char *msg, const char *id)
{
    json_t *jid = id ? json_loads(id, JSON_DECODE_ANY, NULL) : NULL;
    json_t *body =
        json_pack("{s:s, s:{s:i, s:o}, s:o}", "jsonrpc", "2.0", "error", "code",
                  code, "message", text_of(msg), "id", jid ? jid : json_null());

    (void) sked__http_json(resp, status, body);
    return status >= 500 ? SKED_EBUSY : SKED_ESYNTAX;
}

/* Answer STATUS with the JSON-RPC error CODE and MSG, id null. */
static int rpc_error(http_resp *resp, unsigned status, int code,
                     const char *msg)
{
    return rpc_error_of(resp, status, code, msg, NULL);
}

void sked__mcp_http_refusal(http_resp *resp, const sked_mcp_hub *hub,
                            struct MHD_Connection *conn)
{
    const char *origin =
        conn ? MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin")
             : NULL;

    if (hub && origin && sked__mcp_origin_allowed(hub, origin))
        resp->cors_origin = origin;
    json_t *j = resp->body ? json_loadb(resp->body, resp->len, 0, NULL) : NULL;
    const char *msg = json_string_value(
        json_object_get(json_object_get(j, "error"), "message"));
    char text[SKED_ERROR_MSG_MAX];

    if (json_object_get(j, "jsonrpc")) {
        json_decref(j);
        return;
    }
    snprintf(text, sizeof text, "%s", msg ? msg : "refused");
    json_decref(j);
    (void) rpc_error(resp, resp->status, RPC_SERVER_ERROR, text);
}

void sked__mcp_http_cors(struct MHD_Response *r, const http_resp *resp)
{
    (void) MHD_add_response_header(r, "Access-Control-Allow-Origin",
                                   resp->cors_origin);
    (void) MHD_add_response_header(r, "Vary", "Origin");
    (void) MHD_add_response_header(r, "Access-Control-Expose-Headers",
                                   "Mcp-Session-Id, WWW-Authenticate");
    if (!resp->cors_preflight)
        return;
    (void) MHD_add_response_header(r, "Access-Control-Allow-Methods",
                                   "GET, POST, DELETE");
    (void) MHD_add_response_header(
        r, "Access-Control-Allow-Headers",
        "Authorization, Content-Type, Accept, Mcp-Session-Id, "
        "MCP-Protocol-Version, Last-Event-ID");
    (void) MHD_add_response_header(r, "Access-Control-Max-Age", "600");
}

/* True when the Accept header of REQ lists the media type TYPE. */
static bool accepts(const http_req *req, const char *type)
{
    const char *a = sked__http_header(req, "Accept");
    size_t n = strlen(type);

    for (const char *p = a; p && *p;) {
        p += strspn(p, " \t,");
        size_t len = strcspn(p, ",;");
        while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            len--;
        if (len == n && strncasecmp(p, type, n) == 0)
            return true;
        p += strcspn(p, ",");
    }
    return false;
}

static bool supported(const char *version)
{
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++)
        if (strcmp(version, versions[i]) == 0)
            return true;
    return false;
}

/* The checks of every request to the endpoint, before its session: the
 * server, the Origin, the Accept header (ACCEPT_JSON: a POST, which must
 * take both kinds of answer) and the protocol version's form. Returns 0,
 * or the error code with RESP filled. */
static int gate(const http_req *req, http_resp *resp, bool accept_json,
                bool accept_stream)
{
    sked_mcp_hub *hub = sked__http_mcp_hub(req);
    const char *origin = sked__http_header(req, "Origin");
    const char *version = sked__http_header(req, "MCP-Protocol-Version");

    if (!hub)
        return rpc_error(resp, 404, RPC_SERVER_ERROR,
                         "/mcp is served by \"sked server\" only");
    if (origin && !sked__mcp_origin_allowed(hub, origin))
        return rpc_error(resp, 403, RPC_SERVER_ERROR,
                         "Origin not allowed: only loopback origins and "
                         "those of --mcp-allow-origin may call /mcp");
    resp->cors_origin = origin; /* the page may read what follows */
    if ((accept_json && !accepts(req, "application/json")) ||
        (accept_stream && !accepts(req, "text/event-stream")))
        return rpc_error(resp, 406, RPC_SERVER_ERROR,
                         accept_json ? "Not Acceptable: the Accept header "
                                       "must list application/json and "
                                       "text/event-stream"
                                     : "Not Acceptable: the Accept header "
                                       "must list text/event-stream");
    if (version && !supported(version))
        return rpc_error(resp, 400, RPC_SERVER_ERROR,
                         "unsupported MCP-Protocol-Version (supported: "
                         "2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)");
    return 0;
}

/* The session REQ names into *out (a reference). Returns 0, or the
 * error code with RESP filled: no Mcp-Session-Id (400), an unknown or
 * ended one (404), a protocol version other than the session's (400). */
static int session_of(const http_req *req, http_resp *resp, mcp_session **out)
{
    const char *id = sked__http_header(req, "Mcp-Session-Id");
    const char *version = sked__http_header(req, "MCP-Protocol-Version");
    const char *agreed;
    mcp_session *s;

    *out = NULL;
    if (!id)
        return rpc_error(resp, 400, RPC_SERVER_ERROR,
                         "Bad Request: the Mcp-Session-Id header is "
                         "required (initialize opens a session)");
    s = sked__mcp_session_find(sked__http_mcp_hub(req), id);
    /* Another token's session is not theirs to use, nor to know of. */
    if (s && strcmp(sked__mcp_session_actor(s), req->actor) != 0) {
        sked__mcp_session_release(s);
        s = NULL;
    }
    if (!s)
        return rpc_error(resp, 404, RPC_NO_SESSION,
                         "Session not found: it ended or never existed; "
                         "initialize a new one");
    agreed = sked__mcp_version(sked__mcp_session_mcp(s));
    if (version && agreed && strcmp(version, agreed) != 0) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "MCP-Protocol-Version %.20s is not the session's (%.20s)",
                 version, agreed);
        sked__mcp_session_release(s);
        return rpc_error(resp, 400, RPC_SERVER_ERROR, msg);
    }
    *out = s;
    return 0;
}

/* Hand MSG to S's session and answer with what it owes. */
static int deliver(mcp_session *s, const http_req *req, http_resp *resp)
{
    char *reply = NULL;
    size_t len = 0;

    if (sked__mcp_handle(sked__mcp_session_mcp(s), req->body, req->body_len,
                         &reply, &len) < 0)
        return rpc_error(resp, 500, -32603, "out of memory");
    resp->content_type = "application/json";
    resp->status = reply ? 200 : 202;
    resp->body = reply;
    resp->len = len;
    return 0;
}

/* An initialize without a session: open one, and keep it when the
 * session accepted the initialize (it agreed on a version). */
static int initialize(const http_req *req, http_resp *resp)
{
    mcp_session *s;
    int rc = sked__mcp_session_new(sked__http_mcp_hub(req), req->actor,
                                   req->scope, &s);

    if (rc == SKED_EBUSY)
        return rpc_error(resp, 503, RPC_SERVER_ERROR,
                         "too many MCP sessions (256): end one (DELETE "
                         "/mcp) or wait for idle ones to end");
    if (rc < 0)
        return rpc_error(resp, 500, -32603, "cannot open a session");
    rc = deliver(s, req, resp);
    if (rc == 0 && sked__mcp_version(sked__mcp_session_mcp(s))) {
        sked__mcp_session_publish(s);
        snprintf(resp->mcp_session, sizeof resp->mcp_session, "%s",
                 sked__mcp_session_id(s));
    } else {
        sked__mcp_session_end(s);
    }
    sked__mcp_session_release(s);
    return rc;
}

/* What kind of message BODY is: false with RESP filled when it is not
 * one JSON-RPC message; *init set for an initialize request, *id (JSON
 * text, malloc'd) for any other request, which runs on a worker. */
static bool classify(const http_req *req, http_resp *resp, bool *init,
                     char **id)
{
    json_error_t je;
    json_t *j = json_loadb(req->body, req->body_len, 0, &je);
    const char *method = json_string_value(json_object_get(j, "method"));
    json_t *jid = json_object_get(j, "id");

    *init = false;
    *id = NULL;
    if (!j) {
        char msg[SKED_ERROR_MSG_MAX];
        snprintf(msg, sizeof msg, "Parse error: line %d, column %d: %.120s",
                 je.line, je.column, je.text);
        (void) rpc_error(resp, 400, RPC_PARSE_ERROR, msg);
        return false;
    }
    if (!json_is_object(j)) {
        json_decref(j);
        (void) rpc_error(resp, 400, RPC_INVALID_REQUEST,
                         "Invalid Request: one JSON-RPC message (an "
                         "object) per POST; batches are not supported");
        return false;
    }
    *init = method && strcmp(method, "initialize") == 0 && jid;
    /* A request the session will run (an id it takes): a malformed one
     * is answered at once, inline, as is every notification. */
    if (method && !*init && (json_is_string(jid) || json_is_integer(jid)))
        *id = json_dumps(jid, JSON_ENCODE_ANY | JSON_COMPACT);
    json_decref(j);
    return true;
}

/* Run the request (its id ID, owned) of S on a worker: the answer comes
 * once it is ready (resp->later). */
static int post_later(mcp_session *s, const http_req *req, http_resp *resp,
                      char *id)
{
    int rc = sked__mcp_call_submit(sked__mcp_hub_calls(sked__http_mcp_hub(req)),
                                   s, req, resp->cors_origin, id, &resp->later);

    if (rc == SKED_EBUSY)
        rc = rpc_error_of(resp, 503, RPC_SERVER_ERROR,
                          "too many requests of this session in flight (8): "
                          "wait for an answer, or cancel one",
                          id);
    else if (rc == SKED_ECANCELED)
        rc = rpc_error_of(resp, 503, RPC_SERVER_ERROR, "the server is stopping",
                          id);
    else if (rc < 0)
        rc = rpc_error_of(resp, 500, -32603, "out of memory", id);
    if (rc < 0)
        free(id);
    return rc;
}

static int mcp_post(const http_req *req, http_resp *resp)
{
    mcp_session *s;
    char *id;
    bool init;
    int rc;

    if ((rc = gate(req, resp, true, true)) != 0)
        return rc;
    if (!classify(req, resp, &init, &id))
        return SKED_ESYNTAX;
    if (init && !sked__http_header(req, "Mcp-Session-Id"))
        return initialize(req, resp);
    if ((rc = session_of(req, resp, &s)) != 0) {
        free(id);
        return rc;
    }
    /* A notification (notifications/cancelled above all) is quick, and
     * must not wait behind the calls it may cancel: it is handled here. */
    rc = id ? post_later(s, req, resp, id) : deliver(s, req, resp);
    sked__mcp_session_release(s);
    return rc;
}

static int mcp_get(const http_req *req, http_resp *resp)
{
    mcp_session *s;
    int rc;

    if (strcmp(req->method, "HEAD") == 0) {
        resp->allow = "GET, POST, DELETE, OPTIONS";
        return rpc_error(resp, 405, RPC_SERVER_ERROR,
                         "HEAD is not allowed on /mcp");
    }
    if ((rc = gate(req, resp, false, true)) != 0 ||
        (rc = session_of(req, resp, &s)) != 0)
        return rc;
    rc = sked__mcp_stream_open(s, req, resp);
    sked__mcp_session_release(s);
    if (rc == SKED_ECONFLICT)
        return rpc_error(resp, 409, RPC_SERVER_ERROR,
                         "Conflict: the session has a stream open already");
    if (rc == SKED_EBUSY)
        return rpc_error(resp, 503, RPC_SERVER_ERROR, "the server is stopping");
    if (rc < 0)
        return rpc_error(resp, 500, -32603, "out of memory");
    return 0;
}

static int mcp_delete(const http_req *req, http_resp *resp)
{
    mcp_session *s;
    int rc;

    if ((rc = gate(req, resp, false, false)) != 0 ||
        (rc = session_of(req, resp, &s)) != 0)
        return rc;
    sked__mcp_session_end(s);
    /* Its requests in flight end with it (their POSTs are answered). */
    sked__mcp_calls_end(sked__mcp_hub_calls(sked__http_mcp_hub(req)), s);
    sked__mcp_session_release(s);
    resp->status = 204;
    return 0;
}

/* A browser's preflight: the page of an allowed origin learns what it
 * may send; others are refused. No token: the browser sends none here. */
static int mcp_options(const http_req *req, http_resp *resp)
{
    int rc = gate(req, resp, false, false);

    if (rc != 0)
        return rc;
    resp->cors_preflight = true;
    resp->allow = "GET, POST, DELETE, OPTIONS";
    resp->status = 204;
    return 0;
}

const http_route sked__mcp_routes[] = {
    {"POST", "/mcp", mcp_post, "send one MCP message (JSON-RPC; docs/mcp.md)",
     0, SKED_SCOPE_READ},
    {"GET", "/mcp", mcp_get, "the MCP session's stream of notifications (SSE)",
     0, SKED_SCOPE_READ},
    {"DELETE", "/mcp", mcp_delete, "end the MCP session", 204, SKED_SCOPE_READ},
    {"OPTIONS", "/mcp", mcp_options,
     "what a page of an allowed origin may send (CORS)", 204, SKED_SCOPE_READ},
    {0},
};
