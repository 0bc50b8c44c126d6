/* SPDX-License-Identifier: MIT */
/* One occurrence of a schedule (sked/engine.h): skipped ahead of time,
 * unskipped, listed, or run now as a one-occurrence backfill. The instant
 * must be an occurrence of the schedule's time spec (its calendars aside:
 * an occurrence moved off an excluded day is named by its own instant,
 * the run id's), within its bounds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "engine/engine_int.h"
#include "model/run.h"
#include "model/schedule_occ.h"

/* Check that AT is an occurrence of S; else SKED_EINVAL naming the
 * nearest occurrences before and after. */
static int occurrence_check(sked_engine *e, const sked_schedule *s,
                            sked_time at, sked_error *err)
{
    const sked_tz *tz = sked_tz_utc();
    char t[SKED_TIME_STRLEN] = "?", b[SKED_TIME_STRLEN] = "none",
         a[SKED_TIME_STRLEN] = "none";
    sked__occ_spec o;
    sked_occurrence next = {0};
    sked_time prev = 0;
    bool in_bounds, has_next, has_prev;

    if (at == SKED_TIME_NONE)
        return sked__error_set(err, SKED_EINVAL, "at", -1, "is required");
    if (s->timezone && sked_tzdb_get(e->tzdb, s->timezone, &tz, NULL) < 0)
        tz = sked_tz_utc();
    if (sked__occ_spec_init(&o, s, tz, NULL, NULL, sked__clock_now(e->clock),
                            NULL) != 0)
        return sked__error_set(err, SKED_EINVAL, "at", -1,
                               "the time spec of \"%.100s\" does not load",
                               s->name);
    in_bounds = (s->start_at == SKED_TIME_NONE || at >= s->start_at) &&
                (s->end_at == SKED_TIME_NONE || at <= s->end_at);
    has_next = sked__occ_next(&o, at - 1, &next) == 0;
    if (has_next && next.at == at && in_bounds) {
        sked__occ_spec_done(&o);
        return 0;
    }
    if (has_next && next.at == at)
        has_next = sked__occ_next(&o, at, &next) == 0;
    has_prev = sked__occ_prev(&o, at, &prev) == 0;
    sked__occ_spec_done(&o);
    (void) sked_time_format(at, t, sizeof t);
    if (has_prev)
        (void) sked_time_format(prev, b, sizeof b);
    if (has_next)
        (void) sked_time_format(next.at, a, sizeof a);
    if (!in_bounds)
        return sked__error_set(err, SKED_EINVAL, "at", -1,
                               "%s is outside the bounds of \"%.100s\" "
                               "(start_at, end_at)",
                               t, s->name);
    return sked__error_set(err, SKED_EINVAL, "at", -1,
                           "%s is not an occurrence of \"%.100s\": the "
                           "nearest are %s before and %s after",
                           t, s->name, b, a);
}

/* Read NAME and check AT against it. */
static int load_checked(sked_engine *e, const char *name, sked_time at,
                        sked_error *err)
{
    sked_schedule s;
    int rc;

    if (!e)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, "no engine");
    if (!name)
        return sked__error_set(err, SKED_EINVAL, "name", -1, "is required");
    if ((rc = sked__store_schedule_get(e->store, name, &s, err)) != 0)
        return rc;
    rc = occurrence_check(e, &s, at, err);
    sked_schedule_done(&s);
    return rc;
}

/* Check ACTOR and REASON. */
static int words_check(const char *actor, const char *reason, sked_error *err)
{
    if (actor && (actor[0] == '\0' || strlen(actor) > SKED_SKIP_ACTOR_MAX))
        return sked__error_set(err, SKED_EINVAL, "actor", -1,
                               "must be 1 to %d bytes", SKED_SKIP_ACTOR_MAX);
    if (reason && strlen(reason) > SKED_SKIP_REASON_MAX)
        return sked__error_set(err, SKED_EINVAL, "reason", -1,
                               "is longer than %d bytes", SKED_SKIP_REASON_MAX);
    return 0;
}

static int skip_set(sked_engine *e, const char *name, sked_time at, bool skip,
                    const char *actor, const char *reason, bool *changed,
                    sked_error *err)
{
    sked_event *ev = NULL;
    size_t nev = 0;
    int rc = words_check(actor, reason, err);

    if (rc == 0)
        rc = load_checked(e, name, at, err);
    if (rc == 0)
        rc = sked__store_skip_set(e->store, name, at, skip, actor,
                                  reason && reason[0] ? reason : NULL, changed,
                                  &ev, &nev, err);
    if (rc == 0 && nev > 0)
        sked__engine_deliver(e, ev, nev);
    sked__events_free(ev, nev);
    return rc;
}

int sked_engine_schedule_skip(sked_engine *e, const char *name, sked_time at,
                              const char *actor, const char *reason,
                              bool *changed, sked_error *err)
{
    return skip_set(e, name, at, true, actor, reason, changed, err);
}

int sked_engine_schedule_unskip(sked_engine *e, const char *name, sked_time at,
                                const char *actor, bool *changed,
                                sked_error *err)
{
    return skip_set(e, name, at, false, actor, NULL, changed, err);
}

int sked_engine_schedule_skips(sked_engine *e, const char *name,
                               sked_skip **out, size_t *n, sked_error *err)
{
    sked_skip *list = NULL;
    sked_time cursor = SKED_TIME_NONE;
    size_t len = 0, k = 0;
    int rc;

    if (!e || !out || !n)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, "no engine");
    if (!name)
        return sked__error_set(err, SKED_EINVAL, "name", -1, "is required");
    rc = sked__store_skips(e->store, name, &list, &len, &cursor, err);
    if (rc != 0)
        return rc;
    /* Those at or before the cursor are decided: history, not pending. */
    for (size_t i = 0; i < len; i++) {
        if (cursor != SKED_TIME_NONE && list[i].occurrence <= cursor) {
            free(list[i].schedule);
            free(list[i].actor);
            free(list[i].reason);
            continue;
        }
        list[k++] = list[i];
    }
    *out = list;
    *n = k;
    return 0;
}

int sked_engine_schedule_run_at(sked_engine *e, const char *name, sked_time at,
                                char **out_run_id, bool *created,
                                sked_error *err)
{
    char id[SKED_RUN_ID_MAX + 1];
    sked_backfill_result res = {0, 0};
    int rc = load_checked(e, name, at, err);

    if (rc != 0)
        return rc;
    if (at > sked__clock_now(e->clock)) {
        char t[SKED_TIME_STRLEN] = "?";
        (void) sked_time_format(at, t, sizeof t);
        return sked__error_set(err, SKED_EINVAL, "at", -1,
                               "%s has not come yet: it fires by itself "
                               "(skip it to drop it)",
                               t);
    }
    if (sked__run_id_scheduled(name, at, id, sizeof id) < 0)
        return sked__error_set(err, SKED_EINVAL, "name", -1,
                               "no run id for it");
    rc = sked_engine_backfill(e, name, at - 1, at + 1, NULL, NULL, &res, err);
    if (rc != 0)
        return rc;
    if (created)
        *created = res.created > 0;
    if (out_run_id && !(*out_run_id = sked__strdup(id)))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    return 0;
}
