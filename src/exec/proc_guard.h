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
 * as before. A guard that is killed all the same (it ignores every other
 * signal) is noticed at once by the commands' waiters, which poll its
 * socket: another is started and given every group still running.
 *
 * Not caught: a process that leaves the group (setsid, setpgid) — only a
 * cgroup holds those, which needs a service manager (docs/execution.md). */
#ifndef SKED_EXEC_PROC_GUARD_H
#define SKED_EXEC_PROC_GUARD_H

#include <stdbool.h>
#include <sys/types.h>

/* The guard's socket for a child to enlist with, the guard started when
 * there is none yet in this process (or it died); *GEN gets the guard's
 * generation. Returns the socket, or a negative errno when no guard could
 * be started. The socket stays open, under the same number, as long as
 * the process lives: a guard started again takes it over. */
int sked__proc_guard_fd(unsigned *gen);

/* In a child between fork and exec (async-signal-safe): enlist the
 * child's own process group with the guard on FD. Returns 0 or an errno:
 * EPIPE when the guard is gone. */
int sked__proc_guard_enlist(int fd);

/* An enlist with the guard of generation GEN failed with EPIPE: the next
 * sked__proc_guard_fd starts another, if that guard is really gone. */
void sked__proc_guard_lost(unsigned gen);

/* The command leading group PGID started, enlisted with the guard of
 * generation GEN: it is handed to any guard started later while it runs
 * (to the current one now if that is already another). */
void sked__proc_guard_track(pid_t pgid, unsigned gen);

/* The leader of group PGID has ended and is not yet reaped: withdraw the
 * group, so that the guard leaves it alone from now on. */
void sked__proc_guard_withdraw(pid_t pgid);

/* The socket (polled by a command's waiter) hung up: if the guard is
 * gone, start another, handing it every group still running. Returns
 * whether there is a guard now. */
bool sked__proc_guard_check(void);

/* For tests: the guards from now on run PATH instead of /bin/sh (NULL:
 * a fork of the process, as where there is no shell). The guard running
 * now is replaced at the next command: only while no command runs. */
void sked__proc_guard_test_shell(const char *path);

#endif
