/* SPDX-License-Identifier: MIT */
/* New runs and the event log on PostgreSQL (store_ops.h, schema:
 * schema/pg/), the rows that firings, triggers and every change write
 * beside their schedules, and the server's clock.
 *
 * Every value travels as text, both ways. A batch of runs is one
 * statement: the columns go as arrays through unnest(), sorted by id so
 * two batches that share ids lock them in the same order (no deadlock),
 * and RETURNING id says which rows this batch created. The array
 * literals they travel in are built here too (sked__pg_alit, pg.h).
 * Schedules are in pg_schedule.c; execution in pg_run.c. */
#include "base/alloc.h"
#include "store/pg.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "model/event_fields.h"

#define NUMLEN SKED__PG_NUMLEN

/* ---- reading rows (store_row.h) ---------------------------------------*/

static bool row_text(const sked__row *r, int i, const char **out)
{
    *out =
        PQgetisnull(r->res, r->row, i) ? NULL : PQgetvalue(r->res, r->row, i);
    return true;
}

static int64_t row_i64(const sked__row *r, int i)
{
    return strtoll(PQgetvalue(r->res, r->row, i), NULL, 10);
}

static bool row_null(const sked__row *r, int i)
{
    return PQgetisnull(r->res, r->row, i);
}

const sked__row_driver sked__pg_row_driver = {row_text, row_i64, row_null};

int sked__pg_rows(const PGresult *res, const sked__row_kind *kind, void **out,
                  size_t *n, sked_error *err)
{
    size_t rows = (size_t) PQntuples(res), k = 0;
    char *v = sked__calloc(rows ? rows : 1, kind->size);
    sked__row r = {&sked__pg_row_driver, (void *) res, 0};
    int rc = v ? 0 : sked__nomem(err);

    for (; rc == 0 && k < rows; k++) {
        r.row = (int) k;
        if ((rc = kind->read(&r, v + k * kind->size, err)) != 0)
            break;
    }
    if (rc != 0) {
        kind->free(v, k);
        return rc;
    }
    *out = v;
    *n = rows;
    return 0;
}

int sked__pg_query_rows(sked__tx *tx, const sked__pg_stmt *stmt,
                        const char *const *params, const sked__row_kind *kind,
                        void **out, size_t *n, sked_error *err)
{
    PGresult *res = NULL;
    int rc = sked__pg_exec(tx, stmt, params, &res, err);

    if (rc == 0)
        rc = sked__pg_rows(res, kind, out, n, err);
    PQclear(res);
    return rc;
}

/* ---- runs --------------------------------------------------------------*/

/* The batch insert of runs; CONFLICT is the ON CONFLICT clause. SPEC
 * 4.2: a run's queue is its schedule's, else its workflow's (the latest
 * registered definition's), else "default". */
#define RUNS_INSERT_SQL(conflict)                                              \
    "INSERT INTO runs (id, workflow, workflow_version, status, trigger_kind, " \
    "schedule, scheduled_for, occurrence_at, queue, priority, "                \
    "concurrency_key, not_before, context, created_at, updated_at, "           \
    "serial_key, deadline_at) "                                                \
    "SELECT r.id, r.workflow, r.version, r.status, r.trig, r.schedule, "       \
    "r.sched_for, coalesce(r.occ, r.sched_for), coalesce(r.queue, (SELECT "    \
    "v.definition::json->>'queue' "                                            \
    "FROM workflow_versions v WHERE v.workflow = r.workflow "                  \
    "AND v.registered_at = (SELECT max(m.registered_at) "                      \
    "FROM workflow_versions m WHERE m.workflow = r.workflow) LIMIT 1), "       \
    "'default'), r.priority, r.ckey, "                                         \
    "coalesce(r.not_before, $12::bigint), coalesce(r.context, '{}'), "         \
    "$12::bigint, $12::bigint, r.skey, r.deadline "                            \
    "FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], "             \
    "$5::text[], $6::bigint[], $7::text[], $8::integer[], $9::text[], "        \
    "$10::bigint[], $11::text[], $13::text[], $14::text[], $15::bigint[], "    \
    "$16::bigint[]) "                                                          \
    "AS r(id, workflow, version, trig, schedule, sched_for, queue, priority, " \
    "ckey, not_before, context, skey, status, occ, deadline) "                 \
    "ORDER BY r.id " conflict " RETURNING id"

static const sked__pg_stmt RUNS_INSERT = {
    SKED__PG_RUNS_INSERT, 16, RUNS_INSERT_SQL("ON CONFLICT (id) DO NOTHING")};

/* No conflict target: DO NOTHING covers the id and the active-key index
 * alike; the ids not returned are then looked up to tell them apart. */
static const sked__pg_stmt RUNS_INSERT_LENIENT = {
    SKED__PG_RUNS_INSERT_LENIENT, 16,
    RUNS_INSERT_SQL("ON CONFLICT DO NOTHING")};

static const sked__pg_stmt RUNS_EXISTING = {
    SKED__PG_RUNS_EXISTING, 1,
    "SELECT id FROM runs WHERE id = ANY($1::text[])"};

/* By the position of each schedule in $1 (from 1); a schedule without
 * active runs has no row. */
static const sked__pg_stmt RUNS_ACTIVE = {
    SKED__PG_RUNS_ACTIVE, 1,
    "SELECT u.i, count(*) FROM unnest($1::text[]) WITH ORDINALITY AS u(s, i) "
    "JOIN runs r ON r.schedule = u.s "
    "AND r.status IN ('pending', 'running', 'waiting') GROUP BY u.i"};

/* ---- array literals (pg.h) ---------------------------------------------*/

void sked__pg_alit_put(sked__pg_alit *a, const char *s, size_t n)
{
    (void) sked__buf_add(a, s, n);
}

/* An element is written in one pass into room for its worst case (every
 * byte escaped): a batch writes thousands of them. */
void sked__pg_alit_text(sked__pg_alit *a, const char *s, bool first)
{
    size_t len;
    char *p, *start;

    if (s == NULL) {
        sked__pg_alit_put(a, first ? "{NULL" : ",NULL", 5);
        return;
    }
    len = strlen(s);
    if (!(p = start = sked__buf_room(a, 2 * len + 3)))
        return;
    *p++ = first ? '{' : ',';
    *p++ = '"';
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            *p++ = '\\';
        *p++ = *s;
    }
    *p++ = '"';
    sked__buf_grew(a, (size_t) (p - start));
}

int sked__pg_alit_exec(sked__tx *tx, const sked__pg_stmt *stmt,
                       sked__pg_alit *a, PGresult **res, sked_error *err)
{
    const char *params[1] = {a->p};
    int rc = a->failed ? sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL)
                       : sked__pg_exec(tx, stmt, params, res, err);

    free(a->p);
    return rc;
}

void sked__pg_alit_int(sked__pg_alit *a, int64_t v, bool null, bool first)
{
    char *p;

    if (null) {
        sked__pg_alit_put(a, first ? "{NULL" : ",NULL", 5);
        return;
    }
    if (!(p = sked__buf_room(a, SKED_I64_TEXT + 1)))
        return;
    *p = first ? '{' : ',';
    sked__buf_grew(a, 1 + sked__i64_text(v, p + 1));
}

bool sked__pg_alits_close(sked__pg_alit *a, int n, size_t elems,
                          const char **params)
{
    bool oom = false;

    for (int k = 0; k < n; k++) {
        sked__pg_alit_put(&a[k], elems == 0 ? "{}" : "}", elems == 0 ? 2 : 1);
        params[k] = a[k].p;
        oom = oom || a[k].failed;
    }
    return oom;
}

void sked__pg_alits_free(sked__pg_alit *a, int n)
{
    for (int k = 0; k < n; k++)
        free(a[k].p);
}

const char *sked__pg_num(int64_t v, char *buf)
{
    buf[sked__i64_text(v, buf)] = '\0';
    return buf;
}

enum {
    R_ID,
    R_WF,
    R_VER,
    R_TRIG,
    R_SCHED,
    R_FOR,
    R_QUEUE,
    R_PRIO,
    R_KEY,
    R_NB,
    R_CTX,
    R_COUNT
};
/* The serial keys, the statuses, the occurrences and the deadlines: four
 * more arrays, parameters 13 to 16, after "now" (12). */
#define R_SKEY     R_COUNT
#define R_STATUS   (R_COUNT + 1)
#define R_OCC      (R_COUNT + 2)
#define R_DEADLINE (R_COUNT + 3)
#define R_ARRAYS   (R_COUNT + 4)

/* Fill the R_ARRAYS array literals from the N runs. */
static void runs_to_arrays(const sked_run_new *runs, size_t n, sked__pg_alit *a)
{
    size_t i;

    for (i = 0; i < n; i++) {
        const sked_run_new *r = &runs[i];
        bool first = i == 0;
        sked__pg_alit_text(&a[R_ID], r->id, first);
        sked__pg_alit_text(&a[R_WF], r->workflow, first);
        sked__pg_alit_text(&a[R_VER], r->workflow_version, first);
        sked__pg_alit_text(&a[R_TRIG], sked__trigger_name(r->trigger), first);
        sked__pg_alit_text(&a[R_SCHED], r->schedule, first);
        sked__pg_alit_int(&a[R_FOR], r->scheduled_for,
                          r->scheduled_for == SKED_TIME_NONE, first);
        sked__pg_alit_text(&a[R_QUEUE], r->queue, first);
        sked__pg_alit_int(&a[R_PRIO], r->priority, false, first);
        sked__pg_alit_text(&a[R_KEY], r->concurrency_key, first);
        sked__pg_alit_int(&a[R_NB], r->not_before,
                          r->not_before == SKED_TIME_NONE, first);
        sked__pg_alit_text(&a[R_CTX], r->context, first);
        sked__pg_alit_text(&a[R_SKEY], r->serial_key, first);
        sked__pg_alit_text(&a[R_STATUS], r->buffered ? "waiting" : "pending",
                           first);
        sked__pg_alit_int(&a[R_OCC], r->occurrence,
                          r->occurrence == 0 || r->occurrence == SKED_TIME_NONE,
                          first);
        sked__pg_alit_int(
            &a[R_DEADLINE], r->deadline_at,
            r->deadline_at == 0 || r->deadline_at == SKED_TIME_NONE, first);
    }
    for (i = 0; i < R_ARRAYS; i++)
        sked__pg_alit_put(&a[i], "}", 1);
}

/* Indexes of the batch sorted by id, for marking what RETURNING gave. */
typedef struct by_id {
    const char *id;
    size_t i;
} by_id;

static int cmp_by_id(const void *x, const void *y)
{
    const by_id *a = x, *b = y;
    int c = strcmp(a->id, b->id);

    if (c != 0)
        return c;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* Set created[i] for each run whose id RES returned; a repeated id in
 * the batch counts as created once, at its first place. */
static int mark_created(const PGresult *res, const sked_run_new *runs, size_t n,
                        bool *created, sked_error *err)
{
    by_id *idx = sked__malloc(n * sizeof(*idx));
    int row, rows = PQntuples(res);
    size_t i;

    if (idx == NULL)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    for (i = 0; i < n; i++) {
        idx[i] = (by_id){runs[i].id, i};
        created[i] = false;
    }
    qsort(idx, n, sizeof(*idx), cmp_by_id);
    for (row = 0; row < rows; row++) {
        by_id key = {PQgetvalue(res, row, 0), 0};
        size_t lo = 0, hi = n;
        while (lo < hi) { /* the first entry >= key */
            size_t mid = lo + (hi - lo) / 2;
            if (cmp_by_id(&idx[mid], &key) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < n && strcmp(idx[lo].id, key.id) == 0)
            created[idx[lo].i] = true;
    }
    free(idx);
    return 0;
}

/* Report the unique violation of the active-key index: the key comes from
 * the server's DETAIL, "Key (concurrency_key)=(KEY) already exists.", and
 * err->pos is the first run of the batch that holds it (store_ops.h). */
static int key_conflict(sked__tx *tx, const sked_run_new *runs, size_t n,
                        sked_error *err)
{
    const char *d = sked__pg_error_detail(tx), *open, *close;
    size_t len = 0;
    long pos = -1;

    open = strstr(d, ")=(");
    close = strstr(d, ") already exists");
    if (open != NULL && close != NULL && close > open + 3) {
        open += 3;
        len = (size_t) (close - open);
    }
    for (size_t i = 0; open && i < n && pos < 0; i++)
        if (runs[i].concurrency_key != NULL &&
            strlen(runs[i].concurrency_key) == len &&
            memcmp(runs[i].concurrency_key, open, len) == 0)
            pos = (long) i;
    return sked__error_set(err, SKED_ECONFLICT, "concurrency_key", pos, NULL);
}

/* Run the batch insert STMT of the N runs at NOW. OUT: *res. */
static int runs_exec(sked__tx *tx, const sked__pg_stmt *stmt,
                     const sked_run_new *runs, size_t n, sked_time now,
                     PGresult **res, sked_error *err)
{
    sked__pg_alit a[R_ARRAYS] = {0};
    const char *params[R_ARRAYS + 1];
    char nowbuf[NUMLEN];
    int i, rc = 0;

    runs_to_arrays(runs, n, a);
    for (i = 0; i < R_COUNT; i++)
        params[i] = a[i].p;
    (void) snprintf(nowbuf, sizeof(nowbuf), "%" PRId64, now);
    params[R_COUNT] = nowbuf;
    params[R_COUNT + 1] = a[R_SKEY].p;
    params[R_COUNT + 2] = a[R_STATUS].p;
    params[R_COUNT + 3] = a[R_OCC].p;
    params[R_COUNT + 4] = a[R_DEADLINE].p;
    for (i = 0; i < R_ARRAYS; i++)
        if (a[i].failed)
            rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (rc == 0)
        rc = sked__pg_exec(tx, stmt, params, res, err);
    for (i = 0; i < R_ARRAYS; i++)
        free(a[i].p);
    return rc;
}

int sked__pg_rows_runs_insert(sked__tx *tx, const sked_run_new *runs, size_t n,
                              sked_time now, bool *created, sked_error *err)
{
    PGresult *res = NULL;
    int rc;

    if (n == 0)
        return 0;
    rc = runs_exec(tx, &RUNS_INSERT, runs, n, now, &res, err);
    if (rc == SKED_ECONFLICT)
        rc = key_conflict(tx, runs, n, err);
    if (rc == 0)
        rc = mark_created(res, runs, n, created, err);
    PQclear(res);
    return rc;
}

/* Mark in STATE the runs (not inserted) whose id RES lists as existing. */
static void mark_existing(const PGresult *res, const sked_run_new *runs,
                          size_t n, sked_run_insert_state *state)
{
    int rows = PQntuples(res);

    for (size_t i = 0; i < n; i++) {
        if (state[i] == SKED_RUN_INSERTED)
            continue;
        state[i] = SKED_RUN_REFUSED;
        for (int r = 0; r < rows; r++)
            if (strcmp(PQgetvalue(res, r, 0), runs[i].id) == 0)
                state[i] = SKED_RUN_EXISTED;
    }
}

/* Look up which of the runs not inserted exist. */
static int find_existing(sked__tx *tx, const sked_run_new *runs, size_t n,
                         sked_run_insert_state *state, sked_error *err)
{
    sked__pg_alit a = {0};
    bool first = true;
    PGresult *res;
    int rc;

    for (size_t i = 0; i < n; i++)
        if (state[i] != SKED_RUN_INSERTED) {
            sked__pg_alit_text(&a, runs[i].id, first);
            first = false;
        }
    if (first)
        return 0; /* every run was inserted */
    sked__pg_alit_put(&a, "}", 1);
    rc = sked__pg_alit_exec(tx, &RUNS_EXISTING, &a, &res, err);
    if (rc < 0)
        return rc;
    mark_existing(res, runs, n, state);
    PQclear(res);
    return 0;
}

int sked__pg_rows_runs_insert_lenient(sked__tx *tx, const sked_run_new *runs,
                                      size_t n, sked_time now,
                                      sked_run_insert_state *state,
                                      sked_error *err)
{
    bool *created;
    PGresult *res = NULL;
    int rc;

    if (n == 0)
        return 0;
    created = sked__calloc(n, sizeof(*created));
    if (created == NULL)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    rc = runs_exec(tx, &RUNS_INSERT_LENIENT, runs, n, now, &res, err);
    if (rc == 0)
        rc = mark_created(res, runs, n, created, err);
    PQclear(res);
    for (size_t i = 0; rc == 0 && i < n; i++)
        state[i] = created[i] ? SKED_RUN_INSERTED : SKED_RUN_REFUSED;
    free(created);
    if (rc == 0)
        rc = find_existing(tx, runs, n, state, err);
    return rc;
}

int sked__pg_rows_runs_active(sked__tx *tx, const char *const *schedules,
                              size_t n, int64_t *counts, sked_error *err)
{
    sked__pg_alit a = {0};
    PGresult *res;
    int rc;

    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        counts[i] = 0;
        sked__pg_alit_text(&a, schedules[i], i == 0);
    }
    sked__pg_alit_put(&a, "}", 1);
    rc = sked__pg_alit_exec(tx, &RUNS_ACTIVE, &a, &res, err);
    if (rc < 0)
        return rc;
    for (int r = 0; r < PQntuples(res); r++) {
        long long i = strtoll(PQgetvalue(res, r, 0), NULL, 10);
        if (i >= 1 && (size_t) i <= n)
            counts[i - 1] = strtoll(PQgetvalue(res, r, 1), NULL, 10);
    }
    PQclear(res);
    return 0;
}
/* ---- events ------------------------------------------------------------*/

/* Events are stored in pages (schema/pg/0005_run_rate.sql): a page's
 * events have the ids id, id + 1, ... and the page's id is a multiple of
 * SKED_EVENT_PAGE from the sequence event_blocks. */

/* The most bytes of text a page is given before a new one starts, so a
 * page of small events stays in its row (toast_tuple_target 8160). */
#define PAGE_BYTES 6000

static const sked__pg_stmt EVENT_APPEND = {
    SKED__PG_EVENT_APPEND, 4,
    "INSERT INTO event_pages (id, types, subjects, payloads, ats, last_at) "
    "VALUES (nextval('event_blocks'), ARRAY[$1::text], ARRAY[$2::text], "
    "ARRAY[$3::text], ARRAY[$4::bigint], $4::bigint)"};

/* The pages that may hold an id > $1 (a page holds at most 64, so none
 * starting 64 or more below it), at most $2 of them, since each holds at
 * least one event. Their events are named as the events' columns in the
 * subquery ev (which the planner pulls up), so that the row selected is
 * SKED__EVENT_COLUMNS, as on SQLite. */
static const sked__pg_stmt EVENT_LIST = {
    SKED__PG_EVENT_LIST, 2,
    "SELECT " SKED__EVENT_COLUMNS " FROM (SELECT p.id + e.k - 1 AS id, "
    "e.type, e.subject, e.payload, e.at "
    "FROM (SELECT id, types, subjects, payloads, ats FROM event_pages "
    "WHERE id > $1::bigint - 64 AND id + cardinality(types) - 1 > $1::bigint "
    "ORDER BY id LIMIT $2::bigint) p "
    "CROSS JOIN LATERAL unnest(p.types, p.subjects, p.payloads, p.ats) "
    "WITH ORDINALITY AS e(type, subject, payload, at, k)) ev "
    "WHERE id > $1::bigint ORDER BY id LIMIT $2::bigint"};

/* As EVENT_LIST, the events of one of the types $3 (none: any) and of
 * subject $4 (NULL: any): the pages that hold one of the types, or the
 * subject (event_filter_keys, schema/pg/0015_event_keys.sql), are found
 * by their GIN index. Each holds one, but the first may hold only older
 * ones: $2 + 1 pages hold $2 events when so many exist. With types and a
 * subject, a page of the subject may hold none of the types: the pages
 * of the subject, those of one run or one schedule, are read all. */
static const sked__pg_stmt EVENT_FIND = {
    SKED__PG_EVENT_FIND, 4,
    "SELECT " SKED__EVENT_COLUMNS " FROM (SELECT p.id + e.k - 1 AS id, "
    "e.type, e.subject, e.payload, e.at "
    "FROM (SELECT id, types, subjects, payloads, ats FROM event_pages "
    "WHERE id > $1::bigint - 64 AND id + cardinality(types) - 1 > $1::bigint "
    "AND event_page_keys(types, subjects) && "
    "event_filter_keys($3::text[], $4::text) "
    "ORDER BY id LIMIT CASE WHEN $4::text IS NULL "
    "OR cardinality($3::text[]) = 0 THEN $2::bigint + 1 END) p "
    "CROSS JOIN LATERAL unnest(p.types, p.subjects, p.payloads, p.ats) "
    "WITH ORDINALITY AS e(type, subject, payload, at, k)) ev "
    "WHERE id > $1::bigint AND (cardinality($3::text[]) = 0 "
    "OR type = ANY ($3::text[])) AND ($4::text IS NULL OR subject = $4::text) "
    "ORDER BY id LIMIT $2::bigint"};

static const sked__pg_stmt EVENT_PRUNE = {
    SKED__PG_EVENT_PRUNE, 1,
    /* A page holding an event a delivery names is kept as long as the
     * delivery (schema 0014): the delivery is sent and listed from it. */
    "WITH d AS (DELETE FROM event_pages p WHERE last_at < $1::bigint AND "
    "NOT EXISTS (SELECT 1 FROM notify_deliveries n WHERE n.event_id >= p.id "
    "AND n.event_id < p.id + cardinality(p.types) AND n.event IS NULL) "
    "RETURNING cardinality(types) AS n) SELECT coalesce(sum(n), 0) FROM d"};

/* Who caused them (the payload's end $5, sked__event_filter), with the
 * filter of EVENT_FIND but without the pages' keys, which name no actor:
 * the audit's question reads the log in id order. */
static const sked__pg_stmt EVENT_FIND_ACTOR = {
    SKED__PG_EVENT_FIND_ACTOR, 5,
    "SELECT " SKED__EVENT_COLUMNS " FROM (SELECT p.id + e.k - 1 AS id, "
    "e.type, e.subject, e.payload, e.at FROM event_pages p "
    "CROSS JOIN LATERAL unnest(p.types, p.subjects, p.payloads, p.ats) "
    "WITH ORDINALITY AS e(type, subject, payload, at, k) "
    "WHERE p.id > $1::bigint - 64 "
    "AND p.id + cardinality(p.types) - 1 > $1::bigint) ev "
    "WHERE id > $1::bigint AND right(payload, length($5::text)) = $5::text "
    "AND (cardinality($3::text[]) = 0 OR type = ANY ($3::text[])) "
    "AND ($4::text IS NULL OR subject = $4::text) "
    "ORDER BY id LIMIT $2::bigint"};

int sked__pg_rows_event_append(sked__tx *tx, const char *type,
                               const char *subject, const char *payload,
                               sked_time at, sked_error *err)
{
    char atbuf[NUMLEN];
    const char *params[4] = {type, subject, payload, atbuf};

    (void) snprintf(atbuf, sizeof(atbuf), "%" PRId64, at);
    return sked__pg_exec(tx, &EVENT_APPEND, params, NULL, err);
}

int sked__pg_rows_event_list(sked__tx *tx, int64_t after_id, size_t limit,
                             const sked__event_filter *f, sked_event **out,
                             size_t *n, sked_error *err)
{
    char after[NUMLEN], lim[NUMLEN];
    const char *params[5] = {sked__pg_num(after_id, after),
                             sked__pg_num((int64_t) limit, lim), NULL, NULL,
                             NULL};
    sked__pg_alit types = {0};
    int rc;

    if (!f)
        return sked__pg_query_rows(tx, &EVENT_LIST, params, &sked__row_event,
                                   (void **) out, n, err);
    for (size_t i = 0; i < f->ntypes; i++)
        sked__pg_alit_text(&types, f->types[i], i == 0);
    if (sked__pg_alits_close(&types, 1, f->ntypes, &params[2])) {
        sked__pg_alits_free(&types, 1);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    params[3] = f->subject;
    params[4] = f->actor_tail;
    rc =
        sked__pg_query_rows(tx, f->actor_tail ? &EVENT_FIND_ACTOR : &EVENT_FIND,
                            params, &sked__row_event, (void **) out, n, err);
    sked__pg_alits_free(&types, 1);
    return rc;
}

/* The newest page's last event: the primary key read from its end. */
static const sked__pg_stmt EVENT_LAST = {
    SKED__PG_EVENT_LAST, 0,
    "SELECT id + cardinality(types) - 1 FROM event_pages "
    "ORDER BY id DESC LIMIT 1"};

int sked__pg_rows_event_last(sked__tx *tx, int64_t *out, sked_error *err)
{
    PGresult *res;
    int rc = sked__pg_exec(tx, &EVENT_LAST, NULL, &res, err);

    if (rc < 0)
        return rc;
    *out = PQntuples(res) > 0 ? strtoll(PQgetvalue(res, 0, 0), NULL, 10) : 0;
    PQclear(res);
    return 0;
}

int sked__pg_rows_event_prune(sked__tx *tx, sked_time before, int64_t *deleted,
                              sked_error *err)
{
    char buf[NUMLEN];
    const char *params[1] = {buf};
    PGresult *res;
    int rc;

    (void) snprintf(buf, sizeof(buf), "%" PRId64, before);
    rc = sked__pg_exec(tx, &EVENT_PRUNE, params, &res, err);
    if (rc < 0)
        return rc;
    if (deleted != NULL)
        *deleted = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
    PQclear(res);
    return 0;
}

/* How many of the N events EV go in the next page: at most
 * SKED_EVENT_PAGE, and no more than PAGE_BYTES of text unless one. */
static size_t page_cut(const sked_event *ev, size_t n)
{
    size_t k = 0, bytes = 0;

    while (k < n && k < SKED_EVENT_PAGE) {
        bytes +=
            strlen(ev[k].type) + strlen(ev[k].subject) + strlen(ev[k].payload);
        if (k > 0 && bytes > PAGE_BYTES)
            break;
        k++;
    }
    return k;
}

static const sked__pg_stmt EVENTS_APPEND = {
    SKED__PG_EVENTS_APPEND, 5,
    "INSERT INTO event_pages (id, types, subjects, payloads, ats, last_at) "
    "VALUES (nextval('event_blocks'), $1::text[], $2::text[], $3::text[], "
    "$4::bigint[], $5::bigint) RETURNING id"};

/* The pages of one transaction's events, written in one round trip
 * (sked__pg_exec_many): page I holds the events from at[I] to at[I + 1]
 * (exclusive); its ids are given as its result comes back. */
typedef struct pages {
    const sked_event *ev;
    size_t *at; /* npages + 1 */
    size_t npages;
    int64_t *ids;
    sked__pg_alit a[4];
    char last[NUMLEN];
} pages;

static void pages_clear(pages *pg)
{
    for (int k = 0; k < 4; k++)
        sked__buf_clear(&pg->a[k]);
}

/* The parameters of page I: its events as arrays, and its last instant. */
static int page_params(void *ctx, size_t i, const char **params)
{
    pages *pg = ctx;
    sked_time last_at = pg->ev[pg->at[i]].at;

    pages_clear(pg);
    for (size_t j = pg->at[i]; j < pg->at[i + 1]; j++) {
        const sked_event *e = &pg->ev[j];
        bool first = j == pg->at[i];
        sked__pg_alit_text(&pg->a[0], e->type, first);
        sked__pg_alit_text(&pg->a[1], e->subject, first);
        sked__pg_alit_text(&pg->a[2], e->payload, first);
        sked__pg_alit_int(&pg->a[3], e->at, false, first);
        last_at = e->at > last_at ? e->at : last_at;
    }
    if (sked__pg_alits_close(pg->a, 4, pg->at[i + 1] - pg->at[i], params))
        return SKED_ENOMEM;
    params[4] = sked__pg_num(last_at, pg->last);
    return 0;
}

/* Page I's id, from RES: its events' ids follow from it. */
static int page_result(void *ctx, size_t i, const PGresult *res)
{
    pages *pg = ctx;
    int64_t first = strtoll(PQgetvalue(res, 0, 0), NULL, 10);

    for (size_t j = pg->at[i]; j < pg->at[i + 1]; j++)
        pg->ids[j] = first + (int64_t) (j - pg->at[i]);
    return 0;
}

int sked__pg_rows_events_append(sked__tx *tx, const sked_event *ev, size_t n,
                                int64_t *ids, sked_error *err)
{
    pages pg = {
        .ev = ev, .ids = ids, .at = sked__malloc((n + 1) * sizeof *pg.at)};
    int rc = 0;

    if (!pg.at)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    for (size_t i = 0; i < n; i += page_cut(ev + i, n - i))
        pg.at[pg.npages++] = i;
    pg.at[pg.npages] = n;
    rc = sked__pg_exec_many(tx, &EVENTS_APPEND, pg.npages, page_params,
                            page_result, &pg, err);
    sked__pg_alits_free(pg.a, 4);
    free(pg.at);
    return rc;
}
/* ---- the server's clock ------------------------------------------------*/

/* SPEC 3.2: the server's clock, in µs, as the engine compares it. */
static const sked__pg_stmt DB_CLOCK = {
    SKED__PG_DB_CLOCK, 0,
    "SELECT (extract(epoch from clock_timestamp()) * 1000000)::bigint"};

int sked__pg_rows_db_clock(sked__tx *tx, sked_time *out, sked_error *err)
{
    PGresult *res;
    int rc = sked__pg_exec(tx, &DB_CLOCK, NULL, &res, err);

    if (rc < 0)
        return rc;
    *out = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
    PQclear(res);
    return 0;
}
