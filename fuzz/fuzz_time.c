/* SPDX-License-Identifier: MIT */
/* Fuzz target for RFC 3339 instants (src/time/rfc3339.c).
 *
 * Any input either fails with an error that points inside it, or parses
 * to an instant in range that survives format -> parse unchanged, in UTC
 * and at offsets with and without seconds. Any other outcome aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sked/time.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_error(const sked_error *err, size_t len)
{
    if (err->code != SKED_EINVAL || err->pos < 0 || (size_t) err->pos > len ||
        err->msg[0] == '\0')
        abort();
}

/* Format T at UTOFF (INT32_MIN: UTC) and parse it back. */
static void round_trip(sked_time t, int32_t utoff)
{
    char buf[SKED_TIME_STRLEN];
    sked_time back;
    int n = utoff == INT32_MIN
                ? sked_time_format(t, buf, sizeof buf)
                : sked_time_format_offset(t, utoff, buf, sizeof buf);

    if (n == SKED_ERANGE && utoff != INT32_MIN)
        return; /* the local reading is outside years 1-9999 */
    if (n <= 0 || (size_t) n != strlen(buf))
        abort();
    if (sked_time_parse(buf, &back, NULL) != 0 || back != t)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int32_t offsets[] = {INT32_MIN, 0,     3600,  -16200,
                                      561,       -1172, 86340, -86369};
    char s[256];
    size_t len = size < sizeof s - 1 ? size : sizeof s - 1;
    sked_error err;
    sked_time t;

    memcpy(s, data, len);
    s[len] = '\0';
    len = strlen(s);
    if (sked_time_parse(s, &t, &err) != 0) {
        check_error(&err, len);
        return 0;
    }
    if (t < SKED_TIME_MIN || t > SKED_TIME_MAX)
        abort();
    for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++)
        round_trip(t, offsets[i]);
    return 0;
}
