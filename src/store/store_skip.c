/* SPDX-License-Identifier: MIT */
/* Occurrences skipped ahead of time (store.h, schema 0011): written and
 * removed under the schedule's row lock, so a firing deciding the same
 * occurrence is serialised with them: a skip lands before the occurrence
 * is decided, or is refused as already decided. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/json_obj.h"
#include "store/store_int.h"

void sked_skips_free(sked_skip *list, size_t n)
{
    for (size_t i = 0; list && i < n; i++) {
        free(list[i].schedule);
        free(list[i].actor);
        free(list[i].reason);
    }
    free(list);
}

/* The cursor of S: what is at or before it is decided. */
static sked_time cursor_of(const sked_schedule *s)
{
    return s->last_fired_at != SKED_TIME_NONE ? s->last_fired_at
                                              : s->created_at;
}

struct skip_arg {
    const char *name;
    sked_time occ;
    bool skip;
    const char *actor, *reason;
    bool changed;
    sked__ev_list ev;
};

/* The event of A: {"schedule", "occurrence", "by", "reason"}: "by" the
 * one the skip names, the payload's "actor" who made it (the audit). */
static int skip_event(struct skip_arg *a, sked_time now, sked_error *err)
{
    char t[SKED_TIME_STRLEN];
    sked_jobj o = {0};

    if (sked_time_format(a->occ, t, sizeof t) < 0)
        return sked__error_set(err, SKED_EINVAL, "at", -1,
                               "the instant cannot be written");
    sked__jobj_str(&o, "schedule", a->name);
    sked__jobj_str(&o, "occurrence", t);
    sked__jobj_str(&o, "by", a->actor);
    sked__jobj_str(&o, "reason", a->reason);
    return sked__ev_add(&a->ev,
                        a->skip ? "schedule.occurrence_skipped"
                                : "schedule.occurrence_unskipped",
                        a->name, sked__jobj_take(&o), now, err);
}

static int skip_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct skip_arg *a = arg;
    const char *names[1] = {a->name};
    sked_schedule *locked = NULL;
    sked_time now = sked__store_now(st);
    size_t n = 0;
    int rc;

    sked__ev_reset(&a->ev);
    a->changed = false;
    rc = st->ops->schedule_lock(tx, names, 1, &locked, &n, err);
    if (rc != 0)
        return rc;
    if (n == 0) {
        sked__schedules_free(locked, n);
        return sked__error_set(err, SKED_ENOTFOUND, "name", -1,
                               "no schedule \"%.100s\"", a->name);
    }
    if (a->occ <= cursor_of(&locked[0])) {
        char t[SKED_TIME_STRLEN] = "?";
        (void) sked_time_format(a->occ, t, sizeof t);
        sked__schedules_free(locked, n);
        return sked__error_set(err, SKED_ECONFLICT, "at", -1,
                               "%s is already decided: the schedule's "
                               "cursor is at or after it",
                               t);
    }
    sked__schedules_free(locked, n);
    if (a->skip) {
        sked_skip k = {.schedule = (char *) a->name,
                       .occurrence = a->occ,
                       .actor = (char *) a->actor,
                       .reason = (char *) a->reason,
                       .created_at = now};
        rc = st->ops->skip_write(tx, &k, &a->changed, err);
    } else {
        rc = st->ops->skip_delete(tx, a->name, a->occ, &a->changed, err);
    }
    if (rc == 0 && a->changed)
        rc = skip_event(a, now, err);
    if (rc == 0)
        rc = sked__ev_flush(st, tx, &a->ev, err);
    return rc;
}

int sked__store_skip_set(sked_store *st, const char *name, sked_time occ,
                         bool skip, const char *actor, const char *reason,
                         bool *changed, sked_event **out_events,
                         size_t *out_nevents, sked_error *err)
{
    struct skip_arg a = {.name = name,
                         .occ = occ,
                         .skip = skip,
                         .actor = actor ? actor : "api",
                         .reason = reason};
    int rc;

    if (!name)
        return sked__error_set(err, SKED_EINVAL, "name", -1, "no name");
    rc = sked__store_run_tx(st, SKED__TX_WRITE, skip_tx, &a, err);
    if (rc == 0) {
        if (changed)
            *changed = a.changed;
        sked__ev_give(&a.ev, out_events, out_nevents);
    } else {
        sked__ev_reset(&a.ev);
    }
    return rc;
}

struct skips_arg {
    const char *name;
    sked_skip *list;
    size_t n;
    sked_time cursor;
};

static int cmp_skip(const void *x, const void *y)
{
    const sked_skip *a = x, *b = y;
    int c = strcmp(a->schedule, b->schedule);

    if (c != 0)
        return c;
    return a->occurrence < b->occurrence ? -1 : a->occurrence > b->occurrence;
}

static int skips_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct skips_arg *a = arg;
    const char *names[1] = {a->name};
    sked_schedule s;
    int rc;

    sked_skips_free(a->list, a->n);
    a->list = NULL;
    a->n = 0;
    rc = st->ops->schedule_get(tx, a->name, &s, err);
    if (rc == SKED_ENOTFOUND)
        return sked__error_set(err, SKED_ENOTFOUND, "name", -1,
                               "no schedule \"%.100s\"", a->name);
    if (rc != 0)
        return rc;
    a->cursor = cursor_of(&s);
    sked_schedule_done(&s);
    rc = st->ops->skips_read(tx, names, 1, &a->list, &a->n, err);
    if (rc == 0 && a->n > 1)
        qsort(a->list, a->n, sizeof *a->list, cmp_skip);
    return rc;
}

int sked__store_skips(sked_store *st, const char *name, sked_skip **out,
                      size_t *n, sked_time *cursor, sked_error *err)
{
    struct skips_arg a = {.name = name};
    int rc = sked__store_run_tx(st, SKED__TX_READ, skips_tx, &a, err);

    if (rc != 0) {
        sked_skips_free(a.list, a.n);
        return rc;
    }
    *out = a.list;
    *n = a.n;
    if (cursor)
        *cursor = a.cursor;
    return 0;
}

void sked__skips_sort(sked_skip *list, size_t n)
{
    if (n > 1)
        qsort(list, n, sizeof *list, cmp_skip);
}
