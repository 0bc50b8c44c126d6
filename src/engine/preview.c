/* SPDX-License-Identifier: MIT */
/* A schedule's next occurrences, marked across DST changes (SPEC 3.5
 * preview: sked_schedule_preview and sked_engine_schedule_preview in
 * sked/engine.h), what "sked schedule preview" prints and what
 * GET /api/v1/schedules/{name}/occurrences answers, computed once.
 *
 * The instants and their marks come from the schedule's occurrences
 * (model/schedule_occ.h), which the store and the scheduler fire by, so
 * a preview never promises what the scheduler would not do. */
#include "base/alloc.h"
#include "engine/engine_int.h"
#include "model/calbook.h"
#include "model/schedule_occ.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/error.h"

const char *sked_occ_mark_name(sked_occ_mark m)
{
    switch (m) {
    case SKED_OCC_SHIFTED:
        return "shifted";
    case SKED_OCC_FIRST_PASS:
        return "first_pass";
    case SKED_OCC_SECOND_PASS:
        return "second_pass";
    case SKED_OCC_NORMAL:
        break;
    }
    return NULL;
}

/* Return how many more runs S may create, at most MAX (max_runs). */
static size_t runs_left(const sked_schedule *s, size_t max)
{
    int64_t left;

    if (s->status == SKED_SCHEDULE_DONE)
        return 0;
    if (s->max_runs <= 0)
        return max;
    left = s->max_runs - s->runs_created;
    return left <= 0 ? 0 : (uint64_t) left < max ? (size_t) left : max;
}

/* The slot of O after AFTER, within S's bounds, into *out with its DST
 * mark. Returns false when none. */
static bool next_item(const sked_schedule *s, const sked__occ_spec *o,
                      sked_time after, sked_preview_item *out)
{
    sked__occ_slot x;
    sked_occurrence c;
    sked_tz_info info;

    *out = (sked_preview_item){.mark = SKED_OCC_NORMAL};
    if (s->start_at != SKED_TIME_NONE && s->start_at - 1 > after)
        after = s->start_at - 1;
    /* Without calendars the marks come from the occurrence itself. */
    if (o->days) {
        if (sked__occ_slot_next(o, after, &x) != 0)
            return false;
        c = (sked_occurrence){x.at, x.mark};
        out->occurrence = x.occurrence;
        out->excluded = x.kind == SKED__SLOT_EXCLUDED;
    } else if (sked__occ_next(o, after, &c) == 0) {
        out->occurrence = c.at;
    } else {
        return false;
    }
    if (s->end_at != SKED_TIME_NONE && c.at > s->end_at)
        return false;
    out->at = c.at;
    out->mark = c.mark;
    if (sked_tz_lookup(o->tz, out->at, &info) == 0) {
        out->has_local = true;
        out->utoff = info.utoff;
    }
    return true;
}

/* Tell whether OCC is one of the N skips K (by occurrence). */
static bool is_skipped(const sked_skip *k, size_t n, sked_time occ)
{
    for (size_t i = 0; i < n; i++)
        if (k[i].occurrence == occ)
            return true;
    return false;
}

/* sked_schedule_preview seen through DAYS (NULL: none) and the N skips
 * SKIPS. Excluded and skipped slots are listed but do not count against
 * max_runs. */
static int preview_with(const sked_schedule *s, const sked_tz *tz,
                        const sked__occ_days *days, const sked_skip *skips,
                        size_t nskips, sked_time after, size_t max,
                        sked_preview *out, sked_error *err)
{
    sked_preview p = {NULL, 0};
    sked__occ_spec o;
    size_t left, fires = 0;
    int rc;

    if (!s || !out)
        return sked__error_set(err, SKED_EINVAL, NULL, -1,
                               "a schedule and an output");
    if (max < 1 || max > SKED_PREVIEW_MAX)
        return sked__error_set(err, SKED_EINVAL, "n", -1, "must be 1 to %d",
                               SKED_PREVIEW_MAX);
    if ((rc = sked__occ_spec_init(&o, s, tz, NULL, days, after, err)) < 0)
        return err && err->code ? rc
                                : sked__error_set(err, rc, NULL, -1,
                                                  "the time spec does not "
                                                  "load");
    left = runs_left(s, max);
    if (!(p.items = sked__calloc(max, sizeof *p.items))) {
        sked__occ_spec_done(&o);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    while (p.n < max && fires < left &&
           next_item(s, &o, after, &p.items[p.n])) {
        sked_preview_item *it = &p.items[p.n];
        it->skipped =
            !it->excluded && is_skipped(skips, nskips, it->occurrence);
        fires += !it->excluded && !it->skipped;
        after = p.items[p.n++].at;
    }
    sked__occ_spec_done(&o);
    *out = p;
    return 0;
}

int sked_schedule_preview(const sked_schedule *s, const sked_tz *tz,
                          sked_time after, size_t max, sked_preview *out,
                          sked_error *err)
{
    return preview_with(s, tz, NULL, NULL, 0, after, max, out, err);
}

int sked_engine_schedule_preview(sked_engine *e, const char *name,
                                 sked_time after, size_t max, sked_preview *out,
                                 sked_error *err)
{
    const sked_tz *tz = sked_tz_utc();
    sked__calbook *book = NULL;
    sked__occ_days days;
    sked_skip *skips = NULL;
    size_t nskips = 0;
    sked_schedule s;
    int rc;

    if (!e)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, "no engine");
    if (max < 1 || max > SKED_PREVIEW_MAX)
        return sked__error_set(err, SKED_EINVAL, "n", -1, "must be 1 to %d",
                               SKED_PREVIEW_MAX);
    if ((rc = sked_engine_schedule_get(e, name, &s, err)) != 0)
        return rc;
    /* A zone that no longer loads leaves the schedule disabled; its
     * preview falls back to UTC. */
    if (s.timezone && sked_tzdb_get(e->tzdb, s.timezone, &tz, NULL) < 0)
        tz = sked_tz_utc();
    if (after == SKED_TIME_NONE)
        after = sked__clock_now(e->clock);
    rc = sked_engine_schedule_skips(e, name, &skips, &nskips, err);
    if (rc == 0)
        rc = sked__store_days_read(e->store, &s, &book, &days, err);
    if (rc == 0) {
        rc = preview_with(&s, tz, book ? &days : NULL, skips, nskips, after,
                          max, out, err);
        sked__calbook_release(book);
    } else if (rc != SKED_ENOMEM) {
        sked_schedule_done(&s);
        sked_skips_free(skips, nskips);
        return rc; /* a calendar gone: said as it is */
    }
    sked_schedule_done(&s);
    sked_skips_free(skips, nskips);
    /* Every stored expression was checked when written: one that does
     * not parse now is the engine's fault, not the caller's. */
    if (rc != 0 && rc != SKED_ENOMEM) {
        rc = SKED_EINTERNAL;
        if (err)
            err->code = rc;
    }
    return rc;
}

/* Check EXPR and TIMEZONE for sked_engine_cron_preview into *cron and
 * *tz. */
static int cron_args(sked_engine *e, const char *expr, const char *timezone,
                     sked_cron *cron, const sked_tz **tz, sked_error *err)
{
    sked_error perr;
    int rc;

    sked_error_clear(&perr);
    if (!expr || !*expr)
        return sked__error_set(err, SKED_EINVAL, "expr", -1,
                               "required: a cron expression");
    if (sked_cron_parse(expr, cron, &perr) != 0) {
        char at[32] = "";

        if (perr.pos >= 0)
            (void) snprintf(at, sizeof at, " (at byte %d)", perr.pos + 1);
        return sked__error_set(err, SKED_EINVAL, "expr", perr.pos, "%s%s%s%s",
                               perr.field, perr.field[0] ? ": " : "", perr.msg,
                               at);
    }
    *tz = sked_tz_utc();
    if (!timezone || !*timezone)
        return 0;
    sked_error_clear(&perr);
    if ((rc = sked_tzdb_get(e->tzdb, timezone, tz, &perr)) == SKED_ENOTFOUND ||
        rc == SKED_EINVAL)
        return sked__error_set(err, SKED_EINVAL, "timezone", -1,
                               "unknown time zone \"%.100s\"", timezone);
    if (rc < 0)
        return sked__error_set(err, rc, "timezone", -1, "%s",
                               perr.msg[0] ? perr.msg : sked_strerror(rc));
    return 0;
}

int sked_engine_cron_preview(sked_engine *e, const char *expr,
                             const char *timezone, sked_dst dst,
                             sked_time after, size_t max, sked_preview *out,
                             sked_error *err)
{
    sked_preview p = {NULL, 0};
    sked_occurrence occ;
    const sked_tz *tz;
    sked_tz_info info;
    sked_cron cron;
    int rc;

    if (!e || !out)
        return sked__error_set(err, SKED_EINVAL, NULL, -1,
                               "an engine and an output");
    if ((rc = cron_args(e, expr, timezone, &cron, &tz, err)) != 0)
        return rc;
    if (max > SKED_PREVIEW_MAX)
        return sked__error_set(err, SKED_EINVAL, "n", -1, "must be 0 to %d",
                               SKED_PREVIEW_MAX);
    if (after == SKED_TIME_NONE)
        after = sked__clock_now(e->clock);
    if (!(p.items = sked__calloc(max ? max : 1, sizeof *p.items)))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    /* "sked cron next"'s loop: SKED_ENOTFOUND is the last one fired. */
    while (p.n < max &&
           sked_cron_next_occurrence(&cron, tz, dst, after, &occ) == 0) {
        sked_preview_item *it = &p.items[p.n++];

        *it = (sked_preview_item){.at = occ.at, .mark = occ.mark};
        if (sked_tz_lookup(tz, occ.at, &info) == 0) {
            it->has_local = true;
            it->utoff = info.utoff;
        }
        after = occ.at;
    }
    *out = p;
    return 0;
}

void sked_preview_done(sked_preview *p)
{
    if (!p)
        return;
    free(p->items);
    *p = (sked_preview){NULL, 0};
}
