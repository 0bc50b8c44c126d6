/* SPDX-License-Identifier: MIT */
/* The cancellation flag (cancel.h): an atomic reason and an eventfd. */
#include "base/cancel.h"

#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "sked/error.h"

int sked__cancel_init(sked_cancel *c)
{
    atomic_init(&c->set, 0);
    c->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    return c->fd < 0 ? SKED_EIO : 0;
}

void sked__cancel_set(sked_cancel *c, int reason)
{
    int expected = 0;
    if (reason <= 0)
        reason = 1;
    if (!atomic_compare_exchange_strong(&c->set, &expected, reason))
        return;
    uint64_t one = 1;
    /* A full counter is impossible here (written once); nothing to do on
     * failure but let the flag speak. */
    ssize_t w = write(c->fd, &one, sizeof one);
    (void) w;
}

int sked__cancel_reason(const sked_cancel *c)
{
    return atomic_load(&((sked_cancel *) c)->set);
}

int sked__cancel_fd(const sked_cancel *c)
{
    return c->fd;
}

void sked__cancel_reset(sked_cancel *c)
{
    uint64_t count;

    if (atomic_exchange(&c->set, 0) == 0)
        return;
    /* Set once, written once: one read drains it. */
    ssize_t r = read(c->fd, &count, sizeof count);
    (void) r;
}

void sked__cancel_close(sked_cancel *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}
