/* SPDX-License-Identifier: MIT */
/* The growable buffer (src/base/buf.c): appends and printf across many
 * doublings give back exactly what was written; a limit or a failure is
 * sticky until cleared, and a failed buffer gives nothing back; room
 * written in place counts as written; integers come out as printf
 * writes them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <inttypes.h>

#include "base/buf.h"

static void test_appends_and_printf(void **state)
{
    sked_buf b = {0};
    char want[64 * 1024], *got;
    size_t n = 0, len;

    (void) state;
    for (int i = 0; n < sizeof want - 64; i++) {
        if (i % 3 == 0) {
            assert_true(sked__buf_printf(&b, "<%d:%s>", i, "x"));
            n +=
                (size_t) snprintf(want + n, sizeof want - n, "<%d:%s>", i, "x");
        } else {
            assert_true(sked__buf_add(&b, "abcdefg", (size_t) (i % 7)));
            memcpy(want + n, "abcdefg", (size_t) (i % 7));
            n += (size_t) (i % 7);
        }
        assert_int_equal(b.len, n);
        assert_int_equal(b.p[b.len], '\0');
    }
    want[n] = '\0';
    got = sked__buf_take(&b, &len);
    assert_int_equal(len, n);
    assert_string_equal(got, want);
    assert_null(b.p);
    free(got);
}

static void test_max_is_sticky_until_cleared(void **state)
{
    sked_buf b = {.max = 8};

    (void) state;
    assert_true(sked__buf_puts(&b, "12345678"));
    assert_false(sked__buf_add(&b, "9", 1));
    assert_true(b.failed);
    assert_false(sked__buf_puts(&b, "")); /* nothing after a failure */
    assert_false(sked__buf_printf(&b, "%d", 1));
    sked__buf_clear(&b);
    assert_false(b.failed);
    assert_int_equal(b.len, 0);
    assert_true(sked__buf_printf(&b, "%s", "abc"));
    assert_string_equal(b.p, "abc");
    assert_false(sked__buf_printf(&b, "%s", "too long"));
    assert_null(sked__buf_take(&b, NULL)); /* failed: nothing given */
    assert_int_equal(b.max, 8);
}

static void test_empty(void **state)
{
    sked_buf b = {0};
    size_t len = 99;
    char *p;

    (void) state;
    assert_null(sked__buf_take(&b, &len));
    assert_int_equal(len, 0);
    assert_true(sked__buf_add(&b, "", 0));
    p = sked__buf_take(&b, &len);
    assert_non_null(p);
    assert_string_equal(p, "");
    free(p);
    sked__buf_reset(&b);
}

/* Room asked for, written in part, then counted: the content is what
 * was written, NUL-terminated, across growth; past max, no room. */
static void test_room(void **state)
{
    sked_buf b = {0}, small = {.max = 8};
    char want[4096];
    size_t len = 0;

    (void) state;
    for (int i = 0; i < 500; i++) {
        char *p = sked__buf_room(&b, 16);
        assert_non_null(p);
        int n = snprintf(p, 16, "%d;", i);
        sked__buf_grew(&b, (size_t) n);
        memcpy(want + len, p, (size_t) n);
        len += (size_t) n;
        assert_int_equal(b.len, len);
        assert_int_equal(b.p[b.len], '\0');
    }
    want[len] = '\0';
    assert_string_equal(b.p, want);
    sked__buf_reset(&b);
    assert_non_null(sked__buf_room(&small, 8));
    assert_null(sked__buf_room(&small, 9));
    assert_true(small.failed);
    sked__buf_reset(&small);
}

/* Every integer, the extremes and a million random ones, as "%" PRId64. */
static void test_i64_text(void **state)
{
    static const int64_t edges[] = {
        0, 1, -1, 9, 10, -10, 99, 100, INT64_MAX, INT64_MIN, INT64_MIN + 1};
    char got[SKED_I64_TEXT + 1], want[32];
    uint64_t x = 88172645463325252u;

    (void) state;
    for (size_t i = 0; i < sizeof edges / sizeof *edges + 1000000; i++) {
        int64_t v;
        if (i < sizeof edges / sizeof *edges) {
            v = edges[i];
        } else {
            x ^= x << 13; /* xorshift64: every bit pattern, every length */
            x ^= x >> 7;
            x ^= x << 17;
            v = (int64_t) (x >> (x % 64));
            if ((x & 1) && v != INT64_MIN)
                v = -v;
        }
        size_t n = sked__i64_text(v, got);
        got[n] = '\0';
        snprintf(want, sizeof want, "%" PRId64, v);
        assert_string_equal(got, want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_appends_and_printf),
        cmocka_unit_test(test_max_is_sticky_until_cleared),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_room),
        cmocka_unit_test(test_i64_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
