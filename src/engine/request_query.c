/* SPDX-License-Identifier: MIT */
/* The query strings of the API's list and cron routes (request.h): a key
 * table per route, one writer and one reader that walk any of them, and
 * their description (request_int.h). The bodies are request.c's. */
#include "engine/request.h"
#include "engine/request_int.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/error.h"

/* ---- query strings ------------------------------------------------------ */

typedef enum query_kind {
    QUERY_TEXT,    /* const char *; empty: absent */
    QUERY_COUNT,   /* size_t in min..max; written when not 0 */
    QUERY_ID,      /* int64_t in min..max; written when not negative */
    QUERY_CURSOR,  /* an event id as QUERY_ID, or "latest":
                      SKED__EVENTS_LATEST, written as "latest" */
    QUERY_FLAG,    /* bool: 1/true/empty or 0/false; written when true */
    QUERY_INSTANT, /* sked_time, RFC 3339; empty: absent (SKED_TIME_NONE);
                      written when not absent */
    QUERY_DST,     /* sked_dst, sked_dst_parse's text; empty: absent
                      (once); written when not once */
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
    {"after", QUERY_CURSOR, offsetof(sked__event_query, after), 0, LONG_MAX, -1,
     false, false},
    {"cursor", QUERY_CURSOR, offsetof(sked__event_query, after), 0, LONG_MAX,
     -1, true, false},
    {"limit", QUERY_COUNT, offsetof(sked__event_query, limit), 1, 1000, 100,
     false, true},
    TEXT(sked__event_query, "type", type),
    TEXT(sked__event_query, "subject", subject),
    TEXT(sked__event_query, "actor", actor),
    {NULL, QUERY_TEXT, 0, 0, 0, 0, false, false},
};

static const query_key cron_keys[] = {
    TEXT(sked__cron_query, "expr", expr),
    TEXT(sked__cron_query, "timezone", timezone),
    {"n", QUERY_ID, offsetof(sked__cron_query, n), 0, SKED_PREVIEW_MAX,
     SKED__CRON_QUERY_N_DEFAULT, false, false},
    {"after", QUERY_INSTANT, offsetof(sked__cron_query, after), 0, 0, 0, false,
     false},
    {"dst", QUERY_DST, offsetof(sked__cron_query, dst), 0, 0, 0, false, false},
    {NULL, QUERY_TEXT, 0, 0, 0, 0, false, false},
};

/* Room for a query value as text: a number or an instant. */
#define VALUE_MAX SKED_TIME_STRLEN

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

/* The value of K in Q as text into V (VALUE_MAX), NULL when unset. */
static const char *query_value(const query_key *k, const void *q, char *v)
{
    switch (k->kind) {
    case QUERY_TEXT:
        return *AT_C(q, k->off, text_member);
    case QUERY_COUNT:
        if (*AT_C(q, k->off, size_t) == 0)
            return NULL;
        (void) snprintf(v, VALUE_MAX, "%zu", *AT_C(q, k->off, size_t));
        return v;
    case QUERY_CURSOR:
    case QUERY_ID:
        if (k->kind == QUERY_CURSOR &&
            *AT_C(q, k->off, int64_t) == SKED__EVENTS_LATEST)
            return "latest";
        if (*AT_C(q, k->off, int64_t) < 0)
            return NULL;
        (void) snprintf(v, VALUE_MAX, "%lld",
                        (long long) *AT_C(q, k->off, int64_t));
        return v;
    case QUERY_FLAG:
        return *AT_C(q, k->off, bool) ? "1" : NULL;
    case QUERY_INSTANT:
        if (*AT_C(q, k->off, sked_time) == SKED_TIME_NONE ||
            sked_time_format(*AT_C(q, k->off, sked_time), v, VALUE_MAX) < 0)
            return NULL;
        return v;
    case QUERY_DST:
        return *AT_C(q, k->off, sked_dst) == SKED_DST_ONCE
                   ? NULL
                   : sked_dst_name(*AT_C(q, k->off, sked_dst));
    }
    return NULL;
}

static char *query_write(const query_key *keys, const char *path, const void *q)
{
    sked_buf b = {0};
    char sep = '?', v[VALUE_MAX];
    const char *value;

    (void) sked__buf_puts(&b, path);
    for (const query_key *k = keys; k->key; k++) {
        if (k->alias || !(value = query_value(k, q, v)))
            continue;
        (void) sked__buf_printf(&b, "%c%s=", sep, k->key);
        (void) sked__buf_escape(&b, value);
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

/* Read the instant S of K into *out: malformed is a 400, as every
 * malformed query parameter. */
static int query_instant_read(const query_key *k, const char *s, sked_time *out,
                              sked_error *err)
{
    sked_error perr;

    *out = SKED_TIME_NONE;
    if (!s || !*s)
        return 0;
    sked_error_clear(&perr);
    if (sked_time_parse(s, out, &perr) != 0)
        return sked__error_set(err, SKED_ESYNTAX, k->key, -1,
                               "%s: \"%.60s\" is not an RFC 3339 instant: %s",
                               k->key, s, perr.msg);
    return 0;
}

/* Read the DST policy S of K into *out: a value that is not one is a
 * 422, as the schedule's "dst" is. */
static int query_dst_read(const query_key *k, const char *s, sked_dst *out,
                          sked_error *err)
{
    *out = SKED_DST_ONCE;
    if (!s || !*s)
        return 0;
    if (sked_dst_parse(s, out, err) != 0)
        return sked__error_set(err, SKED_EINVAL, k->key, err ? err->pos : -1,
                               "%s: must be once, cadence or GAP,FOLD (shift "
                               "or skip, first, last or both), not \"%.40s\"",
                               k->key, s);
    return 0;
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
    case QUERY_INSTANT:
        return query_instant_read(k, s, AT(q, k->off, sked_time), err);
    case QUERY_DST:
        return query_dst_read(k, s, AT(q, k->off, sked_dst), err);
    case QUERY_CURSOR:
        if (s && strcmp(s, "latest") == 0) {
            *AT(q, k->off, int64_t) = SKED__EVENTS_LATEST;
            return 0;
        }
        if (s && (*s < '0' || *s > '9'))
            return sked__error_set(err, SKED_ESYNTAX, k->key, -1,
                                   "%s: expected an event id or latest",
                                   k->key);
        break;
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
    *q = (sked__event_query){.follow = false,
                             .after = -1,
                             .limit = 100,
                             .type = NULL,
                             .subject = NULL,
                             .actor = NULL};
    return query_read(event_keys, get, ctx, q, err);
}

int sked__query_event_filter(const sked__event_query *q, sked_event_filter *f,
                             char **own, sked_error *err)
{
    sked_error why = {0};
    char *p;

    *f = (sked_event_filter){
        .ntypes = 0, .subject = q->subject, .actor = q->actor};
    *own = NULL;
    if (q->type) {
        if (!(*own = sked__strdup(q->type)))
            return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
        for (p = *own; f->ntypes < SKED_EVENT_TYPES_MAX; p++) {
            f->types[f->ntypes++] = p;
            if (!(p = strchr(p, ',')))
                break;
            *p = '\0';
        }
        if (p) {
            free(*own);
            *own = NULL;
            return sked__error_set(err, SKED_ESYNTAX, "type", -1,
                                   "type: at most %d types, comma-separated",
                                   SKED_EVENT_TYPES_MAX);
        }
    }
    if (sked_event_filter_check(f, &why) != 0) {
        free(*own);
        *own = NULL;
        return sked__error_set(err, SKED_ESYNTAX, why.field, -1, "%s", why.msg);
    }
    return 0;
}

char *sked__query_cron(const char *path, const sked__cron_query *q)
{
    return query_write(cron_keys, path, q);
}

int sked__query_cron_read(sked__query_get_fn get, void *ctx,
                          sked__cron_query *q, sked_error *err)
{
    *q = (sked__cron_query){.expr = NULL,
                            .timezone = NULL,
                            .n = SKED__CRON_QUERY_N_DEFAULT,
                            .after = SKED_TIME_NONE,
                            .dst = SKED_DST_ONCE};
    return query_read(cron_keys, get, ctx, q, err);
}

static bool query_param(const query_key *keys, size_t i, sked__request_param *p)
{
    static const char types[] = {
        [QUERY_TEXT] = 's',  [QUERY_COUNT] = 'n',   [QUERY_ID] = 'i',
        [QUERY_FLAG] = 'f',  [QUERY_INSTANT] = 't', [QUERY_DST] = 'e',
        [QUERY_CURSOR] = 'c'};

    for (const query_key *k = keys; k->key; k++) {
        if (k->alias || i-- > 0)
            continue;
        *p = (sked__request_param){k->key, types[k->kind], k->min, k->max,
                                   k->kind == QUERY_FLAG};
        return true;
    }
    return false;
}

bool sked__request_query_param(sked__request_table t, size_t i,
                               sked__request_param *p)
{
    switch (t) {
    case SKED__REQUEST_SCHEDULES:
        return query_param(schedule_keys, i, p);
    case SKED__REQUEST_RUNS:
        return query_param(run_keys, i, p);
    case SKED__REQUEST_EVENTS:
        return query_param(event_keys, i, p);
    case SKED__REQUEST_CRON:
        return query_param(cron_keys, i, p);
    default:
        return false;
    }
}
