/* SPDX-License-Identifier: MIT */
/* "sked notify list|get|apply|delete|log" (docs/notifications.md):
 * notifiers and their deliveries, through the target (the database, or a
 * server's /api/v1/notifiers) like every command.
 *
 * A notifier travels as the API's JSON object, the one the workflows
 * file's "notifiers" mapping reads as; apply takes the notifiers of such
 * a file (checked whole first: "FILE:LINE:COLUMN: path: message") and
 * writes each, created or replaced. The help of apply lists the keys from
 * the notifier's field tables (model/notifier_fields.h). No output holds
 * a secret: a notifier names only where the server reads it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "direct.h"
#include "engine/workflow_file.h"
#include "model/notifier.h"
#include "model/notifier_fields.h"
#include "output.h"
#include "target.h"

/* Run Q on the target of SELF; *out its JSON text (may be NULL). */
static int run_op(const cli_cmd *self, const char *db, const char *server,
                  const target_notify *q, char **out)
{
    target *t = NULL;
    sked_error err;
    int rc = target_open(self, db, server, NULL, &t);

    if (rc != 0)
        return rc;
    sked_error_clear(&err);
    rc = t->ops->notify(t, q, out, &err);
    if (rc != 0)
        rc = cli_fail(rc, "notifier%s%s: %s%s%s", q->name ? " " : "s",
                      q->name ? q->name : "", err.field,
                      err.field[0] ? ": " : "",
                      err.msg[0] ? err.msg : sked_strerror(rc));
    target_close(t);
    return rc;
}

/* Print the JSON text TEXT (taken) pretty. */
static int print_json(char *text)
{
    json_t *j = text ? json_loads(text, 0, NULL) : NULL;

    free(text);
    return out_json(j);
}

/* One cell of a list: the strings of the array A joined by ",". */
static void joined(const json_t *a, char *buf, size_t size)
{
    size_t i, len = 0;
    json_t *x;

    buf[0] = '\0';
    if (!json_is_array(a) || json_array_size(a) == 0) {
        (void) snprintf(buf, size, "*");
        return;
    }
    json_array_foreach(a, i, x)
    {
        int n = snprintf(buf + len, size - len, "%s%s", i ? "," : "",
                         json_string_value(x) ? json_string_value(x) : "?");
        if (n < 0 || (size_t) n >= size - len)
            return;
        len += (size_t) n;
    }
}

static int print_list(char *text)
{
    static const char *const heads[] = {"NAME", "KIND", "EVENTS", "SCHEDULES",
                                        "SOURCE"};
    json_t *a = text ? json_loads(text, 0, NULL) : NULL, *o;
    char events[512], schedules[512];
    out_table tb;
    size_t i;

    free(text);
    if (!json_is_array(a))
        return cli_fail(SKED_EIO, "the answer is not a list of notifiers");
    out_table_init(&tb, 5, heads);
    json_array_foreach(a, i, o)
    {
        joined(json_object_get(o, "events"), events, sizeof events);
        joined(json_object_get(o, "schedules"), schedules, sizeof schedules);
        const char *row[] = {json_string_value(json_object_get(o, "name")),
                             json_string_value(json_object_get(o, "kind")),
                             events, schedules,
                             json_string_value(json_object_get(o, "source"))};
        if (out_table_add(&tb, row) != 0)
            break;
    }
    out_table_print(&tb);
    out_table_done(&tb);
    json_decref(a);
    return cli_flush();
}

/* --names: the notifiers' names, one a line. */
static int print_names(char *text)
{
    json_t *a = text ? json_loads(text, 0, NULL) : NULL, *o;
    size_t i;

    free(text);
    if (!json_is_array(a)) {
        json_decref(a);
        return cli_fail(SKED_EIO, "the answer is not a list of notifiers");
    }
    json_array_foreach(a, i, o)
    {
        const char *name = json_string_value(json_object_get(o, "name"));

        if (name)
            printf("%s\n", name);
    }
    json_decref(a);
    return cli_flush();
}

static int list_run(const cli_cmd *self, int argc, char **argv)
{
    const char *db = NULL, *server = NULL;
    bool json = false, names = false;
    const cli_opt opts[] = {{"json", 0, CLI_OPT_FLAG, &json},
                            {"names", 0, CLI_OPT_FLAG, &names},
                            {"db", 0, CLI_OPT_VALUE, &db},
                            {"server", 0, CLI_OPT_VALUE, &server},
                            {0}};
    target_notify q = {.op = TARGET_NOTIFY_LIST};
    char *text = NULL;
    int rc;

    if ((rc = cli_parse_options(self, argc, argv, opts)) != CLI_CONTINUE)
        return rc;
    if (json && names)
        return cli_usage_error(self, "--json and --names exclude each other");
    if ((rc = run_op(self, db, server, &q, &text)) != 0)
        return rc;
    if (names)
        return print_names(text);
    return json ? print_json(text) : print_list(text);
}

/* get and delete: one name. */
static int named_run(const cli_cmd *self, int argc, char **argv,
                     target_notify_op op)
{
    const char *db = NULL, *server = NULL;
    const cli_opt opts[] = {{"db", 0, CLI_OPT_VALUE, &db},
                            {"server", 0, CLI_OPT_VALUE, &server},
                            {0}};
    target_notify q = {.op = op};
    char *text = NULL;
    cli_args args;
    int rc;

    if ((rc = cli_parse(self, argc, argv, opts, &args)) != CLI_CONTINUE ||
        (rc = cli_one_arg(self, &args, "missing the notifier's name")) != 0)
        return rc;
    q.name = args.pos[0];
    if ((rc = run_op(self, db, server, &q,
                     op == TARGET_NOTIFY_GET ? &text : NULL)))
        return rc;
    return op == TARGET_NOTIFY_GET ? print_json(text) : 0;
}

static int get_run(const cli_cmd *self, int argc, char **argv)
{
    return named_run(self, argc, argv, TARGET_NOTIFY_GET);
}

static int delete_run(const cli_cmd *self, int argc, char **argv)
{
    return named_run(self, argc, argv, TARGET_NOTIFY_DELETE);
}

/* Write the notifiers of the workflows file FILE through the target. */
static int apply_file(const cli_cmd *self, const char *file, const char *db,
                      const char *server)
{
    sked_wf_file wf = {0};
    sked_tzdb *tzdb = NULL;
    sked_wf_error e;
    char line[SKED_WF_PATH_MAX + SKED_WF_MSG_MAX + 300];
    int rc;

    if ((rc = direct_tzdb_open(&tzdb)) != 0)
        return rc;
    if ((rc = sked__workflow_file_load(file, tzdb, &wf, &e)) < 0) {
        sked__workflow_file_error_format(&e, file, line, sizeof line);
        fprintf(stderr, "sked: %s\n", line);
        sked_tzdb_close(tzdb);
        return sked_error_exit_code(rc == SKED_ESYNTAX ? SKED_EINVAL : rc);
    }
    for (size_t i = 0; rc == 0 && i < wf.n_notifiers; i++) {
        json_t *o = sked__notifier_to_json(&wf.notifiers[i], false);
        char *json = o ? json_dumps(o, JSON_COMPACT) : NULL;
        bool created = false;
        target_notify q = {.op = TARGET_NOTIFY_PUT,
                           .name = wf.notifiers[i].name,
                           .json = json,
                           .created = &created};
        json_decref(o);
        rc = json ? run_op(self, db, server, &q, NULL)
                  : cli_fail(SKED_ENOMEM, "out of memory");
        if (rc == 0)
            printf("notifier %s applied\n", wf.notifiers[i].name);
        free(json);
    }
    sked__workflow_file_done(&wf);
    sked_tzdb_close(tzdb);
    return rc != 0 ? rc : cli_flush();
}

static int apply_run(const cli_cmd *self, int argc, char **argv)
{
    const char *db = NULL, *server = NULL;
    const cli_opt opts[] = {{"db", 0, CLI_OPT_VALUE, &db},
                            {"server", 0, CLI_OPT_VALUE, &server},
                            {0}};
    cli_args args;
    int rc;

    if ((rc = cli_parse(self, argc, argv, opts, &args)) != CLI_CONTINUE ||
        (rc = cli_one_arg(self, &args, "missing the file")) != 0)
        return rc;
    return apply_file(self, args.pos[0], db, server);
}

static int print_log(char *text)
{
    static const char *const heads[] = {"ID",    "DELIVERY", "STATE",
                                        "TRIES", "STATUS",   "ERROR"};
    json_t *a = text ? json_loads(text, 0, NULL) : NULL, *o;
    char id[24], tries[16], status[16];
    out_table tb;
    size_t i;

    free(text);
    if (!json_is_array(a))
        return cli_fail(SKED_EIO, "the answer is not a list of deliveries");
    out_table_init(&tb, 6, heads);
    json_array_foreach(a, i, o)
    {
        json_t *st = json_object_get(o, "last_status");
        (void) snprintf(
            id, sizeof id, "%lld",
            (long long) json_integer_value(json_object_get(o, "id")));
        (void) snprintf(
            tries, sizeof tries, "%lld",
            (long long) json_integer_value(json_object_get(o, "attempts")));
        (void) snprintf(status, sizeof status, "%s", "-");
        if (json_is_integer(st))
            (void) snprintf(status, sizeof status, "%lld",
                            (long long) json_integer_value(st));
        const char *err = json_string_value(json_object_get(o, "last_error"));
        const char *row[] = {id,
                             json_string_value(json_object_get(o, "delivery")),
                             json_string_value(json_object_get(o, "state")),
                             tries,
                             status,
                             err ? err : "-"};
        if (out_table_add(&tb, row) != 0)
            break;
    }
    out_table_print(&tb);
    out_table_done(&tb);
    json_decref(a);
    return cli_flush();
}

static int log_run(const cli_cmd *self, int argc, char **argv)
{
    const char *db = NULL, *server = NULL, *limit = NULL, *before = NULL;
    bool json = false;
    const cli_opt opts[] = {{"limit", 'n', CLI_OPT_VALUE, &limit},
                            {"before", 0, CLI_OPT_VALUE, &before},
                            {"json", 0, CLI_OPT_FLAG, &json},
                            {"db", 0, CLI_OPT_VALUE, &db},
                            {"server", 0, CLI_OPT_VALUE, &server},
                            {0}};
    target_notify q = {.op = TARGET_NOTIFY_LOG};
    char *text = NULL, *end = NULL;
    cli_args args;
    int rc;

    if ((rc = cli_parse(self, argc, argv, opts, &args)) != CLI_CONTINUE)
        return rc;
    if (args.npos > 1)
        return cli_usage_error(self, "at most one notifier");
    q.name = args.npos ? args.pos[0] : NULL;
    if (limit) {
        long v = strtol(limit, &end, 10);
        if (*end || v < 1 || v > SKED_ENGINE_LIST_MAX)
            return cli_usage_error(self, "--limit: 1 to %d",
                                   SKED_ENGINE_LIST_MAX);
        q.limit = (size_t) v;
    }
    if (before) {
        q.before = strtoll(before, &end, 10);
        if (*end || q.before < 0)
            return cli_usage_error(self, "--before: a delivery's id");
    }
    if ((rc = run_op(self, db, server, &q, &text)) != 0)
        return rc;
    return json ? print_json(text) : print_log(text);
}

/* ---- the group -------------------------------------------------------- */

#define KEY_LINE(m, kind, json, help) "  " json ": " help "\n"

static const cli_cmd list_cmd = {
    .name = "list",
    .path = "sked notify list",
    .summary = "List the notifiers",
    .run = list_run,
    .help = "Usage: sked notify list [--json|--names]\n"
            "\n"
            "Print every notifier, by name: its kind, the event types and\n"
            "the schedules it wants (* for all), and its source.\n"
            "\n"
            "Options:\n"
            "  --json         the API's list of notifier objects\n"
            "  --names        print the names only, one a line\n" TARGET_HELP
            "  -h, --help     show this help\n",
};

static const cli_cmd get_cmd = {
    .name = "get",
    .path = "sked notify get",
    .summary = "Show a notifier as the API's JSON object",
    .run = get_run,
    .help = "Usage: sked notify get NAME\n"
            "\n"
            "Print the notifier NAME as the API's JSON object (no secret:\n"
            "only where the server reads it).\n"
            "\n"
            "Options:\n" TARGET_HELP "  -h, --help     show this help\n",
};

/* The keys of a notifier, from its field tables. */
#define WEBHOOK_KEYS  "webhook:\n" SKED__WEBHOOK_FIELDS(KEY_LINE)
#define COMMAND_KEYS  "command:\n" SKED__COMMAND_FIELDS(KEY_LINE)
#define EMAIL_KEYS    "email:\n" SKED__EMAIL_FIELDS(KEY_LINE)
#define COMMON_KEYS   "and beside it:\n" SKED__NOTIFIER_FIELDS(KEY_LINE)
#define NOTIFIER_KEYS WEBHOOK_KEYS COMMAND_KEYS EMAIL_KEYS COMMON_KEYS

static const cli_cmd apply_cmd = {
    .name = "apply",
    .path = "sked notify apply",
    .summary = "Create or replace the notifiers of a workflows file",
    .run = apply_run,
    .help = "Usage: sked notify apply FILE\n"
            "\n"
            "Read the workflows file FILE whole, then create or replace\n"
            "each notifier of its \"notifiers\" mapping. A notifier has one\n"
            "of webhook, command or email, a mapping of the kind's "
            "keys:\n" NOTIFIER_KEYS "\n"
            "Options:\n" TARGET_HELP "  -h, --help     show this help\n",
};

static const cli_cmd delete_cmd = {
    .name = "delete",
    .path = "sked notify delete",
    .summary = "Delete a notifier; its pending deliveries fail",
    .run = delete_run,
    .help = "Usage: sked notify delete NAME\n"
            "\n"
            "Delete the notifier NAME; its deliveries not yet made fail.\n"
            "\n"
            "Options:\n" TARGET_HELP "  -h, --help     show this help\n",
};

static const cli_cmd log_cmd = {
    .name = "log",
    .path = "sked notify log",
    .summary = "List the deliveries, newest first",
    .run = log_run,
    .help = "Usage: sked notify log [NAME] [-n N] [--before ID] [--json]\n"
            "\n"
            "Print the deliveries of the notifier NAME (all when none),\n"
            "newest first: the idempotency id, the state (pending,\n"
            "delivered, failed), the attempts, the last status (HTTP or\n"
            "exit code) and the last error.\n"
            "\n"
            "Options:\n"
            "  -n, --limit N  at most N (default 100)\n"
            "  --before ID    those older than the delivery ID\n"
            "  --json         the API's list of deliveries\n" TARGET_HELP
            "  -h, --help     show this help\n",
};

static const cli_cmd *const notify_cmds[] = {
    &list_cmd, &get_cmd, &apply_cmd, &delete_cmd, &log_cmd, NULL,
};

const cli_cmd cli_cmd_notify = {
    .name = "notify",
    .path = "sked notify",
    .summary = "Manage notifiers and read the notify log",
    .run = cli_run_group,
    .subs = notify_cmds,
};
