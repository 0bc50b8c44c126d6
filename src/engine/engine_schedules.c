/* SPDX-License-Identifier: MIT */
/* Reading and replaying schedules through the engine (sked/engine.h):
 * the page of a list, and the simulator's replay of a period
 * (sched/simulate.h) with its records in the public shape. */
#include "base/alloc.h"
#include "engine/engine_int.h"
#include "model/calbook.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/error.h"
#include "sched/simulate.h"

_Static_assert(SKED_ENGINE_LIST_MAX == SKED_STORE_LIST_MAX,
               "the engine pages as the store does");
_Static_assert(SKED_SIMULATE_RECORDS_MAX == SKED_SIM_RECORDS_MAX &&
                   SKED_SIMULATE_DOWN_MAX == SKED_SIM_DOWN_MAX,
               "the public bounds of a replay are the simulator's");
_Static_assert(sizeof(sked_sim_span) == sizeof(sked_sim_down),
               "a down interval is two instants");

/* Q as the store's filter into *f. */
static int query_filter(const sked_schedule_query *q, sked_schedule_filter *f,
                        sked_error *err)
{
    sked_schedule_status st;
    int rc;

    *f = (sked_schedule_filter){.status = -1};
    if (!q)
        return 0;
    if (q->status && q->status[0]) {
        if ((rc = sked_schedule_status_parse(q->status, "status", &st, err)))
            return rc;
        f->status = (int) st;
    }
    f->workflow = q->workflow && q->workflow[0] ? q->workflow : NULL;
    f->name_prefix = q->prefix && q->prefix[0] ? q->prefix : NULL;
    f->after_name = q->cursor && q->cursor[0] ? q->cursor : NULL;
    f->limit = q->limit;
    return 0;
}

int sked_engine_schedule_list(sked_engine *e, const sked_schedule_query *q,
                              sked_schedule_page *out, sked_error *err)
{
    sked_schedule_filter f;
    sked_schedule *list = NULL;
    size_t n = 0;
    bool more = false;
    int rc;

    if (!e || !out)
        return sked__error_set(err, SKED_EINVAL, NULL, -1,
                               "an engine and an output");
    if ((rc = query_filter(q, &f, err)) != 0)
        return rc;
    rc = sked__store_schedule_list(e->store, &f, &list, &n, &more, err);
    if (rc != 0)
        return rc;
    *out =
        (sked_schedule_page){list, n, more && n > 0 ? list[n - 1].name : NULL};
    return 0;
}

void sked_schedule_page_done(sked_schedule_page *p)
{
    if (!p)
        return;
    sked__schedules_free(p->items, p->n);
    *p = (sked_schedule_page){NULL, 0, NULL};
}

/* ---- simulate ----------------------------------------------------------- */

const char *sked_miss_reason_name(sked_miss_reason r)
{
    return sked__miss_reason_name(r);
}

int sked_run_id_of(const char *name, sked_time at, char *buf, size_t size)
{
    return sked__run_id_scheduled(name, at, buf, size);
}

/* The down intervals of O in the simulator's shape into *out (NULL when
 * none; free it). Over SKED_SIM_DOWN_MAX the simulator refuses before it
 * reads any interval: no more than that are copied. */
static int down_copy(const sked_simulate_options *o, sked_sim_down **out,
                     sked_error *err)
{
    size_t n = o->ndown < SKED_SIM_DOWN_MAX ? o->ndown : SKED_SIM_DOWN_MAX;

    *out = NULL;
    if (o->ndown > 0 && !o->down)
        return sked__error_set(err, SKED_EINVAL, "down", -1,
                               "%zu intervals and no array", o->ndown);
    if (n > 0 && !(*out = sked__calloc(n, sizeof **out)))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    for (size_t i = 0; i < n; i++)
        (*out)[i] = (sked_sim_down){o->down[i].from, o->down[i].to};
    return 0;
}

/* The simulator's record X as a decision of the public shape. */
static sked_sim_decision decision_of(const sked_sim_record *x)
{
    return (sked_sim_decision){.occurrence = x->occurrence,
                               .scheduled_for = x->scheduled_for,
                               .at = x->at,
                               .fire = x->fire != 0,
                               .why = x->why,
                               .catchup = x->fire &&
                                          x->trigger == SKED_TRIGGER_CATCHUP,
                               .buffered = x->buffered != 0,
                               .cancel_active = x->cancel_active != 0};
}

/* sked_schedule_simulate seen through the calendars DAYS (NULL: none). */
static int simulate_with(const sked_schedule *s, const sked_tz *tz,
                         const sked__occ_days *days,
                         const sked_simulate_options *o, sked_simulation *out,
                         sked_error *err)
{
    sked_sim_down *down = NULL;
    sked_sim_out r = {0};
    int rc;

    if (!s || !o || !out)
        return sked__error_set(err, SKED_EINVAL, NULL, -1,
                               "a schedule, options and an output");
    if ((rc = down_copy(o, &down, err)) != 0)
        return rc;
    sked_sim_in in = {.s = s,
                      .tz = tz,
                      .days = days,
                      .from = o->from,
                      .to = o->to,
                      .down = down,
                      .ndown = o->ndown,
                      .tick = o->tick,
                      .run_duration = o->run_duration};
    rc = sked__simulate(&in, &r, err);
    free(down);
    if (rc != 0)
        return rc;
    sked_sim_decision *d = sked__calloc(r.n ? r.n : 1, sizeof *d);
    for (size_t i = 0; d && i < r.n; i++)
        d[i] = decision_of(&r.records[i]);
    if (d)
        *out = (sked_simulation){d, r.n};
    sked__simulate_done(&r);
    return d ? 0 : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
}

int sked_schedule_simulate(const sked_schedule *s, const sked_tz *tz,
                           const sked_simulate_options *o, sked_simulation *out,
                           sked_error *err)
{
    return simulate_with(s, tz, NULL, o, out, err);
}

/* Say that the zone NAME of a schedule no longer loads (RC; ERR holds
 * the zone database's reason). */
static void zone_fail(const char *name, int rc, sked_error *err)
{
    char why[SKED_ERROR_MSG_MAX];

    (void) snprintf(why, sizeof why, "%s",
                    err && err->msg[0] ? err->msg : sked_strerror(rc));
    (void) sked__error_set(err, rc, "timezone", -1,
                           "\"%.100s\" no longer loads: %s", name, why);
}

int sked_engine_schedule_simulate(sked_engine *e, const char *name,
                                  const sked_simulate_options *o,
                                  sked_simulation *out, sked_error *err)
{
    const sked_tz *tz = sked_tz_utc();
    sked__calbook *book = NULL;
    sked__occ_days days;
    sked_schedule s;
    int rc;

    if (!e)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, "no engine");
    if ((rc = sked_engine_schedule_get(e, name, &s, err)) != 0)
        return rc;
    if (s.timezone && (rc = sked_tzdb_get(e->tzdb, s.timezone, &tz, err)) < 0)
        zone_fail(s.timezone, rc, err);
    else if ((rc = sked__store_days_read(e->store, &s, &book, &days, err)) == 0)
        rc = simulate_with(&s, tz, book ? &days : NULL, o, out, err);
    sked__calbook_release(book);
    sked_schedule_done(&s);
    return rc;
}

void sked_simulation_done(sked_simulation *sim)
{
    if (!sim)
        return;
    free(sim->items);
    *sim = (sked_simulation){NULL, 0};
}
