/* SPDX-License-Identifier: MIT */
/* The calendar methods of the PostgreSQL back-end (pg_calendar.c), as the
 * method table of store_ops.h wants them. */
#ifndef SKED_STORE_PG_CALENDAR_H
#define SKED_STORE_PG_CALENDAR_H

#include "store/store_ops.h"

int sked__pg_calendars_read(sked__tx *tx, const char *name, char **out,
                            sked_error *err);
int sked__pg_calendar_write(sked__tx *tx, const sked__calendar_row *r,
                            bool create, sked_error *err);
int sked__pg_calendar_delete(sked__tx *tx, const char *name, bool *existed,
                             sked_error *err);

int sked__pg_calendars_stamp(sked__tx *tx, int64_t out[2], sked_error *err);
int sked__pg_calendar_users(sked__tx *tx, const char *name, char **out,
                            sked_error *err);

#endif
