/* SPDX-License-Identifier: MIT */
/* JSON text read and written with jansson, with every failed allocation
 * seen. jansson gives each syntax error a message but a failed
 * allocation an empty one (or json_error_out_of_memory); and json_dumps
 * leaves out an object's key whose text it could not append, giving
 * back text that parses as something else. Without these, a value met
 * while memory ran out would be refused as malformed, or stored wrong. */
#ifndef SKED_BASE_JSON_IO_H
#define SKED_BASE_JSON_IO_H

#include <stddef.h>

#include <jansson.h>

/* Parse the LEN bytes of TEXT with jansson FLAGS. OUT: *out, a new
 * reference. Returns 0, SKED_ESYNTAX (JE says where and why) or
 * SKED_ENOMEM. */
int sked__json_load(const char *text, size_t len, size_t flags, json_t **out,
                    json_error_t *je);

/* json_dumps(J, FLAGS), NULL when J is NULL or any append failed (the
 * caller frees the text). */
char *sked__json_dumps(const json_t *j, size_t flags);

#endif
