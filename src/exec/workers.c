/* SPDX-License-Identifier: MIT */
/* The worker pool (workers.h).
 *
 * One mutex guards the queue of claimed runs and the workers' slots;
 * the executor itself runs outside it. Each worker owns a slot holding
 * the run it executes and that run's cancellation flag, which the
 * heartbeat, a local cancel and the stop set. */
#include "exec/workers.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/actor.h"
#include "base/alloc.h"
#include "base/backoff.h"
#include "base/clock.h"
#include "base/error.h"
#include "exec/attempt.h"
#include "store/store_health.h"

/* The heartbeat's shortest period, when woken by changes. */
#define BEAT_MIN (250 * 1000)
/* Runs shorter than this on average count as short... */
#define SHORT_RUN (20 * 1000)
/* ... and then this many more are held (claimed ahead). */
#define PREFETCH_SHORT 256

typedef struct wslot {
    sked_workers *pool;
    pthread_t th;
    sked_run run; /* the run executing; id NULL when idle */
    sked_cancel cancel;
    bool busy;
} wslot;

struct sked_workers {
    sked_workers_config cfg;
    pthread_mutex_t mu;
    pthread_cond_t work;  /* workers: a run is queued, or stop */
    pthread_cond_t claim; /* dispatcher: a worker is free, a wake, stop */
    pthread_cond_t beat;  /* heartbeat: stop */
    sked_run *queue;      /* claimed, not started; a ring */
    size_t qhead, qlen, qcap;
    wslot *slots;
    int nbusy;
    sked_dur avg_run; /* moving average of a run's time in a worker */
    bool woken, stopping;
    bool beat_soon;       /* something changed: look for cancels now */
    sked_time last_prune; /* heartbeat thread only */
    pthread_t dispatcher, heartbeat;
    int started; /* threads created, for the stop */
};

static sked_time now_of(const sked_workers *w)
{
    return sked__clock_now(w->cfg.env.clock);
}

/* ---- workers ---------------------------------------------------------- */

static void *worker_main(void *arg)
{
    wslot *s = arg;
    sked_workers *w = s->pool;

    (void) sked__actor_set(SKED__ACTOR_SCHEDULER); /* its own changes */
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (w->qlen == 0 && !w->stopping)
            pthread_cond_wait(&w->work, &w->mu);
        if (w->stopping)
            break;
        s->run = w->queue[w->qhead];
        w->qhead = (w->qhead + 1) % w->qcap;
        w->qlen--;
        s->busy = true;
        w->nbusy++;
        pthread_mutex_unlock(&w->mu);

        sked_mono t0 = sked__clock_mono(NULL);
        sked__execute(&w->cfg.env, &s->run, &s->cancel);
        sked_dur took = sked__clock_mono(NULL) - t0;

        pthread_mutex_lock(&w->mu);
        w->avg_run += (took - w->avg_run) / 8;
        sked__run_done(&s->run);
        s->busy = false;
        w->nbusy--;
        /* The flag served this run; cleared for the next (under mu, as
         * every setter of it). */
        sked__cancel_reset(&s->cancel);
        pthread_cond_signal(&w->claim);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

int sked__workers_busy(sked_workers *w)
{
    int n;

    if (!w)
        return 0;
    pthread_mutex_lock(&w->mu);
    n = w->nbusy;
    pthread_mutex_unlock(&w->mu);
    return n;
}

/* ---- the dispatcher -------------------------------------------------- */

#define CAPS_MAX 64

/* The per-server caps (worker_concurrency) as a claim wants them: for
 * each capped queue, the runs this engine may still take, its cap minus
 * the runs of the queue it executes or holds queued. NAMES holds the
 * queue names the caps point to. */
static size_t caps_now(sked_workers *w, sked_claim_cap *caps,
                       char (*names)[SKED_NAME_MAX + 1])
{
    int32_t limit[CAPS_MAX];
    size_t n = sked__registry_caps(w->cfg.env.registry, names, limit, CAPS_MAX);

    pthread_mutex_lock(&w->mu);
    for (size_t k = 0; k < n; k++) {
        int32_t used = 0;
        for (int i = 0; i < w->cfg.nworkers; i++)
            used += w->slots[i].busy &&
                    strcmp(w->slots[i].run.queue, names[k]) == 0;
        for (size_t j = 0; j < w->qlen; j++)
            used +=
                strcmp(w->queue[(w->qhead + j) % w->qcap].queue, names[k]) == 0;
        caps[k] =
            (sked_claim_cap){names[k], limit[k] > used ? limit[k] - used : 0};
    }
    pthread_mutex_unlock(&w->mu);
    return n;
}

int sked__claim(const sked_exec_env *env, sked_dur lease, const sked_held *held,
                const sked_claim_cap *caps, size_t ncaps, size_t max,
                void (*deliver)(void *ctx, const sked_event *ev, size_t n),
                void *ctx, sked_run **out, size_t *n, sked_error *err)
{
    sked_claim_workflow *wf = NULL;
    size_t nwf = 0, nev = 0;
    sked_event *ev = NULL;
    int rc = 0;

    *out = NULL;
    *n = 0;
    if (sked__registry_claimables(env->registry, &wf, &nwf) != 0)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (nwf > 0) {
        sked_claim_req req = {
            .executor = env->executor,
            .now = sked__clock_now(env->clock),
            .lease = lease,
            .max = max > SKED_STORE_BATCH_MAX ? SKED_STORE_BATCH_MAX : max,
            .workflows = wf,
            .nworkflows = nwf,
            .caps = caps,
            .ncaps = ncaps,
            .held = held ? held->ids : NULL,
            .nheld = held ? held->n : 0,
        };
        rc = sked__store_runs_claim(env->store, &req, out, n, &ev, &nev, err);
    }
    /* The runs' creations committed before this claim deliver their
     * run.created first, whoever made them (base/order.h). */
    if (nev > 0 && deliver) {
        sked__order_wait(env->order);
        deliver(ctx, ev, nev);
    }
    sked__events_free(ev, nev);
    sked__registry_claimables_free(wf, nwf);
    return rc;
}

static int held_ids(sked_workers *w, char ***out, size_t *n);
static void strs_free(char **v, size_t n);

/* Claim up to ROOM runs and queue them. Returns how many; *failed tells
 * whether the claim failed. The runs held here are never claimed back
 * from ourselves: a lease that lapsed while the database was away is
 * renewed, not recovered (their steps would run twice). */
static size_t claim_some(sked_workers *w, size_t room, bool *failed)
{
    sked_claim_cap caps[CAPS_MAX];
    char names[CAPS_MAX][SKED_NAME_MAX + 1];
    sked_run *runs = NULL;
    sked_error err = {0};
    size_t n = 0, nheld = 0;
    size_t ncaps = caps_now(w, caps, names);
    char **ids = NULL;

    pthread_mutex_lock(&w->mu);
    int rc = held_ids(w, &ids, &nheld);
    pthread_mutex_unlock(&w->mu);
    sked_held held = {(const char *const *) ids, nheld};
    if (rc == 0) {
        rc = sked__claim(&w->cfg.env, w->cfg.lease, &held, caps, ncaps, room,
                         w->cfg.deliver, w->cfg.ctx, &runs, &n, &err);
        sked__store_report(w->cfg.env.store, SKED_OP_CLAIM, rc, &err);
    }
    strs_free(ids, nheld);
    *failed = rc != 0;
    if (rc != 0)
        return 0;
    pthread_mutex_lock(&w->mu);
    for (size_t i = 0; i < n; i++) {
        w->queue[(w->qhead + w->qlen) % w->qcap] = runs[i];
        w->qlen++;
    }
    pthread_cond_broadcast(&w->work);
    pthread_mutex_unlock(&w->mu);
    free(runs); /* the queue took the runs' strings */
    return n;
}

/* How many runs to hold (executing and queued). Twice the workers, so
 * none waits for a claim; when runs are short (no-op steps, quick
 * commands), many more, so one claim's commit serves hundreds of runs.
 * Long runs are never hoarded: a run queued here is one another server
 * could be executing. Under mu. */
static size_t hold_target(const sked_workers *w)
{
    size_t base = (size_t) w->cfg.nworkers * 2;
    if (w->avg_run < SHORT_RUN && w->avg_run > 0)
        return base + PREFETCH_SHORT < w->qcap ? base + PREFETCH_SHORT
                                               : w->qcap;
    return base;
}

/* Wait D or until the pool stops (under mu): wakes do not cut a
 * backoff short. */
static void wait_stop(sked_workers *w, pthread_cond_t *cv, sked_dur d)
{
    struct timespec ts;

    sked__clock_deadline(d, &ts);
    while (!w->stopping && pthread_cond_timedwait(cv, &w->mu, &ts) != ETIMEDOUT)
        ;
}

static void *dispatcher_main(void *arg)
{
    sked_workers *w = arg;
    sked_backoff bo;

    (void) sked__actor_set(SKED__ACTOR_SCHEDULER); /* its own changes */
    sked__backoff_init(&bo, w->cfg.poll, 0);
    pthread_mutex_lock(&w->mu);
    while (!w->stopping) {
        size_t want = hold_target(w);
        size_t held = (size_t) w->nbusy + w->qlen;
        bool failed = false;
        w->woken = false;
        pthread_mutex_unlock(&w->mu);
        size_t got = held < want ? claim_some(w, want - held, &failed) : 0;
        pthread_mutex_lock(&w->mu);
        if (failed) {
            /* The store fails: claim again after a growing wait, not at
             * every wake (each run.created would make a try). */
            wait_stop(w, &w->claim, sked__backoff_fail(&bo));
            continue;
        }
        sked__backoff_ok(&bo);
        if (got > 0 && !w->stopping)
            continue;
        if (w->woken)
            continue;
        /* Nothing to claim, or no room: sleep until a worker is free, a
         * wake, or the poll. */
        struct timespec ts;
        sked__clock_deadline(w->cfg.poll, &ts);
        pthread_cond_timedwait(&w->claim, &w->mu, &ts);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* ---- the heartbeat --------------------------------------------------- */

static void cancel_local(sked_workers *w, const char *id, int reason)
{
    for (int i = 0; i < w->cfg.nworkers; i++) {
        wslot *s = &w->slots[i];
        if (s->busy && strcmp(s->run.id, id) == 0)
            sked__cancel_set(&s->cancel, reason);
    }
}

/* The ids of the runs held here (executing or queued), copied, into
 * *out (*n of them; the caller frees each, then the array). Under mu. */
static int held_ids(sked_workers *w, char ***out, size_t *n)
{
    size_t cap = (size_t) w->cfg.nworkers + w->qlen, k = 0;
    char **ids = sked__calloc(cap ? cap : 1, sizeof *ids);
    for (int i = 0; ids && i < w->cfg.nworkers; i++)
        if (w->slots[i].busy && !(ids[k++] = sked__strdup(w->slots[i].run.id)))
            goto fail;
    for (size_t j = 0; ids && j < w->qlen; j++)
        if (!(ids[k++] = sked__strdup(w->queue[(w->qhead + j) % w->qcap].id)))
            goto fail;
    *out = ids;
    *n = ids ? k : 0;
    return ids ? 0 : SKED_ENOMEM;
fail:
    for (size_t i = 0; i < k; i++)
        free(ids[i]);
    free(ids);
    return SKED_ENOMEM;
}

static void strs_free(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

/* Whether run ID is still this executor's, running, by the store; true
 * when the store cannot say (the next beat asks again). */
static bool still_ours(sked_workers *w, const char *id)
{
    sked_run r;
    sked_error err = {0};

    if (sked__store_run_get(w->cfg.env.store, id, &r, NULL, NULL, &err) != 0)
        return true;
    bool ours = r.status == SKED_RUN_RUNNING && r.executor &&
                strcmp(r.executor, w->cfg.env.executor) == 0;
    sked__run_done(&r);
    return ours;
}

/* A renewal left some runs held here out: those of the runs executing
 * that another server took over (it recovered them while this one could
 * not renew: frozen, cut off from the database) are stopped now, so that
 * their steps do not go on beside the attempts that replaced them (what
 * they would record is refused anyway). A run that just ended here is
 * left out too; stopping it changes nothing. */
static void stop_lost(sked_workers *w)
{
    char *ids[SKED_WORKERS_MAX];
    size_t n = 0;

    pthread_mutex_lock(&w->mu);
    for (int i = 0; i < w->cfg.nworkers; i++)
        if (w->slots[i].busy && (ids[n] = sked__strdup(w->slots[i].run.id)))
            n++;
    pthread_mutex_unlock(&w->mu);
    for (size_t k = 0; k < n; k++) {
        if (!still_ours(w, ids[k])) {
            pthread_mutex_lock(&w->mu);
            cancel_local(w, ids[k], SKED_STOP_LOST);
            pthread_mutex_unlock(&w->mu);
        }
        free(ids[k]);
    }
}

/* Renew the leases of the runs held here, act on cancel requests, stop
 * the runs lost. Returns 0 or the store's error. */
static int renew(sked_workers *w)
{
    char **held = NULL, **ids = NULL;
    size_t nheld = 0, nids = 0, renewed = 0;
    sked_error err = {0};

    pthread_mutex_lock(&w->mu);
    int rc = held_ids(w, &held, &nheld);
    pthread_mutex_unlock(&w->mu);
    if (rc == 0 && nheld > 0) {
        rc = sked__store_runs_renew(
            w->cfg.env.store, w->cfg.env.executor, (const char *const *) held,
            nheld, now_of(w), w->cfg.lease, &renewed, &ids, &nids, &err);
        sked__store_report(w->cfg.env.store, SKED_OP_RENEW, rc, &err);
        if (rc == 0 && renewed < nheld)
            stop_lost(w);
    } else if (rc == 0) {
        /* Nothing held: no lease can lapse, the renewal is not failing. */
        sked__store_report(w->cfg.env.store, SKED_OP_RENEW, 0, NULL);
    }
    if (rc == 0 && nids > 0) {
        pthread_mutex_lock(&w->mu);
        for (size_t i = 0; i < nids; i++)
            cancel_local(w, ids[i], SKED_STOP_CANCEL);
        pthread_mutex_unlock(&w->mu);
    }
    strs_free(held, nheld);
    strs_free(ids, nids);
    return rc;
}

/* Refresh version routing: is each version here the latest registered?
 * Returns 0 or the store's error. */
static int route(sked_workers *w)
{
    sked_claim_workflow *wf = NULL;
    size_t nwf = 0;
    sked_error err = {0};
    int rc = 0;

    if (sked__registry_claimables(w->cfg.env.registry, &wf, &nwf) != 0)
        return SKED_ENOMEM;
    for (size_t i = 0; rc == 0 && i < nwf; i++) {
        char *latest = NULL;
        rc = sked__store_workflow_latest(w->cfg.env.store, wf[i].name, &latest,
                                         &err);
        if (rc == 0)
            sked__registry_set_latest(w->cfg.env.registry, wf[i].name,
                                      strcmp(latest, wf[i].version) == 0);
        free(latest);
    }
    sked__store_report(w->cfg.env.store, SKED_OP_ROUTE, rc, &err);
    sked__registry_claimables_free(wf, nwf);
    return rc;
}

/* SPEC 5: events are kept for a retention; every engine with workers
 * prunes, at most once an hour (several servers pruning is harmless). */
static int prune(sked_workers *w)
{
    sked_time now = now_of(w);
    sked_error err = {0};
    if (w->last_prune != SKED_TIME_NONE &&
        now - w->last_prune < SKED_PRUNE_EVERY)
        return 0;
    int rc = sked__store_event_prune(w->cfg.env.store, now - w->cfg.retention,
                                     NULL, &err);
    sked__store_report(w->cfg.env.store, SKED_OP_PRUNE, rc, &err);
    if (rc == 0) /* failed: tried again at the next routine beat */
        w->last_prune = now;
    return rc;
}

/* A beat: the leases and the cancels always; version routing and the
 * events' retention only on the lease/3 period (ROUTINE), not on every
 * early beat a wake asks for. Returns 0 or the first store error. */
static int beat(sked_workers *w, bool routine)
{
    int rc = renew(w);
    if (!routine)
        return rc;
    int rc2 = route(w);
    int rc3 = prune(w);
    return rc ? rc : rc2 ? rc2 : rc3;
}

static void *heartbeat_main(void *arg)
{
    sked_workers *w = arg;
    sked_dur period = w->cfg.lease / 3;
    sked_mono last_routine = sked__clock_mono(NULL) - period;
    sked_backoff bo;

    (void) sked__actor_set(SKED__ACTOR_SCHEDULER); /* its own changes */
    sked__backoff_init(&bo, BEAT_MIN, period);
    pthread_mutex_lock(&w->mu);
    while (!w->stopping) {
        w->beat_soon = false;
        pthread_mutex_unlock(&w->mu);
        sked_mono now = sked__clock_mono(NULL);
        bool routine = now - last_routine >= period;
        if (routine)
            last_routine = now;
        int rc = beat(w, routine);
        pthread_mutex_lock(&w->mu);
        if (rc != 0) {
            /* A failed beat is tried again, routine and all, after a
             * growing wait that never passes the period: leases must
             * not lapse for want of a try. */
            wait_stop(w, &w->beat, sked__backoff_fail(&bo));
            last_routine = sked__clock_mono(NULL) - period;
            continue;
        }
        sked__backoff_ok(&bo);
        struct timespec ts;
        /* At most every BEAT_MIN when woken (a firing may have asked to
         * cancel a run here: overlap cancel_other), else every third of
         * the lease. Both waits are counted from this beat, not from the
         * end of the first: a server frozen (SIGSTOP, a paused VM) in the
         * first wait renews at once when it wakes, while its leases may
         * still hold, instead of a period after. */
        sked__clock_deadline(BEAT_MIN, &ts);
        while (!w->stopping &&
               pthread_cond_timedwait(&w->beat, &w->mu, &ts) != ETIMEDOUT)
            ;
        sked__clock_deadline(period - (sked__clock_mono(NULL) - now), &ts);
        while (!w->stopping && !w->beat_soon &&
               pthread_cond_timedwait(&w->beat, &w->mu, &ts) != ETIMEDOUT)
            ;
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* ---- life ------------------------------------------------------------- */

static int init_sync(sked_workers *w)
{
    int rc = pthread_mutex_init(&w->mu, NULL);
    if (rc == 0)
        rc = pthread_cond_init(&w->work, NULL);
    if (rc == 0)
        rc = sked__cond_init_mono(&w->claim);
    if (rc == 0)
        rc = sked__cond_init_mono(&w->beat);
    return rc == 0 ? 0 : SKED_ENOMEM;
}

static int spawn(sked_workers *w)
{
    for (int i = 0; i < w->cfg.nworkers; i++) {
        w->slots[i].pool = w;
        if (sked__cancel_init(&w->slots[i].cancel) != 0 ||
            pthread_create(&w->slots[i].th, NULL, worker_main, &w->slots[i]) !=
                0)
            return SKED_EIO;
        w->started++;
    }
    if (pthread_create(&w->dispatcher, NULL, dispatcher_main, w) != 0)
        return SKED_EIO;
    w->started++;
    if (pthread_create(&w->heartbeat, NULL, heartbeat_main, w) != 0)
        return SKED_EIO;
    w->started++;
    return 0;
}

int sked__workers_start(const sked_workers_config *cfg, sked_workers **out)
{
    if (cfg->nworkers < 1 || cfg->nworkers > SKED_WORKERS_MAX)
        return SKED_EINVAL;
    sked_workers *w = sked__calloc(1, sizeof *w);
    if (!w)
        return SKED_ENOMEM;
    w->cfg = *cfg;
    w->last_prune = SKED_TIME_NONE;
    if (w->cfg.lease <= 0)
        w->cfg.lease = SKED_LEASE_DEFAULT;
    if (w->cfg.poll <= 0)
        w->cfg.poll = SKED_POLL_DEFAULT;
    if (w->cfg.retention <= 0)
        w->cfg.retention = SKED_RETENTION_DEFAULT;
    w->qcap = (size_t) cfg->nworkers * 2 + PREFETCH_SHORT + 1;
    w->queue = sked__calloc(w->qcap, sizeof *w->queue);
    w->slots = sked__calloc((size_t) cfg->nworkers, sizeof *w->slots);
    int rc = !w->queue || !w->slots ? SKED_ENOMEM : init_sync(w);
    if (rc == 0)
        rc = spawn(w);
    if (rc != 0) {
        sked__workers_stop(w);
        return rc;
    }
    *out = w;
    return 0;
}

void sked__workers_wake(sked_workers *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->woken = true;
    w->beat_soon = true;
    pthread_cond_signal(&w->claim);
    pthread_cond_signal(&w->beat);
    pthread_mutex_unlock(&w->mu);
}

void sked__workers_cancel(sked_workers *w, const char *id)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    cancel_local(w, id, SKED_STOP_CANCEL);
    pthread_mutex_unlock(&w->mu);
}

void sked__workers_stop(sked_workers *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->stopping = true;
    for (int i = 0; i < w->cfg.nworkers; i++)
        if (w->slots[i].busy)
            sked__cancel_set(&w->slots[i].cancel, SKED_STOP_SHUTDOWN);
    pthread_cond_broadcast(&w->work);
    pthread_cond_broadcast(&w->claim);
    pthread_cond_broadcast(&w->beat);
    pthread_mutex_unlock(&w->mu);
    /* A worker waiting for a commit the database refuses must not hold
     * the stop: its write is tried once more, then given up. */
    sked__journal_hurry(w->cfg.env.journal);
    int n = w->started;
    for (int i = 0; i < w->cfg.nworkers && n > 0; i++, n--)
        pthread_join(w->slots[i].th, NULL);
    if (n-- > 0)
        pthread_join(w->dispatcher, NULL);
    if (n-- > 0)
        pthread_join(w->heartbeat, NULL);
    /* What the workers wrote, then everything still ours, goes back. */
    if (w->cfg.env.journal)
        sked__journal_flush(w->cfg.env.journal);
    if (w->started > 0) {
        sked_error err = {0};
        sked__store_runs_release(w->cfg.env.store, w->cfg.env.executor,
                                 now_of(w), &err);
    }
    for (size_t j = 0; j < w->qlen; j++)
        sked__run_done(&w->queue[(w->qhead + j) % w->qcap]);
    for (int i = 0; w->slots && i < w->cfg.nworkers; i++)
        sked__cancel_close(&w->slots[i].cancel);
    free(w->queue);
    free(w->slots);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->work);
    pthread_cond_destroy(&w->claim);
    pthread_cond_destroy(&w->beat);
    free(w);
}
