/* SPDX-License-Identifier: MIT */
/* Workflow definitions (include/sked/workflow.h, src/model/workflow.h): the
 * public builder for C programs and the checks every definition passes.
 * Reading, hashing and freeing a definition are the model's
 * (src/model/workflow.c, workflow_json.c), which the executor uses too.
 *
 * The builder checks as it goes, so a definition is valid at every
 * moment: names unique, needs naming earlier steps (a DAG by
 * construction), limits in range. The server's definitions come from the
 * workflows file through workflow_load.c, which checks the same rules. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "engine/workflow_int.h"
#include "exec/step_env.h"
#include "model/schedule.h"

#define NAME_FIELD_MAX 128

int sked_workflow_new(const char *name, sked_workflow **out, sked_error *err)
{
    int rc = sked__schedule_name_check(name, "name", err);
    if (rc != 0)
        return rc;
    sked_workflow *w = sked__calloc(1, sizeof *w);
    if (!w || !(w->name = sked__strdup(name)) ||
        !(w->queue = sked__strdup("default"))) {
        sked_workflow_free(w);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    w->fail_workflow = true;
    w->hard = true;
    w->parallelism = 1;
    *out = w;
    return 0;
}

static int set_str(char **dst, const char *v, sked_error *err)
{
    char *c = sked__strdup(v);
    if (!c)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    free(*dst);
    *dst = c;
    return 0;
}

int sked_workflow_set_queue(sked_workflow *w, const char *queue,
                            sked_error *err)
{
    int rc = sked__schedule_name_check(queue, "queue", err);
    return rc != 0 ? rc : set_str(&w->queue, queue, err);
}

int sked_workflow_set_version(sked_workflow *w, const char *version,
                              sked_error *err)
{
    size_t n = version ? strlen(version) : 0;
    if (n == 0 || n > NAME_FIELD_MAX)
        return sked__error_set(err, SKED_EINVAL, "version", -1,
                               "version: must be 1 to %d bytes",
                               NAME_FIELD_MAX);
    int rc = set_str(&w->version, version, err);
    if (rc == 0)
        w->version_given = true;
    return rc;
}

int sked_workflow_set_timeout(sked_workflow *w, sked_dur seconds,
                              bool fail_workflow, bool hard, sked_error *err)
{
    if (seconds < 0 || seconds > 366 * 86400 * SKED_USEC_PER_SEC)
        return sked__error_set(err, SKED_EINVAL, "timeout.seconds", -1,
                               "timeout.seconds: must be 0 to 366 days");
    w->timeout = seconds;
    w->fail_workflow = fail_workflow;
    w->hard = hard;
    return 0;
}

int sked_workflow_set_env_inherit(sked_workflow *w, bool all,
                                  const char *const *names, size_t n,
                                  sked_error *err)
{
    char field[40], **v = NULL;
    const char *why;

    if (!w || (n > 0 && !names))
        return sked__error_set(err, SKED_EINVAL, "env_inherit", -1,
                               "env_inherit: a workflow and its names");
    for (size_t i = 0; i < n; i++)
        if ((why = sked__step_env_inherit_problem(names[i])) != NULL) {
            (void) snprintf(field, sizeof field, "env_inherit[%zu]", i);
            return sked__error_set(err, SKED_EINVAL, field, -1, "%s: %s", field,
                                   why);
        }
    if (n > 0 && !(v = sked__calloc(n + 1, sizeof *v)))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    for (size_t i = 0; i < n; i++)
        if (!(v[i] = sked__strdup(names[i]))) {
            sked__strv_free(v);
            return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
        }
    sked__strv_free(w->env_inherit);
    w->env_inherit = v;
    w->env_inherit_all = all;
    return 0;
}

int sked_workflow_set_parallelism(sked_workflow *w, int n, sked_error *err)
{
    if (n < 1 || n > SKED_WORKFLOW_PARALLELISM_MAX)
        return sked__error_set(err, SKED_EINVAL, "parallelism", -1,
                               "parallelism: must be 1 to %d",
                               SKED_WORKFLOW_PARALLELISM_MAX);
    w->parallelism = n;
    return 0;
}

/* Check R and copy it into OUT (its retry_on list duplicated). FIELD
 * prefixes the error ("retry", "compensate_retry"). */
static int retry_copy(const sked_retry *r, const char *field,
                      sked_retry_def *out, sked_error *err)
{
    char f[48];
    memset(out, 0, sizeof *out);
    snprintf(f, sizeof f, "%s.attempts", field);
    if (r->attempts < 0 || r->attempts > SKED_RETRY_ATTEMPTS_MAX)
        return sked__error_set(err, SKED_EINVAL, f, -1, "%s: must be 1 to %d",
                               f, SKED_RETRY_ATTEMPTS_MAX);
    snprintf(f, sizeof f, "%s.multiplier", field);
    /* 0 means 1; anything else below 1 would shrink the delays. Written
     * so that NaN is refused too. */
    if (!(r->multiplier == 0 || (r->multiplier >= 1 && r->multiplier <= 100)))
        return sked__error_set(err, SKED_EINVAL, f, -1, "%s: must be 1 to 100",
                               f);
    snprintf(f, sizeof f, "%s.backoff", field);
    if (r->backoff < 0)
        return sked__error_set(err, SKED_EINVAL, f, -1,
                               "%s: must not be negative", f);
    snprintf(f, sizeof f, "%s.max_backoff", field);
    if (r->max_backoff < 0)
        return sked__error_set(err, SKED_EINVAL, f, -1,
                               "%s: must not be negative", f);
    out->attempts = r->attempts ? r->attempts : 1;
    out->backoff = r->backoff;
    out->max_backoff = r->max_backoff;
    out->multiplier = r->multiplier >= 1 ? r->multiplier : 1;
    out->jitter = r->jitter;
    if (r->nretry_on > 0) {
        out->retry_on = sked__malloc(r->nretry_on * sizeof *out->retry_on);
        if (!out->retry_on)
            return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
        memcpy(out->retry_on, r->retry_on, r->nretry_on * sizeof *r->retry_on);
        out->nretry_on = r->nretry_on;
    }
    return 0;
}

/* Make room for one more step. */
static int grow_steps(sked_workflow *w, sked_error *err)
{
    if (w->nsteps >= SKED_WORKFLOW_STEPS_MAX)
        return sked__error_set(err, SKED_ETOOBIG, "steps", -1,
                               "a workflow has at most %d steps",
                               SKED_WORKFLOW_STEPS_MAX);
    if (w->nsteps < w->capsteps)
        return 0;
    size_t cap = w->capsteps ? w->capsteps * 2 : 8;
    sked_step_def *s = sked__realloc(w->steps, cap * sizeof *s);
    if (!s)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    w->steps = s;
    w->capsteps = cap;
    return 0;
}

int sked__workflow_add(sked_workflow *w, const char *name, sked_action *act,
                       sked_action *compensate, sked_error *err)
{
    int rc = sked__schedule_name_check(name, "name", err);
    if (rc == 0 && sked__workflow_step_index(w, name) >= 0)
        rc = sked__error_set(err, SKED_EINVAL, "name", -1,
                             "step \"%s\" is declared twice", name);
    if (rc == 0)
        rc = grow_steps(w, err);
    if (rc != 0)
        return rc;
    sked_step_def *s = &w->steps[w->nsteps];
    memset(s, 0, sizeof *s);
    if (!(s->name = sked__strdup(name)))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (compensate) {
        if (!(s->compensate = sked__malloc(sizeof *s->compensate))) {
            free(s->name);
            return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
        }
        *s->compensate = *compensate;
        memset(compensate, 0, sizeof *compensate);
    }
    s->act = *act;
    memset(act, 0, sizeof *act);
    w->nsteps++;
    return 0;
}

int sked__workflow_need(sked_workflow *w, size_t step, size_t need,
                        sked_error *err)
{
    sked_step_def *s = &w->steps[step];
    for (size_t i = 0; i < s->nneeds; i++)
        if (s->needs[i] == need)
            return 0;
    size_t *n = sked__realloc(s->needs, (s->nneeds + 1) * sizeof *n);
    if (!n)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    n[s->nneeds++] = need;
    s->needs = n;
    return 0;
}

static int fn_action(sked_step_fn fn, sked_dur timeout, const sked_retry *r,
                     const char *field, void *userdata, sked_action *out,
                     sked_error *err)
{
    memset(out, 0, sizeof *out);
    out->kind = SKED_ACTION_FN;
    out->fn = fn;
    out->userdata = userdata;
    out->timeout = timeout;
    static const sked_retry none;
    return retry_copy(r ? r : &none, field, &out->retry, err);
}

int sked_workflow_add_step(sked_workflow *w, const char *name, sked_step_fn fn,
                           const sked_step_options *opts, sked_error *err)
{
    static const sked_step_options none;
    /* Zeroed, so that the cleanup below may release both whichever
     * check failed. */
    sked_action act = {0}, comp = {0};
    int rc;

    if (!opts)
        opts = &none;
    if (!fn)
        return sked__error_set(err, SKED_EINVAL, "fn", -1,
                               "a step needs a function");
    for (size_t i = 0; i < opts->nneeds; i++)
        if (!opts->needs[i] || sked__workflow_step_index(w, opts->needs[i]) < 0)
            return sked__error_set(err, SKED_EINVAL, "needs", -1,
                                   "needs: \"%s\" is not a step added before",
                                   opts->needs[i] ? opts->needs[i] : "");
    if (opts->timeout < 0)
        return sked__error_set(err, SKED_EINVAL, "timeout", -1,
                               "timeout: must not be negative");
    if (opts->compensate && opts->compensate_timeout < 0)
        return sked__error_set(err, SKED_EINVAL, "compensate_timeout", -1,
                               "compensate_timeout: must not be negative");
    rc = fn_action(fn, opts->timeout, &opts->retry, "retry", opts->userdata,
                   &act, err);
    if (rc == 0 && opts->compensate)
        rc = fn_action(opts->compensate, opts->compensate_timeout,
                       &opts->compensate_retry, "compensate_retry",
                       opts->userdata, &comp, err);
    if (rc == 0)
        rc = sked__workflow_add(w, name, &act, opts->compensate ? &comp : NULL,
                                err);
    if (rc != 0) {
        sked__action_done(&act);
        if (opts->compensate)
            sked__action_done(&comp);
        return rc;
    }
    for (size_t i = 0; rc == 0 && i < opts->nneeds; i++)
        rc = sked__workflow_need(
            w, w->nsteps - 1,
            (size_t) sked__workflow_step_index(w, opts->needs[i]), err);
    return rc;
}

int sked_workflow_add_schedule(sked_workflow *w, const sked_schedule *s,
                               sked_error *err)
{
    sked_schedule c;
    sked_schedule *grown;

    if (sked_schedule_copy(s, &c) != 0)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    free(c.workflow);
    c.workflow = sked__strdup(w->name);
    if (!c.name)
        c.name = sked__strdup(w->name);
    c.source = SKED_SOURCE_CODE;
    grown = sked__realloc(w->schedules, (w->nschedules + 1) * sizeof *grown);
    if (!c.workflow || !c.name || !grown) {
        sked_schedule_done(&c);
        if (grown)
            w->schedules = grown;
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    w->schedules = grown;
    w->schedules[w->nschedules++] = c;
    return 0;
}
