/* SPDX-License-Identifier: MIT */
/* Calendars (sked/calendar.h): the struct's life, its checks, and the
 * names of its enums.
 *
 * The checks that need no other calendar run here, by building the
 * calendar's day set without its includes (cron/daycal.h): a date, rule
 * or iCalendar file the set cannot be built from is refused with the
 * reader's field and position, so what validates here also builds when
 * the scheduler loads it. The includes are resolved by the writer, which
 * sees the other calendars (sked__calendar_build). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "cron/daycal.h"
#include "model/calendar.h"
#include "model/schedule.h"
#include "time/civil.h"

_Static_assert((int) SKED_OBSERVED_NONE == (int) SKED__OBSERVED_NONE &&
                   (int) SKED_OBSERVED_NEAREST_WEEKDAY ==
                       (int) SKED__OBSERVED_NEAREST_WEEKDAY &&
                   (int) SKED_OBSERVED_NEXT_MONDAY ==
                       (int) SKED__OBSERVED_NEXT_MONDAY,
               "the public observed rules are the day sets'");
_Static_assert(SKED_WEEKDAYS_MON_FRI == SKED__DAYCAL_MON_FRI,
               "one default week");

void sked_calendar_init(sked_calendar *c)
{
    if (c)
        *c = (sked_calendar){.observed = SKED_OBSERVED_NONE,
                             .weekdays = SKED_WEEKDAYS_MON_FRI,
                             .source = SKED_SOURCE_API,
                             .created_at = SKED_TIME_NONE,
                             .updated_at = SKED_TIME_NONE};
}

void sked__strlist_done(sked_strlist *l)
{
    for (size_t i = 0; l && l->v && i < l->n; i++)
        free(l->v[i]);
    if (l) {
        free(l->v);
        *l = (sked_strlist){NULL, 0};
    }
}

int sked__strlist_add(sked_strlist *l, const char *s)
{
    char **v, *d;

    if (!(d = sked__strdup(s)))
        return SKED_ENOMEM;
    if (!(v = sked__realloc(l->v, (l->n + 1) * sizeof *v))) {
        free(d);
        return SKED_ENOMEM;
    }
    v[l->n++] = d;
    l->v = v;
    return 0;
}

static int strlist_copy(const sked_strlist *src, sked_strlist *out)
{
    *out = (sked_strlist){NULL, 0};
    for (size_t i = 0; i < src->n; i++)
        if (sked__strlist_add(out, src->v[i]) != 0) {
            sked__strlist_done(out);
            return SKED_ENOMEM;
        }
    return 0;
}

void sked_calendar_done(sked_calendar *c)
{
    if (!c)
        return;
    free(c->name);
    free(c->description);
    sked__strlist_done(&c->dates);
    sked__strlist_done(&c->rules);
    sked__strlist_done(&c->include);
    free(c->ics);
    free(c->app);
    sked_calendar_init(c);
}

static bool dup_opt(const char *src, char **dst)
{
    *dst = src ? sked__strdup(src) : NULL;
    return !src || *dst;
}

int sked_calendar_copy(const sked_calendar *src, sked_calendar *out)
{
    sked_calendar c;

    if (!src || !out)
        return SKED_EINVAL;
    sked_calendar_init(&c);
    c.observed = src->observed;
    c.weekdays = src->weekdays;
    c.source = src->source;
    c.created_at = src->created_at;
    c.updated_at = src->updated_at;
    if (!dup_opt(src->name, &c.name) ||
        !dup_opt(src->description, &c.description) ||
        !dup_opt(src->ics, &c.ics) || !dup_opt(src->app, &c.app) ||
        strlist_copy(&src->dates, &c.dates) != 0 ||
        strlist_copy(&src->rules, &c.rules) != 0 ||
        strlist_copy(&src->include, &c.include) != 0) {
        sked_calendar_done(&c);
        return SKED_ENOMEM;
    }
    *out = c;
    return 0;
}

/* ---- names ------------------------------------------------------------- */

const char *sked_observed_name(sked_observed o)
{
    return sked__observed_name((sked__observed) o);
}

int sked_observed_parse(const char *s, const char *field, sked_observed *out,
                        sked_error *err)
{
    sked__observed o;
    int rc = sked__observed_parse(s, field, &o, err);

    if (rc == 0 && out)
        *out = (sked_observed) o;
    return rc;
}

static const char *const day_names[7] = {"sunday",    "monday",   "tuesday",
                                         "wednesday", "thursday", "friday",
                                         "saturday"};

const char *sked__weekday_short(int wd)
{
    static const char *const shorts[7] = {"sun", "mon", "tue", "wed",
                                          "thu", "fri", "sat"};
    return wd >= 0 && wd < 7 ? shorts[wd] : "?";
}

/* The weekday named by the LEN bytes at S: a full name or its first
 * three letters, any case; -1 when none. */
static int weekday_of(const char *s, size_t len)
{
    for (int wd = 0; wd < 7; wd++) {
        size_t full = strlen(day_names[wd]);
        if (len != 3 && len != full)
            continue;
        size_t i = 0;
        while (i < len && tolower((unsigned char) s[i]) == day_names[wd][i])
            i++;
        if (i == len)
            return wd;
    }
    return -1;
}

static int weekdays_word(const char *s, size_t at, size_t len,
                         const char *field, unsigned *set, sked_error *err)
{
    const char *dash = memchr(s + at, '-', len);
    size_t l1 = dash ? (size_t) (dash - (s + at)) : len;
    int a = weekday_of(s + at, l1), b = a;

    if (dash)
        b = weekday_of(dash + 1, len - l1 - 1);
    if (a < 0 || b < 0)
        return sked__error_set(
            err, SKED_EINVAL, field, (int) (a < 0 ? at : at + l1 + 1),
            "'%.*s' is not a weekday (sun, mon, tue, wed, thu, fri, sat, or "
            "a range such as mon-fri)",
            (int) len, s + at);
    for (int wd = a;; wd = (wd + 1) % 7) {
        *set |= 1u << wd;
        if (wd == b)
            break;
    }
    return 0;
}

int sked_weekdays_parse(const char *s, const char *field, unsigned *out,
                        sked_error *err)
{
    unsigned set = 0;
    size_t at = 0, len;
    int rc;

    if (!s || !s[0])
        return sked__error_set(err, SKED_EINVAL, field, 0,
                               "at least one weekday");
    for (;;) {
        len = strcspn(s + at, ",");
        if ((rc = weekdays_word(s, at, len, field, &set, err)) != 0)
            return rc;
        if (!s[at + len])
            break;
        at += len + 1;
    }
    if (out)
        *out = set;
    return 0;
}

/* ---- checks ------------------------------------------------------------ */

int sked__calendar_spec_of(const sked_calendar *c, sked__daycal_spec *spec)
{
    *spec = (sked__daycal_spec){
        .name = c->name,
        .dates = (const char *const *) c->dates.v,
        .ndates = c->dates.n,
        .rules = (const char *const *) c->rules.v,
        .nrules = c->rules.n,
        .include = (const char *const *) c->include.v,
        .ninclude = c->include.n,
        .ics = c->ics,
        .ics_len = c->ics ? strlen(c->ics) : 0,
        .observed = (sked__observed) c->observed,
        .weekdays = c->weekdays ? c->weekdays : SKED_WEEKDAYS_MON_FRI};
    return 0;
}

static int check_list(const sked_strlist *l, const char *field, sked_error *err)
{
    if (l->n > SKED_CALENDAR_LIST_MAX)
        return sked__error_set(err, SKED_EINVAL, field, -1,
                               "at most %d entries, not %zu",
                               SKED_CALENDAR_LIST_MAX, l->n);
    for (size_t i = 0; i < l->n; i++)
        if (!l->v[i])
            return sked__error_set(err, SKED_EINVAL, field, -1,
                                   "entry %zu is null", i);
    return 0;
}

int sked_calendar_validate(const sked_calendar *c, sked_error *err)
{
    sked__daycal_spec spec;
    sked__daycal *d = NULL;
    char field[32];
    int rc;

    if (!c)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, "no calendar");
    if ((rc = sked__schedule_name_check(c->name, "name", err)) != 0 ||
        (rc = check_list(&c->dates, "dates", err)) != 0 ||
        (rc = check_list(&c->rules, "rules", err)) != 0 ||
        (rc = check_list(&c->include, "include", err)) != 0)
        return rc;
    for (size_t i = 0; i < c->include.n; i++) {
        (void) snprintf(field, sizeof field, "include[%zu]", i);
        if ((rc = sked__schedule_name_check(c->include.v[i], field, err)))
            return rc;
    }
    if (c->ics && strlen(c->ics) > SKED_CALENDAR_ICS_MAX)
        return sked__error_set(err, SKED_EINVAL, "ics", -1,
                               "%zu bytes: at most %d", strlen(c->ics),
                               SKED_CALENDAR_ICS_MAX);
    if (c->description && strlen(c->description) > SKED_DESCRIPTION_MAX)
        return sked__error_set(err, SKED_EINVAL, "description", -1,
                               "at most %d bytes", SKED_DESCRIPTION_MAX);
    if ((int) c->observed < 0 || (int) c->observed > 2)
        return sked__error_set(err, SKED_EINVAL, "observed", -1,
                               "none, nearest_weekday or next_monday");
    if (c->weekdays > 0x7f)
        return sked__error_set(err, SKED_EINVAL, "weekdays", -1,
                               "a set of the seven weekdays");
    sked__calendar_spec_of(c, &spec);
    spec.ninclude = 0; /* resolved by the writer */
    rc = sked__daycal_build(&spec, NULL, NULL, &d, err);
    sked__daycal_free(d);
    /* The reader counts an iCalendar file's position in lines, which its
     * message says ("line 12: ..."); a position is a byte everywhere else. */
    if (rc != 0 && err && strcmp(err->field, "ics") == 0)
        err->pos = -1;
    return rc;
}

void sked__calendars_free(sked_calendar *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        sked_calendar_done(&v[i]);
    free(v);
}

/* ---- building a day set ------------------------------------------------ */

typedef struct lookup_ctx {
    const sked__daycal_spec *self; /* the calendar being built */
    const sked_calendar *all;      /* n */
    size_t n;
    sked__daycal_spec *specs; /* n, filled as they are asked for */
    bool *made;
} lookup_ctx;

static int lookup(void *arg, const char *name, const sked__daycal_spec **out)
{
    lookup_ctx *x = arg;

    if (strcmp(x->self->name, name) == 0) {
        *out = x->self; /* its new definition, not the stored one */
        return 0;
    }
    for (size_t i = 0; i < x->n; i++)
        if (strcmp(x->all[i].name, name) == 0) {
            if (!x->made[i]) {
                sked__calendar_spec_of(&x->all[i], &x->specs[i]);
                x->made[i] = true;
            }
            *out = &x->specs[i];
            return 0;
        }
    return SKED_ENOTFOUND;
}

int sked__calendar_build(const sked_calendar *c, const sked_calendar *all,
                         size_t n, sked__daycal **out, sked_error *err)
{
    sked__daycal_spec spec;
    lookup_ctx x = {&spec, all, n, NULL, NULL};
    int rc;

    *out = NULL;
    if (n > 0 && (!(x.specs = sked__calloc(n, sizeof *x.specs)) ||
                  !(x.made = sked__calloc(n, sizeof *x.made)))) {
        free(x.specs);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    sked__calendar_spec_of(c, &spec);
    rc = sked__daycal_build(&spec, lookup, &x, out, err);
    free(x.specs);
    free(x.made);
    return rc;
}

/* ---- dates ----------------------------------------------------------- */

int sked_date_parse(const char *s, const char *field, int64_t *out,
                    sked_error *err)
{
    if (!s)
        return sked__error_set(err, SKED_EINVAL, field, -1, "is required");
    return sked__daycal_parse_date(s, field, out, err);
}

size_t sked_date_format(int64_t day, char *buf, size_t size)
{
    int64_t y;
    int m, d, n;

    sked__civil_from_days(day, &y, &m, &d);
    n = snprintf(buf, size, "%04lld-%02d-%02d", (long long) y, m, d);
    return n > 0 && (size_t) n < size ? (size_t) n : 0;
}
