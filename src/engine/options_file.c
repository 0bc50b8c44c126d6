/* SPDX-License-Identifier: MIT */
/* The file of options (options_file.h): a key table made from the
 * caller's keys, each read by one function that keeps the value's text
 * and its key's position. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "engine/options_file.h"
#include "engine/workflow_file_int.h"

typedef struct opts_read {
    const sked_opt_key *keys;
    sked_opt_value *values;
    size_t n;
} opts_read;

static int item_text(parser *p, struct fy_node *item, size_t i, void *ctx)
{
    sked_opt_value *v = ctx;

    return sked__wf_scalar_text(p, item, "a string", &v->items[i]);
}

/* Read V, the value of the key the walk stands on (the path, at the
 * top of the document), into its slot. */
static int read_value(parser *p, struct fy_node *v, void *obj)
{
    opts_read *r = obj;
    sked_opt_value *out = NULL;
    const sked_opt_key *key = NULL;
    char *text;
    int rc;

    for (size_t i = 0; i < r->n && !out; i++)
        if (strcmp(r->keys[i].key, p->path) == 0) {
            out = &r->values[i];
            key = &r->keys[i];
        }
    if (!out)
        return sked__wf_fail_code(p, v, SKED_EINTERNAL, "unknown option");
    out->line = (int) p->mark.line + 1;
    out->column = (int) p->mark.column + 1;
    if (key->list) {
        rc = sked__wf_list_alloc(p, v, sizeof *out->items,
                                 (void **) &out->items, &out->n);
        if (rc == 0)
            rc = sked__wf_list_walk(p, v, item_text, out);
    } else if ((rc = sked__wf_scalar_text(p, v, "a value", &text)) == 0) {
        out->text = text;
    }
    out->set = rc == 0;
    return rc;
}

int sked__options_file_parse(const char *text, size_t len,
                             const sked_opt_key *keys, size_t n,
                             sked_opt_value *values, sked_wf_arena **arena,
                             sked_wf_error *err)
{
    parser p = {.err = err};
    opts_read r = {keys, values, n};
    field *table;
    int rc;

    if (err)
        memset(err, 0, sizeof *err);
    memset(values, 0, n * sizeof *values);
    *arena = NULL;
    if (!(table = sked__calloc(n + 1, sizeof *table)))
        return sked__wf_fail_nomem(&p);
    for (size_t i = 0; i < n; i++)
        table[i] = (field) KEY_FN(keys[i].key, read_value);
    rc = sked__wf_read_document(&p, text, len, table, &r);
    free(table);
    *arena = p.arena;
    return rc;
}

int sked__options_file_load(const char *path, const sked_opt_key *keys,
                            size_t n, sked_opt_value *values,
                            sked_wf_arena **arena, sked_wf_error *err)
{
    char *text;
    size_t len;
    int rc;

    if (err)
        memset(err, 0, sizeof *err);
    memset(values, 0, n * sizeof *values);
    *arena = NULL;
    if ((rc = sked__wf_read_file(path, &text, &len, err)) < 0)
        return rc;
    rc = sked__options_file_parse(text, len, keys, n, values, arena, err);
    free(text);
    return rc;
}

void sked__options_file_done(sked_wf_arena *arena)
{
    sked__wf_arena_free(arena);
}
