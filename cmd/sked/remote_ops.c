/* SPDX-License-Identifier: MIT */
/* Remote mode (remote_ops.h): the target_ops of target.h as requests of
 * docs/api.md, their answers turned back into what direct mode returns.
 * A schedule is sent as the model's definition
 * (sked__schedule_definition_json: without the state the scheduler
 * keeps, which the API refuses as read-only) and comes back whole, read
 * with SKED__SCHEDULE_JSON_STATE, so that the commands print it from the
 * very structure direct mode has from the engine; a list, an apply's and
 * a backfill's counts are read with the readers beside the API's writers
 * (engine/answer.h); runs, workflows and events are the API's text,
 * which is the engine's. The other requests, apply's and backfill's
 * bodies and the lists' query strings, are written by the writers
 * beside the API's readers (engine/request.h). */
#include "remote_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_text.h"
#include "cli.h"
#include "engine/answer.h"
#include "engine/request.h"
#include "model/calendar.h"
#include "model/run_page.h"
#include "model/schedule.h"
#include "model/schedule_json.h"
#include "output.h"

typedef struct remote_target {
    target base;
    remote *r;
} remote_target;

static remote *remote_of(target *t)
{
    return ((remote_target *) t)->r;
}

char *remote_path(const char *prefix, const char *name, const char *suffix)
{
    char *esc = remote_escape(name), *p = NULL;

    if (esc && !(p = cli_format("%s/%s%s", prefix, esc, suffix)))
        p = NULL;
    free(esc);
    return p;
}

static int no_memory(sked_error *err)
{
    return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
}

int remote_bad_answer(const char *what, sked_error *err)
{
    cli_fail_once(SKED_EIO, "the server's answer is not %s", what);
    return sked__error_set(err, SKED_EIO, NULL, -1, "bad answer");
}

/* GET PATH (taken: freed here) into *out. */
static int get_json(remote *r, char *path, json_t **out, sked_error *err)
{
    int rc;

    *out = NULL;
    if (!path)
        return no_memory(err);
    rc = remote_call(r, "GET", path, NULL, NULL, out, err);
    free(path);
    return rc;
}

/* ---- schedules ----------------------------------------------------------- */

/* The definition of S as the API takes it, the model's; KEEP_NAME for
 * create and apply (PATCH names the schedule in its path). */
static json_t *definition(const sked_schedule *s, bool keep_name,
                          sked_error *err)
{
    json_t *j = NULL;

    if (sked__schedule_definition_json(s, &j, err) < 0)
        return NULL;
    if (!keep_name) {
        json_object_del(j, "name");
        json_object_del(j, "paused");
    }
    return j;
}

int remote_schedule_get(remote *r, const char *name, sked_schedule *out,
                        sked_error *err)
{
    json_t *j = NULL;
    int rc = get_json(r, remote_path("/api/v1/schedules", name, ""), &j, err);
    sked_error perr;

    sked_error_clear(&perr);
    if (rc == 0) {
        sked_schedule_done(out);
        if (sked__schedule_from_json(j, SKED__SCHEDULE_JSON_STATE, out, &perr) <
            0)
            rc = remote_bad_answer("a schedule", err);
    }
    json_decref(j);
    return rc;
}

static int schedule_get(target *t, const char *name, sked_schedule *out,
                        sked_error *err)
{
    return remote_schedule_get(remote_of(t), name, out, err);
}

/* POST (CREATE) or PATCH the definition of S. */
static int schedule_write(target *t, const sked_schedule *s, bool create,
                          sked_error *err)
{
    json_t *body = definition(s, create, err), *answer = NULL;
    char *path = create ? strdup("/api/v1/schedules")
                        : remote_path("/api/v1/schedules", s->name, "");
    int rc;

    if (!body || !path)
        rc = err->code ? err->code : no_memory(err);
    else
        rc = remote_call(remote_of(t), create ? "POST" : "PATCH", path, body,
                         NULL, &answer, err);
    /* SPEC 3.5: the server's warnings, printed as direct mode prints its
     * own. */
    out_warnings(json_object_get(answer, "warnings"));
    json_decref(answer);
    json_decref(body);
    free(path);
    return rc;
}

static int schedule_create(target *t, const sked_schedule *s, sked_error *err)
{
    return schedule_write(t, s, true, err);
}

static int schedule_update(target *t, const sked_schedule *s, sked_error *err)
{
    return schedule_write(t, s, false, err);
}

static int schedule_list(target *t, const sked_schedule_query *q,
                         sked_schedule_page *out, sked_error *err)
{
    char *path = sked__query_schedules("/api/v1/schedules", q);
    json_t *page = NULL;
    sked_error perr;
    int rc;

    sked_error_clear(&perr);
    if ((rc = get_json(remote_of(t), path, &page, err)) == 0 &&
        sked__answer_schedule_page_read(page, out, &perr) != 0)
        rc = remote_bad_answer("a list of schedules", err);
    json_decref(page);
    return rc;
}

/* POST .../VERB for pause, resume and trigger; RUN_ID (may be NULL)
 * receives the run_id of the answer. */
static int schedule_post(target *t, const char *name, const char *verb,
                         char **run_id, sked_error *err)
{
    char *path = NULL, suffix[24];
    json_t *j = NULL;
    const char *id;
    int rc;

    snprintf(suffix, sizeof suffix, "/%s", verb);
    if (!(path = remote_path("/api/v1/schedules", name, suffix)))
        return no_memory(err);
    rc = remote_call(remote_of(t), "POST", path, NULL, NULL, &j, err);
    free(path);
    if (rc == 0 && run_id) {
        id = json_string_value(json_object_get(j, "run_id"));
        if (!id)
            rc = remote_bad_answer("a run id", err);
        else if (!(*run_id = strdup(id)))
            rc = no_memory(err);
    }
    json_decref(j);
    return rc;
}

static int schedule_pause(target *t, const char *name, sked_error *err)
{
    return schedule_post(t, name, "pause", NULL, err);
}

static int schedule_resume(target *t, const char *name, sked_error *err)
{
    return schedule_post(t, name, "resume", NULL, err);
}

static int schedule_trigger(target *t, const char *name, char **run_id,
                            sked_error *err)
{
    return schedule_post(t, name, "trigger", run_id, err);
}

/* The body BODY goes as JSON: itself when it is JSON, else a string, so
 * the run's output reads the same as a direct ping's. */
static int schedule_ping(target *t, const char *name, sked_ping_status status,
                         const char *body, char **run_id, sked_error *err)
{
    static const char *const words[] = {"start", "success", "fail"};
    char suffix[32];
    char *path;
    json_t *b = NULL, *j = NULL;
    const char *id;
    int rc;

    snprintf(suffix, sizeof suffix, "/ping?status=%s", words[status]);
    if (body && !(b = json_loads(body, JSON_DECODE_ANY, NULL)))
        b = json_string(body);
    if (!(path = remote_path("/api/v1/schedules", name, suffix)) ||
        (body && !b)) {
        free(path);
        json_decref(b);
        return no_memory(err);
    }
    rc = remote_call(remote_of(t), "POST", path, b, NULL, &j, err);
    free(path);
    json_decref(b);
    id = rc == 0 ? json_string_value(json_object_get(j, "id")) : NULL;
    if (rc == 0 && !id)
        rc = remote_bad_answer("a run", err);
    else if (rc == 0 && !(*run_id = strdup(id)))
        rc = no_memory(err);
    json_decref(j);
    return rc;
}

static int schedule_delete(target *t, const char *name, sked_error *err)
{
    char *path = remote_path("/api/v1/schedules", name, "");
    int rc;

    if (!path)
        return no_memory(err);
    rc = remote_call(remote_of(t), "DELETE", path, NULL, NULL, NULL, err);
    free(path);
    return rc;
}

static int schedule_backfill(target *t, const char *name, sked_time start,
                             sked_time end, sked_progress_fn progress,
                             void *ctx, sked_backfill_result *res,
                             sked_error *err)
{
    return remote_schedule_backfill(remote_of(t), t->tzdb, name, start, end,
                                    progress, ctx, res, err);
}

static int schedule_apply(target *t, const target_apply *a,
                          sked_apply_result *res, sked_error *err)
{
    /* The writer only reads the set. */
    const sked__apply_request req = {(sked_schedule *) a->set, a->n, a->prune,
                                     a->app};
    json_t *body = sked__request_apply(&req, err), *j = NULL;
    int rc;

    if (!body)
        return err->code ? err->code : no_memory(err);
    rc = remote_call(remote_of(t), "PUT", "/api/v1/schedules", body, NULL, &j,
                     err);
    json_decref(body);
    out_warnings(json_object_get(j, "warnings")); /* SPEC 3.5 */
    if (rc == 0 && sked__answer_apply_read(j, res) != 0)
        rc = remote_bad_answer("an apply's counts", err);
    json_decref(j);
    return rc;
}

/* ---- runs, workflows, events --------------------------------------------- */

/* The text of the answer J (taken) into *out. */
static int text_of(json_t *j, char **out, sked_error *err)
{
    int rc = 0;

    if (!j)
        rc = remote_bad_answer("JSON", err);
    else if (!(*out = sked__json_text(j, NULL)))
        rc = no_memory(err);
    json_decref(j);
    return rc;
}

/* GET PATH (taken) into *out as text. */
static int get_text(target *t, char *path, char **out, sked_error *err)
{
    json_t *j = NULL;
    int rc = get_json(remote_of(t), path, &j, err);

    if (rc != 0) {
        json_decref(j);
        return rc;
    }
    return text_of(j, out, err);
}

/* The API's answer J (taken) as a page of runs: one run when ONE. */
static int run_page(json_t *j, bool one, sked_run_page *out, sked_error *err)
{
    sked_error why;

    sked_error_clear(&why);
    if (sked__run_page_from_json(j, one, out, &why) == 0)
        return 0;
    cli_fail_once(SKED_EIO, "the server's answer is not %s: %s",
                  one ? "a run" : "a list of runs", why.msg);
    return sked__error_set(err, SKED_EIO, NULL, -1, "bad answer");
}

/* GET PATH (taken) as a page of runs. */
static int get_runs(target *t, char *path, bool one, sked_run_page *out,
                    sked_error *err)
{
    json_t *j = NULL;
    int rc = get_json(remote_of(t), path, &j, err);

    if (rc != 0) {
        json_decref(j);
        return rc;
    }
    return run_page(j, one, out, err);
}

static int run_list(target *t, const sked_run_query *q, sked_run_page *out,
                    sked_error *err)
{
    return get_runs(t, sked__query_runs("/api/v1/runs", q), false, out, err);
}

static int run_get(target *t, const char *id, sked_run_page *out,
                   sked_error *err)
{
    return get_runs(t, remote_path("/api/v1/runs", id, ""), true, out, err);
}

static int run_cancel(target *t, const char *id, sked_run_page *out,
                      sked_error *err)
{
    char *path = remote_path("/api/v1/runs", id, "/cancel");
    json_t *j = NULL;
    int rc;

    if (!path)
        return no_memory(err);
    rc = remote_call(remote_of(t), "POST", path, NULL, NULL, &j, err);
    free(path);
    if (rc != 0) {
        json_decref(j);
        return rc;
    }
    return run_page(j, true, out, err);
}

static int run_start(target *t, const char *workflow, const char *input,
                     const char *key, sked_run_page *out, sked_error *err)
{
    char *path = remote_path("/api/v1/workflows", workflow, "/runs");
    json_t *body = input ? json_loads(input, 0, NULL) : json_object(),
           *j = NULL;
    int rc;

    /* The command checked INPUT as the engine does: it parses. */
    if (!path || !body)
        rc = no_memory(err);
    else
        rc = remote_call(remote_of(t), "POST", path, body, key, &j, err);
    json_decref(body);
    free(path);
    if (rc != 0) {
        json_decref(j);
        return rc;
    }
    return run_page(j, true, out, err);
}

static int workflow_list(target *t, sked_workflow_page *out, sked_error *err)
{
    json_t *j = NULL;
    sked_error why;
    int rc = get_json(remote_of(t), strdup("/api/v1/workflows"), &j, err);

    if (rc != 0) {
        json_decref(j);
        return rc;
    }
    sked_error_clear(&why);
    if (sked__workflow_page_from_json(j, json_object_get(j, "workflows"), out,
                                      &why) == 0)
        return 0;
    cli_fail_once(SKED_EIO,
                  "the server's answer is not a list of workflows: %s",
                  why.msg);
    return sked__error_set(err, SKED_EIO, NULL, -1, "bad answer");
}

static int event_list(target *t, int64_t after, size_t limit, char **out,
                      sked_error *err)
{
    const sked__event_query q = {.after = after, .limit = limit};

    return get_text(t, sked__query_events("/api/v1/events", &q), out, err);
}

typedef struct follow_ctx {
    target_event_fn fn;
    void *ctx;
} follow_ctx;

static void on_event(void *ctx, const char *id, const char *type,
                     const char *data)
{
    const follow_ctx *f = ctx;

    (void) id, (void) type;
    f->fn(f->ctx, data);
}

static int event_follow(target *t, int64_t after, target_event_fn fn, void *ctx,
                        volatile const int *stop, sked_error *err)
{
    const sked__event_query q = {.follow = true,
                                 .after = after < 0 ? -1 : after};
    char *path = sked__query_events("/api/v1/events", &q);
    follow_ctx f = {fn, ctx};
    int rc;

    if (!path)
        return no_memory(err);
    rc = remote_stream(remote_of(t), path, on_event, &f, stop, err);
    free(path);
    return rc;
}

/* ---- calendars ------------------------------------------------------- */

/* POST (CREATE) the calendar C, or PUT it under its name. */
static int calendar_send(target *t, const sked_calendar *c, bool create,
                         bool *created, sked_error *err)
{
    json_t *body = sked__calendar_to_json(c, true), *answer = NULL;
    char *path = create ? strdup("/api/v1/calendars")
                        : remote_path("/api/v1/calendars", c->name, "");
    int rc;

    if (!create && body)
        json_object_del(body, "name");
    if (!body || !path)
        rc = no_memory(err);
    else
        rc = remote_call(remote_of(t), create ? "POST" : "PUT", path, body,
                         NULL, &answer, err);
    /* The answer is the calendar; PUT tells a new one by its created_at. */
    if (rc == 0 && created)
        *created = json_equal(json_object_get(answer, "created_at"),
                              json_object_get(answer, "updated_at"));
    json_decref(answer);
    json_decref(body);
    free(path);
    return rc;
}

static int calendar_create(target *t, const sked_calendar *c, sked_error *err)
{
    return calendar_send(t, c, true, NULL, err);
}

static int calendar_put(target *t, const sked_calendar *c, bool *created,
                        sked_error *err)
{
    return calendar_send(t, c, false, created, err);
}

static int calendar_get(target *t, const char *name, sked_calendar *out,
                        sked_error *err)
{
    json_t *j = NULL;
    sked_error perr;
    int rc = get_json(remote_of(t), remote_path("/api/v1/calendars", name, ""),
                      &j, err);

    sked_error_clear(&perr);
    if (rc == 0 &&
        sked__calendar_from_json(j, SKED__CALENDAR_JSON_STATE, out, &perr) != 0)
        rc = remote_bad_answer("a calendar", err);
    json_decref(j);
    return rc;
}

static int calendar_list(target *t, sked_calendar **out, size_t *n,
                         sked_error *err)
{
    json_t *j = NULL, *a, *x;
    sked_error perr;
    size_t i, k = 0;
    int rc = get_json(remote_of(t), strdup("/api/v1/calendars"), &j, err);

    *out = NULL;
    *n = 0;
    a = json_object_get(j, "calendars");
    if (rc == 0 && !json_is_array(a))
        rc = remote_bad_answer("a list of calendars", err);
    if (rc == 0 && json_array_size(a) > 0 &&
        !(*out = calloc(json_array_size(a), sizeof **out)))
        rc = no_memory(err);
    sked_error_clear(&perr);
    json_array_foreach(a, i, x)
    {
        if (rc != 0)
            break;
        if (sked__calendar_from_json(x, SKED__CALENDAR_JSON_STATE, &(*out)[i],
                                     &perr) != 0)
            rc = remote_bad_answer("a list of calendars", err);
        else
            k++;
    }
    json_decref(j);
    if (rc != 0) {
        sked_calendars_free(*out, k);
        *out = NULL;
        return rc;
    }
    *n = k;
    return 0;
}

static int calendar_delete(target *t, const char *name, sked_error *err)
{
    char *path = remote_path("/api/v1/calendars", name, "");
    int rc;

    if (!path)
        return no_memory(err);
    rc = remote_call(remote_of(t), "DELETE", path, NULL, NULL, NULL, err);
    free(path);
    return rc;
}

/* The answer's days A into *out, *n. */
static int days_read(const json_t *a, sked_calendar_day **out, size_t *n,
                     sked_error *err)
{
    sked_error perr;
    size_t i;
    json_t *x;

    if (!json_is_array(a))
        return remote_bad_answer("a list of days", err);
    if (json_array_size(a) > 0 &&
        !(*out = calloc(json_array_size(a), sizeof **out)))
        return no_memory(err);
    sked_error_clear(&perr);
    json_array_foreach(a, i, x)
    {
        sked_calendar_day *d = &(*out)[i];
        if (sked_date_parse(json_string_value(json_object_get(x, "date")),
                            "date", &d->day, &perr) != 0)
            return remote_bad_answer("a list of days", err);
        d->in_set = json_is_true(json_object_get(x, "holiday"));
        d->business = json_is_true(json_object_get(x, "business"));
    }
    *n = json_array_size(a);
    return 0;
}

/* The UTC offset of the local time LOCAL ("...+01:00" or "...Z") into
 * *out; false when there is none. */
static bool local_offset(const char *local, int32_t *out)
{
    size_t n = local ? strlen(local) : 0;
    int h, m;

    if (n > 0 && local[n - 1] == 'Z') {
        *out = 0;
        return true;
    }
    if (n < 6 || (local[n - 6] != '+' && local[n - 6] != '-') ||
        sscanf(local + n - 5, "%2d:%2d", &h, &m) != 2)
        return false;
    *out = (int32_t) ((h * 3600 + m * 60) * (local[n - 6] == '-' ? -1 : 1));
    return true;
}

/* One occurrence of the API's preview into *it. */
static int preview_item_read(const json_t *o, sked_preview_item *it,
                             sked_error *err)
{
    const char *at = json_string_value(json_object_get(o, "at"));
    const char *occ = json_string_value(json_object_get(o, "occurrence"));
    const char *mark = json_string_value(json_object_get(o, "mark"));
    const char *cal = json_string_value(json_object_get(o, "calendar"));

    *it = (sked_preview_item){.mark = SKED_OCC_NORMAL};
    if (!at || sked_time_parse(at, &it->at, NULL) != 0 ||
        (occ && sked_time_parse(occ, &it->occurrence, NULL) != 0))
        return sked__error_set(err, SKED_EIO, "occurrences", -1,
                               "an occurrence without its instant");
    if (!occ)
        it->occurrence = it->at;
    it->excluded = cal && strcmp(cal, "excluded") == 0;
    it->skipped = json_is_true(json_object_get(o, "skipped"));
    it->has_local = local_offset(json_string_value(json_object_get(o, "local")),
                                 &it->utoff);
    for (int m = SKED_OCC_SHIFTED; mark && m <= SKED_OCC_SECOND_PASS; m++)
        if (strcmp(mark, sked_occ_mark_name((sked_occ_mark) m)) == 0)
            it->mark = (sked_occ_mark) m;
    return 0;
}

static int schedule_preview(target *t, const char *name, sked_time after,
                            size_t max, sked_preview *out, sked_error *err)
{
    char when[SKED_TIME_STRLEN], suffix[96];
    json_t *j = NULL, *list;
    int rc;

    *out = (sked_preview){NULL, 0};
    if (sked_time_format(after, when, sizeof when) < 0)
        return sked__error_set(err, SKED_EINVAL, "after", -1, "out of range");
    snprintf(suffix, sizeof suffix, "/occurrences?n=%zu&after=%s", max, when);
    rc = get_json(remote_of(t), remote_path("/api/v1/schedules", name, suffix),
                  &j, err);
    list = json_object_get(j, "occurrences");
    if (rc == 0 && json_array_size(list) > 0 &&
        !(out->items = calloc(json_array_size(list), sizeof *out->items)))
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    for (size_t i = 0; rc == 0 && i < json_array_size(list); i++) {
        rc = preview_item_read(json_array_get(list, i), &out->items[i], err);
        out->n = rc == 0 ? i + 1 : out->n;
    }
    json_decref(j);
    if (rc != 0)
        sked_preview_done(out);
    return rc;
}

/* The body of a replay's request for O. */
static json_t *simulate_body(const sked_simulate_options *o)
{
    json_t *b = json_pack(
        "{s:o, s:o, s:f, s:f, s:i}", "from", sked__json_instant(o->from), "to",
        sked__json_instant(o->to), "tick_secs",
        (double) o->tick / SKED_USEC_PER_SEC, "run_duration_secs",
        (double) o->run_duration / SKED_USEC_PER_SEC, "limit",
        SKED_SIMULATE_REMOTE_MAX);
    json_t *down = json_array();

    for (size_t i = 0; b && down && i < o->ndown; i++)
        if (json_array_append_new(
                down, json_pack("{s:o, s:o}", "from",
                                sked__json_instant(o->down[i].from), "to",
                                sked__json_instant(o->down[i].to))) != 0) {
            json_decref(down);
            down = NULL;
        }
    if (!b || !down || json_object_set_new(b, "down", down) != 0) {
        json_decref(b);
        return NULL;
    }
    return b;
}

static int schedule_simulate(target *t, const char *name,
                             const sked_simulate_options *o,
                             sked_simulation *out, sked_error *err)
{
    char *path = remote_path("/api/v1/schedules", name, "/simulate");
    json_t *body = simulate_body(o), *j = NULL, *list;
    size_t n;
    int rc;

    *out = (sked_simulation){NULL, 0};
    if (!path || !body)
        rc = no_memory(err);
    else
        rc = remote_call(remote_of(t), "POST", path, body, NULL, &j, err);
    free(path);
    json_decref(body);
    list = json_object_get(j, "decisions");
    n = json_array_size(list);
    if (rc == 0 && json_is_true(json_object_get(j, "truncated")))
        rc = sked__error_set(err, SKED_ETOOBIG, "to", -1,
                             "the period holds more than %d decisions, "
                             "the most a server answers; shorten it",
                             SKED_SIMULATE_REMOTE_MAX);
    if (rc == 0 && n > 0 && !(out->items = calloc(n, sizeof *out->items)))
        rc = no_memory(err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        rc = sked__answer_sim_decision_read(json_array_get(list, i),
                                            &out->items[i], err);
        out->n = rc == 0 ? i + 1 : out->n;
    }
    json_decref(j);
    if (rc != 0)
        sked_simulation_done(out);
    return rc;
}

static int calendar_days(target *t, const char *name,
                         const sked_calendar_days_query *q,
                         sked_calendar_day **out, size_t *n, sked_error *err)
{
    char from[16], to[16], suffix[64];
    json_t *j = NULL;
    int rc;

    *out = NULL;
    *n = 0;
    (void) sked_date_format(q->from, from, sizeof from);
    (void) sked_date_format(q->to, to, sizeof to);
    snprintf(suffix, sizeof suffix, "/days?from=%s&to=%s&business=%s", from, to,
             q->business ? "true" : "false");
    rc = get_json(remote_of(t), remote_path("/api/v1/calendars", name, suffix),
                  &j, err);
    if (rc == 0 && (rc = days_read(json_object_get(j, "days"), out, n, err))) {
        free(*out);
        *out = NULL;
    }
    json_decref(j);
    return rc;
}

static void done(target *t)
{
    remote_close(remote_of(t));
    free(t);
}

static int calendar_apply(target *t, const target_calendar_apply *a,
                          sked_apply_result *res, sked_error *err)
{
    /* The writer only reads the set. */
    const sked__calendar_apply_request req = {(sked_calendar *) a->set, a->n,
                                              a->prune, a->app};
    json_t *body = sked__request_calendar_apply(&req, err), *j = NULL;
    int rc;

    if (!body)
        return err->code ? err->code : no_memory(err);
    rc = remote_call(remote_of(t), "PUT", "/api/v1/calendars", body, NULL, &j,
                     err);
    json_decref(body);
    if (rc == 0 && sked__answer_apply_read(j, res) != 0)
        rc = remote_bad_answer("an apply's counts", err);
    json_decref(j);
    return rc;
}

/* ---- one occurrence ------------------------------------------------------ */

static int schedule_skip(target *t, const char *name, sked_time at, bool skip,
                         const char *actor, const char *reason, bool *changed,
                         sked_error *err)
{
    const sked__skip_request req = {at, reason, actor};
    char when[SKED_TIME_STRLEN], suffix[96];
    json_t *body = NULL, *j = NULL;
    char *path;
    int rc;

    if (sked_time_format(at, when, sizeof when) < 0)
        return sked__error_set(err, SKED_EINVAL, "at", -1, "out of range");
    if (skip) {
        if (!(body = sked__request_skip(&req, err)))
            return err->code ? err->code : no_memory(err);
        path = remote_path("/api/v1/schedules", name, "/skips");
    } else {
        snprintf(suffix, sizeof suffix, "/skips/%s?actor=%s", when,
                 actor ? actor : "api");
        path = remote_path("/api/v1/schedules", name, suffix);
    }
    if (!path) {
        json_decref(body);
        return no_memory(err);
    }
    rc = remote_call(remote_of(t), skip ? "POST" : "DELETE", path, body, NULL,
                     &j, err);
    free(path);
    json_decref(body);
    if (rc == 0 && changed)
        *changed = json_is_true(json_object_get(j, "changed"));
    json_decref(j);
    return rc;
}

static int schedule_skips(target *t, const char *name, sked_skip **out,
                          size_t *n, sked_error *err)
{
    json_t *j = NULL, *list, *o;
    size_t i;
    int rc;

    *out = NULL;
    *n = 0;
    rc = get_json(remote_of(t),
                  remote_path("/api/v1/schedules", name, "/skips"), &j, err);
    if (rc != 0)
        return rc;
    list = json_object_get(j, "skips");
    if (!json_is_array(list)) {
        json_decref(j);
        return remote_bad_answer("a list of skips", err);
    }
    if (json_array_size(list) > 0 &&
        !(*out = calloc(json_array_size(list), sizeof **out))) {
        json_decref(j);
        return no_memory(err);
    }
    json_array_foreach(list, i, o)
    {
        sked_skip *k = &(*out)[i];
        const char *at = json_string_value(json_object_get(o, "occurrence"));
        const char *c = json_string_value(json_object_get(o, "created_at"));
        const char *actor = json_string_value(json_object_get(o, "actor"));
        const char *why = json_string_value(json_object_get(o, "reason"));

        *n = i + 1;
        if (!at || sked_time_parse(at, &k->occurrence, NULL) != 0 ||
            (c && sked_time_parse(c, &k->created_at, NULL) != 0)) {
            rc = remote_bad_answer("a skip", err);
            break;
        }
        k->schedule = strdup(name);
        k->actor = strdup(actor ? actor : "");
        k->reason = why ? strdup(why) : NULL;
        if (!k->schedule || !k->actor || (why && !k->reason)) {
            rc = no_memory(err);
            break;
        }
    }
    json_decref(j);
    if (rc != 0) {
        sked_skips_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

static int schedule_run_at(target *t, const char *name, sked_time at,
                           char **run_id, bool *created, sked_error *err)
{
    const sked__skip_request req = {at, NULL, NULL};
    json_t *body = sked__request_skip(&req, err), *j = NULL;
    char *path = remote_path("/api/v1/schedules", name, "/runs");
    const char *id;
    int rc;

    if (!body || !path) {
        json_decref(body);
        free(path);
        return err->code ? err->code : no_memory(err);
    }
    rc = remote_call(remote_of(t), "POST", path, body, NULL, &j, err);
    free(path);
    json_decref(body);
    if (rc == 0) {
        id = json_string_value(json_object_get(j, "run_id"));
        if (!id)
            rc = remote_bad_answer("a run id", err);
        else if (run_id && !(*run_id = strdup(id)))
            rc = no_memory(err);
        if (created)
            *created = json_is_true(json_object_get(j, "created"));
    }
    json_decref(j);
    return rc;
}

static int notify(target *t, const target_notify *q, char **out,
                  sked_error *err)
{
    return remote_notify(remote_of(t), q, out, err);
}

static int notifier_apply(target *t, const target_notifier_apply *a,
                          sked_apply_result *res, sked_error *err)
{
    return remote_notifier_apply(remote_of(t), a, res, err);
}

static const target_ops remote_ops = {TARGET_OPS(TARGET_OP)};

int remote_target_open(const char *url, sked_tzdb *tzdb, target **out)
{
    remote_target *rt = calloc(1, sizeof *rt);
    int rc;

    if (!rt)
        return cli_fail(SKED_ENOMEM, "out of memory");
    if ((rc = remote_open(url, &rt->r)) != 0) {
        free(rt);
        return sked_error_exit_code(rc);
    }
    rt->base = (target){.ops = &remote_ops, .tzdb = tzdb};
    *out = &rt->base;
    return 0;
}
