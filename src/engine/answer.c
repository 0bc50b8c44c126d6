/* SPDX-License-Identifier: MIT */
/* The JSON answers of the API's operations (answer.h). */
#include "engine/answer.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "store/schedule_json.h"
#include "store/schedule_preview.h"

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

json_t *sked__answer_backfill(const sked_backfill_result *r)
{
    return json_pack("{s:I, s:I}", "created", (json_int_t) r->created,
                     "skipped", (json_int_t) r->skipped);
}

json_t *sked__answer_apply(const sked_apply_result *r)
{
    return json_pack("{s:I, s:I, s:I, s:I}", "created", (json_int_t) r->created,
                     "updated", (json_int_t) r->updated, "unchanged",
                     (json_int_t) r->unchanged, "deleted",
                     (json_int_t) r->deleted);
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
        if (order[i]->workflow)
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

json_t *sked__answer_occurrences(const sked_occurrence *occ, size_t n,
                                 const sked_tz *tz)
{
    json_t *arr = json_array();

    for (size_t i = 0; arr && i < n; i++) {
        char local[SKED_TIME_STRLEN];
        sked_tz_info info;
        json_t *o;

        if (sked_tz_lookup(tz, occ[i].at, &info) < 0 ||
            sked_time_format_offset(occ[i].at, info.utoff, local,
                                    sizeof local) < 0)
            local[0] = '\0';
        o = json_pack("{s:o, s:s?, s:s?}", "at", sked__json_instant(occ[i].at),
                      "local", local[0] ? local : NULL, "mark",
                      sked__schedule_preview_mark(occ[i].mark));
        if (json_array_append_new(arr, o) != 0) {
            json_decref(arr);
            arr = NULL;
        }
    }
    return arr ? json_pack("{s:o}", "occurrences", arr) : NULL;
}
