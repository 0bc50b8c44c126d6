/* SPDX-License-Identifier: MIT */
/* The delivery of notifications (engine_int.h, docs/notifications.md):
 * one thread per started engine takes the due deliveries of the outbox
 * with a lease (store_notify.h), attempts each once (exec/notify_send.h)
 * and records the outcome.
 *
 * The plan of a pass: read the notifiers (their settings are needed to
 * send, and their longest timeout bounds the lease); claim at most as
 * many deliveries as can be attempted one after the other within the
 * lease, so none is taken over by another server while this one still
 * holds it; attempt each; record delivered, or pending again after a
 * backoff (1 s doubling to 5 min, never past the delivery's deadline),
 * or failed once the deadline (created + retry_for) has passed. A
 * delivery whose notifier is gone fails at once.
 *
 * At least once: a server that dies mid-attempt leaves a lease that runs
 * out, and whoever claims next attempts again with the same idempotency
 * id "<event id>-<notifier>". A stopping server gives back what it
 * claimed but did not attempt. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/actor.h"
#include "base/alloc.h"
#include "base/backoff.h"
#include "base/clock.h"
#include "base/error.h"
#include "base/json_obj.h"
#include "engine/engine_int.h"
#include "exec/notify_send.h"
#include "store/store_notify.h"

#define RETRY_INITIAL (SKED_USEC_PER_SEC)
#define RETRY_MAX     (300 * SKED_USEC_PER_SEC)
#define CLAIM_LIMIT   8

struct sked__notify_thread {
    sked_engine *e; /* borrowed: the owner */
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop, woken; /* under mu */
};

/* The wait before the attempt after ATTEMPTS failed ones. */
static sked_dur retry_delay(int attempts)
{
    sked_backoff b;
    sked_dur d = RETRY_INITIAL;

    sked__backoff_init(&b, RETRY_INITIAL, RETRY_MAX);
    for (int i = 0; i < attempts && i < 32; i++)
        d = sked__backoff_fail(&b);
    return d;
}

static const sked_notifier *notifier_named(const sked_notifier *v, size_t n,
                                           const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].name, name) == 0)
            return &v[i];
    return NULL;
}

/* Whether the delivery thread is asked to stop (never, for a pass that
 * a test drives without a thread). */
static bool stopping(sked_engine *e)
{
    struct sked__notify_thread *t = e->notify;
    bool stop;

    if (!t)
        return false;
    pthread_mutex_lock(&t->mu);
    stop = t->stop;
    pthread_mutex_unlock(&t->mu);
    return stop;
}

/* Count the attempt END of D (idempotency id ID) in the metrics, and
 * tell this engine's subscribers: notification.delivered, .retrying or
 * .failed {"notifier", "delivery", "attempts", "status", "error",
 * "next_attempt_at"}, events of this server's own work that are not
 * stored (the notify log is their record), so that the server logs a
 * delivery given up as a warning. */
static void tell(sked_engine *e, const sked_delivery *d, const char *id,
                 const sked__delivery_end *end)
{
    bool failed = strcmp(end->state, "failed") == 0;
    bool done = strcmp(end->state, "delivered") == 0;
    char next[SKED_TIME_STRLEN];
    sked_jobj o = {0};

    sked__metrics_notify(e->metrics, d->notifier,
                         done     ? "delivered"
                         : failed ? "failed"
                                  : "retry");
    sked__jobj_str(&o, "notifier", d->notifier);
    sked__jobj_str(&o, "delivery", id);
    sked__jobj_int(&o, "attempts", d->attempts);
    if (end->status >= 0)
        sked__jobj_int(&o, "status", end->status);
    if (end->error)
        sked__jobj_str(&o, "error", end->error);
    if (!done && !failed &&
        sked_time_format(end->next_at, next, sizeof next) > 0)
        sked__jobj_str(&o, "next_attempt_at", next);
    sked__engine_deliver_one(e,
                             done     ? "notification.delivered"
                             : failed ? "notification.failed"
                                      : "notification.retrying",
                             d->notifier, sked__jobj_take(&o));
}

/* Attempt D once (N its notifier, NULL when gone) and record it. */
static int attempt(sked_engine *e, const sked_delivery *d,
                   const sked_notifier *n, sked_error *err)
{
    char id[SKED_NAME_MAX + 32];
    sked_notify_result r = {.status = -1};
    sked__delivery_end end = {.id = d->id, .owner = e->node_id};
    sked_time now;
    bool applied;
    int rc = 0;

    (void) snprintf(id, sizeof id, "%lld-%s", (long long) d->event_id,
                    d->notifier);
    if (!n)
        (void) snprintf(r.error, sizeof r.error, "notifier deleted");
    else if ((rc = sked__notify_send(n, d->event, id, &r)) != 0)
        return sked__error_set(err, rc, NULL, -1, NULL);
    now = sked_engine_now(e);
    end.status = r.status;
    end.error = r.delivered ? NULL : r.error;
    if (r.delivered)
        end.state = "delivered";
    else if (!n || now >= d->deadline_at)
        end.state = "failed";
    else {
        end.state = "pending";
        end.next_at = now + retry_delay(d->attempts);
        if (end.next_at > d->deadline_at)
            end.next_at = d->deadline_at; /* one last try at the deadline */
    }
    rc = sked__store_delivery_finish(e->store, &end, &applied, err);
    if (rc == 0)
        tell(e, d, id, &end);
    return rc;
}

/* Give back D, claimed but not attempted (a stop). */
static void give_back(sked_engine *e, const sked_delivery *d)
{
    sked__delivery_end end = {.id = d->id,
                              .owner = e->node_id,
                              .state = "pending",
                              .error = "given back by a stopping server",
                              .status = -1,
                              .next_at = sked_engine_now(e)};
    bool applied;

    (void) sked__store_delivery_finish(e->store, &end, &applied, NULL);
}

/* The lease and the claim's size for the notifiers V (N): every claimed
 * delivery can be attempted within the lease. */
static void claim_size(const sked_engine *e, const sked_notifier *v, size_t n,
                       sked_dur *lease, size_t *limit)
{
    sked_dur longest = SKED_NOTIFY_TIMEOUT_DEFAULT;

    for (size_t i = 0; i < n; i++)
        if (v[i].timeout > longest)
            longest = v[i].timeout;
    longest += SKED_USEC_PER_SEC; /* a process's kill grace */
    *lease = e->lease > 0 ? e->lease : SKED_LEASE_DEFAULT;
    if (*lease < 2 * longest)
        *lease = 2 * longest;
    *limit = (size_t) (*lease / longest);
    if (*limit > CLAIM_LIMIT)
        *limit = CLAIM_LIMIT;
}

int sked__engine_notify_pass(sked_engine *e, size_t *done, sked_error *err)
{
    sked_notifier *v = NULL;
    sked_delivery *d = NULL;
    size_t nv = 0, nd = 0, i = 0, limit;
    sked_dur lease;
    int64_t due = 0;
    int rc = sked__store_deliveries_due(e->store, &due, err);

    /* An idle server reads one count a tick, and writes nothing. */
    if (done)
        *done = 0;
    if (rc != 0 || due == 0)
        return rc;
    if ((rc = sked__store_notifier_list(e->store, &v, &nv, err)) != 0)
        return rc;
    claim_size(e, v, nv, &lease, &limit);
    rc = sked__store_deliveries_claim(e->store, e->node_id, lease, limit, &d,
                                      &nd, err);
    for (; rc == 0 && i < nd && !stopping(e); i++)
        rc = attempt(e, &d[i], notifier_named(v, nv, d[i].notifier), err);
    if (done)
        *done = i;
    for (; i < nd; i++)
        give_back(e, &d[i]);
    sked__deliveries_free(d, nd);
    sked__notifiers_free(v, nv);
    return rc;
}

/* ---- the thread ---------------------------------------------------------- */

/* Wait WAIT, or until woken or stopped; returns whether to stop. */
static bool wait_for(struct sked__notify_thread *t, sked_dur wait)
{
    struct timespec until;
    bool stop;

    sked__clock_deadline(wait, &until);
    pthread_mutex_lock(&t->mu);
    while (!t->stop && !t->woken &&
           pthread_cond_timedwait(&t->cv, &t->mu, &until) == 0)
        ;
    t->woken = false;
    stop = t->stop;
    pthread_mutex_unlock(&t->mu);
    return stop;
}

static void *notify_main(void *arg)
{
    struct sked__notify_thread *t = arg;
    sked_backoff b;
    sked_dur wait;
    size_t done;

    (void) sked__actor_set(SKED__ACTOR_SCHEDULER); /* its own changes */
    sked__backoff_init(&b, 0, 0);
    do {
        sked_error err;
        sked_error_clear(&err);
        if (sked__engine_notify_pass(t->e, &done, &err) != 0)
            wait = sked__backoff_fail(&b); /* the store fails: not a spin */
        else {
            sked__backoff_ok(&b);
            /* A full claim may have left more due at once. */
            wait = done >= 1 ? 0 : t->e->tick;
        }
    } while (!wait_for(t, wait));
    return NULL;
}

int sked__engine_notify_start(sked_engine *e, sked_error *err)
{
    struct sked__notify_thread *t;

    if (e->notify)
        return 0;
    if (!(t = sked__calloc(1, sizeof *t)))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    t->e = e;
    if (pthread_mutex_init(&t->mu, NULL) != 0) {
        free(t);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    if (sked__cond_init_mono(&t->cv) != 0) {
        (void) pthread_mutex_destroy(&t->mu);
        free(t);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    e->notify = t;
    if (pthread_create(&t->th, NULL, notify_main, t) != 0) {
        e->notify = NULL;
        (void) pthread_cond_destroy(&t->cv);
        (void) pthread_mutex_destroy(&t->mu);
        free(t);
        return sked__error_set(err, SKED_EIO, NULL, -1,
                               "no notification thread");
    }
    return 0;
}

void sked__engine_notify_wake(sked_engine *e)
{
    struct sked__notify_thread *t = e ? e->notify : NULL;

    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    t->woken = true;
    pthread_cond_signal(&t->cv);
    pthread_mutex_unlock(&t->mu);
}

void sked__engine_notify_stop(sked_engine *e)
{
    struct sked__notify_thread *t = e->notify;

    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    t->stop = true;
    pthread_cond_signal(&t->cv);
    pthread_mutex_unlock(&t->mu);
    (void) pthread_join(t->th, NULL);
    e->notify = NULL;
    (void) pthread_cond_destroy(&t->cv);
    (void) pthread_mutex_destroy(&t->mu);
    free(t);
}
