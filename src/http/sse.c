/* SPDX-License-Identifier: MIT */
/* The event streams' hub (sse.h).
 *
 * The hub's thread reads the store's events after the highest id it has
 * handed out (hub->last_id), when this engine emitted one (a
 * subscription sets a flag) or every second (events of other servers and
 * of the CLI), and appends each, formatted once, to the buffer of every
 * live stream. A stream is a libmicrohttpd response read by a callback:
 * with bytes buffered it hands them over, with none it suspends its
 * connection, which the hub resumes when bytes arrive, the keep-alive is
 * due, or the hub stops.
 *
 * A stream resuming after an id first catches up from the store, in its
 * own callback, a page at a time; it goes live (the hub feeds it) once
 * its last id reaches hub->last_id. Each stream's sent_id is the highest
 * id it was given, so nothing is given twice. A stream whose backlog
 * would pass BACKLOG_MAX (a slow client, or a burst of events) leaves the
 * hub and catches up from the store again, at its client's pace: a slow
 * client holds at most its backlog and a page, and slows no one else.
 *
 * Locks: one mutex (mu) guards the hub and every stream. Suspending and
 * resuming a connection happen under it, so a resume never comes before
 * its suspend; libmicrohttpd takes its own lock inside them, and calls
 * our reader without it. The free callback takes no lock: it only marks
 * the stream gone, and the hub's thread unlinks and frees it.
 *
 * While no stream is open the hub reads nothing; the first stream finds
 * the highest id in the store (a search over "the first id after X"). */
#include "http/sse.h"

#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/error.h"
#include "engine/engine_events.h"
#include "base/json_text.h"

#define KEEPALIVE    (15 * SKED_USEC_PER_SEC)
#define POLL         (SKED_USEC_PER_SEC)
#define BATCH        (20 * 1000) /* events gathered after a wake-up */
#define HOLE_WAIT    (2 * SKED_USEC_PER_SEC)
#define HOLE_POLL    (100 * 1000)
#define BACKLOG_MAX  (64 * 1024)
#define BUF_KEEP     (16 * 1024) /* a drained buffer over this is freed */
#define PAGE         1000        /* events per read of the hub */
#define CATCHUP_PAGE 100         /* events per read of a resuming stream */

static const char keepalive_text[] = ": keep-alive\n\n";

typedef struct sse_stream {
    sked_sse_hub *hub;
    struct MHD_Connection *conn;
    struct sse_stream *next; /* the hub's list */
    char *buf;               /* bytes to send: buf[off..len) */
    size_t off, len, cap;
    int64_t sent_id;          /* the highest event id given to the stream */
    sked_event_filter filter; /* the events it wants; strings in own */
    char *filter_own;
    bool live;           /* fed by the hub; else catching up */
    bool suspended;      /* its connection is suspended */
    bool ending;         /* out of memory: end after what it holds */
    sked_mono keepalive; /* when the next comment is due */
    atomic_bool gone;    /* libmicrohttpd freed its response */
} sse_stream;

struct sked_sse_hub {
    sked_engine *e;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t th;
    bool started, stopping;
    bool idle; /* no stream at the last pass: last_id may lag */
    atomic_bool dirty;
    sse_stream *streams;
    size_t nstreams;
    int64_t last_id;      /* the highest id handed to the live streams */
    sked_mono hole_since; /* the id after last_id is missing since; 0 */
    sked_subscription *sub;
};

/* ---- streams' buffers (under mu) -------------------------------------- */

/* Append LEN bytes of P to S; false when out of memory. */
static bool buf_add(sse_stream *s, const char *p, size_t len)
{
    if (s->off > 0 && s->off == s->len)
        s->off = s->len = 0;
    if (s->len + len > s->cap) {
        if (s->off > 0) {
            memmove(s->buf, s->buf + s->off, s->len - s->off);
            s->len -= s->off;
            s->off = 0;
        }
        size_t cap = s->cap ? s->cap : 1024;
        while (cap < s->len + len)
            cap *= 2;
        if (cap != s->cap) {
            char *b = sked__realloc(s->buf, cap);
            if (!b)
                return false;
            s->buf = b;
            s->cap = cap;
        }
    }
    memcpy(s->buf + s->len, p, len);
    s->len += len;
    return true;
}

/* Give the live stream S the event text P (LEN bytes) of EV, unless it
 * had it; one that fell behind reads the store from then on. An event
 * its filter refuses is passed over as if given. */
static void stream_give(sse_stream *s, const sked_event_view *ev, const char *p,
                        size_t len)
{
    int64_t id = ev->id;

    if (id <= s->sent_id || s->ending || atomic_load(&s->gone))
        return;
    if (!sked_event_filter_matches(&s->filter, ev))
        s->sent_id = id;
    else if (s->len - s->off + len > BACKLOG_MAX)
        s->live = false;
    else if (!buf_add(s, p, len))
        s->ending = true;
    else
        s->sent_id = id;
}

/* Resume S's connection when it has something to do now. */
static void stream_wake(sked_sse_hub *hub, sse_stream *s, sked_mono now)
{
    if (!s->suspended)
        return;
    if (s->off < s->len || !s->live || s->ending || hub->stopping ||
        now >= s->keepalive) {
        s->suspended = false;
        MHD_resume_connection(s->conn);
    }
}

/* ---- events as text ---------------------------------------------------- */

/* EV as its lines of the stream into *out (malloc), *len bytes. */
static int event_text(const sked_event_view *ev, char **out, size_t *len)
{
    json_t *o = sked__event_json(ev);
    char *data = o ? sked__json_text(o, NULL) : NULL;
    size_t size = data ? strlen(data) + strlen(ev->type) + 64 : 0;
    char *p = data ? sked__malloc(size) : NULL;
    int k = p ? snprintf(p, size, "id: %lld\nevent: %s\ndata: %s\n\n",
                         (long long) ev->id, ev->type, data)
              : -1;

    json_decref(o);
    free(data);
    if (k < 0 || (size_t) k >= size) {
        free(p);
        return SKED_ENOMEM;
    }
    *out = p;
    *len = (size_t) k;
    return 0;
}

/* ---- the hub's thread -------------------------------------------------- */

/* Unlink and free the streams libmicrohttpd is done with. Under mu. */
static void reap(sked_sse_hub *hub)
{
    for (sse_stream **p = &hub->streams; *p;) {
        sse_stream *s = *p;
        if (atomic_load(&s->gone)) {
            *p = s->next;
            hub->nstreams--;
            free(s->buf);
            free(s->filter_own);
            free(s);
        } else {
            p = &s->next;
        }
    }
}

/* Whether event ID may be handed out now. Ids are given in order, but
 * on PostgreSQL a transaction may commit after a later one: an id past a
 * hole waits until the hole fills, or for HOLE_WAIT (then the hole was a
 * rollback or a retry, and stays empty). The rest of a page is no hole:
 * a page is written whole, and its ids are read in order (store.h).
 * Under mu. */
static bool settled(sked_sse_hub *hub, int64_t id, sked_mono now)
{
    if (sked_event_follows(hub->last_id, id))
        return true;
    if (hub->hole_since == 0)
        hub->hole_since = now;
    return now - hub->hole_since >= HOLE_WAIT;
}

/* Hand the N events EV (after hub->last_id) to every live stream, in
 * order, up to a hole. Returns false when stopped at one. Under mu. */
static bool distribute(sked_sse_hub *hub, const sked_event_view *ev, size_t n,
                       sked_mono now)
{
    for (size_t i = 0; i < n; i++) {
        char *p = NULL;
        size_t len = 0;
        if (ev[i].id <= hub->last_id)
            continue;
        if (!settled(hub, ev[i].id, now))
            return false;
        hub->hole_since = 0;
        if (event_text(&ev[i], &p, &len) == 0)
            for (sse_stream *s = hub->streams; s; s = s->next)
                if (s->live)
                    stream_give(s, &ev[i], p, len);
        free(p);
        hub->last_id = ev[i].id;
    }
    return true;
}

typedef enum pass_end { PASS_DONE, PASS_MORE, PASS_HOLE } pass_end;

/* One pass: read what is new and hand it out, then wake the streams with
 * something to do. */
static pass_end pass(sked_sse_hub *hub)
{
    sked_event_page p = {NULL, 0, NULL};
    int64_t after;
    bool any, whole;

    pthread_mutex_lock(&hub->mu);
    reap(hub);
    any = hub->nstreams > 0;
    hub->idle = !any;
    after = hub->last_id;
    pthread_mutex_unlock(&hub->mu);
    if (any && sked_engine_event_read(hub->e, after, PAGE, &p, NULL) != 0)
        p.n = 0; /* the next pass tries again */
    pthread_mutex_lock(&hub->mu);
    sked_mono now = sked__clock_mono(NULL);
    whole = distribute(hub, p.items, p.n, now);
    for (sse_stream *s = hub->streams; s; s = s->next)
        stream_wake(hub, s, now);
    pthread_mutex_unlock(&hub->mu);
    size_t n = p.n;
    sked_event_page_done(&p);
    return !whole ? PASS_HOLE : n == PAGE ? PASS_MORE : PASS_DONE;
}

/* Wait up to D, or until stopped (and, with ON_DIRTY, a new event).
 * Returns false once the hub stops. */
static bool wait_for(sked_sse_hub *hub, sked_dur d, bool on_dirty)
{
    struct timespec ts;
    bool go;

    sked__clock_deadline(d, &ts);
    pthread_mutex_lock(&hub->mu);
    while (!hub->stopping && !(on_dirty && atomic_load(&hub->dirty)))
        if (pthread_cond_timedwait(&hub->cv, &hub->mu, &ts) != 0)
            break;
    go = !hub->stopping;
    pthread_mutex_unlock(&hub->mu);
    return go;
}

static void *hub_main(void *arg)
{
    sked_sse_hub *hub = arg;
    pass_end end = PASS_DONE;

    /* After a wake-up, a burst of events is gathered for BATCH and read
     * in pages; a hole is looked at again every HOLE_POLL. */
    while (
        wait_for(hub, end == PASS_HOLE ? HOLE_POLL : POLL, end != PASS_HOLE)) {
        if (end != PASS_HOLE && !wait_for(hub, BATCH, false))
            break;
        do {
            atomic_store(&hub->dirty, false);
            end = pass(hub);
        } while (end == PASS_MORE && wait_for(hub, 0, false));
    }
    return NULL;
}

static void on_event(void *ctx, const sked_event_view *ev)
{
    sked_sse_hub *hub = ctx;

    (void) ev; /* read from the store, with every other server's */
    if (!atomic_exchange(&hub->dirty, true)) {
        pthread_mutex_lock(&hub->mu);
        pthread_cond_signal(&hub->cv);
        pthread_mutex_unlock(&hub->mu);
    }
}

int sked__sse_hub_new(sked_engine *e, sked_sse_hub **out, sked_error *err)
{
    sked_sse_hub *hub = sked__calloc(1, sizeof *hub);

    if (!hub)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    hub->e = e;
    hub->idle = true;
    atomic_init(&hub->dirty, false);
    if (pthread_mutex_init(&hub->mu, NULL) != 0) {
        free(hub);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    if (sked__cond_init_mono(&hub->cv) != 0) {
        (void) pthread_mutex_destroy(&hub->mu);
        free(hub);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    int rc = sked_subscribe(e, on_event, hub, &hub->sub, err);
    if (rc == 0 && pthread_create(&hub->th, NULL, hub_main, hub) != 0)
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1,
                             "cannot start the event hub's thread");
    hub->started = rc == 0;
    if (rc != 0) {
        sked__sse_hub_free(hub);
        return rc;
    }
    *out = hub;
    return 0;
}

void sked__sse_hub_shutdown(sked_sse_hub *hub)
{
    if (!hub)
        return;
    pthread_mutex_lock(&hub->mu);
    bool was = hub->stopping;
    hub->stopping = true;
    pthread_cond_broadcast(&hub->cv);
    pthread_mutex_unlock(&hub->mu);
    if (was)
        return;
    if (hub->started)
        (void) pthread_join(hub->th, NULL);
    hub->started = false;
    sked_unsubscribe(hub->e, hub->sub);
    hub->sub = NULL;
    pthread_mutex_lock(&hub->mu);
    for (sse_stream *s = hub->streams; s; s = s->next)
        stream_wake(hub, s, 0);
    pthread_mutex_unlock(&hub->mu);
}

void sked__sse_hub_free(sked_sse_hub *hub)
{
    if (!hub)
        return;
    sked__sse_hub_shutdown(hub);
    while (hub->streams) {
        sse_stream *s = hub->streams;
        hub->streams = s->next;
        free(s->buf);
        free(s->filter_own);
        free(s);
    }
    (void) pthread_cond_destroy(&hub->cv);
    (void) pthread_mutex_destroy(&hub->mu);
    free(hub);
}

/* ---- a stream's callbacks ---------------------------------------------- */

/* Read the next page of stored events after S's last id into its buffer,
 * up to the hub's last id (the hub alone decides what is settled), and
 * let S go live once nothing is left below it. */
static int catch_up(sse_stream *s)
{
    sked_sse_hub *hub = s->hub;
    sked_event_page page = {NULL, 0, NULL};
    const sked_event_view *ev = NULL;
    size_t n = 0;
    int64_t after, top;
    int rc;

    pthread_mutex_lock(&hub->mu);
    after = s->sent_id; /* the hub leaves it alone until live */
    top = hub->last_id;
    pthread_mutex_unlock(&hub->mu);
    rc = sked_engine_event_read(hub->e, after, CATCHUP_PAGE, &page, NULL);
    ev = page.items;
    n = page.n;
    /* Every event up to TOP was committed before TOP was set: all read? */
    bool all = rc == 0 && (n < CATCHUP_PAGE || ev[n - 1].id >= top);
    pthread_mutex_lock(&hub->mu);
    for (size_t i = 0; rc == 0 && i < n && ev[i].id <= top; i++) {
        char *p = NULL;
        size_t len = 0;
        if (!sked_event_filter_matches(&s->filter, &ev[i])) {
            s->sent_id = ev[i].id;
            continue;
        }
        rc = event_text(&ev[i], &p, &len);
        if (rc == 0 && !buf_add(s, p, len))
            rc = SKED_ENOMEM;
        if (rc == 0)
            s->sent_id = ev[i].id;
        free(p);
    }
    if (rc == 0 && all && hub->last_id == top) {
        s->live = true;
        if (s->sent_id < top)
            s->sent_id = top;
    }
    pthread_mutex_unlock(&hub->mu);
    sked_event_page_done(&page);
    return rc;
}

/* Copy what S holds into BUF (at most MAX); 0 when it holds nothing.
 * Under mu. */
static size_t take(sse_stream *s, char *buf, size_t max)
{
    size_t k = s->len - s->off;

    if (k > max)
        k = max;
    memcpy(buf, s->buf + s->off, k);
    s->off += k;
    if (s->off == s->len) {
        s->off = s->len = 0;
        if (s->cap > BUF_KEEP) {
            free(s->buf);
            s->buf = NULL;
            s->cap = 0;
        }
    }
    return k;
}

static ssize_t reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    sse_stream *s = cls;
    sked_sse_hub *hub = s->hub;

    (void) pos;
    for (;;) {
        pthread_mutex_lock(&hub->mu);
        if (hub->stopping || (s->ending && s->off == s->len)) {
            pthread_mutex_unlock(&hub->mu);
            return MHD_CONTENT_READER_END_OF_STREAM;
        }
        if (s->off < s->len) {
            size_t k = take(s, buf, max);
            pthread_mutex_unlock(&hub->mu);
            return (ssize_t) k;
        }
        if (!s->live) {
            pthread_mutex_unlock(&hub->mu);
            if (catch_up(s) != 0)
                return MHD_CONTENT_READER_END_WITH_ERROR;
            continue;
        }
        sked_mono now = sked__clock_mono(NULL);
        if (now >= s->keepalive) {
            s->keepalive = now + KEEPALIVE;
            bool ok = buf_add(s, keepalive_text, sizeof keepalive_text - 1);
            pthread_mutex_unlock(&hub->mu);
            if (!ok)
                return MHD_CONTENT_READER_END_WITH_ERROR;
            continue;
        }
        /* Nothing to send: hold no thread until the hub has something. */
        s->suspended = true;
        MHD_suspend_connection(s->conn);
        pthread_mutex_unlock(&hub->mu);
        return 0;
    }
}

static void reader_free(void *cls)
{
    sse_stream *s = cls;

    atomic_store(&s->gone, true);
}

/* ---- opening a stream --------------------------------------------------- */

/* The first event id after AFTER into *id (0: none). */
static int first_after(sked_engine *e, int64_t after, int64_t *id)
{
    sked_event_page p = {NULL, 0, NULL};
    int rc = sked_engine_event_read(e, after, 1, &p, NULL);

    *id = rc == 0 && p.n > 0 ? p.items[0].id : 0;
    sked_event_page_done(&p);
    return rc;
}

/* The highest event id in the store into *out (0: none), by galloping,
 * then bisecting, over "the first id after X". */
static int max_id(sked_engine *e, int64_t *out)
{
    int64_t lo = 0, hi, step = 1, id = 0; /* max >= lo; no id above hi */
    int rc;

    for (;;) {
        if ((rc = first_after(e, lo, &id)) != 0)
            return rc;
        if (id == 0) {
            *out = lo;
            return 0;
        }
        lo = id;
        hi = step > INT64_MAX - lo ? INT64_MAX : lo + step;
        step = step < INT64_MAX / 2 ? step * 2 : step;
        if ((rc = first_after(e, hi, &id)) != 0)
            return rc;
        if (id == 0)
            break;
        lo = id;
    }
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if ((rc = first_after(e, mid, &id)) != 0)
            return rc;
        if (id == 0)
            hi = mid;
        else
            lo = id;
    }
    *out = lo;
    return 0;
}

/* Add S to HUB, after AFTER when RESUME, else from now. */
static int hub_add(sked_sse_hub *hub, sse_stream *s, bool resume, int64_t after)
{
    int64_t top = 0;
    bool idle;

    pthread_mutex_lock(&hub->mu);
    idle = hub->idle && !hub->stopping;
    pthread_mutex_unlock(&hub->mu);
    if (idle && max_id(hub->e, &top) != 0)
        return SKED_EIO;
    pthread_mutex_lock(&hub->mu);
    if (hub->stopping) {
        pthread_mutex_unlock(&hub->mu);
        return SKED_EBUSY;
    }
    if (idle && top > hub->last_id) {
        hub->last_id = top;
        hub->hole_since = 0;
    }
    hub->idle = false;
    s->sent_id = resume ? after : hub->last_id;
    s->live = s->sent_id >= hub->last_id;
    s->next = hub->streams;
    hub->streams = s;
    hub->nstreams++;
    pthread_mutex_unlock(&hub->mu);
    return 0;
}

/* A copy of F (NULL: none) for S, its strings in s->filter_own. */
static bool filter_copy(sse_stream *s, const sked_event_filter *f)
{
    size_t size = 0;
    char *p;

    s->filter = (sked_event_filter){.ntypes = 0, .subject = NULL};
    if (!f || (f->ntypes == 0 && !f->subject && !f->actor))
        return true;
    for (size_t i = 0; i < f->ntypes; i++)
        size += strlen(f->types[i]) + 1;
    size += f->subject ? strlen(f->subject) + 1 : 0;
    size += f->actor ? strlen(f->actor) + 1 : 0;
    if (!(p = s->filter_own = sked__malloc(size)))
        return false;
    for (size_t i = 0; i < f->ntypes; i++) {
        s->filter.types[s->filter.ntypes++] = p;
        p = stpcpy(p, f->types[i]) + 1;
    }
    if (f->subject) {
        s->filter.subject = strcpy(p, f->subject);
        p += strlen(p) + 1;
    }
    if (f->actor)
        s->filter.actor = strcpy(p, f->actor);
    return true;
}

int sked__sse_open(const http_req *req, http_resp *resp, bool resume,
                   int64_t after, const sked_event_filter *filter)
{
    sked_sse_hub *hub = sked__http_hub(req);
    sse_stream *s = sked__calloc(1, sizeof *s);
    struct MHD_Response *r = NULL;
    int rc;

    if (s && !filter_copy(s, filter)) {
        free(s);
        s = NULL;
    }
    if (!s)
        return sked__http_error(resp, SKED_ENOMEM, NULL, "out of memory");
    s->hub = hub;
    s->conn = req->conn;
    atomic_init(&s->gone, false);
    rc = hub ? hub_add(hub, s, resume, after) : SKED_EBUSY;
    if (rc != 0) {
        free(s->filter_own);
        free(s);
        return sked__http_error(resp, rc, NULL, "%s",
                                rc == SKED_EIO ? "cannot read the events"
                                               : "the server is stopping");
    }
    /* From here the hub owns S; libmicrohttpd's free callback lets go. */
    r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, reader, s,
                                          reader_free);
    if (!r) {
        atomic_store(&s->gone, true);
        return sked__http_error(resp, SKED_ENOMEM, NULL, "out of memory");
    }
    if (MHD_add_response_header(r, "Content-Type", "text/event-stream") !=
        MHD_YES) {
        MHD_destroy_response(r);
        return sked__http_error(resp, SKED_ENOMEM, NULL, "out of memory");
    }
    /* Streams last: the idle timeout would close them. */
    (void) MHD_set_connection_option(req->conn, MHD_CONNECTION_OPTION_TIMEOUT,
                                     (unsigned int) 0);
    resp->status = 200;
    resp->stream = r;
    return 0;
}
