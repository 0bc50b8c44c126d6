/* SPDX-License-Identifier: MIT */
/* The SQL of a schedule row, written once for both back-ends from the
 * field table (model/schedule_fields.h): the insert of every column and
 * the update of every column but the key and created_at, with numbered
 * parameters in the dialect's mark ('?' for SQLite, '$' for PostgreSQL).
 *
 * A row's parameters are its stored fields in the table's order, the key
 * first; an update leaves created_at out (the insert wrote it once), and
 * its parameters stay numbered without a gap, as PostgreSQL wants.
 * The values bound and read are the model's (sked__sval); a back-end only
 * turns them into its own. */
#ifndef SKED_STORE_SCHEDULE_SQL_H
#define SKED_STORE_SCHEDULE_SQL_H

#include <stdbool.h>

#include "model/schedule_fields.h"
#include "sked/error.h"

/* The insert (UPDATE false) or update of a schedule row, with parameters
 * marked MARK. Built on first use; the same address every call. */
const char *sked__schedule_sql(char mark, bool update);

/* How many parameters that statement has. */
int sked__schedule_sql_params(bool update);

/* Write into V (room for SKED__SF_COUNT) the parameters of S's insert or
 * (UPDATE) update, in order; return how many. The texts are borrowed
 * from S. */
int sked__schedule_params(const sked_schedule *s, bool update, sked__sval *v);

/* A back-end's read of column COL of its current row into *v: an
 * integer when AS_INT, else a text (borrowed until the next read), or
 * NULL. Returns 0, SKED_ENOMEM or SKED_EIO (a value that is no
 * integer). */
typedef int (*sked__schedule_col_fn)(void *ctx, int col, bool as_int,
                                     sked__sval *v);

/* Read a schedule row, in SKED__SCHEDULE_COLUMNS order, through GET into
 * *out (initialised here). Returns 0, SKED_ENOMEM, or SKED_EIO with
 * *bad_col the column at fault; *out is untouched on failure. */
int sked__schedule_read(sked__schedule_col_fn get, void *ctx,
                        sked_schedule *out, int *bad_col);

/* The messages of a schedule row refused, worded once for both
 * back-ends: NAME is taken (SKED_ECONFLICT), or there is no schedule
 * NAME (SKED_ENOTFOUND), each with field "name". Return the code. */
int sked__schedule_taken(const char *name, sked_error *err);
int sked__schedule_missing(const char *name, sked_error *err);

#endif
