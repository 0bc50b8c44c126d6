/* SPDX-License-Identifier: MIT */
/* Tests of execution (SPEC 4.3) as a user of libsked sees it: workflows
 * of C steps built with the public API, their runs read back with
 * sked_engine_run_get, their events through a subscriber, their
 * schedules with sked_engine_schedule_get.
 *
 * Where timing matters the runs are driven by sked__engine_work on a
 * virtual clock that the steps themselves may move; where concurrency
 * matters they run on real worker threads (sked_engine_start). The
 * database is SKED_TEST_DB_URL when set (the same tests on PostgreSQL),
 * else a fresh SQLite file in a temporary directory.
 *
 * Words: a step's "behaviour" (struct behave) is the script its C
 * function follows, handed over as the step's userdata; an attempt is
 * written "step/attempt" and a compensation's "step~/attempt". */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "test_db.h"

#include "engine/engine_int.h"
#include "engine/workflow_int.h"
#include "model/workflow.h"
#include "sked/engine.h"
#include "sked/sked.h"
#include "store/store_run.h"

#define SEC    SKED_USEC_PER_SEC
#define SLEW   (50 * 1000) /* µs: NTP's slew of the wall clock, and more */
#define NODE   "exec-test"
#define T0_STR "2026-01-10T08:00:00Z"

static char db_url[1024];
static char tmp_dir[256];
static sked_time t0;

/* ---- the virtual clock ------------------------------------------------- */

/* Read by worker and scheduler threads while the test and the steps move
 * it. */
static _Atomic sked_time vnow;
static sked_clock vclock;

static sked_time read_now(void *ctx)
{
    (void) ctx;
    return vnow;
}

static void set_now(sked_time t)
{
    vnow = t;
}

static sked_time T(const char *s)
{
    sked_time t = 0;
    assert_int_equal(sked_time_parse(s, &t, NULL), 0);
    return t;
}

static const char *fmt_time(sked_time t, char *buf, size_t size)
{
    if (t == SKED_TIME_NONE)
        snprintf(buf, size, "none");
    else
        sked_time_format(t, buf, size);
    return buf;
}

/* Sleep MS milliseconds of real time (steps and waits; never the clock
 * of the tests on virtual time). */
static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static long mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- events ------------------------------------------------------------ */

#define EVENTS_MAX 4096
static struct seen {
    char type[64];
    char subject[256];
    char payload[512];
} seen[EVENTS_MAX];
static size_t nseen;
static pthread_mutex_t seen_mu = PTHREAD_MUTEX_INITIALIZER;

/* When set, the run.started of a run of this workflow holds writes to
 * the steps back for LOCK_HOLD_MS, from the claiming thread on (see
 * test_attempt_recorded_before_it_runs). */
static const char *lock_steps_of;
#define LOCK_HOLD_MS 300

static void *unlock_later(void *arg)
{
    nap_ms(LOCK_HOLD_MS);
    sked_test_unlock(arg);
    return NULL;
}

static void maybe_lock_steps(const sked_event_view *ev)
{
    char want[160];
    sked_test_lock *l;
    pthread_t t;

    if (!lock_steps_of || strcmp(ev->type, "run.started") != 0)
        return;
    snprintf(want, sizeof want, "\"workflow\":\"%s\"", lock_steps_of);
    if (!strstr(ev->payload, want))
        return;
    if (!(l = sked_test_lock_writes(db_url, "steps")))
        return;
    if (pthread_create(&t, NULL, unlock_later, l) != 0)
        sked_test_unlock(l);
    else
        pthread_detach(t);
}

static void on_event(void *ctx, const sked_event_view *ev)
{
    (void) ctx;
    maybe_lock_steps(ev);
    pthread_mutex_lock(&seen_mu);
    if (nseen < EVENTS_MAX) {
        snprintf(seen[nseen].type, sizeof seen[nseen].type, "%s", ev->type);
        snprintf(seen[nseen].subject, sizeof seen[nseen].subject, "%s",
                 ev->subject);
        snprintf(seen[nseen].payload, sizeof seen[nseen].payload, "%s",
                 ev->payload);
        nseen++;
    }
    pthread_mutex_unlock(&seen_mu);
}

/* The types of the events about SUBJECT, in the order delivered, joined
 * by spaces. */
static const char *events_about(const char *subject)
{
    static char buf[4096];
    size_t len = 0;

    buf[0] = '\0';
    pthread_mutex_lock(&seen_mu);
    for (size_t i = 0; i < nseen && len < sizeof buf - 64; i++)
        if (strcmp(seen[i].subject, subject) == 0)
            len += (size_t) snprintf(buf + len, sizeof buf - len, "%s%s",
                                     len ? " " : "", seen[i].type);
    pthread_mutex_unlock(&seen_mu);
    return buf;
}

/* The payload of the Nth (0-based) event TYPE about SUBJECT, or NULL. */
static const char *event(const char *type, const char *subject, int nth)
{
    const char *p = NULL;

    pthread_mutex_lock(&seen_mu);
    for (size_t i = 0; i < nseen && !p; i++)
        if (strcmp(seen[i].type, type) == 0 &&
            strcmp(seen[i].subject, subject) == 0 && nth-- == 0)
            p = seen[i].payload;
    pthread_mutex_unlock(&seen_mu);
    return p;
}

static size_t count_events(const char *type)
{
    size_t n = 0;

    pthread_mutex_lock(&seen_mu);
    for (size_t i = 0; i < nseen; i++)
        n += strcmp(seen[i].type, type) == 0;
    pthread_mutex_unlock(&seen_mu);
    return n;
}

/* ---- the database, directly -------------------------------------------- */

static long long q(const char *fmt, ...)
{
    char sql[1024];
    long long v = -1;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    if (sked_test_sql(db_url, sql, &v) != 0)
        fail_msg("SQL failed: %s", sql);
    return v;
}

/* ---- steps ------------------------------------------------------------- */

/* The script of one step (its userdata). */
typedef struct behave {
    int rcs[8];            /* the return value of each call in turn */
    int nrcs;              /* how many of RCS are used */
    int then;              /* the return value after them (0: success) */
    const char *output;    /* the output on success; NULL: none */
    sked_dur advance;      /* the virtual clock moves this much per call */
    int sleep_ms;          /* real time spent per call, watching the flag */
    int block;             /* the first BLOCK calls wait for a cancel */
    bool wait_release;     /* wait for the global release flag */
    bool comp_fails;       /* its compensation fails */
    bool log_run;          /* log "name@run" rather than "name" */
    sked_dur comp_advance; /* the clock moves this much per compensation */
    atomic_int calls, comp_calls;
    atomic_bool started, saw_cancel;
    atomic_int last_attempt;
} behave;

static behave B[8];
static atomic_bool release_flag;
static atomic_int inflight, max_inflight;

/* Every call of a step or compensation, in order: "name" or "~name",
 * and for steps that log runs, "name@run". */
static char logbuf[4096];
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;

static void log_add(const char *fmt, ...)
{
    size_t len;
    va_list ap;

    pthread_mutex_lock(&log_mu);
    len = strlen(logbuf);
    if (len > 0 && len < sizeof logbuf - 1)
        logbuf[len++] = ' ';
    va_start(ap, fmt);
    vsnprintf(logbuf + len, sizeof logbuf - len, fmt, ap);
    va_end(ap);
    pthread_mutex_unlock(&log_mu);
}

static const char *log_get(void)
{
    static char copy[sizeof logbuf];

    pthread_mutex_lock(&log_mu);
    memcpy(copy, logbuf, sizeof copy);
    pthread_mutex_unlock(&log_mu);
    return copy;
}

/* Wait (real time, at most 10 s) until the step should stop; true when
 * it was asked to. */
static bool wait_cancel(sked_ctx *ctx, behave *b)
{
    for (int i = 0; i < 10000; i++) {
        if (sked_ctx_cancelled(ctx)) {
            b->saw_cancel = true;
            return true;
        }
        nap_ms(1);
    }
    return false;
}

/* Count one more step in flight, keeping the highest count seen. */
static void enter(void)
{
    int n = ++inflight, m = max_inflight;

    while (n > m && !atomic_compare_exchange_weak(&max_inflight, &m, n))
        ;
}

/* The C function of every scripted step. */
static int step_fn(sked_ctx *ctx, const char *input, char **out)
{
    behave *b = sked_ctx_userdata(ctx);
    int k = b->calls++;
    int rc;

    (void) input;
    enter();
    if (b->log_run)
        log_add("%s@%s", sked_ctx_step(ctx), sked_ctx_run_id(ctx));
    else
        log_add("%s", sked_ctx_step(ctx));
    b->last_attempt = sked_ctx_attempt(ctx);
    b->started = true;
    vnow += b->advance;
    for (long t = mono_ms(), end = t + b->sleep_ms; t < end; t = mono_ms()) {
        if (sked_ctx_cancelled(ctx))
            b->saw_cancel = true;
        nap_ms(1);
    }
    if (k < b->block && wait_cancel(ctx, b)) {
        sked_ctx_fail(ctx, "stopped");
        inflight--;
        return 1;
    }
    for (int i = 0; b->wait_release && !release_flag && i < 10000; i++)
        nap_ms(1);
    rc = k < b->nrcs ? b->rcs[k] : b->then;
    inflight--;
    if (rc != 0) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s failed on attempt %d", sked_ctx_step(ctx),
                 sked_ctx_attempt(ctx));
        sked_ctx_fail(ctx, msg);
        return rc;
    }
    if (b->output)
        *out = strdup(b->output);
    return 0;
}

static int comp_fn(sked_ctx *ctx, const char *input, char **out)
{
    behave *b = sked_ctx_userdata(ctx);

    (void) input;
    (void) out;
    b->comp_calls++;
    log_add("~%s", sked_ctx_step(ctx));
    vnow += b->comp_advance;
    if (b->comp_fails) {
        sked_ctx_fail(ctx, "undo failed");
        return 2;
    }
    return 0;
}

/* ---- workflows --------------------------------------------------------- */

typedef struct stepdef {
    const char *name;
    behave *b;
    const char *needs[3];
    sked_retry retry;
    bool comp;
    sked_retry comp_retry;
    sked_step_fn fn; /* NULL: step_fn */
} stepdef;

typedef struct wfopts {
    const char *version;
    sked_dur timeout;
    bool soft; /* fail_workflow false */
    bool not_hard;
    int parallelism;
} wfopts;

static sked_workflow *wf_build(const char *name, const stepdef *steps, size_t n,
                               const wfopts *o)
{
    sked_workflow *w = NULL;
    sked_error err;

    if (sked_workflow_new(name, &w, &err) != 0)
        fail_msg("workflow %s: %s", name, err.msg);
    for (size_t i = 0; i < n; i++) {
        const stepdef *d = &steps[i];
        size_t nneeds = 0;
        while (nneeds < 3 && d->needs[nneeds])
            nneeds++;
        sked_step_options so = {.needs = d->needs,
                                .nneeds = nneeds,
                                .retry = d->retry,
                                .compensate = d->comp ? comp_fn : NULL,
                                .compensate_retry = d->comp_retry,
                                .userdata = d->b};
        if (sked_workflow_add_step(w, d->name, d->fn ? d->fn : step_fn, &so,
                                   &err) != 0)
            fail_msg("step %s: %s: %s", d->name, err.field, err.msg);
    }
    if (o && o->version)
        assert_int_equal(sked_workflow_set_version(w, o->version, NULL), 0);
    if (o && o->timeout)
        assert_int_equal(sked_workflow_set_timeout(w, o->timeout, !o->soft,
                                                   !o->not_hard, NULL),
                         0);
    if (o && o->parallelism)
        assert_int_equal(sked_workflow_set_parallelism(w, o->parallelism, NULL),
                         0);
    return w;
}

static void reg(sked_engine *e, sked_workflow *w)
{
    sked_error err;

    if (sked_engine_register(e, w, &err) != 0)
        fail_msg("register: %s", err.msg);
}

static void define(sked_engine *e, const char *name, const stepdef *steps,
                   size_t n, const wfopts *o)
{
    reg(e, wf_build(name, steps, n, o));
}

/* ---- engines and runs -------------------------------------------------- */

/* An engine on the test database: on the virtual clock unless REAL,
 * with WORKERS worker threads once started, and a lease of LEASE (0:
 * the default). */
static sked_engine *engine_open(bool real, int workers, sked_dur lease)
{
    sked_engine_options o = {.db_url = db_url,
                             .tzdir = SKED_TEST_DATA "/zoneinfo",
                             .clock = real ? NULL : &vclock,
                             .node_id = NODE,
                             .sqlite_synchronous = "normal",
                             .workers = workers,
                             .lease = lease};
    sked_subscription *sub = NULL;
    sked_engine *e = NULL;
    sked_error err;

    if (sked_engine_open(&o, &e, &err) != 0)
        fail_msg("open %s: %s", db_url, err.msg);
    assert_int_equal(sked_subscribe(e, on_event, NULL, &sub, NULL), 0);
    return e;
}

static void start(sked_engine *e)
{
    sked_error err;

    if (sked_engine_start(e, &err) != 0)
        fail_msg("start: %s", err.msg);
}

/* Claim and execute runs in this thread; the number taken. */
static size_t work(sked_engine *e)
{
    sked_error err;
    size_t done = 0;

    if (sked__engine_work(e, 16, &done, &err) != 0)
        fail_msg("work: %s", err.msg);
    return done;
}

/* Start a run of WORKFLOW with INPUT (NULL: {}); its id into ID. */
static void run_start(sked_engine *e, const char *workflow, const char *input,
                      char *id, size_t size)
{
    char *got = NULL;
    sked_error err;

    if (sked_engine_run_start(e, workflow, input, NULL, &got, &err) != 0)
        fail_msg("run start %s: %s", workflow, err.msg);
    snprintf(id, size, "%s", got);
    sked_free(got);
}

/* Run ID as its JSON, parsed (json_decref). */
static json_t *run_of(sked_engine *e, const char *id)
{
    char *s = NULL;
    sked_error err;
    json_t *o;

    if (sked_engine_run_get(e, id, &s, &err) != 0)
        fail_msg("run get %s: %s", id, err.msg);
    o = json_loads(s, 0, NULL);
    sked_free(s);
    assert_non_null(o);
    return o;
}

static const char *jstr(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static sked_time jtime(const json_t *o, const char *key)
{
    const char *s = jstr(o, key);
    return s ? T(s) : SKED_TIME_NONE;
}

/* The run's status, read again. */
static const char *status_of(sked_engine *e, const char *id)
{
    static char buf[32];
    json_t *r = run_of(e, id);

    snprintf(buf, sizeof buf, "%s", jstr(r, "status"));
    json_decref(r);
    return buf;
}

static bool finished(sked_engine *e, const char *id)
{
    const char *s = status_of(e, id);
    return strcmp(s, "completed") == 0 || strcmp(s, "failed") == 0 ||
           strcmp(s, "cancelled") == 0;
}

/* Wait (real time, at most SECS) until run ID finished. */
static void wait_finished(sked_engine *e, const char *id, int secs)
{
    for (int i = 0; i < secs * 100 && !finished(e, id); i++)
        nap_ms(10);
    if (!finished(e, id))
        fail_msg("run %s still %s after %d s", id, status_of(e, id), secs);
}

static void wait_flag(atomic_bool *flag, int secs)
{
    for (int i = 0; i < secs * 1000 && !*flag; i++)
        nap_ms(1);
    assert_true(*flag);
}

/* The attempts of run R as the user sees them, in the order given: one
 * "step/attempt status[ error_code][ exit_code]" per attempt ("step~"
 * for a compensation), joined by ", ". */
static const char *attempts_of(const json_t *r)
{
    static char buf[2048];
    size_t len = 0, i;
    json_t *s;

    buf[0] = '\0';
    json_array_foreach(json_object_get(r, "steps"), i, s)
    {
        const json_t *code = json_object_get(s, "error_code");
        const json_t *exit = json_object_get(s, "exit_code");
        len += (size_t) snprintf(
            buf + len, sizeof buf - len, "%s%s%s/%lld %s", i ? ", " : "",
            jstr(s, "step"),
            json_is_true(json_object_get(s, "compensation")) ? "~" : "",
            (long long) json_integer_value(json_object_get(s, "attempt")),
            jstr(s, "status"));
        if (json_is_string(code))
            len += (size_t) snprintf(buf + len, sizeof buf - len, " %s",
                                     json_string_value(code));
        if (json_is_integer(exit))
            len += (size_t) snprintf(buf + len, sizeof buf - len, " %lld",
                                     (long long) json_integer_value(exit));
    }
    return buf;
}

/* The Nth attempt record of run R. */
static const json_t *attempt_n(const json_t *r, size_t n)
{
    const json_t *s = json_array_get(json_object_get(r, "steps"), n);
    assert_non_null(s);
    return s;
}

static void assert_json(const json_t *got, const char *want)
{
    json_t *w = json_loads(want, JSON_DECODE_ANY, NULL);
    char *g = json_dumps(got, JSON_COMPACT | JSON_ENCODE_ANY);

    assert_non_null(w);
    if (!json_equal(got, w))
        fail_msg("got %s, want %s", g ? g : "NULL", want);
    free(g);
    json_decref(w);
}

/* Compare the event payload GOT with WANT, leaving out the real-time
 * "duration_secs" of step events, which GOT must have, and the actor,
 * which is the workers' own: "scheduler". */
static void assert_payload(const char *got, const char *want)
{
    json_t *g;

    assert_non_null(got);
    g = json_loads(got, 0, NULL);
    assert_non_null(g);
    assert_true(json_is_real(json_object_get(g, "duration_secs")));
    json_object_del(g, "duration_secs");
    assert_string_equal(json_string_value(json_object_get(g, "actor")),
                        "scheduler");
    json_object_del(g, "actor");
    assert_json(g, want);
    json_decref(g);
}

static void assert_time(sked_time got, sked_time want)
{
    char g[SKED_TIME_STRLEN], w[SKED_TIME_STRLEN];

    if (got != want)
        fail_msg("got %s, want %s", fmt_time(got, g, sizeof g),
                 fmt_time(want, w, sizeof w));
}

/* ---- schedules --------------------------------------------------------- */

typedef void (*tweak_fn)(sked_schedule *s);

static void schedule_create(sked_engine *e, const char *name,
                            const char *workflow, const char *cron,
                            tweak_fn tweak)
{
    sked_schedule s;
    sked_error err;

    sked_schedule_init(&s);
    s.name = strdup(name);
    s.workflow = strdup(workflow);
    s.cron = strdup(cron);
    if (tweak)
        tweak(&s);
    if (sked_engine_schedule_create(e, &s, &err) != 0)
        fail_msg("create %s: %s: %s", name, err.field, err.msg);
    sked_schedule_done(&s);
}

static void tick_at(sked_engine *e, sked_time at)
{
    sked_error err;

    set_now(at);
    if (sked_engine_tick(e, &err) != 0)
        fail_msg("tick: %s", err.msg);
}

/* ---- fixtures ---------------------------------------------------------- */

static int setup(void **state)
{
    const char *const tables[] = {"steps",
                                  "runs",
                                  sked_test_events_table(db_url),
                                  "schedules",
                                  "workflow_versions",
                                  "queues"};

    t0 = T(T0_STR);
    set_now(t0);
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        char sql[64];
        snprintf(sql, sizeof sql, "DELETE FROM %s", tables[i]);
        if (sked_test_sql(db_url, sql, NULL) != 0) {
            /* The schema is created by the first engine opened. */
            sked_engine_close(engine_open(false, -1, 0));
            assert_int_equal(sked_test_sql(db_url, sql, NULL), 0);
        }
    }
    memset(B, 0, sizeof B);
    logbuf[0] = '\0';
    release_flag = false;
    inflight = max_inflight = 0;
    nseen = 0;
    *state = engine_open(false, -1, 0);
    return 0;
}

static int teardown(void **state)
{
    sked_engine_close(*state);
    return 0;
}

/* ---- 1. a DAG ----------------------------------------------------------- */

/* What each step of the diamond saw of its sked_ctx, by step letter. */
static char ctx_seen[4][512];

/* The diamond's steps: a gives {"n":1}; b and c build on a's output; d
 * on b's and c's. Each records what its sked_ctx says. */
static int diamond_fn(sked_ctx *ctx, const char *input, char **out)
{
    const char *step = sked_ctx_step(ctx);
    const char *a = sked_ctx_output(ctx, "a");
    const char *b = sked_ctx_output(ctx, "b");
    const char *c = sked_ctx_output(ctx, "c");
    char sf[SKED_TIME_STRLEN], dl[SKED_TIME_STRLEN], buf[512];
    const char *sched = sked_ctx_schedule(ctx);

    snprintf(ctx_seen[step[0] - 'a'], sizeof ctx_seen[0],
             "run=%s workflow=%s step=%s trigger=%s schedule=%s for=%s "
             "attempt=%d key=%s deadline=%s cancelled=%d input=%s "
             "userdata=%s",
             sked_ctx_run_id(ctx), sked_ctx_workflow(ctx), step,
             sked_ctx_trigger(ctx), sched ? sched : "NULL",
             fmt_time(sked_ctx_scheduled_for(ctx), sf, sizeof sf),
             sked_ctx_attempt(ctx), sked_ctx_step_key(ctx),
             fmt_time(sked_ctx_deadline(ctx), dl, sizeof dl),
             sked_ctx_cancelled(ctx), input,
             (const char *) sked_ctx_userdata(ctx));
    if (sked_ctx_output(ctx, "nope") || sked_ctx_output(ctx, NULL))
        return 9;
    switch (step[0]) {
    case 'a':
        snprintf(buf, sizeof buf, "{\"n\":1}");
        break;
    case 'b':
        if (!a || c)
            return 2; /* c runs after b, in definition order */
        snprintf(buf, sizeof buf, "{\"from_a\":%s}", a);
        break;
    case 'c':
        if (!a || !b)
            return 3;
        snprintf(buf, sizeof buf, "[\"c\",%s]", a);
        break;
    default:
        if (!b || !c)
            return 4;
        snprintf(buf, sizeof buf, "{\"b\":%s,\"c\":%s}", b, c);
        break;
    }
    *out = strdup(buf);
    return 0;
}

static void context_kv(sked_schedule *s)
{
    s->context = strdup("{\"k\":\"v\"}");
}

static void define_diamond(sked_engine *e)
{
    stepdef d[] = {
        {.name = "a", .fn = diamond_fn},
        {"b", .needs = {"a"}, .fn = diamond_fn},
        {"c", .needs = {"a"}, .fn = diamond_fn},
        {"d", .needs = {"b", "c"}, .fn = diamond_fn},
    };
    sked_workflow *w = wf_build("diamond", d, 4, NULL);

    /* Userdata: the steps' own, given back as given. */
    for (size_t i = 0; i < w->nsteps; i++)
        w->steps[i].act.userdata = (void *) w->steps[i].name;
    reg(e, w);
}

static void test_dag_diamond(void **state)
{
    sked_engine *e = *state;
    const char *id = "sched-diamond-2026-01-10T08:01:00Z";
    json_t *r;

    define_diamond(e);
    set_now(T("2026-01-10T08:00:30Z"));
    schedule_create(e, "diamond", "diamond", "* * * * *", context_kv);
    tick_at(e, T("2026-01-10T08:01:00Z"));
    assert_int_equal(work(e), 1);
    assert_int_equal(work(e), 0);

    r = run_of(e, id);
    assert_string_equal(jstr(r, "status"), "completed");
    assert_string_equal(jstr(r, "trigger"), "cron");
    assert_string_equal(jstr(r, "schedule"), "diamond");
    assert_null(jstr(r, "error"));
    assert_null(jstr(r, "error_code"));
    assert_null(jstr(r, "executor"));
    assert_int_equal(json_integer_value(json_object_get(r, "attempts")), 1);
    assert_time(jtime(r, "started_at"), T("2026-01-10T08:01:00Z"));
    assert_time(jtime(r, "finished_at"), T("2026-01-10T08:01:00Z"));
    assert_string_equal(attempts_of(r),
                        "a/1 completed, b/1 completed, c/1 completed, "
                        "d/1 completed");
    /* Each step's output recorded as it gave it. */
    assert_string_equal(jstr(attempt_n(r, 0), "output"), "{\"n\":1}");
    assert_string_equal(jstr(attempt_n(r, 1), "output"),
                        "{\"from_a\":{\"n\":1}}");
    assert_string_equal(jstr(attempt_n(r, 2), "output"), "[\"c\",{\"n\":1}]");
    assert_string_equal(
        jstr(attempt_n(r, 3), "output"),
        "{\"b\":{\"from_a\":{\"n\":1}},\"c\":[\"c\",{\"n\":1}]}");
    /* The run's output: an object of the steps' outputs. */
    assert_json(
        json_object_get(r, "output"),
        "{\"a\":{\"n\":1},\"b\":{\"from_a\":{\"n\":1}},"
        "\"c\":[\"c\",{\"n\":1}],"
        "\"d\":{\"b\":{\"from_a\":{\"n\":1}},\"c\":[\"c\",{\"n\":1}]}}");
    json_decref(r);

    assert_string_equal(
        ctx_seen[0],
        "run=sched-diamond-2026-01-10T08:01:00Z workflow=diamond step=a "
        "trigger=cron schedule=diamond for=2026-01-10T08:01:00Z attempt=1 "
        "key=sched-diamond-2026-01-10T08:01:00Z/a deadline=none cancelled=0 "
        "input={\"k\":\"v\"} userdata=a");
    assert_string_equal(
        ctx_seen[3],
        "run=sched-diamond-2026-01-10T08:01:00Z workflow=diamond step=d "
        "trigger=cron schedule=diamond for=2026-01-10T08:01:00Z attempt=1 "
        "key=sched-diamond-2026-01-10T08:01:00Z/d deadline=none cancelled=0 "
        "input={\"k\":\"v\"} userdata=d");

    assert_string_equal(events_about(id),
                        "run.created run.started "
                        "step.started step.completed step.started "
                        "step.completed step.started step.completed "
                        "step.started step.completed run.completed");
    assert_string_equal(event("step.started", id, 1),
                        "{\"workflow\":\"diamond\",\"step\":\"b\","
                        "\"attempt\":1,\"actor\":\"scheduler\"}");
    assert_int_equal(count_events("run.completed"), 1);
    assert_int_equal(q("SELECT count(*) FROM events WHERE type = "
                       "'run.completed' AND subject = '%s'",
                       id),
                     1);
}

/* An API run: trigger "api", no schedule, no occurrence, its input. */
static void test_dag_api_run_context(void **state)
{
    sked_engine *e = *state;
    char id[256], want[1024];
    json_t *r;

    define_diamond(e);
    run_start(e, "diamond", "{\"x\":[1,2]}", id, sizeof id);
    assert_string_equal(id, "api-diamond-" T0_STR);
    assert_int_equal(work(e), 1);
    r = run_of(e, id);
    assert_string_equal(jstr(r, "status"), "completed");
    assert_string_equal(jstr(r, "trigger"), "api");
    assert_null(jstr(r, "schedule"));
    assert_null(jstr(r, "scheduled_for"));
    json_decref(r);
    snprintf(want, sizeof want,
             "run=%s workflow=diamond step=c trigger=api schedule=NULL "
             "for=none attempt=1 key=%s/c deadline=none cancelled=0 "
             "input={\"x\":[1,2]} userdata=c",
             id, id);
    assert_string_equal(ctx_seen[2], want);
}

/* ---- 2. retries --------------------------------------------------------- */

static void test_retry_then_complete(void **state)
{
    sked_engine *e = *state;
    stepdef d[] = {{.name = "flaky", .b = &B[0], .retry = {.attempts = 3}}};
    char id[256];
    json_t *r;

    B[0] = (behave){.rcs = {1, 1}, .nrcs = 2, .output = "\"ok\""};
    define(e, "retry", d, 1, NULL);
    run_start(e, "retry", NULL, id, sizeof id);
    assert_int_equal(work(e), 1);
    assert_int_equal(B[0].calls, 3);
    assert_int_equal(B[0].last_attempt, 3);
    r = run_of(e, id);
    assert_string_equal(jstr(r, "status"), "completed");
    assert_string_equal(attempts_of(r),
                        "flaky/1 failed step_failed 1, "
                        "flaky/2 failed step_failed 1, flaky/3 completed");
    assert_string_equal(jstr(attempt_n(r, 0), "error"),
                        "flaky failed on attempt 1");
    assert_string_equal(jstr(attempt_n(r, 1), "error"),
                        "flaky failed on attempt 2");
    assert_null(jstr(attempt_n(r, 2), "error"));
    assert_string_equal(jstr(attempt_n(r, 2), "output"), "\"ok\"");
    assert_json(json_object_get(r, "output"), "{\"flaky\":\"ok\"}");
    json_decref(r);
    assert_string_equal(events_about(id),
                        "run.created run.started "
                        "step.started step.failed step.retrying "
                        "step.started step.failed step.retrying "
                        "step.started step.completed run.completed");
    assert_string_equal(
        event("step.retrying", id, 0),
        "{\"workflow\":\"retry\",\"step\":\"flaky\","
        "\"attempt\":2,\"delay_secs\":0.0,\"actor\":\"scheduler\"}");
    /* Its duration is the step's real time: not compared. */
    assert_payload(event("step.failed", id, 1),
                   "{\"workflow\":\"retry\",\"step\":\"flaky\","
                   "\"attempt\":2,\"error\":\"flaky failed on attempt 2\","
                   "\"exit_code\":1}");
}

static void test_retry_exhausted(void **state)
{
    sked_engine *e = *state;
    stepdef d[] = {{.name = "first", .b = &B[1]},
                   {.name = "flaky",
                    .b = &B[0],
                    .needs = {"first"},
                    .retry = {.attempts = 2}},
                   {.name = "never", .b = &B[2], .needs = {"flaky"}}};
    char id[256];
    json_t *r;

    B[0] = (behave){.then = 1};
    define(e, "retry", d, 3, NULL);
    run_start(e, "retry", NULL, id, sizeof id);
    assert_int_equal(work(e), 1);
    assert_int_equal(B[0].calls, 2);
    assert_int_equal(B[2].calls, 0);
    r = run_of(e, id);
    assert_string_equal(jstr(r, "status"), "failed");
    assert_string_equal(jstr(r, "error"),
                        "step flaky failed: flaky failed on attempt 2");
    assert_string_equal(jstr(r, "error_code"), "step_failed");
    assert_true(json_is_null(json_object_get(r, "output")));
    assert_time(jtime(r, "finished_at"), t0);
    assert_string_equal(attempts_of(r),
                        "first/1 completed, flaky/1 failed step_failed 1, "
                        "flaky/2 failed step_failed 1");
    json_decref(r);
    assert_string_equal(events_about(id),
                        "run.created run.started "
                        "step.started step.completed "
                        "step.started step.failed step.retrying "
                        "step.started step.failed run.failed");
    assert_string_equal(
        event("run.failed", id, 0),
        "{\"workflow\":\"retry\",\"queue\":\"default\","
        "\"duration_secs\":0.0,"
        "\"error\":\"step flaky failed: flaky failed on "
        "attempt 2\",\"error_code\":\"step_failed\",\"actor\":\"scheduler\"}");
    assert_int_equal(count_events("run.failed"), 1);
    assert_int_equal(count_events("run.completed"), 0);
}

/* retry_on [75]: only that return value is retried. */
static void test_retry_on(void **state)
{
    static const int32_t on75[] = {75};
    sked_engine *e = *state;
    stepdef one[] = {
        {.name = "s",
         .b = &B[0],
         .retry = {.attempts = 3, .retry_on = on75, .nretry_on = 1}}};
    stepdef two[] = {
        {.name = "s",
         .b = &B[1],
         .retry = {.attempts = 3, .retry_on = on75, .nretry_on = 1}}};
    char id1[256], id2[256];
    json_t *r;

    B[0] = (behave){.rcs = {1}, .nrcs = 1};
    B[1] = (behave){.rcs = {75}, .nrcs = 1, .output = "{}"};
    define(e, "exit1", one, 1, NULL);
    define(e, "exit75", two, 1, NULL);
    run_start(e, "exit1", NULL, id1, sizeof id1);
    run_start(e, "exit75", NULL, id2, sizeof id2);
    assert_int_equal(work(e), 2);

    r = run_of(e, id1);
    assert_string_equal(jstr(r, "status"), "failed");
    assert_string_equal(jstr(r, "error"),
                        "step s failed: s failed on attempt 1");
    assert_string_equal(attempts_of(r), "s/1 failed step_failed 1");
    json_decref(r);
    assert_int_equal(B[0].calls, 1);

    r = run_of(e, id2);
    assert_string_equal(jstr(r, "status"), "completed");
    assert_string_equal(attempts_of(r),
                        "s/1 failed step_failed 75, s/2 completed");
    json_decref(r);
    assert_int_equal(B[1].calls, 2);
    assert_non_null(event("step.retrying", id2, 0));
    assert_null(event("step.retrying", id1, 0));
}

/* ---- 3. durable backoff ------------------------------------------------- */

/* Move the clock to T and check run ID waits until NOT_BEFORE and no
 * engine takes it before. */
static void assert_waits_until(sked_engine *e, const char *id,
                               sked_time not_before)
{
    json_t *r = run_of(e, id);

    assert_string_equal(jstr(r, "status"), "waiting");
    assert_time(jtime(r, "not_before"), not_before);
    assert_null(jstr(r, "executor"));
    assert_null(jstr(r, "lease_until"));
    json_decref(r);
    set_now(not_before - 1);
    assert_int_equal(work(e), 0);
    set_now(not_before);
}

static void test_backoff_durable(void **state)
{
    sked_engine *e = *state;
    stepdef d[] = {{.name = "f",
                    .b = &B[0],
                    .retry = {.attempts = 4,
                              .backoff = 10 * SEC,
                              .multiplier = 2,
                              .max_backoff = 30 * SEC}}};
    char id[256];
    json_t *r;

    B[0] = (behave){.then = 1};
    define(e, "backoff", d, 1, NULL);
    run_start(e, "backoff", NULL, id, sizeof id);
    assert_int_equal(work(e), 1);
    assert_int_equal(B[0].calls, 1);
    assert_string_equal(
        event("step.retrying", id, 0),
        "{\"workflow\":\"backoff\",\"step\":\"f\","
        "\"attempt\":2,\"delay_secs\":10.0,\"actor\":\"scheduler\"}");
    /* 10 s, then 10 * 2, then 10 * 4 capped at 30. */
    assert_waits_until(e, id, t0 + 10 * SEC);
    assert_int_equal(work(e), 1);
    assert_int_equal(B[0].calls, 2);
    assert_int_equal(B[0].last_attempt, 2);
    assert_waits_until(e, id, t0 + 30 * SEC);
    assert_int_equal(work(e), 1);
    assert_int_equal(B[0].calls, 3);
    assert_waits_until(e, id, t0 + 60 * SEC);
    assert_int_equal(work(e), 1);
    assert_int_equal(B[0].calls, 4);
    r = run_of(e, id);
    assert_string_equal(jstr(r, "status"), "failed");
    assert_string_equal(jstr(r, "error"),
                        "step f failed: f failed on attempt 4");
    assert_int_equal(json_integer_value(json_object_get(r, "attempts")), 4);
    assert_time(jtime(r, "started_at"), t0);
    assert_time(jtime(r, "finished_at"), t0 + 60 * SEC);
    assert_string_equal(attempts_of(r),
                        "f/1 failed step_failed 1, f/2 failed step_failed 1, "
                        "f/3 failed step_failed 1, f/4 failed step_failed 1");
    assert_time(jtime(attempt_n(r, 2), "started_at"), t0 + 30 * SEC);
    json_decref(r);
    /* run.started once: a run taken again after a wait has started. */
    assert_string_equal(events_about(id),
                        "run.created run.started "
                        "step.started step.failed step.retrying "
                        "step.started step.failed step.retrying "
                        "step.started step.failed step.retrying "
                        "step.started step.failed run.failed");
}

/* ---- 4. compensation ---------------------------------------------------- */

/* a, b, c in a chain, each with a compensation; every call moves the
 * clock a second, as real work would. */
static void define_chain(sked_engine *e, const char *name)
{
    stepdef d[] = {{.name = "a", .b = &B[0], .comp = true},
                   {.name = "b", .b = &B[1], .needs = {"a"}, .comp = true},
                   {.name = "c", .b = &B[2], .needs = {"b"}, .comp = true}};

    for (int i = 0; i < 3; i++)
        B[i].advance = B[i].comp_advance = SEC;
    B[2].then = 1;
    define(e, name, d, 3, NULL);
}

static void test_compensation_reverse_order(void **state)
{
    sked_engine *e = *state;
    char id[256];
    json_t *r;

    define_chain(e, "comp");
    run_start(e, "comp", NULL, id, sizeof id);
    assert_int_equal(work(e), 1);
    assert_string_equal(log_get(), "a b c ~b ~a");
    assert_int_equal(B[2].comp_calls, 0); /* c never completed */
    r = run_of(e, id);
    assert_string_equal(jstr(r, "status"), "failed");
    assert_string_equal(jstr(r, "error"),
                        "step c failed: c failed on attempt 1");
    assert_string_equal(jstr(r, "error_code"), "step_failed");
    assert_string_equal(attempts_of(r),
                        "a/1 completed, b/1 completed, "
                        "c/1 failed step_failed 1, b~/1 completed, "
                        "a~/1 completed");
    assert_true(json_is_true(json_object_get(attempt_n(r, 3), "compensation")));
    assert_time(jtime(attempt_n(r, 3), "started_at"), t0 + 3 * SEC);
    assert_time(jtime(attempt_n(r, 4), "finished_at"), t0 + 5 * SEC);
    assert_time(jtime(r, "finished_at"), t0 + 5 * SEC);
    json_decref(r);
    assert_string_equal(events_about(id),
                        "run.created run.started "
                        "step.started step.completed step.started "
                        "step.completed step.started step.failed "
                        "step.started step.completed step.started "
                        "step.completed run.failed");
    assert_string_equal(event("step.started", id, 3),
                        "{\"workflow\":\"comp\",\"step\":\"b\",\"attempt\":1,"
                        "\"compensation\":true,\"actor\":\"scheduler\"}");
    assert_payload(event("step.completed", id, 3),
                   "{\"workflow\":\"comp\",\"step\":\"a\",\"attempt\":1,"
                   "\"compensation\":true}");
}

/* A compensation that fails is recorded failed; the others still run and
 * the run keeps the error of the step that failed. */
static void test_compensation_failure_goes_on(void **state)
{
    sked_engine *e = *state;
    char id[256];
    json_t *r;

    B[1].comp_fails = true;
    define_chain(e, "comp");
    run_start(e, "comp", NULL, id, sizeof id);
    assert_int_equal(work(e), 1);
    assert_string_equal(log_get(), "a b c ~b ~a");
    r = run_of(e, id);
    assert_string_equal(jstr(r, "status"), "failed");
    assert_string_equal(jstr(r, "error"),
                        "step c failed: c failed on attempt 1");
    assert_string_equal(jstr(r, "error_code"), "step_failed");
    assert_string_equal(attempts_of(r),
                        "a/1 completed, b/1 completed, "
                        "c/1 failed step_failed 1, b~/1 failed step_failed 2, "
                        "a~/1 completed");
    assert_string_equal(jstr(attempt_n(r, 3), "error"), "undo failed");
    json_decref(r);
    assert_int_equal(count_events("run.failed"), 1);
}

/* Reverse order of completion, not of definition: a fails once and
 * completes after b, so a is undone first. */
static void test_compensation_completion_order(void **state)
{
    sked_engine *e = *state;
    stepdef d[] = {{.name = "a",
                    .b = &B[0],
                    .comp = true,
                    .retry = {.attempts = 2, .backoff = 1000}},
                   {.name = "b", .b = &B[1], .comp = true},
                   {.name = "c", .b = &B[2], .needs = {"a", "b"}}};
    char id[256];
    json_t *r;

    for (int i = 0; i < 3; i++)
        B[i].advance = B[i].comp_advance = SEC;
    B[0].rcs[0] = 1;
    B[0].nrcs = 1;
    B[2].then = 1;
    define(e, "comp2", d, 3, NULL);
    run_start(e, "comp2", NULL, id, sizeof id);
    assert_int_equal(work(e), 1);
    assert_string_equal(log_get(), "a b a c ~a ~b");
    r = run_of(e, id);
    assert_string_equal(jstr(r, "status"), "failed");
    assert_string_equal(attempts_of(r),
                        "a/1 failed step_failed 1, b/1 completed, "
                        "a/2 completed, c/1 failed step_failed 1, "
                        "a~/1 completed, b~/1 completed");
    json_decref(r);
}

/* ---- 5. the workflow timeout -------------------------------------------- */

static void test_timeout_before_next_step(void **state)
{
    sked_engine *e = *state;
    stepdef d[] = {{.name = "s1", .b = &B[0], .comp = true},
                   {.name = "s2", .b = &B[1], .needs = {"s1"}}};
    char id[256];
    json_t *r;

    B[0].advance = 11 * SEC;
    define(e, "tmo", d, 2, &(wfopts){.timeout = 10 * SEC});
    run_start(e, "tmo", NULL, id, sizeof id);
    assert_int_equal(work(e), 1);
    assert_int_equal(B[1].calls, 0);
    assert_int_equal(B[0].comp_calls, 1);
    r = run_of(e, id);
    assert_string_equal(jstr(r, "status"), "failed");
    assert_string_equal(jstr(r, "error"), "Workflow timeout.");
    assert_string_equal(jstr(r, "error_code"), "timeout");
    assert_time(jtime(r, "finished_at"), t0 + 11 * SEC);
    /* The step that returned success late completed all the same. */
    assert_string_equal(attempts_of(r), "s1/1 completed, s1~/1 completed");
    json_decref(r);
    assert_string_equal(events_about(id),
                        "run.created run.started "
                        "step.started step.completed "
                        "step.started step.completed run.failed");
    assert_string_equal(event("run.failed", id, 0),
                        "{\"workflow\":\"tmo\",\"queue\":\"default\","
                        "\"duration_secs\":11.0,"
                        "\"error\":\"Workflow timeout.\","
                        "\"error_code\":\"timeout\",\"actor\":\"scheduler\"}");
}

/* Elapsed exactly the limit: the run goes on (strictly greater), and
 * the next step is not stopped at once by the hard deadline either. */
static void test_timeout_exact_limit_goes_on(void **state)
{
    sked_engine *e = *state;
    stepdef d[] = {{.name = "s1", .b = &B[0]},
                   {.name = "s2", .b = &B[1], .needs = {"s1"}}};
    char id[256];
    json_t *r;

    B[0].advance = 10 * SEC;
    B[1].sleep_ms = 20; /* watching sked_ctx_cancelled */
    B[1].output = "1";
    define(e, "tmo", d, 2, &(wfopts){.timeout = 10 * SEC});
    run_start(e, "tmo", NULL, id, sizeof id);
    assert_int_equal(work(e), 1);
    assert_false(B[1].saw_cancel);
    r = run_of(e, id);
    assert_string_equal(jstr(r, "status"), "completed");
    assert_null(jstr(r, "error"));
    assert_string_equal(attempts_of(r), "s1/1 completed, s2/1 completed");
    json_decref(r);
}

/* Retries use up the deadline, which they never reset: the run fails
 * with the timeout before its attempts run out. */
static void test_timeout_retries_consume_deadline(void **state)
{
    sked_engine *e = *state;
    stepdef d[] = {{.name = "f",
                    .b = &B[0],
                    .retry = {.attempts = 5, .backoff = 4 * SEC}}};
    char id[256];
    json_t *r;
    int passes = 0;

    B[0].then = 1;
    define(e, "tmo", d, 1, &(wfopts){.timeout = 10 * SEC});
    run_start(e, "tmo", NULL, id, sizeof id);
    for (;;) {
        assert_true(passes++ < 10);
        work(e);
        r = run_of(e, id);
        if (strcmp(jstr(r, "status"), "waiting") != 0)
            break;
        /* Every claim sees the same start: no retry resets it. */
        assert_time(jtime(r, "started_at"), t0);
        set_now(jtime(r, "not_before"));
        json_decref(r);
    }
    assert_string_equal(jstr(r, "status"), "failed");
    assert_string_equal(jstr(r, "error"), "Workflow timeout.");
    assert_string_equal(jstr(r, "error_code"), "timeout");
    /* t0, t0+4, t0+8; the 4th would start at t0+12, past the limit. */
    assert_string_equal(attempts_of(r),
                        "f/1 failed step_failed 1, f/2 failed step_failed 1, "
                        "f/3 failed step_failed 1");
    assert_true(jtime(r, "finished_at") > t0 + 10 * SEC);
    assert_true(jtime(r, "finished_at") <= t0 + 12 * SEC);
    json_decref(r);
    assert_int_equal(B[0].calls, 3);
}

/* ---- 6. a soft timeout -------------------------------------------------- */

static void test_timeout_soft(void **state)
{
    sked_engine *e = *state;
    stepdef d[] = {{.name = "a", .b = &B[0]},
                   {.name = "b", .b = &B[1], .needs = {"a"}},
                   {.name = "c", .b = &B[2], .needs = {"b"}},
                   {.name = "d", .b = &B[3], .needs = {"c"}}};
    sked_workflow *w = wf_build("soft", d, 3, NULL);
    sked_action nap = {.kind = SKED_ACTION_SLEEP,
                       .sleep = 2 * SEC,
                       .retry = {.attempts = 1, .multiplier = 1}};
    char id[256];
    json_t *r;

    B[0].advance = 6 * SEC;
    B[1].advance = 6 * SEC;
    B[2].advance = 1 * SEC;
    B[3].advance = 1 * SEC;
    /* a, b, c, then a durable sleep (the run is taken again after it),
     * then d. */
    assert_int_equal(sked__workflow_add(w, "nap", &nap, NULL, NULL), 0);
    assert_int_equal(sked__workflow_need(w, 3, 2, NULL), 0);
    assert_int_equal(sked_workflow_add_step(
                         w, "d", step_fn,
                         &(sked_step_options){.needs = (const char *[]){"nap"},
                                              .nneeds = 1,
                                              .userdata = &B[3]},
                         NULL),
                     0);
    assert_int_equal(sked_workflow_set_timeout(w, 10 * SEC, false, true, NULL),
                     0);
    reg(e, w);
    run_start(e, "soft", NULL, id, sizeof id);
    assert_int_equal(work(e), 1);
    assert_string_equal(status_of(e, id), "waiting");
    set_now(t0 + 15 * SEC);
    assert_int_equal(work(e), 1);
    assert_string_equal(log_get(), "a b c d");
    r = run_of(e, id);
    assert_string_equal(jstr(r, "status"), "completed");
    assert_null(jstr(r, "error"));
    assert_time(jtime(r, "timeout_exceeded_at"), t0 + 12 * SEC);
    assert_string_equal(attempts_of(r),
                        "a/1 completed, b/1 completed, c/1 completed, "
                        "nap/1 completed, d/1 completed");
    json_decref(r);
    assert_int_equal(count_events("run.timeout_exceeded"), 1);
    assert_string_equal(event("run.timeout_exceeded", id, 0),
                        "{\"workflow\":\"soft\",\"timeout_secs\":10.0,"
                        "\"actor\":\"scheduler\"}");
    assert_int_equal(q("SELECT count(*) FROM events WHERE type = "
                       "'run.timeout_exceeded'"),
                     1);
    assert_string_equal(events_about(id),
                        "run.created run.started "
                        "step.started step.completed "
                        "step.started step.completed run.timeout_exceeded "
                        "step.started step.completed "
                        "step.started step.completed "
                        "step.started step.completed run.completed");
}

/* ---- 7. the hard timeout, on real time ---------------------------------- */

/* Two runs at once on two workers: "hard" has a step that loops until
 * sked_ctx_cancelled, cut at the 1 s deadline; "nothard" (hard false)
 * has a step that takes its own 2 s and is never cut, then the run
 * fails at the next check. */
static void test_timeout_hard_real_time(void **state)
{
    sked_engine *e = engine_open(true, 2, 0);
    stepdef hard[] = {{.name = "spin", .b = &B[0]}};
    stepdef soft[] = {{.name = "slow", .b = &B[1]},
                      {.name = "after", .b = &B[2], .needs = {"slow"}}};
    char id1[256], id2[256];
    json_t *r;
    sked_dur took;

    (void) state;
    B[0].block = 1;
    B[1].sleep_ms = 2000;
    define(e, "hard", hard, 1, &(wfopts){.timeout = SEC});
    define(e, "nothard", soft, 2, &(wfopts){.timeout = SEC, .not_hard = true});
    start(e);
    run_start(e, "hard", NULL, id1, sizeof id1);
    run_start(e, "nothard", NULL, id2, sizeof id2);
    wait_finished(e, id1, 5);
    r = run_of(e, id1);
    assert_string_equal(jstr(r, "status"), "failed");
    assert_string_equal(jstr(r, "error"), "Workflow timeout.");
    assert_string_equal(jstr(r, "error_code"), "timeout");
    /* Run times are read on the wall clock, which NTP may slew against
     * the monotonic one the steps sleep on: SLEW of slack below. */
    took = jtime(r, "finished_at") - jtime(r, "started_at");
    if (took < SEC - SLEW || took > 2 * SEC)
        fail_msg("the hard timeout ended the run after %lld us",
                 (long long) took);
    assert_string_equal(attempts_of(r), "spin/1 failed timeout 1");
    assert_string_equal(jstr(attempt_n(r, 0), "error"), "Workflow timeout.");
    json_decref(r);
    assert_true(B[0].saw_cancel);

    wait_finished(e, id2, 5);
    r = run_of(e, id2);
    assert_string_equal(jstr(r, "status"), "failed");
    assert_string_equal(jstr(r, "error"), "Workflow timeout.");
    assert_string_equal(jstr(r, "error_code"), "timeout");
    took = jtime(r, "finished_at") - jtime(r, "started_at");
    if (took < 2 * SEC - SLEW || took > 3 * SEC)
        fail_msg("the soft-cut run ended after %lld us", (long long) took);
    assert_string_equal(attempts_of(r), "slow/1 completed");
    json_decref(r);
    assert_false(B[1].saw_cancel);
    assert_int_equal(B[2].calls, 0);
    sked_engine_close(e);
}

/* ---- 8. cancel ---------------------------------------------------------- */

static void test_cancel_pending(void **state)
{
    sked_engine *e = *state;
    stepdef d[] = {{.name = "a", .b = &B[0]}};
    char id[256];
    sked_error err;
    json_t *r;

    define(e, "c1", d, 1, NULL);
    run_start(e, "c1", NULL, id, sizeof id);
    set_now(t0 + SEC);
    assert_int_equal(sked_engine_run_cancel(e, id, &err), 0);
    r = run_of(e, id);
    assert_string_equal(jstr(r, "status"), "cancelled");
    assert_string_equal(jstr(r, "error"), "Cancelled.");
    assert_string_equal(jstr(r, "error_code"), "cancelled");
    assert_null(jstr(r, "started_at"));
    assert_time(jtime(r, "finished_at"), t0 + SEC);
    assert_int_equal(json_array_size(json_object_get(r, "steps")), 0);
    json_decref(r);
    assert_string_equal(events_about(id), "run.created run.cancelled");
    assert_int_equal(work(e), 0);
    assert_int_equal(B[0].calls, 0);
    /* Finished: a conflict; unknown: not found. */
    assert_int_equal(sked_engine_run_cancel(e, id, &err), SKED_ECONFLICT);
    assert_string_equal(err.msg, "run api-c1-" T0_STR " is already cancelled");
    assert_int_equal(sked_engine_run_cancel(e, "nope", &err), SKED_ENOTFOUND);
    assert_int_equal(count_events("run.cancelled"), 1);
}

/* A run waiting for a retry's backoff: the next claim runs its failure
 * path at once. */
static void test_cancel_waiting(void **state)
{
    sked_engine *e = *state;
    stepdef d[] = {{.name = "a", .b = &B[0], .comp = true},
                   {.name = "b",
                    .b = &B[1],
                    .needs = {"a"},
                    .retry = {.attempts = 2, .backoff = 10 * SEC}}};
    char id[256];
    json_t *r;

    B[1].then = 1;
    define(e, "c3", d, 2, NULL);
    run_start(e, "c3", NULL, id, sizeof id);
    assert_int_equal(work(e), 1);
    assert_string_equal(status_of(e, id), "waiting");
    set_now(t0 + SEC);
    assert_int_equal(sked_engine_run_cancel(e, id, NULL), 0);
    assert_int_equal(work(e), 1);
    assert_int_equal(B[1].calls, 1);
    assert_int_equal(B[0].comp_calls, 1);
    r = run_of(e, id);
    assert_string_equal(jstr(r, "status"), "cancelled");
    assert_string_equal(jstr(r, "error"), "Cancelled.");
    assert_string_equal(jstr(r, "error_code"), "cancelled");
    assert_time(jtime(r, "finished_at"), t0 + SEC);
    assert_string_equal(attempts_of(r),
                        "a/1 completed, b/1 failed step_failed 1, "
                        "a~/1 completed");
    json_decref(r);
    assert_string_equal(events_about(id),
                        "run.created run.started step.started step.completed "
                        "step.started step.failed step.retrying "
                        "step.started step.completed run.cancelled");
    assert_int_equal(sked_engine_run_cancel(e, id, NULL), SKED_ECONFLICT);
}

/* A running run on a worker: its step is stopped, the completed step is
 * compensated, the run ends cancelled. */
static void test_cancel_running(void **state)
{
    sked_engine *e = engine_open(true, 2, 0);
    stepdef d[] = {{.name = "a", .b = &B[0], .comp = true},
                   {.name = "b", .b = &B[1], .needs = {"a"}}};
    char id[256];
    sked_error err;
    json_t *r;

    (void) state;
    B[1].block = 1;
    define(e, "c2", d, 2, NULL);
    start(e);
    run_start(e, "c2", NULL, id, sizeof id);
    wait_flag(&B[1].started, 5);
    assert_string_equal(status_of(e, id), "running");
    assert_int_equal(sked_engine_run_cancel(e, id, &err), 0);
    wait_finished(e, id, 5);
    assert_true(B[1].saw_cancel);
    r = run_of(e, id);
    assert_string_equal(jstr(r, "status"), "cancelled");
    assert_string_equal(jstr(r, "error"), "Cancelled.");
    assert_string_equal(jstr(r, "error_code"), "cancelled");
    assert_non_null(jstr(r, "cancel_requested_at"));
    assert_string_equal(attempts_of(r),
                        "a/1 completed, b/1 cancelled cancelled 1, "
                        "a~/1 completed");
    json_decref(r);
    assert_string_equal(log_get(), "a b ~a");
    assert_string_equal(events_about(id),
                        "run.created run.started step.started step.completed "
                        "step.started step.failed "
                        "step.started step.completed run.cancelled");
    assert_int_equal(count_events("run.cancelled"), 1);
    assert_int_equal(sked_engine_run_cancel(e, id, &err), SKED_ECONFLICT);
    sked_engine_close(e);
}

/* ---- 9. recovery -------------------------------------------------------- */

/* Apply OP as executor "dead"; its result. */
static int dead_op(sked_engine *e, sked_run_op op)
{
    int result = -1;
    sked_error err;

    op.executor = "dead";
    op.at = vnow;
    if (sked__store_run_ops(sked__engine_store(e), &op, 1, &result, NULL, NULL,
                            &err) != 0)
        fail_msg("ops: %s", err.msg);
    return result;
}

static sked_step_record rec(const char *step, sked_step_status st,
                            const char *output)
{
    return (sked_step_record){
        .step = (char *) step,
        .attempt = 1,
        .status = st,
        .output = (char *) output,
        .exit_code = -1,
        .started_at = vnow,
        .finished_at = st == SKED_STEP_RUNNING ? SKED_TIME_NONE : vnow};
}

static int recovery_s3(sked_ctx *ctx, const char *input, char **out)
{
    const char *s1 = sked_ctx_output(ctx, "s1");
    int rc = step_fn(ctx, input, out);
    if (rc == 0 && (!s1 || strcmp(s1, "{\"by\":\"dead\"}") != 0))
        return 7;
    return rc;
}

static void test_recovery(void **state)
{
    sked_engine *e = *state;
    stepdef d[] = {
        {.name = "s1", .b = &B[0]},
        {.name = "s2", .b = &B[1], .needs = {"s1"}},
        {.name = "s3", .b = &B[2], .needs = {"s2"}, .fn = recovery_s3}};
    sked_claim_workflow cw = {"rec", "v1", true};
    sked_claim_req req = {.executor = "dead",
                          .now = t0,
                          .lease = 30 * SEC,
                          .max = 1,
                          .workflows = &cw,
                          .nworkflows = 1};
    sked_run *runs = NULL;
    size_t n = 0;
    char id[256];
    json_t *r;

    define(e, "rec", d, 3, &(wfopts){.version = "v1"});
    run_start(e, "rec", NULL, id, sizeof id);
    assert_int_equal(sked__store_runs_claim(sked__engine_store(e), &req, &runs,
                                            &n, NULL, NULL, NULL),
                     0);
    assert_int_equal(n, 1);
    sked__runs_free(runs, n);
    assert_int_equal(
        dead_op(e, (sked_run_op){.kind = SKED_RUN_OP_STEP_BEGIN,
                                 .run_id = id,
                                 .step = rec("s1", SKED_STEP_RUNNING, NULL)}),
        0);
    set_now(t0 + SEC);
    assert_int_equal(
        dead_op(e, (sked_run_op){.kind = SKED_RUN_OP_STEP_END,
                                 .run_id = id,
                                 .step = rec("s1", SKED_STEP_COMPLETED,
                                             "{\"by\":\"dead\"}")}),
        0);
    assert_int_equal(
        dead_op(e, (sked_run_op){.kind = SKED_RUN_OP_STEP_BEGIN,
                                 .run_id = id,
                                 .step = rec("s2", SKED_STEP_RUNNING, NULL)}),
        0);
    /* The lease runs to t0 + 30 s: not yet taken over. */
    set_now(t0 + 30 * SEC);
    assert_int_equal(work(e), 0);
    set_now(t0 + 30 * SEC + 1);
    assert_int_equal(work(e), 1);
    assert_int_equal(B[0].calls, 0);
    assert_int_equal(B[1].calls, 1);
    assert_int_equal(B[1].last_attempt, 2);
    assert_int_equal(B[2].calls, 1);
    r = run_of(e, id);
    assert_string_equal(jstr(r, "status"), "completed");
    assert_int_equal(json_integer_value(json_object_get(r, "attempts")), 2);
    assert_time(jtime(r, "started_at"), t0);
    assert_string_equal(attempts_of(r),
                        "s1/1 completed, s2/1 failed lease_expired, "
                        "s2/2 completed, s3/1 completed");
    assert_string_equal(jstr(attempt_n(r, 1), "error"),
                        "lease expired: executor dead stopped renewing");
    assert_json(json_object_get(r, "output"), "{\"s1\":{\"by\":\"dead\"}}");
    json_decref(r);
    assert_string_equal(event("run.recovered", id, 0),
                        "{\"from\":\"dead\",\"actor\":\"library\"}");
    assert_string_equal(events_about(id),
                        "run.created run.recovered step.started "
                        "step.completed step.started step.completed "
                        "run.completed");
    /* The dead executor wakes up: fenced out. */
    assert_int_equal(
        dead_op(e, (sked_run_op){.kind = SKED_RUN_OP_STEP_END,
                                 .run_id = id,
                                 .step = rec("s2", SKED_STEP_COMPLETED, NULL)}),
        SKED_ECONFLICT);
    assert_int_equal(dead_op(e, (sked_run_op){.kind = SKED_RUN_OP_FINISH,
                                              .run_id = id,
                                              .status = SKED_RUN_FAILED}),
                     SKED_ECONFLICT);
    assert_string_equal(status_of(e, id), "completed");
}

/* ---- 10. a durable sleep ------------------------------------------------ */

static void test_durable_sleep(void **state)
{
    sked_engine *e = *state;
    stepdef d[] = {{.name = "a", .b = &B[0]}};
    sked_workflow *w = wf_build("sleepy", d, 1, NULL);
    sked_action nap = {.kind = SKED_ACTION_SLEEP,
                       .sleep = 30 * SEC,
                       .retry = {.attempts = 1, .multiplier = 1}};
    char id[256];
    json_t *r;

    B[0].output = "\"a\"";
    B[1].output = "\"b\"";
    assert_int_equal(sked__workflow_add(w, "nap", &nap, NULL, NULL), 0);
    assert_int_equal(sked__workflow_need(w, 1, 0, NULL), 0);
    assert_int_equal(sked_workflow_add_step(
                         w, "b", step_fn,
                         &(sked_step_options){.needs = (const char *[]){"nap"},
                                              .nneeds = 1,
                                              .userdata = &B[1]},
                         NULL),
                     0);
    reg(e, w);
    run_start(e, "sleepy", NULL, id, sizeof id);
    assert_int_equal(work(e), 1);
    assert_int_equal(B[0].calls, 1);
    assert_int_equal(B[1].calls, 0);
    r = run_of(e, id);
    assert_string_equal(jstr(r, "status"), "waiting");
    assert_time(jtime(r, "not_before"), t0 + 30 * SEC);
    assert_null(jstr(r, "executor"));
    assert_string_equal(attempts_of(r), "a/1 completed, nap/1 running");
    json_decref(r);
    set_now(t0 + 29 * SEC);
    assert_int_equal(work(e), 0);
    assert_int_equal(work(e), 0);
    set_now(t0 + 30 * SEC);
    assert_int_equal(work(e), 1);
    assert_int_equal(B[1].calls, 1);
    r = run_of(e, id);
    assert_string_equal(jstr(r, "status"), "completed");
    assert_string_equal(attempts_of(r),
                        "a/1 completed, nap/1 completed, b/1 completed");
    assert_time(jtime(attempt_n(r, 1), "started_at"), t0);
    assert_time(jtime(attempt_n(r, 1), "finished_at"), t0 + 30 * SEC);
    assert_json(json_object_get(r, "output"), "{\"a\":\"a\",\"b\":\"b\"}");
    json_decref(r);
    assert_string_equal(events_about(id),
                        "run.created run.started step.started step.completed "
                        "step.started step.completed step.started "
                        "step.completed run.completed");
}

/* A sleepy workflow: step "a", then a 30 s durable sleep "nap", under
 * the workflow timeout SECS (0: none). */
static void define_sleepy(sked_engine *e, const char *name, sked_dur secs)
{
    stepdef d[] = {{.name = "a", .b = &B[0]}};
    sked_workflow *w = wf_build(name, d, 1, NULL);
    sked_action nap = {.kind = SKED_ACTION_SLEEP,
                       .sleep = 30 * SEC,
                       .retry = {.attempts = 1, .multiplier = 1}};

    assert_int_equal(sked__workflow_add(w, "nap", &nap, NULL, NULL), 0);
    assert_int_equal(sked__workflow_need(w, 1, 0, NULL), 0);
    if (secs > 0)
        assert_int_equal(sked_workflow_set_timeout(w, secs, true, true, NULL),
                         0);
    reg(e, w);
}

/* A run cancelled during its durable sleep: the sleep's attempt is
 * closed as cancelled, not left running. */
static void test_sleep_cancelled(void **state)
{
    sked_engine *e = *state;
    char id[256];
    json_t *r;

    define_sleepy(e, "sleepc", 0);
    run_start(e, "sleepc", NULL, id, sizeof id);
    assert_int_equal(work(e), 1);
    assert_int_equal(sked_engine_run_cancel(e, id, NULL), 0);
    assert_int_equal(work(e), 1);
    r = run_of(e, id);
    assert_string_equal(jstr(r, "status"), "cancelled");
    assert_string_equal(attempts_of(r),
                        "a/1 completed, nap/1 cancelled cancelled");
    json_decref(r);
}

/* A hard workflow timeout inside a durable sleep: the wait is cut at the
 * deadline and the run fails then, once (no wait past it, no loop). */
static void test_sleep_past_deadline(void **state)
{
    sked_engine *e = *state;
    char id[256];
    json_t *r;

    define_sleepy(e, "sleept", 10 * SEC);
    run_start(e, "sleept", NULL, id, sizeof id);
    assert_int_equal(work(e), 1);
    r = run_of(e, id);
    assert_time(jtime(r, "not_before"), t0 + 10 * SEC + 1);
    json_decref(r);
    set_now(t0 + 10 * SEC + 1);
    assert_int_equal(work(e), 1);
    r = run_of(e, id);
    assert_string_equal(jstr(r, "status"), "failed");
    assert_string_equal(jstr(r, "error"), "Workflow timeout.");
    assert_string_equal(attempts_of(r), "a/1 completed, nap/1 failed timeout");
    json_decref(r);
    assert_int_equal(work(e), 0);
}

/* SPEC 4.3 checks the workflow timeout before each step: a last step
 * that ends past a limit that does not cut it (hard: false) completes. */
static void test_last_step_past_timeout(void **state)
{
    sked_engine *e = *state;
    stepdef d[] = {{.name = "only", .b = &B[0]}};
    sked_workflow *w = wf_build("late", d, 1, NULL);
    char id[256];

    assert_int_equal(sked_workflow_set_timeout(w, 10 * SEC, true, false, NULL),
                     0);
    reg(e, w);
    B[0].advance = 11 * SEC;
    run_start(e, "late", NULL, id, sizeof id);
    assert_int_equal(work(e), 1);
    assert_string_equal(status_of(e, id), "completed");
}

/* An idempotency key names one run of one workflow: starting again with
 * it creates nothing; the same key on another workflow is another run. */
static void test_idempotency_key(void **state)
{
    sked_engine *e = *state;
    char *a = NULL, *b = NULL, *c = NULL;

    assert_int_equal(sked_engine_run_start(e, "w1", "{}", "order-17", &a, NULL),
                     0);
    assert_int_equal(
        sked_engine_run_start(e, "w1", "{\"x\":1}", "order-17", &b, NULL), 0);
    assert_int_equal(sked_engine_run_start(e, "w2", "{}", "order-17", &c, NULL),
                     0);
    assert_string_equal(a, "api-w1-key-order-17");
    assert_string_equal(b, a);
    assert_string_equal(c, "api-w2-key-order-17");
    assert_int_equal(q("SELECT count(*) FROM runs"), 2);
    assert_int_equal(sked_engine_run_start(e, "w1", "{}", "", NULL, NULL),
                     SKED_EINVAL);
    sked_free(a);
    sked_free(b);
    sked_free(c);
}

/* ---- 11. parallelism ---------------------------------------------------- */

/* Run three independent 300 ms steps with PARALLELISM on the real clock;
 * the run's JSON. */
static json_t *run_three(sked_engine *e, const char *name, int parallelism)
{
    stepdef d[] = {{.name = "p1", .b = &B[0]},
                   {.name = "p2", .b = &B[1]},
                   {.name = "p3", .b = &B[2]}};
    char id[256];

    for (int i = 0; i < 3; i++) {
        B[i] = (behave){.sleep_ms = 300};
    }
    define(e, name, d, 3, &(wfopts){.parallelism = parallelism});
    run_start(e, name, NULL, id, sizeof id);
    assert_int_equal(work(e), 1);
    return run_of(e, id);
}

static void test_parallelism(void **state)
{
    sked_engine *e = engine_open(true, -1, 0);
    sked_time first_end = INT64_MAX, last_start = 0;
    json_t *r;

    (void) state;
    r = run_three(e, "par3", 3);
    assert_string_equal(jstr(r, "status"), "completed");
    assert_int_equal(max_inflight, 3);
    for (size_t i = 0; i < 3; i++) {
        sked_time s = jtime(attempt_n(r, i), "started_at");
        sked_time f = jtime(attempt_n(r, i), "finished_at");
        last_start = s > last_start ? s : last_start;
        first_end = f < first_end ? f : first_end;
    }
    /* All three overlap: every one started before any ended (how long
     * the run took depends on the machine's load, not on sked). */
    assert_true(last_start < first_end);
    json_decref(r);

    max_inflight = 0;
    r = run_three(e, "par1", 1);
    assert_string_equal(jstr(r, "status"), "completed");
    assert_int_equal(max_inflight, 1);
    for (size_t i = 1; i < 3; i++)
        assert_true(jtime(attempt_n(r, i - 1), "finished_at") <=
                    jtime(attempt_n(r, i), "started_at"));
    json_decref(r);
    sked_engine_close(e);
}

/* ---- 11b. a command's attempt is on record before it starts ------------ */

/* Register the workflows of the workflows file YAML on E. */
static void define_yaml(sked_engine *e, const char *yaml)
{
    sked_workflow **list = NULL;
    sked_tzdb *tzdb = NULL;
    sked_wf_file f;
    sked_wf_error we;
    sked_error err;
    size_t n = 0;

    assert_int_equal(sked_tzdb_open(SKED_TEST_DATA "/zoneinfo", &tzdb, NULL),
                     0);
    if (sked__workflow_file_parse(yaml, strlen(yaml), tzdb, &f, &we) != 0)
        fail_msg("workflows file %d:%d: %s: %s\n%s", we.line, we.column,
                 we.path, we.msg, yaml);
    if (sked__workflows_from_file(&f, &list, &n, &err) != 0)
        fail_msg("%s: %s", err.field, err.msg);
    for (size_t i = 0; i < n; i++)
        reg(e, list[i]);
    free(list);
    sked__workflow_file_done(&f);
    sked_tzdb_close(tzdb);
}

/* Each command looks, with the database's own client, for its attempt in
 * the database and prints how many it found: a crash from the moment it
 * runs must find it there, to close it as cut off and run the next number
 * (never this one again). Two first steps at once (the second starts
 * without an earlier end to wait for), a third after them, and each fails
 * its first attempt, so retries are looked at too; the commits of the
 * first steps' attempts are held back as a slow disk or a busy database
 * would. */
static void test_attempt_recorded_before_it_runs(void **state)
{
    sked_engine *e = engine_open(true, -1, 0);
    bool pg = strncmp(db_url, "sqlite:", 7) != 0;
    char yaml[8192], step[3][2048], id[256];
    const char *names[3] = {"a", "b", "c"};
    json_t *r;

    (void) state;
    for (int i = 0; i < 3; i++)
        snprintf(step[i], sizeof step[i],
                 "      - name: %s\n"
                 "        %s\n"
                 "        retry: {attempts: 2}\n"
                 "        env: {DB: \"%s\"}\n"
                 "        sh: |\n"
                 "          n=$(%s \"SELECT count(*) FROM steps WHERE run_id = "
                 "'$SKED_RUN_ID' AND step = '$SKED_STEP' AND attempt = "
                 "$SKED_ATTEMPT AND status = 'running'\")\n"
                 "          echo \"$n\"\n"
                 "          [ \"$SKED_ATTEMPT\" -gt 1 ]\n",
                 names[i], i == 2 ? "needs: [a, b]" : "needs: []",
                 pg ? db_url : db_url + 7,
                 /* sqlite3 waits for a lock as the engine does, rather
                  * than failing at once on a busy moment of the WAL. */
                 pg ? "psql \"$DB\" -X -Atq -c"
                    : "sqlite3 -cmd '.timeout 10000' \"$DB\"");
    snprintf(yaml, sizeof yaml,
             "workflows:\n  rec:\n    parallelism: 2\n    steps:\n%s%s%s",
             step[0], step[1], step[2]);
    define_yaml(e, yaml);
    lock_steps_of = "rec";
    for (int k = 0; k < 4; k++) {
        run_start(e, "rec", NULL, id, sizeof id);
        assert_int_equal(work(e), 1);
        r = run_of(e, id);
        if (strcmp(jstr(r, "status"), "completed") != 0)
            fail_msg("%s", json_dumps(r, 0));
        json_decref(r);
    }
    lock_steps_of = NULL;
    assert_int_equal(q("SELECT count(*) FROM steps"), 4 * 3 * 2);
    /* Every attempt found itself; else say what the others printed. */
    if (q("SELECT count(*) FROM steps WHERE output = '1\n'") != 4 * 3 * 2)
        fail_msg("an attempt did not find itself: %lld of %d did, %lld "
                 "printed 0",
                 q("SELECT count(*) FROM steps WHERE output = '1\n'"),
                 4 * 3 * 2,
                 q("SELECT count(*) FROM steps WHERE output = '0\n'"));
    sked_engine_close(e);
}

/* ---- 12. pause_after_failures ------------------------------------------- */

static void every_second_pause_2(sked_schedule *s)
{
    s->pause_after_failures = 2;
}

/* Fire the occurrence at t0 + K s and execute it; the run's status. */
static const char *fire_and_work(sked_engine *e, const char *schedule, int k)
{
    char id[256], ts[SKED_TIME_STRLEN];

    tick_at(e, t0 + k * SEC);
    snprintf(id, sizeof id, "sched-%s-%s", schedule,
             fmt_time(t0 + k * SEC, ts, sizeof ts));
    assert_int_equal(work(e), 1);
    return status_of(e, id);
}

static void test_pause_after_failures(void **state)
{
    sked_engine *e = *state;
    stepdef d[] = {{.name = "s", .b = &B[0]}};
    sked_schedule s;

    define(e, "pfw", d, 1, NULL);
    schedule_create(e, "pf", "pfw", "* * * * * *", every_second_pause_2);
    B[0].then = 1;
    assert_string_equal(fire_and_work(e, "pf", 1), "failed");
    B[0].then = 0;
    assert_string_equal(fire_and_work(e, "pf", 2), "completed");
    B[0].then = 1;
    assert_string_equal(fire_and_work(e, "pf", 3), "failed");
    assert_int_equal(sked_engine_schedule_get(e, "pf", &s, NULL), 0);
    assert_int_equal(s.status, SKED_SCHEDULE_ACTIVE);
    assert_int_equal(s.consecutive_failures, 1);
    sked_schedule_done(&s);
    assert_null(event("schedule.paused", "pf", 0));
    assert_string_equal(fire_and_work(e, "pf", 4), "failed");
    assert_int_equal(sked_engine_schedule_get(e, "pf", &s, NULL), 0);
    assert_int_equal(s.status, SKED_SCHEDULE_PAUSED);
    assert_int_equal(s.consecutive_failures, 2);
    assert_string_equal(s.last_error, "paused after 2 consecutive failed runs");
    sked_schedule_done(&s);
    assert_string_equal(event("schedule.paused", "pf", 0),
                        "{\"name\":\"pf\",\"reason\":\"paused after 2 "
                        "consecutive failed runs\",\"actor\":\"scheduler\"}");
    assert_int_equal(count_events("schedule.paused"), 1);
    /* Paused: nothing fires any more. */
    tick_at(e, t0 + 5 * SEC);
    tick_at(e, t0 + 6 * SEC);
    assert_int_equal(work(e), 0);
    assert_int_equal(q("SELECT count(*) FROM runs WHERE schedule = 'pf'"), 4);
    /* Resuming is a decision that the failures are dealt with: the count
     * starts again, and last_error goes. */
    assert_int_equal(sked_engine_schedule_resume(e, "pf", NULL), 0);
    assert_int_equal(sked_engine_schedule_get(e, "pf", &s, NULL), 0);
    assert_int_equal(s.status, SKED_SCHEDULE_ACTIVE);
    assert_int_equal(s.consecutive_failures, 0);
    assert_null(s.last_error);
    sked_schedule_done(&s);
}

/* ---- 13. overlap cancel_other ------------------------------------------- */

static void cancel_other(sked_schedule *s)
{
    s->overlap = SKED_OVERLAP_CANCEL_OTHER;
}

static void test_overlap_cancel_other(void **state)
{
    /* A lease of 3 s: the heartbeat that notices the cancel beats every
     * second. */
    sked_engine *e = engine_open(false, 2, 3 * SEC);
    stepdef d[] = {{.name = "first", .b = &B[0], .comp = true},
                   {.name = "block", .b = &B[1], .needs = {"first"}}};
    const char *id1 = "sched-co-2026-01-10T08:00:01Z";
    const char *id2 = "sched-co-2026-01-10T08:00:02Z";
    json_t *r;

    (void) state;
    B[0].log_run = B[1].log_run = true;
    B[1].block = 1;
    define(e, "cow", d, 2, NULL);
    schedule_create(e, "co", "cow", "* * * * * *", cancel_other);
    start(e);
    tick_at(e, t0 + SEC);
    wait_flag(&B[1].started, 5);
    assert_string_equal(status_of(e, id1), "running");
    tick_at(e, t0 + 2 * SEC);
    wait_finished(e, id2, 10);
    assert_true(B[1].saw_cancel);

    r = run_of(e, id1);
    assert_string_equal(jstr(r, "status"), "cancelled");
    assert_string_equal(jstr(r, "error"), "Cancelled.");
    assert_string_equal(jstr(r, "error_code"), "cancelled");
    assert_string_equal(attempts_of(r),
                        "block/1 cancelled cancelled 1, first/1 completed, "
                        "first~/1 completed");
    json_decref(r);
    r = run_of(e, id2);
    assert_string_equal(jstr(r, "status"), "completed");
    json_decref(r);
    /* Run 1 ended, compensated, before run 2 began. */
    assert_string_equal(log_get(), "first@sched-co-2026-01-10T08:00:01Z "
                                   "block@sched-co-2026-01-10T08:00:01Z "
                                   "~first "
                                   "first@sched-co-2026-01-10T08:00:02Z "
                                   "block@sched-co-2026-01-10T08:00:02Z");
    assert_string_equal(events_about(id1),
                        "run.created run.started step.started step.completed "
                        "step.started step.failed step.started "
                        "step.completed run.cancelled");
    assert_int_equal(count_events("run.cancelled"), 1);
    sked_engine_close(e);
}

/* ---- 13b. the order of one run's events -------------------------------- */

/* Whatever claims a run, however soon after its creation (a worker woken
 * by another run, or polling), its subscribers see run.created first and
 * the run's events in the order they happened: runs started through the
 * API and fired by a schedule, many at once, with workers claiming as
 * fast as they can. */
static void test_event_order_per_run(void **state)
{
    enum { ROUNDS = 60 };
    /* The virtual clock moves a minute while the workers catch up: on a
     * loaded machine a run claimed early would outlive the default lease
     * (30 s) in virtual time and be recovered, which is not the order in
     * question here. */
    sked_engine *e = engine_open(false, 4, 3600 * SEC);
    stepdef d[] = {{.name = "s", .b = &B[0]}};
    static char ids[2 * ROUNDS][128];
    int bad = 0;

    (void) state;
    define(e, "ord", d, 1, NULL);
    schedule_create(e, "ord", "ord", "* * * * * *", NULL);
    start(e);
    for (int k = 0; k < ROUNDS; k++) {
        tick_at(e, t0 + (k + 1) * SEC);
        snprintf(ids[2 * k], sizeof ids[0], "sched-ord-%s",
                 fmt_time(t0 + (k + 1) * SEC, ids[2 * k + 1], 64));
        run_start(e, "ord", NULL, ids[2 * k + 1], sizeof ids[0]);
    }
    for (int i = 0; i < 2 * ROUNDS; i++) {
        wait_finished(e, ids[i], 20);
        /* run.completed is delivered after the run is committed: wait for
         * it, not for the status alone. */
        for (int t = 0; t < 1000 && !event("run.completed", ids[i], 0); t++)
            nap_ms(1);
        const char *got = events_about(ids[i]);
        if (strcmp(got, "run.created run.started step.started "
                        "step.completed run.completed") != 0) {
            print_error("%s: %s\n", ids[i], got);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
    sked_engine_close(e);
}

/* ---- 14. buffer_one and buffer_all -------------------------------------- */

static void buffer_all(sked_schedule *s)
{
    s->overlap = SKED_OVERLAP_BUFFER_ALL;
}

static void buffer_one(sked_schedule *s)
{
    s->overlap = SKED_OVERLAP_BUFFER_ONE;
}

/* Fire schedule "bs" under OVERLAP at t0 + 1 s (a run that holds until
 * released), then at t0 + 2 .. t0 + 1 + NMORE s while it runs; check
 * that only the NWANT runs WANT exist and that the buffered ones are not
 * taken while the first runs; release; check they ran one at a time,
 * as WANT_LOG says. */
static void buffered(tweak_fn overlap, int nmore, const char *const *want,
                     size_t nwant, const char *want_log)
{
    sked_engine *e = engine_open(false, 2, 60 * SEC);
    stepdef d[] = {{.name = "hold", .b = &B[0]}};

    B[0].log_run = true;
    B[0].wait_release = true;
    B[0].sleep_ms = 30;
    define(e, "bw", d, 1, NULL);
    schedule_create(e, "bs", "bw", "* * * * * *", overlap);
    start(e);
    tick_at(e, t0 + SEC);
    wait_flag(&B[0].started, 5);
    for (int k = 2; k < 2 + nmore; k++)
        tick_at(e, t0 + k * SEC);
    assert_int_equal(q("SELECT count(*) FROM runs WHERE schedule = 'bs'"),
                     (long long) nwant);
    /* While the first runs, the others are not taken. */
    nap_ms(500);
    for (size_t i = 1; i < nwant; i++) {
        json_t *r = run_of(e, want[i]);
        assert_null(jstr(r, "started_at"));
        /* SPEC 4.1: a run buffered by overlap is "waiting". */
        assert_string_equal(jstr(r, "status"), "waiting");
        json_decref(r);
    }
    assert_int_equal(B[0].calls, 1);
    release_flag = true;
    for (size_t i = 0; i < nwant; i++) {
        wait_finished(e, want[i], 10);
        assert_string_equal(status_of(e, want[i]), "completed");
    }
    assert_int_equal(max_inflight, 1);
    assert_string_equal(log_get(), want_log);
    sked_engine_close(e);
}

static void test_overlap_buffer_all(void **state)
{
    static const char *const ids[] = {"sched-bs-2026-01-10T08:00:01Z",
                                      "sched-bs-2026-01-10T08:00:02Z",
                                      "sched-bs-2026-01-10T08:00:03Z"};

    (void) state;
    buffered(buffer_all, 2, ids, 3,
             "hold@sched-bs-2026-01-10T08:00:01Z "
             "hold@sched-bs-2026-01-10T08:00:02Z "
             "hold@sched-bs-2026-01-10T08:00:03Z");
    const char *missed = event("schedule.occurrences_missed", "bs", 0);
    if (missed)
        fail_msg("missed: %s", missed);
}

static void test_overlap_buffer_one(void **state)
{
    static const char *const ids[] = {"sched-bs-2026-01-10T08:00:01Z",
                                      "sched-bs-2026-01-10T08:00:02Z"};

    (void) state;
    buffered(buffer_one, 3, ids, 2,
             "hold@sched-bs-2026-01-10T08:00:01Z "
             "hold@sched-bs-2026-01-10T08:00:02Z");
    assert_string_equal(
        event("schedule.occurrences_missed", "bs", 0),
        "{\"schedule\":\"bs\",\"reason\":\"overlap\","
        "\"count\":1,\"first\":\"2026-01-10T08:00:03Z\","
        "\"last\":\"2026-01-10T08:00:03Z\",\"actor\":\"scheduler\"}");
    assert_string_equal(
        event("schedule.occurrences_missed", "bs", 1),
        "{\"schedule\":\"bs\",\"reason\":\"overlap\","
        "\"count\":1,\"first\":\"2026-01-10T08:00:04Z\","
        "\"last\":\"2026-01-10T08:00:04Z\",\"actor\":\"scheduler\"}");
}

/* ---- 15. version routing ------------------------------------------------ */

static void test_version_routing(void **state)
{
    sked_engine *e = *state, *old = NULL;
    stepdef d[] = {{.name = "s", .b = &B[0]}};
    sked_run_new pinned = {.id = "pinned-old",
                           .workflow = "routed",
                           .workflow_version = "old",
                           .trigger = SKED_TRIGGER_API,
                           .scheduled_for = SKED_TIME_NONE,
                           .not_before = SKED_TIME_NONE};
    char id[256];
    json_t *r;

    define(e, "routed", d, 1, &(wfopts){.version = "new"});
    assert_int_equal(
        sked__store_runs_insert(sked__engine_store(e), &pinned, 1, NULL, NULL),
        0);
    run_start(e, "routed", NULL, id, sizeof id);
    /* The engine with "new" takes the run with no version, not the
     * run of "old". */
    assert_int_equal(work(e), 1);
    assert_int_equal(work(e), 0);
    r = run_of(e, id);
    assert_string_equal(jstr(r, "status"), "completed");
    assert_string_equal(jstr(r, "workflow_version"), "new");
    json_decref(r);
    r = run_of(e, "pinned-old");
    assert_string_equal(jstr(r, "status"), "pending");
    assert_string_equal(jstr(r, "workflow_version"), "old");
    json_decref(r);
    assert_int_equal(B[0].calls, 1);

    /* An engine with "old" takes it. */
    old = engine_open(false, -1, 0);
    define(old, "routed", d, 1, &(wfopts){.version = "old"});
    assert_int_equal(work(old), 1);
    assert_string_equal(status_of(e, "pinned-old"), "completed");
    assert_int_equal(B[0].calls, 2);
    sked_engine_close(old);
}

/* ---- 16. an output that is not JSON ------------------------------------- */

static void test_output_not_json(void **state)
{
    sked_engine *e = *state;
    stepdef d[] = {{.name = "g", .b = &B[0]}};
    char id[256];
    json_t *r;

    B[0].output = "not json {";
    define(e, "garbage", d, 1, NULL);
    run_start(e, "garbage", NULL, id, sizeof id);
    assert_int_equal(work(e), 1);
    r = run_of(e, id);
    assert_string_equal(jstr(r, "status"), "completed");
    assert_string_equal(jstr(attempt_n(r, 0), "output"), "not json {");
    assert_json(json_object_get(r, "output"), "{\"g\":\"not json {\"}");
    json_decref(r);
}

/* ---- main --------------------------------------------------------------- */

#define TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
    const char *url = getenv("SKED_TEST_DB_URL");
    const struct CMUnitTest tests[] = {
        TEST(test_dag_diamond),
        TEST(test_dag_api_run_context),
        TEST(test_retry_then_complete),
        TEST(test_retry_exhausted),
        TEST(test_retry_on),
        TEST(test_backoff_durable),
        TEST(test_compensation_reverse_order),
        TEST(test_compensation_failure_goes_on),
        TEST(test_compensation_completion_order),
        TEST(test_timeout_before_next_step),
        TEST(test_timeout_exact_limit_goes_on),
        TEST(test_timeout_retries_consume_deadline),
        TEST(test_timeout_soft),
        TEST(test_timeout_hard_real_time),
        TEST(test_cancel_pending),
        TEST(test_cancel_waiting),
        TEST(test_cancel_running),
        TEST(test_recovery),
        TEST(test_durable_sleep),
        TEST(test_idempotency_key),
        TEST(test_sleep_cancelled),
        TEST(test_sleep_past_deadline),
        TEST(test_last_step_past_timeout),
        TEST(test_parallelism),
        TEST(test_attempt_recorded_before_it_runs),
        TEST(test_pause_after_failures),
        TEST(test_overlap_cancel_other),
        TEST(test_event_order_per_run),
        TEST(test_overlap_buffer_all),
        TEST(test_overlap_buffer_one),
        TEST(test_version_routing),
        TEST(test_output_not_json),
    };
    int rc;

    /* SKED_TEST_ONLY=PATTERN runs the matching tests alone, to repeat a
     * timing-sensitive one many times under load. */
    if (getenv("SKED_TEST_ONLY") && getenv("SKED_TEST_ONLY")[0])
        cmocka_set_test_filter(getenv("SKED_TEST_ONLY"));
    vclock = (sked_clock){read_now, read_now, NULL};
    if (url && url[0]) {
        snprintf(db_url, sizeof db_url, "%s", url);
    } else {
        snprintf(tmp_dir, sizeof tmp_dir, "/tmp/sked-exec-XXXXXX");
        if (!mkdtemp(tmp_dir))
            return 1;
        snprintf(db_url, sizeof db_url, "sqlite:%s/exec.db", tmp_dir);
    }
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (tmp_dir[0]) {
        static const char *const files[] = {"exec.db", "exec.db-wal",
                                            "exec.db-shm"};
        for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
            char path[512];
            snprintf(path, sizeof path, "%s/%s", tmp_dir, files[i]);
            unlink(path);
        }
        rmdir(tmp_dir);
    }
    return rc;
}
