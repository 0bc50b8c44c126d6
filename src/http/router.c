/* SPDX-License-Identifier: MIT */
/* Routing (http_int.h): a request's method and path against the route
 * tables of every API module, and the call of the route's handler. A
 * pattern is a path whose segments are literal or "{name}", which matches
 * one non-empty segment; nothing else (no prefixes, no trailing slash), so
 * a path either names a route exactly or is 404. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "http/http_int.h"

const http_route *const sked__http_tables[] = {
    sked__api_schedule_routes,
    sked__api_simulate_routes,
    sked__api_calendar_routes,
    sked__api_notifier_routes,
    sked__api_run_routes,
    sked__api_event_routes,
    sked__api_cron_routes,
    sked__api_misc_routes,
    sked__mcp_routes, /* /mcp, not the API: it speaks JSON-RPC */
    NULL,
};

/* The length of the segment at S (up to the next '/' or the end). */
static size_t seg_len(const char *s)
{
    return strcspn(s, "/");
}

/* Match PATH against PATTERN; on success with M not NULL, copy the
 * {…} segments into M. Returns 1 (match), 0 (none) or SKED_ENOMEM. */
static int match(const char *pattern, const char *path, http_match *m)
{
    size_t n = 0;

    while (*pattern == '/' && *path == '/') {
        size_t pl = seg_len(++pattern), sl = seg_len(++path);

        if (pattern[0] == '{') {
            if (sl == 0 || n >= HTTP_PARAMS_MAX)
                return 0;
            if (m && !(m->param[n] = sked__strndup(path, sl)))
                return SKED_ENOMEM;
            n++;
        } else if (pl != sl || memcmp(pattern, path, pl) != 0) {
            return 0;
        }
        pattern += pl;
        path += sl;
    }
    if (*pattern || *path)
        return 0;
    if (m)
        m->nparam = n;
    return 1;
}

/* Add METHOD to the comma-separated list ALLOW when not there yet. */
static void allow_add(char *allow, size_t size, const char *method)
{
    size_t used = strlen(allow);
    const char *p = strstr(allow, method);

    if (p && (p[strlen(method)] == ',' || p[strlen(method)] == '\0'))
        return;
    if (used + strlen(method) + 3 > size)
        return;
    if (used)
        strcat(allow, ", ");
    strcat(allow, method);
}

int sked__http_route(const char *method, const char *path, http_match *m)
{
    const char *want = strcmp(method, "HEAD") == 0 ? "GET" : method;

    memset(m, 0, sizeof *m);
    for (size_t t = 0; sked__http_tables[t]; t++) {
        for (const http_route *r = sked__http_tables[t]; r->method; r++) {
            if (match(r->pattern, path, NULL) != 1)
                continue;
            if (strcmp(r->method, want) != 0) {
                allow_add(m->allow, sizeof m->allow, r->method);
                continue;
            }
            int rc = match(r->pattern, path, m);
            if (rc < 0) {
                sked__http_match_done(m);
                return rc;
            }
            m->route = r;
            return 0;
        }
    }
    return m->allow[0] ? SKED_EMETHOD : SKED_ENOTFOUND;
}

void sked__http_match_done(http_match *m)
{
    for (size_t i = 0; i < HTTP_PARAMS_MAX; i++)
        free(m->param[i]);
    memset(m, 0, sizeof *m);
}

int sked__http_handle(http_req *req, http_resp *resp, const http_match *m)
{
    char saved[SKED_ACTOR_MAX + 1];
    int rc;

    (void) snprintf(saved, sizeof saved, "%s", sked_engine_actor_current());
    (void) sked_engine_actor(req->actor ? req->actor : "anonymous");
    rc = m->route->handler(req, resp);
    (void) sked_engine_actor(saved);
    return rc;
}

bool sked__http_route_shared(const http_route *r)
{
    static const char *const shared[] = {
        "/api/v1/schedules",
        "/api/v1/schedules/{name}/trigger",
        "/api/v1/schedules/{name}/runs",
        "/api/v1/schedules/{name}/ping",
        "/api/v1/workflows/{name}/runs",
    };

    if (strcmp(r->method, "POST") != 0)
        return false;
    for (size_t i = 0; i < sizeof shared / sizeof *shared; i++)
        if (strcmp(r->pattern, shared[i]) == 0)
            return true;
    return false;
}

int sked__http_serve(http_req *req, http_resp *resp, http_match *m)
{
    int rc = sked__http_route(req->method, req->path, m);

    if (rc == SKED_ENOTFOUND)
        return sked__http_error(resp, rc, NULL, "no route %.16s %.200s",
                                req->method, req->path);
    if (rc == SKED_EMETHOD) {
        resp->allow = m->allow;
        return sked__http_error(resp, rc, NULL,
                                "%.16s is not allowed on %.200s (allowed: %s)",
                                req->method, req->path, m->allow);
    }
    if (rc < 0)
        return sked__http_error(resp, rc, NULL, "%s", sked_strerror(rc));
    sked_scope need = sked__http_route_scope(m->route);
    if (req->scope < need)
        return sked__http_error(
            resp, SKED_EFORBIDDEN, "scope",
            "the token %.64s has the scope %s: %.16s %.200s needs %s",
            req->actor ? req->actor : "?", sked__scope_name(req->scope),
            req->method, req->path, sked__scope_name(need));
    for (size_t i = 0; i < m->nparam; i++)
        req->param[i] = m->param[i];
    req->nparam = m->nparam;
    if (req->server && sked__http_route_shared(m->route) &&
        sked__http_job_submit(sked__http_writers(req->server), req, m, resp) ==
            0)
        return 0; /* answered once its writer is done */
    rc = sked__http_handle(req, resp, m);
    if (resp->status == 0 && !resp->stream && !resp->later)
        return sked__http_error(resp, SKED_EINTERNAL, NULL,
                                "the handler of %.200s sent nothing",
                                req->path);
    return rc;
}
