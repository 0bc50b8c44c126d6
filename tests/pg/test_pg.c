/* SPDX-License-Identifier: MIT */
/* What only the PostgreSQL back-end does, on the database named by
 * SKED_TEST_PG_URL (tests/pg/with_pg.sh gives each test its own): a
 * dropped connection is replaced, between and inside transactions; many
 * threads share a small pool; servers opening a new database together
 * migrate it once; an unreachable server or a malformed URL is one clear
 * error; a newer schema is refused. The store suite (tests/store/) checks
 * the behaviour both back-ends share. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "store/store_ops.h"

/* The schema version of this binary: the last of the migrations in
 * src/store/schema, which the build embeds. */
static int schema_latest(void)
{
    int n = 0;

    while (sked__schema_pg[n].version)
        n++;
    return sked__schema_pg[n - 1].version;
}

static const char *url;

/* Run SQL on a connection of its own; return the first value as a
 * number (0 when there is none). */
static long long sql(const char *q)
{
    PGconn *c = PQconnectdb(url);
    PGresult *r;
    long long v = 0;

    assert_int_equal(PQstatus(c), CONNECTION_OK);
    r = PQexec(c, q);
    assert_true(PQresultStatus(r) == PGRES_TUPLES_OK ||
                PQresultStatus(r) == PGRES_COMMAND_OK);
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0)
        v = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    PQfinish(c);
    return v;
}

/* Close every connection sked has to this database, as a server restart
 * or an administrator would. */
static void kill_sked_connections(void)
{
    sql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
        "WHERE application_name = 'sked' AND datname = current_database()");
}

static void fresh_database(void)
{
    sql("DROP SCHEMA public CASCADE; CREATE SCHEMA public");
}

static sked_store *open_store(int pool)
{
    sked_store_options o = {.pg_pool_size = pool};
    sked_store *st = NULL;
    sked_error err = {0};

    if (sked__store_open(url, &o, &st, &err) != 0)
        fail_msg("open: %s", err.msg);
    return st;
}

static sked_run_new run(const char *id)
{
    return (sked_run_new){.id = id,
                          .workflow = "wf",
                          .trigger = SKED_TRIGGER_API,
                          .scheduled_for = SKED_TIME_NONE,
                          .not_before = SKED_TIME_NONE};
}

static void test_reconnect_between_transactions(void **state)
{
    sked_store *st = open_store(1);
    sked_run_new r1 = run("between-1"), r2 = run("between-2");
    bool created;
    sked_error err;

    (void) state;
    assert_int_equal(sked__store_runs_insert(st, &r1, 1, &created, &err), 0);
    kill_sked_connections();
    assert_int_equal(sked__store_runs_insert(st, &r2, 1, &created, &err), 0);
    assert_true(created);
    assert_int_equal(sql("SELECT count(*) FROM runs WHERE id LIKE "
                         "'between-%'"),
                     2);
    sked__store_close(st);
}

/* Inside a transaction the drop is SKED_EBUSY, for store.c to retry; the
 * next transaction gets a new connection. */
static void test_reconnect_inside_transaction(void **state)
{
    const struct sked__store_ops *ops = &sked__store_pg_ops;
    sked_store_options o = {.pg_pool_size = 1};
    sked__backend *b;
    sked__tx *tx;
    sked_error err;
    int v;

    (void) state;
    sked__store_close(open_store(1)); /* migrated */
    assert_int_equal(ops->open(url, &o, &b, &err), 0);
    assert_int_equal(ops->begin(b, SKED__TX_READ, &tx, &err), 0);
    kill_sked_connections();
    assert_int_equal(ops->schema_version(tx, &v, &err), SKED_EBUSY);
    ops->rollback(tx);
    assert_int_equal(ops->begin(b, SKED__TX_READ, &tx, &err), 0);
    assert_int_equal(ops->schema_version(tx, &v, &err), 0);
    assert_int_equal(v, schema_latest());
    assert_int_equal(ops->commit(tx, &err), 0);
    ops->close(b);
}

typedef struct worker {
    sked_store *st;
    int first, count; /* ids first .. first+count-1 */
    size_t created;
    int rc;
} worker;

static void *insert_worker(void *arg)
{
    worker *w = arg;
    char ids[10][32];
    sked_run_new runs[10];
    bool created[10];
    sked_error err;

    for (int i = 0; i < w->count && w->rc == 0; i += 10) {
        for (int k = 0; k < 10; k++) {
            snprintf(ids[k], sizeof ids[k], "pool-%05d", w->first + i + k);
            runs[k] = run(ids[k]);
        }
        w->rc = sked__store_runs_insert(w->st, runs, 10, created, &err);
        for (int k = 0; w->rc == 0 && k < 10; k++)
            w->created += created[k];
    }
    return NULL;
}

/* Eight threads on a pool of two, overlapping by half: every run once. */
static void test_pool_shared_by_threads(void **state)
{
    sked_store *st = open_store(2);
    pthread_t t[8];
    worker w[8];
    size_t total = 0;

    (void) state;
    for (int i = 0; i < 8; i++) {
        w[i] = (worker){.st = st, .first = i * 100, .count = 200};
        assert_int_equal(pthread_create(&t[i], NULL, insert_worker, &w[i]), 0);
    }
    for (int i = 0; i < 8; i++) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
        assert_int_equal(w[i].rc, 0);
        total += w[i].created;
    }
    assert_int_equal(total, 900);
    assert_int_equal(sql("SELECT count(*) FROM runs WHERE id LIKE 'pool-%'"),
                     900);
    sked__store_close(st);
}

static void *open_worker(void *arg)
{
    sked_store *st = NULL;
    sked_error err;

    *(int *) arg = sked__store_open(url, NULL, &st, &err);
    if (*(int *) arg != 0)
        printf("open: %s\n", err.msg);
    sked__store_close(st);
    return NULL;
}

/* Six servers start together on an empty database: one migrates, the
 * others wait on the advisory lock and find the work done. */
static void test_concurrent_migration(void **state)
{
    pthread_t t[6];
    int rc[6];

    (void) state;
    fresh_database();
    for (int i = 0; i < 6; i++)
        assert_int_equal(pthread_create(&t[i], NULL, open_worker, &rc[i]), 0);
    for (int i = 0; i < 6; i++) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
        assert_int_equal(rc[i], 0);
    }
    assert_int_equal(sql("SELECT value FROM meta "
                         "WHERE key = 'schema_version'"),
                     schema_latest());
}

static void test_newer_schema_refused(void **state)
{
    sked_store *st = NULL;
    sked_error err;
    char restore[128];

    (void) state;
    sked__store_close(open_store(1));
    sql("UPDATE meta SET value = '99' WHERE key = 'schema_version'");
    assert_int_equal(sked__store_open(url, NULL, &st, &err), SKED_ECONFLICT);
    assert_null(st);
    assert_non_null(strstr(err.msg, "99"));
    snprintf(restore, sizeof restore,
             "UPDATE meta SET value = '%d' WHERE key = 'schema_version'",
             schema_latest());
    sql(restore);
}

static void test_unreachable_server(void **state)
{
    sked_store *st = NULL;
    sked_error err;

    (void) state;
    assert_int_equal(sked__store_open("postgresql://postgres@/skeddb?"
                                      "host=/nonexistent&port=4",
                                      NULL, &st, &err),
                     SKED_EBUSY);
    assert_null(st);
    assert_string_equal(err.field, "db");
    assert_non_null(strstr(err.msg, "cannot connect to PostgreSQL at "
                                    "/nonexistent:4/skeddb: "));
    assert_null(strchr(err.msg, '\n'));
}

static void test_malformed_url(void **state)
{
    sked_store *st = NULL;
    sked_error err;

    (void) state;
    assert_int_equal(sked__store_open("postgresql://%zz", NULL, &st, &err),
                     SKED_EINVAL);
    assert_string_equal(err.field, "db");
    assert_non_null(strstr(err.msg, "malformed PostgreSQL URL"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concurrent_migration),
        cmocka_unit_test(test_reconnect_between_transactions),
        cmocka_unit_test(test_reconnect_inside_transaction),
        cmocka_unit_test(test_pool_shared_by_threads),
        cmocka_unit_test(test_newer_schema_refused),
        cmocka_unit_test(test_unreachable_server),
        cmocka_unit_test(test_malformed_url),
    };

    url = getenv("SKED_TEST_PG_URL");
    if (url == NULL || url[0] == '\0') {
        printf("test_pg: SKED_TEST_PG_URL is not set; skipped\n");
        return 77;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
