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
 * (catchup_window, never narrower than the grace) bounds every policy.
 * The cursor is the last occurrence decided (fired or dropped).
 *
 * Where a plan starts: after last_fired_at, or after next_fire_at - 1
 * when that is later (the store moves next_fire_at to the first
 * occurrence after now when a schedule is created, resumed or updated:
 * SPEC 3.3, a resumed schedule is never caught up). A schedule with
 * neither starts after its creation time, so a new schedule never fires
 * a backlog from before it existed; an "at" schedule never fired always
 * considers its instant (a past instant goes through catch-up). The loop
 * must therefore store out->next as next_fire_at with out->cursor. */
#ifndef SKED_SCHED_POLICY_H
#define SKED_SCHED_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "model/schedule_occ.h"
#include "sked/cron.h"
#include "sked/schedule.h"
#include "store/store.h"

/* Return the SPEC name of R; never NULL. */
const char *sked__miss_reason_name(sked_miss_reason r);

/* The dropped occurrences of one reason in one decision. */
typedef struct sked_missed {
    int64_t count;
    sked_time first, last; /* NONE when count is 0 */
} sked_missed;

/* One occurrence to fire. */
typedef struct sked_fire {
    sked_time occurrence; /* the time spec's occurrence: the run's id */
    sked_time at;         /* when it fires: the occurrence, or the business
                             day it moved to off an excluded day */
    sked_trigger trigger; /* SKED_TRIGGER_CRON on time, _CATCHUP late */
    int buffered;         /* overlap buffer_one / buffer_all: it waits */
    int cancel_active;    /* overlap cancel_other: cancel the active run */
} sked_fire;

typedef struct sked_policy_in {
    const sked_schedule *s; /* borrowed: spec, policies, bounds, cursor
                               (last_fired_at), runs_created, status */
    const sked_tz *tz;      /* borrowed: the schedule's zone */
    sked_time now;
    sked_dur tick;              /* the scheduler's tick; the grace is derived */
    int active_runs;            /* runs of the schedule active now (its key) */
    int buffered_runs;          /* of them, waiting as an overlap buffer */
    const sked_cron *cron;      /* borrowed: S's expression already parsed;
                                   NULL: parsed here */
    const sked__occ_days *days; /* borrowed: S's calendars built; NULL:
                                   none */
    const sked_time *skips;     /* borrowed: S's skipped occurrences (sked
                                   schedule skip), ascending; NULL: none */
    size_t nskips;
} sked_policy_in;

typedef struct sked_policy_out {
    sked_fire *fires; /* owned: nfires, oldest first; sked__policy_done */
    size_t nfires;
    sked_missed missed[SKED_MISS__COUNT];
    sked_time cursor; /* the new last_fired_at: the last decided one */
    sked_time next;   /* the next occurrence after cursor; NONE: none */
    int done;         /* the schedule has nothing left to fire (at: fired,
                         max_runs reached, end_at passed) */
    int more;         /* the call stopped at SKED_POLICY_VISITS_MAX with
                         occurrences <= now left: next <= now; store the
                         result and call again */
} sked_policy_out;

/* Most occurrences one call of sked__policy_plan visits one by one (cron
 * steps, and fires listed). Interval and one-time schedules are counted
 * arithmetically; a cron backlog is counted a whole local day at a time
 * when the day is far (two days) from any change of UTC offset, and step
 * by step otherwise. So a daily or hourly cron years behind costs a few
 * thousand steps; only sub-minute crons across many DST changes reach
 * the bound, and then the call decides a prefix and sets more. */
#define SKED_POLICY_VISITS_MAX 100000

/* Decide every occurrence of IN->s after its cursor and at or before
 * IN->now (SPEC 3.3, 3.4; start_at/end_at and max_runs of 3.2). Bounded:
 * dropped occurrences are counted, not listed, and the whole call visits
 * at most SKED_POLICY_VISITS_MAX occurrences (see "more"). Catch-up
 * first: older than the window, outside_window; late, by the catchup
 * policy (automatic_backfill: all, 1000, 30 d); on time, fire. A slot
 * that would fire (late or on time) whose occurrence is in IN->skips is
 * dropped as skipped instead (among the late ones it counts as one the
 * catchup policy keeps: latest with the latest skipped fires none). Then
 * overlap over what fires, oldest first, against IN->active_runs and
 * the earlier fires of the same call (their runs are pending). Then
 * max_runs: only runs_created + fires <= max_runs; occurrences after the
 * last allowed fire are left undecided and the schedule is done. A
 * paused, disabled or done schedule decides nothing (cursor unchanged,
 * next NONE, done set for done). OUT is written on success only, and its
 * fires are freed with sked__policy_done. Returns 0, SKED_EINVAL (a
 * schedule whose spec does not load, NULL arguments), SKED_ENOMEM. */
int sked__policy_plan(const sked_policy_in *in, sked_policy_out *out);

/* Free what sked__policy_plan allocated in OUT. NULL does nothing. */
void sked__policy_done(sked_policy_out *out);

/* Return the on-time grace for TICK: twice the tick, at least 60 s. */
sked_dur sked__policy_grace(sked_dur tick);

/* Return the deterministic delay in [0, JITTER] of the run RUN_ID (SPEC
 * 3.2: every server computes the same one). */
sked_dur sked__policy_jitter(const char *run_id, sked_dur jitter);

#endif
