/* SPDX-License-Identifier: MIT */
/* Day calendars built from their specs, and the queries on them.
 *
 * A build walks the spec and its includes depth first, each spec adding
 * its own dates, rule days (daycal_rule.c) and .ics days (ics.c) to one
 * bitset, each day together with the day its own observed rule adds. The
 * walk keeps the chain of specs it is in, which finds cycles and bounds
 * the depth. Once the set is known, a second bitset holds the business
 * days (a business weekday not in the set), so that "the next business
 * day" is a scan for the next set bit, one word per 64 days. */
#include "cron/daycal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "cron/daycal_rule.h"
#include "cron/ics.h"
#include "time/civil.h"

struct sked__daycal {
    unsigned weekdays;
    uint64_t set[SKED__DAYCAL_NWORDS];
    uint64_t business[SKED__DAYCAL_NWORDS];
};

static const char *const observed_names[] = {"none", "nearest_weekday",
                                             "next_monday"};

int sked__observed_parse(const char *s, const char *field, sked__observed *out,
                         sked_error *err)
{
    for (int i = 0; s && i < 3; i++) {
        if (strcmp(s, observed_names[i]) == 0) {
            *out = (sked__observed) i;
            return 0;
        }
    }
    return sked__error_set(err, SKED_EINVAL, field, -1,
                           "observed must be none, nearest_weekday or "
                           "next_monday");
}

const char *sked__observed_name(sked__observed o)
{
    unsigned i = (unsigned) o;

    return i < 3 ? observed_names[i] : observed_names[0];
}

static bool in_range(int64_t day)
{
    return day >= 0 && day <= SKED__DAYCAL_LAST_DAY;
}

static void set_bit(uint64_t *w, int64_t day)
{
    if (in_range(day))
        w[day >> 6] |= UINT64_C(1) << (day & 63);
}

static bool get_bit(const uint64_t *w, int64_t day)
{
    return in_range(day) && (w[day >> 6] >> (day & 63) & 1);
}

/* Where days of one spec go: the set, and that spec's observed rule. */
struct adder {
    uint64_t *set;
    sked__observed observed;
};

/* Add DAY and, beside it, the day it is observed on. */
static void add_day(void *ctx, int64_t day)
{
    struct adder *a = ctx;
    int wd = sked__weekday_from_days(day);

    set_bit(a->set, day);
    if (a->observed == SKED__OBSERVED_NEAREST_WEEKDAY && wd == 6)
        set_bit(a->set, day - 1);
    else if (a->observed != SKED__OBSERVED_NONE && wd == 6)
        set_bit(a->set, day + 2);
    else if (a->observed != SKED__OBSERVED_NONE && wd == 0)
        set_bit(a->set, day + 1);
}

/* Read the date S ("YYYY-MM-DD", in the range) into *out. */
int sked__daycal_parse_date(const char *s, const char *field, int64_t *out,
                            sked_error *err)
{
    static const char shape[] = "dddd-dd-dd";
    int y, m, d;
    size_t i;

    for (i = 0; shape[i]; i++) {
        bool digit = s[i] >= '0' && s[i] <= '9';

        if (shape[i] == 'd' ? !digit : s[i] != '-')
            return sked__error_set(err, SKED_EINVAL, field, (long) i,
                                   "a date is YYYY-MM-DD");
    }
    if (s[i] != '\0')
        return sked__error_set(err, SKED_EINVAL, field, (long) i,
                               "a date is YYYY-MM-DD, with nothing after");
    y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 +
        (s[3] - '0');
    m = (s[5] - '0') * 10 + (s[6] - '0');
    d = (s[8] - '0') * 10 + (s[9] - '0');
    if (m < 1 || m > 12)
        return sked__error_set(err, SKED_EINVAL, field, 5, "no month %02d", m);
    if (d < 1 || d > sked__days_in_month(y, m))
        return sked__error_set(err, SKED_EINVAL, field, 8,
                               "%04d-%02d has no day %02d", y, m, d);
    *out = sked__days_from_civil(y, m, d);
    if (!in_range(*out))
        return sked__error_set(err, SKED_ERANGE, field, 0,
                               "a date must be in 1970-01-01 to 2200-12-31");
    return 0;
}

/* The walk through a spec and its includes. */
struct build {
    sked__daycal_lookup lookup;
    void *ctx;
    uint64_t *set;
    const sked__daycal_spec *chain[SKED__DAYCAL_MAX_DEPTH + 1];
    int depth;
    bool wrapped; /* an error met below: its message says where */
};

static int add_dates(const sked__daycal_spec *spec, struct adder *a,
                     sked_error *err)
{
    char field[32];
    int64_t day = 0; /* set by sked__daycal_parse_date; -O3 cannot tell */
    int rc;

    for (size_t i = 0; i < spec->ndates; i++) {
        snprintf(field, sizeof field, "dates[%zu]", i);
        if (!spec->dates[i])
            return sked__error_set(err, SKED_EINVAL, field, -1, "no date");
        rc = sked__daycal_parse_date(spec->dates[i], field, &day, err);
        if (rc != 0)
            return rc;
        add_day(a, day);
    }
    return 0;
}

static int add_rules(const sked__daycal_spec *spec, struct adder *a,
                     sked_error *err)
{
    char field[32];
    size_t count;
    int rc;

    for (size_t i = 0; i < spec->nrules; i++) {
        snprintf(field, sizeof field, "rules[%zu]", i);
        if (!spec->rules[i])
            return sked__error_set(err, SKED_EINVAL, field, -1, "no rule");
        rc = sked__daycal_rule_expand(spec->rules[i], strlen(spec->rules[i]),
                                      NULL, field, add_day, a, &count, err);
        if (rc != 0)
            return rc;
        if (count == 0)
            return sked__error_set(err, SKED_EINVAL, field, -1,
                                   "the rule has no day in 1970-01-01 to "
                                   "2200-12-31");
    }
    return 0;
}

static bool same_spec(const sked__daycal_spec *a, const sked__daycal_spec *b)
{
    return a == b || (a->name && b->name && strcmp(a->name, b->name) == 0);
}

static const char *spec_name(const sked__daycal_spec *s)
{
    return s->name ? s->name : "(unnamed)";
}

/* Refuse NEXT when it is already in the chain: name the cycle. */
static int check_cycle(const struct build *b, const sked__daycal_spec *next,
                       const char *field, sked_error *err)
{
    char path[SKED_ERROR_MSG_MAX];
    size_t n = 0;
    int from = -1;

    for (int i = 0; i < b->depth && from < 0; i++)
        if (same_spec(b->chain[i], next))
            from = i;
    if (from < 0)
        return 0;
    path[0] = '\0';
    for (int i = from; i < b->depth && n < sizeof path; i++)
        n += (size_t) snprintf(path + n, sizeof path - n, "%s -> ",
                               spec_name(b->chain[i]));
    return sked__error_set(err, SKED_ECONFLICT, field, -1,
                           "include cycle: %s%s", n < sizeof path ? path : "",
                           spec_name(next));
}

/* Say which include an error inside an included calendar came through:
 * the innermost include names the calendar at fault and its field in the
 * message; every include on the way out sets err->field to its own, so
 * the caller sees which of its includes leads there. */
static int wrap_include(struct build *b, int rc, const char *field,
                        const char *name, sked_error *err)
{
    sked_error inner;

    if (!err)
        return rc;
    if (b->wrapped) {
        snprintf(err->field, sizeof err->field, "%s", field);
        return rc;
    }
    b->wrapped = true;
    inner = *err;
    sked__error_set(err, rc, field, inner.pos, "'%s': %s%s%s", name,
                    inner.field, inner.field[0] ? ": " : "", inner.msg);
    return rc;
}

static int add_spec(struct build *b, const sked__daycal_spec *spec,
                    sked_error *err);

static int add_includes(struct build *b, const sked__daycal_spec *spec,
                        sked_error *err)
{
    const sked__daycal_spec *next;
    char field[32];
    int rc;

    for (size_t i = 0; i < spec->ninclude; i++) {
        const char *name = spec->include[i];

        snprintf(field, sizeof field, "include[%zu]", i);
        if (!name || !b->lookup || b->lookup(b->ctx, name, &next) != 0 || !next)
            return sked__error_set(err, SKED_ENOTFOUND, field, -1,
                                   "unknown calendar '%s'", name ? name : "");
        rc = check_cycle(b, next, field, err);
        if (rc != 0)
            return rc;
        if (b->depth > SKED__DAYCAL_MAX_DEPTH)
            return sked__error_set(err, SKED_EINVAL, field, -1,
                                   "includes nest deeper than %d",
                                   SKED__DAYCAL_MAX_DEPTH);
        rc = add_spec(b, next, err);
        if (rc != 0)
            return wrap_include(b, rc, field, name, err);
    }
    return 0;
}

/* Add SPEC's own days, then its includes' sets. */
static int add_spec(struct build *b, const sked__daycal_spec *spec,
                    sked_error *err)
{
    struct adder a = {.set = b->set, .observed = spec->observed};
    int rc;

    if ((unsigned) spec->observed > SKED__OBSERVED_NEXT_MONDAY)
        return sked__error_set(err, SKED_EINVAL, "observed", -1,
                               "unknown observed rule");
    b->chain[b->depth++] = spec;
    rc = add_dates(spec, &a, err);
    if (rc == 0)
        rc = add_rules(spec, &a, err);
    if (rc == 0 && spec->ics)
        rc = sked__ics_read(spec->ics, spec->ics_len, add_day, &a, err);
    if (rc == 0)
        rc = add_includes(b, spec, err);
    b->depth--;
    return rc;
}

/* Fill C's business days: its weekdays minus its set. */
static void fill_business(sked__daycal *c)
{
    for (int64_t d = 0; d <= SKED__DAYCAL_LAST_DAY; d++)
        if ((c->weekdays >> sked__weekday_from_days(d) & 1) &&
            !get_bit(c->set, d))
            set_bit(c->business, d);
}

int sked__daycal_build(const sked__daycal_spec *spec,
                       sked__daycal_lookup lookup, void *ctx,
                       sked__daycal **out, sked_error *err)
{
    struct build b = {.lookup = lookup, .ctx = ctx};
    sked__daycal *c;
    int rc;

    if (!spec || !out)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, "no calendar");
    if (spec->weekdays > 0x7f)
        return sked__error_set(err, SKED_EINVAL, "weekdays", -1,
                               "weekdays is a mask of bits 0 (Sunday) to 6 "
                               "(Saturday)");
    c = sked__calloc(1, sizeof *c);
    if (!c)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    c->weekdays = spec->weekdays ? spec->weekdays : SKED__DAYCAL_MON_FRI;
    b.set = c->set;
    rc = add_spec(&b, spec, err);
    if (rc != 0) {
        free(c);
        return rc;
    }
    fill_business(c);
    *out = c;
    return 0;
}

void sked__daycal_free(sked__daycal *c)
{
    free(c);
}

bool sked__daycal_has(const sked__daycal *c, int64_t day)
{
    return get_bit(c->set, day);
}

bool sked__daycal_business(const sked__daycal *c, int64_t day)
{
    return get_bit(c->business, day);
}

int sked__daycal_next_business(const sked__daycal *c, int64_t day, int64_t *out)
{
    int64_t from = day < 0 ? 0 : day + 1;
    size_t w;
    uint64_t bits;

    if (from > SKED__DAYCAL_LAST_DAY)
        return SKED_ENOTFOUND;
    w = (size_t) (from >> 6);
    bits = c->business[w] & (~UINT64_C(0) << (from & 63));
    while (!bits) {
        if (++w >= SKED__DAYCAL_NWORDS)
            return SKED_ENOTFOUND;
        bits = c->business[w];
    }
    *out = (int64_t) w * 64 + __builtin_ctzll(bits);
    return 0;
}

int sked__daycal_prev_business(const sked__daycal *c, int64_t day, int64_t *out)
{
    int64_t from =
        day > SKED__DAYCAL_LAST_DAY ? SKED__DAYCAL_LAST_DAY : day - 1;
    size_t w;
    uint64_t bits;

    if (from < 0)
        return SKED_ENOTFOUND;
    w = (size_t) (from >> 6);
    bits = c->business[w] & (~UINT64_C(0) >> (63 - (from & 63)));
    while (!bits) {
        if (w-- == 0)
            return SKED_ENOTFOUND;
        bits = c->business[w];
    }
    *out = (int64_t) w * 64 + 63 - __builtin_clzll(bits);
    return 0;
}

int sked__daycal_last_business_of_month(const sked__daycal *c, int64_t day,
                                        int64_t *out)
{
    int64_t y, first, found;
    int m, d;

    if (!in_range(day))
        return SKED_ENOTFOUND;
    sked__civil_from_days(day, &y, &m, &d);
    first = sked__days_from_civil(y, m, 1);
    if (sked__daycal_prev_business(c, first + sked__days_in_month(y, m),
                                   &found) != 0 ||
        found < first)
        return SKED_ENOTFOUND;
    *out = found;
    return 0;
}

unsigned sked__daycal_weekdays(const sked__daycal *c)
{
    return c->weekdays;
}
