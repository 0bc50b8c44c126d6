/* SPDX-License-Identifier: MIT */
/* The engine (include/sked/engine.h): a store, a zone database and the
 * scheduler loop in one handle, and the operations on schedules.
 *
 * Ownership: the engine owns the tzdb, the store and the loop (which owns
 * the scheduler thread). Every operation writes through the store, then
 * tells the loop (sked__loop_changed), which rereads at once. Events reach
 * subscribers after their commit: the loop's from the pass that fired,
 * the operations' from the calling thread. Subscribers are guarded by
 * sub_mu, held while they are called (so sked_unsubscribe returns only
 * once its callback can no longer run).
 *
 * Choices callers see:
 * - A trigger takes the concurrency key of an "overlap: skip" schedule
 *   like a fired run (SPEC 3.4), so it fails with SKED_ECONFLICT while a
 *   run of the schedule is active. Every run of a schedule whose overlap
 *   is not "allow" carries the serial key "schedule:{name}" (schema 0002)
 *   and so runs one at a time.
 * - Backfilled runs never take the concurrency key (SPEC 3.5: backfill
 *   never drops); with an overlap other than "allow" they carry the
 *   serial key, so they run one at a time, in the order of their
 *   occurrences. The occurrences are counted before anything is written:
 *   over SKED_BACKFILL_MAX, nothing is. Runs are written in transactions
 *   of SKED_STORE_BATCH_MAX.
 * - Events of schedule operations reach subscribers with id 0 (they are
 *   stored, but the store does not hand their ids back). */
#include "base/actor.h"
#include "base/alloc.h"
#include "engine/engine_int.h"
#include "model/calbook.h"
#include "model/notifier.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "model/schedule.h"
#include "model/schedule_json.h"

sked_store *sked__engine_store(sked_engine *e)
{
    return e->store;
}

int sked_engine_ready(sked_engine *e, sked_error *err)
{
    sked_store_fault f;
    char since[SKED_TIME_STRLEN];

    sked_error_clear(err);
    if (!e)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, "no engine");
    /* The background work first: a full disk or a read-only file still
     * answers the probe's read, while nothing can be fired or recorded. */
    if (sked__store_fault(e->store, &f)) {
        if (sked_time_format(f.since, since, sizeof since) < 0)
            snprintf(since, sizeof since, "?");
        return sked__error_set(
            err, SKED_EBUSY, "db", -1, "%s (%s failing since %s)",
            sked__store_fault_reason(f.code), sked__store_op_name(f.op), since);
    }
    return sked__store_ready(e->store, err);
}

int sked_engine_workers_busy(sked_engine *e)
{
    return e && e->workers ? sked__workers_busy(e->workers) : 0;
}

bool sked__engine_fault(sked_engine *e, sked_store_fault *out)
{
    return sked__store_fault(e->store, out);
}

bool sked_engine_failing(sked_engine *e, sked_fault *out)
{
    sked_store_fault f;

    if (!e || !sked__store_fault(e->store, &f))
        return false;
    if (out) {
        *out = (sked_fault){.op = sked__store_op_name(f.op),
                            .code = f.code,
                            .since = f.since,
                            .failures = f.failures,
                            .episode = f.episode};
        memcpy(out->msg, f.msg, sizeof out->msg);
    }
    return true;
}

sked_time sked_engine_now(sked_engine *e)
{
    return sked__clock_now(e ? e->clock : NULL);
}

/* ---- events
 * ----------------------------------------------------------------*/

void sked__engine_deliver(void *ctx, const sked_event *ev, size_t n)
{
    sked_engine *e = ctx;

    sked__metrics_observe(e->metrics, ev, n);
    pthread_mutex_lock(&e->sub_mu);
    for (sked_subscription *s = e->subs; s; s = s->next)
        for (size_t i = 0; i < n; i++) {
            sked_event_view v = {ev[i].id, ev[i].type, ev[i].subject,
                                 ev[i].payload, ev[i].at};
            s->fn(s->ctx, &v);
        }
    pthread_mutex_unlock(&e->sub_mu);
    /* The workers after the subscribers: the run.created of the runs they
     * are woken for is already out. (A worker awake anyway may claim a
     * run before that; its run.started then waits: base/order.h.) */
    for (size_t i = 0; i < n; i++)
        if (strcmp(ev[i].type, "run.created") == 0) {
            sked__workers_wake(e->workers);
            break;
        }
    /* Its deliveries are committed with it: send them now. */
    for (size_t i = 0; i < n; i++)
        if (sked__notify_event_known(ev[i].type)) {
            sked__engine_notify_wake(e);
            break;
        }
}

void sked__engine_deliver_one(sked_engine *e, const char *type,
                              const char *subject, char *payload)
{
    sked_event ev = {0, (char *) type, (char *) subject, payload,
                     sked__clock_now(e->clock)};

    if (payload)
        sked__engine_deliver(e, &ev, 1);
    free(payload);
}

/* Tell the scheduler, when E has one, that NAME (NULL: any schedule)
 * changed. */
static void changed(sked_engine *e, const char *name)
{
    if (e->loop)
        sked__loop_changed(e->loop, name);
}

/* Take in the schedule NAME as it is now: its place in the loop's heap
 * (at once), and the event TYPE with its JSON when TYPE is not NULL. */
static void refresh(sked_engine *e, const char *type, const char *name)
{
    sked_schedule s;
    char *p = NULL;

    if (sked__store_schedule_get(e->store, name, &s, NULL) != 0) {
        changed(e, NULL); /* the next pass rereads */
        return;
    }
    if (e->loop)
        sked__loop_put(e->loop, &s);
    if (type)
        (void) sked__schedule_to_json_text(&s, &p, NULL);
    sked_schedule_done(&s);
    if (type)
        sked__engine_deliver_one(e, type, name, p);
}

/* Deliver TYPE about NAME with {"name": NAME}. */
static void deliver_name(sked_engine *e, const char *type, const char *name)
{
    size_t len = strlen(name) + 16;
    char *p = sked__malloc(len);

    if (p)
        (void) snprintf(p, len, "{\"name\":\"%s\"}", name);
    sked__engine_deliver_one(e, type, name, p);
}

int sked_subscribe(sked_engine *e, sked_event_fn fn, void *ctx,
                   sked_subscription **out, sked_error *err)
{
    sked_subscription *s;

    if (!e || !fn || !out)
        return sked__error_set(err, SKED_EINVAL, NULL, -1,
                               "an engine, a function and an output");
    s = sked__calloc(1, sizeof *s);
    if (!s)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    s->fn = fn;
    s->ctx = ctx;
    pthread_mutex_lock(&e->sub_mu);
    s->next = e->subs;
    e->subs = s;
    pthread_mutex_unlock(&e->sub_mu);
    *out = s;
    return 0;
}

void sked_unsubscribe(sked_engine *e, sked_subscription *sub)
{
    if (!e || !sub)
        return;
    pthread_mutex_lock(&e->sub_mu);
    for (sked_subscription **p = &e->subs; *p; p = &(*p)->next)
        if (*p == sub) {
            *p = sub->next;
            free(sub);
            break;
        }
    pthread_mutex_unlock(&e->sub_mu);
}

/* ---- open, start, close
 * ----------------------------------------------------*/

/* Set E->node_id from OPTS, else "hostname:pid". */
static int name_node(sked_engine *e, const char *given)
{
    char host[256] = "localhost", buf[300];

    if (!given) {
        if (gethostname(host, sizeof host - 1) != 0)
            (void) snprintf(host, sizeof host, "localhost");
        (void) snprintf(buf, sizeof buf, "%s:%ld", host, (long) getpid());
        given = buf;
    }
    e->node_id = sked__strdup(given);
    return e->node_id ? 0 : SKED_ENOMEM;
}

/* Set E->app from GIVEN (a name), else SKED_APP_DEFAULT. */
static int name_app(sked_engine *e, const char *given, sked_error *err)
{
    int rc =
        sked__schedule_name_check(given ? given : SKED_APP_DEFAULT, "app", err);

    if (rc != 0)
        return rc;
    e->app = sked__strdup(given ? given : SKED_APP_DEFAULT);
    return e->app ? 0 : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
}

/* Open what E owns, in order: the tzdb, the store, the loop. */
static int open_parts(sked_engine *e, const sked_engine_options *o,
                      sked_error *err)
{
    sked_store_options so = {.sqlite_synchronous = o->sqlite_synchronous,
                             .clock = e->clock};
    sked_loop_options lo = {.clock = e->clock,
                            .tick = e->tick,
                            .emit = sked__engine_deliver,
                            .emit_ctx = e,
                            .order = &e->order};
    int rc = sked_tzdb_open(o->tzdir, &e->tzdb, err);

    if (rc == 0 && sked__registry_new(&e->registry) != 0)
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (rc != 0)
        return rc;
    so.tzdb = e->tzdb;
    rc = sked__store_open(o->db_url, &so, &e->store, err);
    if (rc != 0)
        return rc;
    lo.store = e->store;
    lo.tzdb = e->tzdb;
    return o->client ? 0 : sked__loop_new(&lo, &e->loop, err);
}

int sked_engine_open(const sked_engine_options *opts, sked_engine **out,
                     sked_error *err)
{
    static const sked_engine_options defaults = {0};
    sked_engine *e;
    int rc;

    if (!out)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, "no output");
    if (!opts)
        opts = &defaults;
    if (opts->tick < 0)
        return sked__error_set(err, SKED_EINVAL, "tick", -1,
                               "the tick must be positive");
    if (opts->retention < 0)
        return sked__error_set(err, SKED_EINVAL, "retention", -1,
                               "the retention must be positive");
    e = sked__calloc(1, sizeof *e);
    if (!e || pthread_mutex_init(&e->sub_mu, NULL) != 0) {
        free(e);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    if (sked__order_init(&e->order) != 0) {
        (void) pthread_mutex_destroy(&e->sub_mu);
        free(e);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    if (sked__metrics_new(&e->metrics) != 0) {
        sked__order_done(&e->order);
        (void) pthread_mutex_destroy(&e->sub_mu);
        free(e);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    e->clock = opts->clock;
    e->tick = opts->tick ? opts->tick : SKED_TICK_DEFAULT;
    e->nworkers = opts->client         ? -1
                  : opts->workers == 0 ? SKED_WORKERS_DEFAULT
                                       : opts->workers;
    e->lease = opts->lease;
    e->retention = opts->retention;
    rc = name_node(e, opts->node_id);
    if (rc != 0)
        rc = sked__error_set(err, rc, NULL, -1, NULL);
    else
        rc = name_app(e, opts->app, err);
    if (rc == 0)
        rc = open_parts(e, opts, err);
    if (rc != 0) {
        sked_engine_close(e);
        return rc;
    }
    *out = e;
    return 0;
}

/* What an engine opened as a client answers when asked to schedule. */
static int client_refused(sked_error *err)
{
    return sked__error_set(err, SKED_EINVAL, "client", -1,
                           "this engine was opened as a client: it does "
                           "not schedule");
}

int sked_engine_start(sked_engine *e, sked_error *err)
{
    if (!e)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, "no engine");
    if (!e->loop)
        return client_refused(err);
    int rc = sked__engine_exec_start(e, err);
    if (rc == 0)
        rc = sked__engine_notify_start(e, err);
    return rc != 0 ? rc : sked__loop_start(e->loop, err);
}

void sked_engine_close(sked_engine *e)
{
    if (!e)
        return;
    sked__loop_free(e->loop); /* joins the thread first */
    sked__engine_notify_stop(e);
    sked__engine_exec_stop(e);
    sked__registry_free(e->registry);
    sked__store_close(e->store);
    sked_tzdb_close(e->tzdb);
    while (e->subs) {
        sked_subscription *s = e->subs;
        e->subs = s->next;
        free(s);
    }
    (void) pthread_mutex_destroy(&e->sub_mu);
    sked__order_done(&e->order);
    sked__metrics_free(e->metrics);
    free(e->node_id);
    free(e->app);
    free(e);
}

_Static_assert(SKED_ACTOR_MAX == SKED__ACTOR_MAX, "one actor bound");

int sked_engine_actor(const char *actor)
{
    return sked__actor_set(actor);
}

const char *sked_engine_actor_current(void)
{
    return sked__actor();
}

void sked__engine_actor_code(const char *app, char *saved)
{
    char code[SKED__ACTOR_MAX + 1];

    (void) snprintf(saved, SKED__ACTOR_MAX + 1, "%s", sked__actor());
    (void) snprintf(code, sizeof code, "code:%s", app ? app : SKED_APP_DEFAULT);
    (void) sked__actor_set(code);
}

int sked_engine_tick(sked_engine *e, sked_error *err)
{
    if (!e)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, "no engine");
    char saved[SKED__ACTOR_MAX + 1];
    int rc;

    if (!e->loop)
        return client_refused(err);
    /* The pass decides as the scheduler's thread does (the audit). */
    (void) snprintf(saved, sizeof saved, "%s", sked__actor());
    (void) sked__actor_set(SKED__ACTOR_SCHEDULER);
    rc = sked__loop_pass(e->loop, err);
    (void) sked__actor_set(saved);
    return rc;
}

sked_time sked_engine_next_wakeup(sked_engine *e)
{
    return e && e->loop ? sked__loop_next_wakeup(e->loop) : SKED_TIME_NONE;
}

int64_t sked__engine_missed(sked_engine *e, const char *schedule,
                            sked_miss_reason r)
{
    return e->loop ? sked__loop_missed(e->loop, schedule, r) : 0;
}

void sked__engine_missed_each(sked_engine *e, sked_missed_fn fn, void *ctx)
{
    if (e->loop)
        sked__loop_missed_each(e->loop, fn, ctx);
}

bool sked__engine_clock_skew(sked_engine *e, sked_dur *out)
{
    return e->loop && sked__loop_clock_skew(e->loop, out);
}

bool sked_engine_clock_skew(sked_engine *e, sked_dur *out)
{
    return e && sked__engine_clock_skew(e, out);
}

/* ---- schedules
 * -------------------------------------------------------------*/

/* Check the engine and the name, as every operation does. */
static int check(sked_engine *e, const void *arg, sked_error *err)
{
    if (!e)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, "no engine");
    if (!arg)
        return sked__error_set(err, SKED_EINVAL, "name", -1, "is required");
    return 0;
}

int sked_engine_schedule_create(sked_engine *e, const sked_schedule *s,
                                sked_error *err)
{
    int rc = check(e, s, err);

    if (rc == 0)
        rc = sked__store_schedule_create(e->store, s, err);
    if (rc != 0)
        return rc;
    refresh(e, "schedule.created", s->name);
    return 0;
}

void sked_engine_workflow_warning(sked_engine *e, const char *workflow,
                                  char *buf, size_t size)
{
    if (sked__store_workflow_warning(e->store, workflow, buf, size, NULL) !=
            0 &&
        size > 0)
        buf[0] = '\0'; /* a warning, not a failure: the write is done */
}

int sked_engine_schedule_update(sked_engine *e, const sked_schedule *s,
                                sked_error *err)
{
    int rc = check(e, s, err);

    if (rc == 0)
        rc = sked__store_schedule_update(e->store, s, err);
    if (rc != 0)
        return rc;
    refresh(e, "schedule.updated", s->name);
    return 0;
}

int sked_engine_schedule_delete(sked_engine *e, const char *name,
                                sked_error *err)
{
    bool existed = false;
    int rc = check(e, name, err);

    if (rc == 0)
        rc = sked__store_schedule_delete(e->store, name, &existed, err);
    if (rc != 0)
        return rc;
    changed(e, name);
    if (existed)
        deliver_name(e, "schedule.deleted", name);
    return 0;
}

int sked_engine_schedule_get(sked_engine *e, const char *name,
                             sked_schedule *out, sked_error *err)
{
    int rc = check(e, name, err);

    return rc ? rc : sked__store_schedule_get(e->store, name, out, err);
}

int sked_engine_schedule_pause(sked_engine *e, const char *name,
                               sked_error *err)
{
    int rc = check(e, name, err);

    if (rc == 0)
        rc = sked__store_schedule_pause(e->store, name, err);
    if (rc != 0)
        return rc;
    refresh(e, NULL, name);
    deliver_name(e, "schedule.paused", name);
    return 0;
}

int sked_engine_schedule_resume(sked_engine *e, const char *name,
                                sked_error *err)
{
    int rc = check(e, name, err);

    if (rc == 0)
        rc = sked__store_schedule_resume(e->store, name,
                                         sked__clock_now(e->clock), err);
    if (rc != 0)
        return rc;
    refresh(e, NULL, name);
    deliver_name(e, "schedule.resumed", name);
    return 0;
}

int sked_engine_sync(sked_engine *e, const sked_schedule *set, size_t n,
                     sked_error *err)
{
    if (!e)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, "no engine");
    return sked__engine_sync_app(e, e->app, set, n, NULL, err);
}

int sked__engine_sync_app(sked_engine *e, const char *app,
                          const sked_schedule *set, size_t n,
                          sked_apply_result *out, sked_error *err)
{
    char saved[SKED__ACTOR_MAX + 1];
    int rc;

    sked__engine_actor_code(app, saved);
    rc = sked__store_schedule_apply(e->store, set, n, app, true, out, err);
    (void) sked__actor_set(saved);
    if (rc == 0) {
        e->synced = true;
        changed(e, NULL);
    }
    return rc;
}

int sked_engine_schedule_apply(sked_engine *e, const char *app,
                               const sked_schedule *set, size_t n, bool prune,
                               sked_apply_result *out, sked_error *err)
{
    int rc;

    if (!e)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, "no engine");
    rc = sked__store_schedule_apply(e->store, set, n, app ? app : e->app, prune,
                                    out, err);
    if (rc == 0)
        changed(e, NULL);
    return rc;
}

/* ---- trigger and backfill
 * --------------------------------------------------*/

/* Fill the run R of schedule S (its strings borrowed) with id ID. KEY is
 * "schedule:{name}"; TAKE_KEY: hold the concurrency key when overlap is
 * skip. */
static void run_of(const sked_schedule *s, const char *id, const char *key,
                   bool take_key, sked_run_new *r)
{
    *r = (sked_run_new){.id = id,
                        .workflow = s->workflow,
                        .schedule = s->name,
                        .queue = s->queue,
                        .priority = s->priority,
                        .not_before = SKED_TIME_NONE,
                        .scheduled_for = SKED_TIME_NONE,
                        .context = s->context};
    if (take_key && s->overlap == SKED_OVERLAP_SKIP)
        r->concurrency_key = key;
    if (s->overlap != SKED_OVERLAP_ALLOW)
        r->serial_key = key;
}

int sked__engine_runs_create(sked_engine *e, const sked_run_new *runs, size_t n,
                             bool strict, sked_run_insert_state *state,
                             sked_error *err)
{
    sked_order_ticket t;
    sked_event *ev = NULL;
    size_t nev = 0;
    int rc;

    /* A worker may claim the runs as soon as they are committed: its
     * run.started waits for these run.created (base/order.h). */
    sked__order_take(&e->order, &t);
    rc = sked__store_runs_create(e->store, runs, n, strict, state, &ev, &nev,
                                 err);
    if (rc == 0 && nev > 0)
        sked__engine_deliver(e, ev, nev);
    sked__order_give(&e->order, &t);
    sked__events_free(ev, nev);
    return rc;
}

int sked_engine_trigger(sked_engine *e, const char *name, char **out_run_id,
                        sked_error *err)
{
    char id[SKED_RUN_ID_MAX + 1], key[SKED_NAME_MAX + 16];
    sked_schedule s;
    sked_run_new r;
    int rc = check(e, name, err);

    if (rc == 0)
        rc = sked__store_schedule_get(e->store, name, &s, err);
    if (rc != 0)
        return rc;
    rc = sked__run_id_trigger(name, sked__clock_now(e->clock), id, sizeof id);
    if (rc < 0) {
        sked_schedule_done(&s);
        return sked__error_set(err, rc, "name", -1, "no run id for it");
    }
    (void) snprintf(key, sizeof key, "schedule:%s", name);
    run_of(&s, id, key, true, &r);
    r.trigger = SKED_TRIGGER_MANUAL;
    rc = sked__engine_runs_create(e, &r, 1, true, NULL, err);
    if (rc == SKED_ECONFLICT)
        rc = sked__error_set(err, rc, "name", -1,
                             "schedule \"%.100s\" has an active run and "
                             "overlap skip",
                             name);
    sked_schedule_done(&s);
    if (rc == 0 && out_run_id && !(*out_run_id = sked__strdup(id)))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    return rc;
}

/* ---- a schedule's fires (engine_int.h) ---------------------------------- */

int sked__fires_open(sked_engine *e, const sked_schedule *s, const sked_tz *tz,
                     sked__fires *f, sked_error *err)
{
    *f = (sked__fires){.s = s, .tz = tz};
    return sked__store_days_read(e->store, s, &f->book, &f->days, err);
}

int sked__fires_next(const sked__fires *f, sked_time t, sked__occ_slot *out)
{
    const sked_schedule *s = f->s;
    sked__occ_spec o;
    int rc;

    if (s->start_at != SKED_TIME_NONE && s->start_at - 1 > t)
        t = s->start_at - 1;
    if (sked__occ_spec_init(&o, s, f->tz, NULL, f->book ? &f->days : NULL, t,
                            NULL) != 0)
        return SKED_EINVAL;
    while ((rc = sked__occ_slot_next(&o, t, out)) == 0 &&
           out->kind == SKED__SLOT_EXCLUDED)
        t = out->at;
    sked__occ_spec_done(&o);
    if (rc == 0 && s->end_at != SKED_TIME_NONE && out->at > s->end_at)
        rc = SKED_ENOTFOUND;
    return rc;
}

void sked__fires_done(sked__fires *f)
{
    sked__calbook_release(f->book);
    f->book = NULL;
}

/* What one backfill call works on. */
struct backfill {
    sked_engine *e;
    sked_schedule s; /* owned */
    sked__fires fires;
    sked_time start, end;
    size_t total;
    char key[SKED_NAME_MAX + 16];
};

/* Store in *out the first fire of B strictly after T and before B->end;
 * SKED_ENOTFOUND when there is none. */
static int backfill_next(const struct backfill *b, sked_time t,
                         sked__occ_slot *out)
{
    int rc = sked__fires_next(&b->fires, t, out);

    return rc == 0 && out->at >= b->end ? SKED_ENOTFOUND : rc;
}

/* Count B's occurrences (SPEC 3.5: over SKED_BACKFILL_MAX is refused). */
static int backfill_count(struct backfill *b, sked_error *err)
{
    sked__occ_slot x = {.at = b->start};
    int rc;

    b->total = 0;
    while ((rc = backfill_next(b, x.at, &x)) == 0)
        if (++b->total > SKED_BACKFILL_MAX)
            return sked__error_set(err, SKED_ERANGE, "end", -1,
                                   "the range holds more than %d "
                                   "occurrences",
                                   SKED_BACKFILL_MAX);
    if (rc != SKED_ENOTFOUND)
        return sked__error_set(err, SKED_EINVAL, "cron", -1,
                               "cannot compute the occurrences of \"%.100s\"",
                               b->s.name);
    return 0;
}

/* Fill RUNS with up to SKED_STORE_BATCH_MAX runs of B's occurrences
 * after *t (moved to the last one); *n is how many. The ids are owned. */
static int backfill_fill(struct backfill *b, sked_time *t, sked_run_new *runs,
                         size_t *n)
{
    char id[SKED_RUN_ID_MAX + 1];
    sked__occ_slot x;

    *n = 0;
    while (*n < SKED_STORE_BATCH_MAX && backfill_next(b, *t, &x) == 0) {
        /* The id of the occurrence, as firing gives it: the same run. */
        int len =
            sked__run_id_scheduled(b->s.name, x.occurrence, id, sizeof id);
        char *owned = len < 0 ? NULL : sked__strdup(id);
        if (!owned)
            return len < 0 ? len : SKED_ENOMEM;
        run_of(&b->s, owned, b->key, false, &runs[*n]);
        runs[*n].trigger = SKED_TRIGGER_BACKFILL;
        runs[*n].scheduled_for = x.at;
        runs[*n].occurrence = x.occurrence;
        runs[*n].not_before = x.at + sked__policy_jitter(owned, b->s.jitter);
        (*n)++;
        *t = x.at;
    }
    return 0;
}

/* Write one batch of runs from *t on, in one transaction; add to RES and
 * *done. */
static int backfill_batch(struct backfill *b, sked_time *t, size_t *done,
                          sked_backfill_result *res, sked_error *err)
{
    sked_run_new *runs = sked__calloc(SKED_STORE_BATCH_MAX, sizeof *runs);
    sked_run_insert_state *state =
        sked__calloc(SKED_STORE_BATCH_MAX, sizeof *state);
    size_t n = 0;
    int rc = runs && state ? backfill_fill(b, t, runs, &n) : SKED_ENOMEM;

    if (rc != 0)
        rc = sked__error_set(err, rc, NULL, -1, NULL);
    else
        rc = sked__engine_runs_create(b->e, runs, n, false, state, err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        res->created += state[i] == SKED_RUN_INSERTED;
        res->skipped += state[i] != SKED_RUN_INSERTED;
    }
    *done += n;
    for (size_t i = 0; runs && i < n; i++)
        free((char *) runs[i].id);
    free(runs);
    free(state);
    return rc;
}

/* Check the range and load the schedule into B. */
static int backfill_open(struct backfill *b, const char *name, sked_error *err)
{
    const sked_tz *tz = NULL;
    int rc;

    if (b->start == SKED_TIME_NONE || b->end == SKED_TIME_NONE)
        return sked__error_set(err, SKED_EINVAL,
                               b->start == SKED_TIME_NONE ? "start" : "end", -1,
                               "a backfill needs both ends of its range");
    if (b->end <= b->start)
        return sked__error_set(err, SKED_EINVAL, "end", -1,
                               "the range is %s: end must be after start",
                               b->end < b->start ? "reversed" : "empty");
    rc = sked__store_schedule_get(b->e->store, name, &b->s, err);
    if (rc != 0)
        return rc;
    if (b->s.timezone &&
        (rc = sked_tzdb_get(b->e->tzdb, b->s.timezone, &tz, err)) != 0)
        return rc;
    if ((rc = sked__fires_open(b->e, &b->s, tz, &b->fires, err)) != 0)
        return rc;
    (void) snprintf(b->key, sizeof b->key, "schedule:%s", name);
    return 0;
}

int sked_engine_backfill(sked_engine *e, const char *name, sked_time start,
                         sked_time end, sked_progress_fn progress, void *ctx,
                         sked_backfill_result *out, sked_error *err)
{
    struct backfill b = {.e = e, .start = start, .end = end};
    sked_backfill_result res = {0, 0};
    sked_time t = start;
    size_t done = 0;
    int rc = check(e, name, err);

    sked_schedule_init(&b.s);
    if (rc == 0)
        rc = backfill_open(&b, name, err);
    if (rc == 0)
        rc = backfill_count(&b, err);
    while (rc == 0 && done < b.total) {
        size_t before = done;
        rc = backfill_batch(&b, &t, &done, &res, err);
        if (rc == 0 && done == before)
            break; /* cannot happen: counted above */
        if (rc == 0 && progress)
            progress(ctx, done, b.total);
    }
    sked__fires_done(&b.fires);
    sked_schedule_done(&b.s);
    if (rc == 0 && out)
        *out = res;
    return rc;
}
