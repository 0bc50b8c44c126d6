/* SPDX-License-Identifier: MIT */
/* Runs as JSON (run_json.h): the run's fields through its field table
 * (run_fields.h), its steps one by one. */
#include "model/run_json.h"

#include "model/run_fields.h"
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

/* One field's value by its kind (run_fields.h). */
#define JSON_TEXT(v)    sked__json_str(v)
#define JSON_DOC(v)     maybe_json(v)
#define JSON_STATUS(v)  json_string(sked__run_status_name(v))
#define JSON_TRIGGER(v) json_string(sked__trigger_name(v))
#define JSON_I32(v)     json_integer(v)
#define JSON_TIME(v)    sked__json_instant(v)
#define JSON_OUTCOME(v) json_null()
/* Set field M of R in O, when the table gives it a JSON key. */
#define JSON_FIELD(m, kind, col, key)                                          \
    if (sizeof(key) > 1)                                                       \
        json_object_set_new(o, key, JSON_##kind(r->m));

json_t *sked__run_to_json(const sked_run *r, const sked_step_record *steps,
                          size_t n)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    SKED__RUN_FIELDS(JSON_FIELD, JSON_FIELD)
    json_object_set_new(o, "duration_secs",
                        r->started_at == SKED_TIME_NONE ||
                                r->finished_at == SKED_TIME_NONE
                            ? json_null()
                            : sked__json_secs(r->finished_at - r->started_at));
    if (steps) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < n; i++)
            json_array_append_new(a, step_json(&steps[i]));
        json_object_set_new(o, "steps", a);
    }
    return o;
}
