/* SPDX-License-Identifier: MIT */
/* The stdio transport (src/mcp/stdio.c) over pipes, on a fake API whose
 * schedules' list holds until its call is cancelled: with every worker
 * busy and more requests queued, notifications/cancelled still reaches
 * each call (those running end unanswered, those queued never run; one
 * cancelled before its request comes never runs either) and the session
 * answers a ping; a line over 1 MiB is answered with -32600 and the
 * next one read; blank lines are ignored; the end of the input ends it
 * with 0; so does the stop flag, with the input still open. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "mcp/mcp.h"

typedef struct fake {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int held; /* calls holding now */
    int ran;  /* schedules' lists that started */
} fake;

static void put(sked_mcp_reply *reply, unsigned status, const char *body)
{
    reply->status = status;
    reply->body = strdup(body);
    reply->len = strlen(body);
}

static int fake_api(void *ctx, const sked_mcp_call *call, sked_mcp_reply *reply,
                    sked_error *err)
{
    const struct timespec ms = {0, 1000000};
    fake *f = ctx;

    (void) err;
    memset(reply, 0, sizeof *reply);
    if (strncmp(call->target, "/api/v1/schedules", 17) != 0) {
        put(reply, 404,
            "{\"error\":{\"code\":\"not_found\",\"message\":\"not found\"}}");
        return 0;
    }
    pthread_mutex_lock(&f->mu);
    f->ran++;
    f->held++;
    pthread_cond_broadcast(&f->cv);
    /* 5 s at most: a cancel that never comes fails the test, not the
     * run. */
    for (int i = 0; i < 5000 && (!call->cancel || !*call->cancel); i++) {
        pthread_mutex_unlock(&f->mu);
        nanosleep(&ms, NULL);
        pthread_mutex_lock(&f->mu);
    }
    f->held--;
    pthread_mutex_unlock(&f->mu);
    put(reply, 200, "{\"schedules\":[],\"next_cursor\":null}");
    return 0;
}

typedef struct serve {
    pthread_t t;
    fake f;
    int in[2], out[2];
    volatile int stop;
    int rc;
    FILE *answers; /* reads out[0] */
} serve;

static void *serve_main(void *arg)
{
    serve *s = arg;
    sked_mcp_options o = {.api = fake_api, .api_ctx = &s->f};
    sked_error err;

    s->rc = sked__mcp_stdio(&o, s->in[0], s->out[1], &s->stop, &err);
    close(s->out[1]);
    return NULL;
}

static void start(serve *s)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->f.mu, NULL);
    pthread_cond_init(&s->f.cv, NULL);
    assert_int_equal(pipe(s->in), 0);
    assert_int_equal(pipe(s->out), 0);
    assert_non_null(s->answers = fdopen(s->out[0], "r"));
    assert_int_equal(pthread_create(&s->t, NULL, serve_main, s), 0);
}

/* End S: its input closed (unless already), its thread joined. */
static void finish(serve *s)
{
    if (s->in[1] >= 0)
        close(s->in[1]);
    pthread_join(s->t, NULL);
    close(s->in[0]);
    fclose(s->answers);
    pthread_cond_destroy(&s->f.cv);
    pthread_mutex_destroy(&s->f.mu);
}

static void send_text(serve *s, const char *text)
{
    size_t n = strlen(text);

    assert_int_equal(write(s->in[1], text, n), (ssize_t) n);
}

/* The next answer line, parsed (NULL at the end). */
static json_t *next_answer(serve *s)
{
    char *line = NULL;
    size_t cap = 0;
    json_t *j = NULL;

    if (getline(&line, &cap, s->answers) > 0)
        assert_non_null(j = json_loads(line, 0, NULL));
    free(line);
    return j;
}

static void initialize(serve *s)
{
    json_t *a;

    send_text(s, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
                 "\"params\":{\"protocolVersion\":\"2025-06-18\"}}\n");
    a = next_answer(s);
    assert_int_equal(json_integer_value(json_object_get(a, "id")), 0);
    assert_non_null(json_object_get(a, "result"));
    json_decref(a);
}

#define CALLS 12 /* more than the workers: some wait in the queue */

static void test_cancel_reaches_running_and_queued(void **state)
{
    char text[256];
    serve s;
    json_t *a;

    (void) state;
    start(&s);
    initialize(&s);
    for (int i = 1; i <= CALLS; i++) {
        snprintf(text, sizeof text,
                 "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\","
                 "\"params\":{\"name\":\"list_schedules\"}}\n",
                 i);
        send_text(&s, text);
    }
    pthread_mutex_lock(&s.f.mu);
    while (s.f.held < 8)
        pthread_cond_wait(&s.f.cv, &s.f.mu);
    pthread_mutex_unlock(&s.f.mu);
    for (int i = 1; i <= CALLS; i++) {
        snprintf(text, sizeof text,
                 "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                 "\"params\":{\"requestId\":%d}}\n",
                 i);
        send_text(&s, text);
    }
    send_text(&s, "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}\n");
    a = next_answer(&s);
    assert_string_equal(json_string_value(json_object_get(a, "id")), "p");
    json_decref(a);
    close(s.in[1]);
    s.in[1] = -1;
    /* Nothing more: no answer to a cancelled call. */
    assert_null(next_answer(&s));
    finish(&s);
    assert_int_equal(s.rc, 0);
}

static void test_cancel_before_the_request(void **state)
{
    serve s;
    json_t *a;

    (void) state;
    start(&s);
    initialize(&s);
    send_text(&s, "{\"jsonrpc\":\"2.0\",\"method\":"
                  "\"notifications/cancelled\",\"params\":{\"requestId\":"
                  "\"x\"}}\n"
                  "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":"
                  "\"tools/call\",\"params\":{\"name\":"
                  "\"list_schedules\"}}\n"
                  "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":"
                  "\"ping\"}\n");
    a = next_answer(&s);
    assert_string_equal(json_string_value(json_object_get(a, "id")), "p");
    json_decref(a);
    close(s.in[1]);
    s.in[1] = -1;
    assert_null(next_answer(&s));
    finish(&s);
    assert_int_equal(s.rc, 0);
    assert_int_equal(s.f.ran, 0); /* the cancelled request never ran */
}

static void test_long_line_is_refused_and_skipped(void **state)
{
    size_t big = (size_t) SKED_MCP_MESSAGE_MAX + 10;
    char *line = malloc(big + 1);
    serve s;
    json_t *a;

    (void) state;
    assert_non_null(line);
    memset(line, 'x', big);
    line[0] = '{';
    line[big] = '\n';
    start(&s);
    send_text(&s, "\n  \r\n");
    /* Written from here while the transport reads. */
    for (size_t off = 0; off <= big;) {
        ssize_t w = write(s.in[1], line + off, big + 1 - off);

        assert_true(w > 0);
        off += (size_t) w;
    }
    free(line);
    send_text(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
    a = next_answer(&s);
    assert_int_equal(json_integer_value(
                         json_object_get(json_object_get(a, "error"), "code")),
                     -32600);
    assert_true(json_is_null(json_object_get(a, "id")));
    json_decref(a);
    close(s.in[1]);
    s.in[1] = -1;
    /* The last line, without its newline, is read at the end. */
    a = next_answer(&s);
    assert_int_equal(json_integer_value(json_object_get(a, "id")), 1);
    assert_non_null(json_object_get(a, "result"));
    json_decref(a);
    assert_null(next_answer(&s));
    finish(&s);
    assert_int_equal(s.rc, 0);
}

static void test_stop_ends_it(void **state)
{
    serve s;

    (void) state;
    start(&s);
    initialize(&s);
    s.stop = 1;
    assert_null(next_answer(&s)); /* the output closed: it returned */
    finish(&s);
    assert_int_equal(s.rc, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cancel_reaches_running_and_queued),
        cmocka_unit_test(test_cancel_before_the_request),
        cmocka_unit_test(test_long_line_is_refused_and_skipped),
        cmocka_unit_test(test_stop_ends_it),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
