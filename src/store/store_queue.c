/* SPDX-License-Identifier: MIT */
/* Queues and workflow versions (store_run.h, SPEC 4.2): the queues'
 * limits as the code declares them, their depth, and the versions of each
 * workflow that executors registered (the latest takes the runs that
 * name no version). */
#include "base/alloc.h"
#include "store/store_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/error.h"
#include "model/schedule.h"
#include "store/store_int.h"
#include "store/store_ops.h"

/* Most bytes of a workflow definition (JSON text). */
#define DEFINITION_MAX (1 << 20)
#define VERSION_MAX    128

/* ---- queues ------------------------------------------------------------- */

static int cmp_queue_def(const void *x, const void *y)
{
    return strcmp(((const sked_queue_def *) x)->name,
                  ((const sked_queue_def *) y)->name);
}

/* Check queue Q, the Ith of a batch. */
static int queue_check(const sked_queue_def *q, size_t i, sked_error *err)
{
    char field[SKED_ERROR_FIELD_MAX];
    int rc;

    (void) snprintf(field, sizeof field, "queues[%zu].name", i);
    rc = sked__schedule_name_check(q->name, field, err);
    if (rc != 0)
        return rc;
    if (q->concurrency < 0 || q->worker_concurrency < 0 || q->rate_limit < 0)
        return sked__error_set(err, SKED_EINVAL, "queues", (long) i,
                               "queue %.100s: limits cannot be negative",
                               q->name);
    if (q->rate_limit > 0 && q->rate_period <= 0)
        return sked__error_set(err, SKED_EINVAL, "queues", (long) i,
                               "queue %.100s: a rate limit needs a period",
                               q->name);
    return 0;
}

struct queues_arg {
    sked_queue_def *q; /* owned copy, sorted by name */
    size_t n;
    sked_queue_info *info; /* owned: the list */
    size_t ninfo;
};

/* Write in name order: PostgreSQL locks the rows as a claim does. */
static int queues_put_tx(sked_store *st, sked__tx *tx, void *arg,
                         sked_error *err)
{
    struct queues_arg *a = arg;
    sked_time now = sked__store_now(st);
    int rc = 0;

    for (size_t i = 0; rc == 0 && i < a->n; i++)
        rc = st->ops->queue_put(tx, &a->q[i], now, err);
    return rc;
}

int sked__store_queues_put(sked_store *st, const sked_queue_def *q, size_t n,
                           sked_error *err)
{
    struct queues_arg a = {.n = n};
    int rc = 0;

    if (n == 0)
        return 0;
    if (!q || n > SKED_STORE_BATCH_MAX)
        return sked__error_set(err, SKED_EINVAL, "queues", -1,
                               "a batch holds 1 to %d queues",
                               SKED_STORE_BATCH_MAX);
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = queue_check(&q[i], i, err);
    if (rc != 0)
        return rc;
    if (!(a.q = sked__malloc(n * sizeof *a.q)))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    memcpy(a.q, q, n * sizeof *a.q);
    qsort(a.q, n, sizeof *a.q, cmp_queue_def);
    for (size_t i = 1; i < n && rc == 0; i++)
        if (strcmp(a.q[i - 1].name, a.q[i].name) == 0)
            rc = sked__error_set(err, SKED_EINVAL, "queues", -1,
                                 "queue %.100s is given twice", a.q[i].name);
    if (rc == 0)
        rc = sked__store_run_tx(st, SKED__TX_WRITE, queues_put_tx, &a, err);
    free(a.q);
    return rc;
}

static int queues_list_tx(sked_store *st, sked__tx *tx, void *arg,
                          sked_error *err)
{
    struct queues_arg *a = arg;

    sked__queue_infos_free(a->info, a->ninfo);
    a->info = NULL;
    a->ninfo = 0;
    return st->ops->queues_list(tx, &a->info, &a->ninfo, err);
}

int sked__store_queues_list(sked_store *st, sked_queue_info **out, size_t *n,
                            sked_error *err)
{
    struct queues_arg a = {0};
    int rc = sked__store_run_tx(st, SKED__TX_READ, queues_list_tx, &a, err);

    if (rc != 0) {
        sked__queue_infos_free(a.info, a.ninfo);
        return rc;
    }
    *out = a.info;
    *n = a.ninfo;
    return 0;
}

/* ---- workflow versions -------------------------------------------------- */

struct workflow_arg {
    const char *workflow, *version, *definition;
    char *latest; /* owned */
};

static int register_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct workflow_arg *a = arg;

    return st->ops->workflow_register(tx, a->workflow, a->version,
                                      a->definition, sked__store_now(st), err);
}

/* Check DEF (NULL: fine) is a JSON object of at most DEFINITION_MAX. */
static int definition_check(const char *def, sked_error *err)
{
    json_t *v;
    bool object;

    if (!def)
        return 0;
    if (strlen(def) > DEFINITION_MAX)
        return sked__error_set(err, SKED_EINVAL, "definition", -1,
                               "longer than %d bytes", DEFINITION_MAX);
    v = json_loads(def, 0, NULL);
    object = json_is_object(v);
    json_decref(v);
    if (!object)
        return sked__error_set(err, SKED_EINVAL, "definition", -1,
                               "is not a JSON object");
    return 0;
}

int sked__store_workflow_register(sked_store *st, const char *workflow,
                                  const char *version, const char *definition,
                                  sked_error *err)
{
    struct workflow_arg a = {workflow, version, definition ? definition : "{}",
                             NULL};
    int rc = sked__schedule_name_check(workflow, "workflow", err);

    if (rc != 0)
        return rc;
    if (!version || !version[0] || strlen(version) > VERSION_MAX)
        return sked__error_set(err, SKED_EINVAL, "version", -1,
                               "must be 1 to %d bytes", VERSION_MAX);
    rc = definition_check(definition, err);
    if (rc != 0)
        return rc;
    return sked__store_run_tx(st, SKED__TX_WRITE, register_tx, &a, err);
}

static int latest_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct workflow_arg *a = arg;
    int rc;

    free(a->latest);
    a->latest = NULL;
    rc = st->ops->workflow_latest(tx, a->workflow, &a->latest, err);
    if (rc == SKED_ENOTFOUND)
        rc = sked__error_set(err, rc, "workflow", -1,
                             "no version of workflow \"%.100s\" is registered",
                             a->workflow);
    return rc;
}

int sked__store_workflow_latest(sked_store *st, const char *workflow,
                                char **out, sked_error *err)
{
    struct workflow_arg a = {.workflow = workflow};
    int rc;

    if (!workflow || !workflow[0] || !out)
        return sked__error_set(err, SKED_EINVAL, "workflow", -1, "is required");
    rc = sked__store_run_tx(st, SKED__TX_READ, latest_tx, &a, err);
    if (rc != 0) {
        free(a.latest);
        return rc;
    }
    *out = a.latest;
    return 0;
}

int sked__store_workflow_warning(sked_store *st, const char *workflow,
                                 char *buf, size_t size, sked_error *err)
{
    char *version = NULL;
    sked_error e;
    int rc;

    if (size > 0)
        buf[0] = '\0';
    sked_error_clear(&e);
    rc = sked__store_workflow_latest(st, workflow, &version, &e);
    free(version);
    if (rc == SKED_ENOTFOUND) {
        (void) snprintf(buf, size,
                        "workflow \"%.128s\" is not registered by any "
                        "server yet: its runs wait as pending until a "
                        "server that has it starts",
                        workflow);
        return 0;
    }
    if (rc != 0 && err)
        *err = e;
    return rc;
}

struct list_arg {
    char *json; /* owned */
};

static int list_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct list_arg *a = arg;

    free(a->json);
    a->json = NULL;
    return st->ops->workflows_list(tx, &a->json, err);
}

int sked__store_workflows_list(sked_store *st, char **out, sked_error *err)
{
    struct list_arg a = {0};
    int rc = sked__store_run_tx(st, SKED__TX_READ, list_tx, &a, err);

    if (rc != 0) {
        free(a.json);
        return rc;
    }
    *out = a.json;
    return 0;
}
