/* SPDX-License-Identifier: MIT */
/* Notifiers and their outbox (store_notify.h, schema 0013).
 *
 * The outbox is written by sked__notify_outbox, which sked__ev_flush
 * calls in the transaction of the events it writes: for each event of a
 * notifiable type, one delivery per notifier that wants it. So a crash
 * either loses the event and its deliveries together or keeps both. The
 * notifiers are read only when a transaction writes a notifiable event
 * (a failure, a missed occurrence): the runs that complete pay nothing.
 *
 * The event as sent, {"id", "type", "subject", "schedule", "at",
 * "payload"}, is stored with its delivery: it outlives the events'
 * retention, and every attempt sends the same bytes. Its schedule is the
 * subject of a schedule's event, else the payload's "schedule", else the
 * schedule of the run the event is about; deliveries of one (notifier,
 * schedule) go out in event order (an event with no schedule orders by
 * its subject). */
#include "store/store_notify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/json_io.h"
#include "base/json_scan.h"
#include "base/json_text.h"
#include "model/run.h"
#include "store/store_int.h"

void sked__deliveries_free(sked_delivery *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++) {
        free(v[i].notifier);
        free(v[i].event);
    }
    free(v);
}

/* ---- rows ---------------------------------------------------------------- */

/* Read the row object R (store_ops.h notifiers_read) into *out. */
static int notifier_of_row(json_t *r, sked_notifier *out, sked_error *err)
{
    const char *kind = json_string_value(json_object_get(r, "kind"));
    json_t *o = json_object();
    int rc;

    if (!o || sked__notifier_kind_parse(kind) < 0)
        goto bad;
    if (json_object_set(o, kind, json_object_get(r, "config")) != 0)
        goto bad;
    const char *keep[] = {"name", "events",     "schedules",  "source",
                          "app",  "created_at", "updated_at", NULL};
    for (size_t i = 0; keep[i]; i++)
        if (json_object_set(o, keep[i], json_object_get(r, keep[i])) != 0)
            goto bad;
    rc = sked__notifier_from_json(o, SKED__NOTIFIER_JSON_STATE, out, err);
    json_decref(o);
    if (rc == 0)
        out->retry_for = json_integer_value(json_object_get(r, "retry_for_us"));
    return rc;
bad:
    json_decref(o);
    return sked__error_set(err, SKED_EIO, "db", -1,
                           "a notifier's row cannot be read");
}

/* Read the rows TEXT into *out of *n. */
static int notifiers_of_text(const char *text, sked_notifier **out, size_t *n,
                             sked_error *err)
{
    json_t *a = NULL, *r;
    sked_notifier *v;
    size_t i;
    json_error_t je;
    int rc = sked__json_load(text, strlen(text), 0, &a, &je);

    if (rc != 0)
        return sked__error_set(err, rc == SKED_ENOMEM ? rc : SKED_EIO, "db", -1,
                               "the database's rows cannot be read");
    v = sked__calloc(json_array_size(a) + 1, sizeof *v);
    if (!v) {
        json_decref(a);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    json_array_foreach(a, i, r)
    {
        if ((rc = notifier_of_row(r, &v[i], err)) != 0) {
            sked__notifiers_free(v, i);
            json_decref(a);
            return rc;
        }
    }
    *n = json_array_size(a);
    *out = v;
    json_decref(a);
    return 0;
}

int sked__notify_read_tx(sked_store *st, sked__tx *tx, const char *name,
                         sked_notifier **out, size_t *n, sked_error *err)
{
    char *text = NULL;
    int rc = st->ops->notifiers_read(tx, name, &text, err);

    if (rc != 0)
        return rc;
    rc = notifiers_of_text(text, out, n, err);
    free(text);
    return rc;
}

/* ---- the outbox ------------------------------------------------------------
 */

/* The payload's "schedule" string into *out (owned; NULL: none), read
 * by a scan, the payload parsed only when the scan cannot tell. */
static int payload_schedule(const char *payload, char **out)
{
    sked_json_found f;
    const char *val;
    size_t len;
    json_t *o, *v;

    *out = NULL;
    if (!payload)
        return 0;
    f = sked__json_member(payload, "schedule", &val, &len);
    if (f == SKED_JSON_ABSENT)
        return 0;
    if (f == SKED_JSON_FOUND && sked__json_plain_string(val, len)) {
        *out = sked__strndup(val + 1, len - 2);
        return *out ? 0 : SKED_ENOMEM;
    }
    /* Escapes, another type, or a text the scan cannot tell. */
    o = json_loads(payload, 0, NULL);
    v = json_object_get(o, "schedule");
    if (json_is_string(v) && !(*out = sked__strdup(json_string_value(v)))) {
        json_decref(o);
        return SKED_ENOMEM;
    }
    json_decref(o);
    return 0;
}

/* The schedule of event E into *out (owned; NULL: none). */
static int event_schedule(sked_store *st, sked__tx *tx, const sked_event *e,
                          char **out, sked_error *err)
{
    sked_run r;
    int rc;

    *out = NULL;
    if (strncmp(e->type, "schedule.", 9) == 0) {
        *out = sked__strdup(e->subject);
        return *out ? 0 : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    if (payload_schedule(e->payload, out) != 0)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (*out || strncmp(e->type, "run.", 4) != 0)
        return 0;
    rc = st->ops->run_get(tx, e->subject, false, &r, err);
    if (rc == SKED_ENOTFOUND)
        return 0;
    if (rc != 0)
        return rc;
    *out = r.schedule;
    r.schedule = NULL;
    sked__run_done(&r);
    return 0;
}

/* Whether any of the N notifiers V wants events of TYPE at all. */
static bool any_wants(const sked_notifier *v, size_t n, const char *type)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < v[i].events.n; k++)
            if (strcmp(v[i].events.v[k], type) == 0)
                return true;
    return false;
}

/* The JSON text of E as sent, its schedule SCHEDULE; NULL: no memory.
 * The payload goes in as it was written (a reading and a writing of it
 * would change how its numbers are spelled). */
static char *event_text(const sked_event *e, const char *schedule)
{
    char at[SKED_TIME_STRLEN] = "";
    const char *payload = e->payload ? e->payload : "null";
    json_t *o;
    char *head, *s = NULL;
    size_t n, len;

    (void) sked_time_format(e->at, at, sizeof at);
    o = json_pack("{s:I,s:s,s:s,s:s?,s:s}", "id", (json_int_t) e->id, "type",
                  e->type, "subject", e->subject, "schedule", schedule, "at",
                  at);
    head = o ? sked__json_text(o, &n) : NULL;
    json_decref(o);
    if (head && n >= 2) {
        len = n - 1 + strlen(",\"payload\":") + strlen(payload) + 2;
        if ((s = sked__malloc(len)) != NULL)
            (void) snprintf(s, len, "%.*s,\"payload\":%s}", (int) (n - 1), head,
                            payload);
    }
    free(head);
    return s;
}

/* The deliveries of one flush, written in one call at its end. */
typedef struct outbox {
    sked__delivery_new *v; /* owned array; its strings in texts */
    char **texts;          /* owned: each event's text and schedule */
    size_t n, cap, ntexts, captexts;
} outbox;

/* Keep S (taken) until the outbox is written; false: no memory. */
static bool keep(outbox *o, char *s)
{
    if (o->ntexts == o->captexts) {
        size_t cap = o->captexts ? 2 * o->captexts : 16;
        char **t = sked__realloc(o->texts, cap * sizeof *t);
        if (!t) {
            free(s);
            return false;
        }
        o->texts = t;
        o->captexts = cap;
    }
    o->texts[o->ntexts++] = s;
    return true;
}

static bool push(outbox *o, const sked__delivery_new *d)
{
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 16;
        sked__delivery_new *v = sked__realloc(o->v, cap * sizeof *v);
        if (!v)
            return false;
        o->v = v;
        o->cap = cap;
    }
    o->v[o->n++] = *d;
    return true;
}

/* Add to O the deliveries of the event E for the N notifiers V. */
static int outbox_event(sked_store *st, sked__tx *tx, const sked_event *e,
                        const sked_notifier *v, size_t n, outbox *o,
                        sked_error *err)
{
    char *schedule = NULL, *text = NULL;
    int rc;

    if (!any_wants(v, n, e->type))
        return 0; /* no schedule to look up */
    if ((rc = event_schedule(st, tx, e, &schedule, err)) != 0)
        return rc;
    if (schedule && !keep(o, schedule))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    for (size_t i = 0; i < n; i++) {
        if (!sked__notifier_wants(&v[i], e->type, schedule))
            continue;
        if (!text && (!(text = event_text(e, schedule)) || !keep(o, text)))
            return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
        sked_dur retry =
            v[i].retry_for > 0 ? v[i].retry_for : SKED_NOTIFY_RETRY_DEFAULT;
        sked__delivery_new d = {.event_id = e->id,
                                .notifier = v[i].name,
                                .okey = schedule ? schedule : e->subject,
                                .event = text,
                                .now = e->at,
                                .deadline_at = e->at + retry};
        if (!push(o, &d))
            return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    return 0;
}

int sked__notify_outbox(sked_store *st, sked__tx *tx, const sked__ev_list *l,
                        sked_error *err)
{
    sked_notifier *v = NULL;
    size_t n = 0, i = 0;
    int rc = 0;

    while (i < l->n && !sked__notify_event_known(l->v[i].type))
        i++;
    if (i == l->n)
        return 0;
    if ((rc = sked__notify_read_tx(st, tx, NULL, &v, &n, err)) != 0)
        return rc;
    outbox o = {0};
    for (; rc == 0 && n > 0 && i < l->n; i++)
        if (sked__notify_event_known(l->v[i].type))
            rc = outbox_event(st, tx, &l->v[i], v, n, &o, err);
    if (rc == 0 && o.n > 0)
        rc = st->ops->deliveries_insert(tx, o.v, o.n, err);
    for (size_t k = 0; k < o.ntexts; k++)
        free(o.texts[k]);
    free(o.texts);
    free(o.v);
    sked__notifiers_free(v, n);
    return rc;
}
