/* SPDX-License-Identifier: MIT */
/* The executor's group commit (SPEC 11: many writes share one commit).
 *
 * Workers hand their run ops (store_run.h) to one writer thread, which
 * applies everything queued so far in one transaction and delivers the
 * committed events. A worker that needs its write durable before going on
 * (a step's end, before the next step starts) waits for that commit;
 * others (a step's start, a run's last writes) go on at once, their ops
 * copied. With many workers, hundreds of runs share one fsync.
 *
 * A batch the database refuses for its state (unreachable, full,
 * read-only: SKED_EBUSY, SKED_ENOSPC, SKED_EROFS) is tried again, with a
 * capped backoff (base/backoff.h), until it commits: the workers waiting
 * on it wait with it, and what runs did is recorded once the database is
 * back. Once the engine stops (sked__journal_hurry), each batch is tried
 * once. */
#ifndef SKED_EXEC_JOURNAL_H
#define SKED_EXEC_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "store/store_run.h"

typedef struct sked_journal sked_journal;

/* Called by the writer thread with the events of each commit. */
typedef void (*sked_journal_deliver_fn)(void *ctx, const sked_event *ev,
                                        size_t n);

/* Start the writer on ST. DELIVER may be NULL. Returns 0, SKED_ENOMEM,
 * SKED_EIO (no thread). */
int sked__journal_open(sked_store *st, sked_journal_deliver_fn deliver,
                       void *ctx, sked_journal **out);

/* Write everything queued, stop the writer and free J. NULL: nothing. */
void sked__journal_close(sked_journal *j);

/* Queue the N ops (copied). With RESULT (N entries), wait for their
 * commit and fill it as sked__store_run_ops does; the return value is
 * the transaction's (0, or the failure of the whole batch, ERR saying
 * why). Without RESULT, return once queued (0, or SKED_ENOMEM): at once,
 * unless the queue is full, when the caller waits for the next commit. */
int sked__journal_write(sked_journal *j, const sked_run_op *ops, size_t n,
                        int *result, sked_error *err);

/* From now on, try each batch once: the engine stops, and a worker
 * waiting on a database that stays away must not hold the stop. Wakes a
 * writer waiting to try again. */
void sked__journal_hurry(sked_journal *j);

/* Wait until everything queued before this call is committed. */
void sked__journal_flush(sked_journal *j);

#endif
