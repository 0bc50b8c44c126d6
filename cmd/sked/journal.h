/* SPDX-License-Identifier: MIT */
/* The systemd journal's native protocol, for the server's log: under
 * systemd, with its stderr connected to the journal ($JOURNAL_STREAM
 * names that very stream), each log line goes to the journal as one
 * entry of fields (PRIORITY, MESSAGE, and SKED_KEY for each of the
 * line's pairs), so that `journalctl SKED_SCHEDULE=nightly` finds it.
 * Anywhere else nothing changes: lines go to stderr as ever.
 *
 * An entry is one datagram to /run/systemd/journal/socket
 * ($SKED_JOURNAL_SOCKET instead, for tests), every field in the
 * protocol's binary form (NAME, a newline, the value's length as 64-bit
 * little-endian, the value, a newline), which holds any value. */
#ifndef SKED_CMD_JOURNAL_H
#define SKED_CMD_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/un.h>

typedef struct journal {
    int fd; /* -1: not under the journal */
    struct sockaddr_un addr;
    socklen_t addr_len;
} journal;

/* Open the journal when $JOURNAL_STREAM is the device and inode of OUT's
 * file descriptor. Returns whether it is open. */
bool journal_open(journal *j, FILE *out);

/* Send the entry ENTRY (LEN bytes of fields). Returns 0, or -1 when it
 * could not be sent: the caller writes the line instead. */
int journal_send(journal *j, const char *entry, size_t len);

void journal_close(journal *j);

#endif
