/* SPDX-License-Identifier: MIT */
/* The engine: a store, a zone database and the scheduler, in one handle.
 *
 * sked_engine_open opens the store at a URL and loads the schedules;
 * sked_engine_start starts the scheduler thread, which keeps every active
 * schedule's next occurrence in a heap, sleeps until the earliest, and
 * fires it (SPEC 3.2): the runs and the cursor move in one transaction,
 * so any number of engines on one database fire each occurrence once.
 * Changes made through this engine apply at once; changes made by others
 * are reread every tick (and at once on PostgreSQL, by LISTEN/NOTIFY).
 *
 * Every function here is thread-safe. libsked never logs: what happened
 * is reported as events, to subscribers and in the store. */
#ifndef SKED_ENGINE_H
#define SKED_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "sked/clock.h"
#include "sked/error.h"
#include "sked/schedule.h"
#include "sked/time.h"
#include "sked/workflow.h"

typedef struct sked_engine sked_engine;

#define SKED_TICK_DEFAULT (SKED_USEC_PER_SEC)
#define SKED_BACKFILL_MAX 100000

typedef struct sked_engine_options {
    const char *db_url;             /* NULL: "sqlite:sked.db" */
    const char *tzdir;              /* NULL: $TZDIR, else the system's */
    sked_dur tick;                  /* 0: SKED_TICK_DEFAULT */
    const sked_clock *clock;        /* NULL: the real clock; borrowed */
    const char *node_id;            /* names this engine in runs and events;
                                       NULL: "hostname:pid" */
    const char *sqlite_synchronous; /* NULL: "full" */
    int workers;     /* worker threads sked_engine_start runs: 0 means
                        SKED_WORKERS_DEFAULT, a negative number none (an
                        engine that only schedules) */
    sked_dur lease;  /* a claimed run's lease (SPEC 4.2); 0: 30 s */
    const char *app; /* the app this program's code schedules belong to
                        (SPEC 3.5 code sync: only its own are synced and
                        pruned), a name; NULL: SKED_APP_DEFAULT */
} sked_engine_options;

/* The app of code schedules when none is named. */
#define SKED_APP_DEFAULT "default"

#define SKED_WORKERS_DEFAULT 4

/* Open an engine on OPTS->db_url (OPTS may be NULL) and load its
 * schedules; no thread runs yet. OUT: *out, closed with
 * sked_engine_close. Returns 0 or the store's errors (SKED_EINVAL for a
 * malformed URL, SKED_EIO, SKED_ECONFLICT for a newer database). */
SKED_API int sked_engine_open(const sked_engine_options *opts,
                              sked_engine **out, sked_error *err);

/* Start the scheduler thread and the workers. First, unless
 * sked_engine_sync was called, sync the schedules declared by the
 * registered workflows (SPEC 3.5 code sync), and record the registered
 * workflows' versions and queues in the store. Returns 0, SKED_EINVAL
 * (already started), SKED_ENOMEM, or the store's errors. */
SKED_API int sked_engine_start(sked_engine *e, sked_error *err);

/* Stop the threads (waiting for a firing in progress to commit) and free
 * everything. NULL does nothing. */
SKED_API void sked_engine_close(sked_engine *e);

/* Run one scheduler pass now: reread changes, then decide and fire every
 * schedule that is due at the clock's time. For tests on a virtual clock
 * and for embedders that drive their own loop; needs no thread. */
SKED_API int sked_engine_tick(sked_engine *e, sked_error *err);

/* Return the earliest next occurrence the scheduler waits for, or
 * SKED_TIME_NONE when nothing is scheduled. */
SKED_API sked_time sked_engine_next_wakeup(sked_engine *e);

/* ---- schedules (validated first; nothing written on error) ---------- */

/* SPEC 3.5: write into BUF (SIZE bytes) the warning that no server has
 * registered WORKFLOW yet, or "" when one has or the store cannot say
 * (a warning, never a failure of the write it follows). */
SKED_API void sked_engine_workflow_warning(sked_engine *e, const char *workflow,
                                           char *buf, size_t size);

SKED_API int sked_engine_schedule_create(sked_engine *e, const sked_schedule *s,
                                         sked_error *err);
SKED_API int sked_engine_schedule_update(sked_engine *e, const sked_schedule *s,
                                         sked_error *err);
/* Idempotent: deleting a missing schedule returns 0. */
SKED_API int sked_engine_schedule_delete(sked_engine *e, const char *name,
                                         sked_error *err);
/* Read NAME into *out (the caller calls sked_schedule_done). */
SKED_API int sked_engine_schedule_get(sked_engine *e, const char *name,
                                      sked_schedule *out, sked_error *err);
SKED_API int sked_engine_schedule_pause(sked_engine *e, const char *name,
                                        sked_error *err);
/* Resume NAME: the next occurrence is computed from now, no catch-up. */
SKED_API int sked_engine_schedule_resume(sked_engine *e, const char *name,
                                         sked_error *err);

/* Create one run of NAME now (SPEC 3.5: trigger kind manual,
 * scheduled_for null, works while paused). OUT_RUN_ID (may be NULL)
 * receives the run id, freed with sked_free. Returns 0, SKED_ENOTFOUND,
 * SKED_ECONFLICT (overlap skip and a run is active). */
SKED_API int sked_engine_trigger(sked_engine *e, const char *name,
                                 char **out_run_id, sked_error *err);

typedef struct sked_backfill_result {
    size_t created; /* runs created by this call */
    size_t skipped; /* occurrences whose run already existed */
} sked_backfill_result;

/* Called as backfill progresses: DONE of TOTAL occurrences handled. */
typedef void (*sked_progress_fn)(void *ctx, size_t done, size_t total);

/* Create the runs of every occurrence of NAME in the open interval
 * (START, END), with the ids of live firing (SPEC 3.5). At most
 * SKED_BACKFILL_MAX occurrences. PROGRESS may be NULL. Returns 0,
 * SKED_ENOTFOUND, SKED_EINVAL (reversed or empty range, field "start" or
 * "end"), SKED_ERANGE (over the cap). */
SKED_API int sked_engine_backfill(sked_engine *e, const char *name,
                                  sked_time start, sked_time end,
                                  sked_progress_fn progress, void *ctx,
                                  sked_backfill_result *out, sked_error *err);

/* Apply a set of schedules declared by code or a workflows file (SPEC
 * 3.5 code sync) as the engine's app (the option "app"): create new
 * ones, update changed ones, delete the app's code schedules not in the
 * set. Schedules of source api, and other apps' code schedules, are left
 * alone; a name one of them has is SKED_ECONFLICT. Once called,
 * sked_engine_start no longer syncs the registered workflows' schedules (the
 * caller owns the set). */
SKED_API int sked_engine_sync(sked_engine *e, const sked_schedule *set,
                              size_t n, sked_error *err);

/* ---- workflows and runs (SPEC 4) ---------------------------------------*/

/* Register W with E, which takes it (also on failure). Its version is
 * the given one or its hash. Register before sked_engine_start; a
 * workflow registered again replaces the earlier one (runs in flight
 * keep theirs). Returns 0, SKED_EINVAL, SKED_ENOMEM. */
SKED_API int sked_engine_register(sked_engine *e, sked_workflow *w,
                                  sked_error *err);

/* Start a run of WORKFLOW now (trigger "api") with INPUT_JSON (a JSON
 * object; NULL: {}) as its context. IDEMPOTENCY_KEY (may be NULL) makes
 * the run's id "api-{workflow}-key-{key}": starting the same workflow
 * again with the same key returns the same run and creates nothing.
 * Otherwise the id is "api-{workflow}-{now with microseconds}". OUT_RUN_ID (may
 * be NULL) receives the id (sked_free). Returns 0, SKED_EINVAL (field "input"
 * or "workflow"), SKED_EIO. */
SKED_API int sked_engine_run_start(sked_engine *e, const char *workflow,
                                   const char *input_json,
                                   const char *idempotency_key,
                                   char **out_run_id, sked_error *err);

/* Cancel run ID (SPEC 4.3): a pending run at once; a running or waiting
 * one has its step stopped and its compensations run, then ends
 * cancelled. Returns 0, SKED_ENOTFOUND, SKED_ECONFLICT (already
 * finished). */
SKED_API int sked_engine_run_cancel(sked_engine *e, const char *id,
                                    sked_error *err);

/* Run ID as JSON (with its steps' attempts) into *out_json (sked_free).
 * Returns 0, SKED_ENOTFOUND. */
SKED_API int sked_engine_run_get(sked_engine *e, const char *id,
                                 char **out_json, sked_error *err);

typedef struct sked_run_query {
    const char *status;   /* "pending", ... ; NULL: any */
    const char *schedule; /* NULL: any */
    const char *workflow; /* NULL: any */
    const char *cursor;   /* from the previous page; NULL: the newest */
    size_t limit;         /* 1..1000; 0: 100 */
} sked_run_query;

/* Runs matching Q (NULL: all), newest first, as a JSON object
 * {"runs":[...],"next_cursor":"..."|null} into *out_json (sked_free). */
SKED_API int sked_engine_run_list(sked_engine *e, const sked_run_query *q,
                                  char **out_json, sked_error *err);

/* Every workflow some engine on this database registered, at its latest
 * version, as {"workflows":[{"name","version","registered_at",
 * "definition"}]} into *out_json (sked_free). */
SKED_API int sked_engine_workflow_list(sked_engine *e, char **out_json,
                                       sked_error *err);

/* Every queue (SPEC 4.2) with its limits and depth, by name, as
 * {"queues":[{"name","concurrency","worker_concurrency","rate_limit",
 * "rate_period_secs","pending","running"}]} into *out_json (sked_free);
 * limits not set are null, "pending" counts pending and waiting runs. */
SKED_API int sked_engine_queue_list(sked_engine *e, char **out_json,
                                    sked_error *err);

/* ---- health and metrics --------------------------------------------------*/

/* Return 0 when the store answers a query now, its schema is current
 * and the engine's own work on it (firing, claiming, renewing leases,
 * recording results) does not fail (GET /readyz). Else SKED_EBUSY (that
 * work fails: err->msg names the cause, what fails and since when) or the
 * probe's error (SKED_EBUSY, SKED_ESTALE, ...). err->msg never names the
 * database's file, host, port or name: a client may read it. */
SKED_API int sked_engine_ready(sked_engine *e, sked_error *err);

/* The engine's metrics (SPEC 5) in the Prometheus text exposition format
 * (version 0.0.4) into *out_text (sked_free): counters since the engine
 * opened, gauges read now (queue depths and schedules by status from the
 * store, busy workers from the pool). */
SKED_API int sked_engine_metrics(sked_engine *e, char **out_text,
                                 sked_error *err);

/* ---- events ------------------------------------------------------------*/

/* One event as subscribers see it; every pointer is borrowed for the
 * duration of the callback. */
typedef struct sked_event_view {
    int64_t id;          /* the store's id; 0 for events not stored */
    const char *type;    /* "schedule.occurrences_missed" */
    const char *subject; /* a schedule name or a run id */
    const char *payload; /* JSON object text */
    sked_time at;
} sked_event_view;

/* Up to LIMIT (1..1000; 0: 100) stored events with an id above
 * AFTER_ID, oldest first, as {"events":[{"id","type","subject",
 * "payload","at"}],"next_cursor":"ID"|null} into *out_json (sked_free).
 * Events written by every engine on the database are listed. */
SKED_API int sked_engine_event_list(sked_engine *e, int64_t after_id,
                                    size_t limit, char **out_json,
                                    sked_error *err);

typedef void (*sked_event_fn)(void *ctx, const sked_event_view *ev);
typedef struct sked_subscription sked_subscription;

/* Call FN(CTX, ev) for every event this engine emits, from the thread
 * that emits it, after the event is committed. FN must not call back into
 * the engine. OUT: *out for sked_unsubscribe. */
SKED_API int sked_subscribe(sked_engine *e, sked_event_fn fn, void *ctx,
                            sked_subscription **out, sked_error *err);
SKED_API void sked_unsubscribe(sked_engine *e, sked_subscription *sub);

#endif
