/* SPDX-License-Identifier: MIT */
/* The JSON answers of the API's operations (docs/api.md), each written
 * once: the API sends them, and the CLI's --json prints them, built from
 * what the engine returned in direct mode and from what the API answered
 * in remote mode, so that one operation prints one JSON however it is
 * reached. A schedule is store/schedule_json.h's object; runs,
 * workflows, queues and events are the engine's text; these are the
 * others. Each returns a new value, NULL when out of memory (or, for a
 * list, when a schedule cannot be written: ERR says why). */
#ifndef SKED_ENGINE_ANSWER_H
#define SKED_ENGINE_ANSWER_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "sked/sked.h"
#include "store/store.h"

/* A page of schedules: {"schedules": [...], "next_cursor": name | null},
 * the cursor the last name when MORE. */
json_t *sked__answer_schedules(const sked_schedule *v, size_t n, bool more,
                               sked_error *err);

/* A trigger's: {"run_id": ID}. */
json_t *sked__answer_run_id(const char *id);

/* A backfill's: {"created": n, "skipped": n}. */
json_t *sked__answer_backfill(const sked_backfill_result *r);

/* An apply's: {"created", "updated", "unchanged", "deleted"}. */
json_t *sked__answer_apply(const sked_apply_result *r);

/* SPEC 3.5's warnings after applying SET (N schedules): an array of one
 * string per schedule whose workflow no server of E's store has
 * registered, "schedule \"S\": workflow \"W\" is not registered ...",
 * in the set's order; empty when there is none. Each workflow is looked
 * up once however many schedules name it. */
json_t *sked__answer_set_warnings(sked_engine *e, const sked_schedule *set,
                                  size_t n);

/* A preview's: {"occurrences": [{"at", "local", "mark"}]}, "local" in the
 * zone TZ with its offset. */
json_t *sked__answer_occurrences(const sked_occurrence *occ, size_t n,
                                 const sked_tz *tz);

#endif
