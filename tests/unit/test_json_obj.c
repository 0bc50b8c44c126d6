/* SPDX-License-Identifier: MIT */
/* The event payloads' writer (src/base/json_obj.c) against jansson: the
 * same object built both ways gives the same text byte for byte, for
 * random objects of strings (quotes, backslashes, every control
 * character, multibyte UTF-8), integers at their extremes, reals of every
 * magnitude, booleans and nulls. A string that is not UTF-8 (which
 * jansson refuses) comes out with U+FFFD for each bad byte. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "base/json_obj.h"

static uint64_t rng = 0x2545f4914f6cdd1du;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A random valid UTF-8 string without NUL, of up to MAX pieces. */
static void random_text(char *buf, size_t max)
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
                                         "Z",
                                         "\b",
                                         "\f",
                                         "\r",
                                         "\xe2\x80\xa8",
                                         "\xf0\x9f\x98\x80",
                                         "{",
                                         "}",
                                         "workflow",
                                         "\xef\xbf\xbd"};
    size_t n = next() % (max + 1), len = 0;

    for (size_t i = 0; i < n; i++) {
        const char *p = pieces[next() % (sizeof pieces / sizeof pieces[0])];
        memcpy(buf + len, p, strlen(p));
        len += strlen(p);
    }
    buf[len] = '\0';
}

static double random_real(void)
{
    double d = (double) (int64_t) next() / (double) (1 + next() % 1000000);
    if (next() % 4 == 0)
        d = ldexp(d, (int) (next() % 600) - 300);
    if (next() % 8 == 0)
        d = (double) (int64_t) (next() % 100000); /* integral: gets ".0" */
    if (next() % 16 == 0)
        d = next() % 2 ? 0.0 : -0.0;
    return isfinite(d) ? d : 0.25;
}

/* One random member under KEY, added to both O and J. */
static void random_member(sked_jobj *o, json_t *j, const char *key)
{
    static const int64_t ints[] = {0, -1, 1, INT64_MAX, INT64_MIN, 1700000000};
    char text[256];

    switch (next() % 6) {
    case 0: {
        int64_t v = next() % 2 ? ints[next() % 6] : (int64_t) next();
        sked__jobj_int(o, key, v);
        json_object_set_new(j, key, json_integer(v));
        break;
    }
    case 1: {
        double d = random_real();
        sked__jobj_real(o, key, d);
        json_object_set_new(j, key, json_real(d));
        break;
    }
    case 2: {
        bool b = next() % 2;
        sked__jobj_bool(o, key, b);
        json_object_set_new(j, key, json_boolean(b));
        break;
    }
    case 3:
        sked__jobj_str(o, key, NULL);
        json_object_set_new(j, key, json_null());
        break;
    default:
        random_text(text, 30);
        sked__jobj_str(o, key, text);
        json_object_set_new(j, key, json_string(text));
    }
}

static void test_random_objects(void **state)
{
    static const char *const keys[] = {"workflow", "step",  "attempt",
                                       "queue",    "error", "duration_secs",
                                       "a\"b",     "c\\d",  "e\nf"};
    (void) state;
    for (int i = 0; i < 20000; i++) {
        sked_jobj o = {0};
        json_t *j = json_object();
        size_t n = next() % 9;
        for (size_t k = 0; k < n; k++) /* distinct keys, in this order */
            random_member(&o, j, keys[(k + (size_t) i) % 9]);
        char *want = json_dumps(j, JSON_COMPACT);
        char *got = sked__jobj_take(&o);
        assert_non_null(got);
        assert_string_equal(got, want);
        free(want);
        free(got);
        json_decref(j);
    }
}

/* Not UTF-8: each bad byte is U+FFFD; the rest is kept. The object is
 * valid JSON that jansson reads back. */
static void test_bad_utf8(void **state)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"a\xff"
         "b",
         "{\"e\":\"a\xef\xbf\xbd"
         "b\"}"},
        {"\xc3", "{\"e\":\"\xef\xbf\xbd\"}"},                 /* cut short */
        {"\xc0\xaf", "{\"e\":\"\xef\xbf\xbd\xef\xbf\xbd\"}"}, /* overlong */
        {"\xed\xa0\x80"
         "x",
         "{\"e\":\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdx\"}"},
        {"ok \"\xfe\"", "{\"e\":\"ok \\\"\xef\xbf\xbd\\\"\"}"},
    };

    (void) state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sked_jobj o = {0};
        sked__jobj_str(&o, "e", cases[i].in);
        char *got = sked__jobj_take(&o);
        assert_string_equal(got, cases[i].out);
        json_t *back = json_loads(got, 0, NULL);
        assert_non_null(back);
        json_decref(back);
        free(got);
    }
}

static void test_empty_and_reuse(void **state)
{
    sked_jobj o = {0};
    char *a, *b;

    (void) state;
    a = sked__jobj_take(&o);
    assert_string_equal(a, "{}");
    sked__jobj_int(&o, "n", 7);
    b = sked__jobj_take(&o); /* emptied by the take before */
    assert_string_equal(b, "{\"n\":7}");
    free(a);
    free(b);
}

/* Past the buffer's limit, the take says so (NULL), and nothing leaks. */
static void test_failure_is_null(void **state)
{
    sked_jobj o = {.b = {.max = 8}};

    (void) state;
    sked__jobj_str(&o, "workflow", "a long enough name");
    assert_null(sked__jobj_take(&o));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_objects),
        cmocka_unit_test(test_bad_utf8),
        cmocka_unit_test(test_empty_and_reuse),
        cmocka_unit_test(test_failure_is_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
