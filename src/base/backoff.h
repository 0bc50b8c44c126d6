/* SPDX-License-Identifier: MIT */
/* Exponential backoff with a cap, for the loops that retry a failing
 * database (the scheduler, the workers' claims, the heartbeat, the
 * journal's writer): each failure in a row doubles the wait, from
 * INITIAL up to MAX; a success starts again from INITIAL. A plain value
 * the loop that owns it keeps on its stack or in its struct; pure, no
 * clock, no sleeping: the caller waits on its own condition variable,
 * so a stop still wakes it at once. */
#ifndef SKED_BASE_BACKOFF_H
#define SKED_BASE_BACKOFF_H

#include <stdint.h>

#include "sked/time.h"

/* The defaults of the database loops: the first retry after 100 ms, then
 * 200, 400, ... ms, never more than 10 s between two tries (so a cause
 * that goes away is noticed within 10 s, and a failing loop costs a few
 * attempts a minute, not a core). */
#define SKED_BACKOFF_INITIAL (100 * 1000)
#define SKED_BACKOFF_MAX     (10 * SKED_USEC_PER_SEC)

typedef struct sked_backoff {
    sked_dur initial, max;
    sked_dur next;     /* the wait after the next failure */
    uint32_t failures; /* failures in a row */
} sked_backoff;

/* A backoff from INITIAL to MAX (0: the defaults above). */
void sked__backoff_init(sked_backoff *b, sked_dur initial, sked_dur max);

/* Count one more failure; return how long to wait before the next try. */
sked_dur sked__backoff_fail(sked_backoff *b);

/* Count a success: the next failure waits INITIAL again. */
void sked__backoff_ok(sked_backoff *b);

#endif
