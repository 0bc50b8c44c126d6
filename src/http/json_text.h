/* SPDX-License-Identifier: MIT */
/* JSON text of API answers (json_text.c): the text json_dumps gives with
 * JSON_COMPACT, written faster. */
#ifndef SKED_HTTP_JSON_TEXT_H
#define SKED_HTTP_JSON_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* The compact text of J (any JSON value), NUL-terminated, into a new
 * buffer the caller frees; its length into *len when LEN is not NULL.
 * NULL when out of memory, or J is NULL or nested too deep. */
char *sked__json_text(const json_t *j, size_t *len);

#endif
