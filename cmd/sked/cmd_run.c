/* SPDX-License-Identifier: MIT */
/* "sked run list|get|cancel|start" and "sked workflow list" (SPEC 7):
 * through an engine opened on the database (direct mode, no thread
 * started) or a server's API (remote mode), both answering the structs
 * of sked/run.h (target.h), which are printed from: as a table, or with
 * --json as the model writes them, the API's JSON.
 *
 *   list [--status S] [--schedule N] [--workflow W] [--limit N]
 *        [--cursor C]                newest first; a cursor on stderr
 *                                     when more follow
 *   get ID                           the run, then each step attempt:
 *                                     status, exit code, duration, and
 *                                     its output and stderr trimmed
 *   cancel ID                        exit 3 unknown, 4 already finished
 *   start WORKFLOW [--input JSON] [--idempotency-key K]
 *                                     prints the run id
 *
 * Every command prints with --json what the API answers for the same
 * operation (for cancel and start, the run object). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "direct.h"
#include "model/run_json.h"
#include "model/schedule.h"
#include "output.h"
#include "target.h"

/* Outputs shown by "run get" are cut to this many bytes (--json has
 * them whole, as stored). */
#define TRIM 240

static int run_fail(const char *verb, const char *id, const sked_error *err,
                    int rc)
{
    const char *msg = err->msg[0] ? err->msg : sked_strerror(rc);
    if (rc == SKED_ENOTFOUND)
        return cli_fail(rc, "run \"%.200s\" not found", id);
    if (err->field[0] && !strstr(msg, err->field))
        return cli_fail(rc, "cannot %s \"%.200s\": %s: %s", verb, id,
                        err->field, msg);
    return cli_fail(rc, "cannot %s \"%.200s\": %s", verb, id, msg);
}

/* Print O (a new reference the model wrote; NULL: out of memory) as
 * JSON. */
static int print_json(json_t *o)
{
    return o ? out_json(o) : cli_fail(SKED_ENOMEM, "out of memory");
}

/* T as the API shows it, into BUF; NULL when not set. */
static const char *time_of(sked_time t, char *buf, size_t size)
{
    if (t == SKED_TIME_NONE || sked_time_format(t, buf, size) < 0)
        return NULL;
    return buf;
}

/* A duration as the API's "..._secs" reads: whole seconds as a number,
 * else to the millisecond with "s"; "-" when DONE is false. */
static const char *secs_of(bool done, sked_dur d, char *buf, size_t size)
{
    if (!done)
        snprintf(buf, size, "-");
    else if (d % SKED_USEC_PER_SEC == 0)
        snprintf(buf, size, "%lld", (long long) (d / SKED_USEC_PER_SEC));
    else
        snprintf(buf, size, "%.3fs", (double) d / SKED_USEC_PER_SEC);
    return buf;
}

/* V, or "-" for NULL. */
static const char *or_dash(const char *v)
{
    return v ? v : "-";
}

/* ---- list -------------------------------------------------------------- */

static int list_print(const sked_run_page *page)
{
    static const char *const heads[] = {"id",      "workflow", "status",
                                        "trigger", "created",  "error"};
    out_table t;
    char created[SKED_TIME_STRLEN];
    out_table_init(&t, 6, heads);
    for (size_t i = 0; i < page->n; i++) {
        const sked_run_view *r = &page->items[i];
        const char *cells[] = {r->id,
                               r->workflow,
                               sked_run_status_name(r->status),
                               sked_trigger_name(r->trigger),
                               time_of(r->created_at, created, sizeof created),
                               r->error};
        if (out_table_add(&t, cells) != 0) {
            out_table_done(&t);
            return cli_fail(SKED_ENOMEM, "out of memory");
        }
    }
    out_table_print(&t);
    out_table_done(&t);
    if (page->next_cursor)
        fprintf(stderr, "more: --cursor %s\n", page->next_cursor);
    return cli_flush();
}

/* An empty filter is no filter, as the API takes it: the same query in
 * both modes. */
static const char *given(const char *v)
{
    return v && *v ? v : NULL;
}

static int run_list(const cli_cmd *self, int argc, char **argv)
{
    const char *db = NULL, *server = NULL, *limit = NULL;
    sked_run_query q = {0};
    bool json = false;
    const cli_opt opts[] = {
        {"status", 0, CLI_OPT_VALUE, &q.status},
        {"schedule", 0, CLI_OPT_VALUE, &q.schedule},
        {"workflow", 0, CLI_OPT_VALUE, &q.workflow},
        {"cursor", 0, CLI_OPT_VALUE, &q.cursor},
        {"limit", 0, CLI_OPT_VALUE, &limit},
        {"json", 0, CLI_OPT_FLAG, &json},
        {"db", 0, CLI_OPT_VALUE, &db},
        {"server", 0, CLI_OPT_VALUE, &server},
        {0},
    };
    target *t = NULL;
    sked_run_page page;
    sked_error err;
    long n = 100;
    int rc;

    if ((rc = cli_parse_options(self, argc, argv, opts)) != CLI_CONTINUE)
        return rc;
    if (limit && (rc = cli_parse_count(self, "--limit", limit, 1, 1000, &n)))
        return rc;
    q.limit = (size_t) n;
    q.status = given(q.status);
    q.schedule = given(q.schedule);
    q.workflow = given(q.workflow);
    q.cursor = given(q.cursor);
    if ((rc = target_open(self, db, server, NULL, &t)) != 0)
        return rc;
    sked_error_clear(&err);
    rc = t->ops->run_list(t, &q, &page, &err);
    target_close(t);
    if (rc < 0)
        return cli_fail(rc, "cannot list runs: %s",
                        err.msg[0] ? err.msg : sked_strerror(rc));
    rc = json ? print_json(
                    sked__run_list_json(page.items, page.n, page.next_cursor))
              : list_print(&page);
    sked_run_page_done(&page);
    return rc;
}

/* ---- get --------------------------------------------------------------- */

/* Print TEXT cut to TRIM bytes (never inside a UTF-8 sequence), each
 * line indented. */
static void print_trimmed(const char *label, const char *text)
{
    size_t n = strlen(text), cut = n > TRIM ? TRIM : n;
    while (cut < n && cut > 0 && ((unsigned char) text[cut] & 0xC0) == 0x80)
        cut--;
    if (n == 0)
        return;
    printf("    %s: ", label);
    for (size_t i = 0; i < cut; i++) {
        putchar(text[i]);
        if (text[i] == '\n' && i + 1 < cut)
            printf("      ");
    }
    if (cut > 0 && text[cut - 1] != '\n')
        putchar('\n');
    if (cut < n)
        printf("      ... (%zu more bytes; --json shows all)\n", n - cut);
}

static void print_step(const sked_step_view *s)
{
    char exit[24], dur[32], started[SKED_TIME_STRLEN];
    if (s->exit_code >= 0)
        snprintf(exit, sizeof exit, "%d", (int) s->exit_code);
    else
        snprintf(exit, sizeof exit, "-");
    printf("  %s%s  attempt %d  %s  exit %s  %s  started %s\n", s->step,
           s->compensation ? " (compensation)" : "", (int) s->attempt,
           sked_step_status_name(s->status), exit,
           secs_of(s->finished_at != SKED_TIME_NONE,
                   s->finished_at - s->started_at, dur, sizeof dur),
           or_dash(time_of(s->started_at, started, sizeof started)));
    if (s->error)
        printf("    error: %s\n", s->error);
    if (s->output)
        print_trimmed("output", s->output);
    if (s->stderr_text)
        print_trimmed("stderr", s->stderr_text);
}

static void get_print(const sked_run_view *r)
{
    char t[4][SKED_TIME_STRLEN], attempts[24];
    snprintf(attempts, sizeof attempts, "%d", (int) r->attempts);
    const char *const rows[][2] = {
        {"id", r->id},
        {"workflow", r->workflow},
        {"workflow_version", r->workflow_version},
        {"status", sked_run_status_name(r->status)},
        {"trigger", sked_trigger_name(r->trigger)},
        {"schedule", r->schedule},
        {"scheduled_for", time_of(r->scheduled_for, t[0], sizeof t[0])},
        {"queue", r->queue},
        {"created_at", time_of(r->created_at, t[1], sizeof t[1])},
        {"started_at", time_of(r->started_at, t[2], sizeof t[2])},
        {"finished_at", time_of(r->finished_at, t[3], sizeof t[3])},
        {"error", r->error},
        {"error_code", r->error_code},
        {"attempts", attempts},
        {"executor", r->executor}};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        printf("%-17s %s\n", rows[i][0], or_dash(rows[i][1]));
    if (r->nsteps > 0)
        printf("steps:\n");
    for (size_t i = 0; i < r->nsteps; i++)
        print_step(&r->steps[i]);
}

/* The part "run get" and "run cancel" share: parse --json, --db and
 * --server, take the one run id, open the target. Returns CLI_CONTINUE
 * with *t open, or the exit code. */
static int one_run(const cli_cmd *self, int argc, char **argv, bool *json,
                   cli_args *args, target **t)
{
    const char *db = NULL, *server = NULL;
    const cli_opt opts[] = {
        {"json", 0, CLI_OPT_FLAG, json},
        {"db", 0, CLI_OPT_VALUE, &db},
        {"server", 0, CLI_OPT_VALUE, &server},
        {0},
    };
    int rc;

    if ((rc = cli_parse(self, argc, argv, opts, args)) != CLI_CONTINUE ||
        (rc = cli_one_arg(self, args, "run id")) != 0)
        return rc;
    if ((rc = target_open(self, db, server, NULL, t)) != 0)
        return rc;
    return CLI_CONTINUE;
}

static int run_get(const cli_cmd *self, int argc, char **argv)
{
    bool json = false;
    target *t = NULL;
    sked_run_page run;
    cli_args args;
    sked_error err;
    int rc;

    if ((rc = one_run(self, argc, argv, &json, &args, &t)) != CLI_CONTINUE)
        return rc;
    sked_error_clear(&err);
    rc = t->ops->run_get(t, args.pos[0], &run, &err);
    target_close(t);
    if (rc < 0)
        return run_fail("get run", args.pos[0], &err, rc);
    if (json) {
        rc = print_json(sked__run_view_json(&run.items[0]));
    } else {
        get_print(&run.items[0]);
        rc = cli_flush();
    }
    sked_run_page_done(&run);
    return rc;
}

/* ---- cancel and start ------------------------------------------------- */

static int run_cancel(const cli_cmd *self, int argc, char **argv)
{
    bool json = false;
    target *t = NULL;
    sked_run_page run;
    cli_args args;
    sked_error err;
    int rc;

    if ((rc = one_run(self, argc, argv, &json, &args, &t)) != CLI_CONTINUE)
        return rc;
    sked_error_clear(&err);
    rc = t->ops->run_cancel(t, args.pos[0], &run, &err);
    target_close(t);
    if (rc < 0)
        return run_fail("cancel run", args.pos[0], &err, rc);
    rc = json ? print_json(sked__run_view_json(&run.items[0]))
         : printf("cancel requested: %s\n", args.pos[0]) < 0 ? 1
                                                             : cli_flush();
    sked_run_page_done(&run);
    return rc;
}

static int run_start(const cli_cmd *self, int argc, char **argv)
{
    const char *db = NULL, *server = NULL, *input = NULL, *key = NULL;
    bool json = false;
    const cli_opt opts[] = {
        {"input", 0, CLI_OPT_VALUE, &input},
        {"idempotency-key", 0, CLI_OPT_VALUE, &key},
        {"json", 0, CLI_OPT_FLAG, &json},
        {"db", 0, CLI_OPT_VALUE, &db},
        {"server", 0, CLI_OPT_VALUE, &server},
        {0},
    };
    target *t = NULL;
    sked_run_page run;
    cli_args args;
    sked_error err;
    int rc;

    if ((rc = cli_parse(self, argc, argv, opts, &args)) != CLI_CONTINUE ||
        (rc = cli_one_arg(self, &args, "workflow name")) != 0)
        return rc;
    if ((rc = target_open(self, db, server, NULL, &t)) != 0)
        return rc;
    sked_error_clear(&err);
    /* The engine's checks, here too: the API would word them as a
     * request's, not as the run's. */
    if ((rc = sked__schedule_name_check(args.pos[0], "workflow", &err)) == 0 &&
        (!input ||
         (rc = sked__schedule_context_check(input, "input", &err)) == 0) &&
        (!key || (rc = sked__run_key_check(key, &err)) == 0))
        rc = t->ops->run_start(t, args.pos[0], input, key, &run, &err);
    target_close(t);
    if (rc < 0)
        return run_fail("start a run of", args.pos[0], &err, rc);
    rc = json ? print_json(sked__run_view_json(&run.items[0]))
         : printf("%s\n", run.items[0].id) < 0 ? 1
                                               : cli_flush();
    sked_run_page_done(&run);
    return rc;
}

/* ---- the group ---------------------------------------------------------- */

static const cli_cmd list_cmd = {
    .name = "list",
    .path = "sked run list",
    .summary = "List runs, newest first",
    .run = run_list,
    .help = "Usage: sked run list [--status S] [--schedule N] [--workflow W]\n"
            "                     [--limit N] [--cursor C] [--json]\n"
            "\n"
            "List runs, newest first. When more follow, the cursor of the\n"
            "next page is printed on stderr (\"next_cursor\" in the JSON).\n"
            "\n"
            "Options:\n"
            "  --status S     pending, running, waiting, completed, failed\n"
            "                 or cancelled\n"
            "  --schedule N   only runs of the schedule N\n"
            "  --workflow W   only runs of the workflow W\n"
            "  --limit N      at most N, 1 to 1000 (default 100)\n"
            "  --cursor C     the previous page's cursor\n"
            "  --json         print JSON\n" TARGET_HELP
            "  -h, --help     show this help\n",
};

static const cli_cmd get_cmd = {
    .name = "get",
    .path = "sked run get",
    .summary = "Show a run and its steps",
    .run = run_get,
    .help = "Usage: sked run get ID [--json]\n"
            "\n"
            "Print the run ID, then every attempt of its steps (and of their\n"
            "compensations): status, exit code, duration, error, and the\n"
            "output and stderr trimmed to a few lines (--json has them\n"
            "whole). Exit code 3 when it does not exist.\n"
            "\n"
            "Options:\n"
            "  --json         print JSON\n" TARGET_HELP
            "  -h, --help     show this help\n",
};

static const cli_cmd cancel_cmd = {
    .name = "cancel",
    .path = "sked run cancel",
    .summary = "Cancel a run",
    .run = run_cancel,
    .help = "Usage: sked run cancel ID [--json]\n"
            "\n"
            "Cancel the run ID: a pending run at once; a running or waiting\n"
            "one has its step stopped and its compensations run by its\n"
            "worker. Exit code 3 when it does not exist, 4 when it already\n"
            "finished.\n"
            "\n"
            "Options:\n"
            "  --json         print the run as the API answers it\n" TARGET_HELP
            "  -h, --help     show this help\n",
};

static const cli_cmd start_cmd = {
    .name = "start",
    .path = "sked run start",
    .summary = "Start a run of a workflow",
    .run = run_start,
    .help = "Usage: sked run start WORKFLOW [--input JSON]\n"
            "                      [--idempotency-key K] [--json]\n"
            "\n"
            "Create a run of WORKFLOW now (trigger \"api\") and print its id.\n"
            "A server that has the workflow runs it. With an idempotency\n"
            "key, starting again with the same key creates nothing and\n"
            "prints the same id.\n"
            "\n"
            "Options:\n"
            "  --input JSON           the run's context, a JSON object\n"
            "  --idempotency-key K    the run's id is\n"
            "                         \"api-WORKFLOW-key-K\"; K is 1 to 200\n"
            "                         bytes of printable UTF-8, no '/'\n"
            "  --json                 print the run as the API answers "
            "it\n" TARGET_HELP "  -h, --help             show this help\n",
};

static const cli_cmd *const run_cmds[] = {
    &list_cmd, &get_cmd, &cancel_cmd, &start_cmd, NULL,
};

const cli_cmd cli_cmd_run = {
    .name = "run",
    .path = "sked run",
    .summary = "Inspect, cancel and start runs",
    .run = cli_run_group,
    .subs = run_cmds,
    .help = "These commands work on the database directly (--db URL, else\n"
            "$SKED_DB, else sqlite:sked.db) or through a server's API\n"
            "(--server URL, else $SKED_SERVER), with the same output.\n"
            "Exit codes: 0 ok, 1 error, 2 usage, 3 not found, 4 conflict\n"
            "(the run already finished).\n",
};

/* ---- sked workflow list ------------------------------------------------- */

/* The table of PAGE: each workflow's queue and steps as its definition
 * says. */
static int workflows_print(const sked_workflow_page *page)
{
    static const char *const heads[] = {"name", "version", "queue", "steps",
                                        "registered"};
    char steps[24], at[SKED_TIME_STRLEN];
    out_table tab;
    int rc = 0;

    out_table_init(&tab, 5, heads);
    for (size_t i = 0; rc == 0 && i < page->n; i++) {
        const sked_workflow_info *w = &page->items[i];
        json_t *def = w->definition ? json_loads(w->definition, 0, NULL) : NULL;
        const json_t *queue = json_object_get(def, "queue");
        snprintf(steps, sizeof steps, "%zu",
                 json_array_size(json_object_get(def, "steps")));
        const char *cells[] = {w->name, w->version,
                               json_is_string(queue) ? json_string_value(queue)
                                                     : NULL,
                               steps, time_of(w->registered_at, at, sizeof at)};
        if (out_table_add(&tab, cells) != 0)
            rc = cli_fail(SKED_ENOMEM, "out of memory");
        json_decref(def);
    }
    if (rc == 0) {
        out_table_print(&tab);
        rc = cli_flush();
    }
    out_table_done(&tab);
    return rc;
}

static int workflow_list(const cli_cmd *self, int argc, char **argv)
{
    const char *db = NULL, *server = NULL;
    bool json = false, names = false;
    const cli_opt opts[] = {
        {"json", 0, CLI_OPT_FLAG, &json},
        {"names", 0, CLI_OPT_FLAG, &names},
        {"db", 0, CLI_OPT_VALUE, &db},
        {"server", 0, CLI_OPT_VALUE, &server},
        {0},
    };
    target *t = NULL;
    sked_workflow_page page;
    sked_error err;
    int rc;

    if ((rc = cli_parse_options(self, argc, argv, opts)) != CLI_CONTINUE)
        return rc;
    if (json && names)
        return cli_usage_error(self, "--json and --names exclude each other");
    if ((rc = target_open(self, db, server, NULL, &t)) != 0)
        return rc;
    sked_error_clear(&err);
    rc = t->ops->workflow_list(t, &page, &err);
    target_close(t);
    if (rc < 0)
        return cli_fail(rc, "cannot list workflows: %s",
                        err.msg[0] ? err.msg : sked_strerror(rc));
    if (names) {
        for (size_t i = 0; i < page.n; i++)
            printf("%s\n", page.items[i].name);
        rc = cli_flush();
    } else {
        rc = json ? print_json(sked__workflow_list_json(page.items, page.n))
                  : workflows_print(&page);
    }
    sked_workflow_page_done(&page);
    return rc;
}

static const cli_cmd workflow_list_cmd = {
    .name = "list",
    .path = "sked workflow list",
    .summary = "List the workflows servers registered",
    .run = workflow_list,
    .help = "Usage: sked workflow list [--json|--names]\n"
            "\n"
            "List every workflow a server or program registered on the\n"
            "database, at its latest version: its queue, its number of\n"
            "steps, when it was registered. --json adds each definition.\n"
            "\n"
            "Options:\n"
            "  --json         print JSON\n"
            "  --names        print the names only, one a line\n" TARGET_HELP
            "  -h, --help     show this help\n",
};

static const cli_cmd *const workflow_cmds[] = {&workflow_list_cmd, NULL};

const cli_cmd cli_cmd_workflow = {
    .name = "workflow",
    .path = "sked workflow",
    .summary = "Inspect the registered workflows",
    .run = cli_run_group,
    .subs = workflow_cmds,
    .help = "These commands work on the database directly (--db URL, else\n"
            "$SKED_DB, else sqlite:sked.db) or through a server's API\n"
            "(--server URL, else $SKED_SERVER), with the same output.\n",
};
