/* SPDX-License-Identifier: MIT */
/* The requests whose handler waits for a commit (a trigger, a run
 * started, a ping, a schedule created: sked__http_route_shared) run on a
 * writer thread, not on the server's thread that read them.
 *
 * The store writes such requests of many threads in one transaction, one
 * commit for all (store_share.c), but only the requests that wait at the
 * same time can share it. A server thread runs an event loop for many
 * connections and would wait for its commit with all of them, so a
 * server of two threads would write two requests per commit at most. So
 * the request's connection is suspended, the request handed to a writer
 * (at most WRITERS_MAX of them, started as requests come), and the
 * connection resumed once its answer is ready; server.c then sends it.
 *
 * A job is shared by its connection's request and its writer, and freed
 * when both let go of it. One mutex (mu) guards the pool, the queue and
 * every job; a connection is suspended and resumed under it, so a resume
 * never comes before its suspend. The request the writer reads (its
 * headers, its body) is left alone by libmicrohttpd while its connection
 * is suspended. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "base/alloc.h"
#include "base/error.h"
#include "http/http_int.h"

/* Writers at most; started as requests come, kept until the server
 * stops. Requests beyond them wait in the queue. */
#define WRITERS_MAX 64

struct http_job {
    http_job *next; /* the queue, until a writer takes it */
    http_req req;   /* its params point into m's */
    http_match m;   /* owned */
    http_resp resp; /* the answer, once done */
    unsigned refs;  /* the request's and the writer's */
    bool done;      /* answered, its connection resumed */
};

struct http_writers {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* a job queued, or the pool stops */
    pthread_t th[WRITERS_MAX];
    size_t nth, idle, queued;
    bool stopping;
    http_job *head, *tail; /* the queue */
};

int sked__http_writers_new(http_writers **out)
{
    http_writers *w = sked__calloc(1, sizeof *w);

    *out = NULL;
    if (!w)
        return SKED_ENOMEM;
    if (pthread_mutex_init(&w->mu, NULL) != 0) {
        free(w);
        return SKED_ENOMEM;
    }
    if (pthread_cond_init(&w->cv, NULL) != 0) {
        (void) pthread_mutex_destroy(&w->mu);
        free(w);
        return SKED_ENOMEM;
    }
    *out = w;
    return 0;
}

/* Let go of JOB: freed with its last holder. Under mu. */
static void unref(http_job *job)
{
    if (--job->refs > 0)
        return;
    free(job->resp.body);
    sked__http_match_done(&job->m);
    free(job);
}

/* Run JOB's handler and answer it. Called and returns under mu. */
static void run(http_writers *w, http_job *job)
{
    pthread_mutex_unlock(&w->mu);
    (void) sked__http_handle(&job->req, &job->resp, &job->m);
    if (job->resp.status == 0)
        (void) sked__http_error(&job->resp, SKED_EINTERNAL, NULL,
                                "the handler of %.200s sent nothing",
                                job->req.path);
    pthread_mutex_lock(&w->mu);
    job->done = true;
    if (job->refs > 1) /* its request is still there */
        MHD_resume_connection(job->req.conn);
    unref(job);
}

static void *writer(void *arg)
{
    http_writers *w = arg;

    pthread_mutex_lock(&w->mu);
    for (;;) {
        http_job *job = w->head;
        if (!job) {
            if (w->stopping)
                break;
            w->idle++;
            pthread_cond_wait(&w->cv, &w->mu);
            w->idle--;
            continue;
        }
        w->head = job->next;
        if (!w->head)
            w->tail = NULL;
        w->queued--;
        run(w, job);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Make sure a writer will take the job about to be queued: start one
 * when none waits for it. Under mu. Returns 0, or SKED_ENOMEM when no
 * writer exists and none could start. */
static int staff(http_writers *w)
{
    if (w->idle >= w->queued + 1 || w->nth >= WRITERS_MAX)
        return 0;
    if (pthread_create(&w->th[w->nth], NULL, writer, w) == 0)
        w->nth++;
    return w->nth > 0 ? 0 : SKED_ENOMEM;
}

int sked__http_job_submit(http_writers *w, const http_req *req, http_match *m,
                          http_resp *resp)
{
    http_job *job;
    int rc;

    if (!w || !req->conn || !(job = sked__calloc(1, sizeof *job)))
        return SKED_ENOMEM;
    job->req = *req;
    job->m = *m;
    for (size_t i = 0; i < m->nparam; i++) {
        job->req.param[i] = job->m.param[i];
        m->param[i] = NULL; /* the job's now */
    }
    job->refs = 2;
    pthread_mutex_lock(&w->mu);
    rc = w->stopping ? SKED_ECANCELED : staff(w);
    if (rc == 0) {
        if (w->tail)
            w->tail->next = job;
        else
            w->head = job;
        w->tail = job;
        w->queued++;
        /* Before a writer can see it: its resume comes after this. */
        MHD_suspend_connection(req->conn);
        resp->job = job;
    }
    pthread_mutex_unlock(&w->mu);
    if (rc == 0) /* once mu is free: the writer woken need not wait for it */
        pthread_cond_signal(&w->cv);
    if (rc != 0) { /* the caller runs the handler itself */
        for (size_t i = 0; i < m->nparam; i++)
            m->param[i] = job->m.param[i];
        free(job);
    }
    return rc;
}

void sked__http_job_answer(http_writers *w, http_job *job, http_resp *resp)
{
    pthread_mutex_lock(&w->mu);
    if (job->done) {
        *resp = job->resp;
        memset(&job->resp, 0, sizeof job->resp);
    } else { /* not resumed by its writer: never the case */
        (void) sked__http_error(resp, SKED_EINTERNAL, NULL, "no answer");
    }
    unref(job);
    pthread_mutex_unlock(&w->mu);
}

void sked__http_job_drop(http_writers *w, http_job *job)
{
    pthread_mutex_lock(&w->mu);
    unref(job); /* its connection is gone: its writer resumes nothing */
    pthread_mutex_unlock(&w->mu);
}

void sked__http_writers_stop(http_writers *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->stopping = true;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    /* The writers answer every job queued, then end: each connection is
     * resumed before the daemon stops. */
    for (size_t i = 0; i < w->nth; i++)
        (void) pthread_join(w->th[i], NULL);
    w->nth = 0;
}

void sked__http_writers_free(http_writers *w)
{
    if (!w)
        return;
    sked__http_writers_stop(w);
    (void) pthread_cond_destroy(&w->cv);
    (void) pthread_mutex_destroy(&w->mu);
    free(w);
}
