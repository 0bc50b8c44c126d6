/* SPDX-License-Identifier: MIT */
/* Notifiers and their outbox on PostgreSQL (store_ops.h, schemas 0013
 * and 0014):
 * rows read as one JSON array, as calendars are. A claim locks the due
 * heads FOR UPDATE SKIP LOCKED and leases them in one statement, so two
 * servers never lease one delivery, and a lease run out is taken over
 * by whoever claims next. The head test (no earlier pending delivery of
 * the same notifier and order key) keeps each key's deliveries in event
 * order across servers: the next one is not due while the head is
 * leased. A delivery names its event: the claim and the log read it
 * from its page of event_pages (the page of the greatest id at most the
 * event's, which holds ids from its id on). */
#include "store/pg_notify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "store/pg.h"

#define NOTIFIER_ROWS(where)                                                   \
    "SELECT coalesce(json_agg(json_build_object('name', name, 'kind', kind, "  \
    "'config', config::json, 'events', events::json, 'schedules', "            \
    "schedules::json, 'retry_for_us', retry_for_us, 'source', source, "        \
    "'app', app, 'created_at', created_at, 'updated_at', updated_at) ORDER "   \
    "BY name), '[]')::text FROM notifiers " where

static const sked__pg_stmt READ_ALL = {SKED__PG_NOTIFIERS_READ_ALL, 0,
                                       NOTIFIER_ROWS("")};
static const sked__pg_stmt READ_ONE = {SKED__PG_NOTIFIERS_READ_ONE, 1,
                                       NOTIFIER_ROWS("WHERE name = $1")};
static const sked__pg_stmt EXISTS = {
    SKED__PG_NOTIFIER_EXISTS, 1,
    "SELECT 1 FROM notifiers WHERE name = $1 FOR UPDATE"};
static const sked__pg_stmt UPSERT = {
    SKED__PG_NOTIFIER_UPSERT, 9,
    "INSERT INTO notifiers (name, kind, config, events, schedules, "
    "retry_for_us, source, app, created_at, updated_at) VALUES ($1, $2, $3, "
    "$4, $5, $6::bigint, $7, $8, $9::bigint, $9::bigint) ON CONFLICT (name) "
    "DO UPDATE SET kind = excluded.kind, config = excluded.config, events = "
    "excluded.events, schedules = excluded.schedules, retry_for_us = "
    "excluded.retry_for_us, source = excluded.source, app = excluded.app, "
    "updated_at = excluded.updated_at"};
static const sked__pg_stmt DELETE = {SKED__PG_NOTIFIER_DELETE, 1,
                                     "DELETE FROM notifiers WHERE name = $1"};
static const sked__pg_stmt ORPHAN = {
    SKED__PG_NOTIFIER_ORPHAN, 2,
    "UPDATE notify_deliveries SET state = 'failed', last_error = 'notifier "
    "deleted', lease_owner = NULL, lease_until = NULL, updated_at = "
    "$2::bigint WHERE notifier = $1 AND state = 'pending'"};
static const sked__pg_stmt QUEUE = {
    SKED__PG_DELIVERY_QUEUE, 1,
    "INSERT INTO notify_queue (deliveries) VALUES ($1)"};
/* The queue rows deleted (a row another server is expanding is waited
 * for, then skipped as gone: its deliveries become rows before these)
 * and their deliveries inserted, in order, in one statement. */
static const sked__pg_stmt EXPAND = {
    SKED__PG_DELIVERY_EXPAND, 0,
    "WITH q AS (DELETE FROM notify_queue RETURNING id, deliveries) INSERT "
    "INTO notify_deliveries (event_id, notifier, okey, unscheduled, "
    "next_attempt_at, deadline_at, created_at, updated_at) SELECT (d.v "
    "->> 0)::bigint, d.v ->> 1, d.v ->> 2, CASE WHEN d.v ->> 3 = '1' THEN "
    "true END, (d.v ->> 4)::bigint, (d.v ->> 5)::bigint, (d.v ->> "
    "4)::bigint, (d.v ->> 4)::bigint FROM q CROSS JOIN LATERAL "
    "json_array_elements(q.deliveries::json) WITH ORDINALITY AS d(v, k) "
    "ORDER BY q.id, d.k ON CONFLICT DO NOTHING"};
/* The event's row of the delivery D (store_ops.h deliveries_claim), and
 * the lateral join that reads it from its page (none when D holds a
 * copy, written before 0014). */
#define EV_MEMBERS(d)                                                          \
    "'ev_schedule', CASE WHEN " d ".unscheduled THEN NULL ELSE " d             \
    ".okey END, 'ev_type', ev.type, 'ev_subject', ev.subject, 'ev_at', "       \
    "ev.at, 'ev_payload', ev.payload::json"
#define EV_JOIN(d)                                                             \
    " LEFT JOIN LATERAL (SELECT p.types[" d ".event_id - p.id + 1] AS type, "  \
    "p.subjects[" d ".event_id - p.id + 1] AS subject, p.payloads[" d          \
    ".event_id - p.id + 1] AS payload, p.ats[" d ".event_id - p.id + 1] AS "   \
    "at FROM event_pages p WHERE " d ".event IS NULL AND p.id <= " d           \
    ".event_id ORDER BY p.id DESC LIMIT 1) ev ON true"
static const sked__pg_stmt CLAIM = {
    SKED__PG_DELIVERY_CLAIM, 4,
    "WITH c AS (SELECT d.id FROM notify_deliveries d WHERE d.state = "
    "'pending' AND d.next_attempt_at <= $3::bigint AND (d.lease_until IS "
    "NULL OR d.lease_until < $3::bigint) AND NOT EXISTS (SELECT 1 FROM "
    "notify_deliveries p WHERE p.notifier = d.notifier AND p.okey = d.okey "
    "AND p.state = 'pending' AND p.event_id < d.event_id) ORDER BY "
    "d.next_attempt_at, d.id LIMIT $4::bigint FOR UPDATE SKIP LOCKED), u AS "
    "(UPDATE notify_deliveries n SET lease_owner = $1, lease_until = "
    "$2::bigint, attempts = n.attempts + 1, updated_at = $3::bigint FROM c "
    "WHERE n.id = c.id RETURNING n.*) SELECT "
    "coalesce(json_agg(json_build_object('id', u.id, 'event_id', "
    "u.event_id, 'notifier', u.notifier, 'event', u.event::json, "
    "'attempts', u.attempts, 'deadline_at', u.deadline_at, 'created_at', "
    "u.created_at, " EV_MEMBERS(
        "u") ") ORDER BY u.id), '[]')::text FROM u" EV_JOIN("u")};
static const sked__pg_stmt FINISH = {
    SKED__PG_DELIVERY_FINISH, 7,
    "UPDATE notify_deliveries SET state = $3, next_attempt_at = $4::bigint, "
    "last_error = $5, last_status = $6::integer, updated_at = $7::bigint, "
    "delivered_at = CASE WHEN $3 = 'delivered' THEN $7::bigint END, "
    "lease_owner = NULL, lease_until = NULL WHERE id = $1::bigint AND "
    "lease_owner = $2 AND state = 'pending'"};
#define LOG_SQL(where)                                                         \
    "SELECT coalesce(json_agg(json_build_object('id', id, 'event_id', "        \
    "event_id, 'notifier', notifier, 'okey', okey, 'state', state, "           \
    "'attempts', attempts, 'next_attempt_at', next_attempt_at, "               \
    "'deadline_at', deadline_at, 'lease_owner', lease_owner, 'lease_until', "  \
    "lease_until, 'last_error', last_error, 'last_status', last_status, "      \
    "'created_at', created_at, 'updated_at', updated_at, 'delivered_at', "     \
    "delivered_at, 'event', event::json, " EV_MEMBERS(                         \
        "l") ") ORDER BY id "                                                  \
             "DESC), '[]')::text FROM (SELECT * FROM notify_deliveries WHERE " \
             "($1::bigint = 0 OR id < $1::bigint) " where                      \
             " ORDER BY id DESC LIMIT "                                        \
             "$2::bigint) l" EV_JOIN("l")
static const sked__pg_stmt LOG_ALL = {SKED__PG_DELIVERY_LOG_ALL, 2,
                                      LOG_SQL("")};
static const sked__pg_stmt LOG_ONE = {SKED__PG_DELIVERY_LOG_ONE, 3,
                                      LOG_SQL("AND notifier = $3")};
static const sked__pg_stmt PRUNE = {
    SKED__PG_DELIVERY_PRUNE, 1,
    "DELETE FROM notify_deliveries WHERE state <> 'pending' AND updated_at "
    "< $1::bigint"};
static const sked__pg_stmt DUE = {
    SKED__PG_DELIVERY_DUE, 1,
    "SELECT (EXISTS (SELECT 1 FROM notify_deliveries WHERE state = "
    "'pending' AND next_attempt_at <= $1::bigint AND (lease_until IS NULL "
    "OR lease_until < $1::bigint)) OR EXISTS (SELECT 1 FROM "
    "notify_queue))::int"};

/* Run STMT with PARAMS for its one text value into *out. */
static int one_text(sked__tx *tx, const sked__pg_stmt *stmt,
                    const char *const *params, char **out, sked_error *err)
{
    PGresult *res = NULL;
    char *v = NULL;
    int rc = sked__pg_exec(tx, stmt, params, &res, err);

    if (rc != 0)
        return rc;
    if (PQntuples(res) != 1 || !(v = sked__strdup(PQgetvalue(res, 0, 0))))
        rc = sked__nomem(err);
    PQclear(res);
    if (rc == 0)
        *out = v;
    return rc;
}

/* The count of rows a command of RES changed. */
static bool changed(PGresult *res)
{
    return strtoll(PQcmdTuples(res), NULL, 10) > 0;
}

int sked__pg_notifiers_read(sked__tx *tx, const char *name, char **out,
                            sked_error *err)
{
    const char *params[1] = {name};

    return one_text(tx, name ? &READ_ONE : &READ_ALL, params, out, err);
}

int sked__pg_notifier_write(sked__tx *tx, const sked__notifier_row *r,
                            bool *created, sked_error *err)
{
    char retry[SKED__PG_NUMLEN], now[SKED__PG_NUMLEN];
    const char *one[1] = {r->name};
    const char *params[9] = {
        r->name,   r->kind,      r->config,
        r->events, r->schedules, sked__pg_num(r->retry_for, retry),
        r->source, r->app,       sked__pg_num(r->now, now)};
    PGresult *res = NULL;
    int rc = sked__pg_exec(tx, &EXISTS, one, &res, err);

    if (rc != 0)
        return rc;
    *created = PQntuples(res) == 0;
    PQclear(res);
    return sked__pg_exec(tx, &UPSERT, params, NULL, err);
}

int sked__pg_notifier_delete(sked__tx *tx, const char *name, sked_time now,
                             bool *existed, sked_error *err)
{
    char at[SKED__PG_NUMLEN];
    const char *params[2] = {name, sked__pg_num(now, at)};
    PGresult *res = NULL;
    int rc = sked__pg_exec(tx, &DELETE, params, &res, err);

    if (rc != 0)
        return rc;
    *existed = changed(res);
    PQclear(res);
    /* Its queued deliveries fail with the others. */
    if ((rc = sked__pg_deliveries_expand(tx, err)) != 0)
        return rc;
    return sked__pg_exec(tx, &ORPHAN, params, NULL, err);
}

int sked__pg_deliveries_queue(sked__tx *tx, const char *text, sked_error *err)
{
    const char *params[1] = {text};

    return sked__pg_exec(tx, &QUEUE, params, NULL, err);
}

int sked__pg_deliveries_expand(sked__tx *tx, sked_error *err)
{
    return sked__pg_exec(tx, &EXPAND, NULL, NULL, err);
}

int sked__pg_deliveries_claim(sked__tx *tx, const sked__delivery_claim *q,
                              char **out, sked_error *err)
{
    char until[SKED__PG_NUMLEN], now[SKED__PG_NUMLEN], lim[SKED__PG_NUMLEN];
    const char *params[4] = {q->owner, sked__pg_num(q->lease_until, until),
                             sked__pg_num(q->now, now),
                             sked__pg_num((int64_t) q->limit, lim)};

    return one_text(tx, &CLAIM, params, out, err);
}

int sked__pg_delivery_finish(sked__tx *tx, const sked__delivery_end *e,
                             bool *applied, sked_error *err)
{
    char id[SKED__PG_NUMLEN], next[SKED__PG_NUMLEN], now[SKED__PG_NUMLEN];
    char status[16];
    const char *params[7] = {sked__pg_num(e->id, id),        e->owner, e->state,
                             sked__pg_num(e->next_at, next), e->error, NULL,
                             sked__pg_num(e->now, now)};
    PGresult *res = NULL;
    int rc;

    if (e->status >= 0) {
        (void) snprintf(status, sizeof status, "%d", e->status);
        params[5] = status;
    }
    if ((rc = sked__pg_exec(tx, &FINISH, params, &res, err)) != 0)
        return rc;
    *applied = changed(res);
    PQclear(res);
    return 0;
}

int sked__pg_deliveries_list(sked__tx *tx, const char *notifier,
                             int64_t before_id, size_t limit, char **out,
                             sked_error *err)
{
    char before[SKED__PG_NUMLEN], lim[SKED__PG_NUMLEN];
    const char *params[3] = {sked__pg_num(before_id, before),
                             sked__pg_num((int64_t) limit, lim), notifier};

    return one_text(tx, notifier ? &LOG_ONE : &LOG_ALL, params, out, err);
}

int sked__pg_deliveries_due(sked__tx *tx, sked_time now, int64_t *out,
                            sked_error *err)
{
    char at[SKED__PG_NUMLEN];
    const char *params[1] = {sked__pg_num(now, at)};
    PGresult *res = NULL;
    int rc = sked__pg_exec(tx, &DUE, params, &res, err);

    if (rc != 0)
        return rc;
    *out = PQntuples(res) == 1 ? strtoll(PQgetvalue(res, 0, 0), NULL, 10) : 0;
    PQclear(res);
    return 0;
}

int sked__pg_deliveries_prune(sked__tx *tx, sked_time before, sked_error *err)
{
    char at[SKED__PG_NUMLEN];
    const char *params[1] = {sked__pg_num(before, at)};

    return sked__pg_exec(tx, &PRUNE, params, NULL, err);
}
