/* SPDX-License-Identifier: MIT */
/* What a command runs and as whom (proc_who.c), for proc.c: the program
 * found in the PATH of the command's own environment, and the user ids
 * and groups of its `user`. */
#ifndef SKED_EXEC_PROC_WHO_H
#define SKED_EXEC_PROC_WHO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/error.h"
#include "exec/proc.h"

/* Who the child runs as. */
typedef struct user_ids {
    bool change; /* switch to these in the child (only as root) */
    uid_t uid;
    gid_t gid;
    gid_t *groups; /* owned: the supplementary groups */
    int ngroups;
} user_ids;

/* Fill BUF (SIZE bytes) with the file to run for SPEC's argv[0]: itself
 * when it has a '/', else the first executable of that name in the PATH
 * of SPEC's environment (execvp's default without one). Returns 0,
 * SKED_ENOTFOUND, or SKED_EINVAL, ERR naming argv. */
int sked__proc_program(const sked_proc_spec *spec, char *buf, size_t size,
                       sked_error *err);

/* Resolve the user NAME into U (U->groups: the caller frees). Only root
 * may run commands as someone else; anyone may name themselves. Returns
 * 0, SKED_ENOMEM, or SKED_EINVAL, ERR naming user. */
int sked__proc_user(const char *name, user_ids *u, sked_error *err);

#endif
