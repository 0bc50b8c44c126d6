/* SPDX-License-Identifier: MIT */
/* Unit tests of src/tz/: TZif and POSIX TZ parsing, lookups and
 * local-to-UTC conversions around real transitions (pinned copies of the
 * zone files in tests/data/zoneinfo), offset segments, malformed input,
 * zone names and the thread-safe zone cache. Expected values were checked
 * by hand against zdump and the tz database's source. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sked/tz.h"
#include "time/civil.h"
#include "tz/posixtz.h"
#include "tz/tzdb.h"
#include "tz/zone.h"

#define ZONEINFO SKED_TEST_DATA "/zoneinfo"
#define USEC     SKED_USEC_PER_SEC

/* ---- helpers ------------------------------------------------------------ */

/* Parse "YYYY-MM-DDTHH:MM:SS[.ffffff]" (read as UTC, or as a wall clock)
 * into µs; the time module's parser is not used so the tests stand
 * alone. */
static sked_time at(const char *s)
{
    int y, mo, d, h, mi, sec, n = 0;
    long usec = 0;

    if (sscanf(s, "%d-%d-%dT%d:%d:%d%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6)
        fail_msg("bad test instant %s", s);
    if (s[n] == '.')
        usec = strtol(s + n + 1, NULL, 10);
    return (sked__days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 +
            sec) *
               USEC +
           usec;
}

/* Write T as "YYYY-MM-DDTHH:MM:SS[.ffffff]" into BUF. */
static const char *fmt(sked_time t, char *buf, size_t size)
{
    int64_t s = sked__floor_div(t, USEC), days = sked__floor_div(s, 86400);
    int64_t y, sod = s - days * 86400, us = t - s * USEC;
    int m, d;

    sked__civil_from_days(days, &y, &m, &d);
    if (snprintf(buf, size, "%04lld-%02d-%02dT%02lld:%02lld:%02lld",
                 (long long) y, m, d, (long long) (sod / 3600),
                 (long long) (sod / 60 % 60),
                 (long long) (sod % 60)) >= (int) size)
        return buf;
    if (us && strlen(buf) + 8 <= size)
        sprintf(buf + strlen(buf), ".%06lld", (long long) us);
    return buf;
}

static void assert_time_equal(sked_time got, sked_time want, const char *ctx)
{
    char g[48], w[48];

    if (got != want)
        fail_msg("%s: got %s, want %s", ctx, fmt(got, g, sizeof g),
                 fmt(want, w, sizeof w));
}

static sked_tzdb *open_db(void)
{
    sked_tzdb *db = NULL;

    assert_int_equal(sked_tzdb_open(ZONEINFO, &db, NULL), 0);
    return db;
}

static const sked_tz *get(sked_tzdb *db, const char *name)
{
    const sked_tz *tz = NULL;
    sked_error err;

    if (sked_tzdb_get(db, name, &tz, &err) != 0)
        fail_msg("cannot load %s: %s", name, err.msg);
    return tz;
}

static int read_file(const char *path, char **data, size_t *len)
{
    FILE *f = fopen(path, "rb");
    long n;

    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    *data = malloc((size_t) n);
    *len = fread(*data, 1, (size_t) n, f);
    fclose(f);
    return 0;
}

/* ---- lookups ------------------------------------------------------------ */

struct lookup_case {
    const char *zone;
    const char *utc;
    int32_t utoff;
    int32_t is_dst;
    const char *abbr;
};

static const struct lookup_case lookups[] = {
    {"Europe/Paris", "2025-03-30T00:59:59", 3600, 0, "CET"},
    {"Europe/Paris", "2025-03-30T01:00:00", 7200, 1, "CEST"},
    {"Europe/Paris", "2025-10-26T00:59:59", 7200, 1, "CEST"},
    {"Europe/Paris", "2025-10-26T01:00:00", 3600, 0, "CET"},
    {"Europe/Paris", "1900-01-01T00:00:00", 561, 0, "PMT"},
    {"Europe/Paris", "2150-03-29T00:59:59", 3600, 0, "CET"},
    {"Europe/Paris", "2150-03-29T01:00:00", 7200, 1, "CEST"},
    {"Europe/Paris", "2150-10-25T01:00:00", 3600, 0, "CET"},
    {"America/New_York", "2025-03-09T06:59:59", -18000, 0, "EST"},
    {"America/New_York", "2025-03-09T07:00:00", -14400, 1, "EDT"},
    {"America/New_York", "2025-11-02T05:59:59", -14400, 1, "EDT"},
    {"America/New_York", "2025-11-02T06:00:00", -18000, 0, "EST"},
    {"America/New_York", "1900-01-01T00:00:00", -18000, 0, "EST"},
    {"America/New_York", "2100-03-14T06:59:59", -18000, 0, "EST"},
    {"America/New_York", "2100-03-14T07:00:00", -14400, 1, "EDT"},
    {"America/New_York", "2150-11-01T06:00:00", -18000, 0, "EST"},
    {"US/Eastern", "2025-07-01T12:00:00", -14400, 1, "EDT"},
    {"Australia/Lord_Howe", "2025-04-05T14:59:59", 39600, 1, "+11"},
    {"Australia/Lord_Howe", "2025-04-05T15:00:00", 37800, 0, "+1030"},
    {"Australia/Lord_Howe", "2025-10-04T15:29:59", 37800, 0, "+1030"},
    {"Australia/Lord_Howe", "2025-10-04T15:30:00", 39600, 1, "+11"},
    {"Australia/Lord_Howe", "2150-10-03T15:30:00", 39600, 1, "+11"},
    {"Pacific/Chatham", "2025-04-05T13:59:59", 49500, 1, "+1345"},
    {"Pacific/Chatham", "2025-04-05T14:00:00", 45900, 0, "+1245"},
    {"Pacific/Chatham", "2025-09-27T14:00:00", 49500, 1, "+1345"},
    {"Pacific/Chatham", "2150-09-26T13:59:59", 45900, 0, "+1245"},
    {"America/Sao_Paulo", "2018-11-04T02:59:59", -10800, 0, "-03"},
    {"America/Sao_Paulo", "2018-11-04T03:00:00", -7200, 1, "-02"},
    {"America/Sao_Paulo", "2019-02-17T01:59:59", -7200, 1, "-02"},
    {"America/Sao_Paulo", "2019-02-17T02:00:00", -10800, 0, "-03"},
    {"America/Sao_Paulo", "2150-01-01T00:00:00", -10800, 0, "-03"},
    {"Europe/London", "2025-03-30T00:59:59", 0, 0, "GMT"},
    {"Europe/London", "2025-03-30T01:00:00", 3600, 1, "BST"},
    {"Europe/London", "1970-01-01T00:00:00", 3600, 0, "BST"},
    /* Europe/Dublin: Irish Standard Time in summer, "DST" in winter. */
    {"Europe/Dublin", "2025-03-30T01:00:00", 3600, 0, "IST"},
    {"Europe/Dublin", "2025-10-26T01:00:00", 0, 1, "GMT"},
    {"Europe/Dublin", "2150-01-15T00:00:00", 0, 1, "GMT"},
    {"Europe/Dublin", "2150-07-01T00:00:00", 3600, 0, "IST"},
    {"America/Nuuk", "2025-03-30T00:59:59", -7200, 0, "-02"},
    {"America/Nuuk", "2025-03-30T01:00:00", -3600, 1, "-01"},
    {"America/Nuuk", "2150-10-25T00:59:59", -3600, 1, "-01"},
    {"America/Nuuk", "2150-10-25T01:00:00", -7200, 0, "-02"},
    {"Antarctica/Troll", "2025-03-30T01:00:00", 7200, 1, "+02"},
    {"Antarctica/Troll", "2025-10-26T01:00:00", 0, 0, "+00"},
    {"Asia/Kolkata", "1900-01-01T00:00:00", 19270, 0, "MMT"},
    {"Asia/Kolkata", "1945-10-14T17:29:59", 23400, 1, "+0630"},
    {"Asia/Kolkata", "1945-10-14T17:30:00", 19800, 0, "IST"},
    {"Asia/Kolkata", "2200-01-01T00:00:00", 19800, 0, "IST"},
    /* Africa/Casablanca: +01, with negative DST (+00) around Ramadan. */
    {"Africa/Casablanca", "2025-02-23T01:59:59", 3600, 0, "+01"},
    {"Africa/Casablanca", "2025-02-23T02:00:00", 0, 1, "+00"},
    {"Africa/Casablanca", "2025-04-06T02:00:00", 3600, 0, "+01"},
    {"Africa/Casablanca", "2150-01-01T00:00:00", 3600, 0, "+01"},
    {"UTC", "2025-06-01T00:00:00", 0, 0, "UTC"},
};

static void test_lookup_table(void **state)
{
    sked_tzdb *db = open_db();
    (void) state;

    for (size_t i = 0; i < sizeof lookups / sizeof lookups[0]; i++) {
        const struct lookup_case *c = &lookups[i];
        sked_tz_info info;
        assert_int_equal(sked_tz_lookup(get(db, c->zone), at(c->utc), &info),
                         0);
        if (info.utoff != c->utoff || info.is_dst != c->is_dst ||
            strcmp(info.abbr, c->abbr) != 0)
            fail_msg("%s at %s: got %d %d %s, want %d %d %s", c->zone, c->utc,
                     info.utoff, info.is_dst, info.abbr, c->utoff, c->is_dst,
                     c->abbr);
    }
    sked_tzdb_close(db);
}

static void test_lookup_range(void **state)
{
    sked_tz_info info = {0};
    (void) state;

    assert_int_equal(sked_tz_lookup(sked_tz_utc(), SKED_TIME_MAX + 1, &info),
                     SKED_ERANGE);
    assert_int_equal(sked_tz_lookup(sked_tz_utc(), SKED_TIME_MIN - 1, &info),
                     SKED_ERANGE);
    assert_int_equal(sked_tz_lookup(sked_tz_utc(), SKED_TIME_MAX, &info), 0);
    assert_string_equal(info.abbr, "UTC");
    assert_string_equal(sked_tz_name(sked_tz_utc()), "UTC");
}

/* ---- local to UTC ------------------------------------------------------- */

struct local_case {
    const char *zone;
    const char *local;
    sked_local_kind kind;
    const char *first, *second; /* UTC; second NULL: same as first */
};

#define U SKED_LOCAL_UNIQUE
#define G SKED_LOCAL_GAP
#define R SKED_LOCAL_REPEATED

static const struct local_case locals[] = {
    /* SPEC 2.2's examples. */
    {"Europe/Paris", "2025-03-30T02:30:00", G, "2025-03-30T01:00:00", NULL},
    {"Europe/Paris", "2025-10-26T02:30:00", R, "2025-10-26T00:30:00",
     "2025-10-26T01:30:00"},
    {"Europe/Paris", "2025-03-30T02:00:00", G, "2025-03-30T01:00:00", NULL},
    {"Europe/Paris", "2025-03-30T01:59:59", U, "2025-03-30T00:59:59", NULL},
    {"Europe/Paris", "2025-03-30T03:00:00", U, "2025-03-30T01:00:00", NULL},
    {"Europe/Paris", "2025-10-26T02:00:00", R, "2025-10-26T00:00:00",
     "2025-10-26T01:00:00"},
    {"Europe/Paris", "2025-10-26T01:59:59", U, "2025-10-25T23:59:59", NULL},
    {"Europe/Paris", "2025-10-26T03:00:00", U, "2025-10-26T02:00:00", NULL},
    {"Europe/Paris", "2025-10-26T02:30:00.500000", R,
     "2025-10-26T00:30:00.500000", "2025-10-26T01:30:00.500000"},
    {"Europe/Paris", "2025-03-30T02:30:00.250000", G, "2025-03-30T01:00:00",
     NULL},
    {"Europe/Paris", "1900-06-01T12:00:00", U, "1900-06-01T11:50:39", NULL},
    {"Europe/Paris", "2150-03-29T02:30:00", G, "2150-03-29T01:00:00", NULL},
    {"Europe/Paris", "2150-10-25T02:30:00", R, "2150-10-25T00:30:00",
     "2150-10-25T01:30:00"},
    {"America/New_York", "2025-03-09T02:30:00", G, "2025-03-09T07:00:00", NULL},
    {"America/New_York", "2025-11-02T01:30:00", R, "2025-11-02T05:30:00",
     "2025-11-02T06:30:00"},
    {"America/New_York", "2100-03-14T02:00:00", G, "2100-03-14T07:00:00", NULL},
    {"America/New_York", "1900-01-01T00:00:00", U, "1900-01-01T05:00:00", NULL},
    /* Lord Howe moves by 30 minutes. */
    {"Australia/Lord_Howe", "2025-10-05T02:00:00", G, "2025-10-04T15:30:00",
     NULL},
    {"Australia/Lord_Howe", "2025-10-05T02:15:00", G, "2025-10-04T15:30:00",
     NULL},
    {"Australia/Lord_Howe", "2025-10-05T02:30:00", U, "2025-10-04T15:30:00",
     NULL},
    {"Australia/Lord_Howe", "2025-04-06T01:45:00", R, "2025-04-05T14:45:00",
     "2025-04-05T15:15:00"},
    {"Australia/Lord_Howe", "2025-04-06T01:29:59", U, "2025-04-05T14:29:59",
     NULL},
    /* Chatham: +12:45 and +13:45. */
    {"Pacific/Chatham", "2025-09-28T03:00:00", G, "2025-09-27T14:00:00", NULL},
    {"Pacific/Chatham", "2025-04-06T03:00:00", R, "2025-04-05T13:15:00",
     "2025-04-05T14:15:00"},
    {"Pacific/Chatham", "2150-09-27T03:00:00", G, "2150-09-26T14:00:00", NULL},
    /* Sao Paulo changed at midnight: 2018-11-04 had no 00:00. */
    {"America/Sao_Paulo", "2018-11-04T00:00:00", G, "2018-11-04T03:00:00",
     NULL},
    {"America/Sao_Paulo", "2018-11-04T00:30:00", G, "2018-11-04T03:00:00",
     NULL},
    {"America/Sao_Paulo", "2018-11-04T01:00:00", U, "2018-11-04T03:00:00",
     NULL},
    {"America/Sao_Paulo", "2018-11-03T23:59:59", U, "2018-11-04T02:59:59",
     NULL},
    {"America/Sao_Paulo", "2019-02-16T23:30:00", R, "2019-02-17T01:30:00",
     "2019-02-17T02:30:00"},
    {"Europe/Dublin", "2025-03-30T01:30:00", G, "2025-03-30T01:00:00", NULL},
    {"Europe/Dublin", "2025-10-26T01:30:00", R, "2025-10-26T00:30:00",
     "2025-10-26T01:30:00"},
    {"Europe/London", "2025-10-26T01:30:00", R, "2025-10-26T00:30:00",
     "2025-10-26T01:30:00"},
    {"America/Nuuk", "2025-03-29T23:30:00", G, "2025-03-30T01:00:00", NULL},
    {"America/Nuuk", "2025-10-25T23:30:00", R, "2025-10-26T00:30:00",
     "2025-10-26T01:30:00"},
    /* Troll jumps by two hours. */
    {"Antarctica/Troll", "2025-03-30T02:00:00", G, "2025-03-30T01:00:00", NULL},
    {"Antarctica/Troll", "2025-10-26T02:00:00", R, "2025-10-26T00:00:00",
     "2025-10-26T02:00:00"},
    {"Asia/Kolkata", "2025-01-01T05:30:00", U, "2025-01-01T00:00:00", NULL},
    {"Africa/Casablanca", "2025-02-23T02:30:00", R, "2025-02-23T01:30:00",
     "2025-02-23T02:30:00"},
    {"Africa/Casablanca", "2025-04-06T02:30:00", G, "2025-04-06T02:00:00",
     NULL},
    {"UTC", "2025-03-30T02:30:00", U, "2025-03-30T02:30:00", NULL},
};

static void check_local(const sked_tz *tz, const struct local_case *c)
{
    sked_local_result r;
    char ctx[128];

    snprintf(ctx, sizeof ctx, "%s %s", c->zone, c->local);
    assert_int_equal(sked_tz_local_to_utc(tz, at(c->local), &r), 0);
    if (r.kind != c->kind)
        fail_msg("%s: kind %d, want %d", ctx, r.kind, c->kind);
    assert_time_equal(r.first, at(c->first), ctx);
    assert_time_equal(r.second, at(c->second ? c->second : c->first), ctx);
}

static void test_local_to_utc_table(void **state)
{
    sked_tzdb *db = open_db();
    (void) state;

    for (size_t i = 0; i < sizeof locals / sizeof locals[0]; i++)
        check_local(get(db, locals[i].zone), &locals[i]);
    sked_tzdb_close(db);
}

static void test_local_to_utc_range(void **state)
{
    sked_local_result r;
    (void) state;

    assert_int_equal(sked_tz_local_to_utc(sked_tz_utc(), SKED_TIME_MAX + 1, &r),
                     SKED_ERANGE);
    assert_int_equal(sked_tz_local_to_utc(sked_tz_utc(), SKED_TIME_MIN, &r), 0);
}

/* ---- segments ----------------------------------------------------------- */

struct seg_case {
    const char *zone;
    const char *utc;
    const char *start, *end; /* NULL: none (INT64_MIN, INT64_MAX) */
    int32_t utoff, prev_utoff;
};

static const struct seg_case segs[] = {
    {"Europe/Paris", "2025-06-01T00:00:00", "2025-03-30T01:00:00",
     "2025-10-26T01:00:00", 7200, 3600},
    {"Europe/Paris", "2150-06-01T00:00:00", "2150-03-29T01:00:00",
     "2150-10-25T01:00:00", 7200, 3600},
    {"Europe/Paris", "2150-12-01T00:00:00", "2150-10-25T01:00:00",
     "2151-03-28T01:00:00", 3600, 7200},
    {"America/New_York", "2100-01-01T00:00:00", "2099-11-01T06:00:00",
     "2100-03-14T07:00:00", -18000, -14400},
    /* 1968-10-27 turned BST from DST to standard time, same offset. */
    {"Europe/London", "1970-01-01T00:00:00", "1968-02-18T02:00:00",
     "1971-10-31T02:00:00", 3600, 0},
    {"Australia/Lord_Howe", "2025-12-01T00:00:00", "2025-10-04T15:30:00",
     "2026-04-04T15:00:00", 39600, 37800},
    {"Asia/Kolkata", "2025-01-01T00:00:00", "1945-10-14T17:30:00", NULL, 19800,
     23400},
    {"UTC", "2025-01-01T00:00:00", NULL, NULL, 0, 0},
};

static void test_segment_table(void **state)
{
    sked_tzdb *db = open_db();
    (void) state;

    for (size_t i = 0; i < sizeof segs / sizeof segs[0]; i++) {
        const struct seg_case *c = &segs[i];
        sked__tz_seg s;
        char ctx[96];
        snprintf(ctx, sizeof ctx, "%s %s", c->zone, c->utc);
        sked__tz_segment(get(db, c->zone), at(c->utc) / USEC, &s);
        if (c->start)
            assert_time_equal(s.start * USEC, at(c->start), ctx);
        else
            assert_true(s.start == INT64_MIN);
        if (c->end)
            assert_time_equal(s.end * USEC, at(c->end), ctx);
        else
            assert_true(s.end == INT64_MAX);
        assert_int_equal(s.utoff, c->utoff);
        assert_int_equal(s.prev_utoff, c->prev_utoff);
    }
    sked_tzdb_close(db);
}

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int32_t utoff_at(const sked_tz *tz, int64_t t)
{
    sked_tz_info info;

    assert_int_equal(sked_tz_lookup(tz, t * USEC, &info), 0);
    return info.utoff;
}

/* Check segment S around T against lookups: constant inside, changing
 * at both ends, prev_utoff right. */
static void check_segment(const sked_tz *tz, int64_t t, const sked__tz_seg *s)
{
    const int64_t lo = -62135596800 + 86400, hi = 253402300800 - 86400;

    assert_true(s->start <= t && t < s->end);
    assert_int_equal(s->utoff, utoff_at(tz, t));
    if (s->start > lo) {
        assert_int_equal(utoff_at(tz, s->start), s->utoff);
        assert_int_equal(utoff_at(tz, s->start - 1), s->prev_utoff);
        assert_int_not_equal(s->prev_utoff, s->utoff);
    }
    if (s->end < hi) {
        assert_int_equal(utoff_at(tz, s->end - 1), s->utoff);
        assert_int_not_equal(utoff_at(tz, s->end), s->utoff);
    }
}

static const char *const pinned[] = {
    "Europe/Paris",    "America/New_York",  "Australia/Lord_Howe",
    "Pacific/Chatham", "America/Sao_Paulo", "Europe/London",
    "Europe/Dublin",   "America/Nuuk",      "Antarctica/Troll",
    "Asia/Kolkata",    "Africa/Casablanca", "UTC",
};

/* Random instants from 1800 to 2300: segments agree with lookups, and
 * every instant is among the answers for its own wall-clock reading. */
static void test_segment_and_local_properties(void **state)
{
    sked_tzdb *db = open_db();
    uint64_t seed = 0x9e3779b97f4a7c15u;
    const int64_t t0 = -5364662400, span = 15778800000;
    (void) state;

    for (size_t z = 0; z < sizeof pinned / sizeof pinned[0]; z++) {
        const sked_tz *tz = get(db, pinned[z]);
        for (int i = 0; i < 3000; i++) {
            int64_t t = t0 + (int64_t) (rng(&seed) % (uint64_t) span);
            sked__tz_seg s;
            sked_local_result r;
            sked__tz_segment(tz, t, &s);
            check_segment(tz, t, &s);
            assert_int_equal(sked_tz_local_to_utc(tz, (t + s.utoff) * USEC, &r),
                             0);
            assert_int_not_equal(r.kind, SKED_LOCAL_GAP);
            assert_true(r.first == t * USEC || r.second == t * USEC);
        }
    }
    sked_tzdb_close(db);
}

/* ---- POSIX TZ strings --------------------------------------------------- */

struct posix_case {
    const char *tz;
    const char *utc;
    int32_t utoff, is_dst;
    const char *abbr;
};

static const struct posix_case posix_ok[] = {
    {"CET-1CEST,M3.5.0,M10.5.0/3", "2025-03-30T00:59:59", 3600, 0, "CET"},
    {"CET-1CEST,M3.5.0,M10.5.0/3", "2025-03-30T01:00:00", 7200, 1, "CEST"},
    {"CET-1CEST,M3.5.0,M10.5.0/3", "2025-10-26T01:00:00", 3600, 0, "CET"},
    /* RFC 8536 3.3.1: DST all year. */
    {"EST5EDT,0/0,J365/25", "2025-01-01T00:00:00", -14400, 1, "EDT"},
    {"EST5EDT,0/0,J365/25", "2024-12-31T23:59:59", -14400, 1, "EDT"},
    {"EST5EDT,0/0,J365/25", "2028-07-01T00:00:00", -14400, 1, "EDT"},
    /* Southern hemisphere: start after end in the year. */
    {"AEST-10AEDT,M10.1.0,M4.1.0/3", "2025-01-15T00:00:00", 39600, 1, "AEDT"},
    {"AEST-10AEDT,M10.1.0,M4.1.0/3", "2025-04-05T15:59:59", 39600, 1, "AEDT"},
    {"AEST-10AEDT,M10.1.0,M4.1.0/3", "2025-04-05T16:00:00", 36000, 0, "AEST"},
    {"AEST-10AEDT,M10.1.0,M4.1.0/3", "2025-10-04T16:00:00", 39600, 1, "AEDT"},
    /* Negative DST. */
    {"IST-1GMT0,M10.5.0,M3.5.0/1", "2025-01-15T00:00:00", 0, 1, "GMT"},
    {"IST-1GMT0,M10.5.0,M3.5.0/1", "2025-07-15T00:00:00", 3600, 0, "IST"},
    /* Quoted names, negative rule times (America/Nuuk). */
    {"<-02>2<-01>,M3.5.0/-1,M10.5.0/0", "2025-03-30T00:59:59", -7200, 0, "-02"},
    {"<-02>2<-01>,M3.5.0/-1,M10.5.0/0", "2025-03-30T01:00:00", -3600, 1, "-01"},
    {"<+0545>-5:45", "2025-03-30T01:00:00", 20700, 0, "+0545"},
    /* Rule hours past 24 (Asia/Gaza's footer). */
    {"EET-2EEST,M3.4.4/50,M10.4.4/50", "2025-03-29T00:00:00", 10800, 1, "EEST"},
    {"EET-2EEST,M3.4.4/50,M10.4.4/50", "2025-03-28T23:59:59", 7200, 0, "EET"},
    /* Julian days skip February 29; zero-based days count it. */
    {"AAA0BBB,J60/0,J300/0", "2024-03-01T00:00:00", 3600, 1, "BBB"},
    {"AAA0BBB,J60/0,J300/0", "2024-02-29T23:59:59", 0, 0, "AAA"},
    {"AAA0BBB,59/0,300/0", "2024-02-29T00:00:00", 3600, 1, "BBB"},
    {"AAA0BBB,59/0,300/0", "2024-02-28T23:59:59", 0, 0, "AAA"},
    /* No rules: the default M3.2.0,M11.1.0. */
    {"EST5EDT", "2025-03-09T06:59:59", -18000, 0, "EST"},
    {"EST5EDT", "2025-03-09T07:00:00", -14400, 1, "EDT"},
    {"EST5EDT", "2025-11-02T06:00:00", -18000, 0, "EST"},
    {"EST5EDT4:30", "2025-07-01T00:00:00", -16200, 1, "EDT"},
    {"UTC0", "2025-07-01T00:00:00", 0, 0, "UTC"},
};

static void test_posix_ok(void **state)
{
    (void) state;

    for (size_t i = 0; i < sizeof posix_ok / sizeof posix_ok[0]; i++) {
        const struct posix_case *c = &posix_ok[i];
        sked_tz *tz = NULL;
        sked_tz_info info;
        sked_error err;
        if (sked_tz_parse_posix(c->tz, &tz, &err) != 0)
            fail_msg("%s: %s at %d", c->tz, err.msg, err.pos);
        assert_string_equal(sked_tz_name(tz), c->tz);
        assert_int_equal(sked_tz_lookup(tz, at(c->utc), &info), 0);
        if (info.utoff != c->utoff || info.is_dst != c->is_dst ||
            strcmp(info.abbr, c->abbr) != 0)
            fail_msg("%s at %s: got %d %d %s", c->tz, c->utc, info.utoff,
                     info.is_dst, info.abbr);
        sked_tz_free(tz);
    }
}

/* DST all year has one segment; the southern rules segment properly. */
static void test_posix_segments(void **state)
{
    sked_tz *tz = NULL;
    sked__tz_seg s;
    uint64_t seed = 42;
    (void) state;

    assert_int_equal(sked_tz_parse_posix("EST5EDT,0/0,J365/25", &tz, NULL), 0);
    sked__tz_segment(tz, at("2025-01-01T05:00:00") / USEC, &s);
    assert_true(s.start == INT64_MIN && s.end == INT64_MAX);
    assert_int_equal(s.utoff, -14400);
    sked_tz_free(tz);
    assert_int_equal(
        sked_tz_parse_posix("AEST-10AEDT,M10.1.0,M4.1.0/3", &tz, NULL), 0);
    for (int i = 0; i < 2000; i++) {
        int64_t t = (int64_t) (rng(&seed) % 4102444800u);
        sked__tz_segment(tz, t, &s);
        check_segment(tz, t, &s);
    }
    sked_tz_free(tz);
}

struct posix_bad {
    const char *tz;
    int pos;
};

static const struct posix_bad posix_bad[] = {
    {"", 0},
    {"E", 0},
    {"EST", 3},
    {"EST+", 4},
    {"EST25", 3},
    {"EST5:60", 5},
    {"EST5EDT,M3.2.0", 14},
    {"EST5EDT,M13.1.0,M11.1.0", 9},
    {"EST5EDT,M3.6.0,M11.1.0", 11},
    {"EST5EDT,M3.2.7,M11.1.0", 13},
    {"EST5EDT,M3.2.0/168,M11.1.0", 15},
    {"EST5EDT,M3.2.0,M11.1.0x", 22},
    {"EST5EDT,J0,J365", 9},
    {"EST5EDT,J366,J365", 9},
    {"EST5EDT,366,J365", 8},
    {"EST5EDT,", 8},
    {"EST5EDT;", 7},
    {"<EST5", 5},
    {"<AB>5", 1},
    {"E1T5", 0},
    {"ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJ5", 0},
};

static void test_posix_bad(void **state)
{
    (void) state;

    for (size_t i = 0; i < sizeof posix_bad / sizeof posix_bad[0]; i++) {
        sked_tz *tz = NULL;
        sked_error err;
        int rc = sked_tz_parse_posix(posix_bad[i].tz, &tz, &err);
        if (rc != SKED_EINVAL || err.pos != posix_bad[i].pos)
            fail_msg("\"%s\": rc %d pos %d (%s), want pos %d", posix_bad[i].tz,
                     rc, err.pos, err.msg, posix_bad[i].pos);
        assert_null(tz);
    }
}

static void test_posix_too_long(void **state)
{
    char s[SKED_POSIXTZ_MAX + 8];
    sked_tz *tz = NULL;
    (void) state;

    memset(s, 'A', sizeof s - 1);
    s[sizeof s - 1] = '\0';
    assert_int_equal(sked_tz_parse_posix(s, &tz, NULL), SKED_EINVAL);
    assert_null(tz);
}

/* ---- TZif images -------------------------------------------------------- */

/* A small image built by the tests. */
struct image {
    uint8_t b[4096];
    size_t len;
};

static void put(struct image *im, const void *p, size_t n)
{
    memcpy(im->b + im->len, p, n);
    im->len += n;
}

static void put32(struct image *im, uint32_t v)
{
    uint8_t b[4] = {(uint8_t) (v >> 24), (uint8_t) (v >> 16),
                    (uint8_t) (v >> 8), (uint8_t) v};
    put(im, b, 4);
}

static void put64(struct image *im, int64_t v)
{
    put32(im, (uint32_t) ((uint64_t) v >> 32));
    put32(im, (uint32_t) v);
}

struct spec {
    char version; /* 0 or '2'..'4' */
    uint32_t ntrans;
    int64_t times[4];
    uint8_t idx[4];
    uint32_t ntypes;
    int32_t utoff[3];
    uint8_t isdst[3], abbr[3];
    const char *chars; /* "CET\0CEST\0" */
    uint32_t nchars;
    const char *footer; /* v2+ */
};

static void put_header(struct image *im, const struct spec *s)
{
    uint8_t pad[15] = {0};

    put(im, "TZif", 4);
    put(im, &s->version, 1);
    put(im, pad, sizeof pad);
    put32(im, 0);
    put32(im, 0);
    put32(im, 0);
    put32(im, s->ntrans);
    put32(im, s->ntypes);
    put32(im, s->nchars);
}

static void put_block(struct image *im, const struct spec *s, int wide)
{
    for (uint32_t i = 0; i < s->ntrans; i++)
        if (wide)
            put64(im, s->times[i]);
        else
            put32(im, (uint32_t) s->times[i]);
    put(im, s->idx, s->ntrans);
    for (uint32_t i = 0; i < s->ntypes; i++) {
        put32(im, (uint32_t) s->utoff[i]);
        put(im, &s->isdst[i], 1);
        put(im, &s->abbr[i], 1);
    }
    put(im, s->chars, s->nchars);
}

static void build(struct image *im, const struct spec *s)
{
    im->len = 0;
    put_header(im, s);
    put_block(im, s, 0);
    if (s->version == 0)
        return;
    put_header(im, s);
    put_block(im, s, 1);
    put(im, "\n", 1);
    put(im, s->footer, strlen(s->footer));
    put(im, "\n", 1);
}

/* Paris-like: CET, then CEST from 2025-03-30T01:00Z. */
static const struct spec good = {
    .version = '2',
    .ntrans = 2,
    .times = {1743296400, 1761440400},
    .idx = {1, 0},
    .ntypes = 2,
    .utoff = {3600, 7200},
    .isdst = {0, 1},
    .abbr = {0, 4},
    .chars = "CET\0CEST",
    .nchars = 9,
    .footer = "CET-1CEST,M3.5.0,M10.5.0/3",
};

static int parse_image(const struct image *im, sked_error *err)
{
    sked_tz *tz = NULL;
    int rc = sked_tz_parse_tzif("Test/Zone", im->b, im->len, &tz, err);

    if (rc == 0) {
        sked_tz_info info;
        assert_non_null(tz);
        assert_int_equal(sked_tz_lookup(tz, 0, &info), 0);
        sked_tz_free(tz);
    } else {
        assert_null(tz);
    }
    return rc;
}

static void test_tzif_built(void **state)
{
    struct image im;
    struct spec s = good;
    sked_tz *tz = NULL;
    sked_tz_info info;
    (void) state;

    build(&im, &s);
    assert_int_equal(sked_tz_parse_tzif("Test/Zone", im.b, im.len, &tz, NULL),
                     0);
    assert_string_equal(sked_tz_name(tz), "Test/Zone");
    assert_int_equal(sked_tz_lookup(tz, at("2025-06-01T00:00:00"), &info), 0);
    assert_string_equal(info.abbr, "CEST");
    assert_int_equal(sked_tz_lookup(tz, at("2040-06-01T00:00:00"), &info), 0);
    assert_string_equal(info.abbr, "CEST"); /* from the footer */
    sked_tz_free(tz);

    s.version = 0; /* v1: no footer, the last type for ever */
    build(&im, &s);
    assert_int_equal(sked_tz_parse_tzif("Test/Zone", im.b, im.len, &tz, NULL),
                     0);
    assert_int_equal(sked_tz_lookup(tz, at("2040-06-01T00:00:00"), &info), 0);
    assert_string_equal(info.abbr, "CET");
    sked_tz_free(tz);

    /* Before the first transition: the first standard-time type (glibc). */
    s = good;
    s.ntypes = 3;
    s.utoff[0] = 7200, s.isdst[0] = 1, s.abbr[0] = 4;
    s.utoff[2] = 3600, s.isdst[2] = 0, s.abbr[2] = 0;
    build(&im, &s);
    assert_int_equal(sked_tz_parse_tzif("Test/Zone", im.b, im.len, &tz, NULL),
                     0);
    assert_int_equal(sked_tz_lookup(tz, at("2000-01-01T00:00:00"), &info), 0);
    assert_int_equal(info.utoff, 3600);
    sked_tz_free(tz);
}

struct bad_image {
    const char *what;
    void (*edit)(struct spec *s);
    int rc;
};

static void bad_index(struct spec *s)
{
    s->idx[1] = 2;
}
static void bad_order(struct spec *s)
{
    s->times[1] = s->times[0];
}
static void bad_abbr(struct spec *s)
{
    s->abbr[1] = 9;
}
static void bad_nul(struct spec *s)
{
    s->nchars = 8; /* "CEST" loses its NUL */
}
static void bad_utoff(struct spec *s)
{
    s->utoff[1] = 26 * 3600;
}
static void bad_isdst(struct spec *s)
{
    s->isdst[1] = 2;
}
static void bad_types(struct spec *s)
{
    s->ntypes = 0;
    s->ntrans = 0;
}
static void bad_footer(struct spec *s)
{
    s->footer = "CET-1CEST,M3.5.0";
}
static void bad_version(struct spec *s)
{
    s->version = '1';
}
static void far_time(struct spec *s)
{
    s->times[0] = INT64_MIN + 1;
}

static const struct bad_image bad_images[] = {
    {"type index", bad_index, SKED_EINVAL},
    {"order", bad_order, SKED_EINVAL},
    {"abbreviation index", bad_abbr, SKED_EINVAL},
    {"abbreviation NUL", bad_nul, SKED_EINVAL},
    {"offset", bad_utoff, SKED_EINVAL},
    {"isdst", bad_isdst, SKED_EINVAL},
    {"no types", bad_types, SKED_EINVAL},
    {"footer", bad_footer, SKED_EINVAL},
    {"version", bad_version, SKED_EINVAL},
    {"far transition", far_time, SKED_EINVAL},
};

static void test_tzif_bad(void **state)
{
    (void) state;

    for (size_t i = 0; i < sizeof bad_images / sizeof bad_images[0]; i++) {
        struct spec s = good;
        struct image im;
        sked_error err;
        bad_images[i].edit(&s);
        build(&im, &s);
        if (parse_image(&im, &err) != bad_images[i].rc)
            fail_msg("%s: accepted", bad_images[i].what);
        assert_true(err.pos >= 0);
    }
}

/* Overwrite the 32-bit count K (0 isut .. 5 chars) of the header at AT. */
static void set_count(struct image *im, size_t at_, int k, uint32_t v)
{
    uint8_t *p = im->b + at_ + 20 + 4 * k;

    p[0] = (uint8_t) (v >> 24), p[1] = (uint8_t) (v >> 16);
    p[2] = (uint8_t) (v >> 8), p[3] = (uint8_t) v;
}

static void test_tzif_counts(void **state)
{
    struct image im;
    size_t second;
    sked_error err;
    (void) state;

    build(&im, &good);
    second = 44 + 2 * 5 + 2 * 6 + 9;
    assert_memory_equal(im.b + second, "TZif", 4);
    set_count(&im, second, 3, 0xffffffffu); /* huge timecnt */
    assert_int_equal(parse_image(&im, &err), SKED_ETOOBIG);
    build(&im, &good);
    set_count(&im, 0, 3, 0xffffffffu); /* huge v1 timecnt: truncated */
    assert_int_equal(parse_image(&im, &err), SKED_EINVAL);
    build(&im, &good);
    set_count(&im, second, 0, 1); /* isutcnt neither 0 nor typecnt */
    assert_int_equal(parse_image(&im, &err), SKED_EINVAL);
    build(&im, &good);
    set_count(&im, second, 5, SKED_TZIF_MAX_CHARS + 1);
    assert_int_equal(parse_image(&im, &err), SKED_ETOOBIG);
    build(&im, &good);
    set_count(&im, second, 2, 3); /* leap records the file lacks */
    assert_int_equal(parse_image(&im, &err), SKED_EINVAL);
    build(&im, &good);
    im.b[0] = 'X';
    assert_int_equal(parse_image(&im, &err), SKED_EINVAL);
    assert_int_equal(err.pos, 0);
    build(&im, &good);
    im.b[second + 4] = '3'; /* versions differ */
    assert_int_equal(parse_image(&im, &err), SKED_EINVAL);
}

/* Every proper prefix of a real file is rejected, without a crash; a
 * byte flipped anywhere never crashes either. */
static void test_tzif_truncated(void **state)
{
    char *data = NULL;
    size_t len = 0;
    sked_tz *tz;
    (void) state;

    assert_int_equal(read_file(ZONEINFO "/Europe/Paris", &data, &len), 0);
    for (size_t n = 0; n < len; n++) {
        char *copy = malloc(n ? n : 1);
        memcpy(copy, data, n);
        tz = NULL;
        if (sked_tz_parse_tzif("Europe/Paris", copy, n, &tz, NULL) == 0)
            fail_msg("prefix of %zu bytes accepted", n);
        free(copy);
    }
    for (size_t n = 0; n < len; n++) {
        data[n] ^= 0x5a;
        tz = NULL;
        if (sked_tz_parse_tzif("Europe/Paris", data, len, &tz, NULL) == 0) {
            sked_local_result r;
            assert_int_equal(sked_tz_local_to_utc(tz, 0, &r), 0);
            sked_tz_free(tz);
        }
        data[n] ^= 0x5a;
    }
    assert_int_equal(sked_tz_parse_tzif("Europe/Paris", data, len, &tz, NULL),
                     0);
    sked_tz_free(tz);
    free(data);
}

/* A leap-second record is skipped, not applied. */
static void test_tzif_leap_seconds(void **state)
{
    struct image im;
    sked_tz *tz = NULL;
    sked_tz_info info;
    struct spec s = good;
    (void) state;

    s.version = 0;
    build(&im, &s);
    set_count(&im, 0, 2, 1);
    put32(&im, 78796800); /* 1972-07-01 */
    put32(&im, 1);
    assert_int_equal(sked_tz_parse_tzif("Test/Zone", im.b, im.len, &tz, NULL),
                     0);
    assert_int_equal(sked_tz_lookup(tz, at("2025-03-30T01:00:00"), &info), 0);
    assert_int_equal(info.utoff, 7200);
    sked_tz_free(tz);
}

/* ---- the zone cache ----------------------------------------------------- */

struct name_case {
    const char *name;
    int rc;
};

static const struct name_case names[] = {
    {"../etc/passwd", SKED_EINVAL},
    {"/etc/localtime", SKED_EINVAL},
    {"Europe/../etc/passwd", SKED_EINVAL},
    {"Europe/./Paris", SKED_EINVAL},
    {"", SKED_EINVAL},
    {"Europe//Paris", SKED_EINVAL},
    {"Europe/", SKED_EINVAL},
    {"Europe/Paris ", SKED_EINVAL},
    {"Europe\\Paris", SKED_EINVAL},
    {"Foo/Bar", SKED_ENOTFOUND},
    {"Europe", SKED_ENOTFOUND},
    {"Europe/Paris/x", SKED_ENOTFOUND},
    {"Europe/Paris", 0},
    {"US/Eastern", 0},
};

static void test_names(void **state)
{
    sked_tzdb *db = open_db();
    char long_name[SKED_TZ_NAME_MAX + 2];
    const sked_tz *tz;
    sked_error err;
    (void) state;

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        int rc = sked_tzdb_get(db, names[i].name, &tz, &err);
        if (rc != names[i].rc)
            fail_msg("\"%s\": rc %d, want %d", names[i].name, rc, names[i].rc);
        if (rc != 0)
            assert_string_equal(err.field, "timezone");
    }
    memset(long_name, 'A', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    assert_int_equal(sked_tzdb_get(db, long_name, &tz, &err), SKED_EINVAL);
    long_name[SKED_TZ_NAME_MAX] = '\0';
    assert_int_equal(sked__tzdb_check_name(long_name, NULL), 0);
    assert_string_equal(sked_tzdb_dir(db), ZONEINFO);
    sked_tzdb_close(db);
}

static void test_utc_fallback(void **state)
{
    sked_tzdb *db = NULL;
    const sked_tz *tz = NULL;
    (void) state;

    /* A directory without a UTC file still knows UTC. */
    assert_int_equal(sked_tzdb_open(ZONEINFO "/Europe", &db, NULL), 0);
    assert_int_equal(sked_tzdb_get(db, "UTC", &tz, NULL), 0);
    assert_ptr_equal(tz, sked_tz_utc());
    assert_int_equal(sked_tzdb_get(db, "Paris", &tz, NULL), 0);
    sked_tzdb_close(db);
    db = open_db();
    assert_int_equal(sked_tzdb_get(db, "UTC", &tz, NULL), 0);
    assert_string_equal(sked_tz_name(tz), "UTC");
    sked_tzdb_close(db);
    sked_tzdb_close(NULL);
    sked_tz_free(NULL);
}

/* A file that is not TZif is an invalid zone, not an unknown one. */
static void test_not_tzif(void **state)
{
    sked_tzdb *db = NULL;
    const sked_tz *tz = NULL;
    sked_error err;
    (void) state;

    assert_int_equal(sked_tzdb_open(SKED_TEST_DATA "/badzones", &db, NULL), 0);
    assert_int_equal(sked_tzdb_get(db, "not_tzif", &tz, &err), SKED_EINVAL);
    assert_string_equal(err.field, "timezone");
    assert_int_equal(err.pos, 0);
    assert_int_equal(sked_tzdb_get(db, "truncated", &tz, &err), SKED_EINVAL);
    assert_null(tz);
    sked_tzdb_close(db);
}

struct thread_arg {
    sked_tzdb *db;
    const sked_tz *got[sizeof pinned / sizeof pinned[0]];
};

static void *getter(void *p)
{
    struct thread_arg *a = p;

    for (int round = 0; round < 50; round++)
        for (size_t z = 0; z < sizeof pinned / sizeof pinned[0]; z++) {
            const sked_tz *tz = NULL;
            if (sked_tzdb_get(a->db, pinned[z], &tz, NULL) != 0)
                return NULL;
            if (round > 0 && tz != a->got[z])
                return NULL;
            a->got[z] = tz;
        }
    return a;
}

static void test_threads(void **state)
{
    enum { N = 8 };
    sked_tzdb *db = open_db();
    struct thread_arg args[N];
    pthread_t th[N];
    (void) state;

    for (int i = 0; i < N; i++) {
        memset(&args[i], 0, sizeof args[i]);
        args[i].db = db;
        assert_int_equal(pthread_create(&th[i], NULL, getter, &args[i]), 0);
    }
    for (int i = 0; i < N; i++) {
        void *ret;
        assert_int_equal(pthread_join(th[i], &ret), 0);
        assert_ptr_equal(ret, &args[i]);
    }
    for (int i = 1; i < N; i++)
        for (size_t z = 0; z < sizeof pinned / sizeof pinned[0]; z++)
            assert_ptr_equal(args[i].got[z], args[0].got[z]);
    sked_tzdb_close(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lookup_table),
        cmocka_unit_test(test_lookup_range),
        cmocka_unit_test(test_local_to_utc_table),
        cmocka_unit_test(test_local_to_utc_range),
        cmocka_unit_test(test_segment_table),
        cmocka_unit_test(test_segment_and_local_properties),
        cmocka_unit_test(test_posix_ok),
        cmocka_unit_test(test_posix_segments),
        cmocka_unit_test(test_posix_bad),
        cmocka_unit_test(test_posix_too_long),
        cmocka_unit_test(test_tzif_built),
        cmocka_unit_test(test_tzif_bad),
        cmocka_unit_test(test_tzif_counts),
        cmocka_unit_test(test_tzif_truncated),
        cmocka_unit_test(test_tzif_leap_seconds),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_utc_fallback),
        cmocka_unit_test(test_not_tzif),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
