/* SPDX-License-Identifier: MIT */
/* Making bytes valid text: a command's output or an HTTP body may be
 * anything, and both databases want valid UTF-8 without NUL (PostgreSQL
 * refuses both in text); an error message quotes input and must stay
 * valid UTF-8 whatever the input was. */
#ifndef SKED_BASE_UTF8_H
#define SKED_BASE_UTF8_H

#include <stddef.h>

/* Copy the LEN bytes at S as valid UTF-8: each byte that does not start a
 * valid sequence (overlong forms, surrogates and values over U+10FFFF
 * included), and each NUL, becomes U+FFFD. *OUT (caller frees) gets the
 * NUL-terminated copy, at most 3 * LEN bytes, *OUT_LEN its length.
 * Returns 0 or SKED_ENOMEM. */
int sked__utf8_sanitize(const char *s, size_t len, char **out, size_t *out_len);

/* Return the length of the well-formed UTF-8 sequence at S (LEN > 0
 * bytes left), a NUL being one, or 0 when S does not start one (overlong
 * forms, surrogates and values over U+10FFFF included) or LEN cuts it
 * short. */
size_t sked__utf8_len(const char *s, size_t len);

/* The length of the longest prefix of the LEN bytes at S that does not
 * end inside a valid sequence cut short (a capture cut at its limit). */
size_t sked__utf8_trim_cut(const char *s, size_t len);

/* The character at S (NUL-terminated) as an error message quotes it:
 * "'½'", the whole character in quotes, when it is printable UTF-8;
 * else "byte 0xNN" (an invalid or cut sequence, a control character, a
 * NUL). Written into BUF (SIZE bytes; 16 fit any); returns BUF. */
const char *sked__utf8_quote_char(const char *s, char *buf, size_t size);

/* Make the string S valid UTF-8 in place, never longer: a character cut
 * by the end (a message truncated to its buffer) is dropped, and each
 * other byte that starts no valid sequence becomes '?'. Never allocates. */
void sked__utf8_scrub(char *s);

#endif
