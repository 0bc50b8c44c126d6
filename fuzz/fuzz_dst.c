/* SPDX-License-Identifier: MIT */
/* Fuzz target: the DST policy's text form and the searches under it.
 * Input: a policy, a newline, a cron expression (or, when the expression
 * is a number, a calendar-day interval of that many days). A refused
 * policy names "dst" and a byte within it; an accepted one reads back
 * from its canonical name; occurrences under it move forward, with prev
 * mirroring next, around the changes of two DST zones (one of 30 min). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cron/every_days.h"
#include "sked/sked.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const sked_tz *dst_zone(int which)
{
    static sked_tz *tz[2];
    static const char *const rules[2] = {"CET-1CEST,M3.5.0,M10.5.0/3",
                                         "<+1030>-10:30<+11>-11,M10.1.0,"
                                         "M4.1.0"};

    if (!tz[which] && sked_tz_parse_posix(rules[which], &tz[which], NULL))
        abort();
    return tz[which];
}

typedef struct search {
    const sked_cron *cron; /* NULL: every DAYS days from ANCHOR */
    int days;
    sked_time anchor;
} search;

static int next_of(const search *s, const sked_tz *tz, sked_dst dst,
                   sked_time t, sked_time *out)
{
    sked_occurrence occ;
    int rc;

    if (s->cron)
        return sked_cron_next(s->cron, tz, dst, t, out);
    rc = sked__every_days_next(s->anchor, s->days, tz, dst, t, &occ);
    if (rc == 0)
        *out = occ.at;
    return rc;
}

static int prev_of(const search *s, const sked_tz *tz, sked_dst dst,
                   sked_time t, sked_time *out)
{
    if (s->cron)
        return sked_cron_prev(s->cron, tz, dst, t, out);
    return sked__every_days_prev(s->anchor, s->days, tz, dst, t, out);
}

/* Walk a few occurrences from T: increasing, and prev mirrors next. */
static void check_walk(const search *s, const sked_tz *tz, sked_dst dst,
                       sked_time t)
{
    sked_time a, p;

    for (int i = 0; i < 6; i++) {
        if (next_of(s, tz, dst, t, &a) != 0)
            return;
        if (a <= t)
            abort();
        if (prev_of(s, tz, dst, a + 1, &p) != 0 || p != a)
            abort();
        if (prev_of(s, tz, dst, a, &p) == 0 &&
            (p >= a || next_of(s, tz, dst, p, &p) != 0 || p != a))
            abort();
        t = a;
    }
}

static void check_policy(const char *text, size_t len)
{
    sked_dst d, back;
    sked_error err;

    if (sked_dst_parse(text, &d, &err) != 0) {
        if (err.code != SKED_EINVAL || strcmp(err.field, "dst") != 0 ||
            err.pos < 0 || (size_t) err.pos > len)
            abort();
        return;
    }
    if (sked_dst_parse(sked_dst_name(d), &back, NULL) != 0 || back != d)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char buf[SKED_CRON_MAX_LEN + 64];
    char *nl, *expr;
    sked_cron c;
    sked_dst d;
    search s = {0};

    if (size >= sizeof buf)
        size = sizeof buf - 1;
    memcpy(buf, data, size);
    buf[size] = '\0';
    nl = strchr(buf, '\n');
    if (nl)
        *nl = '\0';
    check_policy(buf, strlen(buf));
    if (!nl || sked_dst_parse(buf, &d, NULL) != 0)
        return 0;
    expr = nl + 1;
    if (*expr >= '1' && *expr <= '9') {
        s.days = atoi(expr) % 400;
        s.anchor = INT64_C(1743200000000000) +
                   (int64_t) strlen(expr) * 3600 * SKED_USEC_PER_SEC;
        if (s.days < 1 || s.days > SKED__EVERY_DAYS_MAX)
            return 0;
    } else if (sked_cron_parse(expr, &c, NULL) == 0) {
        s.cron = &c;
    } else {
        return 0;
    }
    /* Before the spring and autumn changes of 2025 in both zones. */
    check_walk(&s, dst_zone(0), d, INT64_C(1743294600000000));
    check_walk(&s, dst_zone(0), d, INT64_C(1761437000000000));
    check_walk(&s, dst_zone(1), d, INT64_C(1743861600000000));
    check_walk(&s, dst_zone(1), d, INT64_C(1759590000000000));
    return 0;
}
