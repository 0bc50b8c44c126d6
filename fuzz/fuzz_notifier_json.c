/* SPDX-License-Identifier: MIT */
/* Fuzz target for notifiers read from the API's JSON (src/model/
 * notifier.c), the body of PUT /api/v1/notifiers/{name} and what the
 * workflows file's "notifiers" mapping reads as.
 *
 * Any input either fails with SKED_EINVAL naming a field and saying why,
 * or reads into a notifier whose JSON (with its state) reads back into
 * the same JSON; the checks of a write then pass or fail naming a field.
 * Any other outcome aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "model/notifier.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(const sked_notifier *n)
{
    json_t *a = sked__notifier_to_json(n, true), *b;
    sked_notifier back;
    sked_error err;

    if (!a || sked__notifier_from_json(a, SKED__NOTIFIER_JSON_STATE, &back,
                                       &err) != 0)
        abort();
    b = sked__notifier_to_json(&back, true);
    if (!b || !json_equal(a, b))
        abort();
    json_decref(a);
    json_decref(b);
    sked__notifier_done(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *o = json_loadb((const char *) data, size, 0, NULL);
    sked_notifier n;
    sked_error err;
    int rc;

    if (!o)
        return 0;
    sked_error_clear(&err);
    rc = sked__notifier_from_json(o, 0, &n, &err);
    json_decref(o);
    if (rc != 0) {
        if (rc != SKED_EINVAL || err.msg[0] == '\0')
            abort();
        return 0;
    }
    round_trip(&n);
    sked_error_clear(&err);
    rc = sked__notifier_validate(&n, &err);
    if (rc != 0 && (rc != SKED_EINVAL || err.field[0] == '\0'))
        abort();
    sked__notifier_done(&n);
    return 0;
}
