/* SPDX-License-Identifier: MIT */
/* The firing decisions (src/sched/policy.c) on virtual time: each
 * catch-up policy against outages shorter than the grace, inside the
 * window, longer than the window and longer than catchup_max; each
 * overlap policy; pause and resume; bounds, max_runs, interval and
 * one-time schedules; the seed's examples with their exact run ids and
 * missed counts; a year of "0 9 * * *" in Europe/Paris; backlogs of
 * years that must stay cheap; jitter.
 *
 * A decision is written as text, one line per item, so that a case reads
 * as what a user would see:
 *   F sched-r-2026-01-01T11:00:00Z catchup [buffered] [cancel]
 *   M superseded 3 2026-01-01T11:00:00Z 2026-01-01T13:00:00Z
 *   cursor ... / next ... / done / more */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sched/policy.h"
#include "sked/sked.h"

#define SEC  SKED_USEC_PER_SEC
#define MIN  (60 * SEC)
#define HOUR (3600 * SEC)
#define DAY  (86400 * SEC)
#define NONE SKED_TIME_NONE

static sked_tzdb *tzdb;
/* A rule whose DST ends at 00:30 local, back to 23:30 the day before: the
 * repeated half hour straddles midnight. */
#define MIDNIGHT_RULE "XST-1XDT,M3.5.0/0:30,M10.5.0/0:30"
static sked_tz *midnight_zone;

static sked_time T(const char *s)
{
    sked_time t = 0;
    sked_error err;

    if (sked_time_parse(s, &t, &err) != 0)
        fail_msg("bad instant %s", s);
    return t;
}

static const sked_tz *zone(const char *name)
{
    const sked_tz *tz = NULL;

    if (!name || strcmp(name, "UTC") == 0)
        return sked_tz_utc();
    if (strcmp(name, MIDNIGHT_RULE) == 0)
        return midnight_zone;
    if (sked_tzdb_get(tzdb, name, &tz, NULL) != 0)
        fail_msg("zone %s", name);
    return tz;
}

/* A cron schedule NAME with EXPR in ZONE, decided up to CURSOR. */
static void cron_sched(sked_schedule *s, const char *name, const char *expr,
                       const char *tz, const char *cursor)
{
    sked_schedule_init(s);
    s->name = strdup(name);
    s->workflow = strdup("wf");
    s->kind = SKED_SPEC_CRON;
    s->cron = strdup(expr);
    s->timezone = tz ? strdup(tz) : NULL;
    s->created_at = T("2020-01-01T00:00:00Z");
    s->last_fired_at = cursor ? T(cursor) : NONE;
}

static void tfmt(sked_time t, char *buf, size_t size)
{
    if (t == NONE || sked_time_format(t, buf, size) < 0)
        snprintf(buf, size, "-");
}

/* Append the decision OUT of S as text to BUF. */
static void describe(const sked_schedule *s, const sked_policy_out *o,
                     char *buf, size_t size)
{
    char id[SKED_RUN_ID_MAX], a[48], b[48];
    size_t n = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < o->nfires; i++) {
        const sked_fire *f = &o->fires[i];

        if (sked__run_id_scheduled(s->name, f->occurrence, id, sizeof id) < 0)
            fail_msg("run id");
        n += (size_t) snprintf(buf + n, size - n, "F %s %s%s%s\n", id,
                               sked__trigger_name(f->trigger),
                               f->buffered ? " buffered" : "",
                               f->cancel_active ? " cancel" : "");
    }
    for (int r = 0; r < SKED_MISS__COUNT; r++) {
        if (o->missed[r].count == 0)
            continue;
        tfmt(o->missed[r].first, a, sizeof a);
        tfmt(o->missed[r].last, b, sizeof b);
        n += (size_t) snprintf(buf + n, size - n, "M %s %lld %s %s\n",
                               sked__miss_reason_name((sked_miss_reason) r),
                               (long long) o->missed[r].count, a, b);
    }
    tfmt(o->cursor, a, sizeof a);
    tfmt(o->next, b, sizeof b);
    snprintf(buf + n, size - n, "cursor %s\nnext %s\n%s%s", a, b,
             o->done ? "done\n" : "", o->more ? "more\n" : "");
}

typedef struct ctx {
    sked_dur tick;
    int active, buffered;
} ctx;

/* Return a context with ACTIVE runs, BUFFERED of them waiting. */
static const ctx *busy(int active, int buffered)
{
    static ctx c;

    c = (ctx){.tick = SEC, .active = active, .buffered = buffered};
    return &c;
}

/* Plan S at NOW and compare the text of the decision with WANT. */
#define check_plan(s, now, c, want) check_plan_at(s, now, c, want, __LINE__)
static void check_plan_at(const sked_schedule *s, const char *now, const ctx *c,
                          const char *want, int line)
{
    sked_policy_in in = {.s = s,
                         .tz = zone(s->timezone),
                         .now = T(now),
                         .tick = c ? c->tick : SEC,
                         .active_runs = c ? c->active : 0,
                         .buffered_runs = c ? c->buffered : 0};
    sked_policy_out out;
    static char got[1 << 16];
    int rc = sked__policy_plan(&in, &out);

    if (rc != 0)
        fail_msg("line %d: plan returned %d", line, rc);
    describe(s, &out, got, sizeof got);
    sked__policy_done(&out);
    if (strcmp(got, want) != 0)
        fail_msg("line %d: got\n%s\nwant\n%s", line, got, want);
}

/* ---- catch-up × outages ------------------------------------------------- */

static void test_outage_shorter_than_grace(void **state)
{
    static const sked_catchup policies[] = {
        SKED_CATCHUP_SKIP, SKED_CATCHUP_LATEST, SKED_CATCHUP_ALL};
    sked_schedule s;

    (void) state;
    for (size_t i = 0; i < 3; i++) {
        cron_sched(&s, "r", "0 * * * *", NULL, "2026-01-01T10:00:00Z");
        s.catchup = policies[i];
        /* 11:00 is 59 s old at 11:00:59: on time whatever the policy. */
        check_plan(&s, "2026-01-01T11:00:59Z", NULL,
                   "F sched-r-2026-01-01T11:00:00Z cron\n"
                   "cursor 2026-01-01T11:00:00Z\n"
                   "next 2026-01-01T12:00:00Z\n");
        /* With a 45 s tick the grace is 90 s. */
        check_plan(&s, "2026-01-01T11:01:29Z", &(ctx){.tick = 45 * SEC},
                   "F sched-r-2026-01-01T11:00:00Z cron\n"
                   "cursor 2026-01-01T11:00:00Z\n"
                   "next 2026-01-01T12:00:00Z\n");
        sked_schedule_done(&s);
    }
}

static void test_outage_inside_window(void **state)
{
    sked_schedule s;

    (void) state;
    cron_sched(&s, "r", "0 * * * *", NULL, "2026-01-01T10:00:00Z");
    s.catchup = SKED_CATCHUP_SKIP;
    check_plan(&s, "2026-01-01T15:30:00Z", NULL,
               "M catchup_skip 5 2026-01-01T11:00:00Z 2026-01-01T15:00:00Z\n"
               "cursor 2026-01-01T15:00:00Z\n"
               "next 2026-01-01T16:00:00Z\n");
    /* Exactly at the grace an occurrence is late. */
    check_plan(&s, "2026-01-01T11:01:00Z", NULL,
               "M catchup_skip 1 2026-01-01T11:00:00Z 2026-01-01T11:00:00Z\n"
               "cursor 2026-01-01T11:00:00Z\n"
               "next 2026-01-01T12:00:00Z\n");
    s.catchup = SKED_CATCHUP_LATEST;
    check_plan(&s, "2026-01-01T15:30:00Z", NULL,
               "F sched-r-2026-01-01T15:00:00Z catchup\n"
               "M superseded 4 2026-01-01T11:00:00Z 2026-01-01T14:00:00Z\n"
               "cursor 2026-01-01T15:00:00Z\n"
               "next 2026-01-01T16:00:00Z\n");
    /* Late ones and an on-time one in the same backlog. */
    check_plan(&s, "2026-01-01T15:00:10Z", NULL,
               "F sched-r-2026-01-01T14:00:00Z catchup\n"
               "F sched-r-2026-01-01T15:00:00Z cron\n"
               "M superseded 3 2026-01-01T11:00:00Z 2026-01-01T13:00:00Z\n"
               "cursor 2026-01-01T15:00:00Z\n"
               "next 2026-01-01T16:00:00Z\n");
    s.catchup = SKED_CATCHUP_ALL;
    check_plan(&s, "2026-01-01T15:30:00Z", NULL,
               "F sched-r-2026-01-01T11:00:00Z catchup\n"
               "F sched-r-2026-01-01T12:00:00Z catchup\n"
               "F sched-r-2026-01-01T13:00:00Z catchup\n"
               "F sched-r-2026-01-01T14:00:00Z catchup\n"
               "F sched-r-2026-01-01T15:00:00Z catchup\n"
               "cursor 2026-01-01T15:00:00Z\n"
               "next 2026-01-01T16:00:00Z\n");
    sked_schedule_done(&s);
}

static void test_outage_longer_than_window(void **state)
{
    sked_schedule s;

    (void) state;
    cron_sched(&s, "r", "0 * * * *", NULL, "2026-01-01T00:00:00Z");
    /* now - 1 d = 2026-01-02T00:30: 24 occurrences are older. */
    s.catchup = SKED_CATCHUP_SKIP;
    check_plan(&s, "2026-01-03T00:30:00Z", NULL,
               "M catchup_skip 24 2026-01-02T01:00:00Z 2026-01-03T00:00:00Z\n"
               "M outside_window 24 2026-01-01T01:00:00Z "
               "2026-01-02T00:00:00Z\n"
               "cursor 2026-01-03T00:00:00Z\n"
               "next 2026-01-03T01:00:00Z\n");
    s.catchup = SKED_CATCHUP_LATEST;
    check_plan(&s, "2026-01-03T00:30:00Z", NULL,
               "F sched-r-2026-01-03T00:00:00Z catchup\n"
               "M superseded 23 2026-01-02T01:00:00Z 2026-01-02T23:00:00Z\n"
               "M outside_window 24 2026-01-01T01:00:00Z "
               "2026-01-02T00:00:00Z\n"
               "cursor 2026-01-03T00:00:00Z\n"
               "next 2026-01-03T01:00:00Z\n");
    /* An occurrence exactly as old as the window is inside it. */
    s.catchup_window = 2 * HOUR;
    check_plan(&s, "2026-01-01T05:00:00Z", NULL,
               "F sched-r-2026-01-01T04:00:00Z catchup\n"
               "F sched-r-2026-01-01T05:00:00Z cron\n"
               "M superseded 1 2026-01-01T03:00:00Z 2026-01-01T03:00:00Z\n"
               "M outside_window 2 2026-01-01T01:00:00Z "
               "2026-01-01T02:00:00Z\n"
               "cursor 2026-01-01T05:00:00Z\n"
               "next 2026-01-01T06:00:00Z\n");
    sked_schedule_done(&s);
}

static void test_outage_longer_than_catchup_max(void **state)
{
    sked_schedule s;

    (void) state;
    cron_sched(&s, "r", "0 * * * *", NULL, "2026-01-01T00:00:00Z");
    s.catchup = SKED_CATCHUP_ALL;
    /* 48 occurrences, 24 in the window: the 10 most recent fire. */
    check_plan(&s, "2026-01-03T00:30:00Z", NULL,
               "F sched-r-2026-01-02T15:00:00Z catchup\n"
               "F sched-r-2026-01-02T16:00:00Z catchup\n"
               "F sched-r-2026-01-02T17:00:00Z catchup\n"
               "F sched-r-2026-01-02T18:00:00Z catchup\n"
               "F sched-r-2026-01-02T19:00:00Z catchup\n"
               "F sched-r-2026-01-02T20:00:00Z catchup\n"
               "F sched-r-2026-01-02T21:00:00Z catchup\n"
               "F sched-r-2026-01-02T22:00:00Z catchup\n"
               "F sched-r-2026-01-02T23:00:00Z catchup\n"
               "F sched-r-2026-01-03T00:00:00Z catchup\n"
               "M catchup_max 14 2026-01-02T01:00:00Z 2026-01-02T14:00:00Z\n"
               "M outside_window 24 2026-01-01T01:00:00Z "
               "2026-01-02T00:00:00Z\n"
               "cursor 2026-01-03T00:00:00Z\n"
               "next 2026-01-03T01:00:00Z\n");
    /* Inside the window, more than catchup_max; the on-time one fires
     * besides them. */
    s.catchup_max = 2;
    check_plan(&s, "2026-01-01T05:00:05Z", NULL,
               "F sched-r-2026-01-01T03:00:00Z catchup\n"
               "F sched-r-2026-01-01T04:00:00Z catchup\n"
               "F sched-r-2026-01-01T05:00:00Z cron\n"
               "M catchup_max 2 2026-01-01T01:00:00Z 2026-01-01T02:00:00Z\n"
               "cursor 2026-01-01T05:00:00Z\n"
               "next 2026-01-01T06:00:00Z\n");
    /* automatic_backfill: all, 1000, 30 d, whatever the fields say. */
    s.catchup = SKED_CATCHUP_SKIP;
    s.catchup_window = MIN;
    s.automatic_backfill = 1;
    check_plan(&s, "2026-01-01T03:30:00Z", NULL,
               "F sched-r-2026-01-01T01:00:00Z catchup\n"
               "F sched-r-2026-01-01T02:00:00Z catchup\n"
               "F sched-r-2026-01-01T03:00:00Z catchup\n"
               "cursor 2026-01-01T03:00:00Z\n"
               "next 2026-01-01T04:00:00Z\n");
    sked_schedule_done(&s);
}

/* ---- overlap ------------------------------------------------------------ */

static void test_overlap_policies(void **state)
{
    sked_schedule s;
    const char *now = "2026-01-01T03:30:00Z";

    (void) state;
    cron_sched(&s, "r", "0 * * * *", NULL, "2026-01-01T00:00:00Z");
    s.catchup = SKED_CATCHUP_ALL;
    s.overlap = SKED_OVERLAP_ALLOW;
    check_plan(&s, now, &(ctx){.active = 3},
               "F sched-r-2026-01-01T01:00:00Z catchup\n"
               "F sched-r-2026-01-01T02:00:00Z catchup\n"
               "F sched-r-2026-01-01T03:00:00Z catchup\n"
               "cursor 2026-01-01T03:00:00Z\n"
               "next 2026-01-01T04:00:00Z\n");
    s.overlap = SKED_OVERLAP_SKIP;
    check_plan(&s, now, NULL,
               "F sched-r-2026-01-01T01:00:00Z catchup\n"
               "M overlap 2 2026-01-01T02:00:00Z 2026-01-01T03:00:00Z\n"
               "cursor 2026-01-01T03:00:00Z\n"
               "next 2026-01-01T04:00:00Z\n");
    check_plan(&s, now, &(ctx){.active = 1},
               "M overlap 3 2026-01-01T01:00:00Z 2026-01-01T03:00:00Z\n"
               "cursor 2026-01-01T03:00:00Z\n"
               "next 2026-01-01T04:00:00Z\n");
    s.overlap = SKED_OVERLAP_BUFFER_ONE;
    check_plan(&s, now, NULL,
               "F sched-r-2026-01-01T01:00:00Z catchup\n"
               "F sched-r-2026-01-01T02:00:00Z catchup buffered\n"
               "M overlap 1 2026-01-01T03:00:00Z 2026-01-01T03:00:00Z\n"
               "cursor 2026-01-01T03:00:00Z\n"
               "next 2026-01-01T04:00:00Z\n");
    check_plan(&s, now, &(ctx){.active = 1},
               "F sched-r-2026-01-01T01:00:00Z catchup buffered\n"
               "M overlap 2 2026-01-01T02:00:00Z 2026-01-01T03:00:00Z\n"
               "cursor 2026-01-01T03:00:00Z\n"
               "next 2026-01-01T04:00:00Z\n");
    check_plan(&s, now, busy(2, 1),
               "M overlap 3 2026-01-01T01:00:00Z 2026-01-01T03:00:00Z\n"
               "cursor 2026-01-01T03:00:00Z\n"
               "next 2026-01-01T04:00:00Z\n");
    s.overlap = SKED_OVERLAP_BUFFER_ALL;
    check_plan(&s, now, NULL,
               "F sched-r-2026-01-01T01:00:00Z catchup\n"
               "F sched-r-2026-01-01T02:00:00Z catchup buffered\n"
               "F sched-r-2026-01-01T03:00:00Z catchup buffered\n"
               "cursor 2026-01-01T03:00:00Z\n"
               "next 2026-01-01T04:00:00Z\n");
    check_plan(&s, now, busy(4, 3),
               "F sched-r-2026-01-01T01:00:00Z catchup buffered\n"
               "F sched-r-2026-01-01T02:00:00Z catchup buffered\n"
               "F sched-r-2026-01-01T03:00:00Z catchup buffered\n"
               "cursor 2026-01-01T03:00:00Z\n"
               "next 2026-01-01T04:00:00Z\n");
    s.overlap = SKED_OVERLAP_CANCEL_OTHER;
    check_plan(&s, now, NULL,
               "F sched-r-2026-01-01T01:00:00Z catchup\n"
               "F sched-r-2026-01-01T02:00:00Z catchup cancel\n"
               "F sched-r-2026-01-01T03:00:00Z catchup cancel\n"
               "cursor 2026-01-01T03:00:00Z\n"
               "next 2026-01-01T04:00:00Z\n");
    s.catchup = SKED_CATCHUP_LATEST;
    check_plan(&s, now, &(ctx){.active = 1},
               "F sched-r-2026-01-01T03:00:00Z catchup cancel\n"
               "M superseded 2 2026-01-01T01:00:00Z 2026-01-01T02:00:00Z\n"
               "cursor 2026-01-01T03:00:00Z\n"
               "next 2026-01-01T04:00:00Z\n");
    /* On time, one at a time: skip with a run still active. */
    s.overlap = SKED_OVERLAP_SKIP;
    check_plan(&s, "2026-01-01T01:00:00Z", &(ctx){.active = 1},
               "M overlap 1 2026-01-01T01:00:00Z 2026-01-01T01:00:00Z\n"
               "cursor 2026-01-01T01:00:00Z\n"
               "next 2026-01-01T02:00:00Z\n");
    sked_schedule_done(&s);
}

/* ---- status, pause and resume ------------------------------------------- */

static void test_status_decides_nothing(void **state)
{
    sked_schedule s;

    (void) state;
    cron_sched(&s, "r", "0 * * * *", NULL, "2026-01-01T00:00:00Z");
    s.status = SKED_SCHEDULE_PAUSED;
    check_plan(&s, "2026-01-05T00:00:00Z", NULL,
               "cursor 2026-01-01T00:00:00Z\nnext -\n");
    s.status = SKED_SCHEDULE_DISABLED;
    check_plan(&s, "2026-01-05T00:00:00Z", NULL,
               "cursor 2026-01-01T00:00:00Z\nnext -\n");
    s.status = SKED_SCHEDULE_DONE;
    check_plan(&s, "2026-01-05T00:00:00Z", NULL,
               "cursor 2026-01-01T00:00:00Z\nnext -\ndone\n");
    sked_schedule_done(&s);
}

/* SPEC 3.3: a resumed schedule is never caught up. Paused on Jan 1 after
 * 09:00, resumed on Jan 5 at 10:30 whatever the policy: the store moves
 * next_fire_at to Jan 6 09:00 and the loop may reset the cursor to now. */
static void test_resume_no_catchup(void **state)
{
    sked_schedule s;

    (void) state;
    cron_sched(&s, "daily", "0 9 * * *", NULL, "2026-01-01T09:00:00Z");
    s.catchup = SKED_CATCHUP_ALL;
    s.automatic_backfill = 1;
    s.next_fire_at = T("2026-01-06T09:00:00Z");
    check_plan(&s, "2026-01-05T10:30:00Z", NULL,
               "cursor 2026-01-01T09:00:00Z\n"
               "next 2026-01-06T09:00:00Z\n");
    check_plan(&s, "2026-01-06T09:00:00Z", NULL,
               "F sched-daily-2026-01-06T09:00:00Z cron\n"
               "cursor 2026-01-06T09:00:00Z\n"
               "next 2026-01-07T09:00:00Z\n");
    /* The cursor reset to the resume instant gives the same. */
    s.next_fire_at = NONE;
    s.last_fired_at = T("2026-01-05T10:30:00Z");
    check_plan(&s, "2026-01-06T09:00:30Z", NULL,
               "F sched-daily-2026-01-06T09:00:00Z cron\n"
               "cursor 2026-01-06T09:00:00Z\n"
               "next 2026-01-07T09:00:00Z\n");
    /* Without either, the old cursor would catch up: the contrast. */
    s.last_fired_at = T("2026-01-01T09:00:00Z");
    check_plan(&s, "2026-01-05T10:30:00Z", NULL,
               "F sched-daily-2026-01-02T09:00:00Z catchup\n"
               "F sched-daily-2026-01-03T09:00:00Z catchup\n"
               "F sched-daily-2026-01-04T09:00:00Z catchup\n"
               "F sched-daily-2026-01-05T09:00:00Z catchup\n"
               "cursor 2026-01-05T09:00:00Z\n"
               "next 2026-01-06T09:00:00Z\n");
    sked_schedule_done(&s);
}

/* A schedule never fired starts at its creation: no backlog from before
 * it existed. */
static void test_new_schedule(void **state)
{
    sked_schedule s;

    (void) state;
    cron_sched(&s, "r", "0 * * * *", NULL, NULL);
    s.created_at = T("2026-01-01T10:30:00Z");
    check_plan(&s, "2026-01-01T10:45:00Z", NULL,
               "cursor -\nnext 2026-01-01T11:00:00Z\n");
    check_plan(&s, "2026-01-01T12:00:30Z", NULL,
               "F sched-r-2026-01-01T11:00:00Z catchup\n"
               "F sched-r-2026-01-01T12:00:00Z cron\n"
               "cursor 2026-01-01T12:00:00Z\n"
               "next 2026-01-01T13:00:00Z\n");
    /* The store's next_fire_at says the same. */
    s.created_at = NONE;
    s.next_fire_at = T("2026-01-01T11:00:00Z");
    check_plan(&s, "2026-01-01T11:00:00Z", NULL,
               "F sched-r-2026-01-01T11:00:00Z cron\n"
               "cursor 2026-01-01T11:00:00Z\n"
               "next 2026-01-01T12:00:00Z\n");
    /* With nothing known, nothing older than now. */
    s.next_fire_at = NONE;
    check_plan(&s, "2026-01-01T11:30:00Z", NULL,
               "cursor -\nnext 2026-01-01T12:00:00Z\n");
    sked_schedule_done(&s);
}

/* ---- the seed's examples ------------------------------------------------ */

/* morning-report: "0 9 * * *" in Europe/Paris, catchup all, max 5, window
 * 3 d, overlap skip. Down from Thursday 26 March 2026 after 09:00 to
 * Monday 30 March 12:00 (across the spring change on the 29th): the
 * Friday is older than 3 days; Saturday's run takes the key and Sunday
 * (07:00 UTC, summer time) and Monday are skipped as overlap. */
static void test_seed_catchup_all_overlap_skip(void **state)
{
    sked_schedule s;

    (void) state;
    cron_sched(&s, "morning-report", "0 9 * * *", "Europe/Paris",
               "2026-03-26T08:00:00Z");
    s.catchup = SKED_CATCHUP_ALL;
    s.catchup_max = 5;
    s.catchup_window = 3 * DAY;
    s.overlap = SKED_OVERLAP_SKIP;
    check_plan(&s, "2026-03-30T10:00:00Z", NULL,
               "F sched-morning-report-2026-03-28T08:00:00Z catchup\n"
               "M outside_window 1 2026-03-27T08:00:00Z "
               "2026-03-27T08:00:00Z\n"
               "M overlap 2 2026-03-29T07:00:00Z 2026-03-30T07:00:00Z\n"
               "cursor 2026-03-30T07:00:00Z\n"
               "next 2026-03-31T07:00:00Z\n");
    /* The same outage with a run of the schedule still active: every
     * late one is skipped as overlap. */
    check_plan(&s, "2026-03-30T10:00:00Z", &(ctx){.active = 1},
               "M outside_window 1 2026-03-27T08:00:00Z "
               "2026-03-27T08:00:00Z\n"
               "M overlap 3 2026-03-28T08:00:00Z 2026-03-30T07:00:00Z\n"
               "cursor 2026-03-30T07:00:00Z\n"
               "next 2026-03-31T07:00:00Z\n");
    sked_schedule_done(&s);
}

/* Plan S at each of its occurrences in turn, as a live server does, and
 * store what fired (at most MAX) in OUT. Returns how many. */
static size_t fire_live(sked_schedule *s, sked_time until, sked_time *out,
                        size_t max)
{
    sked_policy_in in = {.s = s, .tz = zone(s->timezone), .tick = SEC};
    sked_policy_out o;
    size_t n = 0;

    in.now = s->last_fired_at;
    for (;;) {
        assert_int_equal(sked__policy_plan(&in, &o), 0);
        for (size_t i = 0; i < o.nfires && n < max; i++) {
            assert_int_equal(o.fires[i].trigger, SKED_TRIGGER_CRON);
            out[n++] = o.fires[i].occurrence;
        }
        for (int r = 0; r < SKED_MISS__COUNT; r++)
            assert_int_equal(o.missed[r].count, 0);
        s->last_fired_at = o.cursor;
        s->next_fire_at = o.next;
        sked__policy_done(&o);
        if (o.next == NONE || o.next > until)
            return n;
        in.now = o.next;
    }
}

/* "0 9 * * *" in Europe/Paris all through 2026: 365 runs at 09:00 local,
 * 08:00 UTC in winter and 07:00 UTC from 29 March to 24 October. */
static void test_paris_nine_all_year(void **state)
{
    static sked_time got[400];
    sked_time day = T("2026-01-01T00:00:00Z");
    sked_schedule s;
    size_t n;

    (void) state;
    cron_sched(&s, "morning-report", "0 9 * * *", "Europe/Paris",
               "2025-12-31T08:00:00Z");
    n = fire_live(&s, T("2026-12-31T23:59:59Z"), got, 400);
    assert_int_equal(n, 365);
    for (size_t i = 0; i < n; i++, day += DAY) {
        int summer =
            day >= T("2026-03-29T00:00:00Z") && day < T("2026-10-25T00:00:00Z");
        sked_time want = day + (summer ? 7 : 8) * HOUR;

        if (got[i] != want) {
            char g[48], w[48];

            tfmt(got[i], g, sizeof g);
            tfmt(want, w, sizeof w);
            fail_msg("day %zu: got %s, want %s", i, g, w);
        }
    }
    assert_true(got[86] == T("2026-03-28T08:00:00Z"));
    assert_true(got[87] == T("2026-03-29T07:00:00Z"));
    assert_true(got[296] == T("2026-10-24T07:00:00Z"));
    assert_true(got[297] == T("2026-10-25T08:00:00Z"));
    sked_schedule_done(&s);
}

/* "30 2 * * *" in Europe/Paris on the change days (SPEC 2.2): 02:30 does
 * not exist on 29 March 2026 and fires at 03:00 CEST (01:00 UTC); it
 * happens twice on 25 October and fires on the first pass (00:30 UTC). */
static void test_paris_0230_change_days(void **state)
{
    sked_time got[8];
    sked_schedule s;

    (void) state;
    cron_sched(&s, "night", "30 2 * * *", "Europe/Paris",
               "2026-03-27T01:30:00Z");
    assert_int_equal(fire_live(&s, T("2026-03-30T12:00:00Z"), got, 8), 3);
    assert_true(got[0] == T("2026-03-28T01:30:00Z"));
    assert_true(got[1] == T("2026-03-29T01:00:00Z"));
    assert_true(got[2] == T("2026-03-30T00:30:00Z"));
    /* The same after an outage over the change, catchup all. */
    s.last_fired_at = T("2026-03-27T01:30:00Z");
    s.next_fire_at = NONE;
    s.catchup = SKED_CATCHUP_ALL;
    s.catchup_window = 3 * DAY;
    check_plan(&s, "2026-03-30T12:00:00Z", NULL,
               "F sched-night-2026-03-28T01:30:00Z catchup\n"
               "F sched-night-2026-03-29T01:00:00Z catchup\n"
               "F sched-night-2026-03-30T00:30:00Z catchup\n"
               "cursor 2026-03-30T00:30:00Z\n"
               "next 2026-03-31T00:30:00Z\n");
    s.last_fired_at = T("2026-10-23T00:30:00Z");
    s.next_fire_at = NONE;
    assert_int_equal(fire_live(&s, T("2026-10-26T12:00:00Z"), got, 8), 3);
    assert_true(got[0] == T("2026-10-24T00:30:00Z"));
    assert_true(got[1] == T("2026-10-25T00:30:00Z"));
    assert_true(got[2] == T("2026-10-26T01:30:00Z"));
    /* Decided at 01:30 UTC on the 25th (02:30 CET, the second pass): the
     * first pass already fired, nothing fires again. */
    s.last_fired_at = T("2026-10-25T00:30:00Z");
    s.next_fire_at = NONE;
    check_plan(&s, "2026-10-25T01:30:00Z", NULL,
               "cursor 2026-10-25T00:30:00Z\n"
               "next 2026-10-26T01:30:00Z\n");
    sked_schedule_done(&s);
}

/* ---- interval and one-time schedules ------------------------------------ */

static void every_sched(sked_schedule *s, sked_dur every, const char *anchor)
{
    sked_schedule_init(s);
    s->name = strdup("tick");
    s->workflow = strdup("wf");
    s->kind = SKED_SPEC_EVERY;
    s->every = every;
    s->anchor = T(anchor);
    s->created_at = s->anchor;
}

static void test_interval(void **state)
{
    sked_schedule s;

    (void) state;
    every_sched(&s, HOUR, "2026-01-01T00:00:00Z");
    /* k >= 1: the anchor itself is not an occurrence. */
    check_plan(&s, "2026-01-01T00:30:00Z", NULL,
               "cursor -\nnext 2026-01-01T01:00:00Z\n");
    check_plan(&s, "2026-01-01T03:00:10Z", NULL,
               "F sched-tick-2026-01-01T02:00:00Z catchup\n"
               "F sched-tick-2026-01-01T03:00:00Z cron\n"
               "M superseded 1 2026-01-01T01:00:00Z 2026-01-01T01:00:00Z\n"
               "cursor 2026-01-01T03:00:00Z\n"
               "next 2026-01-01T04:00:00Z\n");
    /* An anchor before the creation: no backlog from before it. */
    s.anchor = T("2025-06-01T00:20:00Z");
    check_plan(&s, "2026-01-01T02:20:00Z", NULL,
               "F sched-tick-2026-01-01T01:20:00Z catchup\n"
               "F sched-tick-2026-01-01T02:20:00Z cron\n"
               "M superseded 1 2026-01-01T00:20:00Z 2026-01-01T00:20:00Z\n"
               "cursor 2026-01-01T02:20:00Z\n"
               "next 2026-01-01T03:20:00Z\n");
    sked_schedule_done(&s);
}

/* An interval of 1 s decided six years behind: counted, not walked. */
static void test_interval_years_behind(void **state)
{
    sked_schedule s;

    (void) state;
    every_sched(&s, SEC, "2020-01-01T00:00:00Z");
    s.catchup = SKED_CATCHUP_SKIP;
    /* (2020-01-01, 2025-12-31T00:00] is 2191 days of seconds. */
    check_plan(&s, "2026-01-01T00:00:00Z", NULL,
               "F sched-tick-2025-12-31T23:59:01Z cron\n"
               "F sched-tick-2025-12-31T23:59:02Z cron\n"
               "F sched-tick-2025-12-31T23:59:03Z cron\n"
               "F sched-tick-2025-12-31T23:59:04Z cron\n"
               "F sched-tick-2025-12-31T23:59:05Z cron\n"
               "F sched-tick-2025-12-31T23:59:06Z cron\n"
               "F sched-tick-2025-12-31T23:59:07Z cron\n"
               "F sched-tick-2025-12-31T23:59:08Z cron\n"
               "F sched-tick-2025-12-31T23:59:09Z cron\n"
               "F sched-tick-2025-12-31T23:59:10Z cron\n"
               "F sched-tick-2025-12-31T23:59:11Z cron\n"
               "F sched-tick-2025-12-31T23:59:12Z cron\n"
               "F sched-tick-2025-12-31T23:59:13Z cron\n"
               "F sched-tick-2025-12-31T23:59:14Z cron\n"
               "F sched-tick-2025-12-31T23:59:15Z cron\n"
               "F sched-tick-2025-12-31T23:59:16Z cron\n"
               "F sched-tick-2025-12-31T23:59:17Z cron\n"
               "F sched-tick-2025-12-31T23:59:18Z cron\n"
               "F sched-tick-2025-12-31T23:59:19Z cron\n"
               "F sched-tick-2025-12-31T23:59:20Z cron\n"
               "F sched-tick-2025-12-31T23:59:21Z cron\n"
               "F sched-tick-2025-12-31T23:59:22Z cron\n"
               "F sched-tick-2025-12-31T23:59:23Z cron\n"
               "F sched-tick-2025-12-31T23:59:24Z cron\n"
               "F sched-tick-2025-12-31T23:59:25Z cron\n"
               "F sched-tick-2025-12-31T23:59:26Z cron\n"
               "F sched-tick-2025-12-31T23:59:27Z cron\n"
               "F sched-tick-2025-12-31T23:59:28Z cron\n"
               "F sched-tick-2025-12-31T23:59:29Z cron\n"
               "F sched-tick-2025-12-31T23:59:30Z cron\n"
               "F sched-tick-2025-12-31T23:59:31Z cron\n"
               "F sched-tick-2025-12-31T23:59:32Z cron\n"
               "F sched-tick-2025-12-31T23:59:33Z cron\n"
               "F sched-tick-2025-12-31T23:59:34Z cron\n"
               "F sched-tick-2025-12-31T23:59:35Z cron\n"
               "F sched-tick-2025-12-31T23:59:36Z cron\n"
               "F sched-tick-2025-12-31T23:59:37Z cron\n"
               "F sched-tick-2025-12-31T23:59:38Z cron\n"
               "F sched-tick-2025-12-31T23:59:39Z cron\n"
               "F sched-tick-2025-12-31T23:59:40Z cron\n"
               "F sched-tick-2025-12-31T23:59:41Z cron\n"
               "F sched-tick-2025-12-31T23:59:42Z cron\n"
               "F sched-tick-2025-12-31T23:59:43Z cron\n"
               "F sched-tick-2025-12-31T23:59:44Z cron\n"
               "F sched-tick-2025-12-31T23:59:45Z cron\n"
               "F sched-tick-2025-12-31T23:59:46Z cron\n"
               "F sched-tick-2025-12-31T23:59:47Z cron\n"
               "F sched-tick-2025-12-31T23:59:48Z cron\n"
               "F sched-tick-2025-12-31T23:59:49Z cron\n"
               "F sched-tick-2025-12-31T23:59:50Z cron\n"
               "F sched-tick-2025-12-31T23:59:51Z cron\n"
               "F sched-tick-2025-12-31T23:59:52Z cron\n"
               "F sched-tick-2025-12-31T23:59:53Z cron\n"
               "F sched-tick-2025-12-31T23:59:54Z cron\n"
               "F sched-tick-2025-12-31T23:59:55Z cron\n"
               "F sched-tick-2025-12-31T23:59:56Z cron\n"
               "F sched-tick-2025-12-31T23:59:57Z cron\n"
               "F sched-tick-2025-12-31T23:59:58Z cron\n"
               "F sched-tick-2025-12-31T23:59:59Z cron\n"
               "F sched-tick-2026-01-01T00:00:00Z cron\n"
               "M catchup_skip 86341 2025-12-31T00:00:00Z "
               "2025-12-31T23:59:00Z\n"
               "M outside_window 189302399 2020-01-01T00:00:01Z "
               "2025-12-30T23:59:59Z\n"
               "cursor 2026-01-01T00:00:00Z\n"
               "next 2026-01-01T00:00:01Z\n");
    sked_schedule_done(&s);
}

static void at_sched(sked_schedule *s, const char *at)
{
    sked_schedule_init(s);
    s->name = strdup("once");
    s->workflow = strdup("wf");
    s->kind = SKED_SPEC_AT;
    s->at = T(at);
    s->created_at = T("2026-01-01T00:00:00Z");
}

static void test_one_time(void **state)
{
    sked_schedule s;

    (void) state;
    at_sched(&s, "2026-02-01T09:00:00Z");
    check_plan(&s, "2026-01-15T00:00:00Z", NULL,
               "cursor -\nnext 2026-02-01T09:00:00Z\n");
    check_plan(&s, "2026-02-01T09:00:00Z", NULL,
               "F sched-once-2026-02-01T09:00:00Z cron\n"
               "cursor 2026-02-01T09:00:00Z\nnext -\ndone\n");
    check_plan(&s, "2026-02-01T12:00:00Z", NULL,
               "F sched-once-2026-02-01T09:00:00Z catchup\n"
               "cursor 2026-02-01T09:00:00Z\nnext -\ndone\n");
    s.catchup = SKED_CATCHUP_SKIP;
    check_plan(&s, "2026-02-01T12:00:00Z", NULL,
               "M catchup_skip 1 2026-02-01T09:00:00Z 2026-02-01T09:00:00Z\n"
               "cursor 2026-02-01T09:00:00Z\nnext -\ndone\n");
    check_plan(&s, "2026-02-03T12:00:00Z", NULL,
               "M outside_window 1 2026-02-01T09:00:00Z "
               "2026-02-01T09:00:00Z\n"
               "cursor 2026-02-01T09:00:00Z\nnext -\ndone\n");
    /* Created after its instant (the store keeps it for catch-up). */
    s.created_at = T("2026-02-01T10:00:00Z");
    s.catchup = SKED_CATCHUP_LATEST;
    check_plan(&s, "2026-02-01T10:00:00Z", NULL,
               "F sched-once-2026-02-01T09:00:00Z catchup\n"
               "cursor 2026-02-01T09:00:00Z\nnext -\ndone\n");
    /* Fired: never again. */
    s.last_fired_at = s.at;
    check_plan(&s, "2026-03-01T00:00:00Z", NULL,
               "cursor 2026-02-01T09:00:00Z\nnext -\ndone\n");
    sked_schedule_done(&s);
}

/* ---- bounds and max_runs ------------------------------------------------ */

static void test_start_end(void **state)
{
    sked_schedule s;

    (void) state;
    cron_sched(&s, "r", "0 * * * *", NULL, "2026-01-01T00:00:00Z");
    s.catchup = SKED_CATCHUP_ALL;
    s.start_at = T("2026-01-01T02:30:00Z");
    s.end_at = T("2026-01-01T05:00:00Z");
    /* Before start_at nothing is an occurrence, nothing is missed. */
    check_plan(&s, "2026-01-01T02:00:00Z", NULL,
               "cursor 2026-01-01T00:00:00Z\nnext 2026-01-01T03:00:00Z\n");
    check_plan(&s, "2026-01-01T04:10:00Z", NULL,
               "F sched-r-2026-01-01T03:00:00Z catchup\n"
               "F sched-r-2026-01-01T04:00:00Z catchup\n"
               "cursor 2026-01-01T04:00:00Z\n"
               "next 2026-01-01T05:00:00Z\n");
    /* end_at is inclusive; then done. */
    check_plan(&s, "2026-01-01T09:00:00Z", NULL,
               "F sched-r-2026-01-01T03:00:00Z catchup\n"
               "F sched-r-2026-01-01T04:00:00Z catchup\n"
               "F sched-r-2026-01-01T05:00:00Z catchup\n"
               "cursor 2026-01-01T05:00:00Z\nnext -\ndone\n");
    sked_schedule_done(&s);
}

static void test_max_runs(void **state)
{
    sked_schedule s;

    (void) state;
    cron_sched(&s, "r", "0 * * * *", NULL, "2026-01-01T00:00:00Z");
    s.catchup = SKED_CATCHUP_ALL;
    s.max_runs = 5;
    s.runs_created = 3;
    /* Two more runs; what follows them is never decided. */
    check_plan(&s, "2026-01-01T04:30:00Z", NULL,
               "F sched-r-2026-01-01T01:00:00Z catchup\n"
               "F sched-r-2026-01-01T02:00:00Z catchup\n"
               "cursor 2026-01-01T02:00:00Z\nnext -\ndone\n");
    /* Dropped occurrences do not count as runs. */
    s.overlap = SKED_OVERLAP_SKIP;
    check_plan(&s, "2026-01-01T04:30:00Z", &(ctx){.active = 1},
               "M overlap 4 2026-01-01T01:00:00Z 2026-01-01T04:00:00Z\n"
               "cursor 2026-01-01T04:00:00Z\n"
               "next 2026-01-01T05:00:00Z\n");
    s.runs_created = 5;
    check_plan(&s, "2026-01-01T04:30:00Z", NULL,
               "cursor 2026-01-01T00:00:00Z\nnext -\ndone\n");
    sked_schedule_done(&s);
}

/* ---- bounded work on long backlogs -------------------------------------- */

/* A daily cron in Paris a year behind, catchup skip: every day of 2026
 * but the last counted outside the window, across both changes, in a few
 * hundred steps. */
static void test_cron_year_behind(void **state)
{
    sked_schedule s;

    (void) state;
    cron_sched(&s, "morning-report", "0 9 * * *", "Europe/Paris",
               "2025-12-31T08:00:00Z");
    s.catchup = SKED_CATCHUP_SKIP;
    check_plan(&s, "2027-01-01T00:00:00Z", NULL,
               "M catchup_skip 1 2026-12-31T08:00:00Z 2026-12-31T08:00:00Z\n"
               "M outside_window 364 2026-01-01T08:00:00Z "
               "2026-12-30T08:00:00Z\n"
               "cursor 2026-12-31T08:00:00Z\n"
               "next 2027-01-01T08:00:00Z\n");
    /* Hourly, ten years behind, counted a day at a time: 87,647 UTC
     * hours less the ten repeated autumn hours, which fire once (SPEC
     * 2.2); the on-time one fires. */
    sked_schedule_done(&s);
    cron_sched(&s, "h", "0 * * * *", "Europe/Paris", "2016-01-01T00:00:00Z");
    s.catchup = SKED_CATCHUP_SKIP;
    check_plan(&s, "2026-01-01T00:00:00Z", NULL,
               "F sched-h-2026-01-01T00:00:00Z cron\n"
               "M catchup_skip 24 2025-12-31T00:00:00Z 2025-12-31T23:00:00Z\n"
               "M outside_window 87637 2016-01-01T01:00:00Z "
               "2025-12-30T23:00:00Z\n"
               "cursor 2026-01-01T00:00:00Z\n"
               "next 2026-01-01T01:00:00Z\n");
    sked_schedule_done(&s);
}

/* Decide a per-second cron from FROM to NOW, calling again while the
 * plan says "more"; return the occurrences decided and the calls made. */
static int64_t decide_all(sked_schedule *s, sked_time now, int *calls)
{
    sked_policy_in in = {
        .s = s, .tz = zone(s->timezone), .now = now, .tick = SEC};
    sked_policy_out o;
    int64_t total = 0;

    *calls = 0;
    do {
        assert_int_equal(sked__policy_plan(&in, &o), 0);
        ++*calls;
        total += (int64_t) o.nfires;
        for (int r = 0; r < SKED_MISS__COUNT; r++)
            total += o.missed[r].count;
        assert_true(o.cursor > s->last_fired_at);
        s->last_fired_at = o.cursor;
        s->next_fire_at = o.next;
        sked__policy_done(&o);
    } while (o.more && *calls < 1000);
    return total;
}

/* Every second of two months in Paris across the autumn change: with
 * dst once the repeated hour fires once, so 3600 fewer than the seconds
 * of UTC time; with cadence every second. Exact, in bounded calls. */
static void test_cron_per_second_bounded(void **state)
{
    sked_time from = T("2025-10-01T00:00:00Z");
    sked_time now = T("2025-12-01T00:00:00Z");
    int64_t secs = (now - from) / SEC;
    sked_schedule s;
    int calls;

    (void) state;
    cron_sched(&s, "s", "* * * * * *", "Europe/Paris", NULL);
    s.last_fired_at = from;
    s.catchup = SKED_CATCHUP_SKIP;
    assert_int_equal(decide_all(&s, now, &calls), secs - 3600);
    assert_true(s.last_fired_at == now);
    assert_true(calls >= 2 && calls < 20);
    sked_schedule_done(&s);
    cron_sched(&s, "s", "* * * * * *", "Europe/Paris", NULL);
    s.last_fired_at = from;
    s.dst = SKED_DST_CADENCE;
    s.catchup = SKED_CATCHUP_SKIP;
    assert_int_equal(decide_all(&s, now, &calls), secs);
    sked_schedule_done(&s);
}

/* Check that deciding EXPR in ZONE over (FROM, TO] with catchup skip
 * counts what sked_cron_next finds one step at a time. */
static void check_count(const char *expr, const char *tzname, const char *from,
                        const char *to, sked_dst dst)
{
    sked_time t = T(from), end = T(to);
    const sked_tz *tz = zone(tzname);
    sked_policy_in in = {.tz = tz, .now = end, .tick = SEC};
    sked_policy_out o;
    sked_schedule s;
    int64_t want = 0, got = 0;
    sked_cron c;

    assert_int_equal(sked_cron_parse(expr, &c, NULL), 0);
    while (sked_cron_next(&c, tz, dst, t, &t) == 0 && t <= end)
        want++;
    cron_sched(&s, "c", expr, tzname, from);
    s.dst = dst;
    s.catchup = SKED_CATCHUP_SKIP;
    in.s = &s;
    do {
        assert_int_equal(sked__policy_plan(&in, &o), 0);
        got += (int64_t) o.nfires;
        for (int r = 0; r < SKED_MISS__COUNT; r++)
            got += o.missed[r].count;
        s.last_fired_at = o.cursor;
        sked__policy_done(&o);
    } while (o.more);
    if (got != want)
        fail_msg("%s in %s (%s) from %s to %s: counted %lld, walked %lld", expr,
                 tzname, sked_dst_name(dst), from, to, (long long) got,
                 (long long) want);
    sked_schedule_done(&s);
}
/* The day-at-a-time count agrees with a walk, step by step, for
 * expressions and zones with odd changes: Lord Howe's 30-minute DST,
 * Apia's skipped day (2011-12-30), Troll's 2-hour change, Casablanca's
 * Ramadan changes, Sao Paulo's changes at midnight. */
static void test_cron_count_matches_walk(void **state)
{
    static const char *const exprs[] = {
        "*/15 * * * *", "30 2 * * *",     "0 0 * * *",     "0 9 * * 1-5",
        "0 0 L * *",    "*/20 1-3 * * *", "0 0,30 0 * * *"};
    static const char *const zones[] = {
        "Australia/Lord_Howe", "Pacific/Apia",      "Antarctica/Troll",
        "Africa/Casablanca",   "America/Sao_Paulo", "Europe/Paris",
        MIDNIGHT_RULE};
    static const char *const spans[][2] = {
        {"2011-11-01T00:00:00Z", "2012-02-01T00:00:00Z"},
        {"2017-09-01T00:00:00Z", "2019-03-01T00:00:00Z"},
        {"2024-01-01T00:00:00Z", "2025-12-31T00:00:00Z"}};

    (void) state;
    for (size_t e = 0; e < sizeof exprs / sizeof *exprs; e++)
        for (size_t z = 0; z < sizeof zones / sizeof *zones; z++)
            for (size_t w = 0; w < 3; w++)
                for (int dst = 0; dst < 2; dst++)
                    check_count(exprs[e], zones[z], spans[w][0], spans[w][1],
                                (sked_dst) dst);
}

/* ---- jitter, names, bad input ------------------------------------------- */

static void test_jitter(void **state)
{
    const sked_dur j = 10 * MIN;
    char id[64];
    double sum = 0;
    sked_dur d;

    (void) state;
    assert_true(sked__policy_jitter("sched-a-2026-01-01T00:00:00Z", 0) == 0);
    assert_true(sked__policy_jitter(NULL, j) == 0);
    /* The same id gives the same delay: pinned, so a change of the hash
     * (which would move every server's runs) fails here. */
    d = sked__policy_jitter("sched-morning-report-2026-11-30T08:00:00Z", j);
    assert_true(d == sked__policy_jitter(
                         "sched-morning-report-2026-11-30T08:00:00Z", j));
    assert_int_equal(d, 221738186); /* 221.738186s */
    for (int i = 0; i < 10000; i++) {
        snprintf(id, sizeof id, "sched-r-2026-01-01T%02d:%02d:%02dZ", i / 3600,
                 i / 60 % 60, i % 60);
        d = sked__policy_jitter(id, j);
        assert_true(d >= 0 && d <= j);
        sum += (double) d;
    }
    /* Spread: the mean of 10,000 is near half the range. */
    assert_true(sum / 10000 > 0.45 * (double) j &&
                sum / 10000 < 0.55 * (double) j);
    assert_true(sked__policy_jitter("x", 1) <= 1);
}

static void test_grace_and_names(void **state)
{
    (void) state;
    assert_true(sked__policy_grace(SEC) == MIN);
    assert_true(sked__policy_grace(0) == MIN);
    assert_true(sked__policy_grace(45 * SEC) == 90 * SEC);
    assert_string_equal(sked__miss_reason_name(SKED_MISS_CATCHUP_SKIP),
                        "catchup_skip");
    assert_string_equal(sked__miss_reason_name(SKED_MISS_SUPERSEDED),
                        "superseded");
    assert_string_equal(sked__miss_reason_name(SKED_MISS_CATCHUP_MAX),
                        "catchup_max");
    assert_string_equal(sked__miss_reason_name(SKED_MISS_OUTSIDE_WINDOW),
                        "outside_window");
    assert_string_equal(sked__miss_reason_name(SKED_MISS_OVERLAP), "overlap");
    assert_string_equal(sked__miss_reason_name(SKED_MISS__COUNT), "unknown");
}

static void test_bad_input(void **state)
{
    sked_policy_in in = {.now = T("2026-01-01T00:00:00Z"), .tick = SEC};
    sked_policy_out out = {.nfires = 42};
    sked_schedule s;

    (void) state;
    assert_int_equal(sked__policy_plan(&in, &out), SKED_EINVAL);
    cron_sched(&s, "r", "61 * * * *", NULL, "2025-12-31T00:00:00Z");
    in.s = &s;
    assert_int_equal(sked__policy_plan(&in, &out), SKED_EINVAL);
    assert_int_equal(out.nfires, 42); /* untouched */
    assert_int_equal(sked__policy_plan(&in, NULL), SKED_EINVAL);
    sked_schedule_done(&s);
    every_sched(&s, 0, "2026-01-01T00:00:00Z");
    in.s = &s;
    assert_int_equal(sked__policy_plan(&in, &out), SKED_EINVAL);
    sked_schedule_done(&s);
    sked__policy_done(NULL);
}

static int setup(void **state)
{
    (void) state;
    if (sked_tz_parse_posix(MIDNIGHT_RULE, &midnight_zone, NULL) != 0)
        return -1;
    return sked_tzdb_open(SKED_TEST_DATA "/zoneinfo", &tzdb, NULL) == 0 ? 0
                                                                        : -1;
}

static int teardown(void **state)
{
    (void) state;
    sked_tzdb_close(tzdb);
    sked_tz_free(midnight_zone);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_outage_shorter_than_grace),
        cmocka_unit_test(test_outage_inside_window),
        cmocka_unit_test(test_outage_longer_than_window),
        cmocka_unit_test(test_outage_longer_than_catchup_max),
        cmocka_unit_test(test_overlap_policies),
        cmocka_unit_test(test_status_decides_nothing),
        cmocka_unit_test(test_resume_no_catchup),
        cmocka_unit_test(test_new_schedule),
        cmocka_unit_test(test_seed_catchup_all_overlap_skip),
        cmocka_unit_test(test_paris_nine_all_year),
        cmocka_unit_test(test_paris_0230_change_days),
        cmocka_unit_test(test_interval),
        cmocka_unit_test(test_interval_years_behind),
        cmocka_unit_test(test_one_time),
        cmocka_unit_test(test_start_end),
        cmocka_unit_test(test_max_runs),
        cmocka_unit_test(test_cron_year_behind),
        cmocka_unit_test(test_cron_per_second_bounded),
        cmocka_unit_test(test_cron_count_matches_walk),
        cmocka_unit_test(test_jitter),
        cmocka_unit_test(test_grace_and_names),
        cmocka_unit_test(test_bad_input),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
