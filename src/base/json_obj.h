/* SPDX-License-Identifier: MIT */
/* Flat JSON objects written straight into a buffer: the payloads of the
 * events written for every run (run.created, run.started, step.started,
 * step.completed, run.completed, ...).
 *
 * Building them with jansson (json_pack, then json_dumps) cost more than
 * anything else the executor did for a run of one quick step: a tree of
 * allocations, then a dump through a callback a few bytes at a time. The
 * writer gives the text json_dumps(JSON_COMPACT) gives for the same
 * object: keys in the order written, no spaces, '"', '\\' and control
 * characters escaped. A string value that is not valid UTF-8 (jansson
 * would refuse it) has each bad byte replaced by U+FFFD. Durations are
 * written as base/json_text.h writes reals: their shortest decimal.
 *
 *     sked_jobj o = {0};
 *     sked__jobj_str(&o, "workflow", name);
 *     sked__jobj_int(&o, "attempt", 2);
 *     char *text = sked__jobj_take(&o);   // {"workflow":"w","attempt":2}
 */
#ifndef SKED_BASE_JSON_OBJ_H
#define SKED_BASE_JSON_OBJ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

typedef struct sked_jobj {
    sked_buf b; /* the text so far, without its closing brace */
} sked_jobj;

/* Add KEY (a literal: plain ASCII) with a string value; NULL is null. */
void sked__jobj_str(sked_jobj *o, const char *key, const char *v);
void sked__jobj_int(sked_jobj *o, const char *key, int64_t v);
void sked__jobj_bool(sked_jobj *o, const char *key, bool v);
/* A duration of US microseconds in seconds: the shortest text of the
 * double nearest to US / 1e6 (base/dtoa.h: "2.0", "0.000123", "-1.5"),
 * which below 10^15 microseconds is the exact decimal, written without
 * printf. */
void sked__jobj_secs(sked_jobj *o, const char *key, int64_t us);

/* Close the object and return its text (caller frees), or NULL when
 * memory ran out at any step; O is empty again either way. An object
 * given nothing is "{}". */
char *sked__jobj_take(sked_jobj *o);

/* Append the N bytes of S, valid UTF-8, to B as a JSON string, escaped as
 * jansson escapes it. */
void sked__json_put_string(sked_buf *b, const char *s, size_t n);

#endif
