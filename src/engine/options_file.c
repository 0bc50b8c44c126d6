/* SPDX-License-Identifier: MIT */
/* The file of options (options_file.h): a key table made from the
 * caller's keys, each read by one function that keeps the value's text
 * and its key's position; a list of records is read item by item with a
 * table made from the key's field names. */
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

/* A list of records being read: the key it is for, the table of its
 * fields, where the records go; and the one record being read. */
typedef struct record_read {
    const sked_opt_key *key;
    const field *table;
    sked_opt_value *out;
    sked_opt_record *rec;
} record_read;

static int item_text(parser *p, struct fy_node *item, size_t i, void *ctx)
{
    sked_opt_value *v = ctx;

    return sked__wf_scalar_text(p, item, "a string", &v->items[i]);
}

/* Read V, the record's field the walk stands on (the path's last name). */
static int read_field(parser *p, struct fy_node *v, void *obj)
{
    const record_read *r = obj;
    const char *name = strrchr(p->path, '.');
    char *text;
    int rc;

    name = name ? name + 1 : p->path;
    for (size_t i = 0; i < r->key->nfields; i++) {
        if (strcmp(r->key->fields[i], name) != 0)
            continue;
        if ((rc = sked__wf_scalar_text(p, v, "a value", &text)) < 0)
            return rc;
        r->rec->fields[i] = (sked_opt_text){text, (int) p->mark.line + 1,
                                            (int) p->mark.column + 1};
        return 0;
    }
    return sked__wf_fail_code(p, v, SKED_EINTERNAL, "unknown field");
}

static int item_record(parser *p, struct fy_node *item, size_t i, void *ctx)
{
    const record_read *r = ctx;
    struct fy_mark m = sked__wf_node_mark(p, item);
    record_read one = {.key = r->key, .table = r->table, .out = r->out};

    one.rec = &r->out->records[i];
    one.rec->line = (int) m.line + 1;
    one.rec->column = (int) m.column + 1;
    one.rec->fields = sked__wf_arena_alloc(
        &p->arena, r->key->nfields * sizeof *one.rec->fields);
    if (!one.rec->fields)
        return sked__wf_fail_nomem(p);
    return sked__wf_walk_map(p, item, r->table, &one);
}

/* Read V, a list of records of KEY, into OUT. */
static int read_records(parser *p, struct fy_node *v, const sked_opt_key *key,
                        sked_opt_value *out)
{
    field *table = sked__calloc(key->nfields + 1, sizeof *table);
    record_read r = {.key = key, .out = out};
    int rc;

    if (!table)
        return sked__wf_fail_nomem(p);
    for (size_t i = 0; i < key->nfields; i++)
        table[i] = (field) KEY_FN(key->fields[i], read_field);
    r.table = table;
    rc = sked__wf_list_alloc(p, v, sizeof *out->records,
                             (void **) &out->records, &out->n);
    if (rc == 0)
        rc = sked__wf_list_walk(p, v, item_record, &r);
    free(table);
    return rc;
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
    if (key->fields) {
        rc = read_records(p, v, key, out);
    } else if (key->list) {
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
