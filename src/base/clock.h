/* SPDX-License-Identifier: MIT */
/* The one clock (ARCHITECTURE 1): everything in sked that reads the time
 * reads it here, so tests and simulations can run on a virtual clock.
 *
 * A sked_clock is a small value: NULL or a clock without a function is
 * the real clock; otherwise NOW(CTX) answers. Wall time is sked_time (µs
 * since the epoch, UTC); monotonic time is sked_mono, never mixed. */
#ifndef SKED_BASE_CLOCK_H
#define SKED_BASE_CLOCK_H

#include <stdint.h>

#include "sked/time.h"

typedef int64_t sked_mono; /* µs on a monotonic clock, arbitrary origin */

typedef struct sked_clock {
    sked_time (*now)(void *ctx);  /* NULL: the real wall clock */
    sked_mono (*mono)(void *ctx); /* NULL: the real monotonic clock */
    void *ctx;                    /* borrowed */
} sked_clock;

/* Return the wall time by CLOCK (NULL: the real clock). */
sked_time sked__clock_now(const sked_clock *clock);

/* Return the monotonic time by CLOCK (NULL: the real one). */
sked_mono sked__clock_mono(const sked_clock *clock);

/* A virtual clock for tests and simulation: set and moved by hand; its
 * monotonic time is its wall time. Not thread-safe by itself. */
typedef struct sked_virtual_clock {
    sked_time t;
} sked_virtual_clock;

/* Fill *out with a clock reading VC. */
void sked__clock_virtual(sked_virtual_clock *vc, sked_clock *out);

#endif
