/* SPDX-License-Identifier: MIT */
/* For tests that look under the store: run one SQL statement on the
 * database of a sked URL with that engine's own client (sqlite3 or
 * libpq), not through sked. */
#ifndef SKED_TEST_DB_H
#define SKED_TEST_DB_H

#include <stddef.h>

/* Run SQL on URL ("sqlite:PATH" or a PostgreSQL URL). OUT, when not
 * NULL, gets the first column of the first row, or -1 when there is no
 * row. Returns 0, or -1 when the statement failed. */
int sked_test_sql(const char *url, const char *sql, long long *out);

/* The database of a test: SKED_TEST_DB_URL when set, else a SQLite file
 * FILE in a new temporary directory (written into TMP, of SIZE bytes;
 * empty when none was made). Writes the URL into URL (of SIZE bytes).
 * Returns 0, or -1 when no directory could be made. */
int sked_test_db_url(const char *file, char *url, char *tmp, size_t size);

/* Remove the directory TMP of sked_test_db_url (nothing when empty). */
void sked_test_tmp_remove(const char *tmp);

/* Print to stderr, under WHAT, the lines of GOT not in WANT and those of
 * WANT not in GOT (two dumps). */
void sked_test_dump_diff(const char *what, const char *got, const char *want);

/* Run the statements of SCRIPT (separated by ';') on URL in one
 * transaction, without waiting for the disk (SQLite: synchronous off):
 * a test's own resets between cases. Returns 0, or -1 when one failed. */
int sked_test_exec(const char *url, const char *script);

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

/* The rows of every table of URL's database that sked writes (schedules,
 * runs, steps, queues, workflow versions, events without their ids),
 * each row one line of its columns, the lines of a table sorted: two
 * dumps are equal when the content is. Free with free(); NULL when a
 * query failed. */
char *sked_test_dump(const char *url);

/* The same with the N queries SQL, one table's rows each. */
char *sked_test_dump_sql(const char *url, const char *const *sql, size_t n);

#endif
