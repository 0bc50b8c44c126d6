/* SPDX-License-Identifier: MIT */
/* The API answered in the same process (http.h, sked__http_call): a
 * request given as its method, its path and query as on the wire, its
 * body and its Idempotency-Key goes through the router and the handlers
 * the server uses, with no socket and no token (the caller is the
 * process itself). The MCP sessions of "/mcp" and "sked mcp --db" call
 * the API this way, so that their tools say what the API says. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/error.h"
#include "http/http_int.h"
#include "mcp/mcp.h"

typedef struct call_values {
    http_pairs query;
    const char *idempotency_key;
} call_values;

void sked__http_split_query(char *query, http_pairs *p)
{
    for (char *kv = query; kv && p->n < HTTP_PAIRS_MAX;) {
        char *amp = strchr(kv, '&'), *eq;
        if (amp)
            *amp++ = '\0';
        if (*kv) {
            if ((eq = strchr(kv, '=')))
                *eq++ = '\0';
            (void) sked__http_unescape(kv);
            if (eq)
                (void) sked__http_unescape(eq);
            p->key[p->n] = kv;
            p->val[p->n++] = eq ? eq : "";
        }
        kv = amp;
    }
}

const char *sked__http_pairs_get(const http_pairs *p, bool nocase,
                                 const char *key)
{
    for (size_t i = 0; i < p->n; i++)
        if (nocase ? strcasecmp(p->key[i], key) == 0
                   : strcmp(p->key[i], key) == 0)
            return p->val[i];
    return NULL;
}

static const char *call_value(const http_req *req, bool header, const char *key)
{
    const call_values *v = req->value_ctx;

    if (!header)
        return sked__http_pairs_get(&v->query, false, key);
    if (strcasecmp(key, "Idempotency-Key") == 0)
        return v->idempotency_key;
    if (strcasecmp(key, "Content-Type") == 0)
        return "application/json";
    return NULL;
}

/* Answer CALL for ACTOR with SCOPE on ENGINE. */
static int call_as(sked_engine *engine, const char *actor, sked_scope scope,
                   const sked_mcp_call *call, sked_mcp_reply *reply,
                   sked_error *err)
{
    call_values v = {.idempotency_key = call->idempotency_key};
    http_resp resp = {0};
    http_match m;
    char *path, *query;
    size_t body_len = call->body ? strlen(call->body) : 0;

    memset(reply, 0, sizeof *reply);
    if (!(path = strdup(call->target)))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, "out of memory");
    if ((query = strchr(path, '?')))
        *query++ = '\0';
    (void) sked__http_unescape(path);
    sked__http_split_query(query, &v.query);

    http_req req = {.method = call->method,
                    .path = path,
                    .body = call->body ? call->body : "",
                    .body_len = body_len,
                    .engine = engine,
                    .value = call_value,
                    .value_ctx = &v,
                    .actor = actor,
                    .scope = scope};
    if (body_len > HTTP_BODY_MAX) {
        (void) sked__http_error(&resp, SKED_ETOOBIG, NULL,
                                "the body is larger than 1 MiB");
    } else {
        (void) sked__http_serve(&req, &resp, &m);
        sked__http_match_done(&m);
    }
    free(path);
    reply->status = resp.status;
    reply->body = resp.body;
    reply->len = resp.len;
    return 0;
}

int sked__http_call(void *engine, const sked_mcp_call *call,
                    sked_mcp_reply *reply, sked_error *err)
{
    /* The process itself asks: "sked mcp --db" on its own database. */
    return call_as(engine, "local", SKED_SCOPE_ADMIN, call, reply, err);
}

int sked__http_call_as(void *caller, const sked_mcp_call *call,
                       sked_mcp_reply *reply, sked_error *err)
{
    const sked_http_caller *c = caller;

    return call_as(c->engine, c->actor, c->scope, call, reply, err);
}
