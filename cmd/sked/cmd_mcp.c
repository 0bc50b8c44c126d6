/* SPDX-License-Identifier: MIT */
/* "sked mcp [--db URL | --server URL]" (SPEC 8, docs/mcp.md): the Model
 * Context Protocol over stdio, for an assistant's client that starts
 * sked as its server. stdin carries the client's JSON-RPC messages, one
 * a line; stdout carries the answers and notifications and nothing
 * else; logs (a database that cannot be opened) go to stderr.
 *
 * Every tool is one request of the HTTP API (src/mcp/mcp.h), answered in
 * this process on the database (--db, or $SKED_DB: the server's own
 * handlers on a client engine, sked__http_call), or by a server over
 * HTTP (--server, or $SKED_SERVER, with $SKED_TOKEN), so that both modes
 * answer the same. The target is chosen as every command's (target.h).
 * The end of stdin ends the command, with exit code 0, once the calls
 * in flight are answered; so does SIGINT or SIGTERM. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "direct.h"
#include "http/http.h"
#include "mcp/mcp.h"
#include "remote.h"
#include "target.h"

/* Connections to the server kept for reuse: as many as requests run at
 * once on stdio. */
#define POOL_MAX 8

/* The remote API: one HTTP client per request in flight (a client's
 * handle serves one thread at a time), kept for the next. */
typedef struct remote_pool {
    const char *url; /* borrowed from argv or the environment */
    pthread_mutex_t mu;
    remote *idle[POOL_MAX]; /* owned */
    size_t n;
} remote_pool;

/* Set by SIGINT and SIGTERM (sig_atomic_t is an int, which the transport
 * reads). */
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void) sig;
    stop = 1;
}

/* A client of P, idle or new; NULL when none can be made. */
static remote *pool_take(remote_pool *p)
{
    remote *r = NULL;

    pthread_mutex_lock(&p->mu);
    if (p->n > 0)
        r = p->idle[--p->n];
    else if (remote_open(p->url, &r) != 0)
        r = NULL;
    pthread_mutex_unlock(&p->mu);
    return r;
}

static void pool_give(remote_pool *p, remote *r)
{
    pthread_mutex_lock(&p->mu);
    if (p->n < POOL_MAX) {
        p->idle[p->n++] = r;
        r = NULL;
    }
    pthread_mutex_unlock(&p->mu);
    remote_close(r);
}

/* The sked_mcp_api_fn of --server. */
static int remote_api(void *ctx, const sked_mcp_call *call,
                      sked_mcp_reply *reply, sked_error *err)
{
    remote_pool *p = ctx;
    remote *r = pool_take(p);
    int rc;

    if (!r)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1,
                               "cannot start the HTTP client");
    rc = remote_raw(r, call, reply, err);
    pool_give(p, r);
    return rc;
}

/* Serve stdio with O until stdin ends. Returns the exit code. */
static int serve(const sked_mcp_options *o)
{
    struct sigaction sa = {.sa_handler = on_signal};
    sked_error err;
    int rc;

    /* A client gone is a write error, not a signal that kills. */
    signal(SIGPIPE, SIG_IGN);
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sked_error_clear(&err);
    rc = sked__mcp_stdio(o, STDIN_FILENO, STDOUT_FILENO, &stop, &err);
    if (rc != 0)
        return cli_fail(rc, "mcp: %s",
                        err.msg[0] ? err.msg : sked_strerror(rc));
    return 0;
}

static int serve_remote(const char *url)
{
    remote_pool p = {.url = url};
    remote *first = NULL;
    int rc;

    /* One client opened here, before any thread: the HTTP library is
     * set up once, and the first request finds it ready. */
    if (pthread_mutex_init(&p.mu, NULL) != 0 || remote_open(url, &first) != 0)
        return cli_fail(SKED_ENOMEM, "cannot start the HTTP client");
    p.idle[p.n++] = first;
    rc = serve(&(sked_mcp_options){.api = remote_api, .api_ctx = &p});
    while (p.n > 0)
        remote_close(p.idle[--p.n]);
    pthread_mutex_destroy(&p.mu);
    return rc;
}

static int serve_direct(const char *db)
{
    /* A client engine, as direct mode's: it loads no schedules and
     * starts no thread; the API's handlers call it as the server's. */
    sked_engine_options eo = {.db_url = direct_db_url(db), .client = true};
    sked_engine *e = NULL;
    sked_error err;
    int rc;

    sked_error_clear(&err);
    if ((rc = sked_engine_open(&eo, &e, &err)) != 0)
        return cli_fail(rc, "cannot open the database \"%.200s\": %s",
                        eo.db_url, err.msg[0] ? err.msg : sked_strerror(rc));
    rc = serve(&(sked_mcp_options){.api = sked__http_call, .api_ctx = e});
    sked_engine_close(e);
    return rc;
}

static int mcp_run(const cli_cmd *self, int argc, char **argv)
{
    const char *db = NULL, *server = NULL;
    const cli_opt opts[] = {
        {"db", 0, CLI_OPT_VALUE, &db},
        {"server", 0, CLI_OPT_VALUE, &server},
        {0},
    };
    int rc;

    if ((rc = cli_parse_options(self, argc, argv, opts)) != CLI_CONTINUE)
        return rc;
    if ((rc = target_choose(self, db, server, &db, &server)) != 0)
        return rc;
    return server ? serve_remote(server) : serve_direct(db);
}

const cli_cmd cli_cmd_mcp = {
    .name = "mcp",
    .path = "sked mcp",
    .summary = "Serve the Model Context Protocol on stdin and stdout",
    .run = mcp_run,
    .help = "Usage: sked mcp [--db URL | --server URL]\n"
            "\n"
            "Serve the Model Context Protocol (JSON-RPC 2.0, one message a\n"
            "line) on stdin and stdout, for an assistant's MCP client that\n"
            "starts sked: tools for schedules, runs and workflows, the\n"
            "resources sked://schedules/{name} and sked://runs/{id}, and\n"
            "prompts. Each tool is one request of the HTTP API, on the\n"
            "database or through a server. stdout carries the protocol\n"
            "only; errors go to stderr. Ends at the end of stdin.\n"
            "\n"
            "Options:\n" TARGET_HELP "  -h, --help     show this help\n",
};
