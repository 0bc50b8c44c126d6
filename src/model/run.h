/* SPDX-License-Identifier: MIT */
/* Runs and their steps' attempts as sked knows them (SPEC 4): the run's
 * and the step's statuses, the trigger kinds, a run and one attempt of a
 * step, with the words they are stored and shown with. The store reads
 * and writes them (store/store_run.h), the executor works on them, the
 * model writes them as JSON (run_json.h); their columns are listed once
 * in run_fields.h and step_fields.h. */
#ifndef SKED_MODEL_RUN_H
#define SKED_MODEL_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sked/run.h"
#include "sked/schedule.h" /* SKED_TIME_NONE */
#include "sked/time.h"

/* The public words (sked/run.h) under the model's own names. */
#define sked__trigger_name(t)     sked_trigger_name(t)
#define sked__run_status_name(s)  sked_run_status_name(s)
#define sked__step_status_name(s) sked_step_status_name(s)

/* A run as stored. Every string is owned (NULL when the column is NULL);
 * release with sked__run_done. */
typedef struct sked_run {
    char *id, *workflow, *workflow_version, *schedule, *queue;
    char *concurrency_key, *serial_key, *executor;
    char *context;    /* JSON object text */
    char *output;     /* JSON or text; NULL until it completes */
    char *error;      /* "Workflow timeout." */
    char *error_code; /* "timeout", "step_failed", "cancelled", ... */
    sked_run_status status;
    sked_trigger trigger;
    int32_t priority;
    int32_t attempts; /* times it was claimed */
    sked_time scheduled_for, not_before, lease_until;
    sked_time occurrence; /* the schedule's occurrence; NONE: none */
    sked_time created_at, started_at, finished_at, updated_at;
    sked_time cancel_requested_at; /* NONE: no cancel asked */
    sked_time timeout_exceeded_at; /* NONE: the soft timeout not reached */
    sked_time deadline_at;         /* its next deadline check; NONE: none */
    char *deadline_missed;         /* "start", "completion", both; NULL */
    /* The failure path (SPEC 4.3) was entered: OUTCOME (failed or
     * cancelled) is the status the run ends with once its compensations
     * ran. Stored as runs.outcome (NULL, 'failed' or 'cancelled'). */
    bool failing;
    sked_run_status outcome;
    /* Set by a claim only: the run's lease had expired (its executor
     * died) and this claim took it over (event run.recovered). */
    bool recovered;
} sked_run;

/* R with every instant NONE, the rest zero. */
void sked__run_init(sked_run *r);
void sked__run_done(sked_run *r);
void sked__runs_free(sked_run *list, size_t n);

/* The words of sked__run_status_name, sked__trigger_name and
 * sked__step_status_name back into *out; SKED_EINVAL when WORD is none of
 * them (or NULL). For the back-ends reading rows. */
int sked__run_status_parse(const char *word, sked_run_status *out);
int sked__trigger_parse(const char *word, sked_trigger *out);

int sked__step_status_parse(const char *word, sked_step_status *out);

/* One attempt of one step (a row of the steps table). Strings owned
 * (sked__step_records_free) when read back; borrowed when written. */
typedef struct sked_step_record {
    char *step;        /* the step's name */
    bool compensation; /* an attempt of the step's compensation */
    int32_t attempt;   /* 1, 2, ... per (step, compensation) */
    sked_step_status status;
    char *output;      /* stdout, the http body, or a C step's JSON */
    char *stderr_text; /* exec steps only */
    int truncated;     /* bit 1: output, bit 2: stderr */
    char *error;       /* why it failed */
    char *error_code;  /* "exit", "timeout", "cancelled", "exec_failed",
                          "http_status", "http_failed", "lease_expired",
                          "step_failed" */
    int32_t exit_code; /* exec: the exit status; -1 when none */
    sked_time started_at, finished_at; /* finished NONE while running */
} sked_step_record;

/* Free the strings of S and zero it. */
void sked__step_record_done(sked_step_record *s);
void sked__step_records_free(sked_step_record *list, size_t n);

/* One run to insert (the store's sked__store_runs_insert and firing).
 * Strings are borrowed from the caller. */
typedef struct sked_run_new {
    const char *id; /* the idempotency key (SPEC 3.1) */
    const char *workflow;
    const char *workflow_version; /* NULL: latest */
    const char *schedule;         /* NULL for API runs */
    sked_trigger trigger;
    sked_time scheduled_for; /* NONE for manual and API runs */
    sked_time occurrence;    /* the occurrence it is for, when not
                                scheduled_for (moved off an excluded
                                day); 0 or NONE: scheduled_for */
    const char *queue;       /* NULL: "default" */
    int32_t priority;
    const char *concurrency_key; /* NULL: none */
    sked_time not_before;        /* NONE: now */
    const char *context;         /* JSON; NULL: {} */
    const char *serial_key;      /* NULL: none; runs sharing one run one at
                                    a time, none dropped (schema 0002) */
    bool buffered; /* held by overlap buffer_one/buffer_all behind an active
                      run: created "waiting" rather than "pending" (SPEC
                      4.1); the serial key decides when it goes */
    sked_time deadline_at; /* its first deadline check (schema 0012); 0 or
                              NONE: none */
} sked_run_new;

#endif
