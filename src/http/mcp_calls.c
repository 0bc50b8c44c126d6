/* SPDX-License-Identifier: MIT */
/* The requests of /mcp in flight (mcp_http.h): each POSTed request runs
 * on a worker of a small pool, not on the server's thread that read it.
 *
 * A server thread runs an event loop for many connections: a tool call
 * that takes seconds (a long replay, a big backfill) run there would hold
 * every other connection of that thread, among them the POST carrying
 * the client's notifications/cancelled for it. So the request's
 * connection is suspended, its message handed to a worker, and the
 * connection resumed once its answer is ready; server.c then sends it.
 *
 * A call is answered once: by its worker, or earlier when its session
 * ends (DELETE: 404) or the server stops (503); the worker's answer then
 * is dropped, and the session is told the request is cancelled. A call
 * is shared by its connection's request and its worker, and freed when
 * both let go of it. One mutex (mu) guards the pool, the queue and every
 * call; a connection is suspended and resumed under it, so a resume never
 * comes before its suspend. No session is released under mu: the last
 * release closes the session, which waits for its calls. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "base/alloc.h"
#include "base/error.h"
#include "http/mcp_http.h"

/* Workers at most; started as calls come, kept until the server stops.
 * Calls beyond them wait in the queue. */
#define WORKERS_MAX 32

struct mcp_call {
    mcp_call *next;       /* the list of every call */
    mcp_call *queue_next; /* the queue, until a worker takes it */
    mcp_session *s;       /* a reference, until the worker is done */
    struct MHD_Connection *conn;
    char *msg; /* the message, a copy */
    size_t len;
    char *id;                /* the request's id, as JSON text */
    const char *cors_origin; /* borrowed from the request */
    unsigned refs;           /* the request's and the worker's */
    bool running;            /* its worker is in the session */
    bool answered;           /* its answer is set, its connection resumed */
    unsigned status;
    char *body; /* the answer; owned */
    size_t body_len;
};

struct mcp_calls {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* a call queued, or the pool stops */
    pthread_t th[WORKERS_MAX];
    size_t nth, idle, queued;
    bool stopping;
    mcp_call *all;
    mcp_call *head, *tail; /* the queue */
};

int sked__mcp_calls_new(mcp_calls **out)
{
    mcp_calls *c = sked__calloc(1, sizeof *c);

    *out = NULL;
    if (!c)
        return SKED_ENOMEM;
    if (pthread_mutex_init(&c->mu, NULL) != 0) {
        free(c);
        return SKED_ENOMEM;
    }
    if (pthread_cond_init(&c->cv, NULL) != 0) {
        (void) pthread_mutex_destroy(&c->mu);
        free(c);
        return SKED_ENOMEM;
    }
    *out = c;
    return 0;
}

/* A JSON-RPC error with the request's id ID (JSON text), or NULL. */
static char *error_text(const char *id, int code, const char *msg, size_t *len)
{
    static const char fmt[] =
        "{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":%d,"
        "\"message\":\"%s\"}}";
    int n = snprintf(NULL, 0, fmt, id, code, msg);
    char *t = n > 0 ? sked__malloc((size_t) n + 1) : NULL;

    if (t)
        (void) snprintf(t, (size_t) n + 1, fmt, id, code, msg);
    *len = t ? (size_t) n : 0;
    return t;
}

/* Set CALL's answer (BODY owned, NULL: none) and resume its connection,
 * unless it is answered already. Under mu. */
static void answer(mcp_call *call, unsigned status, char *body, size_t len)
{
    if (call->answered) {
        free(body);
        return;
    }
    call->answered = true;
    call->status = status;
    call->body = body;
    call->body_len = len;
    MHD_resume_connection(call->conn);
}

/* Answer CALL with an error of the transport before its worker did. */
static void answer_early(mcp_call *call, unsigned status, int code,
                         const char *msg)
{
    size_t len;
    char *body;

    if (call->answered)
        return;
    body = error_text(call->id, code, msg, &len);
    answer(call, body ? status : 500, body, len);
}

/* Drop a reference to CALL; the last one frees it. Under mu. */
static void unref(mcp_calls *c, mcp_call *call)
{
    if (--call->refs > 0)
        return;
    for (mcp_call **p = &c->all; *p; p = &(*p)->next)
        if (*p == call) {
            *p = call->next;
            break;
        }
    free(call->msg);
    free(call->id);
    free(call->body);
    free(call);
}

/* Run CALL's message in its session, unless it was answered already;
 * answer it. Not under mu; returns with the session to release. */
static mcp_session *run(mcp_calls *c, mcp_call *call)
{
    char *reply = NULL;
    size_t len = 0;
    bool skip = call->answered;
    int rc = 0;
    mcp_session *s = call->s;

    call->running = !skip;
    pthread_mutex_unlock(&c->mu);
    if (!skip)
        rc = sked__mcp_handle(sked__mcp_session_mcp(s), call->msg, call->len,
                              &reply, &len);
    pthread_mutex_lock(&c->mu);
    call->running = false;
    call->s = NULL;
    if (rc < 0)
        answer_early(call, 500, -32603, "Internal error: out of memory");
    else /* no reply: the request was cancelled, nothing is owed */
        answer(call, reply ? 200 : 202, reply, len);
    unref(c, call);
    return s;
}

static void *worker(void *arg)
{
    mcp_calls *c = arg;

    pthread_mutex_lock(&c->mu);
    for (;;) {
        mcp_call *call = c->head;
        if (!call) {
            if (c->stopping)
                break;
            c->idle++;
            pthread_cond_wait(&c->cv, &c->mu);
            c->idle--;
            continue;
        }
        c->head = call->queue_next;
        if (!c->head)
            c->tail = NULL;
        c->queued--;
        mcp_session *s = run(c, call);
        pthread_mutex_unlock(&c->mu);
        sked__mcp_session_release(s); /* may close it: not under mu */
        pthread_mutex_lock(&c->mu);
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

/* Calls of S not answered yet. Under mu. */
static size_t in_flight(const mcp_calls *c, const mcp_session *s)
{
    size_t n = 0;

    for (const mcp_call *call = c->all; call; call = call->next)
        n += call->s == s && !call->answered;
    return n;
}

/* Make sure a worker will take the call just queued: start one when
 * none waits for it. Under mu. Returns 0, or SKED_ENOMEM when no worker
 * exists and none could start. */
static int staff(mcp_calls *c)
{
    if (c->idle >= c->queued + 1 || c->nth >= WORKERS_MAX)
        return 0;
    if (pthread_create(&c->th[c->nth], NULL, worker, c) == 0)
        c->nth++;
    return c->nth > 0 ? 0 : SKED_ENOMEM;
}

/* A new call of the request REQ (its message ID_TEXT's id) in S. */
static mcp_call *call_new(mcp_session *s, const http_req *req,
                          const char *cors_origin, char *id_text)
{
    mcp_call *call = sked__calloc(1, sizeof *call);

    if (!call || !(call->msg = sked__malloc(req->body_len + 1))) {
        free(call);
        return NULL;
    }
    memcpy(call->msg, req->body, req->body_len);
    call->msg[req->body_len] = '\0';
    call->len = req->body_len;
    call->id = id_text;
    call->s = s;
    call->conn = req->conn;
    call->cors_origin = cors_origin;
    call->refs = 2;
    return call;
}

int sked__mcp_call_submit(mcp_calls *c, mcp_session *s, const http_req *req,
                          const char *cors_origin, char *id_text,
                          mcp_call **out)
{
    mcp_call *call;
    int rc = 0;

    *out = NULL;
    if (!(call = call_new(s, req, cors_origin, id_text)))
        return SKED_ENOMEM;
    pthread_mutex_lock(&c->mu);
    if (c->stopping)
        rc = SKED_ECANCELED;
    else if (in_flight(c, s) >= SKED_MCP_CALLS_MAX)
        rc = SKED_EBUSY;
    else
        rc = staff(c);
    if (rc == 0) {
        sked__mcp_session_retain(s); /* the call's, until its worker is done */
        call->next = c->all;
        c->all = call;
        if (c->tail)
            c->tail->queue_next = call;
        else
            c->head = call;
        c->tail = call;
        c->queued++;
        /* Before a worker can see it: its resume comes after this. */
        MHD_suspend_connection(req->conn);
        pthread_cond_signal(&c->cv);
        *out = call;
    }
    pthread_mutex_unlock(&c->mu);
    if (rc != 0) { /* ID_TEXT stays the caller's */
        free(call->msg);
        free(call);
    }
    return rc;
}

void sked__mcp_call_answer(mcp_calls *c, mcp_call *call, http_resp *resp)
{
    pthread_mutex_lock(&c->mu);
    if (!call->answered) /* not resumed by us: never the case */
        answer_early(call, 500, -32603, "Internal error: no answer");
    resp->status = call->status;
    resp->body = call->body;
    resp->len = call->body_len;
    resp->content_type = "application/json";
    resp->cors_origin = call->cors_origin;
    call->body = NULL;
    unref(c, call);
    pthread_mutex_unlock(&c->mu);
}

void sked__mcp_call_drop(mcp_calls *c, mcp_call *call)
{
    pthread_mutex_lock(&c->mu);
    call->answered = true; /* its connection is gone: no resume */
    unref(c, call);
    pthread_mutex_unlock(&c->mu);
}

/* Most calls told at once that they are cancelled (a session's, or, at
 * the stop, the first of the pool's running). */
#define CANCEL_MAX WORKERS_MAX

/* Tell the sessions of the N calls (their ids ID, their sessions S, one
 * reference each) that the requests are cancelled. Not under mu. */
static void cancel_sent(mcp_session **s, char **id, size_t n)
{
    static const char fmt[] =
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
        "\"params\":{\"requestId\":%s,\"reason\":\"%s\"}}";

    for (size_t i = 0; i < n; i++) {
        int k = snprintf(NULL, 0, fmt, id[i], "the session ended");
        char *t = k > 0 ? sked__malloc((size_t) k + 1) : NULL;
        char *reply = NULL;
        size_t reply_len;
        if (t) {
            (void) snprintf(t, (size_t) k + 1, fmt, id[i], "the session ended");
            (void) sked__mcp_handle(sked__mcp_session_mcp(s[i]), t, (size_t) k,
                                    &reply, &reply_len);
            free(reply);
            free(t);
        }
        free(id[i]);
        sked__mcp_session_release(s[i]);
    }
}

/* Answer the calls of S (NULL: every call) with STATUS, CODE and MSG,
 * and cancel those running in their sessions. */
static void end_calls(mcp_calls *c, mcp_session *s, unsigned status, int code,
                      const char *msg)
{
    mcp_session *ss[CANCEL_MAX];
    char *ids[CANCEL_MAX];
    size_t n = 0;

    pthread_mutex_lock(&c->mu);
    for (mcp_call *call = c->all; call; call = call->next) {
        if ((s && call->s != s) || call->answered)
            continue;
        answer_early(call, status, code, msg);
        if (call->running && n < CANCEL_MAX &&
            (ids[n] = sked__strdup(call->id))) {
            ss[n] = call->s;
            sked__mcp_session_retain(ss[n++]);
        }
    }
    pthread_mutex_unlock(&c->mu);
    cancel_sent(ss, ids, n);
}

void sked__mcp_calls_end(mcp_calls *c, mcp_session *s)
{
    end_calls(c, s, 404, -32001,
              "Session not found: the session ended while the request ran");
}

void sked__mcp_calls_stop(mcp_calls *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->mu);
    c->stopping = true;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    end_calls(c, NULL, 503, -32000, "the server is stopping");
}

void sked__mcp_calls_free(mcp_calls *c)
{
    if (!c)
        return;
    sked__mcp_calls_stop(c);
    /* The workers finish the calls they run (cancelled) and skip those
     * queued, every one answered already. */
    for (size_t i = 0; i < c->nth; i++)
        (void) pthread_join(c->th[i], NULL);
    while (c->all) { /* the daemon stopped: none is the request's now */
        mcp_call *call = c->all;
        c->all = call->next;
        free(call->msg);
        free(call->id);
        free(call->body);
        free(call);
    }
    (void) pthread_cond_destroy(&c->cv);
    (void) pthread_mutex_destroy(&c->mu);
    free(c);
}
