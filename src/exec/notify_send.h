/* SPDX-License-Identifier: MIT */
/* One attempt at a notification (docs/notifications.md): the event, as
 * JSON text, sent to a notifier once.
 *
 * - webhook: POST to the URL (http_step.h: no redirects, bounded time),
 *   body the template or the event's JSON, headers Content-Type,
 *   Sked-Event, Sked-Delivery (the idempotency id) and, with a secret,
 *   Sked-Signature: t=UNIX_SECONDS,v1=HEX, HEX the HMAC-SHA256 of
 *   "t.body" under the secret (as Stripe signs its webhooks). A 2xx is
 *   delivered; anything else a failed attempt, its status kept.
 * - command: argv run without a shell (proc.h), the event's JSON on
 *   stdin, in the steps' base environment (step_env.h: none of the
 *   server's variables, so none of its secrets) with SKED_DELIVERY,
 *   SKED_EVENT_TYPE and SKED_NOTIFIER; exit 0 is delivered.
 * - email: a sendmail-compatible program run as "PROGRAM -t -i", the
 *   message on stdin (To, Subject, the event as the body).
 *
 * Templates replace {{id}}, {{type}}, {{subject}}, {{schedule}}, {{at}},
 * {{delivery}}, {{notifier}}, {{event}} (the whole JSON) and {{payload}}
 * (its payload's JSON) with their values as they are; anything else is
 * kept. The secret is read at each attempt (a rotated file applies at
 * once) and appears in nothing this returns. Thread-safe. */
#ifndef SKED_EXEC_NOTIFY_SEND_H
#define SKED_EXEC_NOTIFY_SEND_H

#include <stdbool.h>
#include <stddef.h>

#include "model/notifier.h"
#include "sked/error.h"

/* The longest secret read from a file. */
#define SKED_NOTIFY_SECRET_MAX 4096

typedef struct sked_notify_result {
    bool delivered;
    int status;      /* the HTTP status or the exit code; -1: none */
    char error[200]; /* why not delivered; "" when delivered */
} sked_notify_result;

/* Send EVENT (JSON text of the event as sent, store_notify.h) to N with
 * the idempotency id DELIVERY. Fills OUT whatever happened (an attempt
 * that failed is not an error). Returns 0, or SKED_ENOMEM. */
int sked__notify_send(const sked_notifier *n, const char *event,
                      const char *delivery, sked_notify_result *out);

/* Write into HEX (65 bytes) the HMAC-SHA256 of "T.BODY" under SECRET, in
 * lowercase hex. Returns 0, or SKED_EIO when libcrypto failed. */
int sked__notify_sign(const char *secret, size_t secret_len, long long t,
                      const char *body, size_t body_len, char hex[65]);

/* Expand the template TPL for the event E (parsed) and DELIVERY, N's
 * name NOTIFIER; owned, NULL when out of memory. */
char *sked__notify_expand(const char *tpl, const char *event,
                          const char *delivery, const char *notifier);

#endif
