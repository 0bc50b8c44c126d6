/* SPDX-License-Identifier: MIT */
/* Time sked_cron_parse and sked_cron_next over a fixed set of expressions
 * and zones, the set bench/peers/ runs through croner and croniter.
 *
 * "chained" asks next from the previous occurrence, the way a scheduler
 * walks a schedule, restarting every CHAIN_LEN calls; "random" asks next from
 * instants spread over 1970-2099. Each figure is the median of REPEATS runs, in
 * nanoseconds per call. Output: a table for people, then one tab-separated line
 * per case for scripts/bench.sh:
 *
 *     bench  sked  EXPR  ZONE  PARSE_NS  CHAINED_NS  RANDOM_NS  DIGEST
 * CADENCE_DIGEST
 *
 * DIGEST is COUNT:SUM of the occurrences, in seconds since the epoch, of
 * DIGEST_LEN chained calls from each of DIGEST_ORIGINS (2025-01-01, and just
 * before the spring and autumn changes of Paris and New York); every peer
 * prints the same digest, so the summary shows whether a peer's timed
 * configuration finds the same occurrences as sked. The peers keep an
 * expression's real-time rhythm through a DST change (a repeated local time
 * fires on both passes), which is sked's dst: cadence; CADENCE_DIGEST is
 * the digest under it, DIGEST under sked's default, dst: once.
 *
 * Benchmarks measure the process clock directly (CLOCK_MONOTONIC); the
 * library itself reads time only through sked_clock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sked/sked.h"

#define REPEATS       7
#define PARSE_CALLS   20000
#define NEXT_CALLS    20000
#define RANDOM_STARTS 4096
/* A chain restarts at 2025-01-01 after this many calls, in every
 * implementation, so that all of them walk the same stretch of time
 * (a chain of 0 0 29 2 * spans 1200 years). */
#define CHAIN_LEN  300
#define DIGEST_LEN 20

static const int64_t DIGEST_ORIGINS[] = {
    INT64_C(1735689600), /* 2025-01-01T00:00:00Z */
    INT64_C(1741503300), /* 2025-03-09T06:55:00Z, New York springs forward */
    INT64_C(1743296100), /* 2025-03-30T00:55:00Z, Paris springs forward */
    INT64_C(1761440100), /* 2025-10-26T00:55:00Z, Paris falls back */
    INT64_C(1762062900), /* 2025-11-02T05:55:00Z, New York falls back */
};

typedef struct bench_case {
    const char *expr;
    const char *zone;
} bench_case;

static const char *const COMMON_EXPRS[] = {
    "* * * * *",  "*/5 * * * *",    "0 9 * * 1-5",
    "0 0 29 2 *", "*/30 * * * * *", "0 0 9 * * *",
};
static const char *const COMMON_ZONES[] = {
    "UTC",
    "Europe/Paris",
    "America/New_York",
};
static const bench_case EXTRA_CASES[] = {
    {"15 10 L * ?", "UTC"},
    {"0 12 * * 5#3", "UTC"},
};

/* Results are folded in here so the compiler cannot drop the calls. */
static volatile sked_time sink;

static double now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;

    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t) n, sizeof *v, compare_doubles);
    return v[n / 2];
}

static double time_parse(const char *expr)
{
    double runs[REPEATS];

    for (int r = 0; r < REPEATS; r++) {
        double start = now_ns();
        sked_cron c;

        for (int i = 0; i < PARSE_CALLS; i++) {
            if (sked_cron_parse(expr, &c, NULL) != 0)
                return -1;
            sink += (sked_time) c.min;
        }
        runs[r] = (now_ns() - start) / PARSE_CALLS;
    }
    return median(runs, REPEATS);
}

/* Return ns per next, each call starting from the previous occurrence. */
static double time_chained(const sked_cron *c, const sked_tz *tz)
{
    const sked_time origin = INT64_C(1735689600) * SKED_USEC_PER_SEC;
    double runs[REPEATS];

    for (int r = 0; r < REPEATS; r++) {
        sked_time t = origin;
        double start = now_ns();

        for (int i = 0; i < NEXT_CALLS; i++) {
            if (i % CHAIN_LEN == 0)
                t = origin;
            if (sked_cron_next(c, tz, SKED_DST_ONCE, t, &t) != 0)
                t = origin;
        }
        runs[r] = (now_ns() - start) / NEXT_CALLS;
        sink += t;
    }
    return median(runs, REPEATS);
}

/* Return ns per next from instants spread over 1970-2099. */
static double time_random(const sked_cron *c, const sked_tz *tz,
                          const sked_time *starts)
{
    double runs[REPEATS];

    for (int r = 0; r < REPEATS; r++) {
        double start = now_ns();

        for (int i = 0; i < NEXT_CALLS; i++) {
            sked_time t;

            if (sked_cron_next(c, tz, SKED_DST_ONCE, starts[i % RANDOM_STARTS],
                               &t) == 0)
                sink += t;
        }
        runs[r] = (now_ns() - start) / NEXT_CALLS;
    }
    return median(runs, REPEATS);
}

/* Fill STARTS with seeded instants in 1970-2099 (a 64-bit LCG). */
static void fill_starts(sked_time *starts)
{
    const uint64_t span = UINT64_C(4102444800); /* 2100-01-01, seconds */
    uint64_t x = UINT64_C(0x5eed);

    for (int i = 0; i < RANDOM_STARTS; i++) {
        x = x * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
        starts[i] = (sked_time) ((x >> 11) % span) * SKED_USEC_PER_SEC;
    }
}

/* Write COUNT:SUM of the digest's occurrences (see the top) into BUF. */
static void digest(const sked_cron *c, const sked_tz *tz, sked_dst dst,
                   char *buf, size_t size)
{
    size_t n_origins = sizeof DIGEST_ORIGINS / sizeof DIGEST_ORIGINS[0];
    int64_t sum = 0;
    int count = 0;

    for (size_t o = 0; o < n_origins; o++) {
        sked_time t = DIGEST_ORIGINS[o] * SKED_USEC_PER_SEC;

        for (int i = 0; i < DIGEST_LEN; i++) {
            if (sked_cron_next(c, tz, dst, t, &t) != 0)
                break;
            sum += t / SKED_USEC_PER_SEC;
            count++;
        }
    }
    snprintf(buf, size, "%d:%lld", count, (long long) sum);
}

static int run_case(sked_tzdb *db, const bench_case *bc,
                    const sked_time *starts)
{
    const sked_tz *tz;
    sked_error err;
    sked_cron c;
    double parse_ns, chained_ns, random_ns;
    char dig[48], cadence[48];

    if (sked_cron_parse(bc->expr, &c, &err) != 0 ||
        sked_tzdb_get(db, bc->zone, &tz, &err) != 0) {
        fprintf(stderr, "bench_cron: %s %s: %s\n", bc->expr, bc->zone, err.msg);
        return -1;
    }
    parse_ns = time_parse(bc->expr);
    chained_ns = time_chained(&c, tz);
    random_ns = time_random(&c, tz, starts);
    digest(&c, tz, SKED_DST_ONCE, dig, sizeof dig);
    digest(&c, tz, SKED_DST_CADENCE, cadence, sizeof cadence);
    printf("%-18s %-18s %10.1f %12.1f %11.1f\n", bc->expr, bc->zone, parse_ns,
           chained_ns, random_ns);
    printf("bench\tsked\t%s\t%s\t%.1f\t%.1f\t%.1f\t%s\t%s\n", bc->expr,
           bc->zone, parse_ns, chained_ns, random_ns, dig, cadence);
    return 0;
}

int main(void)
{
    static sked_time starts[RANDOM_STARTS];
    size_t n_exprs = sizeof COMMON_EXPRS / sizeof COMMON_EXPRS[0];
    size_t n_zones = sizeof COMMON_ZONES / sizeof COMMON_ZONES[0];
    size_t n_extra = sizeof EXTRA_CASES / sizeof EXTRA_CASES[0];
    sked_tzdb *db;
    sked_error err;
    int failed = 0;

    if (sked_tzdb_open(NULL, &db, &err) != 0) {
        fprintf(stderr, "bench_cron: %s\n", err.msg);
        return 1;
    }
    fill_starts(starts);
    printf("%-18s %-18s %10s %12s %11s\n", "expression", "zone", "parse ns",
           "chained ns", "random ns");
    for (size_t e = 0; e < n_exprs; e++) {
        for (size_t z = 0; z < n_zones; z++) {
            bench_case bc = {COMMON_EXPRS[e], COMMON_ZONES[z]};

            failed |= run_case(db, &bc, starts) != 0;
        }
    }
    for (size_t i = 0; i < n_extra; i++)
        failed |= run_case(db, &EXTRA_CASES[i], starts) != 0;
    sked_tzdb_close(db);
    return failed ? 1 : 0;
}
