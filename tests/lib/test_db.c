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

int sked_test_exec(const char *url, const char *script)
{
    sqlite3 *db = NULL;
    int ok;

    if (strncmp(url, "sqlite:", 7) != 0) {
        PGconn *c = PQconnectdb(url);
        PGresult *r = PQexec(c, script);
        ok = PQresultStatus(r) == PGRES_COMMAND_OK ||
             PQresultStatus(r) == PGRES_TUPLES_OK;
        PQclear(r);
        PQfinish(c);
        return ok ? 0 : -1;
    }
    ok = sqlite3_open(url + 7, &db) == SQLITE_OK &&
         sqlite3_busy_timeout(db, 10000) == SQLITE_OK &&
         sqlite3_exec(db, "PRAGMA synchronous = OFF; BEGIN IMMEDIATE", NULL,
                      NULL, NULL) == SQLITE_OK &&
         sqlite3_exec(db, script, NULL, NULL, NULL) == SQLITE_OK &&
         sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK;
    sqlite3_close(db);
    return ok ? 0 : -1;
}

int sked_test_db_url(const char *file, char *url, char *tmp, size_t size)
{
    const char *env = getenv("SKED_TEST_DB_URL");
    const char *dir = getenv("TMPDIR");

    snprintf(tmp, size, "%s/sked-test-XXXXXX", dir && *dir ? dir : "/tmp");
    if (!mkdtemp(tmp))
        return -1;
    if (env && env[0])
        snprintf(url, size, "%s", env);
    else
        snprintf(url, size, "sqlite:%s/%s", tmp, file);
    return 0;
}

void sked_test_tmp_remove(const char *tmp)
{
    char cmd[1200];

    if (!tmp[0])
        return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    (void) !system(cmd);
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

/* ---- dumps ----------------------------------------------------------- */

/* The queries of a dump: events without their ids, as PostgreSQL's ids
 * of a rolled-back transaction are never given again. */
static const char *const dump_sql[] = {
    "SELECT * FROM schedules",
    "SELECT * FROM runs",
    "SELECT * FROM steps",
    "SELECT * FROM queues",
    "SELECT * FROM workflow_versions",
    "SELECT type, subject, payload, at FROM events",
};

typedef struct lines {
    char **v;
    size_t n, cap;
} lines;

static int lines_add(lines *l, char *s)
{
    if (!s)
        return -1;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            free(s);
            return -1;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = s;
    return 0;
}

/* Append to *OUT (of *LEN bytes) the text S of N bytes. */
static int append(char **out, size_t *len, const char *s, size_t n)
{
    char *p = realloc(*out, *len + n + 1);
    if (!p)
        return -1;
    memcpy(p + *len, s, n);
    *len += n;
    p[*len] = '\0';
    *out = p;
    return 0;
}

/* One row's line: its columns joined by '|', NULL as "\N". */
static char *row_line(const char *const *col, int ncol)
{
    char *out = NULL;
    size_t len = 0;
    int ok = append(&out, &len, "", 0) == 0;

    for (int i = 0; ok && i < ncol; i++) {
        const char *v = col[i] ? col[i] : "\\N";
        ok = (i == 0 || append(&out, &len, "|", 1) == 0) &&
             append(&out, &len, v, strlen(v)) == 0;
    }
    if (!ok) {
        free(out);
        return NULL;
    }
    return out;
}

static int sqlite_rows(sqlite3 *db, const char *sql, lines *l)
{
    sqlite3_stmt *st = NULL;
    const char *col[64];
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK ? 0 : -1;

    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        int n = sqlite3_column_count(st);
        for (int i = 0; i < n && i < 64; i++)
            col[i] = (const char *) sqlite3_column_text(st, i);
        rc = lines_add(l, row_line(col, n < 64 ? n : 64));
    }
    sqlite3_finalize(st);
    return rc;
}

static int pg_rows(PGconn *c, const char *sql, lines *l)
{
    PGresult *r = PQexec(c, sql);
    const char *col[64];
    int rc = PQresultStatus(r) == PGRES_TUPLES_OK ? 0 : -1;

    for (int row = 0; rc == 0 && row < PQntuples(r); row++) {
        int n = PQnfields(r) < 64 ? PQnfields(r) : 64;
        for (int i = 0; i < n; i++)
            col[i] = PQgetisnull(r, row, i) ? NULL : PQgetvalue(r, row, i);
        rc = lines_add(l, row_line(col, n));
    }
    PQclear(r);
    return rc;
}

static int cmp_line(const void *a, const void *b)
{
    return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Append the lines L of the query SQL, sorted, to *OUT and empty L. */
static int dump_lines(lines *l, const char *sql, char **out, size_t *len)
{
    int rc = 0;

    qsort(l->v, l->n, sizeof *l->v, cmp_line);
    rc = append(out, len, sql, strlen(sql)) || append(out, len, "\n", 1);
    for (size_t i = 0; i < l->n; i++) {
        if (rc == 0)
            rc = append(out, len, l->v[i], strlen(l->v[i])) ||
                 append(out, len, "\n", 1);
        free(l->v[i]);
    }
    l->n = 0;
    return rc ? -1 : 0;
}

/* True when the text TEXT has the line L of N bytes. */
static bool has_line(const char *text, const char *l, size_t n)
{
    for (const char *m = text; m;
         m = strchr(m, '\n') ? strchr(m, '\n') + 1 : NULL)
        if (strncmp(m, l, n) == 0 && (m[n] == '\n' || !m[n]))
            return true;
    return false;
}

void sked_test_dump_diff(const char *what, const char *got, const char *want)
{
    const char *sides[2][2] = {{got, want}, {want, got}};

    fprintf(stderr, "%s:\n", what);
    for (int k = 0; k < 2; k++)
        for (const char *l = sides[k][0], *e; *l; l = *e ? e + 1 : e) {
            e = strchr(l, '\n');
            e = e ? e : l + strlen(l);
            if (!has_line(sides[k][1], l, (size_t) (e - l)))
                fprintf(stderr, "  %s %.*s\n", k ? "want" : "got ",
                        (int) (e - l), l);
        }
}

char *sked_test_dump(const char *url)
{
    return sked_test_dump_sql(url, dump_sql,
                              sizeof dump_sql / sizeof *dump_sql);
}

char *sked_test_dump_sql(const char *url, const char *const *sql, size_t n)
{
    bool sqlite = strncmp(url, "sqlite:", 7) == 0;
    sqlite3 *db = NULL;
    PGconn *c = NULL;
    lines l = {0};
    char *out = NULL;
    size_t len = 0;
    int rc = 0;

    if (sqlite)
        rc = sqlite3_open(url + 7, &db) == SQLITE_OK ? 0 : -1;
    else
        rc = PQstatus(c = PQconnectdb(url)) == CONNECTION_OK ? 0 : -1;
    for (size_t k = 0; rc == 0 && k < n; k++) {
        rc = sqlite ? sqlite_rows(db, sql[k], &l) : pg_rows(c, sql[k], &l);
        if (rc == 0)
            rc = dump_lines(&l, sql[k], &out, &len);
    }
    for (size_t i = 0; i < l.n; i++)
        free(l.v[i]);
    free(l.v);
    sqlite3_close(db);
    PQfinish(c);
    if (rc != 0) {
        free(out);
        return NULL;
    }
    return out;
}
