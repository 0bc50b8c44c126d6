/* SPDX-License-Identifier: MIT */
/* test_db.h: one statement through the database's own client. */
#include "test_db.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>
#include <sqlite3.h>

static int sqlite_sql(const char *path, const char *sql, long long *out)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    /* The store's own threads may be writing: wait for them as they
     * wait for each other, instead of failing on SQLITE_BUSY. */
    int ok = sqlite3_open(path, &db) == SQLITE_OK &&
             sqlite3_busy_timeout(db, 10000) == SQLITE_OK &&
             sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK;

    if (ok) {
        int rc = sqlite3_step(st);
        ok = rc == SQLITE_ROW || rc == SQLITE_DONE;
        if (out)
            *out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return ok ? 0 : -1;
}

static int pg_sql(const char *url, const char *sql, long long *out)
{
    PGconn *c = PQconnectdb(url);
    PGresult *r = PQexec(c, sql);
    int ok = PQresultStatus(r) == PGRES_COMMAND_OK ||
             PQresultStatus(r) == PGRES_TUPLES_OK;

    if (ok && out)
        *out = PQntuples(r) > 0 ? atoll(PQgetvalue(r, 0, 0)) : -1;
    PQclear(r);
    PQfinish(c);
    return ok ? 0 : -1;
}

int sked_test_sql(const char *url, const char *sql, long long *out)
{
    if (strncmp(url, "sqlite:", 7) == 0)
        return sqlite_sql(url + 7, sql, out);
    return pg_sql(url, sql, out);
}

const char *sked_test_events_table(const char *url)
{
    return strncmp(url, "sqlite:", 7) == 0 ? "events" : "event_pages";
}

struct sked_test_lock {
    sqlite3 *db;
    PGconn *pg;
};

sked_test_lock *sked_test_lock_writes(const char *url, const char *table)
{
    sked_test_lock *l = calloc(1, sizeof *l);
    char sql[256];
    PGresult *r;
    bool ok;

    if (!l)
        return NULL;
    if (strncmp(url, "sqlite:", 7) == 0) {
        ok = sqlite3_open(url + 7, &l->db) == SQLITE_OK &&
             sqlite3_exec(l->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) ==
                 SQLITE_OK;
    } else {
        snprintf(sql, sizeof sql, "BEGIN; LOCK TABLE %s IN EXCLUSIVE MODE",
                 table);
        l->pg = PQconnectdb(url);
        r = PQexec(l->pg, sql);
        ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        PQclear(r);
    }
    if (!ok) {
        sked_test_unlock(l);
        return NULL;
    }
    return l;
}

void sked_test_unlock(sked_test_lock *l)
{
    if (!l)
        return;
    if (l->db) {
        (void) sqlite3_exec(l->db, "ROLLBACK", NULL, NULL, NULL);
        sqlite3_close(l->db);
    }
    if (l->pg)
        PQfinish(l->pg); /* its transaction rolls back */
    free(l);
}
