/* SPDX-License-Identifier: MIT */
/* sked's two JSON writers against jansson's own json_dumps: for every
 * value, the same text byte for byte, but for reals, which are written
 * as their shortest decimal (base/dtoa.h, tested in test_dtoa.c).
 *   - The one writer of answers, stored JSON and the CLI's output
 *     (src/base/json_text.c): random trees of every type, with strings
 *     full of what needs escaping (quotes, backslashes, every control
 *     character, multibyte UTF-8, NUL), keys likewise, integers at their
 *     extremes and reals of every magnitude, in each layout (compact,
 *     sorted keys, indented); reals read back as the same double.
 *   - The event payloads' (src/base/json_obj.c): random flat objects of
 *     the same values built both ways; a string that is not UTF-8 (which
 *     jansson refuses) comes out with U+FFFD for each bad byte; a
 *     duration is the shortest text of its seconds, read back as the
 *     double US / 1e6.
 * And the member scan (src/base/json_scan.c) against json_loads: on
 * random objects written compact and indented, every member is found
 * with jansson's value, a missing one is absent, and it answers "cannot
 * tell" only when a key is written with escapes; malformed text gets
 * "cannot tell" or absent, never a read past its end. */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/dtoa.h"
#include "base/json_obj.h"
#include "base/json_scan.h"
#include "base/json_text.h"

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

/* A random finite real of any magnitude (JSON has no inf), at times
 * integral (jansson adds ".0") or a zero of either sign. */
static double random_real(void)
{
    double d = (double) (int64_t) next() / (double) (1 + next() % 1000000);
    if (next() % 4 == 0)
        d = ldexp(d, (int) (next() % 600) - 300);
    if (next() % 8 == 0)
        d = (double) (int64_t) (next() % 100000);
    if (next() % 16 == 0)
        d = next() % 2 ? 0.0 : -0.0;
    return isfinite(d) ? d : 0.5;
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
    case 3:
        return json_real(random_real());
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

/* A marker no random string holds (U+FFFE): a real's place in jansson's
 * text, while its digits are sked__dtoa's. */
#define MARK "\xef\xbf\xbe"

/* A copy of J with each real replaced by the string MARK digits MARK. */
static json_t *marked(const json_t *j)
{
    char num[SKED_DTOA_MAX], text[SKED_DTOA_MAX + 8];
    const char *key;
    json_t *v, *c;
    size_t i;

    switch (json_typeof(j)) {
    case JSON_REAL:
        sked__dtoa(json_real_value(j), num);
        snprintf(text, sizeof text, MARK "%s" MARK, num);
        return json_string(text);
    case JSON_ARRAY:
        c = json_array();
        json_array_foreach(j, i, v) json_array_append_new(c, marked(v));
        return c;
    case JSON_OBJECT:
        c = json_object();
        json_object_foreach((json_t *) j, key, v)
            json_object_set_new_nocheck(c, key, marked(v));
        return c;
    default:
        return json_deep_copy(j);
    }
}

/* jansson's text of J with FLAGS, but reals written by sked__dtoa. */
static char *want_text(const json_t *j, size_t flags)
{
    json_t *m = marked(j);
    char *t = json_dumps(m, flags | JSON_ENCODE_ANY), *r = t, *w = t;

    json_decref(m);
    assert_non_null(t);
    while (*r) {
        if (strncmp(r, "\"" MARK, 4) == 0 || strncmp(r, MARK "\"", 4) == 0)
            r += 4;
        else
            *w++ = *r++;
    }
    *w = '\0';
    return t;
}

/* sked__json_write's text of J for each layout is jansson's for the
 * same value, reals aside. */
static void check_same(const json_t *j)
{
    static const struct {
        unsigned ours;
        size_t theirs;
    } layouts[] = {
        {0, JSON_COMPACT},
        {SKED_JSON_SORTED, JSON_COMPACT | JSON_SORT_KEYS},
        {SKED_JSON_PRETTY, JSON_INDENT(2)},
        {SKED_JSON_PRETTY | SKED_JSON_SORTED, JSON_INDENT(2) | JSON_SORT_KEYS},
    };

    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        char *want = want_text(j, layouts[i].theirs);
        size_t len = 0;
        char *got = sked__json_write(j, layouts[i].ours, &len);

        assert_non_null(got);
        assert_string_equal(got, want);
        assert_int_equal(len, strlen(want));
        free(want);
        free(got);
    }
}

/* With no real in it, the compact text is json_dumps's byte for byte,
 * and a real reads back as the same double. */
static void test_reals_read_back(void **state)
{
    (void) state;
    for (int i = 0; i < 20000; i++) {
        double d = random_real();
        json_t *j = json_pack("[f]", d);
        char *t = sked__json_text(j, NULL);
        json_t *back = json_loads(t, 0, NULL);
        double r = json_real_value(json_array_get(back, 0));

        assert_true(json_is_real(json_array_get(back, 0)));
        assert_memory_equal(&r, &d, sizeof d);
        json_decref(back);
        json_decref(j);
        free(t);
    }
}

/* The example of the defect: 17 digits where 4 say it. */
static void test_reals_shortest(void **state)
{
    json_t *j = json_pack("{s:f, s:f, s:f}", "duration_secs", 0.004439, "a",
                          2.0, "b", 0.1);
    char *t = sked__json_text(j, NULL);

    (void) state;
    assert_string_equal(t, "{\"duration_secs\":0.004439,\"a\":2.0,\"b\":0.1}");
    free(t);
    json_decref(j);
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
    case 1:
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
        random_text(text, 30); /* pieces: no NUL */
        sked__jobj_str(o, key, text);
        json_object_set_new(j, key, json_string(text));
    }
}

static void test_obj_random(void **state)
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
/* Durations: the shortest text of their seconds, read back as the
 * double US / 1e6. */
static void test_obj_secs(void **state)
{
    static const int64_t edges[] = {
        0,       1,        -1,  10,          999999,    1000000,  1000001,
        1500000, -1500000, 123, 86400000000, INT64_MAX, INT64_MIN};
    (void) state;
    for (size_t i = 0; i < sizeof edges / sizeof *edges + 200000; i++) {
        int64_t us = i < sizeof edges / sizeof *edges
                         ? edges[i]
                         : (int64_t) (next() >> (next() % 64));
        if (i >= sizeof edges / sizeof *edges && next() % 2 && us != INT64_MIN)
            us = -us;
        sked_jobj o = {0};
        sked__jobj_secs(&o, "d", us);
        char *got = sked__jobj_take(&o);
        assert_non_null(got);
        json_t *j = json_loads(got, 0, NULL);
        assert_non_null(j);
        json_t *v = json_object_get(j, "d");
        assert_true(json_is_real(v)); /* read back as a real */
        if (us > -(INT64_C(1) << 53) && us < (INT64_C(1) << 53))
            assert_true(json_real_value(v) == (double) us / 1e6);
        /* The text is the shortest of the double nearest to the exact
         * decimal, which below 10^15 us is that decimal, trailing zeros
         * cut to one place. */
        uint64_t m = us < 0 ? 0 - (uint64_t) us : (uint64_t) us;
        char exact[48], want[SKED_DTOA_MAX];
        size_t n =
            (size_t) snprintf(exact, sizeof exact, "%s%" PRIu64 ".%06" PRIu64,
                              us < 0 ? "-" : "", m / 1000000, m % 1000000);
        size_t wn = sked__dtoa(strtod(exact, NULL), want);
        const char *t = strchr(got, ':') + 1;
        assert_int_equal(strlen(t) - 1, wn); /* the closing brace */
        assert_memory_equal(t, want, wn);
        while (m < UINT64_C(1000000000000000) && exact[n - 1] == '0' &&
               exact[n - 2] != '.')
            n--;
        if (m < UINT64_C(1000000000000000)) {
            assert_int_equal(wn, n);
            assert_memory_equal(t, exact, n);
        }
        json_decref(j);
        free(got);
    }
}

static void test_obj_bad_utf8(void **state)
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

static void test_obj_empty_and_reuse(void **state)
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
static void test_obj_failure_is_null(void **state)
{
    sked_jobj o = {.b = {.max = 8}};

    (void) state;
    sked__jobj_str(&o, "workflow", "a long enough name");
    assert_null(sked__jobj_take(&o));
}

/* Tell whether jansson writes KEY with an escape. */
static bool key_escaped(const char *key)
{
    for (const unsigned char *p = (const unsigned char *) key; *p; p++)
        if (*p < 0x20 || *p == '"' || *p == '\\' || *p == 0x7f)
            return true;
    return false;
}

/* Check the scan of TEXT, the dump of object OBJ, for every member. */
static void check_scan(const json_t *obj, const char *text)
{
    bool unsure = false;
    const char *key, *val;
    json_t *v;
    size_t len;

    json_object_foreach((json_t *) obj, key, v) unsure =
        unsure || key_escaped(key);
    json_object_foreach((json_t *) obj, key, v)
    {
        sked_json_found f = sked__json_member(text, key, &val, &len);
        if (unsure) {
            assert_int_equal(f, SKED_JSON_UNSURE);
            continue;
        }
        assert_int_equal(f, SKED_JSON_FOUND);
        json_t *got =
            json_loadb(val, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
        assert_non_null(got);
        assert_true(json_equal(got, v));
        json_decref(got);
    }
    assert_int_equal(sked__json_member(text, "zz-not-a-member", &val, &len),
                     unsure ? SKED_JSON_UNSURE : SKED_JSON_ABSENT);
}

static void test_scan_random(void **state)
{
    (void) state;
    for (int i = 0; i < 20000; i++) {
        json_t *o = random_value(5); /* shallow: arrays and objects */
        if (!json_is_object(o)) {
            json_decref(o);
            o = json_object();
            json_object_set_new(o, "k", random_value(3));
        }
        char *compact = json_dumps(o, JSON_COMPACT);
        char *indented = json_dumps(o, JSON_INDENT(2));
        assert_non_null(compact);
        assert_non_null(indented);
        check_scan(o, compact);
        check_scan(o, indented);
        free(compact);
        free(indented);
        json_decref(o);
    }
}

/* Text that is not an object as far as the scan reads it, or ends
 * early: "cannot tell" (the caller parses, and jansson refuses it). */
static void test_scan_malformed(void **state)
{
    static const char *const bad[] = {"",
                                      " ",
                                      "[1]",
                                      "\"a\"",
                                      "{",
                                      "{\"a\"",
                                      "{\"a\":",
                                      "{\"a\":}",
                                      "{\"a\":1",
                                      "{\"a\":1,",
                                      "{\"a\":1,}",
                                      "{\"a\" 1}",
                                      "{a:1}",
                                      "{\"a\":\"x",
                                      "{\"a\":\"x\\",
                                      "{\"a\":[1,2",
                                      "{\"a\":{\"b\":\"}\"",
                                      "{\"a\":1 \"b\":2}",
                                      "{\"a\":#}",
                                      "{\"w\\u0061\":1}"};
    const char *val = NULL;
    size_t len = 0;

    (void) state;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(sked__json_member(bad[i], "a", &val, &len),
                         SKED_JSON_UNSURE);
    assert_int_equal(sked__json_member("{}", "a", &val, &len),
                     SKED_JSON_ABSENT);
    assert_int_equal(sked__json_member(" { } ", "a", &val, &len),
                     SKED_JSON_ABSENT);
    /* Duplicates: the last, as jansson keeps. */
    json_t *j = json_loads("{\"a\":1,\"a\":2}", 0, NULL);
    assert_int_equal(json_integer_value(json_object_get(j, "a")), 2);
    json_decref(j);
    assert_int_equal(sked__json_member("{\"a\":1,\"a\":2}", "a", &val, &len),
                     SKED_JSON_FOUND);
    assert_int_equal(len, 1);
    assert_int_equal(val[0], '2');
    /* A key's name inside a value is not the key. */
    assert_int_equal(
        sked__json_member("{\"b\":\"\\\"a\\\":1\",\"c\":{\"a\":3}}", "a", &val,
                          &len),
        SKED_JSON_ABSENT);
    assert_true(sked__json_plain_string("\"abc\"", 5));
    assert_false(sked__json_plain_string("\"a\\n\"", 5));
    assert_false(sked__json_plain_string("12", 2));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_trees),
        cmocka_unit_test(test_every_control_character),
        cmocka_unit_test(test_empty_and_nested),
        cmocka_unit_test(test_reals_read_back),
        cmocka_unit_test(test_reals_shortest),
        cmocka_unit_test(test_obj_random),
        cmocka_unit_test(test_obj_secs),
        cmocka_unit_test(test_obj_bad_utf8),
        cmocka_unit_test(test_obj_empty_and_reuse),
        cmocka_unit_test(test_obj_failure_is_null),
        cmocka_unit_test(test_scan_random),
        cmocka_unit_test(test_scan_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
