/* SPDX-License-Identifier: MIT */
/* One http step's request (http_step.h), through libcurl.
 *
 * The request is checked before anything is sent: the method is a token
 * of letters, the URL parses with curl's own parser (so what is checked
 * is what is sent) and its scheme is http or https. Each call has its
 * own easy and multi handles: the multi interface lets the wait include
 * the cancellation flag's eventfd, so a cancel wakes curl_multi_poll at
 * once, and the deadline becomes curl's whole-transfer timeout. No
 * connection is reused between calls; that costs a handshake per step
 * and keeps steps independent. Redirects are not followed, and no other
 * protocol is allowed even if a redirect were. */
#include "exec/http_step.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/error.h"
#include "base/utf8.h"
#include "sked/schedule.h"
#include "sked/version.h"

/* SPEC 4.4: the response body kept as the output. */
#define HTTP_CAPTURE_DEFAULT (64 * 1024)
/* Longest method; registered ones are far shorter. */
#define METHOD_MAX 32
/* Bytes of URL quoted in an error message, so that curl's reason after
 * it still fits in sked_error.msg. */
#define URL_SHOWN_MAX 96
/* Longest single wait, in ms: curl_multi_poll returns sooner when its
 * own timers (the deadline among them) or the cancel fd need it. */
#define POLL_MAX_MS         1000
#define CAPTURE_FIRST_ALLOC 4096

#if LIBCURL_VERSION_NUM < 0x075000
#error "libcurl 7.80 or later is needed (curl_url_strerror)"
#endif

/* The response body as it arrives. */
typedef struct capture {
    char *buf; /* owned */
    size_t len, cap, max;
    bool truncated;
    bool oom; /* a growth failed: the transfer was aborted for it */
} capture;

/* Everything one call holds; request_done releases it all. */
typedef struct request {
    const sked_http_spec *spec; /* borrowed: the caller's */
    const char *method;         /* borrowed: spec's, or "GET" */
    CURLU *url;                 /* owned */
    struct curl_slist *headers; /* owned */
    CURL *easy;                 /* owned */
    CURLM *multi;               /* owned */
    bool added;                 /* easy is in multi */
    capture body;
    char shown[URL_SHOWN_MAX + 4]; /* the URL for messages, no password */
    char errbuf[CURL_ERROR_SIZE];
} request;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static CURLcode init_result = CURLE_FAILED_INIT;

static void global_init(void)
{
    init_result = curl_global_init(CURL_GLOBAL_DEFAULT);
}

int sked__http_global_init(void)
{
    if (pthread_once(&init_once, global_init) != 0)
        return SKED_EIO;
    return init_result == CURLE_OK ? 0 : SKED_EIO;
}

/* ---- checking the request ---------------------------------------------- */

static bool is_letter(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static int check_method(const char *m, sked_error *err)
{
    size_t n = 0;

    while (m[n] && n <= METHOD_MAX && is_letter(m[n]))
        n++;
    if (n == 0 || n > METHOD_MAX || m[n])
        return sked__error_set(err, SKED_EINVAL, "method", -1,
                               "a method is 1 to %d letters", METHOD_MAX);
    return 0;
}

/* Headers are "Name: value" lines; a CR or LF inside one would let it
 * smuggle other headers, or a second request, onto the wire. */
static int check_headers(const sked_http_spec *s, sked_error *err)
{
    char field[SKED_ERROR_FIELD_MAX];

    if (s->nheaders && !s->headers)
        return sked__error_set(err, SKED_EINVAL, "headers", -1, NULL);
    for (size_t i = 0; i < s->nheaders; i++) {
        const char *h = s->headers[i];
        const char *colon = h ? strchr(h, ':') : NULL;

        if (colon && colon != h && !strpbrk(h, "\r\n"))
            continue;
        snprintf(field, sizeof field, "headers[%zu]", i);
        return sked__error_set(err, SKED_EINVAL, field, -1,
                               "a header is one \"Name: value\" line");
    }
    return 0;
}

/* Keep in RQ->shown the URL without its user and password, cut to
 * URL_SHOWN_MAX bytes, for error messages. */
static int show_url(request *rq)
{
    CURLU *copy = curl_url_dup(rq->url);
    char *s = NULL;
    int rc = SKED_ENOMEM;

    if (!copy)
        return SKED_ENOMEM;
    if (curl_url_set(copy, CURLUPART_USER, NULL, 0) != CURLUE_OK ||
        curl_url_set(copy, CURLUPART_PASSWORD, NULL, 0) != CURLUE_OK ||
        curl_url_get(copy, CURLUPART_URL, &s, 0) != CURLUE_OK)
        goto out;
    if (strlen(s) > URL_SHOWN_MAX)
        snprintf(rq->shown, sizeof rq->shown, "%.*s...", URL_SHOWN_MAX, s);
    else
        snprintf(rq->shown, sizeof rq->shown, "%s", s);
    rc = 0;
out:
    curl_free(s);
    curl_url_cleanup(copy);
    return rc;
}

/* Parse the URL into RQ->url; only http and https pass. */
static int check_url(request *rq, sked_error *err)
{
    char *scheme = NULL;
    CURLUcode uc;
    int rc;

    if (!rq->spec->url)
        return sked__error_set(err, SKED_EINVAL, "url", -1, "no URL");
    rq->url = curl_url();
    if (!rq->url)
        return SKED_ENOMEM;
    /* Any scheme parses, so that every refused one gets the same
     * message below rather than curl's "unsupported". */
    uc = curl_url_set(rq->url, CURLUPART_URL, rq->spec->url,
                      CURLU_NON_SUPPORT_SCHEME);
    if (uc == CURLUE_OUT_OF_MEMORY)
        return SKED_ENOMEM;
    if (uc != CURLUE_OK)
        return sked__error_set(err, SKED_EINVAL, "url", -1, "malformed URL: %s",
                               curl_url_strerror(uc));
    uc = curl_url_get(rq->url, CURLUPART_SCHEME, &scheme, 0);
    if (uc != CURLUE_OK)
        return uc == CURLUE_OUT_OF_MEMORY
                   ? SKED_ENOMEM
                   : sked__error_set(err, SKED_EINVAL, "url", -1,
                                     "a URL needs a scheme");
    /* curl gives the scheme in lower case. */
    if (strcmp(scheme, "http") == 0 || strcmp(scheme, "https") == 0)
        rc = show_url(rq);
    else
        rc = sked__error_set(err, SKED_EINVAL, "url", -1,
                             "only http and https URLs, not %.16s:", scheme);
    curl_free(scheme);
    return rc;
}

static int check_request(request *rq, sked_error *err)
{
    const sked_http_spec *s = rq->spec;
    int rc;

    rc = check_method(rq->method, err);
    if (rc)
        return rc;
    if (s->body_len && !s->body)
        return sked__error_set(err, SKED_EINVAL, "body", -1, NULL);
    if (s->body && strcmp(rq->method, "HEAD") == 0)
        return sked__error_set(err, SKED_EINVAL, "body", -1,
                               "a HEAD request has no body");
    if (s->nexpect && !s->expect)
        return sked__error_set(err, SKED_EINVAL, "expect", -1, NULL);
    rc = check_headers(s, err);
    if (rc)
        return rc;
    return check_url(rq, err);
}

/* ---- setting up the transfer ------------------------------------------- */

/* Keep the first bytes up to the cap and drop the rest, but report every
 * byte as taken so that curl reads the response to its end. */
static size_t on_data(char *data, size_t size, size_t nmemb, void *arg)
{
    capture *c = arg;
    size_t n = size * nmemb; /* size is always 1 (CURLOPT_WRITEFUNCTION) */
    size_t keep = c->max - c->len < n ? c->max - c->len : n;

    if (keep < n)
        c->truncated = true;
    if (c->len + keep > c->cap) {
        size_t cap = c->cap ? c->cap : CAPTURE_FIRST_ALLOC;
        char *p;

        if (cap > c->max)
            cap = c->max;

        while (cap < c->len + keep)
            cap = cap > c->max / 2 ? c->max : cap * 2;
        p = sked__realloc(c->buf, cap);
        if (!p) {
            c->oom = true;
            return 0; /* aborts the transfer with CURLE_WRITE_ERROR */
        }
        c->buf = p;
        c->cap = cap;
    }
    if (keep)
        memcpy(c->buf + c->len, data, keep);
    c->len += keep;
    return n;
}

static bool is_header(const char *h, const char *name)
{
    size_t n = strlen(name);

    return strncasecmp(h, name, n) == 0 && h[n] == ':';
}

/* Build the header list. curl would add "Expect: 100-continue" to larger
 * bodies and then wait up to a second for a server that never answers
 * it; an empty "Expect:" turns that off unless the step sets its own. */
static int build_headers(request *rq)
{
    const sked_http_spec *s = rq->spec;
    bool expect = false;
    struct curl_slist *l;

    for (size_t i = 0; i < s->nheaders; i++) {
        expect = expect || is_header(s->headers[i], "expect");
        l = curl_slist_append(rq->headers, s->headers[i]);
        if (!l)
            return SKED_ENOMEM;
        rq->headers = l;
    }
    if (!expect) {
        l = curl_slist_append(rq->headers, "Expect:");
        if (!l)
            return SKED_ENOMEM;
        rq->headers = l;
    }
    return 0;
}

#define TRY(call)                                                              \
    do {                                                                       \
        CURLcode c_ = (call);                                                  \
        if (c_ != CURLE_OK)                                                    \
            return c_;                                                         \
    } while (0)

/* Set the method and the body. POST, PUT and PATCH without a body send
 * an empty one: a request with neither Content-Length nor a body is
 * refused by many servers (411). HEAD must be NOBODY, or curl would wait
 * for the body its Content-Length announces. */
static CURLcode set_method(request *rq)
{
    const sked_http_spec *s = rq->spec;
    const char *m = rq->method;
    bool body = s->body || strcmp(m, "POST") == 0 || strcmp(m, "PUT") == 0 ||
                strcmp(m, "PATCH") == 0;

    if (strcmp(m, "HEAD") == 0)
        return curl_easy_setopt(rq->easy, CURLOPT_NOBODY, 1L);
    if (body) {
        TRY(curl_easy_setopt(rq->easy, CURLOPT_POSTFIELDSIZE_LARGE,
                             (curl_off_t) s->body_len));
        TRY(curl_easy_setopt(rq->easy, CURLOPT_POSTFIELDS,
                             s->body ? s->body : ""));
    }
    /* POSTFIELDS makes it a POST, and no option a GET: any other method
     * is sent by name. */
    if (strcmp(m, body ? "POST" : "GET") != 0)
        TRY(curl_easy_setopt(rq->easy, CURLOPT_CUSTOMREQUEST, m));
    return CURLE_OK;
}

static CURLcode set_options(request *rq, long timeout_ms)
{
    CURL *e = rq->easy;

    /* Threads: curl must not use signals (alarm) for its timeouts. */
    TRY(curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L));
    TRY(curl_easy_setopt(e, CURLOPT_CURLU, rq->url));
#if LIBCURL_VERSION_NUM >= 0x075500
    TRY(curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https"));
    TRY(curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"));
#else
    TRY(curl_easy_setopt(e, CURLOPT_PROTOCOLS,
                         (long) (CURLPROTO_HTTP | CURLPROTO_HTTPS)));
    TRY(curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS,
                         (long) (CURLPROTO_HTTP | CURLPROTO_HTTPS)));
#endif
    TRY(curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L));
    TRY(curl_easy_setopt(e, CURLOPT_ERRORBUFFER, rq->errbuf));
    TRY(curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_data));
    TRY(curl_easy_setopt(e, CURLOPT_WRITEDATA, &rq->body));
    TRY(curl_easy_setopt(e, CURLOPT_HTTPHEADER, rq->headers));
    TRY(curl_easy_setopt(e, CURLOPT_USERAGENT, "sked/" SKED_VERSION));
    if (timeout_ms > 0)
        TRY(curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout_ms));
    return set_method(rq);
}

/* Turn the time left until DEADLINE into curl's timeout in ms, rounded
 * up (0: no deadline). Returns 0 or SKED_ETIMEDOUT when it has passed. */
static int timeout_left(sked_time deadline, long *out_ms)
{
    sked_time now;
    sked_dur left_ms;

    *out_ms = 0;
    if (deadline == SKED_TIME_NONE)
        return 0;
    now = sked__clock_now(NULL);
    if (deadline <= now)
        return SKED_ETIMEDOUT;
    left_ms = (deadline - now + 999) / 1000;
    *out_ms = left_ms > LONG_MAX ? LONG_MAX : (long) left_ms;
    return 0;
}

static int setup(request *rq, sked_time deadline, sked_error *err)
{
    long timeout_ms;
    CURLcode c;
    int rc;

    rc = build_headers(rq);
    if (rc)
        return rc;
    if (timeout_left(deadline, &timeout_ms) != 0)
        return sked__error_set(err, SKED_ETIMEDOUT, NULL, -1,
                               "%s %s: the deadline passed before it was sent",
                               rq->method, rq->shown);
    rq->easy = curl_easy_init();
    rq->multi = curl_multi_init();
    if (!rq->easy || !rq->multi)
        return SKED_ENOMEM;
    c = set_options(rq, timeout_ms);
    if (c == CURLE_OUT_OF_MEMORY)
        return SKED_ENOMEM;
    if (c != CURLE_OK)
        return sked__error_set(err, SKED_EIO, NULL, -1, "%s %s: %s", rq->method,
                               rq->shown, curl_easy_strerror(c));
    if (curl_multi_add_handle(rq->multi, rq->easy) != CURLM_OK)
        return SKED_ENOMEM;
    rq->added = true;
    return 0;
}

/* ---- running it -------------------------------------------------------- */

static int multi_failed(const request *rq, CURLMcode mc, sked_error *err)
{
    if (mc == CURLM_OUT_OF_MEMORY)
        return SKED_ENOMEM;
    return sked__error_set(err, SKED_EIO, NULL, -1, "%s %s: %s", rq->method,
                           rq->shown, curl_multi_strerror(mc));
}

/* Drive the transfer until it ends, or until CANCEL is set. The cancel
 * fd is one more fd for curl_multi_poll, so a cancel needs no timeout to
 * be seen. OUT: how the transfer ended. */
static int transfer(request *rq, const sked_cancel *cancel, CURLcode *out,
                    sked_error *err)
{
    struct curl_waitfd cfd = {
        .fd = cancel ? sked__cancel_fd(cancel) : -1,
        .events = CURL_WAIT_POLLIN,
    };
    int running = 1, left;
    CURLMsg *msg;
    CURLMcode mc;

    for (;;) {
        if (cancel && sked__cancel_reason(cancel))
            return sked__error_set(err, SKED_ECANCELED, NULL, -1,
                                   "%s %s: cancelled", rq->method, rq->shown);
        mc = curl_multi_perform(rq->multi, &running);
        if (mc != CURLM_OK)
            return multi_failed(rq, mc, err);
        if (!running)
            break;
        mc =
            curl_multi_poll(rq->multi, &cfd, cancel ? 1 : 0, POLL_MAX_MS, NULL);
        if (mc != CURLM_OK)
            return multi_failed(rq, mc, err);
    }
    while ((msg = curl_multi_info_read(rq->multi, &left)))
        if (msg->msg == CURLMSG_DONE) {
            *out = msg->data.result;
            return 0;
        }
    return sked__error_set(err, SKED_EIO, NULL, -1, "%s %s: no result",
                           rq->method, rq->shown);
}

/* Turn a failed transfer into an error code and a message naming the
 * request and curl's reason. */
static int transfer_failed(const request *rq, CURLcode c, sked_error *err)
{
    const char *why = rq->errbuf[0] ? rq->errbuf : curl_easy_strerror(c);
    const char *field = NULL;
    int code = SKED_EIO;

    switch (c) {
    case CURLE_OPERATION_TIMEDOUT:
        code = SKED_ETIMEDOUT;
        break;
    case CURLE_OUT_OF_MEMORY:
        return SKED_ENOMEM;
    case CURLE_WRITE_ERROR:
        if (rq->body.oom)
            return SKED_ENOMEM;
        break;
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
        code = SKED_EINVAL;
        field = "url";
        break;
    default:
        break;
    }
    return sked__error_set(err, code, field, -1, "%s %s: %s", rq->method,
                           rq->shown, why);
}

static bool is_accepted(const sked_http_spec *s, long status)
{
    if (s->nexpect == 0)
        return status >= 200 && status <= 299;
    for (size_t i = 0; i < s->nexpect; i++)
        if (s->expect[i] == status)
            return true;
    return false;
}

/* Fill OUT from the finished transfer. */
static int collect(request *rq, sked_mono start, sked_http_result *out)
{
    sked_http_result r = {0};
    long status = 0;
    int rc;

    if (curl_easy_getinfo(rq->easy, CURLINFO_RESPONSE_CODE, &status) !=
        CURLE_OK)
        status = 0;
    rc = sked__utf8_sanitize(rq->body.buf ? rq->body.buf : "", rq->body.len,
                             &r.body, &r.body_len);
    if (rc)
        return rc;
    r.status = status;
    r.accepted = is_accepted(rq->spec, status);
    r.truncated = rq->body.truncated;
    r.duration = sked__clock_mono(NULL) - start;
    *out = r;
    return 0;
}

static void request_done(request *rq)
{
    if (rq->added)
        (void) curl_multi_remove_handle(rq->multi, rq->easy);
    curl_easy_cleanup(rq->easy);
    curl_multi_cleanup(rq->multi);
    curl_url_cleanup(rq->url);
    curl_slist_free_all(rq->headers);
    free(rq->body.buf);
}

int sked__http_run(const sked_http_spec *spec, sked_time deadline,
                   const sked_cancel *cancel, sked_http_result *out,
                   sked_error *err)
{
    sked_mono start = sked__clock_mono(NULL);
    CURLcode result = CURLE_OK;
    request rq;
    int rc;

    if (!spec || !out)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, NULL);
    if (sked__http_global_init() != 0)
        return sked__error_set(err, SKED_EIO, NULL, -1,
                               "libcurl could not be initialised");
    rq = (request){
        .spec = spec,
        .method = spec->method ? spec->method : "GET",
        .body.max =
            spec->capture_max ? spec->capture_max : HTTP_CAPTURE_DEFAULT,
    };
    rc = check_request(&rq, err);
    if (rc == 0)
        rc = setup(&rq, deadline, err);
    if (rc == 0)
        rc = transfer(&rq, cancel, &result, err);
    if (rc == 0 && result != CURLE_OK)
        rc = transfer_failed(&rq, result, err);
    if (rc == 0)
        rc = collect(&rq, start, out);
    request_done(&rq);
    if (rc == SKED_ENOMEM)
        return sked__error_set(err, rc, NULL, -1, NULL);
    return rc;
}

void sked__http_result_done(sked_http_result *r)
{
    if (!r)
        return;
    free(r->body);
    *r = (sked_http_result){0};
}
