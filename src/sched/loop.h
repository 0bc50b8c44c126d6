/* SPDX-License-Identifier: MIT */
/* The scheduler loop (SPEC 3.2): every active schedule's next occurrence
 * in a heap, one pass at a time: reread what changed, fire what is due.
 *
 * A sked_loop is owned by the engine. Its state (the heap, the index of
 * schedules by name, the counters) is guarded by one mutex; a pass runs
 * with the pass lock held, so passes never overlap, whether they come
 * from the loop's own thread or from sked__loop_pass (tests on a virtual
 * clock, embedders driving their own loop). */
#ifndef SKED_SCHED_LOOP_H
#define SKED_SCHED_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/order.h"
#include "sched/policy.h"
#include "store/store.h"

typedef struct sked_loop sked_loop;

/* Called after a commit with the events it wrote (borrowed for the
 * call), from the thread that made the pass. */
typedef void (*sked_loop_emit_fn)(void *ctx, const sked_event *ev, size_t n);

typedef struct sked_loop_options {
    sked_store *store;       /* borrowed */
    sked_tzdb *tzdb;         /* borrowed */
    const sked_clock *clock; /* borrowed; NULL: the real one */
    sked_dur tick;           /* > 0 */
    sked_loop_emit_fn emit;  /* may be NULL */
    void *emit_ctx;
    sked_order *order; /* held from a firing's commit to its emit, so a
                          claim right after delivers after it; may be
                          NULL */
} sked_loop_options;

/* Create a loop and load every schedule's head from the store. OUT:
 * *out, freed with sked__loop_free. Returns 0, SKED_EIO, SKED_ENOMEM. */
int sked__loop_new(const sked_loop_options *opts, sked_loop **out,
                   sked_error *err);

/* Stop the thread (if started; a firing in progress commits first) and
 * free L. NULL does nothing. */
void sked__loop_free(sked_loop *l);

/* Start the scheduler thread (and, on PostgreSQL, the listener). Returns
 * 0, SKED_EINVAL (already started), SKED_ENOMEM, SKED_EIO. */
int sked__loop_start(sked_loop *l, sked_error *err);

/* Run one pass now: reread changes, fire everything due at the clock's
 * time. Returns 0 or the first error (the pass goes on past a batch that
 * failed; its schedules are tried again at the next pass). */
int sked__loop_pass(sked_loop *l, sked_error *err);

/* Return the earliest occurrence in the heap, or SKED_TIME_NONE. */
sked_time sked__loop_next_wakeup(sked_loop *l);

/* Tell the loop that schedules changed through this engine: the next
 * pass, which starts at once, rereads them. NAME (may be NULL) was
 * deleted: it leaves the heap now. */
void sked__loop_changed(sked_loop *l, const char *deleted);

/* Take in the schedule S as this engine just wrote it (create, update,
 * pause, resume): its place in the heap changes now, before any pass. */
void sked__loop_put(sked_loop *l, const sked_schedule *s);

/* Return the occurrences of SCHEDULE dropped for reason R since the loop
 * started (sked_schedule_missed_total). */
int64_t sked__loop_missed(sked_loop *l, const char *schedule,
                          sked_miss_reason r);

/* Call FN for every (schedule, reason) with a count above 0. */
typedef void (*sked_missed_fn)(void *ctx, const char *schedule,
                               sked_miss_reason r, int64_t count);
void sked__loop_missed_each(sked_loop *l, sked_missed_fn fn, void *ctx);

/* The database clock minus ours, as last measured (PostgreSQL only).
 * Returns false when never measured (SQLite: the same host's clock). */
bool sked__loop_clock_skew(sked_loop *l, sked_dur *out);

#endif
