/* SPDX-License-Identifier: MIT */
/* The cancellation flag (src/base/cancel.c): its fd is readable exactly
 * while it is set, the first reason is kept, and a reset makes it a new
 * flag (not set, fd quiet) that can be set again, as a worker reuses it
 * for run after run. */
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "base/cancel.h"

static bool readable(const sked_cancel *c)
{
    struct pollfd p = {sked__cancel_fd(c), POLLIN, 0};

    return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

static void test_set_and_reset(void **state)
{
    sked_cancel c;

    (void) state;
    assert_int_equal(sked__cancel_init(&c), 0);
    assert_int_equal(sked__cancel_reason(&c), 0);
    assert_false(readable(&c));
    sked__cancel_reset(&c); /* not set: nothing to clear */
    assert_false(readable(&c));
    for (int round = 1; round <= 3; round++) {
        sked__cancel_set(&c, 10 + round);
        sked__cancel_set(&c, 99); /* the first reason stays */
        assert_int_equal(sked__cancel_reason(&c), 10 + round);
        assert_true(readable(&c));
        sked__cancel_reset(&c);
        assert_int_equal(sked__cancel_reason(&c), 0);
        assert_false(readable(&c));
    }
    sked__cancel_set(&c, 0); /* no reason given: 1 */
    assert_int_equal(sked__cancel_reason(&c), 1);
    sked__cancel_close(&c);
    sked__cancel_close(&c); /* twice: harmless */
    assert_int_equal(sked__cancel_fd(&c), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_and_reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
