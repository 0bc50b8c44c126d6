/* SPDX-License-Identifier: MIT */
/* The worker pool (SPEC 4.2, ARCHITECTURE 4): N threads executing runs,
 * a dispatcher claiming them in batches, and a heartbeat renewing their
 * leases.
 *
 * The dispatcher claims as many runs as there are free workers (and as
 * many again, so a worker never waits for a claim), within each queue's
 * per-server cap, and sleeps when nothing is claimable until woken (runs
 * created by this engine) or the poll interval passes (runs of other
 * servers, waits coming due). The heartbeat renews every lease this
 * engine holds in one statement each lease/3, turns cancel requests into
 * the runs' cancellation flags, refreshes version routing, and deletes
 * events past their retention. Stopping
 * gives every unfinished run back to the database, where any engine
 * resumes it at its first step not completed. */
#ifndef SKED_EXEC_WORKERS_H
#define SKED_EXEC_WORKERS_H

#include "exec/executor.h"

#define SKED_LEASE_DEFAULT (30 * SKED_USEC_PER_SEC)
#define SKED_POLL_DEFAULT  (200 * 1000)
#define SKED_WORKERS_MAX   1024
/* Events older than the retention are deleted (SPEC 5), checked every
 * hour; by default those of 7 days (include/sked/engine.h defines it
 * alike: a compiler refuses two different definitions where both are
 * seen). */
#define SKED_RETENTION_DEFAULT (INT64_C(7) * 86400 * SKED_USEC_PER_SEC)
#define SKED_PRUNE_EVERY       (INT64_C(3600) * SKED_USEC_PER_SEC)

typedef struct sked_workers sked_workers;

typedef struct sked_workers_config {
    sked_exec_env env;
    int nworkers;       /* 1..SKED_WORKERS_MAX */
    sked_dur lease;     /* 0: SKED_LEASE_DEFAULT */
    sked_dur poll;      /* 0: SKED_POLL_DEFAULT */
    sked_dur retention; /* events kept; 0: SKED_RETENTION_DEFAULT */
    /* Events written by claims (run.started, run.recovered). */
    void (*deliver)(void *ctx, const sked_event *ev, size_t n);
    void *ctx;
} sked_workers_config;

/* Start the pool (CFG is copied; what it points to is borrowed until
 * sked__workers_stop). Returns 0, SKED_EINVAL, SKED_ENOMEM, SKED_EIO. */
int sked__workers_start(const sked_workers_config *cfg, sked_workers **out);

/* Runs may be claimable now: claim at once. */
void sked__workers_wake(sked_workers *w);

/* The worker threads executing a run now (sked_workers_busy); NULL: 0. */
int sked__workers_busy(sked_workers *w);

/* Set the cancellation flag of run ID if a worker here executes it (a
 * cancel made through this engine acts at once; others' act at the next
 * heartbeat). */
void sked__workers_cancel(sked_workers *w, const char *id);

/* The runs an executor holds (sked_claim_req.held). */
typedef struct sked_held {
    const char *const *ids;
    size_t n;
} sked_held;

/* Claim up to MAX runs for ENV->executor with LEASE, of the workflows
 * ENV->registry has, within the per-server CAPS (NCAPS), never one of
 * HELD (may be NULL: none), and hand the claim's events to DELIVER (may
 * be NULL). OUT: *out, *n runs (sked__runs_free). The dispatcher's
 * claim, and sked__engine_work's. */
int sked__claim(const sked_exec_env *env, sked_dur lease, const sked_held *held,
                const sked_claim_cap *caps, size_t ncaps, size_t max,
                void (*deliver)(void *ctx, const sked_event *ev, size_t n),
                void *ctx, sked_run **out, size_t *n, sked_error *err);

/* Stop claiming, stop the runs in flight (SKED_STOP_SHUTDOWN), wait for
 * the workers, commit what they wrote and give every unfinished run
 * back. NULL does nothing. */
void sked__workers_stop(sked_workers *w);

#endif
