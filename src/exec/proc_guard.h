/* SPDX-License-Identifier: MIT */
/* A step's command dies with its server (proc_guard.c), for proc.c.
 *
 * Every command runs in a process group led by a guard: a small process
 * (/bin/sh running builtins, or a fork of the server without one) started
 * before the command, that holds the read end of a pipe whose only writer
 * is the server. While the server lives
 * the guard sleeps in read(); when the server dies, however it dies
 * (SIGKILL, a crash, the OOM killer), the kernel closes the server's end,
 * read() returns, and the guard sends SIGKILL to its whole group: the
 * command and everything it started that stayed in its group. The guard
 * exists before the command does, so there is no moment at which a
 * command runs unguarded. When the command ends while the server lives,
 * the server dismisses the guard (SIGKILL to the guard alone, then
 * reaping it): what the command left running is left as before.
 *
 * Not caught: a process that leaves the group (setsid, setpgid) — only a
 * cgroup holds those, which needs a service manager (docs/execution.md). */
#ifndef SKED_EXEC_PROC_GUARD_H
#define SKED_EXEC_PROC_GUARD_H

#include <sys/types.h>

typedef struct sked_proc_guard {
    pid_t pid; /* the guard, also the group's id; -1: none */
    int fd;    /* the pipe's write end, close-on-exec; -1: none */
} sked_proc_guard;

/* Start a guard into G, the leader of a new process group for a command
 * to join. Returns 0 or an errno (G then holds none). */
int sked__proc_guard_start(sked_proc_guard *g);

/* The command ended and the server lives: stop and reap the guard, close
 * the pipe. G holding none does nothing. */
void sked__proc_guard_dismiss(sked_proc_guard *g);

#endif
