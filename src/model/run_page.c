/* SPDX-License-Identifier: MIT */
/* Pages of runs and workflows (run_page.h): their storage, their
 * freeing, and the API's JSON read back into them, the inverse of
 * run_json.c field for field (the run's through its field table). */
#include "model/run_page.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/json_text.h"
#include "model/run_fields.h"

void sked__page_own_free(sked__page_own *o)
{
    if (!o)
        return;
    sked__runs_free(o->runs, o->nruns);
    sked__step_records_free(o->steps, o->nsteps);
    free(o->step_views);
    free(o->cursor);
    json_decref(o->json);
    for (size_t i = 0; i < o->ntexts; i++)
        free(o->texts[i]);
    free(o->texts);
    free(o);
}

void sked_run_page_done(sked_run_page *p)
{
    if (!p)
        return;
    sked__page_own_free(p->own_);
    free(p->items);
    *p = (sked_run_page){0};
}

void sked_workflow_page_done(sked_workflow_page *p)
{
    if (!p)
        return;
    sked__page_own_free(p->own_);
    free(p->items);
    *p = (sked_workflow_page){0};
}

void sked_queue_page_done(sked_queue_page *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++)
        free(p->items[i].name);
    free(p->items);
    *p = (sked_queue_page){0};
}

/* ---- reading the JSON back -------------------------------------------- */

/* Where a read is: the storage, the error, the path of the object. */
typedef struct reader {
    sked__page_own *own;
    sked_error *err;
    const char *path; /* "runs[3]", "" */
    size_t index;
    int rc;
} reader;

/* Fail R at KEY, once. */
static void bad(reader *r, const char *key)
{
    char field[96];

    if (r->rc != 0)
        return;
    if (r->path[0])
        snprintf(field, sizeof field, "%s[%zu].%s", r->path, r->index, key);
    else
        snprintf(field, sizeof field, "%s", key);
    r->rc = sked__error_set(r->err, SKED_EINVAL, field, -1,
                            "%s: missing or not of its kind", field);
}

static const char *get_text(reader *r, const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    if (json_is_string(v))
        return json_string_value(v);
    if (!json_is_null(v))
        bad(r, key);
    return NULL;
}

/* Keep TEXT (taken) in the page's storage. */
static const char *keep(reader *r, char *text)
{
    char **t =
        text ? sked__realloc(r->own->texts, (r->own->ntexts + 1) * sizeof *t)
             : NULL;

    if (!t) {
        free(text);
        if (r->rc == 0)
            r->rc = sked__error_set(r->err, SKED_ENOMEM, NULL, -1, NULL);
        return NULL;
    }
    r->own->texts = t;
    t[r->own->ntexts++] = text;
    return text;
}

/* A document: the writer embeds text that is JSON as JSON and writes
 * other text as a string, so a string that would parse as JSON was
 * JSON text holding a string, and is written back as that text. */
static const char *get_doc(reader *r, const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    if (!v) {
        bad(r, key);
        return NULL;
    }
    if (json_is_null(v))
        return NULL;
    if (json_is_string(v)) {
        json_t *again = json_loads(json_string_value(v), JSON_DECODE_ANY, NULL);
        json_decref(again);
        if (!again)
            return json_string_value(v);
    }
    return keep(r, sked__json_text(v, NULL));
}

static int64_t get_int(reader *r, const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    if (!json_is_integer(v))
        bad(r, key);
    return json_integer_value(v);
}

/* An instant as the API writes it. */
static sked_time get_time(reader *r, const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    sked_time t = SKED_TIME_NONE;

    if (json_is_string(v) &&
        sked_time_parse(json_string_value(v), &t, NULL) == 0)
        return t;
    if (!json_is_null(v))
        bad(r, key);
    return SKED_TIME_NONE;
}

static bool get_bool(reader *r, const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    if (!json_is_boolean(v))
        bad(r, key);
    return json_is_true(v);
}

/* A word of PARSE (a status, a trigger) into *out. */
static void get_word(reader *r, const json_t *o, const char *key,
                     int (*parse)(const char *, int *), int *out)
{
    const char *w = get_text(r, o, key);

    if (!w || parse(w, out) != 0)
        bad(r, key);
}

static int parse_status(const char *w, int *out)
{
    sked_run_status s;
    int rc = sked__run_status_parse(w, &s);

    *out = (int) s;
    return rc;
}

static int parse_trigger(const char *w, int *out)
{
    sked_trigger t;
    int rc = sked__trigger_parse(w, &t);

    *out = (int) t;
    return rc;
}

static int parse_step_status(const char *w, int *out)
{
    sked_step_status s;
    int rc = sked__step_status_parse(w, &s);

    *out = (int) s;
    return rc;
}

static void step_from(reader *r, const json_t *o, sked_step_view *s)
{
    const json_t *exit = json_object_get(o, "exit_code");
    int status = 0;

    s->step = get_text(r, o, "step");
    if (!s->step)
        bad(r, "step");
    s->compensation = get_bool(r, o, "compensation");
    s->attempt = (int32_t) get_int(r, o, "attempt");
    get_word(r, o, "status", parse_step_status, &status);
    s->status = (sked_step_status) status;
    s->exit_code =
        json_is_null(exit) ? -1 : (int32_t) get_int(r, o, "exit_code");
    s->started_at = get_time(r, o, "started_at");
    s->finished_at = get_time(r, o, "finished_at");
    s->output = get_text(r, o, "output");
    s->stderr_text = get_text(r, o, "stderr");
    s->output_truncated = get_bool(r, o, "output_truncated");
    s->stderr_truncated = get_bool(r, o, "stderr_truncated");
    s->error = get_text(r, o, "error");
    s->error_code = get_text(r, o, "error_code");
}

/* One field by its kind (run_fields.h). */
#define READ_TEXT(key, m) v->m = get_text(r, o, key)
#define READ_DOC(key, m)  v->m = get_doc(r, o, key)
#define READ_I32(key, m)  v->m = (int32_t) get_int(r, o, key)
#define READ_TIME(key, m) v->m = get_time(r, o, key)
#define READ_STATUS(key, m)                                                    \
    get_word(r, o, key, parse_status, &word);                                  \
    v->m = (sked_run_status) word
#define READ_TRIGGER(key, m)                                                   \
    get_word(r, o, key, parse_trigger, &word);                                 \
    v->m = (sked_trigger) word
#define READ_FIELD(m, kind, col, key) READ_##kind(key, m);

/* Read the run object O into *v; its steps, when O has them, into the
 * page's step views from *next on. */
static void run_from(reader *r, const json_t *o, sked_run_view *v, size_t *next)
{
    const json_t *steps = json_object_get(o, "steps");
    int word = 0;

    if (!json_is_object(o)) {
        bad(r, "id");
        return;
    }
    SKED__RUN_SHOWN(READ_FIELD, READ_FIELD)
    if (!v->id)
        bad(r, "id");
    if (steps && !json_is_array(steps))
        bad(r, "steps");
    if (!json_is_array(steps) || r->rc != 0)
        return;
    v->steps = r->own->step_views + *next;
    v->nsteps = json_array_size(steps);
    for (size_t i = 0; i < v->nsteps; i++)
        step_from(r, json_array_get(steps, i), &r->own->step_views[*next + i]);
    *next += v->nsteps;
}

/* How many attempts the N run objects of RUNS hold. */
static size_t count_steps(const json_t *runs, size_t n, bool one)
{
    size_t total = 0;

    for (size_t i = 0; i < n; i++)
        total += json_array_size(
            json_object_get(one ? runs : json_array_get(runs, i), "steps"));
    return total;
}

int sked__run_page_from_json(json_t *j, bool one, sked_run_page *out,
                             sked_error *err)
{
    sked__page_own *own = sked__calloc(1, sizeof *own);
    const json_t *runs = one ? j : json_object_get(j, "runs");
    size_t n = one ? 1 : json_array_size(runs), next = 0;
    sked_run_page p = {.own_ = own, .n = n};
    reader r = {.own = own, .err = err, .path = one ? "" : "runs"};

    if (!own) {
        json_decref(j);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    own->json = j;
    if (!one && !json_is_array(runs))
        bad(&r, "runs");
    p.items = sked__calloc(n + 1, sizeof *p.items);
    own->step_views =
        sked__calloc(count_steps(runs, n, one) + 1, sizeof *own->step_views);
    if (r.rc == 0 && (!p.items || !own->step_views))
        r.rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    for (size_t i = 0; r.rc == 0 && i < n; i++) {
        r.index = i;
        run_from(&r, one ? runs : json_array_get(runs, i), &p.items[i], &next);
    }
    if (r.rc == 0 && !one) {
        r.path = "";
        p.next_cursor = get_text(&r, j, "next_cursor");
    }
    if (r.rc != 0) {
        sked_run_page_done(&p);
        return r.rc;
    }
    *out = p;
    return 0;
}

int sked__workflow_page_from_json(json_t *root, const json_t *list,
                                  sked_workflow_page *out, sked_error *err)
{
    sked__page_own *own = sked__calloc(1, sizeof *own);
    size_t n = json_array_size(list);
    sked_workflow_page p = {.own_ = own, .n = n};
    reader r = {.own = own, .err = err, .path = "workflows"};

    if (!own) {
        json_decref(root);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    own->json = root;
    if (!json_is_array(list))
        bad(&r, "workflows");
    if (r.rc == 0 && !(p.items = sked__calloc(n + 1, sizeof *p.items)))
        r.rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    for (size_t i = 0; r.rc == 0 && i < n; i++) {
        const json_t *w = json_array_get(list, i);
        const json_t *def = json_object_get(w, "definition");
        const json_t *at = json_object_get(w, "registered_at");
        r.index = i;
        p.items[i] = (sked_workflow_info){
            .name = get_text(&r, w, "name"),
            .version = get_text(&r, w, "version"),
            /* The store writes microseconds. */
            .registered_at = json_is_integer(at)
                                 ? json_integer_value(at)
                                 : get_time(&r, w, "registered_at")};
        if (def && !json_is_null(def))
            p.items[i].definition = keep(&r, sked__json_text(def, NULL));
        if (!p.items[i].name)
            bad(&r, "name");
    }
    if (r.rc != 0) {
        sked_workflow_page_done(&p);
        return r.rc;
    }
    *out = p;
    return 0;
}
