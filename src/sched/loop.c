/* SPDX-License-Identifier: MIT */
/* The scheduler loop (loop.h, SPEC 3.2).
 *
 * Words: an entry is what the loop keeps of one schedule (its name, the
 * instant it is due in the heap, the updated_at it was read at); a pass
 * is one round of rereading and firing; the watermark is the greatest
 * updated_at the loop has read.
 *
 * The plan of a pass:
 *  1. Reread changes, at most once per tick unless woken: the heads of the
 *     schedules whose updated_at is at least the start of the previous
 *     reread, on this engine's clock, minus LOOKBACK (writers' clocks
 *     differ, and transactions commit out of their updated_at order) —
 *     measured on our clock, not from the newest change, so that a bulk
 *     change is read once, not on every tick after it — and every
 *     RECONCILE a full scan, which
 *     also drops the entries of schedules deleted by others. An entry
 *     whose updated_at moved is placed again in the heap at its stored
 *     next_fire_at (at once when it has none, or when its expression or
 *     zone does not load here, so that the firing decides: done, or
 *     disabled).
 *  2. Pop every entry due at the pass's now, in batches of BATCH names,
 *     and fire each batch in one store transaction (sked__store_fire):
 *     the store locks the rows and calls decide() on each fresh row,
 *     which runs the pure policy (sked__policy_plan) and turns its fires
 *     into runs. The cursor and the runs commit together; a loser of a
 *     race reads the winner's cursor and decides nothing twice.
 *  3. Push each fired entry back at the next occurrence the firing wrote,
 *     or at its runs' next deadline check when that is first (a paused
 *     schedule's entry stays for its deadlines);
 *     deliver the events; add the dropped occurrences to the counters.
 *
 * Between passes the thread sleeps on a condition variable until the
 * earliest entry is due or a tick has passed, whichever is first, or
 * until woken by a change made through the engine, or by the PostgreSQL
 * listener (NOTIFY sked_schedules). Nothing scans all schedules on a
 * pass: finding the due ones is O(log n) each. */
#include "sched/loop.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/actor.h"
#include "base/alloc.h"
#include "base/backoff.h"
#include "base/error.h"
#include "base/heap.h"
#include "base/name_index.h"
#include "sched/decide.h"
#include "store/store_health.h"

/* Schedules fired by one transaction (at most SKED_STORE_BATCH_MAX): a
 * larger batch spreads the commit and the round trips over more rows. */
#define BATCH      1000
#define LOOKBACK   (INT64_C(60) * SKED_USEC_PER_SEC)
#define RECONCILE  (INT64_C(600) * SKED_USEC_PER_SEC)
#define SKEW_EVERY (INT64_C(60) * SKED_USEC_PER_SEC)
#define INDEX_MIN  1024

/* One schedule the loop knows. Entries live until the loop is freed, so
 * pointers to them stay valid while a pass works without the lock. */
typedef struct entry {
    sked_heap_node node; /* in l->heap while active; key: when due */
    char *name;          /* owned */
    sked_time updated_at;
    sked_time next_fire_at;      /* as last read or written */
    sked_time deadline_check_at; /* its runs' next deadline; NONE: none */
    sked_schedule_status status;
    bool gone;              /* deleted, or not seen by the last full scan */
    uint64_t seen;          /* the full scan that last saw it */
    int64_t *missed;        /* owned, SKED_MISS__COUNT; NULL until needed */
    sked_name_node by_name; /* in l->index */
} entry;

#define ENTRY(n) ((entry *) (void *) ((char *) (n) -offsetof(entry, node)))
#define NAMED(n) ((entry *) (void *) ((char *) (n) -offsetof(entry, by_name)))

struct sked_loop {
    sked_loop_options o;
    pthread_mutex_t pass_mu; /* held for a whole pass */
    /* Guarded by mu: everything below. */
    pthread_mutex_t mu;
    pthread_cond_t cv; /* signalled on wake and stop; CLOCK_MONOTONIC */
    sked_heap heap;
    sked_name_index index; /* of owned entries */
    sked_time watermark;   /* NONE: read everything */
    sked_time reread_at;   /* wall time the last reread started; NONE */
    sked_mono last_reread, last_full, last_skew;
    bool wake, stopping, started, skew_known;
    sked_dur skew;
    uint64_t scan_gen;
    pthread_t thread;        /* owned while started */
    sked_listener *listener; /* owned; PostgreSQL only */
    pthread_t listen_thread; /* owned while listener is set */
    /* The pass in progress (only the pass-lock holder touches these). */
    sked_time now;
    bool skew_tried;
};

/* ---- the index of entries by name --------------------------------------- */

static entry *find(const sked_loop *l, const char *name)
{
    sked_name_node *n = sked__name_index_find(&l->index, name);

    return n ? NAMED(n) : NULL;
}

/* The next entry of the walk W over the index, NULL after the last; the
 * walk has moved past it (it may be freed). */
static entry *walk_next(sked_name_walk *w)
{
    sked_name_node *n = sked__name_walk_next(w);

    return n ? NAMED(n) : NULL;
}

/* Return NAME's entry, creating it; NULL on ENOMEM. */
static entry *intern(sked_loop *l, const char *name)
{
    entry *e = find(l, name);

    if (e)
        return e;
    e = sked__calloc(1, sizeof *e);
    if (!e || !(e->name = sked__strdup(name))) {
        free(e);
        return NULL;
    }
    sked__heap_node_init(&e->node);
    e->updated_at = e->next_fire_at = e->deadline_check_at = SKED_TIME_NONE;
    e->gone = true;
    e->by_name.name = e->name;
    sked__name_index_add(&l->index, &e->by_name);
    return e;
}

/* When an entry is due: at its next occurrence while active, or at its
 * runs' next deadline check whatever its status, whichever is first. */
static sked_time due_key(sked_schedule_status status, sked_time next,
                         sked_time check)
{
    sked_time key = status == SKED_SCHEDULE_ACTIVE ? next : SKED_TIME_NONE;

    if (check != SKED_TIME_NONE && (key == SKED_TIME_NONE || check < key))
        key = check;
    return key;
}

/* Put E in the heap at KEY, or take it out when KEY is NONE. */
static int place(sked_loop *l, entry *e, sked_time key)
{
    if (key == SKED_TIME_NONE) {
        sked__heap_remove(&l->heap, &e->node);
        return 0;
    }
    if (sked__heap_contains(&e->node)) {
        sked__heap_update(&l->heap, &e->node, key);
        return 0;
    }
    return sked__heap_push(&l->heap, &e->node, key);
}

/* Place E at KEY; when the heap cannot grow, forget what E is known as
 * and have the next pass reread, which places it again: a schedule must
 * not drop out of the heap for want of memory (its row does not change
 * when it fires, so no later reread would notice). */
static int place_or_forget(sked_loop *l, entry *e, sked_time key)
{
    int rc = place(l, e, key);

    if (rc != 0) {
        e->updated_at = SKED_TIME_NONE;
        l->wake = true;
    }
    return rc;
}

/* ---- rereading changes ---------------------------------------------------*/

/* Tell whether the head's expression and zone load here (SPEC 2.2: one
 * that does not is disabled by the firing, which is made due at once). */
static bool head_loads(const sked_loop *l, const sked_schedule_head *h)
{
    const sked_tz *tz;
    sked_cron c;

    if (h->cron && sked_cron_parse(h->cron, &c, NULL) != 0)
        return false;
    return !h->timezone ||
           sked_tzdb_get(l->o.tzdb, h->timezone, &tz, NULL) == 0;
}

struct scan_ctx {
    sked_loop *l;
    bool full;
    sked_time max_updated;
};

/* Take in one head read from the store. */
static int scan_head(void *arg, const sked_schedule_head *h)
{
    struct scan_ctx *c = arg;
    sked_loop *l = c->l;
    sked_time key = SKED_TIME_NONE;
    entry *e;
    int rc = 0;

    if (h->updated_at != SKED_TIME_NONE && h->updated_at > c->max_updated)
        c->max_updated = h->updated_at;
    pthread_mutex_lock(&l->mu);
    e = intern(l, h->name);
    if (!e) {
        pthread_mutex_unlock(&l->mu);
        return SKED_ENOMEM;
    }
    e->seen = l->scan_gen;
    /* Two writes may share an updated_at (the same microsecond): the
     * status and the next occurrence tell them apart. */
    if (!e->gone && e->updated_at == h->updated_at && e->status == h->status &&
        e->next_fire_at == h->next_fire_at &&
        e->deadline_check_at == h->deadline_check_at) {
        pthread_mutex_unlock(&l->mu);
        return 0; /* known as it is */
    }
    e->gone = false;
    e->updated_at = h->updated_at;
    e->status = h->status;
    e->next_fire_at = h->next_fire_at;
    e->deadline_check_at = h->deadline_check_at;
    if (h->status == SKED_SCHEDULE_ACTIVE)
        key = h->next_fire_at != SKED_TIME_NONE && head_loads(l, h)
                  ? h->next_fire_at
                  : l->now;
    key = due_key(SKED_SCHEDULE_ACTIVE, key, h->deadline_check_at);
    rc = place_or_forget(l, e, key);
    pthread_mutex_unlock(&l->mu);
    return rc;
}

/* Drop the entries a full scan did not see: deleted by others. */
static void drop_unseen(sked_loop *l)
{
    sked_name_walk w;
    entry *e;

    pthread_mutex_lock(&l->mu);
    sked__name_walk_start(&w, &l->index);
    while ((e = walk_next(&w)))
        if (!e->gone && e->seen != l->scan_gen) {
            e->gone = true;
            sked__heap_remove(&l->heap, &e->node);
        }
    pthread_mutex_unlock(&l->mu);
}

/* Step 1 of the plan: reread what changed (everything when FULL). */
static int reread(sked_loop *l, bool full, sked_error *err)
{
    struct scan_ctx c = {l, full, SKED_TIME_NONE};
    sked_time since, started = sked__clock_now(l->o.clock);
    int rc;

    pthread_mutex_lock(&l->mu);
    since =
        full || l->watermark == SKED_TIME_NONE || l->reread_at == SKED_TIME_NONE
            ? SKED_TIME_NONE
            : l->reread_at - LOOKBACK;
    l->scan_gen++;
    pthread_mutex_unlock(&l->mu);
    rc = sked__store_schedule_scan(l->o.store, since, scan_head, &c, err);
    if (rc != 0) {
        pthread_mutex_lock(&l->mu);
        l->wake = true; /* what it did not take in, the next pass does */
        pthread_mutex_unlock(&l->mu);
        return rc;
    }
    pthread_mutex_lock(&l->mu);
    l->reread_at = started;
    pthread_mutex_unlock(&l->mu);
    if (full)
        drop_unseen(l);
    pthread_mutex_lock(&l->mu);
    if (c.max_updated != SKED_TIME_NONE &&
        (l->watermark == SKED_TIME_NONE || c.max_updated > l->watermark))
        l->watermark = c.max_updated;
    pthread_mutex_unlock(&l->mu);
    return 0;
}

/* ---- deciding, inside the firing transaction -----------------------------*/

/* The decide callback of sked__store_fire (sched/decide.h), at the
 * pass's now. */
static int decide(void *ctx, const sked_schedule *s, const sked__occ_days *days,
                  const sked_time *skips, size_t nskips, int64_t active,
                  sked_firing *out)
{
    const sked_loop *l = ctx;

    return sked__decide(l->o.tzdb, l->now, l->o.tick, s, days, skips, nskips,
                        active, out);
}

/* ---- firing --------------------------------------------------------------*/

/* Step 3 of the plan for the batch E (N entries) fired into F. */
static void settle(sked_loop *l, entry **e, const sked_firing *f, size_t n)
{
    pthread_mutex_lock(&l->mu);
    for (size_t i = 0; i < n; i++) {
        sked_time key = SKED_TIME_NONE;
        if (!f[i].found) {
            e[i]->gone = true;
        } else {
            e[i]->status = f[i].status;
            e[i]->next_fire_at = f[i].next_fire_at;
            e[i]->deadline_check_at = f[i].deadline_check_at;
            key =
                due_key(f[i].status, f[i].next_fire_at, f[i].deadline_check_at);
        }
        if (key != SKED_TIME_NONE && key <= l->now)
            key = l->now + 1; /* a policy that did not move: next pass */
        if (!e[i]->gone)
            (void) place_or_forget(l, e[i], key);
        for (size_t k = 0; k < f[i].nmissed; k++) {
            for (int r = 0; r < SKED_MISS__COUNT; r++)
                if (strcmp(f[i].missed[k].reason,
                           sked__miss_reason_name((sked_miss_reason) r)) == 0) {
                    if (!e[i]->missed)
                        e[i]->missed =
                            sked__calloc(SKED_MISS__COUNT, sizeof(int64_t));
                    if (e[i]->missed)
                        e[i]->missed[r] += f[i].missed[k].count;
                }
        }
    }
    pthread_mutex_unlock(&l->mu);
}

/* Put the batch back where it was: its firing failed; the next pass
 * tries again. */
static void put_back(sked_loop *l, entry **e, size_t n)
{
    pthread_mutex_lock(&l->mu);
    for (size_t i = 0; i < n; i++)
        if (!e[i]->gone)
            (void) place_or_forget(l, e[i], l->now + 1);
    pthread_mutex_unlock(&l->mu);
}

/* Fire the batch E of N entries in one transaction. The names and the
 * firings of a batch are on the heap: a thousand firings would take a
 * quarter of a megabyte of an embedder's thread stack. */
static int fire_batch(sked_loop *l, entry **e, size_t n, sked_error *err)
{
    const char **names = sked__malloc(n * sizeof *names);
    sked_firing *f = sked__malloc(n * sizeof *f);
    sked_order_ticket ticket;
    sked_event *ev = NULL;
    size_t nev = 0;
    int rc;

    if (!names || !f) {
        free(names);
        free(f);
        put_back(l, e, n);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    for (size_t i = 0; i < n; i++)
        names[i] = e[i]->name;
    sked__order_take(l->o.order, &ticket);
    rc = sked__store_fire(l->o.store, names, n, decide, l, f, &ev, &nev, err);
    if (rc != 0) {
        sked__order_give(l->o.order, &ticket);
        put_back(l, e, n);
    } else {
        settle(l, e, f, n);
        if (l->o.emit && nev > 0)
            l->o.emit(l->o.emit_ctx, ev, nev);
        sked__order_give(l->o.order, &ticket);
        sked__events_free(ev, nev);
        for (size_t i = 0; i < n; i++)
            sked__firing_done(&f[i]);
    }
    free(names);
    free(f);
    return rc;
}

/* Pop up to BATCH entries due at l->now into E; return how many. */
static size_t pop_due(sked_loop *l, entry **e)
{
    size_t n = 0;

    pthread_mutex_lock(&l->mu);
    while (n < BATCH) {
        sked_heap_node *top = sked__heap_min(&l->heap);
        if (!top || top->key > l->now)
            break;
        sked__heap_remove(&l->heap, top);
        e[n++] = ENTRY(top);
    }
    pthread_mutex_unlock(&l->mu);
    return n;
}

/* Step 2 of the plan: fire every entry due now. */
static int fire_due(sked_loop *l, sked_error *err)
{
    entry *e[BATCH];
    size_t n;
    int rc = 0;

    while (rc == 0 && (n = pop_due(l, e)) > 0)
        rc = fire_batch(l, e, n, err); /* failing: the batch is put back */
    /* Nothing due is no failure: a failed batch, put back, is due again
     * at the next pass, which reports it again. */
    sked__store_report(l->o.store, SKED_OP_FIRE, rc, err);
    return rc;
}

/* ---- the pass
 * --------------------------------------------------------------*/

/* Decide whether this pass rereads, and whether in full. */
static void reread_due(sked_loop *l, bool *partial, bool *full)
{
    sked_mono mono = sked__clock_mono(l->o.clock);

    pthread_mutex_lock(&l->mu);
    *full = mono - l->last_full >= RECONCILE;
    *partial = *full || l->wake || mono - l->last_reread >= l->o.tick;
    if (*partial)
        l->last_reread = mono;
    if (*full)
        l->last_full = mono;
    l->wake = false;
    pthread_mutex_unlock(&l->mu);
}

/* Measure the database's clock against ours, now and then. */
static void measure_skew(sked_loop *l)
{
    sked_mono mono = sked__clock_mono(l->o.clock);
    sked_time before, db = 0, after;
    sked_error err = {0};
    int rc;

    if (strcmp(sked__store_kind(l->o.store), "postgres") != 0 ||
        (l->skew_tried && mono - l->last_skew < SKEW_EVERY))
        return;
    l->skew_tried = true;
    l->last_skew = mono;
    before = sked__clock_now(l->o.clock);
    rc = sked__store_db_clock(l->o.store, &db, &err);
    sked__store_report(l->o.store, SKED_OP_CLOCK, rc, &err);
    if (rc != 0) {
        /* Tried again at the next pass, not a minute later: a failing
         * clock read keeps the server unready until one succeeds. */
        l->skew_tried = false;
        return;
    }
    after = sked__clock_now(l->o.clock);
    pthread_mutex_lock(&l->mu);
    l->skew = db - (before + (after - before) / 2);
    l->skew_known = true;
    pthread_mutex_unlock(&l->mu);
}

int sked__loop_pass(sked_loop *l, sked_error *err)
{
    bool partial, full;
    int rc = 0;

    /* What fails is reported with ERR: it must hold no other message. */
    sked_error_clear(err);
    pthread_mutex_lock(&l->pass_mu);
    l->now = sked__clock_now(l->o.clock);
    reread_due(l, &partial, &full);
    if (partial) {
        rc = reread(l, full, err);
        sked__store_report(l->o.store, SKED_OP_SCAN, rc, err);
        if (rc != 0) { /* reread at the next pass, not a tick later */
            pthread_mutex_lock(&l->mu);
            l->wake = true;
            pthread_mutex_unlock(&l->mu);
        }
    }
    if (rc == 0)
        rc = fire_due(l, err);
    measure_skew(l);
    pthread_mutex_unlock(&l->pass_mu);
    return rc;
}

/* ---- the thread
 * ------------------------------------------------------------*/

/* Return how long to sleep: until the earliest entry, at most a tick. */
static sked_dur sleep_for(sked_loop *l)
{
    sked_heap_node *top = sked__heap_min(&l->heap);
    sked_time now = sked__clock_now(l->o.clock);
    sked_dur d = l->o.tick;

    if (top && top->key - now < d)
        d = top->key - now;
    return d < 0 ? 0 : d;
}

/* Wait D, or until the loop stops; wakes are not waited for (under
 * mu): a failing store is tried again after its backoff, whatever
 * changes meanwhile. */
static void wait_backoff(sked_loop *l, sked_dur d)
{
    struct timespec ts;

    sked__clock_deadline(d, &ts);
    while (!l->stopping &&
           pthread_cond_timedwait(&l->cv, &l->mu, &ts) != ETIMEDOUT)
        ;
}

static void *thread_main(void *arg)
{
    sked_loop *l = arg;
    sked_backoff bo;

    (void) sked__actor_set(SKED__ACTOR_SCHEDULER); /* its own changes */
    sked__backoff_init(&bo, 0, 0);
    pthread_mutex_lock(&l->mu);
    while (!l->stopping) {
        sked_error err;
        pthread_mutex_unlock(&l->mu);
        int rc = sked__loop_pass(l, &err);
        pthread_mutex_lock(&l->mu);
        if (rc != 0) {
            /* The store fails (a full disk, a lost server): try again
             * after a growing wait, not at once, and not a core's worth
             * of tries (the store's health tells the server). */
            wait_backoff(l, sked__backoff_fail(&bo));
            continue;
        }
        sked__backoff_ok(&bo);
        if (!l->stopping && !l->wake) {
            struct timespec ts;
            sked__clock_deadline(sleep_for(l), &ts);
            (void) pthread_cond_timedwait(&l->cv, &l->mu, &ts);
        }
    }
    pthread_mutex_unlock(&l->mu);
    return NULL;
}

/* SPEC 3.2 on PostgreSQL: a change notified by another server wakes the
 * scheduler at once (the listener thread owns the listener's
 * connection; the tick stays the fallback). */
static void on_notify(void *arg, const char *payload)
{
    sked_loop *l = arg;

    (void) payload; /* the reread finds what changed by updated_at */
    pthread_mutex_lock(&l->mu);
    l->wake = true;
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
}

static void *listen_main(void *arg)
{
    sked_loop *l = arg;
    bool stop = false;
    sked_backoff bo;

    (void) sked__actor_set(SKED__ACTOR_SCHEDULER); /* its own changes */
    /* Dropped: wait before reconnecting, a tick at first, longer while
     * the server stays away; then reread. */
    sked__backoff_init(&bo, l->o.tick, 0);
    while (!stop) {
        if (sked__listener_wait(l->listener, l->o.tick, on_notify, l, NULL)) {
            pthread_mutex_lock(&l->mu);
            wait_backoff(l, sked__backoff_fail(&bo));
            l->wake = true;
            pthread_mutex_unlock(&l->mu);
        } else {
            sked__backoff_ok(&bo);
        }
        pthread_mutex_lock(&l->mu);
        stop = l->stopping;
        pthread_mutex_unlock(&l->mu);
    }
    return NULL;
}

/* Stop and join the listener thread (l->stopping is set). */
static void stop_listener(sked_loop *l)
{
    if (!l->listener)
        return;
    sked__listener_wake(l->listener);
    (void) pthread_join(l->listen_thread, NULL);
    sked__listener_close(l->listener);
    l->listener = NULL;
}

/* Start the listener thread when the store has notifications. */
static int start_listener(sked_loop *l, sked_error *err)
{
    int rc;

    if (strcmp(sked__store_kind(l->o.store), "postgres") != 0)
        return 0;
    rc = sked__store_listen(l->o.store, "sked_schedules", &l->listener, err);
    if (rc != 0)
        return rc;
    if (pthread_create(&l->listen_thread, NULL, listen_main, l) != 0) {
        sked__listener_close(l->listener);
        l->listener = NULL;
        return sked__error_set(err, SKED_ENOMEM, NULL, -1,
                               "cannot start the listener thread");
    }
    return 0;
}

int sked__loop_start(sked_loop *l, sked_error *err)
{
    int rc;

    pthread_mutex_lock(&l->mu);
    if (l->started) {
        pthread_mutex_unlock(&l->mu);
        return sked__error_set(err, SKED_EINVAL, NULL, -1,
                               "the scheduler is already started");
    }
    l->started = true; /* under mu: a second start is refused */
    pthread_mutex_unlock(&l->mu);
    rc = start_listener(l, err);
    if (rc == 0 && pthread_create(&l->thread, NULL, thread_main, l) != 0)
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1,
                             "cannot start the scheduler thread");
    if (rc != 0) {
        pthread_mutex_lock(&l->mu);
        l->stopping = true; /* a listener started stops, and is joined */
        pthread_mutex_unlock(&l->mu);
        stop_listener(l);
        pthread_mutex_lock(&l->mu);
        l->started = l->stopping = false;
        pthread_mutex_unlock(&l->mu);
    }
    return rc;
}

/* ---- life and queries
 * ------------------------------------------------------*/

static int init_sync(sked_loop *l)
{
    int rc = sked__cond_init_mono(&l->cv);

    if (rc != 0)
        return rc;
    rc = pthread_mutex_init(&l->mu, NULL);
    if (rc == 0)
        rc = pthread_mutex_init(&l->pass_mu, NULL);
    return rc;
}

int sked__loop_new(const sked_loop_options *opts, sked_loop **out,
                   sked_error *err)
{
    sked_loop *l = sked__calloc(1, sizeof *l);
    int rc;

    if (!l || sked__name_index_init(&l->index, INDEX_MIN) != 0) {
        free(l);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    l->o = *opts;
    l->watermark = SKED_TIME_NONE;
    l->reread_at = SKED_TIME_NONE;
    sked__heap_init(&l->heap);
    if (init_sync(l) != 0) {
        sked__name_index_done(&l->index);
        free(l);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    l->now = sked__clock_now(l->o.clock);
    l->last_reread = l->last_full = sked__clock_mono(l->o.clock);
    rc = reread(l, true, err);
    if (rc != 0) {
        sked__loop_free(l);
        return rc;
    }
    *out = l;
    return 0;
}

void sked__loop_free(sked_loop *l)
{
    sked_name_walk w;
    entry *e;
    bool started;

    if (!l)
        return;
    pthread_mutex_lock(&l->mu);
    l->stopping = true;
    started = l->started;
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
    stop_listener(l);
    if (started)
        (void) pthread_join(l->thread, NULL);
    sked__heap_done(&l->heap);
    sked__name_walk_start(&w, &l->index);
    while ((e = walk_next(&w))) {
        free(e->name);
        free(e->missed);
        free(e);
    }
    sked__name_index_done(&l->index);
    (void) pthread_cond_destroy(&l->cv);
    (void) pthread_mutex_destroy(&l->mu);
    (void) pthread_mutex_destroy(&l->pass_mu);
    free(l);
}

sked_time sked__loop_next_wakeup(sked_loop *l)
{
    sked_heap_node *top;
    sked_time t;

    pthread_mutex_lock(&l->mu);
    top = sked__heap_min(&l->heap);
    t = top ? top->key : SKED_TIME_NONE;
    pthread_mutex_unlock(&l->mu);
    return t;
}

void sked__loop_changed(sked_loop *l, const char *deleted)
{
    pthread_mutex_lock(&l->mu);
    if (deleted) {
        entry *e = find(l, deleted);
        if (e) {
            e->gone = true;
            sked__heap_remove(&l->heap, &e->node);
        }
    }
    l->wake = true;
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
}

void sked__loop_put(sked_loop *l, const sked_schedule *s)
{
    sked_schedule_head h = {.name = s->name,
                            .status = s->status,
                            .next_fire_at = s->next_fire_at,
                            .updated_at = s->updated_at,
                            .deadline_check_at = s->deadline_check_at,
                            .cron = s->kind == SKED_SPEC_CRON ? s->cron : NULL,
                            .timezone = s->timezone};
    struct scan_ctx c = {l, false, SKED_TIME_NONE};

    (void) scan_head(&c, &h); /* ENOMEM: the next reread takes it in */
    sked__loop_changed(l, NULL);
}

int64_t sked__loop_missed(sked_loop *l, const char *schedule,
                          sked_miss_reason r)
{
    int64_t n = 0;
    entry *e;

    if ((unsigned) r >= SKED_MISS__COUNT)
        return 0;
    pthread_mutex_lock(&l->mu);
    e = find(l, schedule);
    if (e && e->missed)
        n = e->missed[r];
    pthread_mutex_unlock(&l->mu);
    return n;
}

void sked__loop_missed_each(sked_loop *l, sked_missed_fn fn, void *ctx)
{
    sked_name_walk w;
    entry *e;

    pthread_mutex_lock(&l->mu);
    sked__name_walk_start(&w, &l->index);
    while ((e = walk_next(&w)))
        for (int r = 0; e->missed && r < SKED_MISS__COUNT; r++)
            if (e->missed[r] > 0)
                fn(ctx, e->name, (sked_miss_reason) r, e->missed[r]);
    pthread_mutex_unlock(&l->mu);
}

bool sked__loop_clock_skew(sked_loop *l, sked_dur *out)
{
    bool known;

    pthread_mutex_lock(&l->mu);
    known = l->skew_known;
    if (known)
        *out = l->skew;
    pthread_mutex_unlock(&l->mu);
    return known;
}
