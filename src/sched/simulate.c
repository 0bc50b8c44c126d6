/* SPDX-License-Identifier: MIT */
/* The replay of a period (simulate.h).
 *
 * The plan: a working copy of the schedule starts decided up to `from`.
 * The next decision is at its next occurrence, or at the end of the down
 * interval holding it. Before each decision the runs that ended by then
 * leave (a buffered one starts as the one before it ends); the plan gets
 * the runs still active; its fires join the runs. The records of one
 * decision are the occurrences from the old cursor to the new one, each
 * a fire or the reason whose first..last holds it; the counts must add
 * up to the plan's, or the replay fails (SKED_EINTERNAL). */
#include "sched/simulate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"

/* The runs of the replay: running ones by end time (they start in order
 * and last the same, so a FIFO), and those waiting as a buffer. */
typedef struct runs {
    sked_time *end; /* owned */
    size_t head, n, cap;
    int64_t waiting;
    sked_dur duration;
} runs;

typedef struct sim {
    const sked_sim_in *in;
    sked_schedule w; /* shallow copy: its strings are in->s's */
    runs r;
    sked_sim_record *rec; /* owned until handed out */
    size_t n, cap, max;
} sim;

void sked__simulate_done(sked_sim_out *out)
{
    if (!out)
        return;
    free(out->records);
    out->records = NULL;
    out->n = 0;
}

static int runs_push(runs *r, sked_time end)
{
    if (r->head + r->n == r->cap) {
        if (r->head > 0) {
            memmove(r->end, r->end + r->head, r->n * sizeof *r->end);
            r->head = 0;
        } else {
            size_t cap = r->cap ? 2 * r->cap : 16;
            sked_time *v = sked__realloc(r->end, cap * sizeof *v);

            if (!v)
                return SKED_ENOMEM;
            r->end = v;
            r->cap = cap;
        }
    }
    r->end[r->head + r->n++] = end;
    return 0;
}

/* End the runs that ended at or before T; a waiting run starts when the
 * last running one ends. */
static int runs_advance(runs *r, sked_time t)
{
    while (r->n > 0 && r->end[r->head] <= t) {
        sked_time e = r->end[r->head++];

        if (--r->n == 0) {
            r->head = 0;
            if (r->waiting > 0) {
                r->waiting--;
                if (runs_push(r, e + r->duration) != 0)
                    return SKED_ENOMEM;
            }
        }
    }
    return 0;
}

/* Add the fires of one decision at T to the runs. */
static int runs_fire(runs *r, const sked_policy_out *o, sked_time t)
{
    for (size_t i = 0; i < o->nfires; i++) {
        const sked_fire *f = &o->fires[i];

        if (f->cancel_active) {
            r->head = r->n = 0;
            r->waiting = 0;
        }
        if (f->buffered)
            r->waiting++;
        else if (runs_push(r, t + r->duration) != 0)
            return SKED_ENOMEM;
    }
    return 0;
}

static int add_record(sim *m, const sked_sim_record *rec, sked_error *err)
{
    if (m->n == m->max)
        return sked__error_set(err, SKED_ETOOBIG, "to", -1,
                               "the period holds more than %zu occurrences; "
                               "shorten it",
                               m->max);
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 64;
        sked_sim_record *v;

        if (cap > m->max)
            cap = m->max;
        if (!(v = sked__realloc(m->rec, cap * sizeof *v)))
            return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
        m->rec = v;
        m->cap = cap;
    }
    m->rec[m->n++] = *rec;
    return 0;
}

/* Return the reason O dropped slot X for, or -1 when none holds it: an
 * excluded slot says so itself; the others by the ranges of occurrences
 * of the other reasons. */
static int drop_reason(const sked_policy_out *o, const sked__occ_slot *x)
{
    if (x->kind == SKED__SLOT_EXCLUDED)
        return o->missed[SKED_MISS_EXCLUDED].count > 0 ? SKED_MISS_EXCLUDED
                                                       : -1;
    for (int r = 0; r < SKED_MISS__COUNT; r++)
        if (r != SKED_MISS_EXCLUDED && o->missed[r].count > 0 &&
            o->missed[r].first <= x->occurrence &&
            x->occurrence <= o->missed[r].last)
            return r;
    return -1;
}

/* Write the records of the decision O made at T over the occurrences in
 * (FROM, o->cursor]. */
static int record_decision(sim *m, const sked_policy_out *o, sked_time from,
                           sked_time t, sked_error *err)
{
    int64_t drops = 0, want = 0;
    size_t fi = 0;
    sked__occ_slot x;
    sked__occ_spec q;
    int rc, why;

    for (int r = 0; r < SKED_MISS__COUNT; r++)
        want += o->missed[r].count;
    if (sked__occ_spec_init(&q, &m->w, m->in->tz, NULL, m->in->days, t, NULL) !=
        0)
        return sked__error_set(err, SKED_EINTERNAL, NULL, -1,
                               "the time spec does not load");
    x.at = m->w.start_at != SKED_TIME_NONE && m->w.start_at - 1 > from
               ? m->w.start_at - 1
               : from;
    while (sked__occ_slot_next(&q, x.at, &x) == 0 && x.at <= o->cursor) {
        sked_sim_record rec = {
            .occurrence = x.occurrence, .scheduled_for = x.at, .at = t};

        if (fi < o->nfires && o->fires[fi].at == x.at) {
            rec.fire = 1;
            rec.trigger = o->fires[fi].trigger;
            rec.buffered = o->fires[fi].buffered;
            rec.cancel_active = o->fires[fi++].cancel_active;
        } else if ((why = drop_reason(o, &x)) >= 0) {
            rec.why = (sked_miss_reason) why;
            drops++;
        } else {
            break;
        }
        if ((rc = add_record(m, &rec, err)) != 0) {
            sked__occ_spec_done(&q);
            return rc;
        }
    }
    sked__occ_spec_done(&q);
    if (fi != o->nfires || drops != want)
        return sked__error_set(err, SKED_EINTERNAL, NULL, -1,
                               "the replay does not add up to the decision");
    return 0;
}

/* Check the period and the down intervals: each inside (from, to], not
 * empty, not overlapping another. */
static int check_in(const sked_sim_in *in, sked_error *err)
{
    if (in->to <= in->from)
        return sked__error_set(err, SKED_EINVAL, "to", -1,
                               "the period is empty or reversed: to must be "
                               "after from");
    if (in->tick < 0 || in->run_duration < 0)
        return sked__error_set(err, SKED_EINVAL,
                               in->tick < 0 ? "tick" : "run_duration", -1,
                               "must not be negative");
    if (in->ndown > SKED_SIM_DOWN_MAX)
        return sked__error_set(err, SKED_EINVAL, "down", -1,
                               "at most %d down intervals", SKED_SIM_DOWN_MAX);
    for (size_t i = 0; i < in->ndown; i++) {
        const sked_sim_down *d = &in->down[i];
        char field[SKED_ERROR_FIELD_MAX];

        snprintf(field, sizeof field, "down[%zu]", i);
        if (d->to <= d->from)
            return sked__error_set(err, SKED_EINVAL, field, -1,
                                   "the interval is empty or reversed");
        if (d->from < in->from || d->to > in->to)
            return sked__error_set(err, SKED_EINVAL, field, -1,
                                   "the interval is outside the period");
        for (size_t j = 0; j < i; j++)
            if (d->from < in->down[j].to && in->down[j].from < d->to)
                return sked__error_set(err, SKED_EINVAL, field, -1,
                                       "the interval overlaps down[%zu]", j);
    }
    return 0;
}

/* Return when the server decides an occurrence due at T: at T, or at the
 * end of the down interval holding T. */
static sked_time decision_time(const sked_sim_in *in, sked_time t)
{
    for (size_t i = 0; i < in->ndown; i++)
        if (in->down[i].from <= t && t < in->down[i].to)
            return in->down[i].to;
    return t;
}

/* Make one decision at T and record it. Returns 0, an error, or 1 when
 * the schedule is done. *next gets the next instant due. */
static int decide_at(sim *m, sked_time t, sked_time *next, sked_error *err)
{
    sked_policy_in pin = {.s = &m->w,
                          .tz = m->in->tz,
                          .now = t,
                          .tick = m->in->tick,
                          .days = m->in->days};
    sked_time from = m->w.last_fired_at;
    sked_policy_out o;
    int rc;

    if (runs_advance(&m->r, t) != 0)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    pin.active_runs = (int) (m->r.n + (size_t) m->r.waiting);
    pin.buffered_runs = (int) m->r.waiting;
    if ((rc = sked__policy_plan(&pin, &o)) != 0)
        return sked__error_set(err, rc, sked_spec_kind_name(m->w.kind), -1,
                               "the schedule's time spec does not load");
    rc = record_decision(m, &o, from, t, err);
    if (rc == 0 && runs_fire(&m->r, &o, t) != 0)
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    m->w.last_fired_at = o.cursor;
    m->w.next_fire_at = o.next;
    m->w.runs_created += (int64_t) o.nfires;
    *next = o.more ? t : o.next;
    if (rc == 0 && o.done)
        rc = 1;
    sked__policy_done(&o);
    return rc;
}

/* Start the working copy: decided up to from, nothing active. */
static void sim_start(sim *m, const sked_sim_in *in)
{
    m->in = in;
    m->w = *in->s;
    m->w.status = SKED_SCHEDULE_ACTIVE;
    m->w.last_fired_at = in->from;
    m->w.next_fire_at = SKED_TIME_NONE;
    m->w.created_at = in->from;
    m->w.runs_created = 0;
    m->r.duration = in->run_duration;
    m->max = in->max_records ? in->max_records : SKED_SIM_RECORDS_MAX;
}

int sked__simulate(const sked_sim_in *in, sked_sim_out *out, sked_error *err)
{
    sim m = {0};
    sked_time next = SKED_TIME_NONE;
    int rc;

    if (!in || !in->s || !out)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, NULL);
    if ((rc = check_in(in, err)) != 0)
        return rc;
    sim_start(&m, in);
    /* A decision at from finds nothing to decide and the first due. */
    rc = decide_at(&m, in->from, &next, err);
    while (rc == 0 && next != SKED_TIME_NONE && next <= in->to)
        rc = decide_at(&m, decision_time(in, next), &next, err);
    free(m.r.end);
    if (rc < 0) {
        free(m.rec);
        return rc;
    }
    *out = (sked_sim_out){.records = m.rec, .n = m.n};
    return 0;
}
