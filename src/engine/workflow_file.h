/* SPDX-License-Identifier: MIT */
/* The workflows file (SPEC 10): one YAML document declaring queues,
 * workflows with their steps and schedules, and schedules of workflows
 * registered elsewhere.
 *
 * The whole shape is read and checked here, so that a mistake anywhere
 * is reported before anything acts on the file: unknown keys, wrong
 * types, values out of range, steps that are not a DAG, schedules that
 * sked_schedule_validate refuses. Each error carries the line, the
 * column and the path of the key at fault ("schedules[0].timezone").
 *
 * Words: an action is what a step or a compensation does (exactly one of
 * run, sh, http, sleep); a key's path joins mapping keys with "." and
 * sequence indexes with "[i]".
 *
 * Schedules come out as sked_schedule values with source "code"; a
 * schedule under workflows.W names W as its workflow and, by default, as
 * its name. Everything else lives in an arena freed by
 * sked__workflow_file_done. Nothing here touches the store. */
#ifndef SKED_ENGINE_WORKFLOW_FILE_H
#define SKED_ENGINE_WORKFLOW_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sked/calendar.h"
#include "sked/schedule.h"

/* Largest file read; a workflows file is configuration, not data. */
#define SKED_WF_FILE_MAX (1 << 20)
/* Most items in one sequence or mapping of the file. */
#define SKED_WF_ITEMS_MAX 10000
/* Deepest nesting of a schedule's context. */
#define SKED_WF_CONTEXT_DEPTH_MAX 32
#define SKED_WF_PATH_MAX          320
#define SKED_WF_MSG_MAX           320

/* Where and why a file was refused. */
typedef struct sked_wf_error {
    int code;                    /* the SKED_E... returned */
    int line, column;            /* 1-based; 0 when not known */
    char path[SKED_WF_PATH_MAX]; /* empty for YAML syntax errors */
    char msg[SKED_WF_MSG_MAX];
} sked_wf_error;

typedef struct sked_wf_strs {
    char **v; /* arena */
    size_t n;
} sked_wf_strs;

typedef struct sked_wf_ints {
    int32_t *v; /* arena */
    size_t n;
} sked_wf_ints;

typedef struct sked_wf_kv {
    char *key, *value; /* arena */
} sked_wf_kv;

typedef struct sked_wf_kvs {
    sked_wf_kv *v; /* arena */
    size_t n;
} sked_wf_kvs;

typedef enum sked_wf_action_kind {
    SKED_WF_ACTION_NONE = 0,
    SKED_WF_ACTION_RUN,   /* an argv, no shell */
    SKED_WF_ACTION_SH,    /* a script for /bin/sh -c */
    SKED_WF_ACTION_HTTP,  /* a request */
    SKED_WF_ACTION_SLEEP, /* a durable timer */
} sked_wf_action_kind;

typedef struct sked_wf_http {
    char *method; /* arena; NULL: GET */
    char *url;    /* arena */
    sked_wf_kvs headers;
    char *body;          /* arena; NULL: none */
    sked_wf_ints expect; /* empty: any 2xx */
} sked_wf_http;

typedef struct sked_wf_retry {
    int32_t attempts; /* 0: not set (1) */
    sked_dur backoff, max_backoff;
    double multiplier; /* 0: not set */
    bool jitter;
    sked_wf_ints retry_on; /* empty: any failure */
} sked_wf_retry;

/* What a step or a compensation does, and how. */
typedef struct sked_wf_action {
    sked_wf_action_kind kind;
    sked_wf_strs run;
    char *sh; /* arena */
    sked_wf_http http;
    sked_dur sleep;
    sked_wf_kvs env;
    char *cwd, *user;             /* arena; NULL: not set */
    sked_dur timeout, kill_grace; /* 0: not set */
    sked_wf_retry retry;
    /* Keys seen, to tell "exactly one of run, sh, http, sleep". */
    unsigned seen;
} sked_wf_action;

typedef struct sked_wf_step {
    sked_wf_action a; /* first, so the key tables share offsets */
    char *name;       /* arena */
    sked_wf_strs needs;
    sked_wf_action *compensate; /* arena; NULL: none */
} sked_wf_step;

typedef struct sked_wf_timeout {
    sked_dur seconds;   /* 0: none */
    bool hard;          /* default true */
    bool fail_workflow; /* default true */
} sked_wf_timeout;

typedef struct sked_wf_workflow {
    char *name;    /* arena */
    char *queue;   /* arena; NULL: "default" */
    char *version; /* arena; NULL: a hash of the definition */
    sked_wf_timeout timeout;
    int32_t parallelism;      /* default 1 */
    bool env_inherit_all;     /* env_inherit: true */
    sked_wf_strs env_inherit; /* env_inherit: [names] */
    sked_wf_step *steps;      /* arena */
    size_t n_steps;
} sked_wf_workflow;

typedef struct sked_wf_queue {
    char *name;                 /* arena */
    int32_t concurrency;        /* 0: unlimited */
    int32_t worker_concurrency; /* 0: unlimited */
    int32_t rate_limit;         /* runs per rate_period; 0: none */
    sked_dur rate_period;
} sked_wf_queue;

typedef struct sked_wf_arena sked_wf_arena;

/* Where a schedule stands in the file, to report errors found later
 * (by the store's apply) at the right place. */
typedef struct sked_wf_where {
    int line, column;            /* 1-based: its first key */
    char path[SKED_WF_PATH_MAX]; /* "workflows.w.schedules[1]" */
} sked_wf_where;

typedef struct sked_wf_file {
    /* The app the file's schedules belong to (SPEC 3.5 code sync): its
     * "app" key; without one, sked__workflow_file_load names it after
     * the file (sked__workflow_file_default_app); "" when neither. */
    char app[SKED_NAME_MAX + 1];
    sked_wf_queue *queues; /* arena */
    size_t n_queues;
    sked_wf_workflow *workflows; /* arena */
    size_t n_workflows;
    /* Both kinds of schedules, in file order; owned (sked_schedule_done
     * on each, then free). */
    sked_schedule *schedules;
    size_t n_schedules;
    sked_wf_where *where; /* owned; one per schedule */
    /* The "calendars" key's, in file order, source "code"; owned
     * (sked_calendar_done on each, then free). */
    sked_calendar *calendars;
    size_t n_calendars;
    sked_wf_where *calendar_where; /* owned; one per calendar: its key */
    /* The "notifiers" key's, in file order, source "code"; owned
     * (sked__notifiers_free). */
    struct sked_notifier *notifiers;
    size_t n_notifiers;
    sked_wf_arena *arena; /* owned */
} sked_wf_file;

/* Parse the LEN bytes of TEXT as a workflows file and check it whole.
 * DB (borrowed) resolves schedules' zones. OUT: *out, released with
 * sked__workflow_file_done. Returns 0; SKED_ESYNTAX (not YAML);
 * SKED_EINVAL (a bad key or value); SKED_ETOOBIG; SKED_ENOMEM — with ERR
 * (may be NULL) saying where. *out is untouched on error. */
int sked__workflow_file_parse(const char *text, size_t len, sked_tzdb *db,
                              sked_wf_file *out, sked_wf_error *err);

/* Write into APP (SKED_NAME_MAX + 1 bytes) the app of a workflows file
 * PATH without an "app" key: its file name without the directory and
 * without a ".yaml" or ".yml" ending, each character that a name cannot
 * hold (SPEC: [A-Za-z0-9._-]) replaced by '-', at most SKED_NAME_MAX of
 * them; "default" when nothing is left. The same file gives the same app
 * on every host, wherever it lies. */
void sked__workflow_file_default_app(const char *path, char *app);

/* Read the file PATH (at most SKED_WF_FILE_MAX bytes) and parse it as
 * sked__workflow_file_parse does; without an "app" key, the app is
 * sked__workflow_file_default_app's. A file that cannot be read is SKED_EIO,
 * with ERR->msg giving the system's reason. */
int sked__workflow_file_load(const char *path, sked_tzdb *db, sked_wf_file *out,
                             sked_wf_error *err);

/* Read the regular file PATH whole into *TEXT (free; one byte more than
 * SKED_WF_FILE_MAX at most, so that a parse can tell it is too large)
 * and *LEN. SKED_EIO (ERR->msg the system's reason) when it cannot. */
int sked__wf_read_file(const char *path, char **text, size_t *len,
                       sked_wf_error *err);

/* Release what F holds and zero it. NULL does nothing. */
void sked__workflow_file_done(sked_wf_file *f);

/* Write ERR, an error of the store or the engine about the schedules of
 * F (read from FILE), into BUF of SIZE bytes: "FILE:LINE:COLUMN:
 * path.field: message" when it names "schedules[i]..." or
 * "calendars[i]...", i indexing F's schedules or calendars in order, else
 * "FILE: field: message". Returns false, BUF
 * untouched, when ERR names no field. */
bool sked__workflow_file_locate(const char *file, const sked_wf_file *f,
                                const sked_error *err, char *buf, size_t size);

/* Write ERR as one line, "FILE:LINE:COLUMN: path: message", leaving out
 * what ERR does not know, into BUF of SIZE bytes (always terminated). */
void sked__workflow_file_error_format(const sked_wf_error *err,
                                      const char *file, char *buf, size_t size);

#endif
