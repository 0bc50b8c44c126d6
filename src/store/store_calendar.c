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
 * app's. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/json_io.h"
#include "base/json_text.h"
#include "model/calendar.h"
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
    rc = st->ops->event_append(tx, type, name, payload, sked__store_now(st),
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
        (rc = st->ops->calendar_user(tx, a->name, &user, err)) == 0 && user)
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
