/* SPDX-License-Identifier: MIT */
/* Remote mode's operations on a schedule's occurrences (remote_ops.h):
 * the preview of the next ones and the replay of a period (their
 * answers read back into the structures direct mode returns), the skip
 * and unskip of one, the skips, and the run of one past occurrence, each
 * a request of docs/api.md. */
#include "remote_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/answer.h"
#include "engine/request.h"
#include "model/schedule_json.h"

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

int remote_op_schedule_preview(target *t, const char *name, sked_time after,
                               size_t max, sked_preview *out, sked_error *err)
{
    char when[SKED_TIME_STRLEN], suffix[96];
    json_t *j = NULL, *list;
    int rc;

    *out = (sked_preview){NULL, 0};
    if (sked_time_format(after, when, sizeof when) < 0)
        return sked__error_set(err, SKED_EINVAL, "after", -1, "out of range");
    snprintf(suffix, sizeof suffix, "/occurrences?n=%zu&after=%s", max, when);
    rc = remote_get_json(
        remote_of(t), remote_path("/api/v1/schedules", name, suffix), &j, err);
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

int remote_op_schedule_simulate(target *t, const char *name,
                                const sked_simulate_options *o,
                                sked_simulation *out, sked_error *err)
{
    char *path = remote_path("/api/v1/schedules", name, "/simulate");
    json_t *body = simulate_body(o), *j = NULL, *list;
    size_t n;
    int rc;

    *out = (sked_simulation){NULL, 0};
    if (!path || !body)
        rc = remote_no_memory(err);
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
        rc = remote_no_memory(err);
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

/* ---- one occurrence ------------------------------------------------------ */

int remote_op_schedule_skip(target *t, const char *name, sked_time at,
                            bool skip, const char *actor, const char *reason,
                            bool *changed, sked_error *err)
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
            return err->code ? err->code : remote_no_memory(err);
        path = remote_path("/api/v1/schedules", name, "/skips");
    } else {
        snprintf(suffix, sizeof suffix, "/skips/%s?actor=%s", when,
                 actor ? actor : "api");
        path = remote_path("/api/v1/schedules", name, suffix);
    }
    if (!path) {
        json_decref(body);
        return remote_no_memory(err);
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

int remote_op_schedule_skips(target *t, const char *name, sked_skip **out,
                             size_t *n, sked_error *err)
{
    json_t *j = NULL, *list, *o;
    size_t i;
    int rc;

    *out = NULL;
    *n = 0;
    rc = remote_get_json(remote_of(t),
                         remote_path("/api/v1/schedules", name, "/skips"), &j,
                         err);
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
        return remote_no_memory(err);
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
            rc = remote_no_memory(err);
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

int remote_op_schedule_run_at(target *t, const char *name, sked_time at,
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
        return err->code ? err->code : remote_no_memory(err);
    }
    rc = remote_call(remote_of(t), "POST", path, body, NULL, &j, err);
    free(path);
    json_decref(body);
    if (rc == 0) {
        id = json_string_value(json_object_get(j, "run_id"));
        if (!id)
            rc = remote_bad_answer("a run id", err);
        else if (run_id && !(*run_id = strdup(id)))
            rc = remote_no_memory(err);
        if (created)
            *created = json_is_true(json_object_get(j, "created"));
    }
    json_decref(j);
    return rc;
}
