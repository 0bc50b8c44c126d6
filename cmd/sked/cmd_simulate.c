/* SPDX-License-Identifier: MIT */
/* "sked schedule simulate NAME --from T --to T [--down T..T]...": replay
 * a period of the schedule NAME on virtual time through the policy code
 * the server runs (SPEC 3.5; sked_schedule_simulate), and print what fires
 * and what is dropped, with reasons.
 *
 * Human output: one line per occurrence (UTC, the zone's clock, the
 * decision, why, when it was decided, the run id), then a summary. With
 * --json, one object per line (the API's, engine/answer.h), keys in
 * this order:
 *   {"occurrence": "…Z", "decision": "fire" | "drop", "reason": null |
 *    "catchup_skip" | …, "run_id": "sched-…" | null, "at": "…Z"}
 * Every option is checked before the database is opened. With --server
 * the schedule is read over the API and replayed here all the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "engine/answer.h"
#include "direct.h"
#include "output.h"
#include "target.h"

typedef struct sim_opts {
    const char *from, *to, *run_duration, *tick, *db, *server;
    cli_list down;
    bool json;
} sim_opts;

/* The parsed options. */
typedef struct sim_args {
    sked_time from, to;
    sked_dur run_duration, tick;
    sked_sim_span down[CLI_LIST_MAX];
    size_t ndown;
} sim_args;

/* Parse the duration S of option FLAG, at least MIN, into *out. */
static int parse_duration(const char *flag, const char *s, sked_dur min,
                          sked_dur *out)
{
    sked_error err;

    sked_error_clear(&err);
    if (sked_dur_parse(s, out, &err) < 0)
        return cli_invalid(flag, s, &err);
    if (*out < min)
        return cli_fail(SKED_EINVAL, "invalid %s \"%s\": must be at least %s",
                        flag, s, min > 0 ? "1s" : "0s");
    return 0;
}

/* Parse "T..T" into *out. */
static int parse_down(const cli_cmd *self, const char *s, sked_sim_span *out)
{
    const char *dots = strstr(s, "..");
    char a[SKED_TIME_INPUT_MAX + 1];
    size_t n = dots ? (size_t) (dots - s) : 0;
    int rc;

    if (!dots || n == 0 || n > SKED_TIME_INPUT_MAX || dots[2] == '\0' ||
        strstr(dots + 2, ".."))
        return cli_usage_error(self,
                               "invalid --down \"%.100s\": expected "
                               "START..END, two RFC 3339 instants",
                               s);
    memcpy(a, s, n);
    a[n] = '\0';
    if ((rc = cli_parse_instant("--down start", a, &out->from)) != 0 ||
        (rc = cli_parse_instant("--down end", dots + 2, &out->to)) != 0)
        return rc;
    return 0;
}

/* Check the options into *a. Returns 0 or the exit code. */
static int check_opts(const cli_cmd *self, const sim_opts *o, sim_args *a)
{
    int rc;

    if (!o->from || !o->to)
        return cli_usage_error(self,
                               "missing %s: the period needs both "
                               "ends",
                               o->from ? "--to" : "--from");
    if ((rc = cli_parse_instant("--from", o->from, &a->from)) != 0 ||
        (rc = cli_parse_instant("--to", o->to, &a->to)) != 0)
        return rc;
    a->run_duration = 0;
    a->tick = SKED_USEC_PER_SEC;
    if (o->run_duration &&
        (rc = parse_duration("--run-duration", o->run_duration, 0,
                             &a->run_duration)) != 0)
        return rc;
    if (o->tick && (rc = parse_duration("--tick", o->tick, SKED_USEC_PER_SEC,
                                        &a->tick)) != 0)
        return rc;
    a->ndown = (size_t) o->down.n;
    for (size_t i = 0; i < a->ndown; i++)
        if ((rc = parse_down(self, o->down.v[i], &a->down[i])) != 0)
            return rc;
    return 0;
}

/* Report the replay's failure ERR as the option it is about. */
static int sim_fail(const sim_opts *o, const sked_error *err, int rc)
{
    const char *msg = err->msg[0] ? err->msg : sked_strerror(rc);
    unsigned long i;

    if (strcmp(err->field, "to") == 0)
        return cli_fail(rc, "invalid period --from %s --to %s: %s", o->from,
                        o->to, msg);
    if (sscanf(err->field, "down[%lu]", &i) == 1 &&
        i < (unsigned long) o->down.n)
        return cli_fail(rc, "invalid --down \"%.100s\": %s", o->down.v[i], msg);
    if (err->field[0])
        return cli_fail(rc, "cannot simulate: %s: %s", err->field, msg);
    return cli_fail(rc, "cannot simulate: %s", msg);
}

/* Write the run id of record R of schedule NAME into BUF ("" if none). */
static void run_id(const char *name, const sked_sim_decision *r, char *buf,
                   size_t size)
{
    buf[0] = '\0';
    if (r->fire && sked_run_id_of(name, r->occurrence, buf, size) < 0)
        buf[0] = '\0';
}

/* One line per decision, the API's object of it (engine/answer.h). */
static int print_json(const char *name, const sked_simulation *o)
{
    for (size_t i = 0; i < o->n; i++) {
        json_t *d = sked__answer_sim_decision(name, &o->items[i]);
        char *line = d ? json_dumps(d, JSON_INDENT(0)) : NULL;

        json_decref(d);
        if (!line)
            return cli_fail(SKED_ENOMEM, "cannot write a decision: %s",
                            sked_strerror(SKED_ENOMEM));
        printf("%s\n", line);
        free(line);
    }
    return 0;
}

/* Write why record R fired or was dropped, in a few words. */
static void why_words(const sked_sim_decision *r, char *buf, size_t size)
{
    if (!r->fire) {
        snprintf(buf, size, "%s", sked_miss_reason_name(r->why));
        return;
    }
    snprintf(buf, size, "%s%s%s%s", r->catchup ? "catch-up" : "on time",
             r->scheduled_for != r->occurrence && r->scheduled_for != 0
                 ? ", moved"
                 : "",
             r->buffered ? ", waits" : "",
             r->cancel_active ? ", cancels active" : "");
}

static void print_summary(const char *name, const sked_simulation *o)
{
    size_t fired = 0, late = 0, dropped[SKED_MISS__COUNT] = {0};
    const char *sep = " (";

    for (size_t i = 0; i < o->n; i++) {
        const sked_sim_decision *r = &o->items[i];

        fired += (size_t) r->fire;
        late += r->fire && r->catchup;
        dropped[r->why] += !r->fire;
    }
    printf("\n%s: %zu occurrences, %zu fired (%zu on time, %zu caught up), "
           "%zu dropped",
           name, o->n, fired, fired - late, late, o->n - fired);
    for (int r = 0; r < SKED_MISS__COUNT; r++) {
        if (dropped[r] == 0)
            continue;
        printf("%s%zu %s", sep, dropped[r],
               sked_miss_reason_name((sked_miss_reason) r));
        sep = ", ";
    }
    printf("%s\n", o->n == fired ? "" : ")");
}

static void print_human(const sked_schedule *s, const sked_tz *tz,
                        const sked_simulation *o)
{
    char occ[OUT_TIME_MAX], local[OUT_TIME_MAX], at[OUT_TIME_MAX];
    char id[SKED_RUN_ID_MAX], why[64];

    if (o->n == 0) {
        printf("%s: no occurrence in the period\n", s->name);
        return;
    }
    printf("%-20s  %-25s  %-8s  %-24s  %-20s  %s\n", "OCCURRENCE", "LOCAL",
           "DECISION", "WHY", "DECIDED AT", "RUN ID");
    for (size_t i = 0; i < o->n; i++) {
        const sked_sim_decision *r = &o->items[i];

        out_time_utc(r->occurrence, occ, sizeof occ);
        out_time_local(r->occurrence, tz, local, sizeof local);
        out_time_utc(r->at, at, sizeof at);
        run_id(s->name, r, id, sizeof id);
        why_words(r, why, sizeof why);
        printf("%-20s  %-25s  %-8s  %-24s  %-20s  %s\n", occ, local,
               r->fire ? "fire" : "drop", why, at, r->fire ? id : "-");
    }
    print_summary(s->name, o);
}

/* Read the schedule NAME and its zone through an open target. */
static int read_schedule(target *t, sked_tzdb *db, const char *name,
                         sked_schedule *s, const sked_tz **tz)
{
    sked_error err;
    int rc;

    sked_error_clear(&err);
    if ((rc = t->ops->schedule_get(t, name, s, &err)) < 0)
        return direct_schedule_fail("read", name, &err, rc);
    *tz = sked_tz_utc();
    if (s->timezone && strcmp(s->timezone, "UTC") != 0 &&
        (rc = sked_tzdb_get(db, s->timezone, tz, &err)) < 0)
        return cli_fail(rc,
                        "schedule \"%s\": its timezone \"%s\" no longer "
                        "loads: %s",
                        name, s->timezone,
                        err.msg[0] ? err.msg : sked_strerror(rc));
    if (s->status != SKED_SCHEDULE_ACTIVE)
        fprintf(stderr,
                "sked: schedule \"%s\" is %s; simulating it as if "
                "active\n",
                name, sked_schedule_status_name(s->status));
    return 0;
}

static int simulate(const cli_cmd *self, const sim_opts *o, const sim_args *a,
                    const char *name)
{
    sked_simulate_options in = {.from = a->from,
                                .to = a->to,
                                .down = a->down,
                                .ndown = a->ndown,
                                .tick = a->tick,
                                .run_duration = a->run_duration};
    sked_simulation out = {0};
    const sked_tz *tz = NULL;
    sked_tzdb *db = NULL;
    target *t = NULL;
    sked_schedule s;
    sked_error err;
    int rc;

    sked_schedule_init(&s);
    if ((rc = direct_tzdb_open(&db)) == 0 &&
        (rc = target_open(self, o->db, o->server, db, &t)) == 0 &&
        (rc = read_schedule(t, db, name, &s, &tz)) == 0) {
        sked_error_clear(&err);
        /* A schedule with calendars is replayed where they are, by the
         * engine of the database or the server; one without is replayed
         * here, with no bound on the period's decisions. */
        if ((s.exclude && *s.exclude) || (s.only && *s.only))
            rc = t->ops->schedule_simulate(t, name, &in, &out, &err);
        else
            rc = sked_schedule_simulate(&s, tz, &in, &out, &err);
        if (rc < 0) {
            rc = sim_fail(o, &err, rc);
        } else {
            if (o->json)
                rc = print_json(s.name, &out);
            else
                print_human(&s, tz, &out);
            if (rc == 0)
                rc = cli_flush();
        }
    }
    sked_simulation_done(&out);
    sked_schedule_done(&s);
    target_close(t);
    sked_tzdb_close(db);
    return rc;
}

static int schedule_simulate(const cli_cmd *self, int argc, char **argv)
{
    sim_opts o = {0};
    const cli_opt opts[] = {
        {"from", 0, CLI_OPT_VALUE, &o.from},
        {"to", 0, CLI_OPT_VALUE, &o.to},
        {"down", 0, CLI_OPT_LIST, &o.down},
        {"run-duration", 0, CLI_OPT_VALUE, &o.run_duration},
        {"tick", 0, CLI_OPT_VALUE, &o.tick},
        {"json", 0, CLI_OPT_FLAG, &o.json},
        {"db", 0, CLI_OPT_VALUE, &o.db},
        {"server", 0, CLI_OPT_VALUE, &o.server},
        {0},
    };
    static sim_args a; /* CLI_LIST_MAX intervals: not on the stack */
    cli_args args;
    int rc;

    if ((rc = cli_parse(self, argc, argv, opts, &args)) != CLI_CONTINUE)
        return rc;
    if ((rc = cli_one_arg(self, &args, "schedule name")) != 0)
        return rc;
    if ((rc = check_opts(self, &o, &a)) != 0)
        return rc;
    return simulate(self, &o, &a, args.pos[0]);
}

const cli_cmd cli_cmd_schedule_simulate = {
    .name = "simulate",
    .path = "sked schedule simulate",
    .summary = "Replay a period: what fires, what is dropped",
    .run = schedule_simulate,
    .help =
        "Usage: sked schedule simulate NAME --from T --to T [--down T..T]...\n"
        "                              [--run-duration D] [--tick D] "
        "[--json]\n"
        "\n"
        "Replay the occurrences of the schedule NAME in the period (T, T]\n"
        "through the scheduler's own catch-up and overlap policies, on\n"
        "virtual time: nothing is written. The server decides each\n"
        "occurrence when it is due, except during a --down interval\n"
        "START..END: then it decides the backlog once, at END. Runs last\n"
        "--run-duration, so overlap policies show. The replay starts\n"
        "with nothing running and no run counted, even for a paused\n"
        "schedule. Prints one line per occurrence (fired, or dropped with\n"
        "its reason: catchup_skip, superseded, catchup_max,\n"
        "outside_window, overlap) and a summary.\n"
        "\n"
        "Options:\n"
        "  --from T            start of the period (excluded), RFC 3339\n"
        "  --to T              end of the period (included)\n"
        "  --down START..END   the server is down from START to END; may\n"
        "                      be repeated; inside the period, not "
        "overlapping\n"
        "  --run-duration D    how long each run lasts (default 0s)\n"
        "  --tick D            the server's tick (default 1s); the on-time\n"
        "                      grace is twice it, at least a minute\n"
        "  --json              one JSON object per line: occurrence,\n"
        "                      decision, reason, run_id, at (decided)\n"
        "  --db URL            the database: sqlite:PATH or postgres://...\n"
        "                      (default $SKED_DB, else sqlite:sked.db)\n"
        "  --server URL        read the schedule through the server at URL\n"
        "                      (default $SKED_SERVER)\n"
        "  -h, --help          show this help\n"
        "\n"
        "At most 1,000,000 occurrences. Exit codes: 0 ok, 1 bad value,\n"
        "2 usage, 3 no such schedule.\n"
        "\n"
        "Example:\n"
        "  sked schedule simulate morning-report --from 2026-03-25T00:00:00Z "
        "\\\n"
        "      --to 2026-04-01T00:00:00Z \\\n"
        "      --down 2026-03-26T12:00:00Z..2026-03-30T10:00:00Z\n",
};
