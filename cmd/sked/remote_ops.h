/* SPDX-License-Identifier: MIT */
/* The operations of target.h in remote mode: each is one request of
 * docs/api.md (two for delete, which learns first whether the schedule
 * existed; several for a backfill drawn with a progress bar), its answer
 * turned back into what direct mode returns. TZDB (borrowed; may be
 * NULL) finds a schedule's zone where occurrences are computed here. */
#ifndef SKED_CMD_REMOTE_OPS_H
#define SKED_CMD_REMOTE_OPS_H

#include "remote.h"
#include "target.h"

int remote_schedule_get(remote *r, const char *name, sked_schedule *out,
                        sked_error *err);
/* POST (CREATE) or PATCH the definition of S. */
int remote_schedule_write(remote *r, const sked_schedule *s, bool create,
                          sked_error *err);
int remote_schedule_list(remote *r, const sked_schedule_filter *f,
                         sked_schedule **out, size_t *n, bool *more,
                         sked_error *err);
/* POST .../VERB for pause, resume and trigger; RUN_ID (may be NULL)
 * receives the run_id of the answer. */
int remote_schedule_op(remote *r, const char *name, const char *verb,
                       char **run_id, sked_error *err);
int remote_schedule_delete(remote *r, const char *name, bool *existed,
                           sked_error *err);
int remote_schedule_backfill(remote *r, sked_tzdb *tzdb, const char *name,
                             sked_time start, sked_time end,
                             sked_progress_fn progress, void *ctx,
                             sked_backfill_result *res, sked_error *err);
int remote_schedule_apply(remote *r, const target_apply *a,
                          sked_apply_result *res, sked_error *err);

/* GET PATH; *out the answer as JSON text (free). */
int remote_get_text(remote *r, const char *path, char **out, sked_error *err);
int remote_run_list(remote *r, const sked_run_query *q, char **out,
                    sked_error *err);
/* Cancel run ID, or start a run of WORKFLOW; *out the run the server
 * answered with, as JSON text (free). */
int remote_run_cancel(remote *r, const char *id, char **out, sked_error *err);
int remote_run_start(remote *r, const char *workflow, const char *input,
                     const char *key, char **out, sked_error *err);
int remote_event_follow(remote *r, int64_t after, target_event_fn fn, void *ctx,
                        volatile const int *stop, sked_error *err);

#endif
