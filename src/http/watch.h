/* SPDX-License-Identifier: MIT */
/* The header deadline of the HTTP server (watch.c): every connection
 * finishes the headers of each request within a fixed time, from its
 * start or from its last answer, or is closed. */
#ifndef SKED_HTTP_WATCH_H
#define SKED_HTTP_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include <microhttpd.h>

#include "base/error.h"

typedef struct http_watch http_watch;

/* Start watching with a deadline of SECS seconds. OUT: *out, stopped
 * with sked__http_watch_stop after the daemon. Returns 0 or SKED_ENOMEM
 * (no thread, no memory). */
int sked__http_watch_start(unsigned secs, http_watch **out, sked_error *err);

/* Stop the thread and free W, after every connection has closed. NULL
 * does nothing. */
void sked__http_watch_stop(http_watch *w);

/* libmicrohttpd's MHD_OPTION_NOTIFY_CONNECTION, with W as its closure. */
void sked__http_watch_notify(void *w, struct MHD_Connection *conn,
                             void **socket_context,
                             enum MHD_ConnectionNotificationCode code);

/* The headers of CONN's request are in (IN: no deadline until its
 * answer), or its answer is done (!IN: the next request's headers have
 * the deadline from now). */
void sked__http_watch_headers(http_watch *w, struct MHD_Connection *conn,
                              bool in);

/* True when a connection waiting for headers since SINCE_US (0: not
 * waiting) is past LIMIT_US at NOW (all monotonic µs). */
bool sked__http_watch_expired(int64_t since_us, int64_t now, int64_t limit_us);

#endif
