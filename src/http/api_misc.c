/* SPDX-License-Identifier: MIT */
/* The routes around the API: health checks, the OpenAPI document and the
 * dashboard's files.
 *
 * The OpenAPI 3.1 document is built from the route tables themselves, so
 * it lists exactly the routes the server answers. The dashboard's files
 * are looked up by name in the table built into the binary: a path is a
 * name or nothing, so no request can reach the disk. They carry a
 * Content-Security-Policy that allows nothing but the server's own
 * files and API (no inline script), and the page names the others
 * under their content hash so that a browser may keep them for good. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "http/asset.h"
#include "http/http_int.h"

static int healthz(const http_req *req, http_resp *resp)
{
    (void) req;
    return sked__http_json(resp, 200, json_pack("{s:s}", "status", "ok"));
}

static int readyz(const http_req *req, http_resp *resp)
{
    sked_error err;
    int rc = sked_engine_ready(req->engine, &err);

    if (rc < 0)
        return sked__http_error(resp, SKED_EBUSY, NULL, "not ready: %s",
                                err.msg[0] ? err.msg : sked_strerror(rc));
    return sked__http_json(resp, 200, json_pack("{s:s}", "status", "ready"));
}

/* ---- OpenAPI ------------------------------------------------------------ */

/* The document is built from the route tables (openapi.c). */
static int openapi(const http_req *req, http_resp *resp)
{
    (void) req;
    return sked__http_json(resp, 200, sked__http_openapi());
}

/* ---- the dashboard ------------------------------------------------------ */

static const char *content_type(const char *name)
{
    static const struct {
        const char *ext, *type;
    } types[] = {
        {".html", "text/html; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".svg", "image/svg+xml"},
        {".json", "application/json"},
    };
    const char *dot = strrchr(name, '.');

    for (size_t i = 0; dot && i < sizeof types / sizeof types[0]; i++)
        if (strcmp(dot, types[i].ext) == 0)
            return types[i].type;
    return "application/octet-stream";
}

/* What the dashboard may load: its own files and its own API, nothing
 * from another origin, no inline script or style, no plugin, no frame. */
static const char dashboard_csp[] =
    "default-src 'self'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/* A file named by the current content hash never changes; any other
 * (the page, a file asked for by its bare name or under an old hash) is
 * revalidated each time. */
static const char cache_forever[] = "public, max-age=31536000, immutable";
static const char cache_revalidate[] = "no-cache";

/* Send the built-in file NAME with the Cache-Control CACHE, or 404. */
static int send_asset(const char *name, const char *cache, http_resp *resp)
{
    for (const struct sked__asset *a = sked__dashboard_files; a->name; a++) {
        if (strcmp(a->name, name) != 0)
            continue;
        if (!(resp->body = sked__malloc(a->len ? a->len : 1)))
            return sked__http_error(resp, SKED_ENOMEM, NULL, "%s",
                                    sked_strerror(SKED_ENOMEM));
        memcpy(resp->body, a->data, a->len);
        resp->len = a->len;
        resp->status = 200;
        resp->content_type = content_type(a->name);
        resp->cache_control = cache;
        resp->csp = dashboard_csp;
        return 0;
    }
    return sked__http_error(resp, SKED_ENOTFOUND, NULL,
                            "no dashboard file \"%.100s\"", name);
}

static int dashboard_index(const http_req *req, http_resp *resp)
{
    (void) req;
    return send_asset("index.html", cache_revalidate, resp);
}

static int dashboard_file(const http_req *req, http_resp *resp)
{
    return send_asset(req->param[0], cache_revalidate, resp);
}

static int dashboard_hashed(const http_req *req, http_resp *resp)
{
    bool current = strcmp(req->param[0], sked__dashboard_hash) == 0;

    return send_asset(req->param[1], current ? cache_forever : cache_revalidate,
                      resp);
}

const http_route sked__api_misc_routes[] = {
    {"GET", "/healthz", healthz, "the process serves", 0, SKED_SCOPE_READ},
    {"GET", "/readyz", readyz, "the database answers and its schema is current",
     0, SKED_SCOPE_READ},
    {"GET", "/api/v1/openapi.json", openapi, "this document", 0,
     SKED_SCOPE_READ},
    {"GET", "/", dashboard_index, "the dashboard", 0, SKED_SCOPE_READ},
    {"GET", "/dashboard/{file}", dashboard_file, "a file of the dashboard", 0,
     SKED_SCOPE_READ},
    {"GET", "/dashboard/{hash}/{file}", dashboard_hashed,
     "a file of the dashboard under its content hash (cached for good)", 0,
     SKED_SCOPE_READ},
    {0},
};
