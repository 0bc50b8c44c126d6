/* SPDX-License-Identifier: MIT */
/* Reads the workflows file (SPEC 10; workflow_file.h) with libfyaml.
 *
 * The plan: libfyaml builds the document (YAML 1.2, duplicate keys
 * refused, errors collected rather than printed); then a walk over it,
 * driven by one key table per kind of mapping, fills the structs. A table
 * row names a key, its type, where it goes and its range; a key not in
 * the table is an error, with the nearest known key suggested. Mappings
 * that hold lists of named things (queues, workflows, steps, schedules)
 * have their own small functions. Checks that need the whole of
 * something (a step's one action, the DAG of needs, a schedule's
 * sked_schedule_validate) run once it is read, and report at its keys.
 *
 * Positions: libfyaml marks tokens, not collections, so a mapping or a
 * sequence is placed at its first key or item, or else at the key that
 * led to it. Aliases are refused: they would let a small file expand
 * without bound, and a configuration file has no need of them. */
#include "engine/workflow_file.h"

#include <errno.h>
#include <libfyaml.h>
#include <stdarg.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/error.h"
#include "exec/def.h"
#include "store/schedule.h"

/* Longest string value: the largest field sked keeps is a 64 KiB
 * context, and nothing else comes near it. */
#define STR_MAX (64 << 10)

/* ---- the arena ---------------------------------------------------------
 * Everything but the schedules is allocated here and freed at once. */

#define ARENA_BLOCK 16384

struct sked_wf_arena {
    struct sked_wf_arena *next;
    size_t used, size;
    alignas(max_align_t) unsigned char data[];
};

static void *arena_alloc(sked_wf_arena **a, size_t n)
{
    const size_t align = alignof(max_align_t);
    sked_wf_arena *b = *a;

    n = (n + align - 1) / align * align;
    if (!b || b->size - b->used < n) {
        size_t size = n > ARENA_BLOCK ? n : ARENA_BLOCK;

        if (!(b = malloc(sizeof *b + size)))
            return NULL;
        b->next = *a;
        b->used = 0;
        b->size = size;
        *a = b;
    }
    b->used += n;
    return memset(b->data + b->used - n, 0, n);
}

static void arena_free(sked_wf_arena *a)
{
    while (a) {
        sked_wf_arena *next = a->next;

        free(a);
        a = next;
    }
}

/* ---- the walk's state, errors and positions ---------------------------- */

typedef struct parser {
    sked_wf_arena *arena;
    sked_tzdb *db;      /* borrowed */
    sked_wf_error *err; /* may be NULL */
    char path[SKED_WF_PATH_MAX];
    size_t path_len;
    struct fy_mark mark; /* the last key entered, for empty nodes */
    /* The key whose scalar value is being read: errors about the value
     * point at the key, as "FILE:LINE:COL: path.key: ..." reads best. */
    struct fy_node *report_at;
    sked_schedule *schedules; /* owned until handed over */
    sked_wf_where *where;     /* owned until handed over */
    size_t n_schedules, cap_schedules;
    const char *workflow; /* the enclosing workflow, or NULL */
} parser;

/* Return the position of N: its token, or its first key or item, or the
 * last key entered when it has none. */
static struct fy_mark node_mark(const parser *p, struct fy_node *n)
{
    const struct fy_mark *m = NULL;
    void *it = NULL;

    if (n && fy_node_get_type(n) == FYNT_SCALAR)
        m = fy_token_start_mark(fy_node_get_scalar_token(n));
    else if (n && fy_node_is_mapping(n)) {
        struct fy_node_pair *pair = fy_node_mapping_iterate(n, &it);

        if (pair)
            return node_mark(p, fy_node_pair_key(pair));
    } else if (n && fy_node_is_sequence(n)) {
        struct fy_node *item = fy_node_sequence_iterate(n, &it);

        if (item)
            return node_mark(p, item);
    }
    return m ? *m : p->mark;
}

/* Fill the caller's error with CODE, the current path and the position
 * of AT, and return CODE. */
static int fail_code(parser *p, struct fy_node *at, int code, const char *fmt,
                     ...) SKED__PRINTF(4, 5);

static int fail_code(parser *p, struct fy_node *at, int code, const char *fmt,
                     ...)
{
    struct fy_mark m = node_mark(p, p->report_at ? p->report_at : at);
    va_list ap;

    if (!p->err)
        return code;
    p->err->code = code;
    p->err->line = m.line + 1;
    p->err->column = m.column + 1;
    snprintf(p->err->path, sizeof p->err->path, "%s", p->path);
    va_start(ap, fmt);
    vsnprintf(p->err->msg, sizeof p->err->msg, fmt, ap);
    va_end(ap);
    return code;
}

#define fail(p, at, ...) fail_code(p, at, SKED_EINVAL, __VA_ARGS__)

static int fail_nomem(parser *p)
{
    return fail_code(p, NULL, SKED_ENOMEM, "out of memory");
}

/* Append ".KEY" (or "KEY" at the top) or "[I]" to the path; return the
 * old length for path_pop. A path too long for the buffer is cut. */
static size_t path_push_key(parser *p, const char *key, size_t len)
{
    size_t old = p->path_len;
    int n = snprintf(p->path + old, sizeof p->path - old, "%s%.*s",
                     old ? "." : "", (int) (len > 200 ? 200 : len), key);

    if (n > 0)
        p->path_len = strnlen(p->path, sizeof p->path - 1);
    return old;
}

static size_t path_push_index(parser *p, size_t i)
{
    size_t old = p->path_len;

    snprintf(p->path + old, sizeof p->path - old, "[%zu]", i);
    p->path_len = strnlen(p->path, sizeof p->path - 1);
    return old;
}

static void path_pop(parser *p, size_t old)
{
    p->path_len = old;
    p->path[old] = '\0';
}

/* ---- scalars ------------------------------------------------------------ */

static bool is_null(struct fy_node *n)
{
    size_t len;
    const char *s;

    if (!n)
        return true;
    if (fy_node_get_type(n) != FYNT_SCALAR ||
        fy_node_get_style(n) != FYNS_PLAIN)
        return false;
    s = fy_node_get_scalar(n, &len);
    return !s || len == 0 || (len == 1 && s[0] == '~') ||
           (len == 4 &&
            (memcmp(s, "null", 4) == 0 || memcmp(s, "Null", 4) == 0 ||
             memcmp(s, "NULL", 4) == 0));
}

static const char *node_kind(struct fy_node *n)
{
    if (is_null(n))
        return "nothing";
    if (fy_node_is_mapping(n))
        return "a mapping";
    if (fy_node_is_sequence(n))
        return "a list";
    return "a value";
}

/* Copy the scalar N into the arena as a C string in *out (LEN too, when
 * not NULL). WHAT names the expected thing for the error. */
static int scalar_text(parser *p, struct fy_node *n, const char *what,
                       char **out)
{
    const char *s;
    size_t len;
    char *copy;

    if (is_null(n) || fy_node_get_type(n) != FYNT_SCALAR)
        return fail(p, n, "expected %s, found %s", what, node_kind(n));
    if (!(s = fy_node_get_scalar(n, &len)))
        return fail_nomem(p);
    if (len > STR_MAX)
        return fail_code(p, n, SKED_ETOOBIG, "longer than %d bytes", STR_MAX);
    if (memchr(s, '\0', len))
        return fail(p, n, "contains a NUL byte");
    if (!(copy = arena_alloc(&p->arena, len + 1)))
        return fail_nomem(p);
    memcpy(copy, s, len);
    *out = copy;
    return 0;
}

/* Copy scalar N to the heap, for the strings a sked_schedule owns. */
static int heap_text(parser *p, struct fy_node *n, const char *what, char **out)
{
    char *tmp, *copy;
    int rc;

    if ((rc = scalar_text(p, n, what, &tmp)) < 0)
        return rc;
    if (!(copy = strdup(tmp)))
        return fail_nomem(p);
    free(*out);
    *out = copy;
    return 0;
}

/* Parse a whole integer in MIN..MAX, plain (not quoted). */
static int int_value(parser *p, struct fy_node *n, int64_t min, int64_t max,
                     int64_t *out)
{
    char *s, *end;
    long long v;

    if (scalar_text(p, n, "a whole number", &s) < 0)
        return p->err ? p->err->code : SKED_EINVAL;
    if (fy_node_get_style(n) != FYNS_PLAIN)
        return fail(p, n, "expected a whole number, found a quoted string");
    errno = 0;
    v = strtoll(s, &end, 10);
    if (end == s || *end != '\0' || s[0] == ' ')
        return fail(p, n, "expected a whole number, found \"%.64s\"", s);
    if (errno == ERANGE || v < min || v > max)
        return fail(p, n, "%.64s is out of range: expected %lld to %lld", s,
                    (long long) min, (long long) max);
    *out = v;
    return 0;
}

static int bool_value(parser *p, struct fy_node *n, bool *out)
{
    char *s;
    int rc;

    if ((rc = scalar_text(p, n, "true or false", &s)) < 0)
        return rc;
    if (fy_node_get_style(n) == FYNS_PLAIN) {
        if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE"))
            return *out = true, 0;
        if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE"))
            return *out = false, 0;
    }
    return fail(p, n, "expected true or false, found \"%.64s\"", s);
}

/* Parse a duration (SPEC 2.3) in MIN..MAX seconds; 0 is refused unless
 * MIN is 0. */
static int dur_value(parser *p, struct fy_node *n, int64_t min, int64_t max,
                     sked_dur *out)
{
    sked_error e;
    sked_dur d;
    char *s;
    int rc;

    if ((rc = scalar_text(p, n, "a duration", &s)) < 0)
        return rc;
    sked_error_clear(&e);
    if (sked_dur_parse(s, &d, &e) < 0)
        return fail(p, n, "invalid duration \"%.64s\": %s", s, e.msg);
    if (d < min * SKED_USEC_PER_SEC || d > max * SKED_USEC_PER_SEC)
        return fail(p, n, "duration \"%.64s\" is out of range", s);
    *out = d;
    return 0;
}

static int time_value(parser *p, struct fy_node *n, sked_time *out)
{
    sked_error e;
    char *s;
    int rc;

    if ((rc = scalar_text(p, n, "an RFC 3339 instant", &s)) < 0)
        return rc;
    sked_error_clear(&e);
    if (sked_time_parse(s, out, &e) < 0)
        return fail(p, n, "invalid instant \"%.64s\": %s", s, e.msg);
    return 0;
}

static int number_value(parser *p, struct fy_node *n, double min, double max,
                        double *out)
{
    char *s, *end;
    double v;
    int rc;

    if ((rc = scalar_text(p, n, "a number", &s)) < 0)
        return rc;
    v = strtod(s, &end);
    if (end == s || *end != '\0' || fy_node_get_style(n) != FYNS_PLAIN)
        return fail(p, n, "expected a number, found \"%.64s\"", s);
    if (!(v >= min && v <= max))
        return fail(p, n, "%.64s is out of range: expected %g to %g", s, min,
                    max);
    *out = v;
    return 0;
}

/* Return why NAME cannot name something (SPEC: 1 to SKED_NAME_MAX bytes
 * of [A-Za-z0-9._-]), or NULL when it can. */
static const char *name_problem(const char *name)
{
    size_t len = strlen(name);

    if (len == 0 || len > SKED_NAME_MAX)
        return "a name has 1 to 128 characters";
    if (strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789._-") != len)
        return "a name has only letters, digits, '.', '_' and '-'";
    return NULL;
}

/* ---- key tables --------------------------------------------------------- */

typedef enum ftype {
    F_STR,   /* char *, arena */
    F_HSTR,  /* char *, heap (a sked_schedule's) */
    F_INT32, /* int32_t in min..max */
    F_INT64, /* int64_t in min..max */
    F_DUR,   /* sked_dur, min..max seconds */
    F_TIME,  /* sked_time, RFC 3339 */
    F_BOOL,  /* bool */
    F_NUM,   /* double in min..max */
    F_STRS,  /* sked_wf_strs: a list of strings */
    F_INTS,  /* sked_wf_ints: a list of whole numbers in min..max */
    F_KVS,   /* sked_wf_kvs: a mapping of strings */
    F_MAP,   /* a nested mapping read with the table sub */
    F_FN,    /* a function of its own */
} ftype;

typedef struct field field;
typedef int (*field_fn)(parser *p, struct fy_node *v, void *obj);

struct field {
    const char *key;
    ftype type;
    size_t off; /* where the value goes, from the object's start */
    int64_t min, max;
    const field *sub; /* F_MAP */
    field_fn fn;      /* F_FN */
};

/* Rows of the key tables. */
#define KEY(k, t, o)                                                           \
    {                                                                          \
        .key = (k), .type = (t), .off = (o)                                    \
    }
#define KEY_RANGE(k, t, o, lo, hi)                                             \
    {                                                                          \
        .key = (k), .type = (t), .off = (o), .min = (lo), .max = (hi)          \
    }
#define KEY_MAP(k, o, table)                                                   \
    {                                                                          \
        .key = (k), .type = F_MAP, .off = (o), .sub = (table)                  \
    }
#define KEY_FN(k, f)                                                           \
    {                                                                          \
        .key = (k), .type = F_FN, .fn = (f)                                    \
    }
#define KEY_END                                                                \
    {                                                                          \
        .key = NULL                                                            \
    }

/* Return the number of single-byte edits between A and B, stopping at 3
 * (enough to tell a typo from another word). */
static int edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    int row[33], prev, tmp;

    if (la > 32 || lb > 32)
        return 3;
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int) j;
    for (size_t i = 1; i <= la; i++) {
        prev = row[0];
        row[0] = (int) i;
        for (size_t j = 1; j <= lb; j++) {
            int best = prev + (a[i - 1] != b[j - 1]);

            tmp = row[j];
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            prev = tmp;
        }
    }
    return row[lb] < 3 ? row[lb] : 3;
}

static int unknown_key(parser *p, struct fy_node *key, const char *name,
                       const field *table)
{
    const char *best = NULL;
    int best_d = 3;

    for (const field *f = table; f->key; f++) {
        int d = edit_distance(name, f->key);

        if (d < best_d) {
            best_d = d;
            best = f->key;
        }
    }
    if (best)
        return fail(p, key, "unknown key (did you mean \"%s\"?)", best);
    return fail(p, key, "unknown key");
}

static int read_strs(parser *p, struct fy_node *v, sked_wf_strs *out)
{
    size_t n = 0, old;
    void *it = NULL;
    struct fy_node *item;
    int rc;

    if (!fy_node_is_sequence(v))
        return fail(p, v, "expected a list, found %s", node_kind(v));
    out->n = (size_t) fy_node_sequence_item_count(v);
    if (!(out->v = arena_alloc(&p->arena, (out->n + 1) * sizeof *out->v)))
        return fail_nomem(p);
    while ((item = fy_node_sequence_iterate(v, &it)) != NULL) {
        old = path_push_index(p, n);
        rc = scalar_text(p, item, "a string", &out->v[n++]);
        path_pop(p, old);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int read_ints(parser *p, struct fy_node *v, const field *f,
                     sked_wf_ints *out)
{
    size_t n = 0, old;
    void *it = NULL;
    struct fy_node *item;
    int64_t x = 0;
    int rc;

    if (!fy_node_is_sequence(v))
        return fail(p, v, "expected a list, found %s", node_kind(v));
    out->n = (size_t) fy_node_sequence_item_count(v);
    if (!(out->v = arena_alloc(&p->arena, (out->n + 1) * sizeof *out->v)))
        return fail_nomem(p);
    while ((item = fy_node_sequence_iterate(v, &it)) != NULL) {
        old = path_push_index(p, n);
        rc = int_value(p, item, f->min, f->max, &x);
        path_pop(p, old);
        if (rc < 0)
            return rc;
        out->v[n++] = (int32_t) x;
    }
    return 0;
}

static int read_kvs(parser *p, struct fy_node *v, sked_wf_kvs *out)
{
    struct fy_node_pair *pair;
    void *it = NULL;
    size_t n = 0, old;
    int rc = 0;

    if (!fy_node_is_mapping(v))
        return fail(p, v, "expected a mapping, found %s", node_kind(v));
    out->n = (size_t) fy_node_mapping_item_count(v);
    if (!(out->v = arena_alloc(&p->arena, (out->n + 1) * sizeof *out->v)))
        return fail_nomem(p);
    while (rc == 0 && (pair = fy_node_mapping_iterate(v, &it)) != NULL) {
        sked_wf_kv *kv = &out->v[n++];

        if ((rc = scalar_text(p, fy_node_pair_key(pair), "a name", &kv->key)) <
            0)
            break;
        old = path_push_key(p, kv->key, strlen(kv->key));
        rc = scalar_text(p, fy_node_pair_value(pair), "a string", &kv->value);
        path_pop(p, old);
    }
    return rc;
}

static int walk_map(parser *p, struct fy_node *map, const field *table,
                    void *obj);

/* Read V, the value of the key F, into OBJ. */
static int field_set(parser *p, const field *f, struct fy_node *v, void *obj)
{
    unsigned char *at = (unsigned char *) obj + f->off;
    int64_t x = 0;
    int rc;

    switch (f->type) {
    case F_STR:
        return scalar_text(p, v, "a string", (char **) at);
    case F_HSTR:
        return heap_text(p, v, "a string", (char **) at);
    case F_INT32:
        if ((rc = int_value(p, v, f->min, f->max, &x)) == 0)
            *(int32_t *) at = (int32_t) x;
        return rc;
    case F_INT64:
        return int_value(p, v, f->min, f->max, (int64_t *) at);
    case F_DUR:
        return dur_value(p, v, f->min, f->max, (sked_dur *) at);
    case F_TIME:
        return time_value(p, v, (sked_time *) at);
    case F_BOOL:
        return bool_value(p, v, (bool *) at);
    case F_NUM:
        return number_value(p, v, (double) f->min, (double) f->max,
                            (double *) at);
    case F_STRS:
        return read_strs(p, v, (sked_wf_strs *) at);
    case F_INTS:
        return read_ints(p, v, f, (sked_wf_ints *) at);
    case F_KVS:
        return read_kvs(p, v, (sked_wf_kvs *) at);
    case F_MAP:
        return walk_map(p, v, f->sub, at);
    case F_FN:
        return f->fn(p, v, obj);
    }
    return fail_code(p, v, SKED_EINTERNAL, "unknown field type");
}

/* Read the key KEY of a mapping, with the path and mark moved onto it. */
static int walk_pair(parser *p, struct fy_node *key, struct fy_node *v,
                     const field *table, void *obj)
{
    const char *name;
    const field *f;
    size_t len, old;
    int rc;

    if (!key || fy_node_get_type(key) != FYNT_SCALAR ||
        !(name = fy_node_get_scalar(key, &len)) || len == 0 ||
        memchr(name, '\0', len))
        return fail(p, key, "expected a key name");
    p->mark = node_mark(p, key);
    old = path_push_key(p, name, len);
    for (f = table; f->key; f++)
        if (strlen(f->key) == len && memcmp(f->key, name, len) == 0)
            break;
    if (!f->key) {
        rc = unknown_key(p, key, p->path + (old ? old + 1 : 0), table);
    } else {
        struct fy_node *saved = p->report_at;

        p->report_at = v && fy_node_get_type(v) == FYNT_SCALAR ? key : NULL;
        rc = field_set(p, f, v, obj);
        p->report_at = saved;
    }
    path_pop(p, old);
    return rc;
}

/* Read the mapping MAP into OBJ by TABLE (ending with a NULL key). */
static int walk_map(parser *p, struct fy_node *map, const field *table,
                    void *obj)
{
    struct fy_node_pair *pair;
    void *it = NULL;
    int rc;

    if (!fy_node_is_mapping(map))
        return fail(p, map, "expected a mapping, found %s", node_kind(map));
    while ((pair = fy_node_mapping_iterate(map, &it)) != NULL)
        if ((rc = walk_pair(p, fy_node_pair_key(pair), fy_node_pair_value(pair),
                            table, obj)) < 0)
            return rc;
    return 0;
}

/* Return the pair of MAP whose key is KEY, or NULL. */
static struct fy_node_pair *find_pair(struct fy_node *map, const char *key)
{
    if (!fy_node_is_mapping(map))
        return NULL;
    return fy_node_mapping_lookup_pair_by_simple_key(map, key, strlen(key));
}

/* Fail at the key KEY of MAP (or at MAP when absent), with the path moved
 * onto it. */
static int fail_at_key(parser *p, struct fy_node *map, const char *key,
                       const char *msg)
{
    struct fy_node_pair *pair = find_pair(map, key);
    size_t old;
    int rc;

    if (!pair)
        return fail(p, map, "%s", msg);
    old = path_push_key(p, key, strlen(key));
    rc = fail(p, fy_node_pair_key(pair), "%s", msg);
    path_pop(p, old);
    return rc;
}

/* Find which of KEYS (ending with NULL) MAP holds: exactly one is
 * wanted. Store its index in *which. */
static int one_of(parser *p, struct fy_node *map, const char *const *keys,
                  const char *list, int *which)
{
    const char *first = NULL;
    char msg[160];

    for (int i = 0; keys[i]; i++) {
        if (!find_pair(map, keys[i]))
            continue;
        if (first) {
            snprintf(msg, sizeof msg,
                     "\"%s\" and \"%s\" both given: use "
                     "only one of %s",
                     first, keys[i], list);
            return fail_at_key(p, map, keys[i], msg);
        }
        first = keys[i];
        *which = i;
    }
    if (!first)
        return fail(p, map, "missing one of %s", list);
    return 0;
}

/* ---- schedules ---------------------------------------------------------- */

/* Convert the YAML node N into JSON: plain scalars become null, booleans
 * and numbers when they read as such, anything else a string. */
static int to_json(parser *p, struct fy_node *n, int depth, json_t **out);

static int scalar_json(parser *p, struct fy_node *n, json_t **out)
{
    char *s, *end;
    long long i;
    double d;
    int rc;

    if (is_null(n))
        return (*out = json_null()) ? 0 : fail_nomem(p);
    if ((rc = scalar_text(p, n, "a value", &s)) < 0)
        return rc;
    if (fy_node_get_style(n) != FYNS_PLAIN)
        *out = json_string(s);
    else if (!strcmp(s, "true") || !strcmp(s, "false"))
        *out = json_boolean(s[0] == 't');
    else if (errno = 0, i = strtoll(s, &end, 10), *s && !*end && !errno)
        *out = json_integer(i);
    else if (d = strtod(s, &end), *s && !*end && d - d == 0)
        *out = json_real(d);
    else
        *out = json_string(s);
    return *out ? 0 : fail(p, n, "not valid UTF-8");
}

static int map_json(parser *p, struct fy_node *n, int depth, json_t *obj)
{
    struct fy_node_pair *pair;
    void *it = NULL;
    json_t *v;
    char *key;
    int rc;

    while ((pair = fy_node_mapping_iterate(n, &it)) != NULL) {
        if ((rc = scalar_text(p, fy_node_pair_key(pair), "a key", &key)) < 0 ||
            (rc = to_json(p, fy_node_pair_value(pair), depth + 1, &v)) < 0)
            return rc;
        if (json_object_set_new(obj, key, v) < 0)
            return fail(p, fy_node_pair_key(pair), "invalid key");
    }
    return 0;
}

static int to_json(parser *p, struct fy_node *n, int depth, json_t **out)
{
    struct fy_node *item;
    void *it = NULL;
    json_t *j, *v;
    int rc = 0;

    if (depth > SKED_WF_CONTEXT_DEPTH_MAX)
        return fail(p, n, "nested deeper than %d levels",
                    SKED_WF_CONTEXT_DEPTH_MAX);
    if (!n || fy_node_get_type(n) == FYNT_SCALAR)
        return scalar_json(p, n, out);
    if (!(j = fy_node_is_mapping(n) ? json_object() : json_array()))
        return fail_nomem(p);
    if (fy_node_is_mapping(n))
        rc = map_json(p, n, depth, j);
    while (rc == 0 && !fy_node_is_mapping(n) &&
           (item = fy_node_sequence_iterate(n, &it)) != NULL)
        if ((rc = to_json(p, item, depth + 1, &v)) == 0 &&
            json_array_append_new(j, v) < 0)
            rc = fail_nomem(p);
    if (rc < 0)
        json_decref(j);
    else
        *out = j;
    return rc;
}

static int sch_context(parser *p, struct fy_node *v, void *obj)
{
    sked_schedule *s = obj;
    json_t *j = NULL;
    char *text;
    int rc;

    if (!fy_node_is_mapping(v))
        return fail(p, v, "expected a mapping, found %s", node_kind(v));
    if ((rc = to_json(p, v, 0, &j)) < 0)
        return rc;
    text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    if (!text)
        return fail_nomem(p);
    free(s->context);
    s->context = text;
    return 0;
}

/* Read an enum name with PARSE, reporting its message. */
#define ENUM_FN(fname, type, member, parse)                                    \
    static int fname(parser *p, struct fy_node *v, void *obj)                  \
    {                                                                          \
        sked_error e;                                                          \
        type x;                                                                \
        char *s;                                                               \
        int rc;                                                                \
                                                                               \
        if ((rc = scalar_text(p, v, "a name", &s)) < 0)                        \
            return rc;                                                         \
        sked_error_clear(&e);                                                  \
        if (parse < 0)                                                         \
            return fail(p, v, "%s", e.msg[0] ? e.msg : "invalid value");       \
        ((sked_schedule *) obj)->member = x;                                   \
        return 0;                                                              \
    }

ENUM_FN(sch_catchup, sked_catchup, catchup,
        sked_catchup_parse(s, "catchup", &x, &e))
ENUM_FN(sch_overlap, sked_overlap, overlap,
        sked_overlap_parse(s, "overlap", &x, &e))
ENUM_FN(sch_dst, sked_dst, dst, sked_dst_parse(s, &x, &e))

static int sch_paused(parser *p, struct fy_node *v, void *obj)
{
    sked_schedule *s = obj;
    bool paused = false;
    int rc;

    if ((rc = bool_value(p, v, &paused)) == 0)
        s->status = paused ? SKED_SCHEDULE_PAUSED : SKED_SCHEDULE_ACTIVE;
    return rc;
}

static int sch_backfill(parser *p, struct fy_node *v, void *obj)
{
    sked_schedule *s = obj;
    bool on = false;
    int rc;

    if ((rc = bool_value(p, v, &on)) == 0)
        s->automatic_backfill = on;
    return rc;
}

#define SOFF(m) offsetof(sked_schedule, m)
/* Ranges of schedules are left to sked_schedule_validate, so that the
 * file, the CLI and the API say the same thing about the same value. */
#define DUR_ANY_MAX (INT64_C(36525) * 86400)
static const field schedule_fields[] = {
    KEY("name", F_HSTR, SOFF(name)),
    KEY("workflow", F_HSTR, SOFF(workflow)),
    KEY("cron", F_HSTR, SOFF(cron)),
    KEY_RANGE("every", F_DUR, SOFF(every), 0, DUR_ANY_MAX),
    KEY("anchor", F_TIME, SOFF(anchor)),
    KEY("at", F_TIME, SOFF(at)),
    KEY("timezone", F_HSTR, SOFF(timezone)),
    KEY_FN("dst", sch_dst),
    KEY_FN("context", sch_context),
    KEY_FN("catchup", sch_catchup),
    KEY_RANGE("catchup_max", F_INT32, SOFF(catchup_max), INT32_MIN, INT32_MAX),
    KEY_RANGE("catchup_window", F_DUR, SOFF(catchup_window), 0, DUR_ANY_MAX),
    KEY_FN("overlap", sch_overlap),
    KEY_RANGE("priority", F_INT32, SOFF(priority), INT32_MIN, INT32_MAX),
    KEY("queue", F_HSTR, SOFF(queue)),
    KEY_RANGE("jitter", F_DUR, SOFF(jitter), 0, DUR_ANY_MAX),
    KEY_FN("paused", sch_paused),
    KEY_FN("automatic_backfill", sch_backfill),
    KEY("start_at", F_TIME, SOFF(start_at)),
    KEY("end_at", F_TIME, SOFF(end_at)),
    KEY_RANGE("max_runs", F_INT64, SOFF(max_runs), INT64_MIN, INT64_MAX),
    KEY_RANGE("pause_after_failures", F_INT32, SOFF(pause_after_failures),
              INT32_MIN, INT32_MAX),
    KEY("description", F_HSTR, SOFF(description)),
    KEY_END,
};

/* Turn a field named by sked_schedule_validate ("catchup_window_secs",
 * "cron.minute") into the file's key. */
static void field_to_key(const char *name, char *key, size_t size)
{
    size_t n = strcspn(name, ".[");
    const char *suffix = "_secs";
    size_t ls = strlen(suffix);

    if (n >= size)
        n = size - 1;
    memcpy(key, name, n);
    key[n] = '\0';
    if (n > ls && strcmp(key + n - ls, suffix) == 0)
        key[n - ls] = '\0';
}

static int sch_validate(parser *p, struct fy_node *map, const sked_schedule *s)
{
    char key[SKED_ERROR_FIELD_MAX], msg[SKED_WF_MSG_MAX];
    sked_error e;

    sked_error_clear(&e);
    if (sked_schedule_validate(s, p->db, &e) == 0)
        return 0;
    field_to_key(e.field, key, sizeof key);
    if (key[0] && find_pair(map, key))
        return fail_at_key(p, map, key, e.msg);
    snprintf(msg, sizeof msg, "%s%s%s", e.field, e.field[0] ? ": " : "",
             e.msg[0] ? e.msg : sked_strerror(e.code));
    return fail(p, map, "%s", msg);
}

/* Fill in what a schedule takes from where it stands, then check it. */
static int sch_finish(parser *p, struct fy_node *map, sked_schedule *s)
{
    static const char *const specs[] = {"cron", "every", "at", NULL};
    sked_error e;
    int which = 0, rc;

    if ((rc = one_of(p, map, specs, "cron, every or at", &which)) < 0)
        return rc;
    s->kind = which == 0   ? SKED_SPEC_CRON
              : which == 1 ? SKED_SPEC_EVERY
                           : SKED_SPEC_AT;
    if (s->kind != SKED_SPEC_EVERY && find_pair(map, "anchor"))
        return fail_at_key(p, map, "anchor", "an anchor needs \"every\"");
    if (p->workflow && s->workflow && strcmp(s->workflow, p->workflow) != 0)
        return fail_at_key(p, map, "workflow",
                           "differs from the enclosing workflow");
    if (!s->workflow && !p->workflow)
        return fail(p, map, "missing key \"workflow\"");
    if (!s->workflow && !(s->workflow = strdup(p->workflow)))
        return fail_nomem(p);
    /* The name defaults to the workflow's: check the workflow first, so
     * that a bad one is reported as itself. */
    sked_error_clear(&e);
    if (sked__schedule_name_check(s->workflow, "workflow", &e) < 0)
        return fail_at_key(p, map, "workflow", e.msg);
    if (!s->name && !(s->name = strdup(s->workflow)))
        return fail_nomem(p);
    s->source = SKED_SOURCE_CODE;
    for (size_t i = 0; i < p->n_schedules; i++)
        if (strcmp(p->schedules[i].name, s->name) == 0)
            return fail_at_key(p, map, "name",
                               "another schedule has this name");
    return sch_validate(p, map, s);
}

static int sch_push(parser *p, struct fy_node *map, sked_schedule *s)
{
    struct fy_mark m = node_mark(p, map);
    sked_wf_where *w;

    if (p->n_schedules == p->cap_schedules) {
        size_t cap = p->cap_schedules ? 2 * p->cap_schedules : 8;
        sked_schedule *v = realloc(p->schedules, cap * sizeof *v);

        if (!v)
            return fail_nomem(p);
        p->schedules = v;
        if (!(w = realloc(p->where, cap * sizeof *w)))
            return fail_nomem(p);
        p->where = w;
        p->cap_schedules = cap;
    }
    w = &p->where[p->n_schedules];
    w->line = m.line + 1;
    w->column = m.column + 1;
    snprintf(w->path, sizeof w->path, "%s", p->path);
    p->schedules[p->n_schedules++] = *s;
    return 0;
}

static int read_schedule(parser *p, struct fy_node *map)
{
    sked_schedule s;
    int rc;

    sked_schedule_init(&s);
    if ((rc = walk_map(p, map, schedule_fields, &s)) < 0 ||
        (rc = sch_finish(p, map, &s)) < 0 || (rc = sch_push(p, map, &s)) < 0) {
        sked_schedule_done(&s);
        return rc;
    }
    return 0;
}

/* Read "schedules": a list of schedule mappings. */
static int read_schedules(parser *p, struct fy_node *v, void *obj)
{
    struct fy_node *item;
    void *it = NULL;
    size_t i = 0, old;
    int rc;

    (void) obj;
    if (!fy_node_is_sequence(v))
        return fail(p, v, "expected a list, found %s", node_kind(v));
    while ((item = fy_node_sequence_iterate(v, &it)) != NULL) {
        old = path_push_index(p, i++);
        rc = read_schedule(p, item);
        path_pop(p, old);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* ---- steps ---------------------------------------------------------------*/

#define DAY (INT64_C(86400))
static const field retry_fields[] = {
    KEY_RANGE("attempts", F_INT32, offsetof(sked_wf_retry, attempts), 1,
              SKED_RETRY_ATTEMPTS_MAX),
    KEY_RANGE("backoff", F_DUR, offsetof(sked_wf_retry, backoff), 0, DAY),
    KEY_RANGE("multiplier", F_NUM, offsetof(sked_wf_retry, multiplier), 1, 100),
    KEY_RANGE("max_backoff", F_DUR, offsetof(sked_wf_retry, max_backoff), 0,
              7 * DAY),
    KEY("jitter", F_BOOL, offsetof(sked_wf_retry, jitter)),
    KEY_RANGE("retry_on", F_INTS, offsetof(sked_wf_retry, retry_on), 0, 599),
    KEY_END,
};

static const field http_fields[] = {
    KEY("method", F_STR, offsetof(sked_wf_http, method)),
    KEY("url", F_STR, offsetof(sked_wf_http, url)),
    KEY("headers", F_KVS, offsetof(sked_wf_http, headers)),
    KEY("body", F_STR, offsetof(sked_wf_http, body)),
    KEY_RANGE("expect", F_INTS, offsetof(sked_wf_http, expect), 100, 599),
    KEY_END,
};

static int read_compensate(parser *p, struct fy_node *v, void *obj);

/* The keys of an action, in a struct of type T where the action's
 * members are reached through PRE ("a." in a step, nothing alone). */
#define ACTION_FIELDS(T, PRE)                                                  \
    KEY("run", F_STRS, offsetof(T, PRE run)),                                  \
        KEY("sh", F_STR, offsetof(T, PRE sh)),                                 \
        KEY_MAP("http", offsetof(T, PRE http), http_fields),                   \
        KEY_RANGE("sleep", F_DUR, offsetof(T, PRE sleep), 1, 366 * DAY),       \
        KEY("env", F_KVS, offsetof(T, PRE env)),                               \
        KEY("cwd", F_STR, offsetof(T, PRE cwd)),                               \
        KEY("user", F_STR, offsetof(T, PRE user)),                             \
        KEY_RANGE("timeout", F_DUR, offsetof(T, PRE timeout), 1, 30 * DAY),    \
        KEY_RANGE("kill_grace", F_DUR, offsetof(T, PRE kill_grace), 1, 3600),  \
        KEY_MAP("retry", offsetof(T, PRE retry), retry_fields)

static const field step_fields[] = {
    ACTION_FIELDS(sked_wf_step, a.),
    KEY("name", F_STR, offsetof(sked_wf_step, name)),
    KEY("needs", F_STRS, offsetof(sked_wf_step, needs)),
    KEY_FN("compensate", read_compensate),
    KEY_END,
};

static const field compensate_fields[] = {
    ACTION_FIELDS(sked_wf_action, ),
    KEY_END,
};

/* Check that MAP, read into A, does exactly one thing (SPEC 10). */
static int action_finish(parser *p, struct fy_node *map, sked_wf_action *a,
                         bool compensation)
{
    static const char *const kinds[] = {"run", "sh", "http", "sleep", NULL};
    int which = 0, rc;

    if ((rc = one_of(p, map, kinds, "run, sh, http or sleep", &which)) < 0)
        return rc;
    a->kind = (sked_wf_action_kind) (SKED_WF_ACTION_RUN + which);
    if (compensation && a->kind == SKED_WF_ACTION_SLEEP)
        return fail_at_key(p, map, "sleep", "a compensation cannot sleep");
    if (a->kind == SKED_WF_ACTION_RUN && a->run.n == 0)
        return fail_at_key(p, map, "run", "needs at least the program");
    if (a->kind == SKED_WF_ACTION_HTTP && !a->http.url)
        return fail_at_key(p, map, "http", "missing key \"url\"");
    return 0;
}

static int read_compensate(parser *p, struct fy_node *v, void *obj)
{
    sked_wf_step *step = obj;
    sked_wf_action *a;
    int rc;

    if (!(a = arena_alloc(&p->arena, sizeof *a)))
        return fail_nomem(p);
    if ((rc = walk_map(p, v, compensate_fields, a)) < 0 ||
        (rc = action_finish(p, v, a, true)) < 0)
        return rc;
    step->compensate = a;
    return 0;
}

static int read_step(parser *p, struct fy_node *map, sked_wf_step *step)
{
    const char *why;
    int rc;

    if ((rc = walk_map(p, map, step_fields, step)) < 0 ||
        (rc = action_finish(p, map, &step->a, false)) < 0)
        return rc;
    if (!step->name)
        return fail(p, map, "missing key \"name\"");
    if ((why = name_problem(step->name)) != NULL)
        return fail_at_key(p, map, "name", why);
    return 0;
}

static long step_index(const sked_wf_workflow *w, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(w->steps[i].name, name) == 0)
            return (long) i;
    return -1;
}

/* Check names and needs of W's steps: unique names, needs that name an
 * earlier-declared or later step, and no cycle. The cycle check colours
 * steps white (0), grey (1, on the path) and black (2). */
static int visit(const sked_wf_workflow *w, size_t i, unsigned char *colour)
{
    const sked_wf_step *s = &w->steps[i];

    if (colour[i] == 2)
        return 0;
    if (colour[i] == 1)
        return -1;
    colour[i] = 1;
    for (size_t k = 0; k < s->needs.n; k++)
        if (visit(w, (size_t) step_index(w, w->n_steps, s->needs.v[k]),
                  colour) < 0)
            return -1;
    colour[i] = 2;
    return 0;
}

static int check_steps(parser *p, struct fy_node *seq, sked_wf_workflow *w)
{
    unsigned char *colour;
    size_t i, k, old;
    int rc = 0;

    for (i = 0; i < w->n_steps && rc == 0; i++) {
        struct fy_node *map = fy_node_sequence_get_by_index(seq, (int) i);
        const sked_wf_step *s = &w->steps[i];

        old = path_push_index(p, i);
        if (step_index(w, i, s->name) >= 0)
            rc = fail_at_key(p, map, "name", "another step has this name");
        for (k = 0; k < s->needs.n && rc == 0; k++)
            if (step_index(w, w->n_steps, s->needs.v[k]) < 0)
                rc = fail_at_key(p, map, "needs", "names an unknown step");
        path_pop(p, old);
    }
    if (rc < 0)
        return rc;
    if (!(colour = arena_alloc(&p->arena, w->n_steps + 1)))
        return fail_nomem(p);
    /* The DAG check recurses once per step along a chain of needs; the
     * item cap bounds it. */
    for (i = 0; i < w->n_steps; i++)
        if (visit(w, i, colour) < 0)
            return fail(p, seq, "the steps' needs form a cycle");
    return 0;
}

static int read_steps(parser *p, struct fy_node *v, void *obj)
{
    sked_wf_workflow *w = obj;
    struct fy_node *item;
    void *it = NULL;
    size_t old;
    int rc;

    if (!fy_node_is_sequence(v))
        return fail(p, v, "expected a list, found %s", node_kind(v));
    w->n_steps = (size_t) fy_node_sequence_item_count(v);
    if (!(w->steps =
              arena_alloc(&p->arena, (w->n_steps + 1) * sizeof *w->steps)))
        return fail_nomem(p);
    for (size_t i = 0; (item = fy_node_sequence_iterate(v, &it)); i++) {
        old = path_push_index(p, i);
        rc = read_step(p, item, &w->steps[i]);
        path_pop(p, old);
        if (rc < 0)
            return rc;
    }
    return check_steps(p, v, w);
}

/* ---- workflows and queues ----------------------------------------------- */

static const field timeout_fields[] = {
    KEY_RANGE("seconds", F_DUR, offsetof(sked_wf_timeout, seconds), 1,
              366 * DAY),
    KEY("hard", F_BOOL, offsetof(sked_wf_timeout, hard)),
    KEY("fail_workflow", F_BOOL, offsetof(sked_wf_timeout, fail_workflow)),
    KEY_END,
};

static const field workflow_fields[] = {
    KEY("queue", F_STR, offsetof(sked_wf_workflow, queue)),
    KEY("version", F_STR, offsetof(sked_wf_workflow, version)),
    KEY_MAP("timeout", offsetof(sked_wf_workflow, timeout), timeout_fields),
    KEY_RANGE("parallelism", F_INT32, offsetof(sked_wf_workflow, parallelism),
              1, SKED_WORKFLOW_PARALLELISM_MAX),
    KEY_FN("steps", read_steps),
    KEY_FN("schedules", read_schedules),
    KEY_END,
};

/* rate_limit's keys land in the queue itself (offsets from the queue). */
static const field rate_fields[] = {
    KEY_RANGE("limit", F_INT32, offsetof(sked_wf_queue, rate_limit), 1,
              1000000),
    KEY_RANGE("period", F_DUR, offsetof(sked_wf_queue, rate_period), 1,
              366 * DAY),
    KEY_END,
};

static const field queue_fields[] = {
    KEY_RANGE("concurrency", F_INT32, offsetof(sked_wf_queue, concurrency), 1,
              100000),
    KEY_RANGE("worker_concurrency", F_INT32,
              offsetof(sked_wf_queue, worker_concurrency), 1, 100000),
    KEY_MAP("rate_limit", 0, rate_fields),
    KEY_END,
};

static int read_workflow(parser *p, struct fy_node *map, sked_wf_workflow *w)
{
    int rc;

    w->timeout.hard = true;
    w->timeout.fail_workflow = true;
    w->parallelism = 1;
    p->workflow = w->name;
    rc = walk_map(p, map, workflow_fields, w);
    p->workflow = NULL;
    if (rc == 0 && !find_pair(map, "steps") && !find_pair(map, "schedules"))
        return fail(p, map, "a workflow needs \"steps\" or \"schedules\"");
    return rc;
}

static int read_queue(parser *p, struct fy_node *map, sked_wf_queue *q)
{
    struct fy_node_pair *rate = find_pair(map, "rate_limit");
    int rc;

    if (is_null(map))
        return 0; /* "name:" alone: a queue with the defaults */
    if ((rc = walk_map(p, map, queue_fields, q)) < 0)
        return rc;
    if (rate && (q->rate_limit == 0 || q->rate_period == 0))
        return fail_at_key(p, map, "rate_limit",
                           "needs both \"limit\" and \"period\"");
    return 0;
}

/* Read a mapping of named things: each key is a name, each value read
 * by READ into one element of SIZE bytes of a new array. */
typedef int (*named_fn)(parser *p, struct fy_node *v, void *elem);

static int read_named(parser *p, struct fy_node *v, size_t size, named_fn read,
                      void **out, size_t *n)
{
    struct fy_node_pair *pair;
    unsigned char *arr;
    void *it = NULL;
    const char *why;
    size_t i = 0, old;
    int rc;

    if (!fy_node_is_mapping(v))
        return fail(p, v, "expected a mapping, found %s", node_kind(v));
    *n = (size_t) fy_node_mapping_item_count(v);
    if (!(arr = arena_alloc(&p->arena, (*n + 1) * size)))
        return fail_nomem(p);
    *out = arr;
    while ((pair = fy_node_mapping_iterate(v, &it)) != NULL) {
        struct fy_node *key = fy_node_pair_key(pair);
        char **name = (char **) (void *) (arr + i++ * size);

        /* Every named struct has its name first. */
        if ((rc = scalar_text(p, key, "a name", name)) < 0)
            return rc;
        p->mark = node_mark(p, key);
        old = path_push_key(p, *name, strlen(*name));
        rc = (why = name_problem(*name))
                 ? fail(p, key, "%s", why)
                 : read(p, fy_node_pair_value(pair), name);
        path_pop(p, old);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int wf_read(parser *p, struct fy_node *v, void *elem)
{
    return read_workflow(p, v, elem);
}

static int queue_read(parser *p, struct fy_node *v, void *elem)
{
    return read_queue(p, v, elem);
}

static int read_workflows(parser *p, struct fy_node *v, void *obj)
{
    sked_wf_file *f = obj;

    return read_named(p, v, sizeof *f->workflows, wf_read,
                      (void **) &f->workflows, &f->n_workflows);
}

static int read_queues(parser *p, struct fy_node *v, void *obj)
{
    sked_wf_file *f = obj;

    return read_named(p, v, sizeof *f->queues, queue_read, (void **) &f->queues,
                      &f->n_queues);
}

static const field top_fields[] = {
    KEY_FN("queues", read_queues),
    KEY_FN("workflows", read_workflows),
    KEY_FN("schedules", read_schedules),
    KEY_END,
};

/* ---- the document ------------------------------------------------------- */

/* Refuse aliases and oversized collections anywhere under N, before the
 * walk reads anything. libfyaml's depth limit bounds the recursion. */
static int check_tree(parser *p, struct fy_node *n)
{
    struct fy_node_pair *pair;
    struct fy_node *item;
    void *it = NULL;
    int rc;

    if (!n)
        return 0;
    if (fy_node_get_style(n) == FYNS_ALIAS)
        return fail(p, n, "aliases are not supported");
    if (fy_node_get_type(n) == FYNT_SCALAR)
        return 0;
    if ((fy_node_is_mapping(n)
             ? fy_node_mapping_item_count(n)
             : fy_node_sequence_item_count(n)) > SKED_WF_ITEMS_MAX)
        return fail_code(p, n, SKED_ETOOBIG, "more than %d items",
                         SKED_WF_ITEMS_MAX);
    if (fy_node_is_sequence(n)) {
        while ((item = fy_node_sequence_iterate(n, &it)) != NULL)
            if ((rc = check_tree(p, item)) < 0)
                return rc;
        return 0;
    }
    while ((pair = fy_node_mapping_iterate(n, &it)) != NULL)
        if ((rc = check_tree(p, fy_node_pair_key(pair))) < 0 ||
            (rc = check_tree(p, fy_node_pair_value(pair))) < 0)
            return rc;
    return 0;
}

/* Report the first error libfyaml collected in DIAG, or "empty" when it
 * collected none (an empty stream builds no document). */
static int syntax_error(parser *p, struct fy_diag *diag)
{
    struct fy_diag_error *e;
    void *it = NULL;

    while ((e = fy_diag_errors_iterate(diag, &it)) != NULL) {
        if (e->type < FYET_ERROR)
            continue;
        if (p->err) {
            p->err->code = SKED_ESYNTAX;
            p->err->line = e->line > 0 ? e->line : 0;
            p->err->column = e->column > 0 ? e->column : 0;
            p->err->path[0] = '\0';
            snprintf(p->err->msg, sizeof p->err->msg, "%s",
                     e->msg ? e->msg : "invalid YAML");
        }
        return SKED_ESYNTAX;
    }
    return 0;
}

static struct fy_document *build(parser *p, const char *text, size_t len,
                                 int *rc)
{
    struct fy_diag_cfg dcfg;
    struct fy_parse_cfg cfg = {0};
    struct fy_document *doc;
    struct fy_diag *diag;

    fy_diag_cfg_default(&dcfg);
    dcfg.fp = NULL;
    dcfg.level = FYET_ERROR;
    if (!(diag = fy_diag_create(&dcfg))) {
        *rc = fail_nomem(p);
        return NULL;
    }
    fy_diag_set_collect_errors(diag, true);
    cfg.flags = FYPCF_QUIET | FYPCF_DEFAULT_VERSION_1_2 | FYPCF_JSON_NONE;
    cfg.diag = diag;
    doc = fy_document_build_from_string(&cfg, text, len);
    *rc = doc ? 0 : syntax_error(p, diag);
    fy_diag_destroy(diag);
    return doc;
}

/* Return the length of the UTF-8 sequence at S (N bytes left), or 0 when
 * it is not one (overlong forms, surrogates and code points past
 * U+10FFFF included). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t len = s[0] < 0x80   ? 1
                 : s[0] < 0xc2 ? 0
                 : s[0] < 0xe0 ? 2
                 : s[0] < 0xf0 ? 3
                 : s[0] < 0xf5 ? 4
                               : 0;

    if (len == 0 || len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
        (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
        return 0;
    return len;
}

/* Refuse what YAML does not allow in a stream (YAML 1.2 5.1: UTF-8, and
 * of the C0 controls only tab, line feed and carriage return; no DEL).
 * libfyaml 0.7 can loop for ever on a NUL or a broken UTF-8 sequence in
 * a directive, so such bytes are refused before it sees them. */
static int check_bytes(parser *p, const char *text, size_t len)
{
    const unsigned char *s = (const unsigned char *) text;
    int line = 1, column = 1;
    size_t i = 0, n;

    while (i < len) {
        unsigned char c = s[i];

        n = utf8_len(s + i, len - i);
        if (n == 0 || (c < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
            c == 0x7f) {
            if (p->err) {
                p->err->code = SKED_ESYNTAX;
                p->err->line = line;
                p->err->column = column;
                snprintf(p->err->msg, sizeof p->err->msg,
                         n ? "control character 0x%02x is not allowed in YAML"
                           : "invalid UTF-8 (byte 0x%02x)",
                         c);
            }
            return SKED_ESYNTAX;
        }
        line += c == '\n';
        column = c == '\n' ? 1 : column + 1;
        i += n;
    }
    return 0;
}

static void parser_free(parser *p)
{
    for (size_t i = 0; i < p->n_schedules; i++)
        sked_schedule_done(&p->schedules[i]);
    free(p->schedules);
    free(p->where);
    arena_free(p->arena);
}

int sked__workflow_file_parse(const char *text, size_t len, sked_tzdb *db,
                              sked_wf_file *out, sked_wf_error *err)
{
    parser p = {.db = db, .err = err};
    sked_wf_file f = {0};
    struct fy_document *doc;
    struct fy_node *root;
    int rc;

    if (err)
        memset(err, 0, sizeof *err);
    if (len > SKED_WF_FILE_MAX)
        return fail_code(&p, NULL, SKED_ETOOBIG, "larger than %d bytes",
                         SKED_WF_FILE_MAX);
    if ((rc = check_bytes(&p, text, len)) < 0)
        return rc;
    doc = build(&p, text, len, &rc);
    root = doc ? fy_document_root(doc) : NULL;
    /* An empty stream, or a document of only "---", declares nothing. */
    if (root && !is_null(root) && (rc = check_tree(&p, root)) == 0)
        rc = walk_map(&p, root, top_fields, &f);
    fy_document_destroy(doc);
    if (rc < 0) {
        parser_free(&p);
        return rc;
    }
    f.schedules = p.schedules;
    f.where = p.where;
    f.n_schedules = p.n_schedules;
    f.arena = p.arena;
    *out = f;
    return 0;
}

int sked__workflow_file_load(const char *path, sked_tzdb *db, sked_wf_file *out,
                             sked_wf_error *err)
{
    FILE *fp = fopen(path, "rb");
    char *buf;
    size_t n;
    int rc;

    if (err)
        memset(err, 0, sizeof *err);
    if (!fp) {
        if (err) {
            err->code = SKED_EIO;
            snprintf(err->msg, sizeof err->msg, "cannot open: %s",
                     strerror(errno));
        }
        return SKED_EIO;
    }
    if (!(buf = malloc(SKED_WF_FILE_MAX + 1))) {
        fclose(fp);
        return SKED_ENOMEM;
    }
    n = fread(buf, 1, SKED_WF_FILE_MAX + 1, fp);
    rc = ferror(fp) ? SKED_EIO : 0;
    if (err && rc) {
        err->code = rc;
        snprintf(err->msg, sizeof err->msg, "cannot read: %s", strerror(errno));
    }
    fclose(fp);
    if (rc == 0)
        rc = sked__workflow_file_parse(buf, n, db, out, err);
    free(buf);
    return rc;
}

void sked__workflow_file_done(sked_wf_file *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n_schedules; i++)
        sked_schedule_done(&f->schedules[i]);
    free(f->schedules);
    free(f->where);
    arena_free(f->arena);
    memset(f, 0, sizeof *f);
}

void sked__workflow_file_error_format(const sked_wf_error *err,
                                      const char *file, char *buf, size_t size)
{
    int n = 0;

    if (size == 0)
        return;
    buf[0] = '\0';
    if (file)
        n = snprintf(buf, size, "%s:", file);
    if (err->line > 0 && n >= 0 && (size_t) n < size)
        n += snprintf(buf + n, size - (size_t) n, "%d:%d:", err->line,
                      err->column);
    if (err->path[0] && n >= 0 && (size_t) n < size)
        n += snprintf(buf + n, size - (size_t) n, "%s%s:", n ? " " : "",
                      err->path);
    if (n >= 0 && (size_t) n < size)
        snprintf(buf + n, size - (size_t) n, "%s%s", n ? " " : "",
                 err->msg[0] ? err->msg : sked_strerror(err->code));
}

bool sked__workflow_file_locate(const char *file, const sked_wf_file *f,
                                const sked_error *err, char *buf, size_t size)
{
    const char *msg = err->msg[0] ? err->msg : sked_strerror(err->code);
    unsigned long i;
    char *end;

    if (strncmp(err->field, "schedules[", 10) == 0) {
        i = strtoul(err->field + 10, &end, 10);
        if (end[0] == ']' && i < f->n_schedules) {
            const sked_wf_where *w = &f->where[i];
            snprintf(buf, size, "%s:%d:%d: %s%s: %s", file, w->line, w->column,
                     w->path, end + 1, msg);
            return true;
        }
    }
    if (!err->field[0])
        return false;
    snprintf(buf, size, "%s: %s: %s", file, err->field, msg);
    return true;
}
