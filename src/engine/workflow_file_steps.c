/* SPDX-License-Identifier: MIT */
/* A workflow in the workflows file (SPEC 10): its queue, version,
 * timeout and parallelism, its steps and its schedules (read in
 * workflow_file_schedules.c).
 *
 * Words: an action is what a step or a compensation does (exactly one of
 * run, sh, http, sleep), with its environment, limits and retries; a
 * step is an action with a name, the steps it needs and an optional
 * compensation. Once all steps are read, their names must be unique and
 * their needs must name steps of the workflow without a cycle: the steps
 * form a DAG. */
#include <stdlib.h>
#include <string.h>

#include "engine/workflow_file_int.h"
#include "exec/step_env.h"
#include "model/workflow.h"

/* ---- actions and steps -------------------------------------------------- */

static const field retry_fields[] = {
    KEY_RANGE("attempts", F_INT32, offsetof(sked_wf_retry, attempts), 1,
              SKED_RETRY_ATTEMPTS_MAX),
    KEY_RANGE("backoff", F_DUR, offsetof(sked_wf_retry, backoff), 0, DAY),
    KEY_RANGE("multiplier", F_NUM, offsetof(sked_wf_retry, multiplier), 1, 100),
    KEY_RANGE("max_backoff", F_DUR, offsetof(sked_wf_retry, max_backoff), 0,
              7 * DAY),
    KEY("jitter", F_BOOL, offsetof(sked_wf_retry, jitter)),
    KEY_RANGE("retry_on", F_INTS, offsetof(sked_wf_retry, retry_on), 0, 599),
    KEY_END,
};

static const field http_fields[] = {
    KEY("method", F_STR, offsetof(sked_wf_http, method)),
    KEY("url", F_STR, offsetof(sked_wf_http, url)),
    KEY("headers", F_KVS, offsetof(sked_wf_http, headers)),
    KEY("body", F_STR, offsetof(sked_wf_http, body)),
    KEY_RANGE("expect", F_INTS, offsetof(sked_wf_http, expect), 100, 599),
    KEY_END,
};

static int read_compensate(parser *p, struct fy_node *v, void *obj);

/* The keys of an action, in a struct of type T where the action's
 * members are reached through PRE ("a." in a step, nothing alone). */
#define ACTION_FIELDS(T, PRE)                                                  \
    KEY("run", F_STRS, offsetof(T, PRE run)),                                  \
        KEY("sh", F_STR, offsetof(T, PRE sh)),                                 \
        KEY_MAP("http", offsetof(T, PRE http), http_fields),                   \
        KEY_RANGE("sleep", F_DUR, offsetof(T, PRE sleep), 1, 366 * DAY),       \
        KEY("env", F_KVS, offsetof(T, PRE env)),                               \
        KEY("cwd", F_STR, offsetof(T, PRE cwd)),                               \
        KEY("user", F_STR, offsetof(T, PRE user)),                             \
        KEY_RANGE("timeout", F_DUR, offsetof(T, PRE timeout), 1, 30 * DAY),    \
        KEY_RANGE("kill_grace", F_DUR, offsetof(T, PRE kill_grace), 1, 3600),  \
        KEY_MAP("retry", offsetof(T, PRE retry), retry_fields)

static const field step_fields[] = {
    ACTION_FIELDS(sked_wf_step, a.),
    KEY("name", F_STR, offsetof(sked_wf_step, name)),
    KEY("needs", F_STRS, offsetof(sked_wf_step, needs)),
    KEY_FN("compensate", read_compensate),
    KEY_END,
};

static const field compensate_fields[] = {
    ACTION_FIELDS(sked_wf_action, ),
    KEY_END,
};

/* Check that MAP, read into A, does exactly one thing (SPEC 10). */
static int action_finish(parser *p, struct fy_node *map, sked_wf_action *a,
                         bool compensation)
{
    static const char *const kinds[] = {"run", "sh", "http", "sleep", NULL};
    int which = 0, rc;

    if ((rc = sked__wf_one_of(p, map, kinds, "run, sh, http or sleep",
                              &which)) < 0)
        return rc;
    a->kind = (sked_wf_action_kind) (SKED_WF_ACTION_RUN + which);
    if (compensation && a->kind == SKED_WF_ACTION_SLEEP)
        return sked__wf_fail_at_key(p, map, "sleep",
                                    "a compensation cannot sleep");
    if (a->kind == SKED_WF_ACTION_RUN && a->run.n == 0)
        return sked__wf_fail_at_key(p, map, "run",
                                    "needs at least the program");
    if (a->kind == SKED_WF_ACTION_HTTP && !a->http.url)
        return sked__wf_fail_at_key(p, map, "http", "missing key \"url\"");
    return 0;
}

static int read_compensate(parser *p, struct fy_node *v, void *obj)
{
    sked_wf_step *step = obj;
    sked_wf_action *a;
    int rc;

    if (!(a = sked__wf_arena_alloc(&p->arena, sizeof *a)))
        return sked__wf_fail_nomem(p);
    if ((rc = sked__wf_walk_map(p, v, compensate_fields, a)) < 0 ||
        (rc = action_finish(p, v, a, true)) < 0)
        return rc;
    step->compensate = a;
    return 0;
}

static int read_step(parser *p, struct fy_node *map, sked_wf_step *step)
{
    const char *why;
    int rc;

    if ((rc = sked__wf_walk_map(p, map, step_fields, step)) < 0 ||
        (rc = action_finish(p, map, &step->a, false)) < 0)
        return rc;
    if (!step->name)
        return sked__wf_fail(p, map, "missing key \"name\"");
    if ((why = sked__wf_name_problem(step->name)) != NULL)
        return sked__wf_fail_at_key(p, map, "name", why);
    return 0;
}

static long step_index(const sked_wf_workflow *w, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(w->steps[i].name, name) == 0)
            return (long) i;
    return -1;
}

/* Check names and needs of W's steps: unique names, needs that name an
 * earlier-declared or later step, and no cycle. The cycle check colours
 * steps white (0), grey (1, on the path) and black (2). */
static int visit(const sked_wf_workflow *w, size_t i, unsigned char *colour)
{
    const sked_wf_step *s = &w->steps[i];

    if (colour[i] == 2)
        return 0;
    if (colour[i] == 1)
        return -1;
    colour[i] = 1;
    for (size_t k = 0; k < s->needs.n; k++)
        if (visit(w, (size_t) step_index(w, w->n_steps, s->needs.v[k]),
                  colour) < 0)
            return -1;
    colour[i] = 2;
    return 0;
}

static int check_steps(parser *p, struct fy_node *seq, sked_wf_workflow *w)
{
    unsigned char *colour;
    size_t i, k, old;
    int rc = 0;

    for (i = 0; i < w->n_steps && rc == 0; i++) {
        struct fy_node *map = fy_node_sequence_get_by_index(seq, (int) i);
        const sked_wf_step *s = &w->steps[i];

        old = sked__wf_path_push_index(p, i);
        if (step_index(w, i, s->name) >= 0)
            rc = sked__wf_fail_at_key(p, map, "name",
                                      "another step has this name");
        for (k = 0; k < s->needs.n && rc == 0; k++)
            if (step_index(w, w->n_steps, s->needs.v[k]) < 0)
                rc = sked__wf_fail_at_key(p, map, "needs",
                                          "names an unknown step");
        sked__wf_path_pop(p, old);
    }
    if (rc < 0)
        return rc;
    if (!(colour = sked__wf_arena_alloc(&p->arena, w->n_steps + 1)))
        return sked__wf_fail_nomem(p);
    /* The DAG check recurses once per step along a chain of needs; the
     * item cap bounds it. */
    for (i = 0; i < w->n_steps; i++)
        if (visit(w, i, colour) < 0)
            return sked__wf_fail(p, seq, "the steps' needs form a cycle");
    return 0;
}

static int step_item(parser *p, struct fy_node *item, size_t i, void *ctx)
{
    sked_wf_workflow *w = ctx;

    return read_step(p, item, &w->steps[i]);
}

static int read_steps(parser *p, struct fy_node *v, void *obj)
{
    sked_wf_workflow *w = obj;
    int rc;

    /* The engine's limit (model/workflow.h), reported here at the first step
     * past it, where the file can say where. */
    if (fy_node_is_sequence(v) &&
        fy_node_sequence_item_count(v) > SKED_WORKFLOW_STEPS_MAX)
        return sked__wf_fail_code(
            p, fy_node_sequence_get_by_index(v, SKED_WORKFLOW_STEPS_MAX),
            SKED_ETOOBIG, "a workflow has at most %d steps (this is step %d)",
            SKED_WORKFLOW_STEPS_MAX, SKED_WORKFLOW_STEPS_MAX + 1);
    if ((rc = sked__wf_list_alloc(p, v, sizeof *w->steps, (void **) &w->steps,
                                  &w->n_steps)) < 0 ||
        (rc = sked__wf_list_walk(p, v, step_item, w)) < 0)
        return rc;
    return check_steps(p, v, w);
}

/* ---- the workflow ------------------------------------------------------- */

static const field timeout_fields[] = {
    KEY_RANGE("seconds", F_DUR, offsetof(sked_wf_timeout, seconds), 1,
              366 * DAY),
    KEY("hard", F_BOOL, offsetof(sked_wf_timeout, hard)),
    KEY("fail_workflow", F_BOOL, offsetof(sked_wf_timeout, fail_workflow)),
    KEY_END,
};

static int env_name_item(parser *p, struct fy_node *item, size_t i, void *ctx)
{
    sked_wf_strs *out = ctx;
    const char *why;
    int rc;

    if ((rc = sked__wf_scalar_text(p, item, "a variable name", &out->v[i])) < 0)
        return rc;
    if ((why = sked__step_env_inherit_problem(out->v[i])) != NULL)
        return sked__wf_fail(p, item, "%s", why);
    return 0;
}

/* env_inherit: true, false, or a list of the variables' names. */
static int read_env_inherit(parser *p, struct fy_node *v, void *obj)
{
    sked_wf_workflow *w = obj;
    int rc;

    if (!fy_node_is_sequence(v))
        return sked__wf_bool_value(p, v, &w->env_inherit_all);
    if ((rc = sked__wf_list_alloc(p, v, sizeof *w->env_inherit.v,
                                  (void **) &w->env_inherit.v,
                                  &w->env_inherit.n)) < 0)
        return rc;
    return sked__wf_list_walk(p, v, env_name_item, &w->env_inherit);
}

static const field workflow_fields[] = {
    KEY("queue", F_STR, offsetof(sked_wf_workflow, queue)),
    KEY("version", F_STR, offsetof(sked_wf_workflow, version)),
    KEY_MAP("timeout", offsetof(sked_wf_workflow, timeout), timeout_fields),
    KEY_RANGE("parallelism", F_INT32, offsetof(sked_wf_workflow, parallelism),
              1, SKED_WORKFLOW_PARALLELISM_MAX),
    KEY_FN("env_inherit", read_env_inherit),
    KEY_FN("steps", read_steps),
    KEY_FN("schedules", sked__wf_read_schedules),
    KEY_END,
};

int sked__wf_read_workflow(parser *p, struct fy_node *map, sked_wf_workflow *w)
{
    int rc;

    w->timeout.hard = true;
    w->timeout.fail_workflow = true;
    w->parallelism = 1;
    p->workflow = w->name;
    rc = sked__wf_walk_map(p, map, workflow_fields, w);
    p->workflow = NULL;
    if (rc == 0 && !sked__wf_find_pair(map, "steps") &&
        !sked__wf_find_pair(map, "schedules"))
        return sked__wf_fail(p, map,
                             "a workflow needs \"steps\" or \"schedules\"");
    return rc;
}
