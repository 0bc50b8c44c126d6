/* SPDX-License-Identifier: MIT */
/* The store's side of execution (store_run.h, SPEC 4), the shared part:
 * the words runs and steps are stored with, cancelling, and reading runs
 * back. Claiming and leases are in store_claim.c, the executor's group
 * commit in store_run_ops.c, queues and workflow versions in
 * store_queue.c.
 *
 * Cancel (SPEC 4.3): a pending run that never started is cancelled at
 * once (event run.cancelled); any other active run gets
 * cancel_requested_at, a waiting one also a not_before of now, and
 * whoever holds it (or claims it next) runs its failure path and writes
 * run.cancelled when it ends. The firing of an overlap cancel_other
 * cancels the same way (sked__store_cancel_others). */
#include "store/store_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/json_obj.h"
#include "store/store_int.h"
#include "store/store_ops.h"

#define LIST_DEFAULT 100

void sked__queue_infos_free(sked_queue_info *list, size_t n)
{
    for (size_t i = 0; list && i < n; i++)
        free(list[i].name);
    free(list);
}

/* ---- cancel ------------------------------------------------------------- */

/* The event run.cancelled of R, cancelled at once for REASON. */
static int ev_cancelled(sked__ev_list *ev, const sked_run *r,
                        const char *reason, sked_time now, sked_error *err)
{
    sked_jobj o = {0};

    sked__jobj_str(&o, "workflow", r->workflow);
    sked__jobj_str(&o, "schedule", r->schedule);
    sked__jobj_str(&o, "reason", reason);
    return sked__ev_add(ev, "run.cancelled", r->id, sked__jobj_take(&o), now,
                        err);
}

/* Cancel the active run R (read under the lock) at NOW for REASON;
 * *status gets the status it is left in. */
static int cancel_one(sked_store *st, sked__tx *tx, const sked_run *r,
                      const char *reason, sked_time now, sked__ev_list *ev,
                      sked_run_status *status, sked_error *err)
{
    int rc;

    *status = r->status;
    if (r->status != SKED_RUN_RUNNING && r->started_at == SKED_TIME_NONE) {
        /* Never started, so nothing to compensate: cancelled now. */
        rc = st->ops->run_cancel(tx, r->id, "Cancelled.", now, err);
        if (rc == 0)
            rc = ev_cancelled(ev, r, reason, now, err);
        if (rc == 0)
            *status = SKED_RUN_CANCELLED;
        return rc;
    }
    if (r->cancel_requested_at != SKED_TIME_NONE)
        return 0; /* asked already */
    return st->ops->run_cancel(tx, r->id, NULL, now, err);
}

int sked__store_cancel_others(sked_store *st, sked__tx *tx,
                              const char *schedule, const char *keep,
                              sked_time now, sked__ev_list *ev, sked_error *err)
{
    sked_run *runs = NULL;
    sked_run_status status;
    size_t n = 0;
    int rc = st->ops->runs_of_schedule(tx, schedule, &runs, &n, err);

    for (size_t i = 0; rc == 0 && i < n; i++)
        if (!keep || strcmp(runs[i].id, keep) != 0)
            rc = cancel_one(st, tx, &runs[i], "overlap", now, ev, &status, err);
    sked__runs_free(runs, n);
    return rc;
}

struct cancel_arg {
    const char *id;
    sked_time now;
    sked_run_status status;
    sked__ev_list ev;
};

/* Read run ID in TX (LOCK: locked, as store_ops.h says) into *out. */
static int run_get(sked_store *st, sked__tx *tx, const char *id, bool lock,
                   sked_run *out, sked_error *err)
{
    int rc = st->ops->run_get(tx, id, lock, out, err);

    if (rc == SKED_ENOTFOUND)
        rc = sked__error_set(err, rc, "id", -1, "no run \"%.200s\"", id);
    return rc;
}

static int cancel_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct cancel_arg *a = arg;
    sked_run r;
    int rc;

    sked__ev_reset(&a->ev);
    rc = run_get(st, tx, a->id, true, &r, err);
    if (rc != 0)
        return rc;
    if (r.status >= SKED_RUN_COMPLETED)
        rc = sked__error_set(err, SKED_ECONFLICT, "status", -1,
                             "run %.200s is already %s", a->id,
                             sked__run_status_name(r.status));
    else
        rc = cancel_one(st, tx, &r, "cancel", a->now, &a->ev, &a->status, err);
    if (rc == 0)
        rc = sked__ev_flush(st, tx, &a->ev, err);
    sked__run_done(&r);
    return rc;
}

int sked__store_run_cancel(sked_store *st, const char *id, sked_time now,
                           sked_run_status *status, sked_event **out_events,
                           size_t *out_nevents, sked_error *err)
{
    struct cancel_arg a = {.id = id, .now = now};
    int rc;

    if (!id || !id[0])
        return sked__error_set(err, SKED_EINVAL, "id", -1, "is required");
    rc = sked__store_run_tx(st, SKED__TX_WRITE, cancel_tx, &a, err);
    if (rc != 0) {
        sked__ev_reset(&a.ev);
        return rc;
    }
    if (status)
        *status = a.status;
    sked__ev_give(&a.ev, out_events, out_nevents);
    return 0;
}

/* ---- reading ------------------------------------------------------------ */

struct get_arg {
    const char *id;
    sked_run run;
    bool have;
    sked_step_record *steps; /* owned */
    size_t nsteps;
    bool want_steps;
};

static int get_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct get_arg *a = arg;
    int rc;

    if (a->have)
        sked__run_done(&a->run);
    a->have = false;
    sked__step_records_free(a->steps, a->nsteps);
    a->steps = NULL;
    a->nsteps = 0;
    rc = run_get(st, tx, a->id, false, &a->run, err);
    a->have = rc == 0;
    if (rc == 0 && a->want_steps)
        rc = st->ops->steps_list(tx, a->id, &a->steps, &a->nsteps, err);
    return rc;
}

int sked__store_run_get(sked_store *st, const char *id, sked_run *out,
                        sked_step_record **steps, size_t *nsteps,
                        sked_error *err)
{
    struct get_arg a = {.id = id, .want_steps = steps && nsteps};
    int rc;

    if (!id || !id[0] || !out)
        return sked__error_set(err, SKED_EINVAL, "id", -1, "is required");
    rc = sked__store_run_tx(st, SKED__TX_READ, get_tx, &a, err);
    if (rc != 0) {
        if (a.have)
            sked__run_done(&a.run);
        sked__step_records_free(a.steps, a.nsteps);
        return rc;
    }
    *out = a.run;
    if (a.want_steps) {
        *steps = a.steps;
        *nsteps = a.nsteps;
    }
    return 0;
}

struct list_arg {
    const sked_run_filter *f;
    size_t limit;
    sked_run *runs; /* owned */
    size_t n;
};

static int list_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct list_arg *a = arg;

    sked__runs_free(a->runs, a->n);
    a->runs = NULL;
    a->n = 0;
    return st->ops->runs_list(tx, a->f, a->limit + 1, &a->runs, &a->n, err);
}

int sked__store_run_list(sked_store *st, const sked_run_filter *f,
                         sked_run **out, size_t *n, bool *more, sked_error *err)
{
    static const sked_run_filter all = {.status = -1};
    struct list_arg a = {.f = f ? f : &all};
    int rc;

    a.limit = a.f->limit ? a.f->limit : LIST_DEFAULT;
    if (a.limit > SKED_STORE_LIST_MAX)
        return sked__error_set(err, SKED_EINVAL, "limit", -1,
                               "at most %d runs per call", SKED_STORE_LIST_MAX);
    if (a.f->status > SKED_RUN_CANCELLED || a.f->status < -1)
        return sked__error_set(err, SKED_EINVAL, "status", -1,
                               "unknown run status");
    if (a.f->before_id && a.f->before_created == SKED_TIME_NONE)
        return sked__error_set(err, SKED_EINVAL, "before_created", -1,
                               "a cursor needs the created_at of its run");
    rc = sked__store_run_tx(st, SKED__TX_READ, list_tx, &a, err);
    if (rc != 0) {
        sked__runs_free(a.runs, a.n);
        return rc;
    }
    if (more)
        *more = a.n > a.limit;
    while (a.n > a.limit)
        sked__run_done(&a.runs[--a.n]);
    if (a.n == 0) {
        free(a.runs);
        a.runs = NULL;
    }
    *out = a.runs;
    *n = a.n;
    return 0;
}
