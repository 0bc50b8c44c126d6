/* SPDX-License-Identifier: MIT */
/* The timer heap under a million timers (libuv's
 * benchmark-million-timers): push 1,000,000 timers with spread keys, then
 * pop them all, then push them again and move each one (what the
 * scheduler does after firing). Prints nanoseconds per operation.
 *
 * Benchmarks measure the process clock directly (CLOCK_MONOTONIC); the
 * library itself reads time only through sked_clock. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/heap.h"

#define NUM_TIMERS 1000000

static double now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

int main(void)
{
    sked_heap_node *nodes = calloc(NUM_TIMERS, sizeof *nodes);
    sked_heap h;
    unsigned seed = 1;
    sked_time last = INT64_MIN;
    double t0, t1, t2, t3;

    if (!nodes)
        return 1;
    sked__heap_init(&h);
    t0 = now_ns();
    for (size_t i = 0; i < NUM_TIMERS; i++) {
        seed = seed * 1103515245u + 12345u;
        sked__heap_node_init(&nodes[i]);
        if (sked__heap_push(&h, &nodes[i], (sked_time) (seed % 86400000u)))
            return 1;
    }
    t1 = now_ns();
    for (size_t i = 0; i < NUM_TIMERS; i++) {
        sked_heap_node *n = sked__heap_pop(&h);
        if (!n || n->key < last)
            return 1;
        last = n->key;
    }
    t2 = now_ns();
    for (size_t i = 0; i < NUM_TIMERS; i++)
        if (sked__heap_push(&h, &nodes[i], (sked_time) i))
            return 1;
    for (size_t i = 0; i < NUM_TIMERS; i++) {
        sked_heap_node *n = sked__heap_min(&h);
        sked__heap_update(&h, n, n->key + NUM_TIMERS);
    }
    t3 = now_ns();
    printf("heap: %d timers\n", NUM_TIMERS);
    printf("  push   %7.1f ns/op  (%.0f ms)\n", (t1 - t0) / NUM_TIMERS,
           (t1 - t0) / 1e6);
    printf("  pop    %7.1f ns/op  (%.0f ms)\n", (t2 - t1) / NUM_TIMERS,
           (t2 - t1) / 1e6);
    printf("  push+reschedule the earliest %7.1f ns/op  (%.0f ms)\n",
           (t3 - t2) / NUM_TIMERS, (t3 - t2) / 1e6);
    sked__heap_done(&h);
    free(nodes);
    return 0;
}
