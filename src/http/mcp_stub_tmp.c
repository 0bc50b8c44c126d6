/* SPDX-License-Identifier: MIT */
/* A stand-in for the MCP session (mcp/mcp.h) until src/mcp/session.c
 * exists: initialize, ping, tools/list (empty) and resources/subscribe
 * (which sends one notifications/resources/updated at once), enough to
 * drive the HTTP transport. Removed once the real session is in; until
 * then it compiles to nothing wherever the real one (session_int.h) is
 * there, so that whichever is merged first, the real one is linked. */
#if defined(__has_include)
#if __has_include("mcp/session_int.h")
#define SKED_MCP_SESSION_REAL 1
#endif
#endif

#ifdef SKED_MCP_SESSION_REAL
typedef int sked__mcp_stub_unused; /* ISO C wants a declaration */
#else
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/json_text.h"
#include "mcp/mcp.h"

#include <jansson.h>

struct sked_mcp {
    sked_mcp_options o;
    pthread_mutex_t mu;
    char version[16];
};

int sked__mcp_open(const sked_mcp_options *o, sked_mcp **out, sked_error *err)
{
    sked_mcp *m;

    *out = NULL;
    if (!o || !o->api)
        return sked__error_set(err, SKED_EINVAL, "api", -1, "no api");
    if (!(m = sked__calloc(1, sizeof *m)))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    m->o = *o;
    (void) pthread_mutex_init(&m->mu, NULL);
    *out = m;
    return 0;
}

static json_t *result_of(sked_mcp *m, const char *method, json_t *params)
{
    if (strcmp(method, "initialize") == 0) {
        const char *v =
            json_string_value(json_object_get(params, "protocolVersion"));
        const char *ok[] = {"2025-11-25", "2025-06-18", "2025-03-26",
                            "2024-11-05"};
        const char *agreed = ok[0];
        for (size_t i = 0; v && i < 4; i++)
            if (strcmp(v, ok[i]) == 0)
                agreed = ok[i];
        pthread_mutex_lock(&m->mu);
        strcpy(m->version, agreed);
        pthread_mutex_unlock(&m->mu);
        return json_pack("{s:s, s:{s:{}, s:{s:b}}, s:{s:s, s:s}}",
                         "protocolVersion", agreed, "capabilities", "tools",
                         "resources", "subscribe", 1, "serverInfo", "name",
                         "sked", "version", "0");
    }
    if (strcmp(method, "ping") == 0)
        return json_object();
    if (strcmp(method, "tools/list") == 0)
        return json_pack("{s:[]}", "tools");
    if (strcmp(method, "resources/subscribe") == 0) {
        json_t *n = json_pack(
            "{s:s, s:s, s:{s:O}}", "jsonrpc", "2.0", "method",
            "notifications/resources/updated", "params", "uri",
            json_object_get(params, "uri") ? json_object_get(params, "uri")
                                           : json_null());
        char *t = n ? sked__json_text(n, NULL) : NULL;
        if (t && m->o.notify)
            m->o.notify(m->o.notify_ctx, t, strlen(t));
        free(t);
        json_decref(n);
        return json_object();
    }
    return NULL;
}

int sked__mcp_handle(sked_mcp *m, const char *msg, size_t len, char **reply,
                     size_t *reply_len)
{
    json_t *j = json_loadb(msg, len, 0, NULL), *id, *res, *out;
    const char *method;

    *reply = NULL;
    *reply_len = 0;
    if (!j) {
        out = json_pack("{s:s, s:{s:i, s:s}, s:n}", "jsonrpc", "2.0", "error",
                        "code", -32700, "message", "Parse error", "id");
    } else {
        id = json_object_get(j, "id");
        method = json_string_value(json_object_get(j, "method"));
        if (!id || !method) {
            json_decref(j);
            return 0;
        }
        res = result_of(m, method, json_object_get(j, "params"));
        out = res ? json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id,
                              "result", res)
                  : json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0",
                              "id", id, "error", "code", -32601, "message",
                              "Method not found");
    }
    json_decref(j);
    *reply = out ? sked__json_text(out, reply_len) : NULL;
    json_decref(out);
    return *reply ? 0 : SKED_ENOMEM;
}

const char *sked__mcp_version(const sked_mcp *m)
{
    return m->version[0] ? m->version : NULL;
}

void sked__mcp_close(sked_mcp *m)
{
    if (!m)
        return;
    (void) pthread_mutex_destroy(&m->mu);
    free(m);
}

#endif
