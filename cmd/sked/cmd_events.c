/* SPDX-License-Identifier: MIT */
/* "sked events [--follow] [--after ID] [--limit N] [--actor NAME]
 * [--json]" (SPEC 5, 7): the stored events, oldest first, one line each:
 *
 *   AT  TYPE  SUBJECT  ACTOR  PAYLOAD   (people; the payload without
 *                                        its "actor")
 *
 * --json prints what the API answers: the page {"events": [...],
 * "next_cursor"} of GET /api/v1/events, and with --follow each event
 * object on a line as the event stream carries it.
 *
 * --follow keeps printing events as they happen: over the API the
 * server's event stream (text/event-stream), on the database a read of
 * what is new every second. Ctrl-C ends it, with exit code 0. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_text.h"
#include "cli.h"
#include "output.h"
#include "target.h"

#define EVENTS_DEFAULT 100
#define EVENTS_MAX     1000

/* Largest --after taken. */
#define EVENT_ID_MAX 999999999999999L

/* Set by SIGINT and SIGTERM while following (sig_atomic_t is an int,
 * which the target's event_follow reads). */
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void) sig;
    stop = 1;
}

/* Print the event object EV as one line. */
static void print_event(const json_t *ev, bool json)
{
    const char *at = json_string_value(json_object_get(ev, "at"));
    const char *type = json_string_value(json_object_get(ev, "type"));
    const char *subject = json_string_value(json_object_get(ev, "subject"));
    json_t *payload = json_object_get(ev, "payload");
    const char *actor = json_string_value(json_object_get(payload, "actor"));
    json_t *rest = NULL;
    char *text;

    if (json) {
        text = sked__json_text(ev, NULL);
    } else {
        /* Who, in its column; the payload says the rest. */
        if (actor && (rest = json_copy(payload)))
            (void) json_object_del(rest, "actor");
        text = sked__json_text(rest ? rest : payload, NULL);
        printf("%s  %s  %s  %s  ", at ? at : "-", type ? type : "-",
               subject && subject[0] ? subject : "-", actor ? actor : "-");
    }
    printf("%s\n", text ? text : "{}");
    free(text);
    json_decref(rest);
}

typedef struct follow_out {
    bool json;
} follow_out;

/* A target_event_fn: print the event and flush, as it arrives. */
static void on_event(void *ctx, const char *text)
{
    const follow_out *o = ctx;
    json_t *ev = json_loads(text, 0, NULL);

    if (ev)
        print_event(ev, o->json);
    json_decref(ev);
    (void) fflush(stdout);
}

static int list_events(target *t, int64_t after, size_t limit,
                       const char *actor, bool json)
{
    char *text = NULL;
    json_t *page, *ev;
    const char *next;
    sked_error err;
    size_t i;
    int rc;

    sked_error_clear(&err);
    if ((rc = t->ops->event_list(t, after, limit, actor, &text, &err)) != 0)
        return cli_fail(rc, "cannot list events: %s",
                        err.msg[0] ? err.msg : sked_strerror(rc));
    page = json_loads(text, 0, NULL);
    free(text);
    if (!page)
        return cli_fail(SKED_EINTERNAL, "unreadable answer");
    if (json) /* the API's page, as "run list --json" prints its own */
        return out_json(page);
    json_array_foreach(json_object_get(page, "events"), i, ev)
    {
        print_event(ev, json);
    }
    if ((next = json_string_value(json_object_get(page, "next_cursor"))))
        fprintf(stderr, "more: --after %s\n", next);
    json_decref(page);
    return cli_flush();
}

static int follow_events(target *t, int64_t after, const char *actor, bool json)
{
    struct sigaction sa;
    follow_out o = {json};
    sked_error err;
    int rc;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* No SA_RESTART: a wait in progress ends at once. */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sked_error_clear(&err);
    rc = t->ops->event_follow(t, after, actor, on_event, &o, &stop, &err);
    if (rc != 0 && !stop)
        return cli_fail(rc, "cannot follow events: %s",
                        err.msg[0] ? err.msg : sked_strerror(rc));
    return cli_flush();
}

static int events_run(const cli_cmd *self, int argc, char **argv)
{
    const char *db = NULL, *server = NULL, *after_s = NULL, *limit_s = NULL,
               *actor = NULL;
    bool json = false, follow = false;
    const cli_opt opts[] = {
        {"follow", 'f', CLI_OPT_FLAG, &follow},
        {"after", 0, CLI_OPT_VALUE, &after_s},
        {"limit", 0, CLI_OPT_VALUE, &limit_s},
        {"actor", 0, CLI_OPT_VALUE, &actor},
        {"json", 0, CLI_OPT_FLAG, &json},
        {"db", 0, CLI_OPT_VALUE, &db},
        {"server", 0, CLI_OPT_VALUE, &server},
        {0},
    };
    long after = -1, limit = EVENTS_DEFAULT;
    target *t = NULL;
    int rc;

    if ((rc = cli_parse_options(self, argc, argv, opts)) != CLI_CONTINUE)
        return rc;
    if ((after_s && (rc = cli_parse_count(self, "--after", after_s, 0,
                                          EVENT_ID_MAX, &after))) ||
        (limit_s && (rc = cli_parse_count(self, "--limit", limit_s, 1,
                                          EVENTS_MAX, &limit))))
        return rc;
    if ((rc = target_open(self, db, server, NULL, &t)) != 0)
        return rc;
    if (follow)
        rc = follow_events(t, after, actor, json);
    else
        rc = list_events(t, after < 0 ? 0 : after, (size_t) limit, actor, json);
    target_close(t);
    return rc;
}

const cli_cmd cli_cmd_events = {
    .name = "events",
    .path = "sked events",
    .summary = "Show the events, or follow them as they happen",
    .run = events_run,
    .help =
        "Usage: sked events [--follow] [--after ID] [--limit N] [--actor "
        "NAME]\n"
        "                   [--json]\n"
        "\n"
        "Print the stored events, oldest first, one a line: when, type,\n"
        "subject (a schedule or a run), actor (who caused it: a token's\n"
        "name, user:LOGIN, code:APP, scheduler) and payload. When more "
        "follow,\n"
        "the next page's --after is printed on stderr. With --follow,\n"
        "keep printing events as they happen (from the next one, or\n"
        "after --after ID) until Ctrl-C.\n"
        "\n"
        "Options:\n"
        "  -f, --follow   print new events as they happen\n"
        "  --after ID     only the events after the event ID\n"
        "  --limit N      at most N, 1 to 1000 (default 100; not with\n"
        "                 --follow)\n"
        "  --actor NAME   only the events NAME caused\n"
        "  --json         the API's page, {\"events\": [...], "
        "\"next_cursor\"};\n"
        "                 with --follow, one event object a line\n" TARGET_HELP
        "  -h, --help     show this help\n",
};
