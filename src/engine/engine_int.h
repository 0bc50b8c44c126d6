/* SPDX-License-Identifier: MIT */
/* The engine's inside (engine.c), for src/engine/ alone (and tests):
 * every other part of sked reaches the engine through sked/engine.h
 * (tests/lint/layers.py checks it). Not installed. */
#ifndef SKED_ENGINE_ENGINE_INT_H
#define SKED_ENGINE_ENGINE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <pthread.h>

#include "engine/metrics.h"
#include "exec/journal.h"
#include "exec/registry.h"
#include "exec/workers.h"
#include "sched/loop.h"
#include "model/schedule_occ.h"
#include "sked/engine.h"
#include "store/store.h"
#include "store/store_health.h"
#include "store/store_run.h"

struct sked_subscription {
    sked_event_fn fn;
    void *ctx;
    struct sked_subscription *next;
};

struct sked_engine {
    sked_tzdb *tzdb;         /* owned */
    sked_store *store;       /* owned */
    sked_loop *loop;         /* owned */
    const sked_clock *clock; /* borrowed from the options */
    sked_dur tick;
    char *node_id; /* owned */
    char *app;     /* owned: the app of its code schedules */
    pthread_mutex_t sub_mu;
    sked_subscription *subs; /* owned list, under sub_mu */
    sked_order order;        /* run.created before run.started */
    /* Execution (engine_exec.c). */
    sked_registry *registry; /* owned */
    sked_journal *journal;   /* owned; from start */
    sked_workers *workers;   /* owned; from start, when workers > 0 */
    int nworkers;
    sked_dur lease;
    sked_dur retention; /* of events; 0: the workers' default */
    bool synced;        /* sked_engine_sync was called: no code sync at start */
    sked_metrics *metrics;              /* owned; fed by sked__engine_deliver */
    struct sked__notify_thread *notify; /* owned; from start */
};

/* The delivery thread of the notifications (engine_notify.c): started by
 * sked_engine_start, stopped (joined) by sked_engine_close, woken when
 * this engine commits a notifiable event; otherwise it looks for due
 * deliveries every tick, which is how it sees other servers' events. */
int sked__engine_notify_start(sked_engine *e, sked_error *err);
void sked__engine_notify_stop(sked_engine *e);
void sked__engine_notify_wake(sked_engine *e);

/* Claim the due deliveries and attempt each once, in the calling thread:
 * what the delivery thread does at each wake, and what a test drives.
 * *done (may be NULL) is the count attempted. */
int sked__engine_notify_pass(sked_engine *e, size_t *done, sked_error *err);

/* Make the N notifiers SET the code notifiers of APP (the workflows
 * file's), as sked__store_notifiers_sync. */
struct sked_notifier;
int sked__engine_notifiers_sync(sked_engine *e, const char *app,
                                const struct sked_notifier *set, size_t n,
                                size_t *changed, sked_error *err);

/* Set the calling thread's actor to "code:APP" (APP NULL: the default
 * app), the one before copied into SAVED (SKED__ACTOR_MAX + 1 bytes) for
 * sked__actor_set to restore: the changes a sync of code makes. */
void sked__engine_actor_code(const char *app, char *saved);

/* sked_engine_sync as APP, with what changed in *out (may be NULL): the
 * server's sync of its workflows file, whose app the file names. */
int sked__engine_sync_app(sked_engine *e, const char *app,
                          const sked_schedule *set, size_t n,
                          sked_apply_result *out, sked_error *err);

/* Deliver the N committed events EV to every subscriber (engine.c); a
 * run.created wakes the workers. */
void sked__engine_deliver(void *ctx, const sked_event *ev, size_t n);

/* Deliver the one event TYPE about SUBJECT of an operation made through
 * E, at E's clock's now; PAYLOAD (JSON text, NULL: out of memory, nothing
 * delivered) is taken. */
void sked__engine_deliver_one(sked_engine *e, const char *type,
                              const char *subject, char *payload);

/* Create the runs RUNS (N) as sked__store_runs_create does, and deliver
 * their events, in order before any claim's (base/order.h). */
int sked__engine_runs_create(sked_engine *e, const sked_run_new *runs, size_t n,
                             bool strict, sked_run_insert_state *state,
                             sked_error *err);

/* Replace the workflows E runs with the N of LIST (taken, also on
 * failure; the others are dropped, runs in flight keep theirs) and put
 * the NQ QUEUES in the store with their per-server caps: the server's
 * workflows file, at start and on SIGHUP. */
int sked__engine_define(sked_engine *e, sked_workflow **list, size_t n,
                        const sked_queue_def *queues, size_t nq,
                        sked_error *err);

/* Claim up to MAX runs and execute them in the calling thread, one after
 * the other, then wait for their writes: execution driven by a test on a
 * virtual clock, as sked_engine_tick drives the scheduler. *done is the
 * number of runs taken. Needs no sked_engine_start, and is not mixed
 * with it: the first call records the registered workflows' versions in
 * the store, as the start would. */
int sked__engine_work(sked_engine *e, size_t max, size_t *done,
                      sked_error *err);

/* Start and stop the execution side (engine_exec.c). */
int sked__engine_exec_start(sked_engine *e, sked_error *err);
void sked__engine_exec_stop(sked_engine *e);

/* The engine's store, borrowed until sked_engine_close. */
sked_store *sked__engine_store(sked_engine *e);

/* A schedule's fires in a range, through its calendars (engine.c): what
 * a backfill creates. Open with its schedule and zone, then ask for the
 * next fire after an instant; done frees the calendars it holds. */
typedef struct sked__fires {
    const sked_schedule *s; /* borrowed */
    const sked_tz *tz;      /* borrowed */
    struct sked__calbook *book;
    sked__occ_days days;
} sked__fires;
int sked__fires_open(sked_engine *e, const sked_schedule *s, const sked_tz *tz,
                     sked__fires *f, sked_error *err);
/* The first slot of F that fires strictly after T (its at: when; its
 * occurrence: the run's id), within the schedule's bounds; excluded ones
 * are passed over. 0 or SKED_ENOTFOUND, SKED_EINVAL. */
int sked__fires_next(const sked__fires *f, sked_time t, sked__occ_slot *out);
void sked__fires_done(sked__fires *f);

/* The occurrences of SCHEDULE dropped for reason R since the engine
 * opened (sked_schedule_missed_total{schedule,reason}). */
int64_t sked__engine_missed(sked_engine *e, const char *schedule,
                            sked_miss_reason r);

/* Call FN for every (schedule, reason) with a count above 0, under the
 * loop's lock: FN must not call back into the engine. */
void sked__engine_missed_each(sked_engine *e, sked_missed_fn fn, void *ctx);

/* The database clock minus the engine's (sked_clock_skew_seconds), as
 * last measured; false when not measured (SQLite). SPEC 3.2: over 1 s,
 * the server logs a warning. */
bool sked__engine_clock_skew(sked_engine *e, sked_dur *out);

/* Tell whether the engine's background work fails on the store now, and
 * which of it failed longest (*out may be NULL): what the server logs,
 * and why GET /readyz answers 503. */
bool sked__engine_fault(sked_engine *e, sked_store_fault *out);

#endif
