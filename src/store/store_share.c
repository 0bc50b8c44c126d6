/* SPDX-License-Identifier: MIT */
/* Writes of many threads in one transaction (group commit): the runs an
 * API call creates, a trigger, a ping. Each such write alone would pay
 * for one commit, and a durable commit is one flush of the disk (SQLite
 * with synchronous=FULL, PostgreSQL's WAL): a few thousand a second at
 * most, however many threads ask.
 *
 * A caller queues its operation (a sked__tx_fn and its argument) and
 * waits. When fewer batches are being written than the back-end can
 * write at once (store_ops.h, writers: one on SQLite, which has one
 * writer; on PostgreSQL, the connections of the pool but one), the
 * caller leads at once: a lone write waits for nothing and runs in a
 * transaction of its own, as sked__store_run_tx would run it. While the
 * leaders write, the callers that come queue behind them, and when a
 * leader's commit is done it hands the lead to the first of them, which
 * takes the whole queue (at most
 * SHARE_MAX) into one transaction: each operation under a mark (a
 * savepoint), so that one that fails (a conflict, a value refused) is
 * undone alone, with its error, and leaves nothing written (no run, no
 * event), while the others commit. The batch thus grows with the load
 * and no one waits for a batch to fill.
 *
 * Each caller is answered after the commit holding its write returned,
 * so durability is that of one transaction. A batch that cannot finish
 * (busy, a mark refused, the commit failing) is rolled back and each of
 * its operations is run again alone, retried as any transaction, so a
 * caller never gets another's error. The operations are those of
 * sked__store_run_tx: they may run several times and reset what they
 * report at each. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/actor.h"
#include "base/alloc.h"
#include "base/error.h"
#include "store/store_int.h"

/* The most operations in one transaction. */
#define SHARE_MAX 256

/* One caller's operation, on its stack until it is answered. */
typedef struct share_op {
    sked__tx_fn fn;
    void *arg;
    sked_error *err; /* the caller's */
    /* The caller's actor: its events are its own, whichever thread
     * writes the batch (the audit trail). */
    char actor[SKED__ACTOR_MAX + 1];
    int rc;
    pthread_mutex_t mu; /* guards done and lead */
    pthread_cond_t cv;
    bool done; /* answered: rc is set */
    bool lead; /* its caller leads the next batch */
    struct share_op *next;
} share_op;

struct sked__share {
    pthread_mutex_t mu;
    share_op *head, *tail; /* the queue, under mu */
    int leaders;           /* callers writing a batch now, under mu */
    int leaders_max;       /* at most (store_ops.h, writers) */
    /* Transactions of more than one operation, and their operations. */
    uint64_t batches, batched;
};

int sked__share_new(int leaders, sked__share **out)
{
    sked__share *s = sked__calloc(1, sizeof *s);

    if (!s)
        return SKED_ENOMEM;
    s->leaders_max = leaders > 0 ? leaders : 1;
    if (pthread_mutex_init(&s->mu, NULL) != 0) {
        free(s);
        return SKED_ENOMEM;
    }
    *out = s;
    return 0;
}

void sked__share_free(sked__share *s)
{
    if (!s)
        return;
    pthread_mutex_destroy(&s->mu);
    free(s);
}

/* Run OP's function in TX as its caller, whose actor the calling
 * thread takes meanwhile. */
static int call_as_caller(sked_store *st, sked__tx *tx, void *arg,
                          sked_error *err)
{
    share_op *op = arg;
    char saved[SKED__ACTOR_MAX + 1];
    int rc;

    (void) snprintf(saved, sizeof saved, "%s", sked__actor());
    (void) sked__actor_set(op->actor);
    rc = op->fn(st, tx, op->arg, err);
    (void) sked__actor_set(saved);
    return rc;
}

/* Run OP in a transaction of its own (with the retries of any). */
static void run_alone(sked_store *st, share_op *op)
{
    op->rc =
        sked__store_run_tx(st, SKED__TX_WRITE, call_as_caller, op, op->err);
}

/* Run OP in TX under a mark: set anew when FIRST, else moved past the
 * operation before (one statement: one round trip on PostgreSQL). The
 * commit forgets the last mark. Returns 0 when TX may go on (OP's own
 * failure, undone, is in op->rc), else the code that spoils TX. */
static int run_marked(sked_store *st, sked__tx *tx, share_op *op, bool first)
{
    sked_error spare;
    int rc =
        st->ops->mark(tx, first ? SKED__MARK_SET : SKED__MARK_NEXT, &spare);

    if (rc != 0)
        return rc;
    op->rc = call_as_caller(st, tx, op, op->err);
    /* Busy, or out of memory: the batch may be at fault, not OP. */
    if (op->rc == SKED_EBUSY || op->rc == SKED_ENOMEM)
        return op->rc;
    return op->rc != 0 ? st->ops->mark(tx, SKED__MARK_UNDO, &spare) : 0;
}

/* Write the N operations of OPS in one transaction, setting each rc. */
static void run_batch(sked_store *st, share_op **ops, size_t n)
{
    sked_error spare;
    sked__tx *tx;
    int rc;

    if (n == 1) {
        run_alone(st, ops[0]);
        return;
    }
    rc = st->ops->begin(st->b, SKED__TX_WRITE, &tx, &spare);
    for (size_t i = 0; rc == 0 && i < n; i++)
        if ((rc = run_marked(st, tx, ops[i], i == 0)) != 0)
            st->ops->rollback(tx);
    if (rc == 0)
        rc = st->ops->commit(tx, &spare);
    if (rc == 0)
        return;
    for (size_t i = 0; i < n; i++) {
        sked_error_clear(ops[i]->err);
        run_alone(st, ops[i]);
    }
}

/* Tell OP's caller it is answered (DONE) or leads (else), under OP's own
 * mutex: a caller woken does not wait for the queue's. */
static void wake(share_op *op, bool done)
{
    pthread_mutex_lock(&op->mu);
    if (done)
        op->done = true;
    else
        op->lead = true;
    pthread_cond_signal(&op->cv);
    pthread_mutex_unlock(&op->mu); /* its last use here: its caller may go */
}

/* Write OP (out of the queue) and the operations queued after it, up
 * to SHARE_MAX, in one transaction; hand the lead to the first caller
 * still queued (taken out of the queue: no other leader takes it), or
 * give it up; then answer them. A queue that is not empty thus always
 * has every leader's place taken. */
static void lead(sked_store *st, sked__share *s, share_op *op)
{
    share_op *batch[SHARE_MAX], *next;
    size_t n = 1;

    batch[0] = op;
    pthread_mutex_lock(&s->mu);
    for (; s->head && n < SHARE_MAX; n++) {
        batch[n] = s->head;
        s->head = s->head->next;
    }
    if (!s->head)
        s->tail = NULL;
    if (n > 1) {
        s->batches++;
        s->batched += n;
    }
    pthread_mutex_unlock(&s->mu);
    run_batch(st, batch, n);
    /* The next batch first: the commits follow each other closely. */
    pthread_mutex_lock(&s->mu);
    if ((next = s->head) != NULL) {
        s->head = next->next;
        if (!s->head)
            s->tail = NULL;
    } else {
        s->leaders--;
    }
    pthread_mutex_unlock(&s->mu);
    if (next)
        wake(next, false);
    for (size_t i = 1; i < n; i++)
        wake(batch[i], true);
}

int sked__store_run_shared(sked_store *st, sked__tx_fn fn, void *arg,
                           sked_error *err)
{
    sked__share *s = st->share;
    share_op op = {.fn = fn, .arg = arg, .err = err};

    (void) snprintf(op.actor, sizeof op.actor, "%s", sked__actor());
    bool leads = false;

    if (!s || pthread_mutex_init(&op.mu, NULL) != 0)
        return sked__store_run_tx(st, SKED__TX_WRITE, fn, arg, err);
    if (pthread_cond_init(&op.cv, NULL) != 0) {
        pthread_mutex_destroy(&op.mu);
        return sked__store_run_tx(st, SKED__TX_WRITE, fn, arg, err);
    }
    pthread_mutex_lock(&s->mu);
    if (s->leaders < s->leaders_max) { /* then nothing is queued */
        s->leaders++;
        leads = true;
    } else {
        if (s->tail)
            s->tail->next = &op;
        else
            s->head = &op;
        s->tail = &op;
    }
    pthread_mutex_unlock(&s->mu);
    if (!leads) {
        pthread_mutex_lock(&op.mu);
        while (!op.done && !op.lead)
            pthread_cond_wait(&op.cv, &op.mu);
        leads = !op.done;
        pthread_mutex_unlock(&op.mu);
    }
    if (leads)
        lead(st, s, &op);
    pthread_cond_destroy(&op.cv);
    pthread_mutex_destroy(&op.mu);
    return op.rc;
}

void sked__store_share_counts(sked_store *st, int *leaders, uint64_t *batches,
                              uint64_t *ops)
{
    sked__share *s = st->share;

    pthread_mutex_lock(&s->mu);
    *leaders = s->leaders_max;
    *batches = s->batches;
    *ops = s->batched;
    pthread_mutex_unlock(&s->mu);
}
