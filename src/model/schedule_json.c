/* SPDX-License-Identifier: MIT */
/* Schedules to and from the API's JSON (schedule_json.h, SPEC 6).
 *
 * One table lists every field: its JSON key, its type and where it lives
 * in sked_schedule. Reading walks the object's keys and looks each up in
 * the table, so an unknown key is an error naming it; writing walks the
 * table, so every field is always present. */
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

typedef enum field_type {
    F_STR,     /* char *, null: NULL */
    F_CRON,    /* char *, sets the kind */
    F_EVERY,   /* "6h" or seconds, sets the kind */
    F_AT,      /* instant, sets the kind */
    F_INSTANT, /* sked_time, null: NONE */
    F_SECS,    /* sked_dur as seconds */
    F_I32,     /* int32_t */
    F_I64,     /* int64_t */
    F_BOOL,    /* int32_t 0 or 1 */
    F_PAUSED,  /* status as a boolean */
    F_CONTEXT, /* char * holding a JSON object */
    F_CATCHUP, /* sked_catchup */
    F_OVERLAP, /* sked_overlap */
    F_DST,     /* sked_dst */
    F_STATUS,  /* sked_schedule_status */
    F_SOURCE,  /* sked_source */
} field_type;

struct field {
    const char *key;
    field_type type;
    size_t off;
    bool state;  /* read-only: accepted with SKED__SCHEDULE_JSON_STATE */
    bool output; /* written by sked__schedule_to_json */
};

#define FLD(k, t, m, st)                                                       \
    {                                                                          \
        k, t, offsetof(sked_schedule, m), st, true                             \
    }

static const struct field fields[] = {
    FLD("name", F_STR, name, false),
    FLD("workflow", F_STR, workflow, false),
    FLD("cron", F_CRON, cron, false),
    FLD("every_secs", F_EVERY, every, false),
    {"every", F_EVERY, offsetof(sked_schedule, every), false, false},
    FLD("anchor", F_INSTANT, anchor, false),
    FLD("at", F_AT, at, false),
    FLD("timezone", F_STR, timezone, false),
    FLD("dst", F_DST, dst, false),
    FLD("context", F_CONTEXT, context, false),
    FLD("catchup", F_CATCHUP, catchup, false),
    FLD("catchup_max", F_I32, catchup_max, false),
    FLD("catchup_window_secs", F_SECS, catchup_window, false),
    FLD("overlap", F_OVERLAP, overlap, false),
    FLD("priority", F_I32, priority, false),
    FLD("queue", F_STR, queue, false),
    FLD("jitter_secs", F_SECS, jitter, false),
    FLD("paused", F_PAUSED, status, false),
    FLD("automatic_backfill", F_BOOL, automatic_backfill, false),
    FLD("start_at", F_INSTANT, start_at, false),
    FLD("end_at", F_INSTANT, end_at, false),
    FLD("max_runs", F_I64, max_runs, false),
    FLD("pause_after_failures", F_I32, pause_after_failures, false),
    FLD("description", F_STR, description, false),
    /* A request flag, never stored nor written back. */
    {"allow_past", F_BOOL, offsetof(sked_schedule, allow_past), false, false},
    FLD("status", F_STATUS, status, true),
    FLD("source", F_SOURCE, source, true),
    FLD("app", F_STR, app, true),
    FLD("next_fire_at", F_INSTANT, next_fire_at, true),
    FLD("last_fired_at", F_INSTANT, last_fired_at, true),
    FLD("last_error", F_STR, last_error, true),
    FLD("runs_created", F_I64, runs_created, true),
    FLD("consecutive_failures", F_I32, consecutive_failures, true),
    FLD("created_at", F_INSTANT, created_at, true),
    FLD("updated_at", F_INSTANT, updated_at, true),
};

#define NFIELDS (sizeof fields / sizeof fields[0])

#define AT(s, f, T) ((T *) (void *) ((char *) (s) + (f)->off))
#define CAT(s, f, T)                                                           \
    ((const T *) (const void *) ((const char *) (s) + (f)->off))

/* ---- writing ---------------------------------------------------------- */

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
static json_t *field_json(const sked_schedule *s, const struct field *f,
                          bool *bad_context)
{
    switch (f->type) {
    case F_STR:
    case F_CRON:
        return sked__json_str(*CAT(s, f, char *));
    case F_EVERY:
        return s->kind == SKED_SPEC_EVERY ? sked__json_secs(s->every)
                                          : json_null();
    case F_AT:
    case F_INSTANT:
        return sked__json_instant(*CAT(s, f, sked_time));
    case F_SECS:
        return sked__json_secs(*CAT(s, f, sked_dur));
    case F_I32:
        return json_integer(*CAT(s, f, int32_t));
    case F_I64:
        return json_integer(*CAT(s, f, int64_t));
    case F_BOOL:
        return json_boolean(*CAT(s, f, int32_t));
    case F_PAUSED:
        return json_boolean(s->status == SKED_SCHEDULE_PAUSED);
    case F_CONTEXT: {
        json_t *v =
            s->context ? json_loads(s->context, 0, NULL) : json_object();
        if (!v && s->context)
            *bad_context = true;
        return v;
    }
    case F_CATCHUP:
        return json_string(sked_catchup_name(s->catchup));
    case F_OVERLAP:
        return json_string(sked_overlap_name(s->overlap));
    case F_DST:
        return json_string(sked_dst_name(s->dst));
    case F_STATUS:
        return json_string(sked_schedule_status_name(s->status));
    case F_SOURCE:
        return json_string(sked_source_name(s->source));
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
    for (size_t i = 0; i < NFIELDS; i++) {
        json_t *v;

        if (!fields[i].output)
            continue;
        v = field_json(s, &fields[i], &bad_context);
        if (!v || json_object_set_new(o, fields[i].key, v) != 0) {
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

    for (size_t i = 0; rc == 0 && i < NFIELDS; i++)
        if (fields[i].state)
            json_object_del(o, fields[i].key);
    /* A request flag: never written back, so not in the object above. */
    if (rc == 0 && s->allow_past &&
        json_object_set_new(o, "allow_past", json_true()) != 0)
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
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

/* Read an enum name with PARSE-like semantics into *dst (an int). */
static int read_enum(const struct field *f, const json_t *v, sked_schedule *s,
                     sked_error *err)
{
    const char *name;
    int rc = 0;

    if (!json_is_string(v))
        return type_error(f->key, "a string", err);
    name = json_string_value(v);
    switch (f->type) {
    case F_CATCHUP:
        rc = sked_catchup_parse(name, f->key, &s->catchup, err);
        break;
    case F_OVERLAP:
        rc = sked_overlap_parse(name, f->key, &s->overlap, err);
        break;
    case F_STATUS:
        rc = sked_schedule_status_parse(name, f->key, &s->status, err);
        break;
    case F_SOURCE:
        rc = sked_source_parse(name, f->key, &s->source, err);
        break;
    default:
        if (sked_dst_parse(name, &s->dst, NULL) != 0)
            rc = sked__error_set(err, SKED_EINVAL, f->key, -1,
                                 "\"%.40s\" is not one of once, cadence", name);
        break;
    }
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
    s->kind = kind;
}

/* Read the value V of field F into S. */
static int read_field(const struct field *f, const json_t *v, sked_schedule *s,
                      sked_error *err)
{
    int64_t i = 0;
    int rc;

    switch (f->type) {
    case F_STR:
        return read_str(f->key, v, AT(s, f, char *), err);
    case F_CRON:
        return read_str(f->key, v, &s->cron, err);
    case F_EVERY:
        return read_every(f->key, v, s, err);
    case F_AT:
    case F_INSTANT:
        return read_instant(f->key, v, AT(s, f, sked_time), err);
    case F_SECS:
        if (json_is_null(v))
            return type_error(f->key, "a number of seconds", err);
        return read_secs(f->key, v, AT(s, f, sked_dur), err);
    case F_I32:
    case F_I64:
        if (json_is_null(v)) {
            i = f->off == offsetof(sked_schedule, catchup_max)
                    ? SKED_CATCHUP_MAX_DEFAULT
                    : 0;
        } else {
            rc = read_int(f->key, v, f->type == F_I32 ? INT32_MIN : INT64_MIN,
                          f->type == F_I32 ? INT32_MAX : INT64_MAX, &i, err);
            if (rc != 0)
                return rc;
        }
        if (f->type == F_I32)
            *AT(s, f, int32_t) = (int32_t) i;
        else
            *AT(s, f, int64_t) = i;
        return 0;
    case F_BOOL:
    case F_PAUSED:
        if (!json_is_boolean(v))
            return type_error(f->key, "true or false", err);
        if (f->type == F_BOOL)
            *AT(s, f, int32_t) = json_is_true(v);
        else if (json_is_true(v))
            s->status = SKED_SCHEDULE_PAUSED;
        else if (s->status == SKED_SCHEDULE_PAUSED)
            s->status = SKED_SCHEDULE_ACTIVE;
        return 0;
    case F_CONTEXT:
        return read_context(f->key, v, &s->context, err);
    default:
        return read_enum(f, v, s, err);
    }
}

static const struct field *find_field(const char *key)
{
    for (size_t i = 0; i < NFIELDS; i++)
        if (strcmp(fields[i].key, key) == 0)
            return &fields[i];
    return NULL;
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
                {"at", SKED_SPEC_AT}};
    const char *seen = NULL;

    *kind = -1;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const json_t *v = json_object_get(obj, keys[i].key);
        if (!v || json_is_null(v))
            continue;
        if (seen)
            return sked__error_set(err, SKED_EINVAL, keys[i].key, -1,
                                   "give only one of cron, every and at "
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
        const struct field *f = find_field(key);
        if (!f) {
            rc = sked__error_set(err, SKED_ESYNTAX, key, -1, "unknown field");
            break;
        }
        if (f->state && !(flags & SKED__SCHEDULE_JSON_STATE)) {
            rc = sked__error_set(err, SKED_EINVAL, key, -1, "is read-only");
            break;
        }
        rc = read_field(f, v, &c, err);
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
