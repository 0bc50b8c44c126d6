/* SPDX-License-Identifier: MIT */
/* Fuzz target for sked__utf8_sanitize (src/exec/proc.c).
 *
 * For any input, the output is NUL-terminated, holds no NUL, and is valid
 * UTF-8 by a decoder written apart from the one under test (code points
 * computed, then checked for overlong forms, surrogates and the U+10FFFF
 * limit). An input that was valid UTF-8 without NULs comes back unchanged;
 * any other input grows by two bytes per byte replaced. Sanitising twice
 * changes nothing. Any other outcome aborts. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Return the length of the sequence at S (N > 0 bytes), decoded to a code
 * point the slow way, or 0 when it is not valid UTF-8 or is a NUL. */
static size_t decode_one(const uint8_t *s, size_t n)
{
    static const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
    size_t len;
    uint32_t cp;

    if (s[0] < 0x80)
        return s[0] != 0 ? 1 : 0;
    if ((s[0] & 0xE0) == 0xC0) {
        len = 2;
        cp = s[0] & 0x1Fu;
    } else if ((s[0] & 0xF0) == 0xE0) {
        len = 3;
        cp = s[0] & 0x0Fu;
    } else if ((s[0] & 0xF8) == 0xF0) {
        len = 4;
        cp = s[0] & 0x07u;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[k] & 0x3Fu);
    }
    if (cp < min_cp[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

/* Return true when the N bytes at S are valid UTF-8 without NULs; count in
 * *REPLACED the U+FFFD they hold. */
static bool valid_utf8(const uint8_t *s, size_t n, size_t *replaced)
{
    size_t i = 0, len;

    *replaced = 0;
    while (i < n) {
        len = decode_one(s + i, n - i);
        if (len == 0)
            return false;
        if (len == 3 && memcmp(s + i, "\xEF\xBF\xBD", 3) == 0)
            (*replaced)++;
        i += len;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t out_len, again_len, in_fffd, out_fffd;
    char *out, *again;
    bool in_valid = valid_utf8(data, size, &in_fffd);

    if (sked__utf8_sanitize((const char *) data, size, &out, &out_len) != 0)
        abort();
    if (out[out_len] != '\0' || strlen(out) != out_len)
        abort();
    if (!valid_utf8((const uint8_t *) out, out_len, &out_fffd))
        abort();
    if (in_valid && (out_len != size || memcmp(out, data, size) != 0))
        abort();
    /* Each byte replaced adds one U+FFFD (3 bytes for 1); the rest stays. */
    if (out_len < size || (out_len - size) % 2 != 0 ||
        out_fffd < in_fffd + (out_len - size) / 2)
        abort();
    if (!in_valid && out_len == size)
        abort();
    if (sked__utf8_sanitize(out, out_len, &again, &again_len) != 0)
        abort();
    if (again_len != out_len || memcmp(again, out, out_len) != 0)
        abort();
    free(again);
    free(out);
    return 0;
}
