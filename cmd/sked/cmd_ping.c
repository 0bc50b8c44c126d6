/* SPDX-License-Identifier: MIT */
/* "sked ping NAME [--status S] [--body TEXT|-]": a job that runs elsewhere
 * (a crontab line: "... && sked ping nightly-backup") tells its heartbeat
 * schedule it started, succeeded or failed (sked_engine_schedule_ping),
 * directly on the database or through a server. Prints the run's id.
 * "--body -" reads the output from stdin, at most SKED_PING_BODY_MAX
 * bytes: more is refused, as the server refuses it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "direct.h"
#include "output.h"
#include "target.h"

/* Read stdin whole into *out (free): at most SKED_PING_BODY_MAX bytes. */
static int read_stdin(const cli_cmd *self, char **out)
{
    char *buf = malloc(SKED_PING_BODY_MAX + 2);
    size_t n = 0, k;

    if (!buf)
        return cli_fail(SKED_ENOMEM, "out of memory");
    while ((k = fread(buf + n, 1, SKED_PING_BODY_MAX + 1 - n, stdin)) > 0 &&
           n + k <= SKED_PING_BODY_MAX)
        n += k;
    if (n + k > SKED_PING_BODY_MAX) {
        free(buf);
        return cli_usage_error(self, "--body: stdin holds more than %d bytes",
                               SKED_PING_BODY_MAX);
    }
    buf[n] = '\0';
    *out = buf;
    return 0;
}

static int ping(const cli_cmd *self, int argc, char **argv)
{
    const char *db = NULL, *server = NULL, *status_s = NULL, *body = NULL;
    bool json = false;
    const cli_opt opts[] = {
        {"status", 0, CLI_OPT_VALUE, &status_s},
        {"body", 0, CLI_OPT_VALUE, &body},
        {"json", 0, CLI_OPT_FLAG, &json},
        {"db", 0, CLI_OPT_VALUE, &db},
        {"server", 0, CLI_OPT_VALUE, &server},
        {0},
    };
    sked_ping_status status = SKED_PING_SUCCESS;
    char *id = NULL, *input = NULL;
    target *t = NULL;
    cli_args args;
    sked_error err;
    int rc;

    if ((rc = cli_parse(self, argc, argv, opts, &args)) != CLI_CONTINUE ||
        (rc = cli_one_arg(self, &args, "schedule name")) != 0)
        return rc;
    if (status_s && sked_ping_status_parse(status_s, &status) != 0)
        return cli_usage_error(
            self, "--status: \"%s\" is not start, success or fail", status_s);
    if (body && strcmp(body, "-") == 0) {
        if ((rc = read_stdin(self, &input)) != 0)
            return rc;
        body = input;
    }
    if ((rc = target_open(self, db, server, NULL, &t)) == 0) {
        sked_error_clear(&err);
        rc = t->ops->schedule_ping(t, args.pos[0], status, body, &id, &err);
        if (rc < 0)
            rc = direct_schedule_fail("ping", args.pos[0], &err, rc);
        else if (json)
            rc = out_json(json_pack("{s:s}", "run_id", id));
        else
            rc = (printf("%s\n", id), cli_flush());
        target_close(t);
    }
    free(id);
    free(input);
    return rc;
}

const cli_cmd cli_cmd_ping = {
    .name = "ping",
    .path = "sked ping",
    .summary = "Tell a heartbeat schedule its job started, succeeded or failed",
    .run = ping,
    .help =
        "Usage: sked ping NAME [--status S] [--body TEXT|-] [--json]\n"
        "\n"
        "Ping the heartbeat schedule NAME (heartbeat: true) for a job that\n"
        "runs elsewhere, as the last command of its crontab line:\n"
        "  0 2 * * * backup.sh && sked ping nightly-backup\n"
        "The ping is for the run of the latest occurrence not yet ended, or\n"
        "of the next one when it is at most a minute ahead. Without a\n"
        "ping within the schedule's deadline, the run fails\n"
        "(deadline_missed). Prints the run's id. Exit code 3 when NAME\n"
        "does not exist, 4 when no occurrence awaits a ping.\n"
        "\n"
        "Options:\n"
        "  --status S     start, success (default) or fail\n"
        "  --body TEXT    the run's output (-: read stdin, at most 64 KiB)\n"
        "  --json         print {\"run_id\"}\n" TARGET_HELP
        "  -h, --help     show this help\n",
};
