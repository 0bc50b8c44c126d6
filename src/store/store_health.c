/* SPDX-License-Identifier: MIT */
/* The store's health (store_health.h): per op, whether it is failing,
 * since when and with what; per (op, error code), a counter; the last
 * episodes in which the database was out of reach, when they began and
 * ended, for the claim's recovery of leases (sked__lease_recover_before).
 * One mutex; a report is a few stores under it, cheap beside the call it
 * reports. */
#include "store/store_health.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "store/store_int.h"

/* Error codes run from -1 down to -CODES_MAX + 1; slot 0 takes any other
 * (a code of the table added later still counts, as "internal"). */
#define CODE_ENUM(name, num, api, http, exitc, msg) +1
#define CODES_MAX                                   (1 SKED_ERRNO_MAP(CODE_ENUM))
/* The leases' episodes kept (sked__lease_recover_before): only those that
 * ended less than a lease ago matter, a few at most. */
#define EPISODES 8

typedef struct op_state {
    bool failing;
    bool unavailable; /* failing, and its last error says the database is
                         out of reach (unavailable()) */
    int code;
    sked_time since;
    char msg[SKED_ERROR_MSG_MAX];
} op_state;

struct sked__health {
    pthread_mutex_t mu;
    op_state op[SKED_OP__COUNT];
    uint64_t count[SKED_OP__COUNT][CODES_MAX];
    int nfailing;      /* ops failing now */
    uint64_t failures; /* failed tries in this episode */
    uint64_t episode;
    /* The leases' episodes (set_unavailable), the last ones: the Eth in
     * last[E % EPISODES]. */
    int nunavailable; /* ops failing now with the database out of reach */
    uint64_t nlease_episodes;
    sked_store_episode last[EPISODES];
};

static const char *const op_names[SKED_OP__COUNT] = {
    [SKED_OP_SCAN] = "scan",   [SKED_OP_FIRE] = "fire",
    [SKED_OP_CLOCK] = "clock", [SKED_OP_CLAIM] = "claim",
    [SKED_OP_RENEW] = "renew", [SKED_OP_ROUTE] = "route",
    [SKED_OP_PRUNE] = "prune", [SKED_OP_WRITE] = "write",
};

const char *sked__store_op_name(sked_store_op op)
{
    return (unsigned) op < SKED_OP__COUNT ? op_names[op] : "unknown";
}

int sked__health_new(sked__health **out)
{
    sked__health *h = sked__calloc(1, sizeof *h);

    if (!h || pthread_mutex_init(&h->mu, NULL) != 0) {
        free(h);
        return SKED_ENOMEM;
    }
    for (int i = 0; i < EPISODES; i++)
        h->last[i].start = h->last[i].end = SKED_TIME_NONE;
    *out = h;
    return 0;
}

void sked__health_free(sked__health *h)
{
    if (!h)
        return;
    (void) pthread_mutex_destroy(&h->mu);
    free(h);
}

static int slot_of(int code)
{
    return code < 0 && code > -CODES_MAX ? -code : 0;
}

/* Whether a failure of CODE says the database is out of reach for this
 * server as a whole (so, most likely, for every server: the owners of
 * leases could not renew them either), not that one call was refused
 * (a firing that fails for one schedule, a batch for one run, memory):
 * those can last for ever and must not hold recovery back. */
static bool unavailable(int code)
{
    return code == SKED_ENOSPC || code == SKED_EROFS || code == SKED_EBUSY ||
           code == SKED_ESTALE;
}

/* Mark O out of reach (U) or not. The leases' episode begins when the
 * first op is, ends when none is. Under mu. */
static void set_unavailable(sked_store *st, sked__health *h, op_state *o,
                            bool u)
{
    if (u == o->unavailable)
        return;
    o->unavailable = u;
    if (u && h->nunavailable++ == 0)
        h->last[++h->nlease_episodes % EPISODES] =
            (sked_store_episode){sked__store_now(st), SKED_TIME_NONE};
    else if (!u && --h->nunavailable == 0)
        h->last[h->nlease_episodes % EPISODES].end = sked__store_now(st);
}

void sked__store_report(sked_store *st, sked_store_op op, int rc,
                        const sked_error *err)
{
    sked__health *h = st ? st->health : NULL;
    op_state *o;

    if (!h || (unsigned) op >= SKED_OP__COUNT)
        return;
    o = &h->op[op];
    pthread_mutex_lock(&h->mu);
    set_unavailable(st, h, o, rc != 0 && unavailable(rc));
    if (rc == 0) {
        if (o->failing && --h->nfailing == 0)
            h->failures = 0;
        o->failing = false;
        pthread_mutex_unlock(&h->mu);
        return;
    }
    h->count[op][slot_of(rc)]++;
    h->failures++;
    if (!o->failing) {
        if (h->nfailing++ == 0)
            h->episode++;
        o->failing = true;
        o->since = sked__store_now(st);
    }
    o->code = rc;
    snprintf(o->msg, sizeof o->msg, "%s",
             err && err->msg[0] ? err->msg : sked_strerror(rc));
    pthread_mutex_unlock(&h->mu);
}

bool sked__store_fault(sked_store *st, sked_store_fault *out)
{
    sked__health *h = st ? st->health : NULL;
    const op_state *first = NULL;
    int which = 0;

    if (!h)
        return false;
    pthread_mutex_lock(&h->mu);
    for (int i = 0; i < SKED_OP__COUNT; i++)
        if (h->op[i].failing && (!first || h->op[i].since < first->since)) {
            first = &h->op[i];
            which = i;
        }
    if (first && out) {
        out->op = (sked_store_op) which;
        out->code = first->code;
        out->since = first->since;
        out->failures = h->failures;
        out->episode = h->episode;
        memcpy(out->msg, first->msg, sizeof out->msg);
    }
    pthread_mutex_unlock(&h->mu);
    return first != NULL;
}

const char *sked__store_fault_reason(int code)
{
    switch (code) {
    case SKED_ENOSPC:
        return "the disk of the database is full";
    case SKED_EROFS:
        return "the database is read-only";
    case SKED_ESTALE:
        return "the database file was deleted or replaced";
    case SKED_EBUSY:
        return "the database is unreachable or busy";
    case SKED_ENOMEM:
        return "out of memory";
    case SKED_EIO:
        return "the database reports an error";
    default:
        return "the database call fails";
    }
}

sked_time sked__lease_recover_before(const sked_store_episode *ep, size_t nep,
                                     sked_time now, sked_dur lease)
{
    sked_time before = now;

    for (size_t i = 0; i < nep; i++) {
        if (ep[i].start == SKED_TIME_NONE)
            continue;
        bool near = ep[i].end == SKED_TIME_NONE || now < ep[i].end + lease;
        if (near && ep[i].start - lease < before)
            before = ep[i].start - lease;
    }
    return before;
}

sked_time sked__store_recover_before(sked_store *st, sked_time now,
                                     sked_dur lease)
{
    sked__health *h = st ? st->health : NULL;
    sked_store_episode last[EPISODES];

    if (!h)
        return now;
    pthread_mutex_lock(&h->mu);
    memcpy(last, h->last, sizeof last);
    pthread_mutex_unlock(&h->mu);
    return sked__lease_recover_before(last, EPISODES, now, lease);
}

void sked__store_errors_each(sked_store *st, sked_store_errors_fn fn, void *ctx)
{
    sked__health *h = st ? st->health : NULL;
    uint64_t count[SKED_OP__COUNT][CODES_MAX];

    if (!h)
        return;
    pthread_mutex_lock(&h->mu);
    memcpy(count, h->count, sizeof count);
    pthread_mutex_unlock(&h->mu);
    for (int i = 0; i < SKED_OP__COUNT; i++)
        for (int c = 0; c < CODES_MAX; c++)
            if (count[i][c] > 0)
                fn(ctx, op_names[i], sked_error_name(c ? -c : SKED_EINTERNAL),
                   count[i][c]);
}
