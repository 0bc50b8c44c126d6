/* SPDX-License-Identifier: MIT */
/* The SQL of a schedule row, written once for both back-ends from the
 * field table (model/schedule_fields.h): the insert of every column and
 * the update of every column but the key and created_at, with numbered
 * parameters in the dialect's mark ('?' for SQLite, '$' for PostgreSQL).
 *
 * A row's parameters are its stored fields in the table's order, the key
 * first; an update leaves created_at out (the insert wrote it once), and
 * its parameters stay numbered without a gap, as PostgreSQL wants.
 * sked__schedule_param tells a back-end's bind loop which fields an
 * insert or an update binds. */
#ifndef SKED_STORE_SCHEDULE_SQL_H
#define SKED_STORE_SCHEDULE_SQL_H

#include <stdbool.h>

#include "model/schedule_fields.h"

/* The insert (UPDATE false) or update of a schedule row, with parameters
 * marked MARK. Built on first use; the same address every call. */
const char *sked__schedule_sql(char mark, bool update);

/* How many parameters that statement has. */
int sked__schedule_sql_params(bool update);

/* Tell whether the field F is a parameter of the insert or update. */
static inline bool sked__schedule_param(const sked__sfield *f, bool update)
{
    return f->sql && !(update && f->role == SKED__SR_CREATED);
}

#endif
