/* SPDX-License-Identifier: MIT */
/* "sked schedule trigger" and "sked schedule backfill": operations that
 * create runs, so they go through the engine (SPEC 3.5): in direct mode
 * an engine opened on the database, in remote mode the server's.
 *
 *   trigger NAME                  one run now; prints its id. Exit 4
 *                                 while an overlap-skip run is active.
 *   backfill NAME --start T --end T
 *                                 the runs of every occurrence in the open
 *                                 interval (T, T), with live firing's ids;
 *                                 prints how many were created and how
 *                                 many already existed.
 *
 * Backfill checks its range before it opens the database: both ends
 * given, well formed, start before end. The cap (SKED_BACKFILL_MAX
 * occurrences) and the schedule's existence are the engine's to check,
 * and it writes nothing when either fails. A progress bar goes to stderr
 * only when stderr is a terminal (over the API: chunk by chunk). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "direct.h"
#include "engine/answer.h"
#include "output.h"
#include "target.h"

/* Width of the progress bar, in cells. */
#define BAR_WIDTH 40

/* ---- trigger ------------------------------------------------------------ */

static int print_run_id(const char *id, bool json)
{
    if (json)
        return out_json(sked__answer_run_id(id));
    printf("%s\n", id);
    return cli_flush();
}

static int schedule_trigger(const cli_cmd *self, int argc, char **argv)
{
    const char *db = NULL, *server = NULL;
    bool json = false;
    const cli_opt opts[] = {
        {"json", 0, CLI_OPT_FLAG, &json},
        {"db", 0, CLI_OPT_VALUE, &db},
        {"server", 0, CLI_OPT_VALUE, &server},
        {0},
    };
    target *t = NULL;
    char *id = NULL;
    cli_args args;
    sked_error err;
    int rc;

    if ((rc = cli_parse(self, argc, argv, opts, &args)) != CLI_CONTINUE ||
        (rc = cli_one_arg(self, &args, "schedule name")) != 0)
        return rc;
    if ((rc = target_open(self, db, server, NULL, &t)) != 0)
        return rc;
    sked_error_clear(&err);
    rc = t->ops->schedule_trigger(t, args.pos[0], &id, &err);
    if (rc < 0)
        rc = direct_schedule_fail("trigger", args.pos[0], &err, rc);
    else
        rc = print_run_id(id, json);
    free(id);
    target_close(t);
    return rc;
}

/* ---- backfill ----------------------------------------------------------- */

typedef struct backfill_q {
    const char *name;
    const char *start_s, *end_s; /* as written, for messages */
    sked_time start, end;
    bool json;
} backfill_q;

/* The progress bar's state: drawn only when the shown value changes. */
typedef struct bar {
    int last_cells;
    int last_pct;
    bool drawn;
} bar;

/* A sked_progress_fn: redraw the bar on stderr, a terminal. */
static void bar_progress(void *ctx, size_t done, size_t total)
{
    bar *b = ctx;
    int pct = total ? (int) (done * 100 / total) : 100;
    int cells = total ? (int) (done * BAR_WIDTH / total) : BAR_WIDTH;
    char line[BAR_WIDTH + 1];

    if (b->drawn && pct == b->last_pct && cells == b->last_cells &&
        done != total)
        return;
    memset(line, '#', (size_t) cells);
    memset(line + cells, '.', (size_t) (BAR_WIDTH - cells));
    line[BAR_WIDTH] = '\0';
    fprintf(stderr, "\rbackfill [%s] %3d%% %zu/%zu", line, pct, done, total);
    (void) fflush(stderr);
    b->last_pct = pct;
    b->last_cells = cells;
    b->drawn = true;
}

/* Check the range of Q before anything is opened. Returns 0 or the exit
 * code: 2 for a missing end (an unbounded range), 1 for a bad one. */
static int check_range(const cli_cmd *self, backfill_q *q)
{
    int rc;

    if (!q->start_s)
        return cli_usage_error(self, "missing --start: a backfill needs "
                                     "both ends of its range");
    if (!q->end_s)
        return cli_usage_error(self, "missing --end: a backfill needs "
                                     "both ends of its range");
    if ((rc = cli_parse_instant("--start", q->start_s, &q->start)) != 0 ||
        (rc = cli_parse_instant("--end", q->end_s, &q->end)) != 0)
        return rc;
    if (q->end < q->start)
        return cli_fail(SKED_EINVAL,
                        "invalid range: end: --end %s is before --start %s",
                        q->end_s, q->start_s);
    if (q->end == q->start)
        return cli_fail(SKED_EINVAL,
                        "invalid range: end: the open interval (%s, %s) is "
                        "empty",
                        q->start_s, q->end_s);
    return 0;
}

static int print_backfill(const backfill_q *q, const sked_backfill_result *r)
{
    if (q->json)
        return out_json(sked__answer_backfill(r));
    printf("backfill of %s: %zu created, %zu skipped (already existed)\n",
           q->name, r->created, r->skipped);
    return cli_flush();
}

/* Run the backfill Q on the target T, with a bar on a terminal. */
static int run_backfill(target *t, const backfill_q *q)
{
    sked_backfill_result res = {0};
    bool tty = isatty(STDERR_FILENO) == 1;
    bar b = {0};
    sked_error err;
    int rc;

    sked_error_clear(&err);
    rc = t->ops->schedule_backfill(t, q->name, q->start, q->end,
                                   tty ? bar_progress : NULL, &b, &res, &err);
    if (b.drawn)
        fputs("\n", stderr);
    if (rc == SKED_ERANGE)
        return cli_fail(rc, "cannot backfill schedule \"%.128s\": %s: %s",
                        q->name, err.field[0] ? err.field : "end",
                        err.msg[0] ? err.msg
                                   : "more than 100000 occurrences in the "
                                     "range");
    if (rc < 0)
        return direct_schedule_fail("backfill", q->name, &err, rc);
    return print_backfill(q, &res);
}

static int schedule_backfill(const cli_cmd *self, int argc, char **argv)
{
    backfill_q q = {0};
    const char *db = NULL, *server = NULL;
    const cli_opt opts[] = {
        {"start", 0, CLI_OPT_VALUE, &q.start_s},
        {"end", 0, CLI_OPT_VALUE, &q.end_s},
        {"json", 0, CLI_OPT_FLAG, &q.json},
        {"db", 0, CLI_OPT_VALUE, &db},
        {"server", 0, CLI_OPT_VALUE, &server},
        {0},
    };
    sked_tzdb *tzdb = NULL;
    target *t = NULL;
    cli_args args;
    int rc;

    if ((rc = cli_parse(self, argc, argv, opts, &args)) != CLI_CONTINUE ||
        (rc = cli_one_arg(self, &args, "schedule name")) != 0 ||
        (rc = check_range(self, &q)) != 0)
        return rc;
    q.name = args.pos[0];
    /* The zone database places occurrences for a bar drawn over the API. */
    if ((rc = direct_tzdb_open(&tzdb)) == 0 &&
        (rc = target_open(self, db, server, tzdb, &t)) == 0)
        rc = run_backfill(t, &q);
    target_close(t);
    sked_tzdb_close(tzdb);
    return rc;
}

const cli_cmd cli_cmd_schedule_trigger = {
    .name = "trigger",
    .path = "sked schedule trigger",
    .summary = "Run a schedule's workflow now",
    .run = schedule_trigger,
    .help =
        "Usage: sked schedule trigger NAME [--json]\n"
        "\n"
        "Create one run of the schedule NAME now (trigger kind manual),\n"
        "even while it is paused, and print the run's id. Exit code 3\n"
        "when NAME does not exist; 4 when its overlap is skip and one of\n"
        "its runs is still active.\n"
        "\n"
        "Options:\n"
        "  --json         print the API's answer, {\"run_id\"}\n" TARGET_HELP
        "  -h, --help     show this help\n",
};

const cli_cmd cli_cmd_schedule_backfill = {
    .name = "backfill",
    .path = "sked schedule backfill",
    .summary = "Create the runs of a past period",
    .run = schedule_backfill,
    .help =
        "Usage: sked schedule backfill NAME --start T --end T [--json]\n"
        "\n"
        "Create the runs of every occurrence of the schedule NAME strictly\n"
        "between T and T, with the ids live firing uses: occurrences that\n"
        "already ran are skipped, never run twice. At most 100000\n"
        "occurrences per call. Prints how many runs were created and how\n"
        "many were skipped; on a terminal, a progress bar on stderr.\n"
        "Exit code 1 for a reversed, empty or too large range, 2 when an\n"
        "end is missing, 3 when NAME does not exist.\n"
        "\n"
        "Options:\n"
        "  --start T      the start of the range (excluded), RFC 3339\n"
        "  --end T        the end of the range (excluded), RFC 3339\n"
        "  --json         print the API's answer, {\"created\", "
        "\"skipped\"}\n" TARGET_HELP "  -h, --help     show this help\n",
};
