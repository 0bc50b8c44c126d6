/* SPDX-License-Identifier: MIT */
/* "sked cron": look at a cron expression without any database (SPEC 7).
 *
 *   next      the next occurrences after an instant, in a zone, with the
 *             marks of DST changes (SPEC 2.2 and 3.5 preview)
 *   explain   the expression in words
 *   validate  whether the expression is valid
 *
 * Zones come from the system's tz database, or $TZDIR. Nothing falls back
 * silently: an unknown zone, a bad instant or a bad count is an error. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Most occurrences "sked cron next" prints at once. */
#define NEXT_MAX     10000
#define NEXT_DEFAULT 5

/* A zone looked up for --tz, and the database that owns it. */
typedef struct zone {
    sked_tzdb *db;     /* owned; NULL for the built-in UTC */
    const sked_tz *tz; /* borrowed from db, or sked_tz_utc() */
    const char *name;  /* borrowed from argv; NULL without --tz */
} zone;

/* Load the zone NAME (NULL: UTC) into *z. Returns 0 or an exit code. */
static int zone_open(const char *name, zone *z)
{
    sked_error err;
    int rc;

    z->db = NULL;
    z->tz = sked_tz_utc();
    z->name = name;
    if (!name)
        return 0;
    sked_error_clear(&err);
    if ((rc = sked_tzdb_open(NULL, &z->db, &err)) < 0)
        return cli_fail(rc, "cannot open the time zone database: %s",
                        err.msg[0] ? err.msg : sked_strerror(rc));
    rc = sked_tzdb_get(z->db, name, &z->tz, &err);
    if (rc == 0)
        return 0;
    sked_tzdb_close(z->db);
    z->db = NULL;
    /* A zone is a value the user typed, not a resource: an unknown one is
     * an invalid argument (exit 1), not "not found" (exit 3). */
    if (rc == SKED_ENOTFOUND) {
        sked_error_clear(&err);
        snprintf(err.msg, sizeof err.msg, "unknown time zone");
    }
    err.code = rc == SKED_ENOTFOUND ? SKED_EINVAL : rc;
    err.field[0] = '\0'; /* "timezone": the flag already says it */
    return cli_invalid("--tz", name, &err);
}

static void zone_close(zone *z)
{
    sked_tzdb_close(z->db);
    z->db = NULL;
}

static int parse_expr(const char *expr, sked_cron *out)
{
    sked_error err;
    int rc;

    sked_error_clear(&err);
    if ((rc = sked_cron_parse(expr, out, &err)) < 0)
        return cli_invalid("cron expression", expr, &err);
    return 0;
}

/* Take exactly one positional argument, the expression, from ARGS. */
static int one_expr(const cli_cmd *self, const cli_args *args, const char **out)
{
    if (args->npos == 0)
        return cli_usage_error(self, "missing the cron expression");
    if (args->npos > 1)
        return cli_usage_error(self, "too many arguments: quote the "
                                     "expression, as in \"0 9 * * 1-5\"");
    *out = args->pos[0];
    return 0;
}

/* ---- next --------------------------------------------------------------- */

typedef struct next_opts {
    const char *tz, *dst, *after, *count;
    bool utc;
} next_opts;

/* The values of "sked cron next", checked. */
typedef struct next_query {
    sked_cron cron;
    zone zone;
    sked_dst dst;
    sked_time after;
    long count;
    bool utc;
} next_query;

static const char *mark_suffix(sked_occ_mark mark)
{
    switch (mark) {
    case SKED_OCC_SHIFTED:
        return "  shifted";
    case SKED_OCC_FIRST_PASS:
        return "  first_pass";
    case SKED_OCC_SECOND_PASS:
        return "  second_pass";
    case SKED_OCC_NORMAL:
        break;
    }
    return "";
}

/* Print one occurrence: in UTC, or in the zone with its offset. */
static int print_occurrence(const next_query *q, const sked_occurrence *occ)
{
    char buf[SKED_TIME_STRLEN];
    sked_tz_info info;
    int n;

    if (q->utc) {
        n = sked_time_format(occ->at, buf, sizeof buf);
    } else {
        if ((n = sked_tz_lookup(q->zone.tz, occ->at, &info)) < 0)
            return cli_fail(n, "cannot read the zone's offset: %s",
                            sked_strerror(n));
        n = sked_time_format_offset(occ->at, info.utoff, buf, sizeof buf);
    }
    if (n < 0)
        return cli_fail(n, "cannot write an occurrence: %s", sked_strerror(n));
    printf("%s%s\n", buf, mark_suffix(occ->mark));
    return 0;
}

static int print_next(const next_query *q)
{
    sked_time after = q->after;
    sked_occurrence occ;
    int rc;

    for (long i = 0; i < q->count; i++) {
        rc = sked_cron_next_occurrence(&q->cron, q->zone.tz, q->dst, after,
                                       &occ);
        if (rc == SKED_ENOTFOUND) {
            /* Not an error: the expression has fired its last (a date in
             * year 9999, a leap day near the end). Say so, and succeed
             * with what was found. */
            fprintf(stderr, "sked: no further occurrence before year "
                            "10000\n");
            break;
        }
        if (rc < 0)
            return cli_fail(rc, "cannot compute the next occurrence: %s",
                            sked_strerror(rc));
        if ((rc = print_occurrence(q, &occ)) != 0)
            return rc;
        after = occ.at;
    }
    return cli_flush();
}

/* Check the values of OPTS into *q, except the zone: usage mistakes
 * (exit 2) first, then bad values (exit 1). */
static int next_values(const cli_cmd *self, const next_opts *o, next_query *q)
{
    sked_error err;
    int rc;

    q->count = NEXT_DEFAULT;
    if (o->count &&
        (rc = cli_parse_count(self, "-n", o->count, 1, NEXT_MAX, &q->count)))
        return rc;
    sked_error_clear(&err);
    q->dst = SKED_DST_ONCE;
    if (o->dst && sked_dst_parse(o->dst, &q->dst, &err) < 0) {
        err.field[0] = '\0'; /* "dst": the flag already says it */
        return cli_invalid("--dst", o->dst, &err);
    }
    q->utc = o->utc;
    if (!o->after) {
        q->after = cli_now();
        return 0;
    }
    return cli_parse_instant("--after", o->after, &q->after);
}

static int cron_next(const cli_cmd *self, int argc, char **argv)
{
    next_opts o = {0};
    const cli_opt opts[] = {
        {"tz", 0, CLI_OPT_VALUE, &o.tz},
        {"dst", 0, CLI_OPT_VALUE, &o.dst},
        {"after", 0, CLI_OPT_VALUE, &o.after},
        {"count", 'n', CLI_OPT_VALUE, &o.count},
        {"utc", 0, CLI_OPT_FLAG, &o.utc},
        {0},
    };
    const char *expr = NULL;
    next_query q;
    cli_args args;
    int rc;

    if ((rc = cli_parse(self, argc, argv, opts, &args)) != CLI_CONTINUE)
        return rc;
    if ((rc = one_expr(self, &args, &expr)) != 0 ||
        (rc = next_values(self, &o, &q)) != 0 ||
        (rc = parse_expr(expr, &q.cron)) != 0 ||
        (rc = zone_open(o.tz, &q.zone)) != 0)
        return rc;
    rc = print_next(&q);
    zone_close(&q.zone);
    return rc;
}

/* ---- explain ------------------------------------------------------------ */

static int cron_explain(const cli_cmd *self, int argc, char **argv)
{
    const char *tz = NULL, *expr = NULL;
    const cli_opt opts[] = {
        {"tz", 0, CLI_OPT_VALUE, &tz},
        {0},
    };
    char buf[SKED_CRON_EXPLAIN_MAX];
    sked_cron cron;
    cli_args args;
    zone z;
    int rc;

    if ((rc = cli_parse(self, argc, argv, opts, &args)) != CLI_CONTINUE)
        return rc;
    if ((rc = one_expr(self, &args, &expr)) != 0 ||
        (rc = parse_expr(expr, &cron)) != 0 || (rc = zone_open(tz, &z)) != 0)
        return rc;
    /* SPEC 2.2: expressions run in UTC unless told otherwise; say so. */
    rc = sked_cron_explain(&cron, tz ? tz : "UTC", buf, sizeof buf);
    zone_close(&z);
    if (rc < 0)
        return cli_fail(rc, "cannot explain \"%.64s\": %s", expr,
                        sked_strerror(rc));
    printf("%s\n", buf);
    return cli_flush();
}

/* ---- validate ----------------------------------------------------------- */

static int cron_validate(const cli_cmd *self, int argc, char **argv)
{
    const char *expr = NULL;
    sked_cron cron;
    cli_args args;
    int rc;

    if ((rc = cli_parse(self, argc, argv, NULL, &args)) != CLI_CONTINUE)
        return rc;
    if ((rc = one_expr(self, &args, &expr)) != 0 ||
        (rc = parse_expr(expr, &cron)) != 0)
        return rc;
    printf("valid\n");
    return cli_flush();
}

/* ---- the group ---------------------------------------------------------- */

static const cli_cmd next_cmd = {
    .name = "next",
    .path = "sked cron next",
    .summary = "Print the next occurrences of an expression",
    .run = cron_next,
    .help = "Usage: sked cron next EXPR [--tz TZ] [--dst POLICY]\n"
            "                      [--after T] [-n N] [--utc]\n"
            "\n"
            "Print the next N occurrences of the cron expression EXPR, one\n"
            "a line, in RFC 3339 with the zone's offset. An occurrence moved\n"
            "by a daylight saving change is marked after it:\n"
            "  shifted       its local time was skipped; it fires at the "
            "end\n"
            "                of the gap\n"
            "  first_pass    its local time happens twice; this is the "
            "first\n"
            "  second_pass   ... and this the second (under last or both)\n"
            "\n"
            "Options:\n"
            "  --tz TZ        IANA time zone of EXPR (default UTC)\n"
            "  --dst POLICY   once (default): each local time fires at most\n"
            "                 once; cadence: keep the real-time rhythm of\n"
            "                 expressions that are not fixed-time; or a\n"
            "                 skipped time's rule and/or a repeated time's,\n"
            "                 comma-separated, in any order: shift (fire at\n"
            "                 the gap's end, the default) or skip; first\n"
            "                 (the default), last or both passes\n"
            "                 (skip,both; last; both,shift)\n"
            "  --after T      start strictly after the RFC 3339 instant T\n"
            "                 (default now)\n"
            "  -n, --count N  how many, 1 to 10000 (default 5)\n"
            "  --utc          print the instants in UTC\n"
            "  -h, --help     show this help\n"
            "\n"
            "Example:\n"
            "  sked cron next \"30 2 * * *\" --tz Europe/Paris \\\n"
            "      --after 2025-03-29T12:00:00Z -n 2\n",
};

static const cli_cmd explain_cmd = {
    .name = "explain",
    .path = "sked cron explain",
    .summary = "Describe an expression in words",
    .run = cron_explain,
    .help = "Usage: sked cron explain EXPR [--tz TZ]\n"
            "\n"
            "Describe the cron expression EXPR in English, with the "
            "zone it\n"
            "runs in (UTC unless --tz names one).\n"
            "\n"
            "Options:\n"
            "  --tz TZ     IANA time zone of EXPR (default UTC)\n"
            "  -h, --help  show this help\n"
            "\n"
            "Example:\n"
            "  sked cron explain \"0 9 * * 1-5\" --tz Europe/Paris\n",
};

static const cli_cmd validate_cmd = {
    .name = "validate",
    .path = "sked cron validate",
    .summary = "Check an expression",
    .run = cron_validate,
    .help = "Usage: sked cron validate EXPR\n"
            "\n"
            "Print \"valid\" and exit 0 when EXPR is a valid cron "
            "expression;\n"
            "otherwise print why on stderr and exit 1.\n"
            "\n"
            "Options:\n"
            "  -h, --help  show this help\n",
};

static const cli_cmd *const cron_cmds[] = {
    &next_cmd,
    &explain_cmd,
    &validate_cmd,
    NULL,
};

const cli_cmd cli_cmd_cron = {
    .name = "cron",
    .path = "sked cron",
    .summary = "Compute, explain and check cron expressions",
    .run = cli_run_group,
    .subs = cron_cmds,
    .help = "EXPR has 5 fields, \"minute hour day-of-month month "
            "day-of-week\",\n"
            "or 6 with seconds first, or is a macro such as @daily.\n",
};
