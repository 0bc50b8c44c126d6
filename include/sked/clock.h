/* SPDX-License-Identifier: MIT */
/* The clock sked reads time from (ARCHITECTURE 1: one clock).
 *
 * Everything in sked that needs the time asks a sked_clock. NULL, or a
 * clock whose functions are NULL, is the real clock. Tests and the
 * simulator pass a virtual clock and move it by hand, across days of
 * schedules and DST changes in milliseconds. Wall time is sked_time (µs
 * since the epoch, UTC); monotonic time is sked_mono, never mixed. */
#ifndef SKED_CLOCK_H
#define SKED_CLOCK_H

#include <stdint.h>

#include "sked/time.h"

typedef int64_t sked_mono; /* µs on a monotonic clock, arbitrary origin */

typedef struct sked_clock {
    sked_time (*now)(void *ctx);  /* NULL: the real wall clock */
    sked_mono (*mono)(void *ctx); /* NULL: the real monotonic clock */
    void *ctx;                    /* borrowed, passed to both */
} sked_clock;

#endif
