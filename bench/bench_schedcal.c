/* SPDX-License-Identifier: MIT */
/* Schedules over a holiday calendar: the next firing of a cron schedule
 * in Europe/Paris that excludes a calendar of the twenty holiday rules
 * of bench/holidays.h, through the scheduler's own search
 * (sked__occ_slot_next), chained from 2026-01-01 to 2029-01-01 (each
 * next from the previous slot), for "0 9 * * *", "0 9 * * 1-5" and
 * "0 9 * * 1" under each on_excluded (skip, next_business_day,
 * previous_business_day); nanoseconds per firing, excluded slots stepped
 * over included, each moved firing checked to land on a business day. The
 * peer, python3-dateutil's rruleset of the same schedules
 * (bench/peers/schedcal_dateutil_bench.py), prints a digest of the same
 * three years of firings in skip mode, which must equal this one's.
 *
 * Then what the words cost a listing: microseconds per schedule to
 * serialise 1,000 schedules to the API's JSON text (an RRULE schedule's
 * rrule_words is computed for each), for cron schedules and for RRULE
 * ones with one rule and with 1,000 different rules, and the words alone
 * (a case slower than two seconds a pass is timed on the part of its
 * first pass done in two seconds).
 *
 * With --list, print the firings of skip mode instead, one per line
 * (EXPR, then the instant in RFC 3339 UTC), for a diff with the peer's.
 *
 * Benchmarks measure the process clock directly (CLOCK_MONOTONIC); the
 * library itself reads time only through sked_clock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cron/daycal.h"
#include "cron/rrule.h"
#include "holidays.h"
#include "model/schedule_json.h"
#include "model/schedule_occ.h"
#include "sked/sked.h"

#define SEC       SKED_USEC_PER_SEC
#define START     (INT64_C(1767225600) * SEC) /* 2026-01-01T00:00:00Z */
#define END       (INT64_C(1861920000) * SEC) /* 2029-01-01T00:00:00Z */
#define REPEATS   5
#define CHAINS    40 /* chains per timing */
#define SCHEDULES 1000

static double now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;

    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return v[n / 2];
}

static void die(const char *what, const sked_error *err)
{
    if (err)
        fprintf(stderr, "bench_schedcal: %s: %s%s%s\n", what, err->field,
                err->field[0] ? ": " : "", err->msg);
    else
        fprintf(stderr, "bench_schedcal: %s: failed\n", what);
    exit(1);
}

/* The schedule EXPR in Europe/Paris, created at the chain's start. */
static void cron_schedule(sked_schedule *s, const char *expr)
{
    sked_schedule_init(s);
    s->name = strdup("daily");
    s->workflow = strdup("report");
    s->kind = SKED_SPEC_CRON;
    s->cron = strdup(expr);
    s->timezone = strdup("Europe/Paris");
    s->created_at = START;
    if (!s->name || !s->workflow || !s->cron || !s->timezone)
        die("schedule", NULL);
}

/* What one chain saw: its firings (moved ones among them), the slots
 * dropped as excluded, the last firing, and a digest of the firings'
 * seconds (FNV-1a over each value, as the peer computes it). */
typedef struct chain_out {
    long fires, moved, dropped;
    sked_time last;
    uint64_t digest;
} chain_out;

/* Walk O's slots from START to END, each next from the previous slot.
 * CAL checks each moved firing lands on one of its business days, in the
 * zone TZ; LIST prints the firings under EXPR. */
static void chain(const sked__occ_spec *o, const sked__daycal *cal,
                  const sked_tz *tz, const char *expr, bool list,
                  chain_out *out)
{
    sked__occ_slot slot;
    sked_time t = START;

    memset(out, 0, sizeof *out);
    out->digest = UINT64_C(1469598103934665603);
    while (sked__occ_slot_next(o, t, &slot) == 0 && slot.at < END) {
        t = slot.at;
        if (slot.kind == SKED__SLOT_EXCLUDED) {
            out->dropped++;
            continue;
        }
        out->fires++;
        out->last = slot.at;
        out->digest = (out->digest ^ (uint64_t) (slot.at / SEC)) *
                      UINT64_C(1099511628211);
        if (list) {
            char when[SKED_TIME_STRLEN];

            (void) sked_time_format(slot.at, when, sizeof when);
            printf("%s\t%s\n", expr, when);
        }
        if (cal && slot.kind == SKED__SLOT_MOVED) {
            sked_tz_info info;

            out->moved++;
            if (sked_tz_lookup(tz, slot.at, &info) != 0 ||
                !sked__daycal_business(cal,
                                       (slot.at / SEC + info.utoff) / 86400)) {
                fprintf(stderr, "bench_schedcal: %s moved off a business day\n",
                        expr);
                exit(1);
            }
        }
    }
}

/* Daily, on weekdays, and on Mondays: the first two fire anyway on the
 * business day a holiday's occurrence would move to (the move is
 * dropped, as SPEC 12 says), the third moves its Monday holidays. */
static const char *const EXPRS[] = {"0 9 * * *", "0 9 * * 1-5", "0 9 * * 1"};
static const sked_on_excluded MODES[] = {
    SKED_ON_EXCLUDED_SKIP, SKED_ON_EXCLUDED_NEXT_BUSINESS_DAY,
    SKED_ON_EXCLUDED_PREVIOUS_BUSINESS_DAY};

static void bench_next(const sked_tz *paris, const sked__daycal *cal, bool list)
{
    for (size_t e = 0; e < sizeof EXPRS / sizeof EXPRS[0]; e++)
        for (size_t m = 0; m < sizeof MODES / sizeof MODES[0]; m++) {
            sked__occ_days days = {cal, NULL, MODES[m]};
            sked_schedule s;
            sked__occ_spec o;
            sked_error err;
            chain_out c;
            double ns[REPEATS];
            char when[SKED_TIME_STRLEN];
            const char *mode = sked_on_excluded_name(MODES[m]);

            cron_schedule(&s, EXPRS[e]);
            if (sked__occ_spec_init(&o, &s, paris, NULL, &days, START, &err) !=
                0)
                die(EXPRS[e], &err);
            if (list) {
                if (MODES[m] == SKED_ON_EXCLUDED_SKIP)
                    chain(&o, NULL, paris, EXPRS[e], true, &c);
                sked__occ_spec_done(&o);
                sked_schedule_done(&s);
                continue;
            }
            chain(&o, cal, paris, EXPRS[e], false, &c); /* warm, checked */
            for (int r = 0; r < REPEATS; r++) {
                chain_out k;
                double t0 = now_ns();

                for (int i = 0; i < CHAINS; i++)
                    chain(&o, NULL, paris, EXPRS[e], false, &k);
                ns[r] = (now_ns() - t0) / ((double) CHAINS * (double) k.fires);
            }
            (void) sked_time_format(c.last, when, sizeof when);
            printf("%-12s %-22s %6.1f ns per next  (%ld firings, %ld moved, "
                   "%ld dropped, last %s)\n",
                   EXPRS[e], mode, median(ns, REPEATS), c.fires, c.moved,
                   c.dropped, when);
            printf("bench\tschedcal\tsked\t%s\t%s\t%.1f\t%ld\t%016llx\t%s\n",
                   EXPRS[e], mode, median(ns, REPEATS), c.fires,
                   (unsigned long long) c.digest, when);
            sked__occ_spec_done(&o);
            sked_schedule_done(&s);
        }
}

/* ---- the words in a listing --------------------------------------------- */

/* SCHEDULES schedules in Europe/Paris: cron ones, or RRULE ones, with
 * DISTINCT different times of day or all the same. */
static sked_schedule *schedules(sked_spec_kind kind, bool distinct)
{
    sked_schedule *v = calloc(SCHEDULES, sizeof *v);
    char buf[128];

    if (!v)
        die("schedules", NULL);
    for (int i = 0; i < SCHEDULES; i++) {
        int h = distinct ? i % 24 : 9, mi = distinct ? i / 24 % 60 : 0;

        if (kind == SKED_SPEC_CRON) {
            snprintf(buf, sizeof buf, "%d %d * * 1,3,5", mi, h);
            cron_schedule(&v[i], buf);
        } else {
            cron_schedule(&v[i], "0 9 * * *");
            free(v[i].cron);
            v[i].cron = NULL;
            v[i].kind = SKED_SPEC_RRULE;
            snprintf(buf, sizeof buf,
                     "FREQ=WEEKLY;BYDAY=MO,WE,FR;BYHOUR=%d;BYMINUTE=%d", h, mi);
            if (!(v[i].rrule = strdup(buf)))
                die("schedules", NULL);
        }
        snprintf(buf, sizeof buf, "s%04d", i);
        free(v[i].name);
        if (!(v[i].name = strdup(buf)))
            die("schedules", NULL);
    }
    return v;
}

/* Serialise the first of the N schedules of V (WORDS: their rrule_words
 * only) until BUDGET nanoseconds have passed; return how many. */
static int serialise(const sked_schedule *v, int n, bool words, double budget)
{
    double t0 = now_ns();
    int i;

    for (i = 0; i < n && (i % 10 != 0 || now_ns() - t0 < budget); i++) {
        char *text = NULL, w[SKED__RRULE_WORDS_MAX];
        sked_error err;

        if (words) {
            if (sked__occ_rrule_words(&v[i], START, w, sizeof w) < 0)
                die("rrule_words", NULL);
            continue;
        }
        if (sked__schedule_to_json_text(&v[i], &text, &err) != 0)
            die("to_json", &err);
        if (!strstr(text, v[i].kind == SKED_SPEC_RRULE ? "\"rrule_words\":\""
                                                       : "\"cron_words\":\""))
            die("to_json: no words", NULL);
        free(text);
    }
    return i;
}

/* Microseconds per schedule to serialise V (WORDS: its rrule_words
 * only): the median of REPEATS passes over the SCHEDULES after one to
 * warm; when that one is slow (over two seconds: every schedule costs
 * the same each time), the part of it done in two seconds. *done: how
 * many schedules the figure is of. */
static double json_us(const sked_schedule *v, bool words, int *done)
{
    double us[REPEATS], t0 = now_ns();

    *done = serialise(v, SCHEDULES, words, 2e9);
    if (*done < SCHEDULES)
        return (now_ns() - t0) / 1e3 / *done;
    for (int r = 0; r < REPEATS; r++) {
        t0 = now_ns();
        (void) serialise(v, SCHEDULES, words, 1e12);
        us[r] = (now_ns() - t0) / 1e3 / SCHEDULES;
    }
    return median(us, REPEATS);
}

static void bench_json(void)
{
    static const struct {
        const char *name;
        sked_spec_kind kind;
        bool distinct, words;
    } cases[] = {{"cron", SKED_SPEC_CRON, true, false},
                 {"rrule_one_rule", SKED_SPEC_RRULE, false, false},
                 {"rrule_distinct", SKED_SPEC_RRULE, true, false},
                 {"rrule_words_only", SKED_SPEC_RRULE, true, true}};

    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        sked_schedule *v = schedules(cases[c].kind, cases[c].distinct);
        int done;
        double us = json_us(v, cases[c].words, &done);

        printf("%s 1,000 schedules, %-17s %10.2f us per schedule (%d "
               "measured)\n",
               cases[c].words ? "words of" : "JSON of ", cases[c].name, us,
               done);
        printf("bench\tschedjson\t%s\t%d\t%.3f\n", cases[c].name, done, us);
        for (int i = 0; i < SCHEDULES; i++)
            sked_schedule_done(&v[i]);
        free(v);
    }
}

int main(int argc, char **argv)
{
    bool list = argc > 1 && strcmp(argv[1], "--list") == 0;
    sked__daycal_spec spec = {.name = "holidays",
                              .rules = sked_bench_holidays,
                              .nrules = SKED_BENCH_NHOLIDAYS};
    sked__daycal *cal = NULL;
    sked_tzdb *db = NULL;
    const sked_tz *paris = NULL;
    sked_error err;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (sked__daycal_build(&spec, NULL, NULL, &cal, &err) != 0)
        die("calendar", &err);
    if (sked_tzdb_open(NULL, &db, &err) != 0 ||
        sked_tzdb_get(db, "Europe/Paris", &paris, &err) != 0)
        die("Europe/Paris", &err);
    bench_next(paris, cal, list);
    if (!list)
        bench_json();
    sked_tzdb_close(db);
    sked__daycal_free(cal);
    return 0;
}
