/* SPDX-License-Identifier: MIT */
/* Turning the engine's events into the server's log lines (SPEC 5): each
 * event type has a level and a message, and its payload's plain values
 * (strings, numbers, booleans) become the line's keys. SPEC 3.3 requires
 * the warn line of schedule.occurrences_missed, with the schedule, the
 * reason and the count. */
#ifndef SKED_CMD_SERVER_EVENTS_H
#define SKED_CMD_SERVER_EVENTS_H

#include "log.h"
#include "sked/sked.h"

/* A sked_event_fn: log the event EV on the logger CTX. Called from the
 * engine's threads; takes only the logger's lock. */
void server_log_event(void *ctx, const sked_event_view *ev);

#endif
