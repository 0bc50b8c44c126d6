/* SPDX-License-Identifier: MIT */
/* Pings of heartbeat schedules (sked/engine.h): a job that runs elsewhere
 * (a crontab line, a script) says it started, ended well or failed, and
 * the run of its occurrence records it (store_deadline.c). The body is
 * the run's output: JSON is kept as JSON, other text as it is. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/utf8.h"
#include "engine/engine_int.h"
#include "model/run.h"

int sked_ping_status_parse(const char *word, sked_ping_status *out)
{
    static const char *const words[] = {"start", "success", "fail"};

    for (int i = 0; word && i < 3; i++)
        if (strcmp(word, words[i]) == 0) {
            *out = (sked_ping_status) i;
            return 0;
        }
    return SKED_EINVAL;
}

/* Check BODY (LEN bytes): at most SKED_PING_BODY_MAX, valid UTF-8. */
static int body_check(const char *body, size_t len, sked_error *err)
{
    if (len > SKED_PING_BODY_MAX)
        return sked__error_set(err, SKED_ETOOBIG, "body", -1,
                               "is longer than %d bytes", SKED_PING_BODY_MAX);
    if (memchr(body, '\0', len))
        return sked__error_set(err, SKED_EINVAL, "body", -1,
                               "holds a NUL byte");
    for (size_t i = 0, k; i < len; i += k)
        if ((k = sked__utf8_len(body + i, len - i)) == 0)
            return sked__error_set(err, SKED_EINVAL, "body", (long) i,
                                   "is not valid UTF-8 at byte %zu", i + 1);
    return 0;
}

int sked_engine_schedule_ping(sked_engine *e, const char *name,
                              sked_ping_status status, const char *body,
                              size_t body_len, char **out_run_id,
                              sked_error *err)
{
    char *text = NULL;
    sked_event *ev = NULL;
    size_t nev = 0;
    sked_run run;
    int rc;

    if (!e || !name || !name[0])
        return sked__error_set(err, SKED_EINVAL, "name", -1, "is required");
    if ((int) status < 0 || status > SKED_PING_FAIL)
        return sked__error_set(err, SKED_EINVAL, "status", -1,
                               "must be start, success or fail");
    if (body && body_len > 0) {
        if ((rc = body_check(body, body_len, err)) != 0)
            return rc;
        if (!(text = sked__strndup(body, body_len)))
            return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    rc = sked__store_heartbeat_ping(e->store, name, status, text, &run, &ev,
                                    &nev, err);
    free(text);
    if (rc != 0)
        return rc;
    if (nev > 0)
        sked__engine_deliver(e, ev, nev);
    sked__events_free(ev, nev);
    if (out_run_id) {
        *out_run_id = run.id;
        run.id = NULL;
    }
    sked__run_done(&run);
    return 0;
}
