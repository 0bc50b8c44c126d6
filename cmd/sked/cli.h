/* SPDX-License-Identifier: MIT */
/* What every sked subcommand shares: the command tree, option parsing,
 * help, and the one-line error messages and exit codes (SPEC 7).
 *
 * Words: a command is a node of the tree "sked cron next"; a group is a
 * command with subcommands ("sked", "sked cron"); a leaf runs. Options are
 * "--name value", "--name=value", "-n value" or "-nvalue"; "--" ends them.
 *
 * Errors are one line on stderr, "sked: ...", and the exit code comes from
 * the error table (sked_error_exit_code): 1 for a bad value, 2 for a usage
 * mistake. The only state kept is whether a failure was already shown
 * (cli_fail_once), so that a command prints one line, not two. */
#ifndef SKED_CMD_CLI_H
#define SKED_CMD_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "sked/sked.h"

/* Returned by cli_parse when the command should go on running. */
#define CLI_CONTINUE (-1)
/* Most positional arguments any command takes. */
#define CLI_POS_MAX 8
/* Longest argument accepted: anything longer is a mistake, not input. */
#define CLI_ARG_MAX 4096

typedef struct cli_cmd cli_cmd;

/* Run the command SELF: ARGV[0] is its name, the rest its arguments.
 * Returns the process's exit code. */
typedef int (*cli_run_fn)(const cli_cmd *self, int argc, char **argv);

struct cli_cmd {
    const char *name;           /* "next" */
    const char *path;           /* "sked cron next", for messages */
    const char *summary;        /* one line, for the parent's help */
    const char *help;           /* a leaf's full help, from its "Usage:" line */
    cli_run_fn run;             /* cli_run_group for groups */
    const cli_cmd *const *subs; /* a group's commands, ending with NULL */
};

typedef enum cli_opt_kind {
    CLI_OPT_FLAG,  /* --utc: sets a bool */
    CLI_OPT_VALUE, /* --tz TZ: sets a const char * (borrowed from argv) */
    CLI_OPT_LIST,  /* --down X, repeatable: appends to a cli_list */
} cli_opt_kind;

/* Most values a repeatable option takes. */
#define CLI_LIST_MAX 1000

/* The values of a repeatable option, in order; borrowed from argv. */
typedef struct cli_list {
    const char *v[CLI_LIST_MAX];
    int n;
} cli_list;

typedef struct cli_opt {
    const char *name; /* "tz" for --tz */
    char short_name;  /* 'n' for -n, or 0 */
    cli_opt_kind kind;
    void *dest; /* bool *, const char ** or cli_list * */
} cli_opt;

/* The positional arguments cli_parse found; borrowed from argv. */
typedef struct cli_args {
    const char *pos[CLI_POS_MAX];
    int npos;
} cli_args;

/* The commands of the tree, one per cmd_<name>.c. */
extern const cli_cmd cli_cmd_cron;
extern const cli_cmd cli_cmd_schedule;
extern const cli_cmd cli_cmd_apply;
extern const cli_cmd cli_cmd_server;
extern const cli_cmd cli_cmd_run;
extern const cli_cmd cli_cmd_workflow;
extern const cli_cmd cli_cmd_events;
extern const cli_cmd cli_cmd_calendar;
extern const cli_cmd cli_cmd_notify;
extern const cli_cmd cli_cmd_mcp;
extern const cli_cmd cli_cmd_completion;
/* Subcommands of "sked schedule" that live in cmd_schedule_ops.c. */
extern const cli_cmd cli_cmd_schedule_trigger;
extern const cli_cmd cli_cmd_ping;
extern const cli_cmd cli_cmd_schedule_backfill;
/* One occurrence: in cmd_schedule_occ.c. */
extern const cli_cmd cli_cmd_schedule_skip;
extern const cli_cmd cli_cmd_schedule_unskip;
extern const cli_cmd cli_cmd_schedule_skips;
extern const cli_cmd cli_cmd_schedule_run;
/* "sked schedule simulate", in cmd_simulate.c. */
extern const cli_cmd cli_cmd_schedule_simulate;
/* "sked schedule preview", in cmd_schedule_preview.c. */
extern const cli_cmd cli_cmd_schedule_preview;

/* The root of the tree, "sked" (main.c). */
const cli_cmd *cli_root(void);

/* Run a group: find the subcommand named by ARGV[1] and run it, or print
 * the group's help for "--help". */
int cli_run_group(const cli_cmd *self, int argc, char **argv);

/* Print the help of CMD (a leaf's text, or a group's command list) to
 * stdout. Returns 0. */
int cli_help(const cli_cmd *cmd);

/* Return the subcommand of GROUP named NAME, or NULL. */
const cli_cmd *cli_find(const cli_cmd *group, const char *name);

/* Parse ARGV[1..ARGC) of SELF against OPTS (ending with {0}) into the
 * options' destinations and OUT. "-h"/"--help" print SELF's help.
 * Returns CLI_CONTINUE, 0 (help printed) or 2 (usage error printed). */
int cli_parse(const cli_cmd *self, int argc, char **argv, const cli_opt *opts,
              cli_args *out);

/* cli_parse for a command that takes options only: a positional
 * argument is a usage error. Returns CLI_CONTINUE, 0 or 2, as cli_parse. */
int cli_parse_options(const cli_cmd *self, int argc, char **argv,
                      const cli_opt *opts);

/* Check that ARGS holds exactly one positional argument, named WHAT in
 * the usage error ("missing the schedule name"). Returns 0 or 2. */
int cli_one_arg(const cli_cmd *self, const cli_args *args, const char *what);

/* Print "sked: MSG (see 'PATH --help')" and return the usage exit code. */
int cli_usage_error(const cli_cmd *self, const char *fmt, ...)
    SKED__PRINTF(2, 3);

/* Print `sked: invalid WHAT "INPUT": FIELD: MSG (at byte POS+1)`, leaving
 * out the parts ERR does not fill; return the exit code of ERR->code. */
int cli_invalid(const char *what, const char *input, const sked_error *err);

/* Print "sked: MSG" and return the exit code of CODE; print nothing
 * when cli_fail_once already reported the failure. */
int cli_fail(int code, const char *fmt, ...) SKED__PRINTF(2, 3);

/* Print "sked: warning: MSG" on stderr; the command goes on. */
void cli_warn(const char *msg);

/* Print "sked: MSG" for a failure whose callers would report it again
 * (remote mode's "cannot reach ..."): the next cli_fail lines of the
 * command are left out, so the user reads one line. Returns CODE. */
int cli_fail_once(int code, const char *fmt, ...) SKED__PRINTF(2, 3);

/* Note that a failure was printed by other means (cli_fail_once's
 * silence without its line). */
void cli_mark_shown(void);

/* Parse S as a whole number in MIN..MAX into *out. Returns 0, or prints a
 * usage error naming FLAG and returns 2. */
int cli_parse_count(const cli_cmd *self, const char *flag, const char *s,
                    long min, long max, long *out);

/* Parse the RFC 3339 instant S given to option FLAG into *out. Returns
 * 0, or the exit code after printing "invalid FLAG" with the field and
 * byte at fault. */
int cli_parse_instant(const char *flag, const char *s, sked_time *out);

/* Format into a new string (free), as printf; NULL when out of memory. */
char *cli_format(const char *fmt, ...) SKED__PRINTF(1, 2);

/* Return the current wall-clock time. */
sked_time cli_now(void);

/* Flush stdout; on a write error print it and return 1, else 0. */
int cli_flush(void);

#endif
