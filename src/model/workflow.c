/* SPDX-License-Identifier: MIT */
/* Reading and releasing workflow definitions (model/workflow.h): what
 * the executor needs of a definition without the engine that builds it
 * (src/engine/workflow.c, the builder and its checks). */
#include "model/workflow.h"

#include <stdlib.h>
#include <string.h>

int sked__workflow_step_index(const sked_workflow *w, const char *name)
{
    for (size_t i = 0; i < w->nsteps; i++)
        if (strcmp(w->steps[i].name, name) == 0)
            return (int) i;
    return -1;
}

void sked__strv_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

void sked__action_done(sked_action *a)
{
    sked__strv_free(a->argv);
    free(a->sh);
    sked__strv_free(a->env);
    free(a->cwd);
    free(a->user);
    free(a->method);
    free(a->url);
    free(a->body);
    for (size_t i = 0; i < a->nheaders; i++)
        free(a->headers[i]);
    free(a->headers);
    free(a->expect);
    free(a->retry.retry_on);
    memset(a, 0, sizeof *a);
}

void sked_workflow_free(sked_workflow *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->nsteps; i++) {
        sked_step_def *s = &w->steps[i];
        free(s->name);
        free(s->needs);
        sked__action_done(&s->act);
        if (s->compensate)
            sked__action_done(s->compensate);
        free(s->compensate);
    }
    free(w->steps);
    for (size_t i = 0; i < w->nschedules; i++)
        sked_schedule_done(&w->schedules[i]);
    free(w->schedules);
    sked__strv_free(w->env_inherit);
    free(w->name);
    free(w->queue);
    free(w->version);
    free(w);
}
