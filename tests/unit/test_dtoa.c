/* SPDX-License-Identifier: MIT */
/* The shortest decimal of a double (src/base/dtoa.c), checked against
 * strtod on millions of doubles: random bit patterns (every exponent,
 * subnormals among them), decimals of a few digits as people write them
 * and durations are (N / 10^k), integers held as doubles, every power
 * of two, and the edges (0, -0.0, the smallest subnormal, DBL_MIN,
 * DBL_MAX, 1e21 where the layout turns to an exponent, 1e-7).
 *
 * For each: strtod reads the text back as the same double, bit for bit;
 * no decimal of one digit fewer reads back as it (the rounding to that
 * many digits and both its neighbours are tried, which covers every
 * shorter decimal near it); and the layout is JavaScript's, with ".0"
 * after an integer. */
#include <float.h>
#include <stdbool.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/dtoa.h"

static uint64_t rng = 0x2545f4914f6cdd1du;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static bool same(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* The significant digits of the text T (a dtoa answer) into DIG, and
 * the decimal exponent of the first. */
static int digits_of(const char *t, char *dig, int *exp10)
{
    int n = 0, point = -1, lead = 0, i = 0;
    const char *e = strchr(t, 'e');

    if (*t == '-')
        t++;
    for (const char *p = t; *p && p != e; p++, i++) {
        if (*p == '.') {
            point = i--;
            continue;
        }
        if (n == 0 && *p == '0') {
            lead++;
            continue;
        }
        dig[n++] = *p;
    }
    if (point < 0)
        point = i;
    while (n > 1 && dig[n - 1] == '0')
        n--;
    *exp10 = point - lead - 1 + (e ? atoi(e + 1) : 0);
    return n;
}

/* No decimal of N - 1 significant digits reads back as X. */
static void check_shortest(double x, int n)
{
    char buf[64];
    long long m;
    int e;

    if (n <= 1)
        return;
    snprintf(buf, sizeof buf, "%.*e", n - 2, x);
    e = atoi(strchr(buf, 'e') + 1) - (n - 2);
    /* The n-1 digits as an integer M: x is near M * 10^e. */
    m = 0;
    for (const char *p = buf; *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            m = m * 10 + (*p - '0');
    for (long long d = -1; d <= 1; d++) {
        snprintf(buf, sizeof buf, "%s%llde%d", x < 0 ? "-" : "", m + d, e);
        if (same(strtod(buf, NULL), x))
            fail_msg("%.17g: \"%s\" is shorter and reads back", x, buf);
    }
}

/* The layout: plain from 1e-6 up to below 1e21 (".0" after an integer),
 * an exponent "e+N" / "e-N" outside, nothing else. */
static void check_layout(double x, const char *t, int exp10)
{
    const char *e = strchr(t, 'e');
    double a = fabs(x);

    assert_int_equal(e != NULL, !(a == 0 || (exp10 >= -6 && exp10 <= 20)));
    if (e) {
        assert_true(e[1] == '+' || e[1] == '-');
        assert_true(e[2] >= '1' && e[2] <= '9');
        assert_true(strchr(t, '.') == NULL ||
                    strchr(t, '.') == t + 1 + (x < 0));
    } else {
        assert_non_null(strchr(t, '.'));
        if (a == floor(a))
            assert_true(strcmp(strchr(t, '.'), ".0") == 0);
    }
    assert_true(strspn(t, "-0123456789.e+") == strlen(t));
}

static void check(double x)
{
    char t[SKED_DTOA_MAX + 8], dig[32];
    size_t len;
    int exp10, n;

    memset(t, 'X', sizeof t);
    len = sked__dtoa(x, t);
    assert_true(len < SKED_DTOA_MAX);
    assert_int_equal(strlen(t), len);
    if (!same(strtod(t, NULL), x))
        fail_msg("%.17g written \"%s\", read back as %.17g", x, t,
                 strtod(t, NULL));
    n = digits_of(t, dig, &exp10);
    check_shortest(x, n);
    check_layout(x, t, exp10);
}

static void test_edges(void **state)
{
    static const struct {
        double x;
        const char *text;
    } cases[] = {
        {0.004439, "0.004439"},
        {0.0, "0.0"},
        {-0.0, "-0.0"},
        {1.0, "1.0"},
        {-2.0, "-2.0"},
        {0.1, "0.1"},
        {0.1 + 0.2, "0.30000000000000004"},
        {1.5, "1.5"},
        {0.000001, "0.000001"},
        {1e-7, "1e-7"},
        {1.25e-7, "1.25e-7"},
        {1e20, "100000000000000000000.0"},
        {1e21, "1e+21"},
        {1.5e300, "1.5e+300"},
        {123456.789, "123456.789"},
        {9007199254740993.0, "9007199254740992.0"},
        {9223372036854775808.0, "9223372036854776000.0"},
        {5e-324, "5e-324"},
        {-5e-324, "-5e-324"},
        {DBL_MIN, "2.2250738585072014e-308"},
        {DBL_MAX, "1.7976931348623157e+308"},
        {DBL_EPSILON, "2.220446049250313e-16"},
        {86400.0, "86400.0"},
        {2.5e-5, "0.000025"},
    };

    (void) state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char t[SKED_DTOA_MAX];

        sked__dtoa(cases[i].x, t);
        assert_string_equal(t, cases[i].text);
        check(cases[i].x);
    }
}

static void test_not_finite(void **state)
{
    char t[SKED_DTOA_MAX];

    (void) state;
    assert_int_equal(sked__dtoa(INFINITY, t), 4);
    assert_string_equal(t, "null");
    sked__dtoa(-INFINITY, t);
    assert_string_equal(t, "null");
    sked__dtoa(NAN, t);
    assert_string_equal(t, "null");
}

/* Every bit pattern is as likely: all exponents, subnormals included. */
static void test_random_bits(void **state)
{
    (void) state;
    for (int i = 0; i < 1000000; i++) {
        uint64_t b = next();
        double x;

        memcpy(&x, &b, sizeof x);
        if (isfinite(x))
            check(x);
    }
}

/* Decimals as people and durations write them: N / 10^K, and integers. */
static void test_random_decimals(void **state)
{
    (void) state;
    for (int i = 0; i < 1000000; i++) {
        int64_t n = (int64_t) (next() >> (next() % 64));
        double x = (double) n / pow(10, (double) (next() % 23));

        check(next() % 2 ? x : -x);
        if (i % 8 == 0)
            check((double) n);
    }
}

/* Powers of two have a nearer neighbour below than above: the case where
 * the nearest 16 digits do not read back though other 16 digits do. */
static void test_powers_of_two(void **state)
{
    (void) state;
    for (int e = -1074; e <= 1023; e++) {
        check(ldexp(1.0, e));
        check(-ldexp(1.0, e));
        check(nextafter(ldexp(1.0, e), 0));
        check(nextafter(ldexp(1.0, e), INFINITY));
    }
}

/* Subnormals, where fewer digits than 15 can be the shortest. */
static void test_subnormals(void **state)
{
    (void) state;
    for (int i = 0; i < 100000; i++) {
        uint64_t b = next() >> (12 + next() % 52); /* exponent field 0 */
        double x;

        memcpy(&x, &b, sizeof x);
        check(x);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_not_finite),
        cmocka_unit_test(test_random_bits),
        cmocka_unit_test(test_random_decimals),
        cmocka_unit_test(test_powers_of_two),
        cmocka_unit_test(test_subnormals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
