/* SPDX-License-Identifier: MIT */
/* Calendars on PostgreSQL (store_ops.h, schema 0009): rows read as one
 * JSON array, as workflow versions are, written and deleted by name. */
#include "store/pg_calendar.h"

#include <stdlib.h>

#include "base/alloc.h"
#include "base/error.h"
#include "store/pg.h"

#define ROWS_SQL(where)                                                        \
    "SELECT coalesce(json_agg(json_build_object('name', name, "                \
    "'definition', definition::json, 'source', source, 'app', app, "           \
    "'created_at', created_at, 'updated_at', updated_at) ORDER BY name), "     \
    "'[]')::text FROM calendars " where

static const sked__pg_stmt READ_ALL = {SKED__PG_CAL_READ_ALL, 0, ROWS_SQL("")};
static const sked__pg_stmt READ_ONE = {SKED__PG_CAL_READ_ONE, 1,
                                       ROWS_SQL("WHERE name = $1")};
static const sked__pg_stmt INSERT = {
    SKED__PG_CAL_INSERT, 5,
    "INSERT INTO calendars (name, definition, source, app, created_at, "
    "updated_at) VALUES ($1, $2, $3, $4, $5::bigint, $5::bigint)"};
static const sked__pg_stmt UPDATE = {
    SKED__PG_CAL_UPDATE, 5,
    "UPDATE calendars SET definition = $2, source = $3, app = $4, "
    "updated_at = $5::bigint WHERE name = $1"};
static const sked__pg_stmt DELETE = {SKED__PG_CAL_DELETE, 1,
                                     "DELETE FROM calendars WHERE name = $1"};
/* Every write and delete counts itself in meta, so that a reader knows
 * the calendars changed whatever the servers' clocks said. */
static const sked__pg_stmt BUMP = {
    SKED__PG_CAL_BUMP, 0,
    "INSERT INTO meta (key, value) VALUES ('calendar_changes', '1') "
    "ON CONFLICT (key) DO UPDATE SET value = (meta.value::bigint + 1)::text"};
static const sked__pg_stmt STAMP = {
    SKED__PG_CAL_STAMP, 0,
    "SELECT coalesce((SELECT value::bigint FROM meta WHERE key = "
    "'calendar_changes'), 0), (SELECT count(*) FROM calendars)"};
/* Lists are names joined by ",": a name is in one when ",name," is in
 * ",list,". */
static const sked__pg_stmt USERS = {
    SKED__PG_CAL_USERS, 1,
    "SELECT string_agg(name, E'\\n' ORDER BY name) FROM schedules WHERE "
    "strpos(',' || coalesce(exclude_cals, '') || ',' || "
    "coalesce(only_cals, '') || ',', ',' || $1 || ',') > 0"};

int sked__pg_calendars_read(sked__tx *tx, const char *name, char **out,
                            sked_error *err)
{
    const char *params[1] = {name};
    PGresult *res = NULL;
    char *v = NULL;
    int rc = sked__pg_exec(tx, name ? &READ_ONE : &READ_ALL, params, &res, err);

    if (rc != 0)
        return rc;
    if (PQntuples(res) != 1 || !(v = sked__strdup(PQgetvalue(res, 0, 0))))
        rc = sked__nomem(err);
    PQclear(res);
    if (rc == 0)
        *out = v;
    return rc;
}

int sked__pg_calendar_write(sked__tx *tx, const sked__calendar_row *r,
                            bool create, sked_error *err)
{
    char nowbuf[SKED__PG_NUMLEN];
    const char *params[5] = {r->name, r->definition, r->source, r->app,
                             sked__pg_num(r->now, nowbuf)};

    int rc = sked__pg_exec(tx, create ? &INSERT : &UPDATE, params, NULL, err);

    return rc == 0 ? sked__pg_exec(tx, &BUMP, NULL, NULL, err) : rc;
}

int sked__pg_calendar_delete(sked__tx *tx, const char *name, bool *existed,
                             sked_error *err)
{
    const char *params[1] = {name};
    PGresult *res = NULL;
    int rc = sked__pg_exec(tx, &DELETE, params, &res, err);

    if (rc != 0)
        return rc;
    if (existed)
        *existed = strtoll(PQcmdTuples(res), NULL, 10) > 0;
    PQclear(res);
    return sked__pg_exec(tx, &BUMP, NULL, NULL, err);
}

int sked__pg_calendars_stamp(sked__tx *tx, int64_t out[2], sked_error *err)
{
    PGresult *res = NULL;
    int rc = sked__pg_exec(tx, &STAMP, NULL, &res, err);

    if (rc != 0)
        return rc;
    if (PQntuples(res) != 1) {
        PQclear(res);
        return sked__error_set(err, SKED_EIO, NULL, -1,
                               "reading the calendars' state: no row");
    }
    out[0] = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
    out[1] = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
    PQclear(res);
    return 0;
}

int sked__pg_calendar_users(sked__tx *tx, const char *name, char **out,
                            sked_error *err)
{
    const char *params[1] = {name};
    PGresult *res = NULL;
    int rc = sked__pg_exec(tx, &USERS, params, &res, err);

    *out = NULL;
    if (rc != 0)
        return rc;
    if (PQntuples(res) > 0 && !PQgetisnull(res, 0, 0) &&
        !(*out = sked__strdup(PQgetvalue(res, 0, 0))))
        rc = sked__nomem(err);
    PQclear(res);
    return rc;
}
