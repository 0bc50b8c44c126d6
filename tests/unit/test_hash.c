/* SPDX-License-Identifier: MIT */
/* Tests of sked's one string hash (src/base/hash.h): FNV-1a against the
 * published test vectors of its authors, the finaliser against
 * splitmix64's first output, and the difference a wrong offset basis
 * makes. Workflow versions and jitter delays are these functions'
 * values, so they must never change within a major version. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "base/hash.h"

static void test_fnv1a_vectors(void **state)
{
    static const struct {
        const char *s;
        uint64_t want;
    } cases[] = {
        {"", UINT64_C(0xcbf29ce484222325)}, /* the offset basis itself */
        {"a", UINT64_C(0xaf63dc4c8601ec8c)},
        {"foobar", UINT64_C(0x85944171f73967e8)},
    };

    (void) state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_int_equal(sked__hash_fnv1a(cases[i].s), cases[i].want);
}

/* The bytes are hashed unsigned: a byte over 0x7f is not sign-extended. */
static void test_fnv1a_high_bytes(void **state)
{
    uint64_t want = UINT64_C(14695981039346656037);

    (void) state;
    want = (want ^ 0xffu) * UINT64_C(1099511628211);
    want = (want ^ 0x80u) * UINT64_C(1099511628211);
    assert_int_equal(sked__hash_fnv1a("\xff\x80"), want);
}

/* Splitmix64 seeded with 0 gives first the finaliser of its golden gamma:
 * 0xe220a8397b1dcdaf. */
static void test_mix(void **state)
{
    (void) state;
    assert_int_equal(sked__hash_mix(UINT64_C(0x9e3779b97f4a7c15)),
                     UINT64_C(0xe220a8397b1dcdaf));
    assert_int_equal(sked__hash_mix(0), 0);
    /* Inputs one bit apart land far apart: about half the bits differ. */
    for (int b = 0; b < 64; b++) {
        uint64_t d = sked__hash_mix(UINT64_C(1) << b) ^ sked__hash_mix(0);
        int n = __builtin_popcountll(d);

        assert_true(n > 16 && n < 48);
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

    return (x > y) - (x < y);
}

/* No two of 100,000 names of one shape hash alike. */
static void test_fnv1a_spread(void **state)
{
    enum { N = 100000 };
    static uint64_t v[N];
    char name[32];

    (void) state;
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "sched-%d", i);
        v[i] = sked__hash_fnv1a(name);
    }
    qsort(v, N, sizeof v[0], cmp_u64);
    for (int i = 1; i < N; i++)
        assert_true(v[i] != v[i - 1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fnv1a_vectors),
        cmocka_unit_test(test_fnv1a_high_bytes),
        cmocka_unit_test(test_mix),
        cmocka_unit_test(test_fnv1a_spread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
