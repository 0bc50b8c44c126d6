/* SPDX-License-Identifier: MIT */
/* The durable store: one interface over SQLite and PostgreSQL.
 *
 * Everything sked keeps goes through these functions: schedules, runs,
 * steps, events, queues, workflow versions (schema: src/store/schema/).
 * A store is opened from a URL — "sqlite:PATH" (the default is
 * "sqlite:sked.db") or "postgres://..." / "postgresql://..." — and is
 * migrated at open, under a lock, to the binary's schema version; a
 * database newer than the binary is refused.
 *
 * Shared logic lives here (store.c), once: validation before any write,
 * id formats, events written in the same transaction as the change they
 * report, and the retry of transactions that failed for a retryable
 * reason (SQLite busy, PostgreSQL serialization failure or deadlock, a
 * dropped connection). The back-ends (sqlite.c, pg.c) are method tables
 * (struct sked__store_ops, store_ops.h) that only speak SQL.
 *
 * Thread rules: a sked_store may be used by several threads at once; each
 * thread gets its own connection (SQLite) or borrows one from the pool
 * (PostgreSQL). */
#ifndef SKED_STORE_STORE_H
#define SKED_STORE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"
#include "model/run.h"
#include "model/schedule_occ.h"
#include "sked/calendar.h"
#include "sked/schedule.h"

typedef struct sked_store sked_store;

#define SKED_STORE_DEFAULT_URL "sqlite:sked.db"
/* Most rows one insert batch or one list call handles. */
#define SKED_STORE_BATCH_MAX 1000
#define SKED_STORE_LIST_MAX  1000

typedef struct sked_store_options {
    /* SQLite: "full" (the default, SPEC 11) or "normal". */
    const char *sqlite_synchronous;
    /* PostgreSQL: connections in the pool (default 4). */
    int pg_pool_size;
    /* A TZ database for validation; NULL opens the system's. Borrowed. */
    sked_tzdb *tzdb;
    /* The clock for created_at, updated_at and event times; NULL: the
     * real one. Borrowed; must outlive the store. */
    const sked_clock *clock;
} sked_store_options;

/* Open the store at URL (NULL: SKED_STORE_DEFAULT_URL) and migrate it.
 * OPTS may be NULL. OUT: *out, closed with sked__store_close.
 * Returns 0; SKED_EINVAL (malformed URL, err->field "db"); SKED_EBUSY
 * (unreachable server); SKED_EIO (unreadable or corrupt file); SKED_EROFS
 * (read-only file when a migration must write); SKED_ENOSPC (disk full);
 * SKED_ECONFLICT (database newer than the binary); SKED_ENOMEM. err->msg
 * names the database and the cause. Every later call may also return
 * SKED_EBUSY (unreachable, busy), SKED_ENOSPC, SKED_EROFS, and, on SQLite,
 * SKED_ESTALE: the file was deleted or replaced since the open. */
int sked__store_open(const char *url, const sked_store_options *opts,
                     sked_store **out, sked_error *err);

/* Close ST and every connection. NULL does nothing. */
void sked__store_close(sked_store *st);

/* Return 0 when the database answers a read now and its schema is the
 * one this binary migrates to (GET /readyz); SKED_EBUSY when the schema
 * differs, or the back-end's error (SKED_EBUSY: unreachable). */
int sked__store_ready(sked_store *st, sked_error *err);

/* Return "sqlite" or "postgres". */
const char *sked__store_kind(const sked_store *st);

/* ---- schedules ---------------------------------------------------------
 * Every write validates first (sked_schedule_validate) and writes nothing
 * when validation fails; each emits its event (schedule.created, ...) in
 * the same transaction. */

/* Create S (its created_at/updated_at/next_fire_at are set by the store).
 * S->status is SKED_SCHEDULE_ACTIVE or SKED_SCHEDULE_PAUSED (the API's
 * "paused": true); S->source is kept as given. Stored normalised: timezone
 * "UTC" and context "{}" rather than NULL, automatic_backfill as catchup
 * all / 1000 / 30 d, an interval without anchor anchored now.
 * next_fire_at: the first occurrence after now within the bounds; an "at"
 * instant already past is kept (the scheduler's catch-up policy decides);
 * a schedule that can never fire again is stored "done".
 * Event schedule.created, payload: the schedule's API JSON.
 * Returns 0, SKED_EINVAL, SKED_ECONFLICT (the name exists), SKED_EIO. */
int sked__store_schedule_create(sked_store *st, const sked_schedule *s,
                                sked_error *err);

/* Read the schedule NAME into *out (initialised here; the caller calls
 * sked_schedule_done). Returns 0, SKED_ENOTFOUND, SKED_EIO. */
int sked__store_schedule_get(sked_store *st, const char *name,
                             sked_schedule *out, sked_error *err);

/* Note: status 0 is SKED_SCHEDULE_ACTIVE; write .status = -1 for "any"
 * (a NULL filter lists everything). */
typedef struct sked_schedule_filter {
    int status;              /* a sked_schedule_status, or -1 for any */
    const char *workflow;    /* NULL: any */
    const char *name_prefix; /* NULL: any */
    const char *after_name;  /* the cursor: names strictly after this */
    size_t limit;            /* 1..SKED_STORE_LIST_MAX; 0 means 100 */
} sked_schedule_filter;

/* List schedules matching F, ordered by name. OUT: *out, an array of *n
 * schedules the caller frees with sked__schedules_free. *more is set when
 * more rows follow (the cursor is the last name returned). */
int sked__store_schedule_list(sked_store *st, const sked_schedule_filter *f,
                              sked_schedule **out, size_t *n, bool *more,
                              sked_error *err);
void sked__schedules_free(sked_schedule *list, size_t n);

/* Replace the definition of the existing schedule S->name (state fields
 * are kept: status, source, last_fired_at, counters, created_at; a
 * disabled schedule becomes active with last_error cleared;
 * next_fire_at is recomputed from now; an interval given without anchor
 * keeps the stored one). S->status and S->source are ignored. Event
 * schedule.updated. Returns 0, SKED_EINVAL, SKED_ENOTFOUND, SKED_EIO. */
int sked__store_schedule_update(sked_store *st, const sked_schedule *s,
                                sked_error *err);

/* Delete NAME. Idempotent: deleting a missing schedule returns 0 and sets
 * *existed false (and writes no event). EXISTED may be NULL. Runs of the
 * schedule are kept (history). Event schedule.deleted {"name"}. */
int sked__store_schedule_delete(sked_store *st, const char *name, bool *existed,
                                sked_error *err);

/* Pause or resume NAME (SPEC 3.5: resuming computes the next occurrence
 * from NOW, no catch-up, and moves the cursor last_fired_at to NOW, so
 * the paused period counts as decided; a schedule with nothing left to fire,
 * such as an "at" instant now past, becomes done). Both are idempotent: pausing
 * a paused schedule or resuming an active one writes nothing. Resuming a done
 * or disabled schedule is SKED_ECONFLICT (update it instead). Events
 * schedule.paused / schedule.resumed {"name", "next_fire_at"}.
 * Returns 0, SKED_ENOTFOUND, SKED_ECONFLICT, SKED_EIO. */
int sked__store_schedule_pause(sked_store *st, const char *name,
                               sked_error *err);
int sked__store_schedule_resume(sked_store *st, const char *name, sked_time now,
                                sked_error *err);

/* Apply a set of N schedules atomically (SPEC 3.5): validate all, then in
 * one transaction create or replace each as a code schedule of APP (a
 * name, sked__schedule_name_check; field "app"); with PRUNE delete the
 * code schedules of APP not in the set, never another app's. All or
 * nothing, one apply at a time across servers. On a validation error
 * err->field is "schedules[i].field"; a name given twice is SKED_EINVAL;
 * a name that exists with source api, or as a code schedule of another
 * app, is SKED_ECONFLICT (a code schedule of no app, from before apps,
 * is taken over). A schedule whose definition and app are the same
 * (same_definition in store_schedule.c) counts as unchanged and is not
 * written. OUT: *out, may be NULL: the counts, and the names of the
 * first SKED_APPLY_NAMES_MAX of each kind (sked/schedule.h). */
int sked__store_schedule_apply(sked_store *st, const sked_schedule *set,
                               size_t n, const char *app, bool prune,
                               sked_apply_result *out, sked_error *err);

/* Store in *out when S next fires strictly after AFTER, within its
 * bounds (start_at, end_at): cron in its zone TZ with its dst policy
 * (TZ NULL: UTC), every at anchor + k * every (k >= 1), at its one
 * instant when later than AFTER; seen through its calendars DAYS (NULL:
 * none), the next slot (model/schedule_occ.h): a moved occurrence's new
 * instant, or an excluded one's, when it is decided. Returns 0, or
 * SKED_ENOTFOUND when it never fires again. Pure: the store, preview and
 * the scheduler share it. */
int sked__schedule_next_fire(const sked_schedule *s, const sked_tz *tz,
                             const sked__occ_days *days, sked_time after,
                             sked_time *out);

/* S's calendars as they are now, built (store_days.c): *out borrows
 * from *book, a reference given back with sked__calbook_release (NULL
 * and no sets for a schedule with none). SKED_ENOTFOUND naming
 * "exclude[i]" or "only[i]" for a calendar that does not exist. */
struct sked__calbook;
int sked__store_days_read(sked_store *st, const sked_schedule *s,
                          struct sked__calbook **book, sked__occ_days *out,
                          sked_error *err);

/* ---- calendars (store_calendar.c) --------------------------------------
 * A write validates the calendar (sked_calendar_validate), then builds it
 * against the calendars stored, in the transaction that writes it: an
 * unknown include is SKED_ENOTFOUND naming "include[i]", a cycle
 * SKED_ECONFLICT; nothing is written on any error. Events
 * calendar.created / .updated (the calendar's JSON), .deleted {"name"}. */
typedef enum sked__cal_mode {
    SKED__CAL_CREATE, /* SKED_ECONFLICT when the name exists */
    SKED__CAL_UPDATE, /* SKED_ENOTFOUND when it does not */
    SKED__CAL_PUT,    /* either */
} sked__cal_mode;

/* Write C (its definition; its source and app as given). *created (may
 * be NULL) tells an insert from a replacement. */
int sked__store_calendar_write(sked_store *st, const sked_calendar *c,
                               sked__cal_mode mode, bool *created,
                               sked_error *err);
/* Read NAME into *out (sked_calendar_done): 0 or SKED_ENOTFOUND. */
int sked__store_calendar_get(sked_store *st, const char *name,
                             sked_calendar *out, sked_error *err);
/* Every calendar, by name: *out of *n, freed with sked__calendars_free. */
int sked__store_calendar_list(sked_store *st, sked_calendar **out, size_t *n,
                              sked_error *err);
/* Delete NAME; idempotent like a schedule's. SKED_ECONFLICT naming the
 * calendar that includes it. */
int sked__store_calendar_delete(sked_store *st, const char *name, bool *existed,
                                sked_error *err);
/* Apply the N calendars of SET as the code calendars of APP, in one
 * transaction (sked apply, PUT /api/v1/calendars): create the new ones,
 * replace the changed ones (each after those of the set it includes),
 * count the equal ones as unchanged and, with PRUNE, delete APP's code
 * calendars not in SET. Checked whole first against the calendars as
 * they will stand: errors name "calendars[i].field"; a name given twice
 * is SKED_EINVAL; a name the API or another app has is SKED_ECONFLICT; an
 * unknown include SKED_ENOTFOUND, a cycle SKED_ECONFLICT; pruning a
 * calendar that one left includes is SKED_ECONFLICT naming both. OUT (may
 * be NULL): the counts and the first names, as a schedule apply's. */
int sked__store_calendar_apply(sked_store *st, const sked_calendar *set,
                               size_t n, const char *app, bool prune,
                               sked_apply_result *out, sked_error *err);

/* ---- runs -------------------------------------------------------------*/

/* Write the run id of SPEC 3.1 into BUF of SIZE bytes: for an occurrence
 * "sched-{name}-{occurrence in RFC 3339 UTC}", for a manual trigger
 * "sched-{name}-trigger-{now, always with six fraction digits}". Return
 * the length, or SKED_ETOOBIG / SKED_ERANGE. SKED_RUN_ID_MAX fits any. */
int sked__run_id_scheduled(const char *schedule, sked_time occurrence,
                           char *buf, size_t size);
int sked__run_id_trigger(const char *schedule, sked_time now, char *buf,
                         size_t size);

/* sked_run_new, one run to insert, is the model's (model/run.h). */

/* Insert the N runs (N <= SKED_STORE_BATCH_MAX) that do not exist yet, in
 * one transaction (ON CONFLICT (id) DO NOTHING), status pending. No
 * run.created event is written here: the caller that fires emits it. CREATED,
 * when not NULL, gets one flag per run: true when this call created it. Returns
 * 0, SKED_EINVAL, SKED_ECONFLICT (an active run holds a concurrency key:
 * nothing is inserted), SKED_EIO. */
int sked__store_runs_insert(sked_store *st, const sked_run_new *runs, size_t n,
                            bool *created, sked_error *err);

/* ---- firing (store_fire.c) -------------------------------------------- */

/* One stored event (see the events section below); its columns are
 * listed once in model/event_fields.h. */
typedef struct sked_event {
    int64_t id;    /* assigned by the store, increasing */
    char *type;    /* owned: "schedule.created" */
    char *subject; /* owned: the schedule name or run id */
    char *payload; /* owned JSON object text */
    sked_time at;
} sked_event;

/* A ping of the heartbeat schedule NAME (store_deadline.c): in one
 * transaction, find the run it is for (the latest open heartbeat run at
 * or before now, else the earliest of the next minute, else the run of
 * the next occurrence when at most a minute ahead, made as firing makes
 * it) and start, complete or fail it as STATUS says, OUTPUT (may be NULL)
 * its output, with its events. *out: the run as left (caller frees with
 * sked__run_done). Returns 0, SKED_ENOTFOUND, SKED_EINVAL (not a
 * heartbeat schedule), SKED_ECONFLICT (no occurrence awaits a ping). */
int sked__store_heartbeat_ping(sked_store *st, const char *name,
                               sked_ping_status status, const char *output,
                               sked_run *out, sked_event **out_events,
                               size_t *out_nevents, sked_error *err);

/* Skip (SKIP true) or unskip the occurrence OCC of NAME (store_skip.c):
 * in one transaction, with NAME's row locked, refuse an occurrence
 * already decided (SKED_ECONFLICT, field "at": at or before the cursor
 * last_fired_at, or the creation of a schedule never fired), then write
 * or delete the row (ACTOR and REASON, may be NULL, kept with it) and the
 * event schedule.occurrence_skipped or schedule.occurrence_unskipped
 * {"schedule", "occurrence", "actor", "reason"}. Idempotent: *changed
 * (may be NULL) false when it was already so, and no event. The caller
 * checks that OCC is an occurrence. OUT_EVENTS as for sked__store_fire.
 * Returns 0, SKED_ENOTFOUND (field "name"), SKED_ECONFLICT. */
int sked__store_skip_set(sked_store *st, const char *name, sked_time occ,
                         bool skip, const char *actor, const char *reason,
                         bool *changed, sked_event **out_events,
                         size_t *out_nevents, sked_error *err);

/* Every skip of NAME, by occurrence, into *out (*n entries; free with
 * sked_skips_free), and NAME's cursor (last_fired_at, else its creation)
 * into *cursor (may be NULL): skips after it are pending. SKED_ENOTFOUND
 * when NAME does not exist. */
int sked__store_skips(sked_store *st, const char *name, sked_skip **out,
                      size_t *n, sked_time *cursor, sked_error *err);

/* A schedule as the scheduler indexes it: what it needs to keep it in its
 * heap and to notice a change. */
typedef struct sked_schedule_head {
    char *name; /* owned */
    sked_schedule_status status;
    sked_time next_fire_at; /* NONE: none stored */
    sked_time updated_at;
    sked_time deadline_check_at; /* NONE: no deadline to check */
    char *cron;                  /* owned; NULL unless a cron schedule */
    char *timezone;              /* owned */
} sked_schedule_head;

/* Call FN(CTX, head) for every schedule whose updated_at is at least
 * SINCE (SKED_TIME_NONE: every schedule), in pages, each page in its own
 * short read transaction. HEAD is borrowed for the call. FN returns 0 to
 * go on, else that code stops the scan and is returned. Returns 0,
 * SKED_EIO, SKED_ENOMEM. */
typedef int (*sked_head_fn)(void *ctx, const sked_schedule_head *head);
void sked__schedule_heads_free(sked_schedule_head *list, size_t n);
int sked__store_schedule_scan(sked_store *st, sked_time since, sked_head_fn fn,
                              void *ctx, sked_error *err);

/* The runs a firing creates, one state each. */
typedef enum sked_run_insert_state {
    SKED_RUN_INSERTED = 0, /* created by this call */
    SKED_RUN_EXISTED = 1,  /* the id existed: created before (SPEC 3.1) */
    SKED_RUN_REFUSED = 2,  /* an active run holds its concurrency key */
} sked_run_insert_state;

#define SKED_FIRE_MISS_MAX 8

/* Occurrences of one reason a decision dropped (the payload of the event
 * schedule.occurrences_missed). */
typedef struct sked_fire_miss {
    const char *reason; /* borrowed, static: "catchup_skip", "overlap" */
    int64_t count;
    sked_time first, last;
} sked_fire_miss;

/* One schedule's decision, as the decide callback of sked__store_fire
 * writes it, and what the store did with it. The runs' workflow, queue,
 * context and schedule may borrow from the row given to decide: they are
 * valid during the transaction only, and set to NULL after it. */
typedef struct sked_firing {
    /* The decision (filled by decide). */
    sked_run_new *runs; /* owned, nruns; run ids owned too (runs[i].id) */
    size_t nruns;
    sked_time cursor;            /* the new last_fired_at */
    sked_time next_fire_at;      /* NONE when nothing is left */
    sked_schedule_status status; /* active or done; paused when its
                                    deadlines failed runs enough */
    sked_fire_miss missed[SKED_FIRE_MISS_MAX];
    size_t nmissed;
    char *disable;      /* owned: when set, the schedule is disabled instead,
                           with this reason in last_error (SPEC 2.2) */
    char *key;          /* owned: a key string the runs may point to */
    bool cancel_others; /* overlap cancel_other: when the firing created
                           runs, every other active run of the schedule
                           (those created before, and this firing's own
                           but its last) is cancelled as
                           sked__store_run_cancel does, in the same
                           transaction (SPEC 3.4; as the simulator
                           replays it) */
    /* What the store did (filled by sked__store_fire). */
    bool found;                   /* the row existed and was locked */
    sked_run_insert_state *state; /* owned, nruns */
    size_t created, existed, refused;
    /* The deadlines of its runs (store_deadline.c): the next check (NONE:
     * none), and how many this firing found missed. */
    sked_time deadline_check_at;
    int64_t deadlines_missed;
} sked_firing;

/* Free what F owns and zero it. */
void sked__firing_done(sked_firing *f);

/* Decide, inside the firing transaction, for the row S (fresh, locked)
 * with ACTIVE_RUNS active runs of S (counted only when S->overlap is not
 * allow; else 0), its calendars DAYS (NULL: none; borrowed for the
 * call) and its skipped occurrences SKIPS (NSKIPS, ascending; borrowed). Write
 * the decision into OUT (zeroed). Must be pure: it may run again when the
 * transaction is retried. Returns 0 or a code that rolls everything back. */
typedef int (*sked_fire_decide_fn)(void *ctx, const sked_schedule *s,
                                   const sked__occ_days *days,
                                   const sked_time *skips, size_t nskips,
                                   int64_t active_runs, sked_firing *out);

/* The firing transaction (SPEC 3.2). For each of the N schedules NAMES
 * (distinct), in ONE transaction: lock the row (SQLite: the write lock;
 * PostgreSQL: SELECT ... FOR UPDATE, in name order), call DECIDE on the
 * row as it is now, insert the decided runs (ON CONFLICT DO NOTHING: a
 * run whose id exists is skipped; one refused by the active-key index is
 * dropped and reported as missed with reason "overlap"), move the cursor
 * with a compare-and-set on last_fired_at, with next_fire_at, status and
 * runs_created, and write the events run.created (one per run created)
 * and schedule.occurrences_missed (one per reason, payload {"count",
 * "first", "last", "reason"}), or schedule.disabled. A schedule whose row
 * is gone or not active is not decided (found false or its status
 * reported). OUT: N firings, in the order of NAMES, freed with
 * sked__firing_done; OUT_EVENTS (may be NULL): the events written, freed
 * with sked__events_free. Returns 0, or a code with nothing written. */
int sked__store_fire(sked_store *st, const char *const *names, size_t n,
                     sked_fire_decide_fn decide, void *ctx, sked_firing *out,
                     sked_event **out_events, size_t *out_nevents,
                     sked_error *err);

/* How many shared transactions may be written at once (*leaders), how
 * many transactions wrote the operations of more than one caller
 * (store_share.c: runs created, pings, schedules created), and how many
 * operations they held, since ST opened. */
void sked__store_share_counts(sked_store *st, int *leaders, uint64_t *batches,
                              uint64_t *ops);

/* Create runs outside the scheduler's decisions (trigger, backfill), in
 * one transaction with their run.created events: N <= SKED_STORE_BATCH_MAX
 * runs inserted ON CONFLICT DO NOTHING. STATE (N entries, may be NULL)
 * receives each run's state. With STRICT, a run refused by the active-key
 * index fails the whole call with SKED_ECONFLICT (a trigger, SPEC 3.4);
 * without it, it is reported as refused. OUT_EVENTS as for
 * sked__store_fire. */
int sked__store_runs_create(sked_store *st, const sked_run_new *runs, size_t n,
                            bool strict, sked_run_insert_state *state,
                            sked_event **out_events, size_t *out_nevents,
                            sked_error *err);

/* Read the database server's clock (PostgreSQL: clock_timestamp()) into
 * *out. Returns 0, SKED_EINVAL (SQLite: no server clock), SKED_EIO. */
int sked__store_db_clock(sked_store *st, sked_time *out, sked_error *err);

/* A listener for the notifications of a channel (PostgreSQL LISTEN on a
 * connection of its own): the scheduler's wake-up on schedule changes
 * made by other servers (SPEC 3.2). */
typedef struct sked_listener sked_listener;

/* Listen on CHANNEL ("sked_schedules"). OUT: *out, closed with
 * sked__listener_close. Returns 0, SKED_EINVAL (SQLite: nothing to
 * listen to), SKED_EIO. */
int sked__store_listen(sked_store *st, const char *channel, sked_listener **out,
                       sked_error *err);

/* Wait at most TIMEOUT (or until sked__listener_wake) and call FN(CTX,
 * payload) for each notification received. Returns 0 (notified, woken or
 * timed out) or SKED_EIO (the connection dropped: the next call
 * reconnects). One thread waits; any thread may wake it. */
int sked__listener_wait(sked_listener *l, sked_dur timeout,
                        void (*fn)(void *ctx, const char *payload), void *ctx,
                        sked_error *err);
void sked__listener_wake(sked_listener *l);
void sked__listener_close(sked_listener *l);

/* ---- events -----------------------------------------------------------*/

/* Event ids increase, and the events one transaction writes take
 * consecutive ids in pages of at most SKED_EVENT_PAGE, a page starting at
 * a multiple of it (PostgreSQL; SQLite's ids are consecutive across
 * transactions too). So the id after X is X + 1 or the start of the next
 * page; one further on, while X + 1 is missing, may be the id of a
 * transaction not yet committed. */
#define SKED_EVENT_PAGE 64

/* The first id of the page after the one of id X. */
static inline int64_t sked__event_next_page(int64_t x)
{
    return (x / SKED_EVENT_PAGE + 1) * SKED_EVENT_PAGE;
}

/* Append one event. TYPE, SUBJECT and PAYLOAD (JSON, NULL: {}) are
 * borrowed. Returns 0 or SKED_EIO. */
int sked__store_event_append(sked_store *st, const char *type,
                             const char *subject, const char *payload,
                             sked_error *err);

/* List up to LIMIT events with id > AFTER_ID, oldest first. OUT: *out,
 * freed with sked__events_free. */
int sked__store_event_list(sked_store *st, int64_t after_id, size_t limit,
                           sked_event **out, size_t *n, sked_error *err);
/* Which events a list wants (the engine's sked_event_filter): one of
 * TYPES (NTYPES; 0: any type), SUBJECT (NULL: any) and ACTOR (the
 * payload's "actor"; NULL: any), exact values. */
#define SKED__EVENT_TYPES_MAX 16

typedef struct sked__event_filter {
    const char *const *types;
    size_t ntypes;
    const char *subject;
    const char *actor;
    /* The text every payload ACTOR caused ends with ("actor":"A"}, as
     * sked__payload_actor writes it), set by sked__store_event_find:
     * the back-ends compare it with the payload's end, which no payload
     * can make fail (PostgreSQL 15 has no cast that cannot raise). */
    const char *actor_tail;
} sked__event_filter;

/* As sked__store_event_list, the events F matches (NULL: all), filtered
 * in SQL over an index (schema 0008): every list but the last is full. */
int sked__store_event_find(sked_store *st, int64_t after_id, size_t limit,
                           const sked__event_filter *f, sked_event **out,
                           size_t *n, sked_error *err);
/* The id of the newest event into *out, 0 when there is none: where a
 * reader that wants only what comes next starts. */
int sked__store_event_last(sked_store *st, int64_t *out, sked_error *err);

/* Free the strings of E and zero it. */
void sked__event_done(sked_event *e);
void sked__events_free(sked_event *list, size_t n);

/* Delete events older than BEFORE (retention). *deleted may be NULL. */
int sked__store_event_prune(sked_store *st, sked_time before, int64_t *deleted,
                            sked_error *err);

#endif
