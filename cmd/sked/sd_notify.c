/* SPDX-License-Identifier: MIT */
/* The service manager's notification protocol (sd_notify.h). */
#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sd_notify.h"

/* The socket's address from $NOTIFY_SOCKET: a path, or "@" for Linux's
 * abstract namespace. Returns false for anything else. */
static bool socket_address(const char *s, sd_notifier *n)
{
    size_t len = strlen(s);

    memset(&n->addr, 0, sizeof n->addr);
    n->addr.sun_family = AF_UNIX;
    if (len < 2 || len >= sizeof n->addr.sun_path ||
        (s[0] != '/' && s[0] != '@'))
        return false;
    memcpy(n->addr.sun_path, s, len);
    if (s[0] == '@')
        n->addr.sun_path[0] = '\0';
    /* An abstract name is exactly its bytes; a path ends with its NUL. */
    n->addr_len = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + len +
                               (s[0] == '/'));
    return true;
}

/* The watchdog's interval from $WATCHDOG_USEC, when it is ours. */
static sked_dur watchdog_interval(void)
{
    const char *usec = getenv("WATCHDOG_USEC");
    const char *pid = getenv("WATCHDOG_PID");
    char *end;
    long long v;

    if (!usec || !usec[0])
        return 0;
    if (pid && pid[0] && strtoll(pid, &end, 10) != (long long) getpid())
        return 0;
    errno = 0;
    v = strtoll(usec, &end, 10);
    if (errno || *end || v <= 0)
        return 0;
    /* Half the interval, as sd_watchdog_enabled(3) advises. */
    return (sked_dur) (v / 2);
}

void sdn_open(sd_notifier *n)
{
    const char *s = getenv("NOTIFY_SOCKET");

    memset(n, 0, sizeof *n);
    n->fd = -1;
    if (s && socket_address(s, n))
        n->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (n->fd >= 0)
        n->watchdog = watchdog_interval();
    (void) unsetenv("NOTIFY_SOCKET");
    (void) unsetenv("WATCHDOG_USEC");
    (void) unsetenv("WATCHDOG_PID");
}

bool sdn_enabled(const sd_notifier *n)
{
    return n->fd >= 0;
}

void sdn_send(sd_notifier *n, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    int len;

    if (n->fd < 0)
        return;
    va_start(ap, fmt);
    len = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (len <= 0)
        return;
    if ((size_t) len >= sizeof msg)
        len = (int) sizeof msg - 1;
    (void) sendto(n->fd, msg, (size_t) len, MSG_NOSIGNAL,
                  (const struct sockaddr *) &n->addr, n->addr_len);
}

void sdn_watchdog(sd_notifier *n, sked_mono now)
{
    if (n->fd < 0 || n->watchdog <= 0 || now < n->next_ping)
        return;
    sdn_send(n, "WATCHDOG=1");
    n->next_ping = now + n->watchdog;
}

sked_dur sdn_wait(const sd_notifier *n, sked_mono now, sked_dur max)
{
    sked_dur left;

    if (n->fd < 0 || n->watchdog <= 0)
        return max;
    left = n->next_ping - now;
    if (left < 0)
        left = 0;
    return left < max ? left : max;
}

void sdn_close(sd_notifier *n)
{
    if (n->fd >= 0)
        (void) close(n->fd);
    n->fd = -1;
}
