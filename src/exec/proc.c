/* SPDX-License-Identifier: MIT */
/* Running one command (proc.h): start it, capture its output, stop it.
 *
 * The plan: find the program in the PATH of the command's own environment
 * (never the server's), make two pipes, and start the child (vfork and
 * exec) as the leader of a process group of its own, enlisted with the
 * process's guard before its exec (proc_guard.h: the group dies with the
 * server), its signal mask empty and every signal back to its default
 * action, stdin on /dev/null and nothing but 0, 1 and 2 left open. One
 * poll loop then watches the child's pidfd, both pipes and the
 * cancellation flag until the child has ended and its pipes are closed; a
 * deadline or a cancel sends SIGTERM to the group, and SIGKILL once the
 * grace has passed. Output past the capture limit is read and dropped, so
 * memory stays bounded and the child never blocks on a full pipe. The
 * child is withdrawn from the guard and reaped last.
 *
 * The program and the user are resolved first (proc_who.c). Running as
 * another user needs setgroups, setgid and setuid in the child: that case
 * forks instead of vfork (spawn_child). */
/* For pipe2, close_range, setgroups, vfork and NSIG. */
#define _GNU_SOURCE
#include "exec/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/error.h"
#include "exec/proc_guard.h"
#include "exec/proc_who.h"
#include "sked/schedule.h"

/* Bytes read from a pipe at a time, on the stack once the capture is full. */
#define READ_CHUNK 16384

/* How long pipes held open by what the command left behind (a background
 * process) are still read once the command itself has ended, at most: what
 * it wrote before ending is already in the pipe, and a daemon must not hold
 * the step. Never more than the kill grace. */
#define PIPE_LINGER (SKED_USEC_PER_SEC / 2)

/* Wall-clock deadlines are looked at again at least this often, so a jump
 * of the clock is noticed within it (poll waits on the monotonic clock). */
#define DEADLINE_RECHECK (SKED_USEC_PER_SEC)

/* Without a pidfd (a kernel before 5.3, or a seccomp filter that refuses
 * pidfd_open), the child's end is polled for this often. */
#define REAP_POLL (20 * 1000)

/* ---- starting the child ------------------------------------------------ */

/* What a child is started with. */
typedef struct launch {
    const char *path;  /* the file to run */
    char *const *argv; /* borrowed from the spec, as the exec calls want */
    char *const *env;  /* idem */
    const char *cwd;   /* NULL: the server's */
    int out_w, err_w;  /* the pipes' write ends, to become 1 and 2 */
    int in_r;          /* the input's read end, to become 0; -1: none */
    int guard_fd;      /* the guard's socket, to enlist the group with */
    const user_ids *user;
} launch;

/* Where a child failed, so its errno is reported for the right thing. */
enum { STAGE_SETUP, STAGE_GUARD, STAGE_USER, STAGE_CWD, STAGE_EXEC };

typedef struct child_failure {
    int stage;
    int err;
} child_failure;

/* Move *FD to 3 or above, so that installing the child's 0, 1 and 2 cannot
 * overwrite it (a server may run with its standard streams closed). */
static int lift_fd(int *fd)
{
    int nfd;

    if (*fd > 2)
        return 0;
    nfd = fcntl(*fd, F_DUPFD_CLOEXEC, 3);
    if (nfd < 0)
        return -1;
    (void) close(*fd);
    *fd = nfd;
    return 0;
}

/* Make a pipe whose ends are close-on-exec (no other child inherits them)
 * and whose read end does not block. Returns 0 or -1 with errno set. */
static int make_pipe(int p[2])
{
    int e;

    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    if (lift_fd(&p[0]) == 0 && lift_fd(&p[1]) == 0 &&
        fcntl(p[0], F_SETFL, O_NONBLOCK) == 0)
        return 0;
    e = errno;
    (void) close(p[0]);
    (void) close(p[1]);
    p[0] = p[1] = -1;
    errno = e;
    return -1;
}

/* In the child: set up 0, 1 and 2, and let only them reach the exec
 * (REPORT and the guard's socket are close-on-exec like everything else
 * above 2). */
static int child_fds(const launch *l)
{
    int fd = l->in_r >= 0 ? dup(l->in_r) : open("/dev/null", O_RDONLY);

    if (fd < 0)
        return -1;
    if (fd != 0 && (dup2(fd, 0) < 0 || close(fd) != 0))
        return -1;
    if (dup2(l->out_w, 1) < 0 || dup2(l->err_w, 2) < 0)
        return -1;
    /* Best effort, as a kernel before 5.11 lacks the flag: O_CLOEXEC is
     * the rule in libsked anyway. */
    (void) close_range(3, ~0u, CLOSE_RANGE_CLOEXEC);
    return 0;
}

/* Become L's command in the child; report a failure on REPORT. Only
 * async-signal-safe calls: the parent has other threads, and after a
 * vfork this runs on the parent's memory, its handlers not yet reset.
 * The group is the child's own (so the whole tree can be signalled), and
 * is enlisted with the guard before anything of the command runs. Every
 * signal back to its default action and unblocked: a server that blocks
 * or ignores SIGTERM or SIGPIPE must not pass that on. The directory is
 * changed as the user, so it is checked with their rights. */
static _Noreturn void child_run(const launch *l, int report)
{
    child_failure f = {STAGE_SETUP, 0};
    struct sigaction dfl;
    sigset_t none;
    int e;
    ssize_t w;

    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    /* SIGKILL, SIGSTOP and libc's own signals refuse: nothing to reset. */
    for (int sig = 1; sig < NSIG; sig++)
        (void) sigaction(sig, &dfl, NULL);
    if (setpgid(0, 0) != 0)
        goto fail;
    f.stage = STAGE_GUARD;
    if ((e = sked__proc_guard_enlist(l->guard_fd)) != 0) {
        errno = e;
        goto fail;
    }
    f.stage = STAGE_SETUP;
    (void) sigemptyset(&none);
    if (sigprocmask(SIG_SETMASK, &none, NULL) != 0 || child_fds(l) != 0)
        goto fail;
    f.stage = STAGE_USER;
    if (l->user->change &&
        (setgroups((size_t) l->user->ngroups, l->user->groups) != 0 ||
         setgid(l->user->gid) != 0 || setuid(l->user->uid) != 0))
        goto fail;
    f.stage = STAGE_CWD;
    if (l->cwd && chdir(l->cwd) != 0)
        goto fail;
    f.stage = STAGE_EXEC;
    (void) execve(l->path, l->argv, l->env);
fail:
    f.err = errno;
    w = write(report, &f, sizeof f);
    (void) w;
    _exit(127);
}

/* Start L's child. vfork, as posix_spawn does (no copy of the server's
 * page tables, whose pages it would then copy on every write while the
 * command runs), but with a step of its own before the exec: enlisting
 * with the guard, which posix_spawn cannot do. Another user needs
 * setuid, which glibc makes every thread of the process take part in: a
 * vfork child shares the parent's threads' memory but is not one of
 * them, so that case alone forks. Returns 0, or an errno with *STAGE
 * saying where the child failed (it is reaped then). */
static int spawn_child(const launch *l, pid_t *pid, int *stage)
{
    child_failure f = {STAGE_SETUP, EIO};
    sigset_t all, old;
    int report[2], e;
    ssize_t n;

    if (pipe2(report, O_CLOEXEC) != 0)
        return errno;
    /* All signals stay blocked across the fork, so that none of the
     * server's handlers runs in the child before child_run resets them. */
    (void) sigfillset(&all);
    (void) pthread_sigmask(SIG_SETMASK, &all, &old);
    if (l->user->change)
        *pid = fork();
    else
        *pid = vfork();
    if (*pid == 0)
        child_run(l, report[1]);
    e = errno;
    (void) pthread_sigmask(SIG_SETMASK, &old, NULL);
    (void) close(report[1]);
    if (*pid < 0) {
        (void) close(report[0]);
        *pid = 0;
        return e;
    }
    /* The report pipe closes on exec: no bytes means the exec happened. */
    do
        n = read(report[0], &f, sizeof f);
    while (n < 0 && errno == EINTR);
    (void) close(report[0]);
    if (n == 0)
        return 0;
    sked__proc_guard_withdraw(*pid);
    while (waitpid(*pid, NULL, 0) < 0 && errno == EINTR)
        ;
    *pid = 0;
    *stage = f.stage;
    return f.err != 0 ? f.err : EIO;
}

/* Turn the errno E of a failed start of L at STAGE into an error. */
static int start_error(const launch *l, const char *name, int stage, int e,
                       sked_error *err)
{
    int ce = 0;

    if (e == ENOMEM)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (stage == STAGE_USER)
        return sked__error_set(err, SKED_EINVAL, "user", -1,
                               "user: cannot become uid %ld: %s",
                               (long) l->user->uid, strerror(e));
    if (stage == STAGE_CWD)
        ce = e;
    if (ce != 0)
        return sked__error_set(err, SKED_EINVAL, "cwd", -1, "cwd %s: %s",
                               l->cwd, strerror(ce));
    if (stage == STAGE_GUARD)
        return sked__error_set(err, SKED_EIO, NULL, -1,
                               "spawn %s: no guard to kill it with the "
                               "server: %s",
                               name, strerror(e));
    if (stage == STAGE_SETUP)
        return sked__error_set(err, SKED_EIO, NULL, -1, "spawn %s: %s", name,
                               strerror(e));
    if (e == ENOENT || e == ENOTDIR)
        return sked__error_set(err, SKED_ENOTFOUND, "argv", -1, "exec %s: %s",
                               name, strerror(e));
    if (e == EACCES || e == EPERM || e == ENOEXEC || e == EISDIR ||
        e == ELOOP || e == ENAMETOOLONG || e == ETXTBSY || e == E2BIG)
        return sked__error_set(err, SKED_EINVAL, "argv", -1, "exec %s: %s",
                               name, strerror(e));
    return sked__error_set(err, SKED_EIO, NULL, -1, "exec %s: %s", name,
                           strerror(e));
}

/* ---- waiting ----------------------------------------------------------- */

/* One output stream: the pipe and what is kept of it. */
typedef struct stream {
    int fd;    /* the pipe's read end; -1 once closed */
    char *buf; /* owned: the first bytes read, at most max */
    size_t len, cap, max;
    bool truncated; /* bytes past max were read and dropped */
} stream;

/* One running command, from start to reaping. */
typedef struct waiter {
    pid_t pid;    /* the command, its group's leader; 0: none. Reaped only
                     at the end, so that its id (the group's) stays its
                     own while the group may still be signalled */
    int pidfd;    /* -1: none, the child is polled for */
    int guard_fd; /* the guard's socket, polled for its end; -1: not */
    stream out, err;
    const sked_cancel *cancel; /* borrowed; may be NULL */
    sked_time deadline;        /* real wall clock; SKED_TIME_NONE: none */
    sked_dur grace, linger;
    sked_mono started, term_at, kill_at, ended_at;
    bool ended, killed;
    int exit_code, term_signal; /* once ended: -1 and 0 when unknown */
    sked_proc_stop stop;
} waiter;

/* Make room in S's buffer for more bytes. On failure, capture no more. */
static int grow(stream *s)
{
    size_t cap;
    char *b;

    if (s->len < s->cap)
        return 0;
    cap = s->cap == 0 ? 4096 : s->cap > s->max / 2 ? s->max : s->cap * 2;
    if (cap > s->max)
        cap = s->max;
    b = sked__realloc(s->buf, cap);
    if (!b) {
        s->max = s->len;
        return -1;
    }
    s->buf = b;
    s->cap = cap;
    return 0;
}

/* Read what S's pipe holds: into the buffer up to its max, past that onto
 * the stack and dropped. Close the pipe at its end or on an error. */
static void read_stream(stream *s)
{
    char scratch[READ_CHUNK];
    char *dst = scratch;
    size_t room = sizeof scratch;
    ssize_t n;

    if (s->len < s->max && grow(s) == 0) {
        dst = s->buf + s->len;
        room = s->cap - s->len;
    }
    n = read(s->fd, dst, room);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        (void) close(s->fd);
        s->fd = -1;
        return;
    }
    if (dst == scratch)
        s->truncated = true;
    else
        s->len += (size_t) n;
}

/* Note the child's end if it has ended, leaving it a zombie. */
static void try_reap(waiter *w)
{
    siginfo_t si;
    int r;

    do {
        memset(&si, 0, sizeof si);
        r = waitid(P_PID, (id_t) w->pid, &si, WEXITED | WNOHANG | WNOWAIT);
    } while (r < 0 && errno == EINTR);
    if (r == 0 && si.si_pid == 0)
        return;
    /* r < 0 (ECHILD): someone else reaped it (a SIGCHLD set to SIG_IGN);
     * it is gone, its status unknown. */
    w->ended = true;
    if (r == 0 && si.si_code == CLD_EXITED)
        w->exit_code = si.si_status;
    else if (r == 0)
        w->term_signal = si.si_status;
    w->ended_at = sked__clock_mono(NULL);
    if (w->pidfd >= 0) {
        (void) close(w->pidfd);
        w->pidfd = -1;
    }
}

/* Send SIG to the child's process group; to the child too when it left
 * the group for one of its own. */
static void signal_group(const waiter *w, int sig)
{
    (void) kill(-w->pid, sig);
    if (!w->ended && getpgid(w->pid) != w->pid)
        (void) kill(w->pid, sig);
}

/* Return true, with *WHY, when the command must be stopped. */
static bool stop_requested(const waiter *w, sked_proc_stop *why)
{
    if (w->cancel && sked__cancel_reason(w->cancel) != 0) {
        *why = SKED_PROC_CANCELLED;
        return true;
    }
    if (w->deadline != SKED_TIME_NONE && sked__clock_now(NULL) >= w->deadline) {
        *why = SKED_PROC_DEADLINE;
        return true;
    }
    return false;
}

/* Act at NOW: stop the group on a deadline or a cancel, kill it once the
 * grace has passed. Return false when the wait is over: the child is
 * reaped and its pipes are closed, or no longer worth reading. */
static bool advance(waiter *w, sked_mono now)
{
    bool pipes = w->out.fd >= 0 || w->err.fd >= 0;
    sked_proc_stop why;

    if (w->ended && !pipes)
        return false;
    if (w->stop == SKED_PROC_EXITED) {
        if (!stop_requested(w, &why))
            return !(w->ended && now - w->ended_at >= w->linger);
        /* A child that ended as the deadline came was not stopped. */
        if (!w->ended)
            try_reap(w);
        if (w->ended)
            return false;
        w->stop = why;
        w->term_at = now;
        signal_group(w, SIGTERM);
    }
    /* Once stopped, the group gets the grace even when the child is gone:
     * a member that ignores SIGTERM still holds the pipes. */
    if (!w->killed && now - w->term_at >= w->grace) {
        w->killed = true;
        w->kill_at = now;
        signal_group(w, SIGKILL);
    }
    return !(w->killed && w->ended && now - w->kill_at >= w->linger);
}

/* Return the earlier of the wait A (-1: none) and the time B left (0 when
 * already past). */
static sked_dur earlier(sked_dur a, sked_dur b)
{
    if (b < 0)
        b = 0;
    return a < 0 || b < a ? b : a;
}

/* Return the µs until advance has something to do, or -1: never. */
static sked_dur next_wait(const waiter *w, sked_mono now)
{
    sked_dur wait = -1;
    sked_time wall;

    if (w->stop == SKED_PROC_EXITED) {
        if (w->deadline != SKED_TIME_NONE) {
            wall = sked__clock_now(NULL);
            wait = earlier(DEADLINE_RECHECK,
                           w->deadline > wall ? w->deadline - wall : 0);
        }
        if (w->ended)
            wait = earlier(wait, w->linger - (now - w->ended_at));
    } else if (!w->killed) {
        wait = earlier(wait, w->grace - (now - w->term_at));
    } else if (w->ended) {
        wait = earlier(wait, w->linger - (now - w->kill_at));
    }
    if (!w->ended && w->pidfd < 0)
        wait = earlier(wait, REAP_POLL);
    return wait;
}

/* Return WAIT in whole ms for poll, rounded up so as not to spin. */
static int poll_ms(sked_dur wait)
{
    sked_dur ms;

    if (wait < 0)
        return -1;
    ms = wait / 1000 + (wait % 1000 != 0);
    return ms > INT_MAX ? INT_MAX : (int) ms;
}

/* Poll once for what W waits on, and handle what happened. */
static void poll_once(waiter *w, sked_mono now)
{
    struct pollfd p[5];
    int ipid = -1, iout = -1, ierr = -1, iguard = -1;
    nfds_t n = 0;

    if (!w->ended && w->pidfd >= 0)
        p[ipid = (int) n++] = (struct pollfd){w->pidfd, POLLIN, 0};
    if (w->out.fd >= 0)
        p[iout = (int) n++] = (struct pollfd){w->out.fd, POLLIN, 0};
    if (w->err.fd >= 0)
        p[ierr = (int) n++] = (struct pollfd){w->err.fd, POLLIN, 0};
    /* Only until acted on: the flag stays readable once set. */
    if (w->cancel && w->stop == SKED_PROC_EXITED)
        p[n++] = (struct pollfd){sked__cancel_fd(w->cancel), POLLIN, 0};
    /* Its hang-up only: the guard never writes. */
    if (w->guard_fd >= 0)
        p[iguard = (int) n++] = (struct pollfd){w->guard_fd, 0, 0};
    /* An error (EINTR, or ENOMEM at worst) is one more turn of the loop. */
    if (poll(p, n, poll_ms(next_wait(w, now))) <= 0) {
        if (!w->ended && w->pidfd < 0)
            try_reap(w);
        return;
    }
    if (iguard >= 0 && p[iguard].revents != 0 && !sked__proc_guard_check())
        w->guard_fd = -1; /* none could be started: no more watching */
    if (iout >= 0 && p[iout].revents != 0)
        read_stream(&w->out);
    if (ierr >= 0 && p[ierr].revents != 0)
        read_stream(&w->err);
    if ((ipid >= 0 && p[ipid].revents != 0) || (!w->ended && w->pidfd < 0))
        try_reap(w);
}

/* Wait until W's command has ended and its pipes are closed or given up. */
static void wait_loop(waiter *w)
{
    sked_mono now = sked__clock_mono(NULL);

    /* One NOW for both: what advance found not yet due is what the poll
     * waits for. */
    while (advance(w, now)) {
        poll_once(w, now);
        now = sked__clock_mono(NULL);
    }
    if (w->out.fd >= 0)
        (void) close(w->out.fd);
    if (w->err.fd >= 0)
        (void) close(w->err.fd);
    w->out.fd = w->err.fd = -1;
}

/* ---- the whole run ------------------------------------------------------ */

/* Make a pipe holding SPEC's input, its write end closed: *fd is the read
 * end (-1: no input). Returns 0 or an errno (EFBIG: too much input). */
static int input_pipe(const sked_proc_spec *spec, int *fd)
{
    int p[2], e = 0;
    ssize_t n;

    *fd = -1;
    if (!spec->input)
        return 0;
    if (spec->input_len > SKED_PROC_INPUT_MAX)
        return EFBIG;
    if (pipe2(p, O_CLOEXEC) != 0)
        return errno;
    if (lift_fd(&p[0]) != 0 || fcntl(p[1], F_SETFL, O_NONBLOCK) != 0)
        e = errno;
    for (size_t off = 0; e == 0 && off < spec->input_len; off += (size_t) n) {
        n = write(p[1], spec->input + off, spec->input_len - off);
        if (n < 0 && errno != EINTR)
            e = errno == EAGAIN ? EFBIG : errno;
        if (n < 0)
            n = 0;
    }
    (void) close(p[1]);
    if (e != 0) {
        (void) close(p[0]);
        return e;
    }
    *fd = p[0];
    return 0;
}

/* Start SPEC's program PATH as USER with its pipes into W. */
static int start(const sked_proc_spec *spec, const char *path,
                 const user_ids *user, waiter *w, sked_error *err)
{
    int out_p[2] = {-1, -1}, err_p[2] = {-1, -1}, stage = STAGE_SETUP, e = 0;
    unsigned gen = 0;
    launch l = {.path = path,
                .argv = (char *const *) spec->argv,
                .env = (char *const *) spec->env,
                .cwd = spec->cwd,
                .in_r = -1,
                .user = user};
    static char *const no_env[] = {NULL};

    if (!l.env)
        l.env = no_env;
    if ((e = input_pipe(spec, &l.in_r)) != 0)
        return sked__error_set(err, e == ENOMEM ? SKED_ENOMEM : SKED_EIO,
                               "input", -1, "input: %s", strerror(e));
    if (make_pipe(out_p) != 0 || make_pipe(err_p) != 0) {
        e = errno;
        if (out_p[0] >= 0) {
            (void) close(out_p[0]);
            (void) close(out_p[1]);
        }
        if (l.in_r >= 0)
            (void) close(l.in_r);
        return sked__error_set(err, e == ENOMEM ? SKED_ENOMEM : SKED_EIO, NULL,
                               -1, "pipe: %s", strerror(e));
    }
    l.out_w = out_p[1];
    l.err_w = err_p[1];
    w->started = sked__clock_mono(NULL);
    /* A guard found gone by the child is started again, once. */
    for (int tries = 0; tries < 2; tries++) {
        l.guard_fd = sked__proc_guard_fd(&gen);
        if (l.guard_fd < 0) {
            e = -l.guard_fd;
            stage = STAGE_GUARD;
            break;
        }
        e = spawn_child(&l, &w->pid, &stage);
        if (e != EPIPE || stage != STAGE_GUARD)
            break;
        sked__proc_guard_lost(gen);
    }
    if (e == 0) {
        sked__proc_guard_track(w->pid, gen);
        w->guard_fd = l.guard_fd;
    }
    (void) close(out_p[1]);
    (void) close(err_p[1]);
    if (l.in_r >= 0)
        (void) close(l.in_r);
    w->out.fd = out_p[0];
    w->err.fd = err_p[0];
    if (e != 0)
        return start_error(&l, spec->argv[0], stage, e, err);
    w->pidfd = (int) syscall(SYS_pidfd_open, w->pid, 0);
    return 0;
}

/* Hand over what S kept, made valid UTF-8, into *OUT and *LEN. */
static int take_stream(stream *s, char **out, size_t *len, bool *truncated)
{
    size_t keep = s->truncated ? sked__utf8_trim_cut(s->buf, s->len) : s->len;

    *truncated = s->truncated;
    return sked__utf8_sanitize(s->buf, keep, out, len);
}

/* Fill *OUT from the finished W. Untouched on failure. */
static int make_result(waiter *w, sked_proc_result *out, sked_error *err)
{
    sked_proc_result r;

    memset(&r, 0, sizeof r);
    r.exit_code = w->exit_code;
    r.term_signal = w->term_signal;
    r.stop = w->stop;
    r.killed = w->killed;
    r.duration = w->ended_at - w->started;
    if (take_stream(&w->out, &r.out, &r.out_len, &r.out_truncated) != 0 ||
        take_stream(&w->err, &r.err, &r.err_len, &r.err_truncated) != 0) {
        free(r.out);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    *out = r;
    return 0;
}

/* Release what W holds: the child (withdrawn from the guard, then
 * reaped), fds and buffers. The child has ended by then. */
static void waiter_done(waiter *w)
{
    if (w->pid > 0) {
        sked__proc_guard_withdraw(w->pid);
        while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    if (w->pidfd >= 0)
        (void) close(w->pidfd);
    if (w->out.fd >= 0)
        (void) close(w->out.fd);
    if (w->err.fd >= 0)
        (void) close(w->err.fd);
    free(w->out.buf);
    free(w->err.buf);
}

int sked__proc_run(const sked_proc_spec *spec, sked_time deadline,
                   sked_dur kill_grace, const sked_cancel *cancel,
                   sked_proc_result *out, sked_error *err)
{
    size_t max = spec && spec->capture_max ? spec->capture_max
                                           : SKED_PROC_CAPTURE_DEFAULT;
    user_ids user = {.change = false, .groups = NULL};
    char path[PATH_MAX];
    waiter w;
    int rc;

    if (!spec || !spec->argv || !spec->argv[0] || !out)
        return sked__error_set(err, SKED_EINVAL, "argv", -1,
                               "no program to run");
    memset(&w, 0, sizeof w);
    w.pidfd = w.out.fd = w.err.fd = w.guard_fd = -1;
    w.exit_code = -1;
    w.out.max = w.err.max = max;
    w.cancel = cancel;
    w.deadline = deadline;
    w.grace = kill_grace > 0 ? kill_grace : SKED_PROC_KILL_GRACE_DEFAULT;
    w.linger = w.grace < PIPE_LINGER ? w.grace : PIPE_LINGER;
    w.stop = SKED_PROC_EXITED;
    rc = sked__proc_program(spec, path, sizeof path, err);
    if (rc == 0 && spec->user)
        rc = sked__proc_user(spec->user, &user, err);
    if (rc == 0)
        rc = start(spec, path, &user, &w, err);
    free(user.groups);
    if (rc == 0) {
        wait_loop(&w);
        rc = make_result(&w, out, err);
    }
    waiter_done(&w);
    return rc;
}

void sked__proc_result_done(sked_proc_result *r)
{
    if (!r)
        return;
    free(r->out);
    free(r->err);
    memset(r, 0, sizeof *r);
}
