/* SPDX-License-Identifier: MIT */
/* The sked binary: one program, many subcommands (SPEC 7).
 *
 * The command tree starts here. Each top-level command lives in its own
 * cmd_<name>.c and exports one cli_cmd (cli.h); adding "server",
 * "schedule", "run", "apply", "events" or "mcp" is one file and one line
 * in top_cmds. "sked help A B" is "sked A B --help". */
#include <stdio.h>
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
    &cli_cmd_cron,
    &help_cmd,
    NULL,
};

static const cli_cmd root = {
    .name = "sked",
    .path = "sked",
    .summary = "sked, a durable workflow scheduler",
    .run = cli_run_group,
    .subs = top_cmds,
    .help = "Options:\n"
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

int main(int argc, char **argv)
{
    int rc;

    if ((rc = check_lengths(argc, argv)) != 0)
        return rc;
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        printf("sked %s\n", SKED_VERSION);
        return cli_flush();
    }
    return root.run(&root, argc, argv);
}
