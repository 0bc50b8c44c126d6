/* SPDX-License-Identifier: MIT */
/* New runs and the event log on SQLite (store_ops.h), the rows that
 * firings, triggers and every change write beside their schedules.
 *
 * The strict insert of runs (triggers) goes a statement per run and
 * fails on an active run that holds the same concurrency key. The lenient
 * one (firings, backfills) goes SKED__SQLITE_BATCH runs to a statement
 * (sqlite.h, "batches"), lets a refused run go and tells, per run,
 * whether it was inserted, existed or was refused. Events are appended
 * the same way. A run's queue is resolved in SQL (RUN_INSERT). The
 * statements are cached per connection by sqlite.c; execution's SQL is
 * in sqlite_run.c. */
#include "store/sqlite_rows.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "model/event_fields.h"
#include "store/sqlite.h"

enum rows_stmt {
    S_RUN_INSERT,
    S_RUN_INSERT_LENIENT,
    S_RUNS_INSERT_LENIENT,
    S_RUN_EXISTS,
    S_RUNS_ACTIVE,
    S_RUNS_ACTIVE_MANY,
    S_EVENT_APPEND,
    S_EVENTS_APPEND,
    S_EVENT_LIST,
    S_EVENT_LIST_SUBJECT,
    S_EVENT_LIST_TYPES,
    S_EVENT_LIST_ACTOR,
    S_EVENT_LAST,
    S_EVENT_PRUNE,
    S_COUNT
};

/* The active runs of the schedules NAMES ("?" once or more), by schedule
 * (a schedule without any has no row). */
#define RUNS_ACTIVE(names)                                                     \
    "SELECT schedule, count(*) FROM runs WHERE schedule IN (" names ") "       \
    "AND " SKED__SQLITE_ACTIVE("status") " GROUP BY schedule"

/* The events of type ?K (NULL: none) after ?1, and of subject ?19 when
 * it is not NULL: one range of events_type (schema 0008), at most ?2. */
#define TYPE_ARM(k)                                                            \
    "SELECT * FROM (SELECT " SKED__EVENT_COLUMNS                               \
    " FROM events WHERE type = ?" #k                                           \
    " AND id > ?1 AND (?19 IS NULL OR subject = ?19) ORDER BY id LIMIT ?2)"
#define UNION_ALL " UNION ALL "
#define TYPE_ARMS4(a, b, c, d)                                                 \
    TYPE_ARM(a) UNION_ALL TYPE_ARM(b)                                          \
    UNION_ALL TYPE_ARM(c)                                                      \
    UNION_ALL TYPE_ARM(d)
#define TYPE_ARMS16                                                            \
    TYPE_ARMS4(3, 4, 5, 6)                                                     \
    UNION_ALL TYPE_ARMS4(7, 8, 9, 10) UNION_ALL TYPE_ARMS4(11, 12, 13, 14)     \
        UNION_ALL TYPE_ARMS4(15, 16, 17, 18)

/* An event's row (event_bind's order). */
#define EVENT_ROW "(?, ?, ?, ?)"

/* A run's row: the parameters of one row of VALUES, which RUN_INSERT
 * reads as v.column1 to v.column16 (run_bind's order). */
#define RUN_ROW    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
#define RUN_PARAMS 16

/* Insert the runs of ROWS (RUN_ROW, once or more), on a conflict doing
 * CONFLICT. SPEC 4.2: a run's queue is its schedule's, else its
 * workflow's (the latest registered definition's), else "default". */
#define RUN_INSERT(rows, conflict)                                             \
    "INSERT INTO runs (id, workflow, workflow_version, status, "               \
    "trigger_kind, schedule, scheduled_for, occurrence_at, queue, priority, "  \
    "concurrency_key, not_before, context, attempts, created_at, "             \
    "updated_at, serial_key, deadline_at) SELECT v.column1, v.column2, "       \
    "v.column3, "                                                              \
    "CASE WHEN v.column14 THEN 'waiting' ELSE 'pending' END, v.column4, "      \
    "v.column5, v.column6, coalesce(v.column15, v.column6), "                  \
    "coalesce(v.column7, (SELECT "                                             \
    "json_extract(definition, '$.queue') FROM workflow_versions "              \
    "WHERE workflow = v.column2 AND registered_at = (SELECT "                  \
    "max(registered_at) FROM workflow_versions WHERE workflow = v.column2) "   \
    "LIMIT 1), 'default'), v.column8, v.column9, v.column10, v.column11, 0, "  \
    "v.column12, v.column12, v.column13, v.column16 FROM (VALUES " rows        \
    ") AS v "                                                                  \
    "WHERE true ON CONFLICT " conflict

static const char *const rows_sql[S_COUNT] = {
    [S_RUN_INSERT] = RUN_INSERT(RUN_ROW, "(id) DO NOTHING"),
    [S_EVENT_APPEND] = "INSERT INTO events (type, subject, payload, at) "
                       "VALUES " EVENT_ROW,
    [S_EVENTS_APPEND] = "INSERT INTO events (type, subject, payload, at) "
                        "VALUES " SKED__SQLITE_ROWS32(EVENT_ROW),
    /* In parentheses: clang takes two literals among macros for a
     * missing comma. */
    [S_EVENT_LIST] = ("SELECT " SKED__EVENT_COLUMNS " FROM events "
                      "WHERE id > ?1 ORDER BY id LIMIT ?2"),
    /* One range of events_subject (schema 0008), in id order. */
    [S_EVENT_LIST_SUBJECT] = ("SELECT " SKED__EVENT_COLUMNS " FROM events "
                              "WHERE subject = ?3 AND id > ?1 "
                              "ORDER BY id LIMIT ?2"),
    /* One arm per type (SKED__EVENT_TYPES_MAX), each in id order, which
     * SQLite merges: a page reads at most its limit of each type. */
    [S_EVENT_LIST_TYPES] = (TYPE_ARMS16 " ORDER BY id LIMIT ?2"),
    /* Who caused them (the payload's end, sked__event_filter), of
     * subject ?4 and of one of the types ?5 to ?20 when not NULL: no
     * index; the audit's question reads the log in id order. A type IN
     * a list of NULLs is NULL, not true. */
    [S_EVENT_LIST_ACTOR] =
        ("SELECT " SKED__EVENT_COLUMNS " FROM events WHERE id > ?1 "
         "AND substr(payload, -length(?3)) = ?3 "
         "AND (?4 IS NULL OR subject = ?4) AND (?5 IS NULL OR type IN "
         "(?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
         "?19, ?20)) ORDER BY id LIMIT ?2"),
    /* max() of the primary key is one look at the end of its b-tree. */
    [S_EVENT_LAST] = "SELECT coalesce(max(id), 0) FROM events",
    /* An event a delivery names is kept as long as the delivery
     * (schema 0014): the delivery is sent and listed from it. */
    [S_EVENT_PRUNE] = "DELETE FROM events WHERE at < ?1 AND NOT EXISTS "
                      "(SELECT 1 FROM notify_deliveries d WHERE d.event_id "
                      "= events.id AND d.event IS NULL)",
    /* No conflict target: DO NOTHING covers the id and the active-key
     * index alike; the done function tells them apart. */
    [S_RUN_INSERT_LENIENT] = RUN_INSERT(RUN_ROW, "DO NOTHING"),
    [S_RUNS_INSERT_LENIENT] =
        RUN_INSERT(SKED__SQLITE_ROWS32(RUN_ROW), "DO NOTHING"),
    [S_RUN_EXISTS] = "SELECT 1 FROM runs WHERE id = ?1",
    [S_RUNS_ACTIVE] = RUNS_ACTIVE("?"),
    [S_RUNS_ACTIVE_MANY] = RUNS_ACTIVE(SKED__SQLITE_ROWS32("?")),
};

/* Return the cached statement ID of C in *out. */
static int stmt(sked__tx *c, enum rows_stmt id, sqlite3_stmt **out,
                sked_error *err)
{
    return sked__sqlite_stmt(c, rows_sql[id], out, err);
}

/* ---- reading rows (store_row.h) ----------------------------------------- */

static bool row_text(const sked__row *r, int i, const char **out)
{
    sqlite3_stmt *s = r->res;

    *out = (const char *) sqlite3_column_text(s, i);
    return *out || sqlite3_errcode(sqlite3_db_handle(s)) != SQLITE_NOMEM;
}

static int64_t row_i64(const sked__row *r, int i)
{
    return sqlite3_column_int64(r->res, i);
}

static bool row_null(const sked__row *r, int i)
{
    return sqlite3_column_type(r->res, i) == SQLITE_NULL;
}

const sked__row_driver sked__sqlite_row_driver = {row_text, row_i64, row_null};

int sked__sqlite_rows(sked__tx *c, sqlite3_stmt *s, const sked__row_kind *kind,
                      const char *what, void **out, size_t *n, sked_error *err)
{
    sked__sqlite_list l = {.size = kind->size, .kind = kind, .what = what};
    int rc = sked__sqlite_collect(c, s, &l, err);

    if (rc != 0)
        kind->free(l.v, l.n);
    else
        *out = l.v, *n = l.n;
    return rc;
}

/* ---- runs -------------------------------------------------------------- */

/* The runs of an insert and what became of them. */
struct run_rows {
    const sked_run_new *runs;
    sked_time now;                /* their creation */
    sked_run_insert_state *state; /* lenient inserts: each run's fate */
};

/* Bind run I of CTX (a struct run_rows) to S from parameter BASE + 1. */
static int run_bind(sqlite3_stmt *s, int base, size_t i, const void *ctx)
{
    const struct run_rows *rows = ctx;
    const sked_run_new *r = &rows->runs[i];
    sked_time now = rows->now;
    int rc = 0;

    rc |= bind_text(s, base + 1, r->id);
    rc |= bind_text(s, base + 2, r->workflow);
    rc |= bind_text(s, base + 3, r->workflow_version);
    rc |= bind_text(s, base + 4, sked__trigger_name(r->trigger));
    rc |= bind_text(s, base + 5, r->schedule);
    rc |= bind_time(s, base + 6, r->scheduled_for);
    rc |= bind_text(s, base + 7, r->queue);
    rc |= sqlite3_bind_int(s, base + 8, r->priority);
    rc |= bind_text(s, base + 9, r->concurrency_key);
    rc |= sqlite3_bind_int64(
        s, base + 10, r->not_before == SKED_TIME_NONE ? now : r->not_before);
    rc |= bind_text(s, base + 11, r->context ? r->context : "{}");
    rc |= sqlite3_bind_int64(s, base + 12, now);
    rc |= bind_text(s, base + 13, r->serial_key);
    rc |= sqlite3_bind_int(s, base + 14, r->buffered);
    rc |= bind_time(s, base + 15,
                    r->occurrence == 0 ? SKED_TIME_NONE : r->occurrence);
    rc |= bind_time(s, base + 16,
                    r->deadline_at == 0 ? SKED_TIME_NONE : r->deadline_at);
    return rc;
}

int sked__sqlite_rows_runs_insert(sked__tx *c, const sked_run_new *runs,
                                  size_t n, sked_time now, bool *created,
                                  sked_error *err)
{
    struct run_rows rows = {runs, now, NULL};
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, S_RUN_INSERT, &s, err);

    for (size_t i = 0; rc == 0 && i < n; i++) {
        rc = run_bind(s, 0, i, &rows);
        if (rc == SQLITE_OK)
            rc = sqlite3_step(s);
        sqlite3_reset(s);
        if (rc != SQLITE_DONE) {
            rc = sked__sqlite_fail(c, rc, "inserting runs", err);
            if (rc == SKED_ECONFLICT)
                rc =
                    sked__error_set(err, rc, "concurrency_key", (long) i, NULL);
            break;
        }
        created[i] = sqlite3_changes(sked__sqlite_db(c)) > 0;
        rc = 0;
    }
    if (rc == 0 || s)
        sqlite3_clear_bindings(s);
    return rc;
}

/* Tell in *out whether a run with id ID exists. */
static int run_exists(sked__tx *c, const char *id, bool *out, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, S_RUN_EXISTS, &s, err);

    if (rc != 0)
        return rc;
    bind_text(s, 1, id);
    rc = sqlite3_step(s);
    sked__sqlite_done(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return sked__sqlite_fail(c, rc, "reading a run", err);
    *out = rc == SQLITE_ROW;
    return 0;
}

/* Record the fate of run I of CTX (a struct run_rows): inserted, or left
 * out because it existed, or else refused by the active-key index. */
static int run_done(sked__tx *c, size_t i, bool changed, void *ctx,
                    sked_error *err)
{
    struct run_rows *rows = ctx;
    bool exists = false;
    int rc = 0;

    if (!changed)
        rc = run_exists(c, rows->runs[i].id, &exists, err);
    rows->state[i] = changed  ? SKED_RUN_INSERTED
                     : exists ? SKED_RUN_EXISTED
                              : SKED_RUN_REFUSED;
    return rc;
}

int sked__sqlite_rows_runs_insert_lenient(sked__tx *c, const sked_run_new *runs,
                                          size_t n, sked_time now,
                                          sked_run_insert_state *state,
                                          sked_error *err)
{
    struct run_rows rows = {runs, now, state};
    sked__sqlite_batch b = {.one = rows_sql[S_RUN_INSERT_LENIENT],
                            .many = rows_sql[S_RUNS_INSERT_LENIENT],
                            .params = RUN_PARAMS,
                            .bind = run_bind,
                            .done = run_done,
                            .ctx = &rows,
                            .what = "inserting runs"};

    return sked__sqlite_write_rows(c, &b, n, err);
}

/* Count the active runs of schedules FROM to FROM + K - 1 of NAMES into
 * COUNTS by S (bound here), matching its rows to the names it was given. */
static int active_read(sked__tx *c, sqlite3_stmt *s, const char *const *names,
                       size_t from, size_t k, int64_t *counts, sked_error *err)
{
    int bound = SQLITE_OK, rc;

    for (size_t j = 0; j < k; j++) {
        counts[from + j] = 0;
        bound |= bind_text(s, (int) j + 1, names[from + j]);
    }
    rc = bound == SQLITE_OK ? sqlite3_step(s) : bound;
    for (; rc == SQLITE_ROW; rc = sqlite3_step(s)) {
        const char *name = (const char *) sqlite3_column_text(s, 0);
        for (size_t j = 0; name && j < k; j++)
            if (strcmp(name, names[from + j]) == 0)
                counts[from + j] = sqlite3_column_int64(s, 1);
    }
    sked__sqlite_done(s);
    if (rc != SQLITE_DONE)
        return sked__sqlite_fail(c, rc, "counting active runs", err);
    return 0;
}

int sked__sqlite_rows_runs_active(sked__tx *c, const char *const *schedules,
                                  size_t n, int64_t *counts, sked_error *err)
{
    size_t i = 0;
    int rc = 0;

    while (rc == 0 && i < n) {
        size_t k = sked__sqlite_chunk(n - i);
        sqlite3_stmt *s = NULL;
        rc = stmt(c, k > 1 ? S_RUNS_ACTIVE_MANY : S_RUNS_ACTIVE, &s, err);
        if (rc == 0)
            rc = active_read(c, s, schedules, i, k, counts, err);
        i += k;
    }
    return rc;
}

/* ---- events ------------------------------------------------------------ */

int sked__sqlite_rows_event_append(sked__tx *c, const char *type,
                                   const char *subject, const char *payload,
                                   sked_time at, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, S_EVENT_APPEND, &s, err);

    if (rc != 0)
        return rc;
    return sked__sqlite_exec(c, s,
                             bind_text(s, 1, type) | bind_text(s, 2, subject) |
                                 bind_text(s, 3, payload) |
                                 sqlite3_bind_int64(s, 4, at),
                             "appending an event", err);
}

_Static_assert(SKED__EVENT_TYPES_MAX == 16, "S_EVENT_LIST_TYPES has 16 arms");

/* Bind F to S_EVENT_LIST_ACTOR's S from ?3. */
static int event_actor_bind(sqlite3_stmt *s, const sked__event_filter *f,
                            sked_error *err)
{
    int b =
        bind_text(s, 3, f->actor_tail) |
        (f->subject ? bind_text(s, 4, f->subject) : sqlite3_bind_null(s, 4));

    for (size_t i = 0; i < SKED__EVENT_TYPES_MAX; i++)
        b |= i < f->ntypes ? bind_text(s, 5 + (int) i, f->types[i])
                           : sqlite3_bind_null(s, 5 + (int) i);
    if (b != SQLITE_OK) {
        sqlite3_reset(s);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    return 0;
}

/* The statement of F (NULL: none) into *s, its filter bound from ?3. */
static int event_list_stmt(sked__tx *c, const sked__event_filter *f,
                           sqlite3_stmt **s, sked_error *err)
{
    enum rows_stmt id = !f               ? S_EVENT_LIST
                        : f->actor_tail  ? S_EVENT_LIST_ACTOR
                        : f->ntypes == 0 ? S_EVENT_LIST_SUBJECT
                                         : S_EVENT_LIST_TYPES;
    int rc = stmt(c, id, s, err), b = 0;

    if (rc != 0 || !f)
        return rc;
    if (f->actor_tail)
        return event_actor_bind(*s, f, err);
    if (f->ntypes == 0)
        b = bind_text(*s, 3, f->subject);
    for (size_t i = 0; i < f->ntypes; i++)
        b |= bind_text(*s, 3 + (int) i, f->types[i]);
    for (size_t i = f->ntypes; f->ntypes > 0 && i < SKED__EVENT_TYPES_MAX; i++)
        b |= sqlite3_bind_null(*s, 3 + (int) i);
    if (f->ntypes > 0)
        b |= f->subject ? bind_text(*s, 19, f->subject)
                        : sqlite3_bind_null(*s, 19);
    if (b != SQLITE_OK) {
        sqlite3_reset(*s);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    return 0;
}

int sked__sqlite_rows_event_list(sked__tx *c, int64_t after_id, size_t limit,
                                 const sked__event_filter *f, sked_event **out,
                                 size_t *n, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = event_list_stmt(c, f, &s, err);

    if (rc != 0)
        return rc;
    sqlite3_bind_int64(s, 1, after_id);
    sqlite3_bind_int64(s, 2, (sqlite3_int64) limit);
    return sked__sqlite_rows(c, s, &sked__row_event, "listing events",
                             (void **) out, n, err);
}

int sked__sqlite_rows_event_last(sked__tx *c, int64_t *out, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, S_EVENT_LAST, &s, err);

    if (rc != 0)
        return rc;
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(s, 0);
    sked__sqlite_done(s);
    if (rc != SQLITE_ROW)
        return sked__sqlite_fail(c, rc, "reading the newest event", err);
    return 0;
}

/* Bind event I of CTX (a sked_event array) to S from parameter BASE + 1. */
static int event_bind(sqlite3_stmt *s, int base, size_t i, const void *ctx)
{
    const sked_event *e = &((const sked_event *) ctx)[i];

    return bind_text(s, base + 1, e->type) |
           bind_text(s, base + 2, e->subject) |
           bind_text(s, base + 3, e->payload) |
           sqlite3_bind_int64(s, base + 4, e->at);
}

/* A statement inserting several events numbers them in the order of its
 * rows, each id one more than the one before (AUTOINCREMENT, and this
 * transaction is the only writer): the last row's id tells every id. */
int sked__sqlite_rows_events_append(sked__tx *c, const sked_event *ev, size_t n,
                                    int64_t *ids, sked_error *err)
{
    size_t i = 0;
    int rc = 0;

    while (rc == 0 && i < n) {
        size_t k = sked__sqlite_chunk(n - i);
        sqlite3_stmt *s = NULL;
        int64_t changed = 0, last;

        rc = stmt(c, k > 1 ? S_EVENTS_APPEND : S_EVENT_APPEND, &s, err);
        if (rc == 0)
            rc = sked__sqlite_exec_rows(c, s, 4, event_bind, ev, i, k,
                                        "appending events", &changed, err);
        if (rc == 0 && changed != (int64_t) k)
            rc = sked__error_set(err, SKED_EINTERNAL, NULL, -1,
                                 "%lld of %zu events appended",
                                 (long long) changed, k);
        last = sqlite3_last_insert_rowid(sked__sqlite_db(c));
        for (size_t j = 0; rc == 0 && j < k; j++)
            ids[i + j] = last - (int64_t) (k - 1 - j);
        i += k;
    }
    return rc;
}

int sked__sqlite_rows_event_prune(sked__tx *c, sked_time before,
                                  int64_t *deleted, sked_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = stmt(c, S_EVENT_PRUNE, &s, err);

    if (rc != 0)
        return rc;
    rc = sked__sqlite_exec(c, s, sqlite3_bind_int64(s, 1, before),
                           "pruning events", err);
    if (rc != 0)
        return rc;
    *deleted = sqlite3_changes64(sked__sqlite_db(c));
    return 0;
}
