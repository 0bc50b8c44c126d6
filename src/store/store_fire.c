/* SPDX-License-Identifier: MIT */
/* What the scheduler asks of the store (store.h, "firing"): the heads of
 * changed schedules, the firing transaction, runs created by a trigger or
 * a backfill, and counts of active runs.
 *
 * The firing transaction, the plan: lock the rows of a batch of due
 * schedules in name order (so two servers firing overlapping batches
 * cannot deadlock), and for each row still active ask the caller's
 * decide function what to do with the row as it is now, under the lock.
 * Two servers deciding the same occurrences are thus serialised: the
 * second reads the cursor the first committed and decides nothing twice.
 * Then insert the decided runs (ON CONFLICT DO NOTHING), move the cursor
 * with a compare-and-set on last_fired_at (a failed set means the lock
 * did not hold: the whole transaction is retried from the read), and
 * write the events, all before the one commit. Each of those writes is
 * one set-based call for the whole batch (one round trip on PostgreSQL,
 * not one per row). Runs refused by the active-key index (overlap skip,
 * SPEC 3.4) are dropped as "overlap" and counted with the occurrences the
 * policy dropped for that reason. A firing of an overlap cancel_other
 * that created runs cancels the schedule's other active runs in the same
 * transaction (store_run.c). Then the rows' deadlines are checked
 * (store_deadline.c). The skipped occurrences of the batch's rows
 * (sked schedule skip) are read in one query and handed to decide. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/json_obj.h"
#include "model/calbook.h"
#include "store/store_int.h"

#define HEAD_PAGE 5000
/* Runs inserted by one statement of the firing transaction. */
#define RUN_CHUNK 1000

void sked__schedule_heads_free(sked_schedule_head *list, size_t n)
{
    for (size_t i = 0; list && i < n; i++) {
        free(list[i].name);
        free(list[i].cron);
        free(list[i].timezone);
    }
    free(list);
}

void sked__firing_done(sked_firing *f)
{
    if (!f)
        return;
    for (size_t i = 0; f->runs && i < f->nruns; i++)
        free((char *) f->runs[i].id);
    free(f->runs);
    free(f->state);
    free(f->disable);
    free(f->key);
    memset(f, 0, sizeof *f);
}

/* ---- the heads scan ----------------------------------------------------- */

struct heads_arg {
    sked_time since;
    const char *after;
    sked_schedule_head *page;
    size_t n;
};

static int heads_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct heads_arg *a = arg;

    sked__schedule_heads_free(a->page, a->n);
    a->page = NULL;
    a->n = 0;
    return st->ops->schedule_heads(tx, a->since, a->after, HEAD_PAGE, &a->page,
                                   &a->n, err);
}

int sked__store_schedule_scan(sked_store *st, sked_time since, sked_head_fn fn,
                              void *ctx, sked_error *err)
{
    struct heads_arg a = {.since = since};
    char *after = NULL;
    int rc;

    for (;;) {
        size_t n;
        rc = sked__store_run_tx(st, SKED__TX_READ, heads_tx, &a, err);
        for (size_t i = 0; rc == 0 && i < a.n; i++)
            rc = fn(ctx, &a.page[i]);
        n = a.n;
        free(after);
        after = NULL;
        if (rc == 0 && n == HEAD_PAGE &&
            !(after = sked__strdup(a.page[n - 1].name)))
            rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
        sked__schedule_heads_free(a.page, a.n);
        a.page = NULL;
        a.n = 0;
        if (rc != 0 || n < HEAD_PAGE)
            break;
        a.after = after;
    }
    free(after);
    return rc;
}

/* ---- events ------------------------------------------------------------ */

/* The event schedule.occurrences_missed of M for schedule NAME. */
static int ev_missed(sked__ev_list *l, const char *name,
                     const sked_fire_miss *m, sked_time now, sked_error *err)
{
    sked_jobj o = {0};

    sked__jobj_str(&o, "schedule", name);
    sked__jobj_str(&o, "reason", m->reason);
    sked__jobj_int(&o, "count", m->count);
    sked__jobj_time(&o, "first", m->first);
    sked__jobj_time(&o, "last", m->last);
    return sked__ev_add(l, "schedule.occurrences_missed", name,
                        sked__jobj_take(&o), now, err);
}

/* The event schedule.disabled of NAME, with REASON. */
static int ev_disabled(sked__ev_list *l, const char *name, const char *reason,
                       sked_time now, sked_error *err)
{
    sked_jobj o = {0};

    sked__jobj_str(&o, "name", name);
    sked__jobj_str(&o, "reason", reason);
    return sked__ev_add(l, "schedule.disabled", name, sked__jobj_take(&o), now,
                        err);
}

/* ---- the firing transaction --------------------------------------------- */

typedef struct by_name {
    const char *name;
    size_t i; /* index in the caller's order */
} by_name;

static int cmp_by_name(const void *x, const void *y)
{
    return strcmp(((const by_name *) x)->name, ((const by_name *) y)->name);
}

struct fire_arg {
    by_name *order; /* sorted */
    const char **sorted;
    size_t n;
    sked_fire_decide_fn decide;
    void *ctx;
    sked_firing *out; /* n, caller's order */
    sked__ev_list ev;
    sked_time now;
    /* The calendars, read once per attempt, when a row names any. */
    struct sked__calbook *book;
};

/* Return the caller's index of NAME, or n. */
static size_t index_of(const struct fire_arg *a, const char *name)
{
    by_name key = {name, 0};
    by_name *hit = bsearch(&key, a->order, a->n, sizeof *a->order, cmp_by_name);

    return hit ? hit->i : a->n;
}

/* Add the runs refused by the key index to F's "overlap" entry. */
static void merge_refused(sked_firing *f)
{
    sked_fire_miss m = {"overlap", 0, SKED_TIME_NONE, SKED_TIME_NONE};
    size_t k;

    for (size_t i = 0; i < f->nruns; i++) {
        if (f->state[i] != SKED_RUN_REFUSED)
            continue;
        sked_time t = f->runs[i].occurrence != 0 &&
                              f->runs[i].occurrence != SKED_TIME_NONE
                          ? f->runs[i].occurrence
                          : f->runs[i].scheduled_for;
        if (m.count == 0 || t < m.first)
            m.first = t;
        if (m.count == 0 || t > m.last)
            m.last = t;
        m.count++;
    }
    if (m.count == 0)
        return;
    for (k = 0; k < f->nmissed; k++)
        if (strcmp(f->missed[k].reason, "overlap") == 0)
            break;
    if (k == f->nmissed) {
        if (k == SKED_FIRE_MISS_MAX)
            return; /* cannot happen: there are five reasons */
        f->missed[f->nmissed++] = m;
        return;
    }
    if (f->missed[k].count == 0 || m.first < f->missed[k].first)
        f->missed[k].first = m.first;
    if (f->missed[k].count == 0 || m.last > f->missed[k].last)
        f->missed[k].last = m.last;
    f->missed[k].count += m.count;
}

/* What the firing transaction does with one locked row. */
typedef enum fire_kind {
    FIRE_NONE = 0, /* not active, or nothing to change */
    FIRE_WRITE,    /* runs, events and a cursor move */
    FIRE_DISABLE,  /* a disabled row and its event */
} fire_kind;

/* One locked row and its outcome. */
typedef struct fire_row {
    const sked_schedule *s; /* borrowed: the locked rows */
    sked_firing *f;         /* borrowed: the caller's */
    fire_kind kind;
} fire_row;

/* Tell whether F changes nothing in the row S. */
static bool fire_is_noop(const sked_schedule *s, const sked_firing *f)
{
    return f->nruns == 0 && f->nmissed == 0 && f->cursor == s->last_fired_at &&
           f->next_fire_at == s->next_fire_at && f->status == s->status;
}

/* Count into ACTIVE[r] the active runs of each locked row r whose
 * overlap policy asks (not allow), in one call for the batch; 0 for the
 * others. */
static int fire_counts(sked_store *st, sked__tx *tx,
                       const sked_schedule *locked, size_t n, int64_t *active,
                       sked_error *err)
{
    const char **names = sked__malloc((n ? n : 1) * sizeof *names);
    size_t *row = sked__malloc((n ? n : 1) * sizeof *row), k = 0;
    int64_t *counts = sked__calloc(n ? n : 1, sizeof *counts);
    int rc = 0;

    if (!names || !row || !counts)
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    for (size_t r = 0; rc == 0 && r < n; r++) {
        active[r] = 0;
        if (locked[r].status == SKED_SCHEDULE_ACTIVE &&
            locked[r].overlap != SKED_OVERLAP_ALLOW) {
            names[k] = locked[r].name;
            row[k++] = r;
        }
    }
    if (rc == 0 && k > 0)
        rc = st->ops->runs_active(tx, names, k, counts, err);
    for (size_t j = 0; rc == 0 && j < k; j++)
        active[row[j]] = counts[j];
    free(names);
    free(row);
    free(counts);
    return rc;
}

/* The skipped occurrences of a batch's locked rows, read in one call:
 * sorted by schedule, then occurrence, with their instants in AT. */
typedef struct fire_skips {
    sked_skip *list; /* owned */
    sked_time *at;   /* owned, n */
    size_t n;
} fire_skips;

static void fire_skips_done(fire_skips *k)
{
    sked_skips_free(k->list, k->n);
    free(k->at);
    memset(k, 0, sizeof *k);
}

/* Read the skips of every active row of LOCKED (N rows) into K: one
 * query for the batch, nothing more when there is none. */
static int fire_skips_read(sked_store *st, sked__tx *tx,
                           const sked_schedule *locked, size_t n, fire_skips *k,
                           sked_error *err)
{
    const char **names = sked__malloc((n ? n : 1) * sizeof *names);
    size_t m = 0;
    int rc = 0;

    if (!names)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    for (size_t r = 0; r < n; r++)
        if (locked[r].status == SKED_SCHEDULE_ACTIVE)
            names[m++] = locked[r].name;
    if (m > 0)
        rc = st->ops->skips_read(tx, names, m, &k->list, &k->n, err);
    free(names);
    if (rc != 0 || k->n == 0)
        return rc;
    sked__skips_sort(k->list, k->n);
    if (!(k->at = sked__malloc(k->n * sizeof *k->at)))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    for (size_t i = 0; i < k->n; i++)
        k->at[i] = k->list[i].occurrence;
    return 0;
}

/* Store in *first and *count the skips of K that are NAME's. */
static void fire_skips_of(const fire_skips *k, const char *name, size_t *first,
                          size_t *count)
{
    size_t lo = 0, hi = k->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(k->list[mid].schedule, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *first = lo;
    while (hi < k->n && strcmp(k->list[hi].schedule, name) == 0)
        hi++;
    *count = hi - lo;
}

/* Decide the locked row S, which has ACTIVE active runs (counted when
 * its overlap policy is not allow), into F: how it fires, under the
 * lock, with its skipped occurrences from SKIPS. */
static int fire_decide(sked_store *st, sked__tx *tx, struct fire_arg *a,
                       const sked_schedule *s, int64_t active,
                       const fire_skips *skips, sked_firing *f, fire_kind *kind,
                       sked_error *err)
{
    size_t first = 0, nskips = 0;
    sked__occ_days days;
    sked_error cal_err;
    int rc;

    *kind = FIRE_NONE;
    f->found = true;
    f->status = s->status;
    f->cursor = s->last_fired_at;
    f->next_fire_at = s->next_fire_at;
    f->deadline_check_at = s->deadline_check_at;
    if (s->status != SKED_SCHEDULE_ACTIVE)
        return 0;
    /* A calendar gone (deleted on a server that did not know the
     * schedule used it) disables the schedule, as a zone gone does. */
    sked_error_clear(&cal_err);
    rc = sked__store_days_with(st, tx, s, &a->book, &days, &cal_err);
    if (rc == SKED_ENOTFOUND) {
        char msg[SKED_ERROR_MSG_MAX + 64];
        (void) snprintf(msg, sizeof msg, "%s: %s", cal_err.field, cal_err.msg);
        if (!(f->disable = sked__strdup(msg)))
            return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    } else if (rc != 0) {
        *err = cal_err;
        return rc;
    } else {
        fire_skips_of(skips, s->name, &first, &nskips);
        rc = a->decide(a->ctx, s, days.exclude || days.only ? &days : NULL,
                       nskips ? &skips->at[first] : NULL, nskips, active, f);
        if (rc != 0)
            return rc;
    }
    f->found = true;
    if (f->disable) {
        f->status = SKED_SCHEDULE_DISABLED;
        f->next_fire_at = SKED_TIME_NONE;
        f->cursor = s->last_fired_at;
        *kind = FIRE_DISABLE;
    } else if (!fire_is_noop(s, f)) {
        *kind = FIRE_WRITE;
    }
    return 0;
}

/* Insert the runs of every row to write, RUN_CHUNK to a statement, in
 * row order (the order one statement per row inserted them in), and
 * count what happened to them. */
static int fire_runs(sked_store *st, sked__tx *tx, struct fire_arg *a,
                     fire_row *rows, size_t nrows, sked_error *err)
{
    sked_run_new *runs;
    sked_run_insert_state *state;
    size_t total = 0, k = 0;
    int rc = 0;

    for (size_t r = 0; r < nrows; r++)
        if (rows[r].kind == FIRE_WRITE)
            total += rows[r].f->nruns;
    if (total == 0)
        return 0;
    runs = sked__malloc(total * sizeof *runs);
    state = sked__calloc(total, sizeof *state);
    if (!runs || !state) {
        free(runs);
        free(state);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    for (size_t r = 0; r < nrows; r++)
        if (rows[r].kind == FIRE_WRITE && rows[r].f->nruns > 0) {
            memcpy(&runs[k], rows[r].f->runs, rows[r].f->nruns * sizeof *runs);
            k += rows[r].f->nruns;
        }
    for (size_t i = 0; rc == 0 && i < total; i += RUN_CHUNK) {
        size_t m = total - i < RUN_CHUNK ? total - i : RUN_CHUNK;
        rc = st->ops->runs_insert_lenient(tx, &runs[i], m, a->now, &state[i],
                                          err);
    }
    k = 0;
    for (size_t r = 0; rc == 0 && r < nrows; r++) {
        sked_firing *f = rows[r].f;
        if (rows[r].kind != FIRE_WRITE || f->nruns == 0)
            continue;
        f->state = sked__malloc(f->nruns * sizeof *f->state);
        if (!f->state) {
            rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
            break;
        }
        memcpy(f->state, &state[k], f->nruns * sizeof *f->state);
        k += f->nruns;
        for (size_t i = 0; i < f->nruns; i++) {
            f->created += f->state[i] == SKED_RUN_INSERTED;
            f->existed += f->state[i] == SKED_RUN_EXISTED;
            f->refused += f->state[i] == SKED_RUN_REFUSED;
        }
        merge_refused(f);
    }
    free(runs);
    free(state);
    return rc;
}

/* Move the cursors of every row written or disabled, in one call; a
 * compare-and-set that fails means the lock did not hold. */
static int fire_advance(sked_store *st, sked__tx *tx, struct fire_arg *a,
                        const fire_row *rows, size_t nrows, sked_error *err)
{
    sked__advance *adv = sked__malloc((nrows ? nrows : 1) * sizeof *adv);
    bool *applied = sked__calloc(nrows ? nrows : 1, sizeof *applied);
    size_t n = 0;
    int rc = 0;

    if (!adv || !applied) {
        free(adv);
        free(applied);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    for (size_t r = 0; r < nrows; r++) {
        const sked_schedule *s = rows[r].s;
        const sked_firing *f = rows[r].f;
        if (rows[r].kind == FIRE_DISABLE)
            adv[n++] = (sked__advance){.name = s->name,
                                       .expect = s->last_fired_at,
                                       .cursor = s->last_fired_at,
                                       .next = SKED_TIME_NONE,
                                       .status = SKED_SCHEDULE_DISABLED,
                                       .last_error = f->disable,
                                       .updated_at = a->now};
        else if (rows[r].kind == FIRE_WRITE)
            adv[n++] =
                (sked__advance){.name = s->name,
                                .expect = s->last_fired_at,
                                .cursor = f->cursor,
                                .next = f->next_fire_at,
                                .status = f->status,
                                .added = (int64_t) (f->created + f->existed),
                                .updated_at = SKED_TIME_NONE};
    }
    if (n > 0)
        rc = st->ops->schedule_advance(tx, adv, n, applied, err);
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (!applied[i])
            rc = sked__error_set(err, SKED_EBUSY, NULL, -1, "cursor moved");
    free(adv);
    free(applied);
    return rc;
}

/* The events of every row, in row order: each row's run.created, then
 * its missed occurrences; or its schedule.disabled. */
static int fire_events(struct fire_arg *a, const fire_row *rows, size_t nrows,
                       sked_error *err)
{
    int rc = 0;

    for (size_t r = 0; rc == 0 && r < nrows; r++) {
        const sked_schedule *s = rows[r].s;
        const sked_firing *f = rows[r].f;
        if (rows[r].kind == FIRE_DISABLE) {
            rc = ev_disabled(&a->ev, s->name, f->disable, a->now, err);
            continue;
        }
        if (rows[r].kind != FIRE_WRITE)
            continue;
        for (size_t i = 0; rc == 0 && i < f->nruns; i++)
            if (f->state[i] == SKED_RUN_INSERTED)
                rc = sked__ev_run_created(&a->ev, &f->runs[i], a->now, err);
        for (size_t k = 0; rc == 0 && k < f->nmissed; k++)
            if (f->missed[k].count > 0)
                rc = ev_missed(&a->ev, s->name, &f->missed[k], a->now, err);
    }
    return rc;
}

/* The deadlines of every row, any status (a paused schedule's runs keep
 * theirs), after its runs are in (store_deadline.c). */
static int fire_deadlines(sked_store *st, sked__tx *tx, struct fire_arg *a,
                          const fire_row *rows, size_t nrows, sked_error *err)
{
    int rc = 0;

    for (size_t r = 0; rc == 0 && r < nrows; r++)
        rc = sked__store_fire_deadlines(st, tx, rows[r].s, rows[r].f, a->now,
                                        &a->ev, err);
    return rc;
}

/* Overlap cancel_other (SPEC 3.4): a row that created runs cancels the
 * schedule's other active runs; its last run is the one that goes on. */
static int fire_cancel(sked_store *st, sked__tx *tx, struct fire_arg *a,
                       const fire_row *rows, size_t nrows, sked_error *err)
{
    int rc = 0;

    for (size_t r = 0; rc == 0 && r < nrows; r++) {
        const sked_firing *f = rows[r].f;
        if (rows[r].kind != FIRE_WRITE || !f->cancel_others || f->created == 0)
            continue;
        rc = sked__store_cancel_others(st, tx, rows[r].s->name,
                                       f->runs[f->nruns - 1].id, a->now, &a->ev,
                                       err);
    }
    return rc;
}

/* Clear the pointers F's runs borrowed from a row now freed. */
static void forget_row(sked_firing *f)
{
    for (size_t i = 0; i < f->nruns; i++) {
        f->runs[i].workflow = NULL;
        f->runs[i].queue = NULL;
        f->runs[i].context = NULL;
        f->runs[i].schedule = NULL;
        f->runs[i].workflow_version = NULL;
    }
}

/* Lock the rows, decide each, then write them all: the runs, the cursor
 * moves, the events, one set-based call each (a round trip each on
 * PostgreSQL, not one per row). */
static int fire_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct fire_arg *a = arg;
    sked_schedule *locked = NULL;
    fire_skips skips = {0};
    fire_row *rows = NULL;
    int64_t *active = NULL;
    size_t nlocked = 0, nrows = 0;
    int rc;

    sked__ev_reset(&a->ev); /* from an attempt that failed */
    sked__calbook_release(a->book);
    a->book = NULL;
    for (size_t i = 0; i < a->n; i++)
        sked__firing_done(&a->out[i]);
    a->now = sked__store_now(st);
    rc = st->ops->schedule_lock(tx, a->sorted, a->n, &locked, &nlocked, err);
    if (rc == 0 &&
        (!(rows = sked__calloc(nlocked ? nlocked : 1, sizeof *rows)) ||
         !(active = sked__calloc(nlocked ? nlocked : 1, sizeof *active))))
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (rc == 0)
        rc = fire_counts(st, tx, locked, nlocked, active, err);
    if (rc == 0)
        rc = fire_skips_read(st, tx, locked, nlocked, &skips, err);
    for (size_t r = 0; rc == 0 && r < nlocked; r++) {
        size_t i = index_of(a, locked[r].name);
        if (i >= a->n)
            continue;
        rows[nrows] = (fire_row){.s = &locked[r], .f = &a->out[i]};
        rc = fire_decide(st, tx, a, &locked[r], active[r], &skips, &a->out[i],
                         &rows[nrows].kind, err);
        nrows++;
    }
    if (rc == 0)
        rc = fire_runs(st, tx, a, rows, nrows, err);
    if (rc == 0)
        rc = fire_advance(st, tx, a, rows, nrows, err);
    if (rc == 0)
        rc = fire_events(a, rows, nrows, err);
    if (rc == 0)
        rc = fire_cancel(st, tx, a, rows, nrows, err);
    if (rc == 0)
        rc = fire_deadlines(st, tx, a, rows, nrows, err);
    free(rows);
    free(active);
    fire_skips_done(&skips);
    sked__schedules_free(locked, nlocked);
    for (size_t i = 0; i < a->n; i++)
        forget_row(&a->out[i]);
    if (rc == 0)
        rc = sked__ev_flush(st, tx, &a->ev, err);
    return rc;
}

/* Sort NAMES into A (order and sorted); names must be distinct. */
static int fire_prepare(const char *const *names, size_t n, struct fire_arg *a,
                        sked_error *err)
{
    a->order = sked__malloc(n * sizeof *a->order);
    a->sorted = sked__malloc(n * sizeof *a->sorted);
    if (!a->order || !a->sorted)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    for (size_t i = 0; i < n; i++)
        a->order[i] = (by_name){names[i], i};
    qsort(a->order, n, sizeof *a->order, cmp_by_name);
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && strcmp(a->order[i - 1].name, a->order[i].name) == 0)
            return sked__error_set(err, SKED_EINVAL, "names", -1,
                                   "\"%.80s\" is given twice",
                                   a->order[i].name);
        a->sorted[i] = a->order[i].name;
    }
    a->n = n;
    return 0;
}

int sked__store_fire(sked_store *st, const char *const *names, size_t n,
                     sked_fire_decide_fn decide, void *ctx, sked_firing *out,
                     sked_event **out_events, size_t *out_nevents,
                     sked_error *err)
{
    struct fire_arg a = {.decide = decide, .ctx = ctx, .out = out};
    int rc;

    if (n == 0)
        return 0;
    if (!names || !decide || !out || n > SKED_STORE_BATCH_MAX)
        return sked__error_set(err, SKED_EINVAL, "names", -1,
                               "a firing holds 1 to %d schedules",
                               SKED_STORE_BATCH_MAX);
    memset(out, 0, n * sizeof *out);
    rc = fire_prepare(names, n, &a, err);
    if (rc == 0)
        rc = sked__store_run_tx(st, SKED__TX_WRITE, fire_tx, &a, err);
    if (rc != 0) {
        for (size_t i = 0; i < n; i++)
            sked__firing_done(&out[i]);
        sked__ev_reset(&a.ev);
    } else {
        sked__ev_give(&a.ev, out_events, out_nevents);
    }
    sked__calbook_release(a.book);
    free(a.order);
    free(a.sorted);
    return rc;
}

/* ---- runs outside the scheduler ----------------------------------------- */

struct create_arg {
    const sked_run_new *runs;
    size_t n;
    bool strict;
    sked_run_insert_state *state; /* n, ours */
    sked__ev_list ev;
};

static int create_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct create_arg *a = arg;
    sked_time now = sked__store_now(st);
    int rc;

    sked__ev_reset(&a->ev);
    rc = st->ops->runs_insert_lenient(tx, a->runs, a->n, now, a->state, err);
    for (size_t i = 0; rc == 0 && i < a->n; i++) {
        if (a->state[i] == SKED_RUN_REFUSED && a->strict)
            return sked__error_set(
                err, SKED_ECONFLICT, "concurrency_key", (long) i,
                "an active run holds the concurrency key \"%.100s\"",
                a->runs[i].concurrency_key ? a->runs[i].concurrency_key : "");
        if (a->state[i] == SKED_RUN_INSERTED)
            rc = sked__ev_run_created(&a->ev, &a->runs[i], now, err);
    }
    if (rc == 0)
        rc = sked__ev_flush(st, tx, &a->ev, err);
    return rc;
}

int sked__store_runs_create(sked_store *st, const sked_run_new *runs, size_t n,
                            bool strict, sked_run_insert_state *state,
                            sked_event **out_events, size_t *out_nevents,
                            sked_error *err)
{
    struct create_arg a = {.runs = runs, .n = n, .strict = strict};
    int rc;

    if (n == 0)
        return 0;
    if (!runs || n > SKED_STORE_BATCH_MAX)
        return sked__error_set(err, SKED_EINVAL, "runs", -1,
                               "a batch holds 1 to %d runs",
                               SKED_STORE_BATCH_MAX);
    a.state = sked__calloc(n, sizeof *a.state);
    if (!a.state)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    rc = sked__store_run_shared(st, create_tx, &a, err);
    if (rc == 0 && state)
        memcpy(state, a.state, n * sizeof *state);
    if (rc == 0)
        sked__ev_give(&a.ev, out_events, out_nevents);
    else
        sked__ev_reset(&a.ev);
    free(a.state);
    return rc;
}

struct clock_arg {
    sked_time t;
};

static int clock_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    return st->ops->db_clock(tx, &((struct clock_arg *) arg)->t, err);
}

int sked__store_db_clock(sked_store *st, sked_time *out, sked_error *err)
{
    struct clock_arg a = {0};
    int rc;

    if (!st->ops->db_clock)
        return sked__error_set(err, SKED_EINVAL, "db", -1,
                               "%s has no server clock", st->ops->kind);
    rc = sked__store_run_tx(st, SKED__TX_READ, clock_tx, &a, err);
    if (rc == 0)
        *out = a.t;
    return rc;
}

/* ---- notifications --------------------------------------------------------*/

struct sked_listener {
    const struct sked__store_ops *ops; /* borrowed: static */
    void *impl;                        /* owned by the back-end */
};

int sked__store_listen(sked_store *st, const char *channel, sked_listener **out,
                       sked_error *err)
{
    sked_listener *l;
    int rc;

    if (!st->ops->listen_open)
        return sked__error_set(err, SKED_EINVAL, "db", -1,
                               "%s has no notifications", st->ops->kind);
    l = sked__calloc(1, sizeof *l);
    if (!l)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    l->ops = st->ops;
    rc = st->ops->listen_open(st->b, channel, &l->impl, err);
    if (rc != 0) {
        free(l);
        return rc;
    }
    *out = l;
    return 0;
}

int sked__listener_wait(sked_listener *l, sked_dur timeout,
                        void (*fn)(void *ctx, const char *payload), void *ctx,
                        sked_error *err)
{
    int64_t ms = timeout / 1000;

    if (ms > INT32_MAX)
        ms = INT32_MAX;
    return l->ops->listen_wait(l->impl, ms < 0 ? 0 : (int) ms, fn, ctx, err);
}

void sked__listener_wake(sked_listener *l)
{
    if (l)
        l->ops->listen_wake(l->impl);
}

void sked__listener_close(sked_listener *l)
{
    if (!l)
        return;
    l->ops->listen_close(l->impl);
    free(l);
}
