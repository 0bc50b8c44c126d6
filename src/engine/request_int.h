/* SPDX-License-Identifier: MIT */
/* What request.c and request_query.c share: how a key table reaches a
 * request's members, and the description of a query string's keys,
 * which request.c's sked__request_param_at answers for every table. */
#ifndef SKED_ENGINE_REQUEST_INT_H
#define SKED_ENGINE_REQUEST_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/request.h"

/* The member at offset OFF of the request R, of TYPE. */
#define AT(r, off, type) ((type *) (void *) ((char *) (r) + (off)))
#define AT_C(r, off, type)                                                     \
    ((const type *) (const void *) ((const char *) (r) + (off)))
/* A text member, named so that AT_C adds its const to the pointer only. */
typedef const char *text_member;

/* The I-th key of the query string table T (schedules, runs, events,
 * cron) into *p; false past the last. */
bool sked__request_query_param(sked__request_table t, size_t i,
                               sked__request_param *p);

#endif
