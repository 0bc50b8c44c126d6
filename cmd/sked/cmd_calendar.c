/* SPDX-License-Identifier: MIT */
/* "sked calendar create|update|get|list|delete|days" (docs/calendars.md):
 * named sets of days, through the target (the database, or a server's
 * /api/v1/calendars) like every command.
 *
 * The options of a definition come from the calendar's field table
 * (sked/calendar.h): a list option is repeatable, and on update a list
 * given replaces that list, a field not given is kept. --ics reads an
 * iCalendar file (at most SKED_CALENDAR_ICS_MAX bytes). Errors name the
 * field and position as the API does ("dates[1]: 2026-02 has no day
 * 30"). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "cli.h"
#include "engine/answer.h"
#include "model/calendar.h"
#include "output.h"
#include "target.h"

/* The options of a definition, as cli_parse fills them. */
typedef struct def_opts {
    const char *description, *ics, *observed, *weekdays;
    cli_list dates, rules, include;
    bool json;
} def_opts;

/* The definition's options in --help: the field table's lines. */
#define HELP_LINE(m, kind, role, json, yaml, cli, help, descr) help
#define DEF_HELP                                                               \
    SKED_CALENDAR_FIELDS(HELP_LINE)                                            \
    "  --json               print the API's calendar object\n" TARGET_HELP     \
    "  -h, --help           show this help\n"

/* Read the file PATH (at most the iCalendar cap) into *out. */
static int read_ics(const char *path, char **out)
{
    FILE *f = fopen(path, "rb");
    size_t n;
    char *buf;

    if (!f)
        return cli_fail(SKED_EIO, "cannot read --ics %s: %s", path,
                        strerror(errno));
    buf = sked__malloc((size_t) SKED_CALENDAR_ICS_MAX + 2);
    n = buf ? fread(buf, 1, (size_t) SKED_CALENDAR_ICS_MAX + 1, f) : 0;
    if (!buf || ferror(f)) {
        fclose(f);
        free(buf);
        return cli_fail(buf ? SKED_EIO : SKED_ENOMEM, "cannot read --ics %s",
                        path);
    }
    fclose(f);
    if (n > SKED_CALENDAR_ICS_MAX) {
        free(buf);
        return cli_fail(SKED_EINVAL, "invalid --ics %s: larger than %d bytes",
                        path, SKED_CALENDAR_ICS_MAX);
    }
    buf[n] = '\0';
    if (strlen(buf) != n) {
        free(buf);
        return cli_fail(SKED_EINVAL, "invalid --ics %s: it holds a NUL byte",
                        path);
    }
    *out = buf;
    return 0;
}

static int list_set(const cli_list *l, sked_strlist *dst)
{
    if (l->n == 0)
        return 0; /* not given: kept */
    sked__strlist_done(dst);
    for (int i = 0; i < l->n; i++)
        if (sked__strlist_add(dst, l->v[i]) != 0)
            return cli_fail(SKED_ENOMEM, "out of memory");
    return 0;
}

static int str_set(const char *v, char **dst)
{
    char *copy;

    if (!v)
        return 0;
    if (!(copy = sked__strdup(v)))
        return cli_fail(SKED_ENOMEM, "out of memory");
    free(*dst);
    *dst = copy;
    return 0;
}

/* Apply the options O onto *c. */
static int apply_opts(const def_opts *o, sked_calendar *c)
{
    sked_error err;
    char *ics = NULL;
    int rc;

    sked_error_clear(&err);
    if ((rc = list_set(&o->dates, &c->dates)) ||
        (rc = list_set(&o->rules, &c->rules)) ||
        (rc = list_set(&o->include, &c->include)) ||
        (rc = str_set(o->description, &c->description)))
        return rc;
    if (o->observed &&
        sked_observed_parse(o->observed, "observed", &c->observed, &err) != 0)
        return cli_invalid("--observed", o->observed, &err);
    if (o->weekdays &&
        sked_weekdays_parse(o->weekdays, "weekdays", &c->weekdays, &err) != 0)
        return cli_invalid("--weekdays", o->weekdays, &err);
    if (o->ics) {
        if ((rc = read_ics(o->ics, &ics)) != 0)
            return rc;
        free(c->ics);
        c->ics = ics;
    }
    return 0;
}

static void print_calendar(const sked_calendar *c)
{
    json_t *o = sked__calendar_to_json(c, false);
    char *text;

    if (!o)
        return;
    json_object_del(o, "ics"); /* its days are what matters here */
    text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    printf("%s\n", text ? text : "{}");
    if (c->ics)
        printf("ics: %zu bytes\n", strlen(c->ics));
    free(text);
    json_decref(o);
}

/* Report the write of C (its result RC) as get would show it. */
static int written(target *t, int rc, const char *name, bool json,
                   sked_error *err)
{
    sked_calendar now;

    if (rc != 0)
        return cli_invalid("calendar", name, err);
    sked_calendar_init(&now);
    if ((rc = t->ops->calendar_get(t, name, &now, err)) != 0)
        return cli_fail(rc, "cannot read calendar %s: %s", name, err->msg);
    if (json)
        rc = out_json(sked__calendar_to_json(&now, false));
    else
        print_calendar(&now);
    sked_calendar_done(&now);
    return rc ? rc : cli_flush();
}

static int write_run(const cli_cmd *self, int argc, char **argv, bool create)
{
    const char *db = NULL, *server = NULL;
    def_opts o = {0};
    const cli_opt opts[] = {
        {"description", 0, CLI_OPT_VALUE, &o.description},
        {"date", 0, CLI_OPT_LIST, &o.dates},
        {"rule", 0, CLI_OPT_LIST, &o.rules},
        {"include", 0, CLI_OPT_LIST, &o.include},
        {"ics", 0, CLI_OPT_VALUE, &o.ics},
        {"observed", 0, CLI_OPT_VALUE, &o.observed},
        {"weekdays", 0, CLI_OPT_VALUE, &o.weekdays},
        {"json", 0, CLI_OPT_FLAG, &o.json},
        {"db", 0, CLI_OPT_VALUE, &db},
        {"server", 0, CLI_OPT_VALUE, &server},
        {0},
    };
    sked_calendar c;
    sked_error err;
    cli_args args;
    target *t = NULL;
    int rc;

    if ((rc = cli_parse(self, argc, argv, opts, &args)) != CLI_CONTINUE ||
        (rc = cli_one_arg(self, &args, "missing the calendar name")) != 0)
        return rc;
    if ((rc = target_open(self, db, server, NULL, &t)) != 0)
        return rc;
    sked_calendar_init(&c);
    sked_error_clear(&err);
    if (!create && (rc = t->ops->calendar_get(t, args.pos[0], &c, &err)) != 0)
        rc = cli_fail(rc, "cannot read calendar %s: %s", args.pos[0], err.msg);
    else if (create && !(c.name = sked__strdup(args.pos[0])))
        rc = cli_fail(SKED_ENOMEM, "out of memory");
    if (rc == 0 && (rc = apply_opts(&o, &c)) == 0) {
        rc = create ? t->ops->calendar_create(t, &c, &err)
                    : t->ops->calendar_put(t, &c, NULL, &err);
        rc = written(t, rc, args.pos[0], o.json, &err);
    }
    sked_calendar_done(&c);
    target_close(t);
    return rc;
}

static int create_run(const cli_cmd *self, int argc, char **argv)
{
    return write_run(self, argc, argv, true);
}

static int update_run(const cli_cmd *self, int argc, char **argv)
{
    return write_run(self, argc, argv, false);
}

/* ---- get, list, delete ----------------------------------------------- */

static int get_run(const cli_cmd *self, int argc, char **argv)
{
    const char *db = NULL, *server = NULL;
    bool json = false;
    const cli_opt opts[] = {
        {"json", 0, CLI_OPT_FLAG, &json},
        {"db", 0, CLI_OPT_VALUE, &db},
        {"server", 0, CLI_OPT_VALUE, &server},
        {0},
    };
    sked_error err;
    cli_args args;
    target *t = NULL;
    int rc;

    if ((rc = cli_parse(self, argc, argv, opts, &args)) != CLI_CONTINUE ||
        (rc = cli_one_arg(self, &args, "missing the calendar name")) != 0 ||
        (rc = target_open(self, db, server, NULL, &t)) != 0)
        return rc;
    sked_error_clear(&err);
    rc = written(t, 0, args.pos[0], json, &err);
    target_close(t);
    return rc;
}

static void print_list(const sked_calendar *v, size_t n)
{
    static const char *const heads[] = {"NAME",    "DATES", "RULES",
                                        "INCLUDE", "ICS",   "OBSERVED"};
    char counts[4][24];
    out_table tab;

    out_table_init(&tab, 6, heads);
    for (size_t i = 0; i < n; i++) {
        snprintf(counts[0], sizeof counts[0], "%zu", v[i].dates.n);
        snprintf(counts[1], sizeof counts[1], "%zu", v[i].rules.n);
        snprintf(counts[2], sizeof counts[2], "%zu", v[i].include.n);
        snprintf(counts[3], sizeof counts[3], "%s", v[i].ics ? "yes" : "-");
        const char *cells[] = {v[i].name, counts[0],
                               counts[1], counts[2],
                               counts[3], sked_observed_name(v[i].observed)};
        (void) out_table_add(&tab, cells);
    }
    out_table_print(&tab);
    out_table_done(&tab);
}

static int list_run(const cli_cmd *self, int argc, char **argv)
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
    sked_calendar *v = NULL;
    sked_error err;
    target *t = NULL;
    size_t n = 0;
    int rc;

    if ((rc = cli_parse_options(self, argc, argv, opts)) != CLI_CONTINUE)
        return rc;
    if (json && names)
        return cli_usage_error(self, "--json and --names exclude each other");
    if ((rc = target_open(self, db, server, NULL, &t)) != 0)
        return rc;
    sked_error_clear(&err);
    if ((rc = t->ops->calendar_list(t, &v, &n, &err)) != 0)
        rc = cli_fail(rc, "cannot list calendars: %s", err.msg);
    else if (names)
        for (size_t i = 0; i < n; i++)
            printf("%s\n", v[i].name);
    else if (json)
        rc = out_json(sked__answer_calendars(v, n, &err));
    else
        print_list(v, n);
    sked_calendars_free(v, n);
    target_close(t);
    return rc ? rc : cli_flush();
}

static int delete_run(const cli_cmd *self, int argc, char **argv)
{
    const char *db = NULL, *server = NULL;
    const cli_opt opts[] = {
        {"db", 0, CLI_OPT_VALUE, &db},
        {"server", 0, CLI_OPT_VALUE, &server},
        {0},
    };
    sked_error err;
    cli_args args;
    target *t = NULL;
    int rc;

    if ((rc = cli_parse(self, argc, argv, opts, &args)) != CLI_CONTINUE ||
        (rc = cli_one_arg(self, &args, "missing the calendar name")) != 0 ||
        (rc = target_open(self, db, server, NULL, &t)) != 0)
        return rc;
    sked_error_clear(&err);
    if ((rc = t->ops->calendar_delete(t, args.pos[0], &err)) != 0)
        rc =
            cli_fail(rc, "cannot delete calendar %s: %s", args.pos[0], err.msg);
    target_close(t);
    return rc;
}

/* ---- days ------------------------------------------------------------ */

static int parse_day(const char *flag, const char *s, int64_t *out)
{
    sked_error err;

    sked_error_clear(&err);
    return sked_date_parse(s, flag + 2, out, &err) != 0
               ? cli_invalid(flag, s, &err)
               : 0;
}

static int print_days(const char *name, const sked_calendar_day *v, size_t n,
                      bool json)
{
    sked_error err;
    char date[16];

    if (json)
        return out_json(sked__answer_calendar_days(name, v, n, &err));
    for (size_t i = 0; i < n; i++) {
        (void) sked_date_format(v[i].day, date, sizeof date);
        printf("%s\n", date);
    }
    return cli_flush();
}

static int days_run(const cli_cmd *self, int argc, char **argv)
{
    const char *db = NULL, *server = NULL, *from = NULL, *to = NULL;
    bool json = false, business = false;
    const cli_opt opts[] = {
        {"from", 0, CLI_OPT_VALUE, &from},
        {"to", 0, CLI_OPT_VALUE, &to},
        {"business", 0, CLI_OPT_FLAG, &business},
        {"json", 0, CLI_OPT_FLAG, &json},
        {"db", 0, CLI_OPT_VALUE, &db},
        {"server", 0, CLI_OPT_VALUE, &server},
        {0},
    };
    sked_calendar_days_query q = {0};
    sked_calendar_day *v = NULL;
    sked_error err;
    cli_args args;
    target *t = NULL;
    size_t n = 0;
    int rc;

    if ((rc = cli_parse(self, argc, argv, opts, &args)) != CLI_CONTINUE ||
        (rc = cli_one_arg(self, &args, "missing the calendar name")) != 0)
        return rc;
    q.from = cli_now() / (86400 * SKED_USEC_PER_SEC);
    if ((from && (rc = parse_day("--from", from, &q.from))) ||
        (q.to = q.from + 365, to && (rc = parse_day("--to", to, &q.to))))
        return rc;
    q.business = business;
    if ((rc = target_open(self, db, server, NULL, &t)) != 0)
        return rc;
    sked_error_clear(&err);
    if ((rc = t->ops->calendar_days(t, args.pos[0], &q, &v, &n, &err)) != 0)
        rc = cli_invalid("calendar", args.pos[0], &err);
    else
        rc = print_days(args.pos[0], v, n, json);
    free(v);
    target_close(t);
    return rc;
}

/* ---- the group -------------------------------------------------------- */

/* The help line of --names, the same in every list. */
#define NAMES_HELP "  --names        print the names only, one a line\n"

#define DEF_USAGE                                                              \
    " NAME [--date D]... [--rule R]...\n"                                      \
    "       [--include CAL]... [--ics FILE] [--observed R]\n"                  \
    "       [--weekdays LIST] [--json]\n"

static const cli_cmd create_cmd = {
    .name = "create",
    .path = "sked calendar create",
    .summary = "Create a calendar",
    .run = create_run,
    .help = "Usage: sked calendar create" DEF_USAGE "\n"
            "Create the calendar NAME: the union of its dates, the days of\n"
            "its rules, of the iCalendar file's events and of the calendars\n"
            "it includes; then print it as get does.\n"
            "\n"
            "Options:\n" DEF_HELP,
};

static const cli_cmd update_cmd = {
    .name = "update",
    .path = "sked calendar update",
    .summary = "Change a calendar: a list given replaces that list",
    .run = update_run,
    .help = "Usage: sked calendar update" DEF_USAGE "\n"
            "Change the calendar NAME: each option given replaces that field\n"
            "(every --date together replace the dates), the others are\n"
            "kept. Schedules that exclude it follow at once.\n"
            "\n"
            "Options:\n" DEF_HELP,
};

static const cli_cmd get_cmd = {
    .name = "get",
    .path = "sked calendar get",
    .summary = "Show a calendar",
    .run = get_run,
    .help = "Usage: sked calendar get NAME [--json]\n"
            "\n"
            "Print the calendar NAME; --json prints the API's object.\n"
            "\n"
            "Options:\n"
            "  --json         the API's calendar object\n" TARGET_HELP
            "  -h, --help     show this help\n",
};

static const cli_cmd list_cmd = {
    .name = "list",
    .path = "sked calendar list",
    .summary = "List the calendars",
    .run = list_run,
    .help = "Usage: sked calendar list [--json|--names]\n"
            "\n"
            "Print every calendar, by name, with the counts of its parts.\n"
            "\n"
            "Options:\n"
            "  --json         the API's {\"calendars\": [...]}\n" NAMES_HELP
                TARGET_HELP "  -h, --help     show this help\n",
};

static const cli_cmd delete_cmd = {
    .name = "delete",
    .path = "sked calendar delete",
    .summary = "Delete a calendar",
    .run = delete_run,
    .help = "Usage: sked calendar delete NAME\n"
            "\n"
            "Delete the calendar NAME (nothing when there is none). A\n"
            "calendar another one includes is not deleted.\n"
            "\n"
            "Options:\n" TARGET_HELP "  -h, --help     show this help\n",
};

static const cli_cmd days_cmd = {
    .name = "days",
    .path = "sked calendar days",
    .summary = "List a calendar's days, or its business days, in a period",
    .run = days_run,
    .help = "Usage: sked calendar days NAME [--from D] [--to D] [--business] "
            "[--json]\n"
            "\n"
            "Print the days of the calendar NAME from --from to --to (both\n"
            "included; default today and a year on, at most 3660 days), one\n"
            "a line; with --business, its business days instead: its\n"
            "weekdays that are not among its days.\n"
            "\n"
            "Options:\n"
            "  --from D       the first day, YYYY-MM-DD (default today, UTC)\n"
            "  --to D         the last day (default --from + 365 days)\n"
            "  --business     the business days, not the calendar's days\n"
            "  --json         the API's {\"calendar\", \"days\": [{\"date\",\n"
            "                 \"holiday\", \"business\"}]}\n" TARGET_HELP
            "  -h, --help     show this help\n",
};

static const cli_cmd *const calendar_cmds[] = {
    &create_cmd, &update_cmd, &get_cmd, &list_cmd, &delete_cmd, &days_cmd, NULL,
};

const cli_cmd cli_cmd_calendar = {
    .name = "calendar",
    .path = "sked calendar",
    .summary = "Manage calendars: shared sets of days schedules exclude",
    .run = cli_run_group,
    .subs = calendar_cmds,
};
