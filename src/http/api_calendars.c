/* SPDX-License-Identifier: MIT */
/* The calendar routes of the API (docs/calendars.md): the collection,
 * one calendar, and its days in a period.
 *
 * Every operation goes through the engine (sked/engine.h); the calendar
 * object is the engine's answer (engine/answer.h), the JSON "sked
 * calendar get --json" prints. Status codes as for schedules: 400 for a
 * body that is not JSON or names an unknown field, 422 for a bad value
 * (naming the field: "dates[2]", "rules[0]" with the position, "ics"
 * with the line), 404 for an unknown calendar or include, 409 for a name
 * that exists, a cycle of includes, or a calendar still included by
 * another. A refused request changes nothing. PUT on the collection
 * applies a set as an app's code calendars (sked apply), as PUT
 * /api/v1/schedules does schedules. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "engine/answer.h"
#include "engine/request.h"
#include "http/http_int.h"
#include "sked/sked.h"

/* Read the calendar NAME as it is now and send it with STATUS. */
static int send_named(const http_req *req, http_resp *resp, unsigned status,
                      const char *name)
{
    sked_calendar c;
    sked_error err;
    json_t *o;
    int rc;

    sked_error_clear(&err);
    if ((rc = sked_engine_calendar_get(req->engine, name, &c, &err)) != 0)
        return sked__http_fail(resp, rc, &err);
    o = sked__answer_calendar(&c, &err);
    sked_calendar_done(&c);
    if (!o)
        return sked__http_fail(resp, SKED_ENOMEM, &err);
    return sked__http_json(resp, status, o);
}

/* Read the body as a calendar into *c; the URL's NAME (NULL: none) is
 * its name, and a body naming another is refused. */
static int read_body(const http_req *req, http_resp *resp, const char *name,
                     sked_calendar *c)
{
    json_t *body = NULL, *v;
    sked_error err;
    int rc;

    if ((rc = sked__http_body_object(req, resp, false, &body)) != 0)
        return rc;
    v = json_object_get(body, "name");
    if (name && v &&
        !(json_is_string(v) && strcmp(json_string_value(v), name) == 0)) {
        json_decref(body);
        return sked__http_error(resp, SKED_EINVAL, "name",
                                "the name is the URL's (\"%.100s\")", name);
    }
    sked_error_clear(&err);
    rc = sked__answer_calendar_read(body, c, &err);
    json_decref(body);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    if (name && !c->name && !(c->name = sked__strdup(name))) {
        sked_calendar_done(c);
        return sked__http_error(resp, SKED_ENOMEM, NULL, "out of memory");
    }
    c->source = SKED_SOURCE_API;
    return 0;
}

static int calendar_list(const http_req *req, http_resp *resp)
{
    sked_calendar *v = NULL;
    sked_error err;
    size_t n = 0;
    json_t *o;
    int rc;

    sked_error_clear(&err);
    if ((rc = sked_engine_calendar_list(req->engine, &v, &n, &err)) != 0)
        return sked__http_fail(resp, rc, &err);
    o = sked__answer_calendars(v, n, &err);
    sked_calendars_free(v, n);
    return o ? sked__http_json(resp, 200, o)
             : sked__http_fail(resp, SKED_ENOMEM, &err);
}

static int calendar_create(const http_req *req, http_resp *resp)
{
    sked_calendar c;
    sked_error err;
    int rc;

    if ((rc = read_body(req, resp, NULL, &c)) != 0)
        return rc;
    sked_error_clear(&err);
    rc = sked_engine_calendar_create(req->engine, &c, &err);
    rc = rc != 0 ? sked__http_fail(resp, rc, &err)
                 : send_named(req, resp, 201, c.name);
    sked_calendar_done(&c);
    return rc;
}

/* PUT /api/v1/calendars: {"calendars", "prune", "app"}, applied as the
 * app's code calendars, all or nothing (sked apply). */
static int calendar_apply(const http_req *req, http_resp *resp)
{
    sked_apply_result res = {0};
    sked__calendar_apply_request a;
    json_t *body = NULL, *o;
    sked_error err;
    int rc;

    if ((rc = sked__http_body_object(req, resp, false, &body)) != 0)
        return rc;
    sked_error_clear(&err);
    rc = sked__request_calendar_apply_read(body, &a, &err);
    if (rc == 0)
        rc = sked_engine_calendar_apply(req->engine, a.app, a.set, a.n, a.prune,
                                        &res, &err);
    if (rc != 0)
        rc = sked__http_fail(resp, rc, &err);
    else if (!(o = sked__answer_apply(&res)))
        rc = sked__http_error(resp, SKED_ENOMEM, NULL, "out of memory");
    else
        rc = sked__http_json(resp, 200, o);
    sked__calendar_apply_request_done(&a);
    json_decref(body); /* after the apply: a.app is the body's */
    return rc;
}

static int calendar_get(const http_req *req, http_resp *resp)
{
    return send_named(req, resp, 200, req->param[0]);
}

static int calendar_put(const http_req *req, http_resp *resp)
{
    sked_calendar c;
    sked_error err;
    bool created = false;
    int rc;

    if ((rc = read_body(req, resp, req->param[0], &c)) != 0)
        return rc;
    sked_error_clear(&err);
    rc = sked_engine_calendar_put(req->engine, &c, &created, &err);
    rc = rc != 0 ? sked__http_fail(resp, rc, &err)
                 : send_named(req, resp, created ? 201 : 200, c.name);
    sked_calendar_done(&c);
    return rc;
}

static int calendar_delete(const http_req *req, http_resp *resp)
{
    sked_error err;
    int rc;

    sked_error_clear(&err);
    rc = sked_engine_calendar_delete(req->engine, req->param[0], NULL, &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    resp->status = 204;
    return 0;
}

/* The query's date KEY into *day; absent: DEFAULT_DAY. */
static int query_date(const http_req *req, http_resp *resp, const char *key,
                      int64_t default_day, int64_t *day)
{
    const char *v = sked__http_query(req, key);
    sked_error err;

    *day = default_day;
    if (!v || !*v)
        return 0;
    sked_error_clear(&err);
    if (sked_date_parse(v, key, day, &err) != 0)
        return sked__http_fail(resp, SKED_ESYNTAX, &err);
    return 0;
}

static int calendar_days(const http_req *req, http_resp *resp)
{
    sked_calendar_days_query q = {0};
    sked_calendar_day *v = NULL;
    const char *biz = sked__http_query(req, "business");
    sked_time now = sked_engine_now(req->engine);
    int64_t today = now / (86400 * SKED_USEC_PER_SEC);
    sked_error err;
    size_t n = 0;
    json_t *o;
    int rc;

    if ((rc = query_date(req, resp, "from", today, &q.from)) != 0 ||
        (rc = query_date(req, resp, "to", q.from + 365, &q.to)) != 0)
        return rc;
    /* A flag, as every flag of the API: true or 1, false or 0. */
    q.business = biz && (strcmp(biz, "true") == 0 || strcmp(biz, "1") == 0);
    if (biz && *biz && !q.business && strcmp(biz, "false") != 0 &&
        strcmp(biz, "0") != 0)
        return sked__http_error(resp, SKED_ESYNTAX, "business",
                                "1, true, 0 or false");
    sked_error_clear(&err);
    rc =
        sked_engine_calendar_days(req->engine, req->param[0], &q, &v, &n, &err);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    o = sked__answer_calendar_days(req->param[0], v, n, &err);
    free(v);
    return o ? sked__http_json(resp, 200, o)
             : sked__http_fail(resp, SKED_ENOMEM, &err);
}

const http_route sked__api_calendar_routes[] = {
    {"GET", "/api/v1/calendars", calendar_list, "List the calendars", 200,
     SKED_SCOPE_READ},
    {"POST", "/api/v1/calendars", calendar_create, "Create a calendar", 201,
     SKED_SCOPE_ADMIN},
    {"PUT", "/api/v1/calendars", calendar_apply,
     "Apply a set of calendars (source code) as an app's, all or nothing", 200,
     SKED_SCOPE_ADMIN},
    {"GET", "/api/v1/calendars/{name}", calendar_get, "Read a calendar", 200,
     SKED_SCOPE_READ},
    {"PUT", "/api/v1/calendars/{name}", calendar_put,
     "Create or replace a calendar", 200, SKED_SCOPE_ADMIN},
    {"DELETE", "/api/v1/calendars/{name}", calendar_delete, "Delete a calendar",
     204, SKED_SCOPE_ADMIN},
    {"GET", "/api/v1/calendars/{name}/days", calendar_days,
     "List a calendar's days in a period", 200, SKED_SCOPE_READ},
    {0},
};
