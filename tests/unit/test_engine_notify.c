/* SPDX-License-Identifier: MIT */
/* Notifications through the engine (docs/notifications.md) on a virtual
 * clock, delivered to a real HTTP receiver on loopback and to a real
 * command: a failed run of a schedule a notifier wants is delivered
 * once, signed (the HMAC checked here with libcrypto, apart from sked's
 * code), with its idempotency id; one it does not want (another type,
 * another schedule) is not; a receiver that fails is retried with
 * backoff until retry_for, then the delivery is failed, in the log and
 * the metrics; a receiver down then up gets every delivery, in event
 * order, also across a reopened engine; two engines on one database
 * deliver each once; bad input is refused naming the field, changing
 * nothing; no answer or log holds the secret. The database is
 * SKED_TEST_DB_URL when set, else a fresh SQLite file. */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "test_db.h"

#include "engine/engine_int.h"
#include "store/store_notify.h"
#include "sked/sked.h"

#define SECRET     "s3cr3t-for-the-hook"
#define MAX_SEEN   64
#define RETRY_SECS 30

static char db_url[1024];
static char tmp_dir[256];
static _Atomic sked_time vnow;
static sked_clock clock_;

static sked_time read_now(void *ctx)
{
    (void) ctx;
    return vnow;
}

/* ---- the receiver ------------------------------------------------------ */

typedef struct seen {
    char delivery[96], signature[160], event[32];
    char *body;
} seen;

static struct receiver {
    struct MHD_Daemon *daemon;
    unsigned port;
    pthread_mutex_t mu;
    unsigned status; /* what it answers */
    seen got[MAX_SEEN];
    int n;
} rx;

typedef struct upload {
    char *data;
    size_t len;
} upload;

static void record(struct MHD_Connection *c, const upload *u)
{
    const char *h;
    seen *s;

    pthread_mutex_lock(&rx.mu);
    if (rx.n < MAX_SEEN) {
        s = &rx.got[rx.n++];
        h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Sked-Delivery");
        snprintf(s->delivery, sizeof s->delivery, "%s", h ? h : "");
        h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Sked-Signature");
        snprintf(s->signature, sizeof s->signature, "%s", h ? h : "");
        h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Sked-Event");
        snprintf(s->event, sizeof s->event, "%s", h ? h : "");
        s->body = strndup(u->data ? u->data : "", u->len);
    }
    pthread_mutex_unlock(&rx.mu);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
                                  const char *path, const char *method,
                                  const char *version, const char *data,
                                  size_t *data_size, void **state)
{
    upload *u = *state;
    struct MHD_Response *r;
    enum MHD_Result ret;
    unsigned status;

    (void) cls, (void) path, (void) method, (void) version;
    if (!u) {
        *state = u = calloc(1, sizeof *u);
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
    record(c, u);
    pthread_mutex_lock(&rx.mu);
    status = rx.status;
    pthread_mutex_unlock(&rx.mu);
    r = MHD_create_response_from_buffer(2, (void *) "ok",
                                        MHD_RESPMEM_PERSISTENT);
    ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **state,
                         enum MHD_RequestTerminationCode toe)
{
    upload *u = *state;

    (void) cls, (void) c, (void) toe;
    if (u)
        free(u->data);
    free(u);
    *state = NULL;
}

/* Start the receiver on PORT (0: any). */
static void rx_start(unsigned port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET,
                             .sin_port = htons((uint16_t) port)};
    const union MHD_DaemonInfo *info;

    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    rx.daemon = MHD_start_daemon(
        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD, 0,
        NULL, NULL, on_request, NULL, MHD_OPTION_SOCK_ADDR, &sa,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
        MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_END);
    assert_non_null(rx.daemon);
    info = MHD_get_daemon_info(rx.daemon, MHD_DAEMON_INFO_BIND_PORT);
    assert_non_null(info);
    rx.port = info->port;
}

static void rx_stop(void)
{
    if (rx.daemon)
        MHD_stop_daemon(rx.daemon);
    rx.daemon = NULL;
}

static void rx_reset(unsigned status)
{
    pthread_mutex_lock(&rx.mu);
    for (int i = 0; i < rx.n; i++)
        free(rx.got[i].body);
    rx.n = 0;
    rx.status = status;
    pthread_mutex_unlock(&rx.mu);
}

static int rx_count(void)
{
    int n;

    pthread_mutex_lock(&rx.mu);
    n = rx.n;
    pthread_mutex_unlock(&rx.mu);
    return n;
}

/* ---- the engine -------------------------------------------------------- */

static int step_fail(sked_ctx *c, const char *in, char **out)
{
    (void) in, (void) out;
    sked_ctx_fail(c, "the disk is full");
    return 3;
}

static void schedule(sked_engine *e, const char *name)
{
    sked_schedule s;
    sked_error err;

    sked_schedule_init(&s);
    s.name = strdup(name);
    s.workflow = strdup("bad");
    s.cron = strdup("0 3 * * *");
    if (sked_engine_schedule_create(e, &s, &err) != 0 &&
        err.code != SKED_ECONFLICT)
        fail_msg("schedule %s: %s", name, err.msg);
    sked_schedule_done(&s);
}

static sked_engine *open_engine(const char *node)
{
    sked_engine_options o = {.db_url = db_url,
                             .tzdir = SKED_TEST_DATA "/zoneinfo",
                             .clock = &clock_,
                             .node_id = node,
                             .sqlite_synchronous = "normal",
                             .workers = -1};
    sked_workflow *w = NULL;
    sked_step_options so = {0};
    sked_engine *e = NULL;
    sked_error err;

    if (sked_engine_open(&o, &e, &err) != 0)
        fail_msg("open %s: %s", db_url, err.msg);
    assert_int_equal(sked_workflow_new("bad", &w, NULL), 0);
    assert_int_equal(sked_workflow_add_step(w, "load", step_fail, &so, &err),
                     0);
    assert_int_equal(sked_engine_register(e, w, &err), 0);
    return e;
}

static int setup(void **state)
{
    const char *const tables[] = {"notify_deliveries",
                                  "notify_queue",
                                  "notifiers",
                                  "runs",
                                  sked_test_events_table(db_url),
                                  "schedules"};
    sked_engine *e;
    char sql[128];

    vnow = 1780000000 * SKED_USEC_PER_SEC;
    e = open_engine("node-1");
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        snprintf(sql, sizeof sql, "DELETE FROM %s", tables[i]);
        assert_int_equal(sked_test_sql(db_url, sql, NULL), 0);
    }
    schedule(e, "nightly-db");
    schedule(e, "nightly-web");
    schedule(e, "daily-x");
    rx_reset(200);
    *state = e;
    return 0;
}

static int teardown(void **state)
{
    sked_engine_close(*state);
    return 0;
}

/* Fail one run of schedule NAME: a run.failed of that schedule. */
static void fail_run(sked_engine *e, const char *name)
{
    size_t done = 0;
    sked_error err;

    assert_int_equal(sked_engine_trigger(e, name, NULL, &err), 0);
    if (sked__engine_work(e, 4, &done, &err) != 0)
        fail_msg("work: %s", err.msg);
    assert_int_equal(done, 1);
    vnow += 1000;
}

static size_t pass(sked_engine *e)
{
    size_t done = 0;
    sked_error err;

    if (sked__engine_notify_pass(e, &done, &err) != 0)
        fail_msg("notify pass: %s", err.msg);
    return done;
}

/* The webhook notifier "hook" for EVENTS and SCHEDULES (JSON arrays) to
 * the receiver on PORT. */
static void put_hook(sked_engine *e, unsigned port, const char *events,
                     const char *schedules)
{
    char json[1024];
    sked_error err;

    snprintf(json, sizeof json,
             "{\"webhook\": {\"url\": \"http://127.0.0.1:%u/hook\", "
             "\"secret_env\": \"SKED_TEST_HOOK_SECRET\", \"timeout\": \"3s\"},"
             " \"events\": %s, \"schedules\": %s, \"retry_for\": %d}",
             port, events, schedules, RETRY_SECS);
    if (sked_engine_notifier_put(e, "hook", json, NULL, NULL, &err) != 0)
        fail_msg("put: %s: %s", err.field, err.msg);
}

static long long q(const char *sql)
{
    long long v = -1;
    assert_int_equal(sked_test_sql(db_url, sql, &v), 0);
    return v;
}

/* The count of deliveries the notify log shows (every notifier). */
static size_t logged(sked_engine *e)
{
    char *text = NULL;
    sked_error err;
    json_t *a;
    size_t n;

    assert_int_equal(sked_engine_notify_log(e, NULL, 0, 1000, &text, &err), 0);
    a = json_loads(text, 0, NULL);
    assert_true(json_is_array(a));
    n = json_array_size(a);
    json_decref(a);
    free(text);
    return n;
}

/* Check the Stripe-style signature SIG of BODY under SECRET with
 * libcrypto, apart from sked's signing code. */
static void check_signature(const char *sig, const char *body)
{
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    char msg[8192], hex[65];
    long long t = 0;

    assert_int_equal(sscanf(sig, "t=%lld,v1=%64s", &t, hex), 2);
    snprintf(msg, sizeof msg, "%lld.%s", t, body);
    assert_non_null(HMAC(EVP_sha256(), SECRET, (int) strlen(SECRET),
                         (unsigned char *) msg, strlen(msg), mac, &len));
    for (unsigned i = 0; i < len; i++) {
        char two[3];
        snprintf(two, sizeof two, "%02x", mac[i]);
        assert_memory_equal(two, hex + 2 * i, 2);
    }
}

/* The event id of the body of the receiver's request I. */
static long long body_id(int i)
{
    json_t *b = json_loads(rx.got[i].body, 0, NULL);
    long long id = json_integer_value(json_object_get(b, "id"));

    json_decref(b);
    return id;
}

/* ---- the cases --------------------------------------------------------- */

static void test_delivered_once_signed(void **state)
{
    sked_engine *e = *state;
    char *text = NULL, want[96];
    sked_error err;
    json_t *b;

    put_hook(e, rx.port, "[\"run.failed\"]", "[\"nightly-*\"]");
    assert_int_equal(q("SELECT count(*) FROM events WHERE type = "
                       "'notifier.created' AND subject = 'hook'"),
                     1);
    fail_run(e, "nightly-db");
    fail_run(e, "daily-x"); /* another schedule: not wanted */
    assert_int_equal(logged(e), 1);
    assert_int_equal(pass(e), 1);
    assert_int_equal(pass(e), 0);
    assert_int_equal(rx_count(), 1);
    b = json_loads(rx.got[0].body, 0, NULL);
    assert_non_null(b);
    assert_string_equal(json_string_value(json_object_get(b, "type")),
                        "run.failed");
    assert_string_equal(json_string_value(json_object_get(b, "schedule")),
                        "nightly-db");
    snprintf(want, sizeof want, "%lld-hook",
             (long long) json_integer_value(json_object_get(b, "id")));
    assert_string_equal(rx.got[0].delivery, want);
    assert_string_equal(rx.got[0].event, "run.failed");
    json_decref(b);
    check_signature(rx.got[0].signature, rx.got[0].body);
    assert_int_equal(q("SELECT count(*) FROM notify_deliveries WHERE state = "
                       "'delivered' AND attempts = 1"),
                     1);
    /* The secret is in no answer, log or metric. */
    assert_int_equal(sked_engine_notifier_list(e, &text, &err), 0);
    assert_null(strstr(text, SECRET));
    assert_non_null(strstr(text, "SKED_TEST_HOOK_SECRET"));
    free(text);
    assert_int_equal(sked_engine_notify_log(e, NULL, 0, 0, &text, &err), 0);
    assert_null(strstr(text, SECRET));
    assert_non_null(strstr(text, want));
    free(text);
    assert_int_equal(sked_engine_metrics(e, &text, &err), 0);
    assert_non_null(strstr(text, "sked_notifications_total{notifier=\"hook\","
                                 "result=\"delivered\"} 1"));
    assert_null(strstr(text, SECRET));
    free(text);
}

static void test_filters(void **state)
{
    sked_engine *e = *state;

    /* Only schedule.paused: a run.failed is not wanted. */
    put_hook(e, rx.port, "[\"schedule.paused\"]", "null");
    fail_run(e, "nightly-db");
    assert_int_equal(logged(e), 0);
    /* Every schedule (no list), run.failed: both are. */
    put_hook(e, rx.port, "[\"run.failed\"]", "null");
    fail_run(e, "nightly-web");
    fail_run(e, "daily-x");
    assert_int_equal(logged(e), 2);
    /* A plain name is matched as itself. */
    put_hook(e, rx.port, "[\"run.failed\"]", "[\"daily-x\"]");
    fail_run(e, "nightly-web");
    fail_run(e, "daily-x");
    assert_int_equal(logged(e), 3);
}

static void test_failing_receiver(void **state)
{
    sked_engine *e = *state;
    char *text = NULL;
    sked_error err;
    int tries = 0;

    rx_reset(500);
    put_hook(e, rx.port, "[\"run.failed\"]", "null");
    fail_run(e, "nightly-db");
    /* Retried with backoff: not due again at once. */
    assert_int_equal(pass(e), 1);
    assert_int_equal(pass(e), 0);
    while (q("SELECT count(*) FROM notify_deliveries WHERE state = "
             "'pending'") == 1 &&
           tries++ < 40) {
        vnow += 2 * SKED_USEC_PER_SEC;
        (void) pass(e);
    }
    assert_int_equal(q("SELECT count(*) FROM notify_deliveries WHERE state = "
                       "'failed' AND last_status = 500"),
                     1);
    /* The attempts fit the backoff: 1, 2, 4, 8, 16 s within 30 s. */
    assert_in_range(q("SELECT attempts FROM notify_deliveries"), 4, 7);
    assert_int_equal(rx_count(),
                     (int) q("SELECT attempts FROM notify_deliveries"));
    assert_int_equal(sked_engine_notify_log(e, "hook", 0, 0, &text, &err), 0);
    assert_non_null(strstr(text, "\"state\":\"failed\""));
    assert_non_null(strstr(text, "HTTP status 500"));
    free(text);
    assert_int_equal(sked_engine_metrics(e, &text, &err), 0);
    assert_non_null(strstr(text, "sked_notifications_total{notifier=\"hook\","
                                 "result=\"failed\"} 1"));
    assert_non_null(strstr(text, "result=\"retry\"}"));
    free(text);
}

static void test_down_then_up(void **state)
{
    sked_engine *e = *state;
    unsigned port = rx.port;
    long long first, second;

    rx_stop(); /* connection refused */
    put_hook(e, port, "[\"run.failed\"]", "null");
    fail_run(e, "nightly-db");
    fail_run(e, "nightly-db");
    assert_int_equal(logged(e), 2);
    /* The second waits for the first: one (notifier, schedule) in order. */
    assert_int_equal(pass(e), 1);
    assert_int_equal(q("SELECT count(*) FROM notify_deliveries WHERE "
                       "attempts > 0"),
                     1);
    /* Across a new engine on the same database: nothing lost. */
    sked_engine_close(e);
    *state = e = open_engine("node-2");
    rx_start(port);
    vnow += 5 * SKED_USEC_PER_SEC;
    assert_int_equal(pass(e), 1);
    assert_int_equal(pass(e), 1);
    assert_int_equal(rx_count(), 2);
    first = body_id(0);
    second = body_id(1);
    assert_true(first < second);
    assert_int_equal(q("SELECT count(*) FROM notify_deliveries WHERE state = "
                       "'delivered'"),
                     2);
}

struct worker {
    sked_engine *e;
    size_t done;
};

static void *deliver_all(void *arg)
{
    struct worker *w = arg;
    sked_error err;
    size_t n;

    for (int i = 0; i < 200; i++) {
        if (sked__engine_notify_pass(w->e, &n, &err) != 0)
            n = 0; /* a retryable conflict: the next pass */
        w->done += n;
        if (n == 0 && q("SELECT count(*) FROM notify_deliveries WHERE state "
                        "= 'pending'") == 0)
            break;
    }
    return NULL;
}

static void test_two_engines(void **state)
{
    sked_engine *e = *state, *f = open_engine("node-2");
    struct worker a = {e, 0}, b = {f, 0};
    pthread_t ta, tb;
    char name[32];

    put_hook(e, rx.port, "[\"run.failed\"]", "null");
    for (int i = 0; i < 12; i++) {
        snprintf(name, sizeof name, "n-%d", i);
        schedule(e, name);
        fail_run(e, name);
        fail_run(e, name);
    }
    assert_int_equal(logged(e), 24);
    pthread_create(&ta, NULL, deliver_all, &a);
    pthread_create(&tb, NULL, deliver_all, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    sked_engine_close(f);
    assert_int_equal(a.done + b.done, 24);
    assert_int_equal(rx_count(), 24);
    for (int i = 0; i < rx.n; i++)
        for (int j = i + 1; j < rx.n; j++)
            assert_string_not_equal(rx.got[i].delivery, rx.got[j].delivery);
}

static void test_command(void **state)
{
    sked_engine *e = *state;
    char json[1024], path[400], buf[4096];
    sked_error err;
    FILE *fp;
    size_t n;

    snprintf(path, sizeof path, "%s/cmd.out", tmp_dir[0] ? tmp_dir : "/tmp");
    snprintf(json, sizeof json,
             "{\"command\": {\"argv\": [\"/bin/sh\", \"-c\", \"cat > %s; "
             "env >> %s\"]}, \"events\": [\"run.failed\"]}",
             path, path);
    assert_int_equal(sked_engine_notifier_put(e, "cmd", json, NULL, NULL, &err),
                     0);
    fail_run(e, "daily-x");
    assert_int_equal(pass(e), 1);
    assert_int_equal(q("SELECT count(*) FROM notify_deliveries WHERE state = "
                       "'delivered' AND last_status = 0"),
                     1);
    fp = fopen(path, "r");
    assert_non_null(fp);
    n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    assert_non_null(strstr(buf, "\"type\":\"run.failed\""));
    /* Its environment: the notify variables, none of the server's. */
    assert_non_null(strstr(buf, "SKED_DELIVERY="));
    assert_non_null(strstr(buf, "SKED_NOTIFIER=cmd\n"));
    assert_non_null(strstr(buf, "SKED_EVENT_TYPE=run.failed\n"));
    assert_null(strstr(buf, "SKED_TEST_HOOK_SECRET"));
    assert_null(strstr(buf, SECRET));
    unlink(path);
}

/* A schedule paused after its failures: schedule.paused is delivered. */
static void test_paused_after_failures(void **state)
{
    sked_engine *e = *state;
    sked_schedule s;
    sked_error err;

    assert_int_equal(sked_engine_schedule_get(e, "nightly-db", &s, &err), 0);
    s.pause_after_failures = 2;
    assert_int_equal(sked_engine_schedule_update(e, &s, &err), 0);
    sked_schedule_done(&s);
    put_hook(e, rx.port, "[\"schedule.paused\"]", "[\"nightly-*\"]");
    fail_run(e, "nightly-db");
    assert_int_equal(pass(e), 0);
    fail_run(e, "nightly-db");
    assert_int_equal(pass(e), 1);
    assert_int_equal(rx_count(), 1);
    assert_string_equal(rx.got[0].event, "schedule.paused");
    assert_non_null(strstr(rx.got[0].body, "\"schedule\":\"nightly-db\""));
    assert_non_null(strstr(rx.got[0].body, "consecutive failed runs"));
}

static void test_lease_taken_over(void **state)
{
    sked_engine *e = *state;
    sked_delivery *d = NULL;
    sked_error err;
    size_t n = 0;

    put_hook(e, rx.port, "[\"run.failed\"]", "null");
    fail_run(e, "nightly-db");
    /* A server claims it and dies before its attempt. */
    assert_int_equal(
        sked__store_deliveries_claim(sked__engine_store(e), "dead-node",
                                     60 * SKED_USEC_PER_SEC, 8, &d, &n, &err),
        0);
    assert_int_equal(n, 1);
    sked__deliveries_free(d, n);
    assert_int_equal(pass(e), 0); /* its lease holds */
    vnow += 61 * SKED_USEC_PER_SEC;
    assert_int_equal(pass(e), 1); /* run out: taken over */
    assert_int_equal(rx_count(), 1);
    assert_int_equal(q("SELECT count(*) FROM notify_deliveries WHERE state = "
                       "'delivered' AND attempts = 2 AND lease_owner IS NULL"),
                     1);
}

static void test_email_and_template(void **state)
{
    sked_engine *e = *state;
    char json[2048], prog[400], out[400], buf[4096];
    sked_error err;
    FILE *fp;
    size_t n;

    snprintf(out, sizeof out, "%s/mail.out", tmp_dir);
    snprintf(prog, sizeof prog, "%s/sendmail", tmp_dir);
    fp = fopen(prog, "w");
    assert_non_null(fp);
    fprintf(fp, "#!/bin/sh\necho \"args: $*\" > %s\ncat >> %s\n", out, out);
    fclose(fp);
    assert_int_equal(chmod(prog, 0755), 0);
    snprintf(json, sizeof json,
             "{\"email\": {\"to\": [\"ops@example.com\", \"b@example.com\"], "
             "\"subject\": \"{{type}} of {{schedule}}\", \"program\": "
             "\"%s\"}, \"events\": [\"run.failed\"]}",
             prog);
    assert_int_equal(
        sked_engine_notifier_put(e, "mail", json, NULL, NULL, &err), 0);
    /* And a webhook with a body template and a header of its own. */
    snprintf(json, sizeof json,
             "{\"webhook\": {\"url\": \"http://127.0.0.1:%u/t\", "
             "\"headers\": {\"X-Team\": \"data\"}, \"body\": "
             "\"{\\\"text\\\": \\\"{{type}} {{schedule}} "
             "{{delivery}}\\\"}\"}, \"events\": [\"run.failed\"]}",
             rx.port);
    assert_int_equal(sked_engine_notifier_put(e, "tpl", json, NULL, NULL, &err),
                     0);
    fail_run(e, "nightly-web");
    assert_int_equal(pass(e), 2);
    fp = fopen(out, "r");
    assert_non_null(fp);
    n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    assert_non_null(strstr(buf, "args: -t -i"));
    assert_non_null(strstr(buf, "To: ops@example.com, b@example.com\n"));
    assert_non_null(strstr(buf, "Subject: run.failed of nightly-web\n"));
    assert_non_null(strstr(buf, "Sked-Delivery: "));
    assert_non_null(strstr(buf, "\"type\":\"run.failed\""));
    assert_int_equal(rx_count(), 1);
    assert_non_null(
        strstr(rx.got[0].body, "{\"text\": \"run.failed nightly-web "));
    assert_non_null(strstr(rx.got[0].body, "-tpl\"}"));
    assert_string_equal(rx.got[0].signature, ""); /* no secret: unsigned */
    unlink(out);
    unlink(prog);
}

static void test_pruned_with_events(void **state)
{
    sked_engine *e = *state;
    int64_t deleted = 0;
    sked_error err;

    put_hook(e, rx.port, "[\"run.failed\"]", "null");
    fail_run(e, "nightly-db");
    assert_int_equal(pass(e), 1);
    rx_reset(500);
    fail_run(e, "nightly-web");
    assert_int_equal(pass(e), 1); /* pending again, retried later */
    vnow += SKED_USEC_PER_SEC;
    assert_int_equal(
        sked__store_event_prune(sked__engine_store(e), vnow, &deleted, &err),
        0);
    assert_int_equal(logged(e), 1);
    assert_int_equal(q("SELECT count(*) FROM notify_deliveries WHERE state = "
                       "'pending'"),
                     1);
    /* Its event outlives the events' retention with it: the retry sends
     * the same body, the event whole. */
    char *first = strdup(rx.got[0].body);
    assert_non_null(first);
    assert_non_null(strstr(first, "\"type\":\"run.failed\""));
    assert_non_null(strstr(first, "\"schedule\":\"nightly-web\""));
    rx_reset(200);
    for (int tries = 0; rx_count() == 0 && tries < 40; tries++) {
        vnow += 2 * SKED_USEC_PER_SEC;
        (void) pass(e);
    }
    assert_int_equal(rx_count(), 1);
    assert_string_equal(rx.got[0].body, first);
    free(first);
}

static void test_bad_input(void **state)
{
    static const struct {
        const char *json, *field;
    } cases[] = {
        {"{\"webhook\": {\"url\": \"ftp://x\"}, \"events\": [\"run.failed\"]}",
         "webhook.url"},
        {"{\"webhook\": {\"url\": \"http://x\", \"colour\": 1}, \"events\": "
         "[\"run.failed\"]}",
         "webhook.colour"},
        {"{\"webhook\": {\"url\": \"http://x\"}, \"events\": "
         "[\"run.failed\", \"run.started\"]}",
         "events[1]"},
        {"{\"webhook\": {\"url\": \"http://x\"}}", "events"},
        {"{\"events\": [\"run.failed\"]}", "webhook"},
        {"{\"command\": {}, \"events\": [\"run.failed\"]}", "command.argv"},
        {"{\"email\": {\"to\": [\"nobody\"]}, \"events\": [\"run.failed\"]}",
         "email.to"},
        {"{\"webhook\": {\"url\": \"http://x\"}, \"events\": [\"run.failed\"], "
         "\"retry_for\": \"soon\"}",
         "retry_for"},
        {"{\"webhook\": {\"url\": \"http://x\"}, \"command\": {\"argv\": "
         "[\"x\"]}, \"events\": [\"run.failed\"]}",
         "command"},
    };
    sked_engine *e = *state;
    char *text = NULL;
    sked_error err;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(
            sked_engine_notifier_put(e, "x", cases[i].json, NULL, NULL, &err),
            SKED_EINVAL);
        assert_string_equal(err.field, cases[i].field);
    }
    assert_int_equal(sked_engine_notifier_put(e, "bad name!",
                                              "{\"webhook\": {\"url\": "
                                              "\"http://x\"}, \"events\": "
                                              "[\"run.failed\"]}",
                                              NULL, NULL, &err),
                     SKED_EINVAL);
    assert_string_equal(err.field, "name");
    assert_int_equal(sked_engine_notifier_list(e, &text, &err), 0);
    assert_string_equal(text, "[]");
    free(text);
    assert_int_equal(sked_engine_notifier_get(e, "x", &text, &err),
                     SKED_ENOTFOUND);
    assert_int_equal(sked_engine_notifier_delete(e, "x", &err), SKED_ENOTFOUND);
}

int main(void)
{
    const char *url = getenv("SKED_TEST_DB_URL");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_delivered_once_signed, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_filters, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failing_receiver, setup, teardown),
        cmocka_unit_test_setup_teardown(test_down_then_up, setup, teardown),
        cmocka_unit_test_setup_teardown(test_two_engines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command, setup, teardown),
        cmocka_unit_test_setup_teardown(test_paused_after_failures, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_lease_taken_over, setup, teardown),
        cmocka_unit_test_setup_teardown(test_email_and_template, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_pruned_with_events, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
    };
    int rc;

    clock_ = (sked_clock){read_now, read_now, NULL};
    setenv("SKED_TEST_HOOK_SECRET", SECRET, 1);
    /* curl honours the proxy variables; loopback must be reached as is. */
    setenv("no_proxy", "127.0.0.1", 1);
    setenv("NO_PROXY", "127.0.0.1", 1);
    pthread_mutex_init(&rx.mu, NULL);
    rx_start(0);
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/sked-engnotify-XXXXXX");
    if (!mkdtemp(tmp_dir))
        return 1;
    if (url && url[0])
        snprintf(db_url, sizeof db_url, "%s", url);
    else
        snprintf(db_url, sizeof db_url, "sqlite:%s/engine.db", tmp_dir);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    rx_stop();
    rx_reset(200);
    {
        const char *const ext[] = {"", "-wal", "-shm"};
        char path[512];
        for (size_t i = 0; i < 3; i++) {
            snprintf(path, sizeof path, "%s/engine.db%s", tmp_dir, ext[i]);
            unlink(path);
        }
        rmdir(tmp_dir);
    }
    return rc;
}
