/* SPDX-License-Identifier: MIT */
/* Fuzz target: the RRULE reader, and the search on what it accepts.
 * A refusal must name the field "rrule" and a position inside the input;
 * an accepted rule's occurrences must move forward from DTSTART, with
 * prev mirroring next, and every call must return. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cron/rrule.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* 2026-06-01T12:34:56 in wall seconds: the default start. */
#define DEFAULT_START INT64_C(1780317296)

static void check_search(const sked__rrule *r)
{
    int64_t t = sked__rrule_dtstart(r) - 1, a, p;

    for (int i = 0; i < 4; i++) {
        int rc = sked__rrule_civil_next(r, t + 1, &a);
        if (rc != 0) {
            if (rc != SKED_ENOTFOUND && rc != SKED_ERANGE &&
                rc != SKED_EINTERNAL && rc != SKED_ENOMEM)
                abort();
            return;
        }
        if (a <= t || a < sked__rrule_dtstart(r))
            abort();
        rc = sked__rrule_civil_prev(r, a, &p);
        if (rc == 0 && p != a)
            abort();
        rc = sked__rrule_civil_prev(r, a - 1, &p);
        if (rc == 0 && (p >= a || p < sked__rrule_dtstart(r)))
            abort();
        t = a;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char value[SKED__RRULE_MAX_LEN + 8];
    sked__rrule *r;
    sked_error err;

    if (size >= sizeof value)
        size = sizeof value - 1;
    memcpy(value, data, size);
    value[size] = '\0';
    if (sked__rrule_parse(value, DEFAULT_START, &r, &err) != 0) {
        if (strcmp(err.field, "rrule") != 0 || err.pos < -1 ||
            (err.pos >= 0 && (size_t) err.pos > strlen(value)))
            abort();
        return 0;
    }
    (void) sked__rrule_tzid(r);
    (void) sked__rrule_until_utc(r);
    (void) sked__rrule_is_fixed_time(r);
    check_search(r);
    sked__rrule_free(r);
    return 0;
}
