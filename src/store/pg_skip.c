/* SPDX-License-Identifier: MIT */
/* Skipped occurrences on PostgreSQL (store_ops.h, schema 0011): written
 * and deleted by (schedule, occurrence), read for a batch of schedules in
 * one statement (the names as one array). */
#include "store/pg_skip.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "store/pg.h"
#include "store/store_row.h"

static const sked__pg_stmt INSERT = {
    SKED__PG_SKIP_INSERT, 5,
    "INSERT INTO schedule_skips (schedule, occurrence, actor, reason, "
    "created_at) VALUES ($1, $2::bigint, $3, $4, $5::bigint) "
    "ON CONFLICT DO NOTHING"};
static const sked__pg_stmt DELETE = {
    SKED__PG_SKIP_DELETE, 2,
    "DELETE FROM schedule_skips WHERE schedule = $1 AND occurrence = "
    "$2::bigint"};
static const sked__pg_stmt READ = {
    SKED__PG_SKIPS_READ, 1,
    "SELECT schedule, occurrence, actor, reason, created_at FROM "
    "schedule_skips WHERE schedule = ANY($1::text[])"};

int sked__pg_skip_write(sked__tx *tx, const sked_skip *k, bool *created,
                        sked_error *err)
{
    char occ[SKED__PG_NUMLEN], now[SKED__PG_NUMLEN];
    const char *params[5] = {k->schedule, sked__pg_num(k->occurrence, occ),
                             k->actor, k->reason,
                             sked__pg_num(k->created_at, now)};
    PGresult *res = NULL;
    int rc = sked__pg_exec(tx, &INSERT, params, &res, err);

    if (rc != 0)
        return rc;
    if (created)
        *created = strtoll(PQcmdTuples(res), NULL, 10) > 0;
    PQclear(res);
    return 0;
}

int sked__pg_skip_delete(sked__tx *tx, const char *schedule,
                         sked_time occurrence, bool *existed, sked_error *err)
{
    char occ[SKED__PG_NUMLEN];
    const char *params[2] = {schedule, sked__pg_num(occurrence, occ)};
    PGresult *res = NULL;
    int rc = sked__pg_exec(tx, &DELETE, params, &res, err);

    if (rc != 0)
        return rc;
    if (existed)
        *existed = strtoll(PQcmdTuples(res), NULL, 10) > 0;
    PQclear(res);
    return 0;
}

/* Copy column I of row R of RES into *dst (NULL for SQL NULL). */
static bool text_at(const PGresult *res, int r, int i, char **dst)
{
    if (PQgetisnull(res, r, i)) {
        *dst = NULL;
        return true;
    }
    *dst = sked__strdup(PQgetvalue(res, r, i));
    return *dst != NULL;
}

int sked__pg_skips_read(sked__tx *tx, const char *const *names, size_t n,
                        sked_skip **out, size_t *nout, sked_error *err)
{
    sked__pg_alit a = {0};
    PGresult *res = NULL;
    sked_skip *list;
    int rc, rows;

    *out = NULL;
    *nout = 0;
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        sked__pg_alit_text(&a, names[i], i == 0);
    sked__pg_alit_put(&a, "}", 1);
    if ((rc = sked__pg_alit_exec(tx, &READ, &a, &res, err)) != 0)
        return rc;
    rows = PQntuples(res);
    if (rows == 0) {
        PQclear(res);
        return 0;
    }
    if (!(list = sked__calloc((size_t) rows, sizeof *list))) {
        PQclear(res);
        return sked__nomem(err);
    }
    for (int r = 0; r < rows; r++) {
        sked_skip *k = &list[r];
        k->occurrence = strtoll(PQgetvalue(res, r, 1), NULL, 10);
        k->created_at = strtoll(PQgetvalue(res, r, 4), NULL, 10);
        if (!text_at(res, r, 0, &k->schedule) ||
            !text_at(res, r, 2, &k->actor) || !text_at(res, r, 3, &k->reason)) {
            sked_skips_free(list, (size_t) rows);
            PQclear(res);
            return sked__nomem(err);
        }
    }
    PQclear(res);
    *out = list;
    *nout = (size_t) rows;
    return 0;
}
