/* SPDX-License-Identifier: MIT */
/* The run, workflow and queue routes of the API (docs/api.md "Runs and
 * workflows", SPEC 6).
 *
 * The engine reads runs, workflows and queues as structs; these handlers
 * check the query, read them and send them as the model writes them (the
 * same objects "sked run get --json" prints). Starting a run honours the
 * Idempotency-Key header: the key names the run ("api-{workflow}-key-
 * {key}"), so a second request with it creates nothing and answers 200
 * with the run the first created (201). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_text.h"
#include "engine/request.h"
#include "http/http_int.h"
#include "model/run_json.h"
#include "sked/sked.h"

/* Send O, a new reference the model wrote (NULL: out of memory), with
 * STATUS. */
static int send_json(http_resp *resp, unsigned status, json_t *o)
{
    if (!o)
        return sked__http_error(resp, SKED_ENOMEM, NULL, "out of memory");
    return sked__http_json(resp, status, o);
}

/* Read run ID and send it, with its steps, with STATUS. */
static int send_run(const http_req *req, http_resp *resp, unsigned status,
                    const char *id)
{
    sked_run_page p;
    sked_error err;
    json_t *o;
    int rc;

    sked_error_clear(&err);
    rc = sked_engine_run_read_one(req->engine, id, &p, &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    o = sked__run_view_json(&p.items[0]);
    sked_run_page_done(&p);
    return send_json(resp, status, o);
}

/* ---- runs --------------------------------------------------------------- */

static int run_list(const http_req *req, http_resp *resp)
{
    sked_run_query q;
    sked_run_page p;
    sked_error err;
    json_t *o;
    int rc;

    sked_error_clear(&err);
    rc = sked__query_runs_read(sked__http_query_get, (void *) req, &q, &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    /* The engine checks the status and the cursor (422, naming them). */
    rc = sked_engine_run_read(req->engine, &q, &p, &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    o = sked__run_list_json(p.items, p.n, p.next_cursor);
    sked_run_page_done(&p);
    return send_json(resp, 200, o);
}

static int run_get(const http_req *req, http_resp *resp)
{
    return send_run(req, resp, 200, req->param[0]);
}

static int run_cancel(const http_req *req, http_resp *resp)
{
    sked_error err;
    int rc;

    sked_error_clear(&err);
    rc = sked_engine_run_cancel(req->engine, req->param[0], &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    return send_run(req, resp, 200, req->param[0]);
}

/* POST /api/v1/workflows/{name}/runs: the body is the run's input. */
static int run_start(const http_req *req, http_resp *resp)
{
    const char *key = sked__http_header(req, "Idempotency-Key");
    json_t *body = NULL;
    char *input, *id = NULL;
    bool created = true;
    sked_error err;
    int rc;

    if ((rc = sked__http_body_object(req, resp, true, &body)) != 0)
        return rc;
    input = sked__json_text(body, NULL);
    json_decref(body);
    if (!input)
        return sked__http_error(resp, SKED_ENOMEM, NULL, "out of memory");
    sked_error_clear(&err);
    rc = sked_engine_run_start_ex(req->engine, req->param[0], input, key, &id,
                                  &created, &err);
    free(input);
    if (rc != 0 && strcmp(err.field, "idempotency_key") == 0)
        (void) snprintf(err.field, sizeof err.field, "Idempotency-Key");
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    rc = send_run(req, resp, created ? 201 : 200, id);
    sked_free(id);
    return rc;
}

/* ---- workflows and queues ----------------------------------------------- */

static int workflow_list(const http_req *req, http_resp *resp)
{
    sked_workflow_page p;
    sked_error err;
    json_t *o;
    int rc;

    sked_error_clear(&err);
    rc = sked_engine_workflow_read(req->engine, &p, &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    o = sked__workflow_list_json(p.items, p.n);
    sked_workflow_page_done(&p);
    return send_json(resp, 200, o);
}

static int queue_list(const http_req *req, http_resp *resp)
{
    sked_queue_page p;
    sked_error err;
    json_t *o;
    int rc;

    sked_error_clear(&err);
    rc = sked_engine_queue_read(req->engine, &p, &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    o = sked__queue_list_json(p.items, p.n);
    sked_queue_page_done(&p);
    return send_json(resp, 200, o);
}

/* ---- the routes --------------------------------------------------------- */

/* ---- pings of heartbeat schedules -------------------------------------- */

/* POST /api/v1/schedules/{name}/ping?status=start|success|fail (default
 * success): the body, any text, is the run's output. */
static int schedule_ping(const http_req *req, http_resp *resp)
{
    const char *word = sked__http_query(req, "status");
    sked_ping_status status = SKED_PING_SUCCESS;
    char *id = NULL;
    sked_error err;
    int rc;

    if (word && *word && sked_ping_status_parse(word, &status) != 0)
        return sked__http_error(resp, SKED_EINVAL, "status",
                                "\"%.40s\" is not start, success or fail",
                                word);
    sked_error_clear(&err);
    rc = sked_engine_schedule_ping(req->engine, req->param[0], status,
                                   req->body, req->body_len, &id, &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    rc = send_run(req, resp, 200, id);
    sked_free(id);
    return rc;
}

const http_route sked__api_run_routes[] = {
    {"POST", "/api/v1/schedules/{name}/ping", schedule_ping,
     "Ping a heartbeat schedule: the job it watches started, succeeded or "
     "failed (?status=; the body, up to 64 KiB, is the run's output)",
     200, SKED_SCOPE_OPERATE},
    {"GET", "/api/v1/runs", run_list,
     "List runs, newest first, filtered by status, schedule and workflow", 200,
     SKED_SCOPE_READ},
    {"GET", "/api/v1/runs/{id}", run_get,
     "Read a run with its steps and their attempts", 200, SKED_SCOPE_READ},
    {"POST", "/api/v1/runs/{id}/cancel", run_cancel, "Cancel a run", 200,
     SKED_SCOPE_OPERATE},
    {"POST", "/api/v1/workflows/{name}/runs", run_start,
     "Start a run of a workflow with the body as its input (honours "
     "Idempotency-Key)",
     201, SKED_SCOPE_OPERATE},
    {"GET", "/api/v1/workflows", workflow_list,
     "List the registered workflows at their latest version", 200,
     SKED_SCOPE_READ},
    {"GET", "/api/v1/queues", queue_list,
     "List the queues with their limits and depths", 200, SKED_SCOPE_READ},
    {0},
};
