/* SPDX-License-Identifier: MIT */
/* JSON text of API answers, written straight into one buffer.
 *
 * jansson builds the answers; its json_dumps writes them through a
 * callback a few bytes at a time and decodes every string's UTF-8 again,
 * which made it the largest cost of a GET (5.6 µs of a 900-byte schedule,
 * against 3.6 µs for reading the schedule from SQLite). This writer gives
 * the same text as json_dumps(JSON_COMPACT) — keys in insertion order, no
 * spaces, only '"', '\\' and control characters escaped, strings already
 * valid UTF-8 as jansson keeps them — scanning strings for the few bytes
 * that need escaping and copying the runs between them. Reals, rare in
 * answers, are left to jansson so their digits match exactly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json_io.h"
#include "base/json_obj.h"
#include "http/json_text.h"

/* Append N bytes of S to O (a failure is seen once, at the end). */
static void put(sked_buf *o, const char *s, size_t n)
{
    (void) sked__buf_add(o, s, n);
}

/* Strings as jansson escapes them (json_obj.h). */
static void put_string(sked_buf *o, const char *s, size_t n)
{
    sked__json_put_string(o, s, n);
}

static void put_value(sked_buf *o, const json_t *j, int depth);

static void put_object(sked_buf *o, const json_t *j, int depth)
{
    const char *key;
    json_t *v;
    bool first = true;

    put(o, "{", 1);
    json_object_foreach((json_t *) j, key, v)
    {
        if (!first)
            put(o, ",", 1);
        first = false;
        put_string(o, key, strlen(key));
        put(o, ":", 1);
        put_value(o, v, depth + 1);
    }
    put(o, "}", 1);
}

static void put_array(sked_buf *o, const json_t *j, int depth)
{
    size_t i;
    json_t *v;

    put(o, "[", 1);
    json_array_foreach(j, i, v)
    {
        if (i)
            put(o, ",", 1);
        put_value(o, v, depth + 1);
    }
    put(o, "]", 1);
}

/* Reals through jansson, so their digits are its digits. */
static void put_real(sked_buf *o, const json_t *j)
{
    char *t = sked__json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);

    if (!t) {
        o->failed = true;
        return;
    }
    put(o, t, strlen(t));
    free(t);
}

static void put_value(sked_buf *o, const json_t *j, int depth)
{
    char num[32];

    /* jansson refuses to dump deeper than this; so does this writer. */
    if (depth > JSON_PARSER_MAX_DEPTH) {
        o->failed = true;
        return;
    }
    switch (json_typeof(j)) {
    case JSON_OBJECT:
        put_object(o, j, depth);
        break;
    case JSON_ARRAY:
        put_array(o, j, depth);
        break;
    case JSON_STRING:
        put_string(o, json_string_value(j), json_string_length(j));
        break;
    case JSON_INTEGER:
        put(o, num,
            (size_t) snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT,
                              json_integer_value(j)));
        break;
    case JSON_REAL:
        put_real(o, j);
        break;
    case JSON_TRUE:
        put(o, "true", 4);
        break;
    case JSON_FALSE:
        put(o, "false", 5);
        break;
    case JSON_NULL:
        put(o, "null", 4);
        break;
    }
}

char *sked__json_text(const json_t *j, size_t *len)
{
    sked_buf o = {0};

    if (!j)
        return NULL;
    put_value(&o, j, 0);
    return sked__buf_take(&o, len);
}
