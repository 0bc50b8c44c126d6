/* SPDX-License-Identifier: MIT */
/* Calendars through the engine (sked/engine.h, docs/calendars.md):
 * create, update, get, list and delete go to the store, which checks and
 * writes; a change is delivered to subscribers as its event and tells the
 * scheduler to read its schedules again, since any of them may exclude
 * the calendar. The days of a calendar are its day set read back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/json_text.h"
#include "engine/answer.h"
#include "engine/engine_int.h"
#include "model/calendar.h"
#include "sched/loop.h"
#include "time/civil.h"

static int check(sked_engine *e, const void *arg, sked_error *err)
{
    if (!e)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, "no engine");
    if (!arg)
        return sked__error_set(err, SKED_EINVAL, "name", -1, "is required");
    return 0;
}

/* Deliver TYPE about NAME with PAYLOAD (taken) and wake the scheduler. */
static void announce(sked_engine *e, const char *type, const char *name,
                     char *payload)
{
    sked__engine_deliver_one(e, type, name, payload);
    if (e->loop)
        sked__loop_changed(e->loop, NULL);
}

static int write(sked_engine *e, const sked_calendar *c, sked__cal_mode mode,
                 bool *created, sked_error *err)
{
    sked_calendar now;
    bool made = false;
    json_t *o;
    int rc = check(e, c, err);

    if (rc == 0)
        rc = sked__store_calendar_write(e->store, c, mode, &made, err);
    if (rc != 0)
        return rc;
    if (created)
        *created = made;
    if (sked__store_calendar_get(e->store, c->name, &now, NULL) != 0)
        return 0; /* written; the event is in the store */
    o = sked__calendar_to_json(&now, false);
    announce(e, made ? "calendar.created" : "calendar.updated", c->name,
             o ? sked__json_text(o, NULL) : NULL);
    json_decref(o);
    sked_calendar_done(&now);
    return 0;
}

int sked_engine_calendar_create(sked_engine *e, const sked_calendar *c,
                                sked_error *err)
{
    return write(e, c, SKED__CAL_CREATE, NULL, err);
}

int sked_engine_calendar_update(sked_engine *e, const sked_calendar *c,
                                sked_error *err)
{
    return write(e, c, SKED__CAL_UPDATE, NULL, err);
}

int sked_engine_calendar_put(sked_engine *e, const sked_calendar *c,
                             bool *created, sked_error *err)
{
    return write(e, c, SKED__CAL_PUT, created, err);
}

int sked_engine_calendar_get(sked_engine *e, const char *name,
                             sked_calendar *out, sked_error *err)
{
    int rc = check(e, name, err);

    return rc ? rc : sked__store_calendar_get(e->store, name, out, err);
}

int sked_engine_calendar_list(sked_engine *e, sked_calendar **out, size_t *n,
                              sked_error *err)
{
    int rc = check(e, out, err);

    return rc ? rc : sked__store_calendar_list(e->store, out, n, err);
}

void sked_calendars_free(sked_calendar *v, size_t n)
{
    sked__calendars_free(v, n);
}

int sked_engine_calendar_delete(sked_engine *e, const char *name, bool *existed,
                                sked_error *err)
{
    bool was = false;
    size_t len;
    char *p;
    int rc = check(e, name, err);

    if (rc == 0)
        rc = sked__store_calendar_delete(e->store, name, &was, err);
    if (rc != 0)
        return rc;
    if (existed)
        *existed = was;
    if (!was)
        return 0;
    len = strlen(name) + 16;
    if ((p = sked__malloc(len)))
        (void) snprintf(p, len, "{\"name\":\"%s\"}", name);
    announce(e, "calendar.deleted", name, p);
    return 0;
}

int sked_engine_calendar_apply(sked_engine *e, const char *app,
                               const sked_calendar *set, size_t n, bool prune,
                               sked_apply_result *out, sked_error *err)
{
    int rc;

    if (!e)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, "no engine");
    rc = sked__store_calendar_apply(e->store, set, n, app ? app : e->app, prune,
                                    out, err);
    /* The events are in the store, as a schedule apply's. */
    if (rc == 0 && e->loop)
        sked__loop_changed(e->loop, NULL);
    return rc;
}

/* ---- its days -------------------------------------------------------- */

/* Build NAME's day set against every stored calendar. */
static int build_named(sked_engine *e, const char *name, sked__daycal **out,
                       sked_error *err)
{
    sked_calendar *all = NULL;
    size_t n = 0, i;
    int rc = sked__store_calendar_list(e->store, &all, &n, err);

    if (rc != 0)
        return rc;
    for (i = 0; i < n && strcmp(all[i].name, name) != 0; i++)
        ;
    if (i == n)
        rc = sked__error_set(err, SKED_ENOTFOUND, "name", -1,
                             "no calendar named \"%s\"", name);
    else
        rc = sked__calendar_build(&all[i], all, n, out, err);
    sked__calendars_free(all, n);
    return rc;
}

int sked_engine_calendar_days(sked_engine *e, const char *name,
                              const sked_calendar_days_query *q,
                              sked_calendar_day **out, size_t *n,
                              sked_error *err)
{
    sked__daycal *d = NULL;
    sked_calendar_day *v = NULL;
    size_t k = 0;
    int rc = check(e, name, err);

    *out = NULL;
    *n = 0;
    if (rc == 0 && (!q || q->to < q->from))
        rc = sked__error_set(err, SKED_EINVAL, "to", -1,
                             "the period ends before it starts");
    if (rc == 0 && q->to - q->from >= SKED_CALENDAR_DAYS_MAX)
        rc = sked__error_set(err, SKED_EINVAL, "to", -1,
                             "at most %d days at once", SKED_CALENDAR_DAYS_MAX);
    if (rc == 0)
        rc = build_named(e, name, &d, err);
    if (rc == 0 &&
        !(v = sked__calloc((size_t) (q->to - q->from + 1), sizeof *v)))
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    for (int64_t day = q->from; rc == 0 && day <= q->to; day++) {
        bool in = sked__daycal_has(d, day), biz = sked__daycal_business(d, day);
        if (q->business ? biz : in)
            v[k++] = (sked_calendar_day){day, in, biz};
    }
    sked__daycal_free(d);
    if (rc != 0) {
        free(v);
        return rc;
    }
    *out = v;
    *n = k;
    return 0;
}

/* ---- answers (engine/answer.h) ---------------------------------------- */

json_t *sked__answer_calendar(const sked_calendar *c, sked_error *err)
{
    json_t *o = sked__calendar_to_json(c, false);

    if (!o)
        sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    return o;
}

int sked__answer_calendar_read(const json_t *body, sked_calendar *c,
                               sked_error *err)
{
    return sked__calendar_from_json(body, 0, c, err);
}

json_t *sked__answer_calendars(const sked_calendar *v, size_t n,
                               sked_error *err)
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, sked__calendar_to_json(&v[i], false))) {
            json_decref(a);
            a = NULL;
        }
    if (!a) {
        sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
        return NULL;
    }
    return json_pack("{s:o}", "calendars", a);
}

json_t *sked__answer_calendar_days(const char *name, const sked_calendar_day *v,
                                   size_t n, sked_error *err)
{
    json_t *a = json_array(), *d;
    char date[16];

    for (size_t i = 0; a && i < n; i++) {
        (void) sked_date_format(v[i].day, date, sizeof date);
        d = json_pack("{s:s, s:b, s:b}", "date", date, "holiday", v[i].in_set,
                      "business", v[i].business);
        if (json_array_append_new(a, d) != 0) {
            json_decref(a);
            a = NULL;
        }
    }
    if (!a) {
        sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
        return NULL;
    }
    return json_pack("{s:s, s:o}", "calendar", name, "days", a);
}
