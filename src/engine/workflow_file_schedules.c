/* SPDX-License-Identifier: MIT */
/* Schedules in the workflows file (SPEC 10): the top-level "schedules"
 * list and a workflow's own. Each mapping is read by its key table into
 * a sked_schedule with source "code", then finished: exactly one of
 * cron, every, at or rrule; the workflow taken from the enclosing one, and the
 * name from the workflow, when not given; names unique across the file.
 * Its keys are the field table's (model/schedule_fields.h). Then
 * sked_schedule_validate checks it, so that the file, the CLI and
 * the API say the same thing about the same value; its error is reported
 * at the key it names.
 *
 * A schedule's context is any YAML mapping, kept as compact JSON. Its
 * strings are on the heap (a sked_schedule owns them), not in the arena,
 * and each schedule's place in the file is kept beside it
 * (sked_wf_where) for errors found later by the store. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/alloc.h"
#include "base/json_text.h"
#include "base/utf8.h"
#include "engine/workflow_file_int.h"
#include "model/schedule.h"
#include "model/schedule_fields.h"

/* Fail for the text S of node N that jansson refused: not valid UTF-8 (a
 * YAML escape can write a lone surrogate), else for want of memory. */
static int json_refused(parser *p, struct fy_node *n, const char *s)
{
    for (size_t i = 0, len = strlen(s), k; i < len; i += k)
        if ((k = sked__utf8_len(s + i, len - i)) == 0)
            return sked__wf_fail(p, n, "not valid UTF-8");
    return sked__wf_fail_nomem(p);
}

static int scalar_json(parser *p, struct fy_node *n, json_t **out)
{
    char *s, *end;
    long long i;
    double d;
    int rc;

    if (sked__wf_is_null(n))
        return (*out = json_null()) ? 0 : sked__wf_fail_nomem(p);
    if ((rc = sked__wf_scalar_text(p, n, "a value", &s)) < 0)
        return rc;
    if (fy_node_get_style(n) != FYNS_PLAIN)
        *out = json_string(s);
    else if (!strcmp(s, "true") || !strcmp(s, "false"))
        *out = json_boolean(s[0] == 't');
    else if (errno = 0, i = strtoll(s, &end, 10), *s && !*end && !errno)
        *out = json_integer(i);
    else if (d = strtod(s, &end), *s && !*end && d - d == 0)
        *out = json_real(d);
    else
        *out = json_string(s);
    return *out ? 0 : json_refused(p, n, s);
}

static int map_json(parser *p, struct fy_node *n, int depth, json_t *obj)
{
    struct fy_node_pair *pair;
    void *it = NULL;
    json_t *v;
    char *key;
    int rc;

    while ((pair = fy_node_mapping_iterate(n, &it)) != NULL) {
        if ((rc = sked__wf_scalar_text(p, fy_node_pair_key(pair), "a key",
                                       &key)) < 0 ||
            (rc = sked__wf_to_json(p, fy_node_pair_value(pair), depth + 1,
                                   &v)) < 0)
            return rc;
        if (json_object_set_new(obj, key, v) < 0)
            return json_refused(p, fy_node_pair_key(pair), key);
    }
    return 0;
}

int sked__wf_to_json(parser *p, struct fy_node *n, int depth, json_t **out)
{
    struct fy_node *item;
    void *it = NULL;
    json_t *j, *v;
    int rc = 0;

    if (depth > SKED_WF_CONTEXT_DEPTH_MAX)
        return sked__wf_fail(p, n, "nested deeper than %d levels",
                             SKED_WF_CONTEXT_DEPTH_MAX);
    if (!n || fy_node_get_type(n) == FYNT_SCALAR)
        return scalar_json(p, n, out);
    if (!(j = fy_node_is_mapping(n) ? json_object() : json_array()))
        return sked__wf_fail_nomem(p);
    if (fy_node_is_mapping(n))
        rc = map_json(p, n, depth, j);
    while (rc == 0 && !fy_node_is_mapping(n) &&
           (item = fy_node_sequence_iterate(n, &it)) != NULL)
        if ((rc = sked__wf_to_json(p, item, depth + 1, &v)) == 0 &&
            json_array_append_new(j, v) < 0)
            rc = sked__wf_fail_nomem(p);
    if (rc < 0)
        json_decref(j);
    else
        *out = j;
    return rc;
}

static int sch_context(parser *p, struct fy_node *v, void *obj)
{
    sked_schedule *s = obj;
    json_t *j = NULL;
    char *text;
    int rc;

    if (!fy_node_is_mapping(v))
        return sked__wf_fail(p, v, "expected a mapping, found %s",
                             sked__wf_node_kind(v));
    if ((rc = sked__wf_to_json(p, v, 0, &j)) < 0)
        return rc;
    text = sked__json_text(j, NULL);
    json_decref(j);
    if (!text)
        return sked__wf_fail_nomem(p);
    free(s->context);
    s->context = text;
    return 0;
}

/* Read a calendar list, a name or a sequence of names, into *out as
 * "a,b" (the member's form); an item that is no name is refused at it. */
static int cals_value(parser *p, struct fy_node *v, char **out)
{
    struct fy_node *item;
    void *it = NULL;
    const char *why;
    char *name, *list = NULL;
    size_t len = 0;
    int rc;

    if (sked__wf_is_null(v)) {
        free(*out);
        *out = NULL;
        return 0;
    }
    if (!fy_node_is_sequence(v)) {
        if ((rc = sked__wf_scalar_text(p, v, "a calendar name", &name)) < 0)
            return rc;
        if ((why = sked__wf_name_problem(name)))
            return sked__wf_fail(p, v, "%s", why);
        if (!(list = sked__strdup(name)))
            return sked__wf_fail_nomem(p);
        free(*out);
        *out = list;
        return 0;
    }
    while ((item = fy_node_sequence_iterate(v, &it)) != NULL) {
        char *grown;

        if ((rc = sked__wf_scalar_text(p, item, "a calendar name", &name)) < 0)
            break;
        if ((why = sked__wf_name_problem(name))) {
            rc = sked__wf_fail(p, item, "%s", why);
            break;
        }
        if (!(grown = sked__realloc(list, len + strlen(name) + 2))) {
            rc = sked__wf_fail_nomem(p);
            break;
        }
        list = grown;
        len += (size_t) sprintf(list + len, "%s%s", len ? "," : "", name);
    }
    if (item) {
        free(list);
        return rc;
    }
    free(*out);
    *out = list;
    return 0;
}

/* Read the name V of the enumeration E into *out, reporting the message
 * about the field NAME (the names allowed). */
static int enum_value(parser *p, struct fy_node *v, const char *name,
                      const sked__enum *e, int *out)
{
    sked_error err;
    char *s;
    int x = 0, rc;

    if ((rc = sked__wf_scalar_text(p, v, "a name", &s)) < 0)
        return rc;
    sked_error_clear(&err);
    if (sked__enum_parse(e, s, name, &x, &err) < 0)
        return sked__wf_fail(p, v, "%s", err.msg);
    *out = x;
    return 0;
}

static int sch_paused(parser *p, struct fy_node *v, void *obj)
{
    sked_schedule *s = obj;
    bool paused = false;
    int rc;

    if ((rc = sked__wf_bool_value(p, v, &paused)) == 0)
        s->status = paused ? SKED_SCHEDULE_PAUSED : SKED_SCHEDULE_ACTIVE;
    return rc;
}

/* Read the boolean V into the int32_t flag *OUT (0 or 1). */
static int flag_value(parser *p, struct fy_node *v, int32_t *out)
{
    bool on = false;
    int rc;

    if ((rc = sked__wf_bool_value(p, v, &on)) == 0)
        *out = on;
    return rc;
}

/* The keys of a schedule: the field table's rows that have one (not the
 * scheduler's state), each read by its kind. Ranges are left to
 * sked_schedule_validate, so that the file, the CLI and the API say the
 * same thing about the same value. */
#define YROLE_KEY(x)      x
#define YROLE_DEF(x)      x
#define YROLE_REQUEST(x)  x
#define YROLE_VIEW(x)     x
#define YROLE_INTERNAL(x) /* no key */
#define YROLE_STATE(x)    /* no key */
#define YROLE_CREATED(x)  /* no key */

/* A function of its own for each flag and enumeration. */
#define OBJ(m) (((sked_schedule *) obj)->m)
#define YFN_BOOL(m, e)                                                         \
    static int key_##m(parser *p, struct fy_node *v, void *obj)                \
    {                                                                          \
        return flag_value(p, v, &OBJ(m));                                      \
    }
#define YFN_ENUM(m, e)                                                         \
    static int key_##m(parser *p, struct fy_node *v, void *obj)                \
    {                                                                          \
        return enum_value(p, v, #m, &sked__enum_##e,                           \
                          (int *) (void *) &OBJ(m));                           \
    }
#define YFN_NAME(m, e)
#define YFN_STR(m, e)
#define YFN_CRON(m, e)
#define YFN_RRULE(m, e)
#define YFN_EVERY(m, e)
#define YFN_AT(m, e)
#define YFN_INSTANT(m, e)
#define YFN_DUR(m, e)
#define YFN_I32(m, e)
#define YFN_I64(m, e)
#define YFN_CONTEXT(m, e)
#define YFN_CALS(m, e)                                                         \
    static int key_##m(parser *p, struct fy_node *v, void *obj)                \
    {                                                                          \
        return cals_value(p, v, &OBJ(m));                                      \
    }
#define YFN_PAUSED(m, e)
#define YFN_WORDS(m, e)
#define YFN(member, kind, ctype, en, role, ...)                                \
    YROLE_##role(YFN_##kind(member, en))
SKED_SCHEDULE_FIELDS(YFN)

#define SOFF(m)            offsetof(sked_schedule, m)
#define DUR_ANY_MAX        (INT64_C(36525) * 86400)
#define YKEY_NAME(m, k)    KEY(k, F_HSTR, SOFF(m)),
#define YKEY_STR(m, k)     KEY(k, F_HSTR, SOFF(m)),
#define YKEY_CRON(m, k)    KEY(k, F_HSTR, SOFF(m)),
#define YKEY_RRULE(m, k)   KEY(k, F_HSTR, SOFF(m)),
#define YKEY_EVERY(m, k)   KEY_RANGE(k, F_DUR, SOFF(m), 0, DUR_ANY_MAX),
#define YKEY_DUR(m, k)     KEY_RANGE(k, F_DUR, SOFF(m), 0, DUR_ANY_MAX),
#define YKEY_AT(m, k)      KEY(k, F_TIME, SOFF(m)),
#define YKEY_INSTANT(m, k) KEY(k, F_TIME, SOFF(m)),
#define YKEY_I32(m, k)     KEY_RANGE(k, F_INT32, SOFF(m), INT32_MIN, INT32_MAX),
#define YKEY_I64(m, k)     KEY_RANGE(k, F_INT64, SOFF(m), INT64_MIN, INT64_MAX),
#define YKEY_BOOL(m, k)    KEY_FN(k, key_##m),
#define YKEY_ENUM(m, k)    KEY_FN(k, key_##m),
#define YKEY_CONTEXT(m, k) KEY_FN(k, sch_context),
#define YKEY_CALS(m, k)    KEY_FN(k, key_##m),
#define YKEY_PAUSED(m, k)  KEY_FN(k, sch_paused),
#define YKEY_WORDS(m, k)   /* shown only */
#define YKEY(member, kind, ctype, en, role, sql, json, yaml, ...)              \
    YROLE_##role(YKEY_##kind(member, yaml))

static const field schedule_fields[] = {
    SKED_SCHEDULE_FIELDS(YKEY) KEY_END,
};

static int sch_validate(parser *p, struct fy_node *map, const sked_schedule *s)
{
    sked_error e;

    sked_error_clear(&e);
    if (sked_schedule_validate(s, p->db, &e) == 0)
        return 0;
    return sked__wf_fail_model(p, map, &e);
}

/* Fill in what a schedule takes from where it stands, then check it. */
static int sch_finish(parser *p, struct fy_node *map, sked_schedule *s)
{
    static const char *const specs[] = {"cron", "every", "at", "rrule", NULL};
    sked_error e;
    int which = 0, rc;

    static const sked_spec_kind kinds[] = {SKED_SPEC_CRON, SKED_SPEC_EVERY,
                                           SKED_SPEC_AT, SKED_SPEC_RRULE};
    if ((rc = sked__wf_one_of(p, map, specs, "cron, every, at or rrule",
                              &which)) < 0)
        return rc;
    s->kind = kinds[which];
    if (s->kind != SKED_SPEC_EVERY && sked__wf_find_pair(map, "anchor"))
        return sked__wf_fail_at_key(p, map, "anchor",
                                    "an anchor needs \"every\"");
    if (p->workflow && s->workflow && strcmp(s->workflow, p->workflow) != 0)
        return sked__wf_fail_at_key(p, map, "workflow",
                                    "differs from the enclosing workflow");
    /* A heartbeat schedule starts nothing: its name is what it needs. */
    if (s->heartbeat && !s->workflow && !p->workflow && !s->name)
        return sked__wf_fail(p, map, "missing key \"name\"");
    if (!s->workflow && !p->workflow && !s->heartbeat)
        return sked__wf_fail(p, map, "missing key \"workflow\"");
    if (!s->workflow && p->workflow &&
        !(s->workflow = sked__strdup(p->workflow)))
        return sked__wf_fail_nomem(p);
    /* The name defaults to the workflow's: check the workflow first, so
     * that a bad one is reported as itself. */
    sked_error_clear(&e);
    if (s->workflow &&
        sked__schedule_name_check(s->workflow, "workflow", &e) < 0)
        return sked__wf_fail_at_key(p, map, "workflow", e.msg);
    if (!s->name && !(s->name = sked__strdup(s->workflow)))
        return sked__wf_fail_nomem(p);
    s->source = SKED_SOURCE_CODE;
    for (size_t i = 0; i < p->n_schedules; i++)
        if (strcmp(p->schedules[i].name, s->name) == 0)
            return sked__wf_fail_at_key(p, map, "name",
                                        "another schedule has this name");
    return sch_validate(p, map, s);
}

static int sch_push(parser *p, struct fy_node *map, sked_schedule *s)
{
    struct fy_mark m = sked__wf_node_mark(p, map);
    sked_wf_where *w;

    if (p->n_schedules == p->cap_schedules) {
        size_t cap = p->cap_schedules ? 2 * p->cap_schedules : 8;
        sked_schedule *v = sked__realloc(p->schedules, cap * sizeof *v);

        if (!v)
            return sked__wf_fail_nomem(p);
        p->schedules = v;
        if (!(w = sked__realloc(p->where, cap * sizeof *w)))
            return sked__wf_fail_nomem(p);
        p->where = w;
        p->cap_schedules = cap;
    }
    w = &p->where[p->n_schedules];
    w->line = m.line + 1;
    w->column = m.column + 1;
    snprintf(w->path, sizeof w->path, "%s", p->path);
    p->schedules[p->n_schedules++] = *s;
    return 0;
}

/* Read the schedule MAP, an item of a list of them (the index and CTX
 * are not needed: each schedule goes to the parser's list). */
static int read_schedule(parser *p, struct fy_node *map, size_t i, void *ctx)
{
    sked_schedule s;
    int rc;

    (void) i;
    (void) ctx;
    sked_schedule_init(&s);
    if ((rc = sked__wf_walk_map(p, map, schedule_fields, &s)) < 0 ||
        (rc = sch_finish(p, map, &s)) < 0 || (rc = sch_push(p, map, &s)) < 0) {
        sked_schedule_done(&s);
        return rc;
    }
    return 0;
}

int sked__wf_read_schedules(parser *p, struct fy_node *v, void *obj)
{
    (void) obj;
    return sked__wf_list_walk(p, v, read_schedule, NULL);
}
