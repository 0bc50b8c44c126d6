/* SPDX-License-Identifier: MIT */
/* A cancellation flag that a poll loop can wait on.
 *
 * A step is cancelled from another thread (a cancel request, a workflow
 * deadline, a server stopping). C steps read the flag; an exec step's
 * poll loop and an http step's transfer also wait on its file
 * descriptor, so a cancel wakes them at once instead of at their next
 * timeout. Setting is idempotent and async-signal-safe. */
#ifndef SKED_BASE_CANCEL_H
#define SKED_BASE_CANCEL_H

#include <stdatomic.h>
#include <stdbool.h>

typedef struct sked_cancel {
    atomic_int set; /* 0, or the reason given to sked__cancel_set */
    int fd;         /* an eventfd, readable once set; -1 when closed */
} sked_cancel;

/* Open C, not set. Returns 0, or SKED_EIO when no eventfd can be made. */
int sked__cancel_init(sked_cancel *c);

/* Set C with REASON (> 0; the first reason set is kept) and wake every
 * poll on its fd. */
void sked__cancel_set(sked_cancel *c, int reason);

/* Return the reason C was set with, or 0 when it is not set. */
int sked__cancel_reason(const sked_cancel *c);

/* The fd that becomes readable (POLLIN) once C is set. */
int sked__cancel_fd(const sked_cancel *c);

/* Clear C for its next use: not set, and its fd not readable, without a
 * new eventfd (a worker reuses its flag for every run). Not concurrent
 * with sked__cancel_set on C. */
void sked__cancel_reset(sked_cancel *c);

/* Release C. Safe on a flag already closed or whose init failed. */
void sked__cancel_close(sked_cancel *c);

#endif
