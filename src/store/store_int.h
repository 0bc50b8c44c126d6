/* SPDX-License-Identifier: MIT */
/* What the store's own files share (store.c, store_schedule.c,
 * store_fire.c, store_run.c), and the URL dispatch that test tools use to
 * reach a back-end directly. Not for the layers above: they use store.h
 * and store_run.h. */
#ifndef SKED_STORE_STORE_INT_H
#define SKED_STORE_STORE_INT_H

#include <pthread.h>
#include <stdbool.h>

#include "base/json_obj.h"
#include "store/store.h"
#include "store/store_ops.h"
#include "model/schedule_occ.h"
#include "store/store_run.h"

/* The store's health (store_health.c). */
typedef struct sked__health sked__health;
int sked__health_new(sked__health **out);
void sked__health_free(sked__health *h);

/* The calendars as last read, for the decisions (store_days.c). */
typedef struct sked__days_cache {
    pthread_mutex_t lock;
    struct sked__calbook *book; /* owned reference; NULL: none read yet */
    int64_t stamp[2];           /* the calendars' state it was read at */
} sked__days_cache;

/* The writes queued for a shared transaction (store_share.c). */
typedef struct sked__share sked__share;
/* LEADERS: how many batches may be written at once. */
int sked__share_new(int leaders, sked__share **out);
void sked__share_free(sked__share *s);

struct sked_store {
    const struct sked__store_ops *ops; /* borrowed: static */
    sked__backend *b;                  /* owned */
    sked_tzdb *tzdb;                   /* borrowed, or own_tzdb */
    sked_tzdb *own_tzdb;               /* owned; NULL when given */
    const sked_clock *clock;           /* borrowed; NULL: the real one */
    sked__health *health;              /* owned */
    sked__days_cache days;
    sked__share *share; /* owned */
};

/* Pick the back-end for URL (NULL: SKED_STORE_DEFAULT_URL). OUT: *ops and
 * *target (the URL without "sqlite:"; borrowed from URL). Returns 0 or
 * SKED_EINVAL with err->field "db". */
int sked__store_url_parse(const char *url, const struct sked__store_ops **ops,
                          const char **target, sked_error *err);

/* One transaction's work; returns 0 to commit, else the code (rolled back).
 * May run several times (retries): it must reset what it reports. */
typedef int (*sked__tx_fn)(sked_store *st, sked__tx *tx, void *arg,
                           sked_error *err);

/* Run FN in a transaction of MODE, retrying SKED_EBUSY (store.c). */
int sked__store_run_tx(sked_store *st, sked__tx_mode mode, sked__tx_fn fn,
                       void *arg, sked_error *err);

/* Run FN as sked__store_run_tx does in SKED__TX_WRITE, but in one
 * transaction with the writes other threads ask for at the same time,
 * FN's own under a savepoint: FN's failure undoes FN's writes alone
 * (store_share.c). Returns FN's code, once the commit holding its writes
 * is done. */
int sked__store_run_shared(sked_store *st, sked__tx_fn fn, void *arg,
                           sked_error *err);

/* The events one transaction writes, appended at its end in one call
 * (store.c) and handed to the caller after the commit. */
typedef struct sked__ev_list {
    sked_event *v; /* owned */
    size_t n, cap;
} sked__ev_list;

/* Free L's events and empty it (a transaction about to run again). */
void sked__ev_reset(sked__ev_list *l);
/* PAYLOAD (taken; a JSON object's text) with the member "actor": the
 * calling thread's actor (base/actor.h), who caused the event, last.
 * Anything but an object (no event of sked's) is wrapped as {"value":
 * PAYLOAD, "actor": ...}. Every event gets it where it is made, so the
 * API, the stream, MCP and the deliveries all say who. NULL: out of
 * memory (PAYLOAD NULL too). */
char *sked__payload_actor(char *payload);
/* Append one event in TX with st->ops->event_append, PAYLOAD (borrowed;
 * NULL: {}) given its actor. */
int sked__event_write(sked_store *st, sked__tx *tx, const char *type,
                      const char *subject, const char *payload, sked_time at,
                      sked_error *err);
/* Append an event, its payload given its actor (sked__payload_actor);
 * TYPE and SUBJECT are copied, PAYLOAD is taken (also
 * on failure). A NULL PAYLOAD (building it ran out of memory, as
 * sked__jobj_take says) is SKED_ENOMEM. */
int sked__ev_add(sked__ev_list *l, const char *type, const char *subject,
                 char *payload, sked_time at, sked_error *err);
/* Write every event of L in TX, setting their ids. */
int sked__ev_flush(sked_store *st, sked__tx *tx, sked__ev_list *l,
                   sked_error *err);
/* Add the instant T under KEY of O: RFC 3339, or null for NONE. */
void sked__jobj_time(sked_jobj *o, const char *key, sked_time t);
/* Add the event run.created of the run R, created at NOW. */
int sked__ev_run_created(sked__ev_list *l, const sked_run_new *r, sked_time now,
                         sked_error *err);
/* Write, in TX, the deliveries of L's notifiable events (their ids set)
 * to every notifier that wants them (store_notify.c). */
int sked__notify_outbox(sked_store *st, sked__tx *tx, const sked__ev_list *l,
                        sked_error *err);
/* Give the delivery row R (a claim's or the log's, store_ops.h) its
 * "event" object as sent, built from the row's ev_* members (the
 * event's row) when it holds no copy of the event, and take the ev_*
 * members out; SKED_ENOMEM. */
struct json_t;
int sked__notify_row_event(struct json_t *r);
/* Read the notifier NAME (NULL: every one) in TX into *out of *n
 * (sked__notifiers_free; NAME not found: *n 0). */
struct sked_notifier;
int sked__notify_read_tx(sked_store *st, sked__tx *tx, const char *name,
                         struct sked_notifier **out, size_t *n,
                         sked_error *err);
/* Hand L's events to the caller (OUT and N may be NULL: freed). */
void sked__ev_give(sked__ev_list *l, sked_event **out, size_t *n);

/* The deadlines of the locked row S in the firing transaction at NOW
 * (store_deadline.c), after F's runs were inserted: check its runs due,
 * and set F->deadline_check_at and F->deadlines_missed. Events into EV. */
int sked__store_fire_deadlines(sked_store *st, sked__tx *tx,
                               const sked_schedule *s, sked_firing *f,
                               sked_time now, sked__ev_list *ev,
                               sked_error *err);

/* Cancel the active runs of SCHEDULE but KEEP (may be NULL), in TX at
 * NOW, as sked__store_run_cancel does (store_run.c): the firing of an
 * overlap cancel_other (SPEC 3.4). Events into EV. */
int sked__store_cancel_others(sked_store *st, sked__tx *tx,
                              const char *schedule, const char *keep,
                              sked_time now, sked__ev_list *ev,
                              sked_error *err);

/* The end of one run of SCHEDULE (NULL: none) as STATUS, in TX at NOW,
 * counted as a finish of the executor counts it (store_run_ops.c):
 * completed resets the schedule's consecutive_failures, failed adds 1
 * and pauses the schedule when it reaches pause_after_failures (*paused
 * then true; its event schedule.paused into EV); anything else, or a
 * schedule gone, counts nothing. */
int sked__store_count_end(sked_store *st, sked__tx *tx, const char *schedule,
                          sked_run_status status, sked_time now,
                          sked__ev_list *ev, bool *paused, sked_error *err);

/* The store clock's wall time. */
sked_time sked__store_now(const sked_store *st);

/* Set S->next_fire_at (and status done when nothing is left) from NOW,
 * its calendars read in TX; KEEP_PAST_AT keeps an "at" instant already
 * past (create, update). A calendar S names that does not exist is
 * SKED_ENOTFOUND naming "exclude[i]" or "only[i]". */
int sked__store_plan_next(sked_store *st, sked__tx *tx, sked_schedule *s,
                          sked_time now, bool keep_past_at, sked_error *err);

/* Read every calendar (NAME NULL) or NAME's row in TX into *out, *n
 * (sked__calendars_free). */
int sked__store_calendars_read(sked_store *st, sked__tx *tx, const char *name,
                               sked_calendar **out, size_t *n, sked_error *err);

/* S's calendars, built, for a decision in TX (store_days.c): *out
 * borrows from *book, a reference the caller gives back with
 * sked__calbook_release. A schedule with no calendars gets *book NULL
 * and no sets. The calendars are read again when their state in the
 * database changed since the last read (a look at the count of changes
 * per call). */
int sked__store_days(sked_store *st, sked__tx *tx, const sked_schedule *s,
                     struct sked__calbook **book, sked__occ_days *out,
                     sked_error *err);
/* sked__store_days for many schedules in one TX: *book (NULL at first)
 * is read at the first schedule that names a calendar and kept for the
 * others; the caller releases it once. */
int sked__store_days_with(sked_store *st, sked__tx *tx, const sked_schedule *s,
                          struct sked__calbook **book, sked__occ_days *out,
                          sked_error *err);
void sked__store_days_done(sked_store *st);

/* Set again, in TX, the next slot of every schedule whose calendars are
 * the N CHANGED ones or include one of them (store_replan.c): their
 * cursors kept, their updated_at moved so that the schedulers reread
 * them. */
int sked__store_replan_calendars(sked_store *st, sked__tx *tx,
                                 const char *const *changed, size_t n,
                                 sked_error *err);

/* Check the fields of run R a claim and the API depend on (id, workflow,
 * queue: store_aside.c). Returns 0, or SKED_EINVAL with the reason, for
 * the run's error, in WHY (SIZE bytes). Pure. */
int sked__run_row_fault(const sked_run *r, char *why, size_t size);

/* Take the unreadable runs out of the N RUNS (ALSO, when not NULL, is a
 * parallel array kept in step) and set each aside in TX at NOW: failed
 * with error code "unreadable", its run.failed event into EV
 * (store_aside.c). *n gets the count left. */
int sked__store_set_aside(sked_store *st, sked__tx *tx, sked_run *runs,
                          bool *also, size_t *n, sked_time now,
                          sked__ev_list *ev, sked_error *err);

/* Sort the N skips of LIST by schedule (strcmp), then occurrence
 * (store_skip.c). */
void sked__skips_sort(sked_skip *list, size_t n);

#endif
