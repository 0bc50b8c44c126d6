/* SPDX-License-Identifier: MIT */
/* Internal limits of the duration reader and writer (duration.c). The
 * public functions are sked_dur_parse and sked_dur_format. */
#ifndef SKED_TIME_DURATION_H
#define SKED_TIME_DURATION_H

#include <stdint.h>

/* The longest duration sked_dur_parse accepts: 100 years of 365.25 days,
 * in seconds. Longer periods are mistakes, not schedules. */
#define SKED_DUR_MAX_SECS (INT64_C(36525) * 86400)

#endif
