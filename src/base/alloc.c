/* SPDX-License-Identifier: MIT */
/* The allocation hook of alloc.h: a countdown that, once armed, fails
 * the allocation it reaches zero on. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

static atomic_long countdown; /* 0: disarmed */
static atomic_int sticky_fail;
static atomic_long failed;

/* True when this allocation must fail. */
static int fail_now(void)
{
    if (atomic_load_explicit(&countdown, memory_order_relaxed) == 0)
        return 0;
    long left = atomic_fetch_sub(&countdown, 1) - 1;
    if (left > 0)
        return 0;
    if (left < 0 && !atomic_load(&sticky_fail)) {
        atomic_store(&countdown, 0);
        return 0;
    }
    if (left == 0 && atomic_load(&sticky_fail))
        atomic_store(&countdown, -1); /* stays negative: fails for good */
    atomic_fetch_add(&failed, 1);
    return 1;
}

void sked__alloc_fail_at(long n, int sticky)
{
    atomic_store(&sticky_fail, sticky);
    atomic_store(&failed, 0);
    atomic_store(&countdown, n > 0 ? n : 0);
}

long sked__alloc_failed(void)
{
    return atomic_load(&failed);
}

void *sked__malloc(size_t n)
{
    return fail_now() ? NULL : malloc(n);
}

void *sked__calloc(size_t count, size_t n)
{
    return fail_now() ? NULL : calloc(count, n);
}

void *sked__realloc(void *p, size_t n)
{
    return fail_now() ? NULL : realloc(p, n);
}

char *sked__strdup(const char *s)
{
    return fail_now() ? NULL : strdup(s);
}

char *sked__strndup(const char *s, size_t n)
{
    return fail_now() ? NULL : strndup(s, n);
}
