/* SPDX-License-Identifier: MIT */
/* Schedule operations of the store (store.h, SPEC 3.5): create, get,
 * list, update, delete, pause, resume and apply.
 *
 * Every write validates first and writes nothing when validation fails;
 * the row is then normalised (timezone "UTC" and context "{}" rather than
 * NULL, a heartbeat's workflow its name, automatic_backfill spelled out
 * as its policy) and written with its
 * event (schedule.created, .updated, .deleted, .paused, .resumed) in the
 * same transaction. An update replaces the definition and keeps the state
 * (cursor, counters, created_at, source, status; a disabled schedule
 * becomes active again, since its new definition passed validation). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/json_text.h"
#include "model/schedule.h"
#include "model/schedule_fields.h"
#include "model/schedule_json.h"
#include "store/store_int.h"

#define LIST_DEFAULT 100
#define PRUNE_PAGE   500

void sked__schedules_free(sked_schedule *list, size_t n)
{
    for (size_t i = 0; list && i < n; i++)
        sked_schedule_done(&list[i]);
    free(list);
}

/* Replace the string *p by a copy of S when it is NULL; false on ENOMEM. */
static bool default_str(char **p, const char *s)
{
    if (*p)
        return true;
    *p = sked__strdup(s);
    return *p != NULL;
}

/* Validate IN and copy it into *out, normalised (see the file header). */
static int prepare(sked_store *st, const sked_schedule *in, sked_schedule *out,
                   sked_error *err)
{
    sked_schedule c;
    int rc = sked_schedule_validate(in, st->tzdb, err);

    if (rc != 0)
        return rc;
    if (sked_schedule_copy(in, &c) != 0)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (!default_str(&c.timezone, "UTC") || !default_str(&c.context, "{}") ||
        (c.heartbeat && !default_str(&c.workflow, c.name))) {
        sked_schedule_done(&c);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    if (c.automatic_backfill) {
        c.catchup = SKED_CATCHUP_ALL;
        c.catchup_max = SKED_CATCHUP_MAX_LIMIT;
        c.catchup_window = SKED_CATCHUP_WINDOW_MAX;
    }
    *out = c;
    return 0;
}

/* Append the event TYPE about NAME: the schedule S as JSON, or
 * {"name": NAME, "next_fire_at": ...} when S is NULL or for pause and
 * resume (SHORT). */
static int emit(sked_store *st, sked__tx *tx, const char *type,
                const sked_schedule *s, const char *name, sked_error *err)
{
    char *payload = NULL;
    json_t *o;
    int rc;

    if (s && strcmp(type, "schedule.paused") != 0 &&
        strcmp(type, "schedule.resumed") != 0) {
        rc = sked__schedule_to_json_text(s, &payload, err);
        if (rc != 0)
            return rc;
    } else {
        o = json_pack("{s:s}", "name", name);
        if (o && s && s->next_fire_at != SKED_TIME_NONE) {
            char t[SKED_TIME_STRLEN];
            if (sked_time_format(s->next_fire_at, t, sizeof t) > 0 &&
                json_object_set_new(o, "next_fire_at", json_string(t)) != 0) {
                json_decref(o); /* not written without it */
                o = NULL;
            }
        }
        payload = o ? sked__json_text(o, NULL) : NULL;
        json_decref(o);
        if (!payload)
            return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    rc = sked__event_write(st, tx, type, name, payload, sked__store_now(st),
                           err);
    free(payload);
    return rc;
}

static sked_time whole_second(sked_time t)
{
    return t - (t % SKED_USEC_PER_SEC + SKED_USEC_PER_SEC) % SKED_USEC_PER_SEC;
}

/* Fill the store-kept fields of a new row R at NOW. */
static int start_row(sked_store *st, sked__tx *tx, sked_schedule *r,
                     sked_time now, sked_error *err)
{
    int rc;

    if (r->status != SKED_SCHEDULE_ACTIVE && r->status != SKED_SCHEDULE_PAUSED)
        return sked__error_set(err, SKED_EINVAL, "status", -1,
                               "a new schedule is active or paused");
    if (sked__schedule_past_check(r, NULL, now, err) != 0)
        return SKED_EINVAL;
    /* The default anchor is the creation time, in whole seconds, so that
     * occurrences (and run ids) fall on whole seconds too. */
    if (r->kind == SKED_SPEC_EVERY && r->anchor == SKED_TIME_NONE)
        r->anchor = whole_second(now);
    r->created_at = r->updated_at = now;
    r->last_fired_at = SKED_TIME_NONE;
    free(r->last_error);
    r->last_error = NULL;
    r->runs_created = 0;
    r->consecutive_failures = 0;
    r->deadline_check_at = SKED_TIME_NONE;
    r->deadlines_missed = 0;
    r->last_deadline_missed = SKED_TIME_NONE;
    /* Only an apply (a code sync) gives a schedule an app. */
    if (r->source != SKED_SOURCE_CODE) {
        free(r->app);
        r->app = NULL;
    }
    if ((rc = sked__store_plan_next(st, tx, r, now, true, err)) != 0)
        return rc;
    /* A rule whose occurrences are all past would be done at birth: a
     * mistake in its DTSTART, UNTIL or COUNT, refused like a past "at". */
    if (r->kind == SKED_SPEC_RRULE && r->status == SKED_SCHEDULE_DONE)
        return sked__error_set(err, SKED_EINVAL, "rrule", -1,
                               "the rule has no occurrence after now");
    return 0;
}

/* ---- create ------------------------------------------------------------ */

static int create_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    sked_schedule *r = arg;
    int rc = start_row(st, tx, r, sked__store_now(st), err);

    if (rc == 0)
        rc = st->ops->schedule_insert(tx, r, err);

    if (rc == 0)
        rc = emit(st, tx, "schedule.created", r, r->name, err);
    return rc;
}

int sked__store_schedule_create(sked_store *st, const sked_schedule *s,
                                sked_error *err)
{
    sked_schedule r;
    int rc = prepare(st, s, &r, err);

    if (rc != 0)
        return rc;
    rc = sked__store_run_shared(st, create_tx, &r, err);
    sked_schedule_done(&r);
    return rc;
}

/* ---- get and list ------------------------------------------------------ */

struct get_arg {
    const char *name;
    sked_schedule s;
};

static int get_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct get_arg *a = arg;

    sked_schedule_done(&a->s); /* from an attempt that failed */
    return st->ops->schedule_get(tx, a->name, &a->s, err);
}

int sked__store_schedule_get(sked_store *st, const char *name,
                             sked_schedule *out, sked_error *err)
{
    struct get_arg a = {.name = name};
    int rc;

    if (!name || !out)
        return sked__error_set(err, SKED_EINVAL, "name", -1, "is required");
    sked_schedule_init(&a.s);
    rc = sked__store_run_tx(st, SKED__TX_READ, get_tx, &a, err);
    if (rc != 0) {
        sked_schedule_done(&a.s);
        return rc;
    }
    *out = a.s;
    return 0;
}

struct list_arg {
    sked__schedule_query q;
    sked_schedule *list;
    size_t n;
};

static int list_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct list_arg *a = arg;

    sked__schedules_free(a->list, a->n);
    a->list = NULL;
    a->n = 0;
    return st->ops->schedule_list(tx, &a->q, &a->list, &a->n, err);
}

int sked__store_schedule_list(sked_store *st, const sked_schedule_filter *f,
                              sked_schedule **out, size_t *n, bool *more,
                              sked_error *err)
{
    static const sked_schedule_filter all = {.status = -1};
    struct list_arg a = {{0}, NULL, 0};
    size_t limit;
    int rc;

    if (!f)
        f = &all;
    limit = f->limit ? f->limit : LIST_DEFAULT;
    if (limit > SKED_STORE_LIST_MAX)
        return sked__error_set(err, SKED_EINVAL, "limit", -1,
                               "at most %d schedules per page",
                               SKED_STORE_LIST_MAX);
    if (f->status < -1 || f->status > SKED_SCHEDULE_DONE)
        return sked__error_set(err, SKED_EINVAL, "status", -1,
                               "unknown status");
    a.q = (sked__schedule_query){.status = f->status,
                                 .source = -1,
                                 .workflow = f->workflow,
                                 .name_prefix = f->name_prefix,
                                 .after_name = f->after_name,
                                 .limit = limit + 1};
    rc = sked__store_run_tx(st, SKED__TX_READ, list_tx, &a, err);
    if (rc != 0) {
        sked__schedules_free(a.list, a.n);
        return rc;
    }
    if (more)
        *more = a.n > limit;
    while (a.n > limit)
        sked_schedule_done(&a.list[--a.n]);
    *out = a.list;
    *n = a.n;
    return 0;
}

/* ---- update ------------------------------------------------------------ */

/* Build in *out the row for the new definition DEF (prepared) over the
 * stored row OLD at NOW, keeping OLD's state (see the file header). */
static int merge(sked_store *st, sked__tx *tx, const sked_schedule *old,
                 const sked_schedule *def, sked_time now, sked_schedule *out,
                 sked_error *err)
{
    sked_schedule r;
    int rc;

    if (sked__schedule_past_check(def, old, now, err) != 0)
        return SKED_EINVAL;
    if (sked_schedule_copy(def, &r) != 0)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    r.status = old->status == SKED_SCHEDULE_DISABLED ? SKED_SCHEDULE_ACTIVE
                                                     : old->status;
    r.source = old->source;
    /* An update through the API keeps the app; an apply sets its own. */
    if (!r.app && old->app && !(r.app = sked__strdup(old->app))) {
        sked_schedule_done(&r);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    r.last_fired_at = old->last_fired_at;
    free(r.last_error);
    r.last_error = NULL;
    if (old->status != SKED_SCHEDULE_DISABLED && old->last_error &&
        !(r.last_error = sked__strdup(old->last_error))) {
        sked_schedule_done(&r);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    r.runs_created = old->runs_created;
    r.consecutive_failures = old->consecutive_failures;
    /* Its runs keep the deadlines they were made with. */
    r.deadline_check_at = old->deadline_check_at;
    r.deadlines_missed = old->deadlines_missed;
    r.last_deadline_missed = old->last_deadline_missed;
    r.created_at = old->created_at;
    r.updated_at = now;
    if (r.kind == SKED_SPEC_EVERY && r.anchor == SKED_TIME_NONE)
        r.anchor =
            old->kind == SKED_SPEC_EVERY ? old->anchor : whole_second(now);
    rc = sked__store_plan_next(st, tx, &r, now, true, err);
    if (rc != 0) {
        sked_schedule_done(&r);
        return rc;
    }
    *out = r;
    return 0;
}

/* Read NAME's row into *old (SKED_ENOTFOUND worded by schedule_sql.c). */
static int load(sked_store *st, sked__tx *tx, const char *name,
                sked_schedule *old, sked_error *err)
{
    return st->ops->schedule_get(tx, name, old, err);
}

/* Replace OLD's definition by DEF (both named alike) and emit the event. */
static int replace(sked_store *st, sked__tx *tx, const sked_schedule *old,
                   const sked_schedule *def, sked_error *err)
{
    sked_schedule r;
    int rc = merge(st, tx, old, def, sked__store_now(st), &r, err);

    if (rc != 0)
        return rc;
    rc = st->ops->schedule_update(tx, &r, err);
    if (rc == 0)
        rc = emit(st, tx, "schedule.updated", &r, r.name, err);
    sked_schedule_done(&r);
    return rc;
}

static int update_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    const sked_schedule *def = arg;
    sked_schedule old;
    int rc = load(st, tx, def->name, &old, err);

    if (rc != 0)
        return rc;
    rc = replace(st, tx, &old, def, err);
    sked_schedule_done(&old);
    return rc;
}

int sked__store_schedule_update(sked_store *st, const sked_schedule *s,
                                sked_error *err)
{
    sked_schedule def;
    int rc = prepare(st, s, &def, err);

    if (rc != 0)
        return rc;
    rc = sked__store_run_tx(st, SKED__TX_WRITE, update_tx, &def, err);
    sked_schedule_done(&def);
    return rc;
}

/* ---- delete, pause, resume --------------------------------------------- */

struct delete_arg {
    const char *name;
    bool existed;
};

static int delete_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct delete_arg *a = arg;
    int rc = st->ops->schedule_delete(tx, a->name, &a->existed, err);

    if (rc == 0 && a->existed)
        rc = emit(st, tx, "schedule.deleted", NULL, a->name, err);
    return rc;
}

int sked__store_schedule_delete(sked_store *st, const char *name, bool *existed,
                                sked_error *err)
{
    struct delete_arg a = {name, false};
    int rc;

    if (!name || !name[0])
        return sked__error_set(err, SKED_EINVAL, "name", -1, "is required");
    rc = sked__store_run_tx(st, SKED__TX_WRITE, delete_tx, &a, err);
    if (rc == 0 && existed)
        *existed = a.existed;
    return rc;
}

struct pause_arg {
    const char *name;
    bool resume;
    sked_time now;
};

/* Move the loaded row S to paused, or to active from A->now. */
static int flip(sked_store *st, sked__tx *tx, sked_schedule *s,
                const struct pause_arg *a, sked_error *err)
{
    if (!a->resume) {
        s->status = SKED_SCHEDULE_PAUSED;
        s->next_fire_at = SKED_TIME_NONE;
        return 0;
    }
    if (s->status != SKED_SCHEDULE_PAUSED)
        return sked__error_set(err, SKED_ECONFLICT, "status", -1,
                               "schedule \"%.100s\" is %s, not paused", s->name,
                               sked_schedule_status_name(s->status));
    s->status = SKED_SCHEDULE_ACTIVE;
    /* Resuming is a person's decision that the failures are dealt with:
     * pause_after_failures counts afresh (and last_error goes). */
    s->consecutive_failures = 0;
    free(s->last_error);
    s->last_error = NULL;
    /* SPEC 3.3: a resumed schedule is never caught up: the occurrences of
     * the pause count as decided (the cursor moves to now), so the
     * scheduler's policy starts from the next one. */
    if (s->last_fired_at == SKED_TIME_NONE || s->last_fired_at < a->now)
        s->last_fired_at = a->now;
    return sked__store_plan_next(st, tx, s, a->now, false, err);
}

static int pause_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct pause_arg *a = arg;
    sked_schedule s;
    int rc = load(st, tx, a->name, &s, err);

    if (rc != 0)
        return rc;
    if (s.status == (a->resume ? SKED_SCHEDULE_ACTIVE : SKED_SCHEDULE_PAUSED))
        goto out; /* already so: nothing to write, no event */
    rc = flip(st, tx, &s, a, err);
    if (rc != 0)
        goto out;
    s.updated_at = sked__store_now(st);
    rc = st->ops->schedule_update(tx, &s, err);
    if (rc == 0)
        rc = emit(st, tx, a->resume ? "schedule.resumed" : "schedule.paused",
                  &s, s.name, err);
out:
    sked_schedule_done(&s);
    return rc;
}

int sked__store_schedule_pause(sked_store *st, const char *name,
                               sked_error *err)
{
    struct pause_arg a = {name, false, 0};

    if (!name || !name[0])
        return sked__error_set(err, SKED_EINVAL, "name", -1, "is required");
    return sked__store_run_tx(st, SKED__TX_WRITE, pause_tx, &a, err);
}

int sked__store_schedule_resume(sked_store *st, const char *name, sked_time now,
                                sked_error *err)
{
    struct pause_arg a = {name, true, now};

    if (!name || !name[0])
        return sked__error_set(err, SKED_EINVAL, "name", -1, "is required");
    return sked__store_run_tx(st, SKED__TX_WRITE, pause_tx, &a, err);
}

/* ---- apply ------------------------------------------------------------- */

static bool str_eq(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

/* 1 when the JSON texts A and B (NULL: {}) hold the same value, else 0.
 * Both were checked as JSON before: one that does not parse now could
 * not for want of memory (jansson's lexer may call that a syntax error),
 * and is SKED_ENOMEM rather than "different", which would rewrite an
 * unchanged schedule. */
static int json_text_eq(const char *a, const char *b)
{
    json_t *x, *y;

    a = a ? a : "{}";
    b = b ? b : "{}";
    if (strcmp(a, b) == 0)
        return 1;
    x = json_loads(a, 0, NULL);
    y = json_loads(b, 0, NULL);
    int eq = x && y ? json_equal(x, y) : SKED_ENOMEM;

    json_decref(x);
    json_decref(y);
    return eq;
}

/* 1 when the field F of A and B holds the same value, else 0 (or
 * SKED_ENOMEM, comparing contexts). */
static int field_eq(const sked_schedule *a, const sked_schedule *b,
                    const sked__sfield *f)
{
    const void *x = sked__sf_cat(a, f), *y = sked__sf_cat(b, f);

    switch (f->kind) {
    case SKED__SK_NAME:
    case SKED__SK_STR:
    case SKED__SK_CRON:
    case SKED__SK_RRULE:
    case SKED__SK_CALS:
        return str_eq(*(char *const *) x, *(char *const *) y);
    case SKED__SK_CONTEXT:
        return json_text_eq(*(char *const *) x, *(char *const *) y);
    case SKED__SK_I32:
    case SKED__SK_BOOL:
        return *(const int32_t *) x == *(const int32_t *) y;
    case SKED__SK_ENUM:
        return *(const int *) x == *(const int *) y;
    case SKED__SK_PAUSED:
    case SKED__SK_WORDS:
        return 1; /* the status, the words: views, not definition */
    default:
        return *(const int64_t *) x == *(const int64_t *) y;
    }
}

/* Tell whether the prepared definition DEF leaves the stored row OLD as it
 * is (1, else 0, or SKED_ENOMEM): every field of the definition (the
 * table's DEF and INTERNAL rows) and the app. An interval without an
 * anchor keeps the stored anchor. */
static int same_definition(const sked_schedule *old, const sked_schedule *def)
{
    int eq = str_eq(old->app, def->app);

    for (size_t i = 0; eq == 1 && i < SKED__SF_COUNT; i++) {
        const sked__sfield *f = &sked__sfields[i];

        if (f->role != SKED__SR_DEF && f->role != SKED__SR_INTERNAL)
            continue;
        if (i == SKED__SF_anchor && def->anchor == SKED_TIME_NONE &&
            old->kind == SKED_SPEC_EVERY)
            continue;
        eq = field_eq(old, def, f);
    }
    return eq;
}

struct apply_arg {
    sked_schedule *rows; /* prepared, n */
    const char **names;  /* sorted, for prune */
    size_t n;
    const char *app; /* borrowed: the set's owner */
    bool prune;
    sked_apply_result res;
};

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* Create or replace row I of the set. */
static int apply_one(sked_store *st, sked__tx *tx, struct apply_arg *a,
                     size_t i, sked_error *err)
{
    sked_schedule *def = &a->rows[i];
    sked_schedule old, r;
    int rc = st->ops->schedule_get(tx, def->name, &old, err);

    if (rc == SKED_ENOTFOUND) {
        /* R is written only when the copy succeeds. */
        if ((rc = sked_schedule_copy(def, &r)) != 0)
            return sked__error_set(err, rc, NULL, -1, NULL);
        rc = start_row(st, tx, &r, sked__store_now(st), err);
        if (rc == 0)
            rc = st->ops->schedule_insert(tx, &r, err);
        if (rc == 0)
            rc = emit(st, tx, "schedule.created", &r, r.name, err);
        if (rc == 0)
            sked__apply_note(&a->res, SKED_APPLY_CREATED, r.name);
        sked_schedule_done(&r);
        return rc;
    }
    if (rc != 0)
        return rc;
    /* A code schedule of another app is not this set's to change; one
     * from before apps (none) is taken over by the first set naming it. */
    if (old.source != SKED_SOURCE_CODE)
        rc = sked__error_set(err, SKED_ECONFLICT, "name", -1,
                             "\"%.80s\" exists with source %s", def->name,
                             sked_source_name(old.source));
    else if (old.app && strcmp(old.app, a->app) != 0)
        rc = sked__error_set(err, SKED_ECONFLICT, "name", -1,
                             "\"%.80s\" belongs to app \"%.60s\"", def->name,
                             old.app);
    else if ((rc = same_definition(&old, def)) < 0)
        rc = sked__error_set(err, rc, NULL, -1, NULL);
    else if (rc == 1) {
        rc = 0;
        a->res.unchanged++;
    } else if ((rc = replace(st, tx, &old, def, err)) == 0)
        sked__apply_note(&a->res, SKED_APPLY_UPDATED, def->name);
    sked_schedule_done(&old);
    return rc;
}

/* Delete the code schedules of A->app that are not in the set: never
 * another app's, nor those of no app. */
static int apply_prune(sked_store *st, sked__tx *tx, struct apply_arg *a,
                       sked_error *err)
{
    sked__schedule_query q = {.status = -1,
                              .source = (int) SKED_SOURCE_CODE,
                              .app = a->app,
                              .limit = PRUNE_PAGE};
    char *after = NULL;
    int rc;

    for (;;) {
        sked_schedule *page = NULL;
        size_t n = 0;
        rc = st->ops->schedule_list(tx, &q, &page, &n, err);
        for (size_t i = 0; rc == 0 && i < n; i++) {
            const char *name = page[i].name;
            bool existed = false;
            if (bsearch(&name, a->names, a->n, sizeof *a->names, cmp_name))
                continue;
            rc = st->ops->schedule_delete(tx, name, &existed, err);
            if (rc == 0 && existed)
                rc = emit(st, tx, "schedule.deleted", NULL, name, err);
            if (rc == 0 && existed)
                sked__apply_note(&a->res, SKED_APPLY_DELETED, name);
        }
        free(after);
        after = n ? sked__strdup(page[n - 1].name) : NULL;
        sked__schedules_free(page, n);
        if (rc != 0 || n < PRUNE_PAGE)
            break;
        if (!after) {
            rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
            break;
        }
        q.after_name = after;
    }
    free(after);
    return rc;
}

static int apply_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct apply_arg *a = arg;
    int rc = 0;

    memset(&a->res, 0, sizeof a->res);
    for (size_t i = 0; i < a->n && rc == 0; i++)
        rc = sked__error_at_index(apply_one(st, tx, a, i, err), "schedules", i,
                                  err);
    if (rc == 0 && a->prune)
        rc = apply_prune(st, tx, a, err);
    return rc;
}

/* Validate and prepare every schedule of SET into A (all before any
 * write); names must be unique within the set. */
static int apply_prepare(sked_store *st, const sked_schedule *set, size_t n,
                         struct apply_arg *a, sked_error *err)
{
    int rc = 0;

    a->rows = sked__calloc(n ? n : 1, sizeof *a->rows);
    a->names = sked__calloc(n ? n : 1, sizeof *a->names);
    if (!a->rows || !a->names)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    for (size_t i = 0; i < n && rc == 0; i++) {
        rc = sked__error_at_index(prepare(st, &set[i], &a->rows[i], err),
                                  "schedules", i, err);
        if (rc != 0)
            break;
        a->rows[i].source = SKED_SOURCE_CODE;
        free(a->rows[i].app);
        if (!(a->rows[i].app = sked__strdup(a->app))) {
            a->n = i + 1;
            return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
        }
        a->names[i] = a->rows[i].name;
        a->n = i + 1;
    }
    if (rc != 0)
        return rc;
    qsort(a->names, n, sizeof *a->names, cmp_name);
    for (size_t i = 1; i < n; i++)
        if (strcmp(a->names[i - 1], a->names[i]) == 0)
            return sked__error_set(err, SKED_EINVAL, "name", -1,
                                   "\"%.80s\" appears twice in the set",
                                   a->names[i]);
    return 0;
}

int sked__store_schedule_apply(sked_store *st, const sked_schedule *set,
                               size_t n, const char *app, bool prune,
                               sked_apply_result *out, sked_error *err)
{
    struct apply_arg a = {.app = app, .prune = prune};
    int rc;

    if (!set && n > 0)
        return sked__error_set(err, SKED_EINVAL, "schedules", -1, "no set");
    rc = sked__schedule_name_check(app, "app", err);
    if (rc == 0)
        rc = apply_prepare(st, set, n, &a, err);
    if (rc == 0)
        /* Serial: N servers syncing one set at once must end with one set
         * of schedules, not N - 1 of them failing on a name the others
         * inserted first. */
        rc = sked__store_run_tx(st, SKED__TX_SERIAL, apply_tx, &a, err);
    if (rc == 0 && out)
        *out = a.res;
    sked__schedules_free(a.rows, a.n);
    free(a.names);
    return rc;
}
