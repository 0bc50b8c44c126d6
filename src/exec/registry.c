/* SPDX-License-Identifier: MIT */
/* The registry (registry.h): a small array of reference-counted
 * definitions and one of queue caps, under one mutex. A handful of
 * workflows per engine: linear scans are the simplest correct choice. */
#include "exec/registry.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

typedef struct held {
    sked_workflow *w;
    int refs;    /* the registry's own (1 while listed) + workers' */
    bool listed; /* current; else kept only for its running runs */
    bool latest;
} held;

typedef struct cap {
    char *queue;
    int32_t worker_concurrency;
} cap;

struct sked_registry {
    pthread_mutex_t mu;
    held *v;
    size_t n, capv;
    cap *caps;
    size_t ncaps;
};

int sked__registry_new(sked_registry **out)
{
    sked_registry *r = sked__calloc(1, sizeof *r);
    if (!r)
        return SKED_ENOMEM;
    pthread_mutex_init(&r->mu, NULL);
    *out = r;
    return 0;
}

void sked__registry_free(sked_registry *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++)
        sked_workflow_free(r->v[i].w);
    for (size_t i = 0; i < r->ncaps; i++)
        free(r->caps[i].queue);
    free(r->caps);
    free(r->v);
    pthread_mutex_destroy(&r->mu);
    free(r);
}

/* Drop entry I when nothing holds it any more. Under mu. */
static void unref(sked_registry *r, size_t i)
{
    if (--r->v[i].refs > 0)
        return;
    sked_workflow_free(r->v[i].w);
    r->v[i] = r->v[--r->n];
}

static void unlist(sked_registry *r, size_t i)
{
    if (!r->v[i].listed)
        return;
    r->v[i].listed = false;
    unref(r, i);
}

int sked__registry_put(sked_registry *r, sked_workflow *w)
{
    pthread_mutex_lock(&r->mu);
    bool latest = false;
    for (size_t i = r->n; i-- > 0;)
        if (r->v[i].listed && strcmp(r->v[i].w->name, w->name) == 0) {
            latest =
                r->v[i].latest && strcmp(r->v[i].w->version, w->version) == 0;
            unlist(r, i);
        }
    if (r->n == r->capv) {
        size_t c = r->capv ? r->capv * 2 : 8;
        held *v = sked__realloc(r->v, c * sizeof *v);
        if (!v) {
            pthread_mutex_unlock(&r->mu);
            sked_workflow_free(w);
            return SKED_ENOMEM;
        }
        r->v = v;
        r->capv = c;
    }
    r->v[r->n++] = (held){w, 1, true, latest};
    pthread_mutex_unlock(&r->mu);
    return 0;
}

void sked__registry_keep(sked_registry *r, const char *const *names, size_t n)
{
    pthread_mutex_lock(&r->mu);
    for (size_t i = r->n; i-- > 0;) {
        bool keep = false;
        for (size_t k = 0; k < n && !keep; k++)
            keep = strcmp(r->v[i].w->name, names[k]) == 0;
        if (!keep)
            unlist(r, i);
    }
    pthread_mutex_unlock(&r->mu);
}

const sked_workflow *sked__registry_acquire(sked_registry *r,
                                            const char *workflow,
                                            const char *version)
{
    const sked_workflow *found = NULL;
    pthread_mutex_lock(&r->mu);
    /* A listed definition first; an unlisted one of the exact version
     * serves a run that started on it. */
    for (int pass = 0; pass < 2 && !found; pass++)
        for (size_t i = 0; i < r->n && !found; i++) {
            held *h = &r->v[i];
            if ((pass == 0) != h->listed || strcmp(h->w->name, workflow) != 0 ||
                (version && strcmp(h->w->version, version) != 0))
                continue;
            h->refs++;
            found = h->w;
        }
    pthread_mutex_unlock(&r->mu);
    return found;
}

void sked__registry_release(sked_registry *r, const sked_workflow *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&r->mu);
    for (size_t i = 0; i < r->n; i++)
        if (r->v[i].w == w) {
            unref(r, i);
            break;
        }
    pthread_mutex_unlock(&r->mu);
}

void sked__registry_set_latest(sked_registry *r, const char *workflow,
                               bool latest)
{
    pthread_mutex_lock(&r->mu);
    for (size_t i = 0; i < r->n; i++)
        if (r->v[i].listed && strcmp(r->v[i].w->name, workflow) == 0)
            r->v[i].latest = latest;
    pthread_mutex_unlock(&r->mu);
}

void sked__registry_claimables_free(sked_claim_workflow *list, size_t n)
{
    for (size_t i = 0; list && i < n; i++) {
        free((char *) list[i].name);
        free((char *) list[i].version);
    }
    free(list);
}

int sked__registry_claimables(sked_registry *r, sked_claim_workflow **out,
                              size_t *n)
{
    int rc = 0;
    pthread_mutex_lock(&r->mu);
    sked_claim_workflow *v = sked__calloc(r->n ? r->n : 1, sizeof *v);
    size_t k = 0;
    for (size_t i = 0; v && i < r->n; i++) {
        if (!r->v[i].listed)
            continue;
        v[k].name = sked__strdup(r->v[i].w->name);
        v[k].version = sked__strdup(r->v[i].w->version);
        v[k].latest = r->v[i].latest;
        if (!v[k++].name || !v[k - 1].version)
            rc = SKED_ENOMEM;
    }
    pthread_mutex_unlock(&r->mu);
    if (!v || rc != 0) {
        sked__registry_claimables_free(v, k);
        return SKED_ENOMEM;
    }
    *out = v;
    *n = k;
    return 0;
}

int sked__registry_set_queue_cap(sked_registry *r, const char *queue,
                                 int32_t worker_concurrency)
{
    int rc = 0;
    pthread_mutex_lock(&r->mu);
    size_t i = 0;
    while (i < r->ncaps && strcmp(r->caps[i].queue, queue) != 0)
        i++;
    if (i == r->ncaps) {
        cap *c = sked__realloc(r->caps, (r->ncaps + 1) * sizeof *c);
        char *q = sked__strdup(queue);
        if (c)
            r->caps = c;
        if (!c || !q) {
            free(q);
            rc = SKED_ENOMEM;
        } else {
            r->caps[r->ncaps++].queue = q;
        }
    }
    if (rc == 0)
        r->caps[i].worker_concurrency = worker_concurrency;
    pthread_mutex_unlock(&r->mu);
    return rc;
}

size_t sked__registry_caps(sked_registry *r, char (*names)[SKED_NAME_MAX + 1],
                           int32_t *caps, size_t max)
{
    size_t n = 0;
    pthread_mutex_lock(&r->mu);
    for (size_t i = 0; i < r->ncaps && n < max; i++) {
        if (r->caps[i].worker_concurrency <= 0)
            continue;
        snprintf(names[n], sizeof names[n], "%s", r->caps[i].queue);
        caps[n++] = r->caps[i].worker_concurrency;
    }
    pthread_mutex_unlock(&r->mu);
    return n;
}

int sked__registry_list(sked_registry *r, char ***names, char ***versions,
                        char ***defs, size_t *n)
{
    int rc = 0;
    pthread_mutex_lock(&r->mu);
    size_t room = r->n ? r->n : 1, k = 0;
    char **a = sked__calloc(room, sizeof *a),
         **b = sked__calloc(room, sizeof *b),
         **c = sked__calloc(room, sizeof *c);
    for (size_t i = 0; a && b && c && i < r->n; i++) {
        if (!r->v[i].listed)
            continue;
        a[k] = sked__strdup(r->v[i].w->name);
        b[k] = sked__strdup(r->v[i].w->version);
        c[k] = sked__workflow_json(r->v[i].w);
        if (!a[k] || !b[k] || !c[k])
            rc = SKED_ENOMEM;
        k++;
    }
    pthread_mutex_unlock(&r->mu);
    if (!a || !b || !c || rc != 0) {
        for (size_t i = 0; i < k; i++) {
            free(a[i]);
            free(b[i]);
            free(c[i]);
        }
        free(a);
        free(b);
        free(c);
        return SKED_ENOMEM;
    }
    *names = a;
    *versions = b;
    *defs = c;
    *n = k;
    return 0;
}
