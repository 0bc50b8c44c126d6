/* SPDX-License-Identifier: MIT */
/* The JSON answers of the API's operations (answer.h). */
#include "engine/answer.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"

#include "model/schedule_json.h"

json_t *sked__answer_schedule(const sked_schedule *s, sked_error *err)
{
    json_t *o = NULL;

    return sked__schedule_to_json(s, &o, err) == 0 ? o : NULL;
}

int sked__answer_schedule_read(const json_t *body, bool patch, sked_schedule *s,
                               sked_error *err)
{
    return patch ? sked__schedule_patch_json(body, 0, s, err)
                 : sked__schedule_from_json(body, 0, s, err);
}

json_t *sked__answer_schedule_page(const sked_schedule_page *p, sked_error *err)
{
    return sked__answer_schedules(p->items, p->n, p->next_cursor != NULL, err);
}

int sked__answer_schedule_page_read(const json_t *j, sked_schedule_page *out,
                                    sked_error *err)
{
    const json_t *arr = json_object_get(j, "schedules"), *o;
    size_t i;
    int rc = 0;

    memset(out, 0, sizeof *out);
    if (!json_is_array(arr))
        return sked__error_set(err, SKED_EINVAL, "schedules", -1,
                               "expected an array");
    if (!(out->items =
              sked__calloc(json_array_size(arr) + 1, sizeof(sked_schedule))))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    json_array_foreach(arr, i, o)
    {
        out->n = i + 1; /* freed by sked_schedule_page_done, also on error */
        if ((rc = sked__schedule_from_json(o, SKED__SCHEDULE_JSON_STATE,
                                           &out->items[i], err)) != 0)
            return rc;
    }
    if (out->n > 0 && json_is_string(json_object_get(j, "next_cursor")))
        out->next_cursor = out->items[out->n - 1].name;
    return 0;
}

json_t *sked__answer_schedules(const sked_schedule *v, size_t n, bool more,
                               sked_error *err)
{
    json_t *arr = json_array(), *o;

    for (size_t i = 0; arr && i < n; i++) {
        if (sked__schedule_to_json(&v[i], &o, err) != 0 ||
            json_array_append_new(arr, o) != 0) {
            json_decref(arr);
            arr = NULL;
        }
    }
    if (!arr)
        return NULL;
    return json_pack("{s:o, s:o}", "schedules", arr, "next_cursor",
                     more && n > 0 ? json_string(v[n - 1].name) : json_null());
}

json_t *sked__answer_run_id(const char *id)
{
    return json_pack("{s:s}", "run_id", id);
}

/* The counts of an answer: one table, read by the writer and the reader,
 * so that what the API sends is what remote mode reads back. */
typedef struct count_key {
    const char *key;
    size_t off; /* of a size_t */
} count_key;

static const count_key backfill_keys[] = {
    {"created", offsetof(sked_backfill_result, created)},
    {"skipped", offsetof(sked_backfill_result, skipped)},
    {NULL, 0},
};

static const count_key apply_keys[] = {
    {"created", offsetof(sked_apply_result, created)},
    {"updated", offsetof(sked_apply_result, updated)},
    {"unchanged", offsetof(sked_apply_result, unchanged)},
    {"deleted", offsetof(sked_apply_result, deleted)},
    {NULL, 0},
};

static json_t *counts_write(const count_key *k, const void *r)
{
    json_t *j = json_object();

    for (; j && k->key; k++) {
        size_t v = *(const size_t *) ((const char *) r + k->off);

        if (json_object_set_new(j, k->key, json_integer((json_int_t) v))) {
            json_decref(j);
            j = NULL;
        }
    }
    return j;
}

static int counts_read(const count_key *k, const json_t *j, void *r)
{
    for (; k->key; k++) {
        const json_t *v = json_object_get(j, k->key);

        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return SKED_EINVAL;
        *(size_t *) ((char *) r + k->off) = (size_t) json_integer_value(v);
    }
    return 0;
}

json_t *sked__answer_backfill(const sked_backfill_result *r)
{
    return counts_write(backfill_keys, r);
}

int sked__answer_backfill_read(const json_t *j, sked_backfill_result *r)
{
    return counts_read(backfill_keys, j, r);
}

json_t *sked__answer_apply(const sked_apply_result *r)
{
    return counts_write(apply_keys, r);
}

int sked__answer_apply_read(const json_t *j, sked_apply_result *r)
{
    return counts_read(apply_keys, j, r);
}

/* Order schedules by workflow, so that the schedules of one workflow
 * stand together. */
static int by_workflow(const void *a, const void *b)
{
    const sked_schedule *x = *(const sked_schedule *const *) a;
    const sked_schedule *y = *(const sked_schedule *const *) b;

    return strcmp(x->workflow ? x->workflow : "",
                  y->workflow ? y->workflow : "");
}

/* Point WHY[i] at the warning of schedule i of SET's workflow, NULL when
 * it is registered, asking the store once per workflow; the texts are
 * new strings in TEXTS (free each, then it). */
static int find_warnings(sked_engine *e, const sked_schedule *set, size_t n,
                         const char **why, char **texts)
{
    const sked_schedule **order = sked__calloc(n + 1, sizeof *order);
    char warning[256];
    size_t i, j;

    if (!order)
        return SKED_ENOMEM;
    for (i = 0; i < n; i++)
        order[i] = &set[i];
    qsort(order, n, sizeof *order, by_workflow);
    for (i = 0; i < n; i = j) {
        warning[0] = '\0';
        if (order[i]->workflow && !order[i]->heartbeat)
            sked_engine_workflow_warning(e, order[i]->workflow, warning,
                                         sizeof warning);
        if (warning[0] && !(texts[i] = sked__strdup(warning))) {
            free(order);
            return SKED_ENOMEM;
        }
        for (j = i; j < n && by_workflow(&order[i], &order[j]) == 0; j++)
            why[order[j] - set] = texts[i];
    }
    free(order);
    return 0;
}

json_t *sked__answer_set_warnings(sked_engine *e, const sked_schedule *set,
                                  size_t n)
{
    const char **why = sked__calloc(n + 1, sizeof *why);
    char **texts = sked__calloc(n + 1, sizeof *texts);
    json_t *arr = json_array();
    int rc = why && texts && arr ? 0 : SKED_ENOMEM;

    if (rc == 0)
        rc = find_warnings(e, set, n, why, texts);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (why[i] &&
            json_array_append_new(arr, json_sprintf("schedule \"%.128s\": %s",
                                                    set[i].name, why[i])) != 0)
            rc = SKED_ENOMEM;
    }
    for (size_t i = 0; texts && i < n; i++)
        free(texts[i]);
    free(texts);
    free(why);
    if (rc != 0) {
        json_decref(arr);
        return NULL;
    }
    return arr;
}

json_t *sked__answer_occurrences(const sked_preview *p)
{
    json_t *arr = json_array();

    for (size_t i = 0; arr && i < p->n; i++) {
        const sked_preview_item *it = &p->items[i];
        char local[SKED_TIME_STRLEN];
        json_t *o;

        if (!it->has_local ||
            sked_time_format_offset(it->at, it->utoff, local, sizeof local) < 0)
            local[0] = '\0';
        /* The calendars' part: excluded, or moved from its occurrence. */
        o = json_pack("{s:o, s:s?, s:s?, s:s*, s:o*, s:o*}", "at",
                      sked__json_instant(it->at), "local",
                      local[0] ? local : NULL, "mark",
                      sked_occ_mark_name(it->mark), "calendar",
                      it->excluded               ? "excluded"
                      : it->occurrence != it->at ? "moved"
                                                 : NULL,
                      "occurrence",
                      it->occurrence != it->at && !it->excluded
                          ? sked__json_instant(it->occurrence)
                          : NULL,
                      "skipped", it->skipped ? json_true() : NULL);
        if (json_array_append_new(arr, o) != 0) {
            json_decref(arr);
            arr = NULL;
        }
    }
    return arr ? json_pack("{s:o}", "occurrences", arr) : NULL;
}

json_t *sked__answer_sim_decision(const char *name, const sked_sim_decision *d)
{
    char id[SKED_RUN_ID_MAX];
    json_t *o;
    int rc = 0;

    if (!d->fire || sked_run_id_of(name, d->occurrence, id, sizeof id) < 0)
        id[0] = '\0';
    /* scheduled_for only for a run moved off an excluded day; the flags
     * of a fire only when they hold. */
    o = json_pack("{s:o, s:o*, s:s, s:s?, s:s?, s:o}", "occurrence",
                  sked__json_instant(d->occurrence), "scheduled_for",
                  d->fire && d->scheduled_for != d->occurrence &&
                          d->scheduled_for != 0
                      ? sked__json_instant(d->scheduled_for)
                      : NULL,
                  "decision", d->fire ? "fire" : "drop", "reason",
                  d->fire ? NULL : sked_miss_reason_name(d->why), "run_id",
                  id[0] ? id : NULL, "at", sked__json_instant(d->at));
    if (o && d->fire && d->catchup)
        rc |= json_object_set_new(o, "catchup", json_true());
    if (o && d->fire && d->buffered)
        rc |= json_object_set_new(o, "buffered", json_true());
    if (o && d->fire && d->cancel_active)
        rc |= json_object_set_new(o, "cancels_active", json_true());
    if (rc != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* The instant of key KEY of O into *out; false when it is not one. */
static bool instant_of(const json_t *o, const char *key, sked_time *out)
{
    const char *s = json_string_value(json_object_get(o, key));

    return s && sked_time_parse(s, out, NULL) == 0;
}

int sked__answer_sim_decision_read(const json_t *o, sked_sim_decision *d,
                                   sked_error *err)
{
    const char *decision = json_string_value(json_object_get(o, "decision"));
    const char *reason = json_string_value(json_object_get(o, "reason"));
    int why = -1;

    *d = (sked_sim_decision){0};
    if (!decision || !instant_of(o, "occurrence", &d->occurrence) ||
        !instant_of(o, "at", &d->at))
        return sked__error_set(err, SKED_EIO, "decisions", -1,
                               "a decision without its occurrence");
    d->fire = strcmp(decision, "fire") == 0;
    if (!instant_of(o, "scheduled_for", &d->scheduled_for))
        d->scheduled_for = d->occurrence;
    for (int r = 0; reason && r < SKED_MISS__COUNT; r++)
        if (strcmp(reason, sked_miss_reason_name((sked_miss_reason) r)) == 0)
            why = r;
    if (!d->fire && why < 0)
        return sked__error_set(err, SKED_EIO, "decisions", -1,
                               "a drop without a known reason");
    d->why = why < 0 ? SKED_MISS_CATCHUP_SKIP : (sked_miss_reason) why;
    d->catchup = json_is_true(json_object_get(o, "catchup"));
    d->buffered = json_is_true(json_object_get(o, "buffered"));
    d->cancel_active = json_is_true(json_object_get(o, "cancels_active"));
    return 0;
}

/* The counts of SIM's drops by reason, every reason that dropped one. */
static json_t *dropped_counts(const sked_simulation *sim)
{
    size_t n[SKED_MISS__COUNT] = {0};
    json_t *o = json_object();

    for (size_t i = 0; i < sim->n; i++)
        if (!sim->items[i].fire && (int) sim->items[i].why < SKED_MISS__COUNT)
            n[sim->items[i].why]++;
    for (int r = 0; o && r < SKED_MISS__COUNT; r++) {
        if (n[r] > 0 &&
            json_object_set_new(o, sked_miss_reason_name((sked_miss_reason) r),
                                json_integer((json_int_t) n[r])) != 0) {
            json_decref(o);
            o = NULL;
        }
    }
    return o;
}

json_t *sked__answer_simulation(const char *name,
                                const sked_simulate_options *o,
                                const sked_simulation *sim, size_t limit)
{
    json_t *list = json_array(), *d;
    size_t fired = 0;

    for (size_t i = 0; i < sim->n; i++) {
        fired += sim->items[i].fire;
        if (list && i < limit &&
            (!(d = sked__answer_sim_decision(name, &sim->items[i])) ||
             json_array_append_new(list, d) != 0)) {
            json_decref(list);
            list = NULL;
        }
    }
    if (!list)
        return NULL;
    return json_pack("{s:s, s:o, s:o, s:o, s:I, s:o, s:b}", "schedule", name,
                     "from", sked__json_instant(o->from), "to",
                     sked__json_instant(o->to), "decisions", list, "fired",
                     (json_int_t) fired, "dropped", dropped_counts(sim),
                     "truncated", sim->n > limit);
}

json_t *sked__answer_skips(const char *name, const sked_skip *k, size_t n)
{
    json_t *arr = json_array();

    for (size_t i = 0; arr && i < n; i++) {
        json_t *o =
            json_pack("{s:o, s:s, s:s?, s:o}", "occurrence",
                      sked__json_instant(k[i].occurrence), "actor",
                      k[i].actor ? k[i].actor : "", "reason", k[i].reason,
                      "created_at", sked__json_instant(k[i].created_at));
        if (json_array_append_new(arr, o) != 0) {
            json_decref(arr);
            arr = NULL;
        }
    }
    return arr ? json_pack("{s:s, s:o}", "schedule", name, "skips", arr) : NULL;
}

json_t *sked__answer_skip(const char *name, sked_time occ, bool skipped,
                          bool changed)
{
    return json_pack("{s:s, s:o, s:b, s:b}", "schedule", name, "occurrence",
                     sked__json_instant(occ), "skipped", skipped, "changed",
                     changed);
}
