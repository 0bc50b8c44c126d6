/* SPDX-License-Identifier: MIT */
/* Placeholder: the event streams' hub lands here (sse.h). */
#include <stdlib.h>

#include "http/sse.h"

struct sked_sse_hub {
    int unused;
};

int sked__sse_hub_new(sked_engine *e, sked_sse_hub **out, sked_error *err)
{
    (void) e;
    (void) err;
    *out = calloc(1, sizeof **out);
    return *out ? 0 : SKED_ENOMEM;
}

void sked__sse_hub_shutdown(sked_sse_hub *hub)
{
    (void) hub;
}

void sked__sse_hub_free(sked_sse_hub *hub)
{
    free(hub);
}
