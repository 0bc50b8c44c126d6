/* SPDX-License-Identifier: MIT */
/* Fuzz target for sked__json_member (src/base/json_scan.c), against
 * jansson.
 *
 * For any input, read as a C string (up to its first NUL), and a few
 * keys: a value found lies inside the text; where jansson accepts the
 * text as an object, an answer other than "cannot tell" is jansson's
 * (found exactly when jansson has the member, with an equal value).
 * Any other outcome aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/json_scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_key(const char *text, const json_t *doc, const char *key)
{
    const char *val = NULL;
    size_t len = 0;
    sked_json_found f = sked__json_member(text, key, &val, &len);

    if (f == SKED_JSON_FOUND &&
        (val < text || val + len > text + strlen(text) || len == 0))
        abort();
    if (f == SKED_JSON_UNSURE || !json_is_object(doc))
        return;
    json_t *want = json_object_get(doc, key);
    if ((f == SKED_JSON_FOUND) != (want != NULL))
        abort();
    if (f != SKED_JSON_FOUND)
        return;
    json_t *got = json_loadb(val, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    if (!got || !json_equal(got, want))
        abort();
    json_decref(got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const keys[] = {"a", "b", "workflow", "duration_secs"};
    char *text = malloc(size + 1);

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    json_t *doc = json_loads(text, JSON_ALLOW_NUL, NULL);
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        check_key(text, doc, keys[i]);
    json_decref(doc);
    free(text);
    return 0;
}
