/* SPDX-License-Identifier: MIT */
/* Direct mode (direct.h): the target_ops of target.h on the database
 * itself, each the engine's own operation (sked/engine.h) on an engine
 * opened when first needed, with no thread started: the API's handlers
 * call the same functions, so that both modes do the same thing. */
#include "direct.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pwd.h>
#include <unistd.h>

#include <jansson.h>

#include "base/json_text.h"
#include "cli.h"
#include "engine/answer.h"
#include "output.h"
#include "target.h"

/* The database when none is named: the engine's default (sked/engine.h),
 * spelled out for the message that cannot open it. */
#define DB_URL_DEFAULT "sqlite:sked.db"

typedef struct direct {
    target base;
    const char *db; /* --db, NULL for $SKED_DB or the default */
    sked_engine *e;
} direct;

const char *direct_db_url(const char *flag)
{
    const char *env = getenv("SKED_DB");

    if (flag)
        return flag;
    return env && env[0] ? env : DB_URL_DEFAULT;
}

int direct_tzdb_open(sked_tzdb **out)
{
    sked_error err;
    int rc;

    sked_error_clear(&err);
    if ((rc = sked_tzdb_open(NULL, out, &err)) < 0)
        return cli_fail(rc, "cannot open the time zone database: %s",
                        err.msg[0] ? err.msg : sked_strerror(rc));
    return 0;
}

int direct_schedule_fail(const char *verb, const char *name,
                         const sked_error *err, int rc)
{
    const char *msg = err->msg[0] ? err->msg : sked_strerror(rc);

    if (rc == SKED_ENOTFOUND)
        return cli_fail(rc, "schedule \"%.128s\" not found", name);
    if (rc == SKED_ECONFLICT)
        return cli_fail(rc, "cannot %s schedule \"%.128s\": %s", verb, name,
                        err->msg[0] ? msg : "it already exists");
    if (err->field[0])
        return cli_fail(rc, "cannot %s schedule \"%.128s\": %s: %s", verb, name,
                        err->field, msg);
    return cli_fail(rc, "cannot %s schedule \"%.128s\": %s", verb, name, msg);
}

/* ---- opening, when first needed ------------------------------------------ */

/* The engine of T, opened; NULL when it cannot be: the failure is
 * printed, and ERR gets only its code, so that no second line follows. */
static sked_engine *engine_of(target *t, sked_error *err)
{
    direct *d = (direct *) t;
    /* A client engine: it loads no schedules, so that a command opens
     * at once however many there are. */
    sked_engine_options opts = {.db_url = direct_db_url(d->db), .client = true};
    sked_error why;
    int rc;

    if (d->e)
        return d->e;
    sked_error_clear(&why);
    if ((rc = sked_engine_open(&opts, &d->e, &why)) == 0)
        return d->e;
    cli_fail(rc, "cannot open the database \"%.200s\": %s", opts.db_url,
             why.msg[0] ? why.msg : sked_strerror(rc));
    cli_mark_shown();
    if (err)
        err->code = SKED_EIO;
    return NULL;
}

/* ---- schedules ----------------------------------------------------------- */

static int schedule_get(target *t, const char *name, sked_schedule *out,
                        sked_error *err)
{
    sked_engine *e = engine_of(t, err);

    return e ? sked_engine_schedule_get(e, name, out, err) : err->code;
}

/* SPEC 3.5: warn when no server has registered WORKFLOW (the API puts the
 * same words in "warnings", which remote mode prints the same way). */
static void warn_workflow(sked_engine *e, const char *workflow)
{
    char warning[256];

    if (!workflow)
        return;
    sked_engine_workflow_warning(e, workflow, warning, sizeof warning);
    if (warning[0])
        cli_warn(warning);
}

static int schedule_create(target *t, const sked_schedule *s, sked_error *err)
{
    sked_engine *e = engine_of(t, err);
    int rc = e ? sked_engine_schedule_create(e, s, err) : err->code;

    if (rc == 0)
        warn_workflow(e, s->heartbeat ? NULL : s->workflow);
    return rc;
}

static int schedule_update(target *t, const sked_schedule *s, sked_error *err)
{
    sked_engine *e = engine_of(t, err);
    int rc = e ? sked_engine_schedule_update(e, s, err) : err->code;

    if (rc == 0)
        warn_workflow(e, s->heartbeat ? NULL : s->workflow);
    return rc;
}

static int schedule_list(target *t, const sked_schedule_query *q,
                         sked_schedule_page *out, sked_error *err)
{
    sked_engine *e = engine_of(t, err);

    return e ? sked_engine_schedule_list(e, q, out, err) : err->code;
}

static int schedule_pause(target *t, const char *name, sked_error *err)
{
    sked_engine *e = engine_of(t, err);

    return e ? sked_engine_schedule_pause(e, name, err) : err->code;
}

static int schedule_resume(target *t, const char *name, sked_error *err)
{
    sked_engine *e = engine_of(t, err);

    return e ? sked_engine_schedule_resume(e, name, err) : err->code;
}

static int schedule_delete(target *t, const char *name, sked_error *err)
{
    sked_engine *e = engine_of(t, err);

    return e ? sked_engine_schedule_delete(e, name, err) : err->code;
}

/* The engine's text is sked_free'd; the callers free(): copy. */
static int own_text(char *text, char **out, sked_error *err)
{
    *out = strdup(text);
    sked_free(text);
    if (!*out)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    return 0;
}

static int schedule_trigger(target *t, const char *name, char **run_id,
                            sked_error *err)
{
    sked_engine *e = engine_of(t, err);
    char *id = NULL;
    int rc = e ? sked_engine_trigger(e, name, &id, err) : err->code;

    return rc == 0 ? own_text(id, run_id, err) : rc;
}

static int schedule_ping(target *t, const char *name, sked_ping_status status,
                         const char *body, char **run_id, sked_error *err)
{
    sked_engine *e = engine_of(t, err);
    char *id = NULL;
    int rc = e ? sked_engine_schedule_ping(e, name, status, body,
                                           body ? strlen(body) : 0, &id, err)
               : err->code;

    return rc == 0 ? own_text(id, run_id, err) : rc;
}

static int schedule_backfill(target *t, const char *name, sked_time start,
                             sked_time end, sked_progress_fn progress,
                             void *ctx, sked_backfill_result *res,
                             sked_error *err)
{
    sked_engine *e = engine_of(t, err);

    return e ? sked_engine_backfill(e, name, start, end, progress, ctx, res,
                                    err)
             : err->code;
}

static int schedule_skip(target *t, const char *name, sked_time at, bool skip,
                         const char *actor, const char *reason, bool *changed,
                         sked_error *err)
{
    sked_engine *e = engine_of(t, err);

    if (!e)
        return err->code;
    return skip ? sked_engine_schedule_skip(e, name, at, actor, reason, changed,
                                            err)
                : sked_engine_schedule_unskip(e, name, at, actor, changed, err);
}

static int schedule_skips(target *t, const char *name, sked_skip **out,
                          size_t *n, sked_error *err)
{
    sked_engine *e = engine_of(t, err);

    return e ? sked_engine_schedule_skips(e, name, out, n, err) : err->code;
}

static int schedule_run_at(target *t, const char *name, sked_time at,
                           char **run_id, bool *created, sked_error *err)
{
    sked_engine *e = engine_of(t, err);
    char *id = NULL;
    int rc = e ? sked_engine_schedule_run_at(e, name, at, &id, created, err)
               : err->code;

    return rc == 0 ? own_text(id, run_id, err) : rc;
}

/* The same after an apply: one warning per schedule of SET (N) whose
 * workflow is not registered, the API's "warnings" of PUT. */
static void warn_set(sked_engine *e, const sked_schedule *set, size_t n)
{
    json_t *w;

    if (n == 0)
        return;
    w = sked__answer_set_warnings(e, set, n);
    out_warnings(w);
    json_decref(w);
}

static int schedule_apply(target *t, const target_apply *a,
                          sked_apply_result *res, sked_error *err)
{
    sked_engine *e = engine_of(t, err);
    int rc = e ? sked_engine_schedule_apply(e, a->app, a->set, a->n, a->prune,
                                            res, err)
               : err->code;

    if (rc == 0)
        warn_set(e, a->set, a->n);
    return rc;
}

/* ---- runs and workflows -------------------------------------------------- */

static int run_list(target *t, const sked_run_query *q, sked_run_page *out,
                    sked_error *err)
{
    sked_engine *e = engine_of(t, err);

    return e ? sked_engine_run_read(e, q, out, err) : err->code;
}

static int run_get(target *t, const char *id, sked_run_page *out,
                   sked_error *err)
{
    sked_engine *e = engine_of(t, err);

    return e ? sked_engine_run_read_one(e, id, out, err) : err->code;
}

/* After an operation on run ID: the run, as the API answers it. */
static int run_cancel(target *t, const char *id, sked_run_page *out,
                      sked_error *err)
{
    sked_engine *e = engine_of(t, err);
    int rc = e ? sked_engine_run_cancel(e, id, err) : err->code;

    return rc == 0 ? run_get(t, id, out, err) : rc;
}

static int run_start(target *t, const char *workflow, const char *input,
                     const char *key, sked_run_page *out, sked_error *err)
{
    sked_engine *e = engine_of(t, err);
    char *id = NULL;
    int rc = e ? sked_engine_run_start(e, workflow, input, key, &id, err)
               : err->code;

    if (rc == 0)
        rc = run_get(t, id, out, err);
    sked_free(id);
    return rc;
}

static int workflow_list(target *t, sked_workflow_page *out, sked_error *err)
{
    sked_engine *e = engine_of(t, err);

    return e ? sked_engine_workflow_read(e, out, err) : err->code;
}

/* ---- events -------------------------------------------------------------- */

static int event_list(target *t, int64_t after, size_t limit, const char *actor,
                      char **out, sked_error *err)
{
    sked_engine *e = engine_of(t, err);
    sked_event_query q = {
        .after_id = after, .limit = limit, .filter = {.actor = actor}};

    return e ? sked_engine_event_query(e, &q, out, err) : err->code;
}

/* Read the page of events after *after; call FN (when not NULL) with
 * each, moving *after to the last. *n: how many. */
static int event_page(target *t, int64_t *after, const char *actor,
                      target_event_fn fn, void *ctx, size_t *n, sked_error *err)
{
    char *text = NULL, *one;
    json_t *page, *ev;
    size_t i;
    int rc;

    if ((rc = event_list(t, *after, 1000, actor, &text, err)) != 0)
        return rc;
    page = json_loads(text, 0, NULL);
    free(text);
    *n = json_array_size(json_object_get(page, "events"));
    json_array_foreach(json_object_get(page, "events"), i, ev)
    {
        *after = json_integer_value(json_object_get(ev, "id"));
        if (fn && (one = sked__json_text(ev, NULL))) {
            fn(ctx, one);
            free(one);
        }
    }
    json_decref(page);
    return 0;
}

/* Direct mode follows the store: read what is new every second, from
 * the newest event stored when AFTER is -1. */
static int event_follow(target *t, int64_t after, const char *actor,
                        target_event_fn fn, void *ctx, volatile const int *stop,
                        sked_error *err)
{
    const struct timespec second = {1, 0};
    size_t n = 1000;
    int rc;

    if (after < 0)
        for (after = 0; n == 1000;)
            if ((rc = event_page(t, &after, NULL, NULL, NULL, &n, err)) != 0)
                return rc;
    while (!*stop) {
        if ((rc = event_page(t, &after, actor, fn, ctx, &n, err)) != 0)
            return rc;
        if (n < 1000 && !*stop)
            nanosleep(&second, NULL); /* a signal ends it early */
    }
    return 0;
}

/* ---- calendars ------------------------------------------------------- */

static int calendar_create(target *t, const sked_calendar *c, sked_error *err)
{
    sked_engine *e = engine_of(t, err);

    return e ? sked_engine_calendar_create(e, c, err) : err->code;
}

static int calendar_put(target *t, const sked_calendar *c, bool *created,
                        sked_error *err)
{
    sked_engine *e = engine_of(t, err);

    return e ? sked_engine_calendar_put(e, c, created, err) : err->code;
}

static int calendar_get(target *t, const char *name, sked_calendar *out,
                        sked_error *err)
{
    sked_engine *e = engine_of(t, err);

    return e ? sked_engine_calendar_get(e, name, out, err) : err->code;
}

static int calendar_list(target *t, sked_calendar **out, size_t *n,
                         sked_error *err)
{
    sked_engine *e = engine_of(t, err);

    return e ? sked_engine_calendar_list(e, out, n, err) : err->code;
}

static int calendar_delete(target *t, const char *name, sked_error *err)
{
    sked_engine *e = engine_of(t, err);

    return e ? sked_engine_calendar_delete(e, name, NULL, err) : err->code;
}

static int schedule_preview(target *t, const char *name, sked_time after,
                            size_t max, sked_preview *out, sked_error *err)
{
    sked_engine *e = engine_of(t, err);

    return e ? sked_engine_schedule_preview(e, name, after, max, out, err)
             : err->code;
}

static int schedule_simulate(target *t, const char *name,
                             const sked_simulate_options *o,
                             sked_simulation *out, sked_error *err)
{
    sked_engine *e = engine_of(t, err);

    return e ? sked_engine_schedule_simulate(e, name, o, out, err) : err->code;
}

static int calendar_days(target *t, const char *name,
                         const sked_calendar_days_query *q,
                         sked_calendar_day **out, size_t *n, sked_error *err)
{
    sked_engine *e = engine_of(t, err);

    return e ? sked_engine_calendar_days(e, name, q, out, n, err) : err->code;
}

static void done(target *t)
{
    direct *d = (direct *) t;

    if (d->e)
        sked_engine_close(d->e);
    free(d);
}

static int calendar_apply(target *t, const target_calendar_apply *a,
                          sked_apply_result *res, sked_error *err)
{
    sked_engine *e = engine_of(t, err);

    return e ? sked_engine_calendar_apply(e, a->app, a->set, a->n, a->prune,
                                          res, err)
             : err->code;
}

/* ---- notifiers ------------------------------------------------------- */

static int notify(target *t, const target_notify *q, char **out,
                  sked_error *err)
{
    sked_engine *e = engine_of(t, err);

    if (!e)
        return err->code;
    switch (q->op) {
    case TARGET_NOTIFY_LIST:
        return sked_engine_notifier_list(e, out, err);
    case TARGET_NOTIFY_GET:
        return sked_engine_notifier_get(e, q->name, out, err);
    case TARGET_NOTIFY_PUT:
        return sked_engine_notifier_put(e, q->name, q->json, q->created, out,
                                        err);
    case TARGET_NOTIFY_DELETE:
        return sked_engine_notifier_delete(e, q->name, err);
    default:
        return sked_engine_notify_log(e, q->name, q->before, q->limit, out,
                                      err);
    }
}

static int notifier_apply(target *t, const target_notifier_apply *a,
                          sked_apply_result *res, sked_error *err)
{
    sked_engine *e = engine_of(t, err);

    return e ? sked_engine_notifier_apply(e, a->app, a->set, a->prune, res, err)
             : err->code;
}

static const target_ops direct_ops = {TARGET_OPS(TARGET_OP)};

/* The changes a command makes on the database itself are the Unix
 * user's (the audit trail): "user:LOGIN", or "user:UID" when the login
 * is unknown or no actor can hold it. */
static void actor_user(void)
{
    char actor[SKED_ACTOR_MAX + 1];
    const struct passwd *pw = getpwuid(geteuid());

    if (pw && pw->pw_name && pw->pw_name[0] &&
        snprintf(actor, sizeof actor, "user:%s", pw->pw_name) <
            (int) sizeof actor &&
        sked_engine_actor(actor) == 0)
        return;
    (void) snprintf(actor, sizeof actor, "user:%lu", (unsigned long) geteuid());
    (void) sked_engine_actor(actor);
}

int direct_target_open(const char *db, sked_tzdb *tzdb, target **out)
{
    direct *d = calloc(1, sizeof *d);

    if (!d)
        return cli_fail(SKED_ENOMEM, "out of memory");
    actor_user();
    d->base = (target){.ops = &direct_ops, .tzdb = tzdb};
    d->db = db;
    *out = &d->base;
    return 0;
}
