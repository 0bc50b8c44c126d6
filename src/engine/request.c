/* SPDX-License-Identifier: MIT */
/* The requests of the API that are not one schedule (request.h): a key
 * table per body and per query string, and one writer and one reader
 * that walk any of them. */
#include "engine/request.h"
#include "engine/request_int.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/error.h"
#include "engine/answer.h"
#include "model/calendar.h"
#include "model/schedule_json.h"

/* ---- bodies ------------------------------------------------------------- */

typedef enum body_kind {
    BODY_SET,     /* sked_schedule *, its count at n_off */
    BODY_CALS,    /* sked_calendar *, its count at n_off */
    BODY_BOOL,    /* bool; absent or null: false */
    BODY_FLAG,    /* as BODY_BOOL, written only when true (a key added
                     later, which older servers do not know) */
    BODY_NAME,    /* const char *; absent or null: SKED_APP_DEFAULT */
    BODY_INSTANT, /* sked_time; absent or null: SKED_TIME_NONE */
    BODY_SPANS,   /* sked_sim_span *, its count at n_off; absent: none */
    BODY_SECS,    /* sked_dur, a number of seconds in min..max; absent or
                     null: left as it was (the default) */
    BODY_COUNT,   /* size_t in min..max; absent or null: 0; written when
                     not 0 */
    BODY_TEXT,    /* const char * of at most max bytes; absent or null:
                     NULL */
    BODY_ARRAY,   /* const json_t *, an array (required), borrowed: its
                     items the engine reads (a set of notifiers) */
} body_kind;

typedef struct body_key {
    const char *key;
    body_kind kind;
    size_t off;
    size_t n_off;  /* BODY_SET's and BODY_SPANS' count */
    long min, max; /* BODY_SECS' and BODY_COUNT's bounds */
} body_key;

static const body_key apply_keys[] = {
    {"schedules", BODY_SET, offsetof(sked__apply_request, set),
     offsetof(sked__apply_request, n), 0, 0},
    {"prune", BODY_BOOL, offsetof(sked__apply_request, prune), 0, 0, 0},
    {"app", BODY_NAME, offsetof(sked__apply_request, app), 0, 0, 0},
    {NULL, BODY_BOOL, 0, 0, 0, 0},
};

#define CAL(member) offsetof(sked__calendar_apply_request, member)
static const body_key calendar_apply_keys[] = {
    {"calendars", BODY_CALS, CAL(set), CAL(n), 0, 0},
    {"prune", BODY_BOOL, CAL(prune), 0, 0, 0},
    {"app", BODY_NAME, CAL(app), 0, 0, 0},
    {NULL, BODY_BOOL, 0, 0, 0, 0},
};
#undef CAL

#define NTF(member) offsetof(sked__notifier_apply_request, member)
static const body_key notifier_apply_keys[] = {
    {"notifiers", BODY_ARRAY, NTF(set), 0, 0, 0},
    {"prune", BODY_BOOL, NTF(prune), 0, 0, 0},
    {"app", BODY_NAME, NTF(app), 0, 0, 0},
    {NULL, BODY_BOOL, 0, 0, 0, 0},
};
#undef NTF

static const body_key backfill_keys[] = {
    {"start", BODY_INSTANT, offsetof(sked__backfill_request, start), 0, 0, 0},
    {"end", BODY_INSTANT, offsetof(sked__backfill_request, end), 0, 0, 0},
    {"dry_run", BODY_FLAG, offsetof(sked__backfill_request, dry_run), 0, 0, 0},
    {NULL, BODY_BOOL, 0, 0, 0, 0},
};

#define SKIP(member) offsetof(sked__skip_request, member)
static const body_key skip_keys[] = {
    {"at", BODY_INSTANT, SKIP(at), 0, 0, 0},
    {"reason", BODY_TEXT, SKIP(reason), 0, 0, SKED_SKIP_REASON_MAX},
    {"actor", BODY_TEXT, SKIP(actor), 0, 1, SKED_SKIP_ACTOR_MAX},
    {NULL, BODY_BOOL, 0, 0, 0, 0},
};
#undef SKIP

/* The longest duration a replay takes, in seconds: ten years. */
#define SECS_MAX (10L * 366 * 86400)

#define SIM(member) offsetof(sked__simulate_request, member)
static const body_key simulate_keys[] = {
    {"from", BODY_INSTANT, SIM(o.from), 0, 0, 0},
    {"to", BODY_INSTANT, SIM(o.to), 0, 0, 0},
    {"down", BODY_SPANS, SIM(o.down), SIM(o.ndown), 0, SKED_SIMULATE_DOWN_MAX},
    {"run_duration_secs", BODY_SECS, SIM(o.run_duration), 0, 0, SECS_MAX},
    {"tick_secs", BODY_SECS, SIM(o.tick), 0, 1, SECS_MAX},
    {"limit", BODY_COUNT, SIM(limit), 0, 1, SKED__SIMULATE_LIMIT_MAX},
    {NULL, BODY_BOOL, 0, 0, 0, 0},
};
#undef SIM

/* One down interval of a replay. */
static const body_key span_keys[] = {
    {"from", BODY_INSTANT, offsetof(sked_sim_span, from), 0, 0, 0},
    {"to", BODY_INSTANT, offsetof(sked_sim_span, to), 0, 0, 0},
    {NULL, BODY_BOOL, 0, 0, 0, 0},
};

typedef const sked_sim_span *span_member;
typedef json_t *array_member;

static json_t *body_write(const body_key *keys, const void *r, sked_error *err);
static int body_read(const body_key *keys, const json_t *body, void *r,
                     sked_error *err);

/* The definitions of the N schedules of SET as an array into *out. */
static int set_write(const sked_schedule *set, size_t n, json_t **out,
                     sked_error *err)
{
    json_t *arr = json_array(), *d = NULL;

    for (size_t i = 0; arr && i < n; i++) {
        if (sked__schedule_definition_json(&set[i], &d, err) < 0 ||
            json_array_append_new(arr, d) != 0) {
            json_decref(arr);
            return err->code
                       ? err->code
                       : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
        }
    }
    if (!arr)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    *out = arr;
    return 0;
}

/* The definitions of the N calendars of SET as an array into *out. */
static int cals_write(const sked_calendar *set, size_t n, json_t **out,
                      sked_error *err)
{
    json_t *arr = json_array(), *d;

    for (size_t i = 0; arr && i < n; i++) {
        if (!(d = sked__calendar_to_json(&set[i], true)) ||
            json_array_append_new(arr, d) != 0) {
            json_decref(arr);
            arr = NULL;
        }
    }
    if (!arr)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    *out = arr;
    return 0;
}

/* The N intervals of SPANS as an array of {"from", "to"} into *out;
 * none: left out. */
static int spans_write(const sked_sim_span *spans, size_t n, json_t **out,
                       sked_error *err)
{
    json_t *arr = n > 0 ? json_array() : NULL, *o;

    for (size_t i = 0; arr && i < n; i++) {
        if (!(o = body_write(span_keys, &spans[i], err)) ||
            json_array_append_new(arr, o) != 0) {
            json_decref(arr);
            return err->code
                       ? err->code
                       : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
        }
    }
    if (n > 0 && !arr)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    *out = arr;
    return 0;
}

/* The value of K in R into *out; *out NULL: left out (unset). */
static int value_write(const body_key *k, const void *r, json_t **out,
                       sked_error *err)
{
    char at[SKED_TIME_STRLEN];
    sked_time t;

    *out = NULL;
    switch (k->kind) {
    case BODY_SET:
        return set_write(*AT_C(r, k->off, sked_schedule *),
                         *AT_C(r, k->n_off, size_t), out, err);
    case BODY_CALS:
        return cals_write(*AT_C(r, k->off, sked_calendar *),
                          *AT_C(r, k->n_off, size_t), out, err);
    case BODY_FLAG:
        if (!*AT_C(r, k->off, bool))
            return 0;
        *out = json_true();
        break;
    case BODY_BOOL:
        *out = json_boolean(*AT_C(r, k->off, bool));
        break;
    case BODY_NAME:
    case BODY_TEXT:
        if (!*AT_C(r, k->off, text_member))
            return 0;
        *out = json_string(*AT_C(r, k->off, text_member));
        break;
    case BODY_INSTANT:
        if ((t = *AT_C(r, k->off, sked_time)) == SKED_TIME_NONE)
            return 0;
        if (sked_time_format(t, at, sizeof at) < 0)
            return sked__error_set(err, SKED_ERANGE, k->key, -1,
                                   "instant out of range");
        *out = json_string(at);
        break;
    case BODY_SPANS:
        return spans_write(*AT_C(r, k->off, span_member),
                           *AT_C(r, k->n_off, size_t), out, err);
    case BODY_SECS:
        *out = sked__json_secs(*AT_C(r, k->off, sked_dur));
        break;
    case BODY_COUNT:
        if (*AT_C(r, k->off, size_t) == 0)
            return 0;
        *out = json_integer((json_int_t) *AT_C(r, k->off, size_t));
        break;
    case BODY_ARRAY:
        /* The member is const json_t *: the set is only read. */
        *out = *AT_C(r, k->off, array_member)
                   ? json_incref(*AT_C(r, k->off, array_member))
                   : json_array();
        break;
    }
    return *out ? 0 : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
}

static json_t *body_write(const body_key *keys, const void *r, sked_error *err)
{
    json_t *body = json_object(), *v;

    if (!body) {
        (void) sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
        return NULL;
    }
    for (const body_key *k = keys; k->key; k++) {
        if (value_write(k, r, &v, err) != 0 ||
            (v && json_object_set_new(body, k->key, v) != 0)) {
            if (!err->code)
                (void) sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
            json_decref(body);
            return NULL;
        }
    }
    return body;
}

/* Read the instant V of K into *out. */
static int instant_read(const body_key *k, const json_t *v, sked_time *out,
                        sked_error *err)
{
    sked_error perr;

    *out = SKED_TIME_NONE;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return sked__error_set(err, SKED_EINVAL, k->key, -1,
                               "expected an RFC 3339 instant");
    sked_error_clear(&perr);
    if (sked_time_parse(json_string_value(v), out, &perr) != 0)
        return sked__error_set(err, SKED_EINVAL, k->key, -1,
                               "\"%.60s\" is not an RFC 3339 instant: %s",
                               json_string_value(v), perr.msg);
    return 0;
}

/* Read the name V of K into *out. */
static int name_read(const body_key *k, const json_t *v, const char **out,
                     sked_error *err)
{
    *out = SKED_APP_DEFAULT;
    if (v && !json_is_null(v) && !json_is_string(v))
        return sked__error_set(err, SKED_EINVAL, k->key, -1, "expected a name");
    if (json_is_string(v))
        *out = json_string_value(v);
    if (strlen(*out) > SKED_NAME_MAX)
        return sked__error_set(err, SKED_EINVAL, k->key, -1,
                               "longer than %d characters", SKED_NAME_MAX);
    return 0;
}

/* Read the text V of K (at most k->max bytes, at least k->min) into *out;
 * absent or null: NULL. */
static int text_read(const body_key *k, const json_t *v, const char **out,
                     sked_error *err)
{
    size_t n;

    *out = NULL;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return sked__error_set(err, SKED_EINVAL, k->key, -1, "expected text");
    n = json_string_length(v);
    if (n < (size_t) k->min || n > (size_t) k->max)
        return sked__error_set(err, SKED_EINVAL, k->key, -1,
                               "must be %ld to %ld bytes", k->min, k->max);
    *out = json_string_value(v);
    return 0;
}

/* Read the number of seconds V of K into *out, left as it is when V is
 * absent. */
static int secs_read(const body_key *k, const json_t *v, sked_dur *out,
                     sked_error *err)
{
    double d;

    if (!v || json_is_null(v))
        return 0;
    if (!json_is_number(v))
        return sked__error_set(err, SKED_EINVAL, k->key, -1,
                               "expected a number of seconds");
    d = json_number_value(v);
    if (!(d >= (double) k->min && d <= (double) k->max))
        return sked__error_set(err, SKED_ERANGE, k->key, -1,
                               "expected %ld to %ld seconds", k->min, k->max);
    *out = (sked_dur) (d * (double) SKED_USEC_PER_SEC + 0.5);
    return 0;
}

/* Read the count V of K into *out; absent: 0. */
static int count_read(const body_key *k, const json_t *v, size_t *out,
                      sked_error *err)
{
    json_int_t n;

    *out = 0;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_integer(v))
        return sked__error_set(err, SKED_EINVAL, k->key, -1,
                               "expected a whole number");
    n = json_integer_value(v);
    if (n < k->min || n > k->max)
        return sked__error_set(err, SKED_ERANGE, k->key, -1,
                               "expected %ld to %ld", k->min, k->max);
    *out = (size_t) n;
    return 0;
}

/* Read interval I, the object V, of K into *out: both ends required. */
static int span_read(const body_key *k, size_t i, const json_t *v,
                     sked_sim_span *out, sked_error *err)
{
    int rc = 0;

    if (!json_is_object(v))
        rc = sked__error_set(err, SKED_EINVAL, NULL, -1,
                             "expected an object {\"from\", \"to\"}");
    else if ((rc = body_read(span_keys, v, out, err)) == 0 &&
             (out->from == SKED_TIME_NONE || out->to == SKED_TIME_NONE))
        rc = sked__error_set(err, SKED_EINVAL,
                             out->from == SKED_TIME_NONE ? "from" : "to", -1,
                             "required: an interval has both ends");
    return rc != 0 ? sked__error_at_index(err->code, k->key, i, err) : 0;
}

/* Read the array V of intervals of K into R (owned: freed by the
 * request's done, also on error). */
static int spans_read(const body_key *k, const json_t *v, void *r,
                      sked_error *err)
{
    size_t *n = AT(r, k->n_off, size_t), i;
    sked_sim_span *spans;
    const json_t *item;
    int rc;

    if (!v || json_is_null(v))
        return 0;
    if (!json_is_array(v))
        return sked__error_set(err, SKED_EINVAL, k->key, -1,
                               "expected an array of intervals");
    if (json_array_size(v) > (size_t) k->max)
        return sked__error_set(err, SKED_ERANGE, k->key, -1,
                               "at most %ld intervals", k->max);
    if (!(spans = sked__calloc(json_array_size(v) + 1, sizeof *spans)))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    *AT(r, k->off, span_member) = spans;
    json_array_foreach(v, i, item)
    {
        if ((rc = span_read(k, i, item, &spans[i], err)) != 0)
            return rc;
        *n = i + 1;
    }
    return 0;
}

/* Check the value V of K and read it into R; a set's schedules are read
 * once every key has been checked (set_read). */
static int value_read(const body_key *k, const json_t *v, void *r,
                      sked_error *err)
{
    switch (k->kind) {
    case BODY_SET:
        if (!json_is_array(v))
            return sked__error_set(err, SKED_EINVAL, k->key, -1,
                                   "expected an array of schedules");
        return 0;
    case BODY_CALS:
        if (!json_is_array(v))
            return sked__error_set(err, SKED_EINVAL, k->key, -1,
                                   "expected an array of calendars");
        return 0;
    case BODY_BOOL:
    case BODY_FLAG:
        if (v && !json_is_null(v) && !json_is_boolean(v))
            return sked__error_set(err, SKED_EINVAL, k->key, -1,
                                   "expected true or false");
        *AT(r, k->off, bool) = json_is_true(v);
        return 0;
    case BODY_NAME:
        return name_read(k, v, AT(r, k->off, const char *), err);
    case BODY_TEXT:
        return text_read(k, v, AT(r, k->off, const char *), err);
    case BODY_INSTANT:
        return instant_read(k, v, AT(r, k->off, sked_time), err);
    case BODY_SPANS:
        return spans_read(k, v, r, err);
    case BODY_SECS:
        return secs_read(k, v, AT(r, k->off, sked_dur), err);
    case BODY_COUNT:
        return count_read(k, v, AT(r, k->off, size_t), err);
    case BODY_ARRAY:
        if (!json_is_array(v))
            return sked__error_set(err, SKED_EINVAL, k->key, -1,
                                   "expected an array");
        *AT(r, k->off, const json_t *) = v;
        return 0;
    }
    return 0;
}

/* Read the schedules of the array ARR of K into R. */
static int set_read(const body_key *k, const json_t *arr, void *r,
                    sked_error *err)
{
    sked_schedule **set = AT(r, k->off, sked_schedule *);
    size_t *n = AT(r, k->n_off, size_t);
    const json_t *item;
    size_t i;

    *n = 0;
    if (!(*set = sked__calloc(json_array_size(arr) + 1, sizeof **set)))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    json_array_foreach(arr, i, item)
    {
        if (sked__answer_schedule_read(item, false, &(*set)[i], err) != 0)
            return sked__error_at_index(err->code, k->key, i, err);
        *n = i + 1;
    }
    return 0;
}

/* Read the calendars of the array ARR of K into R (owned: freed by the
 * request's done, also on error). */
static int cals_read(const body_key *k, const json_t *arr, void *r,
                     sked_error *err)
{
    sked_calendar **set = AT(r, k->off, sked_calendar *);
    size_t *n = AT(r, k->n_off, size_t);
    const json_t *item;
    size_t i;

    *n = 0;
    if (!(*set = sked__calloc(json_array_size(arr) + 1, sizeof **set)))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    json_array_foreach(arr, i, item)
    {
        int rc = json_is_object(item)
                     ? sked__calendar_from_json(item, 0, &(*set)[i], err)
                     : sked__error_set(err, SKED_EINVAL, NULL, -1,
                                       "expected a calendar object");
        *n = i + 1; /* the request's done frees what it holds */
        if (rc != 0)
            return sked__error_at_index(err->code, k->key, i, err);
    }
    return 0;
}

static int body_read(const body_key *keys, const json_t *body, void *r,
                     sked_error *err)
{
    const body_key *k;
    const char *key;
    json_t *v;
    int rc = 0;

    json_object_foreach((json_t *) body, key, v)
    {
        for (k = keys; k->key && strcmp(k->key, key) != 0; k++)
            ;
        if (!k->key)
            return sked__error_set(err, SKED_ESYNTAX, key, -1, "unknown field");
    }
    for (k = keys; rc == 0 && k->key; k++)
        rc = value_read(k, json_object_get(body, k->key), r, err);
    for (k = keys; rc == 0 && k->key; k++) {
        if (k->kind == BODY_SET)
            rc = set_read(k, json_object_get(body, k->key), r, err);
        else if (k->kind == BODY_CALS)
            rc = cals_read(k, json_object_get(body, k->key), r, err);
    }
    return rc;
}

json_t *sked__request_apply(const sked__apply_request *a, sked_error *err)
{
    return body_write(apply_keys, a, err);
}

int sked__request_apply_read(const json_t *body, sked__apply_request *a,
                             sked_error *err)
{
    memset(a, 0, sizeof *a);
    return body_read(apply_keys, body, a, err);
}

void sked__apply_request_done(sked__apply_request *a)
{
    sked_schedule_page_done(&(sked_schedule_page){a->set, a->n, NULL});
    a->set = NULL;
    a->n = 0;
}

json_t *sked__request_calendar_apply(const sked__calendar_apply_request *a,
                                     sked_error *err)
{
    return body_write(calendar_apply_keys, a, err);
}

int sked__request_calendar_apply_read(const json_t *body,
                                      sked__calendar_apply_request *a,
                                      sked_error *err)
{
    memset(a, 0, sizeof *a);
    return body_read(calendar_apply_keys, body, a, err);
}

void sked__calendar_apply_request_done(sked__calendar_apply_request *a)
{
    sked_calendars_free(a->set, a->n);
    a->set = NULL;
    a->n = 0;
}

json_t *sked__request_notifier_apply(const sked__notifier_apply_request *a,
                                     sked_error *err)
{
    return body_write(notifier_apply_keys, a, err);
}

int sked__request_notifier_apply_read(const json_t *body,
                                      sked__notifier_apply_request *a,
                                      sked_error *err)
{
    memset(a, 0, sizeof *a);
    return body_read(notifier_apply_keys, body, a, err);
}

json_t *sked__request_backfill(const sked__backfill_request *b, sked_error *err)
{
    return body_write(backfill_keys, b, err);
}

int sked__request_backfill_read(const json_t *body, sked__backfill_request *b,
                                sked_error *err)
{
    return body_read(backfill_keys, body, b, err);
}

json_t *sked__request_skip(const sked__skip_request *r, sked_error *err)
{
    return body_write(skip_keys, r, err);
}

int sked__request_skip_read(const json_t *body, sked__skip_request *r,
                            sked_error *err)
{
    int rc;

    memset(r, 0, sizeof *r);
    if ((rc = body_read(skip_keys, body, r, err)) != 0)
        return rc;
    if (r->at == SKED_TIME_NONE)
        return sked__error_set(err, SKED_EINVAL, "at", -1,
                               "required: the occurrence, an RFC 3339 "
                               "instant");
    return 0;
}

json_t *sked__request_simulate(const sked__simulate_request *r, sked_error *err)
{
    return body_write(simulate_keys, r, err);
}

int sked__request_simulate_read(const json_t *body, sked__simulate_request *r,
                                sked_error *err)
{
    int rc;

    memset(r, 0, sizeof *r);
    r->o.tick = SKED_USEC_PER_SEC; /* "sked schedule simulate"'s defaults */
    r->o.run_duration = 0;
    if ((rc = body_read(simulate_keys, body, r, err)) != 0)
        return rc;
    if (r->o.from == SKED_TIME_NONE || r->o.to == SKED_TIME_NONE)
        return sked__error_set(err, SKED_EINVAL,
                               r->o.from == SKED_TIME_NONE ? "from" : "to", -1,
                               "required: the period (from, to] has both ends");
    return 0;
}

void sked__request_simulate_done(sked__simulate_request *r)
{
    free((void *) r->o.down);
    r->o.down = NULL;
    r->o.ndown = 0;
}

/* ---- the keys, described ------------------------------------------------ */

static bool body_param(const body_key *keys, size_t i, sked__request_param *p)
{
    static const char types[] = {
        [BODY_SET] = 'a',     [BODY_BOOL] = 'b',  [BODY_NAME] = 's',
        [BODY_INSTANT] = 't', [BODY_SPANS] = 'p', [BODY_SECS] = 'd',
        [BODY_COUNT] = 'n',   [BODY_TEXT] = 's'};
    size_t n = 0;

    while (keys[n].key)
        n++;
    if (i >= n)
        return false;
    *p = (sked__request_param){keys[i].key, types[keys[i].kind], keys[i].min,
                               keys[i].max, false};
    return true;
}

bool sked__request_param_at(sked__request_table t, size_t i,
                            sked__request_param *p)
{
    switch (t) {
    case SKED__REQUEST_SCHEDULES:
    case SKED__REQUEST_RUNS:
    case SKED__REQUEST_EVENTS:
    case SKED__REQUEST_CRON:
        return sked__request_query_param(t, i, p);
    case SKED__REQUEST_BACKFILL:
        return body_param(backfill_keys, i, p);
    case SKED__REQUEST_SIMULATE:
        return body_param(simulate_keys, i, p);
    case SKED__REQUEST_SKIP:
        return body_param(skip_keys, i, p);
    }
    return false;
}
