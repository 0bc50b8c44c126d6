/* SPDX-License-Identifier: MIT */
/* A workflow's definition as the executor reads it (the inside of the
 * public sked_workflow, include/sked/workflow.h).
 *
 * One type serves both faces of sked: a C program's workflows, whose
 * steps are functions, and the server's, read from the workflows file,
 * whose steps run commands, send HTTP requests or sleep. Built and
 * checked by src/engine/workflow.c; read, hashed and released here
 * (workflow.c, workflow_json.c), so the executor needs nothing of the
 * engine. Immutable once registered, so worker threads read it without
 * locks. */
#ifndef SKED_MODEL_WORKFLOW_H
#define SKED_MODEL_WORKFLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sked/schedule.h"
#include "sked/workflow.h"

#define SKED_WORKFLOW_STEPS_MAX       256
#define SKED_WORKFLOW_PARALLELISM_MAX 64
#define SKED_RETRY_ATTEMPTS_MAX       100

typedef enum sked_action_kind {
    SKED_ACTION_FN = 0,    /* a C function */
    SKED_ACTION_EXEC = 1,  /* an argv, no shell */
    SKED_ACTION_SH = 2,    /* /bin/sh -c SCRIPT */
    SKED_ACTION_HTTP = 3,  /* one request */
    SKED_ACTION_SLEEP = 4, /* a durable timer */
} sked_action_kind;

/* Retry rules, with the retry_on list owned. */
typedef struct sked_retry_def {
    int32_t attempts; /* >= 1 */
    sked_dur backoff, max_backoff;
    double multiplier; /* >= 1 */
    bool jitter;
    int32_t *retry_on; /* owned; NULL when nretry_on is 0 */
    size_t nretry_on;
} sked_retry_def;

/* What a step or a compensation does. Every pointer is owned. */
typedef struct sked_action {
    sked_action_kind kind;
    sked_step_fn fn;
    void *userdata;
    char **argv; /* EXEC: NULL-terminated */
    char *sh;    /* SH */
    char **env;  /* EXEC, SH: "KEY=VALUE", NULL-terminated; may be NULL */
    char *cwd, *user;
    char *method, *url, *body; /* HTTP */
    char **headers;            /* HTTP: "Name: value"; nheaders */
    size_t nheaders;
    int32_t *expect; /* HTTP: accepted statuses; nexpect (0: any 2xx) */
    size_t nexpect;
    sked_dur sleep;      /* SLEEP */
    sked_dur timeout;    /* per attempt; 0: none */
    sked_dur kill_grace; /* 0: the default (10 s) */
    sked_retry_def retry;
} sked_action;

typedef struct sked_step_def {
    char *name;
    size_t *needs; /* indexes of the steps it needs; owned. Earlier steps
                      in a C program; any, in a DAG, from a file */
    size_t nneeds;
    sked_action act;
    sked_action *compensate; /* owned; NULL: none */
} sked_step_def;

struct sked_workflow {
    char *name, *queue, *version; /* version NULL until registered: then
                                     the given one or the hash */
    bool version_given;
    sked_dur timeout;   /* 0: none */
    bool fail_workflow; /* default true */
    bool hard;          /* default true */
    int parallelism;    /* 1..SKED_WORKFLOW_PARALLELISM_MAX */
    /* What its commands inherit of the server's environment (step_env.h):
     * all of it, or the names of ENV_INHERIT (owned, NULL-terminated;
     * NULL: none). */
    bool env_inherit_all;
    char **env_inherit;
    sked_step_def *steps;
    size_t nsteps, capsteps;
    sked_schedule *schedules; /* declared with sked_workflow_add_schedule */
    size_t nschedules;
};

/* Release what A owns and zero it. */
void sked__action_done(sked_action *a);

/* Free the NULL-terminated string vector V and its strings (NULL: none). */
void sked__strv_free(char **v);

/* Index of the step NAME in W, or -1. */
int sked__workflow_step_index(const sked_workflow *w, const char *name);

/* Set W->version to the hash of its definition when none was given.
 * Returns 0 or SKED_ENOMEM. */
int sked__workflow_seal(sked_workflow *w);

/* W's definition as JSON text (caller frees), for workflow_versions and
 * GET /api/v1/workflows. NULL when out of memory. */
char *sked__workflow_json(const sked_workflow *w);

#endif
