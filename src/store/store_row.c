/* SPDX-License-Identifier: MIT */
/* The one reading of each kind of row, whatever the back-end
 * (store_row.h): a run, a step attempt, an event and a queue's rows by
 * their field tables (model/), the others by the column orders
 * store_row.h names. */
#include "store/store_row.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "model/event_fields.h"
#include "model/queue_fields.h"
#include "model/run_fields.h"
#include "model/step_fields.h"
#include "store/store_ops.h"

int sked__nomem(sked_error *err)
{
    return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
}

bool sked__row_dup(const sked__row *r, int i, char **dst)
{
    const char *t = NULL;

    *dst = NULL;
    if (!r->d->text(r, i, &t))
        return false;
    if (!t)
        return true;
    *dst = sked__strdup(t);
    return *dst != NULL;
}

/* Column I of R as an instant; SQL NULL is SKED_TIME_NONE. */
static sked_time row_time(const sked__row *r, int i)
{
    return r->d->null(r, i) ? SKED_TIME_NONE : r->d->i64(r, i);
}

/* Column I of R, a word, as the enum value PARSE gives it into *out;
 * false when it is none of its words (or NULL, or out of memory). The
 * caller has a const char *word in scope, which gets the text. */
#define ROW_WORD(r, i, parse, out)                                             \
    (r->d->text(r, i, &word) && parse(word, out) == 0)

/* The reading of one field into V from column I by its kind (the field
 * tables of model/): text and documents are copied (OK false on ENOMEM),
 * words parsed (BAD on an unknown one). The reader has ok, bad and a
 * const char *word in scope. */
#define READ_TEXT(v, i)    ok = ok && sked__row_dup(r, i, &(v));
#define READ_DOC(v, i)     READ_TEXT(v, i)
#define READ_STATUS(v, i)  bad |= !ROW_WORD(r, i, sked__run_status_parse, &(v));
#define READ_TRIGGER(v, i) bad |= !ROW_WORD(r, i, sked__trigger_parse, &(v));
#define READ_BOOL(v, i)    v = r->d->i64(r, i) != 0;
#define READ_I32(v, i)     v = (int32_t) r->d->i64(r, i);
#define READ_I64(v, i)     v = r->d->i64(r, i);
#define READ_FLAGS(v, i)   v = (int) r->d->i64(r, i);
#define READ_TIME(v, i)    v = row_time(r, i);
/* The column is checked, so an unknown word cannot be: it reads as
 * failed rather than losing the list. */
#define READ_STEP_STATUS(v, i)                                                 \
    if (!ROW_WORD(r, i, sked__step_status_parse, &(v)))                        \
        v = SKED_STEP_FAILED;
#define READ_EXIT(v, i) v = r->d->null(r, i) ? -1 : (int32_t) r->d->i64(r, i);
/* Runs only: NULL, or the status the failure path ends with. */
#define READ_OUTCOME(v, i)                                                     \
    run->failing = !r->d->null(r, i);                                          \
    bad |= run->failing && !ROW_WORD(r, i, sked__run_status_parse, &(v));

/* ---- runs ----------------------------------------------------------- */

#define READ_RUN(m, kind, col, json) READ_##kind(run->m, SKED__RUN_COL_##m)

/* A word that is none of its enum's: the schema's checks forbid it, so
 * the database was written by something else. */
static int unknown_word(const char *what, sked_error *err)
{
    return sked__error_set(err, SKED_EIO, "db", -1,
                           "the database holds a run with an unknown %s", what);
}

static int run_read(const sked__row *r, void *dst, sked_error *err)
{
    sked_run *run = dst;
    const char *word = NULL;
    bool ok = true, bad = false;

    sked__run_init(run);
    SKED__RUN_FIELDS(READ_RUN, READ_RUN)
    if (!ok || bad) {
        sked__run_done(run);
        return ok ? unknown_word("status, trigger or outcome", err)
                  : sked__nomem(err);
    }
    return 0;
}

static void runs_free(void *v, size_t n)
{
    sked__runs_free(v, n);
}

const sked__row_kind sked__row_run = {sizeof(sked_run), run_read, runs_free};

/* SKED__CAND_COLUMNS. */
enum {
    C_ID,
    C_WF,
    C_VER,
    C_QUEUE,
    C_STATUS,
    C_EXEC,
    C_PRIO,
    C_NB,
    C_CREATED,
    C_STARTED
};

static int cand_read(const sked__row *r, void *dst, sked_error *err)
{
    sked_run *run = dst;
    const char *word = NULL;

    sked__run_init(run);
    if (!sked__row_dup(r, C_ID, &run->id) ||
        !sked__row_dup(r, C_WF, &run->workflow) ||
        !sked__row_dup(r, C_VER, &run->workflow_version) ||
        !sked__row_dup(r, C_QUEUE, &run->queue) ||
        !sked__row_dup(r, C_EXEC, &run->executor)) {
        sked__run_done(run);
        return sked__nomem(err);
    }
    if (!ROW_WORD(r, C_STATUS, sked__run_status_parse, &run->status)) {
        sked__run_done(run);
        return unknown_word("status", err);
    }
    run->priority = (int32_t) r->d->i64(r, C_PRIO);
    run->not_before = row_time(r, C_NB);
    run->created_at = row_time(r, C_CREATED);
    run->started_at = row_time(r, C_STARTED);
    return 0;
}

const sked__row_kind sked__row_cand = {sizeof(sked_run), cand_read, runs_free};

/* ---- step attempts ---------------------------------------------------- */

#define READ_STEP(m, kind, col, json) READ_##kind(s->m, SKED__STEP_COL_##m)

static int step_read(const sked__row *r, void *dst, sked_error *err)
{
    sked_step_record *s = dst;
    const char *word = NULL;
    bool ok = true;

    SKED__STEP_FIELDS(READ_STEP, READ_STEP)
    if (!ok) {
        sked__step_record_done(s);
        return sked__nomem(err);
    }
    return 0;
}

static void steps_free(void *v, size_t n)
{
    sked__step_records_free(v, n);
}

const sked__row_kind sked__row_step = {sizeof(sked_step_record), step_read,
                                       steps_free};

/* ---- events ----------------------------------------------------------- */

#define READ_EVENT(m, kind, col, json) READ_##kind(e->m, SKED__EVENT_COL_##m)

static int event_read(const sked__row *r, void *dst, sked_error *err)
{
    sked_event *e = dst;
    bool ok = true;

    SKED__EVENT_FIELDS(READ_EVENT, READ_EVENT)
    if (!ok) {
        sked__event_done(e);
        return sked__nomem(err);
    }
    return 0;
}

static void events_free(void *v, size_t n)
{
    sked__events_free(v, n);
}

const sked__row_kind sked__row_event = {sizeof(sked_event), event_read,
                                        events_free};

/* ---- leases ----------------------------------------------------------- */

static int renewed_read(const sked__row *r, void *dst, sked_error *err)
{
    char **id = dst;

    return r->d->i64(r, 1) == 0 || sked__row_dup(r, 0, id) ? 0
                                                           : sked__nomem(err);
}

static void renewed_free(void *v, size_t n)
{
    char **ids = v;

    for (size_t i = 0; ids && i < n; i++)
        free(ids[i]);
    free(ids);
}

const sked__row_kind sked__row_renewed = {sizeof(char *), renewed_read,
                                          renewed_free};

void sked__renewed_pick(char **rows, size_t n, size_t *renewed,
                        char ***cancel_ids, size_t *ncancel)
{
    size_t k = 0;

    for (size_t i = 0; i < n; i++)
        if (rows[i])
            rows[k++] = rows[i];
    if (k == 0) {
        free(rows);
        rows = NULL;
    }
    *renewed = n;
    *cancel_ids = rows;
    *ncancel = k;
}

/* ---- the executor's writes ------------------------------------------- */

int sked__row_fence(const sked__row *r, sked__fence *f, sked_error *err)
{
    const char *word = NULL;

    memset(f, 0, sizeof *f);
    f->found = ROW_WORD(r, 1, sked__run_status_parse, &f->status);
    if (sked__row_dup(r, 2, &f->executor) &&
        sked__row_dup(r, 3, &f->schedule) && sked__row_dup(r, 4, &f->tid))
        return 0;
    free(f->executor);
    free(f->schedule);
    memset(f, 0, sizeof *f);
    return sked__nomem(err);
}

void sked__row_failures(const sked__row *r, sked__failures *f)
{
    const char *word = NULL;

    f->found = r->d->text(r, 1, &word) &&
               sked_schedule_status_parse(word, "", &f->status, NULL) == 0;
    if (f->found) {
        f->count = (int32_t) r->d->i64(r, 2);
        f->pause_after = (int32_t) r->d->i64(r, 3);
    }
}

/* ---- queues ----------------------------------------------------------- */

#define READ_LOAD(m, kind, col, json)                                          \
    READ_##kind(q->m, SKED__QUEUE_LOAD_COL_##m)

static int load_read(const sked__row *r, void *dst, sked_error *err)
{
    sked__queue_load *q = dst;
    bool ok = true;

    SKED__QUEUE_LOAD_FIELDS(READ_LOAD, READ_LOAD)
    return ok ? 0 : sked__nomem(err);
}

static void loads_free(void *v, size_t n)
{
    sked__queue_load *q = v;

    for (size_t i = 0; q && i < n; i++)
        free(q[i].name);
    free(q);
}

const sked__row_kind sked__row_queue_load = {sizeof(sked__queue_load),
                                             load_read, loads_free};

#define READ_INFO(m, kind, col, json)                                          \
    READ_##kind(q->m, SKED__QUEUE_INFO_COL_##m)

static int info_read(const sked__row *r, void *dst, sked_error *err)
{
    sked_queue_info *q = dst;
    bool ok = true;

    SKED__QUEUE_INFO_FIELDS(READ_INFO, READ_INFO)
    return ok ? 0 : sked__nomem(err);
}

static void infos_free(void *v, size_t n)
{
    sked__queue_infos_free(v, n);
}

const sked__row_kind sked__row_queue_info = {sizeof(sked_queue_info), info_read,
                                             infos_free};

static int fresh_read(const sked__row *r, void *dst, sked_error *err)
{
    sked_schedule_fresh *f = dst;

    if (!sked__row_dup(r, 0, &f->name))
        return sked__nomem(err);
    f->last_run = row_time(r, 1);
    f->last_success = row_time(r, 2);
    return 0;
}

static void fresh_free(void *v, size_t n)
{
    sked__schedule_fresh_free(v, n);
}

const sked__row_kind sked__row_schedule_fresh = {sizeof(sked_schedule_fresh),
                                                 fresh_read, fresh_free};
