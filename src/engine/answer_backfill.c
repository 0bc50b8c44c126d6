/* SPDX-License-Identifier: MIT */
/* The answer of a backfill's dry run (answer.h,
 * sked__answer_backfill_preview): the counts a backfill would answer,
 * "created" and "skipped", with the occurrences behind them, so that a
 * person sees what it will create and skip before it does. */
#include "engine/answer.h"

#include "sked/time.h"

/* The occurrences of P whose run exists (EXISTS) or not, as an array. */
static json_t *instants(const sked_backfill_preview *p, bool exists)
{
    json_t *arr = json_array();
    char at[SKED_TIME_STRLEN];

    for (size_t i = 0; arr && i < p->checked; i++) {
        if (p->exists[i] != exists)
            continue;
        if (sked_time_format(p->at[i], at, sizeof at) < 0 ||
            json_array_append_new(arr, json_string(at)) != 0) {
            json_decref(arr);
            arr = NULL;
        }
    }
    return arr;
}

json_t *sked__answer_backfill_preview(const sked_backfill_preview *p)
{
    return json_pack("{s:b, s:I, s:I, s:I, s:I, s:o, s:o}", "dry_run", 1,
                     "total", (json_int_t) p->total, "checked",
                     (json_int_t) p->checked, "created", (json_int_t) p->create,
                     "skipped", (json_int_t) p->skip, "create",
                     instants(p, false), "skip", instants(p, true));
}
