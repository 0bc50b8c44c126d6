/* SPDX-License-Identifier: MIT */
/* Helpers of the day calendars' unit tests (test_daycal.c,
 * test_daycal_ics.c): dates written as text, builds that must succeed or
 * fail with a given code, field, position and message, and a lookup over
 * an array of specs. Include after cmocka.h. */
#ifndef SKED_TEST_DAYCAL_TEST_H
#define SKED_TEST_DAYCAL_TEST_H

#include <stdio.h>
#include <string.h>

#include "sked/calendar.h"
#include "cron/daycal.h"
#include "time/civil.h"

static inline int64_t day_of(const char *s)
{
    int y, m, d;

    if (sscanf(s, "%d-%d-%d", &y, &m, &d) != 3)
        fail_msg("bad date in test table: %s", s);
    return sked__days_from_civil(y, m, d);
}

static inline const char *fmt_day(int64_t day, char *buf, size_t size)
{
    if (sked_date_format(day, buf, size) == 0 && size > 0)
        buf[0] = '\0';
    return buf;
}

#define assert_day_equal(got, want)                                            \
    assert_day_equal_at(got, want, __FILE__, __LINE__)

static inline void assert_day_equal_at(int64_t got, const char *want,
                                       const char *file, int line)
{
    char g[16];

    if (got != day_of(want))
        fail_msg("%s:%d: got %s, want %s", file, line,
                 fmt_day(got, g, sizeof g), want);
}

static inline sked__daycal *build_ok(const sked__daycal_spec *spec,
                                     sked__daycal_lookup lookup, void *ctx)
{
    sked__daycal *c = NULL;
    sked_error err;

    sked_error_clear(&err);
    if (sked__daycal_build(spec, lookup, ctx, &c, &err) != 0)
        fail_msg("build: %s: %s (pos %d)", err.field, err.msg, err.pos);
    return c;
}

/* Build SPEC, expecting CODE with FIELD, POS (-2: any) and WANT in the
 * message. */
static inline void build_fails(const sked__daycal_spec *spec,
                               sked__daycal_lookup lookup, void *ctx, int code,
                               const char *field, int pos, const char *want)
{
    sked__daycal *c = (sked__daycal *) &c; /* must stay untouched */
    sked_error err;
    int rc;

    sked_error_clear(&err);
    rc = sked__daycal_build(spec, lookup, ctx, &c, &err);
    if (rc != code || strcmp(err.field, field) != 0 ||
        (pos != -2 && err.pos != pos) || !strstr(err.msg, want))
        fail_msg("want %d %s pos %d '%s'; got %d %s pos %d '%s'", code, field,
                 pos, want, rc, err.field, err.pos, err.msg);
    assert_ptr_equal(c, &c);
}

struct book {
    const sked__daycal_spec *specs;
    size_t n;
};

static inline int look_up(void *ctx, const char *name,
                          const sked__daycal_spec **out)
{
    const struct book *b = ctx;

    for (size_t i = 0; i < b->n; i++) {
        if (strcmp(b->specs[i].name, name) == 0) {
            *out = &b->specs[i];
            return 0;
        }
    }
    return SKED_ENOTFOUND;
}
#endif
