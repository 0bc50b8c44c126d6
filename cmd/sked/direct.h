/* SPDX-License-Identifier: MIT */
/* Direct mode (SPEC 7): commands that work on the database themselves,
 * with no server. The database is named by --db URL (before or after the
 * command), else $SKED_DB, else "sqlite:sked.db". */
#ifndef SKED_CMD_DIRECT_H
#define SKED_CMD_DIRECT_H

#include "sked/sked.h"
#include "store/store.h"

/* The --db lines of every direct command's help. */
#define DB_HELP                                                                \
    "  --db URL       the database: sqlite:PATH or postgres://...\n"           \
    "                 (default $SKED_DB, else sqlite:sked.db); also\n"         \
    "                 accepted before the command: sked --db URL schedule\n"

/* Return the URL to open: FLAG when not NULL, else $SKED_DB when set and
 * not empty, else SKED_STORE_DEFAULT_URL. */
const char *direct_db_url(const char *flag);

/* Open the store named by FLAG (see direct_db_url), validating with TZDB
 * (borrowed; may be NULL). OUT: *out. Returns 0, or prints one line and
 * returns the exit code. */
int direct_store_open(const char *flag, sked_tzdb *tzdb, sked_store **out);

/* Open an engine (no thread started) on the database named by FLAG (see
 * direct_db_url), for the operations that go through the engine:
 * trigger and backfill. OUT: *out, closed with sked_engine_close.
 * Returns 0, or prints one line and returns the exit code. */
int direct_engine_open(const char *flag, sked_engine **out);

/* Open the system's zone database. OUT: *out. Returns 0 or an exit code
 * (the error printed). */
int direct_tzdb_open(sked_tzdb **out);

/* Print the failure ERR of an operation on the schedule NAME ("cannot
 * create schedule \"x\": ...", or "schedule \"x\" not found") and return
 * its exit code: 3 for not found, 4 for a conflict. */
int direct_schedule_fail(const char *verb, const char *name,
                         const sked_error *err, int rc);

#endif
