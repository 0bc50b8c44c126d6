/* SPDX-License-Identifier: MIT */
/* The workflows of a workflows file (SPEC 10) as definitions the
 * executor runs. workflow_file.c has checked everything a user can get
 * wrong (keys, types, exactly one action, the DAG of needs), with line
 * and column; this only translates, and copies out of the file's arena
 * so a definition outlives a reload. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "engine/workflow_int.h"

static char **kvs_join(const sked_wf_kvs *kv, const char *sep)
{
    char **v = sked__calloc(kv->n + 1, sizeof *v);
    for (size_t i = 0; v && i < kv->n; i++) {
        size_t len =
            strlen(kv->v[i].key) + strlen(sep) + strlen(kv->v[i].value) + 1;
        if (!(v[i] = sked__malloc(len)))
            goto fail;
        snprintf(v[i], len, "%s%s%s", kv->v[i].key, sep, kv->v[i].value);
    }
    return v;
fail:
    for (size_t i = 0; i < kv->n; i++)
        free(v[i]);
    free(v);
    return NULL;
}

static char **strs_copy(const sked_wf_strs *s)
{
    char **v = sked__calloc(s->n + 1, sizeof *v);
    for (size_t i = 0; v && i < s->n; i++)
        if (!(v[i] = sked__strdup(s->v[i]))) {
            for (size_t k = 0; k < i; k++)
                free(v[k]);
            free(v);
            return NULL;
        }
    return v;
}

static int32_t *ints_copy(const sked_wf_ints *s)
{
    int32_t *v = sked__malloc((s->n ? s->n : 1) * sizeof *v);
    if (v && s->n)
        memcpy(v, s->v, s->n * sizeof *v);
    return v;
}

static bool dup_opt(const char *src, char **dst)
{
    *dst = src ? sked__strdup(src) : NULL;
    return !src || *dst;
}

static bool copy_retry(const sked_wf_retry *r, sked_retry_def *out)
{
    out->attempts = r->attempts > 0 ? r->attempts : 1;
    out->backoff = r->backoff;
    out->max_backoff = r->max_backoff;
    out->multiplier = r->multiplier >= 1 ? r->multiplier : 1;
    out->jitter = r->jitter;
    out->nretry_on = r->retry_on.n;
    out->retry_on = r->retry_on.n ? ints_copy(&r->retry_on) : NULL;
    return !r->retry_on.n || out->retry_on;
}

static bool copy_http(const sked_wf_http *h, sked_action *out)
{
    out->nheaders = h->headers.n;
    out->headers = kvs_join(&h->headers, ": ");
    out->nexpect = h->expect.n;
    out->expect = ints_copy(&h->expect);
    return out->headers && out->expect && dup_opt(h->method, &out->method) &&
           dup_opt(h->url, &out->url) && dup_opt(h->body, &out->body);
}

/* Copy the file's action A into OUT; false when out of memory (OUT then
 * holds what was copied, for sked__action_done). */
static bool copy_action(const sked_wf_action *a, sked_action *out)
{
    memset(out, 0, sizeof *out);
    out->timeout = a->timeout;
    out->kill_grace = a->kill_grace;
    out->sleep = a->sleep;
    if (!copy_retry(&a->retry, &out->retry))
        return false;
    if (a->env.n && !(out->env = kvs_join(&a->env, "=")))
        return false;
    if (!dup_opt(a->cwd, &out->cwd) || !dup_opt(a->user, &out->user))
        return false;
    switch (a->kind) {
    case SKED_WF_ACTION_RUN:
        out->kind = SKED_ACTION_EXEC;
        return (out->argv = strs_copy(&a->run)) != NULL;
    case SKED_WF_ACTION_SH:
        out->kind = SKED_ACTION_SH;
        return (out->sh = sked__strdup(a->sh)) != NULL;
    case SKED_WF_ACTION_HTTP:
        out->kind = SKED_ACTION_HTTP;
        return copy_http(&a->http, out);
    case SKED_WF_ACTION_SLEEP:
    case SKED_WF_ACTION_NONE:
        out->kind = SKED_ACTION_SLEEP;
        return true;
    }
    return true;
}

static int add_step(sked_workflow *w, const sked_wf_step *s, sked_error *err)
{
    sked_action act, comp;
    bool ok = copy_action(&s->a, &act);
    bool has_comp = s->compensate != NULL;
    if (has_comp)
        ok = copy_action(s->compensate, &comp) && ok;
    int rc =
        ok ? sked__workflow_add(w, s->name, &act, has_comp ? &comp : NULL, err)
           : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (rc != 0) {
        sked__action_done(&act);
        if (has_comp)
            sked__action_done(&comp);
    }
    return rc;
}

static int build(const sked_wf_workflow *fw, sked_workflow **out,
                 sked_error *err)
{
    sked_workflow *w;
    int rc = sked_workflow_new(fw->name, &w, err);
    if (rc != 0)
        return rc;
    if (fw->queue)
        rc = sked_workflow_set_queue(w, fw->queue, err);
    if (rc == 0 && fw->version)
        rc = sked_workflow_set_version(w, fw->version, err);
    if (rc == 0)
        rc = sked_workflow_set_timeout(w, fw->timeout.seconds,
                                       fw->timeout.fail_workflow,
                                       fw->timeout.hard, err);
    if (rc == 0 && fw->parallelism > 0)
        rc = sked_workflow_set_parallelism(w, fw->parallelism, err);
    if (rc == 0 && (fw->env_inherit_all || fw->env_inherit.n > 0))
        rc = sked_workflow_set_env_inherit(
            w, fw->env_inherit_all, (const char *const *) fw->env_inherit.v,
            fw->env_inherit.n, err);
    for (size_t i = 0; rc == 0 && i < fw->n_steps; i++)
        rc = add_step(w, &fw->steps[i], err);
    /* Needs may name later steps in the file: set them once all exist. */
    for (size_t i = 0; rc == 0 && i < fw->n_steps; i++)
        for (size_t k = 0; rc == 0 && k < fw->steps[i].needs.n; k++) {
            int need = sked__workflow_step_index(w, fw->steps[i].needs.v[k]);
            rc = need < 0 ? sked__error_set(err, SKED_EINVAL, "needs", -1,
                                            "unknown step")
                          : sked__workflow_need(w, i, (size_t) need, err);
        }
    if (rc == 0 && sked__workflow_seal(w) != 0)
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (rc != 0) {
        sked_workflow_free(w);
        return rc;
    }
    *out = w;
    return 0;
}

void sked__workflows_free(sked_workflow **list, size_t n)
{
    for (size_t i = 0; list && i < n; i++)
        sked_workflow_free(list[i]);
    free(list);
}

int sked__workflows_from_file(const sked_wf_file *f, sked_workflow ***out,
                              size_t *n, sked_error *err)
{
    sked_workflow **list =
        sked__calloc(f->n_workflows ? f->n_workflows : 1, sizeof *list);
    size_t k = 0;
    if (!list)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    for (; k < f->n_workflows; k++) {
        /* A workflow with only schedules runs elsewhere (a C program). */
        if (f->workflows[k].n_steps == 0)
            continue;
        int rc = build(&f->workflows[k], &list[k], err);
        if (rc != 0) {
            sked__workflows_free(list, k);
            return rc;
        }
    }
    /* Pack: skipped entries are NULL. */
    size_t m = 0;
    for (size_t i = 0; i < k; i++)
        if (list[i])
            list[m++] = list[i];
    *out = list;
    *n = m;
    return 0;
}
