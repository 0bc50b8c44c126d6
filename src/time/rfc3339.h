/* SPDX-License-Identifier: MIT */
/* Internal helpers of the RFC 3339 reader and writer (rfc3339.c). The
 * public functions are sked_time_parse and sked_time_format[_offset]. */
#ifndef SKED_TIME_RFC3339_H
#define SKED_TIME_RFC3339_H

#include <stdint.h>

/* Return UTOFF (seconds east of UTC) rounded to the nearest whole minute,
 * ties away from zero: the offset sked_time_format_offset writes. */
int32_t sked__rfc3339_round_utoff(int32_t utoff);

#endif
