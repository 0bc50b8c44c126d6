/* SPDX-License-Identifier: MIT */
/* The requests of the API that are not one schedule (docs/api.md): the
 * bodies of an apply ({"schedules", "prune", "app"}), of a calendars
 * apply ({"calendars", "prune", "app"}) and of a backfill
 * ({"start", "end"}), and the query strings of the schedule, run and
 * event lists. Each is one key table, walked by one writer, which the
 * CLI's remote mode sends, and by one reader, which the API reads the
 * request with; so a key is added in one place and the two sides cannot
 * disagree. The answers are answer.h's.
 *
 * A reader's error names the field: SKED_ESYNTAX for an unknown body
 * field or a malformed query parameter (the API's 400), SKED_EINVAL for
 * a value of the wrong type and SKED_ERANGE for a number out of range
 * (422). A reader changes nothing but its output. */
#ifndef SKED_ENGINE_REQUEST_H
#define SKED_ENGINE_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "sked/sked.h"

/* ---- bodies ------------------------------------------------------------- */

/* PUT /api/v1/schedules: a set of schedules, applied as APP's code
 * schedules (SPEC 3.5). */
typedef struct sked__apply_request {
    sked_schedule *set; /* n; the reader's is owned (done below) */
    size_t n;
    bool prune;
    const char *app; /* NULL: SKED_APP_DEFAULT; the reader's is borrowed
                        from the body, or SKED_APP_DEFAULT */
} sked__apply_request;

/* The body of A: each schedule as its definition (the model's, without
 * the state the scheduler keeps). NULL with ERR set when one cannot be
 * written or out of memory. */
json_t *sked__request_apply(const sked__apply_request *a, sked_error *err);

/* Read BODY into *a (zeroed here; free with sked__apply_request_done,
 * also on error). A schedule's error names "schedules[i].field". */
int sked__request_apply_read(const json_t *body, sked__apply_request *a,
                             sked_error *err);
void sked__apply_request_done(sked__apply_request *a);

/* PUT /api/v1/calendars: a set of calendars, applied as APP's code
 * calendars (sked apply). */
typedef struct sked__calendar_apply_request {
    sked_calendar *set; /* n; the reader's is owned (done below) */
    size_t n;
    bool prune;
    const char *app; /* as sked__apply_request's */
} sked__calendar_apply_request;

/* The body of A: each calendar as its definition. NULL with ERR set out
 * of memory. */
json_t *sked__request_calendar_apply(const sked__calendar_apply_request *a,
                                     sked_error *err);
/* Read BODY into *a (zeroed here; free with
 * sked__calendar_apply_request_done, also on error). A calendar's error
 * names "calendars[i].field". */
int sked__request_calendar_apply_read(const json_t *body,
                                      sked__calendar_apply_request *a,
                                      sked_error *err);
void sked__calendar_apply_request_done(sked__calendar_apply_request *a);

/* PUT /api/v1/notifiers: a set of notifiers (the JSON objects of PUT
 * /api/v1/notifiers/{name}), applied as APP's code notifiers (sked
 * apply). */
typedef struct sked__notifier_apply_request {
    const json_t *set; /* an array; borrowed (the reader's: the body's) */
    bool prune;
    const char *app; /* as sked__apply_request's */
} sked__notifier_apply_request;

/* The body of A. NULL with ERR set out of memory. */
json_t *sked__request_notifier_apply(const sked__notifier_apply_request *a,
                                     sked_error *err);
/* Read BODY into *a (zeroed here; it borrows from BODY): the notifiers
 * an array, their objects checked by the engine. */
int sked__request_notifier_apply_read(const json_t *body,
                                      sked__notifier_apply_request *a,
                                      sked_error *err);

/* POST /api/v1/schedules/{name}/backfill: the occurrences in (start,
 * end); SKED_TIME_NONE is absent (the engine names a missing end).
 * DRY_RUN: answer what it would create and skip, writing nothing. */
typedef struct sked__backfill_request {
    sked_time start, end;
    bool dry_run;
} sked__backfill_request;

json_t *sked__request_backfill(const sked__backfill_request *b,
                               sked_error *err);
int sked__request_backfill_read(const json_t *body, sked__backfill_request *b,
                                sked_error *err);

/* POST /api/v1/schedules/{name}/skips and .../runs: the occurrence AT
 * (required), why (REASON, may be NULL; skips only) and who (ACTOR, may
 * be NULL: the API's "api"). The strings are borrowed from the body. */
typedef struct sked__skip_request {
    sked_time at;
    const char *reason, *actor;
} sked__skip_request;

json_t *sked__request_skip(const sked__skip_request *r, sked_error *err);
int sked__request_skip_read(const json_t *body, sked__skip_request *r,
                            sked_error *err);

/* POST /api/v1/schedules/{name}/simulate: a replay of the period (from,
 * to] with its down intervals, and how many decisions the answer lists
 * (its counts cover all). */
typedef struct sked__simulate_request {
    sked_simulate_options o; /* o.down: the reader's is owned (done below) */
    size_t limit;            /* 1..SKED__SIMULATE_LIMIT_MAX; 0: absent */
} sked__simulate_request;

#define SKED__SIMULATE_LIMIT_DEFAULT 1000
#define SKED__SIMULATE_LIMIT_MAX     10000

/* The body of R: the period, the intervals (none: left out), the run
 * duration and the tick in seconds, the limit (0: left out). */
json_t *sked__request_simulate(const sked__simulate_request *r,
                               sked_error *err);

/* Read BODY into *r (zeroed here, then the defaults of "sked schedule
 * simulate": a tick of 1 s, runs of 0 s; free with
 * sked__request_simulate_done, also on error). "from" and "to" are
 * required (SKED_EINVAL naming the one missing); an interval's error
 * names "down[i].from"; more than SKED_SIMULATE_DOWN_MAX intervals is
 * SKED_ERANGE ("down"); "tick_secs" is at least 1, "run_duration_secs"
 * at least 0. */
int sked__request_simulate_read(const json_t *body, sked__simulate_request *r,
                                sked_error *err);
void sked__request_simulate_done(sked__simulate_request *r);

/* ---- query strings ------------------------------------------------------ */

/* The decoded value of query parameter KEY of a request, NULL when
 * absent: how a reader sees the query. */
typedef const char *(*sked__query_get_fn)(void *ctx, const char *key);

/* The "after" of an event query that is "latest": after the newest
 * event stored (sked_engine_event_last), so that only new ones follow. */
#define SKED__EVENTS_LATEST (-2)

/* GET /api/v1/events: a page after an id, or with FOLLOW a stream. */
typedef struct sked__event_query {
    bool follow;
    int64_t after;       /* -1: none, SKED__EVENTS_LATEST: "latest" ("cursor"
                            is read as its other name) */
    size_t limit;        /* 1..1000, a page's only; 0: 100 */
    const char *type;    /* "T1,T2,...": exact types; NULL: any */
    const char *subject; /* exact; NULL: any */
    const char *actor;   /* exact (the payload's "actor"); NULL: anyone */
} sked__event_query;

/* Q's type, subject and actor as a filter into *f, its types split at the
 * commas into *own (free; NULL when there is no type). A value out of
 * sked_event_filter's bounds (an empty type, a control character, too
 * long, more than SKED_EVENT_TYPES_MAX) is SKED_ESYNTAX naming "type",
 * "subject" or "actor". */
int sked__query_event_filter(const sked__event_query *q, sked_event_filter *f,
                             char **own, sked_error *err);

/* GET /api/v1/cron/explain: an expression in words, and its next
 * occurrences in a zone. */
typedef struct sked__cron_query {
    const char *expr;     /* NULL: absent (the engine names it) */
    const char *timezone; /* NULL: UTC */
    int64_t n;            /* 0..SKED_PREVIEW_MAX; -1: absent (5) */
    sked_time after;      /* SKED_TIME_NONE: now */
    sked_dst dst;         /* absent: once */
} sked__cron_query;

#define SKED__CRON_QUERY_N_DEFAULT 5

/* Each writer returns PATH with Q's query string ("?k=v&...", values
 * percent-encoded; a parameter left unset is left out), a new string
 * (free), NULL when out of memory. Each reader reads the query through
 * GET into *q: a text value empty is absent; what is absent takes its
 * default (text NULL, the limit 100, after -1). Text values are
 * borrowed from what GET returned. */
char *sked__query_schedules(const char *path, const sked_schedule_query *q);
int sked__query_schedules_read(sked__query_get_fn get, void *ctx,
                               sked_schedule_query *q, sked_error *err);
char *sked__query_runs(const char *path, const sked_run_query *q);
int sked__query_runs_read(sked__query_get_fn get, void *ctx, sked_run_query *q,
                          sked_error *err);
char *sked__query_events(const char *path, const sked__event_query *q);
int sked__query_events_read(sked__query_get_fn get, void *ctx,
                            sked__event_query *q, sked_error *err);

char *sked__query_cron(const char *path, const sked__cron_query *q);
int sked__query_cron_read(sked__query_get_fn get, void *ctx,
                          sked__cron_query *q, sked_error *err);

/* Read S, the value of parameter KEY, as a whole number in MIN..MAX into
 * *out; S NULL: DFLT. SKED_ESYNTAX when it is not digits, SKED_ERANGE
 * out of range, each naming KEY. The rule of every numeric query
 * parameter. */
int sked__query_long(const char *s, const char *key, long min, long max,
                     long dflt, long *out, sked_error *err);

/* ---- the keys, described ------------------------------------------------ */

/* The key tables above, for what describes the requests to a client (the
 * input schemas of the MCP server's tools): so that a key added to a
 * table shows there too. */
typedef enum sked__request_table {
    SKED__REQUEST_SCHEDULES, /* GET /api/v1/schedules: the query */
    SKED__REQUEST_RUNS,      /* GET /api/v1/runs: the query */
    SKED__REQUEST_EVENTS,    /* GET /api/v1/events: the query */
    SKED__REQUEST_BACKFILL,  /* POST .../backfill: the body */
    SKED__REQUEST_SIMULATE,  /* POST .../simulate: the body */
    SKED__REQUEST_SKIP,      /* POST .../skips and .../runs: the body */
    SKED__REQUEST_CRON,      /* GET /api/v1/cron/explain: the query */
} sked__request_table;

typedef struct sked__request_param {
    const char *key;
    /* 's' text, 'e' the name of a schedule field's enumeration (the
     * key is the field's), 'n' a whole number in min..max, 'd' a number
     * of seconds in min..max, 'i' an id (a whole number in min..max,
     * which a cursor gives as its text), 'c' an event cursor (an id, or
     * "latest"), 'f' a flag (1 or 0), 'b' true or false, 't' an RFC 3339
     * instant, 'y' a date (YYYY-MM-DD), 'p' an array of at most max periods
     * {"from", "to"}, 'a' another array */
    char type;
    long min, max;
    bool stream; /* a flag that asks for a stream instead of a page */
} sked__request_param;

/* The I-th key of table T into *p (another name of a key left out).
 * Returns false past the last. */
bool sked__request_param_at(sked__request_table t, size_t i,
                            sked__request_param *p);

#endif
