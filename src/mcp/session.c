/* SPDX-License-Identifier: MIT */
/* An MCP session (mcp.h): the protocol's lifecycle, the dispatch of each
 * request to the module that does its work (tools.c, resources.c,
 * prompts.c, through mcp_int.h), cancellation, and the API call of
 * mcp_int.h. The thread that reads the event log for the session's
 * subscriptions and log messages is session_poll.c.
 *
 * Lifecycle (MCP "Lifecycle"): until initialize is answered only
 * initialize and ping are served; initialize agrees on a protocol
 * version, the client's when it is one of protocol_versions, else the
 * latest, and is answered once. A request is "in flight" from its
 * dispatch to its answer; notifications/cancelled sets the cancel flag
 * of the ones with its id, and their answers are dropped; one that
 * comes before its request (still queued by the transport) keeps that
 * request from running.
 *
 * Threads: sked__mcp_handle runs on several threads at once; the
 * session's state (version, log level, subscriptions, calls in flight)
 * is under its mutex, which no API call holds. The poller thread
 * (started at initialize when there is a notify function) is the only
 * one that sends notifications. Refused input changes nothing. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/alloc.h"
#include "base/error.h"
#include "base/json_io.h"
#include "base/json_text.h"
#include "mcp/jsonrpc.h"
#include "mcp/mcp_int.h"
#include "mcp/session_int.h"
#include "sked/sked.h"

/* The versions served, latest first (MCP's dates). */
static const char *const protocol_versions[] = {
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
};
#define N_VERSIONS (sizeof protocol_versions / sizeof protocol_versions[0])

/* Subscriptions a session holds at most, and the longest URI taken:
 * what a client asks for is bounded like everything else. */
#define SUBS_MAX     1000
#define URI_MAX      2048
#define POLL_DEFAULT (500 * (SKED_USEC_PER_SEC / 1000))

/* ---- the API ------------------------------------------------------------- */

int sked__mcp_api(const mcp_ctx *c, const char *method, const char *target,
                  json_t *body, const char *idempotency_key, unsigned *status,
                  json_t **answer, sked_error *err)
{
    char *text = body ? sked__json_text(body, NULL) : NULL;
    int rc;

    if (body && !text)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    rc = sked__mcp_api_text(c, method, target, text, idempotency_key, status,
                            answer, err);
    free(text);
    return rc;
}

int sked__mcp_api_text(const mcp_ctx *c, const char *method, const char *target,
                       const char *text, const char *idempotency_key,
                       unsigned *status, json_t **answer, sked_error *err)
{
    sked_mcp_call call = {.method = method,
                          .target = target,
                          .body = text,
                          .idempotency_key = idempotency_key,
                          .cancel = c->cancel};
    sked_mcp_reply r = {0};
    json_error_t je;
    json_t *j = NULL;
    int rc;

    rc = c->api(c->api_ctx, &call, &r, err);
    if (rc != 0) {
        free(r.body);
        return rc;
    }
    if (r.body && r.len > 0 &&
        (rc = sked__json_load(r.body, r.len, JSON_DECODE_ANY, &j, &je)) != 0) {
        free(r.body);
        if (rc == SKED_ENOMEM)
            return sked__error_set(err, rc, NULL, -1, NULL);
        return sked__error_set(err, SKED_EIO, NULL, -1,
                               "the API answered %u with a body that is not "
                               "JSON: %.80s",
                               r.status, je.text);
    }
    free(r.body);
    *status = r.status;
    *answer = j;
    return 0;
}

/* ---- the methods --------------------------------------------------------- */

typedef int (*method_fn)(sked_mcp *m, const mcp_ctx *c, json_t *params,
                         json_t **out, rpc_error *e);

/* Read the member NAME of PARAMS: a string, required or not. Returns 0
 * (*out NULL when absent) or -32602 with E filled. */
static int param_string(json_t *params, const char *name, bool required,
                        const char **out, rpc_error *e)
{
    json_t *v = json_object_get(params, name);

    *out = json_string_value(v);
    if (v && !json_is_string(v))
        return sked__rpc_fail(e, RPC_INVALID_PARAMS,
                              "Invalid params: %s: must be a string", name);
    if (!v && required)
        return sked__rpc_fail(e, RPC_INVALID_PARAMS,
                              "Invalid params: %s: missing", name);
    return 0;
}

/* Answer a module's failure RC (ERR filled): WHAT names what was not
 * found (-32602 for a tool or a prompt, -32002 for a resource). */
static int module_error(int rc, const sked_error *err, const char *what,
                        const char *name, rpc_error *e)
{
    const char *msg = err->msg[0] ? err->msg : sked_strerror(rc);

    if (rc == SKED_ENOTFOUND && strcmp(what, "resource") == 0) {
        sked__rpc_fail(e, RPC_RESOURCE_NOT_FOUND, "Resource not found: %.200s",
                       name);
        e->data = json_pack("{s:s}", "uri", name);
        return e->code;
    }
    /* A tool or a prompt not found, or what an argument names (a
     * prompt's run), in the module's words when it has some. */
    if (rc == SKED_ENOTFOUND && !err->msg[0])
        return sked__rpc_fail(e, RPC_INVALID_PARAMS,
                              "Invalid params: name: no %s \"%.100s\"", what,
                              name);
    if (rc == SKED_EINVAL || rc == SKED_ESYNTAX || rc == SKED_ERANGE ||
        rc == SKED_ETOOBIG || rc == SKED_ENOTFOUND) {
        if (!err->field[0])
            return sked__rpc_fail(e, RPC_INVALID_PARAMS, "Invalid params: %s",
                                  msg);
        sked__rpc_fail(e, RPC_INVALID_PARAMS, "Invalid params: %s: %s",
                       err->field, msg);
        e->data = json_pack("{s:s}", "field", err->field);
        return e->code;
    }
    return sked__rpc_fail(e, RPC_INTERNAL_ERROR, "Internal error: %s", msg);
}

static const char *negotiate(const char *asked)
{
    for (size_t i = 0; i < N_VERSIONS; i++)
        if (strcmp(asked, protocol_versions[i]) == 0)
            return protocol_versions[i];
    return protocol_versions[0];
}

static json_t *initialize_result(const char *version)
{
    return json_pack(
        "{s:s, s:{s:{s:b}, s:{s:b, s:b}, s:{s:b}, s:{}},"
        " s:{s:s, s:s, s:s}, s:s}",
        "protocolVersion", version, "capabilities", "tools", "listChanged", 0,
        "resources", "subscribe", 1, "listChanged", 1, "prompts", "listChanged",
        0, "logging", "serverInfo", "name", "sked", "title",
        "sked workflow scheduler", "version", sked_version(), "instructions",
        "sked runs workflows on schedules (cron expressions, intervals or "
        "instants, in a time zone). The tools create, inspect, change and "
        "trigger schedules, and list, start and cancel runs; each is one "
        "request of sked's HTTP API and fails with its message. Resources "
        "sked://schedules/{name} and sked://runs/{id} can be read and "
        "subscribed to. The prompts diagnose_run and why_not_fired lay out "
        "a failed run or a schedule that did not fire.");
}

static int m_initialize(sked_mcp *m, const mcp_ctx *c, json_t *params,
                        json_t **out, rpc_error *e)
{
    const char *asked, *version, *was;
    json_t *result;
    int rc;

    (void) c;
    if ((rc = param_string(params, "protocolVersion", true, &asked, e)) != 0)
        return rc;
    version = negotiate(asked);
    if (!(result = initialize_result(version)))
        return sked__rpc_fail(e, RPC_INTERNAL_ERROR,
                              "Internal error: out of "
                              "memory");
    pthread_mutex_lock(&m->mu);
    if (!(was = m->version))
        m->version = version;
    pthread_mutex_unlock(&m->mu);
    if (was) {
        json_decref(result);
        return sked__rpc_fail(e, RPC_INVALID_REQUEST,
                              "Invalid Request: the session is already "
                              "initialized (protocol version %s)",
                              was);
    }
    sked__mcp_poll_begin(m);
    *out = result;
    return 0;
}

static int m_ping(sked_mcp *m, const mcp_ctx *c, json_t *params, json_t **out,
                  rpc_error *e)
{
    (void) m, (void) c, (void) params, (void) e;
    *out = json_object();
    return 0;
}

/* A result built without a call; NULL is out of memory. */
static int built(json_t *result, json_t **out, rpc_error *e)
{
    if (!result)
        return sked__rpc_fail(e, RPC_INTERNAL_ERROR,
                              "Internal error: out of memory");
    *out = result;
    return 0;
}

/* tools/list when its text could not be kept (methods[], text). */
static int m_tools_list(sked_mcp *m, const mcp_ctx *c, json_t *params,
                        json_t **out, rpc_error *e)
{
    (void) m, (void) c, (void) params;
    return built(sked__mcp_tools_list(), out, e);
}

/* The "arguments" of PARAMS; a null one is none. */
static json_t *arguments(json_t *params)
{
    json_t *a = json_object_get(params, "arguments");

    return json_is_null(a) ? NULL : a;
}

static int m_tools_call(sked_mcp *m, const mcp_ctx *c, json_t *params,
                        json_t **out, rpc_error *e)
{
    sked_error err;
    const char *name;
    int rc;

    (void) m;
    if ((rc = param_string(params, "name", true, &name, e)) != 0)
        return rc;
    sked_error_clear(&err);
    if ((rc = sked__mcp_tool_call(c, name, arguments(params), out, &err)) != 0)
        return module_error(rc, &err, "tool", name, e);
    return 0;
}

static int m_resources_list(sked_mcp *m, const mcp_ctx *c, json_t *params,
                            json_t **out, rpc_error *e)
{
    sked_error err;
    const char *cursor;
    int rc;

    (void) m;
    if ((rc = param_string(params, "cursor", false, &cursor, e)) != 0)
        return rc;
    sked_error_clear(&err);
    if ((rc = sked__mcp_resources_list(c, cursor, out, &err)) != 0)
        return module_error(rc, &err, "resource", cursor ? cursor : "", e);
    return 0;
}

static int m_templates_list(sked_mcp *m, const mcp_ctx *c, json_t *params,
                            json_t **out, rpc_error *e)
{
    (void) m, (void) c, (void) params;
    return built(sked__mcp_resource_templates(), out, e);
}

/* Read the "uri" of PARAMS, at most URI_MAX bytes. */
static int param_uri(json_t *params, const char **out, rpc_error *e)
{
    int rc = param_string(params, "uri", true, out, e);

    if (rc == 0 && strlen(*out) > URI_MAX)
        return sked__rpc_fail(e, RPC_INVALID_PARAMS,
                              "Invalid params: uri: longer than %d bytes",
                              URI_MAX);
    return rc;
}

static int m_resources_read(sked_mcp *m, const mcp_ctx *c, json_t *params,
                            json_t **out, rpc_error *e)
{
    sked_error err;
    const char *uri;
    int rc;

    (void) m;
    if ((rc = param_uri(params, &uri, e)) != 0)
        return rc;
    sked_error_clear(&err);
    if ((rc = sked__mcp_resource_read(c, uri, out, &err)) != 0)
        return module_error(rc, &err, "resource", uri, e);
    return 0;
}

/* Subscribe to a resource that exists: it is read first, so that a
 * wrong URI is an error now rather than silence later. */
static int m_subscribe(sked_mcp *m, const mcp_ctx *c, json_t *params,
                       json_t **out, rpc_error *e)
{
    json_t *res = NULL;
    sked_error err;
    const char *uri;
    int rc;

    if ((rc = param_uri(params, &uri, e)) != 0)
        return rc;
    sked_error_clear(&err);
    if ((rc = sked__mcp_resource_read(c, uri, &res, &err)) != 0)
        return module_error(rc, &err, "resource", uri, e);
    json_decref(res);
    pthread_mutex_lock(&m->mu);
    if (!json_object_get(m->subs, uri) && json_object_size(m->subs) >= SUBS_MAX)
        rc = sked__rpc_fail(e, RPC_INVALID_PARAMS,
                            "Invalid params: uri: a session holds at most %d "
                            "subscriptions",
                            SUBS_MAX);
    else if (json_object_set_new(m->subs, uri, json_true()) != 0)
        rc = sked__rpc_fail(e, RPC_INTERNAL_ERROR,
                            "Internal error: out of memory");
    pthread_cond_broadcast(&m->poll_cv); /* news is now awaited */
    pthread_mutex_unlock(&m->mu);
    return rc != 0 ? rc : built(json_object(), out, e);
}

static int m_unsubscribe(sked_mcp *m, const mcp_ctx *c, json_t *params,
                         json_t **out, rpc_error *e)
{
    const char *uri;
    int rc;

    (void) c;
    if ((rc = param_uri(params, &uri, e)) != 0)
        return rc;
    pthread_mutex_lock(&m->mu);
    (void) json_object_del(m->subs, uri);
    pthread_mutex_unlock(&m->mu);
    return built(json_object(), out, e);
}

static int m_prompts_list(sked_mcp *m, const mcp_ctx *c, json_t *params,
                          json_t **out, rpc_error *e)
{
    (void) m, (void) c, (void) params;
    return built(sked__mcp_prompts_list(), out, e);
}

static int m_prompts_get(sked_mcp *m, const mcp_ctx *c, json_t *params,
                         json_t **out, rpc_error *e)
{
    sked_error err;
    const char *name;
    int rc;

    (void) m;
    if ((rc = param_string(params, "name", true, &name, e)) != 0)
        return rc;
    sked_error_clear(&err);
    if ((rc = sked__mcp_prompt_get(c, name, arguments(params), out, &err)) != 0)
        return module_error(rc, &err, "prompt", name, e);
    return 0;
}

static int m_set_level(sked_mcp *m, const mcp_ctx *c, json_t *params,
                       json_t **out, rpc_error *e)
{
    const char *level;
    int rc;

    (void) c;
    if ((rc = param_string(params, "level", true, &level, e)) != 0)
        return rc;
    for (size_t i = 0; i < MCP_LEVELS; i++) {
        if (strcmp(level, sked__mcp_log_levels[i]) != 0)
            continue;
        pthread_mutex_lock(&m->mu);
        m->log_level = (int) i;
        pthread_cond_broadcast(&m->poll_cv); /* news is now awaited */
        pthread_mutex_unlock(&m->mu);
        return built(json_object(), out, e);
    }
    return sked__rpc_fail(e, RPC_INVALID_PARAMS,
                          "Invalid params: level: must be one of debug, info, "
                          "notice, warning, error, critical, alert, "
                          "emergency");
}

static const struct method {
    const char *name;
    method_fn fn;
    /* A result that never changes, as text to answer as it is; fn
     * answers when it cannot be had (out of memory). */
    const char *(*text)(size_t *len);
} methods[] = {
    {"initialize", m_initialize, NULL},
    {"ping", m_ping, NULL},
    {"tools/list", m_tools_list, sked__mcp_tools_list_text},
    {"tools/call", m_tools_call, NULL},
    {"resources/list", m_resources_list, NULL},
    {"resources/templates/list", m_templates_list, NULL},
    {"resources/read", m_resources_read, NULL},
    {"resources/subscribe", m_subscribe, NULL},
    {"resources/unsubscribe", m_unsubscribe, NULL},
    {"prompts/list", m_prompts_list, NULL},
    {"prompts/get", m_prompts_get, NULL},
    {"logging/setLevel", m_set_level, NULL},
};

static const struct method *method_of(const char *name)
{
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (strcmp(methods[i].name, name) == 0)
            return &methods[i];
    return NULL;
}

/* ---- requests and notifications ------------------------------------------ */

/* Whether ID was cancelled before its request came; forget it then.
 * Under M's mutex. */
static bool cancelled_early(sked_mcp *m, json_t *id)
{
    json_t *v;
    size_t i;

    json_array_foreach(m->early, i, v)
    {
        if (json_equal(v, id)) {
            (void) json_array_remove(m->early, i);
            return true;
        }
    }
    return false;
}

/* Enter C into M's calls, when R may run now. Returns 0, 1 when it was
 * cancelled before it came, or the error's code with E filled. */
static int call_enter(sked_mcp *m, const struct method *md, mcp_inflight *c,
                      rpc_error *e)
{
    int rc = 0;

    pthread_mutex_lock(&m->mu);
    if (m->closing)
        rc = sked__rpc_fail(e, RPC_INTERNAL_ERROR,
                            "Internal error: the session is closing");
    else if (cancelled_early(m, c->id))
        rc = 1;
    else if (!m->version && md->fn != m_initialize && md->fn != m_ping)
        rc = sked__rpc_fail(e, RPC_INVALID_REQUEST,
                            "Invalid Request: the session is not initialized: "
                            "send initialize first");
    if (rc == 0) {
        c->next = m->calls;
        m->calls = c;
    }
    pthread_mutex_unlock(&m->mu);
    return rc;
}

/* Take C out of M's calls; return whether it was cancelled. */
static bool call_leave(sked_mcp *m, mcp_inflight *c)
{
    bool cancelled;

    pthread_mutex_lock(&m->mu);
    for (mcp_inflight **p = &m->calls; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    cancelled = c->cancel != 0;
    pthread_cond_broadcast(&m->calls_cv);
    pthread_mutex_unlock(&m->mu);
    return cancelled;
}

/* Run the request R. Returns 0 with *out, or with *text (borrowed,
 * *text_len bytes) for a method whose result is constant text, or the
 * error's code with E filled; *cancelled when its answer is not wanted. */
static int request(sked_mcp *m, const rpc_msg *r, json_t **out,
                   const char **text, size_t *text_len, rpc_error *e,
                   bool *cancelled)
{
    const struct method *md = method_of(r->method);
    mcp_inflight c = {.id = r->id};
    int rc;

    *cancelled = false;
    if (!md)
        return sked__rpc_fail(e, RPC_METHOD_NOT_FOUND,
                              "Method not found: %.100s", r->method);
    if (r->params && !json_is_object(r->params))
        return sked__rpc_fail(e, RPC_INVALID_PARAMS,
                              "Invalid params: params: must be an object");
    if ((rc = call_enter(m, md, &c, e)) != 0) {
        *cancelled = rc == 1;
        return rc == 1 ? 0 : rc;
    }
    mcp_ctx ctx = {
        .api = m->o.api, .api_ctx = m->o.api_ctx, .cancel = &c.cancel};
    *out = NULL;
    *text = md->text ? md->text(text_len) : NULL;
    rc = *text ? 0 : md->fn(m, &ctx, r->params, out, e);
    *cancelled = call_leave(m, &c);
    if (*text)
        return 0;
    if (rc != 0) {
        json_decref(*out); /* a module's result despite its failure */
        *out = NULL;
    } else if (!*out) {
        rc = sked__rpc_fail(e, RPC_INTERNAL_ERROR,
                            "Internal error: out of memory");
    }
    return rc;
}

/* notifications/cancelled: cancel the calls in flight with its id. */
static void cancel_request(sked_mcp *m, json_t *params)
{
    json_t *id = json_object_get(params, "requestId");
    bool found = false;

    if (!json_is_string(id) && !json_is_integer(id))
        return;
    pthread_mutex_lock(&m->mu);
    for (mcp_inflight *c = m->calls; c; c = c->next) {
        if (json_equal(c->id, id)) {
            c->cancel = 1;
            found = true;
        }
    }
    /* Not in flight: queued, or answered already (ids are not reused
     * within a session, so remembering it is harmless). */
    if (!found) {
        if (json_array_size(m->early) >= MCP_EARLY_MAX)
            (void) json_array_remove(m->early, 0);
        (void) json_array_append(m->early, id);
    }
    pthread_mutex_unlock(&m->mu);
}

/* A notification is never answered; those not known are ignored, as
 * JSON-RPC says. */
static void notification(sked_mcp *m, const rpc_msg *r)
{
    if (strcmp(r->method, "notifications/cancelled") == 0)
        cancel_request(m, r->params);
}

int sked__mcp_handle(sked_mcp *m, const char *msg, size_t len, char **reply,
                     size_t *reply_len)
{
    rpc_error e = {0};
    json_t *id = NULL, *result = NULL;
    const char *text = NULL;
    size_t text_len = 0;
    bool cancelled = false;
    rpc_msg r;
    int rc;

    *reply = NULL;
    *reply_len = 0;
    rc = sked__rpc_read(msg, len, &r, &id, &e);
    if (rc == 0 && r.kind == RPC_NOTIFICATION)
        notification(m, &r);
    if (rc == 0 && r.kind != RPC_REQUEST) {
        json_decref(id);
        sked__rpc_msg_done(&r);
        return 0;
    }
    if (rc == 0)
        rc = request(m, &r, &result, &text, &text_len, &e, &cancelled);
    if (rc == 0 && !cancelled && text)
        *reply = sked__rpc_result_text(id, text, text_len, reply_len);
    else if (rc == 0 && !cancelled)
        *reply = sked__rpc_result(id, result, reply_len);
    else if (rc != 0 && !cancelled)
        *reply = sked__rpc_error(id, &e, reply_len);
    else
        json_decref(result);
    json_decref(e.data);
    json_decref(id);
    sked__rpc_msg_done(&r);
    return *reply || cancelled ? 0 : SKED_ENOMEM;
}

/* ---- sessions ------------------------------------------------------------ */

int sked__mcp_open(const sked_mcp_options *o, sked_mcp **out, sked_error *err)
{
    sked_mcp *m;

    if (!o || !o->api)
        return sked__error_set(err, SKED_EINVAL, "api", -1,
                               "a session needs an API function");
    if (!(m = sked__calloc(1, sizeof *m)) || !(m->subs = json_object()) ||
        !(m->early = json_array())) {
        if (m)
            json_decref(m->subs);
        free(m);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    m->o = *o;
    if (m->o.poll <= 0)
        m->o.poll = POLL_DEFAULT;
    m->log_level = MCP_LEVEL_NONE;
    if (pthread_mutex_init(&m->mu, NULL) != 0 ||
        sked__cond_init_mono(&m->poll_cv) != 0 ||
        pthread_cond_init(&m->calls_cv, NULL) != 0) {
        json_decref(m->subs);
        json_decref(m->early);
        free(m);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1,
                               "cannot make the session's locks");
    }
    *out = m;
    return 0;
}

const char *sked__mcp_version(const sked_mcp *m)
{
    const char *v;

    pthread_mutex_lock((pthread_mutex_t *) &m->mu);
    v = m->version;
    pthread_mutex_unlock((pthread_mutex_t *) &m->mu);
    return v;
}

void sked__mcp_close(sked_mcp *m)
{
    bool polling;

    if (!m)
        return;
    pthread_mutex_lock(&m->mu);
    m->closing = true;
    m->stop = 1;
    for (mcp_inflight *c = m->calls; c; c = c->next)
        c->cancel = 1;
    pthread_cond_broadcast(&m->poll_cv);
    polling = m->polling;
    pthread_mutex_unlock(&m->mu);
    if (polling)
        pthread_join(m->poller, NULL);
    pthread_mutex_lock(&m->mu);
    while (m->calls)
        pthread_cond_wait(&m->calls_cv, &m->mu);
    pthread_mutex_unlock(&m->mu);
    pthread_mutex_destroy(&m->mu);
    pthread_cond_destroy(&m->poll_cv);
    pthread_cond_destroy(&m->calls_cv);
    json_decref(m->subs);
    json_decref(m->early);
    free(m);
}
