/* SPDX-License-Identifier: MIT */
/* test_alloc.h: the loop over N. */
#include "test_alloc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "base/alloc.h"
#include "sked/error.h"

bool sked_test_alloc_full(void)
{
    const char *v = getenv("SKED_ALLOC_FULL");
    return v && strcmp(v, "1") == 0;
}

static long held;    /* failures counted before a sked_test_alloc_stop */
static long jfailed; /* failures of jansson's allocations in this pass */
static long lfailed; /* all failures of this pass, once it ended */

static void *json_alloc(size_t n)
{
    void *p = sked__malloc(n);
    jfailed += p == NULL;
    return p;
}

bool sked_test_alloc_jansson_only(void)
{
    return lfailed > 0 && jfailed == lfailed;
}

static bool jansson_routed; /* sked_test_alloc_jansson was called */

void sked_test_alloc_jansson(void)
{
    jansson_routed = true;
}

/* Let jansson's allocations fail in turn with libsked's, or not. */
static void route_jansson(bool on)
{
    if (on)
        json_set_alloc_funcs(json_alloc, free);
    else
        json_set_alloc_funcs(malloc, free);
}

void sked_test_alloc_stop(void)
{
    held += sked__alloc_failed();
    sked__alloc_fail_at(0, 0);
}

/* One loop in one mode; the passes run. */
static long loop(const sked_test_alloc_case *c, bool sticky)
{
    long max = c->max > 0 ? c->max : 100000;
    long step = c->stride > 1 && !sked_test_alloc_full() ? c->stride : 1;

    for (long n = 1; n <= max; n += step) {
        if (c->prepare)
            c->prepare(c->ctx);
        held = jfailed = lfailed = 0;
        sked__alloc_fail_at(n, sticky);
        int rc = c->run(c->ctx);
        long failed = held + sked__alloc_failed();
        sked__alloc_fail_at(0, 0);
        lfailed = failed;
        const char *why = c->why ? c->why(c->ctx) : "";
        if (failed == 0 && rc != c->want)
            fail_msg("%s: pass %ld failed no allocation but returned %s (%s)",
                     c->name, n, sked_strerror(rc), why);
        if (rc != c->want && rc != SKED_ENOMEM &&
            !sked_test_alloc_jansson_only())
            fail_msg("%s: allocation %ld%s failed: %s, not SKED_ENOMEM (%s)",
                     c->name, n, sticky ? " and after" : "", sked_strerror(rc),
                     why);
        if (c->check)
            c->check(c->ctx, rc, failed);
        if (failed == 0)
            return (n + step - 1) / step;
    }
    fail_msg("%s: still failing allocations after %ld passes", c->name, max);
    return max;
}

/* Quick: jansson's allocations fail in turn too (when asked for), only
 * the Nth. Full: also libsked's alone (every answer checked whole), and
 * each of those with every allocation after the Nth failing too. */
long sked_test_alloc_loop(const sked_test_alloc_case *c)
{
    long n = 0;

    int last = sked_test_alloc_full() ? 0 : jansson_routed;

    for (int sticky = 0; sticky < 1 + sked_test_alloc_full(); sticky++)
        for (int j = jansson_routed; j >= last; j--) {
            route_jansson(j);
            n += loop(c, sticky);
        }
    route_jansson(false);
    return n;
}
