/* SPDX-License-Identifier: MIT */
/* The occurrences of a schedule's time spec (schedule_occ.h). Cron and
 * RRULE schedules list wall-clock times that the zone walk of
 * cron/wall.h maps to instants under the DST policy; intervals are
 * arithmetic, or, in calendar days, the anchor's local time every N days
 * (cron/every_days.h). */
#include "model/schedule_occ.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "cron/every_days.h"
#include "cron/wall.h"
#include "time/civil.h"
#include "tz/zone.h"

#define DAY_US (INT64_C(86400) * SKED_USEC_PER_SEC)

static int rrule_next(const void *ctx, int64_t lo, int64_t *out)
{
    return sked__rrule_civil_next(ctx, lo, out);
}

static int rrule_prev(const void *ctx, int64_t hi, int64_t *out)
{
    return sked__rrule_civil_prev(ctx, hi, out);
}

/* ---- parsed rules, kept --------------------------------------------------
 * Reading a rule of days expands it over the calendars' range (tens of
 * milliseconds for a daily rule), and the scheduler asks for a schedule's
 * occurrences at every decision: the rules read are kept, by their text
 * and default start, and shared (a rule's search keeps its cursor under
 * its own lock). A kept rule in use by a spec is never evicted; the least
 * recently used of the others makes room; when all are in use, a spec
 * reads a rule of its own. */
#define RULES_KEPT 64

static struct kept {
    char *text; /* owned; NULL: a free slot */
    int64_t start;
    sked__rrule *r; /* owned */
    int refs;       /* specs using it */
    uint64_t used;
} kept[RULES_KEPT];
static uint64_t kept_clock;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

/* Take the kept rule of TEXT from START into *out (a reference). Under
 * the lock. */
static bool kept_take(const char *text, int64_t start, sked__rrule **out)
{
    for (size_t i = 0; i < RULES_KEPT; i++)
        if (kept[i].text && kept[i].start == start &&
            strcmp(kept[i].text, text) == 0) {
            kept[i].used = ++kept_clock;
            kept[i].refs++;
            *out = kept[i].r;
            return true;
        }
    return false;
}

/* Keep R (read from TEXT and START) in a slot no spec uses, taking a
 * reference; false when every slot is in use. Under the lock. */
static bool kept_put(const char *text, int64_t start, sked__rrule *r)
{
    struct kept *slot = NULL;
    char *copy;

    for (size_t i = 0; i < RULES_KEPT; i++)
        if (kept[i].refs == 0 && (!slot || kept[i].used < slot->used))
            slot = &kept[i];
    if (!slot || !(copy = sked__strdup(text)))
        return false;
    free(slot->text);
    sked__rrule_free(slot->r);
    *slot = (struct kept){copy, start, r, 1, ++kept_clock};
    return true;
}

/* The rule of TEXT from START into *out; *shared tells a kept one (given
 * back with rule_release) from one of the caller's own. */
static int rule_of(const char *text, int64_t start, sked__rrule **out,
                   bool *shared, sked_error *err)
{
    sked__rrule *r = NULL;
    int rc;

    pthread_mutex_lock(&kept_lock);
    *shared = kept_take(text, start, out);
    pthread_mutex_unlock(&kept_lock);
    if (*shared)
        return 0;
    /* Read outside the lock: other schedules' rules need not wait. */
    if ((rc = sked__rrule_parse(text, start, &r, err)) != 0)
        return rc;
    pthread_mutex_lock(&kept_lock);
    if (kept_take(text, start, out)) { /* another thread kept it first */
        *shared = true;
        sked__rrule_free(r);
    } else {
        *shared = kept_put(text, start, r);
        *out = r;
    }
    pthread_mutex_unlock(&kept_lock);
    return 0;
}

static void rule_release(sked__rrule *r, bool shared)
{
    if (!shared) {
        sked__rrule_free(r);
        return;
    }
    pthread_mutex_lock(&kept_lock);
    for (size_t i = 0; i < RULES_KEPT; i++)
        if (kept[i].r == r && kept[i].refs > 0) {
            kept[i].refs--;
            break;
        }
    pthread_mutex_unlock(&kept_lock);
}

static sked__wall_src rrule_src(const sked__occ_spec *o)
{
    return (sked__wall_src){rrule_next, rrule_prev, o->rrule,
                            sked__rrule_is_fixed_time(o->rrule)};
}

/* The wall second of the instant T in TZ. */
static int64_t wall_of(const sked_tz *tz, sked_time t)
{
    int64_t sec = sked__floor_div(t, SKED_USEC_PER_SEC);
    sked__tz_seg seg;

    sked__tz_segment(tz, sec, &seg);
    return sec + seg.utoff;
}

int sked__occ_spec_init(sked__occ_spec *o, const sked_schedule *s,
                        const sked_tz *tz, const sked_cron *parsed,
                        const sked__occ_days *days, sked_time now,
                        sked_error *err)
{
    sked_time start;

    memset(o, 0, sizeof *o);
    o->s = s;
    o->days = days;
    o->tz = tz ? tz : sked_tz_utc();
    o->until = SKED_TIME_NONE;
    switch (s->kind) {
    case SKED_SPEC_CRON:
        if (parsed) {
            o->cron = *parsed;
            return 0;
        }
        return s->cron && sked_cron_parse(s->cron, &o->cron, err) == 0
                   ? 0
                   : SKED_EINVAL;
    case SKED_SPEC_RRULE:
        start = s->created_at != SKED_TIME_NONE ? s->created_at : now;
        if (!s->rrule || rule_of(s->rrule, wall_of(o->tz, start), &o->rrule,
                                 &o->shared, err) != 0)
            return SKED_EINVAL;
        o->until = sked__rrule_until_utc(o->rrule);
        return 0;
    case SKED_SPEC_EVERY:
        if (s->every <= 0 || s->anchor == SKED_TIME_NONE ||
            (s->calendar_days && s->every % DAY_US != 0))
            return SKED_EINVAL;
        return 0;
    case SKED_SPEC_AT:
        return s->at != SKED_TIME_NONE ? 0 : SKED_EINVAL;
    }
    return SKED_EINVAL;
}

void sked__occ_spec_done(sked__occ_spec *o)
{
    if (o && o->rrule) {
        rule_release(o->rrule, o->shared);
        o->rrule = NULL;
    }
}

/* Interval occurrences anchor + k * every, k >= 1. */
static int every_next(const sked_schedule *s, sked_time after, sked_time *out)
{
    int64_t k = 1;

    if (after >= s->anchor)
        k = (after - s->anchor) / s->every + 1;
    if (k > (SKED_TIME_MAX - s->anchor) / s->every)
        return SKED_ENOTFOUND;
    *out = s->anchor + k * s->every;
    return 0;
}

static int every_prev(const sked_schedule *s, sked_time before, sked_time *out)
{
    int64_t k;

    if (before <= s->anchor)
        return SKED_ENOTFOUND;
    k = (before - s->anchor - 1) / s->every;
    if (k > (SKED_TIME_MAX - s->anchor) / s->every)
        k = (SKED_TIME_MAX - s->anchor) / s->every;
    if (k < 1)
        return SKED_ENOTFOUND;
    *out = s->anchor + k * s->every;
    return 0;
}

int sked__occ_next(const sked__occ_spec *o, sked_time after,
                   sked_occurrence *out)
{
    const sked_schedule *s = o->s;
    sked__wall_src src;
    int rc;

    *out = (sked_occurrence){0, SKED_OCC_NORMAL};
    switch (s->kind) {
    case SKED_SPEC_CRON:
        return sked_cron_next_occurrence(&o->cron, o->tz, s->dst, after, out);
    case SKED_SPEC_RRULE:
        src = rrule_src(o);
        rc = sked__wall_next(&src, o->tz, s->dst, after, out);
        return rc == 0 && o->until != SKED_TIME_NONE && out->at > o->until
                   ? SKED_ENOTFOUND
                   : rc;
    case SKED_SPEC_EVERY:
        if (s->calendar_days)
            return sked__every_days_next(s->anchor, (int) (s->every / DAY_US),
                                         o->tz, s->dst, after, out);
        return every_next(s, after, &out->at);
    case SKED_SPEC_AT:
        out->at = s->at;
        return s->at > after ? 0 : SKED_ENOTFOUND;
    }
    return SKED_EINVAL;
}

int sked__occ_prev(const sked__occ_spec *o, sked_time before, sked_time *out)
{
    const sked_schedule *s = o->s;
    sked__wall_src src;

    switch (s->kind) {
    case SKED_SPEC_CRON:
        return sked_cron_prev(&o->cron, o->tz, s->dst, before, out);
    case SKED_SPEC_RRULE:
        if (o->until != SKED_TIME_NONE && before > o->until)
            before = o->until + 1;
        src = rrule_src(o);
        return sked__wall_prev(&src, o->tz, s->dst, before, out);
    case SKED_SPEC_EVERY:
        if (s->calendar_days)
            return sked__every_days_prev(s->anchor, (int) (s->every / DAY_US),
                                         o->tz, s->dst, before, out);
        return every_prev(s, before, out);
    case SKED_SPEC_AT:
        *out = s->at;
        return s->at < before ? 0 : SKED_ENOTFOUND;
    }
    return SKED_EINVAL;
}

/* The zones of sked__occ_rrule_words: the system's, opened on first use
 * and kept for the process (the zones it loaded stay valid). */
static pthread_once_t zones_once = PTHREAD_ONCE_INIT;
static sked_tzdb *zones;

static void zones_open(void)
{
    if (sked_tzdb_open(NULL, &zones, NULL) != 0)
        zones = NULL;
}

int sked__occ_rrule_words(const sked_schedule *s, sked_time now, char *buf,
                          size_t size)
{
    const sked_tz *tz = sked_tz_utc();
    sked__rrule *r = NULL;
    sked_time start;
    int rc;

    if (s->kind != SKED_SPEC_RRULE || !s->rrule)
        return SKED_EINVAL;
    (void) pthread_once(&zones_once, zones_open);
    if (s->timezone && strcmp(s->timezone, "UTC") != 0 &&
        (!zones || sked_tzdb_get(zones, s->timezone, &tz, NULL) != 0))
        return SKED_EINVAL;
    /* The words need the rule, not its occurrences: a listing of many
     * schedules reads each rule in microseconds. */
    start = s->created_at != SKED_TIME_NONE ? s->created_at : now;
    if (sked__rrule_parse_words(s->rrule, wall_of(tz, start), &r, NULL) != 0)
        return SKED_EINVAL;
    rc = sked__rrule_explain(r, buf, size);
    sked__rrule_free(r);
    return rc;
}
