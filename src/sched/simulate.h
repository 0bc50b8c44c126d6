/* SPDX-License-Identifier: MIT */
/* Replaying a period on virtual time through the real policy (SPEC 3.5,
 * simulate): what `sked schedule simulate` prints.
 *
 * The server of the replay decides the way the loop does: at each
 * occurrence while it runs, and, when it is down, once at the end of each
 * down interval with the backlog. Each decision is sked__policy_plan at
 * that instant. Runs last run_duration from their decision, so overlap
 * policies show: the replay keeps the active runs and the buffered ones
 * the way the engine would (a buffered run starts when the one before it
 * ends; cancel_other ends every active run at once). Jitter is not
 * applied to run starts.
 *
 * The replay starts as if the schedule had decided everything up to
 * `from` with no run active: active, runs_created 0, whatever its stored
 * status, cursor and counters. Occurrences in (from, to] are decided. */
#ifndef SKED_SCHED_SIMULATE_H
#define SKED_SCHED_SIMULATE_H

#include <stddef.h>

#include "sched/policy.h"

/* Most records one replay produces: a longer period is refused. */
#define SKED_SIM_RECORDS_MAX 1000000
/* Most down intervals. */
#define SKED_SIM_DOWN_MAX 1000

/* An interval [from, to) during which the server does not run. */
typedef struct sked_sim_down {
    sked_time from, to;
} sked_sim_down;

/* One decided occurrence. */
typedef struct sked_sim_record {
    sked_time occurrence;
    sked_time scheduled_for; /* when it fires (moved off an excluded day:
                                another day), or when it was dropped */
    int fire;                /* 1: fired (a run), 0: dropped */
    sked_miss_reason why;    /* when dropped */
    sked_trigger trigger;    /* when fired: cron (on time) or catchup */
    int buffered;            /* fired, waiting for the active run */
    int cancel_active;       /* fired, cancelling the active run */
    sked_time at;            /* when the decision was made */
} sked_sim_record;

typedef struct sked_sim_in {
    const sked_schedule *s;     /* borrowed: the definition replayed */
    const sked_tz *tz;          /* borrowed: its zone (NULL: UTC) */
    const sked__occ_days *days; /* borrowed: its calendars (NULL: none) */
    sked_time from, to;         /* the period (from, to]; from < to */
    const sked_sim_down *down;  /* borrowed: ndown intervals, any order */
    size_t ndown;
    sked_dur tick;         /* the server's tick (the grace is derived) */
    sked_dur run_duration; /* how long each run lasts, >= 0 */
    size_t max_records;    /* 0: SKED_SIM_RECORDS_MAX */
} sked_sim_in;

typedef struct sked_sim_out {
    sked_sim_record *records; /* owned: n, oldest first */
    size_t n;
} sked_sim_out;

/* Replay IN into *out (free with sked__simulate_done). Returns 0, or
 * SKED_EINVAL with err->field naming what is wrong ("to": not after
 * from; "down[i]": empty, reversed, outside the period or overlapping
 * another; "run_duration", "tick": negative), SKED_ETOOBIG (more than
 * max_records occurrences; err->field "to"), SKED_ENOMEM, or the
 * policy's SKED_EINVAL (a spec that does not load; err->field "cron").
 * *out is written on success only. */
int sked__simulate(const sked_sim_in *in, sked_sim_out *out, sked_error *err);

/* Free what sked__simulate allocated in OUT. NULL does nothing. */
void sked__simulate_done(sked_sim_out *out);

#endif
