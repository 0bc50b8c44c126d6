/* SPDX-License-Identifier: MIT */
/* The store's shared logic (store.h): URL dispatch to a back-end, schema
 * migrations at open, validation before every write, next occurrences,
 * run ids, events written in the same transaction as the change they
 * report, and the retry of transactions that failed for a retryable
 * reason. The back-ends (store_ops.h) only speak SQL.
 *
 * Retry: a back-end reports SQLite busy, a PostgreSQL serialization
 * failure, a deadlock or a dropped connection as SKED_EBUSY; the whole
 * transaction (a function of this file) then runs again from the start,
 * at most RETRY_MAX times, after 1, 2, 4, ... ms (capped at 100 ms). Each
 * transaction function therefore resets what it reports before writing.
 *
 * Choices users see (documented in store.h):
 * - next_fire_at is computed at create, update and resume, from now. An
 *   "at" schedule keeps its instant even when it is already past at
 *   create or update, so the scheduler's catch-up policy decides (a few
 *   seconds late still fires; a year late is dropped as outside_window
 *   and reported); on resume nothing is caught up (SPEC 3.3), so a past
 *   instant makes it done. A schedule with no occurrence left is done.
 * - automatic_backfill is stored as the policy it means (SPEC 3.3).
 * - An interval schedule without an anchor is anchored at its creation;
 *   an update without an anchor keeps the stored one, so re-applying a
 *   file keeps the cadence. */
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "base/actor.h"
#include "base/alloc.h"
#include "base/error.h"
#include "base/json_obj.h"
#include "model/event_fields.h"
#include "model/schedule.h"
#include "model/schedule_json.h"
#include "store/store_health.h"
#include "model/schedule_occ.h"
#include "model/calbook.h"
#include "store/store_int.h"
#include "store/store_ops.h"

#define RETRY_MAX      12
#define LIST_DEFAULT   100
#define EVENT_LIST_MAX 1000

const char *sked__store_kind(const sked_store *st)
{
    return st->ops->kind;
}

/* ---- URL and open ------------------------------------------------------ */

int sked__store_url_parse(const char *url, const struct sked__store_ops **ops,
                          const char **target, sked_error *err)
{
    if (!url)
        url = SKED_STORE_DEFAULT_URL;
    if (strncmp(url, "sqlite:", 7) == 0) {
        const char *path = url + 7;
        if (strncmp(path, "//", 2) == 0)
            path += 2;
        if (!path[0])
            return sked__error_set(err, SKED_EINVAL, "db", -1,
                                   "\"%.60s\": sqlite: needs a file path "
                                   "(sqlite:sked.db)",
                                   url);
        *ops = &sked__store_sqlite_ops;
        *target = path;
        return 0;
    }
    if (strncmp(url, "postgres://", 11) == 0 ||
        strncmp(url, "postgresql://", 13) == 0) {
#ifdef SKED_HAVE_PG_STORE
        *ops = &sked__store_pg_ops;
        *target = url;
        return 0;
#else
        return sked__error_set(err, SKED_EINVAL, "db", -1,
                               "PostgreSQL support is not built into this "
                               "sked");
#endif
    }
    return sked__error_set(err, SKED_EINVAL, "db", -1,
                           "\"%.60s\" is not a database URL: expected "
                           "sqlite:PATH or postgres://...",
                           url);
}

/* Return the version of the last migration of LIST (the binary's schema
 * version; 0 for none). Versions are 1, 2, 3... with no gap
 * (tools/embed_sql.cmake refuses one), applied in order from the
 * database's own version on. */
static int latest_version(const struct sked__migration *list)
{
    int n = 0;

    while (list[n].sql)
        n++;
    return n > 0 ? list[n - 1].version : 0;
}

static int migrate_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    const struct sked__migration *m = st->ops->migrations;
    int latest = latest_version(m);
    int v = 0;
    int rc = st->ops->schema_version(tx, &v, err);

    (void) arg;
    if (rc != 0)
        return rc;
    if (v > latest)
        return sked__error_set(err, SKED_ECONFLICT, "db", -1,
                               "the database has schema version %d, newer "
                               "than this sked's %d: upgrade sked",
                               v, latest);
    for (int i = 0; m[i].sql && rc == 0; i++)
        if (m[i].version > v)
            rc = st->ops->migrate_step(tx, &m[i], err);
    return rc;
}

static int version_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    return st->ops->schema_version(tx, (int *) arg, err);
}

/* Bring the schema up to date: a cheap read first, and the exclusive
 * migration lock only when something is missing (or newer). */
static int migrate(sked_store *st, sked_error *err)
{
    int v = 0;
    int rc = sked__store_run_tx(st, SKED__TX_READ, version_tx, &v, err);

    if (rc != 0 || v == latest_version(st->ops->migrations))
        return rc;
    return sked__store_run_tx(st, SKED__TX_MIGRATE, migrate_tx, NULL, err);
}

int sked__store_ready(sked_store *st, sked_error *err)
{
    int v = 0;
    int rc = sked__store_run_tx(st, SKED__TX_READ, version_tx, &v, err);

    /* A client reads this (GET /readyz): the cause, never the file, the
     * host, the port or the database's name. */
    if (rc != 0)
        return sked__error_set(err, rc, "db", -1, "%s",
                               sked__store_fault_reason(rc));
    if (v != latest_version(st->ops->migrations))
        return sked__error_set(err, SKED_EBUSY, "db", -1,
                               "the database has schema version %d, this "
                               "sked needs %d",
                               v, latest_version(st->ops->migrations));
    return 0;
}

int sked__store_open(const char *url, const sked_store_options *opts,
                     sked_store **out, sked_error *err)
{
    static const sked_store_options defaults = {0};
    /* Set by a successful parse; initialised so that -O3's flow analysis
     * (a Release build) sees it too. */
    const struct sked__store_ops *ops = NULL;
    const char *target = NULL;
    sked_store *st;
    int rc;

    if (!out)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, "no output");
    if (!opts)
        opts = &defaults;
    rc = sked__store_url_parse(url, &ops, &target, err);
    if (rc != 0)
        return rc;
    st = sked__calloc(1, sizeof *st);
    if (!st)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    st->ops = ops;
    st->clock = opts->clock;
    pthread_mutex_init(&st->days.lock, NULL);
    st->tzdb = opts->tzdb;
    if (!st->tzdb) {
        rc = sked_tzdb_open(NULL, &st->own_tzdb, err);
        st->tzdb = st->own_tzdb;
    }
    if (rc == 0 && sked__health_new(&st->health) != 0)
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (rc == 0)
        rc = ops->open(target, opts, &st->b, err);
    if (rc == 0 && sked__share_new(ops->writers(st->b), &st->share) != 0)
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (rc == 0)
        rc = migrate(st, err);
    if (rc != 0) {
        sked__store_close(st);
        return rc;
    }
    *out = st;
    return 0;
}

void sked__store_close(sked_store *st)
{
    if (!st)
        return;
    if (st->b)
        st->ops->close(st->b);
    sked_tzdb_close(st->own_tzdb);
    sked__health_free(st->health);
    sked__share_free(st->share);
    sked__store_days_done(st);
    pthread_mutex_destroy(&st->days.lock);
    free(st);
}

/* ---- transactions ------------------------------------------------------ */

/* Sleep before retry ATTEMPT (0-based): 1, 2, 4, ... ms, at most 100. */
static void backoff(int attempt)
{
    long ms = 1L << (attempt < 7 ? attempt : 7);
    struct timespec ts;

    if (ms > 100)
        ms = 100;
    ts.tv_sec = 0;
    ts.tv_nsec = ms * 1000000L;
    (void) nanosleep(&ts, NULL);
}

int sked__store_run_tx(sked_store *st, sked__tx_mode mode, sked__tx_fn fn,
                       void *arg, sked_error *err)
{
    sked__tx *tx;
    int rc;

    for (int attempt = 0;; attempt++) {
        rc = st->ops->begin(st->b, mode, &tx, err);
        if (rc == 0) {
            rc = fn(st, tx, arg, err);
            if (rc == 0)
                rc = st->ops->commit(tx, err);
            else
                st->ops->rollback(tx);
        }
        if (rc != SKED_EBUSY || attempt + 1 >= RETRY_MAX)
            return rc;
        backoff(attempt);
    }
}

sked_time sked__store_now(const sked_store *st)
{
    return sked__clock_now(st->clock);
}

/* ---- run ids ----------------------------------------------------------- */

int sked__run_id_scheduled(const char *schedule, sked_time occurrence,
                           char *buf, size_t size)
{
    char t[SKED_TIME_STRLEN];
    int n = sked_time_format(occurrence, t, sizeof t);

    if (n < 0)
        return n;
    n = snprintf(buf, size, "sched-%s-%s", schedule, t);
    if (n < 0 || (size_t) n >= size)
        return SKED_ETOOBIG;
    return n;
}

int sked__run_id_trigger(const char *schedule, sked_time now, char *buf,
                         size_t size)
{
    sked_civil c;
    int n;

    if (now < SKED_TIME_MIN || now > SKED_TIME_MAX)
        return SKED_ERANGE;
    sked_civil_from_time(now, &c);
    n = snprintf(buf, size,
                 "sched-%s-trigger-%04d-%02d-%02dT%02d:%02d:%02d.%06dZ",
                 schedule, (int) c.year, (int) c.month, (int) c.day,
                 (int) c.hour, (int) c.minute, (int) c.second, (int) c.usec);
    if (n < 0 || (size_t) n >= size)
        return SKED_ETOOBIG;
    return n;
}

/* ---- next occurrence --------------------------------------------------- */

int sked__schedule_next_fire(const sked_schedule *s, const sked_tz *tz,
                             const sked__occ_days *days, sked_time after,
                             sked_time *out)
{
    sked__occ_slot x;
    sked__occ_spec o;
    int rc;

    if (s->start_at != SKED_TIME_NONE && s->start_at - 1 > after)
        after = s->start_at - 1;
    if ((rc = sked__occ_spec_init(&o, s, tz, NULL, days, after, NULL)) != 0)
        return SKED_EINVAL;
    rc = sked__occ_slot_next(&o, after, &x);
    sked__occ_spec_done(&o);
    if (rc != 0)
        return rc;
    if (s->end_at != SKED_TIME_NONE && x.at > s->end_at)
        return SKED_ENOTFOUND;
    *out = x.at;
    return 0;
}

/* Set S->next_fire_at from NOW (see the file header); a schedule with no
 * occurrence left becomes done. With KEEP_PAST_AT an "at" instant in the
 * past is kept for the scheduler's catch-up policy. The calendars are
 * looked up first, so that one that does not exist is refused whatever
 * the status. */
int sked__store_plan_next(sked_store *st, sked__tx *tx, sked_schedule *s,
                          sked_time now, bool keep_past_at, sked_error *err)
{
    const sked_tz *tz = NULL;
    sked_time t = SKED_TIME_NONE;
    sked__calbook *book = NULL;
    sked__occ_days days;
    int rc;

    s->next_fire_at = SKED_TIME_NONE;
    /* A calendar it names that does not exist is a mistake in the
     * definition, as an unknown zone is. */
    if ((rc = sked__store_days(st, tx, s, &book, &days, err)) != 0) {
        if (rc == SKED_ENOTFOUND && err)
            err->code = rc = SKED_EINVAL;
        return rc;
    }
    if (s->status != SKED_SCHEDULE_ACTIVE) {
        sked__calbook_release(book);
        return 0;
    }
    if (s->timezone && strcmp(s->timezone, "UTC") != 0) {
        rc = sked_tzdb_get(st->tzdb, s->timezone, &tz, err);
        if (rc != 0) {
            sked__calbook_release(book);
            return rc;
        }
    }
    if (keep_past_at && s->kind == SKED_SPEC_AT)
        now = s->at - 1 < now ? s->at - 1 : now;
    rc = sked__schedule_next_fire(s, tz, book ? &days : NULL, now, &t);
    sked__calbook_release(book);
    if (rc == SKED_ENOTFOUND) {
        s->status = SKED_SCHEDULE_DONE;
        return 0;
    }
    if (rc != 0)
        return sked__error_set(err, rc, "cron", -1,
                               "cannot compute the next occurrence");
    s->next_fire_at = t;
    return 0;
}

/* ---- runs -------------------------------------------------------------- */

/* Check run I of a batch before anything is written. */
static int check_run(const sked_run_new *r, size_t i, sked_error *err)
{
    char field[SKED_ERROR_FIELD_MAX];
    sked_error e;
    int rc;

    /* A run id is a segment of the API's URLs: the rule of every name and
     * key that becomes one. */
    sked_error_clear(&e);
    if (sked__segment_check(r->id, SKED_RUN_ID_MAX, "id", &e) != 0)
        return sked__error_set(err, SKED_EINVAL, "id", (long) i,
                               "run %zu: the id %s", i, e.msg);
    if ((int) r->trigger < 0 || (int) r->trigger > SKED_TRIGGER_HEARTBEAT)
        return sked__error_set(err, SKED_EINVAL, "trigger", (long) i,
                               "run %zu: unknown trigger kind", i);
    (void) snprintf(field, sizeof field, "runs[%zu].workflow", i);
    rc = sked__schedule_name_check(r->workflow, field, err);
    /* A heartbeat's runs sit on the queue "", which no executor serves. */
    if (rc == 0 && r->queue &&
        !(r->trigger == SKED_TRIGGER_HEARTBEAT && !*r->queue)) {
        (void) snprintf(field, sizeof field, "runs[%zu].queue", i);
        rc = sked__schedule_name_check(r->queue, field, err);
    }
    if (rc == 0) {
        (void) snprintf(field, sizeof field, "runs[%zu].context", i);
        rc = sked__schedule_context_check(r->context, field, err);
    }
    return rc;
}

struct runs_arg {
    const sked_run_new *runs;
    size_t n;
    sked_time now;
    bool *created; /* n flags, ours until success */
};

static int runs_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct runs_arg *a = arg;

    long pos;
    int rc;

    memset(a->created, 0, a->n * sizeof a->created[0]);
    rc = st->ops->runs_insert(tx, a->runs, a->n, a->now, a->created, err);
    if (rc != SKED_ECONFLICT || !err)
        return rc;
    pos = err->pos >= 0 && (size_t) err->pos < a->n ? err->pos : -1;
    if (pos < 0 || !a->runs[pos].concurrency_key)
        return sked__error_set(err, rc, "concurrency_key", -1,
                               "an active run holds a concurrency key of "
                               "this batch");
    return sked__error_set(err, rc, "concurrency_key", pos,
                           "an active run holds the concurrency key "
                           "\"%.100s\"",
                           a->runs[pos].concurrency_key);
}

int sked__store_runs_insert(sked_store *st, const sked_run_new *runs, size_t n,
                            bool *created, sked_error *err)
{
    struct runs_arg a = {.runs = runs, .n = n};
    int rc = 0;

    if (n == 0)
        return 0;
    if (!runs || n > SKED_STORE_BATCH_MAX)
        return sked__error_set(err, SKED_EINVAL, "runs", -1,
                               "a batch holds 1 to %d runs",
                               SKED_STORE_BATCH_MAX);
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = check_run(&runs[i], i, err);
    if (rc != 0)
        return rc;
    a.created = sked__malloc(n * sizeof *a.created);
    if (!a.created)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    a.now = sked__store_now(st);
    rc = sked__store_run_tx(st, SKED__TX_WRITE, runs_tx, &a, err);
    if (rc == 0 && created)
        memcpy(created, a.created, n * sizeof *created);
    free(a.created);
    return rc;
}

/* ---- events ------------------------------------------------------------ */

struct event_arg {
    const char *type, *subject, *payload;
    sked_time at;
};

static int event_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct event_arg *a = arg;

    return sked__event_write(st, tx, a->type, a->subject, a->payload, a->at,
                             err);
}

int sked__store_event_append(sked_store *st, const char *type,
                             const char *subject, const char *payload,
                             sked_error *err)
{
    struct event_arg a = {type, subject, payload ? payload : "{}", 0};
    int rc;

    if (!type || !type[0] || !subject)
        return sked__error_set(err, SKED_EINVAL, "type", -1,
                               "an event needs a type and a subject");
    rc = sked__schedule_context_check(a.payload, "payload", err);
    if (rc != 0)
        return rc;
    a.at = sked__store_now(st);
    return sked__store_run_tx(st, SKED__TX_WRITE, event_tx, &a, err);
}

static size_t actor_tail(const char *actor, char *out);

struct event_list_arg {
    int64_t after_id;
    size_t limit;
    const sked__event_filter *f;
    sked_event *list;
    size_t n;
};

static int event_list_tx(sked_store *st, sked__tx *tx, void *arg,
                         sked_error *err)
{
    struct event_list_arg *a = arg;

    sked__events_free(a->list, a->n); /* from an attempt that failed */
    a->list = NULL;
    a->n = 0;
    return st->ops->event_list(tx, a->after_id, a->limit, a->f, &a->list, &a->n,
                               err);
}

static int event_last_tx(sked_store *st, sked__tx *tx, void *arg,
                         sked_error *err)
{
    return st->ops->event_last(tx, arg, err);
}

int sked__store_event_last(sked_store *st, int64_t *out, sked_error *err)
{
    *out = 0;
    return sked__store_run_tx(st, SKED__TX_READ, event_last_tx, out, err);
}

int sked__store_event_list(sked_store *st, int64_t after_id, size_t limit,
                           sked_event **out, size_t *n, sked_error *err)
{
    return sked__store_event_find(st, after_id, limit, NULL, out, n, err);
}

int sked__store_event_find(sked_store *st, int64_t after_id, size_t limit,
                           const sked__event_filter *f, sked_event **out,
                           size_t *n, sked_error *err)
{
    struct event_list_arg a = {.after_id = after_id, .limit = limit};
    char tail[2 * SKED__ACTOR_MAX + 12];
    sked__event_filter own;
    int rc;

    /* An empty filter is none: the plain list, its own statement. */
    if (f && (f->ntypes > 0 || f->subject || f->actor))
        a.f = f;
    if (f && f->actor) {
        if (strlen(f->actor) > SKED__ACTOR_MAX)
            return sked__error_set(err, SKED_EINVAL, "actor", -1,
                                   "at most %d bytes", SKED__ACTOR_MAX);
        own = *f;
        (void) actor_tail(f->actor, tail);
        own.actor_tail = tail;
        a.f = &own;
    }
    if (f && f->ntypes > SKED__EVENT_TYPES_MAX)
        return sked__error_set(err, SKED_EINVAL, "type", -1, "at most %d types",
                               SKED__EVENT_TYPES_MAX);

    if (limit == 0)
        a.limit = LIST_DEFAULT;
    if (a.limit > EVENT_LIST_MAX)
        return sked__error_set(err, SKED_EINVAL, "limit", -1,
                               "at most %d events per call", EVENT_LIST_MAX);
    rc = sked__store_run_tx(st, SKED__TX_READ, event_list_tx, &a, err);
    if (rc != 0) {
        sked__events_free(a.list, a.n);
        return rc;
    }
    *out = a.list;
    *n = a.n;
    return 0;
}

/* ---- the events of one transaction (store_int.h) ------------------------ */

void sked__ev_reset(sked__ev_list *l)
{
    sked__events_free(l->v, l->n);
    memset(l, 0, sizeof *l);
}

/* S's bytes from I on past white space. */
static size_t skip_ws(const char *s, size_t i, size_t n)
{
    while (i < n && strchr(" \t\r\n", s[i]) && s[i])
        i++;
    return i;
}

/* The member "actor":"ACTOR"} (ACTOR printable ASCII) into OUT (2 * its
 * length + 12 bytes): a payload's end. Returns its length. */
static size_t actor_tail(const char *actor, char *out)
{
    size_t k = 9;

    memcpy(out, "\"actor\":\"", 9);
    for (size_t i = 0; actor[i]; i++) {
        if (actor[i] == '"' || actor[i] == '\\')
            out[k++] = '\\';
        out[k++] = actor[i];
    }
    memcpy(out + k, "\"}", 3);
    return k + 2;
}

char *sked__payload_actor(char *payload)
{
    const char *actor = sked__actor();
    size_t n = payload ? strlen(payload) : 0, an = strlen(actor), b, e, k = 0;
    char *out;
    bool empty;

    if (!payload)
        return NULL;
    b = skip_ws(payload, 0, n);
    e = n;
    while (e > b && strchr(" \t\r\n", payload[e - 1]))
        e--;
    /* The actor is printable ASCII (base/actor.h): only " and \ need a
     * backslash; 2 * AN covers them. Room for {"value":,"actor":""}. */
    out = sked__malloc(n + 2 * an + 32);
    if (!out) {
        free(payload);
        return NULL;
    }
    if (e - b >= 2 && payload[b] == '{' && payload[e - 1] == '}') {
        empty = skip_ws(payload, b + 1, e - 1) == e - 1;
        k = empty ? 1 : e - b - 1;
        memcpy(out, payload + b, k);
        if (!empty)
            out[k++] = ',';
    } else { /* not an object (no event of sked's): wrapped in one */
        memcpy(out, "{\"value\":", 9);
        memcpy(out + 9, payload + b, e - b);
        k = 9 + e - b;
        out[k++] = ',';
    }
    (void) actor_tail(actor, out + k);
    free(payload);
    return out;
}

int sked__event_write(sked_store *st, sked__tx *tx, const char *type,
                      const char *subject, const char *payload, sked_time at,
                      sked_error *err)
{
    char *p = sked__payload_actor(sked__strdup(payload ? payload : "{}"));
    int rc;

    if (!p)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    rc = st->ops->event_append(tx, type, subject, p, at, err);
    free(p);
    return rc;
}

int sked__ev_add(sked__ev_list *l, const char *type, const char *subject,
                 char *payload, sked_time at, sked_error *err)
{
    sked_event *e;

    payload = sked__payload_actor(payload); /* the audit trail */

    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        sked_event *v = sked__realloc(l->v, cap * sizeof *v);
        if (!v) {
            free(payload);
            return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
        }
        l->v = v;
        l->cap = cap;
    }
    e = &l->v[l->n];
    *e = (sked_event){.type = sked__strdup(type),
                      .subject = sked__strdup(subject),
                      .payload = payload,
                      .at = at};
    l->n++;
    if (!e->type || !e->subject || !e->payload)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    return 0;
}

int sked__ev_flush(sked_store *st, sked__tx *tx, sked__ev_list *l,
                   sked_error *err)
{
    int64_t *ids;
    int rc;

    if (l->n == 0)
        return 0;
    ids = sked__malloc(l->n * sizeof *ids);
    if (!ids)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    rc = st->ops->events_append(tx, l->v, l->n, ids, err);
    for (size_t i = 0; rc == 0 && i < l->n; i++)
        l->v[i].id = ids[i];
    free(ids);
    /* The outbox in the same transaction: a notifiable event is never
     * committed without its deliveries (store_notify.c). */
    return rc == 0 ? sked__notify_outbox(st, tx, l, err) : rc;
}

/* Add the time T under KEY: an RFC 3339 string, or null. */
void sked__jobj_time(sked_jobj *o, const char *key, sked_time t)
{
    char s[SKED_TIME_STRLEN];
    bool none = t == SKED_TIME_NONE || sked_time_format(t, s, sizeof s) < 0;

    sked__jobj_str(o, key, none ? NULL : s);
}

/* The event run.created for R. */
int sked__ev_run_created(sked__ev_list *l, const sked_run_new *r, sked_time now,
                         sked_error *err)
{
    sked_jobj o = {0};

    sked__jobj_str(&o, "run_id", r->id);
    sked__jobj_str(&o, "workflow", r->workflow);
    sked__jobj_str(&o, "schedule", r->schedule);
    sked__jobj_str(&o, "trigger", sked__trigger_name(r->trigger));
    sked__jobj_time(&o, "scheduled_for", r->scheduled_for);
    /* A run moved off an excluded day says the occurrence it replaces. */
    if (r->occurrence != 0 && r->occurrence != SKED_TIME_NONE &&
        r->occurrence != r->scheduled_for)
        sked__jobj_time(&o, "occurrence", r->occurrence);
    sked__jobj_time(&o, "not_before",
                    r->not_before == SKED_TIME_NONE ? now : r->not_before);
    return sked__ev_add(l, "run.created", r->id, sked__jobj_take(&o), now, err);
}

void sked__ev_give(sked__ev_list *l, sked_event **out, size_t *n)
{
    if (out && n) {
        *out = l->v;
        *n = l->n;
        memset(l, 0, sizeof *l);
    }
    sked__ev_reset(l);
}

/* Per field of the event's table (model/event_fields.h): free the
 * strings. */
#define EVENT_FREE_I64(m)
#define EVENT_FREE_TEXT(m) free(e->m);
#define EVENT_FREE_DOC(m)  free(e->m);
#define EVENT_FREE_TIME(m)
#define EVENT_FREE_FIELD(m, kind, col, json) EVENT_FREE_##kind(m)

void sked__event_done(sked_event *e)
{
    if (!e)
        return;
    SKED__EVENT_FIELDS(EVENT_FREE_FIELD, EVENT_FREE_FIELD)
    memset(e, 0, sizeof *e);
}

void sked__events_free(sked_event *list, size_t n)
{
    for (size_t i = 0; list && i < n; i++)
        sked__event_done(&list[i]);
    free(list);
}

struct prune_arg {
    sked_time before;
    int64_t deleted;
};

static int prune_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct prune_arg *a = arg;
    /* The notify log keeps what the events keep (pending ones stay),
     * first: the events a kept delivery names (a queued one too, made
     * a row here) stay with it, as it is sent and listed from them
     * (schema 0014). */
    int rc = st->ops->deliveries_expand(tx, err);

    if (rc == 0)
        rc = st->ops->deliveries_prune(tx, a->before, err);
    return rc == 0 ? st->ops->event_prune(tx, a->before, &a->deleted, err) : rc;
}

int sked__store_event_prune(sked_store *st, sked_time before, int64_t *deleted,
                            sked_error *err)
{
    struct prune_arg a = {before, 0};
    int rc = sked__store_run_tx(st, SKED__TX_WRITE, prune_tx, &a, err);

    if (rc == 0 && deleted)
        *deleted = a.deleted;
    return rc;
}
