/* SPDX-License-Identifier: MIT */
/* "sked schedule": manage schedules (SPEC 3.5, 7), on the database
 * directly or through a server's API (target.h).
 *
 *   create WORKFLOW [EXPR]   a cron schedule, or --every / --at
 *   get NAME                 every field (SPEC 6)
 *   list                     filtered, one page at a time
 *   update NAME              change the options given, keep the rest
 *   pause|resume|delete NAME
 *   preview NAME             the next occurrences (cmd_schedule_preview.c)
 *   trigger, backfill NAME   through the engine (cmd_schedule_ops.c)
 *   simulate NAME            replay a period (cmd_simulate.c)
 *
 * Everything is checked before the database is opened or the server
 * called, so a bad value never creates nor changes a file, and reads
 * the same in both modes. Human output by default, --json for
 * scripts; the JSON of a schedule is the API's (schedule_json.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_text.h"
#include "cli.h"
#include "direct.h"
#include "engine/answer.h"
#include "model/schedule.h"
#include "model/schedule_json.h"
#include "output.h"
#include "schedule_ctx.h"
#include "schedule_opts.h"
#include "target.h"

#define LIST_DEFAULT 100

/* ---- one schedule (schedule_ctx.h) --------------------------------------- */

void schedule_ctx_done(schedule_ctx *c)
{
    target_close(c->t);
    sked_tzdb_close(c->tzdb);
    sked_schedule_done(&c->s);
}

/* Open the zone database and the target of --db DB or --server SERVER
 * into *c. */
int schedule_ctx_open(schedule_ctx *c, const cli_cmd *self, const char *db,
                      const char *server)
{
    int rc;

    if (!c->tzdb && (rc = direct_tzdb_open(&c->tzdb)) != 0)
        return rc;
    return target_open(self, db, server, c->tzdb, &c->t);
}

/* Read the schedule NAME into c->s. Returns 0 or the exit code. */
int schedule_ctx_get(schedule_ctx *c, const char *name)
{
    sked_error err;
    int rc;

    sked_error_clear(&err);
    sked_schedule_done(&c->s);
    if ((rc = c->t->ops->schedule_get(c->t, name, &c->s, &err)) < 0)
        return direct_schedule_fail("read", name, &err, rc);
    return 0;
}

static int print_schedule_json(const sked_schedule *s)
{
    sked_error err;
    json_t *j = NULL;
    int rc;

    sked_error_clear(&err);
    if ((rc = sked__schedule_to_json(s, &j, &err)) < 0)
        return cli_fail(rc, "cannot write schedule \"%s\": %s", s->name,
                        err.msg[0] ? err.msg : sked_strerror(rc));
    return out_json(j);
}

/* Write S's time spec in a few words: the expression, "every 6h",
 * "at 2026-12-01T09:00:00Z", or "rrule FREQ=...". */
static void spec_words(const sked_schedule *s, char *buf, size_t size)
{
    char t[OUT_TIME_MAX];

    switch (s->kind) {
    case SKED_SPEC_CRON:
        snprintf(buf, size, "%s", s->cron ? s->cron : "?");
        return;
    case SKED_SPEC_EVERY:
        if (sked_dur_format(s->every, t, sizeof t) < 0)
            snprintf(t, sizeof t, "?");
        snprintf(buf, size, "every %s", t);
        return;
    case SKED_SPEC_AT:
        out_time_utc(s->at, t, sizeof t);
        snprintf(buf, size, "at %s", t);
        return;
    case SKED_SPEC_RRULE:
        snprintf(buf, size, "rrule %s", s->rrule ? s->rrule : "?");
        return;
    }
    snprintf(buf, size, "?");
}

/* ---- get ---------------------------------------------------------------- */

/* Print one "key  value" line per field of the API object J. */
static void print_fields(json_t *j)
{
    const char *key;
    json_t *v;

    json_object_foreach(j, key, v)
    {
        char *text = NULL;

        if (json_is_string(v))
            printf("%-22s %s\n", key, json_string_value(v));
        else if (json_is_null(v))
            printf("%-22s -\n", key);
        else if ((text = sked__json_text(v, NULL)))
            printf("%-22s %s\n", key, text);
        free(text);
    }
}

/* Print S for people: its fields, then the cron expression in words and
 * the next occurrence on the zone's clock. */
static int print_schedule_human(sked_tzdb *db, const sked_schedule *s)
{
    char words[SKED_CRON_EXPLAIN_MAX], t[OUT_TIME_MAX];
    sked_error err;
    json_t *j = NULL;
    sked_cron cron;
    int rc;

    sked_error_clear(&err);
    if ((rc = sked__schedule_to_json(s, &j, &err)) < 0)
        return cli_fail(rc, "cannot show schedule \"%s\": %s", s->name,
                        err.msg[0] ? err.msg : sked_strerror(rc));
    print_fields(j);
    json_decref(j);
    if (s->kind == SKED_SPEC_CRON &&
        sked_cron_parse(s->cron, &cron, NULL) == 0 &&
        sked_cron_explain(&cron, s->timezone ? s->timezone : "UTC", words,
                          sizeof words) >= 0)
        printf("%-22s %s\n", "explain", words);
    out_time_local(s->next_fire_at, schedule_zone_of(db, s), t, sizeof t);
    printf("%-22s %s\n", "next_fire_local", t);
    return cli_flush();
}

static int schedule_get(const cli_cmd *self, int argc, char **argv)
{
    const char *db = NULL, *server = NULL;
    bool json = false;
    const cli_opt opts[] = {
        {"json", 0, CLI_OPT_FLAG, &json},
        {"db", 0, CLI_OPT_VALUE, &db},
        {"server", 0, CLI_OPT_VALUE, &server},
        {0},
    };
    schedule_ctx c = {0};
    cli_args args;
    int rc;

    if ((rc = cli_parse(self, argc, argv, opts, &args)) != CLI_CONTINUE ||
        (rc = cli_one_arg(self, &args, "schedule name")) != 0)
        return rc;
    sked_schedule_init(&c.s);
    if ((rc = schedule_ctx_open(&c, self, db, server)) == 0 &&
        (rc = schedule_ctx_get(&c, args.pos[0])) == 0)
        rc = json ? print_schedule_json(&c.s)
                  : print_schedule_human(c.tzdb, &c.s);
    schedule_ctx_done(&c);
    return rc;
}

/* ---- create and update -------------------------------------------------- */
/* Print what create or update did: the schedule read back, as JSON, or
 * one line with its next occurrence. */
static int print_written(schedule_ctx *c, const char *verb, bool json)
{
    char t[OUT_TIME_MAX];
    char *name = c->s.name;
    int rc;

    c->s.name = NULL; /* ctx_get frees c->s */
    rc = schedule_ctx_get(c, name);
    free(name);
    if (rc != 0)
        return rc;
    if (json)
        return print_schedule_json(&c->s);
    out_time_local(c->s.next_fire_at, schedule_zone_of(c->tzdb, &c->s), t,
                   sizeof t);
    printf("%s schedule %s (%s); next: %s\n", verb, c->s.name,
           sked_schedule_status_name(c->s.status), t);
    return cli_flush();
}

/* SPEC 7: the name defaults to the workflow's. Check the workflow first,
 * so that a bad one is reported as the workflow, not as the name. */
static int default_name(const sched_flags *f, sked_schedule *s)
{
    sked_error err;

    sked_error_clear(&err);
    if (sked__schedule_name_check(f->workflow, "workflow", &err) < 0)
        return cli_invalid("workflow", f->workflow, &err);
    if (!(s->name = strdup(f->workflow)))
        return cli_fail(SKED_ENOMEM, "out of memory");
    return 0;
}

static int schedule_create(const cli_cmd *self, int argc, char **argv)
{
    sched_flags f = {0};
    cli_opt opts[SCHED_OPTS_MAX] = {0};
    int n = sched_opts_common(&f, opts);
    sked_error err;
    cli_args args;
    schedule_ctx c = {0};
    int rc;

    opts[n++] = (cli_opt){"name", 0, CLI_OPT_VALUE, &f.name};
    opts[n++] = (cli_opt){"paused", 0, CLI_OPT_FLAG, &f.paused};
    if ((rc = cli_parse(self, argc, argv, opts, &args)) != CLI_CONTINUE)
        return rc;
    if (args.npos == 0)
        return cli_usage_error(self, "missing the workflow");
    if (args.npos > 2)
        return cli_usage_error(self, "too many arguments: quote the "
                                     "expression, as in \"0 9 * * 1-5\"");
    if (args.npos == 1 && !f.every && !f.at && !f.rrule)
        return cli_usage_error(self, "missing the cron expression, --every, "
                                     "--at or --rrule");
    f.workflow = args.pos[0];
    f.cron = args.npos == 2 ? args.pos[1] : NULL;
    sked_schedule_init(&c.s);
    if (!f.name && (rc = default_name(&f, &c.s)) != 0)
        return rc;
    if (f.paused)
        c.s.status = SKED_SCHEDULE_PAUSED;
    if ((rc = sched_opts_apply(&f, &c.s)) == 0 &&
        (rc = direct_tzdb_open(&c.tzdb)) == 0 &&
        (rc = sched_opts_validate(&f, &c.s, c.tzdb)) == 0 &&
        (rc = schedule_ctx_open(&c, self, f.db, f.server)) == 0) {
        sked_error_clear(&err);
        rc = c.t->ops->schedule_create(c.t, &c.s, &err);
        rc = rc < 0 ? sched_opts_fail(&f, &c.s, "create", &err, rc)
                    : print_written(&c, "created", f.json);
    }
    schedule_ctx_done(&c);
    return rc;
}

static int schedule_update(const cli_cmd *self, int argc, char **argv)
{
    sched_flags f = {0};
    cli_opt opts[SCHED_OPTS_MAX] = {0};
    int n = sched_opts_common(&f, opts);
    sked_error err;
    cli_args args;
    schedule_ctx c = {0};
    int rc;

    opts[n++] = (cli_opt){"workflow", 0, CLI_OPT_VALUE, &f.workflow};
    opts[n++] = (cli_opt){"cron", 0, CLI_OPT_VALUE, &f.cron};
    opts[n++] = (cli_opt){"no-automatic-backfill", 0, CLI_OPT_FLAG,
                          &f.no_automatic_backfill};
    if ((rc = cli_parse(self, argc, argv, opts, &args)) != CLI_CONTINUE ||
        (rc = cli_one_arg(self, &args, "schedule name")) != 0)
        return rc;
    sked_schedule_init(&c.s);
    /* Check the options alone before reading anything. */
    if ((rc = sched_opts_apply(&f, &c.s)) != 0) {
        schedule_ctx_done(&c);
        return rc;
    }
    if ((rc = schedule_ctx_open(&c, self, f.db, f.server)) == 0 &&
        (rc = schedule_ctx_get(&c, args.pos[0])) == 0 &&
        (rc = sched_opts_apply(&f, &c.s)) == 0 &&
        (rc = sched_opts_validate(&f, &c.s, c.tzdb)) == 0) {
        sked_error_clear(&err);
        rc = c.t->ops->schedule_update(c.t, &c.s, &err);
        rc = rc < 0 ? sched_opts_fail(&f, &c.s, "update", &err, rc)
                    : print_written(&c, "updated", f.json);
    }
    schedule_ctx_done(&c);
    return rc;
}

/* ---- list --------------------------------------------------------------- */

typedef struct list_opts {
    const char *status, *workflow, *prefix, *limit, *cursor, *db, *server;
    bool json, names;
} list_opts;

/* Check the options of list into *q. Returns 0 or the exit code. */
static int list_query(const cli_cmd *self, const list_opts *o,
                      sked_schedule_query *q)
{
    sked_schedule_status st;
    sked_error err;
    long limit = LIST_DEFAULT;
    int rc;

    sked_error_clear(&err);
    if (o->status &&
        sked_schedule_status_parse(o->status, "status", &st, &err) < 0)
        return cli_invalid("--status", o->status, &err);
    if (o->limit && (rc = cli_parse_count(self, "--limit", o->limit, 1,
                                          SKED_ENGINE_LIST_MAX, &limit)))
        return rc;
    q->status = o->status;
    q->limit = (size_t) limit;
    q->workflow = o->workflow;
    q->prefix = o->prefix;
    q->cursor = o->cursor && o->cursor[0] ? o->cursor : NULL;
    return 0;
}

static int list_json(const sked_schedule_page *p)
{
    sked_error err;
    json_t *j;

    sked_error_clear(&err);
    if (!(j = sked__answer_schedule_page(p, &err)))
        return cli_fail(err.code < 0 ? err.code : SKED_ENOMEM,
                        "cannot write the list: %s",
                        err.msg[0] ? err.msg : "out of memory");
    return out_json(j);
}

static int list_table(sked_tzdb *db, const sked_schedule_page *p)
{
    const sked_schedule *v = p->items;
    size_t n = p->n;
    static const char *const heads[] = {"name",     "status",    "schedule",
                                        "timezone", "next fire", "last fired"};
    char spec[SKED_CRON_MAX_LEN + 16], next[OUT_TIME_MAX], last[OUT_TIME_MAX];
    out_table t;
    int rc = 0;

    out_table_init(&t, 6, heads);
    for (size_t i = 0; i < n && rc == 0; i++) {
        const sked_tz *tz = schedule_zone_of(db, &v[i]);
        const char *row[6] = {v[i].name, sked_schedule_status_name(v[i].status),
                              spec,      v[i].timezone ? v[i].timezone : "UTC",
                              next,      last};

        spec_words(&v[i], spec, sizeof spec);
        out_time_local(v[i].next_fire_at, tz, next, sizeof next);
        out_time_local(v[i].last_fired_at, tz, last, sizeof last);
        rc = out_table_add(&t, row);
    }
    if (rc == 0)
        out_table_print(&t);
    out_table_done(&t);
    if (rc < 0)
        return cli_fail(rc, "out of memory");
    if (p->next_cursor)
        fprintf(stderr, "sked: more schedules follow: --cursor %s\n",
                p->next_cursor);
    return cli_flush();
}

/* --names: every name the filters keep, one a line, following the pages
 * (shell completions read it). Returns 0 or the exit code. */
static int list_names(schedule_ctx *c, sked_schedule_query *q)
{
    sked_schedule_page p = {0};
    char *cursor = NULL;
    sked_error err;
    int rc;

    for (;;) {
        sked_error_clear(&err);
        if (cursor)
            q->cursor = cursor; /* else the first page: --cursor's */
        if ((rc = c->t->ops->schedule_list(c->t, q, &p, &err)) < 0)
            break;
        for (size_t i = 0; i < p.n; i++)
            printf("%s\n", p.items[i].name);
        free(cursor);
        cursor = NULL;
        if (p.next_cursor && !(cursor = cli_format("%s", p.next_cursor)))
            rc = SKED_ENOMEM;
        sked_schedule_page_done(&p);
        if (!cursor)
            break;
    }
    free(cursor);
    if (rc < 0)
        return cli_fail(rc, "cannot list schedules: %s",
                        err.msg[0] ? err.msg : sked_strerror(rc));
    return cli_flush();
}

static int schedule_list(const cli_cmd *self, int argc, char **argv)
{
    list_opts o = {0};
    const cli_opt opts[] = {
        {"status", 0, CLI_OPT_VALUE, &o.status},
        {"workflow", 0, CLI_OPT_VALUE, &o.workflow},
        {"prefix", 0, CLI_OPT_VALUE, &o.prefix},
        {"limit", 0, CLI_OPT_VALUE, &o.limit},
        {"cursor", 0, CLI_OPT_VALUE, &o.cursor},
        {"json", 0, CLI_OPT_FLAG, &o.json},
        {"names", 0, CLI_OPT_FLAG, &o.names},
        {"db", 0, CLI_OPT_VALUE, &o.db},
        {"server", 0, CLI_OPT_VALUE, &o.server},
        {0},
    };
    sked_schedule_query q = {0};
    sked_schedule_page p = {0};
    sked_error err;
    cli_args args;
    schedule_ctx c = {0};
    int rc;

    if ((rc = cli_parse(self, argc, argv, opts, &args)) != CLI_CONTINUE)
        return rc;
    if (args.npos > 0)
        return cli_usage_error(self, "too many arguments");
    if (o.json && o.names)
        return cli_usage_error(self, "--json and --names exclude each other");
    if ((rc = list_query(self, &o, &q)) != 0)
        return rc;
    sked_schedule_init(&c.s);
    if ((rc = schedule_ctx_open(&c, self, o.db, o.server)) == 0 && o.names) {
        rc = list_names(&c, &q);
    } else if (rc == 0) {
        sked_error_clear(&err);
        rc = c.t->ops->schedule_list(c.t, &q, &p, &err);
        if (rc < 0)
            rc = cli_fail(rc, "cannot list schedules: %s",
                          err.msg[0] ? err.msg : sked_strerror(rc));
        else
            rc = o.json ? list_json(&p) : list_table(c.tzdb, &p);
        sked_schedule_page_done(&p);
    }
    schedule_ctx_done(&c);
    return rc;
}

/* ---- pause, resume, delete ---------------------------------------------- */

typedef enum simple_op { OP_PAUSE, OP_RESUME, OP_DELETE } simple_op;

/* Run OP on NAME; print one line or, with JSON, the outcome. */
static int run_simple(schedule_ctx *c, simple_op op, const char *name,
                      bool json)
{
    static const char *const verbs[] = {"pause", "resume", "delete"};
    bool existed = true;
    sked_error err;
    int rc;

    sked_error_clear(&err);
    if (op == OP_PAUSE)
        rc = c->t->ops->schedule_pause(c->t, name, &err);
    else if (op == OP_RESUME)
        rc = c->t->ops->schedule_resume(c->t, name, &err);
    else if ((rc = c->t->ops->schedule_get(c->t, name, &c->s, &err)) == 0 ||
             rc == SKED_ENOTFOUND) {
        /* Delete is idempotent (SPEC 3.5): ask first, to say whether
         * there was anything to delete. */
        existed = rc == 0;
        sked_error_clear(&err);
        rc = c->t->ops->schedule_delete(c->t, name, &err);
    }
    if (rc < 0)
        return direct_schedule_fail(verbs[op], name, &err, rc);
    if (op == OP_DELETE && !existed) {
        /* SPEC 3.5: delete is idempotent; say so, and succeed. */
        fprintf(stderr,
                "sked: schedule \"%s\" does not exist; nothing to "
                "delete\n",
                name);
        return 0;
    }
    if (op == OP_DELETE) {
        if (!json) /* the API answers 204, with no body */
            printf("deleted schedule %s\n", name);
        return cli_flush();
    }
    c->s.name = strdup(name);
    if (!c->s.name)
        return cli_fail(SKED_ENOMEM, "out of memory");
    return print_written(c, op == OP_PAUSE ? "paused" : "resumed", json);
}

static int simple_cmd(const cli_cmd *self, int argc, char **argv, simple_op op)
{
    const char *db = NULL, *server = NULL;
    bool json = false;
    const cli_opt opts[] = {
        {"json", 0, CLI_OPT_FLAG, &json},
        {"db", 0, CLI_OPT_VALUE, &db},
        {"server", 0, CLI_OPT_VALUE, &server},
        {0},
    };
    cli_args args;
    schedule_ctx c = {0};
    int rc;

    if ((rc = cli_parse(self, argc, argv, opts, &args)) != CLI_CONTINUE ||
        (rc = cli_one_arg(self, &args, "schedule name")) != 0)
        return rc;
    sked_schedule_init(&c.s);
    if ((rc = schedule_ctx_open(&c, self, db, server)) == 0)
        rc = run_simple(&c, op, args.pos[0], json);
    schedule_ctx_done(&c);
    return rc;
}

static int schedule_pause(const cli_cmd *self, int argc, char **argv)
{
    return simple_cmd(self, argc, argv, OP_PAUSE);
}

static int schedule_resume(const cli_cmd *self, int argc, char **argv)
{
    return simple_cmd(self, argc, argv, OP_RESUME);
}

static int schedule_delete(const cli_cmd *self, int argc, char **argv)
{
    return simple_cmd(self, argc, argv, OP_DELETE);
}

/* ---- the group ---------------------------------------------------------- */

#define DEF_HELP                                                               \
    SCHED_OPTS_HELP                                                            \
    "  --json               print the schedule as JSON\n" TARGET_HELP          \
    "  -h, --help           show this help\n"                                  \
    "\n"                                                                       \
    "Durations: 90s, 5m, 2h, 3d, 1w, 1h30m or whole seconds. Instants:\n"      \
    "RFC 3339 with an offset, as 2026-12-01T09:00:00Z.\n"

static const cli_cmd create_cmd = {
    .name = "create",
    .path = "sked schedule create",
    .summary = "Create a schedule",
    .run = schedule_create,
    .help = "Usage: sked schedule create WORKFLOW EXPR [OPTIONS]\n"
            "       sked schedule create WORKFLOW --every D|--at T|--rrule R\n"
            "           [OPTIONS]\n"
            "\n"
            "Create a schedule that runs WORKFLOW at the occurrences of the\n"
            "cron expression EXPR (see sked cron --help), every D, once at\n"
            "T, or at those of the RFC 5545 rule R in its zone. The\n"
            "workflow need not be registered yet.\n"
            "\n"
            "Options:\n"
            "  --name N             the schedule's name (default WORKFLOW)\n"
            "  --paused             create it paused\n" DEF_HELP "\n"
            "Example:\n"
            "  sked schedule create morning-report \"0 9 * * *\" \\\n"
            "      --timezone Europe/Paris --catchup all --catchup-max 5 \\\n"
            "      --catchup-window 259200 --overlap skip\n",
};

static const cli_cmd update_cmd = {
    .name = "update",
    .path = "sked schedule update",
    .summary = "Change a schedule",
    .run = schedule_update,
    .help =
        "Usage: sked schedule update NAME [OPTIONS]\n"
        "\n"
        "Change the options given and keep the others. A new --cron,\n"
        "--every or --at replaces the time spec. An empty --queue,\n"
        "--description, --timezone, --anchor, --start-at or --end-at\n"
        "clears it. Exit code 3 when NAME does not exist.\n"
        "\n"
        "Options:\n"
        "  --workflow W         run W instead\n"
        "  --cron EXPR          a cron schedule with the expression EXPR\n"
        "  --no-automatic-backfill  back to the catch-up options\n" DEF_HELP,
};

static const cli_cmd get_cmd = {
    .name = "get",
    .path = "sked schedule get",
    .summary = "Show a schedule",
    .run = schedule_get,
    .help = "Usage: sked schedule get NAME [--json]\n"
            "\n"
            "Print every field of the schedule NAME, as the HTTP API returns\n"
            "it. Exit code 3 when it does not exist.\n"
            "\n"
            "Options:\n"
            "  --json         print JSON\n" TARGET_HELP
            "  -h, --help     show this help\n",
};

static const cli_cmd list_cmd = {
    .name = "list",
    .path = "sked schedule list",
    .summary = "List schedules",
    .run = schedule_list,
    .help = "Usage: sked schedule list [--status S] [--workflow W] "
            "[--prefix P]\n"
            "                          [--limit N] [--cursor C] [--json]\n"
            "                          [--names]\n"
            "\n"
            "List schedules by name: status, time spec, zone, and the next\n"
            "and last occurrences on the zone's clock. When more follow,\n"
            "the cursor of the next page is printed on stderr (and is\n"
            "\"next_cursor\" in the JSON).\n"
            "\n"
            "Options:\n"
            "  --status S     active, paused, disabled or done\n"
            "  --workflow W   only schedules of the workflow W\n"
            "  --prefix P     only names that start with P\n"
            "  --limit N      at most N, 1 to 1000 (default 100)\n"
            "  --cursor C     names after C (the previous page's cursor)\n"
            "  --json         print JSON\n"
            "  --names        print the names only, one a line, of every\n"
            "                 page (for scripts and shell "
            "completions)\n" TARGET_HELP "  -h, --help     show this help\n",
};

#define SIMPLE_HELP(verb, text)                                                \
    "Usage: sked schedule " verb " NAME [--json]\n"                            \
    "\n" text "\n"                                                             \
    "\n"                                                                       \
    "Options:\n"                                                               \
    "  --json         print JSON\n" TARGET_HELP                                \
    "  -h, --help     show this help\n"

static const cli_cmd pause_cmd = {
    .name = "pause",
    .path = "sked schedule pause",
    .summary = "Pause a schedule",
    .run = schedule_pause,
    .help = SIMPLE_HELP("pause", "Stop the schedule NAME from firing; it keeps "
                                 "its definition.\nExit code 3 when it does "
                                 "not exist."),
};

static const cli_cmd resume_cmd = {
    .name = "resume",
    .path = "sked schedule resume",
    .summary = "Resume a paused schedule",
    .run = schedule_resume,
    .help = SIMPLE_HELP("resume", "Let the schedule NAME fire again, from "
                                  "now on: what it missed while\npaused is "
                                  "not caught up. Exit code 3 when it does "
                                  "not exist."),
};

static const cli_cmd delete_cmd = {
    .name = "delete",
    .path = "sked schedule delete",
    .summary = "Delete a schedule",
    .run = schedule_delete,
    .help = SIMPLE_HELP("delete", "Delete the schedule NAME. Deleting a "
                                  "schedule that does not exist\nsucceeds, "
                                  "with a note on stderr. With --json it "
                                  "prints\nnothing, as the API answers "
                                  "204 with no body."),
};

static const cli_cmd *const schedule_cmds[] = {
    &create_cmd,
    &get_cmd,
    &list_cmd,
    &update_cmd,
    &pause_cmd,
    &resume_cmd,
    &delete_cmd,
    &cli_cmd_schedule_preview,
    &cli_cmd_schedule_trigger,
    &cli_cmd_schedule_backfill,
    &cli_cmd_schedule_skip,
    &cli_cmd_schedule_unskip,
    &cli_cmd_schedule_skips,
    &cli_cmd_schedule_run,
    &cli_cmd_schedule_simulate,
    NULL,
};

const cli_cmd cli_cmd_schedule = {
    .name = "schedule",
    .path = "sked schedule",
    .summary = "Manage schedules",
    .run = cli_run_group,
    .subs = schedule_cmds,
    .help = "These commands work on the database directly (--db URL, else\n"
            "$SKED_DB, else sqlite:sked.db) or through a server's API\n"
            "(--server URL, else $SKED_SERVER; token: $SKED_TOKEN), with\n"
            "the same output; either option goes before or after the\n"
            "command. Exit codes: 0 ok, 1 error, 2 usage, 3 not found,\n"
            "4 conflict (the name exists).\n",
};
