/* SPDX-License-Identifier: MIT */
/* The stdio transport of MCP (mcp.h, sked__mcp_stdio): newline-delimited
 * JSON-RPC messages read from one file descriptor, the answers and the
 * notifications written to another, one a line, under one lock, and
 * nothing else ever written there.
 *
 * The reader hands each message to a pool of WORKERS threads through a
 * queue of at most QUEUE_MAX; beyond that it waits. It handles every
 * notification itself, in the order read, so that
 * notifications/cancelled reaches a long call (or keeps a later one
 * from running) without waiting behind the requests. Until the
 * session is initialized it handles every message itself, so that what
 * a client sends right after initialize finds it done. A line longer
 * than SKED_MCP_MESSAGE_MAX is answered with -32600 without being kept,
 * and skipped to its end; empty lines are ignored. At the end of the
 * input the calls in flight are waited for. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "base/alloc.h"
#include "base/error.h"
#include "mcp/mcp.h"

#define WORKERS 8
/* Messages read and waiting for a worker, at most: beyond, the reader
 * waits. */
#define QUEUE_MAX 32
#define READ_SIZE (64 * 1024)
/* How often a reader waiting for input looks at *stop. */
#define STOP_POLL_MS 200

/* The answer to a line too long to read: its id is not known. */
static const char too_long[] =
    "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"
    "\"message\":\"Invalid Request: the message is larger than 1048576 "
    "bytes\"}}";

typedef struct job {
    char *msg; /* owned */
    size_t len;
} job;

typedef struct server {
    sked_mcp *m;
    int out;
    pthread_mutex_t out_mu; /* one line at a time on OUT */
    int out_errno;          /* the first failed write's errno, or 0 */

    pthread_mutex_t mu; /* the queue */
    pthread_cond_t cv;  /* a job queued or finished, or the end */
    job q[QUEUE_MAX];
    size_t head, n; /* queued jobs: q[head], ..., circular */
    size_t busy;    /* jobs taken by a worker and not finished */
    bool done;      /* no more jobs will come */
    pthread_t workers[WORKERS];
    size_t nworkers;
} server;

/* ---- writing ------------------------------------------------------------- */

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return errno ? errno : EIO;
        p += w;
        n -= (size_t) w;
    }
    return 0;
}

/* Write TEXT (LEN bytes, no newline) and a newline, as one line. */
static void send_line(server *s, const char *text, size_t len)
{
    pthread_mutex_lock(&s->out_mu);
    if (s->out_errno == 0) {
        int rc = write_all(s->out, text, len);

        if (rc == 0)
            rc = write_all(s->out, "\n", 1);
        s->out_errno = rc;
    }
    pthread_mutex_unlock(&s->out_mu);
}

static void on_notify(void *ctx, const char *json, size_t len)
{
    send_line(ctx, json, len);
}

/* Handle one message and send its answer, when one is owed. */
static void run_one(server *s, const char *msg, size_t len)
{
    char *reply = NULL;
    size_t n = 0;

    if (sked__mcp_handle(s->m, msg, len, &reply, &n) == 0 && reply)
        send_line(s, reply, n);
    free(reply);
}

/* ---- the workers --------------------------------------------------------- */

static void *worker_main(void *arg)
{
    server *s = arg;

    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (s->n == 0 && !s->done)
            pthread_cond_wait(&s->cv, &s->mu);
        if (s->n == 0)
            break;
        job j = s->q[s->head];
        s->head = (s->head + 1) % QUEUE_MAX;
        s->n--;
        s->busy++;
        pthread_mutex_unlock(&s->mu);
        run_one(s, j.msg, j.len);
        free(j.msg);
        pthread_mutex_lock(&s->mu);
        s->busy--;
        pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* Whether the message MSG is a notification: an object without an id. */
static bool is_notification(const char *msg, size_t len)
{
    json_t *j = json_loadb(msg, len, 0, NULL);
    bool yes = json_is_object(j) && !json_object_get(j, "id");

    json_decref(j);
    return yes;
}

/* Give the line MSG (LEN bytes, owned) to the workers, or handle it
 * here: before initialize, when no worker could start, or a
 * notification. A notification is handled in the order it was read: a
 * cancel read before its request is known before any worker can take
 * the request (two workers would race). */
static void dispatch(server *s, char *msg, size_t len)
{
    bool here = s->nworkers == 0 || !sked__mcp_version(s->m) ||
                is_notification(msg, len);

    pthread_mutex_lock(&s->mu);
    while (!here && s->n >= QUEUE_MAX)
        pthread_cond_wait(&s->cv, &s->mu);
    if (!here) {
        s->q[(s->head + s->n) % QUEUE_MAX] = (job){.msg = msg, .len = len};
        s->n++;
        pthread_cond_signal(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
    if (here) {
        run_one(s, msg, len);
        free(msg);
    }
}

/* ---- reading ------------------------------------------------------------- */

typedef struct reader {
    char *line; /* owned: the line so far */
    size_t len, cap;
    bool skipping; /* the line is too long: drop it to its end */
} reader;

static bool blank(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
            return false;
    return true;
}

/* End the current line: hand it over, or answer it as too long. */
static void line_end(server *s, reader *r)
{
    if (r->skipping) {
        send_line(s, too_long, sizeof too_long - 1);
    } else if (!blank(r->line, r->len)) {
        char *msg = sked__malloc(r->len + 1);

        if (msg) {
            memcpy(msg, r->line, r->len);
            msg[r->len] = '\0';
            dispatch(s, msg, r->len);
        }
    }
    r->len = 0;
    r->skipping = false;
}

/* Append the N bytes at P (no newline among them) to the current line.
 * Returns false when out of memory. */
static bool line_add(reader *r, const char *p, size_t n)
{
    if (r->skipping || n == 0)
        return true;
    if (r->len + n > SKED_MCP_MESSAGE_MAX) {
        r->skipping = true;
        r->len = 0;
        return true;
    }
    if (r->len + n > r->cap) {
        size_t cap = r->cap ? r->cap : 4096;
        char *p2;

        while (cap < r->len + n)
            cap *= 2;
        if (!(p2 = sked__realloc(r->line, cap)))
            return false;
        r->line = p2;
        r->cap = cap;
    }
    memcpy(r->line + r->len, p, n);
    r->len += n;
    return true;
}

/* Split the N bytes read at BUF into lines. */
static bool take(server *s, reader *r, const char *buf, size_t n)
{
    while (n > 0) {
        const char *nl = memchr(buf, '\n', n);
        size_t k = nl ? (size_t) (nl - buf) : n;

        if (!line_add(r, buf, k))
            return false;
        if (nl) {
            line_end(s, r);
            k++;
        }
        buf += k;
        n -= k;
    }
    return true;
}

/* Wait until IN can be read or *STOP is set; false for the latter. */
static bool wait_input(int in, volatile const int *stop)
{
    struct pollfd p = {.fd = in, .events = POLLIN};

    if (!stop)
        return true;
    while (!*stop) {
        int rc = poll(&p, 1, STOP_POLL_MS);

        if (rc > 0 || (rc < 0 && errno != EINTR))
            return true; /* readable, at its end, or read says why */
    }
    return false;
}

/* Read IN to its end (or *STOP). Returns 0 or a SKED_E... code. */
static int read_all(server *s, int in, volatile const int *stop,
                    sked_error *err)
{
    reader r = {0};
    char *buf = sked__malloc(READ_SIZE);
    int rc = 0;

    if (!buf)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    while (wait_input(in, stop)) {
        ssize_t n = read(in, buf, READ_SIZE);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            rc = sked__error_set(err, SKED_EIO, NULL, -1,
                                 "cannot read the input: %s", strerror(errno));
        if (n <= 0)
            break;
        if (!take(s, &r, buf, (size_t) n)) {
            rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
            break;
        }
    }
    if (rc == 0 && (r.len > 0 || r.skipping))
        line_end(s, &r); /* a last line without its newline */
    free(r.line);
    free(buf);
    return rc;
}

/* ---- the whole ----------------------------------------------------------- */

/* Start the workers; those that cannot start leave the work to the
 * reader. */
static void workers_start(server *s)
{
    for (size_t i = 0; i < WORKERS; i++) {
        if (pthread_create(&s->workers[i], NULL, worker_main, s) != 0)
            break;
        s->nworkers++;
    }
}

/* Let the workers finish what was queued, and end them. */
static void workers_stop(server *s)
{
    pthread_mutex_lock(&s->mu);
    s->done = true;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    for (size_t i = 0; i < s->nworkers; i++)
        pthread_join(s->workers[i], NULL);
}

int sked__mcp_stdio(const sked_mcp_options *o, int in, int out,
                    volatile const int *stop, sked_error *err)
{
    server s = {.out = out};
    sked_mcp_options so;
    int rc;

    if (!o)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, "no options");
    so = *o;
    so.notify = on_notify;
    so.notify_ctx = &s;
    if (pthread_mutex_init(&s.out_mu, NULL) != 0)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (pthread_mutex_init(&s.mu, NULL) != 0 ||
        pthread_cond_init(&s.cv, NULL) != 0) {
        pthread_mutex_destroy(&s.out_mu);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    if ((rc = sked__mcp_open(&so, &s.m, err)) == 0) {
        workers_start(&s);
        rc = read_all(&s, in, stop, err);
        workers_stop(&s);
        sked__mcp_close(s.m);
    }
    if (rc == 0 && s.out_errno != 0)
        rc = sked__error_set(err, SKED_EIO, NULL, -1,
                             "cannot write the output: %s",
                             strerror(s.out_errno));
    pthread_cond_destroy(&s.cv);
    pthread_mutex_destroy(&s.mu);
    pthread_mutex_destroy(&s.out_mu);
    return rc;
}
