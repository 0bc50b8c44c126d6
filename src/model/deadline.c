/* SPDX-License-Identifier: MIT */
/* Deadlines of a schedule's runs (model/deadline.h): the instants a run
 * is checked at and the verdict of a check, with nothing but the
 * schedule's two durations and the run's times; and the fields of a
 * heartbeat's run, which only its deadline and a ping end. */
#include "model/deadline.h"

/* OCCURRENCE + D, or NONE when D is no deadline. */
static sked_time after(sked_time occurrence, sked_dur d)
{
    return d > 0 && occurrence != SKED_TIME_NONE ? occurrence + d
                                                 : SKED_TIME_NONE;
}

sked_time sked__deadline_first(const sked_schedule *s, sked_time scheduled_for)
{
    sked_time start = after(scheduled_for, s->start_deadline);

    return start != SKED_TIME_NONE ? start : after(scheduled_for, s->deadline);
}

/* A heartbeat's runs wait for a ping, not for an executor: on a queue no
 * queue name can be, never due by themselves. */
void sked__deadline_heartbeat_run(sked_run_new *r, const sked_schedule *s,
                                  sked_time scheduled_for)
{
    r->workflow = s->workflow;
    r->schedule = s->name;
    r->trigger = SKED_TRIGGER_HEARTBEAT;
    r->scheduled_for = scheduled_for;
    r->queue = "";
    r->priority = s->priority;
    r->not_before = SKED_TIME_MAX;
    r->context = s->context;
    r->deadline_at = sked__deadline_first(s, scheduled_for);
}

/* Whether R had started by T. */
static bool started_by(const sked_run *r, sked_time t)
{
    return r->started_at != SKED_TIME_NONE && r->started_at <= t;
}

/* Whether R had completed by T. */
static bool completed_by(const sked_run *r, sked_time t)
{
    return r->status == SKED_RUN_COMPLETED &&
           r->finished_at != SKED_TIME_NONE && r->finished_at <= t;
}

static bool active(sked_run_status s)
{
    return s == SKED_RUN_PENDING || s == SKED_RUN_RUNNING ||
           s == SKED_RUN_WAITING;
}

sked__deadline_verdict sked__deadline_judge(const sked_schedule *s,
                                            const sked_run *r, sked_time now)
{
    sked__deadline_verdict v = {false, false, false, SKED_TIME_NONE};
    sked_time start = after(r->scheduled_for, s->start_deadline);
    sked_time end = after(r->scheduled_for, s->deadline);

    /* The start is still to check while this check is not past it. */
    if (start != SKED_TIME_NONE && r->deadline_at <= start) {
        if (now < start) {
            v.next = start;
            return v;
        }
        v.missed_start = !started_by(r, start) &&
                         (active(r->status) || r->started_at != SKED_TIME_NONE);
    }
    if (end == SKED_TIME_NONE)
        return v;
    if (now < end) {
        v.next = end;
        return v;
    }
    v.missed_completion = !completed_by(r, end);
    v.fail = v.missed_completion && r->trigger == SKED_TRIGGER_HEARTBEAT &&
             active(r->status);
    return v;
}

const char *sked__deadline_missed_word(const sked__deadline_verdict *v)
{
    if (v->missed_start && v->missed_completion)
        return "start,completion";
    if (v->missed_start)
        return "start";
    return v->missed_completion ? "completion" : NULL;
}
