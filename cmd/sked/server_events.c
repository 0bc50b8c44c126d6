/* SPDX-License-Identifier: MIT */
/* The engine's events as log lines (server_events.h). The table below
 * says, per event type, the level, the message and which payload keys
 * the line carries (all plain ones when the list is empty). A type not
 * in the table is logged at debug with its whole payload, so a new event
 * is never silent when someone asks for debug. Every line says who
 * caused it (the payload's "actor"), last. */
#include "server_events.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

typedef struct event_rule {
    const char *type;
    log_level level;
    const char *msg;
    const char *subject_key; /* the key the subject is logged under */
    const char *const *keys; /* payload keys to log; NULL: every plain one */
} event_rule;

static const char *const missed_keys[] = {"reason", "count", "first", "last",
                                          NULL};
static const char *const sched_def_keys[] = {
    "workflow", "cron", "every", "at", "timezone", "next_fire_at", NULL};
static const char *const sched_state_keys[] = {"next_fire_at", NULL};
static const char *const skip_keys[] = {"occurrence", "by", "reason", NULL};
static const char *const disabled_keys[] = {"reason", "last_error", "error",
                                            NULL};
static const char *const deadline_keys[] = {"occurrence", "run", "deadline",
                                            "state", NULL};
static const char *const run_keys[] = {"schedule", "workflow", "trigger",
                                       "scheduled_for", NULL};

static const char *const run_end_keys[] = {
    "workflow", "schedule", "duration_secs", "error", "error_code", NULL};
static const char *const step_keys[] = {
    "step",      "attempt", "compensation", "duration_secs",
    "exit_code", "error",   "delay_secs",   NULL};
static const char *const timeout_keys[] = {"workflow", "timeout_secs", NULL};

static const char *const notifier_keys[] = {"events", "schedules", NULL};
static const char *const notify_keys[] = {
    "delivery", "attempts", "status", "error", "next_attempt_at", NULL};

static const event_rule rules[] = {
    {"run.created", LOG_INFO, "run created", "run", run_keys},
    {"run.started", LOG_DEBUG, "run started", "run", NULL},
    {"run.completed", LOG_INFO, "run completed", "run", run_end_keys},
    {"run.failed", LOG_WARN, "run failed", "run", run_end_keys},
    {"run.cancelled", LOG_INFO, "run cancelled", "run", run_end_keys},
    {"run.recovered", LOG_WARN, "run recovered", "run", NULL},
    {"run.timeout_exceeded", LOG_WARN, "run over its timeout", "run",
     timeout_keys},
    {"step.started", LOG_DEBUG, "step started", "run", step_keys},
    {"step.completed", LOG_DEBUG, "step completed", "run", step_keys},
    {"step.failed", LOG_WARN, "step failed", "run", step_keys},
    {"step.retrying", LOG_INFO, "step retrying", "run", step_keys},
    {"schedule.occurrences_missed", LOG_WARN, "occurrences missed", "schedule",
     missed_keys},
    {"schedule.deadline_missed", LOG_WARN, "deadline missed", "schedule",
     deadline_keys},
    {"schedule.disabled", LOG_WARN, "schedule disabled", "schedule",
     disabled_keys},
    {"schedule.created", LOG_INFO, "schedule created", "schedule",
     sched_def_keys},
    {"schedule.updated", LOG_INFO, "schedule updated", "schedule",
     sched_def_keys},
    {"schedule.deleted", LOG_INFO, "schedule deleted", "schedule",
     sched_state_keys},
    {"schedule.paused", LOG_INFO, "schedule paused", "schedule",
     sched_state_keys},
    {"schedule.resumed", LOG_INFO, "schedule resumed", "schedule",
     sched_state_keys},
    {"schedule.occurrence_skipped", LOG_INFO, "occurrence skipped", "schedule",
     skip_keys},
    {"schedule.occurrence_unskipped", LOG_INFO, "occurrence unskipped",
     "schedule", skip_keys},
    {"notifier.created", LOG_INFO, "notifier created", "notifier",
     notifier_keys},
    {"notifier.updated", LOG_INFO, "notifier updated", "notifier",
     notifier_keys},
    {"notifier.deleted", LOG_INFO, "notifier deleted", "notifier",
     notifier_keys},
    {"notification.delivered", LOG_DEBUG, "notification delivered", "notifier",
     notify_keys},
    {"notification.retrying", LOG_INFO, "notification retrying", "notifier",
     notify_keys},
    {"notification.failed", LOG_WARN, "notification failed", "notifier",
     notify_keys},
};

static const event_rule *find_rule(const char *type)
{
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
        if (strcmp(rules[i].type, type) == 0)
            return &rules[i];
    return NULL;
}

/* Return true when KEY is a plain word, safe as a logfmt key. */
static int plain_key(const char *key)
{
    size_t n = 0;

    for (; key[n]; n++) {
        char c = key[n];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
            return 0;
    }
    return n > 0 && n <= 64;
}

/* Add the plain value V under KEY to KV[*n], if it fits. */
static void add_value(log_kv *kv, size_t *n, const char *key, json_t *v)
{
    if (*n >= LOG_KV_MAX || !plain_key(key))
        return;
    if (json_is_string(v))
        kv[(*n)++] = LOG_STR(key, json_string_value(v));
    else if (json_is_integer(v))
        kv[(*n)++] = LOG_INT(key, (int64_t) json_integer_value(v));
    else if (json_is_real(v))
        kv[(*n)++] = LOG_REAL(key, json_real_value(v));
    else if (json_is_boolean(v))
        kv[(*n)++] = LOG_STR(key, json_is_true(v) ? "true" : "false");
}

/* Add the payload's values: those named by KEYS, or every plain one. */
static void add_payload(log_kv *kv, size_t *n, json_t *payload,
                        const char *const *keys)
{
    const char *key;
    json_t *v;

    if (!json_is_object(payload))
        return;
    if (keys) {
        for (; *keys; keys++)
            if ((v = json_object_get(payload, *keys)) != NULL)
                add_value(kv, n, *keys, v);
        return;
    }
    json_object_foreach(payload, key, v) add_value(kv, n, key, v);
}

void server_log_event(void *ctx, const sked_event_view *ev)
{
    static const event_rule fallback = {NULL, LOG_DEBUG, NULL, "subject", NULL};
    logger *lg = ctx;
    const event_rule *r = find_rule(ev->type);
    log_kv kv[LOG_KV_MAX];
    json_t *payload = NULL;
    size_t n = 0;

    if (!r)
        r = &fallback;
    if (!log_enabled(lg, r->level))
        return;
    if (ev->subject && ev->subject[0])
        kv[n++] = LOG_STR(r->subject_key, ev->subject);
    if (!r->msg)
        kv[n++] = LOG_STR("event", ev->type);
    if (ev->payload)
        payload = json_loads(ev->payload, JSON_DECODE_ANY, NULL);
    add_payload(kv, &n, payload, r->keys);
    if (r->keys) /* else among every plain key already */
        add_value(kv, &n, "actor", json_object_get(payload, "actor"));
    log_write(lg, r->level, r->msg ? r->msg : "event", kv, n);
    json_decref(payload);
}
