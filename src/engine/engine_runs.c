/* SPDX-License-Identifier: MIT */
/* The engine's reads of runs and workflow versions (sked/engine.h): as
 * pages of the public views of sked/run.h, and as the JSON of the API
 * written from those views by the model's writer (model/run_json.h), so
 * the library, the API and the CLI print one thing one way.
 *
 * A page of runs keeps the store's rows and the views borrow their
 * strings: nothing is copied. A run list's cursor is "CREATED_US:ID" of
 * its last run, which the store continues strictly after. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/json_text.h"
#include "engine/engine_int.h"
#include "model/run_json.h"
#include "model/run_page.h"
#include "store/store_run.h"

/* Make *out the page of O's runs (O taken, also on failure). */
static int run_page(sked__page_own *o, sked_run_page *out, sked_error *err)
{
    sked_run_page p = {.n = o->nruns, .own_ = o, .next_cursor = o->cursor};

    p.items = sked__calloc(o->nruns ? o->nruns : 1, sizeof *p.items);
    if (!p.items) {
        sked__page_own_free(o);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    for (size_t i = 0; i < o->nruns; i++)
        sked__run_view_of(&o->runs[i], &p.items[i]);
    *out = p;
    return 0;
}

int sked_engine_run_read_one(sked_engine *e, const char *id, sked_run_page *out,
                             sked_error *err)
{
    if (!e || !id || !out)
        return sked__error_set(err, SKED_EINVAL, "id", -1, "is required");
    sked__page_own *o = sked__calloc(1, sizeof *o);
    sked_run r;
    int rc =
        o ? sked__store_run_get(e->store, id, &r, &o->steps, &o->nsteps, err)
          : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (rc == 0 && !(o->runs = sked__malloc(sizeof *o->runs))) {
        sked__run_done(&r);
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    } else if (rc == 0) {
        o->runs[0] = r;
        o->nruns = 1;
    }
    /* One more than needed, so "steps" is never NULL: read, and none. */
    if (rc == 0 &&
        !(o->step_views = sked__calloc(o->nsteps + 1, sizeof *o->step_views)))
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (rc != 0) {
        sked__page_own_free(o);
        return rc;
    }
    for (size_t i = 0; i < o->nsteps; i++)
        sked__step_view_of(&o->steps[i], &o->step_views[i]);
    rc = run_page(o, out, err);
    if (rc == 0) {
        out->items[0].steps = o->step_views;
        out->items[0].nsteps = o->nsteps;
    }
    return rc;
}

/* Read Q into F: the status by name, the cursor "CREATED_US:ID". */
static int run_filter(const sked_run_query *q, sked_run_filter *f,
                      sked_error *err)
{
    *f = (sked_run_filter){.status = -1, .before_created = SKED_TIME_NONE};
    if (!q)
        return 0;
    if (q->status) {
        for (int s = SKED_RUN_PENDING; s <= SKED_RUN_CANCELLED; s++)
            if (strcmp(q->status, sked__run_status_name((sked_run_status) s)) ==
                0)
                f->status = s;
        if (f->status < 0)
            return sked__error_set(err, SKED_EINVAL, "status", -1,
                                   "status: \"%.40s\" is not a run status",
                                   q->status);
    }
    if (q->limit > SKED_STORE_LIST_MAX)
        return sked__error_set(err, SKED_EINVAL, "limit", -1,
                               "limit: must be 1 to %d", SKED_STORE_LIST_MAX);
    f->schedule = q->schedule;
    f->workflow = q->workflow;
    f->limit = q->limit;
    if (q->cursor) {
        char *end;
        long long t = strtoll(q->cursor, &end, 10);
        if (end == q->cursor || *end != ':' || !end[1])
            return sked__error_set(err, SKED_EINVAL, "cursor", -1,
                                   "cursor: not one this server gave");
        f->before_created = (sked_time) t;
        f->before_id = end + 1;
    }
    return 0;
}

/* The cursor after the last of O's runs into O->cursor. */
static int run_cursor(sked__page_own *o, sked_error *err)
{
    const sked_run *last = &o->runs[o->nruns - 1];
    size_t len = strlen(last->id) + 32;

    if (!(o->cursor = sked__malloc(len)))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    snprintf(o->cursor, len, "%lld:%s", (long long) last->created_at, last->id);
    return 0;
}

int sked_engine_run_read(sked_engine *e, const sked_run_query *q,
                         sked_run_page *out, sked_error *err)
{
    sked_run_filter f;
    bool more = false;
    sked__page_own *o = NULL;
    int rc = e && out ? run_filter(q, &f, err)
                      : sked__error_set(err, SKED_EINVAL, NULL, -1,
                                        "an engine and an output");
    if (rc == 0 && !(o = sked__calloc(1, sizeof *o)))
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (rc == 0)
        rc =
            sked__store_run_list(e->store, &f, &o->runs, &o->nruns, &more, err);
    if (rc == 0 && more && o->nruns > 0)
        rc = run_cursor(o, err);
    if (rc != 0) {
        sked__page_own_free(o);
        return rc;
    }
    return run_page(o, out, err);
}

/* Dump O (taken) into *out. */
static int dump(json_t *o, char **out, sked_error *err)
{
    *out = o ? sked__json_text(o, NULL) : NULL;
    json_decref(o);
    return *out ? 0 : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
}

int sked_engine_run_get(sked_engine *e, const char *id, char **out_json,
                        sked_error *err)
{
    sked_run_page p;
    int rc = sked_engine_run_read_one(e, id, &p, err);
    if (rc != 0)
        return rc;
    json_t *o = sked__run_view_json(&p.items[0]);
    sked_run_page_done(&p);
    return dump(o, out_json, err);
}

int sked_engine_run_list(sked_engine *e, const sked_run_query *q,
                         char **out_json, sked_error *err)
{
    sked_run_page p;
    int rc = sked_engine_run_read(e, q, &p, err);
    if (rc != 0)
        return rc;
    json_t *o = sked__run_list_json(p.items, p.n, p.next_cursor);
    sked_run_page_done(&p);
    return dump(o, out_json, err);
}

/* ---- workflow versions ------------------------------------------------ */

int sked_engine_workflow_read(sked_engine *e, sked_workflow_page *out,
                              sked_error *err)
{
    char *text = NULL;
    int rc = e && out
                 ? sked__store_workflows_list(e->store, &text, err)
                 : sked__error_set(err, SKED_EINVAL, NULL, -1, "no engine");
    if (rc != 0)
        return rc;
    /* The store writes the list as the API does, but for the instants. */
    json_t *list = json_loads(text, 0, NULL);
    free(text);
    if (!list)
        return sked__error_set(err, SKED_EIO, NULL, -1,
                               "the store's workflow list does not parse");
    return sked__workflow_page_from_json(list, list, out, err);
}

int sked_engine_workflow_list(sked_engine *e, char **out_json, sked_error *err)
{
    sked_workflow_page p;
    int rc = sked_engine_workflow_read(e, &p, err);
    if (rc != 0)
        return rc;
    json_t *o = sked__workflow_list_json(p.items, p.n);
    sked_workflow_page_done(&p);
    return dump(o, out_json, err);
}
