/* SPDX-License-Identifier: MIT */
/* Filling a caller's sked_error (include/sked/error.h). */
#ifndef SKED_BASE_ERROR_H
#define SKED_BASE_ERROR_H

#include <stddef.h>

#include "sked/error.h"

#if defined(__GNUC__) || defined(__clang__)
#define SKED__PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SKED__PRINTF(a, b)
/* Name ERR's field (may be NULL) as the I-th item of the list LIST:
 * "LIST[I]." before it ("LIST[I]" when it names none), cut to fit.
 * Returns RC, so that "return sked__error_at_index(rc, ...)" passes a
 * failure on; nothing is touched when RC is 0. */
int sked__error_at_index(int rc, const char *list, size_t i, sked_error *err);

#endif

/* Fill ERR (may be NULL) with CODE, FIELD (may be NULL), POS (-1: none)
 * and a printf-style message (NULL: CODE's default message); return CODE
 * so callers can write "return sked__error_set(...)". Never allocates. */
int sked__error_set(sked_error *err, int code, const char *field, long pos,
                    const char *fmt, ...) SKED__PRINTF(5, 6);

/* Name ERR's field (may be NULL) as the I-th item of the list LIST:
 * "LIST[I]." before it ("LIST[I]" when it names none), cut to fit.
 * Returns RC, so that "return sked__error_at_index(rc, ...)" passes a
 * failure on; nothing is touched when RC is 0. */
int sked__error_at_index(int rc, const char *list, size_t i, sked_error *err);

#endif
