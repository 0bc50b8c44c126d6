/* SPDX-License-Identifier: MIT */
/* The schedule routes of the API (docs/api.md "Schedules", SPEC 6).
 *
 * Every operation goes through the engine (sked/engine.h), which tells
 * the scheduler at once of what it changed. The schedule object is the
 * engine's answer (engine/answer.h), the same JSON "sked schedule get
 * --json" prints.
 *
 * Status codes: 400 for a body that is not JSON or names an unknown field
 * (SKED_ESYNTAX), 422 for a value of the wrong type or out of range
 * (SKED_EINVAL, SKED_ERANGE), both naming the field; 404 for an unknown
 * schedule, 409 for a name that exists or a trigger refused by "overlap:
 * skip". Every check runs before anything is written, so a request that
 * fails changes nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "engine/answer.h"
#include "engine/request.h"
#include "http/http_int.h"
#include "sked/sked.h"

#define PREVIEW_DEFAULT 10

/* ---- helpers ------------------------------------------------------------ */

/* Send S as the schedule object with STATUS. */
static int send_schedule(http_resp *resp, unsigned status,
                         const sked_schedule *s)
{
    sked_error err;
    json_t *o;

    sked_error_clear(&err);
    if (!(o = sked__answer_schedule(s, &err)))
        return sked__http_fail(resp, err.code < 0 ? err.code : SKED_ENOMEM,
                               &err);
    return sked__http_json(resp, status, o);
}

/* Read the schedule NAME as it is now and send it with STATUS. */
static int send_named(const http_req *req, http_resp *resp, unsigned status,
                      const char *name)
{
    sked_schedule s;
    sked_error err;
    int rc;

    sked_error_clear(&err);
    rc = sked_engine_schedule_get(req->engine, name, &s, &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    rc = send_schedule(resp, status, &s);
    sked_schedule_done(&s);
    return rc;
}

/* Send the schedule NAME just written, with STATUS, and SPEC 3.5's
 * warning in "warnings" when no server has registered its workflow. */
static int send_written(const http_req *req, http_resp *resp, unsigned status,
                        const char *name)
{
    char warning[256] = "";
    sked_schedule s;
    sked_error err;
    json_t *o = NULL;
    int rc;

    sked_error_clear(&err);
    rc = sked_engine_schedule_get(req->engine, name, &s, &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    if (!(o = sked__answer_schedule(&s, &err)))
        rc = err.code < 0 ? err.code : SKED_ENOMEM;
    /* A heartbeat starts nothing: no server needs its workflow. */
    if (rc == 0 && !s.heartbeat)
        sked_engine_workflow_warning(req->engine, s.workflow, warning,
                                     sizeof warning);
    sked_schedule_done(&s);
    if (rc == 0 && warning[0] &&
        json_object_set_new(o, "warnings", json_pack("[s]", warning)) != 0)
        rc = sked__error_set(&err, SKED_ENOMEM, NULL, -1, NULL);
    if (rc != 0) {
        json_decref(o);
        return sked__http_fail(resp, rc, &err);
    }
    return sked__http_json(resp, status, o);
}

/* Read the body as a schedule (a whole one, or a patch onto *s). The
 * read-only state fields are refused. */
static int read_schedule(const json_t *body, bool patch, sked_schedule *s,
                         http_resp *resp)
{
    sked_error err;
    int rc;

    sked_error_clear(&err);
    rc = sked__answer_schedule_read(body, patch, s, &err);
    return rc != 0 ? sked__http_fail(resp, rc, &err) : 0;
}

/* ---- the collection ----------------------------------------------------- */

/* Query parameter KEY, NULL when absent or empty ("?status=" filters
 * nothing). */
static const char *param(const http_req *req, const char *key)
{
    const char *v = sked__http_query(req, key);

    return v && *v ? v : NULL;
}

static int schedule_list(const http_req *req, http_resp *resp)
{
    sked_schedule_query q;
    sked_schedule_page page;
    sked_error err;
    json_t *o;
    int rc;

    sked_error_clear(&err);
    if ((rc = sked__query_schedules_read(sked__http_query_get, (void *) req, &q,
                                         &err)) != 0)
        return sked__http_fail(resp, rc, &err);
    rc = sked_engine_schedule_list(req->engine, &q, &page, &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    o = sked__answer_schedule_page(&page, &err);
    sked_schedule_page_done(&page);
    if (!o)
        return sked__http_fail(resp, err.code < 0 ? err.code : SKED_ENOMEM,
                               &err);
    return sked__http_json(resp, 200, o);
}

static int schedule_create(const http_req *req, http_resp *resp)
{
    json_t *body = NULL;
    sked_schedule s;
    sked_error err;
    int rc;

    if ((rc = sked__http_body_object(req, resp, false, &body)) != 0)
        return rc;
    rc = read_schedule(body, false, &s, resp);
    json_decref(body);
    if (rc != 0)
        return rc;
    s.source = SKED_SOURCE_API;
    sked_error_clear(&err);
    rc = sked_engine_schedule_create(req->engine, &s, &err);
    if (rc != 0)
        rc = sked__http_fail(resp, rc, &err);
    else
        rc = send_written(req, resp, 201, s.name);
    sked_schedule_done(&s);
    return rc;
}

/* ---- apply a set -------------------------------------------------------- */

/* Send the counts of an apply, and SPEC 3.5's warnings in "warnings"
 * (as for one schedule written) when workflows of the set are not
 * registered. */
static int send_applied(const http_req *req, http_resp *resp,
                        const sked__apply_request *a,
                        const sked_apply_result *res)
{
    json_t *o = sked__answer_apply(res);
    json_t *w = o ? sked__answer_set_warnings(req->engine, a->set, a->n) : NULL;

    if (w && json_array_size(w) == 0)
        json_decref(w);
    else if (!w || json_object_set_new(o, "warnings", w) != 0) {
        json_decref(o);
        return sked__http_error(resp, SKED_ENOMEM, NULL, "out of memory");
    }
    return sked__http_json(resp, 200, o);
}

static int schedule_apply(const http_req *req, http_resp *resp)
{
    sked_apply_result res = {0};
    sked__apply_request a;
    json_t *body = NULL;
    sked_error err;
    int rc;

    if ((rc = sked__http_body_object(req, resp, false, &body)) != 0)
        return rc;
    sked_error_clear(&err);
    rc = sked__request_apply_read(body, &a, &err);
    for (size_t i = 0; rc == 0 && i < a.n; i++)
        a.set[i].source = SKED_SOURCE_CODE;
    if (rc == 0)
        rc = sked_engine_schedule_apply(req->engine, a.app, a.set, a.n, a.prune,
                                        &res, &err);
    if (rc == 0)
        rc = send_applied(req, resp, &a, &res);
    else
        rc = sked__http_fail(resp, rc, &err);
    sked__apply_request_done(&a);
    json_decref(body); /* after the apply: a.app is the body's */
    return rc;
}

/* ---- one schedule ------------------------------------------------------- */

static int schedule_get(const http_req *req, http_resp *resp)
{
    return send_named(req, resp, 200, req->param[0]);
}

/* After an update, follow the body's "paused" (an update keeps the
 * status): pause, or resume a schedule that was paused. */
static int follow_paused(const http_req *req, const json_t *paused,
                         bool was_paused, sked_error *err)
{
    if (!json_is_boolean(paused))
        return 0;
    if (json_is_true(paused))
        return sked_engine_schedule_pause(req->engine, req->param[0], err);
    if (was_paused)
        return sked_engine_schedule_resume(req->engine, req->param[0], err);
    return 0;
}

/* Apply the patch BODY to the schedule of the URL. */
static int patch_apply(const http_req *req, http_resp *resp, const json_t *body)
{
    const char *name = req->param[0];
    const json_t *v = json_object_get(body, "name");
    bool was_paused;
    sked_schedule s;
    sked_error err;
    int rc;

    sked_error_clear(&err);
    if ((rc = sked_engine_schedule_get(req->engine, name, &s, &err)) != 0)
        return sked__http_fail(resp, rc, &err);
    /* The name in the URL wins; a body naming another is a mistake. */
    if (v && !(json_is_string(v) && strcmp(json_string_value(v), name) == 0))
        rc = sked__http_error(resp, SKED_EINVAL, "name",
                              "the name is the URL's (\"%.100s\"); rename by "
                              "creating a new schedule",
                              name);
    was_paused = s.status == SKED_SCHEDULE_PAUSED;
    if (rc == 0 && (rc = read_schedule(body, true, &s, resp)) == 0) {
        rc = sked_engine_schedule_update(req->engine, &s, &err);
        if (rc == 0)
            rc = follow_paused(req, json_object_get(body, "paused"), was_paused,
                               &err);
        if (rc != 0)
            rc = sked__http_fail(resp, rc, &err);
    }
    sked_schedule_done(&s);
    return rc;
}

static int schedule_patch(const http_req *req, http_resp *resp)
{
    json_t *body = NULL;
    int rc;

    if ((rc = sked__http_body_object(req, resp, false, &body)) != 0)
        return rc;
    rc = patch_apply(req, resp, body);
    json_decref(body);
    return rc != 0 ? rc : send_written(req, resp, 200, req->param[0]);
}

static int schedule_delete(const http_req *req, http_resp *resp)
{
    sked_error err;
    int rc;

    sked_error_clear(&err);
    rc = sked_engine_schedule_delete(req->engine, req->param[0], &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    resp->status = 204;
    return 0;
}

static int schedule_pause(const http_req *req, http_resp *resp)
{
    sked_error err;
    int rc;

    sked_error_clear(&err);
    rc = sked_engine_schedule_pause(req->engine, req->param[0], &err);
    return rc != 0 ? sked__http_fail(resp, rc, &err)
                   : send_named(req, resp, 200, req->param[0]);
}

static int schedule_resume(const http_req *req, http_resp *resp)
{
    sked_error err;
    int rc;

    sked_error_clear(&err);
    rc = sked_engine_schedule_resume(req->engine, req->param[0], &err);
    return rc != 0 ? sked__http_fail(resp, rc, &err)
                   : send_named(req, resp, 200, req->param[0]);
}

static int schedule_trigger(const http_req *req, http_resp *resp)
{
    char *id = NULL;
    sked_error err;
    int rc;

    sked_error_clear(&err);
    rc = sked_engine_trigger(req->engine, req->param[0], &id, &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    rc = sked__http_json(resp, 201, sked__answer_run_id(id));
    sked_free(id);
    return rc;
}

/* A backfill with "dry_run": what it would create and skip. */
static int backfill_dry_run(const http_req *req, http_resp *resp,
                            const sked__backfill_request *b)
{
    sked_backfill_preview p;
    sked_error err;
    int rc;

    sked_error_clear(&err);
    rc = sked_engine_backfill_preview(req->engine, req->param[0], b->start,
                                      b->end, &p, &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    rc = sked__http_json(resp, 200, sked__answer_backfill_preview(&p));
    sked_backfill_preview_done(&p);
    return rc;
}

static int schedule_backfill(const http_req *req, http_resp *resp)
{
    sked_backfill_result res = {0, 0};
    sked__backfill_request b;
    json_t *body = NULL;
    sked_error err;
    int rc;

    if ((rc = sked__http_body_object(req, resp, false, &body)) != 0)
        return rc;
    sked_error_clear(&err);
    rc = sked__request_backfill_read(body, &b, &err);
    json_decref(body);
    if (rc == 0 && b.dry_run)
        return backfill_dry_run(req, resp, &b);
    if (rc == 0)
        rc = sked_engine_backfill(req->engine, req->param[0], b.start, b.end,
                                  NULL, NULL, &res, &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    return sked__http_json(resp, 200, sked__answer_backfill(&res));
}

/* ---- one occurrence ------------------------------------------------------ */

/* The body of a skip or a run of one occurrence into *r; BODY into
 * *body, to json_decref once R is used. */
static int skip_body(const http_req *req, http_resp *resp, json_t **body,
                     sked__skip_request *r)
{
    sked_error err;
    int rc;

    if ((rc = sked__http_body_object(req, resp, false, body)) != 0)
        return rc;
    sked_error_clear(&err);
    if ((rc = sked__request_skip_read(*body, r, &err)) != 0) {
        json_decref(*body);
        *body = NULL;
        return sked__http_fail(resp, rc, &err);
    }
    return 0;
}

static int schedule_skip(const http_req *req, http_resp *resp)
{
    sked__skip_request r;
    json_t *body = NULL;
    bool changed = false;
    sked_error err;
    int rc;

    if ((rc = skip_body(req, resp, &body, &r)) != 0)
        return rc;
    sked_error_clear(&err);
    rc = sked_engine_schedule_skip(req->engine, req->param[0], r.at,
                                   r.actor ? r.actor : "api", r.reason,
                                   &changed, &err);
    json_decref(body);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    return sked__http_json(
        resp, changed ? 201 : 200,
        sked__answer_skip(req->param[0], r.at, true, changed));
}

static int schedule_unskip(const http_req *req, http_resp *resp)
{
    sked_time at = SKED_TIME_NONE;
    bool changed = false;
    sked_error err;
    int rc;

    sked_error_clear(&err);
    if (sked_time_parse(req->param[1], &at, &err) != 0)
        return sked__http_error(resp, SKED_ESYNTAX, "at",
                                "\"%.60s\" is not an RFC 3339 instant: %s",
                                req->param[1], err.msg);
    rc = sked_engine_schedule_unskip(
        req->engine, req->param[0], at,
        param(req, "actor") ? param(req, "actor") : "api", &changed, &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    return sked__http_json(
        resp, 200, sked__answer_skip(req->param[0], at, false, changed));
}

static int schedule_skips(const http_req *req, http_resp *resp)
{
    sked_skip *k = NULL;
    size_t n = 0;
    sked_error err;
    int rc;

    sked_error_clear(&err);
    rc = sked_engine_schedule_skips(req->engine, req->param[0], &k, &n, &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    rc = sked__http_json(resp, 200, sked__answer_skips(req->param[0], k, n));
    sked_skips_free(k, n);
    return rc;
}

static int schedule_run_at(const http_req *req, http_resp *resp)
{
    sked__skip_request r;
    json_t *body = NULL;
    bool created = false;
    char *id = NULL;
    sked_error err;
    int rc;

    if ((rc = skip_body(req, resp, &body, &r)) != 0)
        return rc;
    json_decref(body);
    sked_error_clear(&err);
    rc = sked_engine_schedule_run_at(req->engine, req->param[0], r.at, &id,
                                     &created, &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    rc = sked__http_json(
        resp, created ? 201 : 200,
        json_pack("{s:s, s:b}", "run_id", id, "created", created));
    sked_free(id);
    return rc;
}

/* ---- preview ------------------------------------------------------------ */

/* The query parameter "after" (an RFC 3339 instant) into *out; absent
 * or empty: SKED_TIME_NONE, now. Malformed, a 400 as every malformed
 * query parameter. */
static int query_after(const http_req *req, http_resp *resp, sked_time *out)
{
    const char *v = param(req, "after");
    sked_error err;

    *out = SKED_TIME_NONE;
    sked_error_clear(&err);
    if (v && sked_time_parse(v, out, &err) != 0)
        return sked__http_error(resp, SKED_ESYNTAX, "after",
                                "\"%.60s\" is not an RFC 3339 instant: %s", v,
                                err.msg);
    return 0;
}

static int schedule_occurrences(const http_req *req, http_resp *resp)
{
    sked_preview p = {NULL, 0};
    sked_time after;
    sked_error err;
    long max;
    int rc;

    rc = sked__http_query_long(req, resp, "n", 1, SKED_PREVIEW_MAX,
                               PREVIEW_DEFAULT, &max);
    if (rc == 0)
        rc = query_after(req, resp, &after);
    if (rc != 0)
        return rc;
    sked_error_clear(&err);
    rc = sked_engine_schedule_preview(req->engine, req->param[0], after,
                                      (size_t) max, &p, &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    rc = sked__http_json(resp, 200, sked__answer_occurrences(&p));
    sked_preview_done(&p);
    return rc;
}

/* ---- the routes --------------------------------------------------------- */

const http_route sked__api_schedule_routes[] = {
    {"GET", "/api/v1/schedules", schedule_list,
     "List schedules by name, filtered by status, workflow and prefix", 200,
     SKED_SCOPE_READ},
    {"POST", "/api/v1/schedules", schedule_create, "Create a schedule", 201,
     SKED_SCOPE_ADMIN},
    {"PUT", "/api/v1/schedules", schedule_apply,
     "Apply a set of schedules (source code), all or nothing", 200,
     SKED_SCOPE_ADMIN},
    {"GET", "/api/v1/schedules/{name}", schedule_get, "Read a schedule", 200,
     SKED_SCOPE_READ},
    {"PATCH", "/api/v1/schedules/{name}", schedule_patch,
     "Change some fields of a schedule", 200, SKED_SCOPE_ADMIN},
    {"DELETE", "/api/v1/schedules/{name}", schedule_delete,
     "Delete a schedule (its runs are kept)", 204, SKED_SCOPE_ADMIN},
    {"POST", "/api/v1/schedules/{name}/pause", schedule_pause,
     "Pause a schedule", 200, SKED_SCOPE_OPERATE},
    {"POST", "/api/v1/schedules/{name}/resume", schedule_resume,
     "Resume a schedule from now, without catch-up", 200, SKED_SCOPE_OPERATE},
    {"POST", "/api/v1/schedules/{name}/trigger", schedule_trigger,
     "Start one run of a schedule now", 201, SKED_SCOPE_OPERATE},
    {"POST", "/api/v1/schedules/{name}/backfill", schedule_backfill,
     "Create the runs of every occurrence between start and end (with "
     "dry_run: tell what it would create and skip)",
     200, SKED_SCOPE_OPERATE},
    {"GET", "/api/v1/schedules/{name}/skips", schedule_skips,
     "List the occurrences of a schedule skipped ahead of time and not yet "
     "decided",
     200, SKED_SCOPE_READ},
    {"POST", "/api/v1/schedules/{name}/skips", schedule_skip,
     "Skip one occurrence ahead of time (201; 200 when it was skipped "
     "already)",
     201, SKED_SCOPE_OPERATE},
    {"DELETE", "/api/v1/schedules/{name}/skips/{at}", schedule_unskip,
     "Undo the skip of one occurrence", 200, SKED_SCOPE_OPERATE},
    {"POST", "/api/v1/schedules/{name}/runs", schedule_run_at,
     "Run one past occurrence now, with the id firing gives it (201; 200 "
     "when its run exists)",
     201, SKED_SCOPE_OPERATE},
    {"GET", "/api/v1/schedules/{name}/occurrences", schedule_occurrences,
     "Preview the next occurrences after now (or ?after=T), marked across "
     "DST changes",
     200, SKED_SCOPE_READ},
    {0},
};
