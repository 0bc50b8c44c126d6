/* SPDX-License-Identifier: MIT */
/* The executor's pure decisions (plan.h). */
#include "exec/plan.h"

#include <math.h>
#include <string.h>

#include "base/hash.h"

static bool attempt_counts(const sked_step_record *r)
{
    return !(r->error_code && (strcmp(r->error_code, "lease_expired") == 0 ||
                               strcmp(r->error_code, "interrupted") == 0));
}

static void note_compensation(sked_step_state *s, const sked_step_record *r)
{
    if (r->attempt > s->comp_last_attempt)
        s->comp_last_attempt = r->attempt;
    if (r->status == SKED_STEP_COMPLETED)
        s->compensated = true;
    else if (r->status != SKED_STEP_RUNNING && attempt_counts(r))
        s->comp_counted++;
}

static void note_attempt(sked_step_state *s, const sked_step_record *r)
{
    if (r->attempt > s->last_attempt)
        s->last_attempt = r->attempt;
    if (attempt_counts(r) && r->status != SKED_STEP_RUNNING)
        s->counted++;
    switch (r->status) {
    case SKED_STEP_COMPLETED:
        s->completed = true;
        s->completed_at = r->finished_at;
        s->output = r->output;
        break;
    case SKED_STEP_RUNNING:
        s->running = true;
        s->running_since = r->started_at;
        break;
    default:
        break;
    }
}

void sked__plan_states(const sked_workflow *w, const sked_step_record *rec,
                       size_t n, sked_step_state *states)
{
    memset(states, 0, w->nsteps * sizeof *states);
    for (size_t i = 0; i < w->nsteps; i++)
        states[i].completed_at = states[i].running_since = SKED_TIME_NONE;
    for (size_t i = 0; i < n; i++) {
        int k = sked__workflow_step_index(w, rec[i].step);
        if (k < 0)
            continue;
        if (rec[i].compensation)
            note_compensation(&states[k], &rec[i]);
        else
            note_attempt(&states[k], &rec[i]);
    }
    /* A step whose attempts all failed and that has none left. */
    for (size_t i = 0; i < w->nsteps; i++) {
        sked_step_state *s = &states[i];
        s->exhausted = !s->completed && !s->running &&
                       s->counted >= w->steps[i].act.retry.attempts;
        /* A compensation that ran out of attempts is done too: its
         * failure is recorded, and the failure path goes on. */
        if (w->steps[i].compensate &&
            s->comp_counted >= w->steps[i].compensate->retry.attempts)
            s->compensated = true;
    }
}

sked_timeout_state sked__plan_timeout(const sked_workflow *w, sked_time started,
                                      sked_time now)
{
    if (w->timeout <= 0 || started == SKED_TIME_NONE)
        return SKED_TIMEOUT_OK;
    /* Strictly greater (SPEC 4.3): a run at exactly its limit goes on. */
    if (now - started <= w->timeout)
        return SKED_TIMEOUT_OK;
    return w->fail_workflow ? SKED_TIMEOUT_FAIL : SKED_TIMEOUT_SOFT;
}

sked_time sked__plan_hard_deadline(const sked_workflow *w, sked_time started)
{
    if (w->timeout <= 0 || !w->hard || !w->fail_workflow ||
        started == SKED_TIME_NONE)
        return SKED_TIME_NONE;
    /* The first instant at which elapsed > seconds (SPEC 4.3: strictly
     * greater). At exactly the limit the run goes on, so its step must
     * not be stopped then, nor a waiting run woken to fail too early. */
    return started + w->timeout + 1;
}

sked_time sked__plan_min_deadline(sked_time a, sked_time b)
{
    if (a == SKED_TIME_NONE)
        return b;
    if (b == SKED_TIME_NONE)
        return a;
    return a < b ? a : b;
}

static bool needs_met(const sked_workflow *w, size_t i,
                      const sked_step_state *states)
{
    for (size_t k = 0; k < w->steps[i].nneeds; k++)
        if (!states[w->steps[i].needs[k]].completed)
            return false;
    return true;
}

sked_plan_state sked__plan_next(const sked_workflow *w,
                                const sked_step_state *states, const bool *busy,
                                size_t *ready, size_t max, size_t *n,
                                size_t *failed)
{
    bool all_done = true, any_busy = false, any_held = false;
    *n = 0;
    for (size_t i = 0; i < w->nsteps; i++) {
        const sked_step_state *s = &states[i];
        if (s->completed)
            continue;
        all_done = false;
        if (busy && busy[i]) {
            any_busy = true;
            continue;
        }
        if (s->exhausted) {
            *failed = i;
            return SKED_PLAN_FAILED;
        }
        if (!needs_met(w, i, states))
            continue;
        if (*n < max)
            ready[(*n)++] = i;
        else
            any_held = true;
    }
    if (all_done)
        return SKED_PLAN_DONE;
    if (*n > 0)
        return SKED_PLAN_READY;
    /* A step held back by MAX waits for room, as for a running one: the
     * run has not failed. */
    if (any_busy || any_held)
        return SKED_PLAN_BUSY;
    /* Nothing ready, nothing running: the unmet needs can never be met
     * (cannot happen in a DAG whose steps all eventually complete). Name
     * the first step left, so *failed is always set with FAILED. */
    for (size_t i = 0; i < w->nsteps; i++)
        if (!states[i].completed) {
            *failed = i;
            break;
        }
    return SKED_PLAN_FAILED;
}

/* A number in [0, 1) from KEY and ATTEMPT, the same on every server. */
static double unit_hash(const char *key, int32_t attempt)
{
    /* The attempt goes in before the finaliser, so that attempts of one
     * step draw unrelated delays. */
    uint64_t h =
        sked__hash_mix(sked__hash_fnv1a(key) ^
                       (uint64_t) attempt * UINT64_C(0x9E3779B97F4A7C15));

    return (double) (h >> 11) / 9007199254740992.0;
}

static bool retry_on_matches(const sked_retry_def *r, const sked_failure *f)
{
    if (r->nretry_on == 0)
        return true;
    if (!f->has_code)
        return false;
    for (size_t i = 0; i < r->nretry_on; i++)
        if (r->retry_on[i] == f->code)
            return true;
    return false;
}

bool sked__plan_retry(const sked_retry_def *r, int32_t attempt,
                      const sked_failure *f, const char *key, sked_dur *delay)
{
    *delay = 0;
    if (attempt >= r->attempts || !retry_on_matches(r, f))
        return false;
    double d = (double) r->backoff * pow(r->multiplier, attempt - 1);
    if (r->max_backoff > 0 && d > (double) r->max_backoff)
        d = (double) r->max_backoff;
    if (d > 366.0 * 86400 * SKED_USEC_PER_SEC)
        d = 366.0 * 86400 * SKED_USEC_PER_SEC;
    if (r->jitter)
        d = d / 2 + d / 2 * unit_hash(key, attempt);
    *delay = (sked_dur) d;
    return true;
}

size_t sked__plan_compensations(const sked_workflow *w,
                                const sked_step_state *states, size_t *order)
{
    size_t n = 0;
    for (size_t i = 0; i < w->nsteps; i++)
        if (states[i].completed && w->steps[i].compensate &&
            !states[i].compensated)
            order[n++] = i;
    /* Insertion sort, latest completion first; n is small. */
    for (size_t i = 1; i < n; i++) {
        size_t v = order[i], k = i;
        while (k > 0 &&
               (states[order[k - 1]].completed_at < states[v].completed_at ||
                (states[order[k - 1]].completed_at == states[v].completed_at &&
                 order[k - 1] < v))) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = v;
    }
    return n;
}
