/* SPDX-License-Identifier: MIT */
/* One attempt of one step: calling a C function, running a command,
 * sending a request (SPEC 4.4), and saying how it went.
 *
 * The executor decides what to run and records it; this only does it.
 * Every kind ends the same way, in a sked_attempt_result: success and
 * output, or the failure with its code for retry_on, its message and the
 * error code stored on the step. A deadline or a cancel stops the attempt
 * (a command's process group gets SIGTERM, then SIGKILL after its
 * kill_grace; a request is aborted; a C function sees
 * sked_ctx_cancelled). Durable sleeps are the executor's, not here. */
#ifndef SKED_EXEC_ATTEMPT_H
#define SKED_EXEC_ATTEMPT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/cancel.h"
#include "exec/plan.h"
#include "model/workflow.h"
#include "store/store_run.h"

/* Reasons a cancellation flag is set with. */
enum {
    SKED_STOP_CANCEL = 1,   /* the run was cancelled */
    SKED_STOP_SHUTDOWN = 2, /* the engine is stopping: give the run back */
    SKED_STOP_DEADLINE = 3, /* the attempt's deadline passed */
    SKED_STOP_LOST = 4,     /* the lease was lost to another executor */
};

typedef struct sked_attempt {
    const sked_run *run;
    const sked_workflow *w;
    size_t step;
    bool compensation;
    const sked_action *act;
    int32_t attempt;
    sked_time deadline;   /* NONE: none; the earlier of the step's
                             timeout and the workflow's hard deadline */
    const char *step_key; /* "RUN_ID/STEP" */
    const sked_cancel *cancel;
    const char *const *outputs; /* per step of W: completed outputs */
    const sked_clock *clock;
} sked_attempt;

typedef struct sked_attempt_result {
    bool ok;
    sked_failure failure;   /* when not ok: the code retry_on compares */
    char *output;           /* owned */
    char *stderr_text;      /* owned; exec only */
    int truncated;          /* bit 1: output, bit 2: stderr */
    char *error;            /* owned; when not ok */
    const char *error_code; /* static: "exit", "timeout", "cancelled",
                               "exec_failed", "http_status", "http_failed",
                               "step_failed" */
    int32_t exit_code;      /* exec: its status; -1 when none */
    int stopped;            /* 0, or the SKED_STOP_ reason it was stopped */
    sked_dur duration;
    bool nomem; /* memory ran out keeping what it gave (its output, its
                   error): the result is not whole, not to be recorded */
} sked_attempt_result;

/* Run A once and fill OUT (release with sked__attempt_result_done). */
void sked__attempt_run(const sked_attempt *a, sked_attempt_result *out);
void sked__attempt_result_done(sked_attempt_result *r);

#endif
