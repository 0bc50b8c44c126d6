/* SPDX-License-Identifier: MIT */
/* The engine's view of its queues (SPEC 4.2): every queue with its limits
 * and depth, as JSON (sked_engine_queue_list, GET /api/v1/queues).
 *
 * The store reads the limits and counts the runs in one query per queue
 * table; a limit of 0 there means "not set" and is written as null, and a
 * rate period is only meaningful with a rate limit, so it is null too
 * without one. */
#include <jansson.h>
#include <stdlib.h>

#include "base/error.h"
#include "base/json_text.h"
#include "engine/engine_int.h"
#include "model/schedule_json.h"
#include "store/store_run.h"

/* A limit as JSON: null when 0 (not set). */
static json_t *limit_json(int32_t v)
{
    return v > 0 ? json_integer(v) : json_null();
}

/* The object of one queue Q (a new reference), NULL when out of memory. */
static json_t *queue_json(const sked_queue_info *q)
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

int sked_engine_queue_list(sked_engine *e, char **out_json, sked_error *err)
{
    sked_queue_info *list = NULL;
    size_t n = 0;
    json_t *arr, *o;
    int rc;

    if (!e || !out_json)
        return sked__error_set(err, SKED_EINVAL, NULL, -1,
                               "an engine and an output");
    rc = sked__store_queues_list(sked__engine_store(e), &list, &n, err);
    if (rc != 0)
        return rc;
    arr = json_array();
    for (size_t i = 0; arr && i < n; i++)
        if (json_array_append_new(arr, queue_json(&list[i])) != 0) {
            json_decref(arr);
            arr = NULL;
        }
    sked__queue_infos_free(list, n);
    o = arr ? json_pack("{s:o}", "queues", arr) : NULL;
    *out_json = o ? sked__json_text(o, NULL) : NULL;
    json_decref(o);
    return *out_json ? 0 : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
}
