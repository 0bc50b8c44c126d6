/* SPDX-License-Identifier: MIT */
/* The operations of remote mode (remote_ops.h): requests of docs/api.md
 * and their answers turned back into direct mode's structures.
 *
 * A schedule is sent as its definition: the object of
 * sked__schedule_to_json without the state the scheduler keeps, which
 * the API refuses as read-only. It comes back whole, state included, and
 * is read with SKED__SCHEDULE_JSON_STATE, so that the commands print it
 * from the very structure direct mode reads from the store. */
#include "remote_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_text.h"
#include "cli.h"
#include "output.h"
#include "store/schedule.h"
#include "store/schedule_json.h"

/* The fields of a schedule object that are the scheduler's, not the
 * definition's. */
static const char *const state_keys[] = {
    "status",        "source",     "app",          "next_fire_at",
    "last_fired_at", "last_error", "runs_created", "consecutive_failures",
    "created_at",    "updated_at", NULL,
};

/* Write "PREFIX/ESCAPED(NAME)SUFFIX" into a new string (free), or NULL. */
static char *path_of(const char *prefix, const char *name, const char *suffix)
{
    char *esc = remote_escape(name), *p = NULL;

    if (esc && !(p = cli_format("%s/%s%s", prefix, esc, suffix)))
        p = NULL;
    free(esc);
    return p;
}

static int no_memory(sked_error *err)
{
    return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
}

/* An answer that is not what docs/api.md says: the server's fault. */
static int bad_answer(const char *what, sked_error *err)
{
    cli_fail_once(SKED_EIO, "the server's answer is not %s", what);
    return sked__error_set(err, SKED_EIO, NULL, -1, "bad answer");
}

/* The definition of S as the API takes it; KEEP_NAME for create and
 * apply (PATCH names the schedule in its path). */
static json_t *definition(const sked_schedule *s, bool keep_name,
                          sked_error *err)
{
    json_t *j = NULL;

    if (sked__schedule_to_json(s, &j, err) < 0)
        return NULL;
    for (const char *const *k = state_keys; *k; k++)
        json_object_del(j, *k);
    /* A request flag: not part of what the server writes back. */
    if (s->allow_past &&
        json_object_set_new(j, "allow_past", json_true()) != 0) {
        json_decref(j);
        sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
        return NULL;
    }
    if (!keep_name) {
        json_object_del(j, "name");
        json_object_del(j, "paused");
    }
    return j;
}

/* Read the schedule object J into *out. */
static int schedule_of(const json_t *j, sked_schedule *out, sked_error *err)
{
    sked_error perr;

    sked_error_clear(&perr);
    if (sked__schedule_from_json(j, SKED__SCHEDULE_JSON_STATE, out, &perr) < 0)
        return bad_answer("a schedule", err);
    return 0;
}

int remote_schedule_get(remote *r, const char *name, sked_schedule *out,
                        sked_error *err)
{
    char *path = path_of("/api/v1/schedules", name, "");
    json_t *j = NULL;
    int rc;

    if (!path)
        return no_memory(err);
    rc = remote_call(r, "GET", path, NULL, NULL, &j, err);
    free(path);
    if (rc == 0) {
        sked_schedule_done(out);
        rc = schedule_of(j, out, err);
    }
    json_decref(j);
    return rc;
}

int remote_schedule_write(remote *r, const sked_schedule *s, bool create,
                          sked_error *err)
{
    json_t *body = definition(s, create, err);
    char *path = create ? strdup("/api/v1/schedules")
                        : path_of("/api/v1/schedules", s->name, "");
    int rc;

    json_t *answer = NULL;

    if (!body || !path)
        rc = err->code ? err->code : no_memory(err);
    else
        rc = remote_call(r, create ? "POST" : "PATCH", path, body, NULL,
                         &answer, err);
    /* SPEC 3.5: the server's warnings, printed as direct mode prints its
     * own. */
    out_warnings(json_object_get(answer, "warnings"));
    json_decref(answer);
    json_decref(body);
    free(path);
    return rc;
}

/* Append "&KEY=VALUE" (escaped) to the query *q when VALUE is set. */
static int add_param(char **q, const char *key, const char *value)
{
    char *esc, *next = NULL;

    if (!value || !*q)
        return 0;
    if (!(esc = remote_escape(value)) ||
        !(next = cli_format("%s%c%s=%s", *q, strchr(*q, '?') ? '&' : '?', key,
                            esc)))
        next = NULL;
    free(esc);
    free(*q);
    *q = next;
    return next ? 0 : SKED_ENOMEM;
}

int remote_schedule_list(remote *r, const sked_schedule_filter *f,
                         sked_schedule **out, size_t *n, bool *more,
                         sked_error *err)
{
    char *path = strdup("/api/v1/schedules"), limit[24];
    json_t *page = NULL, *arr, *o;
    sked_schedule *v;
    size_t i;
    int rc;

    snprintf(limit, sizeof limit, "%zu", f->limit);
    add_param(&path, "status",
              f->status >= 0 ? sked_schedule_status_name(f->status) : NULL);
    add_param(&path, "workflow", f->workflow);
    add_param(&path, "prefix", f->name_prefix);
    add_param(&path, "limit", f->limit ? limit : NULL);
    add_param(&path, "cursor", f->after_name);
    if (!path)
        return no_memory(err);
    rc = remote_call(r, "GET", path, NULL, NULL, &page, err);
    free(path);
    if (rc != 0)
        return rc;
    arr = json_object_get(page, "schedules");
    if (!json_is_array(arr)) {
        json_decref(page);
        return bad_answer("a list of schedules", err);
    }
    if (!(v = calloc(json_array_size(arr) + 1, sizeof *v))) {
        json_decref(page);
        return no_memory(err);
    }
    json_array_foreach(arr, i, o)
    {
        if ((rc = schedule_of(o, &v[i], err)) != 0)
            break;
    }
    *n = rc == 0 ? json_array_size(arr) : i;
    *more = json_is_string(json_object_get(page, "next_cursor"));
    *out = v;
    json_decref(page);
    return rc;
}

int remote_schedule_op(remote *r, const char *name, const char *verb,
                       char **run_id, sked_error *err)
{
    char *path = NULL, suffix[24];
    json_t *j = NULL;
    const char *id;
    int rc;

    snprintf(suffix, sizeof suffix, "/%s", verb);
    if (!(path = path_of("/api/v1/schedules", name, suffix)))
        return no_memory(err);
    rc = remote_call(r, "POST", path, NULL, NULL, &j, err);
    free(path);
    if (rc == 0 && run_id) {
        id = json_string_value(json_object_get(j, "run_id"));
        if (!id)
            rc = bad_answer("a run id", err);
        else if (!(*run_id = strdup(id)))
            rc = no_memory(err);
    }
    json_decref(j);
    return rc;
}

int remote_schedule_delete(remote *r, const char *name, bool *existed,
                           sked_error *err)
{
    char *path = path_of("/api/v1/schedules", name, "");
    int rc;

    if (!path)
        return no_memory(err);
    /* The API answers 204 either way: ask first, to say as direct mode
     * does whether there was anything to delete. */
    rc = remote_call(r, "GET", path, NULL, NULL, NULL, err);
    if (rc == 0 || rc == SKED_ENOTFOUND) {
        if (existed)
            *existed = rc == 0;
        sked_error_clear(err);
        rc = remote_call(r, "DELETE", path, NULL, NULL, NULL, err);
    }
    free(path);
    return rc;
}

int remote_schedule_apply(remote *r, const target_apply *a,
                          sked_apply_result *res, sked_error *err)
{
    json_t *arr = json_array(), *body, *j = NULL;
    int rc = 0;

    for (size_t i = 0; arr && i < a->n && rc == 0; i++) {
        json_t *d = definition(&a->set[i], true, err);

        if (!d || json_array_append_new(arr, d) != 0)
            rc = err->code ? err->code : SKED_ENOMEM;
    }
    body = arr ? json_pack("{s:o, s:b, s:s}", "schedules", arr, "prune",
                           a->prune, "app", a->app)
               : NULL;
    if (!body)
        return rc ? rc : no_memory(err);
    if (rc == 0)
        rc = remote_call(r, "PUT", "/api/v1/schedules", body, NULL, &j, err);
    json_decref(body);
    out_warnings(json_object_get(j, "warnings")); /* SPEC 3.5 */
    if (rc == 0) {
        res->created =
            (size_t) json_integer_value(json_object_get(j, "created"));
        res->updated =
            (size_t) json_integer_value(json_object_get(j, "updated"));
        res->unchanged =
            (size_t) json_integer_value(json_object_get(j, "unchanged"));
        res->deleted =
            (size_t) json_integer_value(json_object_get(j, "deleted"));
    }
    json_decref(j);
    return rc;
}

/* ---- runs, workflows, events ------------------------------------------- */

/* The text of the run J (taken) the server answered with, into *out. */
static int run_text(json_t *j, char **out, sked_error *err)
{
    int rc = 0;

    if (!json_is_string(json_object_get(j, "id")))
        rc = bad_answer("a run", err);
    else if (!(*out = sked__json_text(j, NULL)))
        rc = no_memory(err);
    json_decref(j);
    return rc;
}

int remote_get_text(remote *r, const char *path, char **out, sked_error *err)
{
    json_t *j = NULL;
    int rc = remote_call(r, "GET", path, NULL, NULL, &j, err);

    if (rc == 0 && !(*out = sked__json_text(j, NULL)))
        rc = j ? no_memory(err) : bad_answer("JSON", err);
    json_decref(j);
    return rc;
}

int remote_run_list(remote *r, const sked_run_query *q, char **out,
                    sked_error *err)
{
    char *path = strdup("/api/v1/runs"), limit[24];
    int rc;

    snprintf(limit, sizeof limit, "%zu", q->limit);
    add_param(&path, "status", q->status);
    add_param(&path, "schedule", q->schedule);
    add_param(&path, "workflow", q->workflow);
    add_param(&path, "limit", q->limit ? limit : NULL);
    add_param(&path, "cursor", q->cursor);
    if (!path)
        return no_memory(err);
    rc = remote_get_text(r, path, out, err);
    free(path);
    return rc;
}

int remote_run_cancel(remote *r, const char *id, char **out, sked_error *err)
{
    char *path = path_of("/api/v1/runs", id, "/cancel");
    json_t *j = NULL;
    int rc;

    if (!path)
        return no_memory(err);
    rc = remote_call(r, "POST", path, NULL, NULL, &j, err);
    free(path);
    return rc == 0 ? run_text(j, out, err) : rc;
}

int remote_run_start(remote *r, const char *workflow, const char *input,
                     const char *key, char **out, sked_error *err)
{
    char *path = path_of("/api/v1/workflows", workflow, "/runs");
    json_t *body = input ? json_loads(input, 0, NULL) : json_object(),
           *j = NULL;
    int rc;

    /* The command checked INPUT as the engine does: it parses. */
    if (!path || !body)
        rc = no_memory(err);
    else
        rc = remote_call(r, "POST", path, body, key, &j, err);
    json_decref(body);
    free(path);
    return rc == 0 ? run_text(j, out, err) : rc;
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

int remote_event_follow(remote *r, int64_t after, target_event_fn fn, void *ctx,
                        volatile const int *stop, sked_error *err)
{
    follow_ctx f = {fn, ctx};
    char path[96];

    if (after >= 0)
        snprintf(path, sizeof path, "/api/v1/events?follow=1&after=%lld",
                 (long long) after);
    else
        snprintf(path, sizeof path, "/api/v1/events?follow=1");
    return remote_stream(r, path, on_event, &f, stop, err);
}
