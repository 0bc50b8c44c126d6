/* SPDX-License-Identifier: MIT */
/* Workflows: what a run executes (SPEC 1, 4).
 *
 * A workflow is a named DAG of steps (each may name the steps it needs),
 * with a timeout policy, a parallelism, a default queue and a version.
 * A program builds one with sked_workflow_new and sked_workflow_add_step,
 * whose steps are C functions, optionally declares its schedules, and
 * hands it to an engine with sked_engine_register before
 * sked_engine_start. The engine's workers then run it for every run of
 * that workflow, on any engine sharing the database that registered the
 * same version.
 *
 * A step function is called once per attempt, from a worker thread:
 *
 *     int fn(sked_ctx *ctx, const char *input_json, char **output_json);
 *
 * INPUT_JSON is the run's context (the schedule's context, or the input
 * given to sked_engine_run_start). Return 0 for success, with
 * *output_json (may stay NULL) set to malloc'd JSON text that sked
 * records and frees; any other value is a failure, and that value is the
 * step's exit code as retry_on sees it. sked_ctx_fail gives the reason.
 * A step must return soon after sked_ctx_cancelled becomes true (its
 * deadline passed, the run was cancelled, the engine is stopping).
 *
 * Steps run at least once: a run whose engine died resumes at its first
 * step not completed, so a step may run again after a crash; its
 * sked_ctx_step_key is the same each time, for idempotent effects. */
#ifndef SKED_WORKFLOW_H
#define SKED_WORKFLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sked/error.h"
#include "sked/schedule.h"
#include "sked/time.h"

typedef struct sked_workflow sked_workflow;
typedef struct sked_ctx sked_ctx;

typedef int (*sked_step_fn)(sked_ctx *ctx, const char *input_json,
                            char **output_json);

/* Retries of a step (SPEC 4.3). Zero-initialised means one attempt. */
typedef struct sked_retry {
    int32_t attempts;        /* tries in all, 1..100; 0: 1 */
    sked_dur backoff;        /* delay before the 2nd attempt; 0: none */
    double multiplier;       /* each next delay = previous * this; 0: 1 */
    sked_dur max_backoff;    /* cap on a delay; 0: none */
    bool jitter;             /* each delay drawn in [delay/2, delay] */
    const int32_t *retry_on; /* retry only on these exit codes; */
    size_t nretry_on;        /* 0: on any failure */
} sked_retry;

typedef struct sked_step_options {
    const char *const *needs; /* steps that must complete first */
    size_t nneeds;
    sked_dur timeout; /* per attempt; 0: none */
    sked_retry retry;
    /* Run when the run fails or is cancelled after this step completed,
     * in reverse order of completion; NULL: none. */
    sked_step_fn compensate;
    sked_dur compensate_timeout; /* 0: none */
    sked_retry compensate_retry;
    void *userdata; /* given back by sked_ctx_userdata */
} sked_step_options;

/* Create an empty workflow NAME (1..128 bytes of letters, digits, "-_.").
 * OUT: *out, released with sked_workflow_free unless handed to
 * sked_engine_register. Returns 0, SKED_EINVAL (field "name"),
 * SKED_ENOMEM. */
SKED_API int sked_workflow_new(const char *name, sked_workflow **out,
                               sked_error *err);
SKED_API void sked_workflow_free(sked_workflow *w);

/* The queue its runs go to when their schedule names none (default
 * "default"). */
SKED_API int sked_workflow_set_queue(sked_workflow *w, const char *queue,
                                     sked_error *err);

/* Its version (default: a hash of its definition: the steps, their
 * order, needs and options). Runs record the version they run; an engine
 * only takes runs of the versions it has (SPEC 4.2). */
SKED_API int sked_workflow_set_version(sked_workflow *w, const char *version,
                                       sked_error *err);

/* The workflow timeout (SPEC 4.3): SECONDS after the run started (0:
 * none). FAIL_WORKFLOW false makes it a soft limit (an event, a metric,
 * the run goes on); HARD also stops the running step at the deadline. */
SKED_API int sked_workflow_set_timeout(sked_workflow *w, sked_dur seconds,
                                       bool fail_workflow, bool hard,
                                       sked_error *err);

/* Steps running at once within one run, 1..64 (default 1). */
SKED_API int sked_workflow_set_parallelism(sked_workflow *w, int n,
                                           sked_error *err);

/* What the workflow's commands inherit of the environment of the process
 * running them (a server's exec steps; docs/execution.md "The step
 * environment"): with ALL, all of it, else the N variables NAMES (copied;
 * N 0: none, the default). A command always gets a small base (PATH,
 * HOME, USER, LOGNAME, SHELL, LANG, TZ), its step's env and the SKED_ run
 * variables; variables named SKED_* (sked's configuration: SKED_DB,
 * SKED_TOKEN, SKED_SERVER) are never inherited. Returns 0, SKED_EINVAL
 * (field "env_inherit[I]": not a variable name, or one beginning with
 * SKED_; W unchanged), SKED_ENOMEM. */
SKED_API int sked_workflow_set_env_inherit(sked_workflow *w, bool all,
                                           const char *const *names, size_t n,
                                           sked_error *err);

/* Append a step NAME running FN. OPTS may be NULL. Names are unique
 * within the workflow; NEEDS must name steps added before (so the steps
 * always form a DAG). Returns 0, SKED_EINVAL (field "name", "needs",
 * "retry.attempts", ...), SKED_ENOMEM. */
SKED_API int sked_workflow_add_step(sked_workflow *w, const char *name,
                                    sked_step_fn fn,
                                    const sked_step_options *opts,
                                    sked_error *err);

/* Declare a schedule of this workflow (copied; its workflow is set to
 * W's name and, when S->name is NULL, its name too). Declared schedules
 * are synced at sked_engine_start (SPEC 3.5 code sync). */
SKED_API int sked_workflow_add_schedule(sked_workflow *w,
                                        const sked_schedule *s,
                                        sked_error *err);

/* ---- inside a step ---------------------------------------------------- */

SKED_API const char *sked_ctx_run_id(const sked_ctx *c);
SKED_API const char *sked_ctx_workflow(const sked_ctx *c);
SKED_API const char *sked_ctx_step(const sked_ctx *c);
/* "cron", "catchup", "backfill", "manual" or "api". */
SKED_API const char *sked_ctx_trigger(const sked_ctx *c);
/* The schedule that created the run; NULL for runs started by the API. */
SKED_API const char *sked_ctx_schedule(const sked_ctx *c);
/* The occurrence the run is for; SKED_TIME_NONE for manual and API runs. */
SKED_API sked_time sked_ctx_scheduled_for(const sked_ctx *c);
/* 1 for the first attempt of this step. */
SKED_API int sked_ctx_attempt(const sked_ctx *c);
/* When this attempt must have returned; SKED_TIME_NONE: no deadline. */
SKED_API sked_time sked_ctx_deadline(const sked_ctx *c);
/* True once the step should stop (deadline, cancel, engine stopping). */
SKED_API bool sked_ctx_cancelled(const sked_ctx *c);
/* "RUN_ID/STEP": the same on every attempt and after recovery. */
SKED_API const char *sked_ctx_step_key(const sked_ctx *c);
/* The recorded output of the completed step STEP of this run, or NULL. */
SKED_API const char *sked_ctx_output(const sked_ctx *c, const char *step);
SKED_API void *sked_ctx_userdata(const sked_ctx *c);
/* Record MSG as the reason this attempt fails (copied, at most 1 KiB). */
SKED_API void sked_ctx_fail(sked_ctx *c, const char *msg);

#endif
