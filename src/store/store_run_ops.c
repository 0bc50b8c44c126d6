/* SPDX-License-Identifier: MIT */
/* The executor's group commit (store_run.h, sked__store_run_ops): many
 * workers' changes to their runs in one transaction, each fenced.
 *
 * The plan: read (PostgreSQL: lock, in id order) the runs the ops name,
 * once; decide every fence in C by walking the ops in order as if each
 * applied at once (a WAIT or FINISH hands the run back, so the ops after
 * it fail their fence); then fold the ops that pass into the rows they
 * leave: one row per step attempt (a BEGIN and END of the same attempt
 * become one insert) and one row per run (a mark, the failure path and a
 * finish of the same run become one update). Each kind of row is then one
 * set-based write for the whole batch (PostgreSQL: one round trip each),
 * which gives the same rows as the ops one by one, since ops on one run
 * commute except through the fence. Last, the finished runs' schedules
 * count their consecutive failures (in op order, so a batch pauses a
 * schedule exactly when the ops one by one would) and the events of the
 * ops that applied are written, all before the one commit. */
#include "base/alloc.h"
#include "store/store_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/error.h"
#include "base/json_text.h"
#include "store/store_int.h"
#include "store/store_ops.h"

#define OPS_MAX SKED_RUN_OPS_MAX

struct ops_arg {
    const sked_run_op *ops;
    size_t n;
    int *result;      /* n, ours until success */
    const char **ids; /* the distinct run ids, sorted */
    size_t nids;
    size_t *run_of;     /* n: the index of each op's run in ids */
    sked__fence *fence; /* nids, as read by this attempt */
    sked__ev_list ev;
    sked_time now;
    int tries; /* of the transaction: after the first, no step is fresh */
};

static void fences_clear(sked__fence *f, size_t n)
{
    for (size_t i = 0; f && i < n; i++) {
        free(f[i].executor);
        free(f[i].schedule);
        free(f[i].tid);
        memset(&f[i], 0, sizeof f[i]);
    }
}

/* The time op O happened: its own, or now. */
static sked_time op_at(const struct ops_arg *a, const sked_run_op *o)
{
    return o->at != SKED_TIME_NONE ? o->at : a->now;
}

/* ---- fences ------------------------------------------------------------- */

/* Decide each op's fence in order from the runs as read; an op that
 * passes and hands its run back (WAIT, FINISH) changes what the ops
 * after it see. */
static void fence_walk(struct ops_arg *a)
{
    for (size_t i = 0; i < a->n; i++) {
        const sked_run_op *o = &a->ops[i];
        sked__fence *f = &a->fence[a->run_of[i]];
        bool ok = f->found && f->status == SKED_RUN_RUNNING && f->executor &&
                  strcmp(f->executor, o->executor) == 0;

        a->result[i] = ok ? 0 : SKED_ECONFLICT;
        if (ok && o->kind == SKED_RUN_OP_WAIT)
            f->status = SKED_RUN_WAITING;
        else if (ok && o->kind == SKED_RUN_OP_FINISH)
            f->status = o->status;
    }
}

/* ---- step attempts ------------------------------------------------------ */

static bool is_step_op(const sked_run_op *o)
{
    return o->kind == SKED_RUN_OP_STEP_BEGIN || o->kind == SKED_RUN_OP_STEP_END;
}

/* A step op and its place in the batch, for sorting by attempt. */
typedef struct step_ref {
    const sked_run_op *op; /* borrowed */
    size_t i;
} step_ref;

/* Compare step ops by (run, step, compensation, attempt), then by their
 * order in the batch. */
static int cmp_step_key(const void *x, const void *y)
{
    const step_ref *r = x, *t = y;
    const sked_run_op *p = r->op, *q = t->op;
    int c = strcmp(p->run_id, q->run_id);

    if (c == 0)
        c = strcmp(p->step.step, q->step.step);
    if (c == 0)
        c = (int) p->step.compensation - (int) q->step.compensation;
    if (c == 0)
        c = (p->step.attempt > q->step.attempt) -
            (p->step.attempt < q->step.attempt);
    if (c == 0)
        c = (r->i > t->i) - (r->i < t->i);
    return c;
}

static bool same_attempt(const sked_run_op *p, const sked_run_op *q)
{
    return strcmp(p->run_id, q->run_id) == 0 &&
           strcmp(p->step.step, q->step.step) == 0 &&
           p->step.compensation == q->step.compensation &&
           p->step.attempt == q->step.attempt;
}

/* Fold the ops G[0..n) of one attempt (in batch order) into *rec: the
 * last op's record, started when the first said (or when it happened). */
static void fold_attempt(const struct ops_arg *a, const step_ref *g, size_t n,
                         sked_step_record *rec)
{
    const sked_run_op *last = g[n - 1].op;

    *rec = last->step;
    if (last->kind == SKED_RUN_OP_STEP_BEGIN)
        rec->status = SKED_STEP_RUNNING;
    for (size_t k = 0; rec->started_at == SKED_TIME_NONE && k < n; k++)
        rec->started_at = g[k].op->step.started_at;
    if (rec->started_at == SKED_TIME_NONE)
        rec->started_at = op_at(a, g[0].op);
    if (rec->status == SKED_STEP_RUNNING)
        rec->finished_at = SKED_TIME_NONE;
    else if (rec->finished_at == SKED_TIME_NONE)
        rec->finished_at = op_at(a, last);
}

/* Tell whether the ops G[0..n) of one attempt hold its begin. */
static bool begun(const step_ref *g, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (g[k].op->kind == SKED_RUN_OP_STEP_BEGIN)
            return true;
    return false;
}

/* Write the step attempts the applied ops leave, one row each. */
static int write_steps(sked_store *st, sked__tx *tx, struct ops_arg *a,
                       sked_error *err)
{
    step_ref *refs = sked__malloc(a->n * sizeof *refs);
    sked_step_record *recs = sked__malloc(a->n * sizeof *recs);
    sked__step_write *w = sked__malloc(a->n * sizeof *w);
    size_t n = 0, nw = 0;
    int rc = 0;

    if (!refs || !recs || !w)
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    for (size_t i = 0; rc == 0 && i < a->n; i++)
        if (a->result[i] == 0 && is_step_op(&a->ops[i]))
            refs[n++] = (step_ref){&a->ops[i], i};
    if (rc == 0 && n > 1)
        qsort(refs, n, sizeof *refs, cmp_step_key);
    for (size_t g = 0; rc == 0 && g < n;) {
        size_t e = g + 1;
        while (e < n && same_attempt(refs[g].op, refs[e].op))
            e++;
        fold_attempt(a, &refs[g], e - g, &recs[nw]);
        w[nw] = (sked__step_write){refs[g].op->run_id, &recs[nw],
                                   a->tries == 1 && begun(&refs[g], e - g)};
        nw++;
        g = e;
    }
    if (rc == 0 && nw > 0)
        rc = st->ops->steps_write(tx, w, nw, err);
    free(refs);
    free(recs);
    free(w);
    return rc;
}

/* ---- runs --------------------------------------------------------------- */

/* Fold op O (applied) into W, the row its run is left in. */
static void fold_run(const struct ops_arg *a, const sked_run_op *o,
                     sked__run_write *w)
{
    switch (o->kind) {
    case SKED_RUN_OP_TIMEOUT_MARK:
        w->timeout_exceeded_at = op_at(a, o);
        break;
    case SKED_RUN_OP_FAILING:
        w->outcome = (int) o->status;
        w->error = o->error;
        w->error_code = o->error_code;
        break;
    case SKED_RUN_OP_WAIT:
        w->status = SKED_RUN_WAITING;
        w->not_before =
            o->not_before != SKED_TIME_NONE ? o->not_before : a->now;
        break;
    case SKED_RUN_OP_FINISH:
        w->status = (int) o->status;
        w->output = o->output;
        if (o->error)
            w->error = o->error;
        if (o->error_code)
            w->error_code = o->error_code;
        w->finished_at = op_at(a, o);
        break;
    default:
        break;
    }
}

/* Write the runs the applied ops leave, one row each. */
static int write_runs(sked_store *st, sked__tx *tx, struct ops_arg *a,
                      sked_error *err)
{
    sked__run_write *w = sked__malloc(a->nids * sizeof *w);
    bool *used = sked__calloc(a->nids, sizeof *used);
    size_t k = 0;
    int rc = 0;

    if (!w || !used) {
        free(w);
        free(used);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    for (size_t r = 0; r < a->nids; r++)
        w[r] = (sked__run_write){.id = a->ids[r],
                                 .tid = a->fence[r].tid,
                                 .status = -1,
                                 .outcome = -1,
                                 .not_before = SKED_TIME_NONE,
                                 .finished_at = SKED_TIME_NONE,
                                 .timeout_exceeded_at = SKED_TIME_NONE};
    for (size_t i = 0; i < a->n; i++) {
        if (a->result[i] != 0 || is_step_op(&a->ops[i]))
            continue;
        fold_run(a, &a->ops[i], &w[a->run_of[i]]);
        used[a->run_of[i]] = true;
    }
    for (size_t r = 0; r < a->nids; r++)
        if (used[r])
            w[k++] = w[r];
    if (k > 0)
        rc = st->ops->runs_write(tx, w, k, a->now, err);
    free(w);
    free(used);
    return rc;
}

/* ---- consecutive failures ----------------------------------------------- */

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *) x, *(const char *const *) y);
}

static int cmp_failures(const void *x, const void *y)
{
    return strcmp(((const sked__failures *) x)->name,
                  ((const sked__failures *) y)->name);
}

/* The schedule of op I when it finishes a run of one as completed or
 * failed (the ones that count), else NULL. */
static const char *counted_schedule(const struct ops_arg *a, size_t i)
{
    const sked_run_op *o = &a->ops[i];

    if (a->result[i] != 0 || o->kind != SKED_RUN_OP_FINISH ||
        (o->status != SKED_RUN_COMPLETED && o->status != SKED_RUN_FAILED))
        return NULL;
    return a->fence[a->run_of[i]].schedule;
}

/* Pause schedule NAME after COUNT consecutive failed runs (SPEC 3.5's
 * pause, as sked__store_schedule_pause writes it) at NOW, with its event
 * into EV. */
static int pause_failing(sked_store *st, sked__tx *tx, sked__ev_list *ev,
                         sked_time now, const char *name, int32_t count,
                         sked_error *err)
{
    char reason[80];
    sked_schedule s;
    json_t *o;
    char *p;
    int rc = st->ops->schedule_get(tx, name, &s, err);

    if (rc != 0)
        return rc;
    (void) snprintf(reason, sizeof reason,
                    "paused after %d consecutive failed runs", (int) count);
    free(s.last_error);
    s.last_error = sked__strdup(reason);
    s.status = SKED_SCHEDULE_PAUSED;
    s.next_fire_at = SKED_TIME_NONE;
    s.updated_at = now;
    rc = s.last_error ? st->ops->schedule_update(tx, &s, err)
                      : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    sked_schedule_done(&s);
    if (rc != 0)
        return rc;
    o = json_pack("{s:s,s:s}", "name", name, "reason", reason);
    p = o ? sked__json_text(o, NULL) : NULL;
    json_decref(o);
    if (!p)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    return sked__ev_add(ev, "schedule.paused", name, p, now, err);
}

/* Walk the counted finishes in op order from the stored counts F (M
 * schedules, sorted by name): F[j].count becomes the count after the
 * batch, PAUSE_AT[j] the count at which the schedule pauses (0: it does
 * not). */
static void count_walk(const struct ops_arg *a, sked__failures *f, size_t m,
                       int32_t *pause_at)
{
    for (size_t i = 0; i < a->n; i++) {
        const char *s = counted_schedule(a, i);
        sked__failures key = {.name = s}, *g;
        if (!s || !(g = bsearch(&key, f, m, sizeof *f, cmp_failures)) ||
            !g->found)
            continue;
        if (a->ops[i].status == SKED_RUN_COMPLETED) {
            g->count = 0;
            continue;
        }
        g->count = g->count < INT32_MAX ? g->count + 1 : g->count;
        if (!pause_at[g - f] && g->status == SKED_SCHEDULE_ACTIVE &&
            g->pause_after > 0 && g->count >= g->pause_after)
            pause_at[g - f] = g->count;
    }
}

/* The distinct schedules of the counted finishes, sorted, into *out. */
static int counted_names(const struct ops_arg *a, sked__failures **out,
                         size_t *m, sked_error *err)
{
    const char **names = sked__malloc(a->n * sizeof *names);
    sked__failures *f;
    size_t k = 0, d = 0;

    if (!names)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    for (size_t i = 0; i < a->n; i++)
        if ((names[k] = counted_schedule(a, i)) != NULL)
            k++;
    if (k > 1)
        qsort(names, k, sizeof *names, cmp_str);
    f = sked__calloc(k ? k : 1, sizeof *f);
    for (size_t i = 0; f && i < k; i++)
        if (d == 0 || strcmp(f[d - 1].name, names[i]) != 0)
            f[d++].name = names[i];
    free(names);
    if (!f)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    *out = f;
    *m = d;
    return 0;
}

/* Count the consecutive failed runs of the schedules whose runs the
 * batch finished, and pause those that reach pause_after_failures. */
static int count_failures(sked_store *st, sked__tx *tx, struct ops_arg *a,
                          sked_error *err)
{
    sked__failures *f = NULL, *changed = NULL;
    int32_t *stored = NULL, *pause_at = NULL;
    size_t m = 0, k = 0;
    int rc = counted_names(a, &f, &m, err);

    if (rc != 0 || m == 0) {
        free(f);
        return rc;
    }
    stored = sked__malloc(m * sizeof *stored);
    pause_at = sked__calloc(m, sizeof *pause_at);
    changed = sked__malloc(m * sizeof *changed);
    if (!stored || !pause_at || !changed)
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (rc == 0)
        rc = st->ops->schedule_failures(tx, f, m, err);
    if (rc == 0) {
        for (size_t j = 0; j < m; j++)
            stored[j] = f[j].count;
        count_walk(a, f, m, pause_at);
        for (size_t j = 0; j < m; j++)
            if (f[j].found && f[j].count != stored[j])
                changed[k++] = f[j];
        if (k > 0)
            rc = st->ops->schedule_failures_set(tx, changed, k, err);
    }
    for (size_t j = 0; rc == 0 && j < m; j++)
        if (pause_at[j] > 0)
            rc = pause_failing(st, tx, &a->ev, a->now, f[j].name, pause_at[j],
                               err);
    free(f);
    free(stored);
    free(pause_at);
    free(changed);
    return rc;
}

int sked__store_count_end(sked_store *st, sked__tx *tx, const char *schedule,
                          sked_run_status status, sked_time now,
                          sked__ev_list *ev, bool *paused, sked_error *err)
{
    sked__failures f = {.name = schedule};
    int32_t stored;
    int rc;

    *paused = false;
    if (!schedule ||
        (status != SKED_RUN_COMPLETED && status != SKED_RUN_FAILED))
        return 0;
    rc = st->ops->schedule_failures(tx, &f, 1, err);
    if (rc != 0 || !f.found)
        return rc;
    stored = f.count;
    if (status == SKED_RUN_COMPLETED)
        f.count = 0;
    else if (f.count < INT32_MAX)
        f.count++;
    if (f.count != stored)
        rc = st->ops->schedule_failures_set(tx, &f, 1, err);
    if (rc != 0 || status != SKED_RUN_FAILED ||
        f.status != SKED_SCHEDULE_ACTIVE || f.pause_after <= 0 ||
        f.count < f.pause_after)
        return rc;
    rc = pause_failing(st, tx, ev, now, schedule, f.count, err);
    *paused = rc == 0;
    return rc;
}

/* ---- the transaction ---------------------------------------------------- */

/* The events of the ops that applied, in op order. */
static int op_events(struct ops_arg *a, sked_error *err)
{
    int rc = 0;

    for (size_t i = 0; rc == 0 && i < a->n; i++) {
        const sked_run_op *o = &a->ops[i];
        for (size_t e = 0; rc == 0 && a->result[i] == 0 && e < o->nevents;
             e++) {
            const sked_run_op_event *v = &o->events[e];
            char *p = sked__strdup(v->payload ? v->payload : "{}");
            if (!p)
                return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
            rc = sked__ev_add(&a->ev, v->type,
                              v->subject ? v->subject : o->run_id, p,
                              op_at(a, o), err);
        }
    }
    return rc;
}

static int ops_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct ops_arg *a = arg;
    int rc;

    sked__ev_reset(&a->ev); /* from an attempt that failed */
    fences_clear(a->fence, a->nids);
    a->tries++;
    a->now = sked__store_now(st);
    rc = st->ops->runs_fence(tx, a->ids, a->nids, a->fence, err);
    if (rc != 0)
        return rc;
    fence_walk(a);
    rc = write_steps(st, tx, a, err);
    if (rc == 0)
        rc = write_runs(st, tx, a, err);
    if (rc == 0)
        rc = op_events(a, err);
    if (rc == 0)
        rc = count_failures(st, tx, a, err);
    if (rc == 0)
        rc = sked__ev_flush(st, tx, &a->ev, err);
    return rc;
}

/* Check op O, the Ith, before anything is written. The events' payloads
 * are the executor's own JSON and are not parsed again here. */
static int op_check(const sked_run_op *o, size_t i, sked_error *err)
{
    bool step = is_step_op(o);

    if ((int) o->kind < 0 || o->kind > SKED_RUN_OP_FINISH)
        return sked__error_set(err, SKED_EINVAL, "kind", (long) i,
                               "op %zu: unknown kind", i);
    if (!o->run_id || !o->run_id[0] || !o->executor || !o->executor[0])
        return sked__error_set(err, SKED_EINVAL, "run_id", (long) i,
                               "op %zu: needs a run id and an executor", i);
    if (step && (!o->step.step || !o->step.step[0] || o->step.attempt < 1))
        return sked__error_set(err, SKED_EINVAL, "step", (long) i,
                               "op %zu: needs a step name and an attempt", i);
    if (o->kind == SKED_RUN_OP_FAILING && o->status != SKED_RUN_FAILED &&
        o->status != SKED_RUN_CANCELLED)
        return sked__error_set(err, SKED_EINVAL, "status", (long) i,
                               "op %zu: the failure path ends failed or "
                               "cancelled",
                               i);
    if (o->kind == SKED_RUN_OP_FINISH &&
        (o->status < SKED_RUN_COMPLETED || o->status > SKED_RUN_CANCELLED))
        return sked__error_set(err, SKED_EINVAL, "status", (long) i,
                               "op %zu: a run finishes completed, failed or "
                               "cancelled",
                               i);
    if (o->nevents > SKED_RUN_OP_EVENTS_MAX)
        return sked__error_set(err, SKED_EINVAL, "events", (long) i,
                               "op %zu: at most %d events", i,
                               SKED_RUN_OP_EVENTS_MAX);
    for (size_t e = 0; e < o->nevents; e++)
        if (!o->events[e].type || !o->events[e].type[0])
            return sked__error_set(err, SKED_EINVAL, "events", (long) i,
                                   "op %zu: an event needs a type", i);
    return 0;
}

/* An op's run id and its place, for finding the distinct runs. */
typedef struct id_ref {
    const char *id;
    size_t i;
} id_ref;

static int cmp_id_ref(const void *x, const void *y)
{
    return strcmp(((const id_ref *) x)->id, ((const id_ref *) y)->id);
}

/* Find the distinct runs of the ops (sorted) and each op's run. */
static int ops_prepare(struct ops_arg *a, sked_error *err)
{
    id_ref *refs = sked__malloc(a->n * sizeof *refs);

    a->ids = sked__malloc(a->n * sizeof *a->ids);
    a->run_of = sked__malloc(a->n * sizeof *a->run_of);
    a->fence = sked__calloc(a->n, sizeof *a->fence);
    if (!refs || !a->ids || !a->run_of || !a->fence) {
        free(refs);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    for (size_t i = 0; i < a->n; i++)
        refs[i] = (id_ref){a->ops[i].run_id, i};
    qsort(refs, a->n, sizeof *refs, cmp_id_ref);
    for (size_t i = 0; i < a->n; i++) {
        if (a->nids == 0 || strcmp(a->ids[a->nids - 1], refs[i].id) != 0)
            a->ids[a->nids++] = refs[i].id;
        a->run_of[refs[i].i] = a->nids - 1;
    }
    free(refs);
    return 0;
}

int sked__store_run_ops(sked_store *st, const sked_run_op *ops, size_t n,
                        int *result, sked_event **out_events,
                        size_t *out_nevents, sked_error *err)
{
    struct ops_arg a = {.ops = ops, .n = n};
    int rc = 0;

    if (n == 0)
        return 0;
    if (!ops || !result || n > OPS_MAX)
        return sked__error_set(err, SKED_EINVAL, "ops", -1,
                               "a batch holds 1 to %d ops", OPS_MAX);
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = op_check(&ops[i], i, err);
    if (rc == 0 && !(a.result = sked__malloc(n * sizeof *a.result)))
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (rc == 0)
        rc = ops_prepare(&a, err);
    if (rc == 0)
        rc = sked__store_run_tx(st, SKED__TX_WRITE, ops_tx, &a, err);
    if (rc == 0) {
        memcpy(result, a.result, n * sizeof *result);
        sked__ev_give(&a.ev, out_events, out_nevents);
    } else {
        sked__ev_reset(&a.ev);
    }
    fences_clear(a.fence, a.nids);
    free(a.fence);
    free(a.run_of);
    free(a.ids);
    free(a.result);
    return rc;
}
