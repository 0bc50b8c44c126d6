/* SPDX-License-Identifier: MIT */
/* "sked apply FILE [--prune]": make the database's schedules match the
 * workflows file (SPEC 3.5 apply, SPEC 10).
 *
 * The whole file is read and checked first (workflow_file.c): a mistake
 * anywhere is reported as "FILE:LINE:COLUMN: path: message" and nothing
 * is written. Then its schedules — those under workflows.<name> and the
 * top-level ones — are applied in one transaction with source "code", as
 * the file's app (its "app" key, else its file name): created, replaced
 * when changed, left alone when equal; with --prune the app's code
 * schedules no longer in the file are deleted, never another app's. Schedules
 * created through the API or the CLI (source "api") are never touched. With
 * --server the file is read here all the same, and its schedules are
 * sent to the server (PUT /api/v1/schedules), which applies them in the
 * same transaction and answers the same errors. This
 * version applies only the schedules; queues and workflows are checked
 * and will be executed by the server. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "direct.h"
#include "engine/answer.h"
#include "engine/workflow_file.h"
#include "output.h"
#include "target.h"

/* Print the error of reading FILE as one line; return its exit code. */
static int file_fail(const char *file, const sked_wf_error *e, int rc)
{
    char line[SKED_WF_PATH_MAX + SKED_WF_MSG_MAX + 300];

    sked__workflow_file_error_format(e, file, line, sizeof line);
    fprintf(stderr, "sked: %s\n", line);
    return sked_error_exit_code(rc == SKED_ESYNTAX ? SKED_EINVAL : rc);
}

/* Report a failure of the store's apply. Its errors name
 * "schedules[i].field", i indexing the file's schedules in order: say
 * where schedule i stands in FILE instead. */
static int apply_fail(const char *file, const sked_wf_file *wf,
                      const sked_error *err, int rc)
{
    char line[1024];

    if (sked__workflow_file_locate(file, wf, err, line, sizeof line))
        return cli_fail(rc, "%s", line);
    return cli_fail(rc, "cannot apply %s: %s", file,
                    err->msg[0] ? err->msg : sked_strerror(rc));
}

static int print_result(const sked_apply_result *r, bool json)
{
    if (json)
        return out_json(sked__answer_apply(r));
    printf("%zu created, %zu updated, %zu unchanged, %zu deleted\n", r->created,
           r->updated, r->unchanged, r->deleted);
    return cli_flush();
}

static int apply_file(const cli_cmd *self, const char *file, const char *db,
                      const char *server, bool prune, bool json)
{
    sked_apply_result res = {0};
    sked_wf_file wf = {0};
    sked_tzdb *tzdb = NULL;
    target *t = NULL;
    sked_wf_error e;
    sked_error err;
    int rc;

    if ((rc = direct_tzdb_open(&tzdb)) != 0)
        return rc;
    if ((rc = sked__workflow_file_load(file, tzdb, &wf, &e)) < 0) {
        rc = file_fail(file, &e, rc);
        goto out;
    }
    if ((rc = target_open(self, db, server, tzdb, &t)) != 0)
        goto out;
    /* A file's calendars are its app's, written by the server that loads
     * the file (sked server --workflows). */
    if (wf.n_calendars > 0)
        cli_warn("the file's calendars are not applied: sked server "
                 "--workflows writes them, or use sked calendar");
    sked_error_clear(&err);
    target_apply a = {wf.schedules, wf.n_schedules, wf.app, prune};
    rc = t->ops->schedule_apply(t, &a, &res, &err);
    rc = rc < 0 ? apply_fail(file, &wf, &err, rc) : print_result(&res, json);
out:
    target_close(t);
    sked__workflow_file_done(&wf);
    sked_tzdb_close(tzdb);
    return rc;
}

static int apply_run(const cli_cmd *self, int argc, char **argv)
{
    const char *db = NULL, *server = NULL;
    bool prune = false, json = false;
    const cli_opt opts[] = {
        {"prune", 0, CLI_OPT_FLAG, &prune},
        {"json", 0, CLI_OPT_FLAG, &json},
        {"db", 0, CLI_OPT_VALUE, &db},
        {"server", 0, CLI_OPT_VALUE, &server},
        {0},
    };
    cli_args args;
    int rc;

    if ((rc = cli_parse(self, argc, argv, opts, &args)) != CLI_CONTINUE)
        return rc;
    if ((rc = cli_one_arg(self, &args, "workflows file")) != 0)
        return rc;
    return apply_file(self, args.pos[0], db, server, prune, json);
}

const cli_cmd cli_cmd_apply = {
    .name = "apply",
    .path = "sked apply",
    .summary = "Apply the schedules of a workflows file",
    .run = apply_run,
    .help =
        "Usage: sked apply FILE [--prune] [--json]\n"
        "\n"
        "Read the workflows file FILE (docs/workflows-file.md), check all\n"
        "of it, then create or update its schedules in one transaction,\n"
        "with source \"code\". Nothing is written when any part of the\n"
        "file is wrong; the error reads FILE:LINE:COLUMN: path: message.\n"
        "Schedules created with \"sked schedule create\" or the API are\n"
        "never touched. Prints how many schedules were created, updated,\n"
        "left unchanged and deleted, and on stderr a warning for each\n"
        "schedule whose workflow no server has registered yet.\n"
        "\n"
        "Options:\n"
        "  --prune        also delete the code schedules not in FILE\n"
        "  --json         print the API's answer: {\"created\", \"updated\",\n"
        "                 \"unchanged\", \"deleted\"}\n" TARGET_HELP
        "  -h, --help     show this help\n",
};
