/* SPDX-License-Identifier: MIT */
/* Remote mode's calendars (remote_ops.h): the target_ops of target.h on
 * /api/v1/calendars, a calendar sent as its definition and read back
 * with the model's reader (model/calendar.h), its days and the apply of
 * a workflows file's set, as direct mode returns them from the engine. */
#include "remote_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/answer.h"
#include "engine/request.h"
#include "model/calendar.h"

/* POST (CREATE) the calendar C, or PUT it under its name. */
static int calendar_send(target *t, const sked_calendar *c, bool create,
                         bool *created, sked_error *err)
{
    json_t *body = sked__calendar_to_json(c, true), *answer = NULL;
    char *path = create ? strdup("/api/v1/calendars")
                        : remote_path("/api/v1/calendars", c->name, "");
    int rc;

    if (!create && body)
        json_object_del(body, "name");
    if (!body || !path)
        rc = remote_no_memory(err);
    else
        rc = remote_call(remote_of(t), create ? "POST" : "PUT", path, body,
                         NULL, &answer, err);
    /* The answer is the calendar; PUT tells a new one by its created_at. */
    if (rc == 0 && created)
        *created = json_equal(json_object_get(answer, "created_at"),
                              json_object_get(answer, "updated_at"));
    json_decref(answer);
    json_decref(body);
    free(path);
    return rc;
}

int remote_op_calendar_create(target *t, const sked_calendar *c,
                              sked_error *err)
{
    return calendar_send(t, c, true, NULL, err);
}

int remote_op_calendar_put(target *t, const sked_calendar *c, bool *created,
                           sked_error *err)
{
    return calendar_send(t, c, false, created, err);
}

int remote_op_calendar_get(target *t, const char *name, sked_calendar *out,
                           sked_error *err)
{
    json_t *j = NULL;
    sked_error perr;
    int rc = remote_get_json(
        remote_of(t), remote_path("/api/v1/calendars", name, ""), &j, err);

    sked_error_clear(&perr);
    if (rc == 0 &&
        sked__calendar_from_json(j, SKED__CALENDAR_JSON_STATE, out, &perr) != 0)
        rc = remote_bad_answer("a calendar", err);
    json_decref(j);
    return rc;
}

int remote_op_calendar_list(target *t, sked_calendar **out, size_t *n,
                            sked_error *err)
{
    json_t *j = NULL, *a, *x;
    sked_error perr;
    size_t i, k = 0;
    int rc =
        remote_get_json(remote_of(t), strdup("/api/v1/calendars"), &j, err);

    *out = NULL;
    *n = 0;
    a = json_object_get(j, "calendars");
    if (rc == 0 && !json_is_array(a))
        rc = remote_bad_answer("a list of calendars", err);
    if (rc == 0 && json_array_size(a) > 0 &&
        !(*out = calloc(json_array_size(a), sizeof **out)))
        rc = remote_no_memory(err);
    sked_error_clear(&perr);
    json_array_foreach(a, i, x)
    {
        if (rc != 0)
            break;
        if (sked__calendar_from_json(x, SKED__CALENDAR_JSON_STATE, &(*out)[i],
                                     &perr) != 0)
            rc = remote_bad_answer("a list of calendars", err);
        else
            k++;
    }
    json_decref(j);
    if (rc != 0) {
        sked_calendars_free(*out, k);
        *out = NULL;
        return rc;
    }
    *n = k;
    return 0;
}

int remote_op_calendar_delete(target *t, const char *name, sked_error *err)
{
    char *path = remote_path("/api/v1/calendars", name, "");
    int rc;

    if (!path)
        return remote_no_memory(err);
    rc = remote_call(remote_of(t), "DELETE", path, NULL, NULL, NULL, err);
    free(path);
    return rc;
}

/* The answer's days A into *out, *n. */
static int days_read(const json_t *a, sked_calendar_day **out, size_t *n,
                     sked_error *err)
{
    sked_error perr;
    size_t i;
    json_t *x;

    if (!json_is_array(a))
        return remote_bad_answer("a list of days", err);
    if (json_array_size(a) > 0 &&
        !(*out = calloc(json_array_size(a), sizeof **out)))
        return remote_no_memory(err);
    sked_error_clear(&perr);
    json_array_foreach(a, i, x)
    {
        sked_calendar_day *d = &(*out)[i];
        if (sked_date_parse(json_string_value(json_object_get(x, "date")),
                            "date", &d->day, &perr) != 0)
            return remote_bad_answer("a list of days", err);
        d->in_set = json_is_true(json_object_get(x, "holiday"));
        d->business = json_is_true(json_object_get(x, "business"));
    }
    *n = json_array_size(a);
    return 0;
}

int remote_op_calendar_days(target *t, const char *name,
                            const sked_calendar_days_query *q,
                            sked_calendar_day **out, size_t *n, sked_error *err)
{
    char from[16], to[16], suffix[64];
    json_t *j = NULL;
    int rc;

    *out = NULL;
    *n = 0;
    (void) sked_date_format(q->from, from, sizeof from);
    (void) sked_date_format(q->to, to, sizeof to);
    snprintf(suffix, sizeof suffix, "/days?from=%s&to=%s&business=%s", from, to,
             q->business ? "true" : "false");
    rc = remote_get_json(
        remote_of(t), remote_path("/api/v1/calendars", name, suffix), &j, err);
    if (rc == 0 && (rc = days_read(json_object_get(j, "days"), out, n, err))) {
        free(*out);
        *out = NULL;
    }
    json_decref(j);
    return rc;
}

int remote_op_calendar_apply(target *t, const target_calendar_apply *a,
                             sked_apply_result *res, sked_error *err)
{
    /* The writer only reads the set. */
    const sked__calendar_apply_request req = {(sked_calendar *) a->set, a->n,
                                              a->prune, a->app};
    json_t *body = sked__request_calendar_apply(&req, err), *j = NULL;
    int rc;

    if (!body)
        return err->code ? err->code : remote_no_memory(err);
    rc = remote_call(remote_of(t), "PUT", "/api/v1/calendars", body, NULL, &j,
                     err);
    json_decref(body);
    if (rc == 0 && sked__answer_apply_read(j, res) != 0)
        rc = remote_bad_answer("an apply's counts", err);
    json_decref(j);
    return rc;
}
