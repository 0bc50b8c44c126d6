/* SPDX-License-Identifier: MIT */
/* The server's log of its database's health (SPEC 5, ARCHITECTURE 1:
 * "faults are loud"): when the engine's work on the store starts to
 * fail, one error line naming the cause; while it goes on failing, a
 * reminder every HEALTH_REMIND; when it works again, one line saying so,
 * with how long it failed. The decision is a pure function of what was
 * logged and what is seen now (health_decide); cmd_server.c looks every
 * second and writes the line. */
#ifndef SKED_CMD_SERVER_HEALTH_H
#define SKED_CMD_SERVER_HEALTH_H

#include <stdbool.h>

#include "log.h"
#include "sked/sked.h"

/* The shortest time between two reminders of one failing episode. */
#define HEALTH_REMIND (INT64_C(60) * SKED_USEC_PER_SEC)

typedef enum health_line {
    HEALTH_QUIET,     /* nothing to write */
    HEALTH_FAILING,   /* an episode began: the cause */
    HEALTH_STILL,     /* it goes on: a reminder */
    HEALTH_RECOVERED, /* it ended */
} health_line;

/* What was logged; zero-initialised: healthy, nothing logged. */
typedef struct health_log {
    bool failing;     /* the last line said failing */
    uint64_t episode; /* the episode it was about */
    int code;         /* and its cause */
    sked_mono at;     /* when it was written */
    sked_time since;  /* the episode's start */
} health_log;

/* Decide the line to write now (NOW, monotonic) when the store is
 * FAILING as F says (F unused when not failing), and update S as if it
 * were written. */
health_line health_decide(health_log *s, bool failing, const sked_fault *f,
                          sked_mono now);

/* Look at E's health and write the line health_decide asks for to LG. */
void health_check(health_log *s, sked_engine *e, logger *lg);

#endif
