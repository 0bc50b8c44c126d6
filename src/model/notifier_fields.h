/* SPDX-License-Identifier: MIT */
/* The notifier's field tables (docs/notifications.md): every key of a
 * notifier, once, with its member of sked_notifier, its kind, its JSON
 * key (the workflows file's YAML key too: the file's mapping is read as
 * the API's JSON) and its help line, which the CLI prints. The common
 * keys, then the settings of each kind, under the kind's own key
 * ("webhook": {...}), stored as the row's config.
 *
 * A table is TABLE(X) calling X(member, kind, json, help). Kinds: STR (a
 * string), STRS (a list of strings), KVS (an object of strings, kept as
 * "Name: value" lines) and DUR (a duration: "30s", or a number of
 * seconds). Header only. */
#ifndef SKED_MODEL_NOTIFIER_FIELDS_H
#define SKED_MODEL_NOTIFIER_FIELDS_H

#define SKED__NOTIFIER_FIELDS(X)                                               \
    X(events, STRS, "events", "the event types it wants")                      \
    X(schedules, STRS, "schedules",                                            \
      "names or globs of the schedules it wants (none: every one)")            \
    X(retry_for, DUR, "retry_for",                                             \
      "how long a delivery is retried (default 24h)")

#define SKED__WEBHOOK_FIELDS(X)                                                \
    X(url, STR, "url", "where to POST (http or https)")                        \
    X(headers, KVS, "headers", "extra request headers")                        \
    X(body, STR, "body", "a body template (default: the event's JSON)")        \
    X(secret_file, STR, "secret_file", "a file holding the signing secret")    \
    X(secret_env, STR, "secret_env",                                           \
      "a variable of the server's environment holding it")                     \
    X(timeout, DUR, "timeout", "the time one attempt may take (default 10s)")

#define SKED__COMMAND_FIELDS(X)                                                \
    X(argv, STRS, "argv", "the program and its arguments (no shell)")          \
    X(timeout, DUR, "timeout", "the time one attempt may take (default 10s)")

#define SKED__EMAIL_FIELDS(X)                                                  \
    X(to, STRS, "to", "the recipients")                                        \
    X(from, STR, "from", "the sender (default: the program's)")                \
    X(subject, STR, "subject", "a subject template")                           \
    X(program, STR, "program",                                                 \
      "a sendmail-compatible program (default /usr/sbin/sendmail)")            \
    X(timeout, DUR, "timeout", "the time one attempt may take (default 10s)")

#endif
