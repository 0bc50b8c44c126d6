/* SPDX-License-Identifier: MIT */
/* The executor (executor.h).
 *
 * Writes go through a per-run buffer of ops (run_record.c): everything is
 * handed to the journal asynchronously, except that the buffer is committed and
 * waited for before an attempt starts executing when something is to be made
 * durable first: the end of an earlier step (so it is never lost once the
 * next step's side effects begin), and the attempt itself when it acts
 * outside this process (a command, a request), so that a server dying
 * mid-attempt always leaves it on record. A one-step run of a C function
 * therefore costs no wait at all: its start, end and finish share group
 * commits with other runs; a command's first attempt waits for one commit,
 * shared with other runs'. Every op is fenced on this executor; a refused
 * op means the run was taken over, and the executor lets go.
 *
 * When memory runs out it lets go the same way (out_of_memory): the ops
 * buffered whole still go out, the one it could not complete does not,
 * and the lease lapses; the run is then recovered from what is
 * committed, as after a crash, its failure path and compensations
 * included. It never records a result it could not keep whole (an
 * output or an error missing), nor ends a run it could not carry to its
 * end. */
#include "exec/executor.h"

#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/actor.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/json_obj.h"
#include "exec/attempt.h"
#include "exec/plan.h"
#include "exec/run_record.h"

#define STEP_KEY_MAX (SKED_RUN_ID_MAX + 160)

/* One attempt executing in a thread (parallelism > 1). */
typedef struct slot {
    pthread_t th;
    bool used, done;
    sked_attempt a;
    sked_attempt_result res;
    char key[STEP_KEY_MAX];
    const char **outs; /* the outputs as the attempt started: its own
                          copy of the pointers, as its thread reads them
                          while later steps complete */
    struct xrun *x;
} slot;

typedef struct xrun {
    const sked_exec_env *env;
    const sked_run *run;
    const sked_workflow *w;
    const sked_cancel *cancel;
    sked_step_record *rec; /* loaded attempts; owned */
    size_t nrec;
    sked_step_state *st; /* per step */
    char **outputs;      /* per step: owned copies of completed outputs */
    bool *busy;          /* per step: an attempt in flight here */
    sked_time *timer;    /* per step: a retry's or a sleep's due time */
    bool *sleeping;      /* per step: TIMER is a durable sleep's end */
    char **errs;         /* per step: owned copy of its last error */
    sked_time hard;      /* the workflow's hard deadline, or NONE */
    bool hard_hit;       /* a step was stopped by that deadline */
    bool timeout_marked;
    sked_run_record record; /* its writes; record.lost: the run is not
                               ours to carry on */
    slot *slots;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} xrun;

static sked_time now_of(const xrun *x)
{
    return sked__clock_now(x->env->clock);
}

/* Memory ran out: stop as if the run were lost (see the top). */
static void out_of_memory(xrun *x)
{
    x->record.lost = true;
}

/* Release the run until NOT_BEFORE (a durable wait). */
static void wait_durably(xrun *x, sked_time not_before)
{
    sked_run_op *op = sked__run_record_op(&x->record, SKED_RUN_OP_WAIT);
    op->not_before = not_before;
    sked__run_record_flush(&x->record, false);
}

/* Sleep in this thread until UNTIL on the engine's clock, or a cancel.
 * The wait itself is real time and happens once: on a virtual clock that
 * does not move, the caller goes on as if the time had come. */
static void wait_inline(xrun *x, sked_time until)
{
    sked_dur d = until - now_of(x);
    if (d <= 0)
        return;
    struct pollfd p = {sked__cancel_fd(x->cancel), POLLIN, 0};
    poll(&p, 1, (int) ((d + 999) / 1000));
}

/* ---- attempts --------------------------------------------------------- */

static void attempt_setup(xrun *x, slot *s, size_t i, bool comp,
                          int32_t attempt)
{
    const sked_action *act =
        comp ? x->w->steps[i].compensate : &x->w->steps[i].act;
    sked_time now = now_of(x);
    sked_time dl = act->timeout > 0 ? now + act->timeout : SKED_TIME_NONE;
    snprintf(s->key, sizeof s->key, "%s/%s", x->run->id, x->w->steps[i].name);
    s->a = (sked_attempt){
        .run = x->run,
        .w = x->w,
        .step = i,
        .compensation = comp,
        .act = act,
        .attempt = attempt,
        /* A compensation runs after the deadline by design: only its own
         * timeout bounds it, and a cancel no longer stops it. */
        .deadline = comp ? dl : sked__plan_min_deadline(dl, x->hard),
        .step_key = s->key,
        .cancel = comp ? NULL : x->cancel,
        .outputs = (const char *const *) x->outputs,
        .clock = x->env->clock,
    };
    if (s->outs) {
        memcpy(s->outs, x->outputs, x->w->nsteps * sizeof *s->outs);
        s->a.outputs = s->outs;
    }
    s->x = x;
    s->done = false;
}

static void *attempt_thread(void *arg)
{
    slot *s = arg;

    (void) sked__actor_set(SKED__ACTOR_SCHEDULER); /* its own changes */
    sked__attempt_run(&s->a, &s->res);
    pthread_mutex_lock(&s->x->mu);
    s->done = true;
    pthread_cond_broadcast(&s->x->cv);
    pthread_mutex_unlock(&s->x->mu);
    return NULL;
}

/* Take the result of the attempt in S (step I): record it and update the
 * step's state. */
static void attempt_end(xrun *x, slot *s)
{
    size_t i = s->a.step;
    sked_attempt_result *r = &s->res;
    sked_step_state *st = &x->st[i];
    sked_dur delay = -1;

    x->busy[i] = false;
    st->last_attempt = s->a.attempt;
    if (r->nomem)
        out_of_memory(x); /* its end is not recorded: recovery reruns it */
    if (r->nomem || r->stopped == SKED_STOP_SHUTDOWN ||
        r->stopped == SKED_STOP_LOST) {
        sked__attempt_result_done(r); /* given back as it stands */
        return;
    }
    if (r->ok) {
        st->completed = true;
        st->completed_at = now_of(x);
    } else {
        st->counted++;
        bool hard_stop = r->stopped == SKED_STOP_DEADLINE &&
                         x->hard != SKED_TIME_NONE && now_of(x) >= x->hard;
        if (hard_stop) {
            free(r->error);
            r->error = sked__strdup("Workflow timeout.");
            r->error_code = "timeout";
            x->hard_hit = true;
        }
        free(x->errs[i]);
        x->errs[i] = r->error ? sked__strdup(r->error) : NULL;
        if ((hard_stop && !r->error) || (r->error && !x->errs[i])) {
            out_of_memory(x);
            sked__attempt_result_done(r);
            return;
        }
        if (!hard_stop && r->stopped != SKED_STOP_CANCEL &&
            sked__plan_retry(&x->w->steps[i].act.retry, st->counted,
                             &r->failure, s->key, &delay)) {
            x->timer[i] = delay > 0 ? now_of(x) + delay : SKED_TIME_NONE;
        } else {
            st->exhausted = true;
            delay = -1; /* no step.retrying: sked__plan_retry set it to 0 */
        }
    }
    if (r->ok) {
        free(x->outputs[i]);
        x->outputs[i] = r->output ? sked__strdup(r->output) : NULL;
        if (r->output && !x->outputs[i]) {
            out_of_memory(x); /* later steps would not see it */
            sked__attempt_result_done(r);
            return;
        }
    }
    sked__run_record_end(&x->record, i, false, s->a.attempt, r, delay);
    sked__attempt_result_done(r);
}

/* Whether A acts outside this process: a command or a request, whose
 * effects a crash of the server does not stop by itself. */
static bool acts_outside(const sked_action *a)
{
    return a->kind == SKED_ACTION_EXEC || a->kind == SKED_ACTION_SH ||
           a->kind == SKED_ACTION_HTTP;
}

/* Start attempt of step I: in this thread when the workflow runs one step
 * at a time (then it has ended on return), else in a thread. */
static void attempt_start(xrun *x, size_t i)
{
    slot *s = &x->slots[i];
    int32_t attempt = x->st[i].last_attempt + 1;

    sked__run_record_begin(&x->record, i, false, attempt, now_of(x));
    /* Every earlier step's end is durable before this one starts: a crash
     * from here on resumes after them. A command or a request is on record
     * before it starts, too: after a crash, recovery closes it as cut off
     * ("lease_expired") and the next attempt has the next number, so no two
     * executions of a command share one SKED_ATTEMPT (and a command outlives
     * no crash: proc_guard.h). A C function that is a run's first step
     * waits for nothing: it dies with the process, and its attempt number
     * may come again after a crash (docs/execution.md). */
    sked__run_record_flush(&x->record, x->record.unsynced_end ||
                                           acts_outside(&x->w->steps[i].act));
    if (x->record.lost)
        return;
    attempt_setup(x, s, i, false, attempt);
    x->busy[i] = true;
    if (x->w->parallelism == 1 ||
        pthread_create(&s->th, NULL, attempt_thread, s) != 0) {
        sked__attempt_run(&s->a, &s->res);
        attempt_end(x, s);
        return;
    }
    s->used = true;
}

/* Wait until an attempt in a thread ends, or UNTIL; take every ended
 * one. */
static void attempt_reap(xrun *x, sked_time until)
{
    pthread_mutex_lock(&x->mu);
    bool any = false;
    for (size_t i = 0; i < x->w->nsteps && !any; i++)
        any = x->slots[i].used && x->slots[i].done;
    if (!any) {
        struct timespec ts;
        sked_dur d = until == SKED_TIME_NONE ? 100000 : until - now_of(x);
        sked__clock_deadline(d < 1000 ? 1000 : d > 100000 ? 100000 : d, &ts);
        pthread_cond_timedwait(&x->cv, &x->mu, &ts);
    }
    pthread_mutex_unlock(&x->mu);
    for (size_t i = 0; i < x->w->nsteps; i++) {
        slot *s = &x->slots[i];
        pthread_mutex_lock(&x->mu);
        bool done = s->used && s->done;
        pthread_mutex_unlock(&x->mu);
        if (!done)
            continue;
        pthread_join(s->th, NULL);
        s->used = false;
        attempt_end(x, s);
    }
}

static size_t nbusy(const xrun *x)
{
    size_t n = 0;
    for (size_t i = 0; i < x->w->nsteps; i++)
        n += x->busy[i];
    return n;
}

/* Let every attempt in flight end (they see the run's flag or deadline). */
static void drain(xrun *x)
{
    while (nbusy(x) > 0)
        attempt_reap(x, SKED_TIME_NONE);
}

/* ---- the failure path ------------------------------------------------- */

/* Run the compensation of step I to its end: its attempts, with their
 * retries slept here. */
static void compensate(xrun *x, size_t i)
{
    const sked_action *act = x->w->steps[i].compensate;
    slot s = {0}; /* in this thread: it reads the outputs as they are */
    for (int32_t n = x->st[i].comp_counted + 1;; n++) {
        int32_t attempt = ++x->st[i].comp_last_attempt;
        sked_dur delay = -1;
        sked__run_record_begin(&x->record, i, true, attempt, now_of(x));
        sked__run_record_flush(&x->record, true);
        if (x->record.lost)
            return;
        attempt_setup(x, &s, i, true, attempt);
        sked__attempt_run(&s.a, &s.res);
        if (s.res.nomem) {
            out_of_memory(x); /* recovery runs it again */
            sked__attempt_result_done(&s.res);
            return;
        }
        bool again =
            !s.res.ok &&
            sked__plan_retry(&act->retry, n, &s.res.failure, s.key, &delay);
        sked__run_record_end(&x->record, i, true, attempt, &s.res,
                             again ? delay : -1);
        sked__attempt_result_done(&s.res);
        if (!again)
            return;
        sked__run_record_flush(&x->record, false);
        if (delay > 0)
            wait_inline(x, now_of(x) + delay);
    }
}

/* Close the durable sleeps still open: the run ends during them. */
static void close_sleeps(xrun *x, sked_run_status status, const char *error,
                         const char *code)
{
    for (size_t i = 0; i < x->w->nsteps; i++) {
        if (!x->sleeping[i])
            continue;
        sked_attempt_result r = {
            .exit_code = -1,
            .error = sked__strdup(error),
            .error_code = code,
            .stopped = status == SKED_RUN_CANCELLED ? SKED_STOP_CANCEL : 0};
        if (!r.error) {
            out_of_memory(x);
            return;
        }
        x->sleeping[i] = false;
        x->timer[i] = SKED_TIME_NONE;
        sked__run_record_end(&x->record, i, false, x->st[i].last_attempt, &r,
                             -1);
    }
}

/* SPEC 4.3: record why the run fails, compensate the completed steps in
 * reverse order, finish with STATUS. */
static void fail_run(xrun *x, sked_run_status status, const char *error,
                     const char *code)
{
    size_t *order = sked__malloc(x->w->nsteps * sizeof *order);
    drain(x);
    close_sleeps(x, status, error, code);
    if (!x->run->failing) {
        /* A copy: ERROR may be the caller's buffer, and the op may only be
         * written once the caller has returned (after out_of_memory). */
        char *copy = error ? sked__strdup(error) : NULL;
        if (error && !copy) {
            out_of_memory(x);
        } else {
            sked_run_op *op =
                sked__run_record_op(&x->record, SKED_RUN_OP_FAILING);
            op->status = status;
            op->error = sked__run_record_keep(&x->record, copy);
            op->error_code = code;
        }
    }
    /* Without the order the compensations cannot run: the run is left
     * failing, for recovery to compensate (never finished without). */
    if (!order)
        out_of_memory(x);
    size_t n = order ? sked__plan_compensations(x->w, x->st, order) : 0;
    for (size_t k = 0; k < n && !x->record.lost; k++)
        compensate(x, order[k]);
    free(order);
    if (!x->record.lost)
        sked__run_record_finish(&x->record, x->outputs, status, error, code);
}

/* Write the error of a run whose step I ran out of attempts into BUF. */
static void step_error(const xrun *x, size_t i, char *buf, size_t size)
{
    const char *last = x->errs[i];
    snprintf(buf, size, "step %s failed%s%s", x->w->steps[i].name,
             last ? ": " : "", last ? last : "");
}

/* ---- timers: retries' backoffs and durable sleeps ---------------------- */

static sked_time min_timer(const xrun *x)
{
    sked_time t = SKED_TIME_NONE;
    for (size_t i = 0; i < x->w->nsteps; i++)
        t = sked__plan_min_deadline(t, x->timer[i]);
    return t;
}

/* Take the timers due at NOW: a retry becomes startable, a sleep ends. */
static void timers_due(xrun *x, sked_time now)
{
    for (size_t i = 0; i < x->w->nsteps; i++) {
        if (x->timer[i] == SKED_TIME_NONE || x->timer[i] > now)
            continue;
        x->timer[i] = SKED_TIME_NONE;
        if (!x->sleeping[i])
            continue;
        sked_attempt_result r = {
            .ok = true, .exit_code = -1, .duration = x->w->steps[i].act.sleep};
        x->sleeping[i] = false;
        x->st[i].completed = true;
        x->st[i].completed_at = now;
        sked__run_record_end(&x->record, i, false, x->st[i].last_attempt, &r,
                             -1);
    }
}

static void sleep_start(xrun *x, size_t i)
{
    sked_time now = now_of(x);
    x->st[i].last_attempt++;
    sked__run_record_begin(&x->record, i, false, x->st[i].last_attempt, now);
    x->timer[i] = now + x->w->steps[i].act.sleep;
    x->sleeping[i] = true;
}

/* Nothing can start before the earliest timer and no attempt is in
 * flight: wait for it here, or release the run until then. Returns false
 * when the run was released. */
static bool wait_timers(xrun *x)
{
    sked_time t = min_timer(x);
    if (t - now_of(x) >= SKED_DURABLE_WAIT_MIN) {
        wait_durably(x, sked__plan_min_deadline(t, x->hard));
        return false;
    }
    sked__run_record_flush(&x->record, false);
    wait_inline(x, t);
    timers_due(x, t > now_of(x) ? t : now_of(x));
    return true;
}

static void mark_timeout(xrun *x)
{
    if (x->timeout_marked || x->run->timeout_exceeded_at != SKED_TIME_NONE)
        return;
    x->timeout_marked = true;
    sked_run_op *op = sked__run_record_op(&x->record, SKED_RUN_OP_TIMEOUT_MARK);
    sked_jobj o = {0};
    sked__jobj_str(&o, "workflow", x->w->name);
    sked__jobj_secs(&o, "timeout_secs", x->w->timeout);
    sked__run_record_event(&x->record, op, "run.timeout_exceeded", &o);
}

/* ---- the run ---------------------------------------------------------- */

/* Decide and act once. Returns false when the run left this executor. */
static bool drive_once(xrun *x, size_t *ready, bool *blocked)
{
    int reason = sked__cancel_reason(x->cancel);
    char err[600];
    size_t n, failed = 0;

    if (x->record.lost || reason == SKED_STOP_SHUTDOWN ||
        reason == SKED_STOP_LOST) {
        drain(x);
        return false;
    }
    if (reason == SKED_STOP_CANCEL) {
        fail_run(x, SKED_RUN_CANCELLED, "Cancelled.", "cancelled");
        return false;
    }
    sked_time now = now_of(x);
    timers_due(x, now);
    if (x->hard_hit) {
        fail_run(x, SKED_RUN_FAILED, "Workflow timeout.", "timeout");
        return false;
    }
    for (size_t i = 0; i < x->w->nsteps; i++)
        blocked[i] = x->busy[i] || x->timer[i] != SKED_TIME_NONE;
    size_t room = (size_t) x->w->parallelism - nbusy(x);
    switch (sked__plan_next(x->w, x->st, blocked, ready, room, &n, &failed)) {
    case SKED_PLAN_DONE:
        sked__run_record_finish(&x->record, x->outputs, SKED_RUN_COMPLETED,
                                NULL, NULL);
        return false;
    case SKED_PLAN_FAILED:
        step_error(x, failed, err, sizeof err);
        fail_run(x, SKED_RUN_FAILED, err, "step_failed");
        return false;
    case SKED_PLAN_READY:
        /* SPEC 4.3: the workflow's timeout is checked before each step. */
        switch (sked__plan_timeout(x->w, x->run->started_at, now)) {
        case SKED_TIMEOUT_FAIL:
            fail_run(x, SKED_RUN_FAILED, "Workflow timeout.", "timeout");
            return false;
        case SKED_TIMEOUT_SOFT:
            mark_timeout(x);
            break;
        case SKED_TIMEOUT_OK:
            break;
        }
        for (size_t k = 0; k < n && !x->record.lost; k++)
            if (x->w->steps[ready[k]].act.kind == SKED_ACTION_SLEEP)
                sleep_start(x, ready[k]);
            else
                attempt_start(x, ready[k]);
        return true;
    case SKED_PLAN_BUSY:
        if (nbusy(x) > 0) {
            attempt_reap(x, min_timer(x));
            return true;
        }
        /* Only timers left, and the hard deadline came first (a wait is
         * cut at it): the run ends now rather than wait on. */
        if (x->hard != SKED_TIME_NONE && now >= x->hard) {
            fail_run(x, SKED_RUN_FAILED, "Workflow timeout.", "timeout");
            return false;
        }
        return wait_timers(x);
    }
    return false;
}

/* Fill X's per-step state from the attempts recorded before this claim. */
static int load(xrun *x)
{
    const sked_run *run = x->run;
    sked_run r;
    sked_error err = {0};

    if (run->attempts > 1 || run->recovered) {
        int rc = sked__store_run_get(x->env->store, run->id, &r, &x->rec,
                                     &x->nrec, &err);
        if (rc != 0)
            return rc;
        sked__run_done(&r);
    }
    sked__plan_states(x->w, x->rec, x->nrec, x->st);
    for (size_t i = 0; i < x->w->nsteps; i++) {
        x->timer[i] = SKED_TIME_NONE;
        if (x->st[i].output && !(x->outputs[i] = sked__strdup(x->st[i].output)))
            return SKED_ENOMEM;
        if (x->st[i].running && x->w->steps[i].act.kind == SKED_ACTION_SLEEP) {
            x->timer[i] = x->st[i].running_since + x->w->steps[i].act.sleep;
            x->sleeping[i] = true;
        }
    }
    for (size_t k = 0; k < x->nrec; k++) {
        int i = sked__workflow_step_index(x->w, x->rec[k].step);
        if (i >= 0 && !x->rec[k].compensation && x->rec[k].error) {
            free(x->errs[i]);
            if (!(x->errs[i] = sked__strdup(x->rec[k].error)))
                return SKED_ENOMEM;
        }
    }
    return 0;
}

static void xrun_free(xrun *x)
{
    for (size_t i = 0; x->w && i < x->w->nsteps; i++) {
        if (x->outputs)
            free(x->outputs[i]);
        if (x->errs)
            free(x->errs[i]);
    }
    free(x->outputs);
    free(x->errs);
    free(x->st);
    free(x->busy);
    free(x->timer);
    free(x->sleeping);
    for (size_t i = 0; x->slots && x->w && i < x->w->nsteps; i++)
        free(x->slots[i].outs);
    free(x->slots);
    sked__step_records_free(x->rec, x->nrec);
    sked__run_record_done(&x->record);
    pthread_mutex_destroy(&x->mu);
    pthread_cond_destroy(&x->cv);
}

static int xrun_init(xrun *x, const sked_exec_env *env, const sked_run *run,
                     const sked_workflow *w, const sked_cancel *cancel)
{
    size_t n = w->nsteps ? w->nsteps : 1;
    memset(x, 0, sizeof *x);
    x->env = env;
    x->run = run;
    x->w = w;
    sked__run_record_init(&x->record, env, run, w);
    x->cancel = cancel;
    x->hard = sked__plan_hard_deadline(w, run->started_at);
    pthread_mutex_init(&x->mu, NULL);
    sked__cond_init_mono(&x->cv);
    x->st = sked__calloc(n, sizeof *x->st);
    x->outputs = sked__calloc(n, sizeof *x->outputs);
    x->errs = sked__calloc(n, sizeof *x->errs);
    x->busy = sked__calloc(n, sizeof *x->busy);
    x->timer = sked__calloc(n, sizeof *x->timer);
    x->sleeping = sked__calloc(n, sizeof *x->sleeping);
    x->slots = sked__calloc(n, sizeof *x->slots);
    if (!x->st || !x->outputs || !x->errs || !x->busy || !x->timer ||
        !x->sleeping || !x->slots)
        return SKED_ENOMEM;
    for (size_t i = 0; w->parallelism > 1 && i < w->nsteps; i++)
        if (!(x->slots[i].outs = sked__calloc(n, sizeof *x->slots[i].outs)))
            return SKED_ENOMEM;
    return load(x);
}

/* Hand RUN back, due again in DELAY: any engine that has its workflow
 * claims it then. The journal writes it when the database takes it. */
static void give_back(const sked_exec_env *env, const sked_run *run,
                      sked_dur delay)
{
    sked_time now = sked__clock_now(env->clock);
    sked_run_op op = {.kind = SKED_RUN_OP_WAIT,
                      .run_id = run->id,
                      .executor = env->executor,
                      .at = now,
                      .not_before = now + delay};

    (void) sked__journal_write(env->journal, &op, 1, NULL, NULL);
}

void sked__execute(const sked_exec_env *env, const sked_run *run,
                   const sked_cancel *cancel)
{
    const sked_workflow *w = sked__registry_acquire(
        env->registry, run->workflow, run->workflow_version);
    xrun x;

    if (!w) {
        /* Its definition went away with a reload since the claim: give
         * the run back, for an engine that has it. */
        give_back(env, run, SKED_DURABLE_WAIT_MIN);
        return;
    }
    int rc = xrun_init(&x, env, run, w, cancel);
    if (rc != 0) {
        /* Its recorded steps could not be read (the database went away
         * right after the claim, or memory ran out): nothing ran, so it
         * goes back at once rather than wait for its lease to lapse. */
        xrun_free(&x);
        sked__registry_release(env->registry, w);
        give_back(env, run, 0);
        return;
    }
    size_t *ready = sked__calloc(w->nsteps + 1, sizeof *ready);
    bool *blocked = sked__calloc(w->nsteps + 1, sizeof *blocked);
    if (ready && blocked) {
        if (run->failing)
            fail_run(&x, run->outcome, run->error, run->error_code);
        else if (run->cancel_requested_at != SKED_TIME_NONE)
            /* Cancelled while nobody held it (waiting, or given back):
             * the claim hands it over for its failure path (SPEC 4.3),
             * before any step runs again. */
            fail_run(&x, SKED_RUN_CANCELLED, "Cancelled.", "cancelled");
        else
            while (drive_once(&x, ready, blocked))
                ;
    } else {
        give_back(env, run, 0); /* out of memory before anything ran */
    }
    free(ready);
    free(blocked);
    /* Whatever is left (a stop, an error) goes out; on an error the
     * lease lapses and the run is recovered from what is committed. */
    sked__run_record_flush(&x.record, false);
    xrun_free(&x);
    sked__registry_release(env->registry, w);
}
