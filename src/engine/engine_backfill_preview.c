/* SPDX-License-Identifier: MIT */
/* What a backfill would do, without doing it (sked/engine.h,
 * sked_engine_backfill_preview): the occurrences of the range, and for
 * each whether its run exists already (then the backfill skips it) or
 * would be created. The dashboard shows this before a person confirms.
 *
 * The range is checked as the backfill checks it, with the same errors,
 * and counted whole (over SKED_BACKFILL_MAX is refused as the backfill
 * refuses it); only the first SKED_BACKFILL_PREVIEW_MAX occurrences are
 * looked up, one run id each, so a preview of a long range stays quick.
 * Nothing is written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "engine/engine_int.h"
#include "model/run.h"
#include "model/schedule.h"

/* Check START and END as a backfill does. */
static int range_check(sked_time start, sked_time end, sked_error *err)
{
    if (start == SKED_TIME_NONE || end == SKED_TIME_NONE)
        return sked__error_set(err, SKED_EINVAL,
                               start == SKED_TIME_NONE ? "start" : "end", -1,
                               "a backfill needs both ends of its range");
    if (end <= start)
        return sked__error_set(err, SKED_EINVAL, "end", -1,
                               "the range is %s: end must be after start",
                               end < start ? "reversed" : "empty");
    return 0;
}

/* Walk the fires of F in (START, END), through the schedule's calendars
 * as the backfill does: count them into P->total and keep the first
 * SKED_BACKFILL_PREVIEW_MAX occurrences (their runs' ids) in P->at. */
static int walk(const sked__fires *f, sked_time start, sked_time end,
                sked_backfill_preview *p, sked_error *err)
{
    const sked_schedule *s = f->s;
    sked__occ_slot x = {.at = start};
    int rc;

    while ((rc = sked__fires_next(f, x.at, &x)) == 0 && x.at < end) {
        if (++p->total > SKED_BACKFILL_MAX)
            return sked__error_set(err, SKED_ERANGE, "end", -1,
                                   "the range holds more than %d "
                                   "occurrences",
                                   SKED_BACKFILL_MAX);
        if (p->checked < SKED_BACKFILL_PREVIEW_MAX)
            p->at[p->checked++] = x.occurrence;
    }
    if (rc != 0 && rc != SKED_ENOTFOUND)
        return sked__error_set(err, SKED_EINVAL, "cron", -1,
                               "cannot compute the occurrences of \"%.100s\"",
                               s->name);
    return 0;
}

/* Look up the run of each kept occurrence of schedule NAME. */
static int look_up(sked_engine *e, const char *name, sked_backfill_preview *p,
                   sked_error *err)
{
    char id[SKED_RUN_ID_MAX + 1];

    for (size_t i = 0; i < p->checked; i++) {
        sked_run r;
        int len = sked__run_id_scheduled(name, p->at[i], id, sizeof id);
        if (len < 0)
            return sked__error_set(err, len, "name", -1, "no run id for it");
        int rc = sked__store_run_get(e->store, id, &r, NULL, NULL, err);
        if (rc == 0)
            sked__run_done(&r);
        else if (rc != SKED_ENOTFOUND)
            return rc;
        p->exists[i] = rc == 0;
        p->skip += rc == 0;
        p->create += rc != 0;
    }
    sked_error_clear(err);
    return 0;
}

int sked_engine_backfill_preview(sked_engine *e, const char *name,
                                 sked_time start, sked_time end,
                                 sked_backfill_preview *out, sked_error *err)
{
    sked_backfill_preview p = {0};
    const sked_tz *tz = NULL;
    sked__fires f = {0};
    sked_schedule s;
    int rc;

    if (!e || !name || !out)
        return sked__error_set(err, SKED_EINVAL, "name", -1, "is required");
    memset(out, 0, sizeof *out);
    if ((rc = range_check(start, end, err)) != 0)
        return rc;
    sked_schedule_init(&s);
    rc = sked__store_schedule_get(e->store, name, &s, err);
    if (rc == 0 && s.timezone)
        rc = sked_tzdb_get(e->tzdb, s.timezone, &tz, err);
    if (rc == 0) {
        p.at = sked__calloc(SKED_BACKFILL_PREVIEW_MAX, sizeof *p.at);
        p.exists = sked__calloc(SKED_BACKFILL_PREVIEW_MAX, sizeof *p.exists);
        if (!p.at || !p.exists)
            rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    if (rc == 0)
        rc = sked__fires_open(e, &s, tz, &f, err);
    if (rc == 0)
        rc = walk(&f, start, end, &p, err);
    if (rc == 0)
        rc = look_up(e, name, &p, err);
    sked__fires_done(&f);
    sked_schedule_done(&s);
    if (rc != 0) {
        sked_backfill_preview_done(&p);
        return rc;
    }
    *out = p;
    return 0;
}

void sked_backfill_preview_done(sked_backfill_preview *p)
{
    if (!p)
        return;
    free(p->at);
    free(p->exists);
    memset(p, 0, sizeof *p);
}
