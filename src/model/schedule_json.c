/* SPDX-License-Identifier: MIT */
/* Schedules to and from the API's JSON (schedule_json.h, SPEC 6).
 *
 * The field table (schedule_fields.h) gives each field its JSON key and
 * kind. Reading walks the object's keys and looks each up in the table,
 * so an unknown key is an error naming it; writing walks the table, so
 * every field is always present, in the table's order. The OpenAPI
 * schema of the object is written from the same table. */
#include "model/schedule_json.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/json_io.h"
#include "base/json_text.h"
#include "model/schedule.h"
#include "model/schedule_fields.h"
#include "model/schedule_words.h"

typedef sked__sfield field;

#define AT(s, f, T)  ((T *) sked__sf_at(s, f))
#define CAT(s, f, T) ((const T *) sked__sf_cat(s, f))

/* Tell whether F is read-only in the API: the scheduler's state. */
static bool is_state(const field *f)
{
    return f->role == SKED__SR_STATE || f->role == SKED__SR_CREATED;
}

/* Tell whether F is shown and never taken: the state, and the views
 * computed from the definition (the words). */
static bool is_shown_only(const field *f)
{
    return is_state(f) || f->kind == SKED__SK_WORDS;
}

/* ---- writing ---------------------------------------------------------- */

/* The calendar list LIST ("a,b"; NULL: none) as an array of names. */
static json_t *cals_json(const char *list)
{
    char name[SKED_NAME_MAX + 1];
    json_t *a = json_array();

    for (size_t i = 0;
         a && sked__schedule_cal_at(list, i, name, sizeof name) > 0; i++)
        if (json_array_append_new(a, json_string(name)) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

json_t *sked__json_instant(sked_time t)
{
    char buf[SKED_TIME_STRLEN];

    if (t == SKED_TIME_NONE || sked_time_format(t, buf, sizeof buf) < 0)
        return json_null();
    return json_string(buf);
}

json_t *sked__json_secs(sked_dur d)
{
    if (d % SKED_USEC_PER_SEC == 0)
        return json_integer(d / SKED_USEC_PER_SEC);
    return json_real((double) d / (double) SKED_USEC_PER_SEC);
}

json_t *sked__json_str(const char *s)
{
    return s ? json_string(s) : json_null();
}

/* Return the JSON value of field F of S; NULL when out of memory or when
 * the context is not JSON (*bad_context set). */
static json_t *field_json(const sked_schedule *s, const field *f,
                          bool *bad_context)
{
    switch (f->kind) {
    case SKED__SK_NAME:
    case SKED__SK_STR:
    case SKED__SK_CRON:
    case SKED__SK_RRULE:
        return sked__json_str(*CAT(s, f, char *));
    case SKED__SK_EVERY:
        return s->kind == SKED_SPEC_EVERY ? sked__json_secs(s->every)
                                          : json_null();
    case SKED__SK_AT:
    case SKED__SK_INSTANT:
        return sked__json_instant(*CAT(s, f, sked_time));
    case SKED__SK_DUR:
        return sked__json_secs(*CAT(s, f, sked_dur));
    case SKED__SK_I32:
        return json_integer(*CAT(s, f, int32_t));
    case SKED__SK_I64:
        return json_integer(*CAT(s, f, int64_t));
    case SKED__SK_BOOL:
        return json_boolean(*CAT(s, f, int32_t));
    case SKED__SK_PAUSED:
        return json_boolean(s->status == SKED_SCHEDULE_PAUSED);
    case SKED__SK_WORDS:
        return sked__schedule_words(s, f);
    case SKED__SK_CALS:
        return cals_json(*CAT(s, f, char *));
    case SKED__SK_CONTEXT: {
        json_t *v =
            s->context ? json_loads(s->context, 0, NULL) : json_object();
        if (!v && s->context)
            *bad_context = true;
        return v;
    }
    case SKED__SK_ENUM: {
        int v = *CAT(s, f, int);
        return json_string(v >= 0 && v < f->en->count ? f->en->names[v]
                                                      : "unknown");
    }
    }
    return json_null();
}

int sked__schedule_to_json(const sked_schedule *s, json_t **out,
                           sked_error *err)
{
    json_t *o = json_object();
    bool bad_context = false;

    if (!o)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    for (size_t i = 0; i < SKED__SF_COUNT; i++) {
        const field *f = &sked__sfields[i];
        json_t *v;

        if (!f->json || f->role == SKED__SR_REQUEST)
            continue;
        v = field_json(s, f, &bad_context);
        if (!v || json_object_set_new(o, f->json, v) != 0) {
            json_decref(o);
            if (bad_context)
                return sked__error_set(err, SKED_EINVAL, "context", -1,
                                       "stored context is not JSON");
            return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
        }
    }
    *out = o;
    return 0;
}

int sked__schedule_to_json_text(const sked_schedule *s, char **out,
                                sked_error *err)
{
    json_t *o;
    char *text;
    int rc = sked__schedule_to_json(s, &o, err);

    if (rc != 0)
        return rc;
    text = sked__json_text(o, NULL);
    json_decref(o);
    if (!text)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    *out = text;
    return 0;
}

int sked__schedule_definition_json(const sked_schedule *s, json_t **out,
                                   sked_error *err)
{
    json_t *o = NULL;
    int rc = sked__schedule_to_json(s, &o, err);

    for (size_t i = 0; rc == 0 && i < SKED__SF_COUNT; i++) {
        const field *f = &sked__sfields[i];

        if (f->json && is_shown_only(f))
            json_object_del(o, f->json);
        /* A request flag (allow_past): never written back, so sent only
         * when set. */
        else if (f->json && f->role == SKED__SR_REQUEST &&
                 f->kind == SKED__SK_BOOL && *CAT(s, f, int32_t) &&
                 json_object_set_new(o, f->json, json_true()) != 0)
            rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    if (rc != 0) {
        json_decref(o);
        return rc;
    }
    *out = o;
    return 0;
}

/* ---- reading ---------------------------------------------------------- */

static int type_error(const char *key, const char *what, sked_error *err)
{
    return sked__error_set(err, SKED_EINVAL, key, -1, "expected %s", what);
}

/* Store a copy of the string V (or NULL for null) in *dst. */
static int read_str(const char *key, const json_t *v, char **dst,
                    sked_error *err)
{
    char *copy = NULL;

    if (!json_is_null(v)) {
        if (!json_is_string(v))
            return type_error(key, "a string", err);
        copy = sked__strdup(json_string_value(v));
        if (!copy)
            return sked__error_set(err, SKED_ENOMEM, key, -1, NULL);
    }
    free(*dst);
    *dst = copy;
    return 0;
}

static int read_instant(const char *key, const json_t *v, sked_time *dst,
                        sked_error *err)
{
    sked_error e;
    sked_time t;

    if (json_is_null(v)) {
        *dst = SKED_TIME_NONE;
        return 0;
    }
    if (!json_is_string(v))
        return type_error(key, "an RFC 3339 instant string", err);
    sked_error_clear(&e);
    if (sked_time_parse(json_string_value(v), &t, &e) != 0)
        return sked__error_set(err, SKED_EINVAL, key, e.pos,
                               "not an RFC 3339 instant: %s", e.msg);
    *dst = t;
    return 0;
}

/* Read a number of seconds (integer or fraction) into µs. */
static int read_secs(const char *key, const json_t *v, sked_dur *dst,
                     sked_error *err)
{
    double x;

    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);
        if (i > INT64_MAX / SKED_USEC_PER_SEC ||
            i < INT64_MIN / SKED_USEC_PER_SEC)
            return sked__error_set(err, SKED_EINVAL, key, -1, "out of range");
        *dst = (sked_dur) i * SKED_USEC_PER_SEC;
        return 0;
    }
    if (!json_is_real(v))
        return type_error(key, "a number of seconds", err);
    x = json_real_value(v) * (double) SKED_USEC_PER_SEC;
    if (!isfinite(x) || fabs(x) > 9.0e18)
        return sked__error_set(err, SKED_EINVAL, key, -1, "out of range");
    *dst = (sked_dur) llround(x);
    return 0;
}

/* Read an integer (a real with no fraction is accepted) in LO..HI. */
static int read_int(const char *key, const json_t *v, int64_t lo, int64_t hi,
                    int64_t *dst, sked_error *err)
{
    int64_t i;

    if (json_is_integer(v)) {
        i = (int64_t) json_integer_value(v);
    } else if (json_is_real(v) &&
               json_real_value(v) == floor(json_real_value(v)) &&
               fabs(json_real_value(v)) < 9.0e15) {
        i = (int64_t) json_real_value(v);
    } else {
        return type_error(key, "an integer", err);
    }
    if (i < lo || i > hi)
        return sked__error_set(err, SKED_EINVAL, key, -1, "out of range");
    *dst = i;
    return 0;
}

/* Read the context object V into its compact text. */
static int read_context(const char *key, const json_t *v, char **dst,
                        sked_error *err)
{
    char *text = NULL;

    if (!json_is_null(v)) {
        if (!json_is_object(v))
            return type_error(key, "a JSON object", err);
        text = sked__json_text(v, NULL);
        if (!text)
            return sked__error_set(err, SKED_ENOMEM, key, -1, NULL);
    }
    free(*dst);
    *dst = text;
    return 0;
}

/* Read "every": a duration string ("6h") or a number of seconds. */
static int read_every(const char *key, const json_t *v, sked_schedule *s,
                      sked_error *err)
{
    sked_error e;
    sked_dur d = 0;
    int rc;

    if (json_is_string(v)) {
        sked_error_clear(&e);
        if (sked_dur_parse(json_string_value(v), &d, &e) != 0)
            return sked__error_set(err, SKED_EINVAL, key, e.pos, "%s", e.msg);
    } else if (!json_is_null(v)) {
        rc = read_secs(key, v, &d, err);
        if (rc != 0)
            return rc;
    }
    s->every = d;
    return 0;
}

/* Read the array of calendar names V (null: none) into *out, joined by
 * ","; an entry that is not a name is refused as "KEY[i]". */
static int read_cals(const char *key, const json_t *v, char **out,
                     sked_error *err)
{
    char name[SKED_ERROR_FIELD_MAX];
    size_t i, len = 0;
    json_t *x;
    char *list;

    if (json_is_null(v)) {
        free(*out);
        *out = NULL;
        return 0;
    }
    if (!json_is_array(v))
        return type_error(key, "an array of calendar names", err);
    json_array_foreach(v, i, x)
    {
        (void) snprintf(name, sizeof name, "%s[%zu]", key, i);
        if (!json_is_string(x))
            return type_error(name, "a calendar name", err);
        if (sked__schedule_name_check(json_string_value(x), name, err) != 0)
            return SKED_EINVAL;
        len += json_string_length(x) + 1;
    }
    if (!(list = sked__malloc(len + 1)))
        return sked__error_set(err, SKED_ENOMEM, key, -1, NULL);
    len = 0;
    json_array_foreach(v, i, x)
    {
        len += (size_t) sprintf(list + len, "%s%s", i ? "," : "",
                                json_string_value(x));
    }
    free(*out);
    *out = len > 0 ? list : NULL;
    if (len == 0)
        free(list);
    return 0;
}

/* Read the enum name V into the field F of S. */
static int read_enum(const field *f, const json_t *v, sked_schedule *s,
                     sked_error *err)
{
    int x = 0;
    int rc;

    if (!json_is_string(v))
        return type_error(f->json, "a string", err);
    rc = sked__enum_parse(f->en, json_string_value(v), f->json, &x, err);
    if (rc == 0)
        *AT(s, f, int) = x;
    return rc;
}

/* Clear the time spec of S and set its kind to KIND. */
static void set_kind(sked_schedule *s, sked_spec_kind kind)
{
    if (kind != SKED_SPEC_CRON) {
        free(s->cron);
        s->cron = NULL;
    }
    if (kind != SKED_SPEC_EVERY) {
        s->every = 0;
        s->anchor = SKED_TIME_NONE;
    }
    if (kind != SKED_SPEC_AT)
        s->at = SKED_TIME_NONE;
    if (kind != SKED_SPEC_RRULE) {
        free(s->rrule);
        s->rrule = NULL;
    }
    s->kind = kind;
}

/* Read the whole number V into the field F of S; null is its default. */
static int read_num(const field *f, const json_t *v, sked_schedule *s,
                    sked_error *err)
{
    bool i32 = f->kind == SKED__SK_I32;
    int64_t i = f->def;
    int rc;

    if (!json_is_null(v) &&
        (rc = read_int(f->json, v, i32 ? INT32_MIN : INT64_MIN,
                       i32 ? INT32_MAX : INT64_MAX, &i, err)) != 0)
        return rc;
    if (i32)
        *AT(s, f, int32_t) = (int32_t) i;
    else
        *AT(s, f, int64_t) = i;
    return 0;
}

/* Read the boolean V into the field F of S. */
static int read_bool(const field *f, const json_t *v, sked_schedule *s,
                     sked_error *err)
{
    if (!json_is_boolean(v))
        return type_error(f->json, "true or false", err);
    if (f->kind == SKED__SK_BOOL)
        *AT(s, f, int32_t) = json_is_true(v);
    else if (json_is_true(v))
        s->status = SKED_SCHEDULE_PAUSED;
    else if (s->status == SKED_SCHEDULE_PAUSED)
        s->status = SKED_SCHEDULE_ACTIVE;
    return 0;
}

/* Read the value V of field F, under the key KEY, into S. */
static int read_field(const field *f, const char *key, const json_t *v,
                      sked_schedule *s, sked_error *err)
{
    switch (f->kind) {
    case SKED__SK_NAME:
    case SKED__SK_STR:
    case SKED__SK_CRON:
    case SKED__SK_RRULE:
        return read_str(key, v, AT(s, f, char *), err);
    case SKED__SK_EVERY:
        return read_every(key, v, s, err);
    case SKED__SK_AT:
    case SKED__SK_INSTANT:
        return read_instant(key, v, AT(s, f, sked_time), err);
    case SKED__SK_DUR:
        if (json_is_null(v))
            return type_error(key, "a number of seconds", err);
        return read_secs(key, v, AT(s, f, sked_dur), err);
    case SKED__SK_I32:
    case SKED__SK_I64:
        return read_num(f, v, s, err);
    case SKED__SK_BOOL:
    case SKED__SK_PAUSED:
        return read_bool(f, v, s, err);
    case SKED__SK_CONTEXT:
        return read_context(key, v, AT(s, f, char *), err);
    case SKED__SK_CALS:
        return read_cals(key, v, AT(s, f, char *), err);
    case SKED__SK_ENUM:
        return read_enum(f, v, s, err);
    case SKED__SK_WORDS: /* shown only: an answer's words are left */
        return json_is_string(v) || json_is_null(v)
                   ? 0
                   : sked__error_set(err, SKED_EINVAL, key, -1,
                                     "must be a string or null");
    }
    return sked__error_set(err, SKED_EINTERNAL, key, -1, NULL);
}

/* The row of KEY; "every" (SPEC 6's name) is every_secs. */
static const field *find_field(const char *key)
{
    if (strcmp(key, "every") == 0)
        return &sked__sfields[SKED__SF_every];
    return sked__sf_by_json(key);
}

/* Return the kind the keys of OBJ set, -1 for none; fail on two. */
static int spec_of(const json_t *obj, int *kind, sked_error *err)
{
    static const struct {
        const char *key;
        sked_spec_kind kind;
    } keys[] = {{"cron", SKED_SPEC_CRON},
                {"every", SKED_SPEC_EVERY},
                {"every_secs", SKED_SPEC_EVERY},
                {"at", SKED_SPEC_AT},
                {"rrule", SKED_SPEC_RRULE}};
    const char *seen = NULL;

    *kind = -1;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const json_t *v = json_object_get(obj, keys[i].key);
        if (!v || json_is_null(v))
            continue;
        if (seen)
            return sked__error_set(err, SKED_EINVAL, keys[i].key, -1,
                                   "give only one of cron, every, at and "
                                   "rrule "
                                   "(also given: %s)",
                                   seen);
        seen = keys[i].key;
        *kind = (int) keys[i].kind;
    }
    return 0;
}

int sked__schedule_patch_json(const json_t *obj, unsigned flags,
                              sked_schedule *s, sked_error *err)
{
    const char *key;
    json_t *v;
    sked_schedule c;
    int kind, rc;

    if (!json_is_object(obj))
        return sked__error_set(err, SKED_EINVAL, NULL, -1,
                               "expected a JSON object");
    rc = spec_of(obj, &kind, err);
    if (rc != 0)
        return rc;
    rc = sked_schedule_copy(s, &c);
    if (rc != 0)
        return sked__error_set(err, rc, NULL, -1, NULL);
    if (kind >= 0)
        set_kind(&c, (sked_spec_kind) kind);
    json_object_foreach((json_t *) obj, key, v)
    {
        const field *f = find_field(key);
        if (!f) {
            rc = sked__error_set(err, SKED_ESYNTAX, key, -1, "unknown field");
            break;
        }
        if (is_shown_only(f) && !(flags & SKED__SCHEDULE_JSON_STATE)) {
            rc = sked__error_set(err, SKED_EINVAL, key, -1, "is read-only");
            break;
        }
        rc = read_field(f, key, v, &c, err);
        if (rc != 0)
            break;
    }
    if (rc != 0) {
        sked_schedule_done(&c);
        return rc;
    }
    sked_schedule_done(s);
    *s = c;
    return 0;
}

int sked__schedule_from_json(const json_t *obj, unsigned flags,
                             sked_schedule *out, sked_error *err)
{
    sked_schedule s;
    int rc;

    sked_schedule_init(&s);
    rc = sked__schedule_patch_json(obj, flags, &s, err);
    if (rc != 0)
        return rc;
    *out = s;
    return 0;
}

int sked__schedule_from_json_text(const char *text, size_t len, unsigned flags,
                                  sked_schedule *out, sked_error *err)
{
    json_error_t je;
    json_t *obj = NULL;
    int rc;

    rc = sked__json_load(text, len, JSON_REJECT_DUPLICATES, &obj, &je);
    if (rc == SKED_ENOMEM)
        return sked__error_set(err, rc, NULL, -1, NULL);
    if (rc != 0)
        return sked__error_set(err, SKED_ESYNTAX, NULL, je.position,
                               "malformed JSON: %.120s", je.text);
    rc = sked__schedule_from_json(obj, flags, out, err);
    json_decref(obj);
    return rc;
}

/* ---- the OpenAPI schema ----------------------------------------------- */

/* The JSON Schema type of F's values. */
static json_t *schema_type(const field *f)
{
    switch (f->kind) {
    case SKED__SK_NAME:
        return f->lo > 0 ? json_string("string")
                         : json_pack("[s, s]", "string", "null");
    case SKED__SK_STR:
    case SKED__SK_CRON:
    case SKED__SK_RRULE:
    case SKED__SK_WORDS:
    case SKED__SK_AT:
    case SKED__SK_INSTANT:
        return json_pack("[s, s]", "string", "null");
    case SKED__SK_EVERY:
        return json_pack("[s, s]", "number", "null");
    case SKED__SK_DUR:
        return json_string("number");
    case SKED__SK_I32:
    case SKED__SK_I64:
        return json_string("integer");
    case SKED__SK_BOOL:
    case SKED__SK_PAUSED:
        return json_string("boolean");
    case SKED__SK_CONTEXT:
        return json_string("object");
    case SKED__SK_CALS:
        return json_string("array");
    case SKED__SK_ENUM:
        return json_string("string");
    }
    return json_null();
}

/* Tell whether F is a number with bounds narrower than its type's. */
static bool ranged(const field *f)
{
    switch (f->kind) {
    case SKED__SK_EVERY:
    case SKED__SK_DUR:
        return true;
    case SKED__SK_I32:
        return f->lo != INT32_MIN || f->hi != INT32_MAX;
    case SKED__SK_I64:
        return f->lo != INT64_MIN || f->hi != INT64_MAX;
    default:
        return false;
    }
}

/* F's default as the API writes it; NULL when it has none to show. */
static json_t *schema_default(const field *f, int64_t unit)
{
    if (f->role == SKED__SR_STATE || f->role == SKED__SR_CREATED)
        return NULL;
    if (f->sdef)
        return json_string(f->sdef);
    switch (f->kind) {
    case SKED__SK_ENUM:
        return json_string(f->en->names[f->def]);
    case SKED__SK_BOOL:
    case SKED__SK_PAUSED:
        return json_boolean(f->def);
    case SKED__SK_DUR:
    case SKED__SK_I32:
    case SKED__SK_I64:
        return json_integer(f->def / unit);
    default:
        return NULL;
    }
}

/* Add to the property P of F its bounds and default, in the API's units
 * (seconds for durations). */
static int schema_bounds(const field *f, json_t *p)
{
    int64_t unit = f->kind == SKED__SK_DUR || f->kind == SKED__SK_EVERY
                       ? SKED_USEC_PER_SEC
                       : 1;
    json_t *def = schema_default(f, unit);
    int rc = 0;

    if (f->kind == SKED__SK_ENUM) {
        json_t *names = json_array();
        for (int i = 0; names && i < f->en->count && !f->en->spellings; i++)
            rc |= json_array_append_new(names, json_string(f->en->names[i]));
        for (int i = 0; names && f->en->spellings && f->en->spellings[i]; i++)
            rc |=
                json_array_append_new(names, json_string(f->en->spellings[i]));
        rc |= json_object_set_new(p, "enum", names);
    }
    if ((f->kind == SKED__SK_STR || f->kind == SKED__SK_NAME) && f->hi > 0)
        rc |= json_object_set_new(p, "maxLength", json_integer(f->hi));
    if (f->kind == SKED__SK_CALS) {
        rc |= json_object_set_new(p, "items",
                                  json_pack("{s:s, s:i}", "type", "string",
                                            "maxLength", SKED_NAME_MAX));
        rc |= json_object_set_new(p, "maxItems", json_integer(f->hi));
    }
    if (ranged(f)) {
        rc |= json_object_set_new(p, "minimum", json_integer(f->lo / unit));
        rc |= json_object_set_new(p, "maximum", json_integer(f->hi / unit));
    }
    if (def)
        rc |= json_object_set_new(p, "default", def);
    return rc ? SKED_ENOMEM : 0;
}

/* The property of F: its type, description, bounds and whether the API
 * only shows it (state) or only takes it (a request flag). */
static json_t *schema_property(const field *f)
{
    json_t *p =
        json_pack("{s:o, s:s}", "type", schema_type(f), "description", f->desc);
    int rc = p ? schema_bounds(f, p) : SKED_ENOMEM;

    if (rc == 0 && is_shown_only(f))
        rc = json_object_set_new(p, "readOnly", json_true());
    if (rc == 0 && f->role == SKED__SR_REQUEST)
        rc = json_object_set_new(p, "writeOnly", json_true());
    if (rc != 0) {
        json_decref(p);
        return NULL;
    }
    return p;
}

json_t *sked__schedule_json_schema(void)
{
    json_t *props = json_object();

    for (size_t i = 0; props && i < SKED__SF_COUNT; i++) {
        const field *f = &sked__sfields[i];

        if (f->json &&
            json_object_set_new(props, f->json, schema_property(f)) != 0) {
            json_decref(props);
            props = NULL;
        }
    }
    if (!props)
        return NULL;
    return json_pack("{s:s, s:o, s:b}", "type", "object", "properties", props,
                     "additionalProperties", 0);
}
