/* SPDX-License-Identifier: MIT */
/* The notifier routes of the API (docs/notifications.md): the
 * collection, a set applied as an app's (sked apply), one notifier, and
 * the notify log, overall and per notifier.
 *
 * Every operation goes through the engine (sked/engine.h), which speaks
 * the notifier's JSON object; this file frames it. Status codes as for
 * calendars: 400 for a body that is not a JSON object, 422 for a bad
 * value (naming the field: "webhook.url", "events[1]"), 404 for an
 * unknown notifier. A refused request changes nothing. No answer holds
 * a secret: a notifier only names where the server reads it. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/error.h"
#include "engine/answer.h"
#include "engine/request.h"
#include "http/http_int.h"
#include "sked/sked.h"

/* Send the JSON text TEXT (taken) with STATUS. */
static int send_text(http_resp *resp, unsigned status, char *text)
{
    json_t *o = text ? json_loads(text, 0, NULL) : NULL;

    free(text);
    if (!o)
        return sked__http_error(resp, SKED_ENOMEM, NULL, "out of memory");
    return sked__http_json(resp, status, o);
}

static int notifier_list(const http_req *req, http_resp *resp)
{
    sked_error err;
    char *text = NULL;
    int rc;

    sked_error_clear(&err);
    if ((rc = sked_engine_notifier_list(req->engine, &text, &err)) != 0)
        return sked__http_fail(resp, rc, &err);
    return send_text(resp, 200, text);
}

/* PUT /api/v1/notifiers: {"notifiers", "prune", "app"}, applied as the
 * app's code notifiers, all or nothing (sked apply). */
static int notifier_apply(const http_req *req, http_resp *resp)
{
    sked_apply_result res = {0};
    sked__notifier_apply_request a;
    json_t *body = NULL, *o;
    sked_error err;
    char *set = NULL;
    int rc;

    if ((rc = sked__http_body_object(req, resp, false, &body)) != 0)
        return rc;
    sked_error_clear(&err);
    rc = sked__request_notifier_apply_read(body, &a, &err);
    if (rc == 0 && !(set = json_dumps(a.set, JSON_COMPACT)))
        rc = sked__error_set(&err, SKED_ENOMEM, NULL, -1, NULL);
    if (rc == 0)
        rc = sked_engine_notifier_apply(req->engine, a.app, set, a.prune, &res,
                                        &err);
    free(set);
    if (rc != 0)
        rc = sked__http_fail(resp, rc, &err);
    else if (!(o = sked__answer_apply(&res)))
        rc = sked__http_error(resp, SKED_ENOMEM, NULL, "out of memory");
    else
        rc = sked__http_json(resp, 200, o);
    json_decref(body); /* after the apply: a.app and a.set are the body's */
    return rc;
}

static int notifier_get(const http_req *req, http_resp *resp)
{
    sked_error err;
    char *text = NULL;
    int rc;

    sked_error_clear(&err);
    rc = sked_engine_notifier_get(req->engine, req->param[0], &text, &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    return send_text(resp, 200, text);
}

static int notifier_put(const http_req *req, http_resp *resp)
{
    json_t *body = NULL;
    sked_error err;
    bool created = false;
    char *text = NULL;
    int rc;

    /* A body that is not a JSON object is 400, as everywhere. */
    if ((rc = sked__http_body_object(req, resp, false, &body)) != 0)
        return rc;
    json_decref(body);
    sked_error_clear(&err);
    rc = sked_engine_notifier_put(req->engine, req->param[0], req->body,
                                  &created, &text, &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    return send_text(resp, created ? 201 : 200, text);
}

static int notifier_delete(const http_req *req, http_resp *resp)
{
    sked_error err;
    int rc;

    sked_error_clear(&err);
    rc = sked_engine_notifier_delete(req->engine, req->param[0], &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    resp->status = 204;
    return 0;
}

/* The log of NOTIFIER (NULL: all): ?before=ID&limit=N. */
static int send_log(const http_req *req, http_resp *resp, const char *notifier)
{
    long before = 0, limit = 0;
    sked_error err;
    char *text = NULL;
    int rc;

    if ((rc = sked__http_query_long(req, resp, "before", 0, 0x7fffffffL, 0,
                                    &before)) != 0 ||
        (rc = sked__http_query_long(req, resp, "limit", 1, SKED_ENGINE_LIST_MAX,
                                    100, &limit)) != 0)
        return rc;
    sked_error_clear(&err);
    /* An unknown NOTIFIER is the engine's 404. */
    rc = sked_engine_notify_log(req->engine, notifier, before, (size_t) limit,
                                &text, &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    return send_text(resp, 200, text);
}

static int notify_log(const http_req *req, http_resp *resp)
{
    return send_log(req, resp, NULL);
}

static int notifier_log(const http_req *req, http_resp *resp)
{
    return send_log(req, resp, req->param[0]);
}

const http_route sked__api_notifier_routes[] = {
    {"GET", "/api/v1/notifiers", notifier_list, "List the notifiers", 200,
     SKED_SCOPE_READ},
    {"PUT", "/api/v1/notifiers", notifier_apply,
     "Apply a set of notifiers as an app's code notifiers, all or nothing "
     "(sked apply; with prune, the app's others are deleted)",
     200, SKED_SCOPE_ADMIN},
    {"GET", "/api/v1/notifiers/{name}", notifier_get, "Read a notifier", 200,
     SKED_SCOPE_READ},
    {"PUT", "/api/v1/notifiers/{name}", notifier_put,
     "Create or replace a notifier", 200, SKED_SCOPE_ADMIN},
    {"DELETE", "/api/v1/notifiers/{name}", notifier_delete,
     "Delete a notifier (its pending deliveries fail)", 204, SKED_SCOPE_ADMIN},
    {"GET", "/api/v1/notifiers/{name}/deliveries", notifier_log,
     "List a notifier's deliveries, newest first", 200, SKED_SCOPE_READ},
    {"GET", "/api/v1/deliveries", notify_log,
     "List every notifier's deliveries, newest first (the notify log)", 200,
     SKED_SCOPE_READ},
    {0},
};
