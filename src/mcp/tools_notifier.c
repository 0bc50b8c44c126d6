/* SPDX-License-Identifier: MIT */
/* The schemas of the notifier tools and of ping_schedule (tools.c's
 * table, docs/mcp.md): the notifier object as /api/v1/notifiers shows it,
 * written from the notifier's field tables (model/notifier.h), so that
 * apply_notifier takes exactly the object the API's PUT does; a delivery
 * of the notify log; the arguments of a ping. Every value is checked by
 * the API (the engine), which names the field of a fault: these schemas
 * describe, they add no rule of their own. */
#include <string.h>

#include "mcp/tools_int.h"
#include "model/notifier.h"
#include "sked/engine.h"

/* What each kind's object is, for a client that reads the schema: the
 * model's schema has only the properties. */
static const struct {
    const char *key, *desc;
} kinds[] = {
    {"webhook", "a webhook: POST each event to url (give one of webhook, "
                "command or email); secret_file or secret_env names where the "
                "server reads the signing secret, never the secret itself"},
    {"command", "a command: run argv (no shell) with the event's JSON on its "
                "standard input (give one of webhook, command or email)"},
    {"email", "an email: send the event to the recipients through a "
              "sendmail-compatible program (give one of webhook, command or "
              "email)"},
};

/* Let the property P (a JSON Schema, changed in place) be null too: an
 * answer shows a key not set as null. Returns 0, or -1 out of memory. */
static int nullable(json_t *p)
{
    json_t *type = json_object_get(p, "type"),
           *of = json_object_get(p, "oneOf");
    json_t *sub = json_object_get(p, "properties"), *v;
    const char *key;

    json_object_foreach(sub, key, v) if (nullable(v) != 0) return -1;
    if (json_is_array(of))
        return json_array_append_new(of, json_pack("{s:s}", "type", "null"));
    if (json_is_string(type))
        return json_object_set_new(
            p, "type", json_pack("[s, s]", json_string_value(type), "null"));
    return 0;
}

/* The notifier object's properties; WRITABLE: without the read-only
 * ones (what the server keeps), else each may be null, as answers show
 * a key not set. NULL when out of memory. */
static json_t *notifier_props(bool writable)
{
    json_t *schema = sked__notifier_json_schema(), *props, *out, *v;
    const char *key;

    props = json_object_get(schema, "properties");
    out = props ? json_object() : NULL;
    json_object_foreach(props, key, v)
    {
        if (!out || (writable && json_is_true(json_object_get(v, "readOnly"))))
            continue;
        for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
            if (strcmp(key, kinds[i].key) == 0 &&
                json_object_set_new(v, "description",
                                    json_string(kinds[i].desc)) != 0)
                v = NULL;
        if (v && !writable && strcmp(key, "name") != 0 && nullable(v) != 0)
            v = NULL;
        if (!v || json_object_set(out, key, v) != 0) {
            json_decref(out);
            out = NULL;
        }
    }
    json_decref(schema);
    return out;
}

/* PROPS with "name" (a notifier's, a schedule's: the same rule),
 * described as DESC, under KEY. */
static json_t *with_name(json_t *props, const char *key, const char *desc)
{
    if (props &&
        json_object_set_new(props, key,
                            json_pack("{s:s, s:s, s:s, s:i}", "type", "string",
                                      "description", desc, "pattern",
                                      "^[A-Za-z0-9._-]+$", "maxLength",
                                      SKED_NAME_MAX)) != 0) {
        json_decref(props);
        return NULL;
    }
    return props;
}

json_t *sked__mcp_notifier_in_apply(void)
{
    return sked__mcp_object(
        with_name(notifier_props(true), "name",
                  "the notifier to create, or to replace when it exists"),
        (const char *const[]){"name", NULL}, true);
}

json_t *sked__mcp_notifier_in_name(void)
{
    return sked__mcp_object(
        with_name(json_object(), "name", "the notifier's name"),
        (const char *const[]){"name", NULL}, true);
}

json_t *sked__mcp_deliveries_in(void)
{
    json_t *props = json_pack(
        "{s:{s:s, s:s, s:i}, s:{s:s, s:s, s:i, s:i, s:i}}", "before", "type",
        "integer", "description",
        "only deliveries with an id below this one (the id of the last of a "
        "page, for the next page; default: the newest)",
        "minimum", 0, "limit", "type", "integer", "description",
        "how many deliveries at most", "minimum", 1, "maximum",
        SKED_ENGINE_LIST_MAX, "default", 100);

    return sked__mcp_object(
        with_name(props, "notifier",
                  "only this notifier's deliveries (default: every one's)"),
        NULL, true);
}

json_t *sked__mcp_ping_in(void)
{
    json_t *props = json_pack(
        "{s:{s:s, s:[s, s, s], s:s, s:s}, s:{s:s, s:s}}", "status", "type",
        "string", "enum", "start", "success", "fail", "default", "success",
        "description",
        "what the watched job did: start (it began), success (it finished "
        "well: the run completes) or fail (the run fails, error_code "
        "ping_failed)",
        "body", "type", "string", "description",
        "what the job says (UTF-8 text, at most 64 KiB): kept as the run's "
        "output");

    return sked__mcp_object(
        with_name(props, "name", "the heartbeat schedule to ping"),
        (const char *const[]){"name", NULL}, true);
}

json_t *sked__mcp_notifier_schema(void)
{
    return sked__mcp_object(notifier_props(false),
                            (const char *const[]){"name", NULL}, false);
}

json_t *sked__mcp_notifier_list_schema(void)
{
    json_t *item = sked__mcp_notifier_schema();

    return sked__mcp_list_of("notifiers", item);
}

json_t *sked__mcp_deliveries_schema(void)
{
    json_t *item = json_pack(
        "{s:s, s:{s:{s:s}, s:{s:s, s:s}, s:{s:s}, s:{s:s}, s:{s:s, s:[s, s, "
        "s]}, s:{s:s}, s:{s:[s, s]}, s:{s:[s, s]}, s:{s:[s, s]}, s:{s:s}, "
        "s:{s:[s, s]}, s:{s:s, s:s}}}",
        "type", "object", "properties", "id", "type", "integer", "delivery",
        "type", "string", "description",
        "the idempotency id a receiver sees: <event id>-<notifier>", "event_id",
        "type", "integer", "notifier", "type", "string", "state", "type",
        "string", "enum", "pending", "delivered", "failed", "attempts", "type",
        "integer", "next_attempt_at", "type", "string", "null", "last_error",
        "type", "string", "null", "last_status", "type", "integer", "null",
        "created_at", "type", "string", "delivered_at", "type", "string",
        "null", "event", "type", "object", "description", "the event as sent");

    return sked__mcp_object(
        item ? json_pack("{s:{s:s, s:s, s:o}}", "deliveries", "type", "array",
                         "description", "newest first", "items", item)
             : NULL,
        (const char *const[]){"deliveries", NULL}, false);
}

json_t *sked__mcp_notifier_deleted_schema(void)
{
    return sked__mcp_object(
        json_pack("{s:{s:s}, s:{s:s, s:s}}", "name", "type", "string",
                  "deleted", "type", "boolean", "description",
                  "true: the notifier is gone, its pending deliveries failed"),
        (const char *const[]){"name", "deleted", NULL}, false);
}
