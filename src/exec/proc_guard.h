/* SPDX-License-Identifier: MIT */
/* A step's commands die with their server (proc_guard.c), for proc.c.
 *
 * One guard per process: a small process (/bin/sh running builtins, or a
 * fork of the server without one), started at the first command, that
 * holds one end of a socket whose other end only the server holds. Every
 * command leads a process group of its own, and enlists it with the
 * guard from the child itself, before its exec: the child holds a copy
 * of the server's end until the exec closes it, so whatever kills the
 * server at any moment, the guard has read the group before it reads the
 * end of the socket. When the server dies, however it dies (SIGKILL, a
 * crash, the OOM killer), the kernel closes the server's end and the
 * guard sends SIGKILL to every group still enlisted: the commands and
 * everything they started that stayed in their groups. When a command
 * ends while the server lives, the server withdraws its group before it
 * reaps the command (whose zombie keeps the group's id from being given
 * to another process until then): what the command left running is left
 * as before.
 *
 * Not caught: a process that leaves the group (setsid, setpgid) — only a
 * cgroup holds those, which needs a service manager (docs/execution.md). */
#ifndef SKED_EXEC_PROC_GUARD_H
#define SKED_EXEC_PROC_GUARD_H

#include <sys/types.h>

/* The guard's socket for a child to enlist with, the guard started when
 * there is none yet in this process (or it died). Returns the socket, or
 * a negative errno when no guard could be started. The socket stays
 * open, under the same number, as long as the process lives. */
int sked__proc_guard_fd(void);

/* In a child between fork and exec (async-signal-safe): enlist the
 * child's own process group with the guard on FD. Returns 0 or an errno:
 * EPIPE when the guard is gone. */
int sked__proc_guard_enlist(int fd);

/* The guard on FD was found gone (an enlist failed with EPIPE): the next
 * sked__proc_guard_fd starts another. */
void sked__proc_guard_lost(int fd);

/* The leader of group PGID has ended and is not yet reaped: withdraw the
 * group, so that the guard leaves it alone from now on. */
void sked__proc_guard_withdraw(pid_t pgid);

/* For tests: the guards from now on run PATH instead of /bin/sh (NULL:
 * a fork of the process, as where there is no shell). The guard running
 * now is replaced at the next command: only while no command runs. */
void sked__proc_guard_test_shell(const char *path);

#endif
