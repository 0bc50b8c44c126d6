/* SPDX-License-Identifier: MIT */
/* A calendar book: every stored calendar at one moment, and the day sets
 * schedules ask of them (SPEC 12). A schedule's exclude (or only) names
 * calendars; what it needs is their union, built once per list and kept
 * in the book, so a decision costs a lookup, not a build. A book is
 * immutable once made (its unions are built on demand under its lock)
 * and shared by reference: the store keeps the current one and swaps it
 * when the calendars change; a decision holds the one it started with. */
#ifndef SKED_MODEL_CALBOOK_H
#define SKED_MODEL_CALBOOK_H

#include <stddef.h>
#include <stdint.h>

#include "model/schedule_occ.h"
#include "sked/calendar.h"

typedef struct sked__calbook sked__calbook;

/* Make a book of the N calendars ALL (taken: the book frees them, also
 * on error). One reference, the caller's. Returns 0 or SKED_ENOMEM. */
int sked__calbook_new(sked_calendar *all, size_t n, sked__calbook **out,
                      sked_error *err);

/* Take or give back a reference; the last one frees the book. NULL does
 * nothing. Any thread. */
void sked__calbook_hold(sked__calbook *b);
void sked__calbook_release(sked__calbook *b);

/* Fill *out with S's calendars from B: the unions of its exclude and of
 * its only lists (NULL when a list is empty), and its on_excluded. The
 * sets belong to B and live while the caller holds it. Returns 0,
 * SKED_ENOTFOUND naming "exclude[i]" or "only[i]" for a name B lacks,
 * or a build's error (SKED_ENOMEM). */
int sked__calbook_days(sked__calbook *b, const sked_schedule *s,
                       sked__occ_days *out, sked_error *err);

#endif
