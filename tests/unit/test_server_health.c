/* SPDX-License-Identifier: MIT */
/* Tests of the server's log of its database's health
 * (cmd/sked/server_health.c): the decision, one table line per step of a
 * timeline — what the store says at a time, and the line to write — and
 * the lines health_check writes for a real store made to fail. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/error.h"
#include "engine/engine_int.h"
#include "server_health.h"

#define S (INT64_C(1000000))

static void test_decide_timeline(void **state)
{
    static const struct {
        sked_mono at;
        bool failing;
        uint64_t episode;
        int code;
        health_line want;
    } steps[] = {
        {0, false, 0, 0, HEALTH_QUIET},
        {1 * S, true, 1, SKED_ENOSPC, HEALTH_FAILING},
        {2 * S, true, 1, SKED_ENOSPC, HEALTH_QUIET},
        {60 * S, true, 1, SKED_ENOSPC, HEALTH_QUIET}, /* 59 s after */
        {61 * S, true, 1, SKED_ENOSPC, HEALTH_STILL},
        {62 * S, true, 1, SKED_ENOSPC, HEALTH_QUIET},
        {121 * S, true, 1, SKED_ENOSPC, HEALTH_STILL},
        /* A new cause within the episode is told at once. */
        {122 * S, true, 1, SKED_ESTALE, HEALTH_FAILING},
        {123 * S, true, 1, SKED_ESTALE, HEALTH_QUIET},
        {124 * S, false, 1, 0, HEALTH_RECOVERED},
        {125 * S, false, 1, 0, HEALTH_QUIET},
        {200 * S, true, 2, SKED_EBUSY, HEALTH_FAILING},
        /* Healthy and failing again between two looks: a new episode. */
        {201 * S, true, 3, SKED_EBUSY, HEALTH_FAILING},
        {202 * S, false, 3, 0, HEALTH_RECOVERED},
    };
    health_log s = {0};

    (void) state;
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
        sked_fault f = {
            .op = "fire", .code = steps[i].code, .episode = steps[i].episode};
        health_line got = health_decide(&s, steps[i].failing, &f, steps[i].at);
        if (got != steps[i].want)
            fail_msg("step %zu (t=%llds): line %d, want %d", i,
                     (long long) (steps[i].at / S), (int) got,
                     (int) steps[i].want);
    }
}

/* A real store made to fail through its health (as the scheduler would
 * report it) and then recover: health_check writes the error line once,
 * with the op, the kind and the database's message, then the recovery. */
static void test_check_writes_lines(void **state)
{
    char dir[] = "/tmp/sked-health-XXXXXX", url[128], path[128];
    sked_engine_options o = {.db_url = url};
    sked_engine *e = NULL;
    health_log s = {0};
    logger lg;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    sked_error err;

    (void) state;
    assert_non_null(mkdtemp(dir));
    snprintf(url, sizeof url, "sqlite:%s/h.db", dir);
    assert_int_equal(sked_engine_open(&o, &e, &err), 0);
    assert_int_equal(log_init(&lg, out, LOG_LOGFMT, LOG_INFO), 0);
    health_check(&s, e, &lg);
    sked__error_set(&err, SKED_ENOSPC, "db", -1, "h.db: the disk is full");
    sked__store_report(sked__engine_store(e), SKED_OP_FIRE, SKED_ENOSPC, &err);
    for (int i = 0; i < 5; i++)
        health_check(&s, e, &lg);
    sked__store_report(sked__engine_store(e), SKED_OP_FIRE, 0, NULL);
    health_check(&s, e, &lg);
    health_check(&s, e, &lg);
    log_done(&lg);
    fclose(out);
    assert_non_null(strstr(text, "level=error msg=\"database failing\" "
                                 "op=fire kind=disk_full "
                                 "error=\"h.db: the disk is full\""));
    assert_null(
        strstr(strstr(text, "database failing") + 1, "database failing"));
    assert_non_null(strstr(text, "level=info msg=\"database recovered\""));
    assert_null(
        strstr(strstr(text, "database recovered") + 1, "database recovered"));
    free(text);
    sked_engine_close(e);
    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    (void) !system(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decide_timeline),
        cmocka_unit_test(test_check_writes_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
