/* SPDX-License-Identifier: MIT */
/* "sked schedule preview NAME": the next occurrences of a schedule, in
 * UTC and on its zone's clock, each moved by a daylight saving change
 * marked (sked_schedule_preview), on the database directly or through
 * a server's API, like the other schedule commands (cmd_schedule.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "direct.h"
#include "engine/answer.h"
#include "output.h"
#include "schedule_ctx.h"
#include "target.h"

#define PREVIEW_DEFAULT 5
#define PREVIEW_MAX     1000

typedef struct preview_q {
    target *t;
    const sked_schedule *s;
    const sked_tz *tz;
    sked_time after;
    long count;
} preview_q;

/* What the calendars (or a skip) did to item IT, for the text output:
 * "" when nothing. */
static const char *calendar_note(const sked_preview_item *it, char *buf,
                                 size_t size)
{
    char occ[OUT_TIME_MAX];

    if (it->excluded)
        return "  excluded";
    if (it->skipped && it->occurrence == it->at)
        return "  skipped";
    if (it->occurrence == it->at)
        return "";
    out_time_utc(it->occurrence, occ, sizeof occ);
    snprintf(buf, size, "  moved from %s", occ);
    return buf;
}

static int preview_print(const preview_q *q, bool json)
{
    char utc[OUT_TIME_MAX], local[OUT_TIME_MAX], note[OUT_TIME_MAX + 16];
    sked_preview p = {NULL, 0};
    sked_error err;
    int rc;

    sked_error_clear(&err);
    rc = q->t->ops->schedule_preview(q->t, q->s->name, q->after,
                                     (size_t) q->count, &p, &err);
    if (rc == SKED_ENOMEM)
        return cli_fail(rc, "out of memory");
    if (rc < 0)
        return rc == SKED_ENOTFOUND && err.field[0]
                   ? cli_fail(rc, "cannot preview schedule \"%.128s\": %s: %s",
                              q->s->name, err.field, err.msg)
                   : direct_schedule_fail("preview", q->s->name, &err, rc);
    if (json) {
        json_t *j = sked__answer_occurrences(&p);

        sked_preview_done(&p);
        return out_json(j);
    }
    for (size_t i = 0; i < p.n; i++) {
        const char *mark = sked_occ_mark_name(p.items[i].mark);

        out_time_utc(p.items[i].at, utc, sizeof utc);
        out_time_local(p.items[i].at, q->tz, local, sizeof local);
        printf("%s  %s%s%s%s\n", utc, local, mark ? "  " : "", mark ? mark : "",
               calendar_note(&p.items[i], note, sizeof note));
    }
    size_t n = p.n;
    sked_preview_done(&p);
    if (n == 0)
        fprintf(stderr, "sked: schedule \"%s\" never fires again\n",
                q->s->name);
    return cli_flush();
}

static int schedule_preview(const cli_cmd *self, int argc, char **argv)
{
    const char *db = NULL, *server = NULL, *count = NULL, *after = NULL;
    bool json = false;
    const cli_opt opts[] = {
        {"count", 'n', CLI_OPT_VALUE, &count},
        {"after", 0, CLI_OPT_VALUE, &after},
        {"json", 0, CLI_OPT_FLAG, &json},
        {"db", 0, CLI_OPT_VALUE, &db},
        {"server", 0, CLI_OPT_VALUE, &server},
        {0},
    };
    preview_q q = {.count = PREVIEW_DEFAULT};
    cli_args args;
    schedule_ctx c = {0};
    int rc;

    if ((rc = cli_parse(self, argc, argv, opts, &args)) != CLI_CONTINUE ||
        (rc = cli_one_arg(self, &args, "schedule name")) != 0)
        return rc;
    if (count &&
        (rc = cli_parse_count(self, "-n", count, 1, PREVIEW_MAX, &q.count)))
        return rc;
    q.after = cli_now();
    if (after && (rc = cli_parse_instant("--after", after, &q.after)) != 0)
        return rc;
    sked_schedule_init(&c.s);
    if ((rc = schedule_ctx_open(&c, self, db, server)) == 0 &&
        (rc = schedule_ctx_get(&c, args.pos[0])) == 0) {
        q.t = c.t;
        q.s = &c.s;
        q.tz = schedule_zone_of(c.tzdb, &c.s);
        if (c.s.status == SKED_SCHEDULE_PAUSED)
            fprintf(stderr,
                    "sked: schedule \"%s\" is paused; these are the "
                    "occurrences it would have\n",
                    c.s.name);
        rc = preview_print(&q, json);
    }
    schedule_ctx_done(&c);
    return rc;
}

const cli_cmd cli_cmd_schedule_preview = {
    .name = "preview",
    .path = "sked schedule preview",
    .summary = "Show a schedule's next occurrences",
    .run = schedule_preview,
    .help =
        "Usage: sked schedule preview NAME [-n N] [--after T] [--json]\n"
        "\n"
        "Print the next N occurrences of the schedule NAME, in UTC and "
        "on\nits zone's clock, within its bounds. An occurrence moved by "
        "a\ndaylight saving change is marked: shifted (its local time was\n"
        "skipped; it fires at the end of the gap) or first_pass (its "
        "local\ntime happens twice; it fires on the first).\n"
        "\n"
        "Options:\n"
        "  -n, --count N  how many, 1 to 1000 (default 5)\n"
        "  --after T      start strictly after the instant T (default "
        "now)\n"
        "  --json         print the API's answer, {\"occurrences\": [{\"at\",\n"
        "                 \"local\", \"mark\"}]} (GET "
        ".../occurrences?n=N&after=T)\n" TARGET_HELP
        "  -h, --help     show this help\n",
};
