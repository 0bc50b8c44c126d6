/* SPDX-License-Identifier: MIT */
/* The guard of a process's commands (proc_guard.h).
 *
 * Why a guard process, and not one of Linux's other means:
 * - PR_SET_PDEATHSIG reaches the command alone (not its children), and
 *   fires when the thread that started it ends, not the server;
 * - a subreaper inherits orphans but does not kill them, and dies with
 *   the server anyway;
 * - a cgroup (cgroup.kill) holds everything, but needs a delegated
 *   hierarchy that a plain server does not have, and someone alive to
 *   write to it once the server is gone.
 * A socket's end is closed by the kernel whatever kills its holder, so the
 * guard learns of the server's death in every case, and a process group
 * is what the guard can signal as a whole.
 *
 * One guard serves every command of the process, so a command costs two
 * short lines on the socket ("+PGID" from the child before its exec,
 * "-PGID" from the server before it reaps the command) instead of a
 * process of its own. The socket's number never changes once given: a
 * guard started again (the first was killed) takes the same number by
 * dup3, so a thread that read the number just before cannot write to a
 * file that took it meanwhile. A child of a fork (not an exec) of the
 * process starts a guard of its own at its first command: its parent's
 * guard must not outlive it on its behalf.
 *
 * The guard is /bin/sh started with posix_spawn, with nothing open but the
 * socket (on its stdin) and /dev/null; where there is no /bin/sh, a fork
 * of the server, which until it exits only makes async-signal-safe calls
 * (the server has threads) and closes every file it inherited (a
 * listening socket would keep the server's port after its death). That
 * fork keeps the pages the server had then for as long as it lives: the
 * shell is the cheaper guard. */
/* For pipe2, close_range, dup3, mremap and NSIG. */
#define _GNU_SOURCE
#include "exec/proc_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"

/* What runs the guard: its read, case, trap and kill are the shell's own.
 * L is the list of groups enlisted, each between spaces, once each: a
 * group may be enlisted twice around a guard's replacement, and must
 * leave with one withdrawal. */
#define GUARD_SHELL "/bin/sh"
static const char script[] =
    "trap '' HUP INT QUIT TERM USR1 USR2 PIPE ALRM TSTP TTIN TTOU\n"
    "l=' '\n"
    "while read -r g; do\n"
    "  case $g in\n"
    "  +*) g=${g#+}\n"
    "      case $l in *\" $g \"*) ;; *) l=\"$l$g \" ;; esac ;;\n"
    "  -*) g=${g#-}\n"
    "      case $l in *\" $g \"*) l=\"${l%% $g *} ${l#* $g }\" ;; esac ;;\n"
    "  esac\n"
    "done\n"
    "for g in $l; do kill -s KILL -- \"-$g\"; done\n";

/* Files the forked guard closes when close_range is missing (before
 * Linux 5.9): up to the limit on open files, read before the fork. */
#define FD_SWEEP_MAX 65536

/* The longest line on the socket: a sign, a pid, a newline. */
#define LINE_MAX_LEN 24

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int guard_fd = -1; /* the server's end; -1: none yet */
static _Atomic pid_t guard_owner; /* the process that started it */
static _Atomic bool guard_gone;   /* its end hung up: start another */
/* Under MU: */
static unsigned guard_gen; /* how many were started, this one included */
static pid_t guard_pid = -1;
static const char *guard_shell = GUARD_SHELL; /* NULL: a fork */
static pid_t *live;                           /* the groups of commands */
static size_t nlive, live_cap;                /* running: for a new guard */

/* ---- the forked guard -------------------------------------------------- */

static void close_from(int lowest, int limit)
{
    if (close_range((unsigned) lowest, ~0u, 0) == 0)
        return;
    for (int fd = lowest; fd < limit; fd++)
        (void) close(fd);
}

/* The groups the forked guard holds: mapped, not malloc'd (a fork of a
 * process with threads may not call malloc). */
typedef struct groups {
    pid_t *v;
    size_t n, cap;
} groups;

static void groups_add(groups *g, pid_t pg)
{
    for (size_t i = 0; i < g->n; i++)
        if (g->v[i] == pg)
            return;
    if (g->n == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 1024;
        void *p = g->v ? mremap(g->v, g->cap * sizeof *g->v, cap * sizeof *g->v,
                                MREMAP_MAYMOVE)
                       : mmap(NULL, cap * sizeof *g->v, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) /* the group goes unguarded: a page the
                                kernel could not give */
            return;
        g->v = p;
        g->cap = cap;
    }
    g->v[g->n++] = pg;
}

static void groups_drop(groups *g, pid_t pg)
{
    for (size_t i = 0; i < g->n; i++)
        if (g->v[i] == pg) {
            g->v[i] = g->v[--g->n];
            return;
        }
}

/* Apply one line "+PGID" or "-PGID" of LEN bytes. */
static void apply_line(groups *g, const char *s, size_t len)
{
    long v = 0;

    for (size_t i = 1; i < len && s[i] >= '0' && s[i] <= '9'; i++)
        v = v * 10 + (s[i] - '0');
    if (v <= 1 || v > INT_MAX)
        return;
    if (s[0] == '+')
        groups_add(g, (pid_t) v);
    else if (s[0] == '-')
        groups_drop(g, (pid_t) v);
}

/* The forked guard's whole life: read the lines on stdin until the
 * server's end closes, then kill every group still enlisted. Signals are
 * ignored (a terminal's Ctrl-C, a stray TERM): SIGKILL alone ends it. */
static _Noreturn void guard_main(int rfd, int limit)
{
    struct sigaction ign = {.sa_handler = SIG_IGN};
    char buf[4096], line[LINE_MAX_LEN];
    groups g = {NULL, 0, 0};
    size_t len = 0;
    sigset_t none;
    ssize_t n;

    (void) prctl(PR_SET_NAME, "sked-guard", 0, 0, 0);
    for (int sig = 1; sig < NSIG; sig++)
        (void) sigaction(sig, &ign, NULL);
    (void) sigemptyset(&none);
    (void) sigprocmask(SIG_SETMASK, &none, NULL);
    (void) setpgid(0, 0);
    if (rfd != 0 && dup2(rfd, 0) < 0)
        _exit(1);
    close_from(1, limit);
    for (;;) {
        n = read(0, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* the server never stops writing otherwise: it is gone */
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] == '\n') {
                apply_line(&g, line, len);
                len = 0;
            } else if (len < sizeof line) {
                line[len++] = buf[i];
            }
        }
    }
    for (size_t i = 0; i < g.n; i++)
        (void) kill(-g.v[i], SIGKILL);
    _exit(0);
}

/* ---- starting the guard ------------------------------------------------ */

/* Start the guard as SHELL reading the socket RFD: posix_spawn, so the
 * server's memory is never shared copy-on-write. Its process group is its
 * own. Returns 0 or an errno. */
static int spawn_sh(const char *shell, int rfd, pid_t *pid)
{
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
     * so that a signal before the shell has set its traps cannot end the
     * guard; the traps then ignore what is pending. */
    if (e == 0)
        e = posix_spawnattr_setsigmask(&at, &all);
    if (e == 0)
        e = posix_spawnattr_setsigdefault(&at, &all);
    if (e == 0)
        e = posix_spawn(pid, shell, &fa, &at, argv, env);
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
    return *pid < 0 ? e : 0;
}

/* Write "SIGN PID\n" on FD as one send: lines from several threads and
 * children never interleave. */
static int send_line(int fd, char sign, pid_t pid)
{
    char b[LINE_MAX_LEN], d[LINE_MAX_LEN];
    size_t n = 0, k = 0;
    unsigned long v = (unsigned long) pid;
    ssize_t w;

    do
        d[k++] = (char) ('0' + v % 10);
    while ((v /= 10) != 0);
    b[n++] = sign;
    while (k > 0)
        b[n++] = d[--k];
    b[n++] = '\n';
    do
        w = send(fd, b, n, MSG_NOSIGNAL);
    while (w < 0 && errno == EINTR);
    if (w == (ssize_t) n)
        return 0;
    return w < 0 ? errno : EIO;
}

/* Start a guard on a new socket, whose server end takes the number the
 * old one had (there is one). Under MU. Returns 0 or an errno. */
static int start_locked(void)
{
    int sv[2], e, fd = atomic_load(&guard_fd);
    pid_t me = getpid(), pid = -1, old = guard_pid;
    bool mine = atomic_load(&guard_owner) == me;

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return errno;
    e = guard_shell && access(guard_shell, X_OK) == 0
            ? spawn_sh(guard_shell, sv[1], &pid)
            : ENOENT;
    if (e != 0)
        e = spawn_fork(sv[1], &pid);
    (void) close(sv[1]);
    /* The server's end at 3 or above (0, 1 and 2 become a child's), and
     * at the old number from now on. */
    if (e == 0 && fd < 0 && sv[0] <= 2) {
        fd = fcntl(sv[0], F_DUPFD_CLOEXEC, 3);
        e = fd < 0 ? errno : 0;
    } else if (e == 0 && fd >= 0) {
        e = dup3(sv[0], fd, O_CLOEXEC) < 0 ? errno : 0;
    } else if (e == 0) {
        fd = sv[0];
    }
    if (fd != sv[0])
        (void) close(sv[0]);
    if (e != 0) {
        if (pid > 0) {
            (void) kill(pid, SIGKILL);
            (void) waitpid(pid, NULL, 0);
        }
        return e;
    }
    /* The old guard, gone or now reading the end of the old socket, is
     * this process's child only when this process started it; the groups
     * it held are this process's then, else its parent's. */
    if (old > 0 && mine)
        while (waitpid(old, NULL, 0) < 0 && errno == EINTR)
            ;
    if (!mine)
        nlive = 0;
    guard_pid = pid;
    guard_gen++;
    atomic_store(&guard_owner, me);
    atomic_store(&guard_gone, false);
    atomic_store(&guard_fd, fd);
    /* The commands still running are the new guard's to kill. */
    for (size_t i = 0; i < nlive; i++)
        (void) send_line(fd, '+', live[i]);
    return 0;
}

static bool usable(int fd)
{
    return fd >= 0 && !atomic_load(&guard_gone) &&
           atomic_load(&guard_owner) == getpid();
}

int sked__proc_guard_fd(unsigned *gen)
{
    int fd, e = 0;

    /* Looked at under MU only: a guard started again while another thread
     * has just started one would end the first, and with it the group
     * just enlisted. */
    pthread_mutex_lock(&mu);
    if (!usable(atomic_load(&guard_fd)))
        e = start_locked();
    fd = atomic_load(&guard_fd);
    *gen = guard_gen;
    pthread_mutex_unlock(&mu);
    return e != 0 ? -e : fd;
}

int sked__proc_guard_enlist(int fd)
{
    return send_line(fd, '+', getpid());
}

/* Under MU: mark the guard gone when its socket has hung up (the guard
 * ended), and only then: a guard wrongly taken for gone would be replaced
 * and would kill every group it holds. */
static void verify_locked(void)
{
    struct pollfd p = {atomic_load(&guard_fd), 0, 0};

    if (usable(p.fd) && poll(&p, 1, 0) == 1 &&
        (p.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0)
        atomic_store(&guard_gone, true);
}

void sked__proc_guard_lost(unsigned gen)
{
    pthread_mutex_lock(&mu);
    if (gen == guard_gen)
        verify_locked();
    pthread_mutex_unlock(&mu);
}

void sked__proc_guard_track(pid_t pgid, unsigned gen)
{
    pthread_mutex_lock(&mu);
    if (nlive == live_cap) {
        size_t cap = live_cap ? live_cap * 2 : 64;
        pid_t *v = sked__realloc(live, cap * sizeof *v);
        if (v) {
            live = v;
            live_cap = cap;
        }
    }
    /* Without the room, the group is guarded as long as this guard lives
     * (what it takes to replace a killed one is memory anyway). */
    if (nlive < live_cap)
        live[nlive++] = pgid;
    /* Enlisted with a guard replaced since: with this one too. */
    if (gen != guard_gen && usable(atomic_load(&guard_fd)))
        (void) send_line(atomic_load(&guard_fd), '+', pgid);
    pthread_mutex_unlock(&mu);
}

void sked__proc_guard_withdraw(pid_t pgid)
{
    int fd;

    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < nlive; i++)
        if (live[i] == pgid) {
            live[i] = live[--nlive];
            break;
        }
    fd = atomic_load(&guard_fd);
    if (pgid > 1 && usable(fd) && send_line(fd, '-', pgid) == EPIPE)
        verify_locked();
    pthread_mutex_unlock(&mu);
}

bool sked__proc_guard_check(void)
{
    bool ok;

    pthread_mutex_lock(&mu);
    verify_locked();
    ok = usable(atomic_load(&guard_fd)) || start_locked() == 0;
    pthread_mutex_unlock(&mu);
    return ok;
}

void sked__proc_guard_test_shell(const char *path)
{
    pthread_mutex_lock(&mu);
    guard_shell = path;
    atomic_store(&guard_gone, true);
    pthread_mutex_unlock(&mu);
}
