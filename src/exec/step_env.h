/* SPDX-License-Identifier: MIT */
/* The environment of a step's command (SPEC 4.4, docs/execution.md "The
 * step environment"), as cron and systemd give a job theirs: a small base,
 * then what the workflow asks to inherit from the server, then the step's
 * own env, then sked's SKED_ run variables.
 *
 * The server's environment is not passed by default: it holds sked's own
 * configuration (SKED_DB, which may carry a PostgreSQL password,
 * SKED_TOKEN, SKED_SERVER) and whatever else its service manager gave
 * it. A workflow may ask for all of it or for names (env_inherit); names
 * beginning with SKED_ are never inherited, and naming one is an error.
 *
 * The composition is a pure function of its inputs; sked__step_env_who
 * is the one lookup around it (the user's name and home). */
#ifndef SKED_EXEC_STEP_ENV_H
#define SKED_EXEC_STEP_ENV_H

#include <stdbool.h>
#include <stddef.h>

/* The base PATH: systemd's for services. */
#define SKED_STEP_PATH                                                         \
    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* The prefix of sked's own variables: its configuration in the server's
 * environment, its run variables in a step's. */
#define SKED_ENV_PREFIX "SKED_"

/* The longest name env_inherit may hold. */
#define SKED_ENV_NAME_MAX 128

typedef struct sked_step_env_in {
    const char *const *server;  /* the server's environment, "K=V";
                                   NULL-terminated; may be NULL */
    bool inherit_all;           /* all of the server's (but SKED_*) */
    const char *const *inherit; /* else these names; NULL-terminated;
                                   may be NULL */
    const char *const *step;    /* the step's env, "K=V"; may be NULL */
    const char *const *run;     /* the SKED_ run variables, "K=V" */
    const char *user;           /* whom it runs as; NULL: unknown */
    const char *home;           /* their home; NULL: "/" */
} sked_step_env_in;

/* Compose IN into *OUT: a NULL-terminated array of owned "K=V" strings,
 * each key once, later sources winning (base, inherited, step, run).
 * Released with sked__step_env_free. Returns 0 or SKED_ENOMEM. */
int sked__step_env_compose(const sked_step_env_in *in, char ***out);

void sked__step_env_free(char **env);

/* Why NAME cannot be inherited (not a variable name, or one of sked's
 * own), or NULL when it can. */
const char *sked__step_env_inherit_problem(const char *name);

/* Fill NAME and HOME with the user named USER (NULL: the process's
 * effective user), from the user database. Returns 0, or -1 when there
 * is no such user (then both are empty). */
int sked__step_env_who(const char *user, char *name, size_t name_size,
                       char *home, size_t home_size);

#endif
