/* SPDX-License-Identifier: MIT */
/* Firing decisions with skipped occurrences (src/sched/policy.c, sked
 * schedule skip): a skipped occurrence is dropped with reason "skipped"
 * wherever it would fire, on time or late; among the late ones it takes
 * its place in what the catchup policy keeps; an occurrence moved off an
 * excluded day is skipped by its own instant; the cursor moves past what
 * is skipped, and the next one fires. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cron/daycal.h"
#include "model/schedule_occ.h"
#include "sched/policy.h"
#include "sked/sked.h"

#define SEC  SKED_USEC_PER_SEC
#define NONE SKED_TIME_NONE

static sked_time T(const char *s)
{
    sked_time t = 0;

    if (sked_time_parse(s, &t, NULL) != 0)
        fail_msg("bad instant %s", s);
    return t;
}

static void cron_sched(sked_schedule *s, const char *expr, const char *cursor)
{
    sked_schedule_init(s);
    s->name = strdup("r");
    s->workflow = strdup("wf");
    s->kind = SKED_SPEC_CRON;
    s->cron = strdup(expr);
    s->created_at = T("2020-01-01T00:00:00Z");
    s->last_fired_at = cursor ? T(cursor) : NONE;
}

static void tfmt(sked_time t, char *buf, size_t size)
{
    if (t == NONE || sked_time_format(t, buf, size) < 0)
        snprintf(buf, size, "-");
}

/* Decide S at NOW with the skipped occurrences SKIPS (N, ascending)
 * through DAYS (may be NULL) and describe it: "F ID TRIGGER [at T]" per
 * fire, "M REASON N FIRST LAST" per reason, the cursor and the next. */
static void decide(sked_schedule *s, const sked__occ_days *days,
                   const sked_time *skips, size_t n_skips, const char *now,
                   char *buf, size_t size)
{
    sked_policy_in in = {.s = s,
                         .tz = sked_tz_utc(),
                         .now = T(now),
                         .tick = SEC,
                         .days = days,
                         .skips = skips,
                         .nskips = n_skips};
    sked_policy_out o;
    char id[SKED_RUN_ID_MAX], a[48], b[48];
    size_t n = 0;

    assert_int_equal(sked__policy_plan(&in, &o), 0);
    buf[0] = '\0';
    for (size_t i = 0; i < o.nfires; i++) {
        const sked_fire *f = &o.fires[i];
        assert_true(
            sked__run_id_scheduled(s->name, f->occurrence, id, sizeof id) > 0);
        tfmt(f->at, a, sizeof a);
        n += (size_t) snprintf(buf + n, size - n, "F %s %s%s%s\n", id,
                               sked__trigger_name(f->trigger),
                               f->at != f->occurrence ? " at " : "",
                               f->at != f->occurrence ? a : "");
    }
    for (int r = 0; r < SKED_MISS__COUNT; r++) {
        if (o.missed[r].count == 0)
            continue;
        tfmt(o.missed[r].first, a, sizeof a);
        tfmt(o.missed[r].last, b, sizeof b);
        n += (size_t) snprintf(buf + n, size - n, "M %s %lld %s %s\n",
                               sked__miss_reason_name((sked_miss_reason) r),
                               (long long) o.missed[r].count, a, b);
    }
    tfmt(o.cursor, a, sizeof a);
    tfmt(o.next, b, sizeof b);
    snprintf(buf + n, size - n, "cursor %s\nnext %s\n", a, b);
    s->last_fired_at = o.cursor;
    s->next_fire_at = o.next;
    sked__policy_done(&o);
}

static void test_on_time_skipped_then_the_next_fires(void **state)
{
    sked_time skips[] = {T("2026-12-25T09:00:00Z")};
    sked_schedule s;
    char out[1024];

    (void) state;
    cron_sched(&s, "0 9 * * *", "2026-12-24T09:00:00Z");
    decide(&s, NULL, skips, 1, "2026-12-25T09:00:00Z", out, sizeof out);
    assert_string_equal(out, "M skipped 1 2026-12-25T09:00:00Z "
                             "2026-12-25T09:00:00Z\n"
                             "cursor 2026-12-25T09:00:00Z\n"
                             "next 2026-12-26T09:00:00Z\n");
    decide(&s, NULL, skips, 1, "2026-12-26T09:00:00Z", out, sizeof out);
    assert_string_equal(out, "F sched-r-2026-12-26T09:00:00Z cron\n"
                             "cursor 2026-12-26T09:00:00Z\n"
                             "next 2026-12-27T09:00:00Z\n");
    sked_schedule_done(&s);
}

static void test_without_skips_it_fires(void **state)
{
    sked_time other[] = {T("2026-12-25T09:00:01Z")}; /* not an occurrence */
    sked_schedule s;
    char out[1024];

    (void) state;
    cron_sched(&s, "0 9 * * *", "2026-12-24T09:00:00Z");
    decide(&s, NULL, other, 1, "2026-12-25T09:00:00Z", out, sizeof out);
    assert_string_equal(out, "F sched-r-2026-12-25T09:00:00Z cron\n"
                             "cursor 2026-12-25T09:00:00Z\n"
                             "next 2026-12-26T09:00:00Z\n");
    sked_schedule_done(&s);
}

static void test_late_skipped_under_catchup_all(void **state)
{
    sked_time skips[] = {T("2026-12-25T09:00:00Z"), T("2026-12-26T09:00:00Z")};
    sked_schedule s;
    char out[1024];

    (void) state;
    cron_sched(&s, "0 9 * * *", "2026-12-24T09:00:00Z");
    s.catchup = SKED_CATCHUP_ALL;
    s.catchup_window = 7 * 86400 * SEC;
    decide(&s, NULL, skips, 2, "2026-12-27T12:00:00Z", out, sizeof out);
    assert_string_equal(out, "F sched-r-2026-12-27T09:00:00Z catchup\n"
                             "M skipped 2 2026-12-25T09:00:00Z "
                             "2026-12-26T09:00:00Z\n"
                             "cursor 2026-12-27T09:00:00Z\n"
                             "next 2026-12-28T09:00:00Z\n");
    sked_schedule_done(&s);
}

/* Catchup latest fires the latest late occurrence; when that one is
 * skipped, nothing fires: the older ones stay superseded. */
static void test_latest_skipped_fires_no_older(void **state)
{
    sked_time skips[] = {T("2026-12-27T09:00:00Z")};
    sked_schedule s;
    char out[1024];

    (void) state;
    cron_sched(&s, "0 9 * * *", "2026-12-24T09:00:00Z");
    s.catchup_window = 7 * 86400 * SEC;
    decide(&s, NULL, skips, 1, "2026-12-27T12:00:00Z", out, sizeof out);
    assert_string_equal(out, "M superseded 2 2026-12-25T09:00:00Z "
                             "2026-12-26T09:00:00Z\n"
                             "M skipped 1 2026-12-27T09:00:00Z "
                             "2026-12-27T09:00:00Z\n"
                             "cursor 2026-12-27T09:00:00Z\n"
                             "next 2026-12-28T09:00:00Z\n");
    sked_schedule_done(&s);
}

/* An occurrence moved off an excluded day is skipped by its own instant
 * (the run's id), not the day it moved to. */
static void test_moved_occurrence_skipped_by_its_instant(void **state)
{
    static const char *const xmas[] = {"2026-12-25"};
    sked__daycal_spec spec = {.name = "c", .dates = xmas, .ndates = 1};
    sked__daycal *c = NULL;
    sked_time skips[] = {T("2026-12-25T09:00:00Z")};
    sked_schedule s;
    sked_error err;
    char out[1024];

    (void) state;
    assert_int_equal(sked__daycal_build(&spec, NULL, NULL, &c, &err), 0);
    sked__occ_days days = {c, NULL, SKED_ON_EXCLUDED_NEXT_BUSINESS_DAY};
    cron_sched(&s, "0 9 25 * *", "2026-11-25T09:00:00Z");
    decide(&s, &days, skips, 1, "2026-12-28T09:00:00Z", out, sizeof out);
    assert_string_equal(out, "M skipped 1 2026-12-25T09:00:00Z "
                             "2026-12-25T09:00:00Z\n"
                             "cursor 2026-12-28T09:00:00Z\n"
                             "next 2027-01-25T09:00:00Z\n");
    sked_schedule_done(&s);
    sked__daycal_free(c);
}

static void test_reason_name(void **state)
{
    (void) state;
    assert_string_equal(sked__miss_reason_name(SKED_MISS_SKIPPED), "skipped");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_on_time_skipped_then_the_next_fires),
        cmocka_unit_test(test_without_skips_it_fires),
        cmocka_unit_test(test_late_skipped_under_catchup_all),
        cmocka_unit_test(test_latest_skipped_fires_no_older),
        cmocka_unit_test(test_moved_occurrence_skipped_by_its_instant),
        cmocka_unit_test(test_reason_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
