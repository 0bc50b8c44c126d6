/* SPDX-License-Identifier: MIT */
/* The replay route of the API (docs/api.md "Simulate"): a period of a
 * schedule replayed through the scheduler's own policies on virtual
 * time, nothing written (sked_engine_schedule_simulate), what "sked
 * schedule simulate" prints. Each decision is the object its --json
 * prints a line of (engine/answer.h); the answer lists at most "limit"
 * of them (the query's or the body's, the body's winning) and counts
 * them all.
 *
 * Status codes: 400 for a body that is not JSON or names an unknown
 * field, 422 for a value of the wrong type or out of range and for a
 * period the replay refuses (field "to", "down[i]", ...), 404 for an
 * unknown schedule, 413 (SKED_ETOOBIG) for a period of more decisions
 * than a replay makes. */
#include <stdio.h>
#include <string.h>

#include "engine/answer.h"
#include "engine/request.h"
#include "http/http_int.h"
#include "sked/sked.h"

/* Name the body's key for the replay's option of ERR's field: the API
 * says "run_duration_secs" where the engine says "run_duration". */
static void body_field(sked_error *err)
{
    static const char *const names[][2] = {
        {"run_duration", "run_duration_secs"},
        {"tick", "tick_secs"},
    };

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(err->field, names[i][0]) == 0)
            (void) snprintf(err->field, sizeof err->field, "%s", names[i][1]);
}

/* The limit of the request: the body's, else the query's, else the
 * default. */
static int simulate_limit(const http_req *req, http_resp *resp,
                          const sked__simulate_request *r, size_t *out)
{
    long v;
    int rc;

    *out = r->limit;
    if (*out > 0)
        return 0;
    rc = sked__http_query_long(req, resp, "limit", 1, SKED__SIMULATE_LIMIT_MAX,
                               SKED__SIMULATE_LIMIT_DEFAULT, &v);
    *out = (size_t) v;
    return rc;
}

static int schedule_simulate(const http_req *req, http_resp *resp)
{
    sked_simulation sim = {NULL, 0};
    sked__simulate_request r;
    json_t *body = NULL;
    sked_error err;
    size_t limit = 0;
    int rc;

    if ((rc = sked__http_body_object(req, resp, false, &body)) != 0)
        return rc;
    sked_error_clear(&err);
    rc = sked__request_simulate_read(body, &r, &err);
    json_decref(body);
    if (rc != 0) {
        sked__request_simulate_done(&r);
        return sked__http_fail(resp, rc, &err);
    }
    if ((rc = simulate_limit(req, resp, &r, &limit)) == 0) {
        rc = sked_engine_schedule_simulate(req->engine, req->param[0], &r.o,
                                           &sim, &err);
        if (rc != 0) {
            body_field(&err);
            rc = sked__http_fail(resp, rc, &err);
        } else {
            rc = sked__http_json(
                resp, 200,
                sked__answer_simulation(req->param[0], &r.o, &sim, limit));
        }
    }
    sked_simulation_done(&sim);
    sked__request_simulate_done(&r);
    return rc;
}

const http_route sked__api_simulate_routes[] = {
    {"POST", "/api/v1/schedules/{name}/simulate", schedule_simulate,
     "Replay a period of a schedule through the scheduler's policies, with "
     "down intervals: what fires and what is dropped, nothing written",
     200, SKED_SCOPE_READ},
    {0},
};
