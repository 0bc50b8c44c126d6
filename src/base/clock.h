/* SPDX-License-Identifier: MIT */
/* Reading a sked_clock (include/sked/clock.h), and a virtual clock for
 * tests and simulation. */
#ifndef SKED_BASE_CLOCK_H
#define SKED_BASE_CLOCK_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "sked/clock.h"

/* Return the wall time by CLOCK (NULL: the real clock). */
sked_time sked__clock_now(const sked_clock *clock);

/* Return the monotonic time by CLOCK (NULL: the real one). */
sked_mono sked__clock_mono(const sked_clock *clock);

/* Fill *out with the instant REL from now on the real monotonic clock, as
 * pthread_cond_timedwait wants it from a condition variable set to
 * CLOCK_MONOTONIC (waits are real time, whatever clock the engine reads:
 * a virtual clock only changes what the engine thinks the time is). */
void sked__clock_deadline(sked_dur rel, struct timespec *out);

/* Initialise CV on CLOCK_MONOTONIC, as sked__clock_deadline's instants
 * need. Returns 0 or the pthread error. */
int sked__cond_init_mono(pthread_cond_t *cv);

/* A virtual clock for tests and simulation: set and moved by hand; its
 * monotonic time is its wall time. Not thread-safe by itself. */
typedef struct sked_virtual_clock {
    sked_time t;
} sked_virtual_clock;

/* Fill *out with a clock reading VC. */
void sked__clock_virtual(sked_virtual_clock *vc, sked_clock *out);

#endif
