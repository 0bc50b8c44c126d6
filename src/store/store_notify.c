/* SPDX-License-Identifier: MIT */
/* Notifiers and their outbox (store_notify.h, schemas 0013 and 0014).
 *
 * The outbox is written by sked__notify_outbox, which sked__ev_flush
 * calls in the transaction of the events it writes: for each event of a
 * notifiable type, one delivery per notifier that wants it, all of the
 * transaction's deliveries queued as one row (notify_queue). So a crash
 * either loses the event and its deliveries together or keeps both. The
 * queued rows become one row of notify_deliveries each in the
 * transaction that next claims deliveries, lists them or prunes them
 * (deliveries_expand, oldest queue row first): the events' transaction
 * pays one row, not one per delivery and its index entries. The
 * notifiers are read only when a transaction writes a notifiable event
 * (a failure, a missed occurrence): the runs that complete pay nothing.
 *
 * A delivery names its event by id and does not copy it (schema 0014):
 * the event as sent, {"id", "type", "subject", "schedule", "at",
 * "payload"}, is built from the event's row when the delivery is
 * claimed or listed (sked__notify_row_event), the same bytes at every
 * attempt; the events' pruning keeps the rows a delivery names. Its
 * schedule is the subject of a schedule's event, else the payload's
 * "schedule", else the schedule of the run the event is about;
 * deliveries of one (notifier, schedule) go out in event order (an
 * event with no schedule orders by its subject, and is sent with
 * "schedule": null). */
#include "store/store_notify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/json_io.h"
#include "base/json_obj.h"
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

/* Append to B the delivery D as one element of the queued array:
 * [event_id, notifier, okey, unscheduled (0 or 1), created_at,
 * deadline_at] (store_ops.h deliveries_queue). */
static void queue_one(sked_buf *b, const sked__delivery_new *d)
{
    char num[SKED_I64_TEXT];

    (void) sked__buf_puts(b, b->len > 1 ? ",[" : "[");
    (void) sked__buf_add(b, num, sked__i64_text(d->event_id, num));
    (void) sked__buf_puts(b, ",");
    sked__json_put_string(b, d->notifier, strlen(d->notifier));
    (void) sked__buf_puts(b, ",");
    sked__json_put_string(b, d->okey, strlen(d->okey));
    (void) sked__buf_puts(b, d->unscheduled ? ",1," : ",0,");
    (void) sked__buf_add(b, num, sked__i64_text(d->now, num));
    (void) sked__buf_puts(b, ",");
    (void) sked__buf_add(b, num, sked__i64_text(d->deadline_at, num));
    (void) sked__buf_puts(b, "]");
}

/* Add to B the deliveries of the event E for the N notifiers V; *count
 * grows by their count. */
static int outbox_event(sked_store *st, sked__tx *tx, const sked_event *e,
                        const sked_notifier *v, size_t n, sked_buf *b,
                        size_t *count, sked_error *err)
{
    char *schedule = NULL;
    int rc;

    if (!any_wants(v, n, e->type))
        return 0; /* no schedule to look up */
    if ((rc = event_schedule(st, tx, e, &schedule, err)) != 0)
        return rc;
    for (size_t i = 0; i < n; i++) {
        if (!sked__notifier_wants(&v[i], e->type, schedule))
            continue;
        sked_dur retry =
            v[i].retry_for > 0 ? v[i].retry_for : SKED_NOTIFY_RETRY_DEFAULT;
        sked__delivery_new d = {.event_id = e->id,
                                .notifier = v[i].name,
                                .okey = schedule ? schedule : e->subject,
                                .unscheduled = !schedule,
                                .now = e->at,
                                .deadline_at = e->at + retry};
        queue_one(b, &d);
        (*count)++;
    }
    free(schedule);
    return 0;
}

int sked__notify_outbox(sked_store *st, sked__tx *tx, const sked__ev_list *l,
                        sked_error *err)
{
    sked_notifier *v = NULL;
    sked_buf b = {0};
    size_t n = 0, i = 0, count = 0;
    int rc = 0;

    while (i < l->n && !sked__notify_event_known(l->v[i].type))
        i++;
    if (i == l->n)
        return 0;
    if ((rc = sked__notify_read_tx(st, tx, NULL, &v, &n, err)) != 0)
        return rc;
    (void) sked__buf_puts(&b, "[");
    for (; rc == 0 && n > 0 && i < l->n; i++)
        if (sked__notify_event_known(l->v[i].type))
            rc = outbox_event(st, tx, &l->v[i], v, n, &b, &count, err);
    (void) sked__buf_puts(&b, "]");
    char *text = sked__buf_take(&b, NULL);
    if (rc == 0 && !text)
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    /* The flush's deliveries as one row: the delivery thread makes each
     * its row (deliveries_expand), outside the events' transaction. */
    if (rc == 0 && count > 0)
        rc = st->ops->deliveries_queue(tx, text, err);
    free(text);
    sked__notifiers_free(v, n);
    return rc;
}

/* ---- the event as sent ------------------------------------------------- */

/* The keys the claim and the log read of a delivery's event row, taken
 * out of the row once its "event" is built. */
static const char *const EV_KEYS[] = {"ev_schedule", "ev_type",    "ev_subject",
                                      "ev_at",       "ev_payload", NULL};

/* R's member KEY, or null. */
static json_t *member(json_t *r, const char *key)
{
    json_t *v = json_object_get(r, key);

    return v ? v : json_null();
}

int sked__notify_row_event(json_t *r)
{
    json_t *ev = json_object_get(r, "event"), *o;
    char at[SKED_TIME_STRLEN] = "";
    json_t *t = json_object_get(r, "ev_at");

    if (!json_is_object(ev)) {
        /* Written since 0014: the event's row. Gone (it cannot be while
         * its delivery is kept), the event keeps its id alone. */
        if (json_is_integer(t))
            (void) sked_time_format(json_integer_value(t), at, sizeof at);
        o = json_pack("{s:I,s:O,s:O,s:O,s:s?,s:O}", "id",
                      json_integer_value(json_object_get(r, "event_id")),
                      "type", member(r, "ev_type"), "subject",
                      member(r, "ev_subject"), "schedule",
                      member(r, "ev_schedule"), "at", at[0] ? at : NULL,
                      "payload", member(r, "ev_payload"));
        if (!o || json_object_set_new(r, "event", o) != 0)
            return SKED_ENOMEM;
    }
    for (size_t i = 0; EV_KEYS[i]; i++)
        (void) json_object_del(r, EV_KEYS[i]);
    return 0;
}
