/* SPDX-License-Identifier: MIT */
/* The engine's execution side (SPEC 4): registering workflows, the
 * group-commit journal and the worker pool, and the operations on runs
 * (start, cancel, get, list).
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
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/json_text.h"
#include "engine/engine_int.h"
#include "model/run_json.h"
#include "model/schedule.h"
#include "model/schedule_json.h"
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

/* Dump O (taken) into *out. */
static int dump(json_t *o, char **out, sked_error *err)
{
    *out = o ? sked__json_text(o, NULL) : NULL;
    json_decref(o);
    return *out ? 0 : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
}

int sked_engine_run_get(sked_engine *e, const char *id, char **out_json,
                        sked_error *err)
{
    sked_run r;
    sked_step_record *steps = NULL;
    size_t n = 0;
    if (!e || !id)
        return sked__error_set(err, SKED_EINVAL, "id", -1, "is required");
    int rc = sked__store_run_get(e->store, id, &r, &steps, &n, err);
    if (rc != 0)
        return rc;
    static const sked_step_record none; /* "steps": [] when it has none */
    json_t *o = sked__run_to_json(&r, steps ? steps : &none, n);
    sked__run_done(&r);
    sked__step_records_free(steps, n);
    return dump(o, out_json, err);
}

/* Read Q into F: the status by name, the cursor "CREATED_US:ID". */
static int run_filter(const sked_run_query *q, sked_run_filter *f,
                      sked_error *err)
{
    *f = (sked_run_filter){.status = -1, .before_created = SKED_TIME_NONE};
    if (!q)
        return 0;
    if (q->status) {
        for (int s = SKED_RUN_PENDING; s <= SKED_RUN_CANCELLED; s++)
            if (strcmp(q->status, sked__run_status_name((sked_run_status) s)) ==
                0)
                f->status = s;
        if (f->status < 0)
            return sked__error_set(err, SKED_EINVAL, "status", -1,
                                   "status: \"%.40s\" is not a run status",
                                   q->status);
    }
    if (q->limit > SKED_STORE_LIST_MAX)
        return sked__error_set(err, SKED_EINVAL, "limit", -1,
                               "limit: must be 1 to %d", SKED_STORE_LIST_MAX);
    f->schedule = q->schedule;
    f->workflow = q->workflow;
    f->limit = q->limit;
    if (q->cursor) {
        char *end;
        long long t = strtoll(q->cursor, &end, 10);
        if (end == q->cursor || *end != ':' || !end[1])
            return sked__error_set(err, SKED_EINVAL, "cursor", -1,
                                   "cursor: not one this server gave");
        f->before_created = (sked_time) t;
        f->before_id = end + 1;
    }
    return 0;
}

int sked_engine_run_list(sked_engine *e, const sked_run_query *q,
                         char **out_json, sked_error *err)
{
    sked_run_filter f;
    sked_run *runs = NULL;
    size_t n = 0;
    bool more = false;
    int rc = e ? run_filter(q, &f, err)
               : sked__error_set(err, SKED_EINVAL, NULL, -1, "no engine");
    if (rc == 0)
        rc = sked__store_run_list(e->store, &f, &runs, &n, &more, err);
    if (rc != 0)
        return rc;
    json_t *o = json_object(), *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, sked__run_to_json(&runs[i], NULL, 0));
    json_object_set_new(o, "runs", a);
    if (more && n > 0) {
        char *c = NULL;
        size_t len = strlen(runs[n - 1].id) + 32;
        if ((c = sked__malloc(len)))
            snprintf(c, len, "%lld:%s", (long long) runs[n - 1].created_at,
                     runs[n - 1].id);
        json_object_set_new(o, "next_cursor", c ? json_string(c) : NULL);
        free(c);
    } else {
        json_object_set_new(o, "next_cursor", json_null());
    }
    sked__runs_free(runs, n);
    return dump(o, out_json, err);
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

int sked_engine_workflow_list(sked_engine *e, char **out_json, sked_error *err)
{
    char *text = NULL;
    int rc = e ? sked__store_workflows_list(e->store, &text, err)
               : sked__error_set(err, SKED_EINVAL, NULL, -1, "no engine");
    if (rc != 0)
        return rc;
    json_t *list = json_loads(text, 0, NULL), *w;
    size_t i;
    free(text);
    json_array_foreach(list, i, w)
    {
        json_t *at = json_object_get(w, "registered_at");
        json_object_set_new(w, "registered_at",
                            sked__json_instant(json_is_integer(at)
                                                   ? json_integer_value(at)
                                                   : SKED_TIME_NONE));
    }
    return dump(json_pack("{s:o}", "workflows", list ? list : json_array()),
                out_json, err);
}
