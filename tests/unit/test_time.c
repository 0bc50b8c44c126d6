/* SPDX-License-Identifier: MIT */
/* Tests of src/time: RFC 3339 instants, durations and civil conversions.
 *
 * Tables first: valid inputs with their exact values, invalid ones with
 * the component and byte the error must name. Then round trips (format,
 * parse, compare) over seeded random instants spanning years 1 to 9999,
 * and the civil split checked against the C library's gmtime_r/timegm,
 * which tests may use and libsked may not. */
#define _DEFAULT_SOURCE /* timegm */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "sked/sked.h"
#include "time/duration.h"
#include "time/rfc3339.h"

#define S(x) (INT64_C(x) * SKED_USEC_PER_SEC)

/* ---- helpers ------------------------------------------------------------ */

/* Fail with both instants written in RFC 3339 when A != B. */
static void assert_time_equal_at(sked_time a, sked_time b, const char *what)
{
    char sa[SKED_TIME_STRLEN] = "?", sb[SKED_TIME_STRLEN] = "?";

    if (a == b)
        return;
    (void) sked_time_format(a, sa, sizeof sa);
    (void) sked_time_format(b, sb, sizeof sb);
    fail_msg("%s: got %s (%lld), want %s (%lld)", what, sa, (long long) a, sb,
             (long long) b);
}

/* A small seeded generator (xorshift64*), so failures reproduce. */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng_next(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1du;
}

/* Return a uniform value in LO..HI (HI - LO < 2^63). */
static int64_t rng_range(int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t) (hi - lo) + 1;

    return lo + (int64_t) (rng_next() % span);
}

/* ---- RFC 3339: valid ---------------------------------------------------- */

static const struct {
    const char *in;
    sked_time want;
} valid_instants[] = {
    {"1970-01-01T00:00:00Z", 0},
    {"2026-11-30T08:00:00Z", S(1796025600)},
    {"2026-12-01T09:00:00Z", S(1796115600)},
    {"2026-12-01T10:00:00+01:00", S(1796115600)},
    {"2026-12-01T04:00:00-05:00", S(1796115600)},
    {"2026-12-01t09:00:00z", S(1796115600)},
    {"2026-12-01 09:00:00Z", S(1796115600)},
    {"2026-12-01T09:00:00-00:00", S(1796115600)},
    {"2025-03-30T03:00:00+02:00", S(1743296400)},
    {"2024-02-29T12:00:00Z", S(1709208000)},
    {"2000-02-29T23:59:59Z", S(951868799)},
    {"2026-12-01T09:00:00.25Z", S(1796115600) + 250000},
    {"2026-12-01T09:00:00.1Z", S(1796115600) + 100000},
    {"2026-12-01T09:00:00.000001Z", S(1796115600) + 1},
    {"2026-12-01T09:00:00.123456789Z", S(1796115600) + 123456},
    {"2026-12-01T10:00:00.5+01:00", S(1796115600) + 500000},
    /* Truncation floors before 1970 too. */
    {"1969-12-31T23:59:59.9999999Z", -1},
    {"1969-12-31T23:59:59.5Z", -500000},
    {"1066-10-14T09:00:00Z", S(-28502722800)},
    {"0001-01-01T00:00:00Z", SKED_TIME_MIN},
    {"0001-01-01T00:30:00+00:30", SKED_TIME_MIN},
    {"9999-12-31T23:59:59.999999Z", SKED_TIME_MAX},
    {"9999-12-31T23:59:59.999999999Z", SKED_TIME_MAX},
    {"9999-12-31T23:00:00-00:59", S(253402300740)},
    {"2025-06-15T12:00:00+23:59", S(1749988800) - 86340 * SKED_USEC_PER_SEC},
};

static void test_parse_valid(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof valid_instants / sizeof valid_instants[0];
         i++) {
        sked_error err;
        sked_time t = 42;
        int rc = sked_time_parse(valid_instants[i].in, &t, &err);

        if (rc != 0)
            fail_msg("%s: rc %d: %s: %s", valid_instants[i].in, rc, err.field,
                     err.msg);
        assert_time_equal_at(t, valid_instants[i].want, valid_instants[i].in);
    }
}

/* ---- RFC 3339: invalid -------------------------------------------------- */

static const struct {
    const char *in;
    const char *field;
    int pos;
    const char *msg; /* a part of the message */
} invalid_instants[] = {
    {"", "year", 0, "expected a digit, found end of input"},
    {" 2025-01-01T00:00:00Z", "year", 0, "found a space"},
    {"+2025-01-01T00:00:00Z", "year", 0, "found '+'"},
    {"25-01-01T00:00:00Z", "year", 2, "found '-'"},
    {"0000-01-01T00:00:00Z", "year", 0, "0 is out of range 1-9999"},
    {"20250101T000000Z", "month", 4, "expected '-'"},
    {"2025-1-01T00:00:00Z", "month", 6, "a digit"},
    {"2025-13-01T00:00:00Z", "month", 5, "13 is out of range 1-12"},
    {"2025-00-01T00:00:00Z", "month", 5, "0 is out of range 1-12"},
    {"2025-01-00T00:00:00Z", "day", 8, "0 is out of range 1-31"},
    {"2025-01-32T00:00:00Z", "day", 8, "32 is out of range 1-31"},
    {"2025-04-31T00:00:00Z", "day", 8, "31 is out of range 1-30"},
    {"2025-02-29T00:00:00Z", "day", 8, "29 is out of range 1-28"},
    {"1900-02-29T00:00:00Z", "day", 8, "29 is out of range 1-28"},
    {"2025-01-01", "hour", 10, "missing the time of day"},
    {"2025-01-01_00:00:00Z", "hour", 10, "expected 'T'"},
    {"2025-01-01T24:00:00Z", "hour", 11, "24 is out of range 0-23"},
    {"2025-01-01T9:00:00Z", "hour", 12, "a digit"},
    {"2025-01-01T00:60:00Z", "minute", 14, "60 is out of range 0-59"},
    {"2025-01-01T00:00Z", "second", 16, "expected ':'"},
    {"2016-12-31T23:59:60Z", "second", 17, "leap second"},
    {"2025-01-01T00:00:61Z", "second", 17, "61 is out of range 0-59"},
    {"2025-01-01T00:00:00.Z", "fraction", 20, "a digit after '.'"},
    {"2025-01-01T00:00:00.1234567890Z", "fraction", 29, "at most 9"},
    {"2025-01-01T00:00:00", "offset", 19, "add \"Z\""},
    {"2025-01-01T00:00:00.5", "offset", 21, "missing UTC offset"},
    {"2025-01-01T00:00:00 UTC", "offset", 19, "found a space"},
    {"2025-01-01T00:00:00+24:00", "offset", 20, "hours 24"},
    {"2025-01-01T00:00:00+01:60", "offset", 23, "minutes 60"},
    {"2025-01-01T00:00:00+0100", "offset", 22, "expected ':'"},
    {"2025-01-01T00:00:00+01", "offset", 22, "found end of input"},
    {"2025-01-01T00:00:00+01:00:00", "", 25, "after the offset"},
    {"2025-01-01T00:00:00ZZ", "", 20, "after the offset"},
    {"2025-01-01T00:00:00Z ", "", 20, "after the offset"},
    {"0001-01-01T00:00:00+00:01", "offset", 19, "outside"},
    {"9999-12-31T23:59:59-00:01", "offset", 19, "outside"},
    {"2025-01-01T00:00:00.0000000000000000000000000000000000000000000000Z", "",
     64, "longer than 64 bytes"},
};

static void test_parse_invalid(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof invalid_instants / sizeof invalid_instants[0];
         i++) {
        const char *in = invalid_instants[i].in;
        sked_error err;
        sked_time t = 42;
        int rc = sked_time_parse(in, &t, &err);

        if (rc != SKED_EINVAL)
            fail_msg("%s: rc %d, want SKED_EINVAL", in, rc);
        assert_int_equal(t, 42); /* untouched */
        if (strcmp(err.field, invalid_instants[i].field) != 0 ||
            err.pos != invalid_instants[i].pos ||
            !strstr(err.msg, invalid_instants[i].msg))
            fail_msg("%s: got %s at %d: \"%s\"; want %s at %d: \"%s\"", in,
                     err.field, err.pos, err.msg, invalid_instants[i].field,
                     invalid_instants[i].pos, invalid_instants[i].msg);
    }
}

static void test_parse_null(void **state)
{
    sked_time t;

    (void) state;
    assert_int_equal(sked_time_parse(NULL, &t, NULL), SKED_EINVAL);
    assert_int_equal(sked_time_parse("1970-01-01T00:00:00Z", NULL, NULL),
                     SKED_EINVAL);
    /* err may be NULL on failure too. */
    assert_int_equal(sked_time_parse("nope", &t, NULL), SKED_EINVAL);
}

/* ---- RFC 3339: formatting ----------------------------------------------- */

static const struct {
    sked_time t;
    int32_t utoff; /* INT32_MIN: UTC form */
    const char *want;
} formats[] = {
    {0, INT32_MIN, "1970-01-01T00:00:00Z"},
    {S(1796025600), INT32_MIN, "2026-11-30T08:00:00Z"},
    {S(1796025600) + 1, INT32_MIN, "2026-11-30T08:00:00.000001Z"},
    {S(1796025600) + 250000, INT32_MIN, "2026-11-30T08:00:00.250000Z"},
    {-1, INT32_MIN, "1969-12-31T23:59:59.999999Z"},
    {SKED_TIME_MIN, INT32_MIN, "0001-01-01T00:00:00Z"},
    {SKED_TIME_MAX, INT32_MIN, "9999-12-31T23:59:59.999999Z"},
    {S(1743296400), 7200, "2025-03-30T03:00:00+02:00"},
    {S(1743296400), 0, "2025-03-30T01:00:00+00:00"},
    {S(1743296400), -16200, "2025-03-29T20:30:00-04:30"},
    {S(1743296400), 45900, "2025-03-30T13:45:00+12:45"},
    {S(1743296400), 86340, "2025-03-31T00:59:00+23:59"},
    {S(1743296400), -86340, "2025-03-29T01:01:00-23:59"},
    /* Offsets with seconds round to the nearest minute and the local time
     * follows, so the string names the exact instant: Paris LMT +00:09:21
     * at 09:00 local, Amsterdam +00:19:32 at noon (RFC 3339 5.8). */
    {S(-2524489761), 561, "1890-01-01T08:59:39+00:09"},
    {S(-1041337172), 1172, "1937-01-01T12:00:28+00:20"},
    {0, 89, "1970-01-01T00:01:00+00:01"},
    {0, 90, "1970-01-01T00:02:00+00:02"},
    {0, -90, "1969-12-31T23:58:00-00:02"},
    {0, -29, "1970-01-01T00:00:00+00:00"},
    {0, 86369, "1970-01-01T23:59:00+23:59"},
};

static void test_format(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        char buf[SKED_TIME_STRLEN];
        int n = formats[i].utoff == INT32_MIN
                    ? sked_time_format(formats[i].t, buf, sizeof buf)
                    : sked_time_format_offset(formats[i].t, formats[i].utoff,
                                              buf, sizeof buf);

        if (n < 0)
            fail_msg("%s: rc %d", formats[i].want, n);
        assert_string_equal(buf, formats[i].want);
        assert_int_equal(n, strlen(formats[i].want));
    }
}

static void test_format_errors(void **state)
{
    char buf[SKED_TIME_STRLEN] = "untouched";
    char small[20];

    (void) state;
    assert_int_equal(sked_time_format(SKED_TIME_MIN - 1, buf, sizeof buf),
                     SKED_ERANGE);
    assert_int_equal(sked_time_format(SKED_TIME_MAX + 1, buf, sizeof buf),
                     SKED_ERANGE);
    assert_int_equal(sked_time_format(INT64_MIN, buf, sizeof buf), SKED_ERANGE);
    assert_string_equal(buf, "untouched");
    /* 20 characters need 21 bytes. */
    assert_int_equal(sked_time_format(0, small, sizeof small), SKED_ETOOBIG);
    assert_int_equal(sked_time_format(0, NULL, 0), SKED_ETOOBIG);
    assert_int_equal(sked_time_format_offset(0, 86400, buf, sizeof buf),
                     SKED_ERANGE);
    assert_int_equal(sked_time_format_offset(0, -86370, buf, sizeof buf),
                     SKED_ERANGE);
    /* The local reading would be year 0 or 10000. */
    assert_int_equal(
        sked_time_format_offset(SKED_TIME_MIN, -3600, buf, sizeof buf),
        SKED_ERANGE);
    assert_int_equal(
        sked_time_format_offset(SKED_TIME_MAX, 60, buf, sizeof buf),
        SKED_ERANGE);
    assert_int_equal(sked_time_format_offset(INT64_MAX, 60, buf, sizeof buf),
                     SKED_ERANGE);
    assert_int_equal(sked_time_format_offset(0, 3600, small, sizeof small),
                     SKED_ETOOBIG);
    assert_string_equal(buf, "untouched");
}

static void test_round_utoff(void **state)
{
    (void) state;
    assert_int_equal(sked__rfc3339_round_utoff(0), 0);
    assert_int_equal(sked__rfc3339_round_utoff(3600), 3600);
    assert_int_equal(sked__rfc3339_round_utoff(561), 540);
    assert_int_equal(sked__rfc3339_round_utoff(-561), -540);
    assert_int_equal(sked__rfc3339_round_utoff(1172), 1200);
    assert_int_equal(sked__rfc3339_round_utoff(30), 60);
    assert_int_equal(sked__rfc3339_round_utoff(-30), -60);
}

/* Format then parse random instants over the whole range, in UTC and at
 * random offsets (whole minutes or not): always the same instant. */
static void test_round_trip_random(void **state)
{
    (void) state;
    rng_state = 20260101;
    for (int i = 0; i < 200000; i++) {
        sked_time t = rng_range(SKED_TIME_MIN, SKED_TIME_MAX), back = 0;
        int32_t utoff = (int32_t) rng_range(-86369, 86369);
        char buf[SKED_TIME_STRLEN];
        sked_error err;

        if (i % 2)
            t -= t % SKED_USEC_PER_SEC; /* whole seconds half the time */
        assert_true(sked_time_format(t, buf, sizeof buf) > 0);
        if (sked_time_parse(buf, &back, &err) != 0)
            fail_msg("%s: %s", buf, err.msg);
        assert_time_equal_at(back, t, buf);
        if (i % 3 == 0)
            utoff -= utoff % 60;
        if (sked_time_format_offset(t, utoff, buf, sizeof buf) < 0)
            continue; /* local reading outside years 1-9999 */
        if (sked_time_parse(buf, &back, &err) != 0)
            fail_msg("%s: %s", buf, err.msg);
        assert_time_equal_at(back, t, buf);
    }
}

/* ---- civil -------------------------------------------------------------- */

/* Check the split of T against gmtime_r, and the way back. */
static void check_civil(sked_time t)
{
    time_t secs =
        (time_t) (t / SKED_USEC_PER_SEC - (t % SKED_USEC_PER_SEC < 0));
    struct tm tm;
    sked_civil c;

    assert_non_null(gmtime_r(&secs, &tm));
    sked_civil_from_time(t, &c);
    if (c.year != tm.tm_year + 1900 || c.month != tm.tm_mon + 1 ||
        c.day != tm.tm_mday || c.hour != tm.tm_hour || c.minute != tm.tm_min ||
        c.second != tm.tm_sec || c.wday != tm.tm_wday)
        fail_msg("%lld: got %04d-%02d-%02d %02d:%02d:%02d wday %d",
                 (long long) t, c.year, c.month, c.day, c.hour, c.minute,
                 c.second, c.wday);
    assert_true(c.usec >= 0 && c.usec < 1000000);
    assert_int_equal(c.usec, t - (sked_time) secs * SKED_USEC_PER_SEC);
    assert_time_equal_at(sked_civil_to_time(&c), t, "civil round trip");
    assert_int_equal((int64_t) timegm(&tm), (int64_t) secs);
}

static void test_civil_table(void **state)
{
    static const struct {
        sked_time t;
        sked_civil want;
    } rows[] = {
        {0, {1970, 1, 1, 0, 0, 0, 0, 4}},
        {-1, {1969, 12, 31, 23, 59, 59, 999999, 3}},
        {S(951868799), {2000, 2, 29, 23, 59, 59, 0, 2}},
        {SKED_TIME_MIN, {1, 1, 1, 0, 0, 0, 0, 1}},
        {SKED_TIME_MAX, {9999, 12, 31, 23, 59, 59, 999999, 5}},
    };

    (void) state;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        sked_civil c;

        sked_civil_from_time(rows[i].t, &c);
        assert_memory_equal(&c, &rows[i].want, sizeof c);
        assert_time_equal_at(sked_civil_to_time(&c), rows[i].t, "to_time");
    }
}

static void test_civil_random(void **state)
{
    (void) state;
    rng_state = 19700101;
    for (int i = 0; i < 200000; i++)
        check_civil(rng_range(SKED_TIME_MIN, SKED_TIME_MAX));
    /* Every day boundary around the epoch and a leap day. */
    for (int64_t s = -3 * 86400; s <= 3 * 86400; s += 3599)
        check_civil(s * SKED_USEC_PER_SEC);
}

static void test_civil_unchecked_fields(void **state)
{
    /* Out-of-range fields are not checked: they carry over. */
    sked_civil c = {2025, 1, 32, 24, 0, 0, 0, 0};

    (void) state;
    assert_time_equal_at(sked_civil_to_time(&c), S(1738454400),
                         "2025-02-02T00:00:00Z");
}

/* ---- durations ---------------------------------------------------------- */

static const struct {
    const char *in;
    int64_t secs;
} valid_durs[] = {
    {"90s", 90},
    {"5m", 300},
    {"2h", 7200},
    {"3d", 259200},
    {"1w", 604800},
    {"1h30m", 5400},
    {"1w2d3h4m5s", 788645},
    {"1d12h", 129600},
    {"2h5s", 7205},
    {"05m", 300},
    {"3600", 3600},
    {"0", 0},
    {"0s", 0},
    {"0w0d", 0},
    {"36525d", SKED_DUR_MAX_SECS},
    {"3155760000", SKED_DUR_MAX_SECS},
    {"36524d23h59m59s", SKED_DUR_MAX_SECS - 1},
};

static void test_dur_valid(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof valid_durs / sizeof valid_durs[0]; i++) {
        sked_error err;
        sked_dur d = -42;

        if (sked_dur_parse(valid_durs[i].in, &d, &err) != 0)
            fail_msg("%s: %s", valid_durs[i].in, err.msg);
        assert_int_equal(d, valid_durs[i].secs * SKED_USEC_PER_SEC);
    }
}

static const struct {
    const char *in;
    int pos;
    const char *msg;
} invalid_durs[] = {
    {"", 0, "empty duration"},
    {"-5m", 0, "no sign"},
    {"+5m", 0, "no sign"},
    {" 5m", 0, "no spaces"},
    {"5m ", 2, "no spaces"},
    {"5 m", 1, "no spaces"},
    {"h", 0, "expected a number before 'h'"},
    {"1h30", 4, "30 needs a unit"},
    {"1.5h", 1, "fractions are not supported"},
    {"1H", 1, "lowercase"},
    {"1x", 1, "unknown unit 'x'"},
    {"1y", 1, "unknown unit 'y'"},
    {"1ms", 1, "milliseconds"},
    {"1h1h", 3, "'h' appears twice"},
    {"1m1h", 3, "order w, d, h, m, s"},
    {"1s1w", 3, "order"},
    {"1mo", 2, "expected a number"},
    {"0x10", 1, "unknown unit 'x'"},
    {"3155760001", 0, "too large"},
    {"36526d", 0, "too large"},
    {"5218w", 0, "too large"},
    {"99999999999999999999999999s", 0, "too large"},
    {"36525d1s", 6, "too large"},
    {"1w\xc3\xa9", 2, "expected a number"},
    {"1111111111111111111111111111111111111111111111111111111111111111s", 64,
     "longer than 64"},
};

static void test_dur_invalid(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof invalid_durs / sizeof invalid_durs[0]; i++) {
        const char *in = invalid_durs[i].in;
        sked_error err;
        sked_dur d = -42;

        if (sked_dur_parse(in, &d, &err) != SKED_EINVAL)
            fail_msg("%s: accepted", in);
        assert_int_equal(d, -42);
        if (err.pos != invalid_durs[i].pos ||
            !strstr(err.msg, invalid_durs[i].msg))
            fail_msg("%s: got %d \"%s\"; want %d \"%s\"", in, err.pos, err.msg,
                     invalid_durs[i].pos, invalid_durs[i].msg);
    }
    assert_int_equal(sked_dur_parse(NULL, &(sked_dur){0}, NULL), SKED_EINVAL);
    assert_int_equal(sked_dur_parse("1s", NULL, NULL), SKED_EINVAL);
}

static const struct {
    sked_dur d;
    const char *want;
} dur_formats[] = {
    {0, "0s"},
    {S(45), "45s"},
    {S(90), "1m30s"},
    {S(5400), "1h30m"},
    {S(172800), "2d"},
    {S(691200), "1w1d"},
    {S(788645), "1w2d3h4m5s"},
    {S(3600) + 5, "1h0.000005s"},
    {1500000, "1.5s"},
    {1, "0.000001s"},
    {S(3600) + 500000, "1h0.5s"},
    {S(61) + 250000, "1m1.25s"},
    {INT64_MAX, "15250284w3d4h54.775807s"},
};

static void test_dur_format(void **state)
{
    char buf[SKED_DUR_STRLEN], small[4] = "xyz";

    (void) state;
    for (size_t i = 0; i < sizeof dur_formats / sizeof dur_formats[0]; i++) {
        int n = sked_dur_format(dur_formats[i].d, buf, sizeof buf);

        assert_int_equal(n, strlen(dur_formats[i].want));
        assert_string_equal(buf, dur_formats[i].want);
    }
    assert_int_equal(sked_dur_format(-1, buf, sizeof buf), SKED_EINVAL);
    assert_int_equal(sked_dur_format(S(5400), small, sizeof small),
                     SKED_ETOOBIG);
    assert_string_equal(small, "xyz");
    assert_int_equal(sked_dur_format(S(90), small, sizeof small), SKED_ETOOBIG);
    assert_int_equal(sked_dur_format(S(45), small, sizeof small), 3);
}

static void test_dur_round_trip_random(void **state)
{
    (void) state;
    rng_state = 36525;
    for (int i = 0; i < 200000; i++) {
        /* Small values half the time, where every unit shows up. */
        int64_t secs = rng_range(0, i % 2 ? 200000 : SKED_DUR_MAX_SECS);
        char buf[SKED_DUR_STRLEN];
        sked_dur back = -1;
        sked_error err;

        assert_true(sked_dur_format(secs * SKED_USEC_PER_SEC, buf, sizeof buf) >
                    0);
        if (sked_dur_parse(buf, &back, &err) != 0)
            fail_msg("%s: %s", buf, err.msg);
        assert_int_equal(back, secs * SKED_USEC_PER_SEC);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_valid),
        cmocka_unit_test(test_parse_invalid),
        cmocka_unit_test(test_parse_null),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_format_errors),
        cmocka_unit_test(test_round_utoff),
        cmocka_unit_test(test_round_trip_random),
        cmocka_unit_test(test_civil_table),
        cmocka_unit_test(test_civil_random),
        cmocka_unit_test(test_civil_unchecked_fields),
        cmocka_unit_test(test_dur_valid),
        cmocka_unit_test(test_dur_invalid),
        cmocka_unit_test(test_dur_format),
        cmocka_unit_test(test_dur_round_trip_random),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
