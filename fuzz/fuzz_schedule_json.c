/* SPDX-License-Identifier: MIT */
/* Fuzz target for schedules read from the API's JSON
 * (src/model/schedule_json.c), the body of POST and PATCH.
 *
 * Any input either fails with a code a client can act on (400 or 422,
 * with a message), or reads into a schedule whose JSON reads back, with
 * the state fields, into the same JSON: nothing is lost or invented on
 * the way. Any other outcome aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/schedule_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(const sked_schedule *s)
{
    sked_schedule back;
    sked_error err;
    char *a = NULL, *b = NULL;

    if (sked__schedule_to_json_text(s, &a, &err) != 0)
        abort();
    if (sked__schedule_from_json_text(a, strlen(a), SKED__SCHEDULE_JSON_STATE,
                                      &back, &err) != 0)
        abort();
    if (sked__schedule_to_json_text(&back, &b, &err) != 0 || strcmp(a, b) != 0)
        abort();
    free(a);
    free(b);
    sked_schedule_done(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sked_schedule s;
    sked_error err;
    int rc =
        sked__schedule_from_json_text((const char *) data, size, 0, &s, &err);

    if (rc != 0) {
        if ((rc != SKED_ESYNTAX && rc != SKED_EINVAL && rc != SKED_ERANGE) ||
            err.code != rc || err.msg[0] == '\0')
            abort();
        return 0;
    }
    round_trip(&s);
    sked_schedule_done(&s);
    return 0;
}
