/* SPDX-License-Identifier: MIT */
/* The notifiers' transactions (store_notify.h): writes checked by the
 * model first, the workflows file's set synced as an app's code
 * notifiers, and the delivery thread's claims and ends. A notifier is
 * written as its row: the kind's settings as the config object, its
 * lists as JSON arrays. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/json_io.h"
#include "base/json_text.h"
#include "model/schedule.h"
#include "store/store_int.h"
#include "store/store_notify.h"

#define CLAIM_MAX   64
#define LOG_DEFAULT 100
#define LOG_MAX     1000

/* Write N's row in TX at NOW. */
static int write_row(sked_store *st, sked__tx *tx, const sked_notifier *n,
                     sked_time now, bool *created, sked_error *err)
{
    char *config = sked__notifier_config_text(n);
    char *events = sked__notifier_list_text(&n->events);
    char *schedules = sked__notifier_list_text(&n->schedules);
    sked__notifier_row r = {
        .name = n->name,
        .kind = sked__notifier_kind_name(n->kind),
        .config = config,
        .events = events,
        .schedules = schedules,
        .source = n->source == SKED_SOURCE_CODE ? "code" : "api",
        .app = n->app,
        .retry_for =
            n->retry_for > 0 ? n->retry_for : SKED_NOTIFY_RETRY_DEFAULT,
        .now = now};
    int rc = 0;

    if (!config || !events || (n->schedules.n > 0 && !schedules))
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    else
        rc = st->ops->notifier_write(tx, &r, created, err);
    free(config);
    free(events);
    free(schedules);
    return rc;
}

/* Append the event TYPE about NAME in TX: the notifier N as JSON (its
 * definition: it holds no secret), or {"name"} when N is NULL. */
static int emit(sked_store *st, sked__tx *tx, const char *type,
                const sked_notifier *n, const char *name, sked_error *err)
{
    json_t *o =
        n ? sked__notifier_to_json(n, false) : json_pack("{s:s}", "name", name);
    char *payload = o ? sked__json_text(o, NULL) : NULL;
    int rc;

    json_decref(o);
    if (!payload)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    rc = sked__event_write(st, tx, type, name, payload, sked__store_now(st),
                           err);
    free(payload);
    return rc;
}

struct put_arg {
    const sked_notifier *n;
    bool created;
};

static int put_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct put_arg *a = arg;
    int rc = write_row(st, tx, a->n, sked__store_now(st), &a->created, err);

    return rc ? rc
              : emit(st, tx,
                     a->created ? "notifier.created" : "notifier.updated", a->n,
                     a->n->name, err);
}

int sked__store_notifier_put(sked_store *st, const sked_notifier *n,
                             bool *created, sked_error *err)
{
    struct put_arg a = {.n = n};
    int rc = sked__notifier_validate(n, err);

    if (rc == 0)
        rc = sked__store_run_tx(st, SKED__TX_WRITE, put_tx, &a, err);
    if (rc == 0 && created)
        *created = a.created;
    return rc;
}

struct read_arg {
    const char *name;
    sked_notifier *v;
    size_t n;
};

static int read_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct read_arg *a = arg;

    sked__notifiers_free(a->v, a->n); /* from an attempt that failed */
    a->v = NULL;
    a->n = 0;
    return sked__notify_read_tx(st, tx, a->name, &a->v, &a->n, err);
}

int sked__store_notifier_get(sked_store *st, const char *name,
                             sked_notifier *out, sked_error *err)
{
    struct read_arg a = {.name = name};
    int rc = sked__store_run_tx(st, SKED__TX_READ, read_tx, &a, err);

    if (rc == 0 && a.n == 0)
        rc = sked__error_set(err, SKED_ENOTFOUND, "name", -1,
                             "no notifier \"%.100s\"", name);
    if (rc == 0) {
        *out = a.v[0];
        memset(&a.v[0], 0, sizeof a.v[0]);
    }
    sked__notifiers_free(a.v, a.n);
    return rc;
}

int sked__store_notifier_list(sked_store *st, sked_notifier **out, size_t *n,
                              sked_error *err)
{
    struct read_arg a = {0};
    int rc = sked__store_run_tx(st, SKED__TX_READ, read_tx, &a, err);

    if (rc != 0) {
        sked__notifiers_free(a.v, a.n);
        return rc;
    }
    *out = a.v;
    *n = a.n;
    return 0;
}

struct delete_arg {
    const char *name;
    bool existed;
};

static int delete_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct delete_arg *a = arg;
    int rc = st->ops->notifier_delete(tx, a->name, sked__store_now(st),
                                      &a->existed, err);

    if (rc == 0 && a->existed)
        rc = emit(st, tx, "notifier.deleted", NULL, a->name, err);
    return rc;
}

int sked__store_notifier_delete(sked_store *st, const char *name,
                                sked_error *err)
{
    struct delete_arg a = {.name = name};
    int rc = sked__store_run_tx(st, SKED__TX_WRITE, delete_tx, &a, err);

    if (rc == 0 && !a.existed)
        rc = sked__error_set(err, SKED_ENOTFOUND, "name", -1,
                             "no notifier \"%.100s\"", name);
    return rc;
}

/* ---- the workflows file's set ---------------------------------------------
 */

struct sync_arg {
    const char *app;
    const sked_notifier *set;
    size_t n;
    bool prune;
    sked_apply_result res;
};

static bool ours(const sked_notifier *n, const char *app)
{
    return n->source == SKED_SOURCE_CODE && n->app && strcmp(n->app, app) == 0;
}

/* Whether the stored N differs from the wanted W (by their JSON). */
static bool differs(const sked_notifier *n, const sked_notifier *w)
{
    json_t *a = sked__notifier_to_json(n, false);
    json_t *b = sked__notifier_to_json(w, false);
    bool d = !a || !b || !json_equal(a, b) || n->retry_for != w->retry_for;

    json_decref(a);
    json_decref(b);
    return d;
}

static const sked_notifier *stored(const sked_notifier *v, size_t n,
                                   const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].name, name) == 0)
            return &v[i];
    return NULL;
}

static int sync_rows(sked_store *st, sked__tx *tx, struct sync_arg *a,
                     const sked_notifier *v, size_t nv, sked_error *err)
{
    sked_time now = sked__store_now(st);
    bool created, gone;
    int rc = 0;

    for (size_t i = 0; rc == 0 && i < a->n; i++) {
        sked_notifier w = a->set[i];
        const sked_notifier *old = stored(v, nv, w.name);
        char field[SKED_ERROR_FIELD_MAX];
        (void) snprintf(field, sizeof field, "notifiers.%s", w.name);
        /* The file says what its notifiers are: one of its names made
         * through the API (sked notify apply) becomes the file's; only
         * another file's is refused. */
        if (old && old->source == SKED_SOURCE_CODE && !ours(old, a->app))
            return sked__error_set(err, SKED_ECONFLICT, field, -1,
                                   "a notifier of that name is app %s's",
                                   old->app ? old->app : "?");
        if (old && !ours(old, a->app))
            old = NULL; /* written as the file's */
        w.source = SKED_SOURCE_CODE;
        w.app = (char *) a->app;
        if (w.retry_for == 0)
            w.retry_for = SKED_NOTIFY_RETRY_DEFAULT;
        if (old && !differs(old, &w)) {
            a->res.unchanged++;
            continue;
        }
        rc = write_row(st, tx, &w, now, &created, err);
        if (rc == 0)
            rc = emit(st, tx, created ? "notifier.created" : "notifier.updated",
                      &w, w.name, err);
        sked__apply_note(
            &a->res, created ? SKED_APPLY_CREATED : SKED_APPLY_UPDATED, w.name);
    }
    for (size_t i = 0; rc == 0 && a->prune && i < nv; i++)
        if (ours(&v[i], a->app)) {
            bool keep = false;
            for (size_t j = 0; !keep && j < a->n; j++)
                keep = strcmp(a->set[j].name, v[i].name) == 0;
            if (!keep) {
                rc = st->ops->notifier_delete(tx, v[i].name, now, &gone, err);
                if (rc == 0)
                    rc = emit(st, tx, "notifier.deleted", NULL, v[i].name, err);
                sked__apply_note(&a->res, SKED_APPLY_DELETED, v[i].name);
            }
        }
    return rc;
}

static int sync_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct sync_arg *a = arg;
    sked_notifier *v = NULL;
    size_t nv = 0;
    int rc = sked__notify_read_tx(st, tx, NULL, &v, &nv, err);

    memset(&a->res, 0, sizeof a->res);
    if (rc == 0)
        rc = sync_rows(st, tx, a, v, nv, err);
    sked__notifiers_free(v, nv);
    return rc;
}

int sked__store_notifiers_sync(sked_store *st, const char *app,
                               const sked_notifier *set, size_t n,
                               size_t *changed, sked_error *err)
{
    sked_apply_result r;
    int rc = sked__store_notifiers_apply(st, app, set, n, true, &r, err);

    if (rc == 0 && changed)
        *changed = r.created + r.updated + r.deleted;
    return rc;
}

int sked__store_notifiers_apply(sked_store *st, const char *app,
                                const sked_notifier *set, size_t n, bool prune,
                                sked_apply_result *res, sked_error *err)
{
    struct sync_arg a = {.app = app, .set = set, .n = n, .prune = prune};
    char field[SKED_ERROR_FIELD_MAX + 200];
    int rc = 0;

    for (size_t i = 0; rc == 0 && i < n; i++) {
        rc = sked__notifier_validate(&set[i], err);
        if (rc != 0 && err) {
            (void) snprintf(field, sizeof field, "notifiers.%s.%s",
                            set[i].name ? set[i].name : "?", err->field);
            field[sizeof err->field - 1] = '\0'; /* cut to fit */
            memcpy(err->field, field, sizeof err->field);
        }
    }
    if (rc == 0)
        rc = sked__store_run_tx(st, SKED__TX_SERIAL, sync_tx, &a, err);
    if (rc == 0 && res)
        *res = a.res;
    return rc;
}

/* ---- deliveries -----------------------------------------------------------
 */

struct claim_arg {
    sked__delivery_claim q;
    sked_dur lease;
    char *text;
};

static int claim_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct claim_arg *a = arg;

    free(a->text);
    a->text = NULL;
    a->q.now = sked__store_now(st);
    a->q.lease_until = a->q.now + a->lease;
    /* The queued deliveries first: each key's earlier ones are heads. */
    int rc = st->ops->deliveries_expand(tx, err);
    return rc == 0 ? st->ops->deliveries_claim(tx, &a->q, &a->text, err) : rc;
}

/* Read the claimed rows TEXT into *out of *n. */
static int deliveries_of_text(const char *text, sked_delivery **out, size_t *n,
                              sked_error *err)
{
    json_t *a = NULL, *r;
    sked_delivery *v;
    size_t i;
    json_error_t je;
    int rc = sked__json_load(text, strlen(text), 0, &a, &je);

    if (rc != 0)
        return sked__error_set(err, rc == SKED_ENOMEM ? rc : SKED_EIO, "db", -1,
                               "the database's rows cannot be read");
    if (!(v = sked__calloc(json_array_size(a) + 1, sizeof *v))) {
        json_decref(a);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    json_array_foreach(a, i, r)
    {
        if (sked__notify_row_event(r) != 0) {
            sked__deliveries_free(v, i);
            json_decref(a);
            return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
        }
        v[i].id = json_integer_value(json_object_get(r, "id"));
        v[i].event_id = json_integer_value(json_object_get(r, "event_id"));
        v[i].attempts =
            (int) json_integer_value(json_object_get(r, "attempts"));
        v[i].deadline_at =
            json_integer_value(json_object_get(r, "deadline_at"));
        v[i].created_at = json_integer_value(json_object_get(r, "created_at"));
        v[i].notifier =
            sked__strdup(json_string_value(json_object_get(r, "notifier")));
        v[i].event = json_dumps(json_object_get(r, "event"), JSON_COMPACT);
        if (!v[i].notifier || !v[i].event) {
            sked__deliveries_free(v, i + 1);
            json_decref(a);
            return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
        }
    }
    *n = json_array_size(a);
    *out = v;
    json_decref(a);
    return 0;
}

int sked__store_deliveries_claim(sked_store *st, const char *owner,
                                 sked_dur lease, size_t limit,
                                 sked_delivery **out, size_t *n,
                                 sked_error *err)
{
    struct claim_arg a = {
        .q = {.owner = owner, .limit = limit > CLAIM_MAX ? CLAIM_MAX : limit},
        .lease = lease};
    int rc = sked__store_run_tx(st, SKED__TX_WRITE, claim_tx, &a, err);

    if (rc == 0)
        rc = deliveries_of_text(a.text, out, n, err);
    free(a.text);
    return rc;
}

struct finish_arg {
    sked__delivery_end *e;
    bool applied;
};

static int finish_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct finish_arg *a = arg;

    a->e->now = sked__store_now(st);
    if (strcmp(a->e->state, "pending") != 0)
        a->e->next_at = a->e->now;
    return st->ops->delivery_finish(tx, a->e, &a->applied, err);
}

int sked__store_delivery_finish(sked_store *st, sked__delivery_end *e,
                                bool *applied, sked_error *err)
{
    struct finish_arg a = {.e = e};
    int rc = sked__store_run_tx(st, SKED__TX_WRITE, finish_tx, &a, err);

    if (rc == 0 && applied)
        *applied = a.applied;
    return rc;
}

struct log_arg {
    const char *notifier;
    int64_t before;
    size_t limit;
    char *text;
    int64_t pending;
};

static int log_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct log_arg *a = arg;

    free(a->text);
    a->text = NULL;
    return st->ops->deliveries_list(tx, a->notifier, a->before, a->limit,
                                    &a->text, err);
}

static int expand_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    (void) arg;
    return st->ops->deliveries_expand(tx, err);
}

/* Give each delivery of the log *TEXT its event as sent (the event's
 * row read beside it, sked__notify_row_event): *TEXT replaced. */
static int log_events(char **text, sked_error *err)
{
    json_t *a = NULL, *r;
    json_error_t je;
    size_t i, n;
    char *out;
    int rc = sked__json_load(*text, strlen(*text), 0, &a, &je);

    if (rc != 0)
        return sked__error_set(err, rc == SKED_ENOMEM ? rc : SKED_EIO, "db", -1,
                               "the database's rows cannot be read");
    json_array_foreach(a, i, r)
    {
        if (sked__notify_row_event(r) != 0)
            break;
    }
    out = i == json_array_size(a) ? sked__json_text(a, &n) : NULL;
    json_decref(a);
    if (!out)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    free(*text);
    *text = out;
    return 0;
}

int sked__store_deliveries_log(sked_store *st, const char *notifier,
                               int64_t before, size_t limit, char **out,
                               sked_error *err)
{
    struct log_arg a = {.notifier = notifier,
                        .before = before,
                        .limit = limit ? limit : LOG_DEFAULT};
    int rc;

    if (a.limit > LOG_MAX)
        return sked__error_set(err, SKED_EINVAL, "limit", -1,
                               "at most %d deliveries per call", LOG_MAX);
    /* The queued deliveries are listed as rows, as the claim sees them. */
    rc = sked__store_run_tx(st, SKED__TX_WRITE, expand_tx, NULL, err);
    if (rc == 0)
        rc = sked__store_run_tx(st, SKED__TX_READ, log_tx, &a, err);
    if (rc == 0)
        rc = log_events(&a.text, err);
    if (rc != 0) {
        free(a.text);
        return rc;
    }
    *out = a.text;
    return 0;
}

static int pending_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct log_arg *a = arg;

    return st->ops->deliveries_due(tx, sked__store_now(st), &a->pending, err);
}

int sked__store_deliveries_due(sked_store *st, int64_t *out, sked_error *err)
{
    struct log_arg a = {0};
    int rc = sked__store_run_tx(st, SKED__TX_READ, pending_tx, &a, err);

    if (rc == 0)
        *out = a.pending;
    return rc;
}
