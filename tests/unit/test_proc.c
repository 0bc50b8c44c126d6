/* SPDX-License-Identifier: MIT */
/* Tests of running commands (src/exec/proc.c) with real, short-lived
 * processes: exit statuses, argv and env passed exactly, cwd, the two
 * streams apart, errors before the start, deadlines and cancels (SIGTERM,
 * then SIGKILL to the whole group), bounded capture of huge output, UTF-8
 * repair, and many runs at once. Plus tables for sked__utf8_sanitize and
 * sked__utf8_len.
 *
 * Real processes live in real time, so the deadline tests wait for real;
 * each wait is a fraction of a second. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "exec/proc.h"
#include "exec/proc_guard.h"
#include "sked/schedule.h"

#define MS   (SKED_USEC_PER_SEC / 1000)
#define FFFD "\xEF\xBF\xBD"

static const char *const test_env[] = {"PATH=/usr/bin:/bin", NULL};

/* Run ARGV with the test environment and no limits; expect it started. */
static void run_ok(const char *const *argv, sked_proc_result *r)
{
    sked_proc_spec spec = {.argv = argv, .env = test_env};
    sked_error err;

    assert_int_equal(sked__proc_run(&spec, SKED_TIME_NONE, 0, NULL, r, &err),
                     0);
}

/* Run SPEC; expect it not to start with CODE, and leave R untouched. */
static void run_fails(const sked_proc_spec *spec, int code, sked_error *err)
{
    sked_proc_result r;

    memset(&r, 0x5a, sizeof r);
    assert_int_equal(sked__proc_run(spec, SKED_TIME_NONE, 0, NULL, &r, err),
                     code);
    assert_int_equal(err->code, code);
    assert_int_equal(r.exit_code, 0x5a5a5a5a);
}

/* ---- sked__utf8_sanitize ---------------------------------------------- */

static void test_utf8_table(void **state)
{
    static const struct {
        const char *in;
        size_t len;
        const char *want;
    } rows[] = {
#define ROW(in, want) {in, sizeof in - 1, want}
        ROW("", ""),
        ROW("plain ascii", "plain ascii"),
        ROW("a\0b", "a" FFFD "b"),
        ROW("\0\0", FFFD FFFD),
        ROW("\xC3\xA9t\xC3\xA9", "\xC3\xA9t\xC3\xA9"),
        ROW("\xC2\x80", "\xC2\x80"),                  /* U+0080 */
        ROW("\xDF\xBF", "\xDF\xBF"),                  /* U+07FF */
        ROW("\xC0\x80", FFFD FFFD),                   /* overlong NUL */
        ROW("\xC1\xBF", FFFD FFFD),                   /* overlong */
        ROW("\xE0\xA0\x80", "\xE0\xA0\x80"),          /* U+0800 */
        ROW("\xE0\x80\xAF", FFFD FFFD FFFD),          /* overlong '/' */
        ROW("\xE0\x9F\xBF", FFFD FFFD FFFD),          /* overlong */
        ROW("\xED\x9F\xBF", "\xED\x9F\xBF"),          /* U+D7FF */
        ROW("\xED\xA0\x80", FFFD FFFD FFFD),          /* U+D800, surrogate */
        ROW("\xED\xBF\xBF", FFFD FFFD FFFD),          /* U+DFFF, surrogate */
        ROW("\xEE\x80\x80", "\xEE\x80\x80"),          /* U+E000 */
        ROW("\xEF\xBF\xBF", "\xEF\xBF\xBF"),          /* U+FFFF */
        ROW("\xE2\x82\xAC", "\xE2\x82\xAC"),          /* euro sign */
        ROW("\xF0\x90\x80\x80", "\xF0\x90\x80\x80"),  /* U+10000 */
        ROW("\xF0\x8F\xBF\xBF", FFFD FFFD FFFD FFFD), /* overlong */
        ROW("\xF4\x8F\xBF\xBF", "\xF4\x8F\xBF\xBF"),  /* U+10FFFF */
        ROW("\xF4\x90\x80\x80", FFFD FFFD FFFD FFFD), /* U+110000 */
        ROW("\xF5\x80\x80\x80", FFFD FFFD FFFD FFFD),
        ROW("\xF8\x88\x80\x80\x80", FFFD FFFD FFFD FFFD FFFD),
        ROW("\xFE\xFF", FFFD FFFD),
        ROW("\x80x\xBF", FFFD "x" FFFD),    /* stray continuations */
        ROW("\xE2\x82", FFFD FFFD),         /* cut at the end */
        ROW("\xE2\x82\x41", FFFD FFFD "A"), /* cut in the middle */
        ROW("\xE2\x28\xA1", FFFD "(" FFFD),
        ROW("\xF0\x9F\x98", FFFD FFFD FFFD),
        ROW("a\xF0\x9F\x98\x80z", "a\xF0\x9F\x98\x80z"),
        ROW("\xC3\xC3\xA9", FFFD "\xC3\xA9"),
#undef ROW
    };
    char *out;
    size_t len;

    (void) state;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        assert_int_equal(
            sked__utf8_sanitize(rows[i].in, rows[i].len, &out, &len), 0);
        if (len != strlen(rows[i].want) || strcmp(out, rows[i].want) != 0)
            fail_msg("row %zu: got %zu bytes", i, len);
        assert_int_equal(out[len], '\0');
        free(out);
    }
    /* No bytes at all, not even a pointer. */
    assert_int_equal(sked__utf8_sanitize(NULL, 0, &out, &len), 0);
    assert_int_equal(len, 0);
    free(out);
}

/* The length of the sequence each row starts with, as the workflows file
 * checks its bytes: a NUL is one byte, a broken sequence none. */
static void test_utf8_len_table(void **state)
{
    static const struct {
        const char *in;
        size_t len, want;
    } rows[] = {
#define ROW(in, want) {in, sizeof in - 1, want}
        ROW("a", 1),
        ROW("\0", 1),
        ROW("\x7F", 1),
        ROW("\xC3\xA9", 2),
        ROW("\xC3", 0),         /* cut short */
        ROW("\xC1\xBF", 0),     /* overlong */
        ROW("\xE0\x9F\xBF", 0), /* overlong */
        ROW("\xE2\x82\xAC", 3), /* euro sign */
        ROW("\xED\xA0\x80", 0), /* surrogate */
        ROW("\xF0\x9F\x98\x80z", 4),
        ROW("\xF4\x90\x80\x80", 0), /* U+110000 */
        ROW("\xF5\x80\x80\x80", 0),
        ROW("\x80", 0), /* stray continuation */
        ROW("\xE2\x28\xA1", 0),
#undef ROW
    };

    (void) state;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (sked__utf8_len(rows[i].in, rows[i].len) != rows[i].want)
            fail_msg("row %zu", i);
}

/* ---- exits, argv, env, cwd, streams ----------------------------------- */

static void test_exit_codes(void **state)
{
    const char *ok[] = {"/bin/sh", "-c", "exit 0", NULL};
    const char *three[] = {"/bin/sh", "-c", "exit 3", NULL};
    const char *own[] = {"/bin/sh", "-c", "kill -USR1 $$", NULL};
    sked_proc_result r;

    (void) state;
    run_ok(ok, &r);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(r.term_signal, 0);
    assert_int_equal(r.stop, SKED_PROC_EXITED);
    assert_false(r.killed);
    assert_true(r.duration >= 0 && r.duration < 5 * SKED_USEC_PER_SEC);
    assert_string_equal(r.out, "");
    assert_int_equal(r.out_len, 0);
    sked__proc_result_done(&r);
    assert_null(r.out);

    run_ok(three, &r);
    assert_int_equal(r.exit_code, 3);
    sked__proc_result_done(&r);

    /* A signal of its own is not a stop by sked. */
    run_ok(own, &r);
    assert_int_equal(r.exit_code, -1);
    assert_int_equal(r.term_signal, SIGUSR1);
    assert_int_equal(r.stop, SKED_PROC_EXITED);
    sked__proc_result_done(&r);
    sked__proc_result_done(NULL);
}

static void test_argv_exactly(void **state)
{
    const char *argv[] = {"/usr/bin/printf", "[%s]\\n", "a b",       "",
                          "$HOME",           "*",       "\"q\" 'r'", NULL};
    sked_proc_result r;

    (void) state;
    run_ok(argv, &r);
    assert_string_equal(r.out, "[a b]\n[]\n[$HOME]\n[*]\n[\"q\" 'r']\n");
    sked__proc_result_done(&r);
}

static void test_env_exactly(void **state)
{
    const char *env[] = {"A=1", "B=two words", "EMPTY=", NULL};
    const char *argv[] = {"/usr/bin/env", NULL};
    sked_proc_spec spec = {.argv = argv, .env = env};
    sked_proc_result r;

    (void) state;
    assert_int_equal(sked__proc_run(&spec, SKED_TIME_NONE, 0, NULL, &r, NULL),
                     0);
    assert_string_equal(r.out, "A=1\nB=two words\nEMPTY=\n");
    sked__proc_result_done(&r);

    /* No environment at all. */
    spec.env = NULL;
    assert_int_equal(sked__proc_run(&spec, SKED_TIME_NONE, 0, NULL, &r, NULL),
                     0);
    assert_string_equal(r.out, "");
    assert_int_equal(r.exit_code, 0);
    sked__proc_result_done(&r);
}

/* A bare name is looked up in the PATH of the command's environment. */
static void test_path_lookup(void **state)
{
    const char *argv[] = {"printf", "found", NULL};
    const char *env_path[] = {"PATH=/nonexistent::rel:/usr/bin", NULL};
    const char *env_none[] = {"HOME=/", NULL};
    const char *env_bad[] = {"PATH=/nonexistent", NULL};
    sked_proc_spec spec = {.argv = argv, .env = env_path};
    sked_proc_result r;
    sked_error err;

    (void) state;
    assert_int_equal(sked__proc_run(&spec, SKED_TIME_NONE, 0, NULL, &r, &err),
                     0);
    assert_string_equal(r.out, "found");
    sked__proc_result_done(&r);

    spec.env = env_none; /* the default PATH */
    assert_int_equal(sked__proc_run(&spec, SKED_TIME_NONE, 0, NULL, &r, &err),
                     0);
    assert_string_equal(r.out, "found");
    sked__proc_result_done(&r);

    spec.env = env_bad;
    run_fails(&spec, SKED_ENOTFOUND, &err);
    assert_string_equal(err.msg, "exec printf: No such file or directory");
}

static void test_cwd(void **state)
{
    char tmpl[] = "/tmp/sked-proc-XXXXXX", real[4096];
    const char *argv[] = {"/bin/sh", "-c", "pwd -P", NULL};
    sked_proc_spec spec = {.argv = argv, .env = test_env};
    sked_proc_result r;
    char want[4200];

    (void) state;
    assert_non_null(mkdtemp(tmpl));
    assert_non_null(realpath(tmpl, real));
    spec.cwd = tmpl;
    assert_int_equal(sked__proc_run(&spec, SKED_TIME_NONE, 0, NULL, &r, NULL),
                     0);
    snprintf(want, sizeof want, "%s\n", real);
    assert_string_equal(r.out, want);
    sked__proc_result_done(&r);
    assert_int_equal(rmdir(tmpl), 0);
}

static void test_bad_cwd(void **state)
{
    const char *argv[] = {"/bin/true", NULL};
    sked_proc_spec spec = {
        .argv = argv, .env = test_env, .cwd = "/no/such/dir"};
    sked_error err;

    (void) state;
    run_fails(&spec, SKED_EINVAL, &err);
    assert_string_equal(err.field, "cwd");
    assert_string_equal(err.msg, "cwd /no/such/dir: No such file or directory");
    spec.cwd = "/etc/passwd";
    run_fails(&spec, SKED_EINVAL, &err);
    assert_string_equal(err.msg, "cwd /etc/passwd: Not a directory");
}

static void test_streams_apart(void **state)
{
    const char *argv[] = {"/bin/sh", "-c",
                          "echo out; echo err >&2; echo out2; exit 4", NULL};
    const char *cat[] = {"/bin/cat", NULL};
    sked_proc_result r;

    (void) state;
    run_ok(argv, &r);
    assert_string_equal(r.out, "out\nout2\n");
    assert_int_equal(r.out_len, 9);
    assert_string_equal(r.err, "err\n");
    assert_int_equal(r.err_len, 4);
    assert_false(r.out_truncated);
    assert_false(r.err_truncated);
    assert_int_equal(r.exit_code, 4);
    sked__proc_result_done(&r);

    /* stdin is /dev/null: cat ends at once. */
    run_ok(cat, &r);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.out, "");
    sked__proc_result_done(&r);
}

/* ---- failures to start ------------------------------------------------- */

static void test_not_found(void **state)
{
    const char *argv[] = {"/no/such", NULL};
    const char *bare[] = {"no-such-program-for-sked", NULL};
    const char *empty[] = {"", NULL};
    sked_proc_spec spec = {.argv = argv, .env = test_env};
    sked_error err;

    (void) state;
    run_fails(&spec, SKED_ENOTFOUND, &err);
    assert_string_equal(err.msg, "exec /no/such: No such file or directory");
    spec.argv = bare;
    run_fails(&spec, SKED_ENOTFOUND, &err);
    assert_string_equal(
        err.msg, "exec no-such-program-for-sked: No such file or directory");
    spec.argv = empty;
    run_fails(&spec, SKED_ENOTFOUND, &err);

    /* No program at all. */
    spec.argv = NULL;
    run_fails(&spec, SKED_EINVAL, &err);
    assert_int_equal(sked__proc_run(NULL, SKED_TIME_NONE, 0, NULL, NULL, NULL),
                     SKED_EINVAL);
}

/* Write a file TEXT at PATH with MODE. */
static void write_file(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(chmod(path, mode), 0);
}

static void test_not_executable(void **state)
{
    char dir[] = "/tmp/sked-proc-XXXXXX", file[64], script[64], msg[200];
    const char *argv[] = {file, NULL};
    sked_proc_spec spec = {.argv = argv, .env = test_env};
    sked_error err;

    (void) state;
    assert_non_null(mkdtemp(dir));
    snprintf(file, sizeof file, "%s/data", dir);
    write_file(file, "not a program\n", 0644);
    run_fails(&spec, SKED_EINVAL, &err);
    snprintf(msg, sizeof msg, "exec %s: Permission denied", file);
    assert_string_equal(err.msg, msg);

    /* Executable, but neither ELF nor #!: no shell is tried. */
    snprintf(script, sizeof script, "%s/script", dir);
    write_file(script, "echo hi\n", 0755);
    argv[0] = script;
    run_fails(&spec, SKED_EINVAL, &err);
    snprintf(msg, sizeof msg, "exec %s: Exec format error", script);
    assert_string_equal(err.msg, msg);

    /* A directory. */
    argv[0] = dir;
    run_fails(&spec, SKED_EINVAL, &err);
    assert_int_equal(unlink(file), 0);
    assert_int_equal(unlink(script), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* ---- deadlines and cancels --------------------------------------------- */

/* Return how long ago START was, in ms. */
static long ms_since(sked_mono start)
{
    return (long) ((sked__clock_mono(NULL) - start) / MS);
}

static void test_deadline_term(void **state)
{
    const char *argv[] = {"/bin/sleep", "30", NULL};
    sked_proc_spec spec = {.argv = argv, .env = test_env};
    struct sigaction ign = {.sa_handler = SIG_IGN}, old;
    sigset_t term, oldmask;
    sked_proc_result r;
    sked_mono t0;
    long ms;

    (void) state;
    /* The server ignoring and blocking SIGTERM must not pass it on. */
    assert_int_equal(sigaction(SIGTERM, &ign, &old), 0);
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    assert_int_equal(pthread_sigmask(SIG_BLOCK, &term, &oldmask), 0);
    t0 = sked__clock_mono(NULL);
    assert_int_equal(sked__proc_run(&spec, sked__clock_now(NULL) + 200 * MS,
                                    5 * SKED_USEC_PER_SEC, NULL, &r, NULL),
                     0);
    ms = ms_since(t0);
    assert_int_equal(pthread_sigmask(SIG_SETMASK, &oldmask, NULL), 0);
    assert_int_equal(sigaction(SIGTERM, &old, NULL), 0);
    assert_true(ms >= 190 && ms < 2000);
    assert_int_equal(r.stop, SKED_PROC_DEADLINE);
    assert_int_equal(r.term_signal, SIGTERM);
    assert_int_equal(r.exit_code, -1);
    assert_false(r.killed);
    sked__proc_result_done(&r);

    /* A deadline already past stops it at once. */
    t0 = sked__clock_mono(NULL);
    assert_int_equal(
        sked__proc_run(&spec, sked__clock_now(NULL) - 1, 0, NULL, &r, NULL), 0);
    assert_true(ms_since(t0) < 1000);
    assert_int_equal(r.stop, SKED_PROC_DEADLINE);
    sked__proc_result_done(&r);
}

/* Return true when process PID is gone or a zombie. */
static bool process_dead(long pid)
{
    char path[64], buf[512], *p;
    FILE *f;
    size_t n;

    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    f = fopen(path, "r");
    if (!f)
        return true;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    p = strrchr(buf, ')');
    return !p || p[1] == '\0' || p[2] == 'Z' || p[2] == 'X';
}

/* Return true when process PID dies within a second. A process closes its
 * files (our pipes see their end) a moment before it becomes a zombie. */
static bool process_dies(long pid)
{
    struct timespec ts = {0, 10 * 1000 * 1000};

    for (int i = 0; i < 100; i++) {
        if (process_dead(pid))
            return true;
        nanosleep(&ts, NULL);
    }
    return false;
}

/* A group that ignores SIGTERM gets SIGKILL after the grace, grandchild
 * included. */
static void test_deadline_kill_group(void **state)
{
    const char *argv[] = {"/bin/sh", "-c",
                          "trap '' TERM; sleep 30 & echo $!; wait; wait", NULL};
    sked_proc_spec spec = {.argv = argv, .env = test_env};
    sked_proc_result r;
    sked_mono t0;
    long ms, grandchild;

    (void) state;
    t0 = sked__clock_mono(NULL);
    assert_int_equal(sked__proc_run(&spec, sked__clock_now(NULL) + 200 * MS,
                                    300 * MS, NULL, &r, NULL),
                     0);
    ms = ms_since(t0);
    assert_true(ms >= 450 && ms < 3000);
    assert_int_equal(r.stop, SKED_PROC_DEADLINE);
    assert_true(r.killed);
    assert_int_equal(r.term_signal, SIGKILL);
    grandchild = strtol(r.out, NULL, 10);
    assert_true(grandchild > 1);
    assert_true(process_dies(grandchild));
    sked__proc_result_done(&r);
}

/* ---- the guard: commands die with their server -------------------------- */

/* The guards of process PARENT: its children named sked-guard (the
 * shell's argv[0], or the forked guard's name). Up to MAX pids into OUT;
 * returns how many there are. */
static int guards_of(pid_t parent, long *out, int max)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;

    assert_non_null(d);
    while ((e = readdir(d)) != NULL) {
        char path[300], buf[512], *p;
        long pid = strtol(e->d_name, &p, 10), ppid = 0;
        size_t len;
        FILE *f;

        if (pid <= 0 || *p != '\0')
            continue;
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        if (!(f = fopen(path, "r")))
            continue;
        len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = '\0';
        p = strrchr(buf, ')');
        if (!p || sscanf(p + 1, " %*c %ld", &ppid) != 1 || ppid != parent ||
            p[2] == 'Z')
            continue;
        bool named = strstr(buf, "(sked-guard)") != NULL;
        snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
        if (!named && (f = fopen(path, "r")) != NULL) {
            len = fread(buf, 1, sizeof buf - 1, f);
            fclose(f);
            buf[len] = '\0';
            named = strcmp(buf, "sked-guard") == 0;
        }
        if (named && n < max)
            out[n] = pid;
        n += named;
    }
    closedir(d);
    return n;
}

/* guards_of, looked at again for up to two seconds until there are WANT:
 * a forked guard takes its name a moment after it exists. */
static int guards_now(int want, long *out, int max)
{
    struct timespec ts = {0, 20 * 1000 * 1000};
    int n = guards_of(getpid(), out, max);

    for (int i = 0; i < 100 && n != want; i++) {
        nanosleep(&ts, NULL);
        n = guards_of(getpid(), out, max);
    }
    return n;
}

static void *run_sleep(void *arg)
{
    const char *argv[] = {"/bin/sleep", "0.6", NULL};
    sked_proc_result r;

    (void) arg;
    run_ok(argv, &r);
    assert_int_equal(r.exit_code, 0);
    sked__proc_result_done(&r);
    return NULL;
}

/* Commands cost no process of their own beside them: one guard serves
 * every command of the process, at once and one after another. */
static void test_one_guard_for_all(void **state)
{
    const char *argv[] = {"/bin/true", NULL};
    struct timespec ts = {0, 300 * 1000 * 1000};
    long during[8], after[8];
    sked_proc_result r;
    pthread_t t[4];

    (void) state;
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, run_sleep, NULL), 0);
    nanosleep(&ts, NULL);
    assert_int_equal(guards_now(1, during, 8), 1);
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    for (int i = 0; i < 3; i++) {
        run_ok(argv, &r);
        assert_int_equal(r.exit_code, 0);
        sked__proc_result_done(&r);
    }
    assert_int_equal(guards_now(1, after, 8), 1);
    assert_int_equal(after[0], during[0]);
}

/* Threads of a fresh process starting their first commands at once. */
#define AT_ONCE 8
static pthread_barrier_t at_once;

static void *first_command(void *arg)
{
    const char *argv[] = {"/bin/sleep", "0.3", NULL};
    sked_proc_spec spec = {.argv = argv, .env = test_env};
    sked_proc_result r;
    bool *ok = arg;

    (void) pthread_barrier_wait(&at_once);
    *ok = sked__proc_run(&spec, SKED_TIME_NONE, 0, NULL, &r, NULL) == 0 &&
          r.exit_code == 0 && r.term_signal == 0;
    sked__proc_result_done(&r);
    return NULL;
}

/* In a new process (this test run again, "first-commands" its argument):
 * start AT_ONCE first commands at once; exit 0 when each ran to its end
 * and one guard served them all. */
static _Noreturn void first_commands_at_once(void)
{
    struct timespec ts = {0, 150 * 1000 * 1000};
    pthread_t t[AT_ONCE];
    bool ok[AT_ONCE];
    long g[8];
    int n;

    if (pthread_barrier_init(&at_once, NULL, AT_ONCE) != 0)
        _exit(3);
    for (int i = 0; i < AT_ONCE; i++)
        if (pthread_create(&t[i], NULL, first_command, &ok[i]) != 0)
            _exit(3);
    nanosleep(&ts, NULL);
    n = guards_now(1, g, 8);
    for (int i = 0; i < AT_ONCE; i++)
        if (pthread_join(t[i], NULL) != 0 || !ok[i])
            _exit(1);
    _exit(n == 1 ? 0 : 2);
}

/* The first commands of a process, started at once, start one guard
 * between them, and none is killed by a guard started after its own. */
static void test_first_commands_at_once(void **state)
{
    (void) state;
    for (int round = 0; round < 5; round++) {
        pid_t c = fork();
        int st;

        assert_true(c >= 0);
        if (c == 0) {
            /* Not a fork alone: a fork has its parent's guard to replace,
             * a new process has none yet. */
            execl("/proc/self/exe", "test_proc", "first-commands",
                  (char *) NULL);
            _exit(4);
        }
        assert_int_equal(waitpid(c, &st, 0), c);
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), 0);
    }
}

/* A guard that is killed is replaced at the next command, which runs. */
static void test_guard_killed(void **state)
{
    const char *argv[] = {"/bin/true", NULL};
    long before[8], after[8];
    sked_proc_result r;

    (void) state;
    run_ok(argv, &r);
    sked__proc_result_done(&r);
    assert_int_equal(guards_now(1, before, 8), 1);
    assert_int_equal(kill((pid_t) before[0], SIGKILL), 0);
    assert_true(process_dies(before[0]));
    run_ok(argv, &r);
    assert_int_equal(r.exit_code, 0);
    sked__proc_result_done(&r);
    assert_int_equal(guards_now(1, after, 8), 1);
    assert_true(after[0] != before[0]);
}

/* Where a forked "server" says it is ready for its death to be tested,
 * when it was asked to do something first. */
static char ready_file[160];

static void mark_ready(void)
{
    FILE *f = fopen(ready_file, "w");

    if (!f || fclose(f) != 0)
        _exit(4);
}

/* In a forked "server": run a command, so that the server has a guard, and
 * kill that guard; the server's next command gets another. */
static void kill_own_guard(void)
{
    const char *argv[] = {"/bin/true", NULL};
    sked_proc_spec spec = {.argv = argv, .env = test_env};
    sked_proc_result r;
    long g[8];

    if (sked__proc_run(&spec, SKED_TIME_NONE, 0, NULL, &r, NULL) != 0)
        _exit(2);
    sked__proc_result_done(&r);
    if (guards_now(1, g, 8) != 1 || kill((pid_t) g[0], SIGKILL) != 0 ||
        !process_dies(g[0]))
        _exit(3);
    mark_ready();
}

/* In a forked "server" whose command runs: kill its guard, and wait until
 * another has been started (by the command's waiter, with no new command
 * to start it). */
static void *replace_guard(void *arg)
{
    struct timespec ts = {0, 20 * 1000 * 1000};
    long g[8], old;

    (void) arg;
    nanosleep(&ts, NULL);
    for (int i = 0; i < 100 && guards_of(getpid(), g, 8) != 1; i++)
        nanosleep(&ts, NULL);
    old = g[0];
    if (kill((pid_t) old, SIGKILL) != 0 || !process_dies(old))
        _exit(3);
    for (int i = 0; i < 100; i++) {
        if (guards_of(getpid(), g, 8) == 1 && g[0] != old) {
            mark_ready();
            return NULL;
        }
        nanosleep(&ts, NULL);
    }
    return NULL; /* never ready: the test fails */
}

static void kill_guard_meanwhile(void)
{
    pthread_t t;

    if (pthread_create(&t, NULL, replace_guard, NULL) != 0 ||
        pthread_detach(t) != 0)
        _exit(2);
}

/* Kill "a server" (a forked process running one command, after BEFORE
 * when not NULL, and once it is ready then) with SIGKILL while its command
 * runs; return how many of the command and its grandchild (which ignores
 * TERM and HUP, and would outlive a signal to the command alone) are still
 * alive a second later (each killed then). */
static int survivors_of_server_death(const char *script_fmt,
                                     void (*before)(void))
{
    char dir[] = "/tmp/sked-guard-XXXXXX", file[128], script[512];
    const char *argv[] = {"/bin/sh", "-c", script, NULL};
    sked_proc_spec spec = {.argv = argv, .env = test_env};
    long pids[2] = {0, 0};
    int alive = 0, found = 0;
    pid_t server;
    FILE *f;

    assert_non_null(mkdtemp(dir));
    snprintf(file, sizeof file, "%s/pids", dir);
    snprintf(ready_file, sizeof ready_file, "%s/ready", dir);
    snprintf(script, sizeof script, script_fmt, file, file, file);
    server = fork();
    assert_true(server >= 0);
    if (server == 0) {
        sked_proc_result r;
        if (before)
            before();
        _exit(sked__proc_run(&spec, SKED_TIME_NONE, 0, NULL, &r, NULL) != 0);
    }
    for (int i = 0; i < 500; i++) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        if (found != 2 && (f = fopen(file, "r")) != NULL) {
            found = fscanf(f, "%ld %ld", &pids[0], &pids[1]);
            fclose(f);
        }
        if (found == 2 && (!before || access(ready_file, F_OK) == 0))
            break;
        nanosleep(&ts, NULL);
    }
    bool ready = !before || access(ready_file, F_OK) == 0;
    (void) kill(server, SIGKILL);
    (void) waitpid(server, NULL, 0);
    for (int i = 0; i < 2; i++)
        if (pids[i] > 1 && !process_dies(pids[i])) {
            alive++;
            (void) kill((pid_t) pids[i], SIGKILL);
        }
    (void) unlink(file);
    (void) unlink(ready_file);
    assert_int_equal(rmdir(dir), 0);
    assert_int_equal(found, 2);
    assert_true(ready);
    return alive;
}

static void test_dies_with_server(void **state)
{
    (void) state;
    /* A command and a grandchild in the background. */
    assert_int_equal(
        survivors_of_server_death("trap '' TERM HUP; sleep 60 & "
                                  "echo $$ $! > %s.tmp; mv %s.tmp %s; wait",
                                  NULL),
        0);
    /* A grandchild that is a shell with a child of its own, all ignoring
     * TERM, and a command that sends its own group a TERM. */
    assert_int_equal(
        survivors_of_server_death("trap '' TERM; (sleep 60; :) & "
                                  "kill -TERM 0; "
                                  "echo $$ $! > %s.tmp; mv %s.tmp %s; wait",
                                  NULL),
        0);
    /* The same after the server's first guard was killed. */
    assert_int_equal(
        survivors_of_server_death("trap '' TERM HUP; sleep 60 & "
                                  "echo $$ $! > %s.tmp; mv %s.tmp %s; wait",
                                  kill_own_guard),
        0);
    /* The same when the guard is killed while the command runs. */
    assert_int_equal(
        survivors_of_server_death("trap '' TERM HUP; sleep 60 & "
                                  "echo $$ $! > %s.tmp; mv %s.tmp %s; wait",
                                  kill_guard_meanwhile),
        0);
}

/* Fork "a server" that runs BODY, which returns the pid of a process it
 * leaves running; kill the server with SIGKILL then, and return whether
 * that process outlived it by a second (it is killed after). */
static bool outlives_server(long (*body)(void))
{
    long pid = 0;
    pid_t server;
    int p[2];

    assert_int_equal(pipe(p), 0);
    server = fork();
    assert_true(server >= 0);
    if (server == 0) {
        (void) close(p[0]);
        pid = body();
        if (pid <= 1 || write(p[1], &pid, sizeof pid) != sizeof pid)
            _exit(3);
        pause();
        _exit(0);
    }
    (void) close(p[1]);
    assert_int_equal(read(p[0], &pid, sizeof pid), sizeof pid);
    (void) close(p[0]);
    (void) kill(server, SIGKILL);
    (void) waitpid(server, NULL, 0);
    bool died = process_dies(pid);
    (void) kill((pid_t) pid, SIGKILL);
    return !died;
}

/* A command that ends by itself, leaving a process in its group. */
static long leave_leftover(void)
{
    const char *argv[] = {"/bin/sh", "-c", "sleep 60 & echo $!", NULL};
    sked_proc_spec spec = {.argv = argv, .env = test_env};
    sked_proc_result r;

    if (sked__proc_run(&spec, SKED_TIME_NONE, 0, NULL, &r, NULL) != 0)
        _exit(2);
    return strtol(r.out, NULL, 10);
}

/* What a command left running once it ended by itself is left running when
 * the server dies later: its group was withdrawn from the guard. */
static void test_leftover_outlives_server(void **state)
{
    (void) state;
    assert_true(outlives_server(leave_leftover));
}

static void *cancel_later(void *arg)
{
    struct timespec ts = {0, 150 * 1000 * 1000};

    nanosleep(&ts, NULL);
    sked__cancel_set(arg, 7);
    return NULL;
}

static void test_cancel(void **state)
{
    const char *argv[] = {"/bin/sleep", "30", NULL};
    sked_proc_spec spec = {.argv = argv, .env = test_env};
    sked_proc_result r;
    sked_cancel c;
    pthread_t t;
    sked_mono t0;
    long ms;

    (void) state;
    assert_int_equal(sked__cancel_init(&c), 0);
    t0 = sked__clock_mono(NULL);
    assert_int_equal(pthread_create(&t, NULL, cancel_later, &c), 0);
    assert_int_equal(sked__proc_run(&spec, sked__clock_now(NULL) + 20000 * MS,
                                    0, &c, &r, NULL),
                     0);
    ms = ms_since(t0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_true(ms >= 140 && ms < 2000);
    assert_int_equal(r.stop, SKED_PROC_CANCELLED);
    assert_int_equal(r.term_signal, SIGTERM);
    assert_false(r.killed);
    sked__proc_result_done(&r);

    /* Already set: stopped at once. */
    assert_int_equal(sked__proc_run(&spec, SKED_TIME_NONE, 0, &c, &r, NULL), 0);
    assert_int_equal(r.stop, SKED_PROC_CANCELLED);
    sked__proc_result_done(&r);
    sked__cancel_close(&c);
}

/* What the command leaves behind holding its pipes is not waited for. */
static void test_background_holds_pipe(void **state)
{
    const char *argv[] = {"/bin/sh", "-c", "sleep 30 & echo $!", NULL};
    sked_proc_result r;
    sked_mono t0;
    long pid;

    (void) state;
    t0 = sked__clock_mono(NULL);
    run_ok(argv, &r);
    assert_true(ms_since(t0) < 3000);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(r.stop, SKED_PROC_EXITED);
    pid = strtol(r.out, NULL, 10);
    assert_true(pid > 1);
    assert_int_equal(kill((pid_t) pid, SIGKILL), 0);
    sked__proc_result_done(&r);
}

/* ---- output ------------------------------------------------------------ */

static long max_rss_kb(void)
{
    struct rusage ru;

    assert_int_equal(getrusage(RUSAGE_SELF, &ru), 0);
    return ru.ru_maxrss;
}

static void test_huge_output_bounded(void **state)
{
    const char *argv[] = {"/bin/sh", "-c",
                          "(yes e | head -c 10000000 >&2) & "
                          "yes o | head -c 10000000; wait",
                          NULL};
    sked_proc_result r;
    long rss0 = max_rss_kb();

    (void) state;
    run_ok(argv, &r);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(r.out_len, SKED_PROC_CAPTURE_DEFAULT);
    assert_int_equal(r.err_len, SKED_PROC_CAPTURE_DEFAULT);
    assert_true(r.out_truncated);
    assert_true(r.err_truncated);
    assert_memory_equal(r.out, "o\no\no\n", 6);
    assert_memory_equal(r.err + r.err_len - 4, "e\ne\n", 4);
    assert_true(max_rss_kb() - rss0 < 8 * 1024);
    sked__proc_result_done(&r);
}

static void test_invalid_utf8_replaced(void **state)
{
    const char *argv[] = {"/usr/bin/printf", "a\\000b\\377c\\342\\202", NULL};
    sked_proc_result r;

    (void) state;
    run_ok(argv, &r);
    assert_string_equal(r.out, "a" FFFD "b" FFFD "c" FFFD FFFD);
    assert_int_equal(r.out_len, strlen(r.out));
    assert_false(r.out_truncated);
    sked__proc_result_done(&r);
}

/* A capture cut inside a character ends before it, not on U+FFFD. */
static void test_truncation_mid_character(void **state)
{
    static const struct {
        size_t max;
        const char *want;
        bool truncated;
    } rows[] = {
        {1, "a", true},
        {2, "a", true},
        {3, "a\xC3\xA9", true},
        {4, "a\xC3\xA9", true},
        {5, "a\xC3\xA9", true},
        {6, "a\xC3\xA9\xE2\x82\xAC", true},
        {7, "a\xC3\xA9\xE2\x82\xAC", true},
        {10, "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80", true},
        {11, "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80z", false},
    };
    /* a, e-acute, euro, an emoji, z: 1 + 2 + 3 + 4 + 1 bytes. */
    const char *argv[] = {"/usr/bin/printf",
                          "a\\303\\251\\342\\202\\254\\360\\237\\230\\200z",
                          NULL};
    sked_proc_spec spec = {.argv = argv, .env = test_env};
    sked_proc_result r;

    (void) state;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        spec.capture_max = rows[i].max;
        assert_int_equal(
            sked__proc_run(&spec, SKED_TIME_NONE, 0, NULL, &r, NULL), 0);
        if (strcmp(r.out, rows[i].want) != 0 ||
            r.out_truncated != rows[i].truncated)
            fail_msg("capture_max %zu: got %zu bytes", rows[i].max, r.out_len);
        sked__proc_result_done(&r);
    }
}

/* ---- users ------------------------------------------------------------- */

static void test_user(void **state)
{
    const char *argv[] = {"/usr/bin/id", "-u", NULL};
    const char *missing[] = {"/no/such", NULL};
    sked_proc_spec spec = {.argv = argv, .env = test_env};
    struct passwd *me = getpwuid(geteuid()), *nobody;
    sked_proc_result r;
    sked_error err;
    char want[32];

    (void) state;
    spec.user = "no-such-user-for-sked";
    run_fails(&spec, SKED_EINVAL, &err);
    assert_string_equal(err.field, "user");
    assert_string_equal(err.msg, "user no-such-user-for-sked: no such user");

    /* Oneself: always fine. */
    assert_non_null(me);
    spec.user = me->pw_name;
    assert_int_equal(sked__proc_run(&spec, SKED_TIME_NONE, 0, NULL, &r, NULL),
                     0);
    snprintf(want, sizeof want, "%ld\n", (long) geteuid());
    assert_string_equal(r.out, want);
    sked__proc_result_done(&r);

    if (geteuid() != 0) {
        spec.user = "root";
        run_fails(&spec, SKED_EINVAL, &err);
        return;
    }
    nobody = getpwnam("nobody");
    if (!nobody)
        skip();
    snprintf(want, sizeof want, "%ld\n", (long) nobody->pw_uid);
    spec.user = "nobody";
    spec.cwd = "/";
    assert_int_equal(sked__proc_run(&spec, SKED_TIME_NONE, 0, NULL, &r, NULL),
                     0);
    assert_string_equal(r.out, want);
    assert_int_equal(r.exit_code, 0);
    sked__proc_result_done(&r);

    /* The fork path reports its failures like posix_spawn's. */
    spec.argv = missing;
    run_fails(&spec, SKED_ENOTFOUND, &err);
    assert_string_equal(err.msg, "exec /no/such: No such file or directory");
    spec.argv = argv;
    spec.cwd = "/no/such/dir";
    run_fails(&spec, SKED_EINVAL, &err);
    assert_string_equal(err.field, "cwd");
}

/* A directory root may enter but the user may not is refused. */
static void test_user_cwd_rights(void **state)
{
    char dir[] = "/tmp/sked-proc-XXXXXX";
    const char *argv[] = {"/bin/true", NULL};
    sked_proc_spec spec = {
        .argv = argv, .env = test_env, .user = "nobody", .cwd = dir};
    sked_error err;

    (void) state;
    if (geteuid() != 0 || !getpwnam("nobody"))
        skip();
    assert_non_null(mkdtemp(dir));
    assert_int_equal(chmod(dir, 0700), 0);
    run_fails(&spec, SKED_EINVAL, &err);
    assert_string_equal(err.field, "cwd");
    assert_non_null(strstr(err.msg, "Permission denied"));
    assert_int_equal(rmdir(dir), 0);
}

/* ---- no leaks ---------------------------------------------------------- */

/* Return the number of open file descriptors of this process. */
static int open_fds(void)
{
    int n = 0;

    for (int fd = 0; fd < 1024; fd++)
        if (fcntl(fd, F_GETFD) != -1)
            n++;
    return n;
}

/* Every path closes what it opened: started or not, stopped or not, by
 * posix_spawn or by fork. */
static void test_no_fd_leak(void **state)
{
    const char *ok[] = {"/bin/sh", "-c", "echo x; echo y >&2", NULL};
    const char *sleep30[] = {"/bin/sleep", "30", NULL};
    const char *missing[] = {"/no/such", NULL};
    sked_proc_spec spec = {.argv = ok, .env = test_env};
    sked_proc_result r;
    int before = open_fds();

    (void) state;
    for (int as_nobody = 0; as_nobody < 2; as_nobody++) {
        if (as_nobody && (geteuid() != 0 || !getpwnam("nobody")))
            break;
        spec.user = as_nobody ? "nobody" : NULL;
        spec.argv = ok;
        spec.cwd = NULL;
        assert_int_equal(
            sked__proc_run(&spec, SKED_TIME_NONE, 0, NULL, &r, NULL), 0);
        sked__proc_result_done(&r);
        spec.argv = sleep30;
        assert_int_equal(
            sked__proc_run(&spec, sked__clock_now(NULL), 0, NULL, &r, NULL), 0);
        sked__proc_result_done(&r);
        spec.argv = missing;
        assert_int_equal(
            sked__proc_run(&spec, SKED_TIME_NONE, 0, NULL, &r, NULL),
            SKED_ENOTFOUND);
        spec.argv = ok;
        spec.cwd = "/no/such/dir";
        assert_int_equal(
            sked__proc_run(&spec, SKED_TIME_NONE, 0, NULL, &r, NULL),
            SKED_EINVAL);
    }
    assert_int_equal(open_fds(), before);
}

/* ---- many at once ------------------------------------------------------ */

#define THREADS 8
#define RUNS    20

typedef struct worker {
    int id;
    int failures;
} worker;

/* Run RUNS commands; count what went wrong (cmocka asserts only on the
 * main thread). */
static void *run_many(void *arg)
{
    worker *w = arg;
    char tag[32], want[80];
    const char *argv[] = {"/bin/sh", "-c", "printf \"<$1>\"; printf \"$1\" >&2",
                          "sh",      tag,  NULL};
    sked_proc_spec spec = {.argv = argv, .env = test_env};
    sked_proc_result r;

    for (int i = 0; i < RUNS; i++) {
        snprintf(tag, sizeof tag, "t%d-r%d", w->id, i);
        snprintf(want, sizeof want, "<%s>", tag);
        if (sked__proc_run(&spec, sked__clock_now(NULL) + 30000 * MS, 0, NULL,
                           &r, NULL) != 0) {
            w->failures++;
            continue;
        }
        if (strcmp(r.out, want) != 0 || strcmp(r.err, tag) != 0 ||
            r.exit_code != 0 || r.stop != SKED_PROC_EXITED)
            w->failures++;
        sked__proc_result_done(&r);
    }
    return NULL;
}

static void test_parallel(void **state)
{
    pthread_t t[THREADS];
    worker w[THREADS];

    (void) state;
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){i, 0};
        assert_int_equal(pthread_create(&t[i], NULL, run_many, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
        assert_int_equal(w[i].failures, 0);
    }
}

/* A process leading a group of its own, enlisted with the guard twice
 * (as around a guard's replacement), then withdrawn once. */
static long enlist_twice(void)
{
    struct timespec ts = {0, 200 * 1000 * 1000};
    unsigned gen;
    int fd = sked__proc_guard_fd(&gen);
    pid_t c;

    if (fd < 0 || (c = fork()) < 0)
        _exit(2);
    if (c == 0) {
        if (setpgid(0, 0) != 0 || sked__proc_guard_enlist(fd) != 0 ||
            sked__proc_guard_enlist(fd) != 0)
            _exit(3);
        execl("/bin/sleep", "sleep", "60", (char *) NULL);
        _exit(4);
    }
    nanosleep(&ts, NULL); /* enlisted (twice) and exec'd by then */
    sked__proc_guard_withdraw(c);
    return c;
}

/* A group enlisted twice and withdrawn once is left alone when the server
 * dies. */
static void test_enlisted_twice(void **state)
{
    (void) state;
    assert_true(outlives_server(enlist_twice));
}

/* Where there is no /bin/sh, the guard is a fork of the process: the same
 * guarantees. */
static void test_forked_guard(void **state)
{
    const char *argv[] = {"/bin/true", NULL};
    sked_proc_result r;
    char path[64], cmd[256] = "";
    long g[8];
    FILE *f;

    sked__proc_guard_test_shell(NULL);
    run_ok(argv, &r);
    sked__proc_result_done(&r);
    assert_int_equal(guards_now(1, g, 8), 1);
    /* The fork: the test's own command line, not the shell's. */
    snprintf(path, sizeof path, "/proc/%ld/cmdline", g[0]);
    assert_non_null(f = fopen(path, "r"));
    assert_true(fread(cmd, 1, sizeof cmd - 1, f) > 0);
    fclose(f);
    assert_non_null(strstr(cmd, "test_proc"));
    test_guard_killed(state);
    test_dies_with_server(state);
    test_leftover_outlives_server(state);
    test_enlisted_twice(state);
    sked__proc_guard_test_shell("/bin/sh");
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "first-commands") == 0)
        first_commands_at_once();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_utf8_table),
        cmocka_unit_test(test_utf8_len_table),
        cmocka_unit_test(test_exit_codes),
        cmocka_unit_test(test_argv_exactly),
        cmocka_unit_test(test_env_exactly),
        cmocka_unit_test(test_path_lookup),
        cmocka_unit_test(test_cwd),
        cmocka_unit_test(test_bad_cwd),
        cmocka_unit_test(test_streams_apart),
        cmocka_unit_test(test_not_found),
        cmocka_unit_test(test_not_executable),
        cmocka_unit_test(test_deadline_term),
        cmocka_unit_test(test_deadline_kill_group),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_background_holds_pipe),
        cmocka_unit_test(test_huge_output_bounded),
        cmocka_unit_test(test_invalid_utf8_replaced),
        cmocka_unit_test(test_truncation_mid_character),
        cmocka_unit_test(test_user),
        cmocka_unit_test(test_user_cwd_rights),
        cmocka_unit_test(test_no_fd_leak),
        cmocka_unit_test(test_parallel),
        cmocka_unit_test(test_one_guard_for_all),
        cmocka_unit_test(test_first_commands_at_once),
        cmocka_unit_test(test_guard_killed),
        cmocka_unit_test(test_dies_with_server),
        cmocka_unit_test(test_leftover_outlives_server),
        cmocka_unit_test(test_enlisted_twice),
        cmocka_unit_test(test_forked_guard),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
