/* SPDX-License-Identifier: MIT */
/* The target of a command (target.h): the choice between direct and
 * remote mode, and direct mode's side of every operation. Direct mode
 * opens the store for the schedule operations and an engine (no thread
 * started) for those that create runs, each when first needed, so that a
 * command opens only what it uses, as before this layer existed. */
#include "target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "base/json_text.h"
#include "direct.h"
#include "engine/answer.h"
#include "output.h"
#include "remote_ops.h"
#include "store/schedule_json.h"

struct target {
    const char *db; /* direct: --db, NULL for $SKED_DB or the default */
    sked_tzdb *tzdb;
    sked_store *st;
    sked_engine *e;
    remote *r; /* remote mode when not NULL */
};

/* The options given before the command. */
static const char *global_db, *global_server;

void target_set_global(const char *db, const char *server)
{
    if (db)
        global_db = db;
    if (server)
        global_server = server;
}

int target_open(const cli_cmd *self, const char *db, const char *server,
                sked_tzdb *tzdb, target **out)
{
    const char *env = getenv("SKED_SERVER");
    target *t;
    int rc;

    db = db ? db : global_db;
    server = server ? server : global_server;
    if (db && server)
        return cli_usage_error(self, "give --db or --server, not both");
    if (!db && !server && env && env[0])
        server = env;
    if (server && !server[0])
        return cli_usage_error(self, "option --server needs a URL");
    if (!(t = calloc(1, sizeof *t)))
        return cli_fail(SKED_ENOMEM, "out of memory");
    t->db = db;
    t->tzdb = tzdb;
    if (server && (rc = remote_open(server, &t->r)) != 0) {
        free(t);
        return sked_error_exit_code(rc);
    }
    *out = t;
    return 0;
}

void target_close(target *t)
{
    if (!t)
        return;
    remote_close(t->r);
    sked__store_close(t->st);
    if (t->e)
        sked_engine_close(t->e);
    free(t);
}

bool target_is_remote(const target *t)
{
    return t->r != NULL;
}

/* Open direct mode's store, or its engine, when first needed. The
 * failure is printed; ERR is left empty so that no second line follows. */
static int need_store(target *t, sked_error *err)
{
    if (t->st || direct_store_open(t->db, t->tzdb, &t->st) == 0)
        return 0;
    cli_mark_shown(); /* printed: silence the rest */
    return err ? (err->code = SKED_EIO) : SKED_EIO;
}

static int need_engine(target *t, sked_error *err)
{
    if (t->e || direct_engine_open(t->db, &t->e) == 0)
        return 0;
    cli_mark_shown();
    return err ? (err->code = SKED_EIO) : SKED_EIO;
}

/* ---- schedules ------------------------------------------------------- */

int target_schedule_get(target *t, const char *name, sked_schedule *out,
                        sked_error *err)
{
    int rc;

    if (t->r)
        return remote_schedule_get(t->r, name, out, err);
    if ((rc = need_store(t, err)) != 0)
        return rc;
    return sked__store_schedule_get(t->st, name, out, err);
}

/* SPEC 3.5: warn when no server has registered WORKFLOW (the API puts the
 * same words in "warnings", which remote mode prints the same way). */
static void warn_workflow(target *t, const char *workflow)
{
    char warning[256];

    if (!workflow || need_engine(t, NULL) != 0)
        return;
    sked_engine_workflow_warning(t->e, workflow, warning, sizeof warning);
    if (warning[0])
        cli_warn(warning);
}

/* The same after an apply: one warning per schedule of SET (N) whose
 * workflow is not registered, the API's "warnings" of PUT. */
static void warn_set(target *t, const sked_schedule *set, size_t n)
{
    json_t *w;

    if (n == 0 || need_engine(t, NULL) != 0)
        return;
    w = sked__answer_set_warnings(t->e, set, n);
    out_warnings(w);
    json_decref(w);
}

int target_schedule_create(target *t, const sked_schedule *s, sked_error *err)
{
    int rc;

    if (t->r)
        return remote_schedule_write(t->r, s, true, err);
    if ((rc = need_store(t, err)) != 0)
        return rc;
    rc = sked__store_schedule_create(t->st, s, err);
    if (rc == 0)
        warn_workflow(t, s->workflow);
    return rc;
}

int target_schedule_update(target *t, const sked_schedule *s, sked_error *err)
{
    int rc;

    if (t->r)
        return remote_schedule_write(t->r, s, false, err);
    if ((rc = need_store(t, err)) != 0)
        return rc;
    rc = sked__store_schedule_update(t->st, s, err);
    if (rc == 0)
        warn_workflow(t, s->workflow);
    return rc;
}

int target_schedule_list(target *t, const sked_schedule_filter *f,
                         sked_schedule **out, size_t *n, bool *more,
                         sked_error *err)
{
    int rc;

    if (t->r)
        return remote_schedule_list(t->r, f, out, n, more, err);
    if ((rc = need_store(t, err)) != 0)
        return rc;
    return sked__store_schedule_list(t->st, f, out, n, more, err);
}

int target_schedule_pause(target *t, const char *name, sked_error *err)
{
    int rc;

    if (t->r)
        return remote_schedule_op(t->r, name, "pause", NULL, err);
    if ((rc = need_store(t, err)) != 0)
        return rc;
    return sked__store_schedule_pause(t->st, name, err);
}

int target_schedule_resume(target *t, const char *name, sked_error *err)
{
    int rc;

    if (t->r)
        return remote_schedule_op(t->r, name, "resume", NULL, err);
    if ((rc = need_store(t, err)) != 0)
        return rc;
    return sked__store_schedule_resume(t->st, name, cli_now(), err);
}

int target_schedule_delete(target *t, const char *name, bool *existed,
                           sked_error *err)
{
    int rc;

    if (t->r)
        return remote_schedule_delete(t->r, name, existed, err);
    if ((rc = need_store(t, err)) != 0)
        return rc;
    return sked__store_schedule_delete(t->st, name, existed, err);
}

int target_schedule_trigger(target *t, const char *name, char **run_id,
                            sked_error *err)
{
    int rc;

    if (t->r)
        return remote_schedule_op(t->r, name, "trigger", run_id, err);
    if ((rc = need_engine(t, err)) != 0)
        return rc;
    return sked_engine_trigger(t->e, name, run_id, err);
}

int target_schedule_backfill(target *t, const char *name, sked_time start,
                             sked_time end, sked_progress_fn progress,
                             void *ctx, sked_backfill_result *res,
                             sked_error *err)
{
    int rc;

    if (t->r)
        return remote_schedule_backfill(t->r, t->tzdb, name, start, end,
                                        progress, ctx, res, err);
    if ((rc = need_engine(t, err)) != 0)
        return rc;
    return sked_engine_backfill(t->e, name, start, end, progress, ctx, res,
                                err);
}

int target_schedule_apply(target *t, const target_apply *a,
                          sked_apply_result *res, sked_error *err)
{
    int rc;

    if (t->r)
        return remote_schedule_apply(t->r, a, res, err);
    if ((rc = need_store(t, err)) != 0)
        return rc;
    rc = sked__store_schedule_apply(t->st, a->set, a->n, a->app, a->prune, res,
                                    err);
    if (rc == 0)
        warn_set(t, a->set, a->n);
    return rc;
}

/* ---- runs and workflows ------------------------------------------------ */

/* The engine's text is sked_free'd; the target's callers free(): copy. */
static int own_text(char *text, char **out, sked_error *err)
{
    *out = strdup(text);
    sked_free(text);
    if (!*out)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    return 0;
}

int target_run_list(target *t, const sked_run_query *q, char **out,
                    sked_error *err)
{
    char *text = NULL;
    int rc;

    if (t->r)
        return remote_run_list(t->r, q, out, err);
    if ((rc = need_engine(t, err)) != 0 ||
        (rc = sked_engine_run_list(t->e, q, &text, err)) != 0)
        return rc;
    return own_text(text, out, err);
}

int target_run_get(target *t, const char *id, char **out, sked_error *err)
{
    char *text = NULL, *esc, *path = NULL;
    int rc;

    if (t->r) {
        if (!(esc = remote_escape(id)) ||
            !(path = cli_format("/api/v1/runs/%s", esc)))
            path = NULL;
        free(esc);
        rc = path ? remote_get_text(t->r, path, out, err)
                  : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
        free(path);
        return rc;
    }
    if ((rc = need_engine(t, err)) != 0 ||
        (rc = sked_engine_run_get(t->e, id, &text, err)) != 0)
        return rc;
    return own_text(text, out, err);
}

/* The run ID as the API answers an operation on it: the engine's text,
 * which the API sends too. */
static int run_answer(target *t, const char *id, char **out, sked_error *err)
{
    char *text = NULL;
    int rc = sked_engine_run_get(t->e, id, &text, err);

    return rc != 0 ? rc : own_text(text, out, err);
}

int target_run_cancel(target *t, const char *id, char **out, sked_error *err)
{
    int rc;

    if (t->r)
        return remote_run_cancel(t->r, id, out, err);
    if ((rc = need_engine(t, err)) != 0 ||
        (rc = sked_engine_run_cancel(t->e, id, err)) != 0)
        return rc;
    return run_answer(t, id, out, err);
}

int target_run_start(target *t, const char *workflow, const char *input,
                     const char *key, char **out, sked_error *err)
{
    char *id = NULL;
    int rc;

    if (t->r)
        return remote_run_start(t->r, workflow, input, key, out, err);
    if ((rc = need_engine(t, err)) != 0 ||
        (rc = sked_engine_run_start(t->e, workflow, input, key, &id, err)) != 0)
        return rc;
    rc = run_answer(t, id, out, err);
    sked_free(id);
    return rc;
}

int target_workflow_list(target *t, char **out, sked_error *err)
{
    char *text = NULL;
    int rc;

    if (t->r)
        return remote_get_text(t->r, "/api/v1/workflows", out, err);
    if ((rc = need_engine(t, err)) != 0 ||
        (rc = sked_engine_workflow_list(t->e, &text, err)) != 0)
        return rc;
    return own_text(text, out, err);
}

/* ---- events ------------------------------------------------------------ */

int target_event_list(target *t, int64_t after, size_t limit, char **out,
                      sked_error *err)
{
    char path[96];
    int rc;

    if (t->r) {
        snprintf(path, sizeof path, "/api/v1/events?after=%lld&limit=%zu",
                 (long long) after, limit);
        return remote_get_text(t->r, path, out, err);
    }
    if ((rc = need_engine(t, err)) != 0)
        return rc;
    return sked_engine_event_list(t->e, after, limit, out, err);
}

/* The id of the newest stored event: where "follow" starts. */
static int last_event_id(target *t, int64_t *last, sked_error *err)
{
    for (;;) {
        char *text = NULL;
        json_t *page, *next;
        int rc = target_event_list(t, *last, 1000, &text, err);

        if (rc != 0)
            return rc;
        page = json_loads(text, 0, NULL);
        free(text);
        json_t *evs = json_object_get(page, "events");
        size_t n = json_array_size(evs);
        if (n > 0)
            *last = json_integer_value(
                json_object_get(json_array_get(evs, n - 1), "id"));
        next = json_object_get(page, "next_cursor");
        bool more = json_is_string(next) && n > 0;
        json_decref(page);
        if (!more)
            return 0;
    }
}

/* Direct mode follows the store: read what is new every second. */
static int poll_events(target *t, int64_t after, target_event_fn fn, void *ctx,
                       volatile const int *stop, sked_error *err)
{
    const struct timespec second = {1, 0};
    int rc;

    if (after < 0 && (after = 0, rc = last_event_id(t, &after, err)) != 0)
        return rc;
    while (!*stop) {
        char *text = NULL, *one;
        json_t *page, *ev;
        size_t i, n;

        if ((rc = target_event_list(t, after, 1000, &text, err)) != 0)
            return rc;
        page = json_loads(text, 0, NULL);
        free(text);
        n = json_array_size(json_object_get(page, "events"));
        json_array_foreach(json_object_get(page, "events"), i, ev)
        {
            after = json_integer_value(json_object_get(ev, "id"));
            if ((one = sked__json_text(ev, NULL)))
                fn(ctx, one);
            free(one);
        }
        json_decref(page);
        if (n < 1000 && !*stop)
            nanosleep(&second, NULL); /* a signal ends it early */
    }
    return 0;
}

int target_event_follow(target *t, int64_t after, target_event_fn fn, void *ctx,
                        volatile const int *stop, sked_error *err)
{
    if (t->r)
        return remote_event_follow(t->r, after, fn, ctx, stop, err);
    return poll_events(t, after, fn, ctx, stop, err);
}
