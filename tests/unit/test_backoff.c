/* SPDX-License-Identifier: MIT */
/* Tests of the capped exponential backoff (src/base/backoff.c): the waits
 * of failures in a row, one table line per configuration, the start
 * again after a success, and no overflow after very many failures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "base/backoff.h"

#define MS (INT64_C(1000))
#define S  (INT64_C(1000000))

static void test_waits(void **state)
{
    static const struct {
        sked_dur initial, max;
        sked_dur want[8]; /* the waits of 8 failures in a row */
    } cases[] = {
        /* The defaults: 100 ms, doubling, at most 10 s. */
        {0,
         0,
         {100 * MS, 200 * MS, 400 * MS, 800 * MS, 1600 * MS, 3200 * MS,
          6400 * MS, 10 * S}},
        {1 * S,
         5 * S,
         {1 * S, 2 * S, 4 * S, 5 * S, 5 * S, 5 * S, 5 * S, 5 * S}},
        /* A cap that is not a power of two times the start. */
        {300 * MS,
         1000 * MS,
         {300 * MS, 600 * MS, 1000 * MS, 1000 * MS, 1000 * MS, 1000 * MS,
          1000 * MS, 1000 * MS}},
        /* A cap below the start is the start. */
        {2 * S,
         1 * S,
         {2 * S, 2 * S, 2 * S, 2 * S, 2 * S, 2 * S, 2 * S, 2 * S}},
        /* Start and cap equal: a constant wait. */
        {250 * MS,
         250 * MS,
         {250 * MS, 250 * MS, 250 * MS, 250 * MS, 250 * MS, 250 * MS, 250 * MS,
          250 * MS}},
    };

    (void) state;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        sked_backoff b;
        sked__backoff_init(&b, cases[c].initial, cases[c].max);
        for (int i = 0; i < 8; i++) {
            sked_dur d = sked__backoff_fail(&b);
            if (d != cases[c].want[i])
                fail_msg("case %zu, failure %d: waited %lld, want %lld", c,
                         i + 1, (long long) d, (long long) cases[c].want[i]);
            assert_int_equal(b.failures, (uint32_t) i + 1);
        }
    }
}

static void test_success_starts_again(void **state)
{
    sked_backoff b;

    (void) state;
    sked__backoff_init(&b, 100 * MS, 10 * S);
    for (int i = 0; i < 5; i++)
        (void) sked__backoff_fail(&b);
    sked__backoff_ok(&b);
    assert_int_equal(b.failures, 0);
    assert_int_equal(sked__backoff_fail(&b), 100 * MS);
    assert_int_equal(sked__backoff_fail(&b), 200 * MS);
}

/* A database away for days: the wait stays at the cap, never wraps. */
static void test_many_failures(void **state)
{
    sked_backoff b;
    sked_dur max = INT64_MAX / 3;

    (void) state;
    sked__backoff_init(&b, 1, max);
    for (int i = 0; i < 100000; i++) {
        sked_dur d = sked__backoff_fail(&b);
        assert_true(d >= 1 && d <= max);
    }
    assert_int_equal(sked__backoff_fail(&b), max);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_waits),
        cmocka_unit_test(test_success_starts_again),
        cmocka_unit_test(test_many_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
