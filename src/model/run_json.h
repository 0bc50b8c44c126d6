/* SPDX-License-Identifier: MIT */
/* Runs and their step attempts, queues and workflow versions as the JSON
 * of the API and the CLI (SPEC 6: GET /api/v1/runs/{id}, /queues,
 * /workflows), written from the public views of sked/run.h, with the
 * conventions of schedule_json.h: instants in RFC 3339 UTC, durations in
 * "..._secs", null for what is not set. A run's context and JSON outputs
 * are embedded as JSON; an output that is not JSON (a command's stdout)
 * is a string. The one writer of these objects: the API, the CLI's
 * --json and the library's JSON functions print through it. */
#ifndef SKED_MODEL_RUN_JSON_H
#define SKED_MODEL_RUN_JSON_H

#include <jansson.h>

#include "model/run.h"

/* The view of R, borrowing R's strings; its steps NULL. */
void sked__run_view_of(const sked_run *r, sked_run_view *out);
/* The view of the attempt S, borrowing S's strings. */
void sked__step_view_of(const sked_step_record *s, sked_step_view *out);

/* The object of V, with "steps" (an array of its attempts) when V->steps
 * is not NULL. A new reference; NULL when out of memory. */
json_t *sked__run_view_json(const sked_run_view *v);
/* The object of the queue Q, limits not set (0) as null. */
json_t *sked__queue_json(const sked_queue_info *q);
/* The object of the workflow version W ("definition" embedded). */
json_t *sked__workflow_info_json(const sked_workflow_info *w);

/* The lists of the API: {"runs":[...],"next_cursor":CURSOR|null} of the N
 * runs V, {"workflows":[...]} and {"queues":[...]}. New references; NULL
 * when out of memory. */
json_t *sked__run_list_json(const sked_run_view *v, size_t n,
                            const char *next_cursor);
json_t *sked__workflow_list_json(const sked_workflow_info *w, size_t n);
json_t *sked__queue_list_json(const sked_queue_info *q, size_t n);

#endif
