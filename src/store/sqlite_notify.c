/* SPDX-License-Identifier: MIT */
/* Notifiers and their outbox on SQLite (store_ops.h, schemas 0013 and
 * 0014): rows
 * read as one JSON array, as calendars are; a claim leases the due head
 * of each (notifier, okey) in one UPDATE, then reads what it leased by
 * its owner and lease instant (one delivery thread per engine, so the
 * pair is this claim's). The write lock of BEGIN IMMEDIATE makes the
 * claim whole across processes on one file. A delivery names its event
 * (events.id): the claim and the log read the event's row beside it. */
#include "store/sqlite_notify.h"

#include <stdlib.h>

#include "base/error.h"
#include "store/sqlite.h"

#define NOTIFIER_ROWS(where)                                                   \
    "SELECT coalesce(json_group_array(json_object('name', name, 'kind', "      \
    "kind, 'config', json(config), 'events', json(events), 'schedules', "      \
    "json(schedules), 'retry_for_us', retry_for_us, 'source', source, "        \
    "'app', app, 'created_at', created_at, 'updated_at', updated_at)), "       \
    "'[]') FROM (SELECT * FROM notifiers " where " ORDER BY name)"

static const char *const READ_ALL = NOTIFIER_ROWS("");
static const char *const READ_ONE = NOTIFIER_ROWS("WHERE name = ?1");
static const char *const EXISTS = "SELECT 1 FROM notifiers WHERE name = ?1";
static const char *const UPSERT =
    "INSERT INTO notifiers (name, kind, config, events, schedules, "
    "retry_for_us, source, app, created_at, updated_at) VALUES (?1, ?2, ?3, "
    "?4, ?5, ?6, ?7, ?8, ?9, ?9) ON CONFLICT (name) DO UPDATE SET kind = "
    "excluded.kind, config = excluded.config, events = excluded.events, "
    "schedules = excluded.schedules, retry_for_us = excluded.retry_for_us, "
    "source = excluded.source, app = excluded.app, updated_at = "
    "excluded.updated_at";
static const char *const DELETE = "DELETE FROM notifiers WHERE name = ?1";
static const char *const ORPHAN =
    "UPDATE notify_deliveries SET state = 'failed', last_error = 'notifier "
    "deleted', lease_owner = NULL, lease_until = NULL, updated_at = ?2 "
    "WHERE notifier = ?1 AND state = 'pending'";
static const char *const QUEUE =
    "INSERT INTO notify_queue (deliveries) VALUES (?1)";
/* The queue in its order, then emptied: one writer at a time on the
 * file, so what the DELETE removes is what the INSERT read. */
static const char *const EXPAND =
    "INSERT INTO notify_deliveries (event_id, notifier, okey, unscheduled, "
    "next_attempt_at, deadline_at, created_at, updated_at) SELECT "
    "json_extract(d.value, '$[0]'), json_extract(d.value, '$[1]'), "
    "json_extract(d.value, '$[2]'), nullif(json_extract(d.value, '$[3]'), "
    "0), json_extract(d.value, '$[4]'), json_extract(d.value, '$[5]'), "
    "json_extract(d.value, '$[4]'), json_extract(d.value, '$[4]') FROM "
    "notify_queue q, json_each(q.deliveries) d WHERE true ORDER BY q.id, "
    "d.key ON CONFLICT DO NOTHING";
static const char *const EXPANDED = "DELETE FROM notify_queue";
/* The event's row of a delivery D, as store_ops.h deliveries_claim
 * names its members (e: the events row, NULL when D holds a copy). */
#define EV_MEMBERS                                                             \
    "'ev_schedule', CASE WHEN unscheduled THEN NULL ELSE okey END, "           \
    "'ev_type', ev_type, 'ev_subject', ev_subject, 'ev_at', ev_at, "           \
    "'ev_payload', json(ev_payload)"
#define EV_JOIN                                                                \
    "SELECT d.*, e.type AS ev_type, e.subject AS ev_subject, e.at AS ev_at, "  \
    "e.payload AS ev_payload FROM notify_deliveries d LEFT JOIN events e ON "  \
    "d.event IS NULL AND e.id = d.event_id "
static const char *const CLAIM =
    "UPDATE notify_deliveries SET lease_owner = ?1, lease_until = ?2, "
    "attempts = attempts + 1, updated_at = ?3 WHERE id IN (SELECT d.id FROM "
    "notify_deliveries d WHERE d.state = 'pending' AND d.next_attempt_at <= "
    "?3 AND (d.lease_until IS NULL OR d.lease_until < ?3) AND NOT EXISTS "
    "(SELECT 1 FROM notify_deliveries p WHERE p.notifier = d.notifier AND "
    "p.okey = d.okey AND p.state = 'pending' AND p.event_id < d.event_id) "
    "ORDER BY d.next_attempt_at, d.id LIMIT ?4)";
static const char *const CLAIMED =
    "SELECT coalesce(json_group_array(json_object('id', id, 'event_id', "
    "event_id, 'notifier', notifier, 'event', json(event), 'attempts', "
    "attempts, 'deadline_at', deadline_at, 'created_at', "
    "created_at, " EV_MEMBERS ")), '[]') FROM (" EV_JOIN
    "WHERE d.lease_owner = ?1 AND "
    "d.lease_until = ?2 AND d.state = 'pending' ORDER BY d.id)";
static const char *const FINISH =
    "UPDATE notify_deliveries SET state = ?3, next_attempt_at = ?4, "
    "last_error = ?5, last_status = ?6, updated_at = ?7, delivered_at = CASE "
    "WHEN ?3 = 'delivered' THEN ?7 END, lease_owner = NULL, lease_until = "
    "NULL WHERE id = ?1 AND lease_owner = ?2 AND state = 'pending'";
#define LOG_SQL(where)                                                         \
    "SELECT coalesce(json_group_array(json_object('id', id, 'event_id', "      \
    "event_id, 'notifier', notifier, 'okey', okey, 'state', state, "           \
    "'attempts', attempts, 'next_attempt_at', next_attempt_at, "               \
    "'deadline_at', deadline_at, 'lease_owner', lease_owner, 'lease_until', "  \
    "lease_until, 'last_error', last_error, 'last_status', last_status, "      \
    "'created_at', created_at, 'updated_at', updated_at, 'delivered_at', "     \
    "delivered_at, 'event', json(event), " EV_MEMBERS                          \
    ")), '[]') FROM (" EV_JOIN "WHERE (?1 = 0 OR d.id < ?1) " where            \
    " ORDER BY d.id DESC LIMIT ?2)"
static const char *const LOG_ALL = LOG_SQL("");
static const char *const LOG_ONE = LOG_SQL("AND d.notifier = ?3");
static const char *const PRUNE =
    "DELETE FROM notify_deliveries WHERE state <> 'pending' AND updated_at "
    "< ?1";
static const char *const DUE =
    "SELECT EXISTS (SELECT 1 FROM notify_deliveries WHERE state = 'pending' "
    "AND next_attempt_at <= ?1 AND (lease_until IS NULL OR lease_until < "
    "?1)) OR EXISTS (SELECT 1 FROM notify_queue)";

/* Step S (bound) for its one row of one text column into *out. */
static int one_text(sked__tx *c, sqlite3_stmt *s, const char *what, char **out,
                    sked_error *err)
{
    char *v = NULL;
    int rc = 0, step = sqlite3_step(s);

    if (step == SQLITE_ROW && !col_text(s, 0, &v))
        rc = sked__nomem(err);
    else if (step != SQLITE_ROW)
        rc = sked__sqlite_fail(c, step, what, err);
    sked__sqlite_done(s);
    if (rc == 0)
        *out = v;
    return rc;
}

int sked__sqlite_notifiers_read(sked__tx *c, const char *name, char **out,
                                sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sked__sqlite_stmt(c, name ? READ_ONE : READ_ALL, &s, err);

    if (rc != 0)
        return rc;
    if (name)
        bind_text(s, 1, name);
    return one_text(c, s, "reading notifiers", out, err);
}

int sked__sqlite_notifier_write(sked__tx *c, const sked__notifier_row *r,
                                bool *created, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sked__sqlite_stmt(c, EXISTS, &s, err), step;

    if (rc != 0)
        return rc;
    bind_text(s, 1, r->name);
    step = sqlite3_step(s);
    sked__sqlite_done(s);
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        return sked__sqlite_fail(c, step, "reading a notifier", err);
    *created = step == SQLITE_DONE;
    if ((rc = sked__sqlite_stmt(c, UPSERT, &s, err)) != 0)
        return rc;
    return sked__sqlite_exec(
        c, s,
        bind_text(s, 1, r->name) | bind_text(s, 2, r->kind) |
            bind_text(s, 3, r->config) | bind_text(s, 4, r->events) |
            bind_text(s, 5, r->schedules) |
            sqlite3_bind_int64(s, 6, r->retry_for) |
            bind_text(s, 7, r->source) | bind_text(s, 8, r->app) |
            sqlite3_bind_int64(s, 9, r->now),
        "writing a notifier", err);
}

int sked__sqlite_notifier_delete(sked__tx *c, const char *name, sked_time now,
                                 bool *existed, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sked__sqlite_stmt(c, DELETE, &s, err);

    if (rc != 0)
        return rc;
    rc = sked__sqlite_exec(c, s, bind_text(s, 1, name), "deleting a notifier",
                           err);
    if (rc != 0)
        return rc;
    *existed = sqlite3_changes(sked__sqlite_db(c)) > 0;
    /* Its queued deliveries fail with the others. */
    if ((rc = sked__sqlite_deliveries_expand(c, err)) != 0)
        return rc;
    if ((rc = sked__sqlite_stmt(c, ORPHAN, &s, err)) != 0)
        return rc;
    return sked__sqlite_exec(
        c, s, bind_text(s, 1, name) | sqlite3_bind_int64(s, 2, now),
        "failing a deleted notifier's deliveries", err);
}

int sked__sqlite_deliveries_queue(sked__tx *c, const char *text,
                                  sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sked__sqlite_stmt(c, QUEUE, &s, err);

    if (rc != 0)
        return rc;
    return sked__sqlite_exec(c, s, bind_text(s, 1, text),
                             "queueing notifications", err);
}

int sked__sqlite_deliveries_expand(sked__tx *c, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sked__sqlite_stmt(c, EXPAND, &s, err);

    if (rc != 0)
        return rc;
    rc = sked__sqlite_exec(c, s, SQLITE_OK,
                           "writing queued notifications to the outbox", err);
    if (rc != 0)
        return rc;
    if ((rc = sked__sqlite_stmt(c, EXPANDED, &s, err)) != 0)
        return rc;
    return sked__sqlite_exec(c, s, SQLITE_OK, "emptying the notify queue", err);
}

int sked__sqlite_deliveries_claim(sked__tx *c, const sked__delivery_claim *q,
                                  char **out, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sked__sqlite_stmt(c, CLAIM, &s, err);

    if (rc != 0)
        return rc;
    rc = sked__sqlite_exec(c, s,
                           bind_text(s, 1, q->owner) |
                               sqlite3_bind_int64(s, 2, q->lease_until) |
                               sqlite3_bind_int64(s, 3, q->now) |
                               sqlite3_bind_int64(s, 4, (int64_t) q->limit),
                           "claiming notifications", err);
    if (rc != 0)
        return rc;
    if ((rc = sked__sqlite_stmt(c, CLAIMED, &s, err)) != 0)
        return rc;
    bind_text(s, 1, q->owner);
    sqlite3_bind_int64(s, 2, q->lease_until);
    return one_text(c, s, "reading claimed notifications", out, err);
}

int sked__sqlite_delivery_finish(sked__tx *c, const sked__delivery_end *e,
                                 bool *applied, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sked__sqlite_stmt(c, FINISH, &s, err);

    if (rc != 0)
        return rc;
    rc = sked__sqlite_exec(
        c, s,
        sqlite3_bind_int64(s, 1, e->id) | bind_text(s, 2, e->owner) |
            bind_text(s, 3, e->state) | sqlite3_bind_int64(s, 4, e->next_at) |
            bind_text(s, 5, e->error) |
            (e->status >= 0 ? sqlite3_bind_int(s, 6, e->status)
                            : sqlite3_bind_null(s, 6)) |
            sqlite3_bind_int64(s, 7, e->now),
        "recording a notification attempt", err);
    if (rc == 0)
        *applied = sqlite3_changes(sked__sqlite_db(c)) > 0;
    return rc;
}

int sked__sqlite_deliveries_list(sked__tx *c, const char *notifier,
                                 int64_t before_id, size_t limit, char **out,
                                 sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sked__sqlite_stmt(c, notifier ? LOG_ONE : LOG_ALL, &s, err);

    if (rc != 0)
        return rc;
    sqlite3_bind_int64(s, 1, before_id);
    sqlite3_bind_int64(s, 2, (int64_t) limit);
    if (notifier)
        bind_text(s, 3, notifier);
    return one_text(c, s, "reading the notification log", out, err);
}

int sked__sqlite_deliveries_due(sked__tx *c, sked_time now, int64_t *out,
                                sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sked__sqlite_stmt(c, DUE, &s, err), step;

    if (rc != 0)
        return rc;
    sqlite3_bind_int64(s, 1, now);
    step = sqlite3_step(s);
    if (step == SQLITE_ROW)
        *out = sqlite3_column_int64(s, 0);
    else
        rc = sked__sqlite_fail(c, step, "looking for due notifications", err);
    sked__sqlite_done(s);
    return rc;
}

int sked__sqlite_deliveries_prune(sked__tx *c, sked_time before,
                                  sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sked__sqlite_stmt(c, PRUNE, &s, err);

    if (rc != 0)
        return rc;
    return sked__sqlite_exec(c, s, sqlite3_bind_int64(s, 1, before),
                             "pruning the notify log", err);
}
