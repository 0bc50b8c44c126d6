/* SPDX-License-Identifier: MIT */
/* Events delivered in the order their writes committed, within one
 * process (one engine's subscribers).
 *
 * Two threads of an engine can write about the same run one right after
 * the other: the scheduler (or an API call) commits a run's creation, and
 * a worker that was awake anyway claims the run at once and commits its
 * start. Each then delivers its events; without an order, the worker's
 * run.started could reach the subscribers before the scheduler's
 * run.created. So a writer whose commit others may follow at once (a
 * run's creation) holds a ticket from before its commit until its events
 * are delivered, and a writer whose commit may follow one of those (a
 * claim) waits, after its commit and before delivering, until every
 * ticket taken before then has been given back. A ticket lives on its
 * holder's stack: nothing is allocated.
 *
 * Every function accepts a NULL order and then does nothing (a store
 * used without an engine). Thread-safe. */
#ifndef SKED_BASE_ORDER_H
#define SKED_BASE_ORDER_H

#include <pthread.h>
#include <stdint.h>

typedef struct sked_order_ticket {
    uint64_t n;
    struct sked_order_ticket *next;
} sked_order_ticket;

typedef struct sked_order {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t next;           /* the number of the next ticket */
    sked_order_ticket *held; /* tickets not given back, newest first */
} sked_order;

/* Returns 0, or SKED_EIO (no condition variable). */
int sked__order_init(sked_order *o);
void sked__order_done(sked_order *o);

/* Take T before the commit whose events must come first. */
void sked__order_take(sked_order *o, sked_order_ticket *t);

/* Give T back once its events are delivered (or its commit failed). */
void sked__order_give(sked_order *o, sked_order_ticket *t);

/* Wait until every ticket taken before this call has been given back. */
void sked__order_wait(sked_order *o);

#endif
