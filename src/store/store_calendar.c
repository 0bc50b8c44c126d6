/* SPDX-License-Identifier: MIT */
/* Calendar operations of the store (store.h): create, update, get, list
 * and delete.
 *
 * A write checks the calendar on its own first (sked_calendar_validate),
 * then, in its transaction, builds its day set against the calendars
 * stored then, so an include that names no calendar or closes a cycle is
 * refused with nothing written; the row and its event (calendar.created,
 * .updated, .deleted: the calendar's JSON, or {"name"}) go in the same
 * transaction. A calendar another one includes, or a schedule names in
 * its exclude or only, cannot be deleted: the other would no longer
 * build, the schedule no longer decide. A code calendar (a workflows file's) is
 * written over only by its own app: not over the API's, nor another
 * app's. An apply writes a set of code calendars as one app's, all or
 * nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/json_io.h"
#include "base/json_text.h"
#include "model/calendar.h"
#include "model/schedule.h"
#include "store/store_int.h"

/* One row of calendars_read into *c. */
static int row_read(const json_t *row, sked_calendar *c, sked_error *err)
{
    json_t *def = json_object_get(row, "definition");
    const char *source = json_string_value(json_object_get(row, "source"));
    const char *app = json_string_value(json_object_get(row, "app"));
    int rc = sked__calendar_from_json(def, 0, c, err);

    if (rc != 0)
        return rc;
    free(c->name);
    c->name = sked__strdup(json_string_value(json_object_get(row, "name")));
    c->app = app ? sked__strdup(app) : NULL;
    c->created_at = json_integer_value(json_object_get(row, "created_at"));
    c->updated_at = json_integer_value(json_object_get(row, "updated_at"));
    if (source && strcmp(source, "code") == 0)
        c->source = SKED_SOURCE_CODE;
    if (!c->name || (app && !c->app)) {
        sked_calendar_done(c);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    return 0;
}

int sked__store_calendars_read(sked_store *st, sked__tx *tx, const char *name,
                               sked_calendar **out, size_t *n, sked_error *err)
{
    char *text = NULL;
    json_t *a = NULL;
    json_error_t je;
    size_t i, k = 0;
    int rc = st->ops->calendars_read(tx, name, &text, err);

    *out = NULL;
    *n = 0;
    if (rc != 0)
        return rc;
    rc = sked__json_load(text, strlen(text), 0, &a, &je);
    free(text);
    if (rc != 0 || !json_is_array(a)) {
        json_decref(a);
        return sked__error_set(err, rc == SKED_ENOMEM ? rc : SKED_EIO, NULL, -1,
                               "unreadable calendar rows");
    }
    if (json_array_size(a) > 0 &&
        !(*out = sked__calloc(json_array_size(a), sizeof **out)))
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    for (i = 0; rc == 0 && i < json_array_size(a); i++, k++)
        rc = row_read(json_array_get(a, i), &(*out)[i], err);
    json_decref(a);
    if (rc != 0) {
        sked__calendars_free(*out, k);
        *out = NULL;
        return rc;
    }
    *n = k;
    return 0;
}

static int emit(sked_store *st, sked__tx *tx, const char *type,
                const sked_calendar *c, const char *name, sked_error *err)
{
    json_t *o =
        c ? sked__calendar_to_json(c, false) : json_pack("{s:s}", "name", name);
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

/* ---- write --------------------------------------------------------------- */

struct write_arg {
    const sked_calendar *c;
    sked__cal_mode mode;
    bool created;
};

/* Build A's calendar against the stored ones ALL (N): its includes. */
static int check_includes(const sked_calendar *c, const sked_calendar *all,
                          size_t n, sked_error *err)
{
    sked__daycal *d = NULL;
    int rc = sked__calendar_build(c, all, n, &d, err);

    sked__daycal_free(d);
    return rc;
}

static const sked_calendar *find(const sked_calendar *all, size_t n,
                                 const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(all[i].name, name) == 0)
            return &all[i];
    return NULL;
}

static int write_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct write_arg *a = arg;
    sked_calendar *all = NULL, row;
    const sked_calendar *old;
    size_t n = 0;
    char *def = NULL;
    json_t *o = NULL;
    int rc = sked__store_calendars_read(st, tx, NULL, &all, &n, err);

    if (rc != 0)
        return rc;
    old = find(all, n, a->c->name);
    a->created = !old;
    if (old && a->mode == SKED__CAL_CREATE)
        rc = sked__error_set(err, SKED_ECONFLICT, "name", -1,
                             "a calendar named \"%s\" already exists",
                             a->c->name);
    else if (!old && a->mode == SKED__CAL_UPDATE)
        rc = sked__error_set(err, SKED_ENOTFOUND, "name", -1,
                             "no calendar named \"%s\"", a->c->name);
    if (rc == 0 && old && a->c->source == SKED_SOURCE_CODE &&
        (old->source != SKED_SOURCE_CODE || !old->app || !a->c->app ||
         strcmp(old->app, a->c->app) != 0))
        rc = sked__error_set(
            err, SKED_ECONFLICT, "name", -1, "calendar \"%s\" belongs to %s%s",
            old->name, old->source == SKED_SOURCE_CODE ? "the app " : "the API",
            old->source == SKED_SOURCE_CODE && old->app ? old->app : "");
    if (rc == 0)
        rc = check_includes(a->c, all, n, err);
    if (rc == 0 && sked_calendar_copy(a->c, &row) != 0)
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (rc != 0) {
        sked__calendars_free(all, n);
        return rc;
    }
    row.created_at = old ? old->created_at : sked__store_now(st);
    row.updated_at = sked__store_now(st);
    if (!(o = sked__calendar_to_json(&row, true)) ||
        !(def = sked__json_text(o, NULL)))
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    json_decref(o);
    if (rc == 0)
        rc = st->ops->calendar_write(
            tx,
            &(sked__calendar_row){row.name, def, sked_source_name(row.source),
                                  row.app, row.updated_at},
            !old, err);
    if (rc == 0)
        rc = emit(st, tx, old ? "calendar.updated" : "calendar.created", &row,
                  row.name, err);
    if (rc == 0 && old)
        rc = sked__store_replan_calendars(
            st, tx, (const char *const[]){row.name}, 1, err);
    free(def);
    sked_calendar_done(&row);
    sked__calendars_free(all, n);
    return rc;
}

int sked__store_calendar_write(sked_store *st, const sked_calendar *c,
                               sked__cal_mode mode, bool *created,
                               sked_error *err)
{
    struct write_arg a = {c, mode, false};
    int rc = sked_calendar_validate(c, err);

    if (rc == 0)
        rc = sked__store_run_tx(st, SKED__TX_WRITE, write_tx, &a, err);
    if (rc == 0 && created)
        *created = a.created;
    return rc;
}

/* ---- read ---------------------------------------------------------------- */

struct read_arg {
    const char *name;
    sked_calendar *v;
    size_t n;
};

static int read_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct read_arg *a = arg;

    sked__calendars_free(a->v, a->n); /* from an attempt that failed */
    a->v = NULL;
    a->n = 0;
    return sked__store_calendars_read(st, tx, a->name, &a->v, &a->n, err);
}

int sked__store_calendar_list(sked_store *st, sked_calendar **out, size_t *n,
                              sked_error *err)
{
    struct read_arg a = {NULL, NULL, 0};
    int rc = sked__store_run_tx(st, SKED__TX_READ, read_tx, &a, err);

    if (rc != 0) {
        sked__calendars_free(a.v, a.n);
        return rc;
    }
    *out = a.v;
    *n = a.n;
    return 0;
}

int sked__store_calendar_get(sked_store *st, const char *name,
                             sked_calendar *out, sked_error *err)
{
    struct read_arg a = {name, NULL, 0};
    int rc;

    if (!name)
        return sked__error_set(err, SKED_EINVAL, "name", -1, "is required");
    rc = sked__store_run_tx(st, SKED__TX_READ, read_tx, &a, err);
    if (rc == 0 && a.n == 0)
        rc = sked__error_set(err, SKED_ENOTFOUND, "name", -1,
                             "no calendar named \"%s\"", name);
    if (rc == 0)
        *out = a.v[0];
    else
        sked__calendars_free(a.v, a.n);
    if (rc == 0)
        free(a.v);
    return rc;
}

/* ---- delete -------------------------------------------------------------- */

struct delete_arg {
    const char *name;
    bool existed;
};

/* The calendar of ALL (N) other than NAME that includes NAME, or NULL. */
static const char *includer(const sked_calendar *all, size_t n,
                            const char *name)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < all[i].include.n; k++)
            if (strcmp(all[i].include.v[k], name) == 0 &&
                strcmp(all[i].name, name) != 0)
                return all[i].name;
    return NULL;
}

static int delete_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct delete_arg *a = arg;
    sked_calendar *all = NULL;
    char *user = NULL;
    const char *by;
    size_t n = 0;
    int rc = sked__store_calendars_read(st, tx, NULL, &all, &n, err);

    if (rc == 0 && (by = includer(all, n, a->name)))
        rc = sked__error_set(err, SKED_ECONFLICT, "name", -1,
                             "calendar \"%s\" includes it", by);
    sked__calendars_free(all, n);
    /* A schedule's calendars must build at each of its decisions. */
    if (rc == 0 &&
        (rc = st->ops->calendar_users(tx, a->name, &user, err)) == 0 && user)
        rc = sked__error_set(err, SKED_ECONFLICT, "name", -1,
                             "schedule \"%.100s\" uses it", user);
    free(user);
    if (rc == 0)
        rc = st->ops->calendar_delete(tx, a->name, &a->existed, err);
    if (rc == 0 && a->existed)
        rc = emit(st, tx, "calendar.deleted", NULL, a->name, err);
    return rc;
}

int sked__store_calendar_delete(sked_store *st, const char *name, bool *existed,
                                sked_error *err)
{
    struct delete_arg a = {name, false};
    int rc;

    if (!name)
        return sked__error_set(err, SKED_EINVAL, "name", -1, "is required");
    rc = sked__store_run_tx(st, SKED__TX_WRITE, delete_tx, &a, err);
    if (rc == 0 && existed)
        *existed = a.existed;
    return rc;
}

/* ---- apply a set --------------------------------------------------------
 *
 * The plan: read every stored calendar; check each of the set against it
 * (a name the API or another app has is not the set's); compute the
 * calendars as they will stand after the apply (the stored ones, the set's
 * in place of theirs, without those pruned) and build each of the set
 * against them, so an include that will name nothing, or a cycle, is
 * refused before anything is written; refuse to prune a calendar that one
 * left standing includes. Then write, each calendar after those of the
 * set it includes, skipping the unchanged, and delete the pruned. */

struct apply_arg {
    const sked_calendar *set; /* n */
    size_t n;
    const char *app;
    bool prune;
    sked_apply_result res;
};

/* Tell whether the stored OLD is a code calendar the set of APP prunes
 * when the set (A) does not name it. */
static bool prunable(const struct apply_arg *a, const sked_calendar *old)
{
    return a->prune && old->source == SKED_SOURCE_CODE && old->app &&
           strcmp(old->app, a->app) == 0 && !find(a->set, a->n, old->name);
}

/* Refuse the set's calendar C when the stored OLD (may be NULL) is not
 * APP's: the API's, or another app's. One of no app is taken over. */
static int owner_check(const sked_calendar *c, const sked_calendar *old,
                       const char *app, sked_error *err)
{
    if (!old)
        return 0;
    if (old->source != SKED_SOURCE_CODE)
        return sked__error_set(err, SKED_ECONFLICT, "name", -1,
                               "calendar \"%.80s\" exists with source api",
                               c->name);
    if (old->app && strcmp(old->app, app) != 0)
        return sked__error_set(err, SKED_ECONFLICT, "name", -1,
                               "calendar \"%.80s\" belongs to app \"%.60s\"",
                               c->name, old->app);
    return 0;
}

/* The calendars as they will stand after the apply into *out (N + the
 * set's): shallow copies, borrowed from ALL and the set. */
static int after_apply(const struct apply_arg *a, const sked_calendar *all,
                       size_t n, sked_calendar **out, size_t *k,
                       sked_error *err)
{
    sked_calendar *v = sked__calloc(n + a->n + 1, sizeof *v);

    if (!v)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    *k = 0;
    for (size_t i = 0; i < n; i++)
        if (!find(a->set, a->n, all[i].name) && !prunable(a, &all[i]))
            v[(*k)++] = all[i];
    for (size_t i = 0; i < a->n; i++)
        v[(*k)++] = a->set[i];
    *out = v;
    return 0;
}

/* Check the whole set against the stored ALL (N) before any write. */
static int apply_check(const struct apply_arg *a, const sked_calendar *all,
                       size_t n, sked_error *err)
{
    sked_calendar *v = NULL;
    const char *by;
    size_t k = 0;
    int rc = 0;

    for (size_t i = 0; rc == 0 && i < a->n; i++)
        rc = sked__error_at_index(
            owner_check(&a->set[i], find(all, n, a->set[i].name), a->app, err),
            "calendars", i, err);
    if (rc == 0)
        rc = after_apply(a, all, n, &v, &k, err);
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (prunable(a, &all[i]) && (by = includer(v, k, all[i].name)))
            rc = sked__error_set(err, SKED_ECONFLICT, NULL, -1,
                                 "calendar \"%.80s\" is no longer in the set "
                                 "but cannot be deleted: calendar \"%.80s\" "
                                 "includes it",
                                 all[i].name, by);
    for (size_t i = 0; rc == 0 && i < a->n; i++)
        rc = sked__error_at_index(check_includes(&a->set[i], v, k, err),
                                  "calendars", i, err);
    free(v);
    return rc;
}

/* 1 when C, given by the set, is the stored OLD as it is (its definition
 * and app), else 0, or SKED_ENOMEM. */
static int unchanged(const sked_calendar *c, const char *app,
                     const sked_calendar *old)
{
    json_t *x, *y;
    int eq;

    if (old->source != SKED_SOURCE_CODE || !old->app ||
        strcmp(old->app, app) != 0)
        return 0;
    x = sked__calendar_to_json(c, true);
    y = sked__calendar_to_json(old, true);
    eq = x && y ? json_equal(x, y) : SKED_ENOMEM;
    json_decref(x);
    json_decref(y);
    return eq;
}

/* Write the set's calendar C as A->app's (OLD: the stored one, or NULL). */
static int apply_one(sked_store *st, sked__tx *tx, struct apply_arg *a,
                     const sked_calendar *c, const sked_calendar *old,
                     sked_error *err)
{
    sked_calendar row;
    char *def = NULL;
    json_t *o = NULL;
    int rc = old ? unchanged(c, a->app, old) : 0;

    if (rc < 0)
        return sked__error_set(err, rc, NULL, -1, NULL);
    if (rc == 1) {
        a->res.unchanged++;
        return 0;
    }
    if (sked_calendar_copy(c, &row) != 0)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    free(row.app);
    row.app = sked__strdup(a->app);
    row.source = SKED_SOURCE_CODE;
    row.created_at = old ? old->created_at : sked__store_now(st);
    row.updated_at = sked__store_now(st);
    if (!row.app || !(o = sked__calendar_to_json(&row, true)) ||
        !(def = sked__json_text(o, NULL)))
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    json_decref(o);
    if (rc == 0)
        rc = st->ops->calendar_write(tx,
                                     &(sked__calendar_row){row.name, def,
                                                           "code", row.app,
                                                           row.updated_at},
                                     !old, err);
    if (rc == 0)
        rc = emit(st, tx, old ? "calendar.updated" : "calendar.created", &row,
                  row.name, err);
    if (rc == 0)
        sked__apply_note(&a->res, old ? SKED_APPLY_UPDATED : SKED_APPLY_CREATED,
                         row.name);
    free(def);
    sked_calendar_done(&row);
    return rc;
}

/* Tell whether every include of C that the set names is DONE. */
static bool includes_done(const struct apply_arg *a, const sked_calendar *c,
                          const bool *done)
{
    for (size_t k = 0; k < c->include.n; k++)
        for (size_t j = 0; j < a->n; j++)
            if (!done[j] && strcmp(a->set[j].name, c->include.v[k]) == 0 &&
                strcmp(c->name, c->include.v[k]) != 0)
                return false;
    return true;
}

/* Write the set, each calendar after those of it it includes: a pass
 * writes those whose includes are written; apply_check refused cycles, so
 * each pass writes one at least. */
static int apply_writes(sked_store *st, sked__tx *tx, struct apply_arg *a,
                        const sked_calendar *all, size_t n, sked_error *err)
{
    bool *done = sked__calloc(a->n + 1, sizeof *done);
    size_t left = a->n, before;
    int rc = 0;

    if (!done)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    do {
        before = left;
        for (size_t i = 0; rc == 0 && i < a->n; i++) {
            const sked_calendar *c = &a->set[i];
            if (done[i] || !includes_done(a, c, done))
                continue;
            rc = sked__error_at_index(
                apply_one(st, tx, a, c, find(all, n, c->name), err),
                "calendars", i, err);
            done[i] = true;
            left--;
        }
    } while (rc == 0 && left > 0 && left < before);
    free(done);
    if (rc == 0 && left > 0)
        rc = sked__error_set(err, SKED_ECONFLICT, "calendars", -1,
                             "the set's includes form a cycle");
    return rc;
}

static int apply_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct apply_arg *a = arg;
    sked_calendar *all = NULL;
    bool existed;
    size_t n = 0;
    int rc = sked__store_calendars_read(st, tx, NULL, &all, &n, err);

    memset(&a->res, 0, sizeof a->res);
    if (rc == 0)
        rc = apply_check(a, all, n, err);
    if (rc == 0)
        rc = apply_writes(st, tx, a, all, n, err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char *user = NULL;
        if (!prunable(a, &all[i]))
            continue;
        rc = st->ops->calendar_users(tx, all[i].name, &user, err);
        if (rc == 0 && user)
            rc = sked__error_set(err, SKED_ECONFLICT, "calendars", -1,
                                 "cannot prune calendar \"%.100s\": schedule "
                                 "\"%.*s\" uses it",
                                 all[i].name, (int) strcspn(user, "\n"), user);
        free(user);
        if (rc == 0)
            rc = st->ops->calendar_delete(tx, all[i].name, &existed, err);
        if (rc == 0 && existed)
            rc = emit(st, tx, "calendar.deleted", NULL, all[i].name, err);
        if (rc == 0 && existed)
            sked__apply_note(&a->res, SKED_APPLY_DELETED, all[i].name);
    }
    /* Replaced calendars change their users' days (new ones have none). */
    if (rc == 0 && a->res.updated > 0) {
        const char **names = sked__calloc(a->n + 1, sizeof *names);
        for (size_t i = 0; names && i < a->n; i++)
            names[i] = a->set[i].name;
        rc = names ? sked__store_replan_calendars(st, tx, names, a->n, err)
                   : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
        free(names);
    }
    sked__calendars_free(all, n);
    return rc;
}

int sked__store_calendar_apply(sked_store *st, const sked_calendar *set,
                               size_t n, const char *app, bool prune,
                               sked_apply_result *out, sked_error *err)
{
    struct apply_arg a = {set, n, app, prune, {0}};
    int rc = 0;

    if (!set && n > 0)
        return sked__error_set(err, SKED_EINVAL, "calendars", -1, "no set");
    rc = sked__schedule_name_check(app, "app", err);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = sked__error_at_index(sked_calendar_validate(&set[i], err),
                                  "calendars", i, err);
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (find(set, i, set[i].name))
            rc = sked__error_at_index(
                sked__error_set(err, SKED_EINVAL, "name", -1,
                                "\"%.80s\" appears twice in the set",
                                set[i].name),
                "calendars", i, err);
    if (rc == 0)
        /* Serial, as a schedule apply: servers applying one set at once
         * end with that set. */
        rc = sked__store_run_tx(st, SKED__TX_SERIAL, apply_tx, &a, err);
    if (rc == 0 && out)
        *out = a.res;
    return rc;
}
