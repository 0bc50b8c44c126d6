/* SPDX-License-Identifier: MIT */
/* The HTTP client of remote mode (remote.h), on one libcurl easy handle
 * kept for the whole command, so that the requests of a command (a
 * backfill's chunks, a read after a write) share one connection.
 *
 * Limits: 5 s to connect, 60 s for a request, none for the event
 * stream; answers above ANSWER_MAX bytes are refused rather than held. */
#include "remote.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "base/buf.h"
#include "base/json_text.h"
#include "cli.h"

#define CONNECT_TIMEOUT_SECS 5L
#define REQUEST_TIMEOUT_SECS 60L
/* The largest answer read: a page of 1000 runs with their outputs. */
#define ANSWER_MAX (256u * 1024u * 1024u)

struct remote {
    char *url;  /* the server, without a trailing slash */
    char *auth; /* "Authorization: Bearer TOKEN", or NULL */
    CURL *curl;
};

int remote_open(const char *url, remote **out)
{
    const char *token = getenv("SKED_TOKEN");
    remote *r = calloc(1, sizeof *r);
    size_t n = strlen(url);
    bool ok;

    while (n > 0 && url[n - 1] == '/')
        n--;
    if (!r || curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        free(r);
        return cli_fail_once(SKED_ENOMEM, "cannot start the HTTP client");
    }
    r->url = strndup(url, n);
    r->curl = curl_easy_init();
    ok = r->url && r->curl;
    if (ok && token && token[0])
        ok = (r->auth = cli_format("Authorization: Bearer %s", token)) != NULL;
    if (!ok) {
        remote_close(r);
        return cli_fail_once(SKED_ENOMEM, "out of memory");
    }
    *out = r;
    return 0;
}

void remote_close(remote *r)
{
    if (!r)
        return;
    if (r->curl)
        curl_easy_cleanup(r->curl);
    free(r->url);
    free(r->auth);
    free(r);
    curl_global_cleanup();
}

char *remote_escape(const char *s)
{
    char *e = curl_easy_escape(NULL, s, 0), *copy;

    if (!e)
        return NULL;
    copy = strdup(e);
    curl_free(e);
    return copy;
}

static size_t on_body(char *p, size_t size, size_t n, void *ctx)
{
    return sked__buf_add(ctx, p, size * n) ? size * n : 0;
}

/* The headers of a request; NULL when out of memory. */
static struct curl_slist *headers(const remote *r, bool body, const char *key)
{
    struct curl_slist *h = NULL, *t;
    char line[300];

    h = curl_slist_append(h, "Accept: application/json");
    /* No "Expect: 100-continue" round trip before a body. */
    if (h && (t = curl_slist_append(h, "Expect:")))
        h = t;
    if (h && body &&
        (t = curl_slist_append(h, "Content-Type: "
                                  "application/json")))
        h = t;
    if (h && r->auth && (t = curl_slist_append(h, r->auth)))
        h = t;
    if (h && key) {
        snprintf(line, sizeof line, "Idempotency-Key: %s", key);
        if ((t = curl_slist_append(h, line)))
            h = t;
    }
    return h;
}

/* Why the server could not be reached: the system's word for a
 * connection that failed ("Connection refused"), else libcurl's. */
static const char *why_unreachable(const remote *r, CURLcode cc)
{
    long os_errno = 0;

    curl_easy_getinfo(r->curl, CURLINFO_OS_ERRNO, &os_errno);
    if ((cc == CURLE_COULDNT_CONNECT || cc == CURLE_SEND_ERROR ||
         cc == CURLE_RECV_ERROR) &&
        os_errno > 0)
        return strerror((int) os_errno);
    return curl_easy_strerror(cc);
}

/* Report a failed exchange: why the server could not be reached. */
static int unreachable(const remote *r, CURLcode cc)
{
    return cli_fail_once(SKED_EIO, "cannot reach %s: %s", r->url,
                         why_unreachable(r, cc));
}

/* Map the API's code string back to a SKED_E... code. */
static int code_of(const char *name, long status)
{
#define REMOTE_CODE(n, num, api, http, exitc, msg)                             \
    if (strcmp(name, api) == 0)                                                \
        return SKED_##n;
    SKED_ERRNO_MAP(REMOTE_CODE)
#undef REMOTE_CODE
    return status == 404   ? SKED_ENOTFOUND
           : status == 409 ? SKED_ECONFLICT
                           : SKED_EINTERNAL;
}

/* Turn the error answer B with STATUS into ERR; print the failures that
 * are the exchange's, not the operation's. */
static int answer_error(const remote *r, long status, const sked_buf *b,
                        sked_error *err)
{
    json_t *j = b->p ? json_loadb(b->p, b->len, 0, NULL) : NULL;
    json_t *e = json_object_get(j, "error");
    const char *code = json_string_value(json_object_get(e, "code"));
    const char *msg = json_string_value(json_object_get(e, "message"));
    const char *field = json_string_value(json_object_get(e, "field"));
    int rc;

    if (!code) {
        json_decref(j);
        return cli_fail_once(SKED_EIO, "%s answered HTTP %ld", r->url, status);
    }
    rc = code_of(code, status);
    sked_error_clear(err);
    err->code = rc;
    snprintf(err->field, sizeof err->field, "%s", field ? field : "");
    if (json_is_integer(json_object_get(e, "position")))
        err->pos = (int) json_integer_value(json_object_get(e, "position"));
    /* The server sends the default message when the engine gave none:
     * give none too, so that the command words it as direct mode does. */
    if (msg && strcmp(msg, sked_strerror(rc)) != 0)
        snprintf(err->msg, sizeof err->msg, "%s", msg);
    json_decref(j);
    if (rc == SKED_EUNAUTH)
        return cli_fail_once(rc, "%s: %s", r->url,
                             err->msg[0] ? err->msg : sked_strerror(rc));
    return rc;
}

/* The options of every request: no signals (the event stream has its
 * own SIGINT), a bound on connecting, HTTP and HTTPS only (a URL
 * without a scheme is http://). */
static void common_options(remote *r)
{
    curl_easy_setopt(r->curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(r->curl, CURLOPT_CONNECTTIMEOUT, CONNECT_TIMEOUT_SECS);
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(r->curl, CURLOPT_PROTOCOLS_STR, "http,https");
#else
    curl_easy_setopt(r->curl, CURLOPT_PROTOCOLS,
                     (long) (CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
}

/* Set the method and body of the next request on R's handle. */
static void set_method(remote *r, const char *method, const char *text)
{
    bool get = strcmp(method, "GET") == 0;

    curl_easy_setopt(r->curl, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(r->curl, CURLOPT_CUSTOMREQUEST,
                     get ? NULL : (char *) method);
    if (get)
        return;
    if (strcmp(method, "DELETE") == 0 && !text)
        return;
    curl_easy_setopt(r->curl, CURLOPT_POSTFIELDS, text ? text : "");
    curl_easy_setopt(r->curl, CURLOPT_POSTFIELDSIZE,
                     (long) (text ? strlen(text) : 0));
}

/* Send one request; B receives the answer. Returns 0 with *status, or
 * the exit code-bearing error (printed). */
static int exchange(remote *r, const char *method, const char *path,
                    const char *text, const char *key, sked_buf *b,
                    long *status)
{
    struct curl_slist *h = headers(r, text != NULL, key);
    char *url = NULL;
    CURLcode cc;

    if (!h || !(url = cli_format("%s%s", r->url, path))) {
        curl_slist_free_all(h);
        return cli_fail_once(SKED_ENOMEM, "out of memory");
    }
    curl_easy_reset(r->curl);
    curl_easy_setopt(r->curl, CURLOPT_URL, url);
    common_options(r);
    curl_easy_setopt(r->curl, CURLOPT_TIMEOUT, REQUEST_TIMEOUT_SECS);
    curl_easy_setopt(r->curl, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(r->curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(r->curl, CURLOPT_WRITEDATA, b);
    set_method(r, method, text);
    cc = curl_easy_perform(r->curl);
    curl_slist_free_all(h);
    free(url);
    if (b->failed)
        return cli_fail_once(SKED_ETOOBIG, "%s: the answer is too large",
                             r->url);
    if (cc != CURLE_OK)
        return unreachable(r, cc);
    curl_easy_getinfo(r->curl, CURLINFO_RESPONSE_CODE, status);
    return 0;
}

int remote_call(remote *r, const char *method, const char *path,
                const json_t *body, const char *key, json_t **out,
                sked_error *err)
{
    char *text = body ? sked__json_text(body, NULL) : NULL;
    sked_buf b = {.max = ANSWER_MAX};
    long status = 0;
    json_t *j = NULL;
    int rc;

    if (out)
        *out = NULL;
    if (body && !text)
        return cli_fail_once(SKED_ENOMEM, "out of memory");
    rc = exchange(r, method, path, text, key, &b, &status);
    free(text);
    if (rc == 0 && (status < 200 || status > 299))
        rc = answer_error(r, status, &b, err);
    else if (rc == 0 && b.len > 0 && !(j = json_loadb(b.p, b.len, 0, NULL)))
        rc = cli_fail_once(SKED_EIO, "%s: the answer is not JSON", r->url);
    sked__buf_reset(&b);
    if (rc != 0 && err && err->code == 0)
        err->code = rc;
    if (out)
        *out = j;
    else
        json_decref(j);
    return rc;
}

/* Stop an exchange once the flag CTX is set. */
static int on_cancel(void *ctx, curl_off_t a, curl_off_t b, curl_off_t c,
                     curl_off_t d)
{
    const atomic_int *cancel = ctx;

    (void) a, (void) b, (void) c, (void) d;
    return atomic_load(cancel) ? 1 : 0;
}

/* Whether KEY (may be NULL) can be a header's value: no control
 * characters, which would end the header line. */
static bool header_safe(const char *key)
{
    for (; key && *key; key++)
        if ((unsigned char) *key < 0x20 || *key == 0x7f)
            return false;
    return true;
}

int remote_raw(remote *r, const sked_mcp_call *call, sked_mcp_reply *reply,
               sked_error *err)
{
    struct curl_slist *h = NULL;
    sked_buf b = {.max = ANSWER_MAX};
    char *url = NULL;
    long status = 0;
    CURLcode cc;

    memset(reply, 0, sizeof *reply);
    if (!header_safe(call->idempotency_key))
        return sked__error_set(err, SKED_EINVAL, "idempotency_key", -1,
                               "must not hold control characters");
    h = headers(r, call->body != NULL, call->idempotency_key);
    if (!h || !(url = cli_format("%s%s", r->url, call->target))) {
        curl_slist_free_all(h);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    curl_easy_reset(r->curl);
    curl_easy_setopt(r->curl, CURLOPT_URL, url);
    common_options(r);
    curl_easy_setopt(r->curl, CURLOPT_TIMEOUT, REQUEST_TIMEOUT_SECS);
    curl_easy_setopt(r->curl, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(r->curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(r->curl, CURLOPT_WRITEDATA, &b);
    if (call->cancel) {
        curl_easy_setopt(r->curl, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(r->curl, CURLOPT_XFERINFOFUNCTION, on_cancel);
        curl_easy_setopt(r->curl, CURLOPT_XFERINFODATA, (void *) call->cancel);
    }
    set_method(r, call->method, call->body);
    cc = curl_easy_perform(r->curl);
    curl_slist_free_all(h);
    free(url);
    if (cc == CURLE_OK)
        curl_easy_getinfo(r->curl, CURLINFO_RESPONSE_CODE, &status);
    if (b.failed || cc != CURLE_OK) {
        sked__buf_reset(&b);
        if (cc == CURLE_ABORTED_BY_CALLBACK)
            return sked__error_set(err, SKED_ECANCELED, NULL, -1, NULL);
        if (cc == CURLE_OK || cc == CURLE_WRITE_ERROR)
            return sked__error_set(err, SKED_ETOOBIG, NULL, -1,
                                   "the answer of %s is too large", r->url);
        return sked__error_set(err, SKED_EIO, NULL, -1, "cannot reach %s: %s",
                               r->url, why_unreachable(r, cc));
    }
    reply->status = (unsigned) status;
    reply->body = sked__buf_take(&b, &reply->len);
    return 0;
}

/* ---- the event stream ---------------------------------------------------- */

typedef struct stream {
    remote *r;
    sked_buf line;  /* the line being received */
    sked_buf data;  /* the event's data lines, joined by \n */
    sked_buf whole; /* an error answer, kept whole */
    char id[64], type[64];
    remote_event_fn fn;
    void *ctx;
    volatile const int *stop;
    bool error; /* the answer is not a stream */
} stream;

/* Take one line of the stream (without its end of line). */
static void stream_line(stream *s, char *l, size_t n)
{
    const char *v;

    if (n > 0 && l[n - 1] == '\r')
        l[--n] = '\0';
    if (n == 0) {
        if (s->data.len > 0)
            s->fn(s->ctx, s->id, s->type[0] ? s->type : "message", s->data.p);
        sked__buf_clear(&s->data);
        s->type[0] = '\0';
        return;
    }
    if (l[0] == ':' || !(v = strchr(l, ':')))
        return; /* a comment that keeps the line open, or no value */
    *(char *) v++ = '\0';
    if (*v == ' ')
        v++;
    if (strcmp(l, "id") == 0)
        snprintf(s->id, sizeof s->id, "%s", v);
    else if (strcmp(l, "event") == 0)
        snprintf(s->type, sizeof s->type, "%s", v);
    else if (strcmp(l, "data") == 0 &&
             ((s->data.len > 0 && !sked__buf_add(&s->data, "\n", 1)) ||
              !sked__buf_puts(&s->data, v)))
        sked__buf_clear(&s->data);
}

static size_t on_stream(char *p, size_t size, size_t n, void *ctx)
{
    stream *s = ctx;
    long status = 0;
    size_t len = size * n;

    curl_easy_getinfo(s->r->curl, CURLINFO_RESPONSE_CODE, &status);
    if (status != 200 || s->error) {
        s->error = true;
        return sked__buf_add(&s->whole, p, len) ? len : 0;
    }
    for (size_t i = 0; i < len; i++) {
        if (p[i] != '\n') {
            if (!sked__buf_add(&s->line, p + i, 1))
                return 0;
            continue;
        }
        if (!sked__buf_add(&s->line, "", 0))
            return 0;
        stream_line(s, s->line.p, s->line.len);
        sked__buf_clear(&s->line);
    }
    fflush(stdout);
    return len;
}

static int on_progress(void *ctx, curl_off_t a, curl_off_t b, curl_off_t c,
                       curl_off_t d)
{
    const stream *s = ctx;

    (void) a, (void) b, (void) c, (void) d;
    return *s->stop ? 1 : 0;
}

int remote_stream(remote *r, const char *path, remote_event_fn fn, void *ctx,
                  volatile const int *stop, sked_error *err)
{
    struct curl_slist *h = headers(r, false, NULL), *t;
    stream s = {.r = r,
                .line = {.max = ANSWER_MAX},
                .data = {.max = ANSWER_MAX},
                .whole = {.max = ANSWER_MAX},
                .fn = fn,
                .ctx = ctx,
                .stop = stop};
    char *url = NULL;
    long status = 0;
    CURLcode cc;
    int rc = 0;

    if (h && (t = curl_slist_append(h, "Accept: text/event-stream")))
        h = t;
    if (!h || !(url = cli_format("%s%s", r->url, path))) {
        curl_slist_free_all(h);
        return cli_fail_once(SKED_ENOMEM, "out of memory");
    }
    curl_easy_reset(r->curl);
    curl_easy_setopt(r->curl, CURLOPT_URL, url);
    common_options(r);
    curl_easy_setopt(r->curl, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(r->curl, CURLOPT_WRITEFUNCTION, on_stream);
    curl_easy_setopt(r->curl, CURLOPT_WRITEDATA, &s);
    /* No time limit, but a server that vanished is noticed. */
    curl_easy_setopt(r->curl, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(r->curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(r->curl, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(r->curl, CURLOPT_XFERINFODATA, &s);
    cc = curl_easy_perform(r->curl);
    curl_easy_getinfo(r->curl, CURLINFO_RESPONSE_CODE, &status);
    if (s.error)
        rc = answer_error(r, status, &s.whole, err);
    else if (cc != CURLE_OK && !(cc == CURLE_ABORTED_BY_CALLBACK && *stop))
        rc = unreachable(r, cc);
    curl_slist_free_all(h);
    free(url);
    sked__buf_reset(&s.line);
    sked__buf_reset(&s.data);
    sked__buf_reset(&s.whole);
    return rc;
}
