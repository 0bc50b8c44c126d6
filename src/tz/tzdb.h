/* SPDX-License-Identifier: MIT */
/* The zone cache of include/sked/tz.h (sked_tzdb_*): internal helpers. */
#ifndef SKED_TZ_TZDB_H
#define SKED_TZ_TZDB_H

#include "sked/tz.h"

/* Check that NAME may name a zone file under a zoneinfo directory: 1 to
 * SKED_TZ_NAME_MAX bytes of letters, digits and "/_+-", no leading,
 * trailing or doubled '/', hence no "." or ".." component. Returns 0 or
 * SKED_EINVAL with err->field "timezone" and err->pos the bad byte. */
int sked__tzdb_check_name(const char *name, sked_error *err);

#endif
