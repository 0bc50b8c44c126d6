/* SPDX-License-Identifier: MIT */
/* One occurrence of a schedule, through the engine (direct mode) or the
 * server's API (remote mode), with the same output:
 *
 *   skip NAME --at T [--reason S]   drop the occurrence T ahead of time
 *   unskip NAME --at T              undo it
 *   skips NAME                      the pending skips, with who and why
 *   run NAME --at T                 run the past occurrence T now, with
 *                                   the id firing gives it
 *
 * T must be an occurrence of NAME's time spec: otherwise the error names
 * "at" and the nearest occurrences. A skip of an occurrence already
 * decided exits 4. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "direct.h"
#include "engine/answer.h"
#include "output.h"
#include "target.h"

/* Parse --at into *at; a missing one is a usage error. */
static int need_at(const cli_cmd *self, const char *s, sked_time *at)
{
    if (!s)
        return cli_usage_error(self, "missing --at: the occurrence, an RFC "
                                     "3339 instant");
    return cli_parse_instant("--at", s, at);
}

static int skip_common(const cli_cmd *self, int argc, char **argv, bool skip)
{
    const char *db = NULL, *server = NULL, *at_s = NULL, *reason = NULL;
    bool json = false, changed = false;
    /* unskip takes no --reason: its table is this one past it. */
    const cli_opt opts[] = {
        {"reason", 0, CLI_OPT_VALUE, &reason}, {"at", 0, CLI_OPT_VALUE, &at_s},
        {"json", 0, CLI_OPT_FLAG, &json},      {"db", 0, CLI_OPT_VALUE, &db},
        {"server", 0, CLI_OPT_VALUE, &server}, {0},
    };
    char when[SKED_TIME_STRLEN];
    target *t = NULL;
    sked_time at = SKED_TIME_NONE;
    cli_args args;
    sked_error err;
    int rc;

    if ((rc = cli_parse(self, argc, argv, skip ? opts : opts + 1, &args)) !=
            CLI_CONTINUE ||
        (rc = cli_one_arg(self, &args, "schedule name")) != 0 ||
        (rc = need_at(self, at_s, &at)) != 0)
        return rc;
    if ((rc = target_open(self, db, server, NULL, &t)) != 0)
        return rc;
    sked_error_clear(&err);
    rc = t->ops->schedule_skip(t, args.pos[0], at, skip, "cli", reason,
                               &changed, &err);
    target_close(t);
    if (rc < 0)
        return direct_schedule_fail(skip ? "skip" : "unskip", args.pos[0], &err,
                                    rc);
    if (json)
        return out_json(sked__answer_skip(args.pos[0], at, skip, changed));
    (void) sked_time_format(at, when, sizeof when);
    printf("%s %s: %s%s\n", args.pos[0], when, skip ? "skipped" : "not skipped",
           changed ? ""
           : skip  ? " (already)"
                   : " (was not)");
    return cli_flush();
}

static int schedule_skip(const cli_cmd *self, int argc, char **argv)
{
    return skip_common(self, argc, argv, true);
}

static int schedule_unskip(const cli_cmd *self, int argc, char **argv)
{
    return skip_common(self, argc, argv, false);
}

static int schedule_skips(const cli_cmd *self, int argc, char **argv)
{
    const char *db = NULL, *server = NULL;
    bool json = false;
    const cli_opt opts[] = {
        {"json", 0, CLI_OPT_FLAG, &json},
        {"db", 0, CLI_OPT_VALUE, &db},
        {"server", 0, CLI_OPT_VALUE, &server},
        {0},
    };
    char when[SKED_TIME_STRLEN];
    sked_skip *k = NULL;
    target *t = NULL;
    size_t n = 0;
    cli_args args;
    sked_error err;
    int rc;

    if ((rc = cli_parse(self, argc, argv, opts, &args)) != CLI_CONTINUE ||
        (rc = cli_one_arg(self, &args, "schedule name")) != 0)
        return rc;
    if ((rc = target_open(self, db, server, NULL, &t)) != 0)
        return rc;
    sked_error_clear(&err);
    rc = t->ops->schedule_skips(t, args.pos[0], &k, &n, &err);
    target_close(t);
    if (rc < 0)
        return direct_schedule_fail("read the skips of", args.pos[0], &err, rc);
    if (json) {
        rc = out_json(sked__answer_skips(args.pos[0], k, n));
    } else {
        if (n > 0)
            printf("%-25s %-8s %s\n", "OCCURRENCE", "BY", "REASON");
        for (size_t i = 0; i < n; i++) {
            (void) sked_time_format(k[i].occurrence, when, sizeof when);
            printf("%-25s %-8s %s\n", when, k[i].actor ? k[i].actor : "",
                   k[i].reason ? k[i].reason : "-");
        }
        rc = cli_flush();
    }
    sked_skips_free(k, n);
    return rc;
}

static int schedule_run(const cli_cmd *self, int argc, char **argv)
{
    const char *db = NULL, *server = NULL, *at_s = NULL;
    bool json = false, created = false;
    const cli_opt opts[] = {
        {"at", 0, CLI_OPT_VALUE, &at_s},
        {"json", 0, CLI_OPT_FLAG, &json},
        {"db", 0, CLI_OPT_VALUE, &db},
        {"server", 0, CLI_OPT_VALUE, &server},
        {0},
    };
    sked_time at = SKED_TIME_NONE;
    target *t = NULL;
    char *id = NULL;
    cli_args args;
    sked_error err;
    int rc;

    if ((rc = cli_parse(self, argc, argv, opts, &args)) != CLI_CONTINUE ||
        (rc = cli_one_arg(self, &args, "schedule name")) != 0 ||
        (rc = need_at(self, at_s, &at)) != 0)
        return rc;
    if ((rc = target_open(self, db, server, NULL, &t)) != 0)
        return rc;
    sked_error_clear(&err);
    rc = t->ops->schedule_run_at(t, args.pos[0], at, &id, &created, &err);
    target_close(t);
    if (rc < 0)
        return direct_schedule_fail("run", args.pos[0], &err, rc);
    if (json) {
        rc =
            out_json(json_pack("{s:s, s:b}", "run_id", id, "created", created));
    } else {
        printf("%s%s\n", id, created ? "" : " (already existed)");
        rc = cli_flush();
    }
    free(id);
    return rc;
}

const cli_cmd cli_cmd_schedule_skip = {
    .name = "skip",
    .path = "sked schedule skip",
    .summary = "Drop one occurrence of a schedule ahead of time",
    .run = schedule_skip,
    .help =
        "Usage: sked schedule skip NAME --at T [--reason S] [--json]\n"
        "\n"
        "Drop the occurrence T of the schedule NAME before it fires: the\n"
        "scheduler decides it as missed with reason \"skipped\" and creates\n"
        "no run. T must be an occurrence of NAME's time spec (the error\n"
        "names the nearest ones) not yet decided (exit code 4 when it is).\n"
        "Skipping it again changes nothing. The event\n"
        "schedule.occurrence_skipped says who (\"cli\") and why.\n"
        "\n"
        "Options:\n"
        "  --at T         the occurrence, RFC 3339\n"
        "  --reason S     why (at most 1024 bytes), kept with the skip\n"
        "  --json         print the API's answer, {\"schedule\", "
        "\"occurrence\",\n"
        "                 \"skipped\", \"changed\"}\n" TARGET_HELP
        "  -h, --help     show this help\n",
};

const cli_cmd cli_cmd_schedule_unskip = {
    .name = "unskip",
    .path = "sked schedule unskip",
    .summary = "Undo the skip of one occurrence",
    .run = schedule_unskip,
    .help =
        "Usage: sked schedule unskip NAME --at T [--json]\n"
        "\n"
        "Undo \"sked schedule skip\": the occurrence T of NAME fires as it\n"
        "would have. Exit code 4 when T is already decided.\n"
        "\n"
        "Options:\n"
        "  --at T         the occurrence, RFC 3339\n"
        "  --json         print the API's answer\n" TARGET_HELP
        "  -h, --help     show this help\n",
};

const cli_cmd cli_cmd_schedule_skips = {
    .name = "skips",
    .path = "sked schedule skips",
    .summary = "List the skipped occurrences of a schedule",
    .run = schedule_skips,
    .help =
        "Usage: sked schedule skips NAME [--json]\n"
        "\n"
        "List the occurrences of NAME skipped and not yet decided, with who\n"
        "skipped them and why.\n"
        "\n"
        "Options:\n"
        "  --json         print the API's answer, {\"schedule\", "
        "\"skips\"}\n" TARGET_HELP "  -h, --help     show this help\n",
};

const cli_cmd cli_cmd_schedule_run = {
    .name = "run",
    .path = "sked schedule run",
    .summary = "Run one past occurrence of a schedule now",
    .run = schedule_run,
    .help =
        "Usage: sked schedule run NAME --at T [--json]\n"
        "\n"
        "Run the past occurrence T of the schedule NAME now (trigger kind\n"
        "backfill), with the id firing gives it: if it ran, or runs later,\n"
        "it is the same run, never two. Prints the run's id. T must be an\n"
        "occurrence of NAME's time spec that has come.\n"
        "\n"
        "Options:\n"
        "  --at T         the occurrence, RFC 3339\n"
        "  --json         print the API's answer, {\"run_id\", "
        "\"created\"}\n" TARGET_HELP "  -h, --help     show this help\n",
};
