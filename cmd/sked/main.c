/* SPDX-License-Identifier: MIT */
/* The sked binary: one program, many subcommands (SPEC 7).
 *
 * The command tree starts here. Each top-level command lives in its own
 * cmd_<name>.c and exports one cli_cmd (cli.h); adding "server",
 * "schedule", "run", "apply", "events" or "mcp" is one file and one line
 * in top_cmds. "sked help A B" is "sked A B --help".
 *
 * Global options come before the command: "--db URL" names the database
 * of direct mode. It is handed down as $SKED_DB, the channel the
 * environment already uses, so every command reads one place and a
 * --db given after the command still wins. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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
    &cli_cmd_server, &cli_cmd_schedule, &cli_cmd_run, &cli_cmd_workflow,
    &cli_cmd_apply,  &cli_cmd_cron,     &help_cmd,    NULL,
};

static const cli_cmd root = {
    .name = "sked",
    .path = "sked",
    .summary = "sked, a durable workflow scheduler",
    .run = cli_run_group,
    .subs = top_cmds,
    .help = "Options:\n"
            "  --db URL    the database of direct mode: sqlite:PATH or\n"
            "              postgres://... (default $SKED_DB, else\n"
            "              sqlite:sked.db); also accepted after the command\n"
            "  -h, --help  show this help\n"
            "  --version   print the version\n",
};

/* Walk the tree along ARGV[1..] and print the help found there. */
static int help_run(const cli_cmd *self, int argc, char **argv)
{
    const cli_cmd *cmd = &root;

    for (int i = 1; i < argc; i++) {
        const cli_cmd *sub = cmd->subs ? cli_find(cmd, argv[i]) : NULL;

        if (!sub)
            return cli_usage_error(self, "unknown command \"%.64s\"", argv[i]);
        cmd = sub;
    }
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

/* Take the global options before the command off ARGV: move the command
 * to ARGV[1]. Returns 0 or the exit code of a usage error. */
static int global_options(int *argc, char **argv)
{
    while (*argc > 1 && strncmp(argv[1], "--db", 4) == 0 &&
           (argv[1][4] == '\0' || argv[1][4] == '=')) {
        const char *url = argv[1][4] == '=' ? argv[1] + 5 : NULL;
        int used = url ? 1 : 2;

        if (!url && *argc < 3)
            return cli_usage_error(&root, "option --db needs a value");
        if (!url)
            url = argv[2];
        if (setenv("SKED_DB", url, 1) != 0)
            return cli_fail(SKED_ENOMEM, "cannot set --db");
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
