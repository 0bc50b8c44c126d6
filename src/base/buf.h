/* SPDX-License-Identifier: MIT */
/* A growable byte buffer: text built a piece at a time (an answer's
 * JSON, the metrics page, an array literal for PostgreSQL, a request's
 * body or a server's answer).
 *
 * The content is always NUL-terminated once anything was added. An
 * append that fails (out of memory, or past the buffer's max) sets
 * failed and every later append does nothing, so a builder can append
 * freely and look once at the end. Not thread-safe. */
#ifndef SKED_BASE_BUF_H
#define SKED_BASE_BUF_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

typedef struct sked_buf {
    char *p; /* owned; NULL until the first append */
    size_t len, cap;
    size_t max;  /* the most bytes it may hold; 0: no limit */
    bool failed; /* an append failed: the content is incomplete */
} sked_buf;

/* Append the N bytes at P. Returns false (and sets failed) when out of
 * memory or past max, or when an earlier append failed. */
bool sked__buf_add(sked_buf *b, const void *p, size_t n);

/* Append the NUL-terminated string S. */
bool sked__buf_puts(sked_buf *b, const char *s);

/* Append printf-style text. */
bool sked__buf_printf(sked_buf *b, const char *fmt, ...) SKED__PRINTF(2, 3);

/* Give the content to the caller (who frees it), with its length in
 * *len (may be NULL), and reset B. NULL when an append failed (the
 * content is freed) or nothing was added and the buffer is empty. */
char *sked__buf_take(sked_buf *b, size_t *len);

/* Empty B for reuse, keeping its memory; clears failed. */
void sked__buf_clear(sked_buf *b);

/* Free the content and reset B (its max is kept). */
void sked__buf_reset(sked_buf *b);

#endif
