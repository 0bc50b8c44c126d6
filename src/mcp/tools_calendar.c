/* SPDX-License-Identifier: MIT */
/* The schemas of the calendar tools (tools.c's table, docs/mcp.md): the
 * calendar object as the API shows it, written from the calendar's field
 * table (model/calendar.h), so the tools take and answer exactly what
 * /api/v1/calendars does. */
#include <string.h>

#include "mcp/tools_int.h"
#include "model/calendar.h"

/* The calendar object's properties; WRITABLE: without the read-only
 * ones (what the store keeps). */
static json_t *calendar_props(bool writable)
{
    json_t *schema = sked__calendar_json_schema(), *props, *out, *v;
    const char *key;

    props = json_object_get(schema, "properties");
    out = props ? json_object() : NULL;
    json_object_foreach(props, key, v)
    {
        if (writable && json_is_true(json_object_get(v, "readOnly")))
            continue;
        if (json_object_set(out, key, v) != 0) {
            json_decref(out);
            out = NULL;
            break;
        }
    }
    json_decref(schema);
    return out;
}

static json_t *with_calendar_name(json_t *props, const char *desc)
{
    if (props &&
        json_object_set_new(props, "name",
                            json_pack("{s:s, s:s, s:s, s:i}", "type", "string",
                                      "description", desc, "pattern",
                                      "^[A-Za-z0-9._-]+$", "maxLength",
                                      SKED_NAME_MAX)) != 0) {
        json_decref(props);
        return NULL;
    }
    return props;
}

json_t *sked__mcp_calendar_in_put(void)
{
    return sked__mcp_object(
        with_calendar_name(calendar_props(true),
                           "the calendar to create or replace"),
        (const char *const[]){"name", NULL}, true);
}

json_t *sked__mcp_calendar_in_name(void)
{
    return sked__mcp_object(
        with_calendar_name(json_object(), "the calendar's name"),
        (const char *const[]){"name", NULL}, true);
}

json_t *sked__mcp_calendar_in_days(void)
{
    json_t *props = json_pack(
        "{s:{s:s, s:s, s:s}, s:{s:s, s:s, s:s}, s:{s:s, s:s}}", "from", "type",
        "string", "format", "date", "description",
        "the first day, YYYY-MM-DD (default today, UTC)", "to", "type",
        "string", "format", "date", "description",
        "the last day (default a year after from; at most 3660 days)",
        "business", "type", "boolean", "description",
        "true: the business days (its weekdays not among its days); false "
        "(default): the calendar's days");

    return sked__mcp_object(
        with_calendar_name(props, "the calendar whose days to list"),
        (const char *const[]){"name", NULL}, true);
}

json_t *sked__mcp_calendar_schema(void)
{
    return sked__mcp_object(calendar_props(false),
                            (const char *const[]){"name", NULL}, false);
}

json_t *sked__mcp_calendar_list_schema(void)
{
    json_t *item = sked__mcp_calendar_schema();

    return sked__mcp_list_of("calendars", item);
}

json_t *sked__mcp_calendar_days_schema(void)
{
    json_t *item =
        json_pack("{s:s, s:{s:{s:s, s:s}, s:{s:s}, s:{s:s}}}", "type", "object",
                  "properties", "date", "type", "string", "format", "date",
                  "holiday", "type", "boolean", "business", "type", "boolean");

    return sked__mcp_object(
        item ? json_pack("{s:{s:s}, s:{s:s, s:o}}", "calendar", "type",
                         "string", "days", "type", "array", "items", item)
             : NULL,
        (const char *const[]){"calendar", "days", NULL}, false);
}

json_t *sked__mcp_calendar_deleted_schema(void)
{
    return sked__mcp_object(
        json_pack("{s:{s:s}, s:{s:s, s:s}}", "name", "type", "string",
                  "deleted", "type", "boolean", "description",
                  "true: the calendar is gone (also when it did not exist)"),
        (const char *const[]){"name", "deleted", NULL}, false);
}
