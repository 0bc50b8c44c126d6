/* SPDX-License-Identifier: MIT */
/* The DST matrix (SPEC 2.2, 12) against a brute force: for every zone of
 * zone1970.tab, a few windows around its changes (sampled from 1970 to
 * 2037), a set of cron expressions and all seven policies, the expected
 * occurrences are built from the definitions alone: every wall-clock match
 * of the expression (enumerated from its bitsets, not calendar.c), every
 * UTC instant whose local time it is (found with sked_tz_lookup, not with
 * the zone's segments: 0, 1 or 2 of them), then the policy (a gap shifts
 * to its end or is dropped; a fold keeps its first, second or both
 * passes; one firing per instant). next and prev, chained, and the marks
 * of next_occurrence must give exactly that list. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sked/sked.h"
#include "time/civil.h"

#define SEC       SKED_USEC_PER_SEC
#define MAX_OCC   8192
#define MAX_CHG   64
#define WIN_HALF  (2 * 86400) /* a window: a change +- 2 days */
#define SAMPLE    900         /* offsets sampled every 15 minutes */
#define MAX_WALLS 16

/* The expressions: day fields "*", so the brute force reads the wall
 * times of a day from the bitsets. Fixed-time and not, with seconds. */
static const char *const exprs[] = {
    "30 2 * * *",       "*/15 * * * *", "0 30 1-3 * * *", "0 0 * * *",
    "59 23 * * *",      "0,30 * * * *", "*/20 0-4 * * *", "30 0 * * *",
    "*/30 * 0-2 * * *", "0 1 * * *",    "0 */2 * * *",    "45 1,2 * * *",
};
#define N_EXPRS (sizeof exprs / sizeof exprs[0])

typedef struct change {
    int64_t at;       /* first second of the new offset */
    int32_t from, to; /* offsets before and after */
} change;

typedef struct expect {
    int64_t at;
    sked_occ_mark mark;
} expect;

static uint64_t rng_state = 0x2545f4914f6cdd1du;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int32_t offset_at(const sked_tz *tz, int64_t s)
{
    sked_tz_info info;

    assert_int_equal(sked_tz_lookup(tz, s * SEC, &info), 0);
    return info.utoff;
}

static void fmt(int64_t s, char *buf, size_t size)
{
    int64_t y, sod = sked__floor_mod(s, 86400);
    int mo, d;

    sked__civil_from_days(sked__floor_div(s, 86400), &y, &mo, &d);
    snprintf(buf, size, "%04lld-%02d-%02dT%02d:%02d:%02dZ", (long long) y, mo,
             d, (int) (sod / 3600), (int) (sod / 60 % 60), (int) (sod % 60));
}

/* Fill CH with the offset changes in [lo, hi], by sampling and bisection;
 * return their count. */
static int changes_in(const sked_tz *tz, int64_t lo, int64_t hi, change *ch)
{
    int n = 0;
    int32_t prev = offset_at(tz, lo);

    for (int64_t t = lo + SAMPLE; t <= hi + SAMPLE && n < MAX_CHG;
         t += SAMPLE) {
        int32_t cur = offset_at(tz, t);
        int64_t a = t - SAMPLE, b = t; /* offset(a) = prev, offset(b) = cur */
        if (cur == prev)
            continue;
        while (b - a > 1) {
            int64_t mid = a + (b - a) / 2;
            if (offset_at(tz, mid) == prev)
                a = mid;
            else
                b = mid;
        }
        ch[n++] = (change){b, prev, offset_at(tz, b)};
        prev = ch[n - 1].to;
        t = b; /* changes closer than a sample apart are found one by one */
    }
    return n;
}

/* Store the instants whose local time is WALL (offsets taken from the
 * changes around it), ascending; return their count. */
static int instants_of(const sked_tz *tz, const change *ch, int nch,
                       int32_t off0, int64_t wall, int64_t *out)
{
    int32_t offs[MAX_CHG + 1];
    int n = 0, k = 0;

    offs[k++] = off0;
    for (int i = 0; i < nch; i++)
        offs[k++] = ch[i].to;
    for (int i = 0; i < k; i++) {
        int64_t u = wall - offs[i];
        bool dup = false;
        if (offset_at(tz, u) != offs[i])
            continue;
        for (int j = 0; j < n; j++)
            dup = dup || out[j] == u;
        if (dup)
            continue;
        int j = n++;
        while (j > 0 && out[j - 1] > u) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = u;
    }
    return n;
}

/* Return the end of the gap holding WALL: the change it fell into. */
static int64_t gap_end(const change *ch, int nch, int64_t wall)
{
    for (int i = 0; i < nch; i++)
        if (ch[i].to > ch[i].from && wall >= ch[i].at + ch[i].from &&
            wall < ch[i].at + ch[i].to)
            return ch[i].at;
    fail_msg("no gap holds wall second %lld", (long long) wall);
    return 0;
}

/* Add AT with MARK to the sorted list E of *n, merging equal instants
 * (a shifted firing wins the mark, as it is found first). */
static void add(expect *e, int *n, int64_t at, sked_occ_mark mark)
{
    int i = *n;

    while (i > 0 && e[i - 1].at > at)
        i--;
    if (i > 0 && e[i - 1].at == at) {
        if (mark == SKED_OCC_SHIFTED)
            e[i - 1].mark = mark;
        return;
    }
    assert_true(*n < MAX_OCC);
    memmove(e + i + 1, e + i, (size_t) (*n - i) * sizeof *e);
    e[i] = (expect){at, mark};
    (*n)++;
}

/* The policy's two halves, from its definition in include/sked/cron.h. */
static void halves(sked_dst dst, bool fixed, bool *shift, int *fold)
{
    static const int gap[] = {1, 0, 1, 1, 0, 0, 0};
    static const int fold_of[] = {0, 2, 1, 2, 0, 1, 2}; /* first last both */

    if (dst == SKED_DST_CADENCE && fixed)
        dst = SKED_DST_ONCE;
    *shift = gap[dst];
    *fold = fold_of[dst];
}

/* A wall-clock match and the instants whose local time it is. */
typedef struct cand {
    int64_t first, last; /* the first and last instant (k > 0) */
    int64_t gap_end;     /* k == 0: the end of the gap holding it */
    int k;               /* how many instants: 0, 1, 2 (or more) */
} cand;

/* Fill CA with the wall-clock matches of C over the days around
 * (from, to] and their instants; return their count. */
static int candidates(const sked_cron *c, const sked_tz *tz, const change *ch,
                      int nch, int32_t off0, int64_t from, int64_t to, cand *ca)
{
    int64_t d0 = sked__floor_div(from, 86400) - 2;
    int64_t d1 = sked__floor_div(to, 86400) + 2, u[MAX_CHG + 1];
    int n = 0;

    for (int64_t d = d0; d <= d1; d++)
        for (int h = 0; h < 24; h++)
            for (int m = 0; (c->hour >> h & 1) && m < 60; m++)
                for (int s = 0; (c->min >> m & 1) && s < 60; s++) {
                    int64_t wall = d * 86400 + h * 3600 + m * 60 + s;
                    if (!(c->sec >> s & 1))
                        continue;
                    assert_true(n < MAX_OCC);
                    ca[n].k = instants_of(tz, ch, nch, off0, wall, u);
                    ca[n].first = u[0];
                    ca[n].last = u[ca[n].k > 0 ? ca[n].k - 1 : 0];
                    ca[n].gap_end = ca[n].k ? 0 : gap_end(ch, nch, wall);
                    n++;
                }
    return n;
}

/* Build the expected occurrences in (from, to] of the candidates CA
 * under DST, by the policy's definition. */
static int expected(const cand *ca, int nca, bool fixed, sked_dst dst,
                    int64_t from, int64_t to, expect *e)
{
    bool shift;
    int fold, n = 0, k = 0;

    halves(dst, fixed, &shift, &fold);
    for (int i = 0; i < nca; i++) {
        if (ca[i].k == 0) {
            if (shift)
                add(e, &n, ca[i].gap_end, SKED_OCC_SHIFTED);
        } else if (ca[i].k == 1) {
            add(e, &n, ca[i].first, SKED_OCC_NORMAL);
        } else {
            if (fold != 1)
                add(e, &n, ca[i].first, SKED_OCC_FIRST_PASS);
            if (fold != 0)
                add(e, &n, ca[i].last, SKED_OCC_SECOND_PASS);
        }
    }
    for (int i = 0; i < n; i++)
        if (e[i].at > from && e[i].at <= to)
            e[k++] = e[i];
    return k;
}

static void report(const char *what, const char *expr, const char *zname,
                   sked_dst dst, int64_t got, int64_t want)
{
    char g[48], w[48];

    fmt(got, g, sizeof g);
    fmt(want, w, sizeof w);
    fail_msg("%s: %s in %s (%s): got %s, want %s", what, expr, zname,
             sked_dst_name(dst), g, w);
}

/* Ask next and prev from a random second between each two consecutive
 * occurrences of E (inside a fold's passes, a gap, ...), as a scheduler
 * waking at any time or catch-up from "now" does; return the count. */
static int compare_between(const sked_cron *c, const char *expr,
                           const char *zname, const sked_tz *tz, sked_dst dst,
                           const expect *e, int n)
{
    sked_time got;

    for (int i = 1; i < n; i++) {
        int64_t gap = e[i].at - e[i - 1].at;
        sked_time t = (e[i - 1].at + (int64_t) (rng() % (uint64_t) gap)) * SEC +
                      (int64_t) (rng() % SEC);
        if (sked_cron_next(c, tz, dst, t, &got) != 0 || got != e[i].at * SEC)
            report("next between", expr, zname, dst, got / SEC, e[i].at);
        if (sked_cron_prev(c, tz, dst, t + 1, &got) != 0 ||
            got != e[i - 1].at * SEC)
            report("prev between", expr, zname, dst, got / SEC, e[i - 1].at);
    }
    return n > 0 ? 2 * (n - 1) : 0;
}

/* Check next (with marks) and prev, chained, against E; return the
 * number of answers compared. */
static int compare(const sked_cron *c, const char *expr, const char *zname,
                   const sked_tz *tz, sked_dst dst, int64_t from, int64_t to,
                   const expect *e, int n)
{
    sked_occurrence occ;
    sked_time t = from * SEC, p;
    int checked = 0;

    for (int i = 0; i < n; i++, checked++) {
        if (sked_cron_next_occurrence(c, tz, dst, t, &occ) != 0)
            report("next failed", expr, zname, dst, 0, e[i].at);
        if (occ.at != e[i].at * SEC)
            report("next", expr, zname, dst, occ.at / SEC, e[i].at);
        if (occ.mark != e[i].mark)
            fail_msg("mark: %s in %s (%s) at %lld: got %d, want %d", expr,
                     zname, sked_dst_name(dst), (long long) e[i].at,
                     (int) occ.mark, (int) e[i].mark);
        t = occ.at;
    }
    if (sked_cron_next(c, tz, dst, t, &p) == 0 && p <= to * SEC)
        report("extra next", expr, zname, dst, p / SEC, to);
    t = (to + 1) * SEC;
    for (int i = n - 1; i >= 0; i--, checked++) {
        if (sked_cron_prev(c, tz, dst, t, &p) != 0 || p != e[i].at * SEC)
            report("prev", expr, zname, dst, p / SEC, e[i].at);
        t = p;
    }
    if (sked_cron_prev(c, tz, dst, t, &p) == 0 && p > from * SEC)
        report("extra prev", expr, zname, dst, p / SEC, from);
    return checked + compare_between(c, expr, zname, tz, dst, e, n);
}

typedef struct tally {
    int zones, windows, cases, occurrences, compared;
    int gaps, folds;
} tally;

/* Check every expression and policy over [at - WIN_HALF, at + WIN_HALF]. */
static void check_window(const char *zname, const sked_tz *tz, int64_t at,
                         bool all, tally *t)
{
    int64_t from = at - WIN_HALF, to = at + WIN_HALF;
    change ch[MAX_CHG];
    int nch = changes_in(tz, from - 3 * 86400, to + 3 * 86400, ch);
    int32_t off0 = offset_at(tz, from - 3 * 86400);
    static expect e[MAX_OCC];
    static cand ca[MAX_OCC];

    for (int i = 0; i < nch; i++) {
        t->gaps += ch[i].to > ch[i].from;
        t->folds += ch[i].to < ch[i].from;
    }
    for (size_t x = 0; x < N_EXPRS; x++) {
        sked_cron c;
        sked_error err;
        if (!all && rng() % 3 != 0) /* a third of them per window */
            continue;
        assert_int_equal(sked_cron_parse(exprs[x], &c, &err), 0);
        int nca = candidates(&c, tz, ch, nch, off0, from, to, ca);
        for (int d = 0; d < SKED_DST_COUNT; d++) {
            int n = expected(ca, nca, sked_cron_is_fixed_time(&c), (sked_dst) d,
                             from, to, e);
            t->occurrences += n;
            t->compared +=
                compare(&c, exprs[x], zname, tz, (sked_dst) d, from, to, e, n);
            t->cases++;
        }
    }
    t->windows++;
}

/* Return the first change of TZ in [lo, lo + 400 days), or INT64_MIN. */
static int64_t change_after(const sked_tz *tz, int64_t lo)
{
    change ch[1];
    int32_t a = offset_at(tz, lo);

    for (int64_t day = 0; day < 400; day += 7)
        if (offset_at(tz, lo + (day + 7) * 86400) != a ||
            offset_at(tz, lo + day * 86400 + 86400 * 3) != a)
            return changes_in(tz, lo + day * 86400, lo + (day + 8) * 86400,
                              ch) > 0
                       ? ch[0].at
                       : INT64_MIN;
    return INT64_MIN;
}

static void check_zone(sked_tzdb *db, const char *zname, tally *t)
{
    const sked_tz *tz;
    sked_error err;

    if (sked_tzdb_get(db, zname, &tz, &err) != 0)
        return;
    t->zones++;
    for (int w = 0; w < 3; w++) {
        /* 1970 .. 2037, where most zones changed their clocks. */
        int64_t start = (int64_t) (rng() % (67u * 365)) * 86400;
        int64_t at = change_after(tz, start);
        check_window(zname, tz, at == INT64_MIN ? start : at, false, t);
    }
}

static void test_matrix_against_brute_force(void **state)
{
    sked_tzdb *db;
    sked_error err;
    char path[512], line[512];
    tally t = {0};
    FILE *f;

    (void) state;
    assert_int_equal(sked_tzdb_open(NULL, &db, &err), 0);
    snprintf(path, sizeof path, "%s/zone1970.tab", sked_tzdb_dir(db));
    if (!(f = fopen(path, "r"))) {
        sked_tzdb_close(db);
        skip();
    }
    while (fgets(line, sizeof line, f)) {
        char *cols[3], *save = NULL;
        int n = 0;
        if (line[0] == '#')
            continue;
        for (char *tok = strtok_r(line, "\t\n", &save); tok && n < 3;
             tok = strtok_r(NULL, "\t\n", &save))
            cols[n++] = tok;
        if (n == 3)
            check_zone(db, cols[2], &t);
    }
    fclose(f);
    sked_tzdb_close(db);
    print_message("dst matrix: %d zones, %d windows (%d gaps, %d folds), "
                  "%d cases, %d occurrences, %d answers compared\n",
                  t.zones, t.windows, t.gaps, t.folds, t.cases, t.occurrences,
                  t.compared);
    assert_true(t.zones > 300);
    assert_true(t.gaps > 100 && t.folds > 100);
    assert_true(t.compared > 100000);
}

/* Changes the sampled windows may miss, from the pinned zones, every
 * expression: 30-minute changes, 2-hour changes (wider than a search's
 * usual reach), midnight changes, a skipped day, negative DST. */
static void test_matrix_chosen_changes(void **state)
{
    static const struct {
        const char *zone, *day; /* a day of the change, UTC */
    } cases[] = {
        {"Europe/Paris", "2025-03-30"},
        {"Europe/Paris", "2025-10-26"},
        {"America/New_York", "2025-03-09"},
        {"America/New_York", "2025-11-02"},
        {"Australia/Lord_Howe", "2024-04-06"},
        {"Australia/Lord_Howe", "2024-10-05"},
        {"America/Santiago", "2024-04-07"},
        {"America/Santiago", "2024-09-08"},
        {"Asia/Gaza", "2019-03-28"},
        {"Asia/Gaza", "2019-10-25"},
        {"Asia/Gaza", "2023-04-29"},
        {"Asia/Gaza", "2023-10-27"},
        {"Antarctica/Troll", "2024-03-31"},
        {"Antarctica/Troll", "2024-10-27"},
        {"Pacific/Apia", "2011-12-29"},
        {"Africa/Casablanca", "2024-03-10"},
        {"Africa/Casablanca", "2024-04-14"},
        {"Europe/Dublin", "2024-10-27"},
        {"America/Nuuk", "2023-03-25"},
        {"Pacific/Chatham", "2024-04-06"},
    };
    sked_tzdb *db;
    sked_error err;
    tally t = {0};

    (void) state;
    assert_int_equal(sked_tzdb_open(SKED_TEST_DATA "/zoneinfo", &db, &err), 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const sked_tz *tz;
        int y, m, d;
        assert_int_equal(sked_tzdb_get(db, cases[i].zone, &tz, &err), 0);
        assert_int_equal(sscanf(cases[i].day, "%d-%d-%d", &y, &m, &d), 3);
        int before = t.gaps + t.folds;
        check_window(cases[i].zone, tz,
                     sked__days_from_civil(y, m, d) * 86400 + 43200, true, &t);
        if (t.gaps + t.folds == before)
            fail_msg("%s: no change near %s", cases[i].zone, cases[i].day);
    }
    sked_tzdb_close(db);
    print_message("chosen changes: %d windows, %d cases, %d answers compared\n",
                  t.windows, t.cases, t.compared);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matrix_chosen_changes),
        cmocka_unit_test(test_matrix_against_brute_force),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
