/* SPDX-License-Identifier: MIT */
/* The JSON answers of the API's operations (answer.h). */
#include "engine/answer.h"

#include "store/schedule_json.h"

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
        o = json_pack("{s:o, s:s?, s:s?}", "at", sked__json_instant(it->at),
                      "local", local[0] ? local : NULL, "mark",
                      sked_occ_mark_name(it->mark));
        if (json_array_append_new(arr, o) != 0) {
            json_decref(arr);
            arr = NULL;
        }
    }
    return arr ? json_pack("{s:o}", "occurrences", arr) : NULL;
}
