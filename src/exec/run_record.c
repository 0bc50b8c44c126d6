/* SPDX-License-Identifier: MIT */
/* What the executor writes for one run (run_record.h).
 *
 * Ops are buffered, up to SKED_RUN_RECORD_OPS, with the strings they
 * point to, and written in one journal call: a run's step end, its
 * events and the next step's begin usually go out together. When memory
 * runs out the record is lost (run_record.h): the ops buffered whole
 * still go out, the one that could not be completed does not. */
#include "exec/run_record.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/json_io.h"
#include "base/json_text.h"

/* The room kept for one op's strings: it keeps 6 at most (its own 3,
 * 3 events' payloads), rounded up to 8. */
#define OP_STRS 8

void sked__run_record_init(sked_run_record *r, const sked_exec_env *env,
                           const sked_run *run, const sked_workflow *w)
{
    memset(r, 0, sizeof *r);
    r->env = env;
    r->run = run;
    r->w = w;
}

char *sked__run_record_keep(sked_run_record *r, char *s)
{
    if (s)
        r->strs[r->nstrs++] = s;
    return s;
}

void sked__run_record_done(sked_run_record *r)
{
    for (size_t i = 0; i < r->nstrs; i++)
        free(r->strs[i]);
    r->nstrs = r->npending = 0;
}

void sked__run_record_flush(sked_run_record *r, bool wait)
{
    int result[SKED_RUN_RECORD_OPS];
    sked_error err = {0};
    if (wait)
        r->unsynced_end = false;
    if (r->npending > 0) {
        int rc = sked__journal_write(r->env->journal, r->pending, r->npending,
                                     wait ? result : NULL, &err);
        if (rc != 0)
            r->lost = true; /* not written: the lease lapses, and the run
                               is recovered from what is committed */
        for (size_t i = 0; wait && rc == 0 && i < r->npending; i++)
            if (result[i] != 0)
                r->lost = true;
    }
    sked__run_record_done(r);
}

sked_run_op *sked__run_record_op(sked_run_record *r, sked_run_op_kind kind)
{
    if (r->npending == SKED_RUN_RECORD_OPS ||
        r->nstrs + OP_STRS > sizeof r->strs / sizeof *r->strs)
        sked__run_record_flush(r, false);
    sked_run_op *op = &r->pending[r->npending++];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->run_id = r->run->id;
    op->executor = r->env->executor;
    op->at = sked__clock_now(r->env->clock);
    return op;
}

void sked__run_record_event(sked_run_record *r, sked_run_op *op,
                            const char *type, sked_jobj *o)
{
    char *p = sked__jobj_take(o);
    if (!p) {
        if (r->npending > 0 && op == &r->pending[r->npending - 1])
            r->npending--;
        r->lost = true;
        return;
    }
    if (op->nevents < SKED_RUN_OP_EVENTS_MAX)
        op->events[op->nevents++] =
            (sked_run_op_event){type, r->run->id, sked__run_record_keep(r, p)};
    else
        free(p);
}

/* The members every step event starts with, into O. */
static void step_payload(const sked_run_record *r, size_t i, bool comp,
                         int32_t attempt, sked_jobj *o)
{
    sked__jobj_str(o, "workflow", r->w->name);
    sked__jobj_str(o, "step", r->w->steps[i].name);
    sked__jobj_int(o, "attempt", attempt);
    if (comp)
        sked__jobj_bool(o, "compensation", true);
}

void sked__run_record_begin(sked_run_record *r, size_t i, bool comp,
                            int32_t attempt, sked_time at)
{
    sked_run_op *op = sked__run_record_op(r, SKED_RUN_OP_STEP_BEGIN);
    op->step = (sked_step_record){.step = r->w->steps[i].name,
                                  .compensation = comp,
                                  .attempt = attempt,
                                  .status = SKED_STEP_RUNNING,
                                  .exit_code = -1,
                                  .started_at = at,
                                  .finished_at = SKED_TIME_NONE};
    sked_jobj o = {0};
    step_payload(r, i, comp, attempt, &o);
    sked__run_record_event(r, op, "step.started", &o);
}

void sked__run_record_end(sked_run_record *r, size_t i, bool comp,
                          int32_t attempt, sked_attempt_result *res,
                          sked_dur retry_delay)
{
    sked_run_op *op = sked__run_record_op(r, SKED_RUN_OP_STEP_END);
    sked_step_status s = res->ok ? SKED_STEP_COMPLETED
                         : res->stopped == SKED_STOP_CANCEL
                             ? SKED_STEP_CANCELLED
                             : SKED_STEP_FAILED;
    op->step = (sked_step_record){
        .step = r->w->steps[i].name,
        .compensation = comp,
        .attempt = attempt,
        .status = s,
        .output = res->output,
        .stderr_text = sked__run_record_keep(r, res->stderr_text),
        .truncated = res->truncated,
        .error = res->error,
        .error_code = (char *) res->error_code,
        .exit_code = res->exit_code,
        /* its begin (recorded) says when */
        .started_at = SKED_TIME_NONE,
        .finished_at = op->at};
    sked_jobj o = {0};
    step_payload(r, i, comp, attempt, &o);
    sked__jobj_secs(&o, "duration_secs", res->duration);
    if (!res->ok) {
        sked__jobj_str(&o, "error", res->error ? res->error : "");
        if (res->exit_code >= 0)
            sked__jobj_int(&o, "exit_code", res->exit_code);
    }
    sked__run_record_event(r, op, res->ok ? "step.completed" : "step.failed",
                           &o);
    r->unsynced_end = true;
    if (retry_delay >= 0 && !r->lost) {
        step_payload(r, i, comp, attempt + 1, &o);
        sked__jobj_secs(&o, "delay_secs", retry_delay);
        sked__run_record_event(r, op, "step.retrying", &o);
    }
    /* The buffer takes the result's strings until they are written. */
    sked__run_record_keep(r, res->output);
    sked__run_record_keep(r, res->error);
    res->output = res->stderr_text = res->error = NULL;
}

/* The run's output: each completed step's output of OUTPUTS, as JSON when
 * it is JSON, else as a string. NULL when memory ran out. */
static char *run_output(const sked_workflow *w, char *const *outputs)
{
    bool any = false;
    for (size_t i = 0; i < w->nsteps && !any; i++)
        any = outputs[i] != NULL;
    if (!any) /* steps that return nothing, the usual case */
        return sked__strdup("{}");
    json_t *o = json_object();
    bool whole = o != NULL;
    for (size_t i = 0; whole && i < w->nsteps; i++) {
        const char *s = outputs[i];
        json_error_t je;
        json_t *v = NULL;
        if (!s)
            continue;
        int rc = sked__json_load(s, strlen(s), JSON_DECODE_ANY, &v, &je);
        if (rc == SKED_ESYNTAX)
            v = json_string(s);
        whole = v && json_object_set_new(o, w->steps[i].name, v) == 0;
    }
    char *s = whole ? sked__json_text(o, NULL) : NULL;
    json_decref(o);
    return s;
}

void sked__run_record_finish(sked_run_record *r, char *const *outputs,
                             sked_run_status status, const char *error,
                             const char *code)
{
    static const char *const names[] = {[SKED_RUN_COMPLETED] = "run.completed",
                                        [SKED_RUN_FAILED] = "run.failed",
                                        [SKED_RUN_CANCELLED] = "run.cancelled"};
    const sked_run *run = r->run;
    char *output =
        status == SKED_RUN_COMPLETED ? run_output(r->w, outputs) : NULL;
    if (status == SKED_RUN_COMPLETED && !output) {
        r->lost = true; /* not ended without its output */
        return;
    }
    sked_run_op *op = sked__run_record_op(r, SKED_RUN_OP_FINISH);
    op->status = status;
    op->output = sked__run_record_keep(r, output);
    op->error = error;
    op->error_code = code;
    sked_jobj o = {0};
    sked__jobj_str(&o, "workflow", r->w->name);
    sked__jobj_str(&o, "queue", run->queue ? run->queue : "default");
    if (run->schedule)
        sked__jobj_str(&o, "schedule", run->schedule);
    if (run->started_at != SKED_TIME_NONE)
        sked__jobj_secs(&o, "duration_secs", op->at - run->started_at);
    if (error) {
        sked__jobj_str(&o, "error", error);
        sked__jobj_str(&o, "error_code", code);
    }
    sked__run_record_event(r, op, names[status], &o);
    if (!r->lost)
        sked__run_record_flush(r, false);
}
