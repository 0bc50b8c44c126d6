/* SPDX-License-Identifier: MIT */
/* Remote mode (remote_ops.h): the target_ops of target.h as requests of
 * docs/api.md, their answers turned back into what direct mode returns.
 * A schedule is sent as the model's definition
 * (sked__schedule_definition_json: without the state the scheduler
 * keeps, which the API refuses as read-only) and comes back whole, read
 * with SKED__SCHEDULE_JSON_STATE, so that the commands print it from the
 * very structure direct mode has from the engine; a list, an apply's and
 * a backfill's counts are read with the readers beside the API's writers
 * (engine/answer.h); runs, workflows and events are the API's text,
 * which is the engine's. The other requests, apply's and backfill's
 * bodies and the lists' query strings, are written by the writers
 * beside the API's readers (engine/request.h). */
#include "remote_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "engine/answer.h"
#include "engine/request.h"
#include "model/schedule.h"
#include "model/schedule_json.h"
#include "output.h"

typedef struct remote_target {
    target base;
    remote *r;
} remote_target;

remote *remote_of(target *t)
{
    return ((remote_target *) t)->r;
}

char *remote_path(const char *prefix, const char *name, const char *suffix)
{
    char *esc = remote_escape(name), *p = NULL;

    if (esc && !(p = cli_format("%s/%s%s", prefix, esc, suffix)))
        p = NULL;
    free(esc);
    return p;
}

int remote_no_memory(sked_error *err)
{
    return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
}

int remote_bad_answer(const char *what, sked_error *err)
{
    cli_fail_once(SKED_EIO, "the server's answer is not %s", what);
    return sked__error_set(err, SKED_EIO, NULL, -1, "bad answer");
}

/* GET PATH (taken: freed here) into *out. */
int remote_get_json(remote *r, char *path, json_t **out, sked_error *err)
{
    int rc;

    *out = NULL;
    if (!path)
        return remote_no_memory(err);
    rc = remote_call(r, "GET", path, NULL, NULL, out, err);
    free(path);
    return rc;
}

/* ---- schedules ----------------------------------------------------------- */

/* The definition of S as the API takes it, the model's; KEEP_NAME for
 * create and apply (PATCH names the schedule in its path). */
static json_t *definition(const sked_schedule *s, bool keep_name,
                          sked_error *err)
{
    json_t *j = NULL;

    if (sked__schedule_definition_json(s, &j, err) < 0)
        return NULL;
    if (!keep_name) {
        json_object_del(j, "name");
        json_object_del(j, "paused");
    }
    return j;
}

int remote_schedule_get(remote *r, const char *name, sked_schedule *out,
                        sked_error *err)
{
    json_t *j = NULL;
    int rc =
        remote_get_json(r, remote_path("/api/v1/schedules", name, ""), &j, err);
    sked_error perr;

    sked_error_clear(&perr);
    if (rc == 0) {
        sked_schedule_done(out);
        if (sked__schedule_from_json(j, SKED__SCHEDULE_JSON_STATE, out, &perr) <
            0)
            rc = remote_bad_answer("a schedule", err);
    }
    json_decref(j);
    return rc;
}

static int remote_op_schedule_get(target *t, const char *name,
                                  sked_schedule *out, sked_error *err)
{
    return remote_schedule_get(remote_of(t), name, out, err);
}

/* POST (CREATE) or PATCH the definition of S. */
static int schedule_write(target *t, const sked_schedule *s, bool create,
                          sked_error *err)
{
    json_t *body = definition(s, create, err), *answer = NULL;
    char *path = create ? strdup("/api/v1/schedules")
                        : remote_path("/api/v1/schedules", s->name, "");
    int rc;

    if (!body || !path)
        rc = err->code ? err->code : remote_no_memory(err);
    else
        rc = remote_call(remote_of(t), create ? "POST" : "PATCH", path, body,
                         NULL, &answer, err);
    /* SPEC 3.5: the server's warnings, printed as direct mode prints its
     * own. */
    out_warnings(json_object_get(answer, "warnings"));
    json_decref(answer);
    json_decref(body);
    free(path);
    return rc;
}

static int remote_op_schedule_create(target *t, const sked_schedule *s,
                                     sked_error *err)
{
    return schedule_write(t, s, true, err);
}

static int remote_op_schedule_update(target *t, const sked_schedule *s,
                                     sked_error *err)
{
    return schedule_write(t, s, false, err);
}

static int remote_op_schedule_list(target *t, const sked_schedule_query *q,
                                   sked_schedule_page *out, sked_error *err)
{
    char *path = sked__query_schedules("/api/v1/schedules", q);
    json_t *page = NULL;
    sked_error perr;
    int rc;

    sked_error_clear(&perr);
    if ((rc = remote_get_json(remote_of(t), path, &page, err)) == 0 &&
        sked__answer_schedule_page_read(page, out, &perr) != 0)
        rc = remote_bad_answer("a list of schedules", err);
    json_decref(page);
    return rc;
}

/* POST .../VERB for pause, resume and trigger; RUN_ID (may be NULL)
 * receives the run_id of the answer. */
static int schedule_post(target *t, const char *name, const char *verb,
                         char **run_id, sked_error *err)
{
    char *path = NULL, suffix[24];
    json_t *j = NULL;
    const char *id;
    int rc;

    snprintf(suffix, sizeof suffix, "/%s", verb);
    if (!(path = remote_path("/api/v1/schedules", name, suffix)))
        return remote_no_memory(err);
    rc = remote_call(remote_of(t), "POST", path, NULL, NULL, &j, err);
    free(path);
    if (rc == 0 && run_id) {
        id = json_string_value(json_object_get(j, "run_id"));
        if (!id)
            rc = remote_bad_answer("a run id", err);
        else if (!(*run_id = strdup(id)))
            rc = remote_no_memory(err);
    }
    json_decref(j);
    return rc;
}

static int remote_op_schedule_pause(target *t, const char *name,
                                    sked_error *err)
{
    return schedule_post(t, name, "pause", NULL, err);
}

static int remote_op_schedule_resume(target *t, const char *name,
                                     sked_error *err)
{
    return schedule_post(t, name, "resume", NULL, err);
}

static int remote_op_schedule_trigger(target *t, const char *name,
                                      char **run_id, sked_error *err)
{
    return schedule_post(t, name, "trigger", run_id, err);
}

/* The body BODY goes as JSON: itself when it is JSON, else a string, so
 * the run's output reads the same as a direct ping's. */
static int remote_op_schedule_ping(target *t, const char *name,
                                   sked_ping_status status, const char *body,
                                   char **run_id, sked_error *err)
{
    static const char *const words[] = {"start", "success", "fail"};
    char suffix[32];
    char *path;
    json_t *b = NULL, *j = NULL;
    const char *id;
    int rc;

    snprintf(suffix, sizeof suffix, "/ping?status=%s", words[status]);
    if (body && !(b = json_loads(body, JSON_DECODE_ANY, NULL)))
        b = json_string(body);
    if (!(path = remote_path("/api/v1/schedules", name, suffix)) ||
        (body && !b)) {
        free(path);
        json_decref(b);
        return remote_no_memory(err);
    }
    rc = remote_call(remote_of(t), "POST", path, b, NULL, &j, err);
    free(path);
    json_decref(b);
    id = rc == 0 ? json_string_value(json_object_get(j, "id")) : NULL;
    if (rc == 0 && !id)
        rc = remote_bad_answer("a run", err);
    else if (rc == 0 && !(*run_id = strdup(id)))
        rc = remote_no_memory(err);
    json_decref(j);
    return rc;
}

static int remote_op_schedule_delete(target *t, const char *name,
                                     sked_error *err)
{
    char *path = remote_path("/api/v1/schedules", name, "");
    int rc;

    if (!path)
        return remote_no_memory(err);
    rc = remote_call(remote_of(t), "DELETE", path, NULL, NULL, NULL, err);
    free(path);
    return rc;
}

static int remote_op_schedule_backfill(target *t, const char *name,
                                       sked_time start, sked_time end,
                                       sked_progress_fn progress, void *ctx,
                                       sked_backfill_result *res,
                                       sked_error *err)
{
    return remote_schedule_backfill(remote_of(t), t->tzdb, name, start, end,
                                    progress, ctx, res, err);
}

static int remote_op_schedule_apply(target *t, const target_apply *a,
                                    sked_apply_result *res, sked_error *err)
{
    /* The writer only reads the set. */
    const sked__apply_request req = {(sked_schedule *) a->set, a->n, a->prune,
                                     a->app};
    json_t *body = sked__request_apply(&req, err), *j = NULL;
    int rc;

    if (!body)
        return err->code ? err->code : remote_no_memory(err);
    rc = remote_call(remote_of(t), "PUT", "/api/v1/schedules", body, NULL, &j,
                     err);
    json_decref(body);
    out_warnings(json_object_get(j, "warnings")); /* SPEC 3.5 */
    if (rc == 0 && sked__answer_apply_read(j, res) != 0)
        rc = remote_bad_answer("an apply's counts", err);
    json_decref(j);
    return rc;
}

static void remote_op_done(target *t)
{
    remote_close(remote_of(t));
    free(t);
}

static int remote_op_notify(target *t, const target_notify *q, char **out,
                            sked_error *err)
{
    return remote_notify(remote_of(t), q, out, err);
}

static int remote_op_notifier_apply(target *t, const target_notifier_apply *a,
                                    sked_apply_result *res, sked_error *err)
{
    return remote_notifier_apply(remote_of(t), a, res, err);
}

/* Every operation's function is remote_op_NAME: those of schedules above,
 * the others in remote_runs.c, remote_calendars.c and
 * remote_occurrences.c (remote_ops.h). */
#define REMOTE_OP(name) .name = remote_op_##name,
static const target_ops remote_ops = {TARGET_OPS(REMOTE_OP)};
#undef REMOTE_OP

int remote_target_open(const char *url, sked_tzdb *tzdb, target **out)
{
    remote_target *rt = calloc(1, sizeof *rt);
    int rc;

    if (!rt)
        return cli_fail(SKED_ENOMEM, "out of memory");
    if ((rc = remote_open(url, &rt->r)) != 0) {
        free(rt);
        return sked_error_exit_code(rc);
    }
    rt->base = (target){.ops = &remote_ops, .tzdb = tzdb};
    *out = &rt->base;
    return 0;
}
