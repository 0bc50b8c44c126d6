/* SPDX-License-Identifier: MIT */
/* Running one command for an exec step (SPEC 4.3, 4.4).
 *
 * The command is started with posix_spawn in a process group led by its
 * guard (proc_guard.h: the group is killed if the server dies) and waited
 * for with a pidfd and poll, together with its two output
 * pipes and the cancellation flag, so a deadline or a cancel acts at once:
 * SIGTERM to the whole group, then SIGKILL once KILL_GRACE has passed.
 * stdout and stderr are read as they come (a child is never blocked on a
 * full pipe); the first CAPTURE_MAX bytes of each are kept, the rest is
 * read and dropped, and the stream is marked truncated. What is kept is
 * made valid UTF-8 (utf8.h), so it can be stored as text by either
 * database.
 *
 * Nothing here knows about runs or steps: the executor composes the argv
 * and the environment. Deadlines are read on the real clock: a process
 * lives in real time, whatever clock the engine uses. Thread-safe: many
 * workers run commands at once. */
#ifndef SKED_EXEC_PROC_H
#define SKED_EXEC_PROC_H

#include <stdbool.h>
#include <stddef.h>

#include "base/cancel.h"
#include "sked/error.h"
#include "base/utf8.h"
#include "sked/time.h"

#define SKED_PROC_CAPTURE_DEFAULT    (64 * 1024)
#define SKED_PROC_KILL_GRACE_DEFAULT (10 * SKED_USEC_PER_SEC)
/* The input is written into the pipe whole before the start, so that no
 * writer has to wait on the child: a pipe holds 64 KiB on Linux. */
#define SKED_PROC_INPUT_MAX (60 * 1024)

typedef struct sked_proc_spec {
    /* argv[0] is the program: a path, or a name looked up in the PATH of
     * ENV (else "/usr/local/bin:/usr/bin:/bin"). NULL-terminated. */
    const char *const *argv;
    /* The whole environment, "KEY=VALUE" strings, NULL-terminated. */
    const char *const *env;
    const char *cwd;    /* NULL: the server's working directory */
    const char *user;   /* NULL: none. Else, when sked runs as root, the
                           child runs as that user (its uid, gid and
                           groups); when not root, a user other than the
                           current one is an error. */
    size_t capture_max; /* bytes kept per stream; 0: the default */
    /* What the command reads on stdin, at most SKED_PROC_INPUT_MAX bytes,
     * then end of file; NULL: /dev/null. */
    const char *input;
    size_t input_len;
} sked_proc_spec;

/* Why the command stopped, when it did not exit by itself. */
typedef enum sked_proc_stop {
    SKED_PROC_EXITED = 0,   /* it exited, or died of a signal of its own */
    SKED_PROC_DEADLINE = 1, /* the deadline passed and sked stopped it */
    SKED_PROC_CANCELLED = 2 /* the cancellation flag was set */
} sked_proc_stop;

typedef struct sked_proc_result {
    int exit_code;       /* its exit status; -1 when killed by a signal */
    int term_signal;     /* the signal that ended it; 0 when it exited */
    sked_proc_stop stop; /* why it ended */
    bool killed;         /* SIGKILL was needed after the grace */
    char *out, *err;     /* owned, NUL-terminated valid UTF-8 */
    size_t out_len, err_len;
    bool out_truncated, err_truncated;
    sked_dur duration; /* from spawn to reaping, real time */
} sked_proc_result;

/* Run SPEC and wait until it ends: by itself, or stopped by sked when the
 * real time reaches DEADLINE (SKED_TIME_NONE: no deadline) or CANCEL (may
 * be NULL) is set. A stopped group gets SIGTERM, then SIGKILL after
 * KILL_GRACE (0: the default); the call returns once the child is reaped
 * and both pipes are closed (a grandchild that keeps a pipe open is not
 * waited for beyond the grace, nor beyond half a second once the child
 * ended by itself). OUT is filled (release with
 * sked__proc_result_done) when the command was started, whatever its end.
 * Returns 0 when it was started (its own failure is in OUT); SKED_ENOTFOUND
 * (the program does not exist), SKED_EINVAL (not executable, bad cwd or
 * user) or SKED_EIO (spawn failed) with ERR->msg saying what, e.g.
 * "exec /no/such: No such file or directory"; SKED_ENOMEM. */
int sked__proc_run(const sked_proc_spec *spec, sked_time deadline,
                   sked_dur kill_grace, const sked_cancel *cancel,
                   sked_proc_result *out, sked_error *err);

/* Release what R owns and zero it. */
void sked__proc_result_done(sked_proc_result *r);

#endif
