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
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "cli.h"
#include "direct.h"
#include "engine/workflow_file.h"
#include "http/http.h"
#include "log.h"
#include "sd_notify.h"
#include "server_config.h"
#include "server_events.h"
#include "server_health.h"

/* SPEC 3.2: a database clock more than a second off is a warning. The
 * engine measures it every minute; looking every few seconds is enough. */
#define SKEW_WARN (SKED_USEC_PER_SEC)
/* How often the main thread looks at the skew and the database's
 * health: a failing store is logged within a second. */
#define POLL_SECONDS 1

typedef struct server {
    const cli_cmd *self;
    const server_flags *flags; /* the command line's, for rereading */
    server_settings set;
    sked_http *http; /* owned; from start */
    logger log;
    sked_tzdb *tzdb; /* opened first: a missing zone database is told as such */
    sked_engine *engine;
    sked_subscription *sub;
    bool skew_warned; /* the last skew seen was over SKEW_WARN */
    health_log health;
    int64_t open_files;    /* the soft RLIMIT_NOFILE served with */
    sd_notifier sd;        /* the service manager, when one listens */
    size_t file_schedules; /* declared by the workflows file last loaded */
    int busy_told;         /* workers busy in the last STATUS=; -1: none */
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
    rc = sked_engine_load_workflows(sv->engine, sv->set.workflows, &wl, &err);
    if (rc < 0) {
        log_write(&sv->log, LOG_ERROR, "workflows file refused",
                  (log_kv[]){LOG_STR("error", wl.error), LOG_STR("on", why)},
                  2);
        return rc;
    }
    log_write(&sv->log, LOG_INFO, "workflows file loaded",
              (log_kv[]){LOG_STR("file", sv->set.workflows),
                         LOG_STR("app", wl.app),
                         LOG_INT("workflows", (int64_t) wl.workflows),
                         LOG_INT("schedules", (int64_t) wl.schedules),
                         LOG_STR("on", why)},
              5);
    sv->file_schedules = wl.schedules;
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
    sked_http_options o = {.listen = sv->set.listen,
                           .tokens = sv->set.tokens,
                           .n_tokens = sv->set.n_tokens,
                           .mcp_allow_origin =
                               (const char *const *) sv->set.mcp_origins,
                           .n_mcp_allow_origin = sv->set.n_mcp_origins,
                           .mcp_idle = sv->set.mcp_idle,
                           .access = log_access,
                           .access_ctx = &sv->log};
    char url[300];
    sked_error err;
    int rc = sked__http_start(sv->engine, &o, &sv->http, &err);
    const char *colon = strrchr(sv->set.listen, ':');
    int host_len = colon ? (int) (colon - sv->set.listen) : 0;

    if (rc < 0)
        return start_fail(sv, "cannot start the HTTP server", &err, rc);
    /* ":8080" listens everywhere; show the loopback URL that reaches it. */
    snprintf(url, sizeof url, "http://%.*s:%u", host_len ? host_len : 9,
             host_len ? sv->set.listen : "127.0.0.1",
             sked__http_port(sv->http));
    log_write(&sv->log, LOG_INFO, "http listening",
              (log_kv[]){LOG_STR("url", url),
                         LOG_STR("auth", sv->set.n_tokens ? "token" : "none"),
                         LOG_INT("tokens", (int64_t) sv->set.n_tokens)},
              3);
    return 0;
}

/* Open the zone database and the engine, subscribe the log, sync the
 * workflows file. Returns 0 or the exit code (the error logged). */
static int server_open(server *sv)
{
    sked_engine_options opts = {.db_url = sv->set.db_url,
                                .tick = sv->set.tick,
                                .workers =
                                    sv->set.workers > 0 ? sv->set.workers : -1,
                                .lease = sv->set.lease,
                                .retention = sv->set.retention};
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
    if (sv->set.workflows && (rc = load_workflows(sv, "start")) < 0)
        return sked_error_exit_code(rc);
    /* The API before the scheduler: a port in use stops the server before
     * anything fires. */
    if (sv->set.listen && (rc = http_open(sv)) != 0)
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

static bool same_text(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static bool same_tokens(const server_settings *a, const server_settings *b)
{
    return a->n_tokens == b->n_tokens &&
           (a->n_tokens == 0 ||
            memcmp(a->tokens, b->tokens, a->n_tokens * sizeof *a->tokens) == 0);
}

/* Serve with NEXT's tokens from now on: a token revoked in the file is
 * refused at the next request. */
static void apply_tokens(server *sv, server_settings *next)
{
    sked_http_token *t;
    int rc = sv->http
                 ? sked__http_set_tokens(sv->http, next->tokens, next->n_tokens)
                 : 0;

    if (rc < 0) {
        log_write(
            &sv->log, LOG_ERROR, "tokens refused",
            (log_kv[]){LOG_STR("error", rc == SKED_EINVAL
                                            ? "no token left, and the API is "
                                              "reachable from other machines"
                                            : sked_strerror(rc))},
            1);
        return;
    }
    t = sv->set.tokens;
    sv->set.tokens = next->tokens;
    next->tokens = t;
    size_t n = sv->set.n_tokens;
    sv->set.n_tokens = next->n_tokens;
    next->n_tokens = n;
    log_write(&sv->log, LOG_INFO, "tokens changed",
              (log_kv[]){LOG_INT("tokens", (int64_t) sv->set.n_tokens)}, 1);
}

/* Take from NEXT what can change while serving (the log level, the
 * workflows file) and log what differs but waits for a restart. */
static void apply_settings(server *sv, server_settings *next)
{
    const server_settings *cur = &sv->set;
    bool origins = cur->n_mcp_origins == next->n_mcp_origins;
    char later[256] = "";

    for (size_t i = 0; origins && i < cur->n_mcp_origins; i++)
        origins = same_text(cur->mcp_origins[i], next->mcp_origins[i]);
    const struct {
        const char *key;
        bool same;
    } fixed[] = {
        {"database", same_text(cur->db_url, next->db_url)},
        {"listen", same_text(cur->listen, next->listen)},
        {"workers", cur->workers == next->workers},
        {"lease", cur->lease == next->lease},
        {"retention", cur->retention == next->retention},
        {"tick", cur->tick == next->tick},
        {"mcp_allow_origin", origins},
        {"mcp_session_idle", cur->mcp_idle == next->mcp_idle},
        {"log_format", cur->format == next->format},
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (!fixed[i].same)
            snprintf(later + strlen(later), sizeof later - strlen(later),
                     "%s%s", later[0] ? "," : "", fixed[i].key);
    if (later[0])
        log_write(&sv->log, LOG_WARN,
                  "configuration changes wait for a restart",
                  (log_kv[]){LOG_STR("keys", later)}, 1);
    if (next->level != cur->level) {
        /* Said at the more verbose of the two levels, so that it shows. */
        bool louder = next->level < cur->level;

        if (louder)
            log_set_level(&sv->log, next->level);
        log_write(&sv->log, LOG_INFO, "log level changed",
                  (log_kv[]){LOG_STR("level", log_level_name(next->level))}, 1);
        if (!louder)
            log_set_level(&sv->log, next->level);
        sv->set.level = next->level;
    }
    if (!same_tokens(cur, next))
        apply_tokens(sv, next);
    if (!same_text(cur->workflows, next->workflows)) {
        free(sv->set.workflows);
        sv->set.workflows = next->workflows;
        next->workflows = NULL;
    }
}

/* SIGHUP: reread the configuration file, when the server has one (a
 * refused file keeps the settings served with, the error logged), then
 * the workflows file. */
static void reload(server *sv)
{
    server_settings next;
    char msg[800];

    if (sv->set.config) {
        if (server_settings_read(sv->self, sv->flags, &next, msg, sizeof msg) !=
            0) {
            log_write(
                &sv->log, LOG_ERROR, "configuration refused",
                (log_kv[]){LOG_STR("error", msg), LOG_STR("on", "SIGHUP")}, 2);
        } else {
            apply_settings(sv, &next);
            server_settings_done(&next);
        }
    }
    if (!sv->set.workflows) {
        log_write(&sv->log, LOG_INFO, "SIGHUP: no workflows file", NULL, 0);
        return;
    }
    (void) load_workflows(sv, "SIGHUP");
}

/* CLOCK_MONOTONIC in µs, as RELOADING=1 wants it beside. */
static long long monotonic_usec(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0;
    return (long long) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Tell the service manager what the server does (STATUS=), when it
 * changed since last told or FORCE. */
static void tell_status(server *sv, bool force)
{
    int busy;

    if (!sdn_enabled(&sv->sd))
        return;
    busy = sked_engine_workers_busy(sv->engine);
    if (!force && busy == sv->busy_told)
        return;
    sv->busy_told = busy;
    sdn_send(&sv->sd,
             "STATUS=serving: %d runs in flight on %d workers, %zu schedules "
             "from the workflows file",
             busy, sv->set.workers, sv->file_schedules);
}

/* Take signals until one says stop, looking at the clock skew and the
 * database's health between them. Returns the signal that stopped. */
static int serve(server *sv, const sigset_t *set)
{
    for (;;) {
        sked_mono now = sked__clock_mono(NULL);
        sked_dur wait =
            sdn_wait(&sv->sd, now, POLL_SECONDS * SKED_USEC_PER_SEC);
        struct timespec poll = {.tv_sec = (time_t) (wait / SKED_USEC_PER_SEC),
                                .tv_nsec =
                                    (long) (wait % SKED_USEC_PER_SEC) * 1000};
        int sig = sigtimedwait(set, NULL, &poll);

        sdn_watchdog(&sv->sd, sked__clock_mono(NULL));
        if (sig < 0) {
            if (errno == EAGAIN) {
                check_skew(sv);
                health_check(&sv->health, sv->engine, &sv->log);
                tell_status(sv, false);
            }
            continue;
        }
        if (sig != SIGHUP)
            return sig;
        sdn_send(&sv->sd, "RELOADING=1\nMONOTONIC_USEC=%lld\nSTATUS=reloading",
                 (long long) monotonic_usec());
        reload(sv);
        sdn_send(&sv->sd, "READY=1");
        tell_status(sv, true);
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
    sdn_open(&sv->sd);
    sv->busy_told = -1;
    raise_open_files(sv);
    redact_url(sv->set.db_url, url, sizeof url);
    if (sked_dur_format(sv->set.tick, tick, sizeof tick) < 0)
        snprintf(tick, sizeof tick, "?");
    if ((rc = server_open(sv)) != 0) {
        sdn_send(&sv->sd, "STATUS=could not start: see the log");
        server_close(sv);
        sdn_close(&sv->sd);
        return rc;
    }
    log_write(&sv->log, LOG_INFO, "server started",
              (log_kv[]){LOG_STR("db", url), LOG_STR("tick", tick),
                         LOG_INT("pid", (int64_t) getpid()),
                         LOG_INT("open_files", sv->open_files),
                         LOG_STR("version", SKED_VERSION)},
              5);
    /* Ready: the store is open, the listener up, the scheduler going. */
    sdn_send(&sv->sd, "READY=1\nMAINPID=%ld", (long) getpid());
    tell_status(sv, true);
    sig = serve(sv, &set);
    sdn_send(&sv->sd, "STOPPING=1\nSTATUS=stopping");
    log_write(
        &sv->log, LOG_INFO, "stopping",
        (log_kv[]){LOG_STR("signal", sig == SIGINT ? "SIGINT" : "SIGTERM")}, 1);
    server_close(sv);
    log_write(&sv->log, LOG_INFO, "server stopped", NULL, 0);
    sdn_close(&sv->sd);
    return 0;
}

/* --check-config: the settings are good (read already); check the
 * workflows file too, and say what was checked. Returns the exit code. */
static int check_config(const server_settings *set)
{
    sked_tzdb *tzdb = NULL;
    sked_wf_file wf = {0};
    sked_wf_error e;
    char line[600];
    int rc;

    if (set->workflows) {
        if ((rc = direct_tzdb_open(&tzdb)) != 0)
            return rc;
        rc = sked__workflow_file_load(set->workflows, tzdb, &wf, &e);
        sked__workflow_file_done(&wf);
        sked_tzdb_close(tzdb);
        if (rc < 0) {
            sked__workflow_file_error_format(&e, set->workflows, line,
                                             sizeof line);
            return cli_fail(rc, "%s", line);
        }
    }
    printf("configuration ok: %s%s%s\n",
           set->config ? set->config : "(no file: flags and defaults)",
           set->workflows ? ", workflows " : "",
           set->workflows ? set->workflows : "");
    return cli_flush();
}

static int server_cmd(const cli_cmd *self, int argc, char **argv)
{
    server_flags f = {0};
    cli_opt opts[SERVER_CLI_OPTS];
    server sv = {.self = self, .flags = &f};
    char msg[800];
    int rc;

    server_cli_opts(&f, opts);
    if ((rc = cli_parse_options(self, argc, argv, opts)) != CLI_CONTINUE)
        return rc;
    if ((rc = server_settings_read(self, &f, &sv.set, msg, sizeof msg)) != 0) {
        fprintf(stderr, "sked: %s\n", msg);
        return rc;
    }
    if (f.check_config) {
        rc = check_config(&sv.set);
    } else if (log_init(&sv.log, stderr, sv.set.format, sv.set.level) < 0) {
        rc = cli_fail(SKED_ENOMEM, "cannot start the log");
    } else {
        rc = server_run(&sv);
        log_done(&sv.log);
    }
    server_settings_done(&sv.set);
    return rc;
}

const cli_cmd cli_cmd_server = {
    .name = "server",
    .path = "sked server",
    .summary = "Run the scheduler, the workers and the HTTP API",
    .run = server_cmd,
    .help = "Usage: sked server [--db URL] [--workflows FILE] [--workers N]\n"
            "                   [--lease D] [--retention D] [--tick D]\n"
            "                   [--listen ADDR] [--token-file F]\n"
            "                   [--mcp-allow-origin ORIGIN]...\n"
            "                   [--mcp-session-idle D]\n"
            "                   [--log-format logfmt|json]\n"
            "                   [--log-level L]\n"
            "                   [--config FILE] [--check-config]\n"
            "\n"
            "Run the scheduler on the database until SIGTERM or SIGINT: every\n"
            "active schedule fires on time, once, whatever the number of\n"
            "servers sharing the database. With --workflows, the schedules of\n"
            "FILE are synced at start (source \"code\") and again on SIGHUP;\n"
            "a broken file on SIGHUP is logged as FILE:LINE:COLUMN and the\n"
            "last good definitions stay. Its workflows run on N worker\n"
            "threads; runs of workflows no server has wait as pending.\n"
            "\n"
            "Every option can also be set in a configuration file (YAML, keys\n"
            "named after the options: database for --db, token_file for\n"
            "--token-file, ...): --config FILE, else " SKED_CONFIG_DEFAULT "\n"
            "when it exists. Options given here win over the file, the file\n"
            "over $SKED_DB and $SKED_TOKEN. SIGHUP rereads the file too: the\n"
            "log level and the workflows file change at once, the rest at the\n"
            "next start.\n"
            "\n"
            "Options:\n"
            "  --config FILE      the configuration file (YAML)\n"
            "  --check-config     check the configuration and the workflows\n"
            "                     file, then exit: 0 when both are good\n"
            "  --db URL           sqlite:PATH or postgres://... (default\n"
            "                     $SKED_DB, else sqlite:sked.db)\n"
            "  --workflows FILE   the workflows file to load\n"
            "  --workers N        worker threads, 0 to 1024 (default 4;\n"
            "                     0: schedule only)\n"
            "  --lease D          how long a run stays claimed without a\n"
            "                     heartbeat before another server recovers\n"
            "                     it, 2s to 1h (default 30s)\n"
            "  --retention D      how long events are kept, 1h to 3650d\n"
            "                     (default 7d)\n"
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
