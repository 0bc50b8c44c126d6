/* SPDX-License-Identifier: MIT */
/* For tests that look under the store: run one SQL statement on the
 * database of a sked URL with that engine's own client (sqlite3 or
 * libpq), not through sked. */
#ifndef SKED_TEST_DB_H
#define SKED_TEST_DB_H

/* Run SQL on URL ("sqlite:PATH" or a PostgreSQL URL). OUT, when not
 * NULL, gets the first column of the first row, or -1 when there is no
 * row. Returns 0, or -1 when the statement failed. */
int sked_test_sql(const char *url, const char *sql, long long *out);

/* The table that holds the events of URL's database, to empty it:
 * "events" on SQLite; on PostgreSQL "event_pages", the pages behind the
 * view events (schema/pg/0005_run_rate.sql). */
const char *sked_test_events_table(const char *url);

/* Hold writes to TABLE of URL's database back, from a connection of its
 * own, until sked_test_unlock: on SQLite the whole database's write lock
 * (BEGIN IMMEDIATE), on PostgreSQL the table locked in EXCLUSIVE mode.
 * Reads go on. NULL when the lock could not be taken. */
typedef struct sked_test_lock sked_test_lock;
sked_test_lock *sked_test_lock_writes(const char *url, const char *table);
void sked_test_unlock(sked_test_lock *l);

#endif
