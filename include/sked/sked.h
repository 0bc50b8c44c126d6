/* SPDX-License-Identifier: MIT */
/* libsked: the umbrella header. Include this one; it brings the whole
 * public API. Every symbol is prefixed sked_ / SKED_. */
#ifndef SKED_H
#define SKED_H

#include "sked/version.h"
#include "sked/error.h"
#include "sked/time.h"
#include "sked/tz.h"
#include "sked/cron.h"
#include "sked/schedule.h"
#include "sked/calendar.h"
#include "sked/clock.h"
#include "sked/workflow.h"
#include "sked/run.h"
#include "sked/engine.h"

/* Return the library's version string, "MAJOR.MINOR.PATCH". */
SKED_API const char *sked_version(void);

/* Free memory that libsked handed to the caller (a returned char *).
 * NULL does nothing. */
SKED_API void sked_free(void *p);

#endif
