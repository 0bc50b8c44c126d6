/* SPDX-License-Identifier: MIT */
/* Runs as JSON (run_json.h). */
#include "store/run_json.h"

#include "model/schedule_json.h"

/* TEXT as embedded JSON when it is JSON, else as a string. */
static json_t *maybe_json(const char *text)
{
    if (!text)
        return json_null();
    json_t *v =
        json_loads(text, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, NULL);
    return v ? v : json_string(text);
}

static json_t *step_json(const sked_step_record *s)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "step", json_string(s->step));
    json_object_set_new(o, "compensation", json_boolean(s->compensation));
    json_object_set_new(o, "attempt", json_integer(s->attempt));
    json_object_set_new(o, "status",
                        json_string(sked__step_status_name(s->status)));
    json_object_set_new(o, "exit_code",
                        s->exit_code >= 0 ? json_integer(s->exit_code)
                                          : json_null());
    json_object_set_new(o, "started_at", sked__json_instant(s->started_at));
    json_object_set_new(o, "finished_at", sked__json_instant(s->finished_at));
    json_object_set_new(o, "duration_secs",
                        s->finished_at == SKED_TIME_NONE
                            ? json_null()
                            : sked__json_secs(s->finished_at - s->started_at));
    json_object_set_new(o, "output", sked__json_str(s->output));
    json_object_set_new(o, "stderr", sked__json_str(s->stderr_text));
    json_object_set_new(o, "output_truncated", json_boolean(s->truncated & 1));
    json_object_set_new(o, "stderr_truncated", json_boolean(s->truncated & 2));
    json_object_set_new(o, "error", sked__json_str(s->error));
    json_object_set_new(o, "error_code", sked__json_str(s->error_code));
    return o;
}

static void set_times(json_t *o, const sked_run *r)
{
    json_object_set_new(o, "scheduled_for",
                        sked__json_instant(r->scheduled_for));
    json_object_set_new(o, "not_before", sked__json_instant(r->not_before));
    json_object_set_new(o, "created_at", sked__json_instant(r->created_at));
    json_object_set_new(o, "started_at", sked__json_instant(r->started_at));
    json_object_set_new(o, "finished_at", sked__json_instant(r->finished_at));
    json_object_set_new(o, "updated_at", sked__json_instant(r->updated_at));
    json_object_set_new(o, "lease_until", sked__json_instant(r->lease_until));
    json_object_set_new(o, "cancel_requested_at",
                        sked__json_instant(r->cancel_requested_at));
    json_object_set_new(o, "timeout_exceeded_at",
                        sked__json_instant(r->timeout_exceeded_at));
    json_object_set_new(o, "duration_secs",
                        r->started_at == SKED_TIME_NONE ||
                                r->finished_at == SKED_TIME_NONE
                            ? json_null()
                            : sked__json_secs(r->finished_at - r->started_at));
}

json_t *sked__run_to_json(const sked_run *r, const sked_step_record *steps,
                          size_t n)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "id", json_string(r->id));
    json_object_set_new(o, "workflow", json_string(r->workflow));
    json_object_set_new(o, "workflow_version",
                        sked__json_str(r->workflow_version));
    json_object_set_new(o, "status",
                        json_string(sked__run_status_name(r->status)));
    json_object_set_new(o, "trigger",
                        json_string(sked__trigger_name(r->trigger)));
    json_object_set_new(o, "schedule", sked__json_str(r->schedule));
    json_object_set_new(o, "queue", sked__json_str(r->queue));
    json_object_set_new(o, "priority", json_integer(r->priority));
    json_object_set_new(o, "concurrency_key",
                        sked__json_str(r->concurrency_key));
    json_object_set_new(o, "context", maybe_json(r->context));
    json_object_set_new(o, "output", maybe_json(r->output));
    json_object_set_new(o, "error", sked__json_str(r->error));
    json_object_set_new(o, "error_code", sked__json_str(r->error_code));
    json_object_set_new(o, "attempts", json_integer(r->attempts));
    json_object_set_new(o, "executor", sked__json_str(r->executor));
    set_times(o, r);
    if (steps) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < n; i++)
            json_array_append_new(a, step_json(&steps[i]));
        json_object_set_new(o, "steps", a);
    }
    return o;
}
