/* SPDX-License-Identifier: MIT */
/* The back-end method table: what a database engine must do for the store.
 *
 * store.c holds every decision (validation, ids, next occurrences, events,
 * retries, apply); a back-end (sqlite.c, pg.c) only speaks SQL. Words:
 * a "backend" is one open database (a file, or a server and its pool); a
 * "tx" is one transaction on one connection that belongs to one thread
 * from begin until commit or rollback.
 *
 * Error rules every method follows: return 0 or a negative SKED_E...;
 * SKED_EBUSY means "retryable" (SQLite busy or locked, PostgreSQL
 * serialization failure, deadlock or a dropped connection): store.c rolls
 * back and runs the whole transaction again, a bounded number of times.
 * SKED_EIO is any other database failure, with err->msg naming the
 * database and the cause. OUT parameters are written only on success. */
#ifndef SKED_STORE_STORE_OPS_H
#define SKED_STORE_STORE_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/run_fields.h"
#include "store/store.h"
#include "store/store_run.h"

#define SKED__STORE_OPS_VERSION 2

/* One open database, owned by the back-end. */
typedef struct sked__backend sked__backend;
/* One transaction on one connection, owned by the back-end. */
typedef struct sked__tx sked__tx;

typedef enum sked__tx_mode {
    SKED__TX_READ = 0,    /* reads only (SQLite: BEGIN DEFERRED) */
    SKED__TX_WRITE = 1,   /* SQLite: BEGIN IMMEDIATE; pg: READ COMMITTED */
    SKED__TX_MIGRATE = 2, /* SQLite: BEGIN EXCLUSIVE; pg: + advisory lock */
    /* A write that reads what it decides on, one at a time across every
     * server (an apply: two syncs of one set at once must not both find
     * a schedule missing). SQLite: BEGIN IMMEDIATE, which already is;
     * pg: READ COMMITTED + an advisory lock of its own. */
    SKED__TX_SERIAL = 3,
} sked__tx_mode;

/* What mark does to a write transaction (a savepoint of its own name,
 * under each operation of a shared transaction: store_share.c). */
typedef enum sked__mark_op {
    SKED__MARK_SET = 0,  /* mark the transaction as it is now */
    SKED__MARK_UNDO = 1, /* undo what was done since the mark (kept) */
    SKED__MARK_DROP = 2, /* forget the mark, keeping what was done */
    SKED__MARK_NEXT = 3, /* DROP, then SET, in one go */
} sked__mark_op;

/* One forward-only schema step: src/store/schema/<dialect>/NNNN_name.sql,
 * embedded at build time. Arrays end with a {0, NULL, NULL} entry. */
struct sked__migration {
    int version;      /* NNNN, from 1, increasing by 1 */
    const char *name; /* "0001_init" */
    const char *sql;  /* the whole script; may hold many statements */
};

/* What store.c asks the back-end to list; zero-initialised is "all". */
/* A calendar's row as written (calendar_write): its definition is the
 * model's JSON text (model/calendar.h). Every pointer borrowed. */
typedef struct sked__calendar_row {
    const char *name, *definition, *source, *app; /* app NULL: none */
    sked_time now;
} sked__calendar_row;

typedef struct sked__schedule_query {
    int status;              /* a sked_schedule_status, or -1: any */
    int source;              /* a sked_source, or -1: any */
    const char *workflow;    /* NULL: any */
    const char *name_prefix; /* NULL: any; matched literally (no LIKE) */
    const char *after_name;  /* NULL: from the start; else names > this */
    const char *app;         /* NULL: any; else only this app's */
    size_t limit;            /* rows to return at most, >= 1 */
} sked__schedule_query;

/* One row's move by the firing transaction (schedule_advance). */
typedef struct sked__advance {
    const char *name;
    sked_time expect; /* last_fired_at as locked; NONE: NULL */
    sked_time cursor; /* NONE: NULL */
    sked_time next;   /* NONE: NULL */
    sked_schedule_status status;
    int64_t added;          /* runs_created += added */
    const char *last_error; /* NULL: keep the stored one */
    sked_time updated_at;   /* NONE: keep the stored one */
} sked__advance;

/* A queue with a concurrency or rate limit, and its load now. */
typedef struct sked__queue_load {
    char *name;          /* owned */
    int32_t concurrency; /* 0: none */
    int32_t rate_limit;  /* 0: none */
    sked_dur rate_period;
    int64_t running; /* its runs running now, on every executor */
    int64_t started; /* its runs whose started_at is within the period */
} sked__queue_load;

/* The runs a claim may take, in claim order (priority, not_before,
 * created_at, id), at most LIMIT: with EXPIRED, runs running whose
 * lease_until < NOW (then the instant a lease must have run out by to be
 * recovered, not always the claim's now); else runs pending or waiting with
 * not_before <= NOW and, when they have a serial_key, first of their key by
 * (coalesce(scheduled_for, created_at), id) with no run of the key
 * running. Either way only runs whose workflow is one of WORKFLOWS with
 * the same version, or no version when that entry is latest, and whose
 * queue is not one of the NFULL queues FULL. PostgreSQL: FOR UPDATE SKIP
 * LOCKED. */
typedef struct sked__claim_query {
    sked_time now;
    bool expired;
    const sked_claim_workflow *workflows; /* borrowed */
    size_t nworkflows;
    const char *const *full; /* borrowed */
    size_t nfull;
    /* EXPIRED: runs never to recover, the claiming executor's own
     * (sked_claim_req.held); borrowed. */
    const char *const *held;
    size_t nheld;
    size_t limit;
} sked__claim_query;

/* The lists a claim's SQL takes, built once for every back-end by
 * sked__claim_lists (store_claim_lists.c). */
typedef enum sked__claim_list {
    SKED__CLAIM_LATEST,   /* the workflows whose latest version it has */
    SKED__CLAIM_KEYS,     /* its "workflow/version" keys */
    SKED__CLAIM_THIRD,    /* the full queues; EXPIRED: the runs held */
    SKED__CLAIM_VERSIONS, /* the versions of LATEST, in step with it */
    SKED__CLAIM_NLISTS
} sked__claim_list;

/* Hand each element S of each of Q's lists to ADD(CTX, LIST, S), the
 * elements of one list in order (S is valid during the call). ADD
 * returns false when out of memory. Returns 0 or SKED_ENOMEM. */
int sked__claim_lists(const sked__claim_query *q,
                      bool (*add)(void *ctx, sked__claim_list list,
                                  const char *s),
                      void *ctx, sked_error *err);

/* The runs a claim takes: the N runs IDS (distinct) become running for
 * EXECUTOR until LEASE_UNTIL, started_at NOW when it had none, attempts
 * + 1, workflow_version VERSIONS[i] when it had none (NULL: kept). */
typedef struct sked__claim_set {
    const char *executor;
    sked_time now, lease_until;
    const char *const *ids;
    const char *const *versions;
    size_t n;
} sked__claim_set;

/* The step attempts still running of the N runs RUN_IDS, closed with
 * STATUS, ERROR_CODE, ERRORS[i] and finished_at AT. */
typedef struct sked__steps_close {
    const char *const *run_ids;
    const char *const *errors;
    size_t n;
    sked_step_status status;
    const char *error_code;
    sked_time at;
} sked__steps_close;

/* What an op's fence needs to know of its run, as the run is now. */
typedef struct sked__fence {
    bool found;
    sked_run_status status;
    char *executor; /* owned; NULL when none */
    char *schedule; /* owned; NULL when none */
    char *tid;      /* owned; PostgreSQL: where the locked row lies (its
                       ctid, which holds until the commit); else NULL */
} sked__fence;

/* One step attempt as the ops of a batch leave it: insert it, or update
 * the row of its key (run_id, step, compensation, attempt), keeping the
 * stored started_at unless the new status is running. FRESH: the batch
 * holds the attempt's begin, so no row exists yet, unless this is the
 * retry of a transaction whose commit was lost (steps_write). */
typedef struct sked__step_write {
    const char *run_id;          /* borrowed */
    const sked_step_record *rec; /* borrowed; started_at is set */
    bool fresh;
} sked__step_write;

/* One run as the ops of a batch leave it; every field NULL or NONE keeps
 * the stored value. A STATUS other than -1 also clears executor and
 * lease_until. */
typedef struct sked__run_write {
    const char *id;
    const char *tid; /* borrowed: the fence's, where the row lies */
    int status;      /* a sked_run_status, or -1: kept */
    int outcome;     /* failed or cancelled, or -1: kept */
    const char *output, *error, *error_code;
    sked_time not_before, finished_at, timeout_exceeded_at;
} sked__run_write;

/* A run's change by a deadline check or a ping (schema 0012); every field
 * NULL, NONE or -1 keeps the stored value. */
typedef struct sked__run_mark {
    const char *id;
    int status;            /* a sked_run_status, or -1: kept */
    sked_time started_at;  /* NONE: kept; a stored one is never replaced */
    sked_time finished_at; /* NONE: kept */
    const char *output, *error, *error_code;
    bool deadline_set; /* deadline_at becomes DEADLINE_AT (NONE: NULL) */
    sked_time deadline_at;
    const char *deadline_missed;
} sked__run_mark;

/* One schedule's count of consecutive failed runs. */
typedef struct sked__failures {
    const char *name; /* borrowed */
    bool found;
    sked_schedule_status status;
    int32_t count;       /* consecutive_failures */
    int32_t pause_after; /* pause_after_failures */
} sked__failures;

/* A notifier's row as written (notifier_write); every pointer borrowed.
 * CONFIG, EVENTS and SCHEDULES are JSON text (SCHEDULES NULL: every
 * schedule). */
typedef struct sked__notifier_row {
    const char *name, *kind, *config, *events, *schedules, *source, *app;
    sked_dur retry_for;
    sked_time now;
} sked__notifier_row;

/* One delivery of the outbox as the event's transaction writes it. */
typedef struct sked__delivery_new {
    int64_t event_id;
    const char *notifier; /* borrowed, as the others */
    const char *okey;     /* the order key: the schedule, else the subject */
    bool unscheduled;     /* no schedule: okey is the event's subject */
    sked_time now, deadline_at;
} sked__delivery_new;

/* What a delivery thread claims (deliveries_claim). */
typedef struct sked__delivery_claim {
    const char *owner;
    sked_time now, lease_until;
    size_t limit;
} sked__delivery_claim;

/* The end of one attempt: STATE "delivered", "failed", or "pending"
 * again at NEXT_AT; STATUS the HTTP status or exit code (-1: none). */
typedef struct sked__delivery_end {
    int64_t id;
    const char *owner, *state, *error; /* ERROR NULL: none */
    int status;
    sked_time now, next_at;
} sked__delivery_end;

struct sked__store_ops {
    int version;      /* SKED__STORE_OPS_VERSION */
    const char *kind; /* "sqlite", "postgres" */
    /* The embedded migrations of this dialect, in order. */
    const struct sked__migration *migrations;

    /* Open the database TARGET (the URL without "sqlite:"; the whole URL
     * for PostgreSQL). Does not migrate. OPTS is never NULL. */
    int (*open)(const char *target, const sked_store_options *opts,
                sked__backend **out, sked_error *err);
    void (*close)(sked__backend *b);

    /* Start a transaction on a connection that belongs to the calling
     * thread until commit or rollback (both release it, also on error).
     * Rollback never fails from the caller's point of view. */
    int (*begin)(sked__backend *b, sked__tx_mode mode, sked__tx **out,
                 sked_error *err);
    int (*commit)(sked__tx *tx, sked_error *err);
    void (*rollback)(sked__tx *tx);
    /* OP on the one mark of the write transaction TX (sked__mark_op). A
     * failure leaves TX fit only for a rollback. */
    int (*mark)(sked__tx *tx, sked__mark_op op, sked_error *err);
    /* How many write transactions of this process may run at once to
     * some gain (the shared transactions of store_share.c). */
    int (*writers)(const sked__backend *b);

    /* ---- migrations (inside a SKED__TX_MIGRATE transaction) ---------- */
    /* The schema version recorded in the meta table; 0 when there is no
     * meta table yet (a new database). */
    int (*schema_version)(sked__tx *tx, int *out, sked_error *err);
    /* Run one migration's script, then record VERSION in the meta table
     * (key 'schema_version'). */
    int (*migrate_step)(sked__tx *tx, const struct sked__migration *m,
                        sked_error *err);

    /* ---- schedules ---------------------------------------------------- */
    /* Read NAME into *out (initialised by the method). SKED_ENOTFOUND. */
    int (*schedule_get)(sked__tx *tx, const char *name, sked_schedule *out,
                        sked_error *err);
    /* Insert S, every column as given (store.c has set the timestamps and
     * next_fire_at). SKED_ECONFLICT when the name exists. */
    int (*schedule_insert)(sked__tx *tx, const sked_schedule *s,
                           sked_error *err);
    /* Overwrite every column of the row named S->name except created_at.
     * SKED_ENOTFOUND when there is none. */
    int (*schedule_update)(sked__tx *tx, const sked_schedule *s,
                           sked_error *err);
    /* Delete NAME; *existed tells whether a row was deleted. */
    int (*schedule_delete)(sked__tx *tx, const char *name, bool *existed,
                           sked_error *err);
    /* Rows matching Q ordered by name, at most Q->limit; *out is an array
     * of *n (freed with sked__schedules_free; NULL when *n is 0). */
    int (*schedule_list)(sked__tx *tx, const sked__schedule_query *q,
                         sked_schedule **out, size_t *n, sked_error *err);

    /* ---- runs ---------------------------------------------------------- */
    /* INSERT ... ON CONFLICT (id) DO NOTHING for each of the N runs, with
     * status 'pending', created_at NOW and not_before NOW when NONE;
     * created[i] (never NULL here) says whether row i was inserted.
     * SKED_ECONFLICT when the unique index on active concurrency keys
     * refuses a row, err->pos the first run of the batch that holds the
     * key (store.c words the message, then rolls the batch back). */
    int (*runs_insert)(sked__tx *tx, const sked_run_new *runs, size_t n,
                       sked_time now, bool *created, sked_error *err);

    /* ---- the scheduler (schema 0002) ---------------------------------- */
    /* Heads of the schedules with updated_at >= SINCE (NONE: all) and
     * name > AFTER_NAME (NULL: from the start), by name, at most LIMIT;
     * *out freed with sked__schedule_heads_free. */
    int (*schedule_heads)(sked__tx *tx, sked_time since, const char *after_name,
                          size_t limit, sked_schedule_head **out, size_t *n,
                          sked_error *err);
    /* Read and lock the rows of the N NAMES (sorted, distinct) that exist,
     * in name order (SQLite: the write lock already covers them;
     * PostgreSQL: FOR UPDATE). *out as for schedule_list. */
    int (*schedule_lock)(sked__tx *tx, const char *const *names, size_t n,
                         sked_schedule **out, size_t *nout, sked_error *err);
    /* For each of the N moves A[i] (distinct names): write a firing's
     * outcome to the row NAME if its last_fired_at is still EXPECT
     * (compare-and-set; NONE is NULL): last_fired_at CURSOR, next_fire_at
     * NEXT, status STATUS, runs_created + ADDED, last_error LAST_ERROR
     * (NULL: kept) and, when UPDATED_AT is not NONE, updated_at.
     * applied[i] tells whether row i was written. PostgreSQL sends the N
     * moves in one statement. */
    int (*schedule_advance)(sked__tx *tx, const sked__advance *a, size_t n,
                            bool *applied, sked_error *err);
    /* INSERT ... ON CONFLICT DO NOTHING (every unique index) for each of
     * the N runs, in order; state[i] says what happened to run i. */
    int (*runs_insert_lenient)(sked__tx *tx, const sked_run_new *runs, size_t n,
                               sked_time now, sked_run_insert_state *state,
                               sked_error *err);
    /* Count the active runs of each of the N schedules SCHEDULES
     * (distinct) into counts[i]. */
    int (*runs_active)(sked__tx *tx, const char *const *schedules, size_t n,
                       int64_t *counts, sked_error *err);
    /* The server's clock now (NULL for SQLite: the same host's clock). */
    int (*db_clock)(sked__tx *tx, sked_time *out, sked_error *err);
    /* Append the N events EV (their own type, subject, payload, at),
     * filling ids[i] with each new id. */
    int (*events_append)(sked__tx *tx, const sked_event *ev, size_t n,
                         int64_t *ids, sked_error *err);

    /* ---- execution (schema 0003, store_run.c) ------------------------ */
    /* Every queue with a concurrency or rate limit, by name, with its
     * load at NOW (PostgreSQL: the rows locked FOR UPDATE first, in name
     * order, and counted after the lock, so limits hold across servers).
     * *out freed by the caller (each name, then the array). */
    int (*queue_loads)(sked__tx *tx, sked_time now, sked__queue_load **out,
                       size_t *n, sked_error *err);
    /* The runs Q describes (sked__claim_query), in claim order. Each
     * sked_run has only id, workflow, workflow_version, queue, status,
     * executor, priority, not_before, created_at and started_at. */
    int (*runs_candidates)(sked__tx *tx, const sked__claim_query *q,
                           sked_run **out, size_t *n, sked_error *err);
    /* Take the runs of C (sked__claim_set); *out are the rows after, in
     * any order. */
    int (*runs_take)(sked__tx *tx, const sked__claim_set *c, sked_run **out,
                     size_t *n, sked_error *err);
    /* Optional (NULL: candidates, then take): read the first Q->limit
     * ready runs of Q (Q->nfull 0, no queue with a limit) and take them
     * as C says (its ids and versions unused; a run with no version gets
     * the executor's latest) in one step. *out as runs_take; (*first)[i]
     * tells whether run i started for the first time (the caller frees
     * the array). */
    int (*runs_take_ready)(sked__tx *tx, const sked__claim_query *q,
                           const sked__claim_set *c, sked_run **out,
                           bool **first, size_t *n, sked_error *err);
    int (*steps_close)(sked__tx *tx, const sked__steps_close *c,
                       sked_error *err);
    /* Renew the lease of EXECUTOR's runs to LEASE_UNTIL. OUT: *renewed;
     * *cancel_ids, the *ncancel ids among them with a cancel requested
     * (NULL when none; the caller frees each, then the array). */
    int (*runs_renew)(sked__tx *tx, const char *executor,
                      const char *const *held, size_t nheld,
                      sked_time lease_until, size_t *renewed,
                      char ***cancel_ids, size_t *ncancel, sked_error *err);
    /* Give back EXECUTOR's runs (sked__store_runs_release), their
     * running step attempts closed with the error WHY. */
    int (*runs_release)(sked__tx *tx, const char *executor, const char *why,
                        sked_time now, sked_error *err);
    /* Read the runs IDS (N, sorted, distinct) into OUT[i] (PostgreSQL:
     * locked FOR UPDATE, in id order). */
    int (*runs_fence)(sked__tx *tx, const char *const *ids, size_t n,
                      sked__fence *out, sked_error *err);
    /* Write the N step attempts W. A back-end may insert the fresh ones
     * without looking for a row of their key; it then answers SKED_EBUSY
     * when one exists, and the store runs the transaction again with
     * none fresh. */
    int (*steps_write)(sked__tx *tx, const sked__step_write *w, size_t n,
                       sked_error *err);
    /* Write the N runs W (distinct ids), updated_at NOW. */
    int (*runs_write)(sked__tx *tx, const sked__run_write *w, size_t n,
                      sked_time now, sked_error *err);
    /* Fill F[i] for the N schedules F[i].name (sorted, distinct; found
     * false when gone); PostgreSQL: locked FOR UPDATE, in name order. */
    int (*schedule_failures)(sked__tx *tx, sked__failures *f, size_t n,
                             sked_error *err);
    /* Store F[i].count as each one's consecutive_failures. */
    int (*schedule_failures_set)(sked__tx *tx, const sked__failures *f,
                                 size_t n, sked_error *err);
    /* Read run ID into *out (every field); LOCK: PostgreSQL FOR UPDATE.
     * SKED_ENOTFOUND. */
    int (*run_get)(sked__tx *tx, const char *id, bool lock, sked_run *out,
                   sked_error *err);
    /* The active runs of SCHEDULE, by id, locked as run_get does. */
    int (*runs_of_schedule)(sked__tx *tx, const char *schedule, sked_run **out,
                            size_t *n, sked_error *err);
    /* Cancel run ID: with an error WHY, at once: status cancelled at NOW
     * (finished_at, error WHY, error_code "cancelled", executor and lease
     * NULL); WHY NULL: cancel_requested_at NOW, and not_before NOW when
     * the run is not running and its not_before is later. Both set
     * cancel_requested_at when it was NULL, and updated_at. */
    int (*run_cancel)(sked__tx *tx, const char *id, const char *why,
                      sked_time now, sked_error *err);
    /* Every step attempt of RUN_ID, ordered by started_at, step,
     * compensation, attempt. */
    int (*steps_list)(sked__tx *tx, const char *run_id, sked_step_record **out,
                      size_t *n, sked_error *err);
    /* Runs matching F (its limit ignored), created_at DESC, id DESC, at
     * most LIMIT. */
    int (*runs_list)(sked__tx *tx, const sked_run_filter *f, size_t limit,
                     sked_run **out, size_t *n, sked_error *err);
    /* Insert or replace queue Q (source code) at NOW. */
    int (*queue_put)(sked__tx *tx, const sked_queue_def *q, sked_time now,
                     sked_error *err);
    int (*queues_list)(sked__tx *tx, sked_queue_info **out, size_t *n,
                       sked_error *err);
    /* ---- deadlines and heartbeats (schema 0012, store_deadline.c) -- */
    /* The runs of SCHEDULE whose deadline_at is at most NOW, by
     * deadline_at then id, at most LIMIT (PostgreSQL: locked FOR
     * UPDATE). */
    int (*runs_deadline_due)(sked__tx *tx, const char *schedule, sked_time now,
                             size_t limit, sked_run **out, size_t *n,
                             sked_error *err);
    /* Write M to its run at NOW (updated_at). */
    int (*run_mark)(sked__tx *tx, const sked__run_mark *m, sked_time now,
                    sked_error *err);
    /* Set SCHEDULE's deadline_check_at to the least deadline_at of its
     * runs, add MISSED to deadlines_missed and make LAST (NONE: kept)
     * last_deadline_missed_at; *check_at gets the new deadline_check_at
     * (NONE: none). updated_at is kept. */
    int (*schedule_deadline_sync)(sked__tx *tx, const char *schedule,
                                  int64_t missed, sked_time last,
                                  sked_time *check_at, sked_error *err);
    /* The open (pending or running) heartbeat run of SCHEDULE with
     * LO < scheduled_for <= HI: the latest (LATEST) or the earliest;
     * *found false when none (PostgreSQL: locked FOR UPDATE). */
    int (*heartbeat_open)(sked__tx *tx, const char *schedule, sked_time lo,
                          sked_time hi, bool latest, sked_run *out, bool *found,
                          sked_error *err);
    /* Every schedule's freshness, by name (store_row.h,
     * SKED__SCHEDULE_FRESH_SQL). */
    int (*schedules_fresh)(sked__tx *tx, sked_schedule_fresh **out, size_t *n,
                           sked_error *err);
    /* Insert (WORKFLOW, VERSION) or move its registered_at to NOW. */
    int (*workflow_register)(sked__tx *tx, const char *workflow,
                             const char *version, const char *definition,
                             sked_time now, sked_error *err);
    /* The version with the latest registered_at (then the greatest
     * version); *out owned; SKED_ENOTFOUND. */
    int (*workflow_latest)(sked__tx *tx, const char *workflow, char **out,
                           sked_error *err);
    /* Every workflow's latest version as one JSON array text, by name:
     * [{"name","version","registered_at" (µs),"definition" (JSON)}];
     * *out owned. */
    int (*workflows_list)(sked__tx *tx, char **out, sked_error *err);

    /* ---- calendars (schema 0009) ----------------------------------------
     * Rows as one JSON array text, by name: [{"name", "definition" (the
     * JSON object), "source", "app", "created_at", "updated_at" (µs)}];
     * NAME NULL: every calendar, else at most that one. *out owned. */
    int (*calendars_read)(sked__tx *tx, const char *name, char **out,
                          sked_error *err);
    /* Insert R (CREATE) or replace the definition, source and app of the
     * existing row R->name, setting updated_at (created_at on insert) to
     * R->now. */
    int (*calendar_write)(sked__tx *tx, const sked__calendar_row *r,
                          bool create, sked_error *err);
    int (*calendar_delete)(sked__tx *tx, const char *name, bool *existed,
                           sked_error *err);
    /* The mark of the calendars' state: how many writes and deletes
     * there have been (calendar_write and calendar_delete count them in
     * meta) and how many calendars there are. */
    int (*calendars_stamp)(sked__tx *tx, int64_t out[2], sked_error *err);
    /* The names of the schedules whose exclude or only names calendar
     * NAME, joined by newlines, by name, into *out (owned), or NULL when
     * none does (schema 0010). */
    int (*calendar_users)(sked__tx *tx, const char *name, char **out,
                          sked_error *err);

    /* ---- skipped occurrences (schema 0011) -----------------------------
     * Insert K (its schedule's row must exist); *created false when the
     * occurrence was skipped already (the row is kept as it was). */
    int (*skip_write)(sked__tx *tx, const sked_skip *k, bool *created,
                      sked_error *err);
    int (*skip_delete)(sked__tx *tx, const char *schedule, sked_time occurrence,
                       bool *existed, sked_error *err);
    /* Every skip of the N schedules NAMES into *out (owned: *n entries,
     * sked_skips_free), in no given order. */
    int (*skips_read)(sked__tx *tx, const char *const *names, size_t n,
                      sked_skip **out, size_t *nout, sked_error *err);

    /* ---- notifiers and their outbox (schema 0013, store_notify.c) --------
     * Notifier rows as one JSON array text, by name: [{"name", "kind",
     * "config" (object), "events" (array), "schedules" (array or null),
     * "retry_for_us", "source", "app", "created_at", "updated_at"}]; NAME
     * NULL: every one, else at most that one. *out owned. */
    int (*notifiers_read)(sked__tx *tx, const char *name, char **out,
                          sked_error *err);
    /* Insert R, or replace every column of the row R->name but its
     * created_at; *created tells which. */
    int (*notifier_write)(sked__tx *tx, const sked__notifier_row *r,
                          bool *created, sked_error *err);
    /* Delete NAME, and fail its pending deliveries with the error
     * "notifier deleted" at NOW; *existed tells whether a row was
     * deleted. */
    int (*notifier_delete)(sked__tx *tx, const char *name, sked_time now,
                           bool *existed, sked_error *err);
    /* Queue the deliveries of TEXT, a JSON array of [event_id,
     * notifier, okey, unscheduled (0 or 1), created_at, deadline_at]
     * (sked__delivery_new), as one row of notify_queue. */
    int (*deliveries_queue)(sked__tx *tx, const char *text, sked_error *err);
    /* Make every queued delivery a row of notify_deliveries (pending,
     * no attempt yet), in queue order, and empty the queue; a row whose
     * (event_id, notifier) exists is left as it is. PostgreSQL: a queue
     * row another transaction is expanding is waited for, so that the
     * deliveries of a key become rows in event order. */
    int (*deliveries_expand)(sked__tx *tx, sked_error *err);
    /* Lease to Q->owner until Q->lease_until, attempts + 1, at most
     * Q->limit pending deliveries due at Q->now (next_attempt_at <= now,
     * no lease or an expired one), each the first pending one of its
     * (notifier, okey) by event id; PostgreSQL: FOR UPDATE SKIP LOCKED.
     * *out: JSON array text of them [{"id", "event_id", "notifier",
     * "event" (the object of a copy written before 0014, else null),
     * "attempts", "deadline_at", "created_at", and the event's row:
     * "ev_schedule", "ev_type", "ev_subject", "ev_at", "ev_payload"
     * (object); sked__notify_row_event}]. */
    int (*deliveries_claim)(sked__tx *tx, const sked__delivery_claim *q,
                            char **out, sked_error *err);
    /* Write the end of an attempt E to its row if E->owner still holds
     * the lease; *applied tells whether it did. */
    int (*delivery_finish)(sked__tx *tx, const sked__delivery_end *e,
                           bool *applied, sked_error *err);
    /* Deliveries of NOTIFIER (NULL: every one) with id < BEFORE_ID (0:
     * any), newest first, at most LIMIT, as one JSON array text of
     * objects of every column but unscheduled (event as an object, or
     * null and the event's row as deliveries_claim gives it). */
    int (*deliveries_list)(sked__tx *tx, const char *notifier,
                           int64_t before_id, size_t limit, char **out,
                           sked_error *err);
    /* Whether any delivery is due at NOW (as deliveries_claim would take
     * it, the head test aside): *out 1, else 0. A read, so that an idle
     * server's look each tick writes nothing. */
    int (*deliveries_due)(sked__tx *tx, sked_time now, int64_t *out,
                          sked_error *err);
    /* Delete the deliveries delivered or failed before BEFORE (by their
     * updated_at): the events' retention. */
    int (*deliveries_prune)(sked__tx *tx, sked_time before, sked_error *err);

    /* ---- notifications (NULL for SQLite) ---------------------------------
     * A listener is a connection of its own, outside the pool, that
     * listens on CHANNEL. listen_wait blocks at most TIMEOUT_MS (or until
     * listen_wake) and calls FN(CTX, payload) for each notification; a
     * dropped connection is reported as SKED_EIO and reconnected by the
     * next wait. listen_wake may be called from any thread. */
    int (*listen_open)(sked__backend *b, const char *channel, void **out,
                       sked_error *err);
    int (*listen_wait)(void *l, int timeout_ms,
                       void (*fn)(void *ctx, const char *payload), void *ctx,
                       sked_error *err);
    void (*listen_wake)(void *l);
    void (*listen_close)(void *l);

    /* ---- events -------------------------------------------------------- */
    /* Append one event; PAYLOAD is JSON text, never NULL here. */
    int (*event_append)(sked__tx *tx, const char *type, const char *subject,
                        const char *payload, sked_time at, sked_error *err);
    /* Events with id > AFTER_ID that F matches (NULL: all), oldest first,
     * at most LIMIT. */
    int (*event_list)(sked__tx *tx, int64_t after_id, size_t limit,
                      const sked__event_filter *f, sked_event **out, size_t *n,
                      sked_error *err);
    /* The id of the newest event into *out; 0 when there is none. */
    int (*event_last)(sked__tx *tx, int64_t *out, sked_error *err);
    /* Delete events with at < BEFORE; *deleted is the count. */
    int (*event_prune)(sked__tx *tx, sked_time before, int64_t *deleted,
                       sked_error *err);
};

extern const struct sked__store_ops sked__store_sqlite_ops;
#ifdef SKED_HAVE_PG_STORE
extern const struct sked__store_ops sked__store_pg_ops;
#endif

/* Embedded schemas (generated from src/store/schema/<dialect>/ at build
 * time; see tools/embed_sql.cmake). */
extern const struct sked__migration sked__schema_sqlite[];
extern const struct sked__migration sked__schema_pg[];

#endif
