/* SPDX-License-Identifier: MIT */
/* A schedule's next occurrences, marked across DST changes (see
 * schedule_preview.h). The instants come from sked__schedule_next_fire,
 * the rule the store and the scheduler fire by, so a preview never
 * promises what the scheduler would not do; the marks come from the cron
 * engine, asked for the same instant. */
#include "store/schedule_preview.h"

#include "base/error.h"
#include "store/store.h"

const char *sked__schedule_preview_mark(sked_occ_mark m)
{
    switch (m) {
    case SKED_OCC_SHIFTED:
        return "shifted";
    case SKED_OCC_FIRST_PASS:
        return "first_pass";
    case SKED_OCC_SECOND_PASS:
        return "second_pass";
    case SKED_OCC_NORMAL:
        break;
    }
    return NULL;
}

/* Return how many more runs S may create, at most MAX (max_runs). */
static size_t runs_left(const sked_schedule *s, size_t max)
{
    int64_t left;

    if (s->status == SKED_SCHEDULE_DONE)
        return 0;
    if (s->max_runs <= 0)
        return max;
    left = s->max_runs - s->runs_created;
    return left <= 0 ? 0 : (uint64_t) left < max ? (size_t) left : max;
}

int sked__schedule_preview(const sked_schedule *s, const sked_tz *tz,
                           sked_time after, size_t max, sked_occurrence *out,
                           size_t *n, sked_error *err)
{
    sked_cron cron;
    size_t left = runs_left(s, max);
    int rc;

    *n = 0;
    if (s->kind == SKED_SPEC_CRON &&
        (rc = sked_cron_parse(s->cron, &cron, err)) < 0)
        return rc;
    while (*n < left) {
        sked_occurrence occ = {.mark = SKED_OCC_NORMAL};
        sked_occurrence c;

        if (sked__schedule_next_fire(s, tz, after, &occ.at) < 0)
            break;
        /* The mark is the cron engine's: ask it for the same instant. */
        if (s->kind == SKED_SPEC_CRON &&
            sked_cron_next_occurrence(&cron, tz, s->dst, occ.at - 1, &c) == 0 &&
            c.at == occ.at)
            occ.mark = c.mark;
        out[(*n)++] = occ;
        after = occ.at;
    }
    return 0;
}
