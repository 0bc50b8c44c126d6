/* SPDX-License-Identifier: MIT */
/* Remote mode's operations shared by remote_ops.c, which implements the
 * target_ops of target.h over the API (each one request of docs/api.md,
 * two for delete, which learns first whether the schedule existed), and
 * remote_backfill.c (several requests for a backfill drawn with a
 * progress bar). */
#ifndef SKED_CMD_REMOTE_OPS_H
#define SKED_CMD_REMOTE_OPS_H

#include "remote.h"
#include "target.h"

int remote_schedule_get(remote *r, const char *name, sked_schedule *out,
                        sked_error *err);

/* TZDB (borrowed; may be NULL) finds the schedule's zone, where the
 * chunks of a backfill drawn with a bar are computed. */
int remote_schedule_backfill(remote *r, sked_tzdb *tzdb, const char *name,
                             sked_time start, sked_time end,
                             sked_progress_fn progress, void *ctx,
                             sked_backfill_result *res, sked_error *err);

/* The notifiers' operation Q over the API (remote_notify.c): one
 * request of /api/v1/notifiers or /api/v1/deliveries; *out the answer's
 * JSON text (free; not for delete). */
int remote_notify(remote *r, const target_notify *q, char **out,
                  sked_error *err);

/* Apply the notifiers of A over the API (remote_notify.c): PUT
 * /api/v1/notifiers, its counts into *res. */
int remote_notifier_apply(remote *r, const target_notifier_apply *a,
                          sked_apply_result *res, sked_error *err);

/* Write "PREFIX/ESCAPED(NAME)SUFFIX" into a new string (free), or NULL. */
char *remote_path(const char *prefix, const char *name, const char *suffix);

/* An answer that is not what docs/api.md says: the server's fault,
 * printed, and SKED_EIO in ERR. */
int remote_bad_answer(const char *what, sked_error *err);

#endif
