/* SPDX-License-Identifier: MIT */
/* Calendars in the workflows file (SPEC 10, 12; docs/calendars.md): the
 * top-level "calendars" mapping, name to calendar.
 *
 *   calendars:
 *     us-federal:
 *       rules: ["FREQ=YEARLY;BYMONTH=7;BYMONTHDAY=4", ...]
 *       observed: nearest_weekday
 *     office:
 *       include: [us-federal]
 *       dates: [2026-12-24]
 *       ics: |
 *         BEGIN:VCALENDAR ...
 *
 * A calendar's keys are the API's: its mapping is read as the JSON object
 * a POST /api/v1/calendars takes, by the model's one reader, and checked
 * by sked_calendar_validate, so the file, the CLI and the API say the
 * same of the same value; an error points at the key it names
 * ("calendars.office.dates: dates[1]: 2026-02 has no day 30"). Includes
 * are resolved when the file's calendars are written, among them and the
 * stored ones. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "engine/workflow_file_int.h"
#include "model/calendar.h"

/* Report the model's error E about the calendar MAP: at the key its field
 * names ("dates" of "dates[1]"), with the field and message. */
/* Read the calendar NAME, the mapping MAP, into *c. */
static int read_calendar(parser *p, const char *name, struct fy_node *map,
                         sked_calendar *c)
{
    json_t *obj = NULL;
    sked_error e;
    int rc;

    if (!fy_node_is_mapping(map))
        return sked__wf_fail(p, map, "expected a mapping, found %s",
                             sked__wf_node_kind(map));
    if (sked__wf_find_pair(map, "name"))
        return sked__wf_fail_at_key(p, map, "name",
                                    "a calendar's name is its key");
    if ((rc = sked__wf_to_json(p, map, 0, &obj)) < 0)
        return rc;
    if (json_object_set_new(obj, "name", json_string(name)) != 0) {
        json_decref(obj);
        return sked__wf_fail_nomem(p);
    }
    sked_error_clear(&e);
    rc = sked__calendar_from_json(obj, 0, c, &e);
    json_decref(obj);
    if (rc == 0 && (rc = sked_calendar_validate(c, &e)) != 0)
        sked_calendar_done(c);
    if (rc != 0)
        return sked__wf_fail_model(p, map, &e);
    c->source = SKED_SOURCE_CODE;
    return 0;
}

int sked__wf_read_calendars(parser *p, struct fy_node *v, void *obj)
{
    sked_wf_file *f = obj;
    struct fy_node_pair *pair;
    void *it = NULL;
    const char *why;
    size_t n, old;
    char *name;
    int rc;

    if (!fy_node_is_mapping(v))
        return sked__wf_fail(p, v,
                             "expected a mapping of names to calendars, "
                             "found %s",
                             sked__wf_node_kind(v));
    n = (size_t) fy_node_mapping_item_count(v);
    if (n > 0 &&
        (!(f->calendars = sked__calloc(n, sizeof *f->calendars)) ||
         !(f->calendar_where = sked__calloc(n, sizeof *f->calendar_where))))
        return sked__wf_fail_nomem(p);
    while ((pair = fy_node_mapping_iterate(v, &it)) != NULL) {
        struct fy_node *key = fy_node_pair_key(pair);

        if ((rc = sked__wf_scalar_text(p, key, "a name", &name)) < 0)
            return rc;
        p->mark = sked__wf_node_mark(p, key);
        old = sked__wf_path_push_key(p, name, strlen(name));
        /* Where it stands, for the errors its write finds (an include). */
        f->calendar_where[f->n_calendars] = (sked_wf_where){
            .line = p->mark.line + 1, .column = p->mark.column + 1};
        (void) snprintf(f->calendar_where[f->n_calendars].path,
                        sizeof f->calendar_where[f->n_calendars].path, "%s",
                        p->path);
        rc = (why = sked__wf_name_problem(name))
                 ? sked__wf_fail(p, key, "%s", why)
                 : read_calendar(p, name, fy_node_pair_value(pair),
                                 &f->calendars[f->n_calendars]);
        sked__wf_path_pop(p, old);
        if (rc < 0)
            return rc;
        f->n_calendars++;
    }
    return 0;
}
