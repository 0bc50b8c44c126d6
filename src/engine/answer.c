/* SPDX-License-Identifier: MIT */
/* The JSON answers of the API's operations (answer.h). */
#include "engine/answer.h"

#include "model/schedule_json.h"
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
