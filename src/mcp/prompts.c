/* SPDX-License-Identifier: MIT */
/* The prompts of a session (mcp_int.h): diagnose_run, a run's steps,
 * errors, exit codes and outputs laid out for a model; why_not_fired, a
 * schedule's state, its missed occurrences with their reasons, its
 * recent runs, its next occurrences and a replay of a period. Each reads
 * the API only, and hands the model the facts with the question: the
 * API's JSON follows the text as an embedded resource, so that nothing
 * the layout leaves out is lost. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/error.h"
#include "base/json_text.h"
#include "mcp/tools_int.h"

/* The most bytes of one output or stderr shown in the text. */
#define SHOWN_MAX 2000

/* The most events read back looking for missed occurrences. */
#define EVENT_PAGES 10
#define MISSED_MAX  20

json_t *sked__mcp_prompts_list(void)
{
    return json_pack(
        "{s:[{s:s, s:s, s:s, s:[{s:s, s:s, s:b}]}, "
        "{s:s, s:s, s:s, s:[{s:s, s:s, s:b}, {s:s, s:s, s:b}, "
        "{s:s, s:s, s:b}]}]}",
        "prompts", "name", "diagnose_run", "title", "Diagnose a run",
        "description",
        "Why a run failed (or is stuck): its steps, attempts, errors, exit "
        "codes and outputs, with a request to find the cause and a fix",
        "arguments", "name", "run_id", "description", "the id of the run",
        "required", 1, "name", "why_not_fired", "title",
        "Why did a schedule not fire?", "description",
        "A schedule's state, its missed occurrences with their reasons, its "
        "recent runs, its next occurrences and a replay of a period, with a "
        "request to explain what did not fire and why",
        "arguments", "name", "schedule", "description", "the schedule's name",
        "required", 1, "name", "from", "description",
        "the start of the period to replay, RFC 3339 (default: a day before "
        "to)",
        "required", 0, "name", "to", "description",
        "the end of the period to replay, RFC 3339 (default: now)", "required",
        0);
}

/* ---- laying out ---------------------------------------------------------- */

static const char *str_of(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));

    return s ? s : NULL;
}

/* Append "  LABEL: VALUE\n" when O has KEY (a string, or any JSON but
 * null, as text), cut at SHOWN_MAX bytes. */
static void line(sked_buf *b, const char *label, const json_t *o,
                 const char *key)
{
    const json_t *v = json_object_get(o, key);
    char *text = NULL;
    const char *s;
    size_t n;

    if (!v || json_is_null(v))
        return;
    s = json_is_string(v) ? json_string_value(v)
                          : (text = sked__json_text(v, NULL));
    if (!s)
        return;
    n = strlen(s);
    (void) sked__buf_printf(b, "  %s: %.*s%s\n", label,
                            (int) (n > SHOWN_MAX ? SHOWN_MAX : n), s,
                            n > SHOWN_MAX ? " [cut]" : "");
    free(text);
}

/* The steps of RUN, one block an attempt. */
static void steps_text(sked_buf *b, const json_t *run)
{
    const json_t *steps = json_object_get(run, "steps"), *s;
    size_t i;

    if (json_array_size(steps) == 0) {
        (void) sked__buf_puts(b, "\nNo step has started.\n");
        return;
    }
    (void) sked__buf_puts(b, "\nSteps, every attempt in order:\n");
    json_array_foreach(steps, i, s)
    {
        (void) sked__buf_printf(
            b, "- %s, attempt %lld%s: %s\n",
            str_of(s, "step") ? str_of(s, "step") : "?",
            (long long) json_integer_value(json_object_get(s, "attempt")),
            json_is_true(json_object_get(s, "compensation")) ? " (compensation)"
                                                             : "",
            str_of(s, "status") ? str_of(s, "status") : "?");
        line(b, "exit code", s, "exit_code");
        line(b, "duration (s)", s, "duration_secs");
        line(b, "error", s, "error");
        line(b, "error code", s, "error_code");
        line(b, "output", s, "output");
        line(b, "stderr", s, "stderr");
    }
}

/* A prompts/get result: DESC, the user message TEXT (taken) and the
 * resource URI of JSON (borrowed; NULL: none). */
static int result(const char *desc, sked_buf *text, const char *uri,
                  const json_t *json, json_t **out, sked_error *err)
{
    char *t = sked__buf_take(text, NULL),
         *j = json ? sked__json_text(json, NULL) : NULL;
    json_t *msgs = t ? json_pack("[{s:s, s:{s:s, s:s}}]", "role", "user",
                                 "content", "type", "text", "text", t)
                     : NULL;

    if (msgs && j &&
        json_array_append_new(
            msgs, json_pack("{s:s, s:{s:s, s:{s:s, s:s, s:s}}}", "role", "user",
                            "content", "type", "resource", "resource", "uri",
                            uri, "mimeType", "application/json", "text", j)) !=
            0) {
        json_decref(msgs);
        msgs = NULL;
    }
    free(t);
    free(j);
    if (!msgs || (json && !j) ||
        !(*out =
              json_pack("{s:s, s:o}", "description", desc, "messages", msgs)))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, "out of memory");
    return 0;
}

/* The string argument KEY of ARGS into *out (NULL when absent and not
 * REQUIRED). */
static int arg(const json_t *args, const char *key, bool required,
               const char **out, sked_error *err)
{
    const json_t *v = json_object_get(args, key);

    *out = json_string_value(v);
    if (v && !json_is_string(v))
        return sked__error_set(err, SKED_EINVAL, key, -1, "expected a string");
    if (required && (!*out || !**out))
        return sked__error_set(err, SKED_EINVAL, key, -1, "required");
    return 0;
}

/* ---- diagnose_run -------------------------------------------------------- */

static int diagnose_run(const mcp_ctx *c, json_t *args, json_t **out,
                        sked_error *err)
{
    const char *id;
    json_t *run = NULL;
    sked_buf b = {0}, t = {0};
    char *target, *uri;
    int rc;

    if ((rc = arg(args, "run_id", true, &id, err)) != 0)
        return rc;
    (void) sked__buf_puts(&t, "/api/v1/runs/");
    sked__mcp_escape(&t, id);
    target = sked__buf_take(&t, NULL);
    uri = sked__mcp_uri("sked://runs/", id);
    rc = target && uri ? sked__mcp_get(c, target, &run, err)
                       : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    free(target);
    /* The API names its path's parameter; the prompt's is run_id. */
    if (rc != 0 && strcmp(err->field, "id") == 0)
        (void) snprintf(err->field, sizeof err->field, "run_id");
    if (rc == 0) {
        (void) sked__buf_printf(
            &b, "Run %s of workflow %s is %s.\n", id,
            str_of(run, "workflow") ? str_of(run, "workflow") : "?",
            str_of(run, "status") ? str_of(run, "status") : "?");
        line(&b, "schedule", run, "schedule");
        line(&b, "trigger", run, "trigger");
        line(&b, "scheduled for", run, "scheduled_for");
        line(&b, "started at", run, "started_at");
        line(&b, "finished at", run, "finished_at");
        line(&b, "attempts", run, "attempts");
        line(&b, "error", run, "error");
        line(&b, "error code", run, "error_code");
        line(&b, "context", run, "context");
        line(&b, "output", run, "output");
        steps_text(&b, run);
        (void) sked__buf_puts(
            &b, "\nFind the cause: which step failed first and why, from "
                "its error, exit code and stderr; whether a retry or a "
                "compensation ran; and what to change (the step, its input, "
                "the schedule's context) so that the next run succeeds. The "
                "run's JSON follows.\n");
        rc = result("Diagnose a run", &b, uri, run, out, err);
    }
    sked__buf_reset(&b);
    free(uri);
    json_decref(run);
    return rc;
}

/* ---- why_not_fired ------------------------------------------------------- */

/* GET PREFIX + NAME escaped + SUFFIX into *answer; a failure is said in
 * B instead ("WHAT: could not be read: ..."), and *answer left NULL. */
static void fetch(const mcp_ctx *c, sked_buf *b, const char *what,
                  const char *prefix, const char *name, const char *suffix,
                  json_t **answer)
{
    sked_buf t = {0};
    sked_error err;
    char *target;

    *answer = NULL;
    sked_error_clear(&err);
    (void) sked__buf_puts(&t, prefix);
    sked__mcp_escape(&t, name);
    (void) sked__buf_puts(&t, suffix);
    if (!(target = sked__buf_take(&t, NULL)))
        return;
    if (sked__mcp_get(c, target, answer, &err) != 0)
        (void) sked__buf_printf(b, "\n%s could not be read: %s\n", what,
                                err.msg);
    free(target);
}

/* The last MISSED_MAX schedule.occurrences_missed events of NAME, read
 * back from the log (the API's type and subject filters, checked here
 * too, so that a server without them answers the same). */
static json_t *missed_events(const mcp_ctx *c, sked_buf *b, const char *name)
{
    json_t *kept = json_array(), *page = NULL, *ev;
    char suffix[96] = "";
    size_t i;

    for (int p = 0; kept && p < EVENT_PAGES; p++) {
        const char *next;
        fetch(c, b, "The event log",
              "/api/v1/events?type=schedule.occurrences_missed&limit=1000"
              "&subject=",
              name, suffix, &page);
        json_array_foreach(json_object_get(page, "events"), i, ev)
        {
            const char *type = str_of(ev, "type"),
                       *subj = str_of(ev, "subject");
            if (!type || !subj ||
                strcmp(type, "schedule.occurrences_missed") != 0 ||
                strcmp(subj, name) != 0)
                continue;
            if (json_array_append(kept, ev) != 0)
                break;
            if (json_array_size(kept) > MISSED_MAX)
                (void) json_array_remove(kept, 0);
        }
        next = str_of(page, "next_cursor");
        if (next)
            (void) snprintf(suffix, sizeof suffix, "&after=%.40s", next);
        json_decref(page);
        if (!next)
            break;
    }
    return kept;
}

static void missed_text(sked_buf *b, const json_t *events)
{
    const json_t *ev;
    size_t i;

    if (json_array_size(events) == 0) {
        (void) sked__buf_puts(b, "\nNo occurrence of it was recorded as "
                                 "missed.\n");
        return;
    }
    (void) sked__buf_puts(b, "\nOccurrences recorded as missed (oldest "
                             "first):\n");
    json_array_foreach(events, i, ev)
    {
        const json_t *p = json_object_get(ev, "payload");
        (void) sked__buf_printf(
            b, "- at %s: %lld missed, reason %s, from %s to %s\n",
            str_of(ev, "at") ? str_of(ev, "at") : "?",
            (long long) json_integer_value(json_object_get(p, "count")),
            str_of(p, "reason") ? str_of(p, "reason") : "?",
            str_of(p, "first") ? str_of(p, "first") : "?",
            str_of(p, "last") ? str_of(p, "last") : "?");
    }
}

/* The state of the schedule S that decides whether it fires. */
static void schedule_text(sked_buf *b, const json_t *s)
{
    static const struct {
        const char *label, *key;
    } shown[] = {
        {"status", "status"},
        {"workflow", "workflow"},
        {"cron", "cron"},
        {"every (s)", "every_secs"},
        {"at", "at"},
        {"timezone", "timezone"},
        {"dst", "dst"},
        {"catchup", "catchup"},
        {"catchup_max", "catchup_max"},
        {"catchup_window (s)", "catchup_window_secs"},
        {"overlap", "overlap"},
        {"start_at", "start_at"},
        {"end_at", "end_at"},
        {"max_runs", "max_runs"},
        {"runs_created", "runs_created"},
        {"pause_after_failures", "pause_after_failures"},
        {"consecutive_failures", "consecutive_failures"},
        {"next_fire_at", "next_fire_at"},
        {"last_fired_at", "last_fired_at"},
        {"last_error", "last_error"},
    };

    for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++)
        line(b, shown[i].label, s, shown[i].key);
}

static void runs_text(sked_buf *b, const json_t *page)
{
    const json_t *r;
    size_t i;

    if (!page)
        return;
    if (json_array_size(json_object_get(page, "runs")) == 0)
        (void) sked__buf_puts(b, "\nIt has no runs.\n");
    else
        (void) sked__buf_puts(b, "\nIts latest runs (newest first):\n");
    json_array_foreach(json_object_get(page, "runs"), i, r)(void)
        sked__buf_printf(b, "- %s: %s, %s, scheduled for %s\n",
                         str_of(r, "id") ? str_of(r, "id") : "?",
                         str_of(r, "status") ? str_of(r, "status") : "?",
                         str_of(r, "trigger") ? str_of(r, "trigger") : "?",
                         str_of(r, "scheduled_for") ? str_of(r, "scheduled_for")
                                                    : "-");
}

static void next_text(sked_buf *b, const json_t *occ)
{
    const json_t *o;
    size_t i;

    if (!occ)
        return;
    if (json_array_size(json_object_get(occ, "occurrences")) == 0)
        (void) sked__buf_puts(b, "\nIt has no next occurrence.\n");
    else
        (void) sked__buf_puts(b, "\nIts next occurrences:\n");
    json_array_foreach(json_object_get(occ, "occurrences"), i, o)(void)
        sked__buf_printf(b, "- %s (local %s)%s%s\n",
                         str_of(o, "at") ? str_of(o, "at") : "?",
                         str_of(o, "local") ? str_of(o, "local") : "?",
                         str_of(o, "mark") ? ", " : "",
                         str_of(o, "mark") ? str_of(o, "mark") : "");
}

/* The replay of (FROM, TO] of NAME, in B. */
static void simulate_text(const mcp_ctx *c, sked_buf *b, const char *name,
                          const char *from, const char *to)
{
    char now[SKED_TIME_STRLEN], before[SKED_TIME_STRLEN], msg[300];
    json_t *body, *answer = NULL, *d;
    sked_buf t = {0};
    unsigned status = 0;
    sked_error err;
    sked_time end = sked__clock_now(NULL);
    char *target;
    size_t i;

    sked_error_clear(&err);
    if (to && sked_time_parse(to, &end, NULL) != 0)
        end = sked__clock_now(NULL);
    end -= end % SKED_USEC_PER_SEC; /* a default in whole seconds */
    if (sked_time_format(end, now, sizeof now) < 0 ||
        sked_time_format(end - 86400 * SKED_USEC_PER_SEC, before,
                         sizeof before) < 0)
        return;
    body = json_pack("{s:s, s:s, s:i}", "from", from ? from : before, "to",
                     to ? to : now, "limit", 50);
    (void) sked__buf_puts(&t, "/api/v1/schedules/");
    sked__mcp_escape(&t, name);
    (void) sked__buf_puts(&t, "/simulate");
    target = sked__buf_take(&t, NULL);
    if (!body || !target ||
        sked__mcp_api(c, "POST", target, body, NULL, &status, &answer, &err)) {
        (void) sked__buf_printf(b, "\nThe replay could not be made: %s\n",
                                err.msg);
    } else if (status != 200) {
        sked__mcp_api_message(answer, status, msg, sizeof msg);
        (void) sked__buf_printf(b, "\nThe replay could not be made: %s\n", msg);
    } else {
        (void) sked__buf_printf(
            b, "\nA replay of (%s, %s] through its policies: %lld fired",
            json_string_value(json_object_get(body, "from")),
            json_string_value(json_object_get(body, "to")),
            (long long) json_integer_value(json_object_get(answer, "fired")));
        char *dropped =
            sked__json_text(json_object_get(answer, "dropped"), NULL);
        (void) sked__buf_printf(b, ", dropped by reason: %s\n",
                                dropped ? dropped : "{}");
        free(dropped);
        json_array_foreach(json_object_get(answer, "decisions"), i, d)(void)
            sked__buf_printf(
                b, "- %s: %s%s%s\n",
                str_of(d, "occurrence") ? str_of(d, "occurrence") : "?",
                str_of(d, "decision") ? str_of(d, "decision") : "?",
                str_of(d, "reason") ? ", " : "",
                str_of(d, "reason") ? str_of(d, "reason") : "");
    }
    free(target);
    json_decref(body);
    json_decref(answer);
}

static int why_not_fired(const mcp_ctx *c, json_t *args, json_t **out,
                         sked_error *err)
{
    const char *name, *from, *to;
    json_t *s = NULL, *missed, *runs, *occ;
    sked_buf b = {0}, t = {0};
    char *target, *uri;
    int rc;

    if ((rc = arg(args, "schedule", true, &name, err)) != 0 ||
        (rc = arg(args, "from", false, &from, err)) != 0 ||
        (rc = arg(args, "to", false, &to, err)) != 0)
        return rc;
    (void) sked__buf_puts(&t, "/api/v1/schedules/");
    sked__mcp_escape(&t, name);
    target = sked__buf_take(&t, NULL);
    uri = sked__mcp_uri("sked://schedules/", name);
    rc = target && uri ? sked__mcp_get(c, target, &s, err)
                       : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    free(target);
    if (rc == 0) {
        (void) sked__buf_printf(&b, "Schedule %s:\n", name);
        schedule_text(&b, s);
        missed = missed_events(c, &b, name);
        missed_text(&b, missed);
        fetch(c, &b, "Its runs", "/api/v1/runs?limit=5&schedule=", name, "",
              &runs);
        runs_text(&b, runs);
        fetch(c, &b, "Its next occurrences", "/api/v1/schedules/", name,
              "/occurrences?n=5", &occ);
        next_text(&b, occ);
        simulate_text(c, &b, name, from, to);
        (void) sked__buf_puts(
            &b, "\nExplain which occurrences did not fire and why: its "
                "status (paused, disabled, done), its start_at, end_at and "
                "max_runs, the catch-up policy after the scheduler was down, "
                "the overlap policy while a run was active, the time zone "
                "and daylight saving changes. Say what to change so that it "
                "fires when expected. The schedule's JSON follows.\n");
        json_decref(missed);
        json_decref(runs);
        json_decref(occ);
        rc = result("Why a schedule did not fire", &b, uri, s, out, err);
    }
    sked__buf_reset(&b);
    free(uri);
    json_decref(s);
    return rc;
}

int sked__mcp_prompt_get(const mcp_ctx *c, const char *name, json_t *args,
                         json_t **out, sked_error *err)
{
    *out = NULL;
    if (args && !json_is_object(args))
        return sked__error_set(err, SKED_EINVAL, "arguments", -1,
                               "the arguments are not an object");
    if (strcmp(name, "diagnose_run") == 0)
        return diagnose_run(c, args, out, err);
    if (strcmp(name, "why_not_fired") == 0)
        return why_not_fired(c, args, out, err);
    return sked__error_set(err, SKED_ENOTFOUND, "name", -1,
                           "no prompt \"%.60s\"", name);
}
