/* SPDX-License-Identifier: MIT */
/* Telling the service manager how the server is (sd_notify(3)): READY=1
 * once it serves, STATUS= lines, RELOADING=1 around a SIGHUP, STOPPING=1,
 * and WATCHDOG=1 at half the interval systemd watches with.
 *
 * The documented protocol is spoken directly, without libsystemd: each
 * message is one datagram to the unix socket $NOTIFY_SOCKET ("@name" an
 * abstract one). Without the variable nothing is sent, so the same
 * server runs under systemd and anywhere else. The variables are taken
 * out of the environment at start, so no step ever inherits them. */
#ifndef SKED_CMD_SD_NOTIFY_H
#define SKED_CMD_SD_NOTIFY_H

#include <stdbool.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "base/error.h"
#include "sked/sked.h"

typedef struct sd_notifier {
    int fd; /* -1: no service manager listens */
    struct sockaddr_un addr;
    socklen_t addr_len;
    sked_dur watchdog;   /* between two WATCHDOG=1; 0: not watched */
    sked_mono next_ping; /* when the next is due */
} sd_notifier;

/* Read $NOTIFY_SOCKET, $WATCHDOG_USEC and $WATCHDOG_PID (when it names
 * another process, the watchdog is not ours) and unset them. Call before
 * any thread starts: it changes the environment. */
void sdn_open(sd_notifier *n);

/* Whether a service manager listens. */
bool sdn_enabled(const sd_notifier *n);

/* Send one message (lines "KEY=VALUE"), printf-style. A failure is
 * ignored: the service manager's trouble is not the server's. */
void sdn_send(sd_notifier *n, const char *fmt, ...) SKED__PRINTF(2, 3);

/* Send WATCHDOG=1 when it is due at NOW (monotonic). */
void sdn_watchdog(sd_notifier *n, sked_mono now);

/* How long the server may wait before sdn_watchdog must run again, at
 * most MAX. */
sked_dur sdn_wait(const sd_notifier *n, sked_mono now, sked_dur max);

void sdn_close(sd_notifier *n);

#endif
