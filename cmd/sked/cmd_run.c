/* SPDX-License-Identifier: MIT */
/* "sked run list|get|cancel|start" and "sked workflow list" (SPEC 7):
 * through an engine opened on the database (direct mode, no thread
 * started) or a server's API (remote mode), both answering the API's
 * JSON, which is what is printed from (target.h).
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

/* Print the JSON TEXT (freed here) as JSON. */
static int print_json_text(char *text)
{
    json_t *j = json_loads(text, 0, NULL);
    free(text);
    return j ? out_json(j) : cli_fail(SKED_EINTERNAL, "unreadable answer");
}

static const char *str_of(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Write the number or null at KEY of O into BUF ("-" for null). */
static const char *num_of(const json_t *o, const char *key, char *buf,
                          size_t size)
{
    const json_t *v = json_object_get(o, key);
    if (json_is_integer(v))
        snprintf(buf, size, "%lld", (long long) json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, size, "%.3fs", json_real_value(v));
    else
        snprintf(buf, size, "-");
    return buf;
}

/* ---- list -------------------------------------------------------------- */

static int list_print(const json_t *page)
{
    static const char *const heads[] = {"id",      "workflow", "status",
                                        "trigger", "created",  "error"};
    out_table t;
    const json_t *runs = json_object_get(page, "runs"), *r;
    size_t i;
    out_table_init(&t, 6, heads);
    json_array_foreach(runs, i, r)
    {
        const char *cells[] = {str_of(r, "id"),         str_of(r, "workflow"),
                               str_of(r, "status"),     str_of(r, "trigger"),
                               str_of(r, "created_at"), str_of(r, "error")};
        if (out_table_add(&t, cells) != 0) {
            out_table_done(&t);
            return cli_fail(SKED_ENOMEM, "out of memory");
        }
    }
    out_table_print(&t);
    out_table_done(&t);
    const char *next = str_of(page, "next_cursor");
    if (next)
        fprintf(stderr, "more: --cursor %s\n", next);
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
    char *text = NULL;
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
    rc = t->ops->run_list(t, &q, &text, &err);
    target_close(t);
    if (rc < 0)
        return cli_fail(rc, "cannot list runs: %s",
                        err.msg[0] ? err.msg : sked_strerror(rc));
    if (json)
        return print_json_text(text);
    json_t *page = json_loads(text, 0, NULL);
    free(text);
    rc = page ? list_print(page) : cli_fail(SKED_EINTERNAL, "bad answer");
    json_decref(page);
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

static void print_step(const json_t *s)
{
    char exit[24], dur[32];
    bool comp = json_is_true(json_object_get(s, "compensation"));
    printf("  %s%s  attempt %lld  %s  exit %s  %s  started %s\n",
           str_of(s, "step"), comp ? " (compensation)" : "",
           (long long) json_integer_value(json_object_get(s, "attempt")),
           str_of(s, "status"), num_of(s, "exit_code", exit, sizeof exit),
           num_of(s, "duration_secs", dur, sizeof dur),
           str_of(s, "started_at"));
    if (str_of(s, "error"))
        printf("    error: %s\n", str_of(s, "error"));
    if (str_of(s, "output"))
        print_trimmed("output", str_of(s, "output"));
    if (str_of(s, "stderr"))
        print_trimmed("stderr", str_of(s, "stderr"));
}

static void get_print(const json_t *r)
{
    static const char *const keys[] = {
        "id",         "workflow",   "workflow_version", "status",
        "trigger",    "schedule",   "scheduled_for",    "queue",
        "created_at", "started_at", "finished_at",      "error",
        "error_code", "attempts",   "executor"};
    char buf[32];
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        const char *v = str_of(r, keys[i]);
        printf("%-17s %s\n", keys[i],
               v ? v : num_of(r, keys[i], buf, sizeof buf));
    }
    const json_t *steps = json_object_get(r, "steps"), *s;
    size_t i;
    if (json_array_size(steps) > 0)
        printf("steps:\n");
    json_array_foreach(steps, i, s)
    {
        print_step(s);
    }
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
    char *text = NULL;
    cli_args args;
    sked_error err;
    int rc;

    if ((rc = one_run(self, argc, argv, &json, &args, &t)) != CLI_CONTINUE)
        return rc;
    sked_error_clear(&err);
    rc = t->ops->run_get(t, args.pos[0], &text, &err);
    target_close(t);
    if (rc < 0)
        return run_fail("get run", args.pos[0], &err, rc);
    if (json)
        return print_json_text(text);
    json_t *r = json_loads(text, 0, NULL);
    free(text);
    if (!r)
        return cli_fail(SKED_EINTERNAL, "bad answer");
    get_print(r);
    json_decref(r);
    return cli_flush();
}

/* ---- cancel and start ------------------------------------------------- */

static int run_cancel(const cli_cmd *self, int argc, char **argv)
{
    bool json = false;
    target *t = NULL;
    char *text = NULL;
    cli_args args;
    sked_error err;
    int rc;

    if ((rc = one_run(self, argc, argv, &json, &args, &t)) != CLI_CONTINUE)
        return rc;
    sked_error_clear(&err);
    rc = t->ops->run_cancel(t, args.pos[0], &text, &err);
    target_close(t);
    if (rc < 0)
        return run_fail("cancel run", args.pos[0], &err, rc);
    if (json)
        return print_json_text(text);
    free(text);
    return printf("cancel requested: %s\n", args.pos[0]) < 0 ? 1 : cli_flush();
}

/* Print the id of the run TEXT (freed here), the API's run object. */
static int print_run_id(char *text)
{
    json_t *r = json_loads(text, 0, NULL);
    const char *id = str_of(r, "id");
    int rc = id ? printf("%s\n", id) < 0 ? 1 : cli_flush()
                : cli_fail(SKED_EINTERNAL, "bad answer");

    free(text);
    json_decref(r);
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
    char *text = NULL;
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
        rc = t->ops->run_start(t, args.pos[0], input, key, &text, &err);
    target_close(t);
    if (rc < 0)
        return run_fail("start a run of", args.pos[0], &err, rc);
    return json ? print_json_text(text) : print_run_id(text);
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

static int workflow_list(const cli_cmd *self, int argc, char **argv)
{
    static const char *const heads[] = {"name", "version", "queue", "steps",
                                        "registered"};
    const char *db = NULL, *server = NULL;
    bool json = false;
    const cli_opt opts[] = {
        {"json", 0, CLI_OPT_FLAG, &json},
        {"db", 0, CLI_OPT_VALUE, &db},
        {"server", 0, CLI_OPT_VALUE, &server},
        {0},
    };
    target *t = NULL;
    char *text = NULL, steps[24];
    sked_error err;
    int rc;

    if ((rc = cli_parse_options(self, argc, argv, opts)) != CLI_CONTINUE)
        return rc;
    if ((rc = target_open(self, db, server, NULL, &t)) != 0)
        return rc;
    sked_error_clear(&err);
    rc = t->ops->workflow_list(t, &text, &err);
    target_close(t);
    if (rc < 0)
        return cli_fail(rc, "cannot list workflows: %s",
                        err.msg[0] ? err.msg : sked_strerror(rc));
    if (json)
        return print_json_text(text);
    json_t *page = json_loads(text, 0, NULL), *w;
    size_t i;
    out_table tab;
    free(text);
    out_table_init(&tab, 5, heads);
    json_array_foreach(json_object_get(page, "workflows"), i, w)
    {
        const json_t *def = json_object_get(w, "definition");
        snprintf(steps, sizeof steps, "%zu",
                 json_array_size(json_object_get(def, "steps")));
        const char *cells[] = {str_of(w, "name"), str_of(w, "version"),
                               str_of(def, "queue"), steps,
                               str_of(w, "registered_at")};
        if (out_table_add(&tab, cells) != 0)
            rc = cli_fail(SKED_ENOMEM, "out of memory");
    }
    if (rc == 0) {
        out_table_print(&tab);
        rc = cli_flush();
    }
    out_table_done(&tab);
    json_decref(page);
    return rc;
}

static const cli_cmd workflow_list_cmd = {
    .name = "list",
    .path = "sked workflow list",
    .summary = "List the workflows servers registered",
    .run = workflow_list,
    .help = "Usage: sked workflow list [--json]\n"
            "\n"
            "List every workflow a server or program registered on the\n"
            "database, at its latest version: its queue, its number of\n"
            "steps, when it was registered. --json adds each definition.\n"
            "\n"
            "Options:\n"
            "  --json         print JSON\n" TARGET_HELP
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
