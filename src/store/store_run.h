/* SPDX-License-Identifier: MIT */
/* The store's side of execution (SPEC 4): claiming runs with leases,
 * recording steps and outcomes, cancelling, reading runs back, queues and
 * workflow versions. Schema: src/store/schema/<dialect>/0003_execution.sql.
 * Implemented by store_claim.c (claim, leases), store_run_ops.c
 * (recording), store_run.c (cancel, reading) and store_queue.c.
 *
 * Words: the "executor" is the node id of the engine that holds a run
 * (runs.executor) until lease_until; a run "belongs" to an executor while
 * its status is running and runs.executor names it. Every write an
 * executor makes about a run is fenced: it applies only while the run
 * still belongs to it, so an executor that lost its lease (paused, cut
 * off) can never overwrite the work of the one that recovered the run.
 *
 * Every function here writes its events in the same transaction as its
 * change and hands them back (OUT_EVENTS, may be NULL, freed with
 * sked__events_free) for delivery to subscribers after the commit. */
#ifndef SKED_STORE_STORE_RUN_H
#define SKED_STORE_STORE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* ---- claiming ------------------------------------------------------ */

/* One workflow this executor can run. */
typedef struct sked_claim_workflow {
    const char *name;
    const char *version;
    bool latest; /* VERSION is the latest registered: the executor may
                    also take runs with no version (SPEC 4.2 routing) */
} sked_claim_workflow;

/* A per-server cap: at most FREE more runs of QUEUE for this executor
 * (worker_concurrency minus what it runs now). */
typedef struct sked_claim_cap {
    const char *queue;
    int32_t free;
} sked_claim_cap;

typedef struct sked_claim_req {
    const char *executor;
    sked_time now;
    sked_dur lease; /* lease_until = now + lease */
    size_t max;     /* 1..SKED_STORE_BATCH_MAX */
    const sked_claim_workflow *workflows;
    size_t nworkflows;
    const sked_claim_cap *caps; /* queues not listed: no per-server cap */
    size_t ncaps;
    /* The runs EXECUTOR holds now (executing, or claimed and queued): a
     * claim never recovers one of them, whatever its lease says. Its
     * lease lapsed while the database was out of reach, not because its
     * executor died; the heartbeat renews it. */
    const char *const *held;
    size_t nheld;
} sked_claim_req;

/* Claim at most REQ->max runs for REQ->executor, in one transaction:
 * - runs pending or waiting with not_before <= now, and runs running
 *   whose lease_until < now (their executor died: "recovered"), whose
 *   workflow is one of REQ->workflows with the same version, or no
 *   version when that workflow's entry is latest;
 * - in order: priority (lower first), not_before, created_at, id;
 * - a run with a serial_key that is not running yet only when no other
 *   active run with that key is running or comes before it (by
 *   COALESCE(scheduled_for, created_at), then id); a run to recover
 *   already holds its key;
 * - within each queue's limits from the queues table: concurrency (runs
 *   running in the queue across all executors, counting this claim's),
 *   rate_limit per rate_period (runs whose started_at is within the last
 *   period, counting this claim's runs that start); and REQ->caps. A run
 *   to recover is already counted as running (and started): only the
 *   caps and max apply to it;
 * - PostgreSQL: FOR UPDATE SKIP LOCKED on runs, and the queues rows with
 *   a concurrency or rate limit locked in name order before counting, so
 *   limits hold across servers.
 * Each claimed run becomes running, executor REQ->executor, lease_until
 * now + lease, started_at now when it had none, attempts + 1,
 * workflow_version set to the executor's when it had none. A recovered
 * run's step attempts still running are closed as failed with error_code
 * "lease_expired" and error "lease expired: executor X stopped
 * renewing". Events: run.started {"workflow","queue","attempt"} when
 * started_at was NULL; run.recovered {"from": old executor} when
 * recovered. OUT: *out, an array of *n runs (sked__runs_free; NULL when
 * *n is 0), as they are after the claim, in claim order (recovered set
 * where it applies). A run whose cancel_requested_at is set is claimed
 * too: its executor runs the failure path. Returns 0, SKED_EINVAL,
 * SKED_EIO, SKED_ENOMEM.
 *
 * Cost: the claim walks the ready runs in claim order and passes over
 * those it cannot take (a full queue's, a version it does not have, a
 * serial key's queued runs after the first); fine while those number in
 * the thousands. */
int sked__store_runs_claim(sked_store *st, const sked_claim_req *req,
                           sked_run **out, size_t *n, sked_event **out_events,
                           size_t *out_nevents, sked_error *err);

/* Renew the lease of the NHELD runs HELD that still belong to EXECUTOR
 * (lease_until = NOW + LEASE), in one statement. Only the runs the
 * executor really holds in memory are renewed: a run whose last writes
 * were lost lapses and is recovered, instead of being kept forever.
 * CANCEL_IDS (may be NULL) receives the ids of those runs with a cancel
 * requested, an array of *ncancel strings the caller frees (each, then
 * the array). *renewed (may be NULL) is the number of runs renewed. */
int sked__store_runs_renew(sked_store *st, const char *executor,
                           const char *const *held, size_t nheld, sked_time now,
                           sked_dur lease, size_t *renewed, char ***cancel_ids,
                           size_t *ncancel, sked_error *err);

/* Give back every run that belongs to EXECUTOR without finishing it
 * (a server stopping): status pending (waiting if it has a not_before
 * in the future), executor and lease NULL, its running step attempts
 * closed as "cancelled" with error_code "interrupted". Another executor
 * resumes them at once, at their first step not completed. */
int sked__store_runs_release(sked_store *st, const char *executor,
                             sked_time now, sked_error *err);

/* ---- recording (group commit) ---------------------------------------- */

typedef enum sked_run_op_kind {
    /* Insert the step attempt op->step (status running, started_at). */
    SKED_RUN_OP_STEP_BEGIN = 0,
    /* Update the attempt (op->step.step, .compensation, .attempt) to its
     * final status, output, stderr_text, truncated, error, error_code,
     * exit_code and finished_at. */
    SKED_RUN_OP_STEP_END = 1,
    /* The run waits (retry backoff, durable sleep): status waiting,
     * not_before op->not_before, executor and lease NULL. */
    SKED_RUN_OP_WAIT = 2,
    /* Enter the failure path: outcome op->status (failed or cancelled),
     * error op->error, error_code op->error_code. */
    SKED_RUN_OP_FAILING = 3,
    /* The soft workflow timeout passed: timeout_exceeded_at = op->at. */
    SKED_RUN_OP_TIMEOUT_MARK = 4,
    /* Finish: status op->status (completed, failed or cancelled), output
     * op->output, error, error_code (NULL: those FAILING recorded are
     * kept), finished_at op->at, executor and lease NULL. For a run of a
     * schedule (when the schedule still
     * exists): completed resets schedules.consecutive_failures to 0;
     * failed adds 1, and when pause_after_failures > 0 is reached the
     * schedule is paused, with last_error "paused after N consecutive
     * failed runs" and the event schedule.paused {"name","reason"};
     * cancelled leaves the count alone. */
    SKED_RUN_OP_FINISH = 5,
} sked_run_op_kind;

/* One event an op writes with its change (borrowed strings). */
typedef struct sked_run_op_event {
    const char *type;
    const char *subject; /* NULL: the op's run id */
    const char *payload; /* JSON object text, written as given (the
                            store does not parse it again); NULL: {} */
} sked_run_op_event;

#define SKED_RUN_OP_EVENTS_MAX 3
/* Most ops one sked__store_run_ops call takes. */
#define SKED_RUN_OPS_MAX (4 * SKED_STORE_BATCH_MAX)

/* One change to one run by the executor that holds it. Strings borrowed. */
typedef struct sked_run_op {
    sked_run_op_kind kind;
    const char *run_id;
    const char *executor;   /* the fence: applies only while the run belongs
                               to this executor */
    sked_time at;           /* when it happened (finished_at, the mark, the
                               events' time); NONE: now */
    sked_step_record step;  /* BEGIN, END */
    sked_time not_before;   /* WAIT */
    sked_run_status status; /* FAILING, FINISH */
    const char *output, *error, *error_code; /* FAILING, FINISH */
    sked_run_op_event events[SKED_RUN_OP_EVENTS_MAX];
    size_t nevents;
} sked_run_op;

/* Apply the N ops (N <= SKED_RUN_OPS_MAX) in order, in ONE
 * transaction (one commit for many workers: the executor's group
 * commit). An op whose run no longer belongs to its executor writes
 * nothing and gets SKED_ECONFLICT in RESULT[i] (the others still apply);
 * 0 otherwise. RESULT has N entries. An op after a WAIT or FINISH of its
 * run in the same batch therefore fails its fence. A step attempt is
 * begun at most once and ended at most once (STEP_END alone also records
 * it, started_at op->step.started_at, else op->at). Returns 0, or a code
 * with nothing written (SKED_EINVAL, SKED_EIO, SKED_ENOMEM). */
int sked__store_run_ops(sked_store *st, const sked_run_op *ops, size_t n,
                        int *result, sked_event **out_events,
                        size_t *out_nevents, sked_error *err);

/* ---- cancel --------------------------------------------------------- */

/* Cancel run ID (SPEC 4.3). A pending (or waiting) run that never
 * started becomes cancelled at once (finished_at NOW, error "Cancelled.",
 * error_code "cancelled", cancel_requested_at NOW, event run.cancelled
 * {"workflow","schedule","reason":"cancel"}). A running run, or a waiting
 * or pending one that started before (which may have completed steps to
 * compensate), gets cancel_requested_at NOW (one not running also
 * not_before NOW, so a worker takes it and runs its failure path); the
 * executor finishes it, and writes run.cancelled then. Asking again is a
 * no-op. *status (may be NULL) is the status after the call. Returns 0,
 * SKED_ENOTFOUND, SKED_ECONFLICT (already finished: err->msg "run X is
 * already completed"). */
int sked__store_run_cancel(sked_store *st, const char *id, sked_time now,
                           sked_run_status *status, sked_event **out_events,
                           size_t *out_nevents, sked_error *err);

/* ---- reading -------------------------------------------------------- */

/* Read run ID into *out; STEPS (may be NULL) receives every step attempt
 * ordered by started_at, then step, compensation, attempt (an array of
 * *nsteps, sked__step_records_free). SKED_ENOTFOUND. */
int sked__store_run_get(sked_store *st, const char *id, sked_run *out,
                        sked_step_record **steps, size_t *nsteps,
                        sked_error *err);

typedef struct sked_run_filter {
    int status;           /* a sked_run_status, or -1: any */
    const char *schedule; /* NULL: any */
    const char *workflow; /* NULL: any */
    /* The cursor: runs strictly before (created_at, id) in the order
     * below; before_id NULL: from the newest. */
    sked_time before_created;
    const char *before_id;
    size_t limit; /* 1..SKED_STORE_LIST_MAX; 0: 100 */
} sked_run_filter;

/* List runs matching F, newest first (created_at DESC, id DESC). *out as
 * for sked__run_get's runs (sked__runs_free); *more when more follow. */
int sked__store_run_list(sked_store *st, const sked_run_filter *f,
                         sked_run **out, size_t *n, bool *more,
                         sked_error *err);

/* ---- queues and workflow versions ------------------------------------ */

typedef struct sked_queue_def {
    const char *name;
    int32_t concurrency;        /* 0: unlimited (NULL) */
    int32_t worker_concurrency; /* 0: unlimited */
    int32_t rate_limit;         /* 0: none */
    sked_dur rate_period;
} sked_queue_def;

/* Create or replace the N queues Q (source code), in one transaction.
 * Queues not in Q are kept. */
int sked__store_queues_put(sked_store *st, const sked_queue_def *q, size_t n,
                           sked_error *err);

/* One queue with its depth, sked_queue_info, is public: sked/run.h. */

/* Every queue of the queues table, and every queue named by an active
 * run, by name (limits 0 for the latter); not "", the queue of the
 * heartbeat runs awaiting a ping, which no executor serves. */
int sked__store_queues_list(sked_store *st, sked_queue_info **out, size_t *n,
                            sked_error *err);
void sked__queue_infos_free(sked_queue_info *list, size_t n);

/* What the last runs of one schedule say of it (sked_schedule_*_timestamp
 * metrics): when it last made a run, and when its latest completed run
 * finished; SKED_TIME_NONE for none. */
typedef struct sked_schedule_fresh {
    char *name; /* owned */
    sked_time last_run;
    sked_time last_success;
} sked_schedule_fresh;

/* The freshness of every schedule, by name. */
int sked__store_schedules_fresh(sked_store *st, sked_schedule_fresh **out,
                                size_t *n, sked_error *err);
void sked__schedule_fresh_free(sked_schedule_fresh *list, size_t n);

/* Record that an executor has VERSION of WORKFLOW, with its DEFINITION
 * (JSON text; NULL: {}): insert, or on a known (workflow, version) set
 * registered_at to now, which makes it the latest. */
int sked__store_workflow_register(sked_store *st, const char *workflow,
                                  const char *version, const char *definition,
                                  sked_error *err);

/* The latest registered version of WORKFLOW into *out (caller frees);
 * SKED_ENOTFOUND when none. */
int sked__store_workflow_latest(sked_store *st, const char *workflow,
                                char **out, sked_error *err);

/* SPEC 3.5: a schedule may name a workflow no server has registered
 * yet, and the CLI and API warn. Write that warning about WORKFLOW into
 * BUF (SIZE bytes), or "" when some server has registered it. Returns 0
 * or the store's error. */
int sked__store_workflow_warning(sked_store *st, const char *workflow,
                                 char *buf, size_t size, sked_error *err);

/* Every workflow's latest registered version, by name, as JSON text
 * (caller frees): [{"name","version","registered_at" (µs since the
 * epoch),"definition"}]. */
int sked__store_workflows_list(sked_store *st, char **out, sked_error *err);

#endif
