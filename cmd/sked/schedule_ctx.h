/* SPDX-License-Identifier: MIT */
/* What a "sked schedule" command on one schedule holds: the zone
 * database, the target (the database or a server) and the schedule
 * read (cmd_schedule.c; preview in cmd_schedule_preview.c). */
#ifndef SKED_CMD_SCHEDULE_CTX_H
#define SKED_CMD_SCHEDULE_CTX_H

#include "cli.h"
#include "target.h"

/* Released by schedule_ctx_done; zero it before use. */
typedef struct schedule_ctx {
    sked_tzdb *tzdb;
    target *t;
    sked_schedule s;
} schedule_ctx;

void schedule_ctx_done(schedule_ctx *c);

/* Open the zone database and the target of --db DB or --server SERVER
 * into *c. Returns 0 or the exit code. */
int schedule_ctx_open(schedule_ctx *c, const cli_cmd *self, const char *db,
                      const char *server);

/* Read the schedule NAME into c->s. Returns 0 or the exit code. */
int schedule_ctx_get(schedule_ctx *c, const char *name);

#endif
