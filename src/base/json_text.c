/* SPDX-License-Identifier: MIT */
/* JSON text, written straight into one buffer (json_text.h).
 *
 * jansson builds the values; its json_dumps writes them through a
 * callback a few bytes at a time and decodes every string's UTF-8 again,
 * which made it the largest cost of a GET (5.6 µs of a 900-byte schedule,
 * against 3.6 µs for reading the schedule from SQLite), and it writes a
 * real with 17 significant digits, which prints 0.004439 as
 * 0.0044390000000000002. This writer scans strings for the few bytes
 * that need escaping and copies the runs between them, and writes reals
 * with sked__dtoa. */
#include "base/json_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/dtoa.h"
#include "base/json_obj.h"

typedef struct writer {
    sked_buf o;
    unsigned flags;
} writer;

/* Append N bytes of S (a failure is seen once, at the end). */
static void put(writer *w, const char *s, size_t n)
{
    (void) sked__buf_add(&w->o, s, n);
}

/* Strings as jansson escapes them (json_obj.h). */
static void put_string(writer *w, const char *s, size_t n)
{
    sked__json_put_string(&w->o, s, n);
}

/* Pretty text: a new line, indented for DEPTH. */
static void newline(writer *w, int depth)
{
    if (!(w->flags & SKED_JSON_PRETTY))
        return;
    put(w, "\n", 1);
    for (int i = 0; i < depth; i++)
        put(w, "  ", 2);
}

static void put_value(writer *w, const json_t *j, int depth);

static int key_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* The Ith member of an object at DEPTH: KEY and its value V. */
static void put_member(writer *w, const char *key, const json_t *v, size_t i,
                       int depth)
{
    if (i)
        put(w, ",", 1);
    newline(w, depth + 1);
    put_string(w, key, strlen(key));
    put(w, ": ", w->flags & SKED_JSON_PRETTY ? 2 : 1); /* compact: ":" */
    put_value(w, v, depth + 1);
}

/* The members in strcmp order of their keys. */
static void put_sorted(writer *w, const json_t *j, int depth)
{
    size_t n = json_object_size(j), i = 0;
    const char **keys = sked__calloc(n ? n : 1, sizeof *keys);
    const char *key;
    json_t *v;

    if (!keys) {
        w->o.failed = true;
        return;
    }
    json_object_foreach((json_t *) j, key, v) keys[i++] = key;
    qsort(keys, n, sizeof *keys, key_cmp);
    for (i = 0; i < n; i++)
        put_member(w, keys[i], json_object_get(j, keys[i]), i, depth);
    free(keys);
}

static void put_object(writer *w, const json_t *j, int depth)
{
    const char *key;
    json_t *v;
    size_t i = 0;

    put(w, "{", 1);
    if (json_object_size(j) == 0) {
        put(w, "}", 1);
        return;
    }
    if (w->flags & SKED_JSON_SORTED) {
        put_sorted(w, j, depth);
    } else {
        json_object_foreach((json_t *) j, key, v)
            put_member(w, key, v, i++, depth);
    }
    newline(w, depth);
    put(w, "}", 1);
}

static void put_array(writer *w, const json_t *j, int depth)
{
    size_t i;
    json_t *v;

    put(w, "[", 1);
    if (json_array_size(j) == 0) {
        put(w, "]", 1);
        return;
    }
    json_array_foreach(j, i, v)
    {
        if (i)
            put(w, ",", 1);
        newline(w, depth + 1);
        put_value(w, v, depth + 1);
    }
    newline(w, depth);
    put(w, "]", 1);
}

static void put_value(writer *w, const json_t *j, int depth)
{
    char num[SKED_DTOA_MAX];

    /* jansson refuses to dump deeper than this; so does this writer. */
    if (depth > JSON_PARSER_MAX_DEPTH) {
        w->o.failed = true;
        return;
    }
    switch (json_typeof(j)) {
    case JSON_OBJECT:
        put_object(w, j, depth);
        break;
    case JSON_ARRAY:
        put_array(w, j, depth);
        break;
    case JSON_STRING:
        put_string(w, json_string_value(j), json_string_length(j));
        break;
    case JSON_INTEGER:
        put(w, num, sked__i64_text(json_integer_value(j), num));
        break;
    case JSON_REAL:
        put(w, num, sked__dtoa(json_real_value(j), num));
        break;
    case JSON_TRUE:
        put(w, "true", 4);
        break;
    case JSON_FALSE:
        put(w, "false", 5);
        break;
    case JSON_NULL:
        put(w, "null", 4);
        break;
    }
}

char *sked__json_write(const json_t *j, unsigned flags, size_t *len)
{
    writer w = {.flags = flags};

    if (!j)
        return NULL;
    put_value(&w, j, 0);
    return sked__buf_take(&w.o, len);
}

char *sked__json_text(const json_t *j, size_t *len)
{
    return sked__json_write(j, 0, len);
}
