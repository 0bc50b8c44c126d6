/* SPDX-License-Identifier: MIT */
/* The one string hash of sked: 64-bit FNV-1a (offset basis
 * 14695981039346656037, prime 1099511628211), and the splitmix64
 * finaliser that spreads its bits when a hash picks a value in a range.
 *
 * Several results are persisted or must agree between servers of one
 * version without talking: a workflow's version (FNV-1a of its
 * definition), a schedule's jitter delay and a retry's jittered delay
 * (FNV-1a of the run id or the step key, then the finaliser). Changing
 * either function changes all of those, so both are pinned by tests
 * (tests/unit/test_hash.c and the values in test_policy.c, test_plan.c,
 * test_workflow.c). Inline: the scheduler's index of schedules hashes a
 * name on every lookup. */
#ifndef SKED_BASE_HASH_H
#define SKED_BASE_HASH_H

#include <stdint.h>

/* FNV-1a of the bytes of the NUL-terminated string S. */
static inline uint64_t sked__hash_fnv1a(const char *s)
{
    uint64_t h = UINT64_C(14695981039346656037);

    for (const unsigned char *p = (const unsigned char *) s; *p; p++)
        h = (h ^ *p) * UINT64_C(1099511628211);
    return h;
}

/* The splitmix64 finaliser: every input bit reaches every output bit, so
 * hashes that differ in one byte give unrelated values. */
static inline uint64_t sked__hash_mix(uint64_t h)
{
    h = (h ^ (h >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    h = (h ^ (h >> 27)) * UINT64_C(0x94d049bb133111eb);
    return h ^ (h >> 31);
}

#endif
