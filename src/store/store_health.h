/* SPDX-License-Identifier: MIT */
/* The store's health: what the loops that work on the database in the
 * background (the scheduler, the workers' claims, the heartbeat, the
 * journal's writer) met on their last try, kept by the store they share.
 *
 * Words: an op is one of those loops' calls (fire, claim, write, ...); an
 * op is failing from its first failed try until its next success; the
 * store is failing while any op is; an episode is one stretch of failing,
 * from healthy to healthy again. The kind of a failure is the API code of
 * its error (sked_error_name: "disk_full", "read_only", "unavailable",
 * "database_gone", "io_error", ...), so a metric's label, a log line and
 * an HTTP body name it alike.
 *
 * Calls made for a client (an API request, the CLI) are not reported:
 * the client gets the error itself, and one refused request must not make
 * a server unready. Every function is thread-safe. */
#ifndef SKED_STORE_STORE_HEALTH_H
#define SKED_STORE_STORE_HEALTH_H

#include <stdbool.h>
#include <stdint.h>

#include "sked/error.h"
#include "store/store.h"

typedef enum sked_store_op {
    SKED_OP_SCAN,  /* the scheduler rereads schedules */
    SKED_OP_FIRE,  /* the scheduler fires due occurrences */
    SKED_OP_CLOCK, /* the scheduler reads the database's clock */
    SKED_OP_CLAIM, /* the workers claim runs */
    SKED_OP_RENEW, /* the heartbeat renews leases */
    SKED_OP_ROUTE, /* the heartbeat reads the latest workflow versions */
    SKED_OP_PRUNE, /* the heartbeat deletes old events */
    SKED_OP_WRITE, /* the journal writes what runs did */
    SKED_OP__COUNT
} sked_store_op;

/* The op failing longest, as sked__store_fault describes it. */
typedef struct sked_store_fault {
    sked_store_op op;
    int code;                     /* its last error */
    sked_time since;              /* its first failure of this episode */
    uint64_t failures;            /* failed tries of all ops in this episode */
    uint64_t episode;             /* 1 for the first episode, then 2, ... */
    char msg[SKED_ERROR_MSG_MAX]; /* its last message: names the file or
                                     the server, for the log only */
} sked_store_fault;

/* Return the name of OP ("fire"); never NULL. */
const char *sked__store_op_name(sked_store_op op);

/* Record the outcome of one try of OP at NOW: RC 0 ends its failing; a
 * failure counts (op, kind) and keeps ERR's message (may be NULL). */
void sked__store_report(sked_store *st, sked_store_op op, int rc,
                        const sked_error *err);

/* Tell whether the store is failing; when it is and OUT is not NULL,
 * describe the op failing longest into *out. */
bool sked__store_fault(sked_store *st, sked_store_fault *out);

/* Words for a failure of CODE that name no file, host, port or database
 * ("the disk is full"): what a client may read. Never NULL. */
const char *sked__store_fault_reason(int code);

/* One episode of the leases: from the first call that failed with the
 * database out of reach (disk_full, read_only, unavailable,
 * database_gone), with none failing so, to the success that left none
 * (END SKED_TIME_NONE while it lasts). */
typedef struct sked_store_episode {
    sked_time start, end;
} sked_store_episode;

/* Pure: the instant before which a lease must have run out for a claim at
 * NOW to recover it, after the NEP last episodes of the leases EP of the
 * claiming server (any order; a START of SKED_TIME_NONE is an empty slot)
 * and with leases of LEASE. While the database is out of reach for this
 * server, and for one lease after it is back, the owner of a lease that
 * ran out meanwhile had no way to renew it (the database failed for it
 * too, most likely: a full disk, a restarted PostgreSQL): only a lease
 * that had run out a lease before such an episode began is recovered
 * then, and the owner gets one whole lease, with the database back, to
 * renew the others. Otherwise NOW. */
sked_time sked__lease_recover_before(const sked_store_episode *ep, size_t nep,
                                     sked_time now, sked_dur lease);

/* sked__lease_recover_before with the last episodes of ST's health. */
sked_time sked__store_recover_before(sked_store *st, sked_time now,
                                     sked_dur lease);

/* Call FN for every (op, kind) counted so far, with its count. */
typedef void (*sked_store_errors_fn)(void *ctx, const char *op,
                                     const char *kind, uint64_t n);
void sked__store_errors_each(sked_store *st, sked_store_errors_fn fn,
                             void *ctx);

#endif
