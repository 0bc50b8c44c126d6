/* SPDX-License-Identifier: MIT */
/* Calendar books (calbook.h). A union is built as a calendar of its own
 * that includes the listed ones, so the includes' rules (each keeps its
 * observed rule) are those of sked__calendar_build; its business
 * weekdays are those every listed calendar counts as business days. */
#include "model/calbook.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "model/calendar.h"
#include "model/schedule.h"

/* One union kept: its list ("a,b") and its day set. */
typedef struct made {
    char *list;      /* owned */
    sked__daycal *d; /* owned */
} made;

struct sked__calbook {
    sked_calendar *all; /* owned: n, by name */
    size_t n;
    int refs; /* under lock */
    pthread_mutex_t lock;
    made *unions; /* under lock: nunions, owned */
    size_t nunions, cap;
};

int sked__calbook_new(sked_calendar *all, size_t n, sked__calbook **out,
                      sked_error *err)
{
    sked__calbook *b = sked__calloc(1, sizeof *b);

    if (!b) {
        sked__calendars_free(all, n);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    b->all = all;
    b->n = n;
    b->refs = 1;
    pthread_mutex_init(&b->lock, NULL);
    *out = b;
    return 0;
}

void sked__calbook_hold(sked__calbook *b)
{
    if (!b)
        return;
    pthread_mutex_lock(&b->lock);
    b->refs++;
    pthread_mutex_unlock(&b->lock);
}

void sked__calbook_release(sked__calbook *b)
{
    int left;

    if (!b)
        return;
    pthread_mutex_lock(&b->lock);
    left = --b->refs;
    pthread_mutex_unlock(&b->lock);
    if (left > 0)
        return;
    for (size_t i = 0; i < b->nunions; i++) {
        free(b->unions[i].list);
        sked__daycal_free(b->unions[i].d);
    }
    free(b->unions);
    sked__calendars_free(b->all, b->n);
    pthread_mutex_destroy(&b->lock);
    free(b);
}

static const sked_calendar *find(const sked__calbook *b, const char *name)
{
    for (size_t i = 0; i < b->n; i++)
        if (strcmp(b->all[i].name, name) == 0)
            return &b->all[i];
    return NULL;
}

/* Build the union of LIST (the field FIELD) into *out. */
static int build_union(const sked__calbook *b, const char *list,
                       const char *field, sked__daycal **out, sked_error *err)
{
    char name[SKED_NAME_MAX + 1];
    sked_calendar u;
    unsigned weekdays = 0x7fu;
    int rc = 0;

    sked_calendar_init(&u);
    for (size_t i = 0;
         rc == 0 && sked__schedule_cal_at(list, i, name, sizeof name) > 0;
         i++) {
        const sked_calendar *c = find(b, name);
        if (!c) {
            char at[SKED_ERROR_FIELD_MAX];
            (void) snprintf(at, sizeof at, "%s[%zu]", field, i);
            rc = sked__error_set(err, SKED_ENOTFOUND, at, -1,
                                 "no calendar named \"%s\"", name);
            break;
        }
        weekdays &= c->weekdays ? c->weekdays : SKED_WEEKDAYS_MON_FRI;
        rc = sked__strlist_add(&u.include, name);
        if (rc != 0)
            rc = sked__error_set(err, rc, field, -1, NULL);
    }
    /* A name no calendar can have: the union is never one of them. */
    if (rc == 0 && !(u.name = sked__strdup("(union)")))
        rc = sked__error_set(err, SKED_ENOMEM, field, -1, NULL);
    u.weekdays = weekdays ? weekdays : SKED_WEEKDAYS_MON_FRI;
    if (rc == 0)
        rc = sked__calendar_build(&u, b->all, b->n, out, err);
    sked_calendar_done(&u);
    return rc;
}

/* The union of LIST, made or found; NULL for an empty list. Under the
 * lock. */
static int union_of(sked__calbook *b, const char *list, const char *field,
                    const sked__daycal **out, sked_error *err)
{
    sked__daycal *d = NULL;
    char *key;
    int rc;

    *out = NULL;
    if (!list || !*list)
        return 0;
    for (size_t i = 0; i < b->nunions; i++)
        if (strcmp(b->unions[i].list, list) == 0) {
            *out = b->unions[i].d;
            return 0;
        }
    if ((rc = build_union(b, list, field, &d, err)) != 0)
        return rc;
    if (b->nunions == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 8;
        made *v = sked__realloc(b->unions, cap * sizeof *v);
        if (!v) {
            sked__daycal_free(d);
            return sked__error_set(err, SKED_ENOMEM, field, -1, NULL);
        }
        b->unions = v;
        b->cap = cap;
    }
    if (!(key = sked__strdup(list))) {
        sked__daycal_free(d);
        return sked__error_set(err, SKED_ENOMEM, field, -1, NULL);
    }
    b->unions[b->nunions++] = (made){key, d};
    *out = d;
    return 0;
}

int sked__calbook_days(sked__calbook *b, const sked_schedule *s,
                       sked__occ_days *out, sked_error *err)
{
    int rc;

    *out = (sked__occ_days){NULL, NULL, s->on_excluded};
    pthread_mutex_lock(&b->lock);
    rc = union_of(b, s->exclude, "exclude", &out->exclude, err);
    if (rc == 0)
        rc = union_of(b, s->only, "only", &out->only, err);
    pthread_mutex_unlock(&b->lock);
    return rc;
}
