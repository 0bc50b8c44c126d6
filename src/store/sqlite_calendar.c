/* SPDX-License-Identifier: MIT */
/* Calendars on SQLite (store_ops.h, schema 0009): rows read as one JSON
 * array, as workflow versions are, written and deleted by name. */
#include "store/sqlite_calendar.h"

#include <stdlib.h>

#include "base/error.h"
#include "store/sqlite.h"

#define ROWS_SQL(where)                                                        \
    "SELECT coalesce(json_group_array(json_object('name', name, "              \
    "'definition', json(definition), 'source', source, 'app', app, "           \
    "'created_at', created_at, 'updated_at', updated_at)), '[]') "             \
    "FROM (SELECT * FROM calendars " where " ORDER BY name)"

static const char *const READ_ALL = ROWS_SQL("");
static const char *const READ_ONE = ROWS_SQL("WHERE name = ?1");
static const char *const INSERT =
    "INSERT INTO calendars (name, definition, source, app, created_at, "
    "updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5)";
static const char *const UPDATE =
    "UPDATE calendars SET definition = ?2, source = ?3, app = ?4, "
    "updated_at = ?5 WHERE name = ?1";
static const char *const DELETE = "DELETE FROM calendars WHERE name = ?1";
/* Every write and delete counts itself in meta, so that a reader knows
 * the calendars changed whatever their clocks said (stamp_read). */
static const char *const BUMP =
    "INSERT INTO meta (key, value) VALUES ('calendar_changes', '1') "
    "ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 "
    "AS TEXT)";
static const char *const STAMP =
    "SELECT coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = "
    "'calendar_changes'), 0), (SELECT count(*) FROM calendars)";
/* Lists are names joined by ",": a name is in one when ",name," is in
 * ",list,". */
static const char *const USERS =
    "SELECT group_concat(name, char(10)) FROM (SELECT name FROM schedules "
    "WHERE instr(',' || coalesce(exclude_cals, '') || ',' || "
    "coalesce(only_cals, '') || ',', ',' || ?1 || ',') > 0 ORDER BY name)";

int sked__sqlite_calendars_read(sked__tx *c, const char *name, char **out,
                                sked_error *err)
{
    sqlite3_stmt *s = NULL;
    char *v = NULL;
    int rc = sked__sqlite_stmt(c, name ? READ_ONE : READ_ALL, &s, err), step;

    if (rc != 0)
        return rc;
    if (name)
        bind_text(s, 1, name);
    step = sqlite3_step(s);
    if (step == SQLITE_ROW && !col_text(s, 0, &v))
        rc = sked__nomem(err);
    else if (step != SQLITE_ROW)
        rc = sked__sqlite_fail(c, step, "reading calendars", err);
    sked__sqlite_done(s);
    if (rc == 0)
        *out = v;
    return rc;
}

static int bump(sked__tx *c, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sked__sqlite_stmt(c, BUMP, &s, err);

    return rc ? rc
              : sked__sqlite_exec(c, s, 0, "counting a calendar change", err);
}

int sked__sqlite_calendar_write(sked__tx *c, const sked__calendar_row *r,
                                bool create, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sked__sqlite_stmt(c, create ? INSERT : UPDATE, &s, err);

    if (rc != 0)
        return rc;
    rc = sked__sqlite_exec(
        c, s,
        bind_text(s, 1, r->name) | bind_text(s, 2, r->definition) |
            bind_text(s, 3, r->source) | bind_text(s, 4, r->app) |
            sqlite3_bind_int64(s, 5, r->now),
        "writing a calendar", err);
    return rc == 0 ? bump(c, err) : rc;
}

int sked__sqlite_calendar_delete(sked__tx *c, const char *name, bool *existed,
                                 sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sked__sqlite_stmt(c, DELETE, &s, err);

    if (rc != 0)
        return rc;
    rc = sked__sqlite_exec(c, s, bind_text(s, 1, name), "deleting a calendar",
                           err);
    if (rc == 0 && existed)
        *existed = sqlite3_changes(sked__sqlite_db(c)) > 0;
    return rc == 0 ? bump(c, err) : rc;
}

int sked__sqlite_calendars_stamp(sked__tx *c, int64_t out[2], sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sked__sqlite_stmt(c, STAMP, &s, err), step;

    if (rc != 0)
        return rc;
    step = sqlite3_step(s);
    if (step == SQLITE_ROW) {
        out[0] = sqlite3_column_int64(s, 0);
        out[1] = sqlite3_column_int64(s, 1);
    } else {
        rc = sked__sqlite_fail(c, step, "reading the calendars' state", err);
    }
    sked__sqlite_done(s);
    return rc;
}

int sked__sqlite_calendar_users(sked__tx *c, const char *name, char **out,
                                sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sked__sqlite_stmt(c, USERS, &s, err), step;

    *out = NULL;
    if (rc != 0)
        return rc;
    bind_text(s, 1, name);
    step = sqlite3_step(s);
    if (step == SQLITE_ROW && !col_text(s, 0, out))
        rc = sked__nomem(err);
    else if (step != SQLITE_ROW && step != SQLITE_DONE)
        rc = sked__sqlite_fail(c, step, "reading a calendar's schedules", err);
    sked__sqlite_done(s);
    return rc;
}
