/* SPDX-License-Identifier: MIT */
/* Library-wide entry points of include/sked/sked.h. */
#include <stdlib.h>

#include "sked/sked.h"

const char *sked_version(void)
{
    return SKED_VERSION;
}

void sked_free(void *p)
{
    free(p);
}
