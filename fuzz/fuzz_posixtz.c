/* SPDX-License-Identifier: MIT */
/* Fuzz target: POSIX TZ strings. Any input must parse or fail with a
 * position inside it; a zone that parses is asked for segments and
 * lookups, which must agree. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sked/tz.h"
#include "tz/zone.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const int64_t probes[] = {
    -62135596800 + 86400 * 8,
    -2208988800,
    0,
    1743296400,
    1761440400,
    1735707600,
    4102444800,
    253402300799 - 86400 * 8,
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
        info.utoff != seg.utoff)
        abort();
    if (seg.end < 253402300799 &&
        (sked_tz_lookup(tz, (seg.end - 1) * SKED_USEC_PER_SEC, &info) != 0 ||
         info.utoff != seg.utoff))
        abort();
    if (sked_tz_local_to_utc(tz, (t + info.utoff) * SKED_USEC_PER_SEC, &r) ==
            0 &&
        r.kind == SKED_LOCAL_GAP)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char s[SKED_POSIXTZ_MAX + 2];
    sked_tz *tz = NULL;
    sked_error err;

    if (size > SKED_POSIXTZ_MAX + 1 || memchr(data, 0, size))
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    if (sked_tz_parse_posix(s, &tz, &err) != 0) {
        if (err.pos < 0 || (size_t) err.pos > size)
            abort();
        return 0;
    }
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++)
        probe(tz, probes[i]);
    sked_tz_free(tz);
    return 0;
}
