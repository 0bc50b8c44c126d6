/* SPDX-License-Identifier: MIT */
/* Deadlines and heartbeats in the store (store.h, schema 0012).
 *
 * A deadline check is part of the firing transaction (store_fire.c): a
 * locked row whose deadline_check_at has come reads its runs due
 * (runs_deadline, by schedule), judges each (model/deadline.h), marks it,
 * writes schedule.deadline_missed for each miss and fails a heartbeat
 * run that had no ping, then sets the row's next check to the least
 * deadline of its runs. The row's lock makes the check once across
 * servers, as it makes firing once. A firing that created runs with
 * deadlines sets the next check the same way.
 *
 * A heartbeat run that ends, by its ping or by its deadline, counts as an
 * executed run's end does: a failure adds to the schedule's consecutive
 * failures and may pause it (pause_after_failures), a success resets
 * them (sked__store_count_end).
 *
 * A ping (sked__store_heartbeat_ping) locks its schedule's row too, then
 * finds the run it is for: the latest open heartbeat run of an occurrence
 * at or before now; else the earliest of the next minute; else it makes
 * the run of the schedule's next occurrence when that is at most a minute
 * ahead (clocks differ), with the id firing gives it, so that the firing
 * finds it made. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/json_obj.h"
#include "model/deadline.h"
#include "store/store_int.h"

/* Runs one check reads for a schedule; more are left for the next pass. */
#define DUE_MAX 500
/* How far ahead of its occurrence a ping may come. */
#define PING_AHEAD (INT64_C(60) * SKED_USEC_PER_SEC)

/* The event schedule.deadline_missed of run R: which DEADLINE ("start"
 * or "completion") and the state R was in. */
static int ev_missed(sked__ev_list *ev, const sked_run *r, const char *deadline,
                     sked_time now, sked_error *err)
{
    sked_jobj o = {0};

    sked__jobj_str(&o, "schedule", r->schedule);
    sked__jobj_time(&o, "occurrence",
                    r->occurrence != SKED_TIME_NONE ? r->occurrence
                                                    : r->scheduled_for);
    sked__jobj_str(&o, "run", r->id);
    sked__jobj_str(&o, "deadline", deadline);
    sked__jobj_str(&o, "state", sked__run_status_name(r->status));
    return sked__ev_add(ev, "schedule.deadline_missed", r->schedule,
                        sked__jobj_take(&o), now, err);
}

/* The event run.completed or run.failed of R ending at NOW, with the
 * executor's payload (exec/run_record.c) so that metrics count it. */
static int ev_finished(sked__ev_list *ev, const sked_run *r,
                       sked_run_status status, const char *error,
                       const char *code, sked_time now, sked_error *err)
{
    sked_jobj o = {0};

    sked__jobj_str(&o, "workflow", r->workflow);
    sked__jobj_str(&o, "schedule", r->schedule);
    if (r->started_at != SKED_TIME_NONE)
        sked__jobj_secs(&o, "duration_secs", now - r->started_at);
    if (error) {
        sked__jobj_str(&o, "error", error);
        sked__jobj_str(&o, "error_code", code);
    }
    return sked__ev_add(
        ev, status == SKED_RUN_COMPLETED ? "run.completed" : "run.failed",
        r->id, sked__jobj_take(&o), now, err);
}

/* The misses of R after V, joined with those already stored. */
static const char *missed_word(const sked_run *r,
                               const sked__deadline_verdict *v)
{
    sked__deadline_verdict all = *v;

    if (r->deadline_missed) {
        all.missed_start |= strstr(r->deadline_missed, "start") != NULL;
        all.missed_completion |=
            strstr(r->deadline_missed, "completion") != NULL;
    }
    return sked__deadline_missed_word(&all);
}

/* Judge run R of S at NOW and write what it found; *missed counts its
 * misses. A heartbeat run it fails counts as a failed run of S, which
 * may pause S (*paused set, never cleared). */
static int check_run(sked_store *st, sked__tx *tx, const sked_schedule *s,
                     const sked_run *r, sked_time now, sked__ev_list *ev,
                     int *missed, bool *paused, sked_error *err)
{
    bool now_paused = false;
    sked__deadline_verdict v = sked__deadline_judge(s, r, now);
    char why[160], d[32];
    sked__run_mark m = {.id = r->id,
                        .status = -1,
                        .started_at = SKED_TIME_NONE,
                        .finished_at = SKED_TIME_NONE,
                        .deadline_set = true,
                        .deadline_at = v.next,
                        .deadline_missed = missed_word(r, &v)};
    int rc = 0;

    *missed = v.missed_start + v.missed_completion;
    if (v.fail) {
        if (sked_dur_format(s->deadline, d, sizeof d) < 0)
            (void) snprintf(d, sizeof d, "its deadline");
        (void) snprintf(why, sizeof why, "No ping within %s of its occurrence.",
                        d);
        m.status = SKED_RUN_FAILED;
        m.finished_at = now;
        m.error = why;
        m.error_code = "deadline_missed";
    }
    rc = st->ops->run_mark(tx, &m, now, err);
    if (rc == 0 && v.missed_start)
        rc = ev_missed(ev, r, "start", now, err);
    if (rc == 0 && v.missed_completion)
        rc = ev_missed(ev, r, "completion", now, err);
    if (rc == 0 && v.fail)
        rc = ev_finished(ev, r, SKED_RUN_FAILED, why, m.error_code, now, err);
    if (rc == 0 && v.fail)
        rc = sked__store_count_end(st, tx, r->schedule, SKED_RUN_FAILED, now,
                                   ev, &now_paused, err);
    *paused |= now_paused;
    return rc;
}

/* Check the runs of the locked row S due at NOW; *missed, *last: the
 * misses found and the latest occurrence that missed; *paused: S was
 * paused for its failed runs. */
static int check_due(sked_store *st, sked__tx *tx, const sked_schedule *s,
                     sked_time now, sked__ev_list *ev, int64_t *missed,
                     sked_time *last, bool *paused, sked_error *err)
{
    sked_run *runs = NULL;
    size_t n = 0;
    int rc =
        st->ops->runs_deadline_due(tx, s->name, now, DUE_MAX, &runs, &n, err);

    for (size_t i = 0; rc == 0 && i < n; i++) {
        int k = 0;
        rc = check_run(st, tx, s, &runs[i], now, ev, &k, paused, err);
        *missed += k;
        if (k > 0 && (*last == SKED_TIME_NONE || runs[i].scheduled_for > *last))
            *last = runs[i].scheduled_for;
    }
    sked__runs_free(runs, n);
    return rc;
}

/* Whether F created a run with a deadline. */
static bool made_deadlines(const sked_firing *f)
{
    for (size_t i = 0; f->state && i < f->nruns; i++)
        if (f->state[i] == SKED_RUN_INSERTED && f->runs[i].deadline_at != 0 &&
            f->runs[i].deadline_at != SKED_TIME_NONE)
            return true;
    return false;
}

int sked__store_fire_deadlines(sked_store *st, sked__tx *tx,
                               const sked_schedule *s, sked_firing *f,
                               sked_time now, sked__ev_list *ev,
                               sked_error *err)
{
    bool due =
        s->deadline_check_at != SKED_TIME_NONE && s->deadline_check_at <= now;
    sked_time last = SKED_TIME_NONE;
    int64_t missed = 0;
    bool paused = false;
    int rc = 0;

    f->deadline_check_at = s->deadline_check_at;
    if (!due && !made_deadlines(f))
        return 0;
    if (due)
        rc = check_due(st, tx, s, now, ev, &missed, &last, &paused, err);
    /* The loop learns of the pause from the firing, as of a done. */
    if (rc == 0 && paused) {
        f->status = SKED_SCHEDULE_PAUSED;
        f->next_fire_at = SKED_TIME_NONE;
    }
    if (rc == 0)
        rc = st->ops->schedule_deadline_sync(tx, s->name, missed, last,
                                             &f->deadline_check_at, err);
    f->deadlines_missed = missed;
    return rc;
}

/* ---- pings ---------------------------------------------------------------*/

struct ping_arg {
    const char *name;
    sked_ping_status status;
    const char *output;
    sked_run run; /* the run pinged, as left */
    sked__ev_list ev;
};

/* Make the run of S's next occurrence, which is at most PING_AHEAD away
 * at NOW, as firing would; *made false when it existed already. */
static int ping_make(sked_store *st, sked__tx *tx, const sked_schedule *s,
                     sked_time now, struct ping_arg *a, bool *made,
                     sked_error *err)
{
    char id[SKED_RUN_ID_MAX + 1];
    sked_run_insert_state state = SKED_RUN_EXISTED;
    sked_run_new r = {.id = id};
    sked_time check;
    int rc;

    sked__deadline_heartbeat_run(&r, s, s->next_fire_at);
    *made = false;
    if (sked__run_id_scheduled(s->name, s->next_fire_at, id, sizeof id) < 0)
        return sked__error_set(err, SKED_EINVAL, "name", -1, "no run id");
    rc = st->ops->runs_insert_lenient(tx, &r, 1, now, &state, err);
    if (rc != 0 || state != SKED_RUN_INSERTED)
        return rc;
    *made = true;
    rc = sked__ev_run_created(&a->ev, &r, now, err);
    if (rc == 0)
        rc = st->ops->schedule_deadline_sync(tx, s->name, 0, SKED_TIME_NONE,
                                             &check, err);
    if (rc == 0)
        rc = st->ops->run_get(tx, id, true, &a->run, err);
    return rc;
}

/* Find the run a ping of S at NOW is for into A->run. */
static int ping_target(sked_store *st, sked__tx *tx, const sked_schedule *s,
                       sked_time now, struct ping_arg *a, sked_error *err)
{
    char at[SKED_TIME_STRLEN] = "none";
    bool found = false, soon = false;
    int rc = st->ops->heartbeat_open(tx, s->name, SKED_TIME_MIN, now, true,
                                     &a->run, &found, err);

    if (rc == 0 && !found)
        rc = st->ops->heartbeat_open(tx, s->name, now, now + PING_AHEAD, false,
                                     &a->run, &found, err);
    /* A run moved off an excluded day has another id than its time's:
     * such a schedule's runs come from firing only. */
    if (rc == 0 && !found && s->status == SKED_SCHEDULE_ACTIVE &&
        s->next_fire_at != SKED_TIME_NONE &&
        s->next_fire_at <= now + PING_AHEAD &&
        s->on_excluded == SKED_ON_EXCLUDED_SKIP) {
        soon = true;
        rc = ping_make(st, tx, s, now, a, &found, err);
    }
    if (rc != 0 || found)
        return rc;
    if (s->next_fire_at != SKED_TIME_NONE)
        (void) sked_time_format(s->next_fire_at, at, sizeof at);
    /* The next occurrence is near, and its run ended already: an early
     * ping took it. */
    if (soon)
        return sked__error_set(err, SKED_ECONFLICT, "name", -1,
                               "no occurrence of %.128s awaits a ping: none "
                               "is open and the next (%s) was pinged already",
                               s->name, at);
    return sked__error_set(err, SKED_ECONFLICT, "name", -1,
                           "no occurrence of %.128s awaits a ping: none "
                           "is open and the next (%s) is more than a minute "
                           "away",
                           s->name, at);
}

/* Apply the ping of A to A->run at NOW. */
static int ping_apply(sked_store *st, sked__tx *tx, struct ping_arg *a,
                      sked_time now, sked_error *err)
{
    static const char why[] = "The job reported a failure.";
    sked__run_mark m = {.id = a->run.id,
                        .status = SKED_RUN_RUNNING,
                        .started_at = now,
                        .finished_at = SKED_TIME_NONE,
                        .output = a->output};
    sked_run_status end =
        a->status == SKED_PING_SUCCESS ? SKED_RUN_COMPLETED : SKED_RUN_FAILED;
    bool paused;
    int rc;

    if (a->status != SKED_PING_START) {
        m.status = (int) end;
        m.finished_at = now;
        if (end == SKED_RUN_FAILED) {
            m.error = why;
            m.error_code = "ping_failed";
        }
    }
    rc = st->ops->run_mark(tx, &m, now, err);
    if (rc == 0 && a->status == SKED_PING_START &&
        a->run.started_at == SKED_TIME_NONE)
        rc =
            sked__ev_add(&a->ev, "run.started", a->run.id,
                         sked__strdup("{\"trigger\":\"heartbeat\"}"), now, err);
    if (rc == 0 && a->status != SKED_PING_START)
        rc = ev_finished(&a->ev, &a->run, end, m.error, m.error_code, now, err);
    /* As an executed run's end: a success resets the count of
     * consecutive failures, a failure adds to it and may pause. */
    if (rc == 0 && a->status != SKED_PING_START)
        rc = sked__store_count_end(st, tx, a->run.schedule, end, now, &a->ev,
                                   &paused, err);
    return rc;
}

static int ping_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct ping_arg *a = arg;
    sked_time now = sked__store_now(st);
    sked_schedule *s = NULL;
    size_t n = 0;
    int rc;

    sked__ev_reset(&a->ev);
    sked__run_done(&a->run);
    sked__run_init(&a->run);
    rc = st->ops->schedule_lock(tx, &a->name, 1, &s, &n, err);
    if (rc == 0 && n == 0)
        rc = sked__error_set(err, SKED_ENOTFOUND, "name", -1,
                             "no schedule \"%.128s\"", a->name);
    else if (rc == 0 && !s[0].heartbeat)
        rc = sked__error_set(err, SKED_EINVAL, "name", -1,
                             "%.128s is not a heartbeat schedule: it starts "
                             "its own runs",
                             a->name);
    if (rc == 0)
        rc = ping_target(st, tx, &s[0], now, a, err);
    if (rc == 0)
        rc = ping_apply(st, tx, a, now, err);
    sked__schedules_free(s, n);
    if (rc == 0) {
        char *id = sked__strdup(a->run.id);
        sked__run_done(&a->run);
        sked__run_init(&a->run);
        rc = id ? st->ops->run_get(tx, id, false, &a->run, err)
                : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
        free(id);
    }
    if (rc == 0)
        rc = sked__ev_flush(st, tx, &a->ev, err);
    return rc;
}

int sked__store_heartbeat_ping(sked_store *st, const char *name,
                               sked_ping_status status, const char *output,
                               sked_run *out, sked_event **out_events,
                               size_t *out_nevents, sked_error *err)
{
    struct ping_arg a = {.name = name, .status = status, .output = output};
    int rc;

    if (!name || (int) status < 0 || status > SKED_PING_FAIL)
        return sked__error_set(err, SKED_EINVAL, "status", -1,
                               "start, success or fail");
    sked__run_init(&a.run);
    rc = sked__store_run_shared(st, ping_tx, &a, err);
    if (rc != 0) {
        sked__run_done(&a.run);
        sked__ev_reset(&a.ev);
        return rc;
    }
    *out = a.run;
    sked__ev_give(&a.ev, out_events, out_nevents);
    return 0;
}
