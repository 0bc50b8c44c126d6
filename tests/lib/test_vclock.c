/* SPDX-License-Identifier: MIT */
/* The virtual-clock engine fixture (test_vclock.h): the engine reads the
 * instant a test sets, so a test walks days of schedules in
 * milliseconds, on whichever back-end SKED_TEST_DB_URL names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "test_db.h"
#include "test_vclock.h"

#include "base/clock.h"

static char db_url[1024];
static char tmp_dir[1024];
static _Atomic sked_time vnow;
static sked_clock clock_;

static sked_time read_now(void *ctx)
{
    (void) ctx;
    return vnow;
}

int sked_tv_init(const char *file)
{
    clock_ = (sked_clock){read_now, read_now, NULL};
    return sked_test_db_url(file, db_url, tmp_dir, sizeof db_url);
}

void sked_tv_done(void)
{
    sked_test_tmp_remove(tmp_dir);
}

const char *sked_tv_url(void)
{
    return db_url;
}

sked_time sked_tv_now(void)
{
    return vnow;
}

void sked_tv_set(sked_time t)
{
    vnow = t;
}

sked_time sked_tv_time(const char *s)
{
    sked_time t = 0;

    if (sked_time_parse(s, &t, NULL) != 0)
        fail_msg("not an instant: %s", s);
    return t;
}

sked_engine *sked_tv_open(void)
{
    sked_engine_options o = {.db_url = db_url,
                             .tzdir = SKED_TEST_DATA "/zoneinfo",
                             .clock = &clock_,
                             .sqlite_synchronous = "normal"};
    sked_engine *e = NULL;
    sked_error err;

    if (sked_engine_open(&o, &e, &err) != 0)
        fail_msg("open %s: %s", db_url, err.msg);
    return e;
}

void sked_tv_setup(void **state, const char *const *tables, size_t n)
{
    char sql[128];

    vnow = sked_tv_time("2026-12-01T00:00:00Z");
    *state = sked_tv_open();
    for (size_t i = 0; i < n; i++) {
        const char *t = strcmp(tables[i], "events") == 0
                            ? sked_test_events_table(db_url)
                            : tables[i];
        snprintf(sql, sizeof sql, "DELETE FROM %s", t);
        if (sked_test_sql(db_url, sql, NULL) != 0)
            fail_msg("could not empty %s", t);
    }
}

int sked_tv_teardown(void **state)
{
    sked_engine_close(*state);
    return 0;
}

void sked_tv_tick_at(sked_engine *e, const char *at)
{
    sked_error err;

    vnow = sked_tv_time(at);
    if (sked_engine_tick(e, &err) != 0)
        fail_msg("tick at %s: %s", at, err.msg);
}

long long sked_tv_q(const char *sql)
{
    long long v = -1;

    if (sked_test_sql(db_url, sql, &v) != 0)
        fail_msg("sql failed: %s", sql);
    return v;
}
