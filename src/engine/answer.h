/* SPDX-License-Identifier: MIT */
/* The JSON answers of the API's operations (docs/api.md), each written
 * once: the API sends them, and the CLI's --json prints them, built from
 * what the engine returned in direct mode and from what the API answered
 * in remote mode, so that one operation prints one JSON however it is
 * reached. A schedule is model/schedule_json.h's object; runs,
 * workflows, queues and events are the engine's text; these are the
 * others. Each returns a new value, NULL when out of memory (or, for a
 * list, when a schedule cannot be written: ERR says why). */
#ifndef SKED_ENGINE_ANSWER_H
#define SKED_ENGINE_ANSWER_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "sked/sked.h"

/* The schedule object of the API (model/schedule_json.h's), every field
 * present: a new value, NULL with ERR set when S cannot be written. */
json_t *sked__answer_schedule(const sked_schedule *s, sked_error *err);

/* Read the object BODY as a whole schedule (*s initialised here), or
 * with PATCH as changes onto *s; the state the scheduler keeps is
 * refused as read-only. Returns 0, SKED_ESYNTAX (an unknown field),
 * SKED_EINVAL (a wrong type), both naming the field, SKED_ENOMEM. */
int sked__answer_schedule_read(const json_t *body, bool patch, sked_schedule *s,
                               sked_error *err);

/* A calendar as the API shows it (sked/calendar.h's fields, docs/
 * calendars.md), and the read of a request's calendar (the fields the
 * store keeps are refused). NULL / SKED_E… with ERR. */
json_t *sked__answer_calendar(const sked_calendar *c, sked_error *err);
int sked__answer_calendar_read(const json_t *body, sked_calendar *c,
                               sked_error *err);
/* {"calendars": [...]} of N calendars. */
json_t *sked__answer_calendars(const sked_calendar *v, size_t n,
                               sked_error *err);
/* {"calendar": NAME, "days": [{"date", "holiday", "business"}]}. */
json_t *sked__answer_calendar_days(const char *name, const sked_calendar_day *v,
                                   size_t n, sked_error *err);

/* A page of schedules: {"schedules": [...], "next_cursor": name | null},
 * the cursor the last name when MORE. */
json_t *sked__answer_schedules(const sked_schedule *v, size_t n, bool more,
                               sked_error *err);

/* A page of the engine's list, as sked__answer_schedules. */
json_t *sked__answer_schedule_page(const sked_schedule_page *p,
                                   sked_error *err);

/* Each reader below reads back its writer's answer, for remote mode:
 * 0, or SKED_EINVAL when J is not that answer. */

/* The reader of sked__answer_schedule_page: *out (sked_schedule_page_done,
 * also on error), its cursor the last name when "next_cursor" is set. */
int sked__answer_schedule_page_read(const json_t *j, sked_schedule_page *out,
                                    sked_error *err);

/* A trigger's: {"run_id": ID}. */
json_t *sked__answer_run_id(const char *id);

/* A backfill's: {"created": n, "skipped": n}. */
json_t *sked__answer_backfill(const sked_backfill_result *r);
int sked__answer_backfill_read(const json_t *j, sked_backfill_result *r);

/* A backfill's dry run: {"dry_run": true, "total": n, "checked": n,
 * "created": n, "skipped": n, "create": [T...], "skip": [T...]}, the
 * counts and lists of the first "checked" occurrences of "total". */
json_t *sked__answer_backfill_preview(const sked_backfill_preview *p);

/* An apply's: {"created", "updated", "unchanged", "deleted"}. */
json_t *sked__answer_apply(const sked_apply_result *r);
int sked__answer_apply_read(const json_t *j, sked_apply_result *r);

/* SPEC 3.5's warnings after applying SET (N schedules): an array of one
 * string per schedule whose workflow no server of E's store has
 * registered, "schedule \"S\": workflow \"W\" is not registered ...",
 * in the set's order; empty when there is none. Each workflow is looked
 * up once however many schedules name it. */
json_t *sked__answer_set_warnings(sked_engine *e, const sked_schedule *set,
                                  size_t n);

/* A preview's: {"occurrences": [{"at", "local", "mark"}]}, "local" on
 * the schedule zone's clock, with its offset; "calendar" ("excluded" or
 * "moved") and "occurrence" (a moved one's) only when its calendars
 * did something; "skipped": true only for a skipped one. */
json_t *sked__answer_occurrences(const sked_preview *p);

/* A schedule's pending skips: {"schedule", "skips": [{"occurrence",
 * "actor", "reason" (null: none), "created_at"}]}, by occurrence. */
json_t *sked__answer_skips(const char *name, const sked_skip *k, size_t n);

/* The answer of one skip or unskip: {"schedule", "occurrence",
 * "skipped": bool (what holds now), "changed": bool}. */
json_t *sked__answer_skip(const char *name, sked_time occ, bool skipped,
                          bool changed);

/* One decision of a replay of the schedule NAME, the object "sked
 * schedule simulate --json" prints a line of and the API lists:
 * {"occurrence", "decision": "fire" | "drop", "reason": null | REASON,
 * "run_id": ID | null, "at"}, keys in that order; a fire moved off an
 * excluded day also has "scheduled_for" (after "occurrence"), and a fire
 * "catchup", "buffered" and "cancels_active" (true) when they hold. */
json_t *sked__answer_sim_decision(const char *name, const sked_sim_decision *d);
/* Read a decision object back (a server's, for the CLI's remote mode). */
int sked__answer_sim_decision_read(const json_t *o, sked_sim_decision *d,
                                   sked_error *err);

/* A replay's: {"schedule", "from", "to", "decisions": [the first LIMIT
 * decisions], "fired": n, "dropped": {REASON: n, ...}, "truncated":
 * whether decisions were left out}; the counts cover every decision. */
json_t *sked__answer_simulation(const char *name,
                                const sked_simulate_options *o,
                                const sked_simulation *sim, size_t limit);

#endif
