/* SPDX-License-Identifier: MIT */
/* Notifiers in the workflows file (docs/notifications.md): the top-level
 * "notifiers" mapping, name to notifier.
 *
 *   notifiers:
 *     ops-hook:
 *       webhook: {url: "http://127.0.0.1:9000/hook",
 *                 secret_file: /etc/sked/hook.secret}
 *       events: [run.failed, schedule.deadline_missed]
 *       schedules: ["nightly-*"]
 *
 * A notifier's keys are the API's: its mapping is read as the JSON
 * object a PUT /api/v1/notifiers/{name} takes, by the model's one reader
 * (model/notifier.c, driven by the field tables), and checked by its
 * validation, so the file and the API say the same of the same value;
 * an error points at the key it names. A secret_file is looked at as
 * the file is loaded: one the server cannot read is an error there, not
 * a failed delivery hours later. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "engine/workflow_file_int.h"
#include "model/notifier.h"

/* Report the model's error E about the notifier MAP at the key its field
 * names ("webhook" of "webhook.url"). */
/* Read the notifier NAME, the mapping MAP, into *n. */
static int read_notifier(parser *p, const char *name, struct fy_node *map,
                         sked_notifier *n)
{
    json_t *obj = NULL;
    sked_error e;
    int rc;

    if (!fy_node_is_mapping(map))
        return sked__wf_fail(p, map, "expected a mapping, found %s",
                             sked__wf_node_kind(map));
    if (sked__wf_find_pair(map, "name"))
        return sked__wf_fail_at_key(p, map, "name",
                                    "a notifier's name is its key");
    if ((rc = sked__wf_to_json(p, map, 0, &obj)) < 0)
        return rc;
    if (json_object_set_new(obj, "name", json_string(name)) != 0) {
        json_decref(obj);
        return sked__wf_fail_nomem(p);
    }
    sked_error_clear(&e);
    rc = sked__notifier_from_json(obj, 0, n, &e);
    json_decref(obj);
    if (rc == 0 && (rc = sked__notifier_validate(n, &e)) != 0)
        sked__notifier_done(n);
    if (rc != 0)
        return sked__wf_fail_model(p, map, &e);
    if (n->secret_file && access(n->secret_file, R_OK) != 0) {
        sked_error_clear(&e);
        (void) sked__error_set(&e, SKED_EINVAL, "webhook.secret_file", -1,
                               "%s cannot be read", n->secret_file);
        sked__notifier_done(n);
        return sked__wf_fail_model(p, map, &e);
    }
    n->source = SKED_SOURCE_CODE;
    return 0;
}

int sked__wf_read_notifiers(parser *p, struct fy_node *v, void *obj)
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
                             "expected a mapping of names to notifiers, "
                             "found %s",
                             sked__wf_node_kind(v));
    n = (size_t) fy_node_mapping_item_count(v);
    if (n > 0 && !(f->notifiers = sked__calloc(n, sizeof *f->notifiers)))
        return sked__wf_fail_nomem(p);
    while ((pair = fy_node_mapping_iterate(v, &it)) != NULL) {
        struct fy_node *key = fy_node_pair_key(pair);

        if ((rc = sked__wf_scalar_text(p, key, "a name", &name)) < 0)
            return rc;
        p->mark = sked__wf_node_mark(p, key);
        old = sked__wf_path_push_key(p, name, strlen(name));
        rc = (why = sked__wf_name_problem(name))
                 ? sked__wf_fail(p, key, "%s", why)
                 : read_notifier(p, name, fy_node_pair_value(pair),
                                 &f->notifiers[f->n_notifiers]);
        sked__wf_path_pop(p, old);
        if (rc < 0)
            return rc;
        f->n_notifiers++;
    }
    return 0;
}
