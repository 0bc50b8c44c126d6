/* SPDX-License-Identifier: MIT */
/* Tests of the error table: every code has a distinct number and API
 * code, the HTTP statuses and exit codes SPEC 6 and 7 promise, and the
 * lookups never return NULL, even for codes not in the table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/error.h"
#include "sked/sked.h"

static const int all_codes[] = {
#define CODE(name, num, api, http, exitc, msg) SKED_##name,
    SKED_ERRNO_MAP(CODE)
#undef CODE
};
#define NCODES (sizeof all_codes / sizeof all_codes[0])

static void test_codes_are_distinct(void **state)
{
    (void) state;
    for (size_t i = 0; i < NCODES; i++) {
        assert_true(all_codes[i] < 0);
        for (size_t j = i + 1; j < NCODES; j++) {
            assert_int_not_equal(all_codes[i], all_codes[j]);
            assert_string_not_equal(sked_error_name(all_codes[i]),
                                    sked_error_name(all_codes[j]));
        }
    }
}

/* SPEC 6: 400, 401, 404, 409, 413, 422, 500; SPEC 7: exit 0-4. */
static void test_spec_statuses(void **state)
{
    static const struct {
        int code;
        const char *api;
        int http, exit_code;
    } rows[] = {
        {SKED_EINVAL, "invalid_argument", 422, 1},
        {SKED_ESYNTAX, "bad_request", 400, 1},
        {SKED_EUNAUTH, "unauthorized", 401, 1},
        {SKED_ENOTFOUND, "not_found", 404, 3},
        {SKED_ECONFLICT, "conflict", 409, 4},
        {SKED_ETOOBIG, "too_large", 413, 1},
        {SKED_ENOMEM, "out_of_memory", 500, 1},
        {SKED_EUSAGE, "usage", 400, 2},
    };

    (void) state;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        assert_string_equal(sked_error_name(rows[i].code), rows[i].api);
        assert_int_equal(sked_error_http_status(rows[i].code), rows[i].http);
        assert_int_equal(sked_error_exit_code(rows[i].code), rows[i].exit_code);
    }
    assert_int_equal(sked_error_exit_code(SKED_OK), 0);
    assert_int_equal(sked_error_http_status(SKED_OK), 200);
}

static void test_unknown_codes(void **state)
{
    (void) state;
    assert_non_null(sked_strerror(-9999));
    assert_string_equal(sked_strerror(-9999), "unknown error");
    assert_string_equal(sked_error_name(12345), "internal");
    assert_int_equal(sked_error_http_status(-9999), 500);
    assert_int_equal(sked_error_exit_code(-9999), 1);
    for (size_t i = 0; i < NCODES; i++)
        assert_true(strlen(sked_strerror(all_codes[i])) > 0);
}

static void test_error_set(void **state)
{
    sked_error err;
    char long_field[100];

    (void) state;
    sked_error_clear(&err);
    assert_int_equal(err.pos, -1);
    assert_int_equal(sked__error_set(&err, SKED_EINVAL, "timezone", 4,
                                     "unknown zone %s", "Mars/Base"),
                     SKED_EINVAL);
    assert_int_equal(err.code, SKED_EINVAL);
    assert_int_equal(err.pos, 4);
    assert_string_equal(err.field, "timezone");
    assert_string_equal(err.msg, "unknown zone Mars/Base");
    /* NULL err is allowed; the code still comes back. */
    assert_int_equal(sked__error_set(NULL, SKED_ENOMEM, NULL, -1, NULL),
                     SKED_ENOMEM);
    /* Default message, and truncation instead of overflow. */
    memset(long_field, 'f', sizeof long_field - 1);
    long_field[sizeof long_field - 1] = '\0';
    sked__error_set(&err, SKED_ENOMEM, long_field, -1, NULL);
    assert_string_equal(err.msg, "out of memory");
    assert_int_equal(strlen(err.field), SKED_ERROR_FIELD_MAX - 1);
    assert_int_equal(err.pos, -1);
    sked_error_clear(NULL);
}

static void test_version(void **state)
{
    (void) state;
    assert_string_equal(sked_version(), SKED_VERSION);
    sked_free(NULL);
}

/* A message cut at its size never ends inside a character, and bytes
 * that are no UTF-8 do not reach it: for every cut of a run of 2-, 3- and
 * 4-byte characters, the message is valid UTF-8 and a prefix of what was
 * asked for. */
static void test_error_set_whole_utf8(void **state)
{
    static const char *const chars[] = {"\xc3\xa9", "\xe2\x82\xac",
                                        "\xf0\x9f\x98\x80"};
    char text[SKED_ERROR_MSG_MAX * 2];
    sked_error err;

    (void) state;
    for (size_t c = 0; c < 3; c++)
        for (size_t lead = 0; lead < 4; lead++) {
            size_t n = 0, len = strlen(chars[c]);
            memset(text, 'x', lead);
            n = lead;
            while (n + len < sizeof text - 1) {
                memcpy(text + n, chars[c], len);
                n += len;
            }
            text[n] = '\0';
            sked__error_set(&err, SKED_EINVAL, "f", -1, "%s", text);
            size_t got = strlen(err.msg);
            assert_true(got < SKED_ERROR_MSG_MAX);
            assert_true(got + len >= SKED_ERROR_MSG_MAX - 1);
            assert_memory_equal(err.msg, text, got);
            assert_true(got < lead || (got - lead) % len == 0);
        }
    sked__error_set(&err, SKED_EINVAL, "f\xff", -1,
                    "a\xff"
                    "b\xc3");
    assert_string_equal(err.msg, "a?b");
    assert_string_equal(err.field, "f?");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_codes_are_distinct),
        cmocka_unit_test(test_spec_statuses),
        cmocka_unit_test(test_unknown_codes),
        cmocka_unit_test(test_error_set),
        cmocka_unit_test(test_error_set_whole_utf8),
        cmocka_unit_test(test_version),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
