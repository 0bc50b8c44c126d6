/* SPDX-License-Identifier: MIT */
/* The calendar methods of the SQLite back-end (sqlite_calendar.c), as the
 * method table of store_ops.h wants them. */
#ifndef SKED_STORE_SQLITE_CALENDAR_H
#define SKED_STORE_SQLITE_CALENDAR_H

#include "store/store_ops.h"

int sked__sqlite_calendars_read(sked__tx *c, const char *name, char **out,
                                sked_error *err);
int sked__sqlite_calendar_write(sked__tx *c, const sked__calendar_row *r,
                                bool create, sked_error *err);
int sked__sqlite_calendar_delete(sked__tx *c, const char *name, bool *existed,
                                 sked_error *err);

int sked__sqlite_calendars_stamp(sked__tx *c, int64_t out[2], sked_error *err);
int sked__sqlite_calendar_users(sked__tx *c, const char *name, char **out,
                                sked_error *err);

#endif
