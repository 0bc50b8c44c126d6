/* SPDX-License-Identifier: MIT */
/* The executor's pure decisions (src/exec/plan.c) against the rules of
 * SPEC 4.3, on plain values: the workflow timeout (strictly greater, soft
 * and hard), the hard deadline, retry delays with their exact values,
 * caps and jitter, retry_on, the per-step state read from attempt
 * records, which steps of a DAG may start, and the order of the
 * compensations.
 *
 * Workflows are built with the public builder; their step functions are
 * never called, so one that does nothing serves every step. Records are
 * written by hand, as the store would return them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/plan.h"
#include "sked/sked.h"

#define US   INT64_C(1)
#define MS   (1000 * US)
#define SEC  SKED_USEC_PER_SEC
#define MIN  (60 * SEC)
#define DAY  (86400 * SEC)
#define NONE SKED_TIME_NONE

/* An arbitrary start: 2026-01-01T00:00:00Z. */
#define T0 (INT64_C(1767225600) * SEC)

static int noop(sked_ctx *ctx, const char *input_json, char **output_json)
{
    (void) ctx;
    (void) input_json;
    (void) output_json;
    return 0;
}

static sked_workflow *wf_new(void)
{
    sked_workflow *w = NULL;

    assert_int_equal(sked_workflow_new("wf", &w, NULL), 0);
    return w;
}

/* Add step NAME needing N1 and N2 (NULL: none), with ATTEMPTS tries and,
 * when COMP, a compensation allowed COMP_ATTEMPTS tries. */
static void step(sked_workflow *w, const char *name, int32_t attempts,
                 bool comp, int32_t comp_attempts, const char *n1,
                 const char *n2)
{
    const char *needs[2];
    size_t n = 0;
    sked_error err = {0};

    if (n1)
        needs[n++] = n1;
    if (n2)
        needs[n++] = n2;
    sked_step_options o = {
        .needs = needs,
        .nneeds = n,
        .retry = {.attempts = attempts},
        .compensate = comp ? noop : NULL,
        .compensate_retry = {.attempts = comp_attempts},
    };
    if (sked_workflow_add_step(w, name, noop, &o, &err) != 0)
        fail_msg("step %s: %s: %s", name, err.field, err.msg);
}

/* a -> b, c -> d: the diamond. */
static sked_workflow *diamond(void)
{
    sked_workflow *w = wf_new();

    step(w, "a", 1, false, 0, NULL, NULL);
    step(w, "b", 1, false, 0, "a", NULL);
    step(w, "c", 1, false, 0, "a", NULL);
    step(w, "d", 1, false, 0, "b", "c");
    return w;
}

/* States as sked__plan_states leaves them with no records. */
static void states_fresh(const sked_workflow *w, sked_step_state *st)
{
    sked__plan_states(w, NULL, 0, st);
}

/* One record; strings borrowed from the caller. */
static sked_step_record rec(const char *name, bool comp, int32_t attempt,
                            sked_step_status status, const char *code,
                            sked_time started, sked_time finished)
{
    return (sked_step_record){
        .step = (char *) name,
        .compensation = comp,
        .attempt = attempt,
        .status = status,
        .error_code = (char *) code,
        .exit_code = -1,
        .started_at = started,
        .finished_at = finished,
    };
}

/* ---- the workflow timeout ------------------------------------------------ */

static const struct timeout_case {
    sked_dur seconds;
    bool fail_workflow, hard;
    sked_time started;
    sked_dur elapsed;
    sked_timeout_state want;
} timeout_cases[] = {
    /* No timeout: never, however long. */
    {0, true, true, T0, 400 * DAY, SKED_TIMEOUT_OK},
    /* SPEC 4.3: elapsed > seconds, strictly. */
    {60 * SEC, true, true, T0, 0, SKED_TIMEOUT_OK},
    {60 * SEC, true, true, T0, 60 * SEC - US, SKED_TIMEOUT_OK},
    {60 * SEC, true, true, T0, 60 * SEC, SKED_TIMEOUT_OK},
    {60 * SEC, true, true, T0, 60 * SEC + US, SKED_TIMEOUT_FAIL},
    {60 * SEC, true, true, T0, DAY, SKED_TIMEOUT_FAIL},
    /* hard only decides whether the running step is stopped. */
    {60 * SEC, true, false, T0, 60 * SEC + US, SKED_TIMEOUT_FAIL},
    /* fail_workflow false: a soft limit, the run goes on. */
    {60 * SEC, false, true, T0, 60 * SEC, SKED_TIMEOUT_OK},
    {60 * SEC, false, true, T0, 60 * SEC + US, SKED_TIMEOUT_SOFT},
    {60 * SEC, false, false, T0, DAY, SKED_TIMEOUT_SOFT},
    /* A run not started yet has no clock running. */
    {60 * SEC, true, true, NONE, 0, SKED_TIMEOUT_OK},
    /* A clock stepped back is not past the limit. */
    {60 * SEC, true, true, T0, -DAY, SKED_TIMEOUT_OK},
};

static void test_timeout(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof timeout_cases / sizeof *timeout_cases; i++) {
        const struct timeout_case *c = &timeout_cases[i];
        sked_workflow *w = wf_new();
        sked_time now = (c->started == NONE ? T0 : c->started) + c->elapsed;

        assert_int_equal(sked_workflow_set_timeout(
                             w, c->seconds, c->fail_workflow, c->hard, NULL),
                         0);
        sked_timeout_state got = sked__plan_timeout(w, c->started, now);
        if (got != c->want)
            fail_msg("case %zu: got %d, want %d", i, got, c->want);
        sked_workflow_free(w);
    }
}

static const struct deadline_case {
    sked_dur seconds;
    bool fail_workflow, hard;
    sked_time started;
    sked_time want;
} deadline_cases[] = {
    /* The first instant past the limit: elapsed > seconds. */
    {60 * SEC, true, true, T0, T0 + 60 * SEC + 1 * US},
    {1 * US, true, true, T0, T0 + 2 * US},
    /* Only a hard timeout that fails the workflow stops a step. */
    {60 * SEC, true, false, T0, NONE},
    {60 * SEC, false, true, T0, NONE},
    {60 * SEC, false, false, T0, NONE},
    {0, true, true, T0, NONE},
    {60 * SEC, true, true, NONE, NONE},
};

static void test_hard_deadline(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof deadline_cases / sizeof *deadline_cases;
         i++) {
        const struct deadline_case *c = &deadline_cases[i];
        sked_workflow *w = wf_new();

        assert_int_equal(sked_workflow_set_timeout(
                             w, c->seconds, c->fail_workflow, c->hard, NULL),
                         0);
        sked_time got = sked__plan_hard_deadline(w, c->started);
        if (got != c->want)
            fail_msg("case %zu: got %lld, want %lld", i, (long long) got,
                     (long long) c->want);
        sked_workflow_free(w);
    }
}

static void test_min_deadline(void **state)
{
    (void) state;
    assert_true(sked__plan_min_deadline(NONE, NONE) == NONE);
    assert_true(sked__plan_min_deadline(NONE, T0) == T0);
    assert_true(sked__plan_min_deadline(T0, NONE) == T0);
    assert_true(sked__plan_min_deadline(T0, T0 + 1) == T0);
    assert_true(sked__plan_min_deadline(T0 + 1, T0) == T0);
    assert_true(sked__plan_min_deadline(T0, T0) == T0);
}

/* ---- retries ------------------------------------------------------------- */

static const sked_failure exit1 = {.has_code = true, .code = 1};

/* The delay after failed attempt ATTEMPT under R, or -1 for no retry. */
static sked_dur retry_delay(const sked_retry_def *r, int32_t attempt,
                            const sked_failure *f, const char *key)
{
    sked_dur d = 12345;
    bool again = sked__plan_retry(r, attempt, f, key, &d);

    if (!again) {
        /* No retry leaves no stale delay behind. */
        assert_true(d == 0);
        return -1;
    }
    return d;
}

static const struct backoff_case {
    int32_t attempts;
    sked_dur backoff, max_backoff;
    double multiplier;
    int32_t attempt;
    sked_dur want; /* -1: no retry */
} backoff_cases[] = {
    /* backoff * multiplier^(attempt-1) */
    {5, 10 * SEC, 0, 2, 1, 10 * SEC},
    {5, 10 * SEC, 0, 2, 2, 20 * SEC},
    {5, 10 * SEC, 0, 2, 3, 40 * SEC},
    {5, 10 * SEC, 0, 2, 4, 80 * SEC},
    /* attempts is the number of tries in all: the 5th is the last. */
    {5, 10 * SEC, 0, 2, 5, -1},
    {5, 10 * SEC, 0, 2, 6, -1},
    /* One attempt (the default) never retries. */
    {1, 10 * SEC, 0, 2, 1, -1},
    /* multiplier 1: a constant delay. */
    {4, 7 * SEC, 0, 1, 1, 7 * SEC},
    {4, 7 * SEC, 0, 1, 3, 7 * SEC},
    /* Fractions stay exact to the microsecond. */
    {4, 10 * SEC, 0, 1.5, 2, 15 * SEC},
    {4, 10 * SEC, 0, 1.5, 3, 22500 * MS},
    {4, 3 * US, 0, 3, 3, 27 * US},
    /* No backoff: retry at once. */
    {3, 0, 0, 2, 1, 0},
    {3, 0, 0, 2, 2, 0},
    /* max_backoff caps each delay, not the sum. */
    {6, 10 * SEC, 30 * SEC, 2, 1, 10 * SEC},
    {6, 10 * SEC, 30 * SEC, 2, 2, 20 * SEC},
    {6, 10 * SEC, 30 * SEC, 2, 3, 30 * SEC},
    {6, 10 * SEC, 30 * SEC, 2, 5, 30 * SEC},
    /* A cap exactly on a step of the series. */
    {6, 10 * SEC, 40 * SEC, 2, 3, 40 * SEC},
    {6, 10 * SEC, 40 * SEC, 2, 4, 40 * SEC},
    /* A huge series is capped by max_backoff ... */
    {100, 1 * DAY, 2 * MIN, 100, 99, 2 * MIN},
    /* ... and, without one, by a year: no overflow of sked_dur. */
    {100, 1 * DAY, 0, 100, 99, 366 * DAY},
};

static void test_retry_backoff(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof backoff_cases / sizeof *backoff_cases; i++) {
        const struct backoff_case *c = &backoff_cases[i];
        sked_retry_def r = {
            .attempts = c->attempts,
            .backoff = c->backoff,
            .max_backoff = c->max_backoff,
            .multiplier = c->multiplier,
        };
        sked_dur got = retry_delay(&r, c->attempt, &exit1, "run/step");
        if (got != c->want)
            fail_msg("case %zu: got %lld, want %lld", i, (long long) got,
                     (long long) c->want);
    }
}

static void test_retry_jitter_range(void **state)
{
    sked_retry_def r = {
        .attempts = 10,
        .backoff = 10 * SEC,
        .multiplier = 2,
        .max_backoff = 60 * SEC,
        .jitter = true,
    };
    char key[64];

    (void) state;
    /* Every draw lies in [d/2, d] of the delay without jitter, for the
     * plain series (10, 20, 40 s) and the capped one (60 s). */
    for (int k = 0; k < 500; k++) {
        snprintf(key, sizeof key, "run-%d/extract", k);
        for (int32_t a = 1; a <= 5; a++) {
            sked_dur nominal = a == 1   ? 10 * SEC
                               : a == 2 ? 20 * SEC
                               : a == 3 ? 40 * SEC
                                        : 60 * SEC;
            sked_dur d = retry_delay(&r, a, &exit1, key);
            if (d < nominal / 2 || d > nominal)
                fail_msg("%s attempt %d: %lld not in [%lld, %lld]", key, a,
                         (long long) d, (long long) nominal / 2,
                         (long long) nominal);
        }
    }
}

static int cmp_dur(const void *a, const void *b)
{
    sked_dur x = *(const sked_dur *) a, y = *(const sked_dur *) b;
    return (x > y) - (x < y);
}

static void test_retry_jitter_deterministic(void **state)
{
    enum { KEYS = 1000 };
    sked_retry_def r = {
        .attempts = 3, .backoff = 10 * SEC, .multiplier = 2, .jitter = true};
    sked_dur *v = malloc(KEYS * sizeof *v);
    char key[64];
    size_t distinct = 1, low = 0, high = 0;

    (void) state;
    assert_non_null(v);
    /* The same key and attempt give the same delay on every server. */
    assert_true(retry_delay(&r, 1, &exit1, "run-1/a") ==
                retry_delay(&r, 1, &exit1, "run-1/a"));
    assert_true(retry_delay(&r, 2, &exit1, "run-1/a") ==
                retry_delay(&r, 2, &exit1, "run-1/a"));
    /* Pinned, so that a change of the hash (which would move the retries
     * of every server) fails here. */
    assert_int_equal(retry_delay(&r, 1, &exit1, "run-1/a"),
                     7616692); /* 7.616692 s */
    assert_int_equal(retry_delay(&r, 2, &exit1, "run-1/a"),
                     16630364); /* of [10 s, 20 s] */
    assert_int_equal(
        retry_delay(&r, 1, &exit1, "sched-x-2026-01-01T00:00:00Z/b"), 9542973);
    /* Two keys, or two attempts of one key, draw apart. */
    assert_true(retry_delay(&r, 1, &exit1, "run-1/a") !=
                retry_delay(&r, 1, &exit1, "run-2/a"));
    assert_true(retry_delay(&r, 1, &exit1, "run-1/a") !=
                retry_delay(&r, 1, &exit1, "run-1/b"));
    assert_true(retry_delay(&r, 1, &exit1, "run-1/a") * 2 !=
                retry_delay(&r, 2, &exit1, "run-1/a"));
    /* Over many keys the draws spread over the whole range [5 s, 10 s]:
     * almost all distinct, and both ends' fifths reached often. */
    for (int k = 0; k < KEYS; k++) {
        snprintf(key, sizeof key, "01J%07d/step", k);
        v[k] = retry_delay(&r, 1, &exit1, key);
        if (v[k] < 6 * SEC)
            low++;
        if (v[k] > 9 * SEC)
            high++;
    }
    qsort(v, KEYS, sizeof *v, cmp_dur);
    for (int k = 1; k < KEYS; k++)
        distinct += v[k] != v[k - 1];
    assert_true(distinct > KEYS * 99 / 100);
    /* The attempts of one step draw apart too: with a constant backoff,
     * the delays of 50 attempts are not one fraction repeated, and they
     * spread over the range. */
    sked_retry_def flat = {
        .attempts = 60, .backoff = 10 * SEC, .multiplier = 1, .jitter = true};
    size_t flat_low = 0, flat_high = 0, flat_distinct = 1;
    for (int a = 1; a <= 50; a++) {
        v[a - 1] = retry_delay(&flat, a, &exit1, "run-1/a");
        flat_low += v[a - 1] < 7500 * MS;
        flat_high += v[a - 1] >= 7500 * MS;
    }
    qsort(v, 50, sizeof *v, cmp_dur);
    for (int k = 1; k < 50; k++)
        flat_distinct += v[k] != v[k - 1];
    assert_true(flat_distinct == 50);
    assert_true(flat_low >= 10 && flat_high >= 10);
    assert_true(low > KEYS / 10 && low < KEYS * 3 / 10);
    assert_true(high > KEYS / 10 && high < KEYS * 3 / 10);
    assert_true(v[0] < 5 * SEC + 100 * MS);
    assert_true(v[KEYS - 1] > 10 * SEC - 100 * MS);
    free(v);
}

static void test_retry_on(void **state)
{
    int32_t codes[] = {1, 75};
    sked_retry_def on = {.attempts = 3,
                         .backoff = 1 * SEC,
                         .multiplier = 1,
                         .retry_on = codes,
                         .nretry_on = 2};
    sked_retry_def any = {.attempts = 3, .backoff = 1 * SEC, .multiplier = 1};
    const sked_failure c1 = {true, 1}, c75 = {true, 75}, c2 = {true, 2},
                       c0 = {true, 0}, none = {false, 0}, none75 = {false, 75};

    (void) state;
    /* retry_on lists the exit codes that are retried; others are final. */
    assert_true(retry_delay(&on, 1, &c1, "k") == 1 * SEC);
    assert_true(retry_delay(&on, 1, &c75, "k") == 1 * SEC);
    assert_true(retry_delay(&on, 1, &c2, "k") == -1);
    assert_true(retry_delay(&on, 1, &c0, "k") == -1);
    /* A failure without a code (a timeout, a spawn failure) matches no
     * listed code, whatever its code field holds. */
    assert_true(retry_delay(&on, 1, &none, "k") == -1);
    assert_true(retry_delay(&on, 1, &none75, "k") == -1);
    /* A matching code still has only the attempts it has. */
    assert_true(retry_delay(&on, 2, &c1, "k") == 1 * SEC);
    assert_true(retry_delay(&on, 3, &c1, "k") == -1);
    /* Without retry_on, any failure is retried (SPEC 4.3 default). */
    assert_true(retry_delay(&any, 1, &c1, "k") == 1 * SEC);
    assert_true(retry_delay(&any, 1, &c2, "k") == 1 * SEC);
    assert_true(retry_delay(&any, 1, &none, "k") == 1 * SEC);
    assert_true(retry_delay(&any, 3, &none, "k") == -1);
}

/* ---- states from records ----------------------------------------------- */

static void test_states_empty(void **state)
{
    sked_workflow *w = diamond();
    sked_step_state st[4];

    (void) state;
    memset(st, 0xa5, sizeof st);
    sked__plan_states(w, NULL, 0, st);
    for (size_t i = 0; i < 4; i++) {
        assert_false(st[i].completed);
        assert_false(st[i].exhausted);
        assert_false(st[i].running);
        assert_false(st[i].compensated);
        assert_int_equal(st[i].last_attempt, 0);
        assert_int_equal(st[i].counted, 0);
        assert_int_equal(st[i].comp_last_attempt, 0);
        assert_int_equal(st[i].comp_counted, 0);
        assert_true(st[i].completed_at == NONE);
        assert_true(st[i].running_since == NONE);
        assert_null(st[i].output);
    }
    sked_workflow_free(w);
}

static void test_states_attempts(void **state)
{
    sked_workflow *w = wf_new();
    sked_step_state st[5];
    char out_a[] = "{\"rows\":3}";

    (void) state;
    step(w, "a", 3, false, 0, NULL, NULL);
    step(w, "b", 2, false, 0, NULL, NULL);
    step(w, "c", 2, false, 0, NULL, NULL);
    step(w, "d", 1, false, 0, NULL, NULL);
    step(w, "e", 2, false, 0, NULL, NULL);
    sked_step_record r[] = {
        /* a: failed once, then twice lost to a dying server, then done. */
        rec("a", false, 1, SKED_STEP_FAILED, "exit", T0, T0 + 1 * SEC),
        rec("a", false, 2, SKED_STEP_FAILED, "lease_expired", T0 + 2 * SEC,
            T0 + 40 * SEC),
        rec("a", false, 3, SKED_STEP_CANCELLED, "interrupted", T0 + 41 * SEC,
            T0 + 42 * SEC),
        rec("a", false, 4, SKED_STEP_COMPLETED, NULL, T0 + 50 * SEC,
            T0 + 55 * SEC),
        /* b: both attempts failed: no retry left. */
        rec("b", false, 2, SKED_STEP_FAILED, "timeout", T0 + 5 * SEC,
            T0 + 6 * SEC),
        rec("b", false, 1, SKED_STEP_FAILED, "exit", T0, T0 + 1 * SEC),
        /* c: one failure and one lost attempt: one try left. */
        rec("c", false, 1, SKED_STEP_FAILED, "exit", T0, T0 + 1 * SEC),
        rec("c", false, 2, SKED_STEP_FAILED, "lease_expired", T0 + 2 * SEC,
            T0 + 3 * SEC),
        /* d: an open attempt (a durable sleep) is neither done nor out. */
        rec("d", false, 1, SKED_STEP_RUNNING, NULL, T0 + 7 * SEC, NONE),
        /* e: a cancelled attempt counts (only lost ones do not). */
        rec("e", false, 1, SKED_STEP_CANCELLED, "cancelled", T0, T0 + 1),
        rec("e", false, 2, SKED_STEP_FAILED, "step_failed", T0 + 2, T0 + 3),
        /* Steps this version does not have are ignored. */
        rec("gone", false, 1, SKED_STEP_COMPLETED, NULL, T0, T0 + 1),
        rec("gone", false, 9, SKED_STEP_FAILED, "exit", T0, T0 + 1),
    };
    r[3].output = out_a;
    sked__plan_states(w, r, sizeof r / sizeof *r, st);

    assert_true(st[0].completed);
    assert_false(st[0].exhausted);
    assert_false(st[0].running);
    assert_int_equal(st[0].last_attempt, 4);
    assert_int_equal(st[0].counted, 2);
    assert_true(st[0].completed_at == T0 + 55 * SEC);
    /* Borrowed, not copied. */
    assert_ptr_equal(st[0].output, out_a);

    assert_false(st[1].completed);
    assert_true(st[1].exhausted);
    assert_int_equal(st[1].counted, 2);
    assert_int_equal(st[1].last_attempt, 2);
    assert_true(st[1].completed_at == NONE);
    assert_null(st[1].output);

    assert_false(st[2].exhausted);
    assert_int_equal(st[2].counted, 1);
    assert_int_equal(st[2].last_attempt, 2);

    assert_true(st[3].running);
    assert_false(st[3].completed);
    assert_false(st[3].exhausted);
    assert_int_equal(st[3].counted, 0);
    assert_int_equal(st[3].last_attempt, 1);
    assert_true(st[3].running_since == T0 + 7 * SEC);

    assert_true(st[4].exhausted);
    assert_int_equal(st[4].counted, 2);

    for (size_t i = 0; i < 5; i++) {
        assert_false(st[i].compensated);
        assert_int_equal(st[i].comp_counted, 0);
    }
    sked_workflow_free(w);
}

static void test_states_compensation(void **state)
{
    sked_workflow *w = wf_new();
    sked_step_state st[5];

    (void) state;
    step(w, "a", 1, true, 3, NULL, NULL); /* compensated */
    step(w, "b", 1, true, 2, NULL, NULL); /* compensation out of tries */
    step(w, "c", 1, true, 2, NULL, NULL); /* one try left */
    step(w, "d", 1, true, 1, NULL, NULL); /* tries lost, not counted */
    step(w, "e", 2, true, 1, NULL, NULL); /* compensation running */
    sked_step_record r[] = {
        rec("a", false, 1, SKED_STEP_COMPLETED, NULL, T0, T0 + 1),
        rec("a", true, 1, SKED_STEP_FAILED, "exit", T0 + 2, T0 + 3),
        rec("a", true, 2, SKED_STEP_COMPLETED, NULL, T0 + 4, T0 + 5),
        rec("b", false, 1, SKED_STEP_COMPLETED, NULL, T0, T0 + 1),
        rec("b", true, 1, SKED_STEP_FAILED, "exit", T0 + 2, T0 + 3),
        rec("b", true, 2, SKED_STEP_FAILED, "timeout", T0 + 4, T0 + 5),
        rec("c", false, 1, SKED_STEP_COMPLETED, NULL, T0, T0 + 1),
        rec("c", true, 1, SKED_STEP_FAILED, "exit", T0 + 2, T0 + 3),
        rec("d", false, 1, SKED_STEP_COMPLETED, NULL, T0, T0 + 1),
        rec("d", true, 1, SKED_STEP_FAILED, "lease_expired", T0 + 2, T0 + 3),
        rec("d", true, 2, SKED_STEP_CANCELLED, "interrupted", T0 + 4, T0 + 5),
        rec("e", false, 1, SKED_STEP_FAILED, "exit", T0, T0 + 1),
        rec("e", false, 2, SKED_STEP_COMPLETED, NULL, T0 + 2, T0 + 3),
        rec("e", true, 1, SKED_STEP_RUNNING, NULL, T0 + 4, NONE),
    };
    sked__plan_states(w, r, sizeof r / sizeof *r, st);

    assert_true(st[0].compensated);
    assert_int_equal(st[0].comp_last_attempt, 2);
    assert_int_equal(st[0].comp_counted, 1);
    assert_true(st[1].compensated);
    assert_int_equal(st[1].comp_counted, 2);
    assert_false(st[2].compensated);
    assert_int_equal(st[2].comp_counted, 1);
    assert_false(st[3].compensated);
    assert_int_equal(st[3].comp_counted, 0);
    assert_int_equal(st[3].comp_last_attempt, 2);
    assert_false(st[4].compensated);
    assert_int_equal(st[4].comp_counted, 0);
    assert_int_equal(st[4].comp_last_attempt, 1);
    /* A compensation's attempts are not the step's. */
    for (size_t i = 0; i < 4; i++) {
        assert_true(st[i].completed);
        assert_int_equal(st[i].last_attempt, 1);
        assert_int_equal(st[i].counted, 1);
        assert_false(st[i].running);
    }
    assert_true(st[4].completed);
    assert_false(st[4].running);
    assert_int_equal(st[4].counted, 2);
    sked_workflow_free(w);
}

/* ---- what may start ----------------------------------------------------- */

/* Run sked__plan_next and check its answer: WANT and, for READY, the
 * indexes in READY_WANT (N_WANT of them); for FAILED, FAILED_WANT. */
static void check_next(const sked_workflow *w, const sked_step_state *st,
                       const bool *busy, size_t max, sked_plan_state want,
                       const size_t *ready_want, size_t n_want,
                       size_t failed_want)
{
    size_t ready[SKED_WORKFLOW_STEPS_MAX], n = 99, failed = 99;

    sked_plan_state got = sked__plan_next(w, st, busy, ready, max, &n, &failed);
    assert_int_equal(got, want);
    if (want == SKED_PLAN_FAILED) {
        assert_int_equal(failed, failed_want);
        return;
    }
    assert_int_equal(n, want == SKED_PLAN_READY ? n_want : 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(ready[i], ready_want[i]);
}

static void test_next_diamond(void **state)
{
    sked_workflow *w = diamond();
    sked_step_state st[4];
    bool busy[4] = {false};
    enum { A, B, C, D };

    (void) state;
    states_fresh(w, st);
    /* Only the root may start; the others wait for their needs. */
    check_next(w, st, busy, 4, SKED_PLAN_READY, (size_t[]){A}, 1, 0);
    check_next(w, st, NULL, 4, SKED_PLAN_READY, (size_t[]){A}, 1, 0);
    /* The root running: nothing else can start. */
    busy[A] = true;
    check_next(w, st, busy, 4, SKED_PLAN_BUSY, NULL, 0, 0);
    busy[A] = false;
    st[A].completed = true;
    /* Both branches at once, in definition order. */
    check_next(w, st, busy, 4, SKED_PLAN_READY, (size_t[]){B, C}, 2, 0);
    /* Parallelism 1: one at a time, the first in the definition. */
    check_next(w, st, busy, 1, SKED_PLAN_READY, (size_t[]){B}, 1, 0);
    /* A busy step is skipped, the other branch still starts. */
    busy[B] = true;
    check_next(w, st, busy, 4, SKED_PLAN_READY, (size_t[]){C}, 1, 0);
    busy[C] = true;
    check_next(w, st, busy, 4, SKED_PLAN_BUSY, NULL, 0, 0);
    /* One branch done: the join still waits for the other. */
    busy[B] = false;
    st[B].completed = true;
    check_next(w, st, busy, 4, SKED_PLAN_BUSY, NULL, 0, 0);
    busy[C] = false;
    check_next(w, st, busy, 4, SKED_PLAN_READY, (size_t[]){C}, 1, 0);
    st[C].completed = true;
    check_next(w, st, busy, 4, SKED_PLAN_READY, (size_t[]){D}, 1, 0);
    st[D].completed = true;
    check_next(w, st, busy, 4, SKED_PLAN_DONE, NULL, 0, 0);
    /* A stale busy flag on a completed step changes nothing. */
    busy[D] = true;
    check_next(w, st, busy, 4, SKED_PLAN_DONE, NULL, 0, 0);
    sked_workflow_free(w);
}

static void test_next_failed(void **state)
{
    sked_workflow *w = diamond();
    sked_step_state st[4];
    bool busy[4] = {false};
    enum { A, B, C, D };

    (void) state;
    states_fresh(w, st);
    st[A].exhausted = true;
    check_next(w, st, busy, 4, SKED_PLAN_FAILED, NULL, 0, A);
    st[A].exhausted = false;
    st[A].completed = true;
    /* A failed branch fails the run even though the other could start. */
    st[C].exhausted = true;
    check_next(w, st, busy, 4, SKED_PLAN_FAILED, NULL, 0, C);
    /* While the failed step is still busy (its last attempt ending, or
     * a retry timer), the run is not judged yet. */
    busy[C] = true;
    check_next(w, st, busy, 4, SKED_PLAN_READY, (size_t[]){B}, 1, 0);
    busy[B] = true;
    check_next(w, st, busy, 4, SKED_PLAN_BUSY, NULL, 0, 0);
    sked_workflow_free(w);
}

static void test_next_order_and_limit(void **state)
{
    sked_workflow *w = wf_new();
    sked_step_state st[6];
    bool busy[6] = {false};

    (void) state;
    /* Independent steps, named against alphabetical order. */
    step(w, "z", 1, false, 0, NULL, NULL);
    step(w, "y", 1, false, 0, NULL, NULL);
    step(w, "x", 1, false, 0, NULL, NULL);
    step(w, "w", 1, false, 0, NULL, NULL);
    step(w, "v", 1, false, 0, "z", NULL);
    step(w, "u", 1, false, 0, NULL, NULL);
    assert_int_equal(sked_workflow_set_parallelism(w, 3, NULL), 0);
    states_fresh(w, st);
    check_next(w, st, busy, 6, SKED_PLAN_READY, (size_t[]){0, 1, 2, 3, 5}, 5,
               0);
    /* The workflow's parallelism bounds how many start at once. */
    check_next(w, st, busy, (size_t) w->parallelism, SKED_PLAN_READY,
               (size_t[]){0, 1, 2}, 3, 0);
    check_next(w, st, busy, 2, SKED_PLAN_READY, (size_t[]){0, 1}, 2, 0);
    /* No room at all: the ready steps wait; the run has not failed. */
    check_next(w, st, busy, 0, SKED_PLAN_BUSY, NULL, 0, 0);
    busy[0] = busy[2] = true;
    check_next(w, st, busy, 1, SKED_PLAN_READY, (size_t[]){1}, 1, 0);
    check_next(w, st, busy, 6, SKED_PLAN_READY, (size_t[]){1, 3, 5}, 3, 0);
    st[0].completed = true;
    busy[0] = false;
    check_next(w, st, busy, 6, SKED_PLAN_READY, (size_t[]){1, 3, 4, 5}, 4, 0);
    sked_workflow_free(w);
}

/* From records to a decision, as the executor does on recovery. */
static void test_next_from_records(void **state)
{
    sked_workflow *w = wf_new();
    sked_step_state st[3];
    bool busy[3] = {false};

    (void) state;
    step(w, "fetch", 2, false, 0, NULL, NULL);
    step(w, "load", 2, false, 0, "fetch", NULL);
    step(w, "notify", 1, false, 0, "load", NULL);
    sked_step_record r[] = {
        rec("fetch", false, 1, SKED_STEP_COMPLETED, NULL, T0, T0 + SEC),
        rec("load", false, 1, SKED_STEP_FAILED, "exit", T0 + SEC, T0 + 2 * SEC),
        rec("load", false, 2, SKED_STEP_FAILED, "lease_expired", T0 + 3 * SEC,
            T0 + 60 * SEC),
    };
    /* The lost attempt does not count: load gets its second try. */
    sked__plan_states(w, r, 3, st);
    check_next(w, st, busy, 1, SKED_PLAN_READY, (size_t[]){1}, 1, 0);
    /* A second real failure is its last. */
    r[2].error_code = "exit";
    sked__plan_states(w, r, 3, st);
    check_next(w, st, busy, 1, SKED_PLAN_FAILED, NULL, 0, 1);
    sked_workflow_free(w);
}

/* ---- compensations ------------------------------------------------------- */

static void check_comp(const sked_workflow *w, const sked_step_state *st,
                       const size_t *want, size_t n_want)
{
    size_t order[SKED_WORKFLOW_STEPS_MAX];
    size_t n = sked__plan_compensations(w, st, order);

    assert_int_equal(n, n_want);
    for (size_t i = 0; i < n; i++)
        if (order[i] != want[i])
            fail_msg("position %zu: step %zu, want %zu", i, order[i], want[i]);
}

static void test_compensations(void **state)
{
    sked_workflow *w = wf_new();
    sked_step_state st[5];
    enum { A, B, C, D, E };

    (void) state;
    step(w, "a", 1, true, 1, NULL, NULL);
    step(w, "b", 1, true, 1, NULL, NULL);
    step(w, "c", 1, false, 0, NULL, NULL); /* nothing to undo */
    step(w, "d", 1, true, 1, NULL, NULL);
    step(w, "e", 1, true, 1, NULL, NULL);
    states_fresh(w, st);
    /* Nothing completed, nothing to undo. */
    check_comp(w, st, NULL, 0);
    st[A].completed = st[B].completed = st[C].completed = true;
    st[D].completed = true;
    st[A].completed_at = T0 + 10;
    st[B].completed_at = T0 + 30;
    st[C].completed_at = T0 + 40;
    st[D].completed_at = T0 + 20;
    /* Latest completion first; c has no compensation, e never ran. */
    check_comp(w, st, (size_t[]){B, D, A}, 3);
    /* Already compensated (or out of tries): not again. */
    st[B].compensated = true;
    check_comp(w, st, (size_t[]){D, A}, 2);
    /* Ties (parallel steps ending together): later definition first. */
    st[B].compensated = false;
    st[A].completed_at = st[B].completed_at = st[D].completed_at = T0 + 5;
    check_comp(w, st, (size_t[]){D, B, A}, 3);
    st[E].completed = true;
    st[E].completed_at = T0 + 5;
    st[B].completed_at = T0 + 6;
    check_comp(w, st, (size_t[]){B, E, D, A}, 4);
    sked_workflow_free(w);
}

/* The order comes from the records' finish times, not their attempts. */
static void test_compensations_from_records(void **state)
{
    sked_workflow *w = wf_new();
    sked_step_state st[3];

    (void) state;
    step(w, "a", 2, true, 1, NULL, NULL);
    step(w, "b", 1, true, 1, NULL, NULL);
    step(w, "c", 1, true, 1, NULL, NULL);
    sked_step_record r[] = {
        rec("a", false, 1, SKED_STEP_FAILED, "exit", T0, T0 + SEC),
        rec("b", false, 1, SKED_STEP_COMPLETED, NULL, T0, T0 + 2 * SEC),
        rec("a", false, 2, SKED_STEP_COMPLETED, NULL, T0 + 3 * SEC,
            T0 + 4 * SEC),
        rec("c", false, 1, SKED_STEP_FAILED, "exit", T0, T0 + 5 * SEC),
        rec("b", true, 1, SKED_STEP_COMPLETED, NULL, T0 + 6 * SEC,
            T0 + 7 * SEC),
    };
    sked__plan_states(w, r, sizeof r / sizeof *r, st);
    /* b was undone already, c never completed: only a is left. */
    check_comp(w, st, (size_t[]){0}, 1);
    /* Without b's compensation: a, defined first, completed last. */
    sked__plan_states(w, r, 4, st);
    check_comp(w, st, (size_t[]){0, 1}, 2);
    sked_workflow_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timeout),
        cmocka_unit_test(test_hard_deadline),
        cmocka_unit_test(test_min_deadline),
        cmocka_unit_test(test_retry_backoff),
        cmocka_unit_test(test_retry_jitter_range),
        cmocka_unit_test(test_retry_jitter_deterministic),
        cmocka_unit_test(test_retry_on),
        cmocka_unit_test(test_states_empty),
        cmocka_unit_test(test_states_attempts),
        cmocka_unit_test(test_states_compensation),
        cmocka_unit_test(test_next_diamond),
        cmocka_unit_test(test_next_failed),
        cmocka_unit_test(test_next_order_and_limit),
        cmocka_unit_test(test_next_from_records),
        cmocka_unit_test(test_compensations),
        cmocka_unit_test(test_compensations_from_records),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
