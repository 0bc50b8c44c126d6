/* SPDX-License-Identifier: MIT */
/* The engine's metrics (SPEC 5) in the Prometheus text exposition format,
 * version 0.0.4 (sked_engine_metrics), and the counters behind them
 * (metrics.h).
 *
 * Counters come from the events this engine delivers: a run.completed,
 * run.failed or run.cancelled counts one finished run of its payload's
 * workflow and observes its duration_secs; a run.failed with error_code
 * "timeout" and a run.timeout_exceeded count a workflow timeout; a
 * run.created of trigger "cron" observes its fire lag, the event's time
 * minus its scheduled_for; a schedule.deadline_missed counts one for its
 * schedule. Payloads are parsed outside the lock, and only those of
 * these types. The missed occurrences are the scheduler loop's
 * own counters, the store's errors the store's health (store_health.h).
 * Gauges are read at scrape time: queue depths, schedules by status and
 * their freshness from the store (left out while it fails: the page is still
 * served), busy workers from the pool, the clock skew from the loop. */
#include "engine/metrics.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/json_scan.h"
#include "engine/engine_int.h"

/* Bucket bounds in seconds: from a quick no-op run to a long step. */
static const double bounds[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
                                2.5,   5,    10,    30,   60,  120,  300};
#define NBOUNDS (sizeof bounds / sizeof *bounds)
/* Workflows counted at most; more are not (names come from definitions,
 * so this only bounds a pathological database). */
#define WORKFLOWS_MAX 10000

typedef struct histo {
    uint64_t in[NBOUNDS + 1]; /* per bucket, not cumulative; last: +Inf */
    uint64_t count;
    double sum;
} histo;

enum { FIN_COMPLETED, FIN_FAILED, FIN_CANCELLED, FIN__COUNT };
static const char *const fin_names[] = {"completed", "failed", "cancelled"};

/* The counters of one workflow, or of one schedule (deadlines only). */
typedef struct wf_count {
    char *name; /* owned */
    uint64_t finished[FIN__COUNT];
    uint64_t timeouts;
    uint64_t deadlines; /* schedules: deadlines missed */
} wf_count;

/* Counters by name, sorted. */
typedef struct count_tab {
    wf_count *v;
    size_t n, cap;
} count_tab;
/* Notifiers counted at most, as workflows are. */
#define NOTIFIERS_MAX 1000
enum { NOTE_DELIVERED, NOTE_RETRY, NOTE_FAILED, NOTE__COUNT };
static const char *const note_names[] = {"delivered", "retry", "failed"};

typedef struct note_count {
    char *name; /* owned */
    uint64_t by[NOTE__COUNT];
} note_count;

struct sked_metrics {
    pthread_mutex_t mu;
    count_tab wf, sched;
    histo duration, lag;
    note_count *notes; /* in the order first seen */
    size_t nnotes, capnotes;
};

int sked__metrics_new(sked_metrics **out)
{
    sked_metrics *m = sked__calloc(1, sizeof *m);

    if (!m || pthread_mutex_init(&m->mu, NULL) != 0) {
        free(m);
        return SKED_ENOMEM;
    }
    *out = m;
    return 0;
}

void sked__metrics_free(sked_metrics *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->wf.n; i++)
        free(m->wf.v[i].name);
    for (size_t i = 0; i < m->sched.n; i++)
        free(m->sched.v[i].name);
    free(m->wf.v);
    free(m->sched.v);
    for (size_t i = 0; i < m->nnotes; i++)
        free(m->notes[i].name);
    free(m->notes);
    (void) pthread_mutex_destroy(&m->mu);
    free(m);
}

/* ---- counting ---------------------------------------------------------- */

static void histo_add(histo *h, double v)
{
    size_t i = 0;

    if (!isfinite(v) || v < 0)
        v = 0;
    while (i < NBOUNDS && v > bounds[i])
        i++;
    h->in[i]++;
    h->count++;
    h->sum += v;
}

/* The counts of NAME in T, added when new; NULL when out of memory or
 * over WORKFLOWS_MAX names. Under mu. */
static wf_count *wf_get(count_tab *t, const char *name)
{
    size_t lo = 0, hi = t->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(t->v[mid].name, name);
        if (c == 0)
            return &t->v[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (t->n >= WORKFLOWS_MAX)
        return NULL;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        wf_count *v = sked__realloc(t->v, cap * sizeof *v);
        if (!v)
            return NULL;
        t->v = v;
        t->cap = cap;
    }
    char *copy = sked__strdup(name);
    if (!copy)
        return NULL;
    memmove(&t->v[lo + 1], &t->v[lo], (t->n - lo) * sizeof *t->v);
    t->v[lo] = (wf_count){.name = copy};
    t->n++;
    return &t->v[lo];
}

/* What one event adds, read from its payload outside the lock. */
typedef struct obs {
    json_t *doc;          /* owns WORKFLOW, when parsed */
    char *copy;           /* owns WORKFLOW, when scanned */
    const char *workflow; /* NULL: nothing for a workflow */
    int fin;              /* FIN_..., or -1 */
    bool timeout;
    double duration; /* < 0: none */
    bool has_lag;
    double lag;
} obs;

static int fin_of(const char *type)
{
    if (strcmp(type, "run.completed") == 0)
        return FIN_COMPLETED;
    if (strcmp(type, "run.failed") == 0)
        return FIN_FAILED;
    if (strcmp(type, "run.cancelled") == 0)
        return FIN_CANCELLED;
    return -1;
}

/* The scheduled_for of a run.created PAYLOAD, read without parsing the
 * whole document: this runs once per firing, and the store writes the
 * key as it is and the instant as a plain RFC 3339 string (a quote
 * inside a JSON string is escaped, so the key cannot be matched inside
 * a value). */
static bool created_scheduled_for(const char *payload, sked_time *out)
{
    static const char key[] = "\"scheduled_for\":\"";
    const char *v = strstr(payload, key), *end;
    char buf[SKED_TIME_STRLEN];

    if (!v)
        return false;
    v += sizeof key - 1;
    end = strchr(v, '"');
    if (!end || (size_t) (end - v) >= sizeof buf)
        return false;
    memcpy(buf, v, (size_t) (end - v));
    buf[end - v] = '\0';
    return sked_time_parse(buf, out, NULL) == 0;
}

/* Tell whether the raw value V (N bytes) is a JSON number. */
static bool is_number(const char *v, size_t n)
{
    return n > 0 && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) &&
           strspn(v, "0123456789+-.eE") >= n;
}

/* Fill O's workflow, timeout and duration from PAYLOAD without parsing
 * it (json_scan.h): this runs for every finished run, on the journal's
 * writer thread. False when the scan cannot tell (O untouched but for
 * what it had): the caller parses instead. */
static bool obs_scan(const char *payload, obs *o)
{
    const char *wf = NULL, *code = NULL, *d = NULL;
    size_t nwf = 0, ncode = 0, nd = 0;
    sked_json_found fwf = sked__json_member(payload, "workflow", &wf, &nwf);
    sked_json_found fd = sked__json_member(payload, "duration_secs", &d, &nd);
    sked_json_found fcode =
        o->fin == FIN_FAILED
            ? sked__json_member(payload, "error_code", &code, &ncode)
            : SKED_JSON_ABSENT;

    if (fwf == SKED_JSON_UNSURE || fd == SKED_JSON_UNSURE ||
        fcode == SKED_JSON_UNSURE ||
        (wf && wf[0] == '"' && !sked__json_plain_string(wf, nwf)) ||
        (code && code[0] == '"' && !sked__json_plain_string(code, ncode)))
        return false;
    if (fcode == SKED_JSON_FOUND && ncode == 9 &&
        memcmp(code, "\"timeout\"", 9) == 0)
        o->timeout = true;
    if (o->fin >= 0 && fd == SKED_JSON_FOUND && is_number(d, nd))
        o->duration = strtod(d, NULL);
    if (fwf == SKED_JSON_FOUND && wf[0] == '"') {
        if (!(o->copy = sked__malloc(nwf - 1)))
            return false;
        memcpy(o->copy, wf + 1, nwf - 2);
        o->copy[nwf - 2] = '\0';
        o->workflow = o->copy;
    }
    return true;
}

/* Fill O from EV; false when EV counts for nothing. */
static bool obs_read(const sked_event *ev, obs *o)
{
    bool created = strcmp(ev->type, "run.created") == 0;
    bool soft = strcmp(ev->type, "run.timeout_exceeded") == 0;

    *o = (obs){.fin = fin_of(ev->type), .duration = -1};
    if (created) {
        sked_time t = 0;
        o->has_lag = ev->payload &&
                     strstr(ev->payload, "\"trigger\":\"cron\"") &&
                     created_scheduled_for(ev->payload, &t);
        if (o->has_lag)
            o->lag = (double) (ev->at - t) / 1e6;
        return o->has_lag;
    }
    if (o->fin < 0 && !soft)
        return false;
    o->timeout = soft;
    if (ev->payload && obs_scan(ev->payload, o))
        return o->workflow != NULL;
    o->doc = ev->payload ? json_loads(ev->payload, 0, NULL) : NULL;
    if (!json_is_object(o->doc))
        return false;
    o->workflow = json_string_value(json_object_get(o->doc, "workflow"));
    if (o->fin == FIN_FAILED) {
        const char *code =
            json_string_value(json_object_get(o->doc, "error_code"));
        o->timeout = code && strcmp(code, "timeout") == 0;
    }
    json_t *d = json_object_get(o->doc, "duration_secs");
    if (o->fin >= 0 && json_is_number(d))
        o->duration = json_number_value(d);
    return o->workflow != NULL;
}

/* Add O. Under mu. */
static void obs_apply(sked_metrics *m, const obs *o)
{
    if (o->has_lag)
        histo_add(&m->lag, o->lag);
    if (o->duration >= 0)
        histo_add(&m->duration, o->duration);
    wf_count *w = o->workflow ? wf_get(&m->wf, o->workflow) : NULL;
    if (w && o->fin >= 0)
        w->finished[o->fin]++;
    if (w && o->timeout)
        w->timeouts++;
}

void sked__metrics_observe(sked_metrics *m, const sked_event *ev, size_t n)
{
    for (size_t i = 0; m && i < n; i++) {
        obs o;
        if (strcmp(ev[i].type, "schedule.deadline_missed") == 0) {
            pthread_mutex_lock(&m->mu);
            wf_count *c = wf_get(&m->sched, ev[i].subject);
            if (c)
                c->deadlines++;
            pthread_mutex_unlock(&m->mu);
            continue;
        }
        if (obs_read(&ev[i], &o)) {
            pthread_mutex_lock(&m->mu);
            obs_apply(m, &o);
            pthread_mutex_unlock(&m->mu);
        }
        json_decref(o.doc);
        free(o.copy);
    }
}

/* The counts of notifier NAME, added when new; NULL when out of memory
 * or over NOTIFIERS_MAX. Under mu. Linear: a server has a few. */
static note_count *note_get(sked_metrics *m, const char *name)
{
    for (size_t i = 0; i < m->nnotes; i++)
        if (strcmp(m->notes[i].name, name) == 0)
            return &m->notes[i];
    if (m->nnotes >= NOTIFIERS_MAX)
        return NULL;
    if (m->nnotes == m->capnotes) {
        size_t cap = m->capnotes ? m->capnotes * 2 : 8;
        note_count *v = sked__realloc(m->notes, cap * sizeof *v);
        if (!v)
            return NULL;
        m->notes = v;
        m->capnotes = cap;
    }
    char *copy = sked__strdup(name);
    if (!copy)
        return NULL;
    m->notes[m->nnotes] = (note_count){.name = copy};
    return &m->notes[m->nnotes++];
}

void sked__metrics_notify(sked_metrics *m, const char *notifier,
                          const char *result)
{
    note_count *c;

    if (!m || !notifier)
        return;
    pthread_mutex_lock(&m->mu);
    if ((c = note_get(m, notifier)) != NULL)
        for (int i = 0; i < NOTE__COUNT; i++)
            if (strcmp(result, note_names[i]) == 0)
                c->by[i]++;
    pthread_mutex_unlock(&m->mu);
}

/* ---- the text format --------------------------------------------------- */

/* A label value escaped as the format wants: \\, \" and \n. */
static void sb_label(sked_buf *b, const char *v)
{
    for (; *v; v++)
        switch (*v) {
        case '\\':
            (void) sked__buf_puts(b, "\\\\");
            break;
        case '"':
            (void) sked__buf_puts(b, "\\\"");
            break;
        case '\n':
            (void) sked__buf_puts(b, "\\n");
            break;
        default:
            (void) sked__buf_add(b, v, 1);
        }
}

static void family(sked_buf *b, const char *name, const char *type,
                   const char *help)
{
    (void) sked__buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name,
                            type);
}

static void histo_write(sked_buf *b, const char *name, const histo *h)
{
    uint64_t cum = 0;

    for (size_t i = 0; i < NBOUNDS; i++) {
        cum += h->in[i];
        (void) sked__buf_printf(b, "%s_bucket{le=\"%g\"} %llu\n", name,
                                bounds[i], (unsigned long long) cum);
    }
    (void) sked__buf_printf(b, "%s_bucket{le=\"+Inf\"} %llu\n", name,
                            (unsigned long long) h->count);
    (void) sked__buf_printf(b, "%s_sum %.6f\n%s_count %llu\n", name, h->sum,
                            name, (unsigned long long) h->count);
}

static void store_error_row(void *ctx, const char *op, const char *kind,
                            uint64_t n)
{
    (void) sked__buf_printf(ctx,
                            "sked_store_errors_total{op=\"%s\",kind=\"%s\"} "
                            "%llu\n",
                            op, kind, (unsigned long long) n);
}

static void missed_row(void *ctx, const char *schedule, sked_miss_reason r,
                       int64_t count)
{
    sked_buf *b = ctx;

    (void) sked__buf_printf(b, "sked_schedule_missed_total{schedule=\"");
    sb_label(b, schedule);
    (void) sked__buf_printf(b, "\",reason=\"%s\"} %lld\n",
                            sked__miss_reason_name(r), (long long) count);
}

/* The families of the counters this engine keeps. */
static void write_counters(sked_engine *e, sked_buf *b)
{
    sked_metrics *m = e->metrics;

    family(b, "sked_schedule_missed_total", "counter",
           "Occurrences not fired, by schedule and reason.");
    sked__engine_missed_each(e, missed_row, b);
    pthread_mutex_lock(&m->mu);
    family(b, "sked_runs_total", "counter",
           "Runs finished by this server, by workflow and status.");
    for (size_t i = 0; i < m->wf.n; i++)
        for (int s = 0; s < FIN__COUNT; s++) {
            (void) sked__buf_printf(b, "sked_runs_total{workflow=\"");
            sb_label(b, m->wf.v[i].name);
            (void) sked__buf_printf(
                b, "\",status=\"%s\"} %llu\n", fin_names[s],
                (unsigned long long) m->wf.v[i].finished[s]);
        }
    family(b, "sked_run_duration_seconds", "histogram",
           "Time from start to end of the runs finished by this server.");
    histo_write(b, "sked_run_duration_seconds", &m->duration);
    family(b, "sked_fire_lag_seconds", "histogram",
           "Time from an occurrence to its run's creation, for runs fired "
           "on time.");
    histo_write(b, "sked_fire_lag_seconds", &m->lag);
    family(b, "sked_run_timeouts_total", "counter",
           "Runs past their workflow's timeout, by workflow.");
    for (size_t i = 0; i < m->wf.n; i++) {
        (void) sked__buf_printf(b, "sked_run_timeouts_total{workflow=\"");
        sb_label(b, m->wf.v[i].name);
        (void) sked__buf_printf(b, "\"} %llu\n",
                                (unsigned long long) m->wf.v[i].timeouts);
    }
    family(b, "sked_schedule_deadline_missed_total", "counter",
           "Deadlines missed by the runs of each schedule, found by this "
           "server.");
    for (size_t i = 0; i < m->sched.n; i++) {
        (void) sked__buf_printf(
            b, "sked_schedule_deadline_missed_total{schedule=\"");
        sb_label(b, m->sched.v[i].name);
        (void) sked__buf_printf(b, "\"} %llu\n",
                                (unsigned long long) m->sched.v[i].deadlines);
    }
    family(b, "sked_notifications_total", "counter",
           "Delivery attempts of notifications by this server, by notifier "
           "and result (delivered, retry: failed and retried later, failed: "
           "given up).");
    for (size_t i = 0; i < m->nnotes; i++)
        for (int r = 0; r < NOTE__COUNT; r++) {
            (void) sked__buf_printf(b, "sked_notifications_total{notifier=\"");
            sb_label(b, m->notes[i].name);
            (void) sked__buf_printf(b, "\",result=\"%s\"} %llu\n",
                                    note_names[r],
                                    (unsigned long long) m->notes[i].by[r]);
        }
    pthread_mutex_unlock(&m->mu);
    family(b, "sked_store_errors_total", "counter",
           "Failed tries of the server's own work on the database, by "
           "operation and kind of error.");
    sked__store_errors_each(e->store, store_error_row, b);
}

/* One timestamp sample of schedule NAME, when T is one. */
static void fresh_sample(sked_buf *b, const char *family_name, const char *name,
                         sked_time t)
{
    if (t == SKED_TIME_NONE)
        return;
    (void) sked__buf_printf(b, "%s{schedule=\"", family_name);
    sb_label(b, name);
    (void) sked__buf_printf(b, "\"} %.6f\n", (double) t / 1e6);
}

/* What one scan of the schedules' heads gathers: the count by status,
 * and the next occurrence of each active schedule. */
struct heads_gauges {
    int64_t by[SKED_SCHEDULE_DONE + 1];
    sked_buf next; /* the sample lines of the next-fire gauge */
};

/* A paused, disabled or done schedule has no next-fire sample: an alert
 * on a next occurrence long past means a scheduler that stopped, which
 * such a schedule does not say. */
static int gather_head(void *ctx, const sked_schedule_head *h)
{
    struct heads_gauges *g = ctx;

    if ((int) h->status >= 0 && (int) h->status <= SKED_SCHEDULE_DONE)
        g->by[h->status]++;
    if (h->status == SKED_SCHEDULE_ACTIVE)
        fresh_sample(&g->next, "sked_schedule_next_fire_timestamp_seconds",
                     h->name, h->next_fire_at);
    return 0;
}

/* The gauges the engine holds, read now; none reads the store, so they
 * are there while it fails. */
static void write_own_gauges(sked_engine *e, sked_buf *b)
{
    sked_dur skew = 0;

    family(b, "sked_workers_busy", "gauge",
           "Worker threads executing a run now.");
    (void) sked__buf_printf(b, "sked_workers_busy %d\n",
                            sked__workers_busy(e->workers));
    /* SPEC 3.2: measured on PostgreSQL only; absent until measured. */
    family(b, "sked_clock_skew_seconds", "gauge",
           "The database's clock minus this server's, as last measured.");
    if (sked__engine_clock_skew(e, &skew))
        (void) sked__buf_printf(b, "sked_clock_skew_seconds %.6f\n",
                                (double) skew / 1e6);
    family(b, "sked_store_failing", "gauge",
           "1 while the server's own work on the database fails, else 0.");
    (void) sked__buf_printf(b, "sked_store_failing %d\n",
                            sked__engine_fault(e, NULL) ? 1 : 0);
}

/* When each schedule last made a run and last succeeded: read from the
 * runs, so every server gives the same figures and a restart loses
 * none; a schedule without such a run has no sample (absent() tells). */
static int write_freshness(sked_engine *e, sked_buf *b, sked_error *err)
{
    static const char last_run[] = "sked_schedule_last_run_timestamp_seconds";
    static const char last_ok[] =
        "sked_schedule_last_success_timestamp_seconds";
    sked_schedule_fresh *f = NULL;
    size_t n = 0;
    int rc = sked__store_schedules_fresh(e->store, &f, &n, err);

    if (rc != 0)
        return rc;
    family(b, last_run, "gauge",
           "When each schedule last made a run, in Unix seconds.");
    for (size_t i = 0; i < n; i++)
        fresh_sample(b, last_run, f[i].name, f[i].last_run);
    family(b, last_ok, "gauge",
           "When the latest completed run of each schedule finished, in "
           "Unix seconds.");
    for (size_t i = 0; i < n; i++)
        fresh_sample(b, last_ok, f[i].name, f[i].last_success);
    sked__schedule_fresh_free(f, n);
    return 0;
}

/* The gauges read from the store now. */
static int write_gauges(sked_engine *e, sked_buf *b, sked_error *err)
{
    sked_queue_info *q = NULL;
    size_t nq = 0;
    struct heads_gauges heads;
    int rc = sked__store_queues_list(e->store, &q, &nq, err);

    if (rc != 0)
        return rc;
    memset(&heads, 0, sizeof heads);
    family(b, "sked_queue_depth", "gauge",
           "Runs pending or waiting, by queue.");
    for (size_t i = 0; i < nq; i++) {
        (void) sked__buf_printf(b, "sked_queue_depth{queue=\"");
        sb_label(b, q[i].name);
        (void) sked__buf_printf(b, "\"} %lld\n", (long long) q[i].pending);
    }
    sked__queue_infos_free(q, nq);
    rc = sked__store_schedule_scan(e->store, SKED_TIME_NONE, gather_head,
                                   &heads, err);
    if (rc == 0 && heads.next.failed)
        rc = sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    if (rc == 0) {
        family(b, "sked_schedules", "gauge", "Schedules by status.");
        for (int s = 0; s <= SKED_SCHEDULE_DONE; s++)
            (void) sked__buf_printf(
                b, "sked_schedules{status=\"%s\"} %lld\n",
                sked_schedule_status_name((sked_schedule_status) s),
                (long long) heads.by[s]);
        family(b, "sked_schedule_next_fire_timestamp_seconds", "gauge",
               "The next occurrence of each active schedule, in Unix "
               "seconds.");
        if (heads.next.p)
            (void) sked__buf_add(b, heads.next.p, heads.next.len);
    }
    sked__buf_reset(&heads.next);
    return rc == 0 ? write_freshness(e, b, err) : rc;
}

int sked_engine_metrics(sked_engine *e, char **out_text, sked_error *err)
{
    sked_buf b = {0}, g = {0};
    sked_error gerr;
    char *text;

    if (!e || !out_text)
        return sked__error_set(err, SKED_EINVAL, NULL, -1,
                               "an engine and an output");
    write_counters(e, &b);
    write_own_gauges(e, &b);
    /* A store that fails must not hide the counters that tell of it: the
     * gauges it cannot give are left out, and the page is served. */
    if (write_gauges(e, &g, &gerr) == 0 && g.p && !g.failed)
        (void) sked__buf_add(&b, g.p, g.len);
    sked__buf_reset(&g);
    text = sked__buf_take(&b, NULL);
    if (!text)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    *out_text = text;
    return 0;
}
