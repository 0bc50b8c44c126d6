/* SPDX-License-Identifier: MIT */
/* The calling thread's actor (actor.h): one thread-local buffer, so that
 * the store can stamp each event with who caused it without every call
 * between the HTTP handler and the transaction passing it along. */
#include "base/actor.h"

#include <stdbool.h>
#include <string.h>

#include "sked/error.h"

static _Thread_local char actor[SKED__ACTOR_MAX + 1];

int sked__actor_set(const char *s)
{
    size_t n = s ? strlen(s) : 0;

    if (n > SKED__ACTOR_MAX)
        return SKED_EINVAL;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char) s[i] < 0x20 || (unsigned char) s[i] > 0x7e)
            return SKED_EINVAL;
    if (n > 0)
        memcpy(actor, s, n);
    actor[n] = '\0';
    return 0;
}

const char *sked__actor(void)
{
    return actor[0] ? actor : SKED__ACTOR_DEFAULT;
}
