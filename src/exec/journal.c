/* SPDX-License-Identifier: MIT */
/* The group commit (journal.h): a queue of op batches and one writer.
 *
 * Each submission is an entry holding a deep copy of its ops (one
 * allocation: the ops, then their strings), so an asynchronous writer
 * never reads a worker's memory. The writer takes every entry queued,
 * concatenates their ops, writes them in one sked__store_run_ops call,
 * then wakes the entries' waiters with their share of the results; a
 * batch refused for the database's state is tried again first
 * (write_until). */
#include "exec/journal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/actor.h"
#include "base/alloc.h"
#include "base/backoff.h"
#include "base/clock.h"
#include "base/error.h"
#include "store/store_health.h"

/* Most ops one transaction carries: the rest waits for the next. */
#define JOURNAL_BATCH_MAX SKED_RUN_OPS_MAX
/* Most ops waiting for the writer: past this, workers wait for a commit
 * (a slow database slows the workers instead of filling memory). */
#define JOURNAL_QUEUE_MAX (4 * JOURNAL_BATCH_MAX)
/* The waits between tries of a batch the database could not take. */
#define RETRY_FIRST_WAIT (50 * 1000)
#define RETRY_MAX_WAIT   (2 * SKED_USEC_PER_SEC)

typedef struct entry {
    struct entry *next;
    sked_run_op *ops; /* owned: the copy, strings in the same block */
    size_t n;
    int *result; /* the waiter's, or NULL when nobody waits */
    int rc;
    sked_error err;
    bool done;
} entry;

struct sked_journal {
    sked_store *st;
    sked_journal_deliver_fn deliver;
    void *ctx;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    entry *head, *tail;       /* the queue, under mu */
    uint64_t queued, written; /* entries queued and committed ever */
    size_t pending_ops;       /* ops queued, not yet taken by the writer */
    bool stop;
    bool hurry; /* a failed batch is not tried again */
};

/* ---- deep copy ------------------------------------------------------ */

static size_t slen(const char *s)
{
    return s ? strlen(s) + 1 : 0;
}

static size_t op_strings(const sked_run_op *o)
{
    size_t n = slen(o->run_id) + slen(o->executor) + slen(o->output) +
               slen(o->error) + slen(o->error_code) + slen(o->step.step) +
               slen(o->step.output) + slen(o->step.stderr_text) +
               slen(o->step.error) + slen(o->step.error_code);
    for (size_t i = 0; i < o->nevents; i++)
        n += slen(o->events[i].type) + slen(o->events[i].subject) +
             slen(o->events[i].payload);
    return n;
}

static const char *put(char **p, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = memcpy(*p, s, n);
    *p += n;
    return d;
}

static void op_copy(sked_run_op *d, const sked_run_op *s, char **p)
{
    *d = *s;
    d->run_id = put(p, s->run_id);
    d->executor = put(p, s->executor);
    d->output = put(p, s->output);
    d->error = put(p, s->error);
    d->error_code = put(p, s->error_code);
    d->step.step = (char *) put(p, s->step.step);
    d->step.output = (char *) put(p, s->step.output);
    d->step.stderr_text = (char *) put(p, s->step.stderr_text);
    d->step.error = (char *) put(p, s->step.error);
    d->step.error_code = (char *) put(p, s->step.error_code);
    for (size_t i = 0; i < s->nevents; i++) {
        d->events[i].type = put(p, s->events[i].type);
        d->events[i].subject = put(p, s->events[i].subject);
        d->events[i].payload = put(p, s->events[i].payload);
    }
}

static sked_run_op *ops_copy(const sked_run_op *ops, size_t n)
{
    size_t bytes = n * sizeof *ops;
    for (size_t i = 0; i < n; i++)
        bytes += op_strings(&ops[i]);
    sked_run_op *c = sked__malloc(bytes ? bytes : 1);
    if (!c)
        return NULL;
    char *p = (char *) (c + n);
    for (size_t i = 0; i < n; i++)
        op_copy(&c[i], &ops[i], &p);
    return c;
}

/* ---- the writer ---------------------------------------------------- */

/* Write the entries of the list FIRST (taken off the queue) in one
 * transaction, and fill each entry's outcome. Returns its code. */
static int write_batch(sked_journal *j, entry *first)
{
    size_t n = 0, k = 0;
    for (entry *e = first; e; e = e->next)
        n += e->n;
    sked_run_op *ops = sked__calloc(n ? n : 1, sizeof *ops);
    int *res = sked__calloc(n ? n : 1, sizeof *res);
    sked_event *ev = NULL;
    size_t nev = 0;
    sked_error err = {0};
    int rc = SKED_ENOMEM;

    if (ops && res) {
        for (entry *e = first; e; e = e->next) {
            memcpy(&ops[k], e->ops, e->n * sizeof *ops);
            k += e->n;
        }
        rc = sked__store_run_ops(j->st, ops, n, res, &ev, &nev, &err);
        sked__store_report(j->st, SKED_OP_WRITE, rc, &err);
    }
    if (rc == 0 && j->deliver && nev > 0)
        j->deliver(j->ctx, ev, nev);
    sked__events_free(ev, nev);
    k = 0;
    for (entry *e = first; e; e = e->next) {
        e->rc = rc;
        e->err = err;
        if (e->result && rc == 0)
            memcpy(e->result, &res[k], e->n * sizeof *res);
        k += e->n;
    }
    free(ops);
    free(res);
    return rc;
}

/* Tell whether a batch that failed with RC may succeed as it is, once
 * the database is back: it was refused for the state of the database
 * (unreachable, full, read-only), not for what it holds. */
static bool worth_again(int rc)
{
    return rc == SKED_EBUSY || rc == SKED_ENOSPC || rc == SKED_EROFS;
}

/* Write BATCH until it commits, it fails for what it holds, or the
 * journal stops or is hurried; between tries a wait that doubles from
 * RETRY_FIRST_WAIT up to RETRY_MAX_WAIT (mu is held, and released while
 * writing). What the workers did is recorded when the database is back,
 * so their runs stay theirs: dropped, the writes would let the leases
 * lapse and the steps run again. */
static void write_until(sked_journal *j, entry *batch, sked_backoff *bo)
{
    for (;;) {
        pthread_mutex_unlock(&j->mu);
        int rc = write_batch(j, batch);
        pthread_mutex_lock(&j->mu);
        if (rc == 0) {
            sked__backoff_ok(bo);
            return;
        }
        if (!worth_again(rc) || j->stop || j->hurry)
            return;
        struct timespec ts;
        sked__clock_deadline(sked__backoff_fail(bo), &ts);
        while (!j->stop && !j->hurry &&
               pthread_cond_timedwait(&j->work, &j->mu, &ts) != ETIMEDOUT)
            ;
        if (j->stop || j->hurry)
            return;
    }
}

/* Take up to JOURNAL_BATCH_MAX ops' worth of entries off the queue. */
static entry *take(sked_journal *j)
{
    entry *first = j->head, *last = first;
    size_t n = first->n;
    while (last->next && n + last->next->n <= JOURNAL_BATCH_MAX) {
        last = last->next;
        n += last->n;
    }
    j->head = last->next;
    if (!j->head)
        j->tail = NULL;
    last->next = NULL;
    j->pending_ops -= n;
    return first;
}

static void *writer(void *arg)
{
    sked_journal *j = arg;
    sked_backoff bo;

    (void) sked__actor_set(SKED__ACTOR_SCHEDULER); /* its own changes */
    sked__backoff_init(&bo, RETRY_FIRST_WAIT, RETRY_MAX_WAIT);
    pthread_mutex_lock(&j->mu);
    for (;;) {
        while (!j->head && !j->stop)
            pthread_cond_wait(&j->work, &j->mu);
        if (!j->head)
            break;
        entry *batch = take(j);
        write_until(j, batch, &bo);
        for (entry *e = batch, *next; e; e = next) {
            next = e->next;
            j->written++;
            free(e->ops);
            e->ops = NULL;
            if (e->result) /* its waiter frees it */
                e->done = true;
            else
                free(e);
        }
        pthread_cond_broadcast(&j->done);
    }
    pthread_mutex_unlock(&j->mu);
    return NULL;
}

int sked__journal_open(sked_store *st, sked_journal_deliver_fn deliver,
                       void *ctx, sked_journal **out)
{
    sked_journal *j = sked__calloc(1, sizeof *j);
    if (!j)
        return SKED_ENOMEM;
    j->st = st;
    j->deliver = deliver;
    j->ctx = ctx;
    pthread_mutex_init(&j->mu, NULL);
    sked__cond_init_mono(&j->work);
    pthread_cond_init(&j->done, NULL);
    if (pthread_create(&j->thread, NULL, writer, j) != 0) {
        pthread_mutex_destroy(&j->mu);
        pthread_cond_destroy(&j->work);
        pthread_cond_destroy(&j->done);
        free(j);
        return SKED_EIO;
    }
    *out = j;
    return 0;
}

void sked__journal_close(sked_journal *j)
{
    if (!j)
        return;
    pthread_mutex_lock(&j->mu);
    j->stop = true;
    pthread_cond_signal(&j->work);
    pthread_mutex_unlock(&j->mu);
    pthread_join(j->thread, NULL);
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->work);
    pthread_cond_destroy(&j->done);
    free(j);
}

int sked__journal_write(sked_journal *j, const sked_run_op *ops, size_t n,
                        int *result, sked_error *err)
{
    if (n == 0)
        return 0;
    entry *e = sked__calloc(1, sizeof *e);
    if (!e || !(e->ops = ops_copy(ops, n))) {
        free(e);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    e->n = n;
    e->result = result;
    pthread_mutex_lock(&j->mu);
    while (j->pending_ops + n > JOURNAL_QUEUE_MAX && !j->stop)
        pthread_cond_wait(&j->done, &j->mu);
    j->pending_ops += n;
    if (j->tail)
        j->tail->next = e;
    else
        j->head = e;
    j->tail = e;
    j->queued++;
    pthread_cond_signal(&j->work);
    if (!result) {
        pthread_mutex_unlock(&j->mu);
        return 0;
    }
    while (!e->done)
        pthread_cond_wait(&j->done, &j->mu);
    pthread_mutex_unlock(&j->mu);
    int rc = e->rc;
    if (rc != 0 && err)
        *err = e->err;
    free(e);
    return rc;
}

void sked__journal_hurry(sked_journal *j)
{
    if (!j)
        return;
    pthread_mutex_lock(&j->mu);
    j->hurry = true;
    pthread_cond_broadcast(&j->work);
    pthread_mutex_unlock(&j->mu);
}

void sked__journal_flush(sked_journal *j)
{
    pthread_mutex_lock(&j->mu);
    uint64_t target = j->queued;
    while (j->written < target)
        pthread_cond_wait(&j->done, &j->mu);
    pthread_mutex_unlock(&j->mu);
}
