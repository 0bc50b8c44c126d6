/* SPDX-License-Identifier: MIT */
/* Fuzz target: the cron parser, and the search on what it accepts.
 * Any accepted expression must describe itself and have occurrences that
 * move forward, with prev mirroring next, in UTC and in a DST zone. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sked/sked.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const sked_tz *dst_zone(void)
{
    static sked_tz *tz;

    if (!tz && sked_tz_parse_posix("CET-1CEST,M3.5.0,M10.5.0/3", &tz, NULL))
        abort();
    return tz;
}

static void check_search(const sked_cron *c, const sked_tz *tz, sked_dst dst,
                         sked_time t)
{
    sked_time a, b, p;

    if (sked_cron_next(c, tz, dst, t, &a) != 0)
        return;
    if (a <= t)
        abort();
    if (sked_cron_next(c, tz, dst, a, &b) == 0 && b <= a)
        abort();
    if (sked_cron_prev(c, tz, dst, a, &p) == 0 && p >= a)
        abort();
    if (sked_cron_prev(c, tz, dst, a + 1, &p) != 0 || p != a)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char expr[SKED_CRON_MAX_LEN + 8], text[SKED_CRON_EXPLAIN_MAX];
    sked_cron c;
    sked_error err;

    if (size >= sizeof expr)
        size = sizeof expr - 1;
    memcpy(expr, data, size);
    expr[size] = '\0';
    if (sked_cron_parse(expr, &c, &err) != 0) {
        if (err.code != SKED_EINVAL || err.pos < -1 ||
            (err.pos >= 0 && (size_t) err.pos > size) || err.field[0] == '\0')
            abort();
        return 0;
    }
    if (sked_cron_explain(&c, "UTC", text, sizeof text) < 0)
        abort();
    /* 2025-03-30T00:30:00Z: half an hour before a spring change. */
    check_search(&c, sked_tz_utc(), SKED_DST_ONCE, INT64_C(1743294600000000));
    check_search(&c, dst_zone(), SKED_DST_ONCE, INT64_C(1743294600000000));
    check_search(&c, dst_zone(), SKED_DST_CADENCE, INT64_C(1761437000000000));
    return 0;
}
