/* SPDX-License-Identifier: MIT */
/* The journal's native protocol (journal.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "journal.h"

#define SOCKET_PATH "/run/systemd/journal/socket"

/* Whether $JOURNAL_STREAM ("DEVICE:INODE") is OUT's file. */
static bool stream_is(FILE *out)
{
    const char *s = getenv("JOURNAL_STREAM");
    unsigned long long dev, ino;
    struct stat st;
    char tail;

    if (!s || sscanf(s, "%llu:%llu%c", &dev, &ino, &tail) != 2)
        return false;
    if (fstat(fileno(out), &st) != 0)
        return false;
    return (unsigned long long) st.st_dev == dev &&
           (unsigned long long) st.st_ino == ino;
}

bool journal_open(journal *j, FILE *out)
{
    const char *path = getenv("SKED_JOURNAL_SOCKET");
    size_t len;

    memset(j, 0, sizeof *j);
    j->fd = -1;
    if (!stream_is(out))
        return false;
    if (!path || !path[0])
        path = SOCKET_PATH;
    len = strlen(path);
    if (len >= sizeof j->addr.sun_path)
        return false;
    j->addr.sun_family = AF_UNIX;
    memcpy(j->addr.sun_path, path, len + 1);
    j->addr_len =
        (socklen_t) (offsetof(struct sockaddr_un, sun_path) + len + 1);
    j->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    return j->fd >= 0;
}

int journal_send(journal *j, const char *entry, size_t len)
{
    if (j->fd < 0)
        return -1;
    if (sendto(j->fd, entry, len, MSG_NOSIGNAL,
               (const struct sockaddr *) &j->addr, j->addr_len) < 0)
        return -1;
    return 0;
}

void journal_close(journal *j)
{
    if (j->fd >= 0)
        (void) close(j->fd);
    j->fd = -1;
}
