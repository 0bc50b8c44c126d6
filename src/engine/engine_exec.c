/* SPDX-License-Identifier: MIT */
/* The engine's execution side (SPEC 4): registering workflows, the
 * group-commit journal and the worker pool, and the operations on runs
 * (start, cancel; engine_runs.c reads them).
 *
 * Choices callers see:
 * - At start, unless sked_engine_sync was called, the schedules declared
 *   by registered workflows are synced (SPEC 3.5) as the engine's app —
 *   only when at least one workflow is registered, and only within that
 *   app, so an engine never deletes another program's schedules.
 * - A run goes to its schedule's queue, else to its workflow's (as the
 *   latest registered version defines it, whichever server registered
 *   it), else to "default": the store resolves it as it inserts.
 * - A cancel acts at once on a run executing in this engine; other
 *   engines see it at their next heartbeat (a third of the lease). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "engine/engine_int.h"
#include "model/schedule.h"
#include "store/store_run.h"

/* ---- workflows -------------------------------------------------------- */

/* Record every registered workflow's version in the store. */
static int record_versions(sked_engine *e, sked_error *err)
{
    char **names, **versions, **defs;
    size_t n;
    int rc = sked__registry_list(e->registry, &names, &versions, &defs, &n);
    if (rc != 0)
        return sked__error_set(err, rc, NULL, -1, NULL);
    for (size_t i = 0; i < n; i++) {
        if (rc == 0)
            rc = sked__store_workflow_register(e->store, names[i], versions[i],
                                               defs[i], err);
        if (rc == 0)
            sked__registry_set_latest(e->registry, names[i], true);
        free(names[i]);
        free(versions[i]);
        free(defs[i]);
    }
    free(names);
    free(versions);
    free(defs);
    return rc;
}

int sked_engine_register(sked_engine *e, sked_workflow *w, sked_error *err)
{
    if (!e || !w) {
        sked_workflow_free(w);
        return sked__error_set(err, SKED_EINVAL, NULL, -1, "no engine");
    }
    if (w->nsteps == 0) {
        int rc = sked__error_set(err, SKED_EINVAL, "steps", -1,
                                 "workflow \"%s\" has no steps", w->name);
        sked_workflow_free(w);
        return rc;
    }
    if (sked__workflow_seal(w) != 0 || sked__registry_put(e->registry, w) != 0)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    /* Registered after the start: record it now and let workers look. */
    if (e->journal) {
        int rc = record_versions(e, err);
        if (rc != 0)
            return rc;
        sked__workers_wake(e->workers);
    }
    return 0;
}

/* The schedules every registered workflow declared, synced as code. */
static int code_sync(sked_engine *e, sked_error *err)
{
    sked_schedule *set = NULL;
    size_t n = 0, cap = 0, nwf = 0;
    sked_claim_workflow *wf = NULL;
    int rc = sked__registry_claimables(e->registry, &wf, &nwf);

    for (size_t i = 0; rc == 0 && i < nwf; i++) {
        const sked_workflow *w =
            sked__registry_acquire(e->registry, wf[i].name, wf[i].version);
        for (size_t k = 0; w && rc == 0 && k < w->nschedules; k++) {
            if (n == cap) {
                cap = cap ? cap * 2 : 8;
                sked_schedule *g = sked__realloc(set, cap * sizeof *g);
                if (!g) {
                    rc = SKED_ENOMEM;
                    break;
                }
                set = g;
            }
            set[n++] = w->schedules[k]; /* borrowed for the apply */
        }
        sked__registry_release(e->registry, w);
    }
    if (rc == 0 && nwf > 0)
        rc = sked__store_schedule_apply(e->store, set, n, e->app, true, NULL,
                                        err);
    else if (rc != 0)
        rc = sked__error_set(err, rc, NULL, -1, NULL);
    free(set);
    sked__registry_claimables_free(wf, nwf);
    return rc;
}

/* The executor's view of E. */
static sked_exec_env exec_env(sked_engine *e)
{
    return (sked_exec_env){.store = e->store,
                           .journal = e->journal,
                           .registry = e->registry,
                           .clock = e->clock,
                           .executor = e->node_id,
                           .order = &e->order};
}

/* What executing needs before the first claim, done once: the registered
 * versions recorded (and so the latest: runs with no version, every run
 * fired or started through the API, are routed here) and the journal. */
static int exec_open(sked_engine *e, sked_error *err)
{
    if (e->journal)
        return 0;
    int rc = record_versions(e, err);
    if (rc == 0 &&
        sked__journal_open(e->store, sked__engine_deliver, e, &e->journal) != 0)
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, "no journal");
    return rc;
}

int sked__engine_exec_start(sked_engine *e, sked_error *err)
{
    int rc = 0;
    if (e->workers)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, "already started");
    if (!e->synced)
        rc = code_sync(e, err);
    if (rc == 0)
        rc = exec_open(e, err);
    if (rc != 0 || e->nworkers <= 0)
        return rc;
    sked_workers_config c = {
        .env = exec_env(e),
        .nworkers = e->nworkers,
        .lease = e->lease,
        .retention = e->retention,
        .deliver = sked__engine_deliver,
        .ctx = e,
    };
    rc = sked__workers_start(&c, &e->workers);
    return rc == 0 ? 0 : sked__error_set(err, rc, NULL, -1, "no workers");
}

void sked__engine_exec_stop(sked_engine *e)
{
    sked__workers_stop(e->workers);
    e->workers = NULL;
    sked__journal_close(e->journal);
    e->journal = NULL;
}

/* ---- runs ------------------------------------------------------------- */

int sked_engine_run_start(sked_engine *e, const char *workflow,
                          const char *input_json, const char *idempotency_key,
                          char **out_run_id, sked_error *err)
{
    return sked_engine_run_start_ex(e, workflow, input_json, idempotency_key,
                                    out_run_id, NULL, err);
}

_Static_assert(sizeof "api--key-" - 1 + SKED_NAME_MAX + SKED_RUN_KEY_MAX <=
                   SKED_RUN_ID_MAX,
               "an API run id must fit SKED_RUN_ID_MAX");

int sked_engine_run_start_ex(sked_engine *e, const char *workflow,
                             const char *input_json,
                             const char *idempotency_key, char **out_run_id,
                             bool *created, sked_error *err)
{
    char id[SKED_RUN_ID_MAX + 1];
    char ts[SKED_TIME_STRLEN];
    int rc = e ? sked__schedule_name_check(workflow, "workflow", err)
               : sked__error_set(err, SKED_EINVAL, NULL, -1, "no engine");
    if (rc == 0 && input_json)
        rc = sked__schedule_context_check(input_json, "input", err);
    if (rc == 0 && idempotency_key)
        rc = sked__run_key_check(idempotency_key, err);
    if (rc != 0)
        return rc;
    sked_time now = sked__clock_now(e->clock);
    if (idempotency_key) {
        snprintf(id, sizeof id, "api-%s-key-%s", workflow, idempotency_key);
    } else {
        sked_time_format(now, ts, sizeof ts);
        snprintf(id, sizeof id, "api-%s-%s", workflow, ts);
    }
    sked_run_new r = {.id = id,
                      .workflow = workflow,
                      .trigger = SKED_TRIGGER_API,
                      .scheduled_for = SKED_TIME_NONE,
                      .not_before = SKED_TIME_NONE,
                      .context = input_json};
    sked_run_insert_state state = SKED_RUN_INSERTED;
    rc = sked__engine_runs_create(e, &r, 1, false, &state, err);
    if (rc == 0 && created)
        *created = state == SKED_RUN_INSERTED;
    if (rc == 0 && out_run_id && !(*out_run_id = sked__strdup(id)))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    return rc;
}

int sked_engine_run_cancel(sked_engine *e, const char *id, sked_error *err)
{
    sked_event *ev = NULL;
    size_t nev = 0;
    sked_run_status st;
    if (!e || !id)
        return sked__error_set(err, SKED_EINVAL, "id", -1, "is required");
    int rc = sked__store_run_cancel(e->store, id, sked__clock_now(e->clock),
                                    &st, &ev, &nev, err);
    if (rc == 0 && nev > 0)
        sked__engine_deliver(e, ev, nev);
    sked__events_free(ev, nev);
    if (rc == 0) {
        sked__workers_cancel(e->workers, id);
        sked__workers_wake(e->workers); /* a waiting run: its failure path */
    }
    return rc;
}

int sked__engine_define(sked_engine *e, sked_workflow **list, size_t n,
                        const sked_queue_def *queues, size_t nq,
                        sked_error *err)
{
    const char **names = sked__calloc(n ? n : 1, sizeof *names);
    int rc = names ? 0 : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);

    if (rc == 0 && nq > 0)
        rc = sked__store_queues_put(e->store, queues, nq, err);
    for (size_t i = 0; rc == 0 && i < nq; i++)
        if (sked__registry_set_queue_cap(e->registry, queues[i].name,
                                         queues[i].worker_concurrency) != 0)
            rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    for (size_t i = 0; i < n; i++) {
        if (rc != 0) {
            sked_workflow_free(list[i]);
            continue;
        }
        names[i] = list[i]->name; /* valid until the registry drops it */
        rc = sked__workflow_seal(list[i]) == 0 &&
                     sked__registry_put(e->registry, list[i]) == 0
                 ? 0
                 : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    if (rc == 0)
        sked__registry_keep(e->registry, names, n);
    free(names);
    if (rc == 0 && e->journal) {
        rc = record_versions(e, err);
        sked__workers_wake(e->workers);
    }
    return rc;
}

int sked__engine_work(sked_engine *e, size_t max, size_t *done, sked_error *err)
{
    sked_run *runs = NULL;
    sked_cancel cancel;
    size_t n = 0;

    *done = 0;
    int rc = exec_open(e, err);
    if (rc == 0)
        rc = sked__claim(&(sked_exec_env){.store = e->store,
                                          .registry = e->registry,
                                          .clock = e->clock,
                                          .executor = e->node_id,
                                          .order = &e->order},
                         e->lease > 0 ? e->lease : SKED_LEASE_DEFAULT, NULL,
                         NULL, 0, max, sked__engine_deliver, e, &runs, &n, err);
    sked_exec_env env = exec_env(e);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (sked__cancel_init(&cancel) != 0) {
            rc = sked__error_set(err, SKED_EIO, NULL, -1, "no eventfd");
            break;
        }
        sked__execute(&env, &runs[i], &cancel);
        sked__cancel_close(&cancel);
    }
    if (e->journal)
        sked__journal_flush(e->journal);
    sked__runs_free(runs, n);
    if (rc == 0)
        *done = n;
    return rc;
}
