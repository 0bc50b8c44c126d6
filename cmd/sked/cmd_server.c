/* SPDX-License-Identifier: MIT */
/* "sked server": run the engine until told to stop (SPEC 3.2, 5, 7, 10).
 *
 * At start it opens the engine on the database, reads the workflows file
 * (when given) and syncs its schedules (source code, SPEC 3.5), then
 * starts the scheduler thread and the workers (--workers, default 4;
 * 0 runs a server that only schedules). The workflows of the file run
 * their commands, requests and sleeps on those workers.
 *
 * Signals: SIGTERM, SIGINT and SIGHUP are blocked in every thread before
 * the engine starts any, and the main thread takes them with sigwait, so
 * no work ever happens in a signal handler. SIGTERM and SIGINT stop the
 * engine (a firing in progress commits first) and exit 0. SIGHUP rereads
 * the workflows file: when it is broken, the last good definitions stay
 * and the error is logged as FILE:LINE:COLUMN: path: message.
 *
 * At start the soft limit on open files is raised to the hard one
 * (raise_open_files).
 *
 * Logs go to stderr (log.h), one line per event worth attention
 * (server_events.c), and a warning when the database's clock is more
 * than a second away from ours (PostgreSQL). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli.h"
#include "direct.h"
#include "http/http.h"
#include "log.h"
#include "server_events.h"
#include "server_health.h"

/* Bounds of --tick: a tick below a second only costs rereads; above an
 * hour, changes by other servers would wait too long. */
#define TICK_MIN (SKED_USEC_PER_SEC)
#define TICK_MAX (INT64_C(3600) * SKED_USEC_PER_SEC)
/* A lease is renewed every third of itself: under 2 s, a busy database
 * could let it lapse; over an hour, a crashed server's runs wait long. */
#define LEASE_MIN (2 * SKED_USEC_PER_SEC)
#define LEASE_MAX (INT64_C(3600) * SKED_USEC_PER_SEC)
/* SPEC 3.2: a database clock more than a second off is a warning. The
 * engine measures it every minute; looking every few seconds is enough. */
#define SKEW_WARN (SKED_USEC_PER_SEC)
/* How often the main thread looks at the skew and the database's
 * health: a failing store is logged within a second. */
#define POLL_SECONDS 1

typedef struct server {
    const char *db_url;    /* borrowed from argv or the environment */
    const char *workflows; /* borrowed; NULL: no workflows file */
    sked_dur tick;
    int workers;        /* worker threads; 0: none */
    sked_dur lease;     /* 0: the engine's default */
    const char *listen; /* borrowed; NULL: no HTTP server */
    char *token;        /* owned; NULL: no auth */
    /* --mcp-allow-origin, borrowed from argv */
    const char *const *mcp_origins;
    size_t n_mcp_origins;
    sked_dur mcp_idle; /* --mcp-session-idle; 0: the server's default */
    sked_http *http;   /* owned; from start */
    logger log;
    sked_tzdb *tzdb; /* opened first: a missing zone database is told as such */
    sked_engine *engine;
    sked_subscription *sub;
    bool skew_warned; /* the last skew seen was over SKEW_WARN */
    health_log health;
    int64_t open_files; /* the soft RLIMIT_NOFILE served with */
} server;

/* Write URL into BUF with any password replaced by "***", so the log
 * never shows a secret ("postgres://u:***@host/db"). */
static void redact_url(const char *url, char *buf, size_t size)
{
    const char *scheme = strstr(url, "://");
    const char *at, *colon;

    snprintf(buf, size, "%s", url);
    if (!scheme)
        return;
    at = strchr(scheme + 3, '@');
    colon = strchr(scheme + 3, ':');
    if (!at || !colon || colon > at)
        return;
    snprintf(buf, size, "%.*s:***%s", (int) (colon - url), url, at);
}

/* Write into BUF the names of kind K of R, comma-separated, when all of
 * them are known (at most SKED_APPLY_NAMES_MAX); else "". */
static void sync_names(const sked_apply_result *r, sked_apply_kind k,
                       size_t count, char *buf, size_t size)
{
    size_t used = 0;

    buf[0] = '\0';
    if (count > SKED_APPLY_NAMES_MAX)
        return;
    for (size_t i = 0; i < count && used < size; i++) {
        int w = snprintf(buf + used, size - used, "%s%s", i ? "," : "",
                         r->names[k][i]);
        if (w < 0)
            break;
        used += (size_t) w;
    }
}

/* Log what a sync of APP changed: one line with the counts, and the
 * names of each kind when few; nothing when nothing changed. A sync that
 * deletes is a warning: a file that lost its schedules by mistake must
 * not go unseen. */
static void log_sync(server *sv, const char *app, const sked_apply_result *r)
{
    char names[SKED_APPLY_KINDS][SKED_APPLY_NAMES_MAX * (SKED_NAME_MAX + 1)];
    const size_t count[SKED_APPLY_KINDS] = {r->created, r->updated, r->deleted};
    log_kv kv[8];
    int n = 0;

    if (r->created + r->updated + r->deleted == 0)
        return;
    kv[n++] = LOG_STR("app", app);
    kv[n++] = LOG_INT("created", (int64_t) r->created);
    kv[n++] = LOG_INT("updated", (int64_t) r->updated);
    kv[n++] = LOG_INT("deleted", (int64_t) r->deleted);
    kv[n++] = LOG_INT("unchanged", (int64_t) r->unchanged);
    static const char *const keys[SKED_APPLY_KINDS] = {
        "created_names", "updated_names", "deleted_names"};
    for (int k = 0; k < SKED_APPLY_KINDS; k++) {
        sync_names(r, (sked_apply_kind) k, count[k], names[k], sizeof names[k]);
        if (names[k][0])
            kv[n++] = LOG_STR(keys[k], names[k]);
    }
    log_write(&sv->log, r->deleted ? LOG_WARN : LOG_INFO, "schedules synced",
              kv, n);
}

/* Read the workflows file and sync its schedules into the engine. On any
 * error nothing changes and the error, one line, goes to the log.
 * Returns 0 or the error code. */
static int load_workflows(server *sv, const char *why)
{
    static sked_workflows_loaded wl; /* the main thread's alone */
    sked_error err;
    int rc;

    sked_error_clear(&err);
    rc = sked_engine_load_workflows(sv->engine, sv->workflows, &wl, &err);
    if (rc < 0) {
        log_write(&sv->log, LOG_ERROR, "workflows file refused",
                  (log_kv[]){LOG_STR("error", wl.error), LOG_STR("on", why)},
                  2);
        return rc;
    }
    log_write(&sv->log, LOG_INFO, "workflows file loaded",
              (log_kv[]){LOG_STR("file", sv->workflows), LOG_STR("app", wl.app),
                         LOG_INT("workflows", (int64_t) wl.workflows),
                         LOG_INT("schedules", (int64_t) wl.schedules),
                         LOG_STR("on", why)},
              5);
    log_sync(sv, wl.app, &wl.applied);
    return 0;
}

/* Log a failure of the engine at start and return its exit code. */
static int start_fail(server *sv, const char *what, const sked_error *err,
                      int rc)
{
    log_write(
        &sv->log, LOG_ERROR, what,
        (log_kv[]){LOG_STR("error", err->msg[0] ? err->msg : sked_strerror(rc)),
                   LOG_STR("field", err->field)},
        err->field[0] ? 2 : 1);
    return sked_error_exit_code(rc);
}

/* Log one answered request: at debug level, or warn for the server's own
 * failures (5xx), which a person must see. A readiness probe answered 503
 * is no failure of the request: the cause is logged once already (the
 * health log, server_health.h), not again at every probe. */
static void log_access(void *ctx, const char *method, const char *path,
                       unsigned status, int64_t elapsed_us)
{
    logger *lg = ctx;
    bool probe = strcmp(path, "/readyz") == 0 && status == 503;
    log_level level = status >= 500 && !probe ? LOG_WARN : LOG_DEBUG;

    if (!log_enabled(lg, level))
        return;
    log_write(lg, level, "http request",
              (log_kv[]){LOG_STR("method", method), LOG_STR("path", path),
                         LOG_INT("status", (int64_t) status),
                         LOG_REAL("ms", (double) elapsed_us / 1e3)},
              4);
}

/* Start the HTTP server on --listen and log its URL. Returns 0 or the
 * exit code (the error logged). */
static int http_open(server *sv)
{
    sked_http_options o = {.listen = sv->listen,
                           .token = sv->token,
                           .mcp_allow_origin = sv->mcp_origins,
                           .n_mcp_allow_origin = sv->n_mcp_origins,
                           .mcp_idle = sv->mcp_idle,
                           .access = log_access,
                           .access_ctx = &sv->log};
    char url[300];
    sked_error err;
    int rc = sked__http_start(sv->engine, &o, &sv->http, &err);
    const char *colon = strrchr(sv->listen, ':');
    int host_len = colon ? (int) (colon - sv->listen) : 0;

    if (rc < 0)
        return start_fail(sv, "cannot start the HTTP server", &err, rc);
    /* ":8080" listens everywhere; show the loopback URL that reaches it. */
    snprintf(url, sizeof url, "http://%.*s:%u", host_len ? host_len : 9,
             host_len ? sv->listen : "127.0.0.1", sked__http_port(sv->http));
    log_write(&sv->log, LOG_INFO, "http listening",
              (log_kv[]){LOG_STR("url", url),
                         LOG_STR("auth", sv->token ? "token" : "none")},
              2);
    return 0;
}

/* Open the zone database and the engine, subscribe the log, sync the
 * workflows file. Returns 0 or the exit code (the error logged). */
static int server_open(server *sv)
{
    sked_engine_options opts = {.db_url = sv->db_url,
                                .tick = sv->tick,
                                .workers = sv->workers > 0 ? sv->workers : -1,
                                .lease = sv->lease};
    sked_error err;
    int rc;

    sked_error_clear(&err);
    if ((rc = sked_tzdb_open(NULL, &sv->tzdb, &err)) < 0)
        return start_fail(sv, "cannot open the time zone database", &err, rc);
    if ((rc = sked_engine_open(&opts, &sv->engine, &err)) < 0)
        return start_fail(sv, "cannot open the database", &err, rc);
    rc = sked_subscribe(sv->engine, server_log_event, &sv->log, &sv->sub, &err);
    if (rc < 0)
        return start_fail(sv, "cannot subscribe to events", &err, rc);
    if (sv->workflows && (rc = load_workflows(sv, "start")) < 0)
        return sked_error_exit_code(rc);
    /* The API before the scheduler: a port in use stops the server before
     * anything fires. */
    if (sv->listen && (rc = http_open(sv)) != 0)
        return rc;
    if ((rc = sked_engine_start(sv->engine, &err)) < 0)
        return start_fail(sv, "cannot start the scheduler", &err, rc);
    return 0;
}

static void server_close(server *sv)
{
    /* The API first: no request may reach an engine being closed. */
    sked__http_stop(sv->http);
    sv->http = NULL;
    if (sv->engine && sv->sub)
        sked_unsubscribe(sv->engine, sv->sub);
    sked_engine_close(sv->engine);
    sked_tzdb_close(sv->tzdb);
    sv->engine = NULL;
    sv->tzdb = NULL;
}

/* Log the database's clock skew when it crosses SKEW_WARN either way
 * (SPEC 3.2: over 1 s is a warning); the engine measures it on
 * PostgreSQL. */
static void check_skew(server *sv)
{
    sked_dur skew = 0;
    bool over;

    if (!sked_engine_clock_skew(sv->engine, &skew))
        return;
    over = skew > SKEW_WARN || skew < -SKEW_WARN;
    if (over && !sv->skew_warned)
        log_write(&sv->log, LOG_WARN, "clock skew",
                  (log_kv[]){LOG_REAL("skew_seconds", (double) skew / 1e6),
                             LOG_STR("source", "database")},
                  2);
    else if (!over && sv->skew_warned)
        log_write(&sv->log, LOG_INFO, "clock skew back within 1s",
                  (log_kv[]){LOG_REAL("skew_seconds", (double) skew / 1e6)}, 1);
    sv->skew_warned = over;
}

/* Take signals until one says stop, looking at the clock skew and the
 * database's health between them. Returns the signal that stopped. */
static int serve(server *sv, const sigset_t *set)
{
    const struct timespec poll = {.tv_sec = POLL_SECONDS};

    for (;;) {
        int sig = sigtimedwait(set, NULL, &poll);

        if (sig < 0) {
            if (errno == EAGAIN) {
                check_skew(sv);
                health_check(&sv->health, sv->engine, &sv->log);
            }
            continue;
        }
        if (sig != SIGHUP)
            return sig;
        if (!sv->workflows) {
            log_write(&sv->log, LOG_INFO, "SIGHUP: no workflows file", NULL, 0);
            continue;
        }
        (void) load_workflows(sv, "SIGHUP");
    }
}

/* Raise the soft limit on open files to the hard one: every connection,
 * step pipe, pidfd and database handle is a file, and the soft limit a
 * shell or a unit gives (often 1024) is what a busy server runs out of
 * first (EMFILE: connections refused, steps that cannot start). Only
 * the hard limit is a decision of whoever started the server. Steps
 * inherit the raised limit (docs/execution.md). */
static void raise_open_files(server *sv)
{
    struct rlimit rl;

    sv->open_files = -1;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    if (rl.rlim_cur < rl.rlim_max) {
        rlim_t was = rl.rlim_cur;

        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
            log_write(&sv->log, LOG_WARN, "cannot raise the open files limit",
                      (log_kv[]){LOG_INT("soft", (int64_t) was),
                                 LOG_INT("hard", (int64_t) rl.rlim_max),
                                 LOG_STR("error", strerror(errno))},
                      3);
            rl.rlim_cur = was;
        } else {
            log_write(&sv->log, LOG_DEBUG, "open files limit raised",
                      (log_kv[]){LOG_INT("from", (int64_t) was),
                                 LOG_INT("to", (int64_t) rl.rlim_cur)},
                      2);
        }
    }
    sv->open_files =
        rl.rlim_cur == RLIM_INFINITY ? INT64_MAX : (int64_t) rl.rlim_cur;
}

/* Run the server SV configured from the command line; return the exit
 * code. */
static int server_run(server *sv)
{
    char url[512], tick[SKED_DUR_STRLEN];
    sigset_t set;
    int rc, sig;

    (void) sigemptyset(&set);
    (void) sigaddset(&set, SIGTERM);
    (void) sigaddset(&set, SIGINT);
    (void) sigaddset(&set, SIGHUP);
    /* Before any thread exists, so every thread inherits the mask. */
    if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0)
        return cli_fail(SKED_EINTERNAL, "cannot block signals");
    raise_open_files(sv);
    redact_url(sv->db_url, url, sizeof url);
    if (sked_dur_format(sv->tick, tick, sizeof tick) < 0)
        snprintf(tick, sizeof tick, "?");
    if ((rc = server_open(sv)) != 0) {
        server_close(sv);
        return rc;
    }
    log_write(&sv->log, LOG_INFO, "server started",
              (log_kv[]){LOG_STR("db", url), LOG_STR("tick", tick),
                         LOG_INT("pid", (int64_t) getpid()),
                         LOG_INT("open_files", sv->open_files),
                         LOG_STR("version", SKED_VERSION)},
              5);
    sig = serve(sv, &set);
    log_write(
        &sv->log, LOG_INFO, "stopping",
        (log_kv[]){LOG_STR("signal", sig == SIGINT ? "SIGINT" : "SIGTERM")}, 1);
    server_close(sv);
    log_write(&sv->log, LOG_INFO, "server stopped", NULL, 0);
    return 0;
}

typedef struct server_flags {
    const char *db, *workflows, *tick, *log_format, *log_level, *workers;
    const char *lease, *listen, *token_file, *mcp_idle;
    cli_list mcp_allow_origin;
} server_flags;

/* The longest token accepted from a file or the environment. */
#define TOKEN_MAX 4096
#define TOKEN_MIN 16

/* Read the token of --token-file PATH (its first line) or $SKED_TOKEN
 * into SV. Returns CLI_CONTINUE or an exit code (the error printed). */
static int read_token(const char *path, server *sv)
{
    char buf[TOKEN_MAX + 2];
    const char *env = getenv("SKED_TOKEN");
    FILE *f;

    if (!path) {
        if (!env || !env[0])
            return CLI_CONTINUE;
        snprintf(buf, sizeof buf, "%s", env);
    } else {
        if (!(f = fopen(path, "r")))
            return cli_fail(SKED_EINVAL, "cannot read --token-file %s: %s",
                            path, strerror(errno));
        if (!fgets(buf, sizeof buf, f))
            buf[0] = '\0';
        fclose(f);
        buf[strcspn(buf, "\r\n")] = '\0';
    }
    /* A short token can be guessed: refuse it rather than trust it. */
    if (strlen(buf) < TOKEN_MIN || strlen(buf) > TOKEN_MAX)
        return cli_fail(SKED_EINVAL,
                        "%s: the token must hold %d to %d characters",
                        path ? path : "SKED_TOKEN", TOKEN_MIN, TOKEN_MAX);
    if (!(sv->token = strdup(buf)))
        return cli_fail(SKED_ENOMEM, "out of memory");
    return CLI_CONTINUE;
}

/* Check the flags F into SV and start its log. Returns CLI_CONTINUE or
 * the exit code of a usage error. */
static int server_config(const cli_cmd *self, const server_flags *f, server *sv)
{
    log_format format = LOG_LOGFMT;
    log_level level = LOG_INFO;
    sked_error err;

    sv->db_url = direct_db_url(f->db);
    sv->workflows = f->workflows;
    sv->mcp_origins = f->mcp_allow_origin.v;
    sv->n_mcp_origins = (size_t) f->mcp_allow_origin.n;
    sv->listen = f->listen ? f->listen : SKED_HTTP_LISTEN_DEFAULT;
    if (strcmp(sv->listen, "off") == 0)
        sv->listen = NULL;
    int rc = read_token(f->token_file, sv);
    if (rc != CLI_CONTINUE)
        return rc;
    sv->tick = SKED_TICK_DEFAULT;
    long workers = SKED_WORKERS_DEFAULT;
    if (f->workers && cli_parse_count(self, "--workers", f->workers, 0,
                                      SKED_WORKERS_MAX, &workers) != 0)
        return 2;
    sv->workers = (int) workers;
    if (f->lease && (sked_dur_parse(f->lease, &sv->lease, &err) < 0 ||
                     sv->lease < LEASE_MIN || sv->lease > LEASE_MAX))
        return cli_usage_error(self,
                               "invalid --lease \"%.64s\": expected a "
                               "duration from 2s to 1h",
                               f->lease);
    if (f->tick && (sked_dur_parse(f->tick, &sv->tick, &err) < 0 ||
                    sv->tick < TICK_MIN || sv->tick > TICK_MAX))
        return cli_usage_error(self,
                               "invalid --tick \"%.64s\": expected a "
                               "duration from 1s to 1h",
                               f->tick);
    if (f->mcp_idle && (sked_dur_parse(f->mcp_idle, &sv->mcp_idle, &err) < 0 ||
                        sv->mcp_idle < SKED_USEC_PER_SEC ||
                        sv->mcp_idle > 24 * 3600 * SKED_USEC_PER_SEC))
        return cli_usage_error(self,
                               "invalid --mcp-session-idle \"%.64s\": "
                               "expected a duration from 1s to 24h",
                               f->mcp_idle);
    if (f->log_format && log_format_parse(f->log_format, &format) < 0)
        return cli_usage_error(self,
                               "invalid --log-format \"%.64s\": expected "
                               "logfmt or json",
                               f->log_format);
    if (f->log_level && log_level_parse(f->log_level, &level) < 0)
        return cli_usage_error(self,
                               "invalid --log-level \"%.64s\": expected "
                               "debug, info, warn or error",
                               f->log_level);
    if (log_init(&sv->log, stderr, format, level) < 0)
        return cli_fail(SKED_ENOMEM, "cannot start the log");
    return CLI_CONTINUE;
}

static int server_cmd(const cli_cmd *self, int argc, char **argv)
{
    server_flags f = {0};
    const cli_opt opts[] = {
        {"db", 0, CLI_OPT_VALUE, &f.db},
        {"workflows", 0, CLI_OPT_VALUE, &f.workflows},
        {"tick", 0, CLI_OPT_VALUE, &f.tick},
        {"log-format", 0, CLI_OPT_VALUE, &f.log_format},
        {"log-level", 0, CLI_OPT_VALUE, &f.log_level},
        {"workers", 0, CLI_OPT_VALUE, &f.workers},
        {"lease", 0, CLI_OPT_VALUE, &f.lease},
        {"listen", 0, CLI_OPT_VALUE, &f.listen},
        {"token-file", 0, CLI_OPT_VALUE, &f.token_file},
        {"mcp-allow-origin", 0, CLI_OPT_LIST, &f.mcp_allow_origin},
        {"mcp-session-idle", 0, CLI_OPT_VALUE, &f.mcp_idle},
        {0},
    };
    server sv = {0};
    int rc;

    if ((rc = cli_parse_options(self, argc, argv, opts)) != CLI_CONTINUE)
        return rc;
    if ((rc = server_config(self, &f, &sv)) != CLI_CONTINUE) {
        free(sv.token);
        return rc;
    }
    rc = server_run(&sv);
    log_done(&sv.log);
    free(sv.token);
    return rc;
}

const cli_cmd cli_cmd_server = {
    .name = "server",
    .path = "sked server",
    .summary = "Run the scheduler, the workers and the HTTP API",
    .run = server_cmd,
    .help = "Usage: sked server [--db URL] [--workflows FILE] [--workers N]\n"
            "                   [--lease D] [--tick D]\n"
            "                   [--listen ADDR] [--token-file F]\n"
            "                   [--mcp-allow-origin ORIGIN]...\n"
            "                   [--mcp-session-idle D]\n"
            "                   [--log-format logfmt|json]\n"
            "                   [--log-level L]\n"
            "\n"
            "Run the scheduler on the database until SIGTERM or SIGINT: every\n"
            "active schedule fires on time, once, whatever the number of\n"
            "servers sharing the database. With --workflows, the schedules of\n"
            "FILE are synced at start (source \"code\") and again on SIGHUP;\n"
            "a broken file on SIGHUP is logged as FILE:LINE:COLUMN and the\n"
            "last good definitions stay. Its workflows run on N worker\n"
            "threads; runs of workflows no server has wait as pending.\n"
            "\n"
            "Options:\n"
            "  --db URL           sqlite:PATH or postgres://... (default\n"
            "                     $SKED_DB, else sqlite:sked.db)\n"
            "  --workflows FILE   the workflows file to load\n"
            "  --workers N        worker threads, 0 to 1024 (default 4;\n"
            "                     0: schedule only)\n"
            "  --lease D          how long a run stays claimed without a\n"
            "                     heartbeat before another server recovers\n"
            "                     it, 2s to 1h (default 30s)\n"
            "  --listen ADDR      serve the HTTP API, metrics and dashboard\n"
            "                     on HOST:PORT (default 127.0.0.1:8080;\n"
            "                     port 0: any free port; off: none)\n"
            "  --token-file F     require \"Authorization: Bearer TOKEN\",\n"
            "                     TOKEN the first line of F (default\n"
            "                     $SKED_TOKEN); needed to listen beyond\n"
            "                     loopback\n"
            "  --mcp-allow-origin ORIGIN\n"
            "                     let pages of ORIGIN (https://app.example)\n"
            "                     call /mcp, the MCP endpoint, besides\n"
            "                     loopback ones; repeatable (default: none)\n"
            "  --mcp-session-idle D\n"
            "                     end an MCP session unused (no request, no\n"
            "                     open stream) for D, 1s to 24h (default 30m)\n"
            "  --tick D           how often changes by others are reread,\n"
            "                     1s to 1h (default 1s)\n"
            "  --log-format F     logfmt (default) or json, on stderr\n"
            "  --log-level L      debug, info (default), warn or error\n"
            "  -h, --help         show this help\n",
};
