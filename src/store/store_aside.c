/* SPDX-License-Identifier: MIT */
/* Setting aside the runs a claim cannot take (store_run.h, SPEC 4.2).
 *
 * A run row is unreadable when a field the claim and the API depend on
 * breaks the rules every write checks (store.c, check_run): an id that is
 * not one printable UTF-8 segment of a URL, a workflow or queue that is
 * not a name. Such a row was written by an older sked or by hand. A claim
 * that met it used to fail as a whole, every time, so one row stopped
 * every run; now each such row is set aside in the claim's transaction:
 * failed, with error code "unreadable" and the reason as its error, and a
 * run.failed event (its subject made valid UTF-8) that the server logs.
 * The other candidates are claimed as if it were not there. */
#include "store/store_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/json_obj.h"
#include "base/utf8.h"
#include "model/schedule.h"
#include "store/store_int.h"
#include "store/store_ops.h"

int sked__run_row_fault(const sked_run *r, char *why, size_t size)
{
    sked_error e;
    int rc;

    sked_error_clear(&e);
    rc = sked__segment_check(r->id, SKED_RUN_ID_MAX, "id", &e);
    if (rc == 0)
        rc = sked__schedule_name_check(r->workflow, "workflow", &e);
    if (rc == 0 && r->queue)
        rc = sked__schedule_name_check(r->queue, "queue", &e);
    if (rc == 0)
        return 0;
    /* A message longer than WHY is cut; the count is read so that GCC at
     * -O3 sees the cut is expected (-Wformat-truncation). */
    int n =
        snprintf(why, size, "unreadable run set aside: %s: %s", e.field, e.msg);
    if (n < 0 && size > 0)
        why[0] = '\0';
    return SKED_EINVAL;
}

/* Fail the unreadable run R in TX at NOW for WHY, with its event. */
static int set_aside(sked_store *st, sked__tx *tx, const sked_run *r,
                     const char *why, sked_time now, sked__ev_list *ev,
                     sked_error *err)
{
    const char *ids[1] = {r->id};
    sked__fence f = {0};
    sked_jobj o = {0};
    char *subject = NULL;
    size_t len;
    int rc = st->ops->runs_fence(tx, ids, 1, &f, err);

    if (rc == 0 && f.found && f.status <= SKED_RUN_WAITING)
        rc = st->ops->runs_write(
            tx,
            &(sked__run_write){.id = r->id,
                               .tid = f.tid,
                               .status = SKED_RUN_FAILED,
                               .outcome = -1,
                               .error = why,
                               .error_code = "unreadable",
                               .not_before = SKED_TIME_NONE,
                               .finished_at = now,
                               .timeout_exceeded_at = SKED_TIME_NONE},
            1, now, err);
    free(f.executor);
    free(f.schedule);
    free(f.tid);
    if (rc != 0)
        return rc;
    if (sked__utf8_sanitize(r->id, strlen(r->id), &subject, &len) != 0)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    sked__jobj_str(&o, "workflow", r->workflow);
    sked__jobj_str(&o, "error", why);
    sked__jobj_str(&o, "error_code", "unreadable");
    rc = sked__ev_add(ev, "run.failed", subject, sked__jobj_take(&o), now, err);
    free(subject);
    return rc;
}

int sked__store_set_aside(sked_store *st, sked__tx *tx, sked_run *runs,
                          bool *also, size_t *n, sked_time now,
                          sked__ev_list *ev, sked_error *err)
{
    char why[SKED_ERROR_MSG_MAX + 64];
    size_t k = 0;
    int rc = 0;

    for (size_t i = 0; i < *n; i++) {
        if (rc != 0 || sked__run_row_fault(&runs[i], why, sizeof why) == 0) {
            runs[k] = runs[i];
            if (also)
                also[k] = also[i];
            k++;
            continue;
        }
        rc = set_aside(st, tx, &runs[i], why, now, ev, err);
        sked__run_done(&runs[i]);
    }
    *n = k;
    return rc;
}
