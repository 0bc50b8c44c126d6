/* SPDX-License-Identifier: MIT */
/* Notifiers (docs/notifications.md): where chosen events go, and which.
 *
 * Words: a notifier is a webhook, a command or an email sink with the
 * event types and the schedules it wants; a delivery is one event sent
 * to one notifier, at least once, with the idempotency id
 * "<event id>-<notifier>". A notifier never holds a secret, only where
 * the server reads it (secret_file, secret_env), so no answer, event or
 * log can show one.
 *
 * The JSON object is the API's and the workflows file's, read and
 * written by the field tables of notifier_fields.h:
 *   {"name", "webhook"|"command"|"email": {...}, "events": [...],
 *    "schedules": [...], "retry_for": "24h"}
 * and, written back, "kind", "source", "app", "created_at",
 * "updated_at". */
#ifndef SKED_MODEL_NOTIFIER_H
#define SKED_MODEL_NOTIFIER_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "sked/calendar.h"
#include "sked/error.h"
#include "sked/time.h"

#define SKED_NOTIFY_RETRY_DEFAULT   (24 * 3600 * SKED_USEC_PER_SEC)
#define SKED_NOTIFY_RETRY_MAX       (30 * 24 * 3600 * SKED_USEC_PER_SEC)
#define SKED_NOTIFY_TIMEOUT_DEFAULT (10 * SKED_USEC_PER_SEC)
#define SKED_NOTIFY_TIMEOUT_MAX     (300 * SKED_USEC_PER_SEC)
#define SKED_NOTIFY_SENDMAIL        "/usr/sbin/sendmail"
/* Bounds of a notifier's lists and texts: a notifier is configuration,
 * and every list is walked for every notifiable event. */
#define SKED_NOTIFY_LIST_MAX 64
#define SKED_NOTIFY_TEXT_MAX 8192

typedef enum sked_notifier_kind {
    SKED_NOTIFIER_WEBHOOK = 0,
    SKED_NOTIFIER_COMMAND = 1,
    SKED_NOTIFIER_EMAIL = 2,
} sked_notifier_kind;

typedef struct sked_notifier {
    char *name; /* owned, as every pointer below; NULL: unset */
    sked_notifier_kind kind;
    sked_strlist events;
    sked_strlist schedules; /* none: every schedule */
    sked_dur retry_for;     /* 0: the default */
    /* webhook */
    char *url;
    sked_strlist headers; /* "Name: value" */
    char *body;
    char *secret_file, *secret_env;
    /* command */
    sked_strlist argv;
    /* email */
    sked_strlist to;
    char *from, *subject, *program;
    sked_dur timeout; /* 0: the default; of any kind */
    /* state */
    int source; /* a sked_source */
    char *app;
    sked_time created_at, updated_at;
} sked_notifier;

/* The kind's name ("webhook") and its reverse (-1: none). */
const char *sked__notifier_kind_name(sked_notifier_kind k);
int sked__notifier_kind_parse(const char *s);

/* Whether events of TYPE may be notified (SPEC 5, issue 19). */
bool sked__notify_event_known(const char *type);

/* Accept the state keys (kind, source, app, created_at, updated_at). */
#define SKED__NOTIFIER_JSON_STATE 0x1u

/* Read the object O into *out (zeroed first; sked__notifier_done).
 * Unknown keys, wrong types and bad durations are SKED_EINVAL with
 * err->field naming the key ("webhook.url", "events[2]"). */
int sked__notifier_from_json(const json_t *o, unsigned flags,
                             sked_notifier *out, sked_error *err);

/* Check N as a write wants it: its name, one kind with what it needs,
 * known event types, bounded lists and durations. SKED_EINVAL naming
 * the field. */
int sked__notifier_validate(const sked_notifier *n, sked_error *err);

/* The object of N (with the state when STATE); a new reference, NULL
 * when out of memory. */
json_t *sked__notifier_to_json(const sked_notifier *n, bool state);

/* The kind's settings of N as JSON text (the row's config), and N's
 * lists as JSON arrays (schedules: NULL when none); owned, NULL when
 * out of memory. */
char *sked__notifier_config_text(const sked_notifier *n);
char *sked__notifier_list_text(const sked_strlist *l);

/* Whether N wants the event TYPE of SCHEDULE (NULL: the event has
 * none, which a notifier naming schedules does not want). */
bool sked__notifier_wants(const sked_notifier *n, const char *type,
                          const char *schedule);

/* The JSON Schema of the object, from the field tables (the OpenAPI
 * document's); a new reference, NULL when out of memory. */
json_t *sked__notifier_json_schema(void);

void sked__notifier_done(sked_notifier *n);
void sked__notifiers_free(sked_notifier *v, size_t n);

#endif
