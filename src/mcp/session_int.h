/* SPDX-License-Identifier: MIT */
/* A session's state (session.c), shared with the thread that reads the
 * event log for it (session_poll.c). Everything below the mutex is
 * read and written under it, but for what a member says otherwise. */
#ifndef SKED_MCP_SESSION_INT_H
#define SKED_MCP_SESSION_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "mcp/mcp.h"

/* The levels of logging/setLevel: RFC 5424's severities, as MCP names
 * them, least severe first (session_poll.c). */
extern const char *const sked__mcp_log_levels[];
#define MCP_LEVELS     8
#define MCP_LEVEL_INFO 1
#define MCP_LEVEL_WARN 3
#define MCP_LEVEL_NONE (-1)

#define MCP_EARLY_MAX 64

/* A request in flight, on its handler's stack. */
typedef struct mcp_inflight {
    json_t *id; /* borrowed: the request's */
    atomic_int cancel;
    struct mcp_inflight *next;
} mcp_inflight;

struct sked_mcp {
    sked_mcp_options o; /* set at open, then only read */
    pthread_mutex_t mu;
    pthread_cond_t poll_cv;  /* wakes the poller (CLOCK_MONOTONIC) */
    pthread_cond_t calls_cv; /* a call ended */
    const char *version;     /* a static string; NULL before initialize */
    int log_level;           /* index of sked__mcp_log_levels, or NONE */
    json_t *subs;            /* owned: object, subscribed URI -> true */
    mcp_inflight *calls;
    /* Owned: the ids cancelled while no call of theirs was in flight
     * (a request still queued by its transport), the last
     * MCP_EARLY_MAX: their requests are not run. */
    json_t *early;
    bool closing;
    /* Set at close, read without the mutex: the poller's API call and
     * its pages stop. */
    atomic_int stop;
    bool polling; /* the poller thread was started */
    pthread_t poller;
    int64_t cursor; /* the poller's own: the last event seen */
};

/* Start M's poller, once, when M has a notify function: it reads the
 * event log every o.poll from the newest event on, and sends the
 * notifications of M's subscriptions and log level. Without a thread
 * the session serves and sends nothing. */
void sked__mcp_poll_begin(sked_mcp *m);

#endif
