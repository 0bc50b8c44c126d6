/* SPDX-License-Identifier: MIT */
/* The engine: a store, a zone database and the scheduler, in one handle.
 *
 * sked_engine_open opens the store at a URL and loads the schedules;
 * sked_engine_start starts the scheduler thread, which keeps every active
 * schedule's next occurrence in a heap, sleeps until the earliest, and
 * fires it (SPEC 3.2): the runs and the cursor move in one transaction,
 * so any number of engines on one database fire each occurrence once.
 * Changes made through this engine apply at once; changes made by others
 * are reread every tick (and at once on PostgreSQL, by LISTEN/NOTIFY).
 *
 * This header is the one way into the engine for the rest of sked as for
 * embedders: the HTTP API, the CLI on a database and the server use
 * these functions and nothing of the engine's inside. Lists come back as
 * pages of structs the caller frees with one function.
 *
 * Every function here is thread-safe. libsked never logs: what happened
 * is reported as events, to subscribers and in the store. */
#ifndef SKED_ENGINE_H
#define SKED_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sked/calendar.h"
#include "sked/clock.h"
#include "sked/error.h"
#include "sked/run.h"
#include "sked/schedule.h"
#include "sked/time.h"
#include "sked/workflow.h"

typedef struct sked_engine sked_engine;

#define SKED_TICK_DEFAULT (SKED_USEC_PER_SEC)
#define SKED_BACKFILL_MAX 100000
/* The largest page of a list (schedules, runs, events). */
#define SKED_ENGINE_LIST_MAX 1000

typedef struct sked_engine_options {
    const char *db_url;             /* NULL: "sqlite:sked.db" */
    const char *tzdir;              /* NULL: $TZDIR, else the system's */
    sked_dur tick;                  /* 0: SKED_TICK_DEFAULT */
    const sked_clock *clock;        /* NULL: the real clock; borrowed */
    const char *node_id;            /* names this engine in runs and events;
                                       NULL: "hostname:pid" */
    const char *sqlite_synchronous; /* NULL: "full" */
    int workers;        /* worker threads sked_engine_start runs: 0 means
                           SKED_WORKERS_DEFAULT, a negative number none (an
                           engine that only schedules) */
    sked_dur lease;     /* a claimed run's lease (SPEC 4.2); 0: 30 s */
    const char *app;    /* the app this program's code schedules belong to
                           (SPEC 3.5 code sync: only its own are synced and
                           pruned), a name; NULL: SKED_APP_DEFAULT */
    bool client;        /* an engine that neither schedules nor runs anything (a
                           command on the database, as the CLI's): its schedules
                           are not loaded at open, so it opens at once on any
                           number of them; its changes are seen by the servers'
                           next reread; sked_engine_start and sked_engine_tick
                           refuse (SKED_EINVAL, field "client") */
    sked_dur retention; /* how long events are kept (SPEC 5) by an engine
                           with workers, which deletes older ones at
                           most once an hour; 0: SKED_RETENTION_DEFAULT;
                           negative: SKED_EINVAL, field "retention" */
} sked_engine_options;

/* The app of code schedules when none is named. */
#define SKED_APP_DEFAULT "default"

#define SKED_WORKERS_DEFAULT 4
/* Events are kept 7 days unless told (exec/workers.h defines it alike). */
#define SKED_RETENTION_DEFAULT (INT64_C(7) * 86400 * SKED_USEC_PER_SEC)
/* The most worker threads (exec/workers.h defines it alike: a compiler
 * refuses two different definitions where both are seen). */
#define SKED_WORKERS_MAX 1024

/* Open an engine on OPTS->db_url (OPTS may be NULL) and load its
 * schedules; no thread runs yet. OUT: *out, closed with
 * sked_engine_close. Returns 0 or the store's errors (SKED_EINVAL for a
 * malformed URL, SKED_EIO, SKED_ECONFLICT for a newer database). */
SKED_API int sked_engine_open(const sked_engine_options *opts,
                              sked_engine **out, sked_error *err);

/* Start the scheduler thread and the workers. First, unless
 * sked_engine_sync was called, sync the schedules declared by the
 * registered workflows (SPEC 3.5 code sync), and record the registered
 * workflows' versions and queues in the store. Returns 0, SKED_EINVAL
 * (already started), SKED_ENOMEM, or the store's errors. */
SKED_API int sked_engine_start(sked_engine *e, sked_error *err);

/* Stop the threads (waiting for a firing in progress to commit) and free
 * everything. NULL does nothing. */
SKED_API void sked_engine_close(sked_engine *e);

/* Run one scheduler pass now: reread changes, then decide and fire every
 * schedule that is due at the clock's time. For tests on a virtual clock
 * and for embedders that drive their own loop; needs no thread. */
SKED_API int sked_engine_tick(sked_engine *e, sked_error *err);

/* Return the earliest next occurrence the scheduler waits for, or
 * SKED_TIME_NONE when nothing is scheduled. */
SKED_API sked_time sked_engine_next_wakeup(sked_engine *e);

/* ---- who makes a change (the audit trail) ----------------------------- */

/* The longest actor (bytes). */
#define SKED_ACTOR_MAX 160

/* Set the calling thread's actor: who makes the changes it asks for next.
 * Every event those changes write records it under "actor" in its
 * payload, until the thread sets another (ACTOR is copied; NULL or ""
 * restores the default). The server sets the token's name for each
 * request, the CLI in direct mode "user:LOGIN", code sync "code:APP",
 * and the scheduler's, the workers' and the delivery threads
 * "scheduler"; a thread that never set one is "library". Returns 0, or
 * SKED_EINVAL (nothing changed) for an actor longer than SKED_ACTOR_MAX
 * or holding a byte that is not printable ASCII. */
SKED_API int sked_engine_actor(const char *actor);

/* The calling thread's actor (valid until it sets another). */
SKED_API const char *sked_engine_actor_current(void);

/* ---- schedules (validated first; nothing written on error) ---------- */

/* SPEC 3.5: write into BUF (SIZE bytes) the warning that no server has
 * registered WORKFLOW yet, or "" when one has or the store cannot say
 * (a warning, never a failure of the write it follows). */
SKED_API void sked_engine_workflow_warning(sked_engine *e, const char *workflow,
                                           char *buf, size_t size);

SKED_API int sked_engine_schedule_create(sked_engine *e, const sked_schedule *s,
                                         sked_error *err);
SKED_API int sked_engine_schedule_update(sked_engine *e, const sked_schedule *s,
                                         sked_error *err);
/* Idempotent: deleting a missing schedule returns 0. */
SKED_API int sked_engine_schedule_delete(sked_engine *e, const char *name,
                                         sked_error *err);
/* Read NAME into *out (the caller calls sked_schedule_done). */
SKED_API int sked_engine_schedule_get(sked_engine *e, const char *name,
                                      sked_schedule *out, sked_error *err);
SKED_API int sked_engine_schedule_pause(sked_engine *e, const char *name,
                                        sked_error *err);
/* Resume NAME: the next occurrence is computed from now, no catch-up. */
SKED_API int sked_engine_schedule_resume(sked_engine *e, const char *name,
                                         sked_error *err);

/* ---- calendars (sked/calendar.h, docs/calendars.md) --------------------
 * Writes check the calendar, then its includes against the calendars
 * stored (an unknown one is SKED_ENOTFOUND naming "include[i]", a cycle
 * SKED_ECONFLICT); nothing is written on an error. create refuses a name
 * that exists (SKED_ECONFLICT), update one that does not
 * (SKED_ENOTFOUND), put does either and says which in *created (may be
 * NULL). A calendar another includes cannot be deleted (SKED_ECONFLICT);
 * deleting a missing one returns 0 with *existed (may be NULL) false. */
SKED_API int sked_engine_calendar_create(sked_engine *e, const sked_calendar *c,
                                         sked_error *err);
SKED_API int sked_engine_calendar_update(sked_engine *e, const sked_calendar *c,
                                         sked_error *err);
SKED_API int sked_engine_calendar_put(sked_engine *e, const sked_calendar *c,
                                      bool *created, sked_error *err);
/* Read NAME into *out (sked_calendar_done). */
SKED_API int sked_engine_calendar_get(sked_engine *e, const char *name,
                                      sked_calendar *out, sked_error *err);
/* Every calendar by name: *out of *n, freed with sked_calendars_free. */
SKED_API int sked_engine_calendar_list(sked_engine *e, sked_calendar **out,
                                       size_t *n, sked_error *err);
SKED_API void sked_calendars_free(sked_calendar *v, size_t n);
SKED_API int sked_engine_calendar_delete(sked_engine *e, const char *name,
                                         bool *existed, sked_error *err);
/* Apply the N calendars of SET as the code calendars of APP (NULL: the
 * engine's app), all or nothing (sked apply, PUT /api/v1/calendars):
 * create the new ones, replace the changed ones, leave the equal ones
 * (counted unchanged) and, with PRUNE, delete APP's code calendars not in
 * SET. Includes are checked against the calendars as they will stand, so
 * the set may include its own in any order. Errors name
 * "calendars[i].field"; a name the API or another app has is
 * SKED_ECONFLICT; a calendar to prune that another still includes is
 * SKED_ECONFLICT. OUT (may be NULL): what changed. */
SKED_API int sked_engine_calendar_apply(sked_engine *e, const char *app,
                                        const sked_calendar *set, size_t n,
                                        bool prune, sked_apply_result *out,
                                        sked_error *err);

/* The days of a calendar in a period: FROM..TO, days since 1970-01-01
 * (at most SKED_CALENDAR_DAYS_MAX of them); with BUSINESS the business
 * days (its weekdays not in its set), else the days in its set. */
#define SKED_CALENDAR_DAYS_MAX 3660
typedef struct sked_calendar_days_query {
    int64_t from, to;
    bool business;
} sked_calendar_days_query;
typedef struct sked_calendar_day {
    int64_t day;   /* since 1970-01-01 */
    bool in_set;   /* one of the calendar's days (a holiday) */
    bool business; /* a business weekday not in the set */
} sked_calendar_day;
/* *out (free) of *n days, in order. */
SKED_API int sked_engine_calendar_days(sked_engine *e, const char *name,
                                       const sked_calendar_days_query *q,
                                       sked_calendar_day **out, size_t *n,
                                       sked_error *err);

/* Create one run of NAME now (SPEC 3.5: trigger kind manual,
 * scheduled_for null, works while paused). OUT_RUN_ID (may be NULL)
 * receives the run id, freed with sked_free. Returns 0, SKED_ENOTFOUND,
 * SKED_ECONFLICT (overlap skip and a run is active). */
SKED_API int sked_engine_trigger(sked_engine *e, const char *name,
                                 char **out_run_id, sked_error *err);

typedef struct sked_backfill_result {
    size_t created; /* runs created by this call */
    size_t skipped; /* occurrences whose run already existed */
} sked_backfill_result;

/* Called as backfill progresses: DONE of TOTAL occurrences handled. */
typedef void (*sked_progress_fn)(void *ctx, size_t done, size_t total);

/* Create the runs of every occurrence of NAME in the open interval
 * (START, END), with the ids of live firing (SPEC 3.5). At most
 * SKED_BACKFILL_MAX occurrences. PROGRESS may be NULL. Returns 0,
 * SKED_ENOTFOUND, SKED_EINVAL (reversed or empty range, field "start" or
 * "end"), SKED_ERANGE (over the cap). */
SKED_API int sked_engine_backfill(sked_engine *e, const char *name,
                                  sked_time start, sked_time end,
                                  sked_progress_fn progress, void *ctx,
                                  sked_backfill_result *out, sked_error *err);

/* Skip the occurrence AT of NAME ahead of time (sked schedule skip): the
 * scheduler decides it as missed with reason "skipped" and creates no run.
 * ACTOR says who ("api", "cli", "mcp" or the caller's; NULL: "api"; at
 * most SKED_SKIP_ACTOR_MAX bytes), REASON why (may be NULL; at most
 * SKED_SKIP_REASON_MAX bytes). Event schedule.occurrence_skipped
 * {"schedule", "occurrence", "actor", "reason"}. Idempotent: *changed
 * (may be NULL) is false when it was skipped already. Returns 0,
 * SKED_ENOTFOUND, SKED_EINVAL (field "at": not an occurrence of NAME's
 * time spec, the message naming the nearest ones before and after;
 * "actor", "reason": too long), SKED_ECONFLICT (field "at": already
 * decided, at or before the schedule's cursor). */
SKED_API int sked_engine_schedule_skip(sked_engine *e, const char *name,
                                       sked_time at, const char *actor,
                                       const char *reason, bool *changed,
                                       sked_error *err);

/* The longest body of a ping, kept as its run's output. */
#define SKED_PING_BODY_MAX 65536

/* Read "start", "success" or "fail" into *out; SKED_EINVAL otherwise. */
SKED_API int sked_ping_status_parse(const char *word, sked_ping_status *out);

/* A ping of the heartbeat schedule NAME (its field heartbeat set): the
 * job it watches, which runs elsewhere, STATUS start, success or fail.
 * The ping is for the run of the latest occurrence at or before now not
 * yet ended, else for the next occurrence when it is at most a minute
 * ahead (clocks differ): start marks it started, success completes it,
 * fail fails it (error_code "ping_failed"); BODY (BODY_LEN bytes, may be
 * NULL; UTF-8, at most SKED_PING_BODY_MAX) becomes its output. Without a
 * ping within the schedule's deadline the run fails with error_code
 * "deadline_missed" (event schedule.deadline_missed). *out_run_id (may be
 * NULL; sked_free): the run's id. Returns 0, SKED_ENOTFOUND, SKED_EINVAL
 * (not a heartbeat schedule, field "name"; a bad body, "body"),
 * SKED_ETOOBIG (body), SKED_ECONFLICT (no occurrence awaits a ping). */
SKED_API int sked_engine_schedule_ping(sked_engine *e, const char *name,
                                       sked_ping_status status,
                                       const char *body, size_t body_len,
                                       char **out_run_id, sked_error *err);

/* Undo sked_engine_schedule_skip: AT fires again as it would have. Event
 * schedule.occurrence_unskipped. *changed false when AT was not skipped.
 * The same errors. */
SKED_API int sked_engine_schedule_unskip(sked_engine *e, const char *name,
                                         sked_time at, const char *actor,
                                         bool *changed, sked_error *err);

/* The pending skips of NAME (after its cursor), by occurrence, into *out
 * (*n entries; free with sked_skips_free). SKED_ENOTFOUND. */
SKED_API int sked_engine_schedule_skips(sked_engine *e, const char *name,
                                        sked_skip **out, size_t *n,
                                        sked_error *err);

/* Run the occurrence AT of NAME now (sked schedule run --at): a backfill
 * of that one occurrence, with the id firing gives it, so it runs once
 * whoever creates it first. OUT_RUN_ID (may be NULL; sked_free) receives
 * the run id, *created (may be NULL) whether this call created it.
 * Returns 0, SKED_ENOTFOUND, SKED_EINVAL (field "at": not an occurrence,
 * as for sked_engine_schedule_skip, or not yet come). */
SKED_API int sked_engine_schedule_run_at(sked_engine *e, const char *name,
                                         sked_time at, char **out_run_id,
                                         bool *created, sked_error *err);

/* The most occurrences a backfill preview looks up one by one. */
#define SKED_BACKFILL_PREVIEW_MAX 1000

/* What a backfill of a range would do (sked_engine_backfill_preview). */
typedef struct sked_backfill_preview {
    size_t total;   /* occurrences in the range */
    size_t checked; /* the first ones looked up: at most
                       SKED_BACKFILL_PREVIEW_MAX */
    size_t create;  /* of those: runs the backfill would create */
    size_t skip;    /* of those: occurrences whose run exists (skipped) */
    sked_time *at;  /* the CHECKED occurrences, oldest first */
    bool *exists;   /* for each: its run exists */
} sked_backfill_preview;

/* Tell what sked_engine_backfill(E, NAME, START, END) would do, writing
 * nothing: the same checks and errors, then the first
 * SKED_BACKFILL_PREVIEW_MAX occurrences with whether each one's run
 * exists. *out is freed with sked_backfill_preview_done. */
SKED_API int sked_engine_backfill_preview(sked_engine *e, const char *name,
                                          sked_time start, sked_time end,
                                          sked_backfill_preview *out,
                                          sked_error *err);
SKED_API void sked_backfill_preview_done(sked_backfill_preview *p);

/* Apply a set of schedules declared by code or a workflows file (SPEC
 * 3.5 code sync) as the engine's app (the option "app"): create new
 * ones, update changed ones, delete the app's code schedules not in the
 * set. Schedules of source api, and other apps' code schedules, are left
 * alone; a name one of them has is SKED_ECONFLICT. Once called,
 * sked_engine_start no longer syncs the registered workflows' schedules (the
 * caller owns the set). */
SKED_API int sked_engine_sync(sked_engine *e, const sked_schedule *set,
                              size_t n, sked_error *err);

/* Return the engine's time now, by the clock of its options: what "now"
 * means to its schedules (a preview from now, a resume). */
SKED_API sked_time sked_engine_now(sked_engine *e);

/* Which schedules sked_engine_schedule_list returns (GET
 * /api/v1/schedules). Every pointer is borrowed; NULL or "" matches
 * any. */
typedef struct sked_schedule_query {
    const char *status;   /* "active", "paused", "done", "disabled" */
    const char *workflow; /* schedules of this workflow */
    const char *prefix;   /* names starting with this */
    const char *cursor;   /* names strictly after this: the previous
                             page's next_cursor */
    size_t limit;         /* 1..SKED_ENGINE_LIST_MAX; 0: 100 */
} sked_schedule_query;

/* A page of schedules, by name; free it with sked_schedule_page_done. */
typedef struct sked_schedule_page {
    sked_schedule *items; /* owned: n schedules */
    size_t n;
    const char *next_cursor; /* the last name when more follow, else
                                NULL; borrowed from items[n - 1] */
} sked_schedule_page;

/* List the schedules matching Q (NULL: the first 100) into *out.
 * Returns 0, SKED_EINVAL (field "status" or "limit"), SKED_ENOMEM,
 * SKED_EIO; *out is written on success only. */
SKED_API int sked_engine_schedule_list(sked_engine *e,
                                       const sked_schedule_query *q,
                                       sked_schedule_page *out,
                                       sked_error *err);
/* Free what a page holds and empty it. NULL does nothing. */
SKED_API void sked_schedule_page_done(sked_schedule_page *p);

/* Apply the N schedules of SET as the code schedules of APP (NULL: the
 * engine's app), all or nothing (SPEC 3.5, PUT /api/v1/schedules, sked
 * apply): create the new ones, update the changed ones and, with PRUNE,
 * delete APP's code schedules not in SET; the scheduler rereads at once.
 * Unlike sked_engine_sync, the engine's start still syncs its registered
 * workflows. OUT (may be NULL): what changed. Errors name the field as
 * "schedules[i].field"; a name given twice is SKED_EINVAL; a name that
 * another app or the API owns is SKED_ECONFLICT. */
SKED_API int sked_engine_schedule_apply(sked_engine *e, const char *app,
                                        const sked_schedule *set, size_t n,
                                        bool prune, sked_apply_result *out,
                                        sked_error *err);

/* Most occurrences one preview holds. */
#define SKED_PREVIEW_MAX 1000

/* One occurrence of a preview. */
typedef struct sked_preview_item {
    sked_time at;         /* the instant it fires (or, excluded, would) */
    sked_time occurrence; /* the occurrence it stands for: AT, unless
                             moved off an excluded day to another one */
    bool excluded;        /* on a day of its exclude calendars (or off
                             its only ones): it does not fire */
    bool skipped;         /* its occurrence is skipped (sked schedule
                             skip): it does not fire */
    sked_occ_mark mark;   /* how a DST change moved it */
    bool has_local;       /* false when the zone could not say (utoff 0) */
    int32_t utoff;        /* the zone's offset at AT, seconds east of UTC */
} sked_preview_item;

/* The next occurrences of a schedule (SPEC 3.5 preview); free with
 * sked_preview_done. */
typedef struct sked_preview {
    sked_preview_item *items; /* owned: n, in order */
    size_t n;
} sked_preview;

/* Compute into *out up to MAX (1..SKED_PREVIEW_MAX) occurrences of S
 * strictly after AFTER, in its zone TZ (NULL: UTC), by the rule the
 * scheduler fires by and within its bounds: a done schedule has none,
 * max_runs caps them at the runs it may still create, a paused one
 * lists those it would have. Pure: for a schedule read from anywhere.
 * Returns 0, SKED_EINVAL (field "n": MAX out of range), SKED_ENOMEM, or
 * the cron parser's error when the stored expression does not parse. */
SKED_API int sked_schedule_preview(const sked_schedule *s, const sked_tz *tz,
                                   sked_time after, size_t max,
                                   sked_preview *out, sked_error *err);

/* sked_schedule_preview of the schedule NAME, in its zone by the
 * engine's zone database (a zone that no longer loads: UTC, as the
 * schedule is disabled anyway), after AFTER (SKED_TIME_NONE: now), seen
 * through its calendars: an occurrence on an excluded day is listed
 * marked excluded, or where it moves to (its occurrence then differs).
 * sked_schedule_preview knows no calendars: it lists the time spec's.
 * Also SKED_ENOTFOUND, and SKED_EINTERNAL when its stored cron expression
 * no longer parses. */
SKED_API int sked_engine_schedule_preview(sked_engine *e, const char *name,
                                          sked_time after, size_t max,
                                          sked_preview *out, sked_error *err);

/* The next occurrences of the cron expression EXPR in the zone TIMEZONE
 * (NULL: UTC) by the engine's zone database, under DST, strictly after
 * AFTER (SKED_TIME_NONE: now), into *out: what "sked cron next"
 * prints, with the same marks. MAX is 0..SKED_PREVIEW_MAX (0 checks
 * the expression and the zone only); fewer when the expression fires
 * no more. Returns 0, SKED_EINVAL with err->field "expr" (err->msg the
 * parser's "field: why (at byte N)", err->pos its offset), "timezone"
 * (unknown zone) or "n", SKED_ENOMEM. */
SKED_API int sked_engine_cron_preview(sked_engine *e, const char *expr,
                                      const char *timezone, sked_dst dst,
                                      sked_time after, size_t max,
                                      sked_preview *out, sked_error *err);

/* Free what a preview holds and empty it. NULL does nothing. */
SKED_API void sked_preview_done(sked_preview *p);

/* Return "shifted", "first_pass", "second_pass", or NULL for a normal
 * occurrence. */
SKED_API const char *sked_occ_mark_name(sked_occ_mark m);

/* ---- simulate (SPEC 3.5): a period replayed through the real policy --- */

/* Most decisions one replay produces, and most down intervals. */
#define SKED_SIMULATE_RECORDS_MAX 1000000
#define SKED_SIMULATE_DOWN_MAX    1000

/* An interval [from, to) during which the replayed server is down. */
typedef struct sked_sim_span {
    sked_time from, to;
} sked_sim_span;

typedef struct sked_simulate_options {
    sked_time from, to;        /* the period (from, to]; from < to */
    const sked_sim_span *down; /* borrowed: ndown intervals, any order */
    size_t ndown;
    sked_dur tick;         /* the server's tick (its grace is derived) */
    sked_dur run_duration; /* how long each run lasts, >= 0 */
} sked_simulate_options;

/* One decided occurrence. */
typedef struct sked_sim_decision {
    sked_time occurrence;
    sked_time scheduled_for; /* when it fires: the occurrence, or the
                                business day it moved to off an excluded
                                day (dropped: the occurrence) */
    sked_time at;            /* when the decision was made */
    bool fire;               /* fired (a run), else dropped */
    sked_miss_reason why;    /* when dropped */
    bool catchup;            /* fired late, as catch-up */
    bool buffered;           /* fired, waiting for the active run */
    bool cancel_active;      /* fired, cancelling the active run */
} sked_sim_decision;

/* A replay's decisions; free with sked_simulation_done. */
typedef struct sked_simulation {
    sked_sim_decision *items; /* owned: n, oldest first */
    size_t n;
} sked_simulation;

/* Replay the period of O for the schedule S in its zone TZ (NULL: UTC),
 * as if it had decided everything up to o->from with no run active
 * (active, runs_created 0, whatever its stored state), into *out.
 * Decisions are made the way the server makes them: at each occurrence
 * while up, once at the end of each down interval with the backlog.
 * Jitter is not applied. Pure. Returns 0, SKED_EINVAL with err->field
 * "to" (not after from), "down[i]" (empty, reversed, outside the period
 * or overlapping another), "run_duration" or "tick" (negative), or
 * "cron" (the spec does not load); SKED_ETOOBIG (more than
 * SKED_SIMULATE_RECORDS_MAX decisions, field "to"), SKED_ENOMEM. */
SKED_API int sked_schedule_simulate(const sked_schedule *s, const sked_tz *tz,
                                    const sked_simulate_options *o,
                                    sked_simulation *out, sked_error *err);

/* sked_schedule_simulate of the schedule NAME in its zone. Also
 * SKED_ENOTFOUND, and the zone database's error (field "timezone") when
 * its zone no longer loads. */
SKED_API int sked_engine_schedule_simulate(sked_engine *e, const char *name,
                                           const sked_simulate_options *o,
                                           sked_simulation *out,
                                           sked_error *err);

/* Free what a replay holds and empty it. NULL does nothing. */
SKED_API void sked_simulation_done(sked_simulation *sim);

/* Return the SPEC name of R ("catchup_skip"); never NULL. */
SKED_API const char *sked_miss_reason_name(sked_miss_reason r);

/* Write into BUF (SIZE bytes; SKED_RUN_ID_MAX fits any) the id of the run
 * the occurrence AT of schedule NAME fires, "sched-{name}-{at}" (SPEC
 * 3.1). Returns its length, or SKED_ETOOBIG / SKED_ERANGE. */
SKED_API int sked_run_id_of(const char *name, sked_time at, char *buf,
                            size_t size);

/* ---- workflows and runs (SPEC 4) ---------------------------------------*/

/* Register W with E, which takes it (also on failure). Its version is
 * the given one or its hash. Register before sked_engine_start; a
 * workflow registered again replaces the earlier one (runs in flight
 * keep theirs). Returns 0, SKED_EINVAL, SKED_ENOMEM. */
SKED_API int sked_engine_register(sked_engine *e, sked_workflow *w,
                                  sked_error *err);

/* Start a run of WORKFLOW now (trigger "api") with INPUT_JSON (a JSON
 * object; NULL: {}) as its context. IDEMPOTENCY_KEY (may be NULL) makes
 * the run's id "api-{workflow}-key-{key}": starting the same workflow
 * again with the same key returns the same run and creates nothing.
 * Otherwise the id is "api-{workflow}-{now with microseconds}". OUT_RUN_ID (may
 * be NULL) receives the id (sked_free). Returns 0, SKED_EINVAL (field "input"
 * or "workflow"), SKED_EIO. */
SKED_API int sked_engine_run_start(sked_engine *e, const char *workflow,
                                   const char *input_json,
                                   const char *idempotency_key,
                                   char **out_run_id, sked_error *err);

/* sked_engine_run_start, also telling in *created (may be NULL) whether
 * this call created the run: false when IDEMPOTENCY_KEY named one that
 * existed (the API answers 200 rather than 201). */
SKED_API int sked_engine_run_start_ex(sked_engine *e, const char *workflow,
                                      const char *input_json,
                                      const char *idempotency_key,
                                      char **out_run_id, bool *created,
                                      sked_error *err);

/* Cancel run ID (SPEC 4.3): a pending run at once; a running or waiting
 * one has its step stopped and its compensations run, then ends
 * cancelled. Returns 0, SKED_ENOTFOUND, SKED_ECONFLICT (already
 * finished). */
SKED_API int sked_engine_run_cancel(sked_engine *e, const char *id,
                                    sked_error *err);

/* Run ID as JSON (with its steps' attempts) into *out_json (sked_free).
 * Returns 0, SKED_ENOTFOUND. */
SKED_API int sked_engine_run_get(sked_engine *e, const char *id,
                                 char **out_json, sked_error *err);

typedef struct sked_run_query {
    const char *status;   /* "pending", ... ; NULL: any */
    const char *schedule; /* NULL: any */
    const char *workflow; /* NULL: any */
    const char *cursor;   /* from the previous page; NULL: the newest */
    size_t limit;         /* 1..1000; 0: 100 */
} sked_run_query;

/* Runs matching Q (NULL: all), newest first, as a JSON object
 * {"runs":[...],"next_cursor":"..."|null} into *out_json (sked_free). */
SKED_API int sked_engine_run_list(sked_engine *e, const sked_run_query *q,
                                  char **out_json, sked_error *err);

/* Every workflow some engine on this database registered, at its latest
 * version, as {"workflows":[{"name","version","registered_at",
 * "definition"}]} into *out_json (sked_free). */
SKED_API int sked_engine_workflow_list(sked_engine *e, char **out_json,
                                       sked_error *err);

/* Every queue (SPEC 4.2) with its limits and depth, by name, as
 * {"queues":[{"name","concurrency","worker_concurrency","rate_limit",
 * "rate_period_secs","pending","running"}]} into *out_json (sked_free);
 * limits not set are null, "pending" counts pending and waiting runs. */
SKED_API int sked_engine_queue_list(sked_engine *e, char **out_json,
                                    sked_error *err);

/* Runs, workflows and queues as structs, in the pages of sked/run.h:
 * what the JSON functions above print, read once. */

/* Read run ID with its steps' attempts into *out, a page of one run
 * (items[0].steps not NULL). Returns 0, SKED_EINVAL (field "id"),
 * SKED_ENOTFOUND, SKED_ENOMEM, SKED_EIO; *out is written on success
 * only. */
SKED_API int sked_engine_run_read_one(sked_engine *e, const char *id,
                                      sked_run_page *out, sked_error *err);

/* Read the runs matching Q (NULL: the newest 100) into *out, without
 * their attempts. Returns 0, SKED_EINVAL (field "status", "limit" or
 * "cursor"), SKED_ENOMEM, SKED_EIO; *out is written on success only. */
SKED_API int sked_engine_run_read(sked_engine *e, const sked_run_query *q,
                                  sked_run_page *out, sked_error *err);

/* Every workflow some engine on this database registered, at its latest
 * version, by name, into *out. */
SKED_API int sked_engine_workflow_read(sked_engine *e, sked_workflow_page *out,
                                       sked_error *err);

/* Every queue with its limits and depth, by name, into *out. */
SKED_API int sked_engine_queue_read(sked_engine *e, sked_queue_page *out,
                                    sked_error *err);

/* Most bytes of the line that says why a workflows file was refused. */
#define SKED_WORKFLOWS_ERROR_MAX 1300

/* What sked_engine_load_workflows did. */
typedef struct sked_workflows_loaded {
    char app[SKED_NAME_MAX + 1]; /* the app the file names */
    size_t workflows, schedules; /* how many it declares */
    sked_apply_result applied;   /* what the sync of its schedules did */
    char error[SKED_WORKFLOWS_ERROR_MAX]; /* on failure, one line:
                                             "FILE:LINE:COLUMN: path:
                                             message", or "FILE: message" */
} sked_workflows_loaded;

/* Load the workflows file PATH (docs/workflows-file.md) into E, as the
 * server does at start and on SIGHUP: its workflows and queues replace
 * those E runs (runs in flight keep theirs), then its schedules are
 * synced as the code schedules of its app (sked_engine_sync). On any
 * error the file's definitions are not taken and out->error says where
 * and why. Returns 0, SKED_EINVAL (the file is refused), SKED_EIO (it
 * cannot be read), SKED_ECONFLICT (a schedule name another owns),
 * SKED_ENOMEM, or the store's errors. */
SKED_API int sked_engine_load_workflows(sked_engine *e, const char *path,
                                        sked_workflows_loaded *out,
                                        sked_error *err);

/* ---- health and metrics --------------------------------------------------*/

/* Return 0 when the store answers a query now, its schema is current
 * and the engine's own work on it (firing, claiming, renewing leases,
 * recording results) does not fail (GET /readyz). Else SKED_EBUSY (that
 * work fails: err->msg names the cause, what fails and since when) or the
 * probe's error (SKED_EBUSY, SKED_ESTALE, ...). err->msg never names the
 * database's file, host, port or name: a client may read it. */
SKED_API int sked_engine_ready(sked_engine *e, sked_error *err);

/* How many of E's worker threads execute a run now: the runs in flight
 * on this server (0 without workers). */
SKED_API int sked_engine_workers_busy(sked_engine *e);

/* The engine's work on the store that fails longest now. */
typedef struct sked_fault {
    const char *op;    /* what fails: "scan", "fire", "clock", "claim",
                          "renew", "route", "prune", "write"; static */
    int code;          /* its last error */
    sked_time since;   /* its first failure of this episode */
    uint64_t failures; /* failed tries of all work in this episode */
    uint64_t episode;  /* 1 for the first episode, then 2, ... */
    char msg[SKED_ERROR_MSG_MAX]; /* its last message: it may name the
                                     database's file or host, so it is for
                                     the server's log, never a client */
} sked_fault;

/* Tell whether the engine's work on the store fails now (what the server
 * logs, and why sked_engine_ready answers SKED_EBUSY); when it does and
 * OUT is not NULL, describe it into *out. */
SKED_API bool sked_engine_failing(sked_engine *e, sked_fault *out);

/* The database clock minus the engine's, as last measured (every minute,
 * PostgreSQL), into *out; false when never measured (SQLite). */
SKED_API bool sked_engine_clock_skew(sked_engine *e, sked_dur *out);

/* The engine's metrics (SPEC 5) in the Prometheus text exposition format
 * (version 0.0.4) into *out_text (sked_free): counters since the engine
 * opened, gauges read now (queue depths and schedules by status from the
 * store, busy workers from the pool). */
SKED_API int sked_engine_metrics(sked_engine *e, char **out_text,
                                 sked_error *err);

/* ---- events ------------------------------------------------------------*/

/* One event as subscribers see it; every pointer is borrowed for the
 * duration of the callback. */
typedef struct sked_event_view {
    int64_t id;          /* the store's id; 0 for events not stored */
    const char *type;    /* "schedule.occurrences_missed" */
    const char *subject; /* a schedule name or a run id */
    const char *payload; /* JSON object text */
    sked_time at;
} sked_event_view;

/* Which stored events a reader wants: those of one of TYPES (exact
 * names; none: every type), of SUBJECT (exact; NULL: every subject) and
 * caused by ACTOR (the payload's "actor", exact; NULL: anyone).
 * A type is 1..SKED_EVENT_TYPE_MAX bytes with no control character, a
 * subject 1..SKED_EVENT_SUBJECT_MAX bytes; a name no event has matches
 * nothing. */
#define SKED_EVENT_TYPES_MAX   16
#define SKED_EVENT_TYPE_MAX    64
#define SKED_EVENT_SUBJECT_MAX 384 /* a run id's most (SKED_RUN_ID_MAX) */

typedef struct sked_event_filter {
    const char *types[SKED_EVENT_TYPES_MAX]; /* borrowed: ntypes */
    size_t ntypes;
    const char *subject; /* borrowed; NULL: any */
    const char *actor;   /* borrowed; NULL: any (1..SKED_ACTOR_MAX bytes) */
} sked_event_filter;

/* A page of the event log: up to LIMIT (1..1000; 0: 100) events with an
 * id above AFTER_ID that FILTER matches, oldest first. */
typedef struct sked_event_query {
    int64_t after_id;
    size_t limit;
    sked_event_filter filter;
} sked_event_query;

/* Whether F (NULL: every event) matches EV. */
SKED_API bool sked_event_filter_matches(const sked_event_filter *f,
                                        const sked_event_view *ev);

/* Check F: SKED_EINVAL naming "type", "subject" or "actor" for the first value
 * out of the bounds above. */
SKED_API int sked_event_filter_check(const sked_event_filter *f,
                                     sked_error *err);

/* The page Q asks for as {"events":[...],"next_cursor":"ID"|null} into
 * *out_json (sked_free), filtered by the store: every page but the last
 * is full, and its cursor is the id of its last event. Returns 0,
 * SKED_EINVAL (field "limit", "after", "type", "subject" or "actor"),
 * SKED_ENOMEM, SKED_EIO. */
SKED_API int sked_engine_event_query(sked_engine *e, const sked_event_query *q,
                                     char **out_json, sked_error *err);

/* Up to LIMIT (1..1000; 0: 100) stored events with an id above
 * AFTER_ID, oldest first, as {"events":[{"id","type","subject",
 * "payload","at"}],"next_cursor":"ID"|null} into *out_json (sked_free).
 * Events written by every engine on the database are listed. */
SKED_API int sked_engine_event_list(sked_engine *e, int64_t after_id,
                                    size_t limit, char **out_json,
                                    sked_error *err);

/* A page of stored events, oldest first; free with sked_event_page_done.
 * The strings of its views are owned by the page. */
typedef struct sked_event_page {
    sked_event_view *items; /* owned: n */
    size_t n;
    void *own_; /* the page's storage; not for the caller */
} sked_event_page;

/* Read up to LIMIT (1..SKED_ENGINE_LIST_MAX) stored events with an id
 * above AFTER_ID, oldest first, into *out: what the event stream reads.
 * Returns 0, SKED_EINVAL (field "limit" or "after"), SKED_ENOMEM,
 * SKED_EIO; *out is written on success only. */
SKED_API int sked_engine_event_read(sked_engine *e, int64_t after_id,
                                    size_t limit, sked_event_page *out,
                                    sked_error *err);
/* Free what a page holds and empty it. NULL does nothing. */
SKED_API void sked_event_page_done(sked_event_page *p);

/* The id of the newest stored event into *out_id, 0 when none is
 * stored: the AFTER_ID of a reader that wants only the events to come.
 * Returns 0, SKED_EINVAL, SKED_EIO. */
SKED_API int sked_engine_event_last(sked_engine *e, int64_t *out_id,
                                    sked_error *err);

/* Tell whether the event ID may follow the event LAST_ID with no event
 * between them still to commit: ids are given in order, but in pages, so
 * the first id of the next page follows the last of one. Past any other
 * gap an event may still be committing (PostgreSQL), or was rolled back. */
SKED_API bool sked_event_follows(int64_t last_id, int64_t id);

/* ---- notifiers (docs/notifications.md) ---------------------------------
 * A notifier is a JSON object: {"name", one of "webhook", "command" or
 * "email" (an object of its settings), "events", "schedules",
 * "retry_for"}; answers add "kind", "source", "app", "created_at" and
 * "updated_at" (RFC 3339 instants). None holds a secret, only where the server
 * reads it (secret_file, secret_env). Each started engine delivers the events
 * its notifiers want from the outbox the store fills in the events' own
 * transactions: at least once, in event order per (notifier, schedule),
 * retried with backoff for the notifier's retry_for (default 24 h). */

/* Create or replace the notifier of the JSON object JSON (NAME, when not
 * NULL, is the URL's and must match a "name" it holds, or names it).
 * *created (may be NULL) tells whether it is new; *out_json (may be NULL)
 * is the notifier as stored (sked_free). SKED_EINVAL naming the field
 * ("webhook.url", "events[1]"): nothing is written. */
SKED_API int sked_engine_notifier_put(sked_engine *e, const char *name,
                                      const char *json, bool *created,
                                      char **out_json, sked_error *err);
/* The notifier NAME as a JSON object text (sked_free); SKED_ENOTFOUND. */
SKED_API int sked_engine_notifier_get(sked_engine *e, const char *name,
                                      char **out_json, sked_error *err);
/* Every notifier by name, as a JSON array text (sked_free). */
SKED_API int sked_engine_notifier_list(sked_engine *e, char **out_json,
                                       sked_error *err);
/* Delete NAME; its pending deliveries fail. SKED_ENOTFOUND. */
SKED_API int sked_engine_notifier_delete(sked_engine *e, const char *name,
                                         sked_error *err);
/* Apply the JSON array text SET of notifiers (the objects of put, no
 * state keys) as the code notifiers of APP (NULL: the engine's app), all
 * or nothing (sked apply, PUT /api/v1/notifiers), as a server's load of
 * the workflows file does: create the new ones, replace the changed
 * ones, leave the equal ones (counted unchanged); a notifier of a name
 * in SET made through the API becomes APP's; with PRUNE, delete APP's
 * code notifiers not in SET. Errors name the field: "notifiers[i].key"
 * for an object that cannot be read, "notifiers.NAME.key" for a bad
 * value; a name another app's file declares is SKED_ECONFLICT
 * ("notifiers.NAME"). Nothing is written then.
 * OUT (may be NULL): what changed. */
SKED_API int sked_engine_notifier_apply(sked_engine *e, const char *app,
                                        const char *set, bool prune,
                                        sked_apply_result *out,
                                        sked_error *err);
/* The notify log: the deliveries of NOTIFIER (NULL: all) with an id
 * below BEFORE (0: the newest), newest first, at most LIMIT (0: 100; at
 * most SKED_ENGINE_LIST_MAX), as a JSON array text (sked_free) of
 * {"id", "delivery" (the idempotency id), "event_id", "notifier",
 * "state" (pending, delivered, failed), "attempts", "next_attempt_at",
 * "last_error", "last_status", "created_at", "delivered_at", "event"}.
 * SKED_ENOTFOUND (field "name") when there is no notifier NOTIFIER. */
SKED_API int sked_engine_notify_log(sked_engine *e, const char *notifier,
                                    int64_t before, size_t limit,
                                    char **out_json, sked_error *err);

typedef void (*sked_event_fn)(void *ctx, const sked_event_view *ev);
typedef struct sked_subscription sked_subscription;

/* Call FN(CTX, ev) for every event this engine emits, from the thread
 * that emits it, after the event is committed. FN must not call back into
 * the engine. OUT: *out for sked_unsubscribe. */
SKED_API int sked_subscribe(sked_engine *e, sked_event_fn fn, void *ctx,
                            sked_subscription **out, sked_error *err);
SKED_API void sked_unsubscribe(sked_engine *e, sked_subscription *sub);

#endif
