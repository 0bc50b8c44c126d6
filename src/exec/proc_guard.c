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
 * The guard is forked from a server with threads: until it exits it only
 * makes async-signal-safe calls, and it closes every file it inherited
 * (other guards' pipes would hide the server's death from them, and a
 * listening socket would keep the server's port after its death). */
/* For pipe2, close_range and NSIG. */
#define _GNU_SOURCE
#include "exec/proc_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

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

int sked__proc_guard_start(sked_proc_guard *g)
{
    int p[2], e, limit = FD_SWEEP_MAX;
    struct rlimit rl;
    sigset_t all, old;
    pid_t pid;

    g->pid = -1;
    g->fd = -1;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < FD_SWEEP_MAX)
        limit = (int) rl.rlim_cur;
    if (pipe2(p, O_CLOEXEC) != 0)
        return errno;
    /* No handler of the server may run in the guard before it ignores
     * every signal. */
    (void) sigfillset(&all);
    (void) pthread_sigmask(SIG_SETMASK, &all, &old);
    pid = fork();
    if (pid == 0)
        guard_main(p[0], limit);
    e = errno;
    (void) pthread_sigmask(SIG_SETMASK, &old, NULL);
    (void) close(p[0]);
    if (pid < 0) {
        (void) close(p[1]);
        return e;
    }
    /* Also here, so the group exists when the command is started into
     * it, whichever of the two runs first. */
    (void) setpgid(pid, pid);
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
