/* SPDX-License-Identifier: MIT */
/* The executor (SPEC 4.3): one claimed run carried from where it stands
 * to its end, or to a wait.
 *
 * It reads the run's recorded attempts, asks plan.c what may start,
 * runs attempts (attempt.c; in threads when the workflow's parallelism
 * allows), and records every transition through the journal, with its
 * event. The order of writes is the guarantee: a command's or a
 * request's attempt is committed before it acts, and a step's end before
 * the next step starts, so a recovered run resumes at its first step not
 * completed and numbers its next attempt past the one cut off;
 * everything else shares commits freely.
 *
 * A run leaves the executor finished (completed, failed, cancelled),
 * waiting (a retry's backoff or a durable sleep of a second or more: the
 * run is released, and any worker takes it when it is due), or stopped
 * by its cancellation flag with SKED_STOP_SHUTDOWN or SKED_STOP_LOST
 * (the worker pool gives it back, or someone else owns it now). */
#ifndef SKED_EXEC_EXECUTOR_H
#define SKED_EXEC_EXECUTOR_H

#include "base/cancel.h"
#include "base/order.h"
#include "exec/journal.h"
#include "exec/registry.h"
#include "store/store_run.h"

/* Waits shorter than this are slept in the worker; longer ones release
 * the run (a durable wait). */
#define SKED_DURABLE_WAIT_MIN SKED_USEC_PER_SEC

typedef struct sked_exec_env {
    sked_store *store;
    sked_journal *journal;
    sked_registry *registry;
    const sked_clock *clock;
    const char *executor; /* the node id that holds the runs */
    sked_order *order;    /* a claim's events wait for the creations
                             committed before it (may be NULL) */
} sked_exec_env;

/* Execute RUN, claimed by ENV->executor. CANCEL is the run's flag (set
 * by a cancel request, the engine stopping, or a lost lease). */
void sked__execute(const sked_exec_env *env, const sked_run *run,
                   const sked_cancel *cancel);

#endif
