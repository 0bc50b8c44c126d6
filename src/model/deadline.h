/* SPDX-License-Identifier: MIT */
/* Deadlines of a schedule's runs (sked/schedule_fields.h: deadline,
 * start_deadline; schema 0012): when a run of an occurrence is checked,
 * and what a check finds. Pure: the store reads the runs due and writes
 * what these functions say, in the firing transaction (store_fire.c).
 *
 * A run has one instant still to check, runs.deadline_at: its start
 * deadline (occurrence + start_deadline) while that is ahead, then its
 * completion deadline (occurrence + deadline), then none. A start is
 * missed when the run had not started by its start deadline, unless it
 * ended unstarted (cancelled); a completion is missed when the run had
 * not completed by its deadline, whatever else it did (failed,
 * cancelled, still running). A heartbeat run (trigger heartbeat) that
 * missed its completion fails with the code deadline_missed. */
#ifndef SKED_MODEL_DEADLINE_H
#define SKED_MODEL_DEADLINE_H

#include <stdbool.h>

#include "model/run.h"
#include "sked/schedule.h"

/* The first deadline check of a run of S for its occurrence SCHEDULED_FOR:
 * the start deadline, else the completion deadline; SKED_TIME_NONE when S
 * has neither. */
sked_time sked__deadline_first(const sked_schedule *s, sked_time scheduled_for);

/* Make R the heartbeat run of S (a heartbeat schedule) for its occurrence
 * SCHEDULED_FOR, as firing and a ping that comes early both make it: S's
 * workflow (its name), schedule, priority and context, trigger heartbeat,
 * queue "" and not_before SKED_TIME_MAX (no executor ever claims it),
 * and its first deadline check. R's id, occurrence, keys and buffered
 * are left as they are. */
void sked__deadline_heartbeat_run(sked_run_new *r, const sked_schedule *s,
                                  sked_time scheduled_for);

/* What one check of a run found. */
typedef struct sked__deadline_verdict {
    bool missed_start, missed_completion;
    bool fail;      /* a heartbeat run to fail now (deadline_missed) */
    sked_time next; /* the run's next check; NONE: none left */
} sked__deadline_verdict;

/* Check run R of schedule S (its deadlines as they are now) at NOW, R's
 * deadline_at being due (at most NOW). A deadline that moved later since
 * R was made is not judged early: NEXT is then that deadline. */
sked__deadline_verdict sked__deadline_judge(const sked_schedule *s,
                                            const sked_run *r, sked_time now);

/* The word of V's misses for runs.deadline_missed and the event:
 * "start", "completion", "start,completion", or NULL. */
const char *sked__deadline_missed_word(const sked__deadline_verdict *v);

#endif
