/* SPDX-License-Identifier: MIT */
/* Firing decisions (policy.h): catch-up (SPEC 3.3), overlap (SPEC 3.4),
 * bounds and max_runs (SPEC 3.2), jitter. Pure: no clock, no store.
 *
 * The plan. Occurrences after the start and at or before now fall in
 * three ranges by age (now - occurrence): older than the window
 * (outside_window), late (the grace or older), on time (younger than the
 * grace). Every range is counted, not listed, except what may fire: the
 * most recent late ones the catchup policy keeps (found backwards with
 * prev) and the on-time ones. Then the overlap policy runs over that
 * list, oldest first, and max_runs cuts it.
 *
 * Occurrences come from an "occurrence source" per time spec, clamped to
 * start_at/end_at: intervals and one instant are pure arithmetic; cron
 * steps with sked_cron_next/prev, and counts whole local days at once
 * where the zone's offset is constant (see day_span). Each cron step and
 * each listed fire spends one visit of SKED_POLICY_VISITS_MAX.
 *
 * Through calendars the source yields slots (model/schedule_occ.h): each
 * occurrence fires, fires moved to another business day (the plan works
 * on the instant it fires, the run keeps its occurrence) or is dropped as
 * excluded, counted apart from the range it falls in, whatever the
 * catch-up policy. The cursor is the last slot decided, by its instant. */
#include "sched/policy.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "time/civil.h"
#include "model/schedule_occ.h"
#include "tz/zone.h"

#define SEC     SKED_USEC_PER_SEC
#define DAY_SEC INT64_C(86400)
/* A day is counted whole only when its offset holds this long around it:
 * longer than any change of UTC offset (Samoa's 24 h in 2011), so no
 * local time of the day is repeated or skipped. */
#define DAY_MARGIN_SEC (2 * DAY_SEC)
#define GRACE_MIN      (60 * SEC)
/* How far before its occurrence a moved slot may fire (a move's reach,
 * model/schedule_slots.c, and a day of zone offsets). */
#define MOVE_REACH (368 * DAY_SEC * SEC)

/* Returned inside this file when the visit budget ran out. */
#define PARTIAL 1

static const char *const reason_names[] = {
    "catchup_skip", "superseded", "catchup_max", "outside_window",
    "overlap",      "excluded",   "skipped"};
_Static_assert(sizeof reason_names / sizeof reason_names[0] == SKED_MISS__COUNT,
               "a name for each sked_miss_reason");

const char *sked__miss_reason_name(sked_miss_reason r)
{
    if ((int) r < 0 || r >= SKED_MISS__COUNT)
        return "unknown";
    return reason_names[r];
}

sked_dur sked__policy_grace(sked_dur tick)
{
    if (tick <= 0 || tick > INT64_MAX / 4)
        return tick <= 0 ? GRACE_MIN : INT64_MAX / 2;
    return 2 * tick < GRACE_MIN ? GRACE_MIN : 2 * tick;
}

/* FNV-1a over the run id, then the finaliser so that ids that differ in
 * their last bytes spread over the whole range (base/hash.h). The same
 * bytes give the same delay on every server, build and platform. */
sked_dur sked__policy_jitter(const char *run_id, sked_dur jitter)
{
    if (!run_id || jitter <= 0)
        return 0;
    return (sked_dur) (sked__hash_mix(sked__hash_fnv1a(run_id)) %
                       ((uint64_t) jitter + 1));
}

void sked__policy_done(sked_policy_out *out)
{
    if (!out)
        return;
    free(out->fires);
    out->fires = NULL;
    out->nfires = 0;
}

/* ---- occurrence sources ------------------------------------------------- */

typedef struct occ_src {
    const sked_schedule *s;
    const sked_tz *tz;
    sked__occ_spec occ; /* the spec, read once; occ.cron for cron */
    sked_time lo, hi;   /* occurrences lie in [lo, hi] (start_at, end_at) */
    int64_t visits;     /* steps left */
    /* Cron: occurrences per matching day, and the first and last time of
     * day, in seconds. */
    int64_t per_day, first_tod, last_tod;
} occ_src;

static int bit_low(uint64_t v)
{
    return __builtin_ctzll(v);
}

static int bit_high(uint64_t v)
{
    return 63 - __builtin_clzll(v);
}

static int src_init(occ_src *q, const sked_schedule *s, const sked_tz *tz,
                    const sked_cron *parsed, const sked__occ_days *days,
                    sked_time now)
{
    const sked_cron *c;
    int rc;

    memset(q, 0, sizeof *q);
    q->s = s;
    q->tz = tz ? tz : sked_tz_utc();
    q->lo = s->start_at == SKED_TIME_NONE ? SKED_TIME_MIN : s->start_at;
    q->hi = s->end_at == SKED_TIME_NONE ? SKED_TIME_MAX : s->end_at;
    q->visits = SKED_POLICY_VISITS_MAX;
    if (days && !days->exclude && !days->only)
        days = NULL;
    if ((rc = sked__occ_spec_init(&q->occ, s, q->tz, parsed, days, now, NULL)))
        return rc;
    if (s->kind != SKED_SPEC_CRON)
        return 0;
    c = &q->occ.cron;
    q->per_day = (int64_t) __builtin_popcountll(c->sec) *
                 __builtin_popcountll(c->min) * __builtin_popcount(c->hour);
    q->first_tod =
        bit_low(c->hour) * 3600 + bit_low(c->min) * 60 + bit_low(c->sec);
    q->last_tod =
        bit_high(c->hour) * 3600 + bit_high(c->min) * 60 + bit_high(c->sec);
    return 0;
}

/* Whether Q's occurrences are anchor + k * every, counted arithmetically. */
static bool arithmetic(const occ_src *q)
{
    return q->s->kind == SKED_SPEC_EVERY && !q->s->calendar_days;
}

/* Return the smallest k >= 1 with anchor + k * every > AFTER, or -1 when
 * it passes SKED_TIME_MAX. */
static int64_t every_k_after(const sked_schedule *s, sked_time after)
{
    int64_t k = 1;

    if (after >= s->anchor)
        k = (after - s->anchor) / s->every + 1;
    if (k > (SKED_TIME_MAX - s->anchor) / s->every)
        return -1;
    return k;
}

/* Return the largest k >= 1 with anchor + k * every < BEFORE, or 0. */
static int64_t every_k_before(const sked_schedule *s, sked_time before)
{
    int64_t k;

    if (before <= s->anchor)
        return 0;
    k = (before - s->anchor - 1) / s->every;
    if (k > (SKED_TIME_MAX - s->anchor) / s->every)
        k = (SKED_TIME_MAX - s->anchor) / s->every;
    return k;
}

/* The slot of the occurrence T of a spec without calendars. */
static sked__occ_slot plain(sked_time t)
{
    return (sked__occ_slot){t, t, SKED__SLOT_FIRE, SKED_OCC_NORMAL};
}

/* Store in *out the first slot after AFTER within the bounds. Returns 0,
 * SKED_ENOTFOUND, SKED_EINVAL. */
static int src_next(const occ_src *q, sked_time after, sked__occ_slot *out)
{
    sked__occ_slot x;
    sked_time t;
    int64_t k;
    int rc = 0;

    if (after < q->lo - 1)
        after = q->lo - 1;
    /* Cron and plain intervals stay on their fast paths, which need no
     * DST mark. */
    if (q->occ.days) {
        rc = sked__occ_slot_next(&q->occ, after, &x);
    } else if (q->s->kind == SKED_SPEC_CRON) {
        rc = sked_cron_next(&q->occ.cron, q->tz, q->s->dst, after, &t);
        x = plain(t);
    } else if (arithmetic(q)) {
        k = every_k_after(q->s, after);
        rc = k < 0 ? SKED_ENOTFOUND : 0;
        x = plain(k < 0 ? 0 : q->s->anchor + k * q->s->every);
    } else {
        sked_occurrence occ;
        rc = sked__occ_next(&q->occ, after, &occ);
        x = plain(occ.at);
    }
    if (rc == 0 && x.at > q->hi)
        rc = SKED_ENOTFOUND;
    if (rc == 0)
        *out = x;
    return rc;
}

/* Store in *out the last slot before BEFORE within the bounds. */
static int src_prev(const occ_src *q, sked_time before, sked__occ_slot *out)
{
    sked__occ_slot x;
    sked_time t = 0;
    int64_t k;
    int rc = 0;

    if (before > q->hi + 1 && q->hi < SKED_TIME_MAX)
        before = q->hi + 1;
    if (q->occ.days) {
        rc = sked__occ_slot_prev(&q->occ, before, &x);
        t = rc == 0 ? x.at : 0;
    } else if (arithmetic(q)) {
        k = every_k_before(q->s, before);
        rc = k == 0 ? SKED_ENOTFOUND : 0;
        t = q->s->anchor + k * q->s->every;
        x = plain(t);
    } else {
        rc = sked__occ_prev(&q->occ, before, &t);
        x = plain(t);
    }
    if (rc == 0 && t < q->lo)
        rc = SKED_ENOTFOUND;
    if (rc == 0)
        *out = x;
    return rc;
}

/* Add N occurrences from FIRST to LAST to M. */
static void missed_add(sked_missed *m, int64_t n, sked_time first,
                       sked_time last)
{
    if (n <= 0)
        return;
    if (m->count == 0)
        m->first = first;
    m->last = last;
    m->count += n;
}

/* When T (a cron occurrence) is the first of a local day whose offset
 * holds DAY_MARGIN_SEC around it, and the day's last occurrence is at or
 * before HI, store the day's last occurrence in *last and return its
 * number of occurrences: on such a day every time of day exists once, so
 * a matching day has them all. Otherwise return 0. */
static int64_t day_span(const occ_src *q, sked_time t, sked_time hi,
                        sked_time *last)
{
    int64_t tsec = sked__floor_div(t, SEC), local, day_start, ds;
    sked__tz_seg seg;

    if (t % SEC != 0)
        return 0;
    sked__tz_segment(q->tz, tsec, &seg);
    local = tsec + seg.utoff;
    day_start = sked__floor_div(local, DAY_SEC) * DAY_SEC;
    if (local - day_start != q->first_tod)
        return 0;
    ds = day_start - seg.utoff;
    if ((seg.start != INT64_MIN && seg.start > ds - DAY_MARGIN_SEC) ||
        (seg.end != INT64_MAX && seg.end < ds + DAY_SEC + DAY_MARGIN_SEC))
        return 0;
    if ((ds + q->last_tod) > hi / SEC)
        return 0;
    *last = (ds + q->last_tod) * SEC;
    return q->per_day;
}

/* Move *upto to T when T is later (or *upto is NONE). */
static void upto_add(sked_time *upto, sked_time t)
{
    if (*upto == SKED_TIME_NONE || t > *upto)
        *upto = t;
}

/* Count the slots in (LO, HI]: those that would fire into M, the
 * excluded ones into EX; *upto moves to the last one counted. Returns 0,
 * or PARTIAL when the visits ran out. */
static int src_count(occ_src *q, sked_time lo, sked_time hi, sked_missed *m,
                     sked_missed *ex, sked_time *upto)
{
    sked__occ_slot x;
    sked_time last, pos = lo;
    int64_t k1, k2, n;

    if (lo < q->lo - 1)
        lo = q->lo - 1;
    if (hi > q->hi)
        hi = q->hi;
    if (hi <= lo)
        return 0;
    if (!q->occ.days && q->s->kind == SKED_SPEC_AT) {
        if (q->s->at > lo && q->s->at <= hi) {
            missed_add(m, 1, q->s->at, q->s->at);
            upto_add(upto, q->s->at);
        }
        return 0;
    }
    if (!q->occ.days && arithmetic(q)) {
        k1 = every_k_after(q->s, lo);
        k2 = hi < SKED_TIME_MAX ? every_k_before(q->s, hi + 1)
                                : every_k_before(q->s, hi);
        if (k1 >= 1 && k2 >= k1) {
            missed_add(m, k2 - k1 + 1, q->s->anchor + k1 * q->s->every,
                       q->s->anchor + k2 * q->s->every);
            upto_add(upto, q->s->anchor + k2 * q->s->every);
        }
        return 0;
    }
    for (;;) {
        if (q->visits <= 0)
            return PARTIAL;
        q->visits--;
        if (src_next(q, pos, &x) != 0 || x.at > hi)
            return 0;
        n = q->occ.days ? 0 : day_span(q, x.at, hi, &last);
        if (n == 0) {
            n = 1;
            last = x.at;
        }
        if (x.kind == SKED__SLOT_EXCLUDED)
            missed_add(ex, 1, x.occurrence, x.occurrence);
        else
            missed_add(m, n, n == 1 ? x.occurrence : x.at,
                       n == 1 ? x.occurrence : last);
        pos = last;
        upto_add(upto, last);
    }
}

/* ---- the plan ----------------------------------------------------------- */

/* Tell whether the occurrence T is one of IN's skipped ones. */
static bool skipped(const sked_policy_in *in, sked_time t)
{
    size_t lo = 0, hi = in->nskips;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (in->skips[mid] == t)
            return true;
        if (in->skips[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

typedef struct plan {
    const sked_policy_in *in;
    occ_src q;
    sked_catchup catchup;
    int64_t catchup_max;
    sked_dur grace, window;
    sked_time start;   /* decide the occurrences after this */
    sked_time decided; /* the last slot decided (its at), or NONE */
    int more;
    sked_fire *fires; /* owned until handed to the output */
    size_t nfires, cap;
    sked_missed missed[SKED_MISS__COUNT];
} plan;

static sked_time sat_sub(sked_time a, sked_dur d)
{
    return a < SKED_TIME_MIN + d ? SKED_TIME_MIN : a - d;
}

static sked_time later(sked_time a, sked_time b)
{
    return a > b ? a : b;
}

/* Return where the plan starts (see policy.h): last_fired_at, moved up to
 * next_fire_at - 1; else the creation time (an interval's anchor), else
 * NOW. An "at" schedule never fired always considers its instant. */
static sked_time plan_start(const sked_schedule *s, const sked__occ_days *days,
                            sked_time now)
{
    sked_time start = s->last_fired_at;

    /* A moved one-time instant may fire a business day before it. */
    if (s->kind == SKED_SPEC_AT && start == SKED_TIME_NONE)
        return s->at - 1 - (days ? MOVE_REACH : 0);
    if (s->next_fire_at != SKED_TIME_NONE &&
        (start == SKED_TIME_NONE || s->next_fire_at - 1 > start))
        start = s->next_fire_at - 1;
    if (start == SKED_TIME_NONE)
        start = s->created_at;
    if (start == SKED_TIME_NONE && s->kind == SKED_SPEC_EVERY)
        start = s->anchor;
    return start == SKED_TIME_NONE ? now : start;
}

static int push_fire(plan *p, const sked__occ_slot *x, sked_trigger trigger)
{
    if (p->nfires == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 16;
        sked_fire *v = sked__realloc(p->fires, cap * sizeof *v);

        if (!v)
            return SKED_ENOMEM;
        p->fires = v;
        p->cap = cap;
    }
    p->fires[p->nfires++] = (sked_fire){
        .occurrence = x->occurrence, .at = x->at, .trigger = trigger};
    return 0;
}

/* Count the occurrences older than the window as outside_window. */
static int plan_outside(plan *p)
{
    sked_time hi = sat_sub(sat_sub(p->in->now, p->window), 1);

    if (hi <= p->start)
        return 0;
    return src_count(&p->q, p->start, hi, &p->missed[SKED_MISS_OUTSIDE_WINDOW],
                     &p->missed[SKED_MISS_EXCLUDED], &p->decided);
}

/* Return how many of the most recent late occurrences may fire. */
static int64_t late_keep(const plan *p)
{
    switch (p->catchup) {
    case SKED_CATCHUP_SKIP:
        return 0;
    case SKED_CATCHUP_ALL:
        return p->catchup_max;
    case SKED_CATCHUP_LATEST:
        break;
    }
    return 1;
}

/* Decide the late occurrences: keep the most recent ones the catchup
 * policy fires (found backwards, then listed oldest first), count the
 * older ones under the policy's reason. */
static int plan_late(plan *p)
{
    static const sked_miss_reason reason[] = {
        [SKED_CATCHUP_LATEST] = SKED_MISS_SUPERSEDED,
        [SKED_CATCHUP_SKIP] = SKED_MISS_CATCHUP_SKIP,
        [SKED_CATCHUP_ALL] = SKED_MISS_CATCHUP_MAX,
    };
    sked_time lo = later(p->start, sat_sub(sat_sub(p->in->now, p->window), 1));
    sked_time hi = sat_sub(p->in->now, p->grace), pos = hi + 1;
    /* Excluded slots among the kept ones: counted once the whole range
     * is decided, not when a partial count leaves it for later. */
    sked_missed ex = {0, SKED_TIME_NONE, SKED_TIME_NONE};
    sked_missed sk = {0, SKED_TIME_NONE, SKED_TIME_NONE};
    sked_time ex_upto = SKED_TIME_NONE;
    size_t first = p->nfires;
    int64_t keep = late_keep(p), kept = 0;
    sked__occ_slot x;
    int rc;

    if (hi <= lo)
        return 0;
    if (p->q.visits <= keep)
        return PARTIAL; /* the outside count spent them: decide later */
    while (kept < keep && p->q.visits > 0) {
        p->q.visits--;
        if (src_prev(&p->q, pos, &x) != 0 || x.at <= lo)
            break;
        pos = x.at;
        if (x.kind == SKED__SLOT_EXCLUDED) {
            missed_add(&ex, 1, x.occurrence, x.occurrence);
            upto_add(&ex_upto, x.at);
            continue;
        }
        /* A skipped one takes its place among those kept: catchup
         * latest with the latest skipped fires none of the older. */
        if (skipped(p->in, x.occurrence)) {
            missed_add(&sk, 1, x.occurrence, x.occurrence);
            upto_add(&ex_upto, x.at);
            kept++;
            continue;
        }
        if ((rc = push_fire(p, &x, SKED_TRIGGER_CATCHUP)) != 0)
            return rc;
        kept++;
    }
    rc = src_count(&p->q, lo, pos - 1, &p->missed[reason[p->catchup]],
                   &p->missed[SKED_MISS_EXCLUDED], &p->decided);
    if (rc != 0) {
        p->nfires = first; /* after the prefix decided: not yet */
        return rc;
    }
    if (ex.count > 0) {
        sked_missed *m = &p->missed[SKED_MISS_EXCLUDED];
        missed_add(m, ex.count, ex.first, ex.last);
        if (ex.first < m->first) /* counted backwards, before the rest */
            m->first = ex.first;
    }
    if (sk.count > 0) {
        sked_missed *m = &p->missed[SKED_MISS_SKIPPED];
        missed_add(m, sk.count, sk.last, sk.first); /* found backwards */
    }
    upto_add(&p->decided, ex_upto);
    for (size_t i = first, j = p->nfires; i + 1 < j; i++) {
        sked_fire f = p->fires[i];

        p->fires[i] = p->fires[--j];
        p->fires[j] = f;
    }
    return 0;
}

/* List the on-time slots: they fire, or are dropped as excluded or
 * skipped. */
static int plan_on_time(plan *p)
{
    sked_time pos = later(p->start, sat_sub(p->in->now, p->grace));
    sked__occ_slot x;
    int rc;

    while (src_next(&p->q, pos, &x) == 0 && x.at <= p->in->now) {
        if (p->q.visits-- <= 0)
            return PARTIAL;
        pos = x.at;
        if (x.kind == SKED__SLOT_EXCLUDED) {
            missed_add(&p->missed[SKED_MISS_EXCLUDED], 1, x.occurrence,
                       x.occurrence);
            upto_add(&p->decided, x.at);
            continue;
        }
        if (skipped(p->in, x.occurrence)) {
            missed_add(&p->missed[SKED_MISS_SKIPPED], 1, x.occurrence,
                       x.occurrence);
            upto_add(&p->decided, x.at);
            continue;
        }
        if ((rc = push_fire(p, &x, SKED_TRIGGER_CRON)) != 0)
            return rc;
    }
    return 0;
}

/* What the overlap pass knows of the schedule's key. */
typedef struct key_state {
    int active;  /* a run holds or will hold the key */
    int waiting; /* runs waiting as an overlap buffer */
} key_state;

/* Decide fire F under the overlap policy (SPEC 3.4). Returns 1 when it
 * fires (F's flags set), 0 when it is dropped as overlap. */
static int overlap_one(sked_overlap o, key_state *k, sked_fire *f)
{
    switch (o) {
    case SKED_OVERLAP_SKIP:
        if (k->active)
            return 0;
        break;
    case SKED_OVERLAP_BUFFER_ONE:
        if (k->active && k->waiting > 0)
            return 0;
        f->buffered = k->active;
        k->waiting += k->active;
        break;
    case SKED_OVERLAP_BUFFER_ALL:
        f->buffered = k->active;
        break;
    case SKED_OVERLAP_CANCEL_OTHER:
        f->cancel_active = k->active;
        break;
    case SKED_OVERLAP_ALLOW:
        break;
    }
    k->active = 1;
    return 1;
}

/* Run the overlap policy over the fires, oldest first, and cut them at
 * max_runs: occurrences after the last allowed run stay undecided.
 * Returns 1 when max_runs is reached. */
static int plan_overlap(plan *p)
{
    const sked_schedule *s = p->in->s;
    key_state k = {.active = p->in->active_runs > 0,
                   .waiting = p->in->buffered_runs};
    int64_t left = s->max_runs > 0 ? s->max_runs - s->runs_created : -1;
    size_t n = 0;

    for (size_t i = 0; i < p->nfires; i++) {
        sked_fire f = p->fires[i];

        if (!overlap_one(s->overlap, &k, &f)) {
            missed_add(&p->missed[SKED_MISS_OVERLAP], 1, f.occurrence,
                       f.occurrence);
            upto_add(&p->decided, f.at);
            continue;
        }
        p->fires[n++] = f;
        if (left >= 0 && (int64_t) n >= left)
            break; /* done: what follows is never decided */
    }
    p->nfires = n;
    return left >= 0 && (int64_t) n >= left;
}

/* Set the catch-up parameters, automatic_backfill's (SPEC 3.3) or the
 * schedule's, and the grace and window. */
static void plan_params(plan *p)
{
    const sked_schedule *s = p->in->s;

    p->catchup = s->catchup;
    p->catchup_max = s->catchup_max > 0 ? s->catchup_max : 1;
    p->window = s->catchup_window;
    if (s->automatic_backfill) {
        p->catchup = SKED_CATCHUP_ALL;
        p->catchup_max = SKED_CATCHUP_MAX_LIMIT;
        p->window = SKED_CATCHUP_WINDOW_MAX;
    }
    if ((int) p->catchup < 0 || p->catchup > SKED_CATCHUP_ALL)
        p->catchup = SKED_CATCHUP_LATEST;
    p->grace = sked__policy_grace(p->in->tick);
    if (p->window < p->grace)
        p->window = p->grace;
}

/* Decide, in order: outside the window, late, on time; stop at the first
 * range that ran out of visits. Then overlap and max_runs. Returns 0,
 * SKED_ENOMEM, or 1 when max_runs is reached. */
static int plan_decide(plan *p)
{
    int rc = plan_outside(p);

    if (rc == 0)
        rc = plan_late(p);
    if (rc == 0)
        rc = plan_on_time(p);
    if (rc < 0)
        return rc;
    p->more = rc == PARTIAL;
    return plan_overlap(p);
}

/* Return the last occurrence P decided: the newest of what fired, what
 * was dropped, and where a partial count stopped; NONE when nothing. */
static sked_time plan_last_decided(const plan *p)
{
    sked_time t = p->decided;

    if (p->nfires > 0)
        upto_add(&t, p->fires[p->nfires - 1].at);
    return t != SKED_TIME_NONE && t > p->start ? t : SKED_TIME_NONE;
}

/* Fill *out from P after deciding: the cursor, the next occurrence and
 * whether the schedule is done. */
static int plan_finish(plan *p, int max_reached, sked_policy_out *out)
{
    sked_time decided = plan_last_decided(p);
    int rc;

    if (decided != SKED_TIME_NONE)
        out->cursor = decided;
    out->done = max_reached;
    if (!max_reached) {
        sked__occ_slot x;
        rc =
            src_next(&p->q, decided != SKED_TIME_NONE ? decided : p->start, &x);
        if (rc == 0)
            out->next = x.at;
        if (rc == SKED_ENOTFOUND)
            out->done = 1;
        else if (rc != 0)
            return rc;
    }
    memcpy(out->missed, p->missed, sizeof out->missed);
    out->more = out->done ? 0 : p->more;
    out->fires = p->fires;
    out->nfires = p->nfires;
    return 0;
}

int sked__policy_plan(const sked_policy_in *in, sked_policy_out *out)
{
    const sked_schedule *s = in ? in->s : NULL;
    sked_policy_out o = {.cursor = s ? s->last_fired_at : SKED_TIME_NONE,
                         .next = SKED_TIME_NONE};
    plan p = {.in = in, .decided = SKED_TIME_NONE};
    int rc;

    if (!s || !out)
        return SKED_EINVAL;
    for (int i = 0; i < SKED_MISS__COUNT; i++)
        o.missed[i] = (sked_missed){0, SKED_TIME_NONE, SKED_TIME_NONE};
    memcpy(p.missed, o.missed, sizeof p.missed);
    /* Paused, disabled and done schedules decide nothing; an active one
     * that already created max_runs runs is done. */
    if (s->status != SKED_SCHEDULE_ACTIVE ||
        (s->max_runs > 0 && s->runs_created >= s->max_runs)) {
        o.done = s->status != SKED_SCHEDULE_PAUSED &&
                 s->status != SKED_SCHEDULE_DISABLED;
        *out = o;
        return 0;
    }
    if ((rc = src_init(&p.q, s, in->tz, in->cron, in->days, in->now)) != 0)
        return rc;
    plan_params(&p);
    p.start = plan_start(s, p.q.occ.days, in->now);
    if ((rc = plan_decide(&p)) >= 0)
        rc = plan_finish(&p, rc == 1, &o);
    sked__occ_spec_done(&p.q.occ);
    if (rc != 0) {
        free(p.fires);
        return rc;
    }
    *out = o;
    return 0;
}
