/* SPDX-License-Identifier: MIT */
/* The occurrences of a schedule's time spec, whatever its kind (SPEC 2,
 * 12): a cron expression or an RFC 5545 rule in its zone under its DST
 * policy, an interval (a duration, or calendar days kept at the anchor's
 * local time), or one instant. The store (the next occurrence it keeps),
 * the policy (what fires) and the previews all ask here, so that each
 * kind is computed in one place.
 *
 * The bounds start_at and end_at are the caller's; an RRULE's UNTIL and
 * COUNT are the rule's own and applied here. */
#ifndef SKED_MODEL_SCHEDULE_OCC_H
#define SKED_MODEL_SCHEDULE_OCC_H

#include "cron/daycal.h"
#include "cron/rrule.h"
#include "sked/schedule.h"

/* A schedule's calendars, built (SPEC 12): the union of its exclude
 * calendars and of its only calendars (NULL: none), borrowed from who
 * built them, and where an excluded occurrence goes. */
typedef struct sked__occ_days {
    const sked__daycal *exclude;
    const sked__daycal *only;
    sked_on_excluded on_excluded;
} sked__occ_days;

typedef struct sked__occ_spec {
    const sked_schedule *s;     /* borrowed */
    const sked_tz *tz;          /* borrowed; UTC when none was given */
    const sked__occ_days *days; /* borrowed; NULL: no calendars */
    sked_cron cron;             /* SKED_SPEC_CRON */
    sked__rrule *rrule;         /* SKED_SPEC_RRULE: the kept rule (shared) or
                                   one of its own; sked__occ_spec_done */
    bool shared;
    sked_time until; /* the rule's UNTIL in UTC, or NONE */
} sked__occ_spec;

/* Read S's time spec (CRON: PARSED when not NULL, else parsed here) for
 * the zone TZ (NULL: UTC), seen through DAYS (NULL: no calendars;
 * borrowed). An RRULE without DTSTART starts at S's creation (now for a
 * schedule not yet created). Returns 0, or SKED_EINVAL (ERR may be NULL)
 * when the spec does not load. Free with sked__occ_spec_done. */
int sked__occ_spec_init(sked__occ_spec *o, const sked_schedule *s,
                        const sked_tz *tz, const sked_cron *parsed,
                        const sked__occ_days *days, sked_time now,
                        sked_error *err);
void sked__occ_spec_done(sked__occ_spec *o);

/* The first occurrence strictly after AFTER (with its DST mark), or the
 * last strictly before BEFORE. Return 0 or SKED_ENOTFOUND. */
int sked__occ_next(const sked__occ_spec *o, sked_time after,
                   sked_occurrence *out);
int sked__occ_prev(const sked__occ_spec *o, sked_time before, sked_time *out);

/* What the scheduler decides at one moment about one occurrence. */
typedef enum sked__slot_kind {
    SKED__SLOT_FIRE,     /* it fires at its instant */
    SKED__SLOT_MOVED,    /* it fires on another business day (at) */
    SKED__SLOT_EXCLUDED, /* on an excluded day: dropped, at its instant */
} sked__slot_kind;

typedef struct sked__occ_slot {
    sked_time at;         /* when: the run's scheduled_for, or the drop */
    sked_time occurrence; /* the time spec's occurrence it stands for */
    sked__slot_kind kind;
    sked_occ_mark mark; /* the DST mark of the instant AT */
} sked__occ_slot;

/* The first slot strictly after AFTER, or the last strictly before
 * BEFORE, of O seen through O->days (schedule_slots.c; without
 * calendars, each occurrence is a slot that fires). Slots are strictly
 * ordered by AT. Return 0 or SKED_ENOTFOUND. */
int sked__occ_slot_next(const sked__occ_spec *o, sked_time after,
                        sked__occ_slot *out);
int sked__occ_slot_prev(const sked__occ_spec *o, sked_time before,
                        sked__occ_slot *out);

/* Write the words of S's RRULE (sked__rrule_explain) into BUF: its start,
 * when the rule gives none, is S's creation in its zone, read from the
 * system's zone database ($TZDIR, else /usr/share/zoneinfo), opened once
 * per process. Returns the length, or SKED_EINVAL when S has no RRULE
 * that loads, SKED_ETOOBIG. */
int sked__occ_rrule_words(const sked_schedule *s, sked_time now, char *buf,
                          size_t size);

#endif
