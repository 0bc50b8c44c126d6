/* SPDX-License-Identifier: MIT */
/* "sked apply FILE [--prune]": make the database's calendars, schedules
 * and notifiers match the workflows file (SPEC 3.5 apply, SPEC 10, 12).
 *
 * The whole file is read and checked first (workflow_file.c): a mistake
 * anywhere is reported as "FILE:LINE:COLUMN: path: message" and nothing
 * is written. Then its calendars are applied, in one transaction, as the
 * file's app's code calendars: created, replaced when changed, left alone
 * when equal, each checked against the calendars as they will stand (so
 * one may include another in any order); with --prune the app's code
 * calendars no longer in the file are deleted, unless another calendar
 * still includes one (refused, nothing written). They go first because
 * schedules name calendars. Then its schedules — those under workflows.<name>
 * and the top-level ones — are applied in one transaction with source "code",
 * as the file's app (its "app" key, else its file name): created, replaced when
 * changed, left alone when equal; with --prune the app's code schedules no
 * longer in the file are deleted, never another app's. Schedules created
 * through the API or the CLI (source "api") are never touched. With
 * --server the file is read here all the same, and its calendars and
 * schedules are sent to the server (PUT /api/v1/calendars, then PUT
 * /api/v1/schedules), which applies each set in one transaction and
 * answers the same errors. The two sets are two transactions: when the
 * schedules are refused after the calendars changed, the calendars stay
 * applied, and a warning says so. Last its notifiers, in one more
 * transaction (PUT /api/v1/notifiers with --server), as the file's app's
 * code notifiers, as a server's load of the file makes them: created,
 * replaced when changed, left alone when equal; a notifier of that name
 * made through the API (sked notify apply) becomes the file's, another
 * app's is refused; with --prune the app's code notifiers no longer in
 * the file are deleted. Queues and workflows are checked and will be
 * executed by the server. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "cli.h"
#include "direct.h"
#include "engine/answer.h"
#include "engine/workflow_file.h"
#include "model/notifier.h"
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

static bool changed_any(const sked_apply_result *r)
{
    return r->created || r->updated || r->deleted;
}

/* Print the counts of the schedules R and, when CAL is not NULL, of the
 * calendars first, and when NTF is not NULL, of the notifiers last, each
 * line named when there is more than one. */
static int print_result(const sked_apply_result *r,
                        const sked_apply_result *cal,
                        const sked_apply_result *ntf, bool json)
{
    static const char counts[] =
        "%zu created, %zu updated, %zu unchanged, %zu deleted\n";
    json_t *o;

    if (json) {
        o = sked__answer_apply(r);
        if (o && cal &&
            json_object_set_new(o, "calendars", sked__answer_apply(cal)) != 0) {
            json_decref(o);
            o = NULL;
        }
        if (o && ntf &&
            json_object_set_new(o, "notifiers", sked__answer_apply(ntf)) != 0) {
            json_decref(o);
            o = NULL;
        }
        return out_json(o);
    }
    if (cal)
        printf("calendars: ");
    if (cal)
        printf(counts, cal->created, cal->updated, cal->unchanged,
               cal->deleted);
    if (cal || ntf)
        printf("schedules: ");
    printf(counts, r->created, r->updated, r->unchanged, r->deleted);
    if (ntf)
        printf("notifiers: ");
    if (ntf)
        printf(counts, ntf->created, ntf->updated, ntf->unchanged,
               ntf->deleted);
    return cli_flush();
}

/* Apply the calendars of WF to T (with PRUNE, also when it has none);
 * *applied tells whether they were sent. */
static int apply_calendars(target *t, const char *file, const sked_wf_file *wf,
                           bool prune, sked_apply_result *res, bool *applied)
{
    target_calendar_apply a = {wf->calendars, wf->n_calendars, wf->app, prune};
    sked_error err;
    int rc;

    *applied = wf->n_calendars > 0 || prune;
    if (!*applied)
        return 0;
    sked_error_clear(&err);
    rc = t->ops->calendar_apply(t, &a, res, &err);
    return rc < 0 ? apply_fail(file, wf, &err, rc) : 0;
}

/* The notifiers of WF as the JSON text of an array of their objects
 * (free), or NULL when out of memory. */
static char *notifiers_text(const sked_wf_file *wf)
{
    json_t *a = json_array();
    char *text;

    for (size_t i = 0; a && i < wf->n_notifiers; i++)
        if (json_array_append_new(
                a, sked__notifier_to_json(&wf->notifiers[i], false)) != 0) {
            json_decref(a);
            a = NULL;
        }
    text = a ? json_dumps(a, JSON_COMPACT) : NULL;
    json_decref(a);
    return text;
}

/* Apply the notifiers of WF to T (with PRUNE, also when it has none);
 * *applied tells whether they were sent. */
static int apply_notifiers(target *t, const sked_wf_file *wf, bool prune,
                           sked_apply_result *res, bool *applied,
                           sked_error *err)
{
    target_notifier_apply a = {NULL, wf->app, prune};
    int rc;

    *applied = wf->n_notifiers > 0 || prune;
    if (!*applied)
        return 0;
    if (!(a.set = notifiers_text(wf)))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, "out of memory");
    rc = t->ops->notifier_apply(t, &a, res, err);
    free((char *) a.set);
    return rc;
}

/* Make the thread's actor "code:APP". */
static void code_actor(const char *app)
{
    char actor[SKED_ACTOR_MAX + 1];

    if (snprintf(actor, sizeof actor, "code:%s", app) < (int) sizeof actor)
        (void) sked_engine_actor(actor);
}

static int apply_file(const cli_cmd *self, const char *file, const char *db,
                      const char *server, bool prune, bool json)
{
    sked_apply_result res = {0}, cal = {0}, ntf = {0};
    sked_wf_file wf = {0};
    sked_tzdb *tzdb = NULL;
    target *t = NULL;
    sked_wf_error e;
    sked_error err;
    bool cals, ntfs = false;
    int rc;

    if ((rc = direct_tzdb_open(&tzdb)) != 0)
        return rc;
    if ((rc = sked__workflow_file_load(file, tzdb, &wf, &e)) < 0) {
        rc = file_fail(file, &e, rc);
        goto out;
    }
    if ((rc = target_open(self, db, server, tzdb, &t)) != 0)
        goto out;
    /* On the database, the file's changes are its app's code's, as a
     * server's load of it (the audit trail); through a server, the token
     * is who. */
    code_actor(wf.app);
    /* The calendars first: the schedules name them. */
    if ((rc = apply_calendars(t, file, &wf, prune, &cal, &cals)) != 0)
        goto out;
    /* A file without calendars prints what it did before it had any. */
    cals = cals && (wf.n_calendars > 0 || cal.deleted > 0);
    sked_error_clear(&err);
    target_apply a = {wf.schedules, wf.n_schedules, wf.app, prune};
    rc = t->ops->schedule_apply(t, &a, &res, &err);
    if (rc < 0 && changed_any(&cal))
        cli_warn("the file's calendars were applied; its schedules were "
                 "not");
    if (rc < 0) {
        rc = apply_fail(file, &wf, &err, rc);
        goto out;
    }
    /* The notifiers last: they only name schedules (or globs of them). */
    sked_error_clear(&err);
    if ((rc = apply_notifiers(t, &wf, prune, &ntf, &ntfs, &err)) < 0) {
        if (changed_any(&cal) || changed_any(&res))
            cli_warn("the file's calendars and schedules were applied; its "
                     "notifiers were not");
        rc = apply_fail(file, &wf, &err, rc);
        goto out;
    }
    ntfs = ntfs && (wf.n_notifiers > 0 || ntf.deleted > 0);
    rc = print_result(&res, cals ? &cal : NULL, ntfs ? &ntf : NULL, json);
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
    .summary = "Apply the calendars, schedules and notifiers of a workflows "
               "file",
    .run = apply_run,
    .help =
        "Usage: sked apply FILE [--prune] [--json]\n"
        "\n"
        "Read the workflows file FILE (docs/workflows-file.md), check all\n"
        "of it, then create or update its calendars in one transaction,\n"
        "then its schedules in another, then its notifiers in a third,\n"
        "with source \"code\" as the file's app. Nothing is written when\n"
        "any part of the file is wrong; the error reads\n"
        "FILE:LINE:COLUMN: path: message. Calendars and schedules\n"
        "created with \"sked calendar\", \"sked schedule\" or the API are\n"
        "never touched; a notifier of a name in FILE made with \"sked\n"
        "notify\" or the API becomes the file's. Prints how many\n"
        "schedules were created, updated, left unchanged and deleted\n"
        "(when the file has calendars, a \"calendars:\" line first, and\n"
        "when it has notifiers, a \"notifiers:\" line last, the counts of\n"
        "the schedules then on a \"schedules:\" line), and on stderr a\n"
        "warning for each schedule whose workflow no server has\n"
        "registered yet.\n"
        "\n"
        "Options:\n"
        "  --prune        also delete the app's code calendars,\n"
        "                 schedules and notifiers not in FILE (a calendar\n"
        "                 another includes is refused, nothing deleted)\n"
        "  --json         print the API's answer: {\"created\", \"updated\",\n"
        "                 \"unchanged\", \"deleted\"}, with the calendars'\n"
        "                 counts in \"calendars\" and the notifiers' in\n"
        "                 \"notifiers\" when the file has any\n" TARGET_HELP
        "  -h, --help     show this help\n",
};
