/* SPDX-License-Identifier: MIT */
/* A stored event as the API shows it, shared by the event list
 * (engine_events.c) and the event stream (src/http/sse.c). */
#ifndef SKED_ENGINE_ENGINE_EVENTS_H
#define SKED_ENGINE_ENGINE_EVENTS_H

#include <jansson.h>

#include "sked/engine.h"

/* EV as {"id","type","subject","payload" (the JSON object),"at" (RFC
 * 3339)}: a new reference, NULL when out of memory. A payload that is
 * not JSON (never written by sked) is shown as a string. */
json_t *sked__event_json(const sked_event_view *ev);

#endif
