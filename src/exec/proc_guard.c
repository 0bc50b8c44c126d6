/* SPDX-License-Identifier: MIT */
/* The guard of a command's process group (proc_guard.h).
 *
 * Why a guard process, and not one of Linux's other means:
 * - PR_SET_PDEATHSIG reaches the command alone (not its children), and
 *   fires when the thread that started it ends, not the server;
 * - a subreaper inherits orphans but does not kill them, and dies with
 *   the server anyway;
 * - a cgroup (cgroup.kill) holds everything, but needs a delegated
 *   hierarchy that a plain server does not have, and someone alive to
 *   write to it once the server is gone.
 * A pipe's end is closed by the kernel whatever kills its holder, so the
 * guard learns of the server's death in every case, and a process group
 * is what the guard can signal as a whole.
 *
 * The guard is /bin/sh started with posix_spawn, with nothing open but
 * the pipe (on its stdin) and /dev/null; where there is no /bin/sh, a fork
 * of the server, which until it exits only makes async-signal-safe calls
 * (the server has threads) and closes every file it inherited (other
 * guards' pipes would hide the server's death from them, and a listening
 * socket would keep the server's port after its death). */
/* For pipe2, close_range and NSIG. */
#define _GNU_SOURCE
#include "exec/proc_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* What runs the guard: its read, trap and kill are the shell's own. */
#define GUARD_SHELL "/bin/sh"

/* Files the guard closes when close_range is missing (before Linux 5.9):
 * up to the limit on open files, read before the fork. */
#define FD_SWEEP_MAX 65536

static void close_from(int lowest, int limit)
{
    if (close_range((unsigned) lowest, ~0u, 0) == 0)
        return;
    for (int fd = lowest; fd < limit; fd++)
        (void) close(fd);
}

/* The guard's whole life: wait for the end of the server's pipe RFD,
 * then kill the group. Signals are ignored, so that what the command
 * sends to its own group (kill 0), the server's SIGTERM of a deadline and
 * a terminal's Ctrl-C leave the guard standing; SIGKILL alone ends it. */
static _Noreturn void guard_main(int rfd, int limit)
{
    struct sigaction ign = {.sa_handler = SIG_IGN};
    sigset_t none;
    char c;
    ssize_t n;

    for (int sig = 1; sig < NSIG; sig++)
        (void) sigaction(sig, &ign, NULL);
    (void) sigemptyset(&none);
    (void) sigprocmask(SIG_SETMASK, &none, NULL);
    (void) setpgid(0, 0);
    (void) prctl(PR_SET_NAME, "sked-guard", 0, 0, 0);
    if (rfd != 0 && dup2(rfd, 0) < 0)
        (void) kill(0, SIGKILL);
    close_from(1, limit);
    do
        n = read(0, &c, 1);
    while (n < 0 && errno == EINTR);
    /* The server never writes: whatever ended the read, it is gone. */
    (void) kill(0, SIGKILL);
    _exit(0);
}

/* Start the guard as /bin/sh running SCRIPT on the pipe's read end RFD:
 * posix_spawn, so the server's memory is never shared copy-on-write (a
 * forked guard living as long as its command would make the server copy
 * every page it writes meanwhile, once per command). Its process group is
 * its own from before the exec. Returns 0 or an errno. */
static int spawn_sh(int rfd, pid_t *pid)
{
    static const char script[] =
        "trap '' HUP INT QUIT TERM USR1 USR2 PIPE ALRM TSTP TTIN TTOU; "
        "read -r _; kill -s KILL 0";
    char *const argv[] = {"sked-guard", "-c", (char *) script, NULL};
    char *const env[] = {NULL};
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t all;
    int e;

    (void) sigfillset(&all);
    if ((e = posix_spawn_file_actions_init(&fa)) != 0)
        return e;
    if ((e = posix_spawnattr_init(&at)) != 0) {
        (void) posix_spawn_file_actions_destroy(&fa);
        return e;
    }
    e = posix_spawn_file_actions_adddup2(&fa, rfd, 0);
    if (e == 0)
        e = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    if (e == 0)
        e = posix_spawn_file_actions_adddup2(&fa, 1, 2);
    if (e == 0)
        e = posix_spawn_file_actions_addclosefrom_np(&fa, 3);
    if (e == 0)
        e = posix_spawnattr_setflags(&at, (short) (POSIX_SPAWN_SETPGROUP |
                                                   POSIX_SPAWN_SETSIGMASK |
                                                   POSIX_SPAWN_SETSIGDEF));
    if (e == 0)
        e = posix_spawnattr_setpgroup(&at, 0);
    /* Every signal blocked from the start (the mask outlives the exec),
     * so that a TERM to the group before the shell has set its traps
     * cannot end the guard; the traps then ignore what is pending. */
    if (e == 0)
        e = posix_spawnattr_setsigmask(&at, &all);
    if (e == 0)
        e = posix_spawnattr_setsigdefault(&at, &all);
    if (e == 0)
        e = posix_spawn(pid, GUARD_SHELL, &fa, &at, argv, env);
    (void) posix_spawnattr_destroy(&at);
    (void) posix_spawn_file_actions_destroy(&fa);
    return e;
}

/* Start the guard by fork, where there is no shell to run it. */
static int spawn_fork(int rfd, pid_t *pid)
{
    int e, limit = FD_SWEEP_MAX;
    struct rlimit rl;
    sigset_t all, old;

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < FD_SWEEP_MAX)
        limit = (int) rl.rlim_cur;
    /* No handler of the server may run in the guard before it ignores
     * every signal. */
    (void) sigfillset(&all);
    (void) pthread_sigmask(SIG_SETMASK, &all, &old);
    *pid = fork();
    if (*pid == 0)
        guard_main(rfd, limit);
    e = errno;
    (void) pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (*pid < 0)
        return e;
    /* Also here, so the group exists when the command is started into
     * it, whichever of the two runs first. */
    (void) setpgid(*pid, *pid);
    return 0;
}

int sked__proc_guard_start(sked_proc_guard *g)
{
    int p[2], e;
    pid_t pid = -1;

    g->pid = -1;
    g->fd = -1;
    if (pipe2(p, O_CLOEXEC) != 0)
        return errno;
    e = access(GUARD_SHELL, X_OK) == 0 ? spawn_sh(p[0], &pid) : ENOENT;
    if (e != 0)
        e = spawn_fork(p[0], &pid);
    (void) close(p[0]);
    if (e != 0) {
        (void) close(p[1]);
        return e;
    }
    g->pid = pid;
    g->fd = p[1];
    return 0;
}

void sked__proc_guard_dismiss(sked_proc_guard *g)
{
    if (g->pid > 0) {
        /* Killed before its pipe closes: it must not take the close for
         * the server's death. */
        (void) kill(g->pid, SIGKILL);
        while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    if (g->fd >= 0)
        (void) close(g->fd);
    g->pid = -1;
    g->fd = -1;
}
