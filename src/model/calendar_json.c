/* SPDX-License-Identifier: MIT */
/* Calendars to and from the JSON of the API (docs/calendars.md), walked
 * from the field table of sked/calendar.h, so a field's key, type and
 * description live in one place: lists are arrays of strings, the
 * weekdays an array of short names ("mon"), instants RFC 3339 in UTC,
 * null or a missing key the default. Reading refuses unknown keys (the
 * API's 400), values of the wrong type and, without
 * SKED__CALENDAR_JSON_STATE, the fields the store keeps (422). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "model/calendar.h"
#include "model/schedule_json.h"

typedef enum kind {
    K_NAME,
    K_STR,
    K_TEXT,
    K_LIST,
    K_OBSERVED,
    K_WEEKDAYS,
    K_SOURCE,
    K_INSTANT
} kind;
typedef enum role { R_KEY, R_DEF, R_STATE } role;

typedef struct cal_field {
    const char *json, *description;
    kind k;
    role r;
    size_t off;
} cal_field;

#define ROW(m, K, R, json, yaml, cli, help, descr)                             \
    {json, descr, K_##K, R_##R, offsetof(sked_calendar, m)},
static const cal_field fields[] = {SKED_CALENDAR_FIELDS(ROW)};
#undef ROW
#define NFIELDS (sizeof fields / sizeof fields[0])

#define AT(c, f, T) ((T *) (void *) ((char *) (c) + (f)->off))

/* ---- writing ----------------------------------------------------------- */

static json_t *list_json(const sked_strlist *l)
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < l->n; i++)
        if (json_array_append_new(a, json_string(l->v[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static json_t *weekdays_json(unsigned set)
{
    json_t *a = json_array();

    if (!set)
        set = SKED_WEEKDAYS_MON_FRI;
    /* Monday first, as people write a week. */
    for (int k = 1; a && k <= 7; k++)
        if ((set & (1u << (k % 7))) &&
            json_array_append_new(a, json_string(sked__weekday_short(k % 7)))) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static json_t *field_json(const sked_calendar *c, const cal_field *f)
{
    switch (f->k) {
    case K_NAME:
    case K_STR:
    case K_TEXT:
        return sked__json_str(*AT(c, f, char *const));
    case K_LIST:
        return list_json(AT(c, f, const sked_strlist));
    case K_OBSERVED:
        return json_string(sked_observed_name(*AT(c, f, const sked_observed)));
    case K_WEEKDAYS:
        return weekdays_json(*AT(c, f, const unsigned));
    case K_SOURCE:
        return json_string(sked_source_name(*AT(c, f, const sked_source)));
    case K_INSTANT:
        return sked__json_instant(*AT(c, f, const sked_time));
    }
    return NULL;
}

json_t *sked__calendar_to_json(const sked_calendar *c, bool definition_only)
{
    json_t *o = json_object();

    for (size_t i = 0; o && i < NFIELDS; i++) {
        if (definition_only && fields[i].r == R_STATE)
            continue;
        json_t *v = field_json(c, &fields[i]);
        if (!v || json_object_set_new(o, fields[i].json, v) != 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

/* ---- reading ----------------------------------------------------------- */

static int type_error(const char *key, const char *what, sked_error *err)
{
    return sked__error_set(err, SKED_EINVAL, key, -1, "expected %s", what);
}

static int read_list(const char *key, const json_t *v, sked_strlist *l,
                     sked_error *err)
{
    char field[64];
    size_t i;
    json_t *x;

    sked__strlist_done(l);
    if (json_is_null(v))
        return 0;
    if (!json_is_array(v))
        return type_error(key, "an array of strings", err);
    json_array_foreach(v, i, x)
    {
        if (!json_is_string(x)) {
            (void) snprintf(field, sizeof field, "%s[%zu]", key, i);
            return type_error(field, "a string", err);
        }
        if (sked__strlist_add(l, json_string_value(x)) != 0)
            return sked__error_set(err, SKED_ENOMEM, key, -1, NULL);
    }
    return 0;
}

/* Weekdays: an array of names, or one string "mon-fri,sat". */
static int read_weekdays(const char *key, const json_t *v, unsigned *set,
                         sked_error *err)
{
    char field[64];
    unsigned one, all = 0;
    size_t i;
    json_t *x;

    if (json_is_null(v)) {
        *set = SKED_WEEKDAYS_MON_FRI;
        return 0;
    }
    if (json_is_string(v))
        return sked_weekdays_parse(json_string_value(v), key, set, err);
    if (!json_is_array(v) || json_array_size(v) == 0)
        return type_error(key, "a non-empty array of weekday names", err);
    json_array_foreach(v, i, x)
    {
        (void) snprintf(field, sizeof field, "%s[%zu]", key, i);
        if (!json_is_string(x))
            return type_error(field, "a weekday name", err);
        if (sked_weekdays_parse(json_string_value(x), field, &one, err) != 0)
            return SKED_EINVAL;
        all |= one;
    }
    *set = all;
    return 0;
}

static int read_str(const char *key, const json_t *v, char **dst,
                    sked_error *err)
{
    char *copy = NULL;

    if (!json_is_null(v)) {
        if (!json_is_string(v))
            return type_error(key, "a string", err);
        if (!(copy = sked__strdup(json_string_value(v))))
            return sked__error_set(err, SKED_ENOMEM, key, -1, NULL);
    }
    free(*dst);
    *dst = copy;
    return 0;
}

static int read_named(const char *key, const json_t *v, int *dst, bool observed,
                      sked_error *err)
{
    sked_observed o = SKED_OBSERVED_NONE;
    sked_source s = SKED_SOURCE_API;
    int rc;

    if (json_is_null(v)) {
        *dst = 0;
        return 0;
    }
    if (!json_is_string(v))
        return type_error(key, "a string", err);
    rc = observed ? sked_observed_parse(json_string_value(v), key, &o, err)
                  : sked_source_parse(json_string_value(v), key, &s, err);
    if (rc == 0)
        *dst = observed ? (int) o : (int) s;
    return rc;
}

static int read_field(const cal_field *f, const json_t *v, sked_calendar *c,
                      sked_error *err)
{
    sked_error e;
    sked_time t = SKED_TIME_NONE;
    int n = 0;

    switch (f->k) {
    case K_NAME:
    case K_STR:
    case K_TEXT:
        return read_str(f->json, v, AT(c, f, char *), err);
    case K_LIST:
        return read_list(f->json, v, AT(c, f, sked_strlist), err);
    case K_WEEKDAYS:
        return read_weekdays(f->json, v, AT(c, f, unsigned), err);
    case K_OBSERVED:
    case K_SOURCE:
        if (read_named(f->json, v, &n, f->k == K_OBSERVED, err) != 0)
            return SKED_EINVAL;
        if (f->k == K_OBSERVED)
            *AT(c, f, sked_observed) = (sked_observed) n;
        else
            *AT(c, f, sked_source) = (sked_source) n;
        return 0;
    case K_INSTANT:
        sked_error_clear(&e);
        if (!json_is_null(v) &&
            (!json_is_string(v) ||
             sked_time_parse(json_string_value(v), &t, &e) != 0))
            return type_error(f->json, "an RFC 3339 instant", err);
        *AT(c, f, sked_time) = t;
        return 0;
    }
    return SKED_EINVAL;
}

static const cal_field *find_field(const char *key)
{
    for (size_t i = 0; i < NFIELDS; i++)
        if (strcmp(fields[i].json, key) == 0)
            return &fields[i];
    return NULL;
}

int sked__calendar_from_json(const json_t *obj, unsigned flags,
                             sked_calendar *out, sked_error *err)
{
    const char *key;
    json_t *v;
    int rc = 0;

    sked_calendar_init(out);
    if (!json_is_object(obj))
        return sked__error_set(err, SKED_EINVAL, NULL, -1,
                               "expected a JSON object");
    json_object_foreach((json_t *) obj, key, v)
    {
        const cal_field *f = find_field(key);
        if (!f)
            rc = sked__error_set(err, SKED_ESYNTAX, key, -1, "unknown field");
        else if (f->r == R_STATE && !(flags & SKED__CALENDAR_JSON_STATE))
            rc = sked__error_set(err, SKED_EINVAL, key, -1, "is read-only");
        else
            rc = read_field(f, v, out, err);
        if (rc != 0)
            break;
    }
    if (rc != 0)
        sked_calendar_done(out);
    return rc;
}

/* ---- the OpenAPI schema ------------------------------------------------ */

static json_t *schema_of(const cal_field *f)
{
    switch (f->k) {
    case K_LIST:
        return json_pack("{s:s, s:{s:s}, s:I}", "type", "array", "items",
                         "type", "string", "maxItems",
                         (json_int_t) SKED_CALENDAR_LIST_MAX);
    case K_WEEKDAYS:
        return json_pack("{s:s, s:{s:s, s:[s,s,s,s,s,s,s]}}", "type", "array",
                         "items", "type", "string", "enum", "mon", "tue", "wed",
                         "thu", "fri", "sat", "sun");
    case K_OBSERVED:
        return json_pack("{s:s, s:[s,s,s]}", "type", "string", "enum", "none",
                         "nearest_weekday", "next_monday");
    case K_SOURCE:
        return json_pack("{s:s, s:[s,s]}", "type", "string", "enum", "api",
                         "code");
    case K_INSTANT:
        return json_pack("{s:[s,s], s:s}", "type", "string", "null", "format",
                         "date-time");
    case K_NAME:
        return json_pack("{s:s, s:s, s:i}", "type", "string", "pattern",
                         "^[A-Za-z0-9._-]+$", "maxLength", SKED_NAME_MAX);
    case K_STR:
    case K_TEXT:
        return json_pack("{s:[s,s]}", "type", "string", "null");
    }
    return NULL;
}

json_t *sked__calendar_json_schema(void)
{
    json_t *props = json_object(), *p;

    for (size_t i = 0; props && i < NFIELDS; i++) {
        p = schema_of(&fields[i]);
        if (json_object_set_new(props, fields[i].json, p) != 0 ||
            json_object_set_new(p, "description",
                                json_string(fields[i].description)) != 0 ||
            (fields[i].r == R_STATE &&
             json_object_set_new(p, "readOnly", json_true()) != 0)) {
            json_decref(props);
            return NULL;
        }
    }
    return props ? json_pack("{s:s, s:o, s:b}", "type", "object", "properties",
                             props, "additionalProperties", 0)
                 : NULL;
}
