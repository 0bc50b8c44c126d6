/* SPDX-License-Identifier: MIT */
/* The notifiers in remote mode (remote_ops.h): each operation of
 * target_notify one request of the API (docs/api.md), the answer handed
 * back as its JSON text, as direct mode hands back the engine's; and the
 * apply of a workflows file's set (PUT /api/v1/notifiers). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/error.h"
#include "engine/answer.h"
#include "engine/request.h"
#include "remote_ops.h"

/* The path of Q (free), or NULL when out of memory. */
static char *path_of(const target_notify *q)
{
    if (q->op == TARGET_NOTIFY_LIST)
        return strdup("/api/v1/notifiers");
    if (q->op != TARGET_NOTIFY_LOG)
        return remote_path("/api/v1/notifiers", q->name, "");
    if (q->name)
        return remote_path("/api/v1/notifiers", q->name, "/deliveries");
    return strdup("/api/v1/deliveries");
}

/* Append the query of a log to *path. */
static bool add_query(const target_notify *q, char **path)
{
    char query[80], *p;

    (void) snprintf(query, sizeof query, "?limit=%zu&before=%lld",
                    q->limit ? q->limit : 100, (long long) q->before);
    p = realloc(*path, strlen(*path) + strlen(query) + 1);
    if (!p)
        return false;
    strcat(p, query);
    *path = p;
    return true;
}

int remote_notify(remote *r, const target_notify *q, char **out,
                  sked_error *err)
{
    static const char *const methods[] = {"GET", "GET", "PUT", "DELETE", "GET"};
    char *path = path_of(q), *text = NULL;
    json_t *body = NULL, *answer = NULL;
    json_error_t je;
    int rc;

    if (!path || (q->op == TARGET_NOTIFY_LOG && !add_query(q, &path))) {
        free(path);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, "out of memory");
    }
    if (q->op == TARGET_NOTIFY_PUT &&
        !(body = json_loads(q->json ? q->json : "", 0, &je))) {
        free(path);
        return sked__error_set(err, SKED_EINVAL, NULL, -1, "not JSON: %s",
                               je.text);
    }
    rc = remote_call(r, methods[q->op], path, body, NULL, &answer, err);
    free(path);
    json_decref(body);
    if (rc == 0 && out && q->op != TARGET_NOTIFY_DELETE) {
        text = answer ? json_dumps(answer, JSON_COMPACT) : NULL;
        if (!text)
            rc = remote_bad_answer("a notifier's JSON", err);
        else
            *out = text;
    }
    if (rc == 0 && q->created)
        *q->created = false; /* the API's 201 is not passed on */
    json_decref(answer);
    return rc;
}

int remote_notifier_apply(remote *r, const target_notifier_apply *a,
                          sked_apply_result *res, sked_error *err)
{
    json_error_t je;
    json_t *set = json_loads(a->set ? a->set : "", 0, &je), *body, *j = NULL;
    sked__notifier_apply_request req = {set, a->prune, a->app};
    int rc;

    if (!set)
        return sked__error_set(err, SKED_EINVAL, "notifiers", -1,
                               "not JSON: %s", je.text);
    body = sked__request_notifier_apply(&req, err);
    json_decref(set);
    if (!body)
        return err->code ? err->code
                         : sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    rc = remote_call(r, "PUT", "/api/v1/notifiers", body, NULL, &j, err);
    json_decref(body);
    if (rc == 0 && sked__answer_apply_read(j, res) != 0)
        rc = remote_bad_answer("an apply's counts", err);
    json_decref(j);
    return rc;
}
