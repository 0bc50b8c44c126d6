/* SPDX-License-Identifier: MIT */
/* What a firing decides about one schedule (sched/decide.h): the row as
 * locked goes through the pure policy (sked__policy_plan), and its plan
 * becomes the runs, the cursor and the counts the store writes. */
#include "sched/decide.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "model/deadline.h"

/* Disable the decision OUT for WHY about S (SPEC 2.2). */
static int disable(const sked_schedule *s, const char *why, sked_firing *out)
{
    char msg[SKED_ERROR_MSG_MAX + 64];

    (void) snprintf(msg, sizeof msg, "%s: %s",
                    s->kind == SKED_SPEC_CRON ? "cron" : "schedule", why);
    out->disable = sked__strdup(msg);
    return out->disable ? 0 : SKED_ENOMEM;
}

/* Fill run I of OUT from the fire F of S. */
static int make_run(const sked_schedule *s, const sked_fire *f,
                    sked_firing *out, size_t i)
{
    char id[SKED_RUN_ID_MAX + 1];
    sked_run_new *r = &out->runs[i];
    int n = sked__run_id_scheduled(s->name, f->occurrence, id, sizeof id);

    if (n < 0)
        return n;
    *r =
        (sked_run_new){.id = sked__strdup(id),
                       .workflow = s->workflow,
                       .schedule = s->name,
                       .trigger = f->trigger,
                       .scheduled_for = f->at,
                       .occurrence = f->occurrence,
                       .queue = s->queue,
                       .priority = s->priority,
                       .not_before = f->at + sked__policy_jitter(id, s->jitter),
                       .context = s->context,
                       .buffered = f->buffered};
    if (!r->id)
        return SKED_ENOMEM;
    r->deadline_at = sked__deadline_first(s, f->at);
    if (s->heartbeat)
        sked__deadline_heartbeat_run(r, s, f->at);
    /* SPEC 3.4: overlap skip holds the key; the others run one at a time
     * through the serial key (schema 0002), never dropped by it. */
    if (s->overlap == SKED_OVERLAP_SKIP)
        r->concurrency_key = out->key;
    if (s->overlap != SKED_OVERLAP_ALLOW)
        r->serial_key = out->key;
    return 0;
}

/* Copy the plan P of S into the decision OUT. */
static int take_plan(const sked_schedule *s, const sked_policy_out *p,
                     sked_firing *out)
{
    size_t len = strlen(s->name) + sizeof "schedule:";
    int rc = 0;

    out->cursor = p->cursor;
    out->next_fire_at = p->done ? SKED_TIME_NONE : p->next;
    out->status = p->done ? SKED_SCHEDULE_DONE : SKED_SCHEDULE_ACTIVE;
    for (int r = 0; r < SKED_MISS__COUNT; r++)
        if (p->missed[r].count > 0)
            out->missed[out->nmissed++] = (sked_fire_miss){
                sked__miss_reason_name((sked_miss_reason) r),
                p->missed[r].count, p->missed[r].first, p->missed[r].last};
    if (p->nfires == 0)
        return 0;
    out->key = sked__malloc(len);
    out->runs = sked__calloc(p->nfires, sizeof *out->runs);
    if (!out->key || !out->runs)
        return SKED_ENOMEM;
    (void) snprintf(out->key, len, "schedule:%s", s->name);
    for (size_t i = 0; i < p->nfires && rc == 0; i++) {
        rc = make_run(s, &p->fires[i], out, i);
        out->nruns = i + 1;
        /* SPEC 3.4 cancel_other: the store cancels the other active runs
         * when the runs are created, in the same transaction. */
        if (p->fires[i].cancel_active)
            out->cancel_others = true;
    }
    return rc;
}

int sked__decide(sked_tzdb *tzdb, sked_time now, sked_dur tick,
                 const sked_schedule *s, const sked__occ_days *days,
                 const sked_time *skips, size_t nskips, int64_t active,
                 sked_firing *out)
{
    const sked_tz *tz = NULL;
    sked_policy_out p;
    sked_error zerr;
    sked_cron c;
    int rc;

    if (s->kind == SKED_SPEC_CRON &&
        (!s->cron || sked_cron_parse(s->cron, &c, &zerr) != 0))
        return disable(s, s->cron ? zerr.msg : "no expression", out);
    if (s->timezone && sked_tzdb_get(tzdb, s->timezone, &tz, &zerr) != 0)
        return disable(s, zerr.msg, out);
    rc = sked__policy_plan(
        &(sked_policy_in){.s = s,
                          .tz = tz,
                          .now = now,
                          .tick = tick,
                          .active_runs =
                              active > 1000000 ? 1000000 : (int) active,
                          .buffered_runs = active > 1 ? (int) active - 1 : 0,
                          .cron = s->kind == SKED_SPEC_CRON ? &c : NULL,
                          .days = days,
                          .skips = skips,
                          .nskips = nskips},
        &p);
    if (rc == SKED_EINVAL)
        return disable(s, "the time spec no longer loads", out);
    if (rc != 0)
        return rc;
    rc = take_plan(s, &p, out);
    sked__policy_done(&p);
    return rc;
}
