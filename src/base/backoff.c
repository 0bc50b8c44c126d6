/* SPDX-License-Identifier: MIT */
/* Exponential backoff with a cap (backoff.h). */
#include "base/backoff.h"

void sked__backoff_init(sked_backoff *b, sked_dur initial, sked_dur max)
{
    b->initial = initial > 0 ? initial : SKED_BACKOFF_INITIAL;
    b->max = max > 0 ? max : SKED_BACKOFF_MAX;
    if (b->max < b->initial)
        b->max = b->initial;
    b->next = b->initial;
    b->failures = 0;
}

sked_dur sked__backoff_fail(sked_backoff *b)
{
    sked_dur d = b->next;

    if (b->failures < UINT32_MAX)
        b->failures++;
    /* Doubling cannot overflow: next never exceeds max, a sked_dur. */
    b->next = b->next > b->max / 2 ? b->max : b->next * 2;
    return d;
}

void sked__backoff_ok(sked_backoff *b)
{
    b->next = b->initial;
    b->failures = 0;
}
