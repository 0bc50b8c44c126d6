/* SPDX-License-Identifier: MIT */
/* Fuzz target for durations (src/time/duration.c).
 *
 * Any input either fails with an error that points inside it, or parses
 * to whole seconds within 100 years that survive format -> parse
 * unchanged. The first eight bytes, read as a number, also exercise the
 * writer on any duration. Any other outcome aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sked/time.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The parser's cap: 100 years of 365.25 days. */
#define MAX_USEC (INT64_C(36525) * 86400 * SKED_USEC_PER_SEC)

static void check_format(sked_dur d)
{
    char buf[SKED_DUR_STRLEN];
    int n = sked_dur_format(d, buf, sizeof buf);

    if (d < 0) {
        if (n != SKED_EINVAL)
            abort();
        return;
    }
    if (n <= 0 || (size_t) n != strlen(buf))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char s[256], buf[SKED_DUR_STRLEN];
    size_t len = size < sizeof s - 1 ? size : sizeof s - 1;
    sked_error err;
    sked_dur d, back;
    int64_t raw;

    if (size >= sizeof raw) {
        memcpy(&raw, data, sizeof raw);
        check_format(raw);
    }
    memcpy(s, data, len);
    s[len] = '\0';
    len = strlen(s);
    if (sked_dur_parse(s, &d, &err) != 0) {
        if (err.code != SKED_EINVAL || err.pos < 0 || (size_t) err.pos > len ||
            err.msg[0] == '\0')
            abort();
        return 0;
    }
    if (d < 0 || d > MAX_USEC || d % SKED_USEC_PER_SEC != 0)
        abort();
    if (sked_dur_format(d, buf, sizeof buf) <= 0)
        abort();
    if (sked_dur_parse(buf, &back, NULL) != 0 || back != d)
        abort();
    return 0;
}
