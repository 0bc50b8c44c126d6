/* SPDX-License-Identifier: MIT */
/* A workflow definition as JSON (stored in workflow_versions, shown by
 * `sked workflow list` and the API), and its version hash: FNV-1a over
 * that JSON, so two servers reading the same file agree on the version
 * without talking to each other. A C step's function is not part of it:
 * change a C workflow's code without changing its shape, and give it a
 * version by hand (sked_workflow_set_version). */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/json_io.h"
#include "base/json_text.h"
#include "model/workflow.h"

static const char *const kind_names[] = {"fn", "run", "sh", "http", "sleep"};

static double secs(sked_dur d)
{
    return (double) d / (double) SKED_USEC_PER_SEC;
}

static json_t *strv_json(char *const *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && (n != (size_t) -1 ? i < n : v && v[i]); i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

static json_t *ints_json(const int32_t *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

static void action_kind_json(json_t *o, const sked_action *a)
{
    switch (a->kind) {
    case SKED_ACTION_EXEC:
        json_object_set_new(o, "run", strv_json(a->argv, (size_t) -1));
        break;
    case SKED_ACTION_SH:
        json_object_set_new(o, "sh", json_string(a->sh));
        break;
    case SKED_ACTION_HTTP:
        json_object_set_new(o, "method",
                            json_string(a->method ? a->method : "GET"));
        json_object_set_new(o, "url", json_string(a->url));
        json_object_set_new(o, "headers", strv_json(a->headers, a->nheaders));
        if (a->body)
            json_object_set_new(o, "body", json_string(a->body));
        json_object_set_new(o, "expect", ints_json(a->expect, a->nexpect));
        break;
    case SKED_ACTION_SLEEP:
        json_object_set_new(o, "sleep_secs", json_real(secs(a->sleep)));
        break;
    case SKED_ACTION_FN:
        break;
    }
    if (a->env)
        json_object_set_new(o, "env", strv_json(a->env, (size_t) -1));
    if (a->cwd)
        json_object_set_new(o, "cwd", json_string(a->cwd));
    if (a->user)
        json_object_set_new(o, "user", json_string(a->user));
}

static json_t *action_json(const sked_action *a)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "kind", json_string(kind_names[a->kind]));
    action_kind_json(o, a);
    json_object_set_new(o, "timeout_secs", json_real(secs(a->timeout)));
    json_object_set_new(o, "kill_grace_secs", json_real(secs(a->kill_grace)));
    json_t *r = json_pack(
        "{s:I, s:f, s:f, s:f, s:b}", "attempts", (json_int_t) a->retry.attempts,
        "backoff_secs", secs(a->retry.backoff), "multiplier",
        a->retry.multiplier, "max_backoff_secs", secs(a->retry.max_backoff),
        "jitter", a->retry.jitter);
    if (r)
        json_object_set_new(r, "retry_on",
                            ints_json(a->retry.retry_on, a->retry.nretry_on));
    json_object_set_new(o, "retry", r);
    return o;
}

static json_t *step_json(const sked_workflow *w, const sked_step_def *s)
{
    json_t *o = action_json(&s->act), *needs = json_array();
    if (!o || !needs) {
        json_decref(o);
        json_decref(needs);
        return NULL;
    }
    json_object_set_new(o, "name", json_string(s->name));
    for (size_t i = 0; i < s->nneeds; i++)
        json_array_append_new(needs, json_string(w->steps[s->needs[i]].name));
    json_object_set_new(o, "needs", needs);
    if (s->compensate)
        json_object_set_new(o, "compensate", action_json(s->compensate));
    return o;
}

/* The definition without its version: what the version hashes. */
static json_t *definition_json(const sked_workflow *w)
{
    json_t *o = json_object(), *steps = json_array();
    if (!o || !steps) {
        json_decref(o);
        json_decref(steps);
        return NULL;
    }
    json_object_set_new(o, "name", json_string(w->name));
    json_object_set_new(o, "queue", json_string(w->queue));
    json_object_set_new(o, "parallelism", json_integer(w->parallelism));
    json_object_set_new(o, "timeout",
                        json_pack("{s:f, s:b, s:b}", "seconds",
                                  secs(w->timeout), "fail_workflow",
                                  w->fail_workflow, "hard", w->hard));
    /* Only when set: the hash of a workflow that inherits nothing stays
     * what it was before env_inherit existed. */
    if (w->env_inherit_all)
        json_object_set_new(o, "env_inherit", json_true());
    else if (w->env_inherit)
        json_object_set_new(o, "env_inherit",
                            strv_json(w->env_inherit, (size_t) -1));
    for (size_t i = 0; i < w->nsteps; i++)
        json_array_append_new(steps, step_json(w, &w->steps[i]));
    json_object_set_new(o, "steps", steps);
    return o;
}

char *sked__workflow_json(const sked_workflow *w)
{
    json_t *o = definition_json(w);
    char *s = NULL;
    if (o) {
        if (w->version)
            json_object_set_new(o, "version", json_string(w->version));
        s = sked__json_write(o, SKED_JSON_SORTED, NULL);
    }
    json_decref(o);
    return s;
}

int sked__workflow_seal(sked_workflow *w)
{
    if (w->version)
        return 0;
    json_t *o = definition_json(w);
    /* The version is a hash of this text, as it was first written: with
     * jansson's digits, so that no stored version changes. */
    char *s = o ? sked__json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(o);
    if (!s)
        return SKED_ENOMEM;
    uint64_t h = sked__hash_fnv1a(s);
    free(s);
    char buf[24];
    snprintf(buf, sizeof buf, "%012" PRIx64, h >> 16);
    return (w->version = sked__strdup(buf)) ? 0 : SKED_ENOMEM;
}
