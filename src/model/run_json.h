/* SPDX-License-Identifier: MIT */
/* Runs and their step attempts as the JSON of the API and the CLI
 * (SPEC 6: GET /api/v1/runs/{id}), with the conventions of
 * schedule_json.h: instants in RFC 3339 UTC, durations in "..._secs",
 * null for what is not set. A run's context and JSON outputs are
 * embedded as JSON; an output that is not JSON (a command's stdout) is a
 * string. */
#ifndef SKED_MODEL_RUN_JSON_H
#define SKED_MODEL_RUN_JSON_H

#include <jansson.h>

#include "model/run.h"

/* The object of R, with "steps" (an array of the N attempts STEPS) when
 * STEPS is not NULL. A new reference; NULL when out of memory. */
json_t *sked__run_to_json(const sked_run *r, const sked_step_record *steps,
                          size_t n);

#endif
