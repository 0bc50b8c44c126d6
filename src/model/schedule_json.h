/* SPDX-License-Identifier: MIT */
/* Schedules to and from the JSON of the HTTP API (SPEC 6), with jansson.
 *
 * Field names are the API's: durations are numbers of seconds named
 * "..._secs" (catchup_window_secs, jitter_secs, every_secs), instants are
 * RFC 3339 strings in UTC (fractional seconds only when not zero), the
 * context is a JSON object, enums are their lower-case names, and "paused"
 * is a boolean view of the status. null means "not set" (or the default)
 * for every field. On input "every" is also accepted, as a duration string
 * ("6h") or a number of seconds, since SPEC 6 lists it by that name.
 *
 * Reading rejects unknown fields (SKED_ESYNTAX naming the field: the API
 * answers 400 for them, 422 for bad values), values of
 * the wrong JSON type ("expected a number"), and more than one of cron,
 * every and at. It does not validate ranges: sked_schedule_validate does.
 * The state the scheduler keeps (status, next_fire_at, created_at, ...) is
 * read only with SKED__SCHEDULE_JSON_STATE; without it those fields are
 * refused as read-only, which is what the API wants. */
#ifndef SKED_MODEL_SCHEDULE_JSON_H
#define SKED_MODEL_SCHEDULE_JSON_H

#include <stddef.h>

#include <jansson.h>

#include "sked/schedule.h"

/* Values as the API writes them (new references; null for NONE/NULL):
 * an instant in RFC 3339 UTC, a duration in seconds (an integer when
 * whole), a string. Shared by every JSON sked writes. */
json_t *sked__json_instant(sked_time t);
json_t *sked__json_secs(sked_dur d);
json_t *sked__json_str(const char *s);

/* Accept the read-only state fields too (round trips, the store's own
 * event payloads). */
#define SKED__SCHEDULE_JSON_STATE 0x1u

/* Build the API object of S, every field present (null when unset).
 * OUT: *out, a new reference. Returns 0, SKED_ENOMEM, or SKED_EINVAL
 * when S holds a context that is not JSON. */
int sked__schedule_to_json(const sked_schedule *s, json_t **out,
                           sked_error *err);

/* Like sked__schedule_to_json, as compact text. OUT: *out, freed with
 * free() (or sked_free). */
int sked__schedule_to_json_text(const sked_schedule *s, char **out,
                                sked_error *err);

/* Build the definition of S as a request gives it (POST, PUT): the
 * object of sked__schedule_to_json without the read-only fields (the
 * state, the cron expression's words), with "allow_past" when S has it. OUT:
 * *out, a new reference. */
int sked__schedule_definition_json(const sked_schedule *s, json_t **out,
                                   sked_error *err);

/* Apply the fields present in the object OBJ to *s (a PATCH): a time spec
 * given replaces the old one. *s is changed only on success. Returns 0,
 * SKED_ESYNTAX (unknown field), SKED_EINVAL (wrong type, read-only field,
 * two time specs), both with err->field the JSON key, SKED_ENOMEM. */
int sked__schedule_patch_json(const json_t *obj, unsigned flags,
                              sked_schedule *s, sked_error *err);

/* Read a whole schedule: sked_schedule_init, then the patch. OUT: *out
 * (the caller calls sked_schedule_done). */
int sked__schedule_from_json(const json_t *obj, unsigned flags,
                             sked_schedule *out, sked_error *err);

/* Parse LEN bytes of TEXT as a JSON object, then sked__schedule_from_json.
 * Malformed JSON is SKED_ESYNTAX with err->pos. */
int sked__schedule_from_json_text(const char *text, size_t len, unsigned flags,
                                  sked_schedule *out, sked_error *err);

/* The JSON Schema of the API's schedule object (OpenAPI's
 * components.schemas.Schedule), from the field table: every key, its
 * type, description, bounds and default. NULL when out of memory. */
json_t *sked__schedule_json_schema(void);

#endif
