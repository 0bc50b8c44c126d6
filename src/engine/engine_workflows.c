/* SPDX-License-Identifier: MIT */
/* A workflows file loaded into the engine (sked_engine_load_workflows):
 * what the server does at start and on SIGHUP. The file is read and
 * checked whole first (workflow_file.c); then its workflows and queues
 * replace the engine's, and its schedules are synced as its app's code
 * schedules. A failure at any step leaves one line saying where. */
#include "base/actor.h"
#include "base/alloc.h"
#include "engine/engine_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "engine/workflow_file.h"
#include "engine/workflow_int.h"

_Static_assert(SKED_WORKFLOWS_ERROR_MAX >=
                   SKED_WF_PATH_MAX + SKED_WF_MSG_MAX + 600,
               "room for FILE:LINE:COLUMN: path: message");

/* Hand the workflows and queues of WF to E: from now on its workers run
 * these definitions (runs in flight keep theirs). */
static int define(sked_engine *e, const sked_wf_file *wf, sked_error *err)
{
    sked_workflow **list = NULL;
    size_t n = 0;
    sked_queue_def *q =
        sked__calloc(wf->n_queues ? wf->n_queues : 1, sizeof *q);
    int rc = q ? sked__workflows_from_file(wf, &list, &n, err)
               : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);

    for (size_t i = 0; rc == 0 && i < wf->n_queues; i++)
        q[i] = (sked_queue_def){wf->queues[i].name, wf->queues[i].concurrency,
                                wf->queues[i].worker_concurrency,
                                wf->queues[i].rate_limit,
                                wf->queues[i].rate_period};
    if (rc == 0)
        rc = sked__engine_define(e, list, n, q, wf->n_queues, err);
    free(list); /* the engine took the workflows */
    free(q);
    return rc;
}

/* Write into OUT->error the failure RC of PATH, ERR's message after the
 * file's name. */
static void say_failure(const char *path, const sked_error *err, int rc,
                        sked_workflows_loaded *out)
{
    (void) snprintf(out->error, sizeof out->error, "%s: %s", path,
                    err->msg[0] ? err->msg : sked_strerror(rc));
}

/* Write the calendars of WF as APP's. One may include another declared
 * later: each pass writes those whose includes are written, until a pass
 * writes nothing new; what is left is refused with its own error. */
static int sync_calendars(sked_engine *e, const sked_wf_file *wf,
                          sked_error *err)
{
    bool *done = wf->n_calendars ? sked__calloc(wf->n_calendars, 1) : NULL;
    size_t left = wf->n_calendars, before;
    int rc = 0;

    if (wf->n_calendars && !done)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    do {
        before = left;
        for (size_t i = 0; i < wf->n_calendars; i++) {
            sked_calendar *c = &wf->calendars[i];
            if (done[i])
                continue;
            free(c->app);
            if (!(c->app = sked__strdup(wf->app))) {
                free(done);
                return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
            }
            rc = sked_engine_calendar_put(e, c, NULL, err);
            if (rc == 0) {
                done[i] = true;
                left--;
            }
        }
    } while (left > 0 && left < before);
    free(done);
    if (left > 0)
        return rc ? rc : SKED_EINVAL;
    return 0;
}

/* Define the workflows of WF (read from PATH) and sync its schedules. */
static int take_as_code(sked_engine *e, const char *path,
                        const sked_wf_file *wf, sked_workflows_loaded *out,
                        sked_error *err)
{
    int rc = define(e, wf, err);

    if (rc < 0) {
        say_failure(path, err, rc, out);
        return rc;
    }
    if ((rc = sync_calendars(e, wf, err)) < 0) {
        say_failure(path, err, rc, out);
        return rc;
    }
    /* Every load, also of a file without notifiers: one removed from the
     * file is deleted. */
    rc = sked__engine_notifiers_sync(e, wf->app, wf->notifiers, wf->n_notifiers,
                                     NULL, err);
    if (rc < 0) {
        say_failure(path, err, rc, out);
        return rc;
    }
    rc = sked__engine_sync_app(e, wf->app, wf->schedules, wf->n_schedules,
                               &out->applied, err);
    /* The store's errors name "schedules[i].field", i indexing the
     * file's schedules in order: say where schedule i stands in it. */
    if (rc < 0 && !sked__workflow_file_locate(path, wf, err, out->error,
                                              sizeof out->error))
        say_failure(path, err, rc, out);
    return rc;
}

/* take_as_code, every change the file makes recorded as its app's code's
 * (the audit trail's actor "code:APP"). */
static int take(sked_engine *e, const char *path, const sked_wf_file *wf,
                sked_workflows_loaded *out, sked_error *err)
{
    char saved[SKED__ACTOR_MAX + 1];
    int rc;

    sked__engine_actor_code(wf->app, saved);
    rc = take_as_code(e, path, wf, out, err);
    (void) sked__actor_set(saved);
    return rc;
}

int sked_engine_load_workflows(sked_engine *e, const char *path,
                               sked_workflows_loaded *out, sked_error *err)
{
    sked_wf_file wf = {0};
    sked_wf_error we;
    int rc;

    if (!e || !path || !out)
        return sked__error_set(err, SKED_EINVAL, NULL, -1,
                               "an engine, a path and an output");
    memset(out, 0, sizeof *out);
    if ((rc = sked__workflow_file_load(path, e->tzdb, &wf, &we)) < 0) {
        sked__workflow_file_error_format(&we, path, out->error,
                                         sizeof out->error);
        rc = rc == SKED_ESYNTAX ? SKED_EINVAL : rc;
        return sked__error_set(err, rc, NULL, -1, "%s", out->error);
    }
    (void) snprintf(out->app, sizeof out->app, "%s", wf.app);
    out->workflows = wf.n_workflows;
    out->schedules = wf.n_schedules;
    rc = take(e, path, &wf, out, err);
    sked__workflow_file_done(&wf);
    return rc;
}
