/* SPDX-License-Identifier: MIT */
/* The delivery order of events (order.h). Tickets held at once number
 * the threads that create runs (the scheduler, the API's), so a list
 * walked under the lock is all that is needed. */
#include "base/order.h"

#include <stdbool.h>

#include "sked/error.h"

int sked__order_init(sked_order *o)
{
    o->next = 0;
    o->held = NULL;
    if (pthread_mutex_init(&o->mu, NULL) != 0)
        return SKED_EIO;
    if (pthread_cond_init(&o->cv, NULL) != 0) {
        (void) pthread_mutex_destroy(&o->mu);
        return SKED_EIO;
    }
    return 0;
}

void sked__order_done(sked_order *o)
{
    if (!o)
        return;
    (void) pthread_cond_destroy(&o->cv);
    (void) pthread_mutex_destroy(&o->mu);
}

void sked__order_take(sked_order *o, sked_order_ticket *t)
{
    if (!o)
        return;
    pthread_mutex_lock(&o->mu);
    t->n = o->next++;
    t->next = o->held;
    o->held = t;
    pthread_mutex_unlock(&o->mu);
}

void sked__order_give(sked_order *o, sked_order_ticket *t)
{
    if (!o)
        return;
    pthread_mutex_lock(&o->mu);
    for (sked_order_ticket **p = &o->held; *p; p = &(*p)->next)
        if (*p == t) {
            *p = t->next;
            break;
        }
    pthread_cond_broadcast(&o->cv);
    pthread_mutex_unlock(&o->mu);
}

/* Whether a ticket numbered below BOUND is held. Under mu. */
static bool held_below(const sked_order *o, uint64_t bound)
{
    for (const sked_order_ticket *t = o->held; t; t = t->next)
        if (t->n < bound)
            return true;
    return false;
}

void sked__order_wait(sked_order *o)
{
    uint64_t bound;

    if (!o)
        return;
    pthread_mutex_lock(&o->mu);
    bound = o->next;
    while (held_below(o, bound))
        pthread_cond_wait(&o->cv, &o->mu);
    pthread_mutex_unlock(&o->mu);
}
