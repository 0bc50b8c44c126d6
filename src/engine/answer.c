/* SPDX-License-Identifier: MIT */
/* The JSON answers of the API's operations (answer.h). */
#include "engine/answer.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
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

/* The mark named NAME (NULL: normal); false when there is none. */
static bool mark_of(const char *name, sked_occ_mark *out)
{
    for (int m = SKED_OCC_NORMAL; m <= SKED_OCC_SECOND_PASS; m++) {
        const char *n = sked__schedule_preview_mark((sked_occ_mark) m);

        if ((!n && !name) || (n && name && strcmp(n, name) == 0)) {
            *out = (sked_occ_mark) m;
            return true;
        }
    }
    return false;
}

int sked__answer_occurrences_read(const json_t *j, sked_occurrence *out,
                                  size_t max, size_t *n)
{
    const json_t *arr = json_object_get(j, "occurrences"), *o;
    size_t i;

    *n = 0;
    if (!json_is_array(arr) || json_array_size(arr) > max)
        return SKED_EINVAL;
    json_array_foreach(arr, i, o)
    {
        const json_t *mark = json_object_get(o, "mark");
        const char *at = json_string_value(json_object_get(o, "at"));

        if (!at || sked_time_parse(at, &out[i].at, NULL) < 0 ||
            (!json_is_null(mark) && !json_is_string(mark)) ||
            !mark_of(json_string_value(mark), &out[i].mark))
            return SKED_EINVAL;
    }
    *n = json_array_size(arr);
    return 0;
}

int sked__answer_schedules_read(const json_t *j, sked_schedule **out, size_t *n,
                                bool *more, sked_error *err)
{
    const json_t *arr = json_object_get(j, "schedules"), *o;
    sked_schedule *v;
    size_t i;
    int rc = 0;

    *out = NULL;
    *n = 0;
    if (!json_is_array(arr))
        return sked__error_set(err, SKED_EINVAL, "schedules", -1,
                               "expected an array");
    if (!(v = sked__calloc(json_array_size(arr) + 1, sizeof *v)))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    json_array_foreach(arr, i, o)
    {
        if ((rc = sked__schedule_from_json(o, SKED__SCHEDULE_JSON_STATE, &v[i],
                                           err)) != 0)
            break;
    }
    *n = rc == 0 ? json_array_size(arr) : i + 1;
    *more = json_is_string(json_object_get(j, "next_cursor"));
    *out = v;
    return rc;
}
