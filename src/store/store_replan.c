/* SPDX-License-Identifier: MIT */
/* Schedules planned again when their calendars change (store_int.h). A
 * calendar written or deleted changes the days of every calendar that
 * includes it, and so the next slot of every schedule whose exclude or
 * only names one of them: a holiday added tomorrow may move tomorrow's
 * occurrence to today. In the transaction of the change, each such
 * schedule is locked and its next_fire_at set again from its cursor,
 * its updated_at moved, so that every server's scheduler rereads it and
 * waits for the right instant. The cursor is compared and kept: this
 * decides nothing. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "model/calbook.h"
#include "model/calendar.h"
#include "store/store_int.h"

/* A growing list of distinct names (owned). */
typedef struct names {
    char **v;
    size_t n, cap;
} names;

static bool has(const names *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0)
            return true;
    return false;
}

static int add(names *l, const char *s, sked_error *err)
{
    if (has(l, s))
        return 0;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        char **v = sked__realloc(l->v, cap * sizeof *v);
        if (!v)
            return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
        l->v = v;
        l->cap = cap;
    }
    if (!(l->v[l->n] = sked__strdup(s)))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    l->n++;
    return 0;
}

static void names_done(names *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

/* Add to CALS every calendar of ALL (N) that includes one of CALS,
 * until none is left to add. */
static int includers(names *cals, const sked_calendar *all, size_t n,
                     sked_error *err)
{
    size_t before;
    int rc = 0;

    do {
        before = cals->n;
        for (size_t i = 0; rc == 0 && i < n; i++)
            for (size_t k = 0; rc == 0 && k < all[i].include.n; k++)
                if (has(cals, all[i].include.v[k]))
                    rc = add(cals, all[i].name, err);
    } while (rc == 0 && cals->n > before);
    return rc;
}

/* Add the schedules naming one of CALS to USERS. */
static int users_of(sked_store *st, sked__tx *tx, const names *cals,
                    names *users, sked_error *err)
{
    int rc = 0;

    for (size_t i = 0; rc == 0 && i < cals->n; i++) {
        char *list = NULL, *save = NULL;
        rc = st->ops->calendar_users(tx, cals->v[i], &list, err);
        for (char *s = list ? strtok_r(list, "\n", &save) : NULL; rc == 0 && s;
             s = strtok_r(NULL, "\n", &save))
            rc = add(users, s, err);
        free(list);
    }
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *) a, *(char *const *) b);
}

/* S's next slot after its cursor into *a (a compare-and-set of it). */
static int replan_one(sked_store *st, sked__tx *tx, const sked_schedule *s,
                      sked__calbook **book, sked__advance *a, sked_error *err)
{
    const sked_tz *tz = NULL;
    sked__occ_days days;
    sked_time after = s->last_fired_at, next = SKED_TIME_NONE;
    int rc;

    *a = (sked__advance){s->name,
                         s->last_fired_at,
                         s->last_fired_at,
                         s->next_fire_at,
                         s->status,
                         0,
                         NULL,
                         sked__store_now(st)};
    if (s->status != SKED_SCHEDULE_ACTIVE)
        return 0;
    if (s->timezone && strcmp(s->timezone, "UTC") != 0 &&
        sked_tzdb_get(st->tzdb, s->timezone, &tz, NULL) != 0)
        return 0; /* the scheduler disables it at its next decision */
    /* A calendar gone leaves the decision to disable it, too. */
    if ((rc = sked__store_days_with(st, tx, s, book, &days, err)) != 0)
        return rc == SKED_ENOTFOUND ? 0 : rc;
    if (after == SKED_TIME_NONE)
        after = s->created_at;
    rc = sked__schedule_next_fire(s, tz, &days, after, &next);
    if (rc == 0)
        a->next = next;
    return rc == SKED_ENOTFOUND ? 0 : rc;
}

int sked__store_replan_calendars(sked_store *st, sked__tx *tx,
                                 const char *const *changed, size_t n,
                                 sked_error *err)
{
    names cals = {0}, users = {0};
    sked_calendar *all = NULL;
    sked_schedule *rows = NULL;
    sked__calbook *book = NULL;
    sked__advance *moves = NULL;
    bool *applied = NULL;
    size_t nall = 0, nrows = 0;
    int rc = 0;

    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = add(&cals, changed[i], err);
    if (rc == 0)
        rc = sked__store_calendars_read(st, tx, NULL, &all, &nall, err);
    if (rc == 0)
        rc = includers(&cals, all, nall, err);
    if (rc == 0)
        rc = users_of(st, tx, &cals, &users, err);
    if (rc == 0 && users.n > 0) {
        qsort(users.v, users.n, sizeof *users.v, cmp_str);
        rc = st->ops->schedule_lock(tx, (const char *const *) users.v, users.n,
                                    &rows, &nrows, err);
    }
    if (rc == 0 && nrows > 0 &&
        (!(moves = sked__calloc(nrows, sizeof *moves)) ||
         !(applied = sked__calloc(nrows, sizeof *applied))))
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    for (size_t i = 0; rc == 0 && i < nrows; i++)
        rc = replan_one(st, tx, &rows[i], &book, &moves[i], err);
    if (rc == 0 && nrows > 0)
        rc = st->ops->schedule_advance(tx, moves, nrows, applied, err);
    sked__calbook_release(book);
    free(moves);
    free(applied);
    sked__schedules_free(rows, nrows);
    sked__calendars_free(all, nall);
    names_done(&cals);
    names_done(&users);
    return rc;
}
