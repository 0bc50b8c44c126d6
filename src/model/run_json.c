/* SPDX-License-Identifier: MIT */
/* Runs, queues and workflow versions as JSON (run_json.h): the run's
 * fields through its field table (run_fields.h), which also fills a
 * run's public view, so a field added to the table shows in the view and
 * the JSON at once; its steps one by one. */
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

void sked__step_view_of(const sked_step_record *s, sked_step_view *out)
{
    *out = (sked_step_view){.step = s->step,
                            .compensation = s->compensation,
                            .attempt = s->attempt,
                            .status = s->status,
                            .exit_code = s->exit_code,
                            .started_at = s->started_at,
                            .finished_at = s->finished_at,
                            .output = s->output,
                            .stderr_text = s->stderr_text,
                            .output_truncated = (s->truncated & 1) != 0,
                            .stderr_truncated = (s->truncated & 2) != 0,
                            .error = s->error,
                            .error_code = s->error_code};
}

/* Copy field M: the view's members are the table's shown fields. */
#define VIEW_FIELD(m, kind, col, key) out->m = r->m;

void sked__run_view_of(const sked_run *r, sked_run_view *out)
{
    *out = (sked_run_view){0};
    SKED__RUN_SHOWN(VIEW_FIELD, VIEW_FIELD)
}

static json_t *step_json(const sked_step_view *s)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "step", json_string(s->step));
    json_object_set_new(o, "compensation", json_boolean(s->compensation));
    json_object_set_new(o, "attempt", json_integer(s->attempt));
    json_object_set_new(o, "status",
                        json_string(sked_step_status_name(s->status)));
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
    json_object_set_new(o, "output_truncated",
                        json_boolean(s->output_truncated));
    json_object_set_new(o, "stderr_truncated",
                        json_boolean(s->stderr_truncated));
    json_object_set_new(o, "error", sked__json_str(s->error));
    json_object_set_new(o, "error_code", sked__json_str(s->error_code));
    return o;
}

/* One field's value by its kind (run_fields.h). */
#define JSON_TEXT(v)    sked__json_str(v)
#define JSON_DOC(v)     maybe_json(v)
#define JSON_STATUS(v)  json_string(sked_run_status_name(v))
#define JSON_TRIGGER(v) json_string(sked_trigger_name(v))
#define JSON_I32(v)     json_integer(v)
#define JSON_TIME(v)    sked__json_instant(v)
/* Set field M of V in O under its JSON key. */
#define JSON_FIELD(m, kind, col, key)                                          \
    json_object_set_new(o, key, JSON_##kind(v->m));

json_t *sked__run_view_json(const sked_run_view *v)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    SKED__RUN_SHOWN(JSON_FIELD, JSON_FIELD)
    json_object_set_new(o, "duration_secs",
                        v->started_at == SKED_TIME_NONE ||
                                v->finished_at == SKED_TIME_NONE
                            ? json_null()
                            : sked__json_secs(v->finished_at - v->started_at));
    if (v->steps) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < v->nsteps; i++)
            json_array_append_new(a, step_json(&v->steps[i]));
        json_object_set_new(o, "steps", a);
    }
    return o;
}

/* A limit as JSON: null when 0 (not set). */
static json_t *limit_json(int32_t v)
{
    return v > 0 ? json_integer(v) : json_null();
}

/* A rate period is only meaningful with a rate limit: null without. */
json_t *sked__queue_json(const sked_queue_info *q)
{
    return json_pack(
        "{s:s, s:o, s:o, s:o, s:o, s:I, s:I}", "name", q->name, "concurrency",
        limit_json(q->concurrency), "worker_concurrency",
        limit_json(q->worker_concurrency), "rate_limit",
        limit_json(q->rate_limit), "rate_period_secs",
        q->rate_limit > 0 && q->rate_period > 0
            ? sked__json_secs(q->rate_period)
            : json_null(),
        "pending", (json_int_t) q->pending, "running", (json_int_t) q->running);
}

json_t *sked__workflow_info_json(const sked_workflow_info *w)
{
    json_t *def = w->definition ? json_loads(w->definition, 0, NULL) : NULL;
    return json_pack("{s:s?, s:s?, s:o, s:o}", "name", w->name, "version",
                     w->version, "registered_at",
                     sked__json_instant(w->registered_at), "definition",
                     def ? def : json_null());
}

/* The array of the N objects FN writes of ITEMS (SIZE bytes apart). */
static json_t *array_of(const void *items, size_t n, size_t size,
                        json_t *(*fn)(const void *) )
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, fn((const char *) items + i * size)) !=
            0) {
            json_decref(a);
            a = NULL;
        }
    return a;
}

static json_t *run_item(const void *v)
{
    return sked__run_view_json(v);
}

static json_t *workflow_item(const void *w)
{
    return sked__workflow_info_json(w);
}

static json_t *queue_item(const void *q)
{
    return sked__queue_json(q);
}

json_t *sked__run_list_json(const sked_run_view *v, size_t n,
                            const char *next_cursor)
{
    json_t *a = array_of(v, n, sizeof *v, run_item);

    return a ? json_pack("{s:o, s:o}", "runs", a, "next_cursor",
                         next_cursor ? json_string(next_cursor) : json_null())
             : NULL;
}

json_t *sked__workflow_list_json(const sked_workflow_info *w, size_t n)
{
    json_t *a = array_of(w, n, sizeof *w, workflow_item);

    return a ? json_pack("{s:o}", "workflows", a) : NULL;
}

json_t *sked__queue_list_json(const sked_queue_info *q, size_t n)
{
    json_t *a = array_of(q, n, sizeof *q, queue_item);

    return a ? json_pack("{s:o}", "queues", a) : NULL;
}
