/* SPDX-License-Identifier: MIT */
/* Skipped occurrences on SQLite (store_ops.h, schema 0011): written and
 * deleted by (schedule, occurrence), read for a batch of schedules in one
 * statement (the names as a JSON array: names need no escaping), after
 * one that tells whether there is any skip at all. */
#include "store/sqlite_skip.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/error.h"
#include "store/sqlite.h"
#include "store/store_row.h"

static const char *const INSERT =
    "INSERT INTO schedule_skips (schedule, occurrence, actor, reason, "
    "created_at) VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING";
static const char *const DELETE =
    "DELETE FROM schedule_skips WHERE schedule = ?1 AND occurrence = ?2";
/* Whether there is any skip at all: the firing asks this first, so that
 * a database without skips pays one step of an index per batch. */
static const char *const ANY = "SELECT 1 FROM schedule_skips LIMIT 1";
static const char *const READ =
    "SELECT schedule, occurrence, actor, reason, created_at FROM "
    "schedule_skips WHERE schedule IN (SELECT value FROM json_each(?1))";

int sked__sqlite_skip_write(sked__tx *c, const sked_skip *k, bool *created,
                            sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sked__sqlite_stmt(c, INSERT, &s, err);

    if (rc != 0)
        return rc;
    rc = sked__sqlite_exec(
        c, s,
        bind_text(s, 1, k->schedule) | sqlite3_bind_int64(s, 2, k->occurrence) |
            bind_text(s, 3, k->actor) | bind_text(s, 4, k->reason) |
            sqlite3_bind_int64(s, 5, k->created_at),
        "skipping an occurrence", err);
    if (rc == 0 && created)
        *created = sqlite3_changes(sked__sqlite_db(c)) > 0;
    return rc;
}

int sked__sqlite_skip_delete(sked__tx *c, const char *schedule,
                             sked_time occurrence, bool *existed,
                             sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sked__sqlite_stmt(c, DELETE, &s, err);

    if (rc != 0)
        return rc;
    rc = sked__sqlite_exec(
        c, s, bind_text(s, 1, schedule) | sqlite3_bind_int64(s, 2, occurrence),
        "removing a skip", err);
    if (rc == 0 && existed)
        *existed = sqlite3_changes(sked__sqlite_db(c)) > 0;
    return rc;
}

/* Append the row of S to *out (*n entries, *cap allocated). */
static int row_take(sqlite3_stmt *s, sked_skip **out, size_t *n, size_t *cap)
{
    sked_skip *k;

    if (*n == *cap) {
        size_t c2 = *cap ? 2 * *cap : 8;
        sked_skip *v = sked__realloc(*out, c2 * sizeof *v);
        if (!v)
            return SKED_ENOMEM;
        *out = v;
        *cap = c2;
    }
    k = &(*out)[(*n)++];
    memset(k, 0, sizeof *k);
    k->occurrence = sqlite3_column_int64(s, 1);
    k->created_at = sqlite3_column_int64(s, 4);
    if (!col_text(s, 0, &k->schedule) || !col_text(s, 2, &k->actor) ||
        !col_text(s, 3, &k->reason))
        return SKED_ENOMEM;
    return 0;
}

int sked__sqlite_skips_read(sked__tx *c, const char *const *names, size_t n,
                            sked_skip **out, size_t *nout, sked_error *err)
{
    sked_buf b = {0};
    sqlite3_stmt *s = NULL;
    sked_skip *list = NULL;
    size_t len = 0, cap = 0;
    int rc, step;

    *out = NULL;
    *nout = 0;
    if (n == 0)
        return 0;
    if ((rc = sked__sqlite_stmt(c, ANY, &s, err)) != 0)
        return rc;
    step = sqlite3_step(s);
    sked__sqlite_done(s);
    if (step == SQLITE_DONE)
        return 0;
    if (step != SQLITE_ROW)
        return sked__sqlite_fail(c, step, "reading skips", err);
    sked__buf_puts(&b, "[");
    for (size_t i = 0; i < n; i++) {
        sked__buf_puts(&b, i ? ",\"" : "\"");
        sked__buf_puts(&b, names[i]);
        sked__buf_puts(&b, "\"");
    }
    if (!sked__buf_puts(&b, "]")) {
        sked__buf_reset(&b);
        return sked__nomem(err);
    }
    rc = sked__sqlite_stmt(c, READ, &s, err);
    if (rc != 0) {
        sked__buf_reset(&b);
        return rc;
    }
    bind_text(s, 1, b.p);
    while ((step = sqlite3_step(s)) == SQLITE_ROW && rc == 0)
        rc = row_take(s, &list, &len, &cap);
    sked__sqlite_done(s);
    sked__buf_reset(&b);
    if (rc != 0) {
        sked_skips_free(list, len);
        return sked__nomem(err);
    }
    if (step != SQLITE_DONE) {
        sked_skips_free(list, len);
        return sked__sqlite_fail(c, step, "reading skips", err);
    }
    *out = list;
    *nout = len;
    return 0;
}
