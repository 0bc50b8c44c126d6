/* SPDX-License-Identifier: MIT */
/* The parsers under allocation failures (tests/lib/test_alloc.h): cron
 * expressions, durations, RFC 3339 instants, TZif files, POSIX TZ
 * strings, the zone database, the workflows file and the API's schedule
 * JSON, good inputs and bad, each parsed again with its Nth allocation
 * failing, N = 1, 2, ... until a parse fails none.
 *
 * Every pass answers what the clean parse answers (the same value, or
 * the same error with the same message) or SKED_ENOMEM with nothing
 * given back; jansson's allocations fail in turn too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "test_alloc.h"

#include "base/json_io.h"
#include "engine/workflow_file.h"
#include "model/schedule.h"
#include "model/schedule_json.h"
#include "sked/sked.h"

#define PRINT_MAX 16384

static sked_tzdb *tzdb;

/* One input to one parser. PARSE (armed) reads IN into OBJ (NULL on
 * failure) and sets MSG on an error; PRINT (disarmed) writes what OBJ
 * holds; DROP frees it. */
typedef struct pcase {
    const char *name;
    int (*parse)(struct pcase *p);
    void (*print)(struct pcase *p, char *buf, size_t size);
    void (*drop)(struct pcase *p);
    const char *in;
    size_t len;
    void *obj;
    char msg[512];
    char ref[PRINT_MAX], ref_msg[512];
    char got[PRINT_MAX];
} pcase;

/* ---- the loop ----------------------------------------------------------- */

static int pass(void *ctx)
{
    pcase *p = ctx;
    p->obj = NULL;
    p->msg[0] = '\0';
    return p->parse(p);
}

static void check(void *ctx, int rc, long failed)
{
    pcase *p = ctx;

    (void) failed;
    if (sked_test_alloc_jansson_only()) {
        /* jansson may misread under failures (test_alloc.h); what libsked
         * adds must still be right: it never blames the value when
         * jansson refused it for want of memory. */
        if (strstr(p->msg, "invalid key") || strstr(p->msg, "UTF-8"))
            fail_msg("%s: %s", p->name, p->msg);
    } else if (rc == 0) {
        p->print(p, p->got, sizeof p->got);
        if (strcmp(p->got, p->ref) != 0)
            fail_msg("%s: read %s, not %s", p->name, p->got, p->ref);
    } else if (rc != 0 && rc != SKED_ENOMEM &&
               !sked_test_alloc_jansson_only() &&
               strcmp(p->msg, p->ref_msg) != 0) {
        fail_msg("%s: message \"%s\", not \"%s\"", p->name, p->msg, p->ref_msg);
    }
    if (rc != 0 && p->obj)
        fail_msg("%s: a failed parse gave something back", p->name);
    if (p->obj)
        p->drop(p);
    p->obj = NULL;
}

static const char *why(void *ctx)
{
    return ((pcase *) ctx)->msg;
}

/* Parse P clean, then once per allocation failing. */
static void loop(pcase *p)
{
    if (!p->len && p->in)
        p->len = strlen(p->in);
    int want = pass(p);

    if (want == 0)
        p->print(p, p->ref, sizeof p->ref);
    snprintf(p->ref_msg, sizeof p->ref_msg, "%s", p->msg);
    if (p->obj)
        p->drop(p);
    sked_test_alloc_case c = {.name = p->name,
                              .ctx = p,
                              .run = pass,
                              .want = want,
                              .check = check,
                              .why = why};
    sked_test_alloc_loop(&c);
}

/* ---- cron, durations, instants ------------------------------------------ */

static int cron_parse(pcase *p)
{
    sked_cron *c = malloc(sizeof *c);
    sked_error err = {0};
    int rc = c ? sked_cron_parse(p->in, c, &err) : SKED_ENOMEM;

    snprintf(p->msg, sizeof p->msg, "%s", err.msg);
    if (rc != 0)
        free(c);
    else
        p->obj = c;
    return rc;
}

static void cron_print(pcase *p, char *buf, size_t size)
{
    if (sked_cron_explain(p->obj, "Europe/Paris", buf, size) < 0)
        fail_msg("%s: no explanation", p->name);
}

static void drop_free(pcase *p)
{
    free(p->obj);
}

static void test_cron(void **state)
{
    static const char *const exprs[] = {
        "0 9 * * 1-5", "*/15 8-18 * * *", "0 0 L * *",  "0 12 * * 5L",
        "0 0 1W * *",  "@daily",          "0 0 31 2 *", "61 * * * *",
        "* * * *",     "0 9 * * MON-FRI", "0 0 ? * 2#3"};

    (void) state;
    for (size_t i = 0; i < sizeof exprs / sizeof *exprs; i++) {
        pcase p = {.name = exprs[i],
                   .in = exprs[i],
                   .parse = cron_parse,
                   .print = cron_print,
                   .drop = drop_free};
        loop(&p);
    }
}

static int dur_parse(pcase *p)
{
    sked_dur *d = malloc(sizeof *d);
    sked_error err = {0};
    int rc = d ? sked_dur_parse(p->in, d, &err) : SKED_ENOMEM;

    snprintf(p->msg, sizeof p->msg, "%s", err.msg);
    if (rc != 0)
        free(d);
    else
        p->obj = d;
    return rc;
}

static void dur_print(pcase *p, char *buf, size_t size)
{
    snprintf(buf, size, "%lld", (long long) *(sked_dur *) p->obj);
}

static int time_parse(pcase *p)
{
    sked_time *t = malloc(sizeof *t);
    sked_error err = {0};
    int rc = t ? sked_time_parse(p->in, t, &err) : SKED_ENOMEM;

    snprintf(p->msg, sizeof p->msg, "%s", err.msg);
    if (rc != 0)
        free(t);
    else
        p->obj = t;
    return rc;
}

static void test_durations_and_instants(void **state)
{
    static const char *const durs[] = {"1h30m", "90s", "2d", "1.5s", "1x", ""};
    static const char *const times[] = {"2026-03-29T02:30:00+01:00",
                                        "2026-01-10T12:00:00.123456Z",
                                        "2026-02-30T00:00:00Z", "yesterday"};

    (void) state;
    for (size_t i = 0; i < sizeof durs / sizeof *durs; i++) {
        pcase p = {.name = durs[i],
                   .in = durs[i],
                   .parse = dur_parse,
                   .print = dur_print,
                   .drop = drop_free};
        loop(&p);
    }
    for (size_t i = 0; i < sizeof times / sizeof *times; i++) {
        pcase p = {.name = times[i],
                   .in = times[i],
                   .parse = time_parse,
                   .print = dur_print, /* both are int64_t */
                   .drop = drop_free};
        loop(&p);
    }
}

/* ---- zones -------------------------------------------------------------- */

/* The offsets of the zone OBJ at instants around two DST changes. */
static void tz_print(pcase *p, char *buf, size_t size)
{
    static const char *const at[] = {
        "1970-01-01T00:00:00Z", "2026-03-29T00:59:59Z", "2026-03-29T01:00:00Z",
        "2026-10-25T00:59:59Z", "2026-10-25T01:00:00Z", "2099-07-01T00:00:00Z"};
    size_t len = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < sizeof at / sizeof *at; i++) {
        sked_time t = 0;
        sked_tz_info info;
        assert_int_equal(sked_time_parse(at[i], &t, NULL), 0);
        assert_int_equal(sked_tz_lookup(p->obj, t, &info), 0);
        len += (size_t) snprintf(buf + len, size - len, "%d/%d/%s ", info.utoff,
                                 info.is_dst, info.abbr);
    }
}

static void drop_tz(pcase *p)
{
    sked_tz_free(p->obj);
}

static int tzif_parse(pcase *p)
{
    sked_tz *tz = NULL;
    sked_error err = {0};
    int rc = sked_tz_parse_tzif(p->name, p->in, p->len, &tz, &err);

    snprintf(p->msg, sizeof p->msg, "%s", err.msg);
    p->obj = tz;
    return rc;
}

static int posix_parse(pcase *p)
{
    sked_tz *tz = NULL;
    sked_error err = {0};
    int rc = sked_tz_parse_posix(p->in, &tz, &err);

    snprintf(p->msg, sizeof p->msg, "%s", err.msg);
    p->obj = tz;
    return rc;
}

/* The bytes of FILE under the test data (malloc'd), its size in *len. */
static char *slurp(const char *file, size_t *len)
{
    char path[512];
    FILE *f;
    char *buf = malloc(1 << 20);

    snprintf(path, sizeof path, "%s/%s", SKED_TEST_DATA, file);
    f = fopen(path, "rb");
    if (!f || !buf)
        fail_msg("cannot read %s", path);
    *len = fread(buf, 1, (1 << 20) - 1, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

static void test_tzif(void **state)
{
    static const char *const zones[] = {"Europe/Paris", "America/New_York",
                                        "Australia/Lord_Howe", "UTC"};

    (void) state;
    for (size_t i = 0; i < sizeof zones / sizeof *zones; i++) {
        char file[128];
        size_t len = 0;
        snprintf(file, sizeof file, "zoneinfo/%s", zones[i]);
        char *data = slurp(file, &len);
        pcase p = {.name = zones[i],
                   .in = data,
                   .len = len,
                   .parse = tzif_parse,
                   .print = tz_print,
                   .drop = drop_tz};
        loop(&p);
        /* A file cut short: its error path, under failures too. */
        p.len = len / 2;
        loop(&p);
        free(data);
    }
}

static void test_posix_tz(void **state)
{
    static const char *const rules[] = {
        "CET-1CEST,M3.5.0,M10.5.0/3", "EST5EDT,M3.2.0,M11.1.0",
        "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0", "UTC0", "CET-1CEST,M13.5.0"};

    (void) state;
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++) {
        pcase p = {.name = rules[i],
                   .in = rules[i],
                   .parse = posix_parse,
                   .print = tz_print,
                   .drop = drop_tz};
        loop(&p);
    }
}

/* The zone database: opened, then zones read and cached. */
static int tzdb_read(pcase *p)
{
    sked_tzdb *db = NULL;
    const sked_tz *tz = NULL;
    sked_error err = {0};
    char dir[512];
    int rc;

    snprintf(dir, sizeof dir, "%s/zoneinfo", SKED_TEST_DATA);
    rc = sked_tzdb_open(dir, &db, &err);
    if (rc == 0)
        rc = sked_tzdb_get(db, "Europe/Paris", &tz, &err);
    if (rc == 0)
        rc = sked_tzdb_get(db, "America/New_York", &tz, &err);
    if (rc == 0)
        rc = sked_tzdb_get(db, "Europe/Paris", &tz, &err);
    if (rc == 0)
        rc = sked_tzdb_get(db, p->in, &tz, &err);
    snprintf(p->msg, sizeof p->msg, "%s", err.msg);
    if (rc != 0)
        sked_tzdb_close(db);
    else
        p->obj = db;
    return rc;
}

static void tzdb_print(pcase *p, char *buf, size_t size)
{
    const sked_tz *tz = NULL;
    pcase one = *p;

    assert_int_equal(sked_tzdb_get(p->obj, "Europe/Paris", &tz, NULL), 0);
    one.obj = (void *) tz;
    tz_print(&one, buf, size);
}

static void drop_tzdb(pcase *p)
{
    sked_tzdb_close(p->obj);
}

static void test_tzdb(void **state)
{
    static const char *const names[] = {"Asia/Tokyo", "Mars/Olympus"};

    (void) state;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        pcase p = {.name = names[i],
                   .in = names[i],
                   .parse = tzdb_read,
                   .print = tzdb_print,
                   .drop = drop_tzdb};
        loop(&p);
    }
}

/* ---- the workflows file ------------------------------------------------- */

static int wf_parse(pcase *p)
{
    sked_wf_file *f = calloc(1, sizeof *f);
    sked_wf_error err = {0};
    int rc = f ? sked__workflow_file_parse(p->in, p->len, tzdb, f, &err)
               : SKED_ENOMEM;

    sked__workflow_file_error_format(&err, "f.yaml", p->msg, sizeof p->msg);
    if (rc != 0)
        free(f);
    else
        p->obj = f;
    return rc;
}

/* What a workflows file holds: its queues and workflows by name and
 * steps, and its schedules as their API JSON. */
static void wf_print(pcase *p, char *buf, size_t size)
{
    const sked_wf_file *f = p->obj;
    size_t len = 0;

    len +=
        (size_t) snprintf(buf, size, "q%zu w%zu:", f->n_queues, f->n_workflows);
    for (size_t i = 0; i < f->n_schedules && len < size; i++) {
        char *text = NULL;
        assert_int_equal(
            sked__schedule_to_json_text(&f->schedules[i], &text, NULL), 0);
        len += (size_t) snprintf(buf + len, size - len, " %s", text);
        free(text);
    }
}

static void drop_wf(pcase *p)
{
    sked__workflow_file_done(p->obj);
    free(p->obj);
}

static void test_workflows_file(void **state)
{
    static const char *const bad[] = {
        ("workflows:\n  w:\n    steps:\n      - name: a\n        run: [x]\n"
         "      - name: b\n        needs: [c]\n        run: [y]\n"),
        "schedules:\n  - workflow: w\n    cron: \"0 9 * *\"\n",
        "queues: {q: {concurrency: -1}}\n"};
    size_t len = 0;
    char *spec = slurp("spec_workflows.yaml", &len);

    (void) state;
    pcase p = {.name = "spec_workflows.yaml",
               .in = spec,
               .len = len,
               .parse = wf_parse,
               .print = wf_print,
               .drop = drop_wf};
    loop(&p);
    free(spec);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        pcase q = {.name = bad[i],
                   .in = bad[i],
                   .parse = wf_parse,
                   .print = wf_print,
                   .drop = drop_wf};
        loop(&q);
    }
}

/* ---- the API's schedule JSON ------------------------------------------- */

static int sched_parse(pcase *p)
{
    sked_schedule *s = malloc(sizeof *s);
    sked_error err = {0};
    int rc = s ? sked__schedule_from_json_text(p->in, p->len, 0, s, &err)
               : SKED_ENOMEM;

    snprintf(p->msg, sizeof p->msg, "%s: %s", err.field, err.msg);
    if (rc != 0)
        free(s);
    else
        p->obj = s;
    return rc;
}

static void sched_print(pcase *p, char *buf, size_t size)
{
    char *text = NULL;

    assert_int_equal(sked__schedule_to_json_text(p->obj, &text, NULL), 0);
    snprintf(buf, size, "%s", text);
    free(text);
}

static void drop_sched(pcase *p)
{
    sked_schedule_done(p->obj);
    free(p->obj);
}

static void test_schedule_json(void **state)
{
    static const char *const bodies[] = {
        ("{\"name\":\"nightly\",\"workflow\":\"report\",\"cron\":\"0 2 * * *\","
         "\"timezone\":\"Europe/Paris\",\"catchup\":\"all\",\"catchup_max\":5,"
         "\"overlap\":\"skip\",\"context\":{\"a\":[1,2,{\"b\":null}]},"
         "\"dst\":\"once\",\"paused\":true}"),
        ("{\"name\":\"every\",\"workflow\":\"w\",\"every\":\"15m\","
         "\"start_at\":\"2026-01-10T00:00:00Z\"}"),
        "{\"name\":\"x\",\"workflow\":\"w\",\"cron\":\"0 2 * *\"}",
        "{\"name\":\"x\",\"workflow\":\"w\",\"every\":\"1h\",\"colour\":1}",
        "{\"name\":\"x\",\"workflow\":\"w\",\"at\":[1,2",
    };

    (void) state;
    for (size_t i = 0; i < sizeof bodies / sizeof *bodies; i++) {
        pcase p = {.name = bodies[i],
                   .in = bodies[i],
                   .parse = sched_parse,
                   .print = sched_print,
                   .drop = drop_sched};
        loop(&p);
    }
}

/* ---- jansson's own failures ------------------------------------------- */

static void *no_memory(size_t n)
{
    (void) n;
    return NULL;
}

/* With no memory for jansson, the readers of JSON that libsked checks
 * answer SKED_ENOMEM: the text is fine, and a client told it is
 * malformed (422, 400) would not send it again. */
static void test_json_readers_out_of_memory(void **state)
{
    static const char body[] =
        "{\"name\":\"x\",\"workflow\":\"w\",\"every\":\"1h\"}";
    sked_schedule s;
    sked_error err = {0};

    (void) state;
    json_set_alloc_funcs(no_memory, free);
    int from_text =
        sked__schedule_from_json_text(body, strlen(body), 0, &s, &err);
    int context = sked__schedule_context_check("{\"a\":1}", "context", &err);
    json_set_alloc_funcs(malloc, free);
    assert_int_equal(from_text, SKED_ENOMEM);
    assert_int_equal(context, SKED_ENOMEM);
}

static long jansson_left; /* allocations jansson may still make */

static void *some_memory(size_t n)
{
    return jansson_left-- > 0 ? malloc(n) : NULL;
}

/* sked__json_load under every count of allocations jansson may make:
 * a text jansson reads with memory is read, or refused for want of it
 * (never called malformed, as jansson's lexer would); one it refuses is
 * malformed, or refused for want of memory. The texts: a table, and each
 * cut short at every byte. */
static void test_json_load_tells_memory_from_syntax(void **state)
{
    static const char *const texts[] = {
        "{\"a\":[1,2.5e3,-0.0,true,false,null],\"b\":{\"c\":\"d\\u00e9\"}}",
        "[\"\\ud83d\\ude00\",\"\xc3\xa9\",\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]",
        " { } ",
        "[[[[]]]]",
        "{\"a\":1,\"a\":2}",
        "[1,]",
        "{\"a\" 1}",
        "[01]",
        "[\"\\ud800\"]",
        "[\"\\u0000\"]",
        "[\"\x01\"]",
        "[1e]",
        "[-]",
        "[.5]",
        "[\"\xff\"]",
        "[tru]",
        "{\"k\":\"v\"} x",
        "\"top\"",
        "12"};
    size_t flags[] = {JSON_REJECT_DUPLICATES, JSON_DECODE_ANY};

    (void) state;
    for (size_t t = 0; t < sizeof texts / sizeof *texts; t++)
        for (size_t cut = strlen(texts[t]); cut > 0; cut--)
            for (size_t f = 0; f < 2; f++) {
                json_error_t je;
                json_t *v = json_loadb(texts[t], cut, flags[f], &je);
                bool good = v != NULL;
                json_decref(v);
                for (long k = 0; k < 64; k++) {
                    json_t *got = NULL;
                    jansson_left = k;
                    json_set_alloc_funcs(some_memory, free);
                    int rc =
                        sked__json_load(texts[t], cut, flags[f], &got, &je);
                    json_set_alloc_funcs(malloc, free);
                    json_decref(got);
                    if (good ? rc != 0 && rc != SKED_ENOMEM
                             : rc != SKED_ESYNTAX && rc != SKED_ENOMEM)
                        fail_msg("%.*s (flags %zu), %ld allocations: %s",
                                 (int) cut, texts[t], flags[f], k,
                                 sked_strerror(rc));
                    if (!good && k == 63 && rc != SKED_ESYNTAX)
                        fail_msg("%.*s: not called malformed", (int) cut,
                                 texts[t]);
                }
            }
}

static int setup(void **state)
{
    char dir[512];

    (void) state;
    snprintf(dir, sizeof dir, "%s/zoneinfo", SKED_TEST_DATA);
    return sked_tzdb_open(dir, &tzdb, NULL);
}

static int teardown(void **state)
{
    (void) state;
    sked_tzdb_close(tzdb);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cron),
        cmocka_unit_test(test_durations_and_instants),
        cmocka_unit_test(test_tzif),
        cmocka_unit_test(test_posix_tz),
        cmocka_unit_test(test_tzdb),
        cmocka_unit_test(test_workflows_file),
        cmocka_unit_test(test_schedule_json),
        cmocka_unit_test(test_json_readers_out_of_memory),
        cmocka_unit_test(test_json_load_tells_memory_from_syntax),
    };

    sked_test_alloc_jansson();
    return cmocka_run_group_tests(tests, setup, teardown);
}
