/* SPDX-License-Identifier: MIT */
/* The header deadline (http_int.h): a connection has a fixed time from
 * its start, or from the end of its last answer (keep-alive), to finish
 * the headers of its next request, however slowly it trickles them in.
 * libmicrohttpd's own timeout counts idle time only, so a client sending
 * a byte every few seconds held its connection for ever, and as many as
 * the connection limit locked every other client out.
 *
 * libmicrohttpd tells of each connection's start and close; between the
 * two it is on a list here with the instant it started waiting for
 * headers. A thread looks through the list twice a second and shuts
 * down the socket of any past the deadline: libmicrohttpd reads the end
 * of the stream and closes the connection itself, on its own thread. The
 * list's lock is taken by the close notice too, which libmicrohttpd sends
 * before it closes the socket, so a descriptor shut down here is always
 * still the connection's own. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <microhttpd.h>

#include "http/watch.h"

#include "base/alloc.h"

/* How often the thread looks: the deadline is kept to within this. */
#define SCAN_MS 500

typedef struct watched {
    struct watched *prev, *next;
    int fd;
    int64_t since_us; /* when it began to wait for headers; 0: not waiting */
} watched;

struct http_watch {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* on CLOCK_MONOTONIC */
    pthread_t thread;
    bool started, stop;
    int64_t limit_us;
    watched *head;
};

static int64_t now_us(void)
{
    struct timespec ts;

    (void) clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

bool sked__http_watch_expired(int64_t since_us, int64_t now, int64_t limit_us)
{
    return since_us > 0 && now - since_us >= limit_us;
}

/* Shut down every connection of W past its deadline. Under W's lock. */
static void cut_late(http_watch *w)
{
    int64_t now = now_us();

    for (watched *x = w->head; x; x = x->next) {
        if (!sked__http_watch_expired(x->since_us, now, w->limit_us))
            continue;
        (void) shutdown(x->fd, SHUT_RDWR);
        x->since_us = 0;
    }
}

static void *run(void *arg)
{
    http_watch *w = arg;
    struct timespec at;

    pthread_mutex_lock(&w->mu);
    while (!w->stop) {
        cut_late(w);
        (void) clock_gettime(CLOCK_MONOTONIC, &at);
        at.tv_nsec += SCAN_MS * 1000000L;
        if (at.tv_nsec >= 1000000000L) {
            at.tv_sec++;
            at.tv_nsec -= 1000000000L;
        }
        (void) pthread_cond_timedwait(&w->cv, &w->mu, &at);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

int sked__http_watch_start(unsigned secs, http_watch **out, sked_error *err)
{
    http_watch *w = sked__calloc(1, sizeof *w);
    pthread_condattr_t ca;
    int rc;

    *out = NULL;
    if (!w)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, "%s",
                               sked_strerror(SKED_ENOMEM));
    w->limit_us = (int64_t) secs * 1000000;
    if ((rc = pthread_condattr_init(&ca)) == 0) {
        (void) pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        rc = pthread_cond_init(&w->cv, &ca);
        (void) pthread_condattr_destroy(&ca);
    }
    if (rc != 0) {
        free(w);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1,
                               "cannot make the header deadline's condition");
    }
    (void) pthread_mutex_init(&w->mu, NULL);
    if ((rc = pthread_create(&w->thread, NULL, run, w)) != 0) {
        sked__http_watch_stop(w);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1,
                               "cannot start the header deadline's thread: %s",
                               strerror(rc));
    }
    w->started = true;
    *out = w;
    return 0;
}

void sked__http_watch_stop(http_watch *w)
{
    if (!w)
        return;
    if (w->started) {
        pthread_mutex_lock(&w->mu);
        w->stop = true;
        pthread_cond_signal(&w->cv);
        pthread_mutex_unlock(&w->mu);
        (void) pthread_join(w->thread, NULL);
    }
    /* The daemon is stopped first: every connection was closed and left
     * the list. */
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
}

/* A new connection: on the list, waiting for headers from now. */
static void add(http_watch *w, struct MHD_Connection *conn, void **ctx)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    watched *x;

    *ctx = NULL;
    /* Out of memory: the connection goes unwatched, with the idle
     * timeout only. */
    if (!info || !(x = sked__calloc(1, sizeof *x)))
        return;
    x->fd = info->connect_fd;
    pthread_mutex_lock(&w->mu);
    x->since_us = now_us();
    x->next = w->head;
    if (w->head)
        w->head->prev = x;
    w->head = x;
    pthread_mutex_unlock(&w->mu);
    *ctx = x;
}

static void drop(http_watch *w, watched *x)
{
    pthread_mutex_lock(&w->mu);
    if (x->prev)
        x->prev->next = x->next;
    else
        w->head = x->next;
    if (x->next)
        x->next->prev = x->prev;
    pthread_mutex_unlock(&w->mu);
    free(x);
}

void sked__http_watch_notify(void *cls, struct MHD_Connection *conn,
                             void **socket_context,
                             enum MHD_ConnectionNotificationCode code)
{
    http_watch *w = cls;

    if (code == MHD_CONNECTION_NOTIFY_STARTED)
        add(w, conn, socket_context);
    else if (code == MHD_CONNECTION_NOTIFY_CLOSED && *socket_context) {
        drop(w, *socket_context);
        *socket_context = NULL;
    }
}

void sked__http_watch_headers(http_watch *w, struct MHD_Connection *conn,
                              bool in)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    watched *x = info ? info->socket_context : NULL;

    if (!w || !x)
        return;
    pthread_mutex_lock(&w->mu);
    x->since_us = in ? 0 : now_us();
    pthread_mutex_unlock(&w->mu);
}
