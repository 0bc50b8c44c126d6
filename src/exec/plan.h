/* SPDX-License-Identifier: MIT */
/* The executor's decisions, as pure functions (ARCHITECTURE 1): which
 * steps may start, whether a failed attempt is retried and after how
 * long, whether the workflow's deadline passed, in which order the
 * compensations run. Their inputs are the definition, the step attempts
 * recorded in the store and the time; nothing here does I/O, so every
 * rule of SPEC 4.3 is tested on plain values. */
#ifndef SKED_EXEC_PLAN_H
#define SKED_EXEC_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/workflow.h"
#include "store/store_run.h"

/* What the recorded attempts say of one step (and its compensation). */
typedef struct sked_step_state {
    bool completed;          /* an attempt completed */
    bool exhausted;          /* its last attempt failed, no retry left */
    bool running;            /* an attempt is open (a durable sleep) */
    int32_t last_attempt;    /* the highest attempt number recorded */
    int32_t counted;         /* attempts that count against retries */
    sked_time running_since; /* when the open attempt started */
    sked_time completed_at;  /* when the completed attempt ended */
    const char *output;      /* borrowed from the records */
    bool compensated;        /* its compensation completed or ran out */
    int32_t comp_last_attempt;
    int32_t comp_counted; /* compensation attempts that ended */
} sked_step_state;

/* Fill STATES (one per step of W, in its order) from the N attempt
 * records REC of one run. Attempts closed as "lease_expired" or
 * "interrupted" (a server died or stopped) do not count against the
 * step's retries: they were not the step's failure. Records of unknown
 * steps are ignored. */
void sked__plan_states(const sked_workflow *w, const sked_step_record *rec,
                       size_t n, sked_step_state *states);

/* The workflow timeout (SPEC 4.3) at NOW for a run started at STARTED. */
typedef enum sked_timeout_state {
    SKED_TIMEOUT_OK = 0,   /* no timeout, or elapsed <= seconds */
    SKED_TIMEOUT_FAIL = 1, /* elapsed > seconds, fail_workflow */
    SKED_TIMEOUT_SOFT = 2, /* elapsed > seconds, fail_workflow false */
} sked_timeout_state;

sked_timeout_state sked__plan_timeout(const sked_workflow *w, sked_time started,
                                      sked_time now);

/* The instant a running step is stopped for the workflow's timeout, the
 * first at which elapsed > seconds: started + seconds + 1 µs when the
 * timeout is hard and fails the workflow, else SKED_TIME_NONE. A run
 * waiting past it is woken then, to fail. */
sked_time sked__plan_hard_deadline(const sked_workflow *w, sked_time started);

/* The earlier of two deadlines, NONE meaning none. */
sked_time sked__plan_min_deadline(sked_time a, sked_time b);

/* Where a run stands. */
typedef enum sked_plan_state {
    SKED_PLAN_READY = 0,  /* READY[0..*n) may start now */
    SKED_PLAN_DONE = 1,   /* every step completed */
    SKED_PLAN_FAILED = 2, /* a step ran out of attempts: *failed is it */
    SKED_PLAN_BUSY = 3,   /* nothing can start until a running one ends
                             or MAX leaves room */
} sked_plan_state;

/* Decide what can start: steps not completed, not exhausted, not in
 * BUSY (one flag per step: started and not ended in this process), whose
 * needs all completed, in definition order, at most MAX. */
sked_plan_state sked__plan_next(const sked_workflow *w,
                                const sked_step_state *states, const bool *busy,
                                size_t *ready, size_t max, size_t *n,
                                size_t *failed);

/* How an attempt failed, as retry_on sees it. */
typedef struct sked_failure {
    bool has_code; /* an exit code (exec), a return value (C), a status
                      (http); false for a timeout, a spawn failure, ... */
    int32_t code;
} sked_failure;

/* Decide whether attempt ATTEMPT (1-based, counted) that failed with F
 * is retried under R, and after how long (*delay): backoff *
 * multiplier^(attempt-1), capped by max_backoff; with jitter, a value in
 * [delay/2, delay] drawn from KEY (the step key and attempt), the same
 * on every server. */
bool sked__plan_retry(const sked_retry_def *r, int32_t attempt,
                      const sked_failure *f, const char *key, sked_dur *delay);

/* The steps whose compensation must run, in the order to run them: the
 * completed steps with a compensation not yet done, latest completion
 * first (ties: later in the definition first). Writes at most
 * W->nsteps indexes into ORDER; returns their count. */
size_t sked__plan_compensations(const sked_workflow *w,
                                const sked_step_state *states, size_t *order);

#endif
