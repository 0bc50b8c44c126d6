/* SPDX-License-Identifier: MIT */
/* RRULE schedules' rule core: RFC 5545 recurrence rules on wall-clock
 * seconds.
 *
 * A wall-clock second counts seconds since 1970-01-01T00:00 of a local
 * calendar with no zone, as the cron search does (cron/cron.h); the caller
 * maps each one to an instant in the schedule's zone under its DST policy.
 * libical's icalrecur reads the rule; this module checks the text first
 * (so every error names its byte), makes the parts DTSTART fills in
 * explicit, and computes the occurrences itself (rrule.c says why): a
 * rule of days over 1970-01-01..2200-12-31, the day calendars' range, a
 * finer rule to 2582, the last year libical reads.
 *
 * Words: DTSTART is the rule's first wall second; an occurrence is a wall
 * second the rule produces. */
#ifndef SKED_CRON_RRULE_H
#define SKED_CRON_RRULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sked/error.h"
#include "sked/time.h"

/* Longest accepted value, in bytes. */
#define SKED__RRULE_MAX_LEN 2048
/* The last year libical 3.0 expands (its MAX_TIME_T_YEAR). */
#define SKED__RRULE_YEAR_LAST 2582

typedef struct sked__rrule sked__rrule; /* opaque; parsed once */

/* Parse VALUE, RFC 5545 content lines: the bare rule
 * "FREQ=WEEKLY;INTERVAL=2;BYDAY=FR;BYHOUR=9" (an optional leading "RRULE:"
 * accepted), or "DTSTART:YYYYMMDDTHHMMSS" (floating local time) or
 * "DTSTART;TZID=Zone/Name:YYYYMMDDTHHMMSS", a newline (LF or CRLF), then
 * "RRULE:...". Names are case-insensitive; EXDATE, RDATE and other lines
 * are refused. DEFAULT_START is the wall second the rule starts at without
 * DTSTART (the schedule's creation in its zone), floored to the rule's
 * resolution: the second for SECONDLY, the minute for MINUTELY, the hour
 * for HOURLY, the day for DAILY and coarser; BYxxx parts a rule leaves
 * out are filled from it as RFC 5545 3.3.10 says (dateutil does the same).
 * OUT: *out, freed with sked__rrule_free. Returns 0; SKED_EINVAL with
 * err->field "rrule", err->pos the byte of the bad part and err->msg
 * saying why (syntax, unknown part, a rule that never produces an
 * occurrence, BYSETPOS out of range, ...); SKED_ENOMEM. */
int sked__rrule_parse(const char *value, int64_t default_start,
                      sked__rrule **out, sked_error *err);

/* Read VALUE as sked__rrule_parse does, all but its search: the rule's
 * occurrences are not computed (microseconds, where a rule of days takes
 * milliseconds to expand), so civil_next and civil_prev find none, but
 * sked__rrule_explain, _tzid, _dtstart and _until_utc answer. For the
 * words of a rule already checked; a rule with no occurrence, which only
 * its search finds, is not refused here. */
int sked__rrule_parse_words(const char *value, int64_t default_start,
                            sked__rrule **out, sked_error *err);

/* Free R (NULL: nothing). */
void sked__rrule_free(sked__rrule *r);

/* Return the zone DTSTART;TZID named, or NULL when none; the caller checks
 * it is the schedule's zone. Borrowed: valid until sked__rrule_free. */
const char *sked__rrule_tzid(const sked__rrule *r);

/* Return UNTIL when it was given in UTC ("...Z"), as an instant, or
 * SKED_TIME_NONE: the caller, who maps wall seconds to instants, applies
 * it. A floating UNTIL is applied by civil_next/civil_prev. */
sked_time sked__rrule_until_utc(const sked__rrule *r);

/* Return the rule's DTSTART, in wall seconds (after flooring). */
int64_t sked__rrule_dtstart(const sked__rrule *r);

/* Store in *out the first wall second >= LO the rule produces (DTSTART
 * counts as the first occurrence when it matches, as RFC 5545 says).
 * Returns 0, or SKED_ENOTFOUND when there is none (COUNT or UNTIL
 * exhausted, or past the range). A few bit scans or a division; R is
 * immutable, so several threads may search it at once. */
int sked__rrule_civil_next(const sked__rrule *r, int64_t lo, int64_t *out);

/* Store in *out the last wall second <= HI the rule produces. Returns as
 * sked__rrule_civil_next does. */
int sked__rrule_civil_prev(const sked__rrule *r, int64_t hi, int64_t *out);

/* Return whether the rule produces a single time of day (FREQ DAILY or
 * coarser, and one hour, minute and second once DTSTART filled them): DST
 * cadence treats such a rule like a fixed-time cron expression. */
bool sked__rrule_is_fixed_time(const sked__rrule *r);

/* A buffer size that fits any sked__rrule_explain output. */
#define SKED__RRULE_WORDS_MAX 2048

/* Write R in English into BUF (SIZE bytes), as sked_cron_explain says a
 * cron expression: "At 09:00, every 2 weeks on Friday, starting
 * 2026-12-04". Returns the length, SKED_ETOOBIG when BUF is too small
 * (BUF then empty), or SKED_EINVAL. */
int sked__rrule_explain(const sked__rrule *r, char *buf, size_t size);

#endif
