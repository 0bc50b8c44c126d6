/* SPDX-License-Identifier: MIT */
/* Tests of a step's environment (src/exec/step_env.c): the base every
 * command gets, what env_inherit brings from the server, the step's env
 * and the run variables, in that order of precedence; and that sked's own
 * variables (SKED_*) never come from the server, whatever is asked.
 *
 * Beside a few cases written out, thousands of generated ones: random
 * server environments (secrets, sked's configuration, look-alikes),
 * random inherit lists (sometimes naming sked's own), random step envs,
 * each checked against a model of the rules written here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/step_env.h"

/* The value of KEY in ENV, or NULL. */
static const char *get(char *const *env, const char *key)
{
    size_t n = strlen(key);

    for (size_t i = 0; env[i]; i++)
        if (strncmp(env[i], key, n) == 0 && env[i][n] == '=')
            return env[i] + n + 1;
    return NULL;
}

static size_t count(char *const *env)
{
    size_t n = 0;

    while (env[n])
        n++;
    return n;
}

static const char *const run_vars[] = {"SKED_RUN_ID=r1", "SKED_ATTEMPT=2",
                                       "SKED_STEP=s", NULL};

static void test_base_only(void **state)
{
    const char *server[] = {"PATH=/opt/evil/bin",
                            "HOME=/root",
                            "SKED_TOKEN=t0ps3cret",
                            "SKED_DB=postgres://u:pw@db/sked",
                            "SKED_SERVER=http://x",
                            "AWS_SECRET=abc",
                            "LANG=fr_FR.UTF-8",
                            "TZ=Europe/Paris",
                            "USER=root",
                            NULL};
    const char *step[] = {"GREETING=hi", "SKED_RUN_ID=mine", NULL};
    sked_step_env_in in = {.server = server,
                           .step = step,
                           .run = run_vars,
                           .user = "alice",
                           .home = "/home/alice"};
    char **env = NULL;

    (void) state;
    assert_int_equal(sked__step_env_compose(&in, &env), 0);
    assert_string_equal(get(env, "PATH"), SKED_STEP_PATH);
    assert_string_equal(get(env, "HOME"), "/home/alice");
    assert_string_equal(get(env, "USER"), "alice");
    assert_string_equal(get(env, "LOGNAME"), "alice");
    assert_string_equal(get(env, "SHELL"), "/bin/sh");
    assert_string_equal(get(env, "LANG"), "fr_FR.UTF-8");
    assert_string_equal(get(env, "TZ"), "Europe/Paris");
    assert_string_equal(get(env, "GREETING"), "hi");
    /* The run's variables win over the step's. */
    assert_string_equal(get(env, "SKED_RUN_ID"), "r1");
    assert_string_equal(get(env, "SKED_ATTEMPT"), "2");
    assert_null(get(env, "SKED_TOKEN"));
    assert_null(get(env, "SKED_DB"));
    assert_null(get(env, "SKED_SERVER"));
    assert_null(get(env, "AWS_SECRET"));
    assert_int_equal(count(env), 11);
    sked__step_env_free(env);

    /* An unknown user: HOME=/ and no USER or LOGNAME. */
    in.user = NULL;
    in.home = NULL;
    in.server = NULL;
    assert_int_equal(sked__step_env_compose(&in, &env), 0);
    assert_string_equal(get(env, "HOME"), "/");
    assert_null(get(env, "USER"));
    assert_null(get(env, "LOGNAME"));
    assert_null(get(env, "LANG"));
    sked__step_env_free(env);
}

static void test_inherit(void **state)
{
    const char *server[] = {"PATH=/opt/bin",
                            "SKED_TOKEN=t",
                            "SKED_DB=d",
                            "DATABASE_URL=pg://app",
                            "OTHER=o",
                            "SKED_RUN_ID=from-server",
                            NULL};
    const char *names[] = {"PATH", "DATABASE_URL", "SKED_TOKEN", "MISSING",
                           NULL};
    sked_step_env_in in = {.server = server,
                           .inherit = names,
                           .run = run_vars,
                           .user = "u",
                           .home = "/h"};
    char **env = NULL;

    (void) state;
    assert_int_equal(sked__step_env_compose(&in, &env), 0);
    assert_string_equal(get(env, "PATH"), "/opt/bin");
    assert_string_equal(get(env, "DATABASE_URL"), "pg://app");
    assert_null(get(env, "OTHER"));
    assert_null(get(env, "MISSING"));
    /* Even named (the parsers refuse it; this is the last line). */
    assert_null(get(env, "SKED_TOKEN"));
    assert_string_equal(get(env, "SKED_RUN_ID"), "r1");
    sked__step_env_free(env);

    in.inherit = NULL;
    in.inherit_all = true;
    assert_int_equal(sked__step_env_compose(&in, &env), 0);
    assert_string_equal(get(env, "OTHER"), "o");
    assert_string_equal(get(env, "DATABASE_URL"), "pg://app");
    assert_null(get(env, "SKED_TOKEN"));
    assert_null(get(env, "SKED_DB"));
    assert_string_equal(get(env, "SKED_RUN_ID"), "r1");
    sked__step_env_free(env);
}

static void test_inherit_problem(void **state)
{
    static const struct {
        const char *name;
        bool ok;
    } cases[] = {
        {"HOME", true},         {"_", true},
        {"a1", true},           {"LC_ALL", true},
        {"sked_token", true},   {"SKED", true},
        {"SKEDX_A", true},      {"", false},
        {"1A", false},          {"A-B", false},
        {"A=B", false},         {"A B", false},
        {"\xc3\xa9", false},    {"SKED_", false},
        {"SKED_TOKEN", false},  {"SKED_DB", false},
        {"SKED_SERVER", false}, {"SKED_ANYTHING", false},
    };
    char long_name[SKED_ENV_NAME_MAX + 2];

    (void) state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *why = sked__step_env_inherit_problem(cases[i].name);
        if ((why == NULL) != cases[i].ok)
            fail_msg("%s: %s", cases[i].name, why ? why : "accepted");
    }
    assert_non_null(sked__step_env_inherit_problem(NULL));
    memset(long_name, 'A', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    assert_non_null(sked__step_env_inherit_problem(long_name));
    long_name[SKED_ENV_NAME_MAX] = '\0';
    assert_null(sked__step_env_inherit_problem(long_name));
}

/* ---- generated cases ---------------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15u;

static unsigned pick(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned) (rng % n);
}

/* Names a server, a step or an inherit list may hold. */
static const char *const pool[] = {
    "PATH",    "HOME",        "USER",        "LOGNAME",  "SHELL",
    "LANG",    "TZ",          "LC_ALL",      "SECRET",   "DATABASE_URL",
    "A",       "sked_token",  "SKED",        "SKEDX",    "SKED_TOKEN",
    "SKED_DB", "SKED_SERVER", "SKED_RUN_ID", "SKED_FOO", "SKED_ATTEMPT",
};
#define POOL (sizeof pool / sizeof pool[0])

/* A model of the rules: the value KEY must have, or NULL. */
static const char *model(const char *key, const char *const *server, bool all,
                         const char *const *inherit, const char *const *step,
                         const char *user, const char *home)
{
    const char *v = NULL;
    size_t n = strlen(key);
    bool sked = strncmp(key, "SKED_", 5) == 0, named = false;

    if (strcmp(key, "PATH") == 0)
        v = SKED_STEP_PATH;
    if (strcmp(key, "HOME") == 0)
        v = home ? home : "/";
    if ((strcmp(key, "USER") == 0 || strcmp(key, "LOGNAME") == 0) && user)
        v = user;
    if (strcmp(key, "SHELL") == 0)
        v = "/bin/sh";
    for (size_t i = 0; inherit[i]; i++)
        named |= strcmp(inherit[i], key) == 0;
    for (size_t i = 0; server[i]; i++)
        if (strncmp(server[i], key, n) == 0 && server[i][n] == '=') {
            bool copied = strcmp(key, "LANG") == 0 || strcmp(key, "TZ") == 0;
            if (copied || (!sked && (all || named)))
                v = server[i] + n + 1; /* the last one set wins */
        }
    for (size_t i = 0; step[i]; i++)
        if (strncmp(step[i], key, n) == 0 && step[i][n] == '=')
            v = step[i] + n + 1;
    for (size_t i = 0; run_vars[i]; i++)
        if (strncmp(run_vars[i], key, n) == 0 && run_vars[i][n] == '=')
            v = run_vars[i] + n + 1;
    return v;
}

/* Fill V (room for POOL + 1) with up to MAX random "NAME=SRC-k" of the
 * pool, names possibly repeated; NULL-terminated. */
static void random_kvs(char (*buf)[64], const char **v, const char *src)
{
    unsigned n = pick(POOL);

    for (unsigned i = 0; i < n; i++) {
        snprintf(buf[i], 64, "%s=%s-%u", pool[pick(POOL)], src, pick(1000));
        v[i] = buf[i];
    }
    v[n] = NULL;
}

static void test_generated(void **state)
{
    char sbuf[POOL][64], tbuf[POOL][64];
    const char *server[POOL + 1], *step[POOL + 1], *inherit[POOL + 1];
    int failures = 0;

    (void) state;
    for (int c = 0; c < 5000 && failures < 5; c++) {
        unsigned ni = pick(POOL);
        bool all = pick(3) == 0;
        const char *user = pick(4) ? "u" : NULL;
        const char *home = pick(4) ? "/home/u" : NULL;
        char **env = NULL;

        random_kvs(sbuf, server, "server");
        random_kvs(tbuf, step, "step");
        for (unsigned i = 0; i < ni; i++)
            inherit[i] = pool[pick(POOL)];
        inherit[ni] = NULL;
        sked_step_env_in in = {.server = server,
                               .inherit_all = all,
                               .inherit = inherit,
                               .step = step,
                               .run = run_vars,
                               .user = user,
                               .home = home};
        assert_int_equal(sked__step_env_compose(&in, &env), 0);
        /* Every key of the pool has the model's value, or is absent. */
        for (size_t k = 0; k < POOL; k++) {
            const char *want =
                model(pool[k], server, all, inherit, step, user, home);
            const char *got = get(env, pool[k]);
            if ((want == NULL) != (got == NULL) ||
                (want && strcmp(want, got) != 0)) {
                print_error("case %d: %s: got %s, want %s\n", c, pool[k],
                            got ? got : "(none)", want ? want : "(none)");
                failures++;
            }
        }
        /* Each key once, and nothing from outside the pool and the run. */
        for (size_t i = 0; env[i]; i++) {
            size_t klen = strcspn(env[i], "=");
            for (size_t k = i + 1; env[k]; k++)
                if (strncmp(env[i], env[k], klen + 1) == 0)
                    failures++;
            /* A SKED_ value never comes from the server. */
            if (strncmp(env[i], "SKED_", 5) == 0 && strstr(env[i], "=server-"))
                failures++;
        }
        sked__step_env_free(env);
    }
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base_only),
        cmocka_unit_test(test_inherit),
        cmocka_unit_test(test_inherit_problem),
        cmocka_unit_test(test_generated),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
