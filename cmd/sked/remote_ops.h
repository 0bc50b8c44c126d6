/* SPDX-License-Identifier: MIT */
/* Remote mode's operations shared by remote_ops.c, which implements the
 * target_ops of target.h over the API (each one request of docs/api.md,
 * two for delete, which learns first whether the schedule existed) with
 * the parts of remote_runs.c, remote_calendars.c, remote_occurrences.c
 * and remote_notify.c, and remote_backfill.c (several requests for a
 * backfill drawn with a progress bar). */
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

/* ---- the parts of remote_ops.c's table ---------------------------------
 * The target_ops of target.h are remote_op_NAME, each the member NAME:
 * those of schedules in remote_ops.c, the others here by file. */

/* The remote of the target T (remote_ops.c). */
remote *remote_of(target *t);
/* SKED_ENOMEM into ERR; returns it. */
int remote_no_memory(sked_error *err);
/* GET PATH (taken: freed here) into *out. */
int remote_get_json(remote *r, char *path, json_t **out, sked_error *err);

/* remote_runs.c */
int remote_op_run_list(target *t, const sked_run_query *q, sked_run_page *out,
                       sked_error *err);
int remote_op_run_get(target *t, const char *id, sked_run_page *out,
                      sked_error *err);
int remote_op_run_cancel(target *t, const char *id, sked_run_page *out,
                         sked_error *err);
int remote_op_run_start(target *t, const char *workflow, const char *input,
                        const char *key, sked_run_page *out, sked_error *err);
int remote_op_workflow_list(target *t, sked_workflow_page *out,
                            sked_error *err);
int remote_op_event_list(target *t, int64_t after, size_t limit,
                         const char *actor, char **out, sked_error *err);
int remote_op_event_follow(target *t, int64_t after, const char *actor,
                           target_event_fn fn, void *ctx,
                           volatile const int *stop, sked_error *err);

/* remote_calendars.c */
int remote_op_calendar_create(target *t, const sked_calendar *c,
                              sked_error *err);
int remote_op_calendar_put(target *t, const sked_calendar *c, bool *created,
                           sked_error *err);
int remote_op_calendar_get(target *t, const char *name, sked_calendar *out,
                           sked_error *err);
int remote_op_calendar_list(target *t, sked_calendar **out, size_t *n,
                            sked_error *err);
int remote_op_calendar_delete(target *t, const char *name, sked_error *err);
int remote_op_calendar_days(target *t, const char *name,
                            const sked_calendar_days_query *q,
                            sked_calendar_day **out, size_t *n,
                            sked_error *err);
int remote_op_calendar_apply(target *t, const target_calendar_apply *a,
                             sked_apply_result *res, sked_error *err);

/* remote_occurrences.c */
int remote_op_schedule_preview(target *t, const char *name, sked_time after,
                               size_t max, sked_preview *out, sked_error *err);
int remote_op_schedule_simulate(target *t, const char *name,
                                const sked_simulate_options *o,
                                sked_simulation *out, sked_error *err);
int remote_op_schedule_skip(target *t, const char *name, sked_time at,
                            bool skip, const char *actor, const char *reason,
                            bool *changed, sked_error *err);
int remote_op_schedule_skips(target *t, const char *name, sked_skip **out,
                             size_t *n, sked_error *err);
int remote_op_schedule_run_at(target *t, const char *name, sked_time at,
                              char **run_id, bool *created, sked_error *err);

#endif
