/* SPDX-License-Identifier: MIT */
/* Where a command's operations go (SPEC 7): one table of operations,
 * target_ops, with two implementations: the database itself (direct
 * mode, direct.c: the engine, opened when first needed) and a server
 * (remote mode, remote_ops.c: its HTTP API, docs/api.md). Each command
 * is written once against this table — parse its options, build the
 * request, call t->ops->OP(t, ...), print — so that it cannot say one
 * thing in one mode and another in the other (a preview and a
 * simulation are computed by the command itself, with the library's
 * pure functions, from the schedule read through the target): schedules come
 * back as sked_schedule, runs, workflows and events as the API's JSON text, and
 * failures as the sked_error the engine filled, so that messages and exit codes
 * are the same.
 *
 * The target is chosen by --db URL or --server URL (given before or
 * after the command; both together are a usage error), else
 * $SKED_SERVER when set, else $SKED_DB, else sqlite:sked.db.
 *
 * Every operation returns 0 or a negative SKED_E... code with ERR
 * filled. A failure to open the database or to reach the server is
 * printed when it happens (the command's own report of it then prints
 * nothing). */
#ifndef SKED_CMD_TARGET_H
#define SKED_CMD_TARGET_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "sked/sked.h"

/* The --db and --server lines of every command's help. */
#define TARGET_HELP                                                            \
    "  --db URL       the database: sqlite:PATH or postgres://...\n"           \
    "                 (default $SKED_DB, else sqlite:sked.db)\n"               \
    "  --server URL   go through the server at URL instead (default\n"         \
    "                 $SKED_SERVER; token: $SKED_TOKEN); both are also\n"      \
    "                 accepted before the command\n"

typedef struct target target;

/* The most decisions a server's replay answers (its "limit"). */
#define SKED_SIMULATE_REMOTE_MAX 10000

/* What "sked apply" applies: the N schedules SET of a workflows file as
 * code schedules of APP (SPEC 3.5); with PRUNE, APP's code schedules not
 * in SET are deleted. Everything borrowed. */
typedef struct target_apply {
    const sked_schedule *set;
    size_t n;
    const char *app;
    bool prune;
} target_apply;

/* What "sked apply" applies of the file's calendars: the N calendars SET
 * as code calendars of APP; with PRUNE, APP's code calendars not in SET
 * are deleted. Everything borrowed. */
typedef struct target_calendar_apply {
    const sked_calendar *set;
    size_t n;
    const char *app;
    bool prune;
} target_calendar_apply;

/* What "sked apply" applies of the file's notifiers: SET, the JSON text
 * of an array of their objects, as code notifiers of APP; with PRUNE,
 * APP's code notifiers not in SET are deleted. Everything borrowed. */
typedef struct target_notifier_apply {
    const char *set;
    const char *app;
    bool prune;
} target_notifier_apply;

/* One operation on notifiers (docs/notifications.md), whose objects
 * travel as the API's JSON text: list, get NAME, put NAME (JSON; *created
 * may be NULL), delete NAME, or the log (of NAME, NULL: all; BEFORE and
 * LIMIT as GET /api/v1/deliveries). Everything borrowed. */
typedef enum target_notify_op {
    TARGET_NOTIFY_LIST,
    TARGET_NOTIFY_GET,
    TARGET_NOTIFY_PUT,
    TARGET_NOTIFY_DELETE,
    TARGET_NOTIFY_LOG,
} target_notify_op;

typedef struct target_notify {
    target_notify_op op;
    const char *name, *json;
    int64_t before;
    size_t limit;
    bool *created;
} target_notify;

/* Called with each event (its JSON object text) as it happens. */
typedef void (*target_event_fn)(void *ctx, const char *event_json);

typedef struct target_ops {
    /* ---- schedules ---------------------------------------------------- */
    int (*schedule_get)(target *t, const char *name, sked_schedule *out,
                        sked_error *err);
    int (*schedule_create)(target *t, const sked_schedule *s, sked_error *err);
    /* Replace the definition of the schedule S->name by S's. */
    int (*schedule_update)(target *t, const sked_schedule *s, sked_error *err);
    /* One page: OUT: *out (sked_schedule_page_done). */
    int (*schedule_list)(target *t, const sked_schedule_query *q,
                         sked_schedule_page *out, sked_error *err);
    int (*schedule_pause)(target *t, const char *name, sked_error *err);
    int (*schedule_resume)(target *t, const char *name, sked_error *err);
    /* Idempotent: deleting a missing schedule returns 0. */
    int (*schedule_delete)(target *t, const char *name, sked_error *err);
    /* OUT: *run_id (free). */
    int (*schedule_trigger)(target *t, const char *name, char **run_id,
                            sked_error *err);
    /* The runs of the occurrences in (START, END); PROGRESS (may be
     * NULL) is called as they are created. */
    int (*schedule_backfill)(target *t, const char *name, sked_time start,
                             sked_time end, sked_progress_fn progress,
                             void *ctx, sked_backfill_result *res,
                             sked_error *err);
    /* Skip (SKIP) or unskip the occurrence AT of NAME as ACTOR, with
     * REASON (may be NULL; skip only); *changed (may be NULL) whether it
     * changed. */
    int (*schedule_skip)(target *t, const char *name, sked_time at, bool skip,
                         const char *actor, const char *reason, bool *changed,
                         sked_error *err);
    /* The pending skips of NAME (*out: sked_skips_free). */
    int (*schedule_skips)(target *t, const char *name, sked_skip **out,
                          size_t *n, sked_error *err);
    /* Ping the heartbeat schedule NAME with STATUS, BODY (may be NULL)
     * the run's output; *run_id (owned) the run's id. */
    int (*schedule_ping)(target *t, const char *name, sked_ping_status status,
                         const char *body, char **run_id, sked_error *err);
    /* Run the past occurrence AT of NAME now; *run_id (owned) its id,
     * *created (may be NULL) whether this created it. */
    int (*schedule_run_at)(target *t, const char *name, sked_time at,
                           char **run_id, bool *created, sked_error *err);
    int (*schedule_apply)(target *t, const target_apply *a,
                          sked_apply_result *res, sked_error *err);
    /* The next MAX slots of NAME after AFTER, seen through its calendars
     * (sked_engine_schedule_preview); OUT: *out (sked_preview_done). */
    int (*schedule_preview)(target *t, const char *name, sked_time after,
                            size_t max, sked_preview *out, sked_error *err);
    /* Replay NAME as its server does, calendars and all
     * (sked_engine_schedule_simulate); OUT: *out (sked_simulation_done).
     * A server answers at most SKED_SIMULATE_REMOTE_MAX decisions. */
    int (*schedule_simulate)(target *t, const char *name,
                             const sked_simulate_options *o,
                             sked_simulation *out, sked_error *err);

    /* ---- runs and workflows: the pages of sked/run.h into *out (freed
     * with sked_run_page_done, sked_workflow_page_done) */
    int (*run_list)(target *t, const sked_run_query *q, sked_run_page *out,
                    sked_error *err);
    /* Run ID with its attempts: a page of one run. */
    int (*run_get)(target *t, const char *id, sked_run_page *out,
                   sked_error *err);
    /* Cancel run ID, or start a run of WORKFLOW (KEY: its idempotency
     * key, may be NULL); OUT: *out, the run as the API answers it. */
    int (*run_cancel)(target *t, const char *id, sked_run_page *out,
                      sked_error *err);
    int (*run_start)(target *t, const char *workflow, const char *input,
                     const char *key, sked_run_page *out, sked_error *err);
    int (*workflow_list)(target *t, sked_workflow_page *out, sked_error *err);
    /* ---- events: the API's JSON text into *out (free); those ACTOR
     * caused (NULL: anyone's) */
    int (*event_list)(target *t, int64_t after, size_t limit, const char *actor,
                      char **out, sked_error *err);
    /* Call FN with each event stored after AFTER (-1: from the next new
     * one) that ACTOR caused (NULL: any) as it happens, until *STOP. */
    int (*event_follow)(target *t, int64_t after, const char *actor,
                        target_event_fn fn, void *ctx, volatile const int *stop,
                        sked_error *err);

    /* ---- calendars: create (SKED_ECONFLICT when the name exists), put
     * (create or replace; *created may be NULL), get, list (*out of *n,
     * sked_calendars_free), delete (idempotent), the days of one, and
     * the apply of a set (all or nothing) */
    int (*calendar_create)(target *t, const sked_calendar *c, sked_error *err);
    int (*calendar_put)(target *t, const sked_calendar *c, bool *created,
                        sked_error *err);
    int (*calendar_get)(target *t, const char *name, sked_calendar *out,
                        sked_error *err);
    int (*calendar_list)(target *t, sked_calendar **out, size_t *n,
                         sked_error *err);
    int (*calendar_delete)(target *t, const char *name, sked_error *err);
    int (*calendar_days)(target *t, const char *name,
                         const sked_calendar_days_query *q,
                         sked_calendar_day **out, size_t *n, sked_error *err);
    int (*calendar_apply)(target *t, const target_calendar_apply *a,
                          sked_apply_result *res, sked_error *err);

    /* ---- notifiers: Q's operation; *out (may be NULL for delete) the
     * answer's JSON text (free) */
    int (*notify)(target *t, const target_notify *q, char **out,
                  sked_error *err);
    int (*notifier_apply)(target *t, const target_notifier_apply *a,
                          sked_apply_result *res, sked_error *err);

    /* Close T and free it. */
    void (*done)(target *t);
} target_ops;

/* Every operation of target_ops, for the implementations' tables: each
 * names its functions as the members, and fills the table with
 * TARGET_OPS(TARGET_OP), so that one it lacks does not compile. */
#define TARGET_OPS(X)                                                          \
    X(schedule_get)                                                            \
    X(schedule_create)                                                         \
    X(schedule_update)                                                         \
    X(schedule_list)                                                           \
    X(schedule_pause)                                                          \
    X(schedule_resume)                                                         \
    X(schedule_delete)                                                         \
    X(schedule_trigger)                                                        \
    X(schedule_backfill)                                                       \
    X(schedule_skip)                                                           \
    X(schedule_skips)                                                          \
    X(schedule_ping)                                                           \
    X(schedule_run_at)                                                         \
    X(schedule_apply)                                                          \
    X(schedule_preview)                                                        \
    X(schedule_simulate)                                                       \
    X(run_list)                                                                \
    X(run_get)                                                                 \
    X(run_cancel)                                                              \
    X(run_start)                                                               \
    X(workflow_list)                                                           \
    X(event_list)                                                              \
    X(event_follow)                                                            \
    X(calendar_create)                                                         \
    X(calendar_put)                                                            \
    X(calendar_get)                                                            \
    X(calendar_list)                                                           \
    X(calendar_delete)                                                         \
    X(calendar_days)                                                           \
    X(calendar_apply)                                                          \
    X(notify)                                                                  \
    X(notifier_apply)                                                          \
    X(done)
#define TARGET_OP(name) .name = name,

/* The part every implementation starts with. */
struct target {
    const target_ops *ops;
    sked_tzdb *tzdb; /* borrowed; may be NULL */
};

/* Remember the --db and --server given before the command (main.c). */
void target_set_global(const char *db, const char *server);

/* Choose the target of SELF, as target_open does, without opening it:
 * *server the server's URL (remote mode), else NULL and *db the --db
 * given (NULL: $SKED_DB or the default, direct_db_url). Returns 0, or
 * the exit code of a usage error (printed). */
int target_choose(const cli_cmd *self, const char *db, const char *server,
                  const char **out_db, const char **out_server);

/* Choose and open the target for SELF from its own --db DB and --server
 * SERVER (NULL when not given) and the global ones; TZDB (borrowed; may
 * be NULL) validates what direct mode writes and finds the zones of the
 * occurrences remote mode computes. OUT: *out. Returns 0, or the exit
 * code (2 for --db with --server; the failure printed). */
int target_open(const cli_cmd *self, const char *db, const char *server,
                sked_tzdb *tzdb, target **out);

/* T may be NULL. */
void target_close(target *t);

/* S's zone in DB, or UTC when it has none or it no longer loads. */
const sked_tz *schedule_zone_of(sked_tzdb *db, const sked_schedule *s);

/* The two implementations (direct.c, remote_ops.c); DB or URL borrowed
 * for T's life. Return 0 or the exit code (printed). */
int direct_target_open(const char *db, sked_tzdb *tzdb, target **out);
int remote_target_open(const char *url, sked_tzdb *tzdb, target **out);

#endif
