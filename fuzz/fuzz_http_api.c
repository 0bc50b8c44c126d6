/* SPDX-License-Identifier: MIT */
/* Fuzz target for what the HTTP API reads from the network, through the
 * real router and handlers (src/http/router.c, api_*.c) on a real engine
 * over a SQLite file: the path and its {…} values, the query string and
 * its cursors, the headers (Idempotency-Key, Last-Event-ID,
 * Authorization) and the JSON body of every route.
 *
 * The input is a request as text:
 *
 *     METHOD TARGET            (TARGET: PATH[?QUERY], as on the wire)
 *     Name: value              (headers, up to an empty line)
 *
 *     BODY                     (the rest, at most 1 MiB)
 *
 * The query is split and decoded as the server does it. Any request is
 * answered with a status of the API's table (never 500), and a body that
 * is JSON: for an error, the error body of SPEC 6 whose code is the
 * status's; a 405 names its Allow. The token's verdict is the one of a
 * plain comparison of the header with "Bearer TOKEN". Any other outcome
 * aborts; leaks are found by the sanitizers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "http/http_int.h"
#include "engine_fixture.h"
#include "sked/engine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TOKEN "0123456789abcdef-fuzz"

typedef struct fake {
    http_pairs query, headers;
} fake;

static const char *lookup(const http_req *req, bool header, const char *key)
{
    const fake *f = req->value_ctx;

    return sked__http_pairs_get(header ? &f->headers : &f->query, header, key);
}

/* Split the header lines at S (up to an empty line) into P; return the
 * body after them. */
static char *split_headers(char *s, http_pairs *p)
{
    while (s && *s) {
        char *nl = strchr(s, '\n'), *colon;
        if (nl)
            *nl++ = '\0';
        if (!*s)
            return nl ? nl : s;
        if ((colon = strchr(s, ':')) && p->n < HTTP_PAIRS_MAX) {
            *colon++ = '\0';
            while (*colon == ' ')
                colon++;
            p->key[p->n] = s;
            p->val[p->n++] = colon;
        }
        s = nl;
    }
    return s ? s : (char *) "";
}

static bool status_known(unsigned st)
{
    static const unsigned ok[] = {200, 201, 202, 204, 400, 404,
                                  405, 409, 413, 422, 503};

    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (ok[i] == st)
            return true;
    return false;
}

/* Say what the answer broke, and abort. */
static void broken(const char *what, const http_req *req, const http_resp *resp)
{
    fprintf(stderr, "fuzz_http_api: %.16s %.200s: %s: %u %.*s\n", req->method,
            req->path, what, resp->status,
            (int) (resp->len > 300 ? 300 : resp->len),
            resp->body ? resp->body : "");
    abort();
}

/* The answer's checks: a known status, JSON, and SPEC 6's error body. */
static void check_answer(const http_req *req, const http_resp *resp)
{
    json_t *j, *e, *code, *msg;

    if (!status_known(resp->status))
        broken("a status out of the API's table", req, resp);
    if (resp->status == 405 && (!resp->allow || !resp->allow[0]))
        broken("a 405 without Allow", req, resp);
    if (resp->content_type || resp->status == 204)
        return; /* text (metrics, the document) or no body */
    if (!(j = json_loadb(resp->body ? resp->body : "", resp->len, 0, NULL)))
        broken("a body that is not JSON", req, resp);
    if (resp->status >= 400) {
        e = json_object_get(j, "error");
        code = json_object_get(e, "code");
        msg = json_object_get(e, "message");
        if (!json_is_string(code) || !json_is_string(msg) ||
            !json_string_length(msg))
            broken("an error without its code and message", req, resp);
        if (strcmp(json_string_value(code), "invalid_argument") != 0 &&
            strcmp(json_string_value(code), "out_of_range") != 0 &&
            resp->status == 422)
            broken("a 422 of another code", req, resp);
    }
    json_decref(j);
}

/* The token's verdict against a plain comparison. */
static void check_token(const char *path, const char *auth)
{
    bool guarded = strncmp(path, "/api/", 5) == 0 ||
                   strcmp(path, "/metrics") == 0 || strcmp(path, "/mcp") == 0;
    bool presented = auth && strncasecmp(auth, "Bearer ", 7) == 0 &&
                     strcmp(auth + 7, TOKEN) == 0;
    sked_http_token t = {.name = "fuzz", .scope = SKED_SCOPE_READ};
    const sked_http_token *found;

    sked__token_hash(TOKEN, strlen(TOKEN), t.sha256);
    if (sked__http_guarded(path) != guarded)
        abort();
    found = sked__http_token_find(&t, 1, auth);
    if ((found != NULL) != presented || (found && found != &t))
        abort();
    if (sked__http_token_find(&t, 0, auth))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in, *line, *sp, *query, *body;
    fake f = {0};
    http_resp resp = {0};
    http_match m;

    if (size > HTTP_BODY_MAX + 4096 || !(in = malloc(size + 1)))
        return 0;
    memcpy(in, data, size);
    in[size] = '\0';
    line = in;
    body = strchr(in, '\n');
    if (body)
        *body++ = '\0';
    if (!(sp = strchr(line, ' '))) {
        free(in);
        return 0;
    }
    *sp++ = '\0';
    if ((query = strchr(sp, '?')))
        *query++ = '\0';
    (void) sked__http_unescape(sp);
    sked__http_split_query(query, &f.query);
    body = split_headers(body, &f.headers);

    http_req req = {.method = line,
                    .path = sp,
                    .body = body,
                    .body_len = body >= in && body <= in + size
                                    ? size - (size_t) (body - in)
                                    : 0,
                    .engine = fuzz_engine("api.db"),
                    .value = lookup,
                    .value_ctx = &f,
                    .actor = "fuzz",
                    .scope = SKED_SCOPE_ADMIN};
    check_token(req.path, lookup(&req, true, "Authorization"));
    (void) sked__http_serve(&req, &resp, &m);
    check_answer(&req, &resp);
    free(resp.body);
    sked__http_match_done(&m);
    free(in);
    return 0;
}
