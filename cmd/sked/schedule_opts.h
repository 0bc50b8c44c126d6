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
#include "sked/schedule_fields.h"
#include "sked/sked.h"

/* Most options a schedule command takes: at most one a field of the
 * table, its own, --json, --db, --server and the end. */
#define SCHED_OPTS_ROW(...) +1
#define SCHED_OPTS_MAX      (SKED_SCHEDULE_FIELDS(SCHED_OPTS_ROW) + 8)

/* The options as written (NULL or false when not given; borrowed from
 * argv): one member for each row of the field table that has an option
 * (sked/schedule_fields.h), a flag for a boolean, then the commands' own. */
#define SCHED_FLAG_KEY(x)      x
#define SCHED_FLAG_DEF(x)      x
#define SCHED_FLAG_REQUEST(x)  x
#define SCHED_FLAG_VIEW(x)     x
#define SCHED_FLAG_INTERNAL(x) /* no option */
#define SCHED_FLAG_STATE(x)    /* no option */
#define SCHED_FLAG_CREATED(x)  /* no option */
#define SCHED_FLAG_T_BOOL      bool
#define SCHED_FLAG_T_PAUSED    bool
#define SCHED_FLAG_T_NAME      const char *
#define SCHED_FLAG_T_STR       const char *
#define SCHED_FLAG_T_CRON      const char *
#define SCHED_FLAG_T_RRULE     const char *
#define SCHED_FLAG_T_EVERY     const char *
#define SCHED_FLAG_T_AT        const char *
#define SCHED_FLAG_T_INSTANT   const char *
#define SCHED_FLAG_T_DUR       const char *
#define SCHED_FLAG_T_I32       const char *
#define SCHED_FLAG_T_I64       const char *
#define SCHED_FLAG_T_ENUM      const char *
#define SCHED_FLAG_T_CONTEXT   const char *
#define SCHED_FLAG_T_CALS      const char *
#define SCHED_FLAG_T_WORDS     const char * /* no option (no cli) */
#define SCHED_FLAG(member, kind, ctype, en, role, ...)                         \
    SCHED_FLAG_##role(SCHED_FLAG_T_##kind member;)

typedef struct sched_flags {
    SKED_SCHEDULE_FIELDS(SCHED_FLAG)
    bool no_automatic_backfill;
    const char *db, *server;
    bool json;
} sched_flags;

/* The --help lines of the options sched_opts_common adds, in the table's
 * order. */
#define SCHED_OPTS_HELP_LINE(member, kind, ctype, en, role, sql, json, yaml,   \
                             cli, bounds, def, help, ...)                      \
    help
#define SCHED_OPTS_HELP SKED_SCHEDULE_FIELDS(SCHED_OPTS_HELP_LINE)

/* Write into OPTS (room for SCHED_OPTS_MAX) the options every schedule
 * definition takes (the table's rows with --help lines), --json, --db and
 * --server, pointing into F, and return how many. */
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
