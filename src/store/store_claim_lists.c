/* SPDX-License-Identifier: MIT */
/* What goes into the lists of a claim's SQL (store_ops.h): the version
 * routing of the executor's workflows, and the queues or runs a claim
 * leaves out. A back-end only says how a list travels (SQLite: JSON
 * arrays read by json_each; PostgreSQL: array literals). */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "store/store_ops.h"

/* ADD the key "NAME/VERSION" (a workflow name holds no '/') to KEYS. */
static bool add_key(const sked_claim_workflow *w,
                    bool (*add)(void *, sked__claim_list, const char *),
                    void *ctx)
{
    char small[256], *key = small;
    size_t n1 = strlen(w->name), n2 = strlen(w->version);
    bool ok;

    if (n1 + n2 + 2 > sizeof small && !(key = sked__malloc(n1 + n2 + 2)))
        return false;
    memcpy(key, w->name, n1);
    key[n1] = '/';
    memcpy(key + n1 + 1, w->version, n2 + 1);
    ok = add(ctx, SKED__CLAIM_KEYS, key);
    if (key != small)
        free(key);
    return ok;
}

int sked__claim_lists(const sked__claim_query *q,
                      bool (*add)(void *ctx, sked__claim_list list,
                                  const char *s),
                      void *ctx, sked_error *err)
{
    const char *const *third = q->expired ? q->held : q->full;
    size_t nthird = q->expired ? q->nheld : q->nfull;
    bool ok = true;

    for (size_t i = 0; ok && i < q->nworkflows; i++) {
        const sked_claim_workflow *w = &q->workflows[i];
        ok = add_key(w, add, ctx);
        if (ok && w->latest)
            ok = add(ctx, SKED__CLAIM_LATEST, w->name) &&
                 add(ctx, SKED__CLAIM_VERSIONS, w->version);
    }
    for (size_t i = 0; ok && i < nthird; i++)
        ok = add(ctx, SKED__CLAIM_THIRD, third[i]);
    return ok ? 0 : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
}
