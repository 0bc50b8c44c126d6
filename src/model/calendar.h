/* SPDX-License-Identifier: MIT */
/* Internal helpers of calendars (sked/calendar.h): lists of strings, the
 * day set's spec of a calendar, and the API's JSON both ways
 * (calendar_json.c). */
#ifndef SKED_MODEL_CALENDAR_H
#define SKED_MODEL_CALENDAR_H

#include <jansson.h>

#include "cron/daycal.h"
#include "sked/calendar.h"

/* Free L's strings and empty it; append a copy of S (SKED_ENOMEM). */
void sked__strlist_done(sked_strlist *l);
int sked__strlist_add(sked_strlist *l, const char *s);

/* Free the N calendars V and V itself; NULL does nothing. */
void sked__calendars_free(sked_calendar *v, size_t n);

/* The short name of weekday WD (0 = "sun"). */
const char *sked__weekday_short(int wd);

/* Point *spec at C's fields (borrowed: C must outlive it). */
int sked__calendar_spec_of(const sked_calendar *c, sked__daycal_spec *spec);

/* Build C's day set into *out (sked__daycal_free), its includes
 * resolved among the N calendars ALL; C's own name stands for C, not
 * for a stored one of that name, so a cycle through C's new definition
 * is found. The errors of
 * sked__daycal_build: an unknown include SKED_ENOTFOUND, a cycle
 * SKED_ECONFLICT. */
int sked__calendar_build(const sked_calendar *c, const sked_calendar *all,
                         size_t n, sked__daycal **out, sked_error *err);

/* Accept the state fields (source, app, created_at, updated_at): the
 * store's own rows and event payloads. */
#define SKED__CALENDAR_JSON_STATE 0x1u

/* The API object of C, every field present (null or [] when unset);
 * DEFINITION_ONLY leaves the state out (what the store keeps as the
 * definition, and what a request sends). NULL when out of memory. */
json_t *sked__calendar_to_json(const sked_calendar *c, bool definition_only);

/* Read the object OBJ into *out (initialised here; sked_calendar_done
 * also on error). Unknown keys are SKED_ESYNTAX, wrong types and bad
 * names SKED_EINVAL, each naming the key ("dates[2]" for an entry). */
int sked__calendar_from_json(const json_t *obj, unsigned flags,
                             sked_calendar *out, sked_error *err);

/* The JSON Schema of the calendar object (OpenAPI's
 * components.schemas.Calendar). NULL when out of memory. */
json_t *sked__calendar_json_schema(void);

#endif
