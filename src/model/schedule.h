/* SPDX-License-Identifier: MIT */
/* Internal helpers of schedule.c, shared with the store, the JSON
 * conversion and the CLI: the checks sked_schedule_validate is made of. */
#ifndef SKED_MODEL_SCHEDULE_H
#define SKED_MODEL_SCHEDULE_H

#include "sked/schedule.h"

/* Check that S is a name: 1..SKED_NAME_MAX characters of [A-Za-z0-9._-],
 * and neither "." nor "..". Returns 0 or SKED_EINVAL with err->field FIELD (and
 * err->pos the offending byte). */
int sked__schedule_name_check(const char *s, const char *field,
                              sked_error *err);

/* Check that S can be one segment of a URL path (a run id, an
 * idempotency key): 1..MAX bytes of printable UTF-8 (no control
 * character, no invalid sequence), no '/', neither "." nor "..", and no
 * space at either end. Returns 0 or SKED_EINVAL with err->field FIELD and
 * err->pos the offending byte. */
int sked__segment_check(const char *s, size_t max, const char *field,
                        sked_error *err);

/* Check an idempotency key: sked__segment_check with SKED_RUN_KEY_MAX,
 * naming the field "idempotency_key". */
int sked__run_key_check(const char *key, sked_error *err);

/* Refuse a one-time schedule S whose "at" is before NOW, unless
 * S->allow_past: it would fire at once as catch-up, which a typo in a
 * date should not do. OLD (NULL for a new schedule) is the stored row of
 * an update: an "at" it already has is kept without a word. Returns 0 or
 * SKED_EINVAL naming "at". Pure. */
int sked__schedule_past_check(const sked_schedule *s, const sked_schedule *old,
                              sked_time now, sked_error *err);

/* Check that CTX (NULL: fine) is a JSON object of at most
 * SKED_CONTEXT_MAX bytes. Returns 0 or SKED_EINVAL naming FIELD. */
int sked__schedule_context_check(const char *ctx, const char *field,
                                 sked_error *err);

/* Check the calendar list LIST (NULL or "": none), names joined by ",":
 * at most MAX names, each a name (sked__schedule_name_check), none twice.
 * Returns 0 or SKED_EINVAL with err->field "FIELD[i]" for the i-th name
 * and err->pos its byte in LIST. */
int sked__schedule_cals_check(const char *list, const char *field, size_t max,
                              sked_error *err);

/* Copy the I-th name of the list LIST into BUF (SIZE > SKED_NAME_MAX) and
 * return its length, or 0 when LIST has no I-th name. */
size_t sked__schedule_cal_at(const char *list, size_t i, char *buf,
                             size_t size);

/* Count NAME under KIND of R (an apply's result: created, updated or
 * deleted), keeping the names while they are at most
 * SKED_APPLY_NAMES_MAX. */
void sked__apply_note(sked_apply_result *r, sked_apply_kind kind,
                      const char *name);

#endif
