/* SPDX-License-Identifier: MIT */
/* The library's allocations, and the hook that makes one of them fail.
 *
 * Every allocation in src/ goes through these functions, so a test can
 * make the Nth one fail (as sqlite's and curl's suites do) and check
 * that each path answers SKED_ENOMEM, leaks nothing and leaves nothing
 * half-written. Without the hook armed they are malloc and friends and
 * one relaxed atomic load. Memory from them is freed with free(). */
#ifndef SKED_BASE_ALLOC_H
#define SKED_BASE_ALLOC_H

#include <stddef.h>

void *sked__malloc(size_t n);
void *sked__calloc(size_t count, size_t n);
void *sked__realloc(void *p, size_t n);
char *sked__strdup(const char *s);
char *sked__strndup(const char *s, size_t n);

/* Make the Nth allocation from now fail (N >= 1), and every one after
 * it too when STICKY; N = 0 disarms the hook. Process-wide: for tests,
 * which run it on one thread at a time. */
void sked__alloc_fail_at(long n, int sticky);

/* How many allocations the hook failed since it was last armed. A test
 * that arms it at N and sees 0 has run its whole path in fewer than N
 * allocations: the loop over N is done. */
long sked__alloc_failed(void);

#endif
