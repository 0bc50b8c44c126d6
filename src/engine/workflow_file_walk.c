/* SPDX-License-Identifier: MIT */
/* The walk over the workflows file's document (workflow_file_int.h):
 * the arena the result lives in, the errors with their path and
 * position, the scalars (strings, numbers, durations, instants), and the
 * key tables that drive the walk over a mapping.
 *
 * A table row names a key, its type, where it goes and its range; a key
 * not in the table is an error, with the nearest known key suggested
 * ("did you mean"). Errors about a scalar value point at its key, and a
 * mapping or a sequence is placed at its first key or item, or else at
 * the key that led to it: libfyaml marks tokens, not collections. */
#include "base/alloc.h"
#include "engine/workflow_file_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void *sked__wf_arena_alloc(sked_wf_arena **a, size_t n)
{
    const size_t align = alignof(max_align_t);
    sked_wf_arena *b = *a;

    n = (n + align - 1) / align * align;
    if (!b || b->size - b->used < n) {
        size_t size = n > ARENA_BLOCK ? n : ARENA_BLOCK;

        if (!(b = sked__malloc(sizeof *b + size)))
            return NULL;
        b->next = *a;
        b->used = 0;
        b->size = size;
        *a = b;
    }
    b->used += n;
    return memset(b->data + b->used - n, 0, n);
}

void sked__wf_arena_free(sked_wf_arena *a)
{
    while (a) {
        sked_wf_arena *next = a->next;

        free(a);
        a = next;
    }
}

/* ---- errors and positions ----------------------------------------------- */

struct fy_mark sked__wf_node_mark(const parser *p, struct fy_node *n)
{
    const struct fy_mark *m = NULL;
    void *it = NULL;

    if (n && fy_node_get_type(n) == FYNT_SCALAR)
        m = fy_token_start_mark(fy_node_get_scalar_token(n));
    else if (n && fy_node_is_mapping(n)) {
        struct fy_node_pair *pair = fy_node_mapping_iterate(n, &it);

        if (pair)
            return sked__wf_node_mark(p, fy_node_pair_key(pair));
    } else if (n && fy_node_is_sequence(n)) {
        struct fy_node *item = fy_node_sequence_iterate(n, &it);

        if (item)
            return sked__wf_node_mark(p, item);
    }
    return m ? *m : p->mark;
}

int sked__wf_fail_code(parser *p, struct fy_node *at, int code, const char *fmt,
                       ...)
{
    struct fy_mark m = sked__wf_node_mark(p, p->report_at ? p->report_at : at);
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

int sked__wf_fail_nomem(parser *p)
{
    return sked__wf_fail_code(p, NULL, SKED_ENOMEM, "out of memory");
}

size_t sked__wf_path_push_key(parser *p, const char *key, size_t len)
{
    size_t old = p->path_len;
    int n = snprintf(p->path + old, sizeof p->path - old, "%s%.*s",
                     old ? "." : "", (int) (len > 200 ? 200 : len), key);

    if (n > 0)
        p->path_len = strnlen(p->path, sizeof p->path - 1);
    return old;
}

size_t sked__wf_path_push_index(parser *p, size_t i)
{
    size_t old = p->path_len;

    snprintf(p->path + old, sizeof p->path - old, "[%zu]", i);
    p->path_len = strnlen(p->path, sizeof p->path - 1);
    return old;
}

void sked__wf_path_pop(parser *p, size_t old)
{
    p->path_len = old;
    p->path[old] = '\0';
}

/* ---- scalars ------------------------------------------------------------ */

bool sked__wf_is_null(struct fy_node *n)
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

const char *sked__wf_node_kind(struct fy_node *n)
{
    if (sked__wf_is_null(n))
        return "nothing";
    if (fy_node_is_mapping(n))
        return "a mapping";
    if (fy_node_is_sequence(n))
        return "a list";
    return "a value";
}

int sked__wf_scalar_text(parser *p, struct fy_node *n, const char *what,
                         char **out)
{
    const char *s;
    size_t len;
    char *copy;

    if (sked__wf_is_null(n) || fy_node_get_type(n) != FYNT_SCALAR)
        return sked__wf_fail(p, n, "expected %s, found %s", what,
                             sked__wf_node_kind(n));
    if (!(s = fy_node_get_scalar(n, &len)))
        return sked__wf_fail_nomem(p);
    if (len > STR_MAX)
        return sked__wf_fail_code(p, n, SKED_ETOOBIG, "longer than %d bytes",
                                  STR_MAX);
    if (memchr(s, '\0', len))
        return sked__wf_fail(p, n, "contains a NUL byte");
    if (!(copy = sked__wf_arena_alloc(&p->arena, len + 1)))
        return sked__wf_fail_nomem(p);
    memcpy(copy, s, len);
    *out = copy;
    return 0;
}

/* Copy scalar N to the heap, for the strings a sked_schedule owns. */
static int heap_text(parser *p, struct fy_node *n, const char *what, char **out)
{
    char *tmp, *copy;
    int rc;

    if ((rc = sked__wf_scalar_text(p, n, what, &tmp)) < 0)
        return rc;
    if (!(copy = sked__strdup(tmp)))
        return sked__wf_fail_nomem(p);
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

    if (sked__wf_scalar_text(p, n, "a whole number", &s) < 0)
        return p->err ? p->err->code : SKED_EINVAL;
    if (fy_node_get_style(n) != FYNS_PLAIN)
        return sked__wf_fail(p, n,
                             "expected a whole number, found a quoted string");
    errno = 0;
    v = strtoll(s, &end, 10);
    if (end == s || *end != '\0' || s[0] == ' ')
        return sked__wf_fail(p, n, "expected a whole number, found \"%.64s\"",
                             s);
    if (errno == ERANGE || v < min || v > max)
        return sked__wf_fail(p, n,
                             "%.64s is out of range: expected %lld to %lld", s,
                             (long long) min, (long long) max);
    *out = v;
    return 0;
}

int sked__wf_bool_value(parser *p, struct fy_node *n, bool *out)
{
    char *s;
    int rc;

    if ((rc = sked__wf_scalar_text(p, n, "true or false", &s)) < 0)
        return rc;
    if (fy_node_get_style(n) == FYNS_PLAIN) {
        if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE"))
            return *out = true, 0;
        if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE"))
            return *out = false, 0;
    }
    return sked__wf_fail(p, n, "expected true or false, found \"%.64s\"", s);
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

    if ((rc = sked__wf_scalar_text(p, n, "a duration", &s)) < 0)
        return rc;
    sked_error_clear(&e);
    if (sked_dur_parse(s, &d, &e) < 0)
        return sked__wf_fail(p, n, "invalid duration \"%.64s\": %s", s, e.msg);
    if (d < min * SKED_USEC_PER_SEC || d > max * SKED_USEC_PER_SEC)
        return sked__wf_fail(p, n, "duration \"%.64s\" is out of range", s);
    *out = d;
    return 0;
}

static int time_value(parser *p, struct fy_node *n, sked_time *out)
{
    sked_error e;
    char *s;
    int rc;

    if ((rc = sked__wf_scalar_text(p, n, "an RFC 3339 instant", &s)) < 0)
        return rc;
    sked_error_clear(&e);
    if (sked_time_parse(s, out, &e) < 0)
        return sked__wf_fail(p, n, "invalid instant \"%.64s\": %s", s, e.msg);
    return 0;
}

static int number_value(parser *p, struct fy_node *n, double min, double max,
                        double *out)
{
    char *s, *end;
    double v;
    int rc;

    if ((rc = sked__wf_scalar_text(p, n, "a number", &s)) < 0)
        return rc;
    v = strtod(s, &end);
    if (end == s || *end != '\0' || fy_node_get_style(n) != FYNS_PLAIN)
        return sked__wf_fail(p, n, "expected a number, found \"%.64s\"", s);
    if (!(v >= min && v <= max))
        return sked__wf_fail(p, n, "%.64s is out of range: expected %g to %g",
                             s, min, max);
    *out = v;
    return 0;
}

const char *sked__wf_name_problem(const char *name)
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
        return sked__wf_fail(p, key, "unknown key (did you mean \"%s\"?)",
                             best);
    return sked__wf_fail(p, key, "unknown key");
}

int sked__wf_list_alloc(parser *p, struct fy_node *v, size_t size, void **out,
                        size_t *n)
{
    size_t count;
    void *arr;

    if (!fy_node_is_sequence(v))
        return sked__wf_fail(p, v, "expected a list, found %s",
                             sked__wf_node_kind(v));
    count = (size_t) fy_node_sequence_item_count(v);
    if (!(arr = sked__wf_arena_alloc(&p->arena, (count + 1) * size)))
        return sked__wf_fail_nomem(p);
    *out = arr;
    *n = count;
    return 0;
}

int sked__wf_list_walk(parser *p, struct fy_node *v, item_fn read, void *ctx)
{
    struct fy_node *item;
    void *it = NULL;
    size_t old;
    int rc;

    if (!fy_node_is_sequence(v))
        return sked__wf_fail(p, v, "expected a list, found %s",
                             sked__wf_node_kind(v));
    for (size_t i = 0; (item = fy_node_sequence_iterate(v, &it)); i++) {
        old = sked__wf_path_push_index(p, i);
        rc = read(p, item, i, ctx);
        sked__wf_path_pop(p, old);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int str_item(parser *p, struct fy_node *item, size_t i, void *ctx)
{
    sked_wf_strs *out = ctx;

    return sked__wf_scalar_text(p, item, "a string", &out->v[i]);
}

static int read_strs(parser *p, struct fy_node *v, sked_wf_strs *out)
{
    int rc;

    if ((rc = sked__wf_list_alloc(p, v, sizeof *out->v, (void **) &out->v,
                                  &out->n)) < 0)
        return rc;
    return sked__wf_list_walk(p, v, str_item, out);
}

/* A list of whole numbers being read, and the key whose range holds. */
typedef struct ints_read {
    const field *f;
    sked_wf_ints *out;
} ints_read;

static int int_item(parser *p, struct fy_node *item, size_t i, void *ctx)
{
    ints_read *r = ctx;
    int64_t x = 0;
    int rc;

    if ((rc = int_value(p, item, r->f->min, r->f->max, &x)) == 0)
        r->out->v[i] = (int32_t) x;
    return rc;
}

static int read_ints(parser *p, struct fy_node *v, const field *f,
                     sked_wf_ints *out)
{
    ints_read r = {.f = f, .out = out};
    int rc;

    if ((rc = sked__wf_list_alloc(p, v, sizeof *out->v, (void **) &out->v,
                                  &out->n)) < 0)
        return rc;
    return sked__wf_list_walk(p, v, int_item, &r);
}

static int read_kvs(parser *p, struct fy_node *v, sked_wf_kvs *out)
{
    struct fy_node_pair *pair;
    void *it = NULL;
    size_t n = 0, old;
    int rc = 0;

    if (!fy_node_is_mapping(v))
        return sked__wf_fail(p, v, "expected a mapping, found %s",
                             sked__wf_node_kind(v));
    out->n = (size_t) fy_node_mapping_item_count(v);
    if (!(out->v =
              sked__wf_arena_alloc(&p->arena, (out->n + 1) * sizeof *out->v)))
        return sked__wf_fail_nomem(p);
    while (rc == 0 && (pair = fy_node_mapping_iterate(v, &it)) != NULL) {
        sked_wf_kv *kv = &out->v[n++];

        if ((rc = sked__wf_scalar_text(p, fy_node_pair_key(pair), "a name",
                                       &kv->key)) < 0)
            break;
        old = sked__wf_path_push_key(p, kv->key, strlen(kv->key));
        rc = sked__wf_scalar_text(p, fy_node_pair_value(pair), "a string",
                                  &kv->value);
        sked__wf_path_pop(p, old);
    }
    return rc;
}

/* Read V, the value of the key F, into OBJ. */
static int field_set(parser *p, const field *f, struct fy_node *v, void *obj)
{
    unsigned char *at = (unsigned char *) obj + f->off;
    int64_t x = 0;
    int rc;

    switch (f->type) {
    case F_STR:
        return sked__wf_scalar_text(p, v, "a string", (char **) at);
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
        return sked__wf_bool_value(p, v, (bool *) at);
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
        return sked__wf_walk_map(p, v, f->sub, at);
    case F_FN:
        return f->fn(p, v, obj);
    }
    return sked__wf_fail_code(p, v, SKED_EINTERNAL, "unknown field type");
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
        return sked__wf_fail(p, key, "expected a key name");
    p->mark = sked__wf_node_mark(p, key);
    old = sked__wf_path_push_key(p, name, len);
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
    sked__wf_path_pop(p, old);
    return rc;
}

int sked__wf_walk_map(parser *p, struct fy_node *map, const field *table,
                      void *obj)
{
    struct fy_node_pair *pair;
    void *it = NULL;
    int rc;

    if (!fy_node_is_mapping(map))
        return sked__wf_fail(p, map, "expected a mapping, found %s",
                             sked__wf_node_kind(map));
    while ((pair = fy_node_mapping_iterate(map, &it)) != NULL)
        if ((rc = walk_pair(p, fy_node_pair_key(pair), fy_node_pair_value(pair),
                            table, obj)) < 0)
            return rc;
    return 0;
}

struct fy_node_pair *sked__wf_find_pair(struct fy_node *map, const char *key)
{
    if (!fy_node_is_mapping(map))
        return NULL;
    return fy_node_mapping_lookup_pair_by_simple_key(map, key, strlen(key));
}

int sked__wf_fail_at_key(parser *p, struct fy_node *map, const char *key,
                         const char *msg)
{
    struct fy_node_pair *pair = sked__wf_find_pair(map, key);
    size_t old;
    int rc;

    if (!pair)
        return sked__wf_fail(p, map, "%s", msg);
    old = sked__wf_path_push_key(p, key, strlen(key));
    rc = sked__wf_fail(p, fy_node_pair_key(pair), "%s", msg);
    sked__wf_path_pop(p, old);
    return rc;
}

/* The file's key of a model field ("catchup_window_secs" -> "catchup_window",
 * "cron.minute" -> "cron", "webhook.url" -> "webhook"). */
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

int sked__wf_fail_model(parser *p, struct fy_node *map, const sked_error *e)
{
    char key[SKED_ERROR_FIELD_MAX], msg[SKED_WF_MSG_MAX];
    const char *text = e->msg[0] ? e->msg : sked_strerror(e->code);

    if (e->code == SKED_ENOMEM) /* not the value's fault */
        return sked__wf_fail_nomem(p);
    field_to_key(e->field, key, sizeof key);
    if (key[0] && sked__wf_find_pair(map, key)) {
        /* The path names the key; a field inside it is said in words. */
        bool nested = e->field[strcspn(e->field, ".[")] != '\0';
        (void) snprintf(msg, sizeof msg, "%s%s%s", nested ? e->field : "",
                        nested ? ": " : "", text);
        return sked__wf_fail_at_key(p, map, key, msg);
    }
    (void) snprintf(msg, sizeof msg, "%s%s%s", e->field,
                    e->field[0] ? ": " : "", text);
    return sked__wf_fail(p, map, "%s", msg);
}

int sked__wf_one_of(parser *p, struct fy_node *map, const char *const *keys,
                    const char *list, int *which)
{
    const char *first = NULL;
    char msg[160];

    for (int i = 0; keys[i]; i++) {
        if (!sked__wf_find_pair(map, keys[i]))
            continue;
        if (first) {
            snprintf(msg, sizeof msg,
                     "\"%s\" and \"%s\" both given: use "
                     "only one of %s",
                     first, keys[i], list);
            return sked__wf_fail_at_key(p, map, keys[i], msg);
        }
        first = keys[i];
        *which = i;
    }
    if (!first)
        return sked__wf_fail(p, map, "missing one of %s", list);
    return 0;
}
