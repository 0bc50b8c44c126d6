/* SPDX-License-Identifier: MIT */
/* Notifiers (notifier.h): the JSON object both ways, driven by the field
 * tables of notifier_fields.h, their checks, and which events a notifier
 * wants. Schedules are matched as fnmatch(3) globs without flags, so
 * "nightly-*" matches "nightly-db" and a plain name matches itself. */
#include "model/notifier.h"

#include <fnmatch.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/json_text.h"
#include "model/calendar.h"
#include "model/notifier_fields.h"
#include "model/schedule.h"
#include "model/schedule_json.h"
#include "sked/schedule.h"

/* The notifiable event types (issue 19), and run.timeout_exceeded. */
static const char *const KNOWN[] = {"run.failed",
                                    "run.recovered",
                                    "run.timeout_exceeded",
                                    "schedule.disabled",
                                    "schedule.paused",
                                    "schedule.occurrences_missed",
                                    "schedule.deadline_missed",
                                    NULL};

static const char *const KINDS[] = {"webhook", "command", "email", NULL};

enum { K_STR, K_STRS, K_KVS, K_DUR };

/* One row of a field table, as data. */
typedef struct fdesc {
    const char *json;
    int kind;
    size_t off;
} fdesc;

#define ROW(m, kind, json, help) {json, K_##kind, offsetof(sked_notifier, m)},
static const fdesc COMMON[] = {SKED__NOTIFIER_FIELDS(ROW){NULL, 0, 0}};
static const fdesc WEBHOOK[] = {SKED__WEBHOOK_FIELDS(ROW){NULL, 0, 0}};
static const fdesc COMMAND[] = {SKED__COMMAND_FIELDS(ROW){NULL, 0, 0}};
static const fdesc EMAIL[] = {SKED__EMAIL_FIELDS(ROW){NULL, 0, 0}};
#undef ROW
static const fdesc *const BY_KIND[] = {WEBHOOK, COMMAND, EMAIL};

const char *sked__notifier_kind_name(sked_notifier_kind k)
{
    return (unsigned) k < 3 ? KINDS[k] : "webhook";
}

int sked__notifier_kind_parse(const char *s)
{
    for (int i = 0; s && KINDS[i]; i++)
        if (strcmp(s, KINDS[i]) == 0)
            return i;
    return -1;
}

bool sked__notify_event_known(const char *type)
{
    for (size_t i = 0; type && KNOWN[i]; i++)
        if (strcmp(type, KNOWN[i]) == 0)
            return true;
    return false;
}

/* ---- reading ------------------------------------------------------------ */

/* Name the key KEY under PREFIX (NULL: top) in BUF, for errors. */
static const char *key_name(char *buf, size_t size, const char *prefix,
                            const char *key)
{
    (void) snprintf(buf, size, "%s%s%s", prefix ? prefix : "",
                    prefix ? "." : "", key);
    return buf;
}

static int read_str(const char *field, const json_t *v, char **dst,
                    sked_error *err)
{
    if (json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return sked__error_set(err, SKED_EINVAL, field, -1,
                               "expected a string");
    if (json_string_length(v) > SKED_NOTIFY_TEXT_MAX)
        return sked__error_set(err, SKED_EINVAL, field, -1,
                               "longer than %d bytes", SKED_NOTIFY_TEXT_MAX);
    free(*dst);
    *dst = sked__strdup(json_string_value(v));
    return *dst ? 0 : sked__error_set(err, SKED_ENOMEM, field, -1, NULL);
}

static int read_strs(const char *field, const json_t *v, sked_strlist *l,
                     sked_error *err)
{
    char at[SKED_ERROR_FIELD_MAX];
    size_t i;
    json_t *x;

    if (json_is_null(v))
        return 0;
    if (!json_is_array(v))
        return sked__error_set(err, SKED_EINVAL, field, -1,
                               "expected a list of strings");
    if (json_array_size(v) > SKED_NOTIFY_LIST_MAX)
        return sked__error_set(err, SKED_EINVAL, field, -1, "at most %d items",
                               SKED_NOTIFY_LIST_MAX);
    json_array_foreach(v, i, x)
    {
        (void) snprintf(at, sizeof at, "%s[%zu]", field, i);
        if (!json_is_string(x) || json_string_length(x) == 0 ||
            json_string_length(x) > SKED_NOTIFY_TEXT_MAX)
            return sked__error_set(err, SKED_EINVAL, at, -1,
                                   "expected a non-empty string");
        if (sked__strlist_add(l, json_string_value(x)) != 0)
            return sked__error_set(err, SKED_ENOMEM, at, -1, NULL);
    }
    return 0;
}

/* Read an object of strings into "Name: value" lines. */
static int read_kvs(const char *field, const json_t *v, sked_strlist *l,
                    sked_error *err)
{
    char at[SKED_ERROR_FIELD_MAX], *line;
    const char *k;
    json_t *x;
    int rc;

    if (json_is_null(v))
        return 0;
    if (!json_is_object(v) || json_object_size(v) > SKED_NOTIFY_LIST_MAX)
        return sked__error_set(err, SKED_EINVAL, field, -1,
                               "expected an object of at most %d strings",
                               SKED_NOTIFY_LIST_MAX);
    json_object_foreach((json_t *) v, k, x)
    {
        (void) snprintf(at, sizeof at, "%s.%s", field, k);
        if (!json_is_string(x) || strpbrk(k, ":\r\n ") || !k[0] ||
            strpbrk(json_string_value(x), "\r\n"))
            return sked__error_set(err, SKED_EINVAL, at, -1,
                                   "a header is a name and a one-line string");
        size_t len = strlen(k) + json_string_length(x) + 3;
        if (!(line = sked__malloc(len)))
            return sked__error_set(err, SKED_ENOMEM, at, -1, NULL);
        (void) snprintf(line, len, "%s: %s", k, json_string_value(x));
        rc = sked__strlist_add(l, line);
        free(line);
        if (rc != 0)
            return sked__error_set(err, SKED_ENOMEM, at, -1, NULL);
    }
    return 0;
}

static int read_dur(const char *field, const json_t *v, sked_dur *dst,
                    sked_error *err)
{
    sked_error e;

    if (json_is_null(v))
        return 0;
    if (json_is_integer(v) && json_integer_value(v) > 0 &&
        json_integer_value(v) <= SKED_NOTIFY_RETRY_MAX / SKED_USEC_PER_SEC) {
        *dst = json_integer_value(v) * SKED_USEC_PER_SEC;
        return 0;
    }
    sked_error_clear(&e);
    if (!json_is_string(v) || sked_dur_parse(json_string_value(v), dst, &e))
        return sked__error_set(err, SKED_EINVAL, field, -1,
                               "expected a duration (\"30s\", \"24h\")%s%s",
                               e.msg[0] ? ": " : "", e.msg);
    return 0;
}

/* Read the key JSON of table T from V into N. */
static int read_field(const fdesc *f, const char *field, const json_t *v,
                      sked_notifier *n, sked_error *err)
{
    char *base = (char *) n + f->off;

    switch (f->kind) {
    case K_STR:
        return read_str(field, v, (char **) (void *) base, err);
    case K_STRS:
        return read_strs(field, v, (sked_strlist *) (void *) base, err);
    case K_KVS:
        return read_kvs(field, v, (sked_strlist *) (void *) base, err);
    default:
        return read_dur(field, v, (sked_dur *) (void *) base, err);
    }
}

static const fdesc *find(const fdesc *t, const char *key)
{
    for (; t->json; t++)
        if (strcmp(t->json, key) == 0)
            return t;
    return NULL;
}

/* Read the kind's object V (under the key PREFIX) into N. */
static int read_kind(const char *prefix, const json_t *v, sked_notifier *n,
                     sked_error *err)
{
    char field[SKED_ERROR_FIELD_MAX];
    const fdesc *f;
    const char *k;
    json_t *x;
    int rc;

    if (!json_is_object(v))
        return sked__error_set(err, SKED_EINVAL, prefix, -1,
                               "expected an object");
    json_object_foreach((json_t *) v, k, x)
    {
        key_name(field, sizeof field, prefix, k);
        if (!(f = find(BY_KIND[n->kind], k)))
            return sked__error_set(err, SKED_EINVAL, field, -1,
                                   "unknown key for a %s", prefix);
        if ((rc = read_field(f, field, x, n, err)) != 0)
            return rc;
    }
    return 0;
}

/* Read one of the state keys K (value X) into N; 1 when K is none. */
static int read_state(const char *k, const json_t *x, sked_notifier *n,
                      sked_error *err)
{
    if (strcmp(k, "kind") == 0 || strcmp(k, "source") == 0) {
        if (strcmp(k, "source") == 0 && json_is_string(x))
            n->source = strcmp(json_string_value(x), "code") == 0
                            ? SKED_SOURCE_CODE
                            : SKED_SOURCE_API;
        return 0; /* kind: the key of the kind's object says it */
    }
    if (strcmp(k, "app") == 0)
        return read_str(k, x, &n->app, err);
    if (strcmp(k, "created_at") == 0 || strcmp(k, "updated_at") == 0) {
        sked_time *t = k[0] == 'c' ? &n->created_at : &n->updated_at;
        /* The store's rows hold µs, the API's answers instants. */
        *t = SKED_TIME_NONE;
        if (json_is_integer(x))
            *t = json_integer_value(x);
        else if (json_is_string(x) &&
                 sked_time_parse(json_string_value(x), t, NULL) != 0)
            *t = SKED_TIME_NONE;
        return 0;
    }
    return 1;
}

static int read_top(const json_t *o, unsigned flags, sked_notifier *n,
                    sked_error *err)
{
    const char *k, *kind_key = NULL;
    const fdesc *f;
    json_t *x;
    int rc, kind;

    json_object_foreach((json_t *) o, k, x)
    {
        if (strcmp(k, "name") == 0)
            rc = read_str(k, x, &n->name, err);
        else if ((kind = sked__notifier_kind_parse(k)) >= 0) {
            if (kind_key)
                return sked__error_set(err, SKED_EINVAL, k, -1,
                                       "a notifier is one of webhook, command "
                                       "or email (also %s)",
                                       kind_key);
            kind_key = k;
            n->kind = (sked_notifier_kind) kind;
            rc = read_kind(k, x, n, err);
        } else if ((f = find(COMMON, k)))
            rc = read_field(f, k, x, n, err);
        else if (!(flags & SKED__NOTIFIER_JSON_STATE) ||
                 (rc = read_state(k, x, n, err)) == 1)
            return sked__error_set(err, SKED_EINVAL, k, -1, "unknown key");
        if (rc != 0)
            return rc;
    }
    if (!kind_key)
        return sked__error_set(err, SKED_EINVAL, "webhook", -1,
                               "a notifier needs one of webhook, command or "
                               "email");
    return 0;
}

int sked__notifier_from_json(const json_t *o, unsigned flags,
                             sked_notifier *out, sked_error *err)
{
    sked_notifier n;
    int rc;

    memset(&n, 0, sizeof n);
    n.source = SKED_SOURCE_API;
    n.created_at = n.updated_at = SKED_TIME_NONE;
    if (!json_is_object(o))
        return sked__error_set(err, SKED_EINVAL, NULL, -1,
                               "a notifier is a JSON object");
    rc = read_top(o, flags, &n, err);
    if (rc != 0) {
        sked__notifier_done(&n);
        return rc;
    }
    *out = n;
    return 0;
}

/* ---- checks -------------------------------------------------------------- */

static int check_kind(const sked_notifier *n, sked_error *err)
{
    if (n->kind == SKED_NOTIFIER_WEBHOOK) {
        if (!n->url || (strncmp(n->url, "http://", 7) != 0 &&
                        strncmp(n->url, "https://", 8) != 0))
            return sked__error_set(err, SKED_EINVAL, "webhook.url", -1,
                                   "an http:// or https:// URL is needed");
        if (n->secret_file && n->secret_env)
            return sked__error_set(err, SKED_EINVAL, "webhook.secret_env", -1,
                                   "one of secret_file and secret_env");
        if (n->secret_file && n->secret_file[0] != '/')
            return sked__error_set(err, SKED_EINVAL, "webhook.secret_file", -1,
                                   "an absolute path is needed");
    }
    if (n->kind == SKED_NOTIFIER_COMMAND && n->argv.n == 0)
        return sked__error_set(err, SKED_EINVAL, "command.argv", -1,
                               "a program to run is needed");
    if (n->kind == SKED_NOTIFIER_EMAIL) {
        if (n->to.n == 0)
            return sked__error_set(err, SKED_EINVAL, "email.to", -1,
                                   "at least one recipient is needed");
        for (size_t i = 0; i < n->to.n; i++)
            if (strpbrk(n->to.v[i], "\r\n,") || !strchr(n->to.v[i], '@'))
                return sked__error_set(err, SKED_EINVAL, "email.to", -1,
                                       "\"%.60s\" is not one address",
                                       n->to.v[i]);
        if ((n->subject && strpbrk(n->subject, "\r\n")) ||
            (n->from && strpbrk(n->from, "\r\n")))
            return sked__error_set(err, SKED_EINVAL, "email.subject", -1,
                                   "one line");
    }
    if (n->timeout < 0 || n->timeout > SKED_NOTIFY_TIMEOUT_MAX)
        return sked__error_set(
            err, SKED_EINVAL, "timeout", -1, "at most %d seconds",
            (int) (SKED_NOTIFY_TIMEOUT_MAX / SKED_USEC_PER_SEC));
    return 0;
}

int sked__notifier_validate(const sked_notifier *n, sked_error *err)
{
    char at[SKED_ERROR_FIELD_MAX];
    int rc;

    if ((rc = sked__schedule_name_check(n->name, "name", err)) != 0)
        return rc;
    if (n->events.n == 0)
        return sked__error_set(err, SKED_EINVAL, "events", -1,
                               "at least one event type is needed");
    for (size_t i = 0; i < n->events.n; i++)
        if (!sked__notify_event_known(n->events.v[i])) {
            (void) snprintf(at, sizeof at, "events[%zu]", i);
            return sked__error_set(err, SKED_EINVAL, at, -1,
                                   "\"%.60s\" is not a notifiable event type",
                                   n->events.v[i]);
        }
    if (n->retry_for < 0 || n->retry_for > SKED_NOTIFY_RETRY_MAX)
        return sked__error_set(err, SKED_EINVAL, "retry_for", -1,
                               "at most 30 days");
    return check_kind(n, err);
}

/* ---- writing --------------------------------------------------------------
 */

static json_t *list_json(const sked_strlist *l)
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < l->n; i++)
        if (json_array_append_new(a, json_string(l->v[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static json_t *kvs_json(const sked_strlist *l)
{
    json_t *o = json_object();

    for (size_t i = 0; o && i < l->n; i++) {
        const char *c = strchr(l->v[i], ':');
        char *k = c ? sked__strndup(l->v[i], (size_t) (c - l->v[i])) : NULL;
        int bad = !k || json_object_set_new(o, k, json_string(c + 2)) != 0;
        free(k);
        if (bad) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

static json_t *dur_json(sked_dur d)
{
    char buf[64];

    if (d == 0)
        return json_null();
    if (sked_dur_format(d, buf, sizeof buf) < 0)
        return json_integer(d / SKED_USEC_PER_SEC);
    return json_string(buf);
}

/* Set every key of table T from N into O; false when out of memory. */
static bool put_table(json_t *o, const fdesc *t, const sked_notifier *n)
{
    for (; t->json; t++) {
        const char *base = (const char *) n + t->off;
        json_t *v;
        switch (t->kind) {
        case K_STR:
            v = *(char *const *) (const void *) base
                    ? json_string(*(char *const *) (const void *) base)
                    : json_null();
            break;
        case K_STRS:
            v = list_json((const sked_strlist *) (const void *) base);
            break;
        case K_KVS:
            v = kvs_json((const sked_strlist *) (const void *) base);
            break;
        default:
            v = dur_json(*(const sked_dur *) (const void *) base);
        }
        if (!v || json_object_set_new(o, t->json, v) != 0)
            return false;
    }
    return true;
}

static bool put_state(json_t *o, const sked_notifier *n)
{
    return json_object_set_new(
               o, "kind", json_string(sked__notifier_kind_name(n->kind))) ==
               0 &&
           json_object_set_new(
               o, "source",
               json_string(n->source == SKED_SOURCE_CODE ? "code" : "api")) ==
               0 &&
           json_object_set_new(
               o, "app", n->app ? json_string(n->app) : json_null()) == 0 &&
           json_object_set_new(o, "created_at",
                               sked__json_instant(n->created_at)) == 0 &&
           json_object_set_new(o, "updated_at",
                               sked__json_instant(n->updated_at)) == 0;
}

json_t *sked__notifier_to_json(const sked_notifier *n, bool state)
{
    json_t *o = json_object(), *k = json_object();
    bool ok = o && k &&
              json_object_set_new(
                  o, "name", n->name ? json_string(n->name) : json_null()) == 0;

    ok = ok && put_table(k, BY_KIND[n->kind], n);
    ok = ok && json_object_set(o, sked__notifier_kind_name(n->kind), k) == 0;
    ok = ok && put_table(o, COMMON, n);
    ok = ok && (!state || put_state(o, n));
    json_decref(k);
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

char *sked__notifier_config_text(const sked_notifier *n)
{
    json_t *k = json_object();
    char *s = k && put_table(k, BY_KIND[n->kind], n) ? sked__json_text(k, NULL)
                                                     : NULL;

    json_decref(k);
    return s;
}

char *sked__notifier_list_text(const sked_strlist *l)
{
    json_t *a;
    char *s;

    if (l->n == 0)
        return NULL;
    a = list_json(l);
    s = a ? sked__json_text(a, NULL) : NULL;
    json_decref(a);
    return s;
}

bool sked__notifier_wants(const sked_notifier *n, const char *type,
                          const char *schedule)
{
    bool typed = false;

    for (size_t i = 0; !typed && i < n->events.n; i++)
        typed = strcmp(n->events.v[i], type) == 0;
    if (!typed)
        return false;
    if (n->schedules.n == 0)
        return true;
    for (size_t i = 0; schedule && i < n->schedules.n; i++)
        if (fnmatch(n->schedules.v[i], schedule, 0) == 0)
            return true;
    return false;
}

/* ---- the schema ----------------------------------------------------------
 */

/* The JSON Schema of a value of kind K, described by HELP. */
static json_t *kind_schema(int k, const char *help)
{
    switch (k) {
    case K_STR:
        return json_pack("{s:s, s:s}", "type", "string", "description", help);
    case K_STRS:
        return json_pack("{s:s, s:{s:s}, s:i, s:s}", "type", "array", "items",
                         "type", "string", "maxItems", SKED_NOTIFY_LIST_MAX,
                         "description", help);
    case K_KVS:
        return json_pack("{s:s, s:{s:s}, s:s}", "type", "object",
                         "additionalProperties", "type", "string",
                         "description", help);
    default:
        return json_pack("{s:[{s:s},{s:s}], s:s}", "oneOf", "type", "string",
                         "type", "integer", "description", help);
    }
}

/* The properties of the table T into a new object; NULL: no memory. */
static json_t *table_props(const fdesc *t, const char *const *help)
{
    json_t *p = json_object();

    for (size_t i = 0; p && t[i].json; i++)
        if (json_object_set_new(p, t[i].json, kind_schema(t[i].kind, help[i])))
            p = NULL; /* the object leaks only when out of memory */
    return p;
}

#define HELP(m, kind, json, help) help,
static const char *const COMMON_HELP[] = {SKED__NOTIFIER_FIELDS(HELP)};
static const char *const KIND_HELP[3][8] = {{SKED__WEBHOOK_FIELDS(HELP)},
                                            {SKED__COMMAND_FIELDS(HELP)},
                                            {SKED__EMAIL_FIELDS(HELP)}};
#undef HELP

json_t *sked__notifier_json_schema(void)
{
    json_t *props = table_props(COMMON, COMMON_HELP);

    if (!props)
        return NULL;
    json_object_set_new(props, "name", kind_schema(K_STR, "its name"));
    for (int k = 0; k < 3; k++)
        json_object_set_new(props, KINDS[k],
                            json_pack("{s:s, s:o, s:b}", "type", "object",
                                      "properties",
                                      table_props(BY_KIND[k], KIND_HELP[k]),
                                      "additionalProperties", 0));
    json_object_set_new(props, "kind",
                        json_pack("{s:s, s:[s,s,s], s:b}", "type", "string",
                                  "enum", "webhook", "command", "email",
                                  "readOnly", 1));
    json_object_set_new(
        props, "source",
        json_pack("{s:s, s:b}", "type", "string", "readOnly", 1));
    json_object_set_new(
        props, "app",
        json_pack("{s:[s,s], s:b}", "type", "string", "null", "readOnly", 1));
    json_object_set_new(props, "created_at",
                        json_pack("{s:s, s:s, s:b}", "type", "string", "format",
                                  "date-time", "readOnly", 1));
    json_object_set_new(props, "updated_at",
                        json_pack("{s:s, s:s, s:b}", "type", "string", "format",
                                  "date-time", "readOnly", 1));
    return json_pack("{s:s, s:s, s:o, s:b}", "description",
                     "a notifier: one of webhook, command or email, the "
                     "event types and schedules it wants; never a secret, "
                     "only where the server reads it",
                     "type", "object", "properties", props,
                     "additionalProperties", 0);
}

void sked__notifier_done(sked_notifier *n)
{
    if (!n)
        return;
    free(n->name);
    sked__strlist_done(&n->events);
    sked__strlist_done(&n->schedules);
    free(n->url);
    sked__strlist_done(&n->headers);
    free(n->body);
    free(n->secret_file);
    free(n->secret_env);
    sked__strlist_done(&n->argv);
    sked__strlist_done(&n->to);
    free(n->from);
    free(n->subject);
    free(n->program);
    free(n->app);
    memset(n, 0, sizeof *n);
}

void sked__notifiers_free(sked_notifier *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        sked__notifier_done(&v[i]);
    free(v);
}
