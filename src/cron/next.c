/* SPDX-License-Identifier: MIT */
/* Occurrences of a cron expression in a time zone (SPEC 2.1, 2.2): the
 * expression's calendar (calendar.c) as a source of wall-clock times,
 * mapped to instants through the zone's gaps and folds by the walk of
 * wall_walk.h, instantiated here so that it calls the calendar directly. */
#include "cron/wall_walk.h"

/* Return C as a wall source under DST (C borrowed). Only cadence reads
 * fixed_time, and the popcounts cost as much as a short search. */
static sked__wall_src cron_src(const sked_cron *c, sked_dst dst)
{
    return (sked__wall_src){.next = sked__wall_cron_next,
                            .prev = sked__wall_cron_prev,
                            .ctx = c,
                            .fixed_time = dst == SKED_DST_CADENCE &&
                                          sked_cron_is_fixed_time(c)};
}

int sked_cron_next_occurrence(const sked_cron *c, const sked_tz *tz,
                              sked_dst dst, sked_time after,
                              sked_occurrence *out)
{
    sked__wall_src src = cron_src(c, dst);

    if (!c)
        return SKED_EINVAL;
    return next_occurrence(&src, tz, dst, after, true, out);
}

int sked_cron_next(const sked_cron *c, const sked_tz *tz, sked_dst dst,
                   sked_time after, sked_time *out)
{
    sked__wall_src src = cron_src(c, dst);
    sked_occurrence occ;
    int rc;

    if (!c || !out)
        return SKED_EINVAL;
    rc = next_occurrence(&src, tz, dst, after, false, &occ);
    if (rc == 0)
        *out = occ.at;
    return rc;
}

int sked_cron_prev(const sked_cron *c, const sked_tz *tz, sked_dst dst,
                   sked_time before, sked_time *out)
{
    sked__wall_src src = cron_src(c, dst);

    if (!c)
        return SKED_EINVAL;
    return prev_occurrence(&src, tz, dst, before, out);
}
