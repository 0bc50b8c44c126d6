/* SPDX-License-Identifier: MIT */
/* Who makes the changes of the calling thread: the actor every event
 * records (the audit trail). The layer that knows it sets it — the HTTP
 * server from the request's token, the CLI from the Unix user, code sync
 * from the workflows file's app, the scheduler's and the workers'
 * threads "scheduler" — and the store reads it, downward, when it makes
 * an event. A thread that never set one is "library": a program that
 * embeds sked and said nothing. */
#ifndef SKED_BASE_ACTOR_H
#define SKED_BASE_ACTOR_H

#include <stddef.h>

/* The longest actor kept (bytes): a token's name, "user:" and a login,
 * "code:" and an app's name all fit. */
#define SKED__ACTOR_MAX 160

/* The actor of a thread that never set one. */
#define SKED__ACTOR_DEFAULT "library"

/* The actor of the scheduler's own decisions: its thread's, the
 * workers', the journal's and the deliveries'. */
#define SKED__ACTOR_SCHEDULER "scheduler"

/* Set the calling thread's actor to ACTOR (copied; NULL or "": back to
 * the default). Returns 0, or SKED_EINVAL (nothing changed) when ACTOR
 * is longer than SKED__ACTOR_MAX or holds a byte that is not printable
 * ASCII (so that it is its own JSON text between quotes, bar escapes). */
int sked__actor_set(const char *actor);

/* The calling thread's actor: valid until it sets another. */
const char *sked__actor(void);

#endif
