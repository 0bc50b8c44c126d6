/* SPDX-License-Identifier: MIT */
/* The server's log of its database's health (server_health.h). */
#include "server_health.h"

#include <stdio.h>

#include "base/clock.h"

health_line health_decide(health_log *s, bool failing, const sked_fault *f,
                          sked_mono now)
{
    if (!failing) {
        if (!s->failing)
            return HEALTH_QUIET;
        s->failing = false;
        s->at = now;
        return HEALTH_RECOVERED;
    }
    /* A new episode, even one that began and ended between two looks
     * and began again, is told as new, and so is a new cause within one
     * (a file read-only, then deleted). */
    if (!s->failing || s->episode != f->episode || s->code != f->code) {
        s->failing = true;
        s->episode = f->episode;
        s->code = f->code;
        s->since = f->since;
        s->at = now;
        return HEALTH_FAILING;
    }
    if (now - s->at < HEALTH_REMIND)
        return HEALTH_QUIET;
    s->at = now;
    return HEALTH_STILL;
}

void health_check(health_log *s, sked_engine *e, logger *lg)
{
    sked_fault f = {0};
    bool failing = sked_engine_failing(e, &f);
    sked_time since = s->since;
    char at[SKED_TIME_STRLEN];

    switch (health_decide(s, failing, &f, sked__clock_mono(NULL))) {
    case HEALTH_FAILING:
        log_write(lg, LOG_ERROR, "database failing",
                  (log_kv[]){LOG_STR("op", f.op),
                             LOG_STR("kind", sked_error_name(f.code)),
                             LOG_STR("error", f.msg),
                             LOG_STR("retry", "with backoff, up to 10s")},
                  4);
        break;
    case HEALTH_STILL:
        if (sked_time_format(f.since, at, sizeof at) < 0)
            snprintf(at, sizeof at, "?");
        log_write(lg, LOG_ERROR, "database still failing",
                  (log_kv[]){LOG_STR("op", f.op),
                             LOG_STR("kind", sked_error_name(f.code)),
                             LOG_STR("error", f.msg), LOG_STR("since", at),
                             LOG_INT("failures", (int64_t) f.failures)},
                  5);
        break;
    case HEALTH_RECOVERED:
        log_write(lg, LOG_INFO, "database recovered",
                  (log_kv[]){
                      LOG_REAL("failed_seconds",
                               (double) (sked__clock_now(NULL) - since) / 1e6)},
                  1);
        break;
    case HEALTH_QUIET:
        break;
    }
}
