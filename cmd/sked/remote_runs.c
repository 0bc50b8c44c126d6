/* SPDX-License-Identifier: MIT */
/* Remote mode's runs, workflows and events (remote_ops.h): the target_ops
 * of target.h that read and start runs, list the workflows and read or
 * follow the event log, each a request of docs/api.md whose answer is
 * the API's text, which is the engine's, as direct mode returns it. */
#include "remote_ops.h"

#include <stdlib.h>
#include <string.h>

#include "base/json_text.h"
#include "cli.h"
#include "engine/request.h"
#include "model/run_page.h"

/* The text of the answer J (taken) into *out. */
static int text_of(json_t *j, char **out, sked_error *err)
{
    int rc = 0;

    if (!j)
        rc = remote_bad_answer("JSON", err);
    else if (!(*out = sked__json_text(j, NULL)))
        rc = remote_no_memory(err);
    json_decref(j);
    return rc;
}

/* GET PATH (taken) into *out as text. */
static int get_text(target *t, char *path, char **out, sked_error *err)
{
    json_t *j = NULL;
    int rc = remote_get_json(remote_of(t), path, &j, err);

    if (rc != 0) {
        json_decref(j);
        return rc;
    }
    return text_of(j, out, err);
}

/* The API's answer J (taken) as a page of runs: one run when ONE. */
static int run_page(json_t *j, bool one, sked_run_page *out, sked_error *err)
{
    sked_error why;

    sked_error_clear(&why);
    if (sked__run_page_from_json(j, one, out, &why) == 0)
        return 0;
    cli_fail_once(SKED_EIO, "the server's answer is not %s: %s",
                  one ? "a run" : "a list of runs", why.msg);
    return sked__error_set(err, SKED_EIO, NULL, -1, "bad answer");
}

/* GET PATH (taken) as a page of runs. */
static int get_runs(target *t, char *path, bool one, sked_run_page *out,
                    sked_error *err)
{
    json_t *j = NULL;
    int rc = remote_get_json(remote_of(t), path, &j, err);

    if (rc != 0) {
        json_decref(j);
        return rc;
    }
    return run_page(j, one, out, err);
}

int remote_op_run_list(target *t, const sked_run_query *q, sked_run_page *out,
                       sked_error *err)
{
    return get_runs(t, sked__query_runs("/api/v1/runs", q), false, out, err);
}

int remote_op_run_get(target *t, const char *id, sked_run_page *out,
                      sked_error *err)
{
    return get_runs(t, remote_path("/api/v1/runs", id, ""), true, out, err);
}

int remote_op_run_cancel(target *t, const char *id, sked_run_page *out,
                         sked_error *err)
{
    char *path = remote_path("/api/v1/runs", id, "/cancel");
    json_t *j = NULL;
    int rc;

    if (!path)
        return remote_no_memory(err);
    rc = remote_call(remote_of(t), "POST", path, NULL, NULL, &j, err);
    free(path);
    if (rc != 0) {
        json_decref(j);
        return rc;
    }
    return run_page(j, true, out, err);
}

int remote_op_run_start(target *t, const char *workflow, const char *input,
                        const char *key, sked_run_page *out, sked_error *err)
{
    char *path = remote_path("/api/v1/workflows", workflow, "/runs");
    json_t *body = input ? json_loads(input, 0, NULL) : json_object(),
           *j = NULL;
    int rc;

    /* The command checked INPUT as the engine does: it parses. */
    if (!path || !body)
        rc = remote_no_memory(err);
    else
        rc = remote_call(remote_of(t), "POST", path, body, key, &j, err);
    json_decref(body);
    free(path);
    if (rc != 0) {
        json_decref(j);
        return rc;
    }
    return run_page(j, true, out, err);
}

int remote_op_workflow_list(target *t, sked_workflow_page *out, sked_error *err)
{
    json_t *j = NULL;
    sked_error why;
    int rc =
        remote_get_json(remote_of(t), strdup("/api/v1/workflows"), &j, err);

    if (rc != 0) {
        json_decref(j);
        return rc;
    }
    sked_error_clear(&why);
    if (sked__workflow_page_from_json(j, json_object_get(j, "workflows"), out,
                                      &why) == 0)
        return 0;
    cli_fail_once(SKED_EIO,
                  "the server's answer is not a list of workflows: %s",
                  why.msg);
    return sked__error_set(err, SKED_EIO, NULL, -1, "bad answer");
}

int remote_op_event_list(target *t, int64_t after, size_t limit,
                         const char *actor, char **out, sked_error *err)
{
    const sked__event_query q = {
        .after = after, .limit = limit, .actor = actor};

    return get_text(t, sked__query_events("/api/v1/events", &q), out, err);
}

typedef struct follow_ctx {
    target_event_fn fn;
    void *ctx;
} follow_ctx;

static void on_event(void *ctx, const char *id, const char *type,
                     const char *data)
{
    const follow_ctx *f = ctx;

    (void) id, (void) type;
    f->fn(f->ctx, data);
}

int remote_op_event_follow(target *t, int64_t after, const char *actor,
                           target_event_fn fn, void *ctx,
                           volatile const int *stop, sked_error *err)
{
    const sked__event_query q = {
        .follow = true, .after = after < 0 ? -1 : after, .actor = actor};
    char *path = sked__query_events("/api/v1/events", &q);
    follow_ctx f = {fn, ctx};
    int rc;

    if (!path)
        return remote_no_memory(err);
    rc = remote_stream(remote_of(t), path, on_event, &f, stop, err);
    free(path);
    return rc;
}
