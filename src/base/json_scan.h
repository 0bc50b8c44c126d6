/* SPDX-License-Identifier: MIT */
/* The members of a JSON object read without building a tree: for the
 * readers of sked's own event payloads (the metrics read a workflow and
 * a duration from every finished run's), where json_loads cost more than
 * the work it served.
 *
 * The scan is not a validator: it walks the top level of the text,
 * skipping values by their brackets and quotes, and answers "cannot
 * tell" for what it does not read the way a parser would (a key written
 * with escapes, text that does not scan as an object). A caller that
 * needs the answer then parses the text with jansson. Where jansson
 * accepts the text as an object, an answer of found or absent is the
 * one jansson gives: the same member (the last of duplicates), the same
 * value. It never reads past the text's NUL. */
#ifndef SKED_BASE_JSON_SCAN_H
#define SKED_BASE_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>

/* What sked__json_member found. */
typedef enum sked_json_found {
    SKED_JSON_UNSURE = -1, /* cannot tell: parse the text instead */
    SKED_JSON_ABSENT = 0,
    SKED_JSON_FOUND = 1,
} sked_json_found;

/* Find member KEY (plain: no character JSON escapes) at the top level of
 * the object TEXT. When found, *VAL and *LEN are its value's raw text (a
 * string with its quotes, a number as written, an object or array
 * whole). */
sked_json_found sked__json_member(const char *text, const char *key,
                                  const char **val, size_t *len);

/* Tell whether the raw value VAL (LEN bytes) is a string with no escape:
 * its content is then the LEN - 2 bytes at VAL + 1. */
bool sked__json_plain_string(const char *val, size_t len);

#endif
