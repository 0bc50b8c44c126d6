/* SPDX-License-Identifier: MIT */
/* The notifiers' door (sked/engine.h, docs/notifications.md): notifiers
 * written, read and deleted as the JSON objects of model/notifier.h, the
 * workflows file's set synced as its app's (by a server's load, and by
 * sked apply, which prunes only when asked), and the notify log with
 * each delivery's idempotency id.
 *
 * Choices callers see:
 * - A write through the API makes an API notifier whatever state keys
 *   ("source", "app", ...) the object holds, so an object read with GET
 *   can be written back as it is.
 * - A secret never passes here: a notifier names its file or variable,
 *   and the server reads it at each attempt. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/json_io.h"
#include "base/json_text.h"
#include "engine/engine_int.h"
#include "model/schedule_json.h"
#include "store/store_notify.h"

/* The JSON text of N with its state; NULL when out of memory. */
static char *notifier_text(const sked_notifier *n)
{
    json_t *o = sked__notifier_to_json(n, true);
    char *s = o ? sked__json_text(o, NULL) : NULL;

    json_decref(o);
    return s;
}

/* Read the JSON text JSON into *n, its name NAME when given. */
static int notifier_read(const char *name, const char *json, sked_notifier *n,
                         sked_error *err)
{
    json_error_t je;
    json_t *o = NULL;
    int rc;

    if (!json)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, "no notifier");
    rc = sked__json_load(json, strlen(json), 0, &o, &je);
    if (rc != 0)
        return sked__error_set(err, rc == SKED_ENOMEM ? rc : SKED_EINVAL, NULL,
                               je.position, "not JSON: %s", je.text);
    if (name && json_is_object(o) && !json_object_get(o, "name") &&
        json_object_set_new(o, "name", json_string(name)) != 0) {
        json_decref(o);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    rc = sked__notifier_from_json(o, SKED__NOTIFIER_JSON_STATE, n, err);
    json_decref(o);
    if (rc != 0)
        return rc;
    if (name && n->name && strcmp(name, n->name) != 0) {
        sked__notifier_done(n);
        return sked__error_set(err, SKED_EINVAL, "name", -1,
                               "the body names \"%.60s\", the URL \"%.60s\"",
                               n->name, name);
    }
    free(n->app);
    n->app = NULL;
    n->source = SKED_SOURCE_API;
    return 0;
}

int sked_engine_notifier_put(sked_engine *e, const char *name, const char *json,
                             bool *created, char **out_json, sked_error *err)
{
    sked_notifier n;
    int rc;

    sked_error_clear(err);
    if (!e)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, "no engine");
    if ((rc = notifier_read(name, json, &n, err)) != 0)
        return rc;
    bool made = false;
    rc = sked__store_notifier_put(e->store, &n, &made, err);
    if (rc == 0) {
        json_t *o = sked__notifier_to_json(&n, false);
        /* Stored with the row; this engine's subscribers hear of it too. */
        sked__engine_deliver_one(e,
                                 made ? "notifier.created" : "notifier.updated",
                                 n.name, o ? sked__json_text(o, NULL) : NULL);
        json_decref(o);
        if (created)
            *created = made;
    }
    if (rc == 0 && out_json)
        rc = sked_engine_notifier_get(e, n.name, out_json, err);
    sked__notifier_done(&n);
    return rc;
}

int sked_engine_notifier_get(sked_engine *e, const char *name, char **out_json,
                             sked_error *err)
{
    sked_notifier n;
    char *text;
    int rc;

    sked_error_clear(err);
    if (!e || !name || !out_json)
        return sked__error_set(err, SKED_EINVAL, NULL, -1,
                               "an engine, a name and an output");
    if ((rc = sked__store_notifier_get(e->store, name, &n, err)) != 0)
        return rc;
    text = notifier_text(&n);
    sked__notifier_done(&n);
    if (!text)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    *out_json = text;
    return 0;
}

int sked_engine_notifier_list(sked_engine *e, char **out_json, sked_error *err)
{
    sked_notifier *v = NULL;
    size_t n = 0;
    json_t *a;
    char *text = NULL;
    int rc;

    sked_error_clear(err);
    if (!e || !out_json)
        return sked__error_set(err, SKED_EINVAL, NULL, -1,
                               "an engine and an output");
    if ((rc = sked__store_notifier_list(e->store, &v, &n, err)) != 0)
        return rc;
    a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, sked__notifier_to_json(&v[i], true)) !=
            0) {
            json_decref(a);
            a = NULL;
        }
    text = a ? sked__json_text(a, NULL) : NULL;
    json_decref(a);
    sked__notifiers_free(v, n);
    if (!text)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    *out_json = text;
    return 0;
}

int sked_engine_notifier_delete(sked_engine *e, const char *name,
                                sked_error *err)
{
    sked_error_clear(err);
    if (!e || !name)
        return sked__error_set(err, SKED_EINVAL, NULL, -1,
                               "an engine and a name");
    int rc = sked__store_notifier_delete(e->store, name, err);
    json_t *o = rc == 0 ? json_pack("{s:s}", "name", name) : NULL;

    if (rc == 0)
        sked__engine_deliver_one(e, "notifier.deleted", name,
                                 o ? sked__json_text(o, NULL) : NULL);
    json_decref(o);
    return rc;
}

int sked__engine_notifiers_sync(sked_engine *e, const char *app,
                                const sked_notifier *set, size_t n,
                                size_t *changed, sked_error *err)
{
    return sked__store_notifiers_sync(e->store, app ? app : e->app, set, n,
                                      changed, err);
}

/* Read the JSON array text SET into *out of *n, each a notifier's
 * definition; an error names "notifiers[i].field". */
static int set_read(const char *set, sked_notifier **out, size_t *n,
                    sked_error *err)
{
    json_error_t je;
    json_t *a = NULL, *o;
    sked_notifier *v;
    size_t i;
    int rc = sked__json_load(set, strlen(set), 0, &a, &je);

    if (rc != 0)
        return sked__error_set(err, rc == SKED_ENOMEM ? rc : SKED_EINVAL,
                               "notifiers", je.position, "not JSON: %s",
                               je.text);
    if (!json_is_array(a)) {
        json_decref(a);
        return sked__error_set(err, SKED_EINVAL, "notifiers", -1,
                               "must be an array of notifiers");
    }
    if (!(v = sked__calloc(json_array_size(a) + 1, sizeof *v))) {
        json_decref(a);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    json_array_foreach(a, i, o)
    {
        if ((rc = sked__notifier_from_json(o, 0, &v[i], err)) == 0)
            continue;
        sked__notifiers_free(v, i + 1);
        json_decref(a);
        return sked__error_at_index(rc, "notifiers", i, err);
    }
    *n = json_array_size(a);
    *out = v;
    json_decref(a);
    return 0;
}

int sked_engine_notifier_apply(sked_engine *e, const char *app, const char *set,
                               bool prune, sked_apply_result *out,
                               sked_error *err)
{
    sked_notifier *v = NULL;
    size_t n = 0;
    int rc;

    sked_error_clear(err);
    if (!e || !set)
        return sked__error_set(err, SKED_EINVAL, NULL, -1,
                               "an engine and a set");
    if ((rc = set_read(set, &v, &n, err)) != 0)
        return rc;
    rc = sked__store_notifiers_apply(e->store, app ? app : e->app, v, n, prune,
                                     out, err);
    sked__notifiers_free(v, n);
    return rc;
}

/* Add to each row of the log A its idempotency id, and write its
 * instants as the API does (RFC 3339; the store's rows hold µs). */
static bool add_ids(json_t *a)
{
    static const char *const instants[] = {
        "next_attempt_at", "deadline_at",  "lease_until", "created_at",
        "updated_at",      "delivered_at", NULL};
    char id[SKED_NAME_MAX + 32];
    size_t i;
    json_t *r, *t;

    json_array_foreach(a, i, r)
    {
        for (size_t k = 0; instants[k]; k++) {
            t = json_object_get(r, instants[k]);
            if (json_is_integer(t) &&
                json_object_set_new(
                    r, instants[k],
                    sked__json_instant(json_integer_value(t))) != 0)
                return false;
        }
        (void) snprintf(
            id, sizeof id, "%lld-%s",
            (long long) json_integer_value(json_object_get(r, "event_id")),
            json_string_value(json_object_get(r, "notifier")));
        if (json_object_set_new(r, "delivery", json_string(id)) != 0)
            return false;
    }
    return true;
}

int sked_engine_notify_log(sked_engine *e, const char *notifier, int64_t before,
                           size_t limit, char **out_json, sked_error *err)
{
    json_error_t je;
    json_t *a = NULL;
    char *text = NULL;
    int rc;

    sked_error_clear(err);
    if (!e || !out_json || before < 0)
        return sked__error_set(err, SKED_EINVAL, "before", -1,
                               "an engine, an output and an id >= 0");
    if (limit > SKED_ENGINE_LIST_MAX)
        return sked__error_set(err, SKED_EINVAL, "limit", -1,
                               "at most %d deliveries", SKED_ENGINE_LIST_MAX);
    /* A notifier's log is its: an unknown one is not an empty log. */
    if (notifier && (rc = sked_engine_notifier_get(e, notifier, &text, err)))
        return rc;
    free(text);
    text = NULL;
    rc = sked__store_deliveries_log(e->store, notifier, before, limit, &text,
                                    err);
    if (rc != 0)
        return rc;
    rc = sked__json_load(text, strlen(text), 0, &a, &je);
    free(text);
    text = rc == 0 && add_ids(a) ? sked__json_text(a, NULL) : NULL;
    json_decref(a);
    if (!text)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    *out_json = text;
    return 0;
}
