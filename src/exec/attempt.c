/* SPDX-License-Identifier: MIT */
/* One attempt of a step (attempt.h), and the sked_ctx a C step sees.
 *
 * A command's environment is composed by step_env.h: a small base, what
 * the workflow inherits from the server, the step's env, then the SKED_
 * variables of SPEC 4.4 (which a step cannot override: they are how a
 * command knows which run it serves). */
#include "exec/attempt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/error.h"
#include "exec/http_step.h"
#include "exec/proc.h"
#include "exec/step_env.h"
#include "store/store.h"

extern char **environ;

#define FAIL_MSG_MAX 1024

struct sked_ctx {
    const sked_attempt *a;
    char *fail; /* owned: the reason given by sked_ctx_fail */
    bool nomem; /* that reason could not be kept */
};

/* ---- sked_ctx --------------------------------------------------------- */

const char *sked_ctx_run_id(const sked_ctx *c)
{
    return c->a->run->id;
}

const char *sked_ctx_workflow(const sked_ctx *c)
{
    return c->a->w->name;
}

const char *sked_ctx_step(const sked_ctx *c)
{
    return c->a->w->steps[c->a->step].name;
}

const char *sked_ctx_trigger(const sked_ctx *c)
{
    return sked__trigger_name(c->a->run->trigger);
}

const char *sked_ctx_schedule(const sked_ctx *c)
{
    return c->a->run->schedule;
}

sked_time sked_ctx_scheduled_for(const sked_ctx *c)
{
    return c->a->run->scheduled_for;
}

int sked_ctx_attempt(const sked_ctx *c)
{
    return c->a->attempt;
}

sked_time sked_ctx_deadline(const sked_ctx *c)
{
    return c->a->deadline;
}

bool sked_ctx_cancelled(const sked_ctx *c)
{
    const sked_attempt *a = c->a;
    if (a->cancel && sked__cancel_reason(a->cancel) != 0)
        return true;
    return a->deadline != SKED_TIME_NONE &&
           sked__clock_now(a->clock) >= a->deadline;
}

const char *sked_ctx_step_key(const sked_ctx *c)
{
    return c->a->step_key;
}

const char *sked_ctx_output(const sked_ctx *c, const char *step)
{
    int i = step ? sked__workflow_step_index(c->a->w, step) : -1;
    return i < 0 ? NULL : c->a->outputs[i];
}

void *sked_ctx_userdata(const sked_ctx *c)
{
    return c->a->act->userdata;
}

void sked_ctx_fail(sked_ctx *c, const char *msg)
{
    free(c->fail);
    c->fail = msg ? sked__strndup(msg, FAIL_MSG_MAX) : NULL;
    c->nomem = msg && !c->fail;
}

/* ---- results ---------------------------------------------------------- */

void sked__attempt_result_done(sked_attempt_result *r)
{
    free(r->output);
    free(r->stderr_text);
    free(r->error);
    memset(r, 0, sizeof *r);
}

static void fail_with(sked_attempt_result *r, const char *code, bool has_code,
                      int32_t value, const char *fmt, ...) SKED__PRINTF(5, 6);

static char *vformat(const char *fmt, va_list ap)
{
    char buf[FAIL_MSG_MAX];
    vsnprintf(buf, sizeof buf, fmt, ap);
    return sked__strdup(buf);
}

static void fail_with(sked_attempt_result *r, const char *code, bool has_code,
                      int32_t value, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    free(r->error);
    r->error = vformat(fmt, ap);
    va_end(ap);
    r->nomem |= !r->error;
    r->ok = false;
    r->error_code = code;
    r->failure.has_code = has_code;
    r->failure.code = value;
}

/* Say why A was stopped, when it was: the run's reason, else its
 * deadline. Returns the reason, 0 when it was not stopped. */
static int stop_reason(const sked_attempt *a)
{
    int r = a->cancel ? sked__cancel_reason(a->cancel) : 0;
    if (r == 0 && a->deadline != SKED_TIME_NONE &&
        sked__clock_now(a->clock) >= a->deadline)
        r = SKED_STOP_DEADLINE;
    return r;
}

static void fail_stopped(sked_attempt_result *r, int reason)
{
    r->stopped = reason;
    if (reason == SKED_STOP_DEADLINE)
        fail_with(r, "timeout", false, 0, "the step timed out");
    else if (reason == SKED_STOP_CANCEL)
        fail_with(r, "cancelled", false, 0, "the run was cancelled");
    else
        fail_with(r, "interrupted", false, 0, "the engine stopped");
}

/* ---- C functions ------------------------------------------------------ */

static void run_fn(const sked_attempt *a, sked_attempt_result *r)
{
    sked_ctx c = {a, NULL, false};
    char *out = NULL;
    int rc = a->act->fn(&c, a->run->context ? a->run->context : "{}", &out);
    int reason = stop_reason(a);

    /* A function that returned success completed, even late: the
     * workflow's deadline is checked again before the next step. */
    r->exit_code = -1;
    if (rc == 0) {
        r->ok = true;
        /* Stored as text like any output: valid UTF-8, capped. */
        size_t len = out ? strlen(out) : 0, keep = len;
        if (keep > SKED_PROC_CAPTURE_DEFAULT) {
            keep = sked__utf8_trim_cut(out, SKED_PROC_CAPTURE_DEFAULT);
            r->truncated = 1;
        }
        if (out && sked__utf8_sanitize(out, keep, &r->output, &len) != 0) {
            r->output = NULL;
            r->nomem = true;
        }
        free(out);
    } else {
        free(out);
        if (reason)
            fail_stopped(r, reason);
        else
            fail_with(r, "step_failed", true, rc, "%s",
                      c.fail ? c.fail : "the step returned a failure");
        r->exit_code = rc;
    }
    r->nomem |= c.nomem;
    free(c.fail);
}

/* ---- commands --------------------------------------------------------- */

#define SKED_ENV_VARS 10

/* The SKED_ variables of SPEC 4.4 for A, each malloc'd into V. */
static int sked_vars(const sked_attempt *a, char **v)
{
    char sched[SKED_TIME_STRLEN] = "", dl[SKED_TIME_STRLEN] = "";
    const sked_run *r = a->run;
    if (r->scheduled_for != SKED_TIME_NONE)
        sked_time_format(r->scheduled_for, sched, sizeof sched);
    if (a->deadline != SKED_TIME_NONE)
        sked_time_format(a->deadline, dl, sizeof dl);
    const char *pairs[SKED_ENV_VARS][2] = {
        {"SKED_RUN_ID", r->id},
        {"SKED_WORKFLOW", a->w->name},
        {"SKED_SCHEDULE", r->schedule ? r->schedule : ""},
        {"SKED_SCHEDULED_FOR", sched},
        {"SKED_TRIGGER", sked__trigger_name(r->trigger)},
        {"SKED_ATTEMPT", NULL},
        {"SKED_STEP", a->w->steps[a->step].name},
        {"SKED_STEP_KEY", a->step_key},
        {"SKED_CONTEXT", r->context ? r->context : "{}"},
        {"SKED_DEADLINE", dl},
    };
    char attempt[16];
    snprintf(attempt, sizeof attempt, "%d", (int) a->attempt);
    pairs[5][1] = attempt;
    for (size_t i = 0; i < SKED_ENV_VARS; i++) {
        size_t len = strlen(pairs[i][0]) + strlen(pairs[i][1]) + 2;
        if (!(v[i] = sked__malloc(len)))
            return SKED_ENOMEM;
        snprintf(v[i], len, "%s=%s", pairs[i][0], pairs[i][1]);
    }
    return 0;
}

/* The environment of A's command (step_env.h), or NULL when out of
 * memory. */
static char **build_env(const sked_attempt *a)
{
    char *run[SKED_ENV_VARS + 1] = {0}, user[256], home[1024];
    char **env = NULL;

    (void) sked__step_env_who(a->act->user, user, sizeof user, home,
                              sizeof home);
    if (sked_vars(a, run) == 0) {
        sked_step_env_in in = {
            .server = (const char *const *) environ,
            .inherit_all = a->w->env_inherit_all,
            .inherit = (const char *const *) a->w->env_inherit,
            .step = (const char *const *) a->act->env,
            .run = (const char *const *) run,
            .user = user,
            .home = home,
        };
        if (sked__step_env_compose(&in, &env) != 0)
            env = NULL;
    }
    for (size_t i = 0; i < SKED_ENV_VARS; i++)
        free(run[i]);
    return env;
}

static void proc_outcome(const sked_attempt *a, sked_proc_result *p,
                         sked_attempt_result *r)
{
    r->output = p->out;
    r->stderr_text = p->err;
    p->out = p->err = NULL;
    r->truncated = (p->out_truncated ? 1 : 0) | (p->err_truncated ? 2 : 0);
    r->exit_code = p->exit_code;
    r->duration = p->duration;
    /* A command that exited 0 completed, even when it was being stopped,
     * as a function that returned success does: the stop came as it was
     * ending (its work done; recorded as stopped, its compensation would
     * never run), or it chose to finish. A cancel still ends the run
     * before the next step, and compensates this one. */
    bool exited_ok = p->term_signal == 0 && p->exit_code == 0;
    if (p->stop != SKED_PROC_EXITED && !exited_ok) {
        int reason = stop_reason(a);
        fail_stopped(r, reason ? reason : SKED_STOP_DEADLINE);
        if (p->killed) {
            char *e = r->error;
            r->error = NULL;
            fail_with(r, r->error_code, false, 0, "%s (killed after the grace)",
                      e ? e : "");
            free(e);
        }
    } else if (p->term_signal)
        fail_with(r, "exit", false, 0, "killed by signal %d", p->term_signal);
    else if (p->exit_code != 0)
        fail_with(r, "exit", true, p->exit_code, "exit status %d",
                  p->exit_code);
    else
        r->ok = true;
}

static void run_proc(const sked_attempt *a, sked_attempt_result *r)
{
    const sked_action *act = a->act;
    const char *sh_argv[] = {"/bin/sh", "-c", act->sh, NULL};
    char **env = build_env(a);
    sked_proc_result p = {0};
    sked_error err = {0};

    r->exit_code = -1;
    if (!env) {
        fail_with(r, "exec_failed", false, 0, "out of memory");
    } else {
        sked_proc_spec spec = {
            .argv = act->kind == SKED_ACTION_SH
                        ? sh_argv
                        : (const char *const *) act->argv,
            .env = (const char *const *) env,
            .cwd = act->cwd,
            .user = act->user,
        };
        int rc = sked__proc_run(&spec, a->deadline, act->kill_grace, a->cancel,
                                &p, &err);
        if (rc != 0)
            fail_with(r, "exec_failed", false, 0, "%s", err.msg);
        else
            proc_outcome(a, &p, r);
        sked__proc_result_done(&p);
    }
    sked__step_env_free(env);
}

/* ---- requests --------------------------------------------------------- */

static void run_http(const sked_attempt *a, sked_attempt_result *r)
{
    const sked_action *act = a->act;
    sked_http_spec spec = {
        .method = act->method,
        .url = act->url,
        .headers = (const char *const *) act->headers,
        .nheaders = act->nheaders,
        .body = act->body,
        .body_len = act->body ? strlen(act->body) : 0,
        .expect = act->expect,
        .nexpect = act->nexpect,
    };
    sked_http_result h = {0};
    sked_error err = {0};
    int rc = sked__http_run(&spec, a->deadline, a->cancel, &h, &err);

    r->exit_code = -1;
    if (rc == SKED_ETIMEDOUT || rc == SKED_ECANCELED) {
        int reason = stop_reason(a);
        fail_stopped(r, reason ? reason : SKED_STOP_DEADLINE);
    } else if (rc != 0) {
        fail_with(r, "http_failed", false, 0, "%s", err.msg);
    } else {
        r->output = h.body;
        h.body = NULL;
        r->truncated = h.truncated ? 1 : 0;
        r->duration = h.duration;
        if (h.accepted)
            r->ok = true;
        else
            fail_with(r, "http_status", true, (int32_t) h.status,
                      "HTTP status %ld", h.status);
    }
    sked__http_result_done(&h);
}

void sked__attempt_run(const sked_attempt *a, sked_attempt_result *out)
{
    sked_mono t0 = sked__clock_mono(NULL);
    memset(out, 0, sizeof *out);
    switch (a->act->kind) {
    case SKED_ACTION_FN:
        run_fn(a, out);
        break;
    case SKED_ACTION_EXEC:
    case SKED_ACTION_SH:
        run_proc(a, out);
        break;
    case SKED_ACTION_HTTP:
        run_http(a, out);
        break;
    case SKED_ACTION_SLEEP:
        out->ok = true; /* the executor waits; nothing to do here */
        break;
    }
    if (out->duration == 0)
        out->duration = sked__clock_mono(NULL) - t0;
}
