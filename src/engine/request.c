/* SPDX-License-Identifier: MIT */
/* The requests of the API that are not one schedule (request.h): a key
 * table per body and per query string, and one writer and one reader
 * that walk any of them. */
#include "engine/request.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/error.h"
#include "engine/answer.h"
#include "model/schedule_json.h"

/* ---- bodies ------------------------------------------------------------- */

typedef enum body_kind {
    BODY_SET,     /* sked_schedule *, its count at n_off */
    BODY_BOOL,    /* bool; absent or null: false */
    BODY_FLAG,    /* as BODY_BOOL, written only when true (a key added
                     later, which older servers do not know) */
    BODY_NAME,    /* const char *; absent or null: SKED_APP_DEFAULT */
    BODY_INSTANT, /* sked_time; absent or null: SKED_TIME_NONE */
} body_kind;

typedef struct body_key {
    const char *key;
    body_kind kind;
    size_t off;
    size_t n_off; /* BODY_SET's count */
} body_key;

static const body_key apply_keys[] = {
    {"schedules", BODY_SET, offsetof(sked__apply_request, set),
     offsetof(sked__apply_request, n)},
    {"prune", BODY_BOOL, offsetof(sked__apply_request, prune), 0},
    {"app", BODY_NAME, offsetof(sked__apply_request, app), 0},
    {NULL, BODY_BOOL, 0, 0},
};

static const body_key backfill_keys[] = {
    {"start", BODY_INSTANT, offsetof(sked__backfill_request, start), 0},
    {"end", BODY_INSTANT, offsetof(sked__backfill_request, end), 0},
    {"dry_run", BODY_FLAG, offsetof(sked__backfill_request, dry_run), 0},
    {NULL, BODY_BOOL, 0, 0},
};

#define AT(r, off, type) ((type *) (void *) ((char *) (r) + (off)))
#define AT_C(r, off, type)                                                     \
    ((const type *) (const void *) ((const char *) (r) + (off)))
/* A text member, named so that AT_C adds its const to the pointer only. */
typedef const char *text_member;

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
    case BODY_FLAG:
        if (!*AT_C(r, k->off, bool))
            return 0;
        *out = json_true();
        break;
    case BODY_BOOL:
        *out = json_boolean(*AT_C(r, k->off, bool));
        break;
    case BODY_NAME:
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
    case BODY_BOOL:
    case BODY_FLAG:
        if (v && !json_is_null(v) && !json_is_boolean(v))
            return sked__error_set(err, SKED_EINVAL, k->key, -1,
                                   "expected true or false");
        *AT(r, k->off, bool) = json_is_true(v);
        return 0;
    case BODY_NAME:
        return name_read(k, v, AT(r, k->off, const char *), err);
    case BODY_INSTANT:
        return instant_read(k, v, AT(r, k->off, sked_time), err);
    }
    return 0;
}

/* Prefix err->field with "KEY[I]." as the store's apply does, so that
 * both kinds of error name a field of the set the same way. */
static int at_index(const char *key, size_t i, sked_error *err)
{
    char field[SKED_ERROR_FIELD_MAX + 32];
    size_t len;

    (void) snprintf(field, sizeof field, "%s[%zu]%s%s", key, i,
                    err->field[0] ? "." : "", err->field);
    len = strlen(field);
    if (len >= sizeof err->field)
        len = sizeof err->field - 1;
    memcpy(err->field, field, len);
    err->field[len] = '\0';
    return err->code;
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
            return at_index(k->key, i, err);
        *n = i + 1;
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

json_t *sked__request_backfill(const sked__backfill_request *b, sked_error *err)
{
    return body_write(backfill_keys, b, err);
}

int sked__request_backfill_read(const json_t *body, sked__backfill_request *b,
                                sked_error *err)
{
    return body_read(backfill_keys, body, b, err);
}

/* ---- query strings ------------------------------------------------------ */

typedef enum query_kind {
    QUERY_TEXT,  /* const char *; empty: absent */
    QUERY_COUNT, /* size_t in min..max; written when not 0 */
    QUERY_ID,    /* int64_t in min..max; written when not negative */
    QUERY_FLAG,  /* bool: 1/true/empty or 0/false; written when true */
} query_kind;

typedef struct query_key {
    const char *key;
    query_kind kind;
    size_t off;
    long min, max, dflt;
    bool alias;  /* another name of the key before it: read when that
                    one is absent, never written */
    bool paging; /* a page's only: not read when a flag asks for a stream */
} query_key;

#define TEXT(type, key, member)                                                \
    {                                                                          \
        key, QUERY_TEXT, offsetof(type, member), 0, 0, 0, false, false         \
    }
#define LIST_LIMIT(type)                                                       \
    {                                                                          \
        "limit", QUERY_COUNT, offsetof(type, limit), 1, SKED_ENGINE_LIST_MAX,  \
            100, false, false                                                  \
    }

static const query_key schedule_keys[] = {
    TEXT(sked_schedule_query, "status", status),
    TEXT(sked_schedule_query, "workflow", workflow),
    TEXT(sked_schedule_query, "prefix", prefix),
    LIST_LIMIT(sked_schedule_query),
    TEXT(sked_schedule_query, "cursor", cursor),
    {NULL, QUERY_TEXT, 0, 0, 0, 0, false, false},
};

static const query_key run_keys[] = {
    TEXT(sked_run_query, "status", status),
    TEXT(sked_run_query, "schedule", schedule),
    TEXT(sked_run_query, "workflow", workflow),
    LIST_LIMIT(sked_run_query),
    TEXT(sked_run_query, "cursor", cursor),
    {NULL, QUERY_TEXT, 0, 0, 0, 0, false, false},
};

static const query_key event_keys[] = {
    {"follow", QUERY_FLAG, offsetof(sked__event_query, follow), 0, 0, 0, false,
     false},
    {"after", QUERY_ID, offsetof(sked__event_query, after), 0, LONG_MAX, -1,
     false, false},
    {"cursor", QUERY_ID, offsetof(sked__event_query, after), 0, LONG_MAX, -1,
     true, false},
    {"limit", QUERY_COUNT, offsetof(sked__event_query, limit), 1, 1000, 100,
     false, true},
    {NULL, QUERY_TEXT, 0, 0, 0, 0, false, false},
};

int sked__query_long(const char *s, const char *key, long min, long max,
                     long dflt, long *out, sked_error *err)
{
    char *end;
    long v;

    *out = dflt;
    if (!s)
        return 0;
    if (!*s || (*s < '0' || *s > '9') || (v = strtol(s, &end, 10), *end))
        return sked__error_set(err, SKED_ESYNTAX, key, -1,
                               "%s: expected a whole number", key);
    if (v < min || v > max)
        return sked__error_set(err, SKED_ERANGE, key, -1,
                               "%s: expected %ld to %ld", key, min, max);
    *out = v;
    return 0;
}

/* Append V to B percent-encoded: all but RFC 3986's unreserved. */
static void escape(sked_buf *b, const char *v)
{
    static const char hex[] = "0123456789ABCDEF";

    for (const unsigned char *p = (const unsigned char *) v; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
            (*p >= '0' && *p <= '9') || strchr("-._~", *p))
            (void) sked__buf_add(b, p, 1);
        else
            (void) sked__buf_printf(b, "%%%c%c", hex[*p >> 4], hex[*p & 15]);
    }
}

/* The value of K in Q as text into V (room for 24), NULL when unset. */
static const char *query_value(const query_key *k, const void *q, char *v)
{
    switch (k->kind) {
    case QUERY_TEXT:
        return *AT_C(q, k->off, text_member);
    case QUERY_COUNT:
        if (*AT_C(q, k->off, size_t) == 0)
            return NULL;
        (void) snprintf(v, 24, "%zu", *AT_C(q, k->off, size_t));
        return v;
    case QUERY_ID:
        if (*AT_C(q, k->off, int64_t) < 0)
            return NULL;
        (void) snprintf(v, 24, "%lld", (long long) *AT_C(q, k->off, int64_t));
        return v;
    case QUERY_FLAG:
        return *AT_C(q, k->off, bool) ? "1" : NULL;
    }
    return NULL;
}

static char *query_write(const query_key *keys, const char *path, const void *q)
{
    sked_buf b = {0};
    char sep = '?', v[24];
    const char *value;

    (void) sked__buf_puts(&b, path);
    for (const query_key *k = keys; k->key; k++) {
        if (k->alias || !(value = query_value(k, q, v)))
            continue;
        (void) sked__buf_printf(&b, "%c%s=", sep, k->key);
        escape(&b, value);
        sep = '&';
    }
    return sked__buf_take(&b, NULL);
}

/* Read the flag S of K into *out. */
static int flag_read(const query_key *k, const char *s, bool *out,
                     sked_error *err)
{
    *out = false;
    if (!s || strcmp(s, "0") == 0 || strcmp(s, "false") == 0)
        return 0;
    if (strcmp(s, "1") == 0 || strcmp(s, "true") == 0 || s[0] == '\0') {
        *out = true;
        return 0;
    }
    return sked__error_set(err, SKED_ESYNTAX, k->key, -1,
                           "%s: must be 1 or 0, not \"%.40s\"", k->key, s);
}

/* Read the value S of K into Q. */
static int key_read(const query_key *k, const char *s, void *q, sked_error *err)
{
    long v;
    int rc;

    switch (k->kind) {
    case QUERY_TEXT:
        *AT(q, k->off, const char *) = s && *s ? s : NULL;
        return 0;
    case QUERY_FLAG:
        return flag_read(k, s, AT(q, k->off, bool), err);
    case QUERY_COUNT:
    case QUERY_ID:
        break;
    }
    if ((rc = sked__query_long(s, k->key, k->min, k->max, k->dflt, &v, err)))
        return rc;
    if (k->kind == QUERY_COUNT)
        *AT(q, k->off, size_t) = (size_t) v;
    else
        *AT(q, k->off, int64_t) = v;
    return 0;
}

static int query_read(const query_key *keys, sked__query_get_fn get, void *ctx,
                      void *q, sked_error *err)
{
    bool stream = false;
    int rc = 0;

    for (const query_key *k = keys; rc == 0 && k->key; k++) {
        /* An alias is an id's (the one kind that has one). */
        if ((k->paging && stream) ||
            (k->alias && *AT(q, k->off, int64_t) != k->dflt))
            continue;
        rc = key_read(k, get(ctx, k->key), q, err);
        if (k->kind == QUERY_FLAG && *AT(q, k->off, bool))
            stream = true;
    }
    return rc;
}

char *sked__query_schedules(const char *path, const sked_schedule_query *q)
{
    return query_write(schedule_keys, path, q);
}

int sked__query_schedules_read(sked__query_get_fn get, void *ctx,
                               sked_schedule_query *q, sked_error *err)
{
    memset(q, 0, sizeof *q);
    return query_read(schedule_keys, get, ctx, q, err);
}

char *sked__query_runs(const char *path, const sked_run_query *q)
{
    return query_write(run_keys, path, q);
}

int sked__query_runs_read(sked__query_get_fn get, void *ctx, sked_run_query *q,
                          sked_error *err)
{
    memset(q, 0, sizeof *q);
    return query_read(run_keys, get, ctx, q, err);
}

char *sked__query_events(const char *path, const sked__event_query *q)
{
    return query_write(event_keys, path, q);
}

int sked__query_events_read(sked__query_get_fn get, void *ctx,
                            sked__event_query *q, sked_error *err)
{
    *q = (sked__event_query){.follow = false, .after = -1, .limit = 100};
    return query_read(event_keys, get, ctx, q, err);
}
