/* SPDX-License-Identifier: MIT */
/* The API's JSON writer (src/http/json_text.c) against jansson's own
 * json_dumps: for every value, the same text byte for byte. Random trees
 * of every type, with strings full of what needs escaping (quotes,
 * backslashes, every control character, multibyte UTF-8, NUL), keys
 * likewise, integers at their extremes and reals of every magnitude. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "http/json_text.h"

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A random valid UTF-8 string of up to MAX characters into BUF. */
static size_t random_text(char *buf, size_t max)
{
    static const char *const pieces[] = {"a",
                                         "\"",
                                         "\\",
                                         "/",
                                         "\n",
                                         "\t",
                                         "\x01",
                                         "\x1f",
                                         "\x7f",
                                         " ",
                                         "\xc3\xa9",
                                         "\xe2\x82\xac",
                                         "\xf0\x9f\x98\x80",
                                         "\xe2\x80\xa8",
                                         "Z",
                                         "\b",
                                         "\f",
                                         "\r"};
    size_t n = next() % (max + 1), len = 0;

    for (size_t i = 0; i < n; i++) {
        if (next() % 8 == 0) {
            buf[len++] = (char) (0x20 + next() % 0x5f); /* printable */
            continue;
        }
        const char *p = pieces[next() % (sizeof pieces / sizeof pieces[0])];
        memcpy(buf + len, p, strlen(p));
        len += strlen(p);
    }
    buf[len] = '\0';
    return len;
}

static json_t *random_value(int depth)
{
    static const json_int_t ints[] = {
        0, -1, 1, INT64_MAX, INT64_MIN, 42, 1700000000000000};
    char text[512];
    unsigned kind = (unsigned) (next() % (depth > 4 ? 6 : 8));

    switch (kind) {
    case 0:
        return json_null();
    case 1:
        return json_boolean(next() % 2);
    case 2:
        return json_integer(next() % 2 ? ints[next() % 7]
                                       : (json_int_t) next());
    case 3: {
        double d = (double) (int64_t) next() / (double) (1 + next() % 1000000);
        if (next() % 4 == 0)
            d = ldexp(d, (int) (next() % 600) - 300);
        return json_real(isfinite(d) ? d : 0.5); /* JSON has no inf */
    }
    case 4:
    case 5: {
        size_t n = random_text(text, 40);
        size_t at = n ? next() % n : 0;
        if (next() % 10 == 0 && n > 0 && (unsigned char) text[at] < 0x80)
            text[at] = '\0'; /* a NUL inside, in place of an ASCII byte */
        return json_stringn_nocheck(text, n);
    }
    case 6: {
        json_t *a = json_array();
        for (size_t i = next() % 6; i > 0; i--)
            json_array_append_new(a, random_value(depth + 1));
        return a;
    }
    default: {
        json_t *o = json_object();
        for (size_t i = next() % 6; i > 0; i--) {
            random_text(text, 12);
            json_object_set_new_nocheck(o, text, random_value(depth + 1));
        }
        return o;
    }
    }
}

static void check_same(const json_t *j)
{
    char *want = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
    size_t len = 0;
    char *got = sked__json_text(j, &len);

    assert_non_null(want);
    assert_non_null(got);
    assert_string_equal(got, want);
    assert_int_equal(len, strlen(want));
    free(want);
    free(got);
}

static void test_random_trees(void **state)
{
    (void) state;
    for (int i = 0; i < 20000; i++) {
        json_t *j = random_value(0);
        check_same(j);
        json_decref(j);
    }
}

static void test_every_control_character(void **state)
{
    char s[2] = {0, 0};

    (void) state;
    for (int c = 0; c < 0x80; c++) {
        s[0] = (char) c;
        json_t *j = json_pack("{s:s#}", "k", s, (size_t) 1);
        check_same(j);
        json_decref(j);
    }
}

static void test_empty_and_nested(void **state)
{
    json_t *j = json_pack("{s:{}, s:[], s:[[{}]], s:s, s:[n,b,b]}", "o", "a",
                          "n", "s", "", "l", 1, 0);

    (void) state;
    check_same(j);
    json_decref(j);
    assert_null(sked__json_text(NULL, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_trees),
        cmocka_unit_test(test_every_control_character),
        cmocka_unit_test(test_empty_and_nested),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
