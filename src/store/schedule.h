/* SPDX-License-Identifier: MIT */
/* Internal helpers of schedule.c, shared with the store, the JSON
 * conversion and the CLI: the checks sked_schedule_validate is made of. */
#ifndef SKED_STORE_SCHEDULE_H
#define SKED_STORE_SCHEDULE_H

#include "sked/schedule.h"

/* Check that S is a name: 1..SKED_NAME_MAX characters of [A-Za-z0-9._-].
 * Returns 0 or SKED_EINVAL with err->field FIELD (and err->pos the
 * offending byte). */
int sked__schedule_name_check(const char *s, const char *field,
                              sked_error *err);

/* Check that CTX (NULL: fine) is a JSON object of at most
 * SKED_CONTEXT_MAX bytes. Returns 0 or SKED_EINVAL naming FIELD. */
int sked__schedule_context_check(const char *ctx, const char *field,
                                 sked_error *err);

#endif
