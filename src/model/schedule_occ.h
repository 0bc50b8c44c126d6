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

#include "cron/rrule.h"
#include "sked/schedule.h"

typedef struct sked__occ_spec {
    const sked_schedule *s; /* borrowed */
    const sked_tz *tz;      /* borrowed; UTC when none was given */
    sked_cron cron;         /* SKED_SPEC_CRON */
    sked__rrule *rrule;     /* SKED_SPEC_RRULE: the kept rule (shared) or
                               one of its own; sked__occ_spec_done */
    bool shared;
    sked_time until; /* the rule's UNTIL in UTC, or NONE */
} sked__occ_spec;

/* Read S's time spec (CRON: PARSED when not NULL, else parsed here) for
 * the zone TZ (NULL: UTC). An RRULE without DTSTART starts at S's
 * creation (now for a schedule not yet created). Returns 0, or
 * SKED_EINVAL (ERR may be NULL) when the spec does not load. Free with
 * sked__occ_spec_done. */
int sked__occ_spec_init(sked__occ_spec *o, const sked_schedule *s,
                        const sked_tz *tz, const sked_cron *parsed,
                        sked_time now, sked_error *err);
void sked__occ_spec_done(sked__occ_spec *o);

/* The first occurrence strictly after AFTER (with its DST mark), or the
 * last strictly before BEFORE. Return 0 or SKED_ENOTFOUND. */
int sked__occ_next(const sked__occ_spec *o, sked_time after,
                   sked_occurrence *out);
int sked__occ_prev(const sked__occ_spec *o, sked_time before, sked_time *out);

/* Write the words of S's RRULE (sked__rrule_explain) into BUF: its start,
 * when the rule gives none, is S's creation in its zone, read from the
 * system's zone database ($TZDIR, else /usr/share/zoneinfo), opened once
 * per process. Returns the length, or SKED_EINVAL when S has no RRULE
 * that loads, SKED_ETOOBIG. */
int sked__occ_rrule_words(const sked_schedule *s, sked_time now, char *buf,
                          size_t size);

#endif
