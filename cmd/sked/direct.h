/* SPDX-License-Identifier: MIT */
/* Direct mode (SPEC 7): commands that work on the database themselves,
 * with no server; its operations are the target_ops of direct.c
 * (target.h). The database is named by --db URL (before or after the
 * command), else $SKED_DB, else "sqlite:sked.db". Also here: the zone
 * database and the one-line report of a failed schedule operation,
 * which both modes use. */
#ifndef SKED_CMD_DIRECT_H
#define SKED_CMD_DIRECT_H

#include "sked/sked.h"

/* Return the URL to open: FLAG when not NULL, else $SKED_DB when set and
 * not empty, else sqlite:sked.db. */
const char *direct_db_url(const char *flag);

/* Open the system's zone database. OUT: *out. Returns 0 or an exit code
 * (the error printed). */
int direct_tzdb_open(sked_tzdb **out);

/* Print the failure ERR of an operation on the schedule NAME ("cannot
 * create schedule \"x\": ...", or "schedule \"x\" not found") and return
 * its exit code: 3 for not found, 4 for a conflict. */
int direct_schedule_fail(const char *verb, const char *name,
                         const sked_error *err, int rc);

#endif
