/* SPDX-License-Identifier: MIT */
/* The shortest decimal text of a double: every number sked writes as
 * JSON (the API's answers, event payloads, stored definitions and
 * outputs, the CLI's --json, JSON log lines) goes through here, so that
 * a duration of 4.439 ms reads "0.004439", not jansson's
 * "0.0044390000000000002".
 *
 * The digits are the fewest that strtod reads back as the same double,
 * bit for bit; among several of that length, the nearest to it. They
 * are laid out as JavaScript's Number.prototype.toString lays them
 * out — plain from 1e-6 up to below 1e21, an exponent outside it
 * ("1e-7", "1.5e+300") — with ".0" after a plain integer, so that a
 * real stays a real for readers that tell the two apart (jansson, and
 * sked itself). */
#ifndef SKED_BASE_DTOA_H
#define SKED_BASE_DTOA_H

#include <stddef.h>

/* The most bytes sked__dtoa writes, with its NUL. */
#define SKED_DTOA_MAX 32

/* Write X at OUT (SKED_DTOA_MAX bytes, NUL-terminated) and return its
 * length. Not finite (JSON has no such number): "null". */
size_t sked__dtoa(double x, char *out);

#endif
