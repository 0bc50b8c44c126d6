/* SPDX-License-Identifier: MIT */
/* Fuzz target: TZif images. Any input must parse or fail cleanly; a zone
 * that parses is then asked for lookups, segments and local-to-UTC
 * conversions around a few instants, whose answers must agree. */
#include <stdint.h>
#include <stdlib.h>

#include "sked/tz.h"
#include "tz/zone.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const int64_t probes[] = {
    -62135596800, /* 0001-01-01 */
    -2208988800,  /* 1900 */
    0,
    1743296400, /* 2025-03-30T01:00Z */
    1761440400,
    4102444800,   /* 2100 */
    253402300799, /* 9999-12-31T23:59:59 */
};

static void probe(const sked_tz *tz, int64_t t)
{
    sked__tz_seg seg;
    sked_tz_info info;
    sked_local_result r;

    sked__tz_segment(tz, t, &seg);
    if (seg.start > t || seg.end <= t)
        abort();
    if (sked_tz_lookup(tz, t * SKED_USEC_PER_SEC, &info) != 0 ||
        info.utoff != seg.utoff || !info.abbr)
        abort();
    if (sked_tz_local_to_utc(tz, (t + info.utoff) * SKED_USEC_PER_SEC, &r) ==
            0 &&
        r.kind == SKED_LOCAL_GAP)
        abort();
    (void) sked_tz_local_to_utc(tz, t * SKED_USEC_PER_SEC, &r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sked_tz *tz = NULL;
    sked_error err;

    if (sked_tz_parse_tzif("Fuzz/Zone", data, size, &tz, &err) != 0)
        return 0;
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++)
        probe(tz, probes[i]);
    sked_tz_free(tz);
    return 0;
}
