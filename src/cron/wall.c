/* SPDX-License-Identifier: MIT */
/* Occurrences of any wall-clock source in a zone under a DST policy: the
 * walk of wall_walk.h for sources that bring their own functions, and
 * cron's calendar as a source. */
#include "cron/wall.h"

#include "cron/wall_walk.h"

int sked__wall_cron_next(const void *ctx, int64_t lo, int64_t *out)
{
    return sked__cron_civil_next(ctx, lo, out);
}

int sked__wall_cron_prev(const void *ctx, int64_t hi, int64_t *out)
{
    return sked__cron_civil_prev(ctx, hi, out);
}

int sked__wall_next(const sked__wall_src *src, const sked_tz *tz, sked_dst dst,
                    sked_time after, sked_occurrence *out)
{
    return next_occurrence(src, tz, dst, after, true, out);
}

int sked__wall_next_time(const sked__wall_src *src, const sked_tz *tz,
                         sked_dst dst, sked_time after, sked_time *out)
{
    sked_occurrence occ;
    int rc;

    if (!out)
        return SKED_EINVAL;
    rc = next_occurrence(src, tz, dst, after, false, &occ);
    if (rc == 0)
        *out = occ.at;
    return rc;
}

int sked__wall_prev(const sked__wall_src *src, const sked_tz *tz, sked_dst dst,
                    sked_time before, sked_time *out)
{
    return prev_occurrence(src, tz, dst, before, out);
}
