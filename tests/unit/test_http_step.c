/* SPDX-License-Identifier: MIT */
/* Tests of http steps (src/exec/http_step.c) against a real HTTP server
 * on loopback: libmicrohttpd on an ephemeral port, one thread per
 * connection. Routes: /ok, /status/NNN, /echo (records what reached it),
 * /big (1 MiB), /slow (answers after 5 s, or when the server stops),
 * /binary (invalid UTF-8 and a NUL), /redirect (302 to /ok). Covered:
 * methods, headers and bodies reaching the server byte for byte, which
 * statuses are accepted, capture limits, UTF-8 repair, a refused
 * connection, the deadline, cancellation, and refused requests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <microhttpd.h>

#include "base/cancel.h"
#include "base/clock.h"
#include "exec/http_step.h"
#include "sked/schedule.h"

#define MS          INT64_C(1000)
#define SLOW_ANSWER (5 * SKED_USEC_PER_SEC)
#define BIG_LEN     (1024 * 1024)
#define BINARY                                                                 \
    "a\xff"                                                                    \
    "b\0c\xc3\x28"
#define BINARY_FIXED                                                           \
    "a\xEF\xBF\xBD"                                                            \
    "b\xEF\xBF\xBD"                                                            \
    "c\xEF\xBF\xBD("

/* The server, shared by every test. mu guards everything below it. */
static struct server {
    struct MHD_Daemon *daemon;
    unsigned port;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* on CLOCK_MONOTONIC */
    bool stopping;
    int slow_arrived; /* requests that reached /slow */
    char method[16];  /* the last request to /echo */
    char header[64];
    char body[256];
    size_t body_len;
} srv;

static char big[BIG_LEN];

/* A request's upload, collected across the handler's calls. */
typedef struct upload {
    char *data;
    size_t len;
} upload;

static enum MHD_Result respond(struct MHD_Connection *c, unsigned status,
                               const char *body, size_t len)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(
        len, (void *) body, MHD_RESPMEM_MUST_COPY);
    enum MHD_Result ret;

    if (!r)
        return MHD_NO;
    if (status == 302)
        MHD_add_response_header(r, "Location", "/ok");
    ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result echo(struct MHD_Connection *c, const char *method,
                            const upload *u)
{
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Test");
    char text[512];
    int n;

    pthread_mutex_lock(&srv.mu);
    snprintf(srv.method, sizeof srv.method, "%s", method);
    snprintf(srv.header, sizeof srv.header, "%s", h ? h : "(none)");
    srv.body_len = u->len < sizeof srv.body ? u->len : sizeof srv.body;
    if (u->len)
        memcpy(srv.body, u->data, srv.body_len);
    pthread_mutex_unlock(&srv.mu);
    n = snprintf(text, sizeof text, "%s %s %zu", method, h ? h : "(none)",
                 u->len);
    return respond(c, 200, text, (size_t) n);
}

/* Answer once SLOW_ANSWER has passed or the server is stopping. */
static enum MHD_Result slow(struct MHD_Connection *c)
{
    struct timespec until;

    sked__clock_deadline(SLOW_ANSWER, &until);
    pthread_mutex_lock(&srv.mu);
    srv.slow_arrived++;
    pthread_cond_broadcast(&srv.cv);
    while (!srv.stopping &&
           pthread_cond_timedwait(&srv.cv, &srv.mu, &until) == 0)
        continue;
    pthread_mutex_unlock(&srv.mu);
    return respond(c, 200, "late", 4);
}

static enum MHD_Result route(struct MHD_Connection *c, const char *path,
                             const char *method, const upload *u)
{
    char text[32];

    if (strcmp(path, "/ok") == 0)
        return respond(c, 200, "hello", 5);
    if (strncmp(path, "/status/", 8) == 0) {
        unsigned status = (unsigned) atoi(path + 8);
        int n = snprintf(text, sizeof text, "status %u", status);
        return respond(c, status, text, (size_t) n);
    }
    if (strcmp(path, "/echo") == 0)
        return echo(c, method, u);
    if (strcmp(path, "/big") == 0)
        return respond(c, 200, big, sizeof big);
    if (strcmp(path, "/slow") == 0)
        return slow(c);
    if (strcmp(path, "/binary") == 0)
        return respond(c, 200, BINARY, sizeof BINARY - 1);
    if (strcmp(path, "/redirect") == 0)
        return respond(c, 302, "", 0);
    return respond(c, 404, "no such route", 13);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
                                  const char *path, const char *method,
                                  const char *version, const char *data,
                                  size_t *data_size, void **state)
{
    upload *u = *state;

    (void) cls;
    (void) version;
    if (!u) {
        u = calloc(1, sizeof *u);
        *state = u;
        return u ? MHD_YES : MHD_NO;
    }
    if (*data_size) {
        char *p = realloc(u->data, u->len + *data_size);
        if (!p)
            return MHD_NO;
        memcpy(p + u->len, data, *data_size);
        u->data = p;
        u->len += *data_size;
        *data_size = 0;
        return MHD_YES;
    }
    return route(c, path, method, u);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **state,
                         enum MHD_RequestTerminationCode toe)
{
    upload *u = *state;

    (void) cls;
    (void) c;
    (void) toe;
    if (u)
        free(u->data);
    free(u);
    *state = NULL;
}

static int start_server(void **state)
{
    struct sockaddr_in sa = {.sin_family = AF_INET};
    const union MHD_DaemonInfo *info;
    pthread_condattr_t ca;

    (void) state;
    memset(big, 'x', sizeof big);
    /* curl honours the proxy variables; loopback must be reached as is. */
    setenv("no_proxy", "127.0.0.1", 1);
    setenv("NO_PROXY", "127.0.0.1", 1);
    if (sked__http_global_init() != 0)
        return -1;
    pthread_mutex_init(&srv.mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&srv.cv, &ca);
    pthread_condattr_destroy(&ca);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    srv.daemon = MHD_start_daemon(
        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD, 0,
        NULL, NULL, on_request, NULL, MHD_OPTION_SOCK_ADDR, &sa,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
        MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_END);
    if (!srv.daemon)
        return -1;
    info = MHD_get_daemon_info(srv.daemon, MHD_DAEMON_INFO_BIND_PORT);
    if (!info || info->port == 0)
        return -1;
    srv.port = info->port;
    return 0;
}

static int stop_server(void **state)
{
    (void) state;
    pthread_mutex_lock(&srv.mu);
    srv.stopping = true;
    pthread_cond_broadcast(&srv.cv);
    pthread_mutex_unlock(&srv.mu);
    MHD_stop_daemon(srv.daemon);
    pthread_cond_destroy(&srv.cv);
    pthread_mutex_destroy(&srv.mu);
    return 0;
}

/* ---- helpers ----------------------------------------------------------- */

static void url_of(char *buf, size_t size, const char *path)
{
    snprintf(buf, size, "http://127.0.0.1:%u%s", srv.port, path);
}

/* GET PATH with no deadline; the answer must come. */
static void get(const char *path, size_t capture_max, sked_http_result *out)
{
    char url[128];
    sked_http_spec spec = {.url = url, .capture_max = capture_max};
    sked_error err;

    url_of(url, sizeof url, path);
    assert_int_equal(sked__http_run(&spec, SKED_TIME_NONE, NULL, out, &err), 0);
}

/* A result the call must leave alone when it fails. */
static const sked_http_result untouched = {.status = -7};

static void assert_untouched(const sked_http_result *r)
{
    assert_int_equal(r->status, -7);
    assert_null(r->body);
}

/* ---- what the server receives ----------------------------------------- */

static void test_get_ok(void **state)
{
    sked_http_result r;

    (void) state;
    get("/ok", 0, &r);
    assert_int_equal(r.status, 200);
    assert_true(r.accepted);
    assert_string_equal(r.body, "hello");
    assert_int_equal(r.body_len, 5);
    assert_false(r.truncated);
    assert_true(r.duration > 0 && r.duration < 5 * SKED_USEC_PER_SEC);
    sked__http_result_done(&r);
    assert_null(r.body);
    sked__http_result_done(NULL);
}

static void test_methods_reach_server(void **state)
{
    static const struct {
        const char *method, *body;
        size_t body_len;
        const char *echoed; /* the reply: method, header, body length */
    } cases[] = {
        {NULL, NULL, 0, "GET v 0"},
        {"POST", "a=1&b=2", 7, "POST v 7"},
        {"PUT", "x\0y\xff", 4, "PUT v 4"},
        {"PATCH", "{\"k\":[1,2]}", 11, "PATCH v 11"},
        {"DELETE", NULL, 0, "DELETE v 0"},
        {"POST", NULL, 0, "POST v 0"},
        {"OPTIONS", NULL, 0, "OPTIONS v 0"},
    };
    const char *headers[] = {"X-Test: v", "Content-Type: text/plain"};
    char url[128];

    (void) state;
    url_of(url, sizeof url, "/echo");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sked_http_spec spec = {.method = cases[i].method,
                               .url = url,
                               .headers = headers,
                               .nheaders = 2,
                               .body = cases[i].body,
                               .body_len = cases[i].body_len};
        sked_http_result r;
        sked_error err;

        assert_int_equal(sked__http_run(&spec, SKED_TIME_NONE, NULL, &r, &err),
                         0);
        assert_int_equal(r.status, 200);
        assert_string_equal(r.body, cases[i].echoed);
        pthread_mutex_lock(&srv.mu);
        assert_string_equal(srv.method,
                            cases[i].method ? cases[i].method : "GET");
        assert_string_equal(srv.header, "v");
        assert_int_equal(srv.body_len, cases[i].body_len);
        if (cases[i].body_len)
            assert_memory_equal(srv.body, cases[i].body, cases[i].body_len);
        pthread_mutex_unlock(&srv.mu);
        sked__http_result_done(&r);
    }
}

static void test_head(void **state)
{
    char url[128];
    sked_http_spec spec = {.method = "HEAD", .url = url};
    sked_http_result r;
    sked_error err;

    (void) state;
    url_of(url, sizeof url, "/ok");
    assert_int_equal(sked__http_run(&spec, SKED_TIME_NONE, NULL, &r, &err), 0);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "");
    sked__http_result_done(&r);
}

/* ---- statuses ---------------------------------------------------------- */

static void test_accepted_statuses(void **state)
{
    static const int32_t e404[] = {404}, e200_201[] = {200, 201};
    static const struct {
        const char *path;
        const int32_t *expect;
        size_t nexpect;
        long status;
        bool accepted;
    } cases[] = {
        {"/ok", NULL, 0, 200, true},
        {"/status/204", NULL, 0, 204, true},
        {"/status/299", NULL, 0, 299, true},
        {"/status/404", NULL, 0, 404, false},
        {"/status/500", NULL, 0, 500, false},
        {"/status/404", e404, 1, 404, true},
        {"/ok", e404, 1, 200, false},
        {"/status/201", e200_201, 2, 201, true},
        {"/status/202", e200_201, 2, 202, false},
        /* Redirects are not followed: the 302 is the answer. */
        {"/redirect", NULL, 0, 302, false},
    };

    (void) state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char url[128];
        sked_http_spec spec = {
            .url = url, .expect = cases[i].expect, .nexpect = cases[i].nexpect};
        sked_http_result r;
        sked_error err;

        url_of(url, sizeof url, cases[i].path);
        assert_int_equal(sked__http_run(&spec, SKED_TIME_NONE, NULL, &r, &err),
                         0);
        assert_int_equal(r.status, cases[i].status);
        assert_int_equal(r.accepted, cases[i].accepted);
        sked__http_result_done(&r);
    }
}

/* ---- the body ---------------------------------------------------------- */

static void test_capture_limits(void **state)
{
    static const struct {
        const char *path;
        size_t capture_max, len;
        bool truncated;
    } cases[] = {
        {"/big", 1000, 1000, true},
        {"/big", 0, 64 * 1024, true},
        {"/big", BIG_LEN, BIG_LEN, false},
        {"/ok", 5, 5, false},
        {"/ok", 4, 4, true},
        {"/ok", 1, 1, true},
    };

    (void) state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sked_http_result r;

        get(cases[i].path, cases[i].capture_max, &r);
        assert_int_equal(r.status, 200);
        assert_int_equal(r.body_len, cases[i].len);
        assert_int_equal(strlen(r.body), cases[i].len);
        assert_int_equal(r.truncated, cases[i].truncated);
        assert_memory_equal(r.body, cases[i].path[1] == 'b' ? big : "hello",
                            cases[i].len);
        sked__http_result_done(&r);
    }
}

static void test_binary_sanitised(void **state)
{
    sked_http_result r;

    (void) state;
    get("/binary", 0, &r);
    assert_int_equal(r.body_len, sizeof BINARY_FIXED - 1);
    assert_memory_equal(r.body, BINARY_FIXED, sizeof BINARY_FIXED);
    assert_false(r.truncated);
    sked__http_result_done(&r);
}

/* ---- no answer --------------------------------------------------------- */

/* Return a loopback port that nothing listens on. */
static unsigned closed_port(void)
{
    struct sockaddr_in sa = {.sin_family = AF_INET};
    socklen_t len = sizeof sa;
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    assert_true(fd >= 0);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *) &sa, sizeof sa), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *) &sa, &len), 0);
    close(fd);
    return ntohs(sa.sin_port);
}

static void test_refused(void **state)
{
    unsigned port = closed_port();
    char url[128], want[160];
    sked_http_spec spec = {
        .method = "POST", .url = url, .body = "{}", .body_len = 2};
    sked_http_result r = untouched;
    sked_error err;

    (void) state;
    snprintf(url, sizeof url, "http://127.0.0.1:%u/hook", port);
    assert_int_equal(sked__http_run(&spec, SKED_TIME_NONE, NULL, &r, &err),
                     SKED_EIO);
    assert_int_equal(err.code, SKED_EIO);
    snprintf(want, sizeof want, "POST http://127.0.0.1:%u/hook: ", port);
    assert_memory_equal(err.msg, want, strlen(want));
    assert_non_null(strstr(err.msg, "onnect"));
    assert_string_equal(err.field, "");
    assert_untouched(&r);
}

/* A password in the URL stays out of the message. */
static void test_refused_hides_password(void **state)
{
    unsigned port = closed_port();
    char url[128];
    sked_http_spec spec = {.url = url};
    sked_http_result r = untouched;
    sked_error err;

    (void) state;
    snprintf(url, sizeof url, "http://bob:s3cret@127.0.0.1:%u/x", port);
    assert_int_equal(sked__http_run(&spec, SKED_TIME_NONE, NULL, &r, &err),
                     SKED_EIO);
    assert_null(strstr(err.msg, "s3cret"));
    assert_non_null(strstr(err.msg, "127.0.0.1"));
    assert_untouched(&r);
}

static void test_deadline(void **state)
{
    char url[128];
    sked_http_spec spec = {.url = url};
    sked_http_result r = untouched;
    sked_error err;
    sked_mono t0 = sked__clock_mono(NULL);
    sked_dur took;

    (void) state;
    url_of(url, sizeof url, "/slow");
    assert_int_equal(
        sked__http_run(&spec, sked__clock_now(NULL) + 200 * MS, NULL, &r, &err),
        SKED_ETIMEDOUT);
    took = sked__clock_mono(NULL) - t0;
    assert_true(took >= 150 * MS);
    assert_true(took < 1500 * MS);
    assert_int_equal(err.code, SKED_ETIMEDOUT);
    assert_non_null(strstr(err.msg, "/slow"));
    assert_untouched(&r);
}

static void test_deadline_already_passed(void **state)
{
    char url[128];
    sked_http_spec spec = {.url = url};
    sked_http_result r = untouched;
    sked_error err;

    (void) state;
    url_of(url, sizeof url, "/ok");
    assert_int_equal(
        sked__http_run(&spec, sked__clock_now(NULL) - 1, NULL, &r, &err),
        SKED_ETIMEDOUT);
    assert_untouched(&r);
}

/* ---- cancellation ------------------------------------------------------ */

typedef struct canceller {
    sked_cancel *cancel;
    int seen; /* srv.slow_arrived before the request */
} canceller;

/* Set the flag once the request has reached /slow. */
static void *cancel_when_waiting(void *arg)
{
    canceller *k = arg;
    struct timespec until;

    sked__clock_deadline(SLOW_ANSWER, &until);
    pthread_mutex_lock(&srv.mu);
    while (srv.slow_arrived == k->seen &&
           pthread_cond_timedwait(&srv.cv, &srv.mu, &until) == 0)
        continue;
    pthread_mutex_unlock(&srv.mu);
    sked__cancel_set(k->cancel, 1);
    return NULL;
}

static void test_cancel(void **state)
{
    char url[128];
    sked_http_spec spec = {.url = url};
    sked_http_result r = untouched;
    sked_cancel cancel;
    canceller k = {.cancel = &cancel};
    sked_error err;
    pthread_t t;
    sked_mono t0;

    (void) state;
    url_of(url, sizeof url, "/slow");
    assert_int_equal(sked__cancel_init(&cancel), 0);
    pthread_mutex_lock(&srv.mu);
    k.seen = srv.slow_arrived;
    pthread_mutex_unlock(&srv.mu);
    assert_int_equal(pthread_create(&t, NULL, cancel_when_waiting, &k), 0);
    t0 = sked__clock_mono(NULL);
    assert_int_equal(sked__http_run(&spec, SKED_TIME_NONE, &cancel, &r, &err),
                     SKED_ECANCELED);
    assert_true(sked__clock_mono(NULL) - t0 < 2 * SKED_USEC_PER_SEC);
    assert_int_equal(pthread_join(t, NULL), 0);
    pthread_mutex_lock(&srv.mu);
    assert_true(srv.slow_arrived > k.seen);
    pthread_mutex_unlock(&srv.mu);
    assert_int_equal(err.code, SKED_ECANCELED);
    assert_untouched(&r);
    sked__cancel_close(&cancel);
}

static void test_cancel_before_start(void **state)
{
    char url[128];
    sked_http_spec spec = {.url = url};
    sked_http_result r = untouched;
    sked_cancel cancel;
    sked_error err;

    (void) state;
    url_of(url, sizeof url, "/ok");
    assert_int_equal(sked__cancel_init(&cancel), 0);
    sked__cancel_set(&cancel, 2);
    assert_int_equal(sked__http_run(&spec, SKED_TIME_NONE, &cancel, &r, &err),
                     SKED_ECANCELED);
    assert_untouched(&r);
    sked__cancel_close(&cancel);
}

/* ---- refused requests -------------------------------------------------- */

static void test_invalid(void **state)
{
    static const char *crlf[] = {"X-A: 1\r\nX-Injected: 2"};
    static const char *nocolon[] = {"X-Test: v", "NoColon"};
    static const struct {
        const char *method, *url;
        const char *const *headers;
        size_t nheaders;
        const char *body;
        const char *field;
    } cases[] = {
        {NULL, "file:///etc/passwd", NULL, 0, NULL, "url"},
        {NULL, "ftp://127.0.0.1/x", NULL, 0, NULL, "url"},
        {NULL, "gopher://127.0.0.1/", NULL, 0, NULL, "url"},
        {NULL, "127.0.0.1/ok", NULL, 0, NULL, "url"},
        {NULL, "not a url", NULL, 0, NULL, "url"},
        {NULL, "http://", NULL, 0, NULL, "url"},
        {NULL, "http://exa mple.com/", NULL, 0, NULL, "url"},
        {NULL, "", NULL, 0, NULL, "url"},
        {NULL, NULL, NULL, 0, NULL, "url"},
        {"GE T", "http://127.0.0.1/", NULL, 0, NULL, "method"},
        {"", "http://127.0.0.1/", NULL, 0, NULL, "method"},
        {"G3T", "http://127.0.0.1/", NULL, 0, NULL, "method"},
        {"POST\r\n", "http://127.0.0.1/", NULL, 0, NULL, "method"},
        {"ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFG", "http://127.0.0.1/", NULL, 0,
         NULL, "method"},
        {NULL, "http://127.0.0.1/", crlf, 1, NULL, "headers[0]"},
        {NULL, "http://127.0.0.1/", nocolon, 2, NULL, "headers[1]"},
        {"HEAD", "http://127.0.0.1/", NULL, 0, "x", "body"},
    };

    (void) state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sked_http_spec spec = {.method = cases[i].method,
                               .url = cases[i].url,
                               .headers = cases[i].headers,
                               .nheaders = cases[i].nheaders,
                               .body = cases[i].body,
                               .body_len = cases[i].body ? 1 : 0};
        sked_http_result r = untouched;
        sked_error err;

        assert_int_equal(sked__http_run(&spec, SKED_TIME_NONE, NULL, &r, &err),
                         SKED_EINVAL);
        assert_string_equal(err.field, cases[i].field);
        assert_untouched(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_get_ok),
        cmocka_unit_test(test_methods_reach_server),
        cmocka_unit_test(test_head),
        cmocka_unit_test(test_accepted_statuses),
        cmocka_unit_test(test_capture_limits),
        cmocka_unit_test(test_binary_sanitised),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_refused_hides_password),
        cmocka_unit_test(test_deadline),
        cmocka_unit_test(test_deadline_already_passed),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_cancel_before_start),
        cmocka_unit_test(test_invalid),
    };

    return cmocka_run_group_tests(tests, start_server, stop_server);
}
