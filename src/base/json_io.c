/* SPDX-License-Identifier: MIT */
/* json_io.h. */
#include "base/json_io.h"

#include <stdbool.h>
#include <string.h>

#include "base/buf.h"
#include "sked/error.h"

int sked__json_load(const char *text, size_t len, size_t flags, json_t **out,
                    json_error_t *je)
{
    json_t *v;

    memset(je, 0, sizeof *je);
    v = json_loadb(text, len, flags, je);
    if (v) {
        *out = v;
        return 0;
    }
    if (json_error_code(je) == json_error_out_of_memory || je->text[0] == '\0')
        return SKED_ENOMEM;
    return SKED_ESYNTAX;
}

/* Append a piece of the text; a failure stays in the buffer, where the
 * caller sees it even when jansson ignores the -1. */
static int put(const char *s, size_t n, void *ctx)
{
    return sked__buf_add(ctx, s, n) ? 0 : -1;
}

char *sked__json_dumps(const json_t *j, size_t flags)
{
    sked_buf b = {0};

    if (!j)
        return NULL;
    if (json_dump_callback(j, put, &b, flags) != 0 || !sked__buf_add(&b, "", 0))
        b.failed = true;
    if (b.failed) {
        sked__buf_reset(&b);
        return NULL;
    }
    return sked__buf_take(&b, NULL);
}
