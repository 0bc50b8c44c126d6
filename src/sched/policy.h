/* SPDX-License-Identifier: MIT */
/* Firing decisions, as pure functions (SPEC 3.3 catch-up, 3.4 overlap).
 *
 * Given a schedule (its time spec, zone, policies, bounds and cursor), the
 * time now and the scheduler's tick, sked__policy_plan decides every
 * occurrence after the cursor up to now: which fire (on time, or late as
 * catch-up), which are dropped and why, where the cursor moves, and when
 * the next occurrence is due. It reads no clock, no store and no global:
 * the scheduler loop, backfill and the simulator all call it, so what
 * `sked schedule simulate` prints is what the server does.
 *
 * Words: an occurrence is on time when it is less than the grace old
 * (twice the tick, at least a minute); otherwise it is late. The window
 * (catchup_window, never narrower than the grace) bounds every policy. */
#ifndef SKED_SCHED_POLICY_H
#define SKED_SCHED_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "sked/schedule.h"
#include "store/store.h"

/* Why an occurrence was not fired: the reason strings of SPEC 3.3/3.4. */
typedef enum sked_miss_reason {
    SKED_MISS_CATCHUP_SKIP = 0,   /* "catchup_skip" */
    SKED_MISS_SUPERSEDED = 1,     /* "superseded" */
    SKED_MISS_CATCHUP_MAX = 2,    /* "catchup_max" */
    SKED_MISS_OUTSIDE_WINDOW = 3, /* "outside_window" */
    SKED_MISS_OVERLAP = 4,        /* "overlap" */
    SKED_MISS__COUNT = 5,
} sked_miss_reason;

/* Return the SPEC name of R; never NULL. */
const char *sked__miss_reason_name(sked_miss_reason r);

/* The dropped occurrences of one reason in one decision. */
typedef struct sked_missed {
    int64_t count;
    sked_time first, last; /* NONE when count is 0 */
} sked_missed;

/* One occurrence to fire. */
typedef struct sked_fire {
    sked_time occurrence;
    sked_trigger trigger; /* SKED_TRIGGER_CRON on time, _CATCHUP late */
    int buffered;         /* overlap buffer_one / buffer_all: it waits */
    int cancel_active;    /* overlap cancel_other: cancel the active run */
} sked_fire;

typedef struct sked_policy_in {
    const sked_schedule *s; /* borrowed: spec, policies, bounds, cursor
                               (last_fired_at), runs_created, status */
    const sked_tz *tz;      /* borrowed: the schedule's zone */
    sked_time now;
    sked_dur tick;     /* the scheduler's tick; the grace is derived */
    int active_runs;   /* runs of the schedule active now (its key) */
    int buffered_runs; /* of them, waiting as an overlap buffer */
} sked_policy_in;

typedef struct sked_policy_out {
    sked_fire *fires; /* owned: nfires, oldest first; sked__policy_done */
    size_t nfires;
    sked_missed missed[SKED_MISS__COUNT];
    sked_time cursor; /* the new last_fired_at: the last decided one */
    sked_time next;   /* the next occurrence after cursor; NONE: none */
    int done;         /* the schedule has nothing left to fire (at: fired,
                         max_runs reached, end_at passed) */
} sked_policy_out;

/* Decide every occurrence of IN->s after its cursor and at or before
 * IN->now (SPEC 3.3, 3.4; start_at/end_at and max_runs of 3.2). Bounded:
 * occurrences older than the window are counted, not listed, and the
 * whole call visits at most a bounded number of occurrences (a cursor far
 * in the past resumes from the window's start). A paused, disabled or
 * done schedule decides nothing. OUT is written on success only, and its
 * fires are freed with sked__policy_done. Returns 0, SKED_EINVAL (a
 * schedule whose spec does not load), SKED_ENOMEM. */
int sked__policy_plan(const sked_policy_in *in, sked_policy_out *out);

/* Free what sked__policy_plan allocated in OUT. NULL does nothing. */
void sked__policy_done(sked_policy_out *out);

/* Return the on-time grace for TICK: twice the tick, at least 60 s. */
sked_dur sked__policy_grace(sked_dur tick);

/* Return the deterministic delay in [0, JITTER] of the run RUN_ID (SPEC
 * 3.2: every server computes the same one). */
sked_dur sked__policy_jitter(const char *run_id, sked_dur jitter);

#endif
