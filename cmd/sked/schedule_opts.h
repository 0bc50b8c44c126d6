/* SPDX-License-Identifier: MIT */
/* The options that define a schedule, shared by "sked schedule create"
 * and "sked schedule update": read as text by cli_parse, then turned into
 * the fields of a sked_schedule, each checked as it is converted and the
 * whole by sked_schedule_validate. A failure names the option and the
 * field ("invalid --catchup-max \"0\": catchup_max: must be ..."). */
#ifndef SKED_CMD_SCHEDULE_OPTS_H
#define SKED_CMD_SCHEDULE_OPTS_H

#include <stdbool.h>

#include "cli.h"
#include "sked/sked.h"

/* Most options a schedule command takes, with its own and --db. */
#define SCHED_OPTS_MAX 40

/* The options as written; NULL when not given. Borrowed from argv. */
typedef struct sched_flags {
    const char *name, *workflow, *cron, *every, *at, *anchor;
    const char *timezone, *dst, *context;
    const char *catchup, *catchup_max, *catchup_window, *overlap;
    const char *priority, *queue, *jitter;
    const char *start_at, *end_at, *max_runs, *pause_after_failures;
    const char *description;
    bool paused, automatic_backfill, no_automatic_backfill;
    bool allow_past; /* --allow-past: an "at" already past */
    const char *db, *server;
    bool json;
} sched_flags;

/* Write into OPTS (room for SCHED_OPTS_MAX) the options every schedule
 * definition takes, pointing into F, and return how many. */
int sched_opts_common(sched_flags *f, cli_opt *opts);

/* Apply the options F gives to *s: a time spec given replaces the old
 * one; an empty --queue, --description, --timezone, --anchor, --start-at
 * or --end-at clears it. Returns 0 or the exit code (error printed). */
int sched_opts_apply(const sched_flags *f, sked_schedule *s);

/* Check S whole before anything is written (sked_schedule_validate).
 * Returns 0 or the exit code, the error naming the option at fault. */
int sched_opts_validate(const sched_flags *f, const sked_schedule *s,
                        sked_tzdb *db);

/* Report ERR from the store about S (created or updated from F): by the
 * option when it names a field, else by the schedule. Returns the exit
 * code of RC. */
int sched_opts_fail(const sched_flags *f, const sked_schedule *s,
                    const char *verb, const sked_error *err, int rc);

#endif
