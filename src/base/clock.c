/* SPDX-License-Identifier: MIT */
/* The real and the virtual clock (clock.h). The only file of sked that
 * calls clock_gettime. */
#include "base/clock.h"

#include <time.h>

static int64_t read_clock(clockid_t id)
{
    struct timespec ts;

    if (clock_gettime(id, &ts) != 0)
        return 0;
    return (int64_t) ts.tv_sec * SKED_USEC_PER_SEC + ts.tv_nsec / 1000;
}

sked_time sked__clock_now(const sked_clock *clock)
{
    if (clock && clock->now)
        return clock->now(clock->ctx);
    return read_clock(CLOCK_REALTIME);
}

sked_mono sked__clock_mono(const sked_clock *clock)
{
    if (clock && clock->mono)
        return clock->mono(clock->ctx);
    return read_clock(CLOCK_MONOTONIC);
}

void sked__clock_deadline(sked_dur rel, struct timespec *out)
{
    struct timespec ts = {0, 0};
    int64_t ns;

    (void) clock_gettime(CLOCK_MONOTONIC, &ts);
    if (rel < 0)
        rel = 0;
    ns = (int64_t) ts.tv_nsec + (rel % SKED_USEC_PER_SEC) * 1000;
    out->tv_sec = ts.tv_sec + (time_t) (rel / SKED_USEC_PER_SEC) +
                  (time_t) (ns / 1000000000);
    out->tv_nsec = (long) (ns % 1000000000);
}

static sked_time virtual_now(void *ctx)
{
    return ((const sked_virtual_clock *) ctx)->t;
}

void sked__clock_virtual(sked_virtual_clock *vc, sked_clock *out)
{
    out->now = virtual_now;
    out->mono = virtual_now;
    out->ctx = vc;
}

int sked__cond_init_mono(pthread_cond_t *cv)
{
    pthread_condattr_t ca;
    int rc = pthread_condattr_init(&ca);

    if (rc == 0)
        rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (rc == 0)
        rc = pthread_cond_init(cv, &ca);
    (void) pthread_condattr_destroy(&ca);
    return rc;
}
