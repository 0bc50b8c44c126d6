/* SPDX-License-Identifier: MIT */
/* The sked binary: one program, many subcommands (SPEC 7).
 *
 * The command tree starts here. Each top-level command lives in its own
 * cmd_<name>.c and exports one cli_cmd (cli.h); adding "server",
 * "schedule", "run", "apply", "events" or "mcp" is one file and one line
 * in top_cmds. "sked help A B" is "sked A B --help".
 *
 * Global options come before the command: "--db URL" names the database
 * of direct mode, "--server URL" the server of remote mode (target.h).
 * --db is also handed down as $SKED_DB, the channel the environment
 * already uses, for the commands that only know direct mode; both are
 * remembered as given, so that a command sees them as its own options
 * (one given after the command still wins, and --db with --server is a
 * usage error wherever each is written). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "helpdoc.h"
#include "target.h"

static int help_run(const cli_cmd *self, int argc, char **argv);

static const cli_cmd help_cmd = {
    .name = "help",
    .path = "sked help",
    .summary = "Show help for a command",
    .run = help_run,
    .help = "Usage: sked help [COMMAND...]\n"
            "\n"
            "Show the help of a command, as \"sked COMMAND... --help\" "
            "does.\n",
};

static const cli_cmd *const top_cmds[] = {
    &cli_cmd_server,   &cli_cmd_schedule,
    &cli_cmd_run,      &cli_cmd_workflow,
    &cli_cmd_calendar, &cli_cmd_notify,
    &cli_cmd_apply,    &cli_cmd_ping,
    &cli_cmd_events,   &cli_cmd_cron,
    &cli_cmd_mcp,      &cli_cmd_completion,
    &help_cmd,         NULL,
};

static const cli_cmd root = {
    .name = "sked",
    .path = "sked",
    .summary = "sked, a durable workflow scheduler",
    .run = cli_run_group,
    .subs = top_cmds,
    .help = "Options:\n"
            "  --db URL      the database of direct mode: sqlite:PATH or\n"
            "                postgres://... (default $SKED_DB, else\n"
            "                sqlite:sked.db); also accepted after the "
            "command\n"
            "  --server URL  remote mode: go through the API of the server\n"
            "                at URL (default $SKED_SERVER; token:\n"
            "                $SKED_TOKEN); also accepted after the command\n"
            "  -h, --help    show this help\n"
            "  --version     print the version\n",
};

const cli_cmd *cli_root(void)
{
    return &root;
}

/* Walk the tree along ARGV[1..] and print the help found there.
 * "--scdoc", left out of the help, prints the man pages' parts instead
 * (docs/man): the options and commands of sked(1), or with a command
 * after it that command's options. */
static int help_run(const cli_cmd *self, int argc, char **argv)
{
    const cli_cmd *cmd = &root;
    bool scdoc = argc > 1 && strcmp(argv[1], "--scdoc") == 0;

    if (scdoc && argc == 2)
        return helpdoc_scdoc(&root, stdout) != 0 ? 1 : cli_flush();
    for (int i = scdoc ? 2 : 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return cli_help(self);
        const cli_cmd *sub = cmd->subs ? cli_find(cmd, argv[i]) : NULL;

        if (!sub)
            return cli_usage_error(self, "unknown command \"%.64s\"", argv[i]);
        cmd = sub;
    }
    if (scdoc)
        return helpdoc_scdoc_options(cmd, stdout) != 0 ? 1 : cli_flush();
    return cli_help(cmd);
}

/* Refuse arguments no command could want, before reading any. */
static int check_lengths(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strnlen(argv[i], CLI_ARG_MAX + 1) > CLI_ARG_MAX)
            return cli_fail(SKED_ETOOBIG, "argument %d is longer than %d bytes",
                            i, CLI_ARG_MAX);
    return 0;
}

/* If ARG is the option NAME ("--db" or "--db=URL"), return its value
 * (the next argument for the first form; NULL when there is none) and
 * set *used to the arguments it takes. Return NULL with *used 0 else. */
static const char *global_value(const char *name, int argc, char **argv,
                                int *used)
{
    size_t n = strlen(name);

    *used = 0;
    if (strncmp(argv[1], name, n) != 0 ||
        (argv[1][n] != '\0' && argv[1][n] != '='))
        return NULL;
    if (argv[1][n] == '=')
        return *used = 1, argv[1] + n + 1;
    *used = argc < 3 ? -1 : 2;
    return argc < 3 ? NULL : argv[2];
}

/* Take the global options before the command off ARGV: move the command
 * to ARGV[1]. Returns 0 or the exit code of a usage error. */
static int global_options(int *argc, char **argv)
{
    while (*argc > 1) {
        int used;
        const char *db = global_value("--db", *argc, argv, &used);
        const char *server =
            used ? NULL : global_value("--server", *argc, argv, &used);

        if (used == 0)
            break;
        if (used < 0)
            return cli_usage_error(&root, "option %s needs a value", argv[1]);
        if (db && setenv("SKED_DB", db, 1) != 0)
            return cli_fail(SKED_ENOMEM, "cannot set --db");
        target_set_global(db, server);
        memmove(argv + 1, argv + 1 + used,
                (size_t) (*argc - used) * sizeof *argv);
        *argc -= used;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int rc;

    if ((rc = check_lengths(argc, argv)) != 0 ||
        (rc = global_options(&argc, argv)) != 0)
        return rc;
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        printf("sked %s\n", SKED_VERSION);
        return cli_flush();
    }
    return root.run(&root, argc, argv);
}
