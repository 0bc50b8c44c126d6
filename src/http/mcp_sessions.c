/* SPDX-License-Identifier: MIT */
/* The sessions of /mcp (mcp_http.h).
 *
 * Each session is a sked_mcp (mcp/mcp.h) whose API is the server's own
 * (sked__http_call on its engine), a random id, a queue of the
 * notifications it sends, and at most one stream (GET /mcp) draining the
 * queue. The queue is kept while no stream is open, so that what comes
 * between initialize and the client's GET still arrives; it is bounded
 * (SKED_MCP_QUEUE_MAX, SKED_MCP_QUEUE_BYTES): the oldest are dropped,
 * counted, and the stream says how many in a comment.
 *
 * A session is referenced by the hub's list, by each request using it
 * (and its call in flight, mcp_calls.c), and by its stream; the last reference
 * closes its sked_mcp (which waits for the calls in flight) outside any lock.
 * Ending a session takes it off the list at once, so it is found no more (404)
 * however long a call in flight still runs.
 *
 * A stream works as the event streams do (sse.c): its reader hands over
 * what is queued, or suspends the connection, which is resumed when a
 * notification arrives, the keep-alive comment is due, or the session
 * ends. One mutex (mu) guards the hub, every session's queue and stream;
 * suspending and resuming happen under it, so a resume never comes before
 * its suspend. The hub's thread ends idle sessions and wakes streams for
 * their keep-alive, once a second. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/error.h"
#include "http/mcp_http.h"

#define KEEPALIVE (15 * SKED_USEC_PER_SEC)
#define SCAN      (1 * SKED_USEC_PER_SEC)
/* Most references a scan drops: streams reaped, then idle sessions. */
#define RELEASE_MAX (2 * SKED_MCP_SESSIONS_MAX)

static const char keepalive_text[] = ": keep-alive\n\n";

/* One queued notification, formatted as its event of the stream. */
typedef struct mcp_note {
    struct mcp_note *next;
    size_t len;
    char text[];
} mcp_note;

struct mcp_session {
    sked_mcp_hub *hub;
    mcp_session *next; /* the hub's list, while not ended */
    char id[SKED_MCP_ID_LEN + 1];
    sked_mcp *m;
    /* The rest under hub->mu. */
    unsigned refs;
    bool published, ended;
    sked_mono last_used;
    mcp_note *head, *tail; /* the queue; head's first head_off bytes sent */
    size_t nnotes, bytes, head_off;
    unsigned long long dropped, dropped_told;
    struct mcp_stream *stream; /* the open one, or NULL */
    /* Who opened it (the token's name) and what its tools may do. */
    char actor[SKED_TOKEN_NAME_MAX + 1];
    sked_http_caller caller;
};

/* A stream of notifications (GET /mcp): a libmicrohttpd response read by
 * reader(). It holds a reference to its session. */
typedef struct mcp_stream {
    struct mcp_stream *next; /* the hub's list */
    mcp_session *s;
    struct MHD_Connection *conn;
    bool suspended;      /* its connection is suspended; under mu */
    bool ending;         /* its client left: end it; under mu */
    sked_mono keepalive; /* when the next comment is due; under mu */
    atomic_bool gone;    /* libmicrohttpd freed its response */
} mcp_stream;

struct sked_mcp_hub {
    sked_engine *e;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t th;
    bool started, stopping;
    mcp_session *sessions; /* every session not ended */
    size_t n;
    mcp_stream *streams; /* until the hub's thread reaps them */
    char **origins;      /* allowed besides loopback */
    size_t norigins;
    sked_dur idle;    /* a session unused this long ends */
    mcp_calls *calls; /* the requests in flight */
};

/* ---- origins ------------------------------------------------------------ */

/* Split ORIGIN ("scheme://host[:port]") into its host (brackets kept for
 * IPv6) at *host, *host_len. False when it is not of that form. */
static bool origin_host(const char *origin, const char **host, size_t *host_len)
{
    const char *p = strstr(origin, "://"), *h, *end;

    if (!p || p == origin)
        return false;
    h = p + 3;
    if (*h == '[') {
        if (!(end = strchr(h, ']')))
            return false;
        end++;
    } else {
        end = h + strcspn(h, ":/");
    }
    if (end == h || (*end && *end != ':') || strchr(end, '/'))
        return false;
    if (*end == ':' &&
        (!end[1] || strspn(end + 1, "0123456789") != strlen(end + 1)))
        return false;
    *host = h;
    *host_len = (size_t) (end - h);
    return true;
}

static bool loopback_host(const char *h, size_t n)
{
    static const char *const names[] = {"localhost", "127.0.0.1", "[::1]"};

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == n && strncasecmp(h, names[i], n) == 0)
            return true;
    return false;
}

bool sked__mcp_origin_allowed(const sked_mcp_hub *hub, const char *origin)
{
    const char *host;
    size_t n;

    for (size_t i = 0; i < hub->norigins; i++)
        if (strcasecmp(origin, hub->origins[i]) == 0)
            return true;
    return origin_host(origin, &host, &n) && loopback_host(host, n);
}

/* Copy the N ORIGINS into HUB, each checked. */
static int origins_copy(sked_mcp_hub *hub, const char *const *origins, size_t n,
                        sked_error *err)
{
    const char *host;
    size_t len;

    if (n && !(hub->origins = sked__calloc(n, sizeof *hub->origins)))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    for (size_t i = 0; i < n; i++) {
        if (!origin_host(origins[i], &host, &len))
            return sked__error_set(err, SKED_EINVAL, "mcp-allow-origin", -1,
                                   "\"%.100s\": expected an origin, "
                                   "SCHEME://HOST[:PORT] "
                                   "(http://app.example:3000)",
                                   origins[i]);
        if (!(hub->origins[i] = sked__strdup(origins[i])))
            return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
        hub->norigins++;
    }
    return 0;
}

/* ---- sessions ----------------------------------------------------------- */

/* Resume the connection of S's stream, when suspended. Under mu. */
static void wake(mcp_session *s)
{
    mcp_stream *st = s->stream;

    if (st && st->suspended) {
        st->suspended = false;
        MHD_resume_connection(st->conn);
    }
}

/* Free S, after its last reference. Not under mu. */
static void session_free(mcp_session *s)
{
    sked__mcp_close(s->m); /* no notification comes after it */
    while (s->head) {
        mcp_note *n = s->head;
        s->head = n->next;
        free(n);
    }
    free(s);
}

/* Take S off the hub's list and wake its stream. Under mu. */
static void unlink_session(mcp_session *s)
{
    sked_mcp_hub *hub = s->hub;

    if (s->ended)
        return;
    s->ended = true;
    for (mcp_session **p = &hub->sessions; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            hub->n--;
            break;
        }
    wake(s);
}

void sked__mcp_session_retain(mcp_session *s)
{
    pthread_mutex_lock(&s->hub->mu);
    s->refs++;
    pthread_mutex_unlock(&s->hub->mu);
}

void sked__mcp_session_release(mcp_session *s)
{
    bool last;

    if (!s)
        return;
    pthread_mutex_lock(&s->hub->mu);
    last = --s->refs == 0;
    s->last_used = sked__clock_mono(NULL);
    pthread_mutex_unlock(&s->hub->mu);
    if (last)
        session_free(s);
}

void sked__mcp_session_end(mcp_session *s)
{
    bool listed;

    pthread_mutex_lock(&s->hub->mu);
    listed = !s->ended;
    unlink_session(s);
    pthread_mutex_unlock(&s->hub->mu);
    if (listed)
        sked__mcp_session_release(s); /* the list's reference */
}

/* Append the notification JSON (LEN bytes) to S's queue, dropping the
 * oldest past the bounds, and wake its stream. The session's thread. */
static void on_notify(void *ctx, const char *json, size_t len)
{
    static const char pre[] = "event: message\ndata: ", post[] = "\n\n";
    mcp_session *s = ctx;
    size_t n = sizeof pre - 1 + len + sizeof post - 1;
    mcp_note *note = sked__malloc(sizeof *note + n);

    if (note) {
        note->next = NULL;
        note->len = n;
        memcpy(note->text, pre, sizeof pre - 1);
        memcpy(note->text + sizeof pre - 1, json, len);
        memcpy(note->text + n - 2, post, 2);
        /* A newline of JSON text is white space between tokens (one in
         * a string is escaped): a space keeps the event one data line. */
        for (char *p = note->text + sizeof pre - 1; p < note->text + n - 2; p++)
            if (*p == '\n' || *p == '\r')
                *p = ' ';
    }
    pthread_mutex_lock(&s->hub->mu);
    if (!note || s->ended) {
        s->dropped += !note;
        pthread_mutex_unlock(&s->hub->mu);
        free(note);
        return;
    }
    if (s->tail)
        s->tail->next = note;
    else
        s->head = note;
    s->tail = note;
    s->nnotes++;
    s->bytes += n;
    while (s->nnotes > SKED_MCP_QUEUE_MAX || s->bytes > SKED_MCP_QUEUE_BYTES) {
        /* The oldest whole one: the head, unless it is half sent. */
        mcp_note **p = s->head_off ? &s->head->next : &s->head;
        mcp_note *old = *p;
        if (!old || old == note)
            break;
        *p = old->next; /* never the tail: that is NOTE */
        s->nnotes--;
        s->bytes -= old->len;
        s->dropped++;
        free(old);
    }
    wake(s);
    pthread_mutex_unlock(&s->hub->mu);
}

/* Fill ID with 128 random bits in hex. */
static int random_id(char id[SKED_MCP_ID_LEN + 1])
{
    unsigned char b[SKED_MCP_ID_LEN / 2];
    size_t got = 0;

    while (got < sizeof b) {
        ssize_t k = getrandom(b + got, sizeof b - got, 0);
        if (k < 0 && errno != EINTR)
            return SKED_EIO;
        if (k > 0)
            got += (size_t) k;
    }
    for (size_t i = 0; i < sizeof b; i++)
        snprintf(id + 2 * i, 3, "%02x", b[i]);
    return 0;
}

int sked__mcp_session_new(sked_mcp_hub *hub, const char *actor,
                          sked_scope scope, mcp_session **out)
{
    mcp_session *s = sked__calloc(1, sizeof *s);
    sked_mcp_options o = {.api = sked__http_call_as, .notify = on_notify};
    sked_error err;
    int rc;

    *out = NULL;
    if (!s)
        return SKED_ENOMEM;
    s->hub = hub;
    snprintf(s->actor, sizeof s->actor, "%s", actor);
    s->caller = (sked_http_caller){hub->e, s->actor, scope};
    o.api_ctx = &s->caller;
    o.notify_ctx = s;
    if ((rc = random_id(s->id)) < 0) {
        free(s);
        return rc;
    }
    pthread_mutex_lock(&hub->mu);
    rc = hub->stopping || hub->n >= SKED_MCP_SESSIONS_MAX ? SKED_EBUSY : 0;
    if (rc == 0) {
        hub->n++; /* the slot is taken before the session opens */
        s->refs = 2;
        s->next = hub->sessions;
        hub->sessions = s;
        s->last_used = sked__clock_mono(NULL);
    }
    pthread_mutex_unlock(&hub->mu);
    if (rc == 0 && sked__mcp_open(&o, &s->m, &err) < 0) {
        sked__mcp_session_end(s);
        sked__mcp_session_release(s);
        return SKED_ENOMEM;
    }
    if (rc != 0)
        free(s);
    else
        *out = s;
    return rc;
}

void sked__mcp_session_publish(mcp_session *s)
{
    pthread_mutex_lock(&s->hub->mu);
    s->published = true;
    pthread_mutex_unlock(&s->hub->mu);
}

/* Compare the session ids A and B (SKED_MCP_ID_LEN bytes) in a time that
 * does not depend on where they differ. */
static bool same_id(const char *a, const char *b)
{
    unsigned diff = 0;

    for (size_t i = 0; i < SKED_MCP_ID_LEN; i++)
        diff |= (unsigned char) a[i] ^ (unsigned char) b[i];
    return diff == 0;
}

mcp_session *sked__mcp_session_find(sked_mcp_hub *hub, const char *id)
{
    mcp_session *found = NULL;

    if (strlen(id) != SKED_MCP_ID_LEN)
        return NULL;
    pthread_mutex_lock(&hub->mu);
    for (mcp_session *s = hub->sessions; s; s = s->next)
        if (same_id(s->id, id) && s->published && !found)
            found = s;
    if (found) {
        found->refs++;
        found->last_used = sked__clock_mono(NULL);
    }
    pthread_mutex_unlock(&hub->mu);
    return found;
}

const char *sked__mcp_session_actor(const mcp_session *s)
{
    return s->actor;
}

sked_mcp *sked__mcp_session_mcp(const mcp_session *s)
{
    return s->m;
}

const char *sked__mcp_session_id(const mcp_session *s)
{
    return s->id;
}

mcp_calls *sked__mcp_hub_calls(sked_mcp_hub *hub)
{
    return hub->calls;
}

/* ---- streams ------------------------------------------------------------ */

/* Copy up to MAX bytes of what S's stream has to send into BUF: a word
 * on dropped notifications, then the queue. 0 when nothing. Under mu. */
static size_t take(mcp_session *s, char *buf, size_t max)
{
    mcp_note *n = s->head;
    size_t k;

    if (s->dropped > s->dropped_told && !s->head_off) {
        char line[96];
        int len = snprintf(line, sizeof line,
                           ": %llu notifications dropped (the queue was "
                           "full)\n\n",
                           s->dropped - s->dropped_told);
        if (len > 0 && (size_t) len <= max) {
            memcpy(buf, line, (size_t) len);
            s->dropped_told = s->dropped;
            return (size_t) len;
        }
    }
    if (!n)
        return 0;
    k = n->len - s->head_off;
    if (k > max)
        k = max;
    memcpy(buf, n->text + s->head_off, k);
    s->head_off += k;
    if (s->head_off == n->len) {
        s->head = n->next;
        if (!s->head)
            s->tail = NULL;
        s->head_off = 0;
        s->nnotes--;
        s->bytes -= n->len;
        free(n);
    }
    return k;
}

static ssize_t reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    mcp_stream *st = cls;
    mcp_session *s = st->s;
    sked_mcp_hub *hub = s->hub;
    size_t k;

    (void) pos;
    pthread_mutex_lock(&hub->mu);
    if (hub->stopping || s->ended || st->ending) {
        pthread_mutex_unlock(&hub->mu);
        return MHD_CONTENT_READER_END_OF_STREAM;
    }
    if ((k = take(s, buf, max)) == 0) {
        sked_mono now = sked__clock_mono(NULL);
        if (now >= st->keepalive && max >= sizeof keepalive_text - 1) {
            st->keepalive = now + KEEPALIVE;
            k = sizeof keepalive_text - 1;
            memcpy(buf, keepalive_text, k);
        } else {
            /* Nothing to send: hold no thread until there is. */
            st->suspended = true;
            MHD_suspend_connection(st->conn);
        }
    }
    pthread_mutex_unlock(&hub->mu);
    return (ssize_t) k;
}

/* libmicrohttpd is done with the stream. It may hold its own locks here,
 * which our resumes take under mu: no lock, only a mark for the hub's
 * thread (or the session's next stream) to reap. */
static void reader_free(void *cls)
{
    mcp_stream *st = cls;

    atomic_store(&st->gone, true);
}

/* Unlink the streams libmicrohttpd is done with from HUB, and their
 * sessions' references into *release (to drop outside the lock). Under
 * mu. */
static void reap(sked_mcp_hub *hub, mcp_session **release, size_t *n)
{
    for (mcp_stream **p = &hub->streams; *p && *n < RELEASE_MAX / 2;) {
        mcp_stream *st = *p;
        if (!atomic_load(&st->gone)) {
            p = &st->next;
            continue;
        }
        *p = st->next;
        if (st->s->stream == st)
            st->s->stream = NULL;
        release[(*n)++] = st->s;
        free(st);
    }
}

/* End ST when its connection is suspended and its client has closed it.
 * libmicrohttpd looks at no suspended socket, so without this a client
 * that left would hold the session's stream (409 to its next GET) until
 * the keep-alive failed to write. The client of a stream sends nothing
 * after its request: a readable socket is one at its end. Under mu. */
static void end_if_left(mcp_stream *st)
{
    const union MHD_ConnectionInfo *ci;
    char c;

    if (!st->suspended || atomic_load(&st->gone))
        return;
    ci = MHD_get_connection_info(st->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!ci || recv(ci->connect_fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) != 0)
        return; /* -1 with EAGAIN: still there */
    st->ending = true;
    st->suspended = false;
    MHD_resume_connection(st->conn);
}

/* Take a stream for S: a new one, or S's last one that is gone (its
 * reference passes on). Returns 0, SKED_ECONFLICT or SKED_EBUSY. Under
 * mu. */
static int stream_take(mcp_session *s, mcp_stream *st,
                       struct MHD_Connection *conn)
{
    sked_mcp_hub *hub = s->hub;
    mcp_stream *old = s->stream;

    if (hub->stopping || s->ended)
        return SKED_EBUSY;
    if (old)
        end_if_left(old);
    if (old && !atomic_load(&old->gone) && !old->ending)
        return SKED_ECONFLICT;
    if (old && old->ending) {
        s->refs++; /* OLD keeps its reference until it is reaped */
    } else if (old) {
        for (mcp_stream **p = &hub->streams; *p; p = &(*p)->next)
            if (*p == old) {
                *p = old->next;
                break;
            }
        free(old);
    } else {
        s->refs++;
    }
    st->s = s;
    st->conn = conn;
    st->keepalive = 0; /* a comment at once: the client sees it open */
    st->next = hub->streams;
    hub->streams = st;
    s->stream = st;
    return 0;
}

int sked__mcp_stream_open(mcp_session *s, const http_req *req, http_resp *resp)
{
    sked_mcp_hub *hub = s->hub;
    mcp_stream *st = sked__calloc(1, sizeof *st);
    struct MHD_Response *r;
    int rc;

    if (!st)
        return SKED_ENOMEM;
    atomic_init(&st->gone, false);
    pthread_mutex_lock(&hub->mu);
    rc = stream_take(s, st, req->conn);
    pthread_mutex_unlock(&hub->mu);
    if (rc != 0) {
        free(st);
        return rc;
    }
    /* From here the hub owns ST; the free callback lets go of it. */
    r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, reader, st,
                                          reader_free);
    if (!r) {
        reader_free(st);
        return SKED_ENOMEM;
    }
    if (MHD_add_response_header(r, "Content-Type", "text/event-stream") !=
        MHD_YES) {
        MHD_destroy_response(r); /* calls reader_free */
        return SKED_ENOMEM;
    }
    /* A stream lasts: the idle timeout would close it. */
    (void) MHD_set_connection_option(req->conn, MHD_CONNECTION_OPTION_TIMEOUT,
                                     (unsigned int) 0);
    resp->status = 200;
    resp->stream = r;
    return 0;
}

/* ---- the hub ------------------------------------------------------------ */

/* Reap the streams that are gone, take the sessions idle past
 * hub->idle off the list, and wake the streams whose keep-alive is
 * due; the references to drop into RELEASE (*n of them). Under mu. */
static void scan(sked_mcp_hub *hub, mcp_session **release, size_t *n)
{
    sked_mono now = sked__clock_mono(NULL);

    reap(hub, release, n);
    for (mcp_stream *st = hub->streams; st; st = st->next)
        end_if_left(st);
    for (mcp_stream *st = hub->streams; st; st = st->next)
        if (st->suspended && now >= st->keepalive) {
            st->suspended = false;
            MHD_resume_connection(st->conn);
        }
    for (mcp_session *s = hub->sessions, *next; s && *n < RELEASE_MAX;
         s = next) {
        next = s->next;
        /* Only the list holds it: no request, no stream. */
        if (s->refs == 1 && now - s->last_used >= hub->idle) {
            unlink_session(s);
            release[(*n)++] = s;
        }
    }
}

static void *hub_main(void *arg)
{
    sked_mcp_hub *hub = arg;
    mcp_session **release = sked__calloc(RELEASE_MAX, sizeof *release);
    struct timespec ts;

    pthread_mutex_lock(&hub->mu);
    while (!hub->stopping) {
        size_t n = 0;
        sked__clock_deadline(SCAN, &ts);
        if (pthread_cond_timedwait(&hub->cv, &hub->mu, &ts) != ETIMEDOUT ||
            !release)
            continue;
        scan(hub, release, &n);
        pthread_mutex_unlock(&hub->mu);
        for (size_t i = 0; i < n; i++) /* closed outside the lock */
            sked__mcp_session_release(release[i]);
        pthread_mutex_lock(&hub->mu);
    }
    pthread_mutex_unlock(&hub->mu);
    free(release);
    return NULL;
}

int sked__mcp_hub_new(sked_engine *e, const char *const *origins, size_t n,
                      sked_dur idle, sked_mcp_hub **out, sked_error *err)
{
    sked_mcp_hub *hub = sked__calloc(1, sizeof *hub);
    int rc;

    *out = NULL;
    if (!hub)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    hub->e = e;
    hub->idle = idle > 0 ? idle : SKED_MCP_IDLE;
    if (pthread_mutex_init(&hub->mu, NULL) != 0) {
        free(hub);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    if (sked__cond_init_mono(&hub->cv) != 0) {
        (void) pthread_mutex_destroy(&hub->mu);
        free(hub);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    rc = origins_copy(hub, origins, n, err);
    if (rc == 0 && sked__mcp_calls_new(&hub->calls) < 0)
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (rc == 0 && pthread_create(&hub->th, NULL, hub_main, hub) != 0)
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1,
                             "cannot start the MCP sessions' thread");
    hub->started = rc == 0;
    if (rc != 0) {
        sked__mcp_hub_free(hub);
        return rc;
    }
    *out = hub;
    return 0;
}

void sked__mcp_hub_shutdown(sked_mcp_hub *hub)
{
    if (!hub)
        return;
    pthread_mutex_lock(&hub->mu);
    bool was = hub->stopping;
    hub->stopping = true;
    pthread_cond_broadcast(&hub->cv);
    for (mcp_stream *st = hub->streams; st; st = st->next)
        if (st->suspended) {
            st->suspended = false;
            MHD_resume_connection(st->conn);
        }
    pthread_mutex_unlock(&hub->mu);
    /* The requests in flight are answered now (their connections resume:
     * the daemon stops none suspended); their workers are waited for
     * once the daemon stopped. */
    sked__mcp_calls_stop(hub->calls);
    if (!was && hub->started)
        (void) pthread_join(hub->th, NULL);
    hub->started = false;
}

void sked__mcp_hub_free(sked_mcp_hub *hub)
{
    if (!hub)
        return;
    sked__mcp_hub_shutdown(hub);
    /* The workers let go of their sessions as they finish. */
    sked__mcp_calls_free(hub->calls);
    /* The daemon has stopped: every stream is gone, and the list and the
     * streams hold the last references. */
    while (hub->streams) {
        mcp_stream *st = hub->streams;
        hub->streams = st->next;
        st->s->stream = NULL;
        sked__mcp_session_release(st->s);
        free(st);
    }
    while (hub->sessions)
        sked__mcp_session_end(hub->sessions);
    for (size_t i = 0; i < hub->norigins; i++)
        free(hub->origins[i]);
    free(hub->origins);
    (void) pthread_cond_destroy(&hub->cv);
    (void) pthread_mutex_destroy(&hub->mu);
    free(hub);
}
