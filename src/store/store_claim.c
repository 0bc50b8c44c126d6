/* SPDX-License-Identifier: MIT */
/* Claiming runs and their leases (store_run.h, SPEC 4.2).
 *
 * The claim, the plan: count the load of every queue with a limit (on
 * PostgreSQL after locking those queue rows in name order, so two servers
 * cannot both take a queue's last free slot), work out how many runs
 * each queue may still start (its limits and the executor's caps), and
 * leave the full queues out of the walk; then read the candidates in
 * claim order, the ready runs and the runs whose lease expired (on
 * PostgreSQL both FOR UPDATE SKIP LOCKED, which never waits, so the lock
 * order queues-then-runs cannot deadlock), merge them, admit them one by
 * one against the room left, and take the admitted ones with one write.
 * The version routing and the serial keys are decided by the candidates'
 * query itself (store_ops.h, sked__claim_query). A run to recover already
 * counts as running in its queue, so only the caps and max apply to it.
 * When no queue has a limit, no cap applies and no lease expired, there
 * is nothing to admit one by one: a back-end that can (PostgreSQL) reads
 * and takes the first ready runs in one statement (runs_take_ready).
 *
 * Every row read is checked first: an unreadable one is set aside
 * (store_aside.c), never a fault of the whole claim.
 *
 * The full queues are counted before the walk, not after: a queue with a
 * long backlog and no room would otherwise fill every window of
 * candidates and starve the queues behind it. */
#include "base/alloc.h"
#include "store/store_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/json_obj.h"
#include "store/store_health.h"
#include "store/store_int.h"
#include "store/store_ops.h"

/* Candidates read per run asked for when some queue has a limit or a
 * cap: the walk passes over the runs of queues that fill up on the way. */
#define CANDIDATES_PER_RUN 4
#define UNLIMITED          INT64_MAX

static void queue_loads_free(sked__queue_load *list, size_t n)
{
    for (size_t i = 0; list && i < n; i++)
        free(list[i].name);
    free(list);
}

/* ---- the claim: room per queue ------------------------------------------ */

/* What one queue may still take in this claim; UNLIMITED when no limit. */
typedef struct room {
    const char *name; /* borrowed: the loads or the request's caps */
    int64_t conc;     /* runs it may still have running */
    int64_t rate;     /* runs it may still start in this period */
    int64_t cap;      /* runs this executor may still take */
} room;

static int cmp_room(const void *x, const void *y)
{
    return strcmp(((const room *) x)->name, ((const room *) y)->name);
}

static room *room_find(room *rooms, size_t n, const char *name)
{
    room key = {.name = name};

    return n ? bsearch(&key, rooms, n, sizeof *rooms, cmp_room) : NULL;
}

/* Fill *out (N entries, sorted by name) from the LOADS and the request's
 * caps. */
static int rooms_build(const sked_claim_req *req, const sked__queue_load *loads,
                       size_t nloads, room **out, size_t *n, sked_error *err)
{
    room *r = sked__malloc((nloads + req->ncaps + 1) * sizeof *r);
    size_t k = 0;

    if (!r)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    for (size_t i = 0; i < nloads; i++) {
        const sked__queue_load *l = &loads[i];
        bool rated = l->rate_limit > 0 && l->rate_period > 0;
        r[k++] = (room){.name = l->name,
                        .conc = l->concurrency > 0 ? l->concurrency - l->running
                                                   : UNLIMITED,
                        .rate = rated ? l->rate_limit - l->started : UNLIMITED,
                        .cap = UNLIMITED};
    }
    qsort(r, k, sizeof *r, cmp_room); /* loads come sorted; caps join */
    for (size_t i = 0; i < req->ncaps; i++) {
        room *hit = room_find(r, k, req->caps[i].queue);
        if (hit) {
            hit->cap = req->caps[i].free;
            continue;
        }
        r[k++] =
            (room){req->caps[i].queue, UNLIMITED, UNLIMITED, req->caps[i].free};
        qsort(r, k, sizeof *r, cmp_room);
    }
    *out = r;
    *n = k;
    return 0;
}

/* The queues with no room to start a run: left out of the ready walk. A
 * run that started before (a retry) would not count against the rate,
 * but it waits for room all the same: the walk stays one query. */
static int rooms_full(const room *r, size_t n, const char ***out, size_t *nout,
                      sked_error *err)
{
    const char **full = sked__malloc((n ? n : 1) * sizeof *full);
    size_t k = 0;

    if (!full)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    for (size_t i = 0; i < n; i++)
        if (r[i].conc <= 0 || r[i].rate <= 0 || r[i].cap <= 0)
            full[k++] = r[i].name;
    *out = full;
    *nout = k;
    return 0;
}

/* Admit candidate C against its queue's room; false when it has none. */
static bool room_admit(room *rooms, size_t n, const sked_run *c)
{
    room *q = room_find(rooms, n, c->queue);
    bool recover = c->status == SKED_RUN_RUNNING;
    bool starts = !recover && c->started_at == SKED_TIME_NONE;

    if (!q)
        return true;
    if (q->cap <= 0 || (!recover && q->conc <= 0) || (starts && q->rate <= 0))
        return false;
    q->cap--;
    if (!recover)
        q->conc--;
    if (starts)
        q->rate--;
    return true;
}

/* ---- the claim: candidates ---------------------------------------------- */

/* Tell whether run A comes before run B in claim order. */
static bool claim_before(const sked_run *a, const sked_run *b)
{
    if (a->priority != b->priority)
        return a->priority < b->priority;
    if (a->not_before != b->not_before)
        return a->not_before < b->not_before;
    if (a->created_at != b->created_at)
        return a->created_at < b->created_at;
    return strcmp(a->id, b->id) < 0;
}

/* The candidates of one claim: the ready and the expired, each in claim
 * order, walked together. */
typedef struct cands {
    sked_run *ready, *expired; /* owned */
    size_t nready, nexpired;
    size_t i, j; /* the walk */
} cands;

static void cands_free(cands *c)
{
    sked__runs_free(c->ready, c->nready);
    sked__runs_free(c->expired, c->nexpired);
    memset(c, 0, sizeof *c);
}

/* The next candidate in claim order, or NULL. */
static sked_run *cands_next(cands *c)
{
    bool left = c->i < c->nready, right = c->j < c->nexpired;

    if (left && (!right || claim_before(&c->ready[c->i], &c->expired[c->j])))
        return &c->ready[c->i++];
    return right ? &c->expired[c->j++] : NULL;
}

/* Return the version an executor runs W's runs with no version at: its
 * latest entry's. */
static const char *latest_version(const sked_claim_req *req, const char *w)
{
    for (size_t i = 0; i < req->nworkflows; i++)
        if (req->workflows[i].latest && strcmp(req->workflows[i].name, w) == 0)
            return req->workflows[i].version;
    return NULL;
}

struct claim_arg {
    const sked_claim_req *req;
    sked_run *runs; /* owned: the result, in claim order */
    size_t n;
    sked__ev_list ev;
};

/* The query of a claim's candidates: the ready runs, the queues in FULL
 * left out (its expired flag set: the runs whose lease expired). */
static sked__claim_query claim_query(const sked_claim_req *req,
                                     const char *const *full, size_t nfull,
                                     bool limited)
{
    return (sked__claim_query){.now = req->now,
                               .workflows = req->workflows,
                               .nworkflows = req->nworkflows,
                               .full = full,
                               .nfull = nfull,
                               .limit = limited ? req->max * CANDIDATES_PER_RUN
                                                : req->max};
}

/* Read the runs whose lease expired into C (a full queue's dead runs
 * still hold its slots: none is left out). Expired means before the
 * instant the store's health allows (sked__lease_recover_before): right
 * after the database failed for this server, a lease that ran out
 * meanwhile is its owner's to renew first. */
static int cands_expired(sked_store *st, sked__tx *tx,
                         const sked_claim_req *req, cands *c, sked_error *err)
{
    sked__claim_query q = claim_query(req, NULL, 0, false);

    q.now = sked__store_recover_before(st, req->now, req->lease);
    q.expired = true;
    q.held = req->held;
    q.nheld = req->nheld;
    return st->ops->runs_candidates(tx, &q, &c->expired, &c->nexpired, err);
}

/* ---- the claim: taking ---------------------------------------------------*/

/* The runs a claim admitted, in claim order. */
typedef struct taken {
    sked_run **c; /* borrowed: the candidates */
    const char **ids, **versions;
    size_t n;
} taken;

static void taken_free(taken *t)
{
    free(t->c);
    free(t->ids);
    free(t->versions);
    memset(t, 0, sizeof *t);
}

/* Walk C in claim order and admit at most REQ->max against ROOMS. */
static int admit(const sked_claim_req *req, cands *c, room *rooms,
                 size_t nrooms, taken *t, sked_error *err)
{
    size_t cap = req->max;
    sked_run *r;

    t->c = sked__malloc(cap * sizeof *t->c);
    t->ids = sked__malloc(cap * sizeof *t->ids);
    t->versions = sked__malloc(cap * sizeof *t->versions);
    if (!t->c || !t->ids || !t->versions)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    while (t->n < cap && (r = cands_next(c)) != NULL) {
        if (!room_admit(rooms, nrooms, r))
            continue;
        t->c[t->n] = r;
        t->ids[t->n] = r->id;
        t->versions[t->n] =
            r->workflow_version ? NULL : latest_version(req, r->workflow);
        t->n++;
    }
    return 0;
}

static int cmp_run_id(const void *x, const void *y)
{
    return strcmp(((const sked_run *) x)->id, ((const sked_run *) y)->id);
}

/* Order the rows ROWS (N, any order) as T (claim order) into A->runs,
 * taking them; rows not in T are freed. Matched by a sorted index: a
 * double loop would be a million compares at a batch of 1000. */
static int place_rows(struct claim_arg *a, const taken *t, sked_run *rows,
                      size_t n, sked_error *err)
{
    sked_run **hit = sked__calloc(t->n ? t->n : 1, sizeof *hit);

    a->runs = sked__calloc(t->n ? t->n : 1, sizeof *a->runs);
    if (!a->runs || !hit) {
        free(hit);
        sked__runs_free(rows, n);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    if (n > 0)
        qsort(rows, n, sizeof *rows, cmp_run_id);
    for (size_t k = 0; k < t->n && n > 0; k++) {
        sked_run key = {.id = (char *) t->ids[k]};
        hit[k] = bsearch(&key, rows, n, sizeof *rows, cmp_run_id);
    }
    for (size_t k = 0; k < t->n; k++) {
        if (!hit[k])
            continue; /* not taken: cannot happen, the rows are locked */
        a->runs[a->n] = *hit[k];
        a->runs[a->n].recovered = t->c[k]->status == SKED_RUN_RUNNING;
        memset(hit[k], 0, sizeof *hit[k]);
        a->n++;
    }
    free(hit);
    sked__runs_free(rows, n);
    return 0;
}

/* The events of claimed run R: run.started {"workflow","queue","attempt"}
 * at its FIRST start, and run.recovered {"from"} when recovered FROM a
 * dead executor. */
static int claim_events(sked__ev_list *ev, const sked_run *r, bool first,
                        const char *from, sked_time now, sked_error *err)
{
    sked_jobj o = {0};
    int rc = 0;

    if (first) {
        sked__jobj_str(&o, "workflow", r->workflow);
        sked__jobj_str(&o, "queue", r->queue);
        sked__jobj_int(&o, "attempt", r->attempts);
        rc = sked__ev_add(ev, "run.started", r->id, sked__jobj_take(&o), now,
                          err);
    }
    if (rc == 0 && r->recovered) {
        sked__jobj_str(&o, "from", from);
        rc = sked__ev_add(ev, "run.recovered", r->id, sked__jobj_take(&o), now,
                          err);
    }
    return rc;
}

/* Close the step attempts the dead executors of the recovered runs left
 * running (SPEC 4.2: the run resumes at its first step not completed). */
static int close_recovered(sked_store *st, sked__tx *tx, const taken *t,
                           sked_time now, sked_error *err)
{
    const char **ids = sked__malloc((t->n ? t->n : 1) * sizeof *ids);
    char **errors = sked__calloc(t->n ? t->n : 1, sizeof *errors);
    size_t k = 0;
    int rc = 0;

    if (!ids || !errors)
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    for (size_t i = 0; rc == 0 && i < t->n; i++) {
        const sked_run *c = t->c[i];
        size_t size = 64 + (c->executor ? strlen(c->executor) : 0);
        if (c->status != SKED_RUN_RUNNING)
            continue;
        if (!(errors[k] = sked__malloc(size))) {
            rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
            break;
        }
        (void) snprintf(errors[k], size,
                        "lease expired: executor %s stopped renewing",
                        c->executor ? c->executor : "?");
        ids[k++] = c->id;
    }
    if (rc == 0 && k > 0)
        rc = st->ops->steps_close(
            tx,
            &(sked__steps_close){.run_ids = ids,
                                 .errors = (const char *const *) errors,
                                 .n = k,
                                 .status = SKED_STEP_FAILED,
                                 .error_code = "lease_expired",
                                 .at = now},
            err);
    for (size_t i = 0; errors && i < k; i++)
        free(errors[i]);
    free(errors);
    free(ids);
    return rc;
}

/* Take the admitted runs T, close what their dead executors left and
 * write the events; A->runs gets the rows in claim order. */
static int take(sked_store *st, sked__tx *tx, struct claim_arg *a,
                const taken *t, sked_error *err)
{
    const sked_claim_req *req = a->req;
    sked_run *rows = NULL;
    size_t nrows = 0;
    int rc;

    if (t->n == 0)
        return 0;
    rc = st->ops->runs_take(
        tx,
        &(sked__claim_set){.executor = req->executor,
                           .now = req->now,
                           .lease_until = req->now + req->lease,
                           .ids = t->ids,
                           .versions = t->versions,
                           .n = t->n},
        &rows, &nrows, err);
    if (rc == 0)
        rc = place_rows(a, t, rows, nrows, err);
    if (rc == 0)
        rc = close_recovered(st, tx, t, req->now, err);
    for (size_t i = 0, k = 0; rc == 0 && i < a->n; i++) {
        while (strcmp(t->ids[k], a->runs[i].id) != 0)
            k++; /* both in claim order; a few may be missing */
        rc = claim_events(&a->ev, &a->runs[i],
                          t->c[k]->started_at == SKED_TIME_NONE,
                          t->c[k]->executor, req->now, err);
    }
    return rc;
}

static int cmp_claim_order(const void *x, const void *y)
{
    const sked_run *a = *(sked_run *const *) x, *b = *(sked_run *const *) y;

    return claim_before(a, b) ? -1 : claim_before(b, a) ? 1 : 0;
}

/* Take the first ready runs in one step (runs_take_ready), when no queue
 * has a limit, no cap applies and no lease expired: nothing is left to
 * admit one by one. A->runs gets them in claim order. */
static int take_ready(sked_store *st, sked__tx *tx, struct claim_arg *a,
                      sked_error *err)
{
    const sked_claim_req *req = a->req;
    sked__claim_query q = claim_query(req, NULL, 0, false);
    sked_run *rows = NULL, **order = NULL;
    bool *first = NULL;
    size_t n = 0;
    int rc = st->ops->runs_take_ready(
        tx, &q,
        &(sked__claim_set){.executor = req->executor,
                           .now = req->now,
                           .lease_until = req->now + req->lease},
        &rows, &first, &n, err);

    if (rc == 0)
        rc = sked__store_set_aside(st, tx, rows, first, &n, req->now, &a->ev,
                                   err);

    if (rc == 0 && n > 0 &&
        (!(order = sked__malloc(n * sizeof *order)) ||
         !(a->runs = sked__malloc(n * sizeof *a->runs))))
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (rc == 0 && n > 0) {
        for (size_t i = 0; i < n; i++)
            order[i] = &rows[i];
        qsort(order, n, sizeof *order, cmp_claim_order);
        for (size_t i = 0; i < n; i++) {
            a->runs[i] = *order[i];
            memset(order[i], 0, sizeof *order[i]);
            a->n++;
        }
        for (size_t i = 0; rc == 0 && i < n; i++)
            rc = claim_events(&a->ev, &a->runs[i], first[order[i] - rows], NULL,
                              req->now, err);
    }
    sked__runs_free(rows, n); /* what was not moved: all on failure */
    free(order);
    free(first);
    return rc;
}

/* The claim as planned at the top of this file; the ready runs are taken
 * in one step when nothing is left to admit (take_ready). */
static int claim_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct claim_arg *a = arg;
    sked__queue_load *loads = NULL;
    size_t nloads = 0, nrooms = 0, nfull = 0;
    room *rooms = NULL;
    const char **full = NULL;
    cands c = {0};
    taken t = {0};
    int rc;

    sked__runs_free(a->runs, a->n); /* from an attempt that failed */
    a->runs = NULL;
    a->n = 0;
    sked__ev_reset(&a->ev);
    rc = st->ops->queue_loads(tx, a->req->now, &loads, &nloads, err);
    if (rc == 0)
        rc = rooms_build(a->req, loads, nloads, &rooms, &nrooms, err);
    if (rc == 0)
        rc = rooms_full(rooms, nrooms, &full, &nfull, err);
    if (rc == 0)
        rc = cands_expired(st, tx, a->req, &c, err);
    if (rc == 0)
        rc = sked__store_set_aside(st, tx, c.expired, NULL, &c.nexpired,
                                   a->req->now, &a->ev, err);
    if (rc == 0 && nrooms == 0 && c.nexpired == 0 && st->ops->runs_take_ready)
        rc = take_ready(st, tx, a, err);
    else if (rc == 0) {
        sked__claim_query q = claim_query(a->req, full, nfull, nrooms > 0);
        rc = st->ops->runs_candidates(tx, &q, &c.ready, &c.nready, err);
        if (rc == 0)
            rc = sked__store_set_aside(st, tx, c.ready, NULL, &c.nready,
                                       a->req->now, &a->ev, err);
        if (rc == 0)
            rc = admit(a->req, &c, rooms, nrooms, &t, err);
        if (rc == 0)
            rc = take(st, tx, a, &t, err);
    }
    if (rc == 0)
        rc = sked__ev_flush(st, tx, &a->ev, err);
    taken_free(&t);
    cands_free(&c);
    free(full);
    free(rooms);
    queue_loads_free(loads, nloads);
    return rc;
}

/* Check a claim request before any work. */
static int claim_check(const sked_claim_req *req, sked_error *err)
{
    if (!req || !req->executor || !req->executor[0])
        return sked__error_set(err, SKED_EINVAL, "executor", -1, "is required");
    if (req->max == 0 || req->max > SKED_STORE_BATCH_MAX)
        return sked__error_set(err, SKED_EINVAL, "max", -1,
                               "a claim takes 1 to %d runs",
                               SKED_STORE_BATCH_MAX);
    if (req->lease <= 0)
        return sked__error_set(err, SKED_EINVAL, "lease", -1,
                               "must be positive");
    for (size_t i = 0; i < req->nworkflows; i++)
        if (!req->workflows[i].name || !req->workflows[i].version)
            return sked__error_set(err, SKED_EINVAL, "workflows", (long) i,
                                   "a workflow needs a name and a version");
    for (size_t i = 0; i < req->ncaps; i++)
        if (!req->caps[i].queue)
            return sked__error_set(err, SKED_EINVAL, "caps", (long) i,
                                   "a cap needs a queue");
    return 0;
}

int sked__store_runs_claim(sked_store *st, const sked_claim_req *req,
                           sked_run **out, size_t *n, sked_event **out_events,
                           size_t *out_nevents, sked_error *err)
{
    struct claim_arg a = {.req = req};
    int rc = claim_check(req, err);

    if (rc != 0)
        return rc;
    if (req->nworkflows == 0) {
        *out = NULL;
        *n = 0;
        sked__ev_give(&a.ev, out_events, out_nevents);
        return 0;
    }
    rc = sked__store_run_tx(st, SKED__TX_WRITE, claim_tx, &a, err);
    if (rc != 0) {
        sked__runs_free(a.runs, a.n);
        sked__ev_reset(&a.ev);
        return rc;
    }
    if (a.n == 0) {
        free(a.runs);
        a.runs = NULL;
    }
    *out = a.runs;
    *n = a.n;
    sked__ev_give(&a.ev, out_events, out_nevents);
    return 0;
}

/* ---- leases ------------------------------------------------------------- */

struct renew_arg {
    const char *executor;
    const char *const *held;
    size_t nheld;
    sked_time lease_until;
    size_t renewed;
    char **ids; /* owned */
    size_t nids;
};

static void ids_free(char **ids, size_t n)
{
    for (size_t i = 0; ids && i < n; i++)
        free(ids[i]);
    free(ids);
}

static int renew_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct renew_arg *a = arg;

    ids_free(a->ids, a->nids);
    a->ids = NULL;
    a->nids = 0;
    return st->ops->runs_renew(tx, a->executor, a->held, a->nheld,
                               a->lease_until, &a->renewed, &a->ids, &a->nids,
                               err);
}

int sked__store_runs_renew(sked_store *st, const char *executor,
                           const char *const *held, size_t nheld, sked_time now,
                           sked_dur lease, size_t *renewed, char ***cancel_ids,
                           size_t *ncancel, sked_error *err)
{
    struct renew_arg a = {.executor = executor,
                          .held = held,
                          .nheld = nheld,
                          .lease_until = now + lease};
    int rc;

    if (renewed)
        *renewed = 0;
    if (cancel_ids && ncancel) {
        *cancel_ids = NULL;
        *ncancel = 0;
    }
    if (nheld == 0)
        return 0;

    if (!executor || !executor[0] || lease <= 0)
        return sked__error_set(err, SKED_EINVAL, "executor", -1,
                               "renewing needs an executor and a lease");
    rc = sked__store_run_tx(st, SKED__TX_WRITE, renew_tx, &a, err);
    if (rc != 0) {
        ids_free(a.ids, a.nids);
        return rc;
    }
    if (renewed)
        *renewed = a.renewed;
    if (cancel_ids && ncancel) {
        *cancel_ids = a.ids;
        *ncancel = a.nids;
    } else {
        ids_free(a.ids, a.nids);
    }
    return 0;
}

struct release_arg {
    const char *executor;
    sked_time now;
};

static int release_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct release_arg *a = arg;
    char why[200];

    (void) snprintf(why, sizeof why, "interrupted: executor %.150s stopped",
                    a->executor);
    return st->ops->runs_release(tx, a->executor, why, a->now, err);
}

int sked__store_runs_release(sked_store *st, const char *executor,
                             sked_time now, sked_error *err)
{
    struct release_arg a = {executor, now};

    if (!executor || !executor[0])
        return sked__error_set(err, SKED_EINVAL, "executor", -1, "is required");
    return sked__store_run_tx(st, SKED__TX_WRITE, release_tx, &a, err);
}
