/* SPDX-License-Identifier: MIT */
/* JSON text, written once for all of sked (json_text.c): the API's
 * answers and stream, stored definitions, outputs and payloads, and the
 * CLI's --json all come out of sked__json_write, so that one value reads
 * the same wherever it is printed. The text is json_dumps's (keys in
 * insertion order, only '"', '\\' and control characters escaped,
 * strings valid UTF-8 as jansson keeps them) but for numbers: a real is
 * written as its shortest decimal (base/dtoa.h), not with 17 digits. */
#ifndef SKED_BASE_JSON_TEXT_H
#define SKED_BASE_JSON_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* How sked__json_write lays the text out. */
enum {
    SKED_JSON_SORTED = 1, /* object keys in strcmp order (JSON_SORT_KEYS) */
    SKED_JSON_PRETTY = 2, /* two-space indent, as JSON_INDENT(2) */
};

/* The text of J (any JSON value), laid out by FLAGS (0: compact),
 * NUL-terminated, into a new buffer the caller frees; its length into
 * *len when LEN is not NULL. NULL when out of memory, or J is NULL or
 * nested too deep. */
char *sked__json_write(const json_t *j, unsigned flags, size_t *len);

/* The compact text: sked__json_write(J, 0, LEN). */
char *sked__json_text(const json_t *j, size_t *len);

#endif
