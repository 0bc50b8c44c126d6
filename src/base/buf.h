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

/* Room for N more bytes at the end of B (and the NUL after them): where
 * to write them, then sked__buf_grew with how many were written. NULL
 * (failed set) as sked__buf_add would fail for N bytes. */
char *sked__buf_room(sked_buf *b, size_t n);

/* Count N bytes written at sked__buf_room's place (at most what it was
 * asked for) as content. */
void sked__buf_grew(sked_buf *b, size_t n);

/* The most bytes sked__i64_text writes: a sign and 19 digits. */
#define SKED_I64_TEXT 20

/* Write V in decimal at OUT (not NUL-terminated); return its length.
 * snprintf's "%" PRId64 without the format's interpretation, for the
 * writers of many numbers. */
size_t sked__i64_text(int64_t v, char *out);

/* Append the string V percent-encoded (RFC 3986): every byte but the
 * unreserved ones (letters, digits, "-._~") as %XX, for a segment of a
 * path or a value of a query. */
bool sked__buf_escape(sked_buf *b, const char *v);

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
