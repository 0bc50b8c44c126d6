/* SPDX-License-Identifier: MIT */
/* The engine's view of its queues (SPEC 4.2): every queue with its limits
 * and depth, as structs (sked_engine_queue_read) and as the JSON the
 * model writes of them (sked_engine_queue_list, GET /api/v1/queues).
 *
 * The store reads the limits and counts the runs in one query per queue
 * table; a limit of 0 there means "not set". */
#include <jansson.h>
#include <stdlib.h>

#include "base/error.h"
#include "base/json_text.h"
#include "engine/engine_int.h"
#include "model/run_json.h"
#include "store/store_run.h"

int sked_engine_queue_read(sked_engine *e, sked_queue_page *out,
                           sked_error *err)
{
    sked_queue_page p = {0};

    if (!e || !out)
        return sked__error_set(err, SKED_EINVAL, NULL, -1,
                               "an engine and an output");
    int rc =
        sked__store_queues_list(sked__engine_store(e), &p.items, &p.n, err);
    if (rc == 0)
        *out = p;
    return rc;
}

int sked_engine_queue_list(sked_engine *e, char **out_json, sked_error *err)
{
    sked_queue_page p;
    json_t *o;
    int rc = out_json ? sked_engine_queue_read(e, &p, err)
                      : sked__error_set(err, SKED_EINVAL, NULL, -1,
                                        "an engine and an output");

    if (rc != 0)
        return rc;
    o = sked__queue_list_json(p.items, p.n);
    sked_queue_page_done(&p);
    *out_json = o ? sked__json_text(o, NULL) : NULL;
    json_decref(o);
    return *out_json ? 0 : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
}
