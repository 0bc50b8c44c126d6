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
#include "http/http_int.h"
#include "sked/sked.h"

#define LIST_DEFAULT    100
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
    if (rc == 0)
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

/* Read the query of GET /api/v1/schedules; the engine checks the
 * status. */
static int list_query(const http_req *req, http_resp *resp,
                      sked_schedule_query *q)
{
    long limit;
    int rc;

    rc = sked__http_query_long(req, resp, "limit", 1, SKED_ENGINE_LIST_MAX,
                               LIST_DEFAULT, &limit);
    if (rc != 0)
        return rc;
    *q = (sked_schedule_query){.status = param(req, "status"),
                               .workflow = param(req, "workflow"),
                               .prefix = param(req, "prefix"),
                               .cursor = param(req, "cursor"),
                               .limit = (size_t) limit};
    return 0;
}

static int schedule_list(const http_req *req, http_resp *resp)
{
    sked_schedule_query q;
    sked_schedule_page page;
    sked_error err;
    json_t *o;
    int rc;

    if ((rc = list_query(req, resp, &q)) != 0)
        return rc;
    sked_error_clear(&err);
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

/* Prefix err->field with "schedules[I]." as the store's apply does, so
 * both kinds of error name a field of the set the same way. */
static sked_error *at_index(size_t i, sked_error *err)
{
    char field[SKED_ERROR_FIELD_MAX + 32];

    (void) snprintf(field, sizeof field, "schedules[%zu]%s%s", i,
                    err->field[0] ? "." : "", err->field);
    size_t len = strlen(field);

    if (len >= sizeof err->field)
        len = sizeof err->field - 1;
    memcpy(err->field, field, len);
    err->field[len] = '\0';
    return err;
}

/* A set to apply, as PUT /api/v1/schedules reads it. */
typedef struct apply_body {
    sked_schedule *set; /* owned, n */
    size_t n;
    bool prune;
    char app[SKED_NAME_MAX + 1]; /* the set's owner (SPEC 3.5) */
} apply_body;

/* Read the "app" of BODY into A, SKED_APP_DEFAULT when absent or null;
 * the store checks that it is a name. */
static int read_app(const json_t *body, http_resp *resp, apply_body *a)
{
    const json_t *v = json_object_get(body, "app");
    const char *app = SKED_APP_DEFAULT;

    if (v && !json_is_null(v) && !json_is_string(v))
        return sked__http_error(resp, SKED_EINVAL, "app", "expected a name");
    if (json_is_string(v))
        app = json_string_value(v);
    if (strlen(app) >= sizeof a->app)
        return sked__http_error(resp, SKED_EINVAL, "app",
                                "longer than 128 characters");
    (void) snprintf(a->app, sizeof a->app, "%s", app);
    return 0;
}

/* Read {"schedules": [...], "prune": bool, "app": name} into *a. */
static int read_set(const json_t *body, http_resp *resp, apply_body *a)
{
    const json_t *arr = json_object_get(body, "schedules");
    const json_t *p = json_object_get(body, "prune");
    sked_schedule **set = &a->set;
    size_t *n = &a->n;
    const char *key;
    json_t *v, *item;
    size_t i;
    int rc;

    json_object_foreach((json_t *) body, key, v)
    {
        if (strcmp(key, "schedules") != 0 && strcmp(key, "prune") != 0 &&
            strcmp(key, "app") != 0)
            return sked__http_error(resp, SKED_ESYNTAX, key, "unknown field");
    }
    if (!json_is_array(arr))
        return sked__http_error(resp, SKED_EINVAL, "schedules",
                                "expected an array of schedules");
    if (p && !json_is_null(p) && !json_is_boolean(p))
        return sked__http_error(resp, SKED_EINVAL, "prune",
                                "expected true or false");
    if ((rc = read_app(body, resp, a)) != 0)
        return rc;
    a->prune = json_is_true(p);
    *n = 0;
    *set = sked__calloc(json_array_size(arr) + 1, sizeof **set);
    if (!*set)
        return sked__http_error(resp, SKED_ENOMEM, NULL, "out of memory");
    json_array_foreach(arr, i, item)
    {
        sked_error err;

        sked_error_clear(&err);
        rc = sked__answer_schedule_read(item, false, &(*set)[i], &err);
        if (rc != 0)
            return sked__http_fail(resp, rc, at_index(i, &err));
        (*set)[i].source = SKED_SOURCE_CODE;
        *n = i + 1;
    }
    return 0;
}

/* Send the counts of an apply, and SPEC 3.5's warnings in "warnings"
 * (as for one schedule written) when workflows of the set are not
 * registered. */
static int send_applied(const http_req *req, http_resp *resp,
                        const apply_body *a, const sked_apply_result *res)
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
    apply_body a = {0};
    json_t *body = NULL;
    sked_error err;
    int rc;

    if ((rc = sked__http_body_object(req, resp, false, &body)) != 0)
        return rc;
    rc = read_set(body, resp, &a);
    json_decref(body);
    sked_error_clear(&err);
    if (rc == 0)
        rc = sked_engine_schedule_apply(req->engine, a.app, a.set, a.n, a.prune,
                                        &res, &err);
    if (rc == 0) {
        rc = send_applied(req, resp, &a, &res);
    } else if (resp->status == 0) {
        rc = sked__http_fail(resp, rc, &err);
    }
    sked_schedule_page_done(&(sked_schedule_page){a.set, a.n, NULL});
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

/* Read the instant KEY of BODY into *out; absent or null: SKED_TIME_NONE
 * (the engine names the missing end). */
static int body_instant(const json_t *body, const char *key, http_resp *resp,
                        sked_time *out)
{
    const json_t *v = json_object_get(body, key);
    sked_error err;

    *out = SKED_TIME_NONE;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return sked__http_error(resp, SKED_EINVAL, key,
                                "expected an RFC 3339 instant");
    sked_error_clear(&err);
    if (sked_time_parse(json_string_value(v), out, &err) != 0)
        return sked__http_error(resp, SKED_EINVAL, key,
                                "\"%.60s\" is not an RFC 3339 instant: %s",
                                json_string_value(v), err.msg);
    return 0;
}

static int schedule_backfill(const http_req *req, http_resp *resp)
{
    sked_backfill_result res = {0, 0};
    sked_time start, end;
    json_t *body = NULL, *v;
    const char *key;
    sked_error err;
    int rc;

    if ((rc = sked__http_body_object(req, resp, false, &body)) != 0)
        return rc;
    json_object_foreach(body, key, v)
    {
        if (rc == 0 && strcmp(key, "start") != 0 && strcmp(key, "end") != 0)
            rc = sked__http_error(resp, SKED_ESYNTAX, key, "unknown field");
    }
    if (rc == 0 && (rc = body_instant(body, "start", resp, &start)) == 0)
        rc = body_instant(body, "end", resp, &end);
    json_decref(body);
    if (rc != 0)
        return rc;
    sked_error_clear(&err);
    rc = sked_engine_backfill(req->engine, req->param[0], start, end, NULL,
                              NULL, &res, &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    return sked__http_json(resp, 200, sked__answer_backfill(&res));
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
     "List schedules by name, filtered by status, workflow and prefix", 200},
    {"POST", "/api/v1/schedules", schedule_create, "Create a schedule", 201},
    {"PUT", "/api/v1/schedules", schedule_apply,
     "Apply a set of schedules (source code), all or nothing", 200},
    {"GET", "/api/v1/schedules/{name}", schedule_get, "Read a schedule", 200},
    {"PATCH", "/api/v1/schedules/{name}", schedule_patch,
     "Change some fields of a schedule", 200},
    {"DELETE", "/api/v1/schedules/{name}", schedule_delete,
     "Delete a schedule (its runs are kept)", 204},
    {"POST", "/api/v1/schedules/{name}/pause", schedule_pause,
     "Pause a schedule", 200},
    {"POST", "/api/v1/schedules/{name}/resume", schedule_resume,
     "Resume a schedule from now, without catch-up", 200},
    {"POST", "/api/v1/schedules/{name}/trigger", schedule_trigger,
     "Start one run of a schedule now", 201},
    {"POST", "/api/v1/schedules/{name}/backfill", schedule_backfill,
     "Create the runs of every occurrence between start and end", 200},
    {"GET", "/api/v1/schedules/{name}/occurrences", schedule_occurrences,
     "Preview the next occurrences after now (or ?after=T), marked across "
     "DST changes",
     200},
    {0},
};
