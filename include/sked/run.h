/* SPDX-License-Identifier: MIT */
/* Runs, their steps' attempts, the queues they wait in and the workflow
 * versions they run, as a reader of the store sees them (SPEC 4): the
 * statuses and trigger kinds with their words, and the read-only views
 * the engine fills (sked_engine_run_read, sked_engine_workflow_read,
 * sked_engine_queue_read in sked/engine.h).
 *
 * A view borrows every string from the page it came in, until that
 * page's _done function; NULL is a value not set (JSON null). Instants
 * are SKED_TIME_NONE when not set. The views hold what the API's JSON of
 * a run shows (GET /api/v1/runs/{id}), field for field, and sked writes
 * that JSON from them. */
#ifndef SKED_RUN_H
#define SKED_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sked/error.h"
#include "sked/time.h"

typedef enum sked_run_status {
    SKED_RUN_PENDING = 0,
    SKED_RUN_RUNNING = 1,
    SKED_RUN_WAITING = 2,
    SKED_RUN_COMPLETED = 3,
    SKED_RUN_FAILED = 4,
    SKED_RUN_CANCELLED = 5,
} sked_run_status;

typedef enum sked_trigger {
    SKED_TRIGGER_CRON = 0,
    SKED_TRIGGER_CATCHUP = 1,
    SKED_TRIGGER_BACKFILL = 2,
    SKED_TRIGGER_MANUAL = 3,
    SKED_TRIGGER_API = 4,
    /* Expected of a job that runs elsewhere: a ping completes it (a
     * schedule with heartbeat set). */
    SKED_TRIGGER_HEARTBEAT = 5,
} sked_trigger;

typedef enum sked_step_status {
    SKED_STEP_RUNNING = 0,
    SKED_STEP_COMPLETED = 1,
    SKED_STEP_FAILED = 2,
    SKED_STEP_CANCELLED = 3,
} sked_step_status;

/* The words they are stored and shown with ("pending", "cron",
 * "completed"); "unknown" for a value out of range, never NULL. */
SKED_API const char *sked_run_status_name(sked_run_status s);
SKED_API const char *sked_trigger_name(sked_trigger t);

/* What a ping of a heartbeat schedule says of the job it watches
 * (sked_engine_schedule_ping). */
typedef enum sked_ping_status {
    SKED_PING_START = 0,   /* it started */
    SKED_PING_SUCCESS = 1, /* it ended well: the run completes */
    SKED_PING_FAIL = 2,    /* it failed: the run fails */
} sked_ping_status;
SKED_API const char *sked_step_status_name(sked_step_status s);

/* One attempt of one step of a run. */
typedef struct sked_step_view {
    const char *step;  /* the step's name */
    bool compensation; /* an attempt of the step's compensation */
    int32_t attempt;   /* 1, 2, ... per (step, compensation) */
    sked_step_status status;
    int32_t exit_code;                 /* an exec step's; -1 when none */
    sked_time started_at, finished_at; /* finished NONE while running */
    const char *output;                /* stdout, the http body, C's JSON */
    const char *stderr_text;           /* exec steps only */
    bool output_truncated, stderr_truncated;
    const char *error;      /* why it failed */
    const char *error_code; /* "exit", "timeout", "cancelled", ... */
} sked_step_view;

/* One run. Its members are named and ordered as the keys of its JSON
 * (the run's field table, src/model/run_fields.h, checks it as it
 * compiles). CONTEXT and OUTPUT are text: JSON, or for an output a
 * command's stdout. */
typedef struct sked_run_view {
    const char *id, *workflow, *workflow_version;
    sked_run_status status;
    sked_trigger trigger;
    const char *schedule, *queue;
    int32_t priority;
    const char *concurrency_key;
    const char *context, *output;
    const char *error, *error_code; /* why it failed or was cancelled */
    int32_t attempts;               /* times it was claimed */
    const char *executor;           /* the node that runs or ran it */
    /* When it was due to start, and the occurrence of its schedule it was
     * created for: the same instant, unless the occurrence fell on an
     * excluded day and was moved (NONE for manual and API runs). */
    sked_time scheduled_for, occurrence;
    sked_time not_before, created_at, started_at, finished_at;
    sked_time updated_at, lease_until, cancel_requested_at;
    sked_time timeout_exceeded_at;
    /* The deadlines of its schedule (sked/schedule_fields.h: deadline,
     * start_deadline): the next instant one is checked (NONE: none left),
     * and which it missed: NULL, "start", "completion" or
     * "start,completion". */
    sked_time deadline_at;
    const char *deadline_missed;
    /* Its attempts, oldest first, when they were read (one run read by
     * id): then STEPS is not NULL, even with NSTEPS 0. NULL in a list. */
    const sked_step_view *steps;
    size_t nsteps;
} sked_run_view;

/* One queue (SPEC 4.2): its limits (0: not set) and its depth. */
typedef struct sked_queue_info {
    char *name; /* owned by the page it came in */
    int32_t concurrency, worker_concurrency, rate_limit;
    sked_dur rate_period; /* meaningful with a rate limit only */
    int64_t pending;      /* pending and waiting runs */
    int64_t running;
} sked_queue_info;

/* The latest version of a workflow some engine on the database
 * registered. */
typedef struct sked_workflow_info {
    const char *name, *version;
    sked_time registered_at; /* when that version was last registered */
    const char *definition;  /* its definition, JSON object text */
} sked_workflow_info;

/* ---- pages: what a read returns, freed with its one _done function - */

/* A page of runs, newest first. */
typedef struct sked_run_page {
    sked_run_view *items; /* owned: n */
    size_t n;
    const char *next_cursor; /* the cursor of the page after this one
                                when more follow, else NULL */
    void *own_;              /* the page's storage; not for the caller */
} sked_run_page;

typedef struct sked_workflow_page {
    sked_workflow_info *items; /* owned: n */
    size_t n;
    void *own_; /* the page's storage; not for the caller */
} sked_workflow_page;

typedef struct sked_queue_page {
    sked_queue_info *items; /* owned: n */
    size_t n;
} sked_queue_page;

/* Free what a page holds and empty it. NULL does nothing. */
SKED_API void sked_run_page_done(sked_run_page *p);
SKED_API void sked_workflow_page_done(sked_workflow_page *p);
SKED_API void sked_queue_page_done(sked_queue_page *p);

#endif
