/* SPDX-License-Identifier: MIT */
/* The stored events as the API lists them (sked_engine_event_query and
 * engine_events.h): every engine's events on the database, oldest first,
 * paged by id, those of some types or of one subject filtered by the
 * store, so that every page but the last is full. */
#include "engine/engine_events.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/json_text.h"
#include "base/utf8.h"
#include "engine/engine_int.h"

/* S as a JSON string, its bytes that are not UTF-8 as U+FFFD: one event
 * whose subject came from bytes no one checked (a run id made of a
 * client's key) must not make every page that holds it fail. */
static json_t *text_json(const char *s)
{
    json_t *j = json_string(s ? s : "");
    char *clean = NULL;
    size_t n;

    if (j || !s || sked__utf8_sanitize(s, strlen(s), &clean, &n) != 0)
        return j;
    j = json_stringn(clean, n);
    free(clean);
    return j;
}

json_t *sked__event_json(const sked_event_view *ev)
{
    char at[SKED_TIME_STRLEN];
    json_t *payload = ev->payload ? json_loads(ev->payload, 0, NULL) : NULL;

    if (!payload)
        payload = ev->payload ? text_json(ev->payload) : json_object();
    if (sked_time_format(ev->at, at, sizeof at) < 0)
        at[0] = '\0';
    return json_pack("{s:I, s:o, s:o, s:o, s:s}", "id", (json_int_t) ev->id,
                     "type", text_json(ev->type), "subject",
                     text_json(ev->subject), "payload", payload, "at", at);
}

/* {"events":[...],"next_cursor":...} of the first LIMIT of the N events
 * EV; MORE: events follow the LIMIT-th. */
static json_t *page_json(const sked_event_view *ev, size_t n, size_t limit,
                         bool more)
{
    json_t *list = json_array(), *cursor = json_null();
    char id[32];

    for (size_t i = 0; list && i < n && i < limit; i++)
        if (json_array_append_new(list, sked__event_json(&ev[i])) != 0) {
            json_decref(list);
            list = NULL;
        }
    if (!list) {
        json_decref(cursor);
        return NULL;
    }
    if (more && n > 0) {
        (void) snprintf(id, sizeof id, "%lld",
                        (long long) ev[(n < limit ? n : limit) - 1].id);
        cursor = json_string(id);
    }
    return json_pack("{s:o, s:o?}", "events", list, "next_cursor", cursor);
}

/* EV (N, taken: freed here) as a page of views into *out. */
static int page_of(sked_event *ev, size_t n, sked_event_page *out,
                   sked_error *err)
{
    sked_event_view *v = sked__calloc(n ? n : 1, sizeof *v);

    if (!v) {
        sked__events_free(ev, n);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    for (size_t i = 0; i < n; i++)
        v[i] = (sked_event_view){ev[i].id, ev[i].type, ev[i].subject,
                                 ev[i].payload, ev[i].at};
    *out = (sked_event_page){v, n, ev};
    return 0;
}

/* Whether the payload PAYLOAD says it was caused by ACTOR. */
static bool actor_is(const char *payload, const char *actor)
{
    json_t *p = payload ? json_loads(payload, 0, NULL) : NULL;
    const char *a = json_string_value(json_object_get(p, "actor"));
    bool is = a && strcmp(a, actor) == 0;

    json_decref(p);
    return is;
}

bool sked_event_filter_matches(const sked_event_filter *f,
                               const sked_event_view *ev)
{
    bool type = !f || f->ntypes == 0;

    if (f && f->subject && (!ev->subject || strcmp(f->subject, ev->subject)))
        return false;
    if (f && f->actor && !actor_is(ev->payload, f->actor))
        return false;
    for (size_t i = 0; !type && i < f->ntypes; i++)
        type = ev->type && strcmp(f->types[i], ev->type) == 0;
    return type;
}

/* Whether S is 1..MAX bytes without a control character. */
static bool value_ok(const char *s, size_t max)
{
    size_t n = 0;

    for (; s[n]; n++)
        if ((unsigned char) s[n] < 0x20 || s[n] == 0x7f || n >= max)
            return false;
    return n > 0;
}

int sked_event_filter_check(const sked_event_filter *f, sked_error *err)
{
    if (!f)
        return 0;
    if (f->ntypes > SKED_EVENT_TYPES_MAX)
        return sked__error_set(err, SKED_EINVAL, "type", -1,
                               "type: at most %d types", SKED_EVENT_TYPES_MAX);
    for (size_t i = 0; i < f->ntypes; i++)
        if (!f->types[i] || !value_ok(f->types[i], SKED_EVENT_TYPE_MAX))
            return sked__error_set(err, SKED_EINVAL, "type", -1,
                                   "type: each is 1 to %d bytes with no "
                                   "control character",
                                   SKED_EVENT_TYPE_MAX);
    if (f->subject && !value_ok(f->subject, SKED_EVENT_SUBJECT_MAX))
        return sked__error_set(err, SKED_EINVAL, "subject", -1,
                               "subject: 1 to %d bytes with no control "
                               "character",
                               SKED_EVENT_SUBJECT_MAX);
    if (f->actor && !value_ok(f->actor, SKED_ACTOR_MAX))
        return sked__error_set(err, SKED_EINVAL, "actor", -1,
                               "actor: 1 to %d bytes with no control "
                               "character",
                               SKED_ACTOR_MAX);
    return 0;
}

/* sked_engine_event_read of the events F matches (NULL: all). */
static int event_read(sked_engine *e, int64_t after_id, size_t limit,
                      const sked_event_filter *f, sked_event_page *out,
                      sked_error *err)
{
    sked__event_filter sf = {NULL, 0, NULL, NULL, NULL};
    sked_event *ev = NULL;
    size_t n = 0;
    int rc;

    if (!e || !out)
        return sked__error_set(err, SKED_EINVAL, NULL, -1,
                               "an engine and an output");
    if (limit < 1 || limit > SKED_STORE_LIST_MAX)
        return sked__error_set(err, SKED_EINVAL, "limit", -1,
                               "1 to %d events per page", SKED_STORE_LIST_MAX);
    if (after_id < 0)
        return sked__error_set(err, SKED_EINVAL, "after", -1,
                               "must be 0 or more");
    if (f) {
        if ((rc = sked_event_filter_check(f, err)) != 0)
            return rc;
        sf = (sked__event_filter){f->types, f->ntypes, f->subject, f->actor,
                                  NULL};
    }
    rc = sked__store_event_find(e->store, after_id, limit, f ? &sf : NULL, &ev,
                                &n, err);
    return rc != 0 ? rc : page_of(ev, n, out, err);
}

int sked_engine_event_read(sked_engine *e, int64_t after_id, size_t limit,
                           sked_event_page *out, sked_error *err)
{
    return event_read(e, after_id, limit, NULL, out, err);
}

int sked_engine_event_last(sked_engine *e, int64_t *out_id, sked_error *err)
{
    if (!e || !out_id)
        return sked__error_set(err, SKED_EINVAL, NULL, -1,
                               "an engine and an output");
    return sked__store_event_last(e->store, out_id, err);
}

void sked_event_page_done(sked_event_page *p)
{
    if (!p)
        return;
    sked__events_free(p->own_, p->n);
    free(p->items);
    *p = (sked_event_page){NULL, 0, NULL};
}

bool sked_event_follows(int64_t last_id, int64_t id)
{
    return id == last_id + 1 || id == sked__event_next_page(last_id);
}

int sked_engine_event_list(sked_engine *e, int64_t after_id, size_t limit,
                           char **out_json, sked_error *err)
{
    sked_event_query q = {.after_id = after_id, .limit = limit};

    return sked_engine_event_query(e, &q, out_json, err);
}

int sked_engine_event_query(sked_engine *e, const sked_event_query *q,
                            char **out_json, sked_error *err)
{
    size_t ask, limit = q ? q->limit : 0;
    sked_event_page p;
    int rc;

    if (!e || !q || !out_json)
        return sked__error_set(err, SKED_EINVAL, NULL, -1,
                               "an engine, a query and an output");
    if (limit == 0)
        limit = 100;
    if (limit > SKED_STORE_LIST_MAX)
        return sked__error_set(err, SKED_EINVAL, "limit", -1,
                               "at most %d events per page",
                               SKED_STORE_LIST_MAX);
    /* One more than asked tells whether a page follows; at the cap, a
     * full page gets a cursor (the next may be empty). */
    ask = limit < SKED_STORE_LIST_MAX ? limit + 1 : limit;
    if ((rc = event_read(e, q->after_id, ask, &q->filter, &p, err)) != 0)
        return rc;
    json_t *o = page_json(p.items, p.n, limit,
                          p.n > limit || p.n == SKED_STORE_LIST_MAX);
    sked_event_page_done(&p);
    *out_json = o ? sked__json_text(o, NULL) : NULL;
    json_decref(o);
    if (!*out_json)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    return 0;
}
