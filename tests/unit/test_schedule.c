/* SPDX-License-Identifier: MIT */
/* Schedules as values: defaults, validation of every field (each invalid
 * value gives SKED_EINVAL naming the field), enum names, and the API's
 * JSON both ways (round trips, unknown fields, wrong types). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "model/schedule_json.h"
#include "sked/cron.h"
#include "sked/schedule.h"

static sked_tzdb *tzdb;

#define SEC SKED_USEC_PER_SEC
#define DAY (86400 * SEC)

/* Fill *s with a valid cron schedule. */
static void valid(sked_schedule *s)
{
    sked_schedule_init(s);
    s->name = strdup("morning-report");
    s->workflow = strdup("report");
    s->cron = strdup("0 9 * * *");
    s->timezone = strdup("Europe/Paris");
}

static void set_str(char **p, const char *v)
{
    free(*p);
    *p = v ? strdup(v) : NULL;
}

static void test_defaults(void **state)
{
    sked_schedule s;

    (void) state;
    sked_schedule_init(&s);
    assert_int_equal(s.catchup, SKED_CATCHUP_LATEST);
    assert_int_equal(s.catchup_max, 10);
    assert_true(s.catchup_window == DAY);
    assert_int_equal(s.overlap, SKED_OVERLAP_ALLOW);
    assert_int_equal(s.dst, SKED_DST_ONCE);
    assert_int_equal(s.status, SKED_SCHEDULE_ACTIVE);
    assert_int_equal(s.source, SKED_SOURCE_API);
    assert_true(s.at == SKED_TIME_NONE && s.anchor == SKED_TIME_NONE);
    assert_true(s.start_at == SKED_TIME_NONE && s.end_at == SKED_TIME_NONE);
    assert_null(s.timezone);
    assert_null(s.context);
    sked_schedule_done(NULL);
}

/* One invalid value per line: what to change, and the field named. */
enum change {
    C_NAME,
    C_WORKFLOW,
    C_CRON,
    C_TZ,
    C_CONTEXT,
    C_QUEUE,
    C_DESCRIPTION,
    C_CATCHUP_MAX,
    C_WINDOW,
    C_JITTER,
    C_EVERY,
    C_START_END,
    C_MAX_RUNS,
    C_PAUSE_AFTER,
    C_CATCHUP,
    C_OVERLAP,
    C_DST,
    C_STATUS,
    C_SOURCE,
    C_AUTOBACKFILL,
    C_TWO_SPECS,
    C_AT,
    C_NO_SPEC,
};

struct bad_case {
    enum change what;
    const char *str;
    int64_t num;
    const char *field;
};

static const struct bad_case bad_cases[] = {
    {C_NAME, "", 0, "name"},
    {C_NAME, "has space", 0, "name"},
    {C_NAME, "slash/no", 0, "name"},
    {C_NAME, NULL, 0, "name"},
    {C_NAME, "x", 129, "name"}, /* 129 characters */
    {C_WORKFLOW, NULL, 0, "workflow"},
    {C_WORKFLOW, "w!", 0, "workflow"},
    {C_CRON, "61 * * * *", 0, "cron"},
    {C_CRON, "0 0 30 2 *", 0, "cron"},
    {C_CRON, "", 0, "cron"},
    {C_TZ, "Europe/Pariss", 0, "timezone"},
    {C_TZ, "../etc/passwd", 0, "timezone"},
    /* Issue 14: no zone by default ("" is not UTC), and none whose
     * meaning depends on the host or that counts leap seconds. */
    {C_TZ, "", 0, "timezone"},
    {C_TZ, "localtime", 0, "timezone"},
    {C_TZ, "posixrules", 0, "timezone"},
    {C_TZ, "right/Europe/Paris", 0, "timezone"},
    {C_TZ, "right/UTC", 0, "timezone"},
    {C_NAME, ".", 0, "name"},
    {C_NAME, "..", 0, "name"},
    {C_WORKFLOW, "..", 0, "workflow"},
    {C_QUEUE, ".", 0, "queue"},
    {C_CONTEXT, "[1,2]", 0, "context"},
    {C_CONTEXT, "{\"a\":", 0, "context"},
    {C_CONTEXT, "\"text\"", 0, "context"},
    {C_CONTEXT, NULL, SKED_CONTEXT_MAX + 1, "context"},
    {C_QUEUE, "a queue", 0, "queue"},
    {C_DESCRIPTION, NULL, SKED_DESCRIPTION_MAX + 1, "description"},
    {C_CATCHUP_MAX, NULL, 0, "catchup_max"},
    {C_CATCHUP_MAX, NULL, 1001, "catchup_max"},
    {C_CATCHUP_MAX, NULL, -1, "catchup_max"},
    {C_WINDOW, NULL, 59 * SEC, "catchup_window"},
    {C_WINDOW, NULL, 30 * DAY + 1, "catchup_window"},
    {C_JITTER, NULL, -1, "jitter"},
    {C_JITTER, NULL, 3600 * SEC + 1, "jitter"},
    {C_EVERY, NULL, SEC - 1, "every"},
    {C_EVERY, NULL, 366 * DAY + 1, "every"},
    {C_EVERY, NULL, 0, "every"},
    {C_START_END, NULL, 0, "end_at"},
    {C_MAX_RUNS, NULL, -1, "max_runs"},
    {C_PAUSE_AFTER, NULL, -1, "pause_after_failures"},
    {C_CATCHUP, NULL, 7, "catchup"},
    {C_OVERLAP, NULL, -1, "overlap"},
    {C_DST, NULL, SKED_DST_COUNT, "dst"},
    {C_STATUS, NULL, 9, "status"},
    {C_SOURCE, NULL, 2, "source"},
    {C_AUTOBACKFILL, NULL, 2, "automatic_backfill"},
    {C_TWO_SPECS, NULL, 0, "every"},
    {C_AT, NULL, 0, "at"},
    {C_NO_SPEC, NULL, 0, "cron"},
};

/* Apply case C to the valid schedule S. */
static void spoil(sked_schedule *s, const struct bad_case *c)
{
    char *big;

    switch (c->what) {
    case C_NAME:
        if (c->num) {
            big = malloc((size_t) c->num + 1);
            memset(big, 'x', (size_t) c->num);
            big[c->num] = '\0';
            free(s->name);
            s->name = big;
        } else {
            set_str(&s->name, c->str);
        }
        break;
    case C_WORKFLOW:
        set_str(&s->workflow, c->str);
        break;
    case C_CRON:
        set_str(&s->cron, c->str);
        break;
    case C_TZ:
        set_str(&s->timezone, c->str);
        break;
    case C_CONTEXT:
        if (c->num) {
            big = malloc((size_t) c->num + 1);
            memset(big, ' ', (size_t) c->num);
            memcpy(big, "{}", 2);
            big[c->num] = '\0';
            free(s->context);
            s->context = big;
        } else {
            set_str(&s->context, c->str);
        }
        break;
    case C_QUEUE:
        set_str(&s->queue, c->str);
        break;
    case C_DESCRIPTION:
        big = calloc(1, (size_t) c->num + 1);
        memset(big, 'd', (size_t) c->num);
        s->description = big;
        break;
    case C_CATCHUP_MAX:
        s->catchup_max = (int32_t) c->num;
        break;
    case C_WINDOW:
        s->catchup_window = c->num;
        break;
    case C_JITTER:
        s->jitter = c->num;
        break;
    case C_EVERY:
        set_str(&s->cron, NULL);
        s->kind = SKED_SPEC_EVERY;
        s->every = c->num;
        break;
    case C_START_END:
        s->start_at = 2000 * SEC;
        s->end_at = 1000 * SEC;
        break;
    case C_MAX_RUNS:
        s->max_runs = c->num;
        break;
    case C_PAUSE_AFTER:
        s->pause_after_failures = (int32_t) c->num;
        break;
    case C_CATCHUP:
        s->catchup = (sked_catchup) c->num;
        break;
    case C_OVERLAP:
        s->overlap = (sked_overlap) c->num;
        break;
    case C_DST:
        s->dst = (sked_dst) c->num;
        break;
    case C_STATUS:
        s->status = (sked_schedule_status) c->num;
        break;
    case C_SOURCE:
        s->source = (sked_source) c->num;
        break;
    case C_AUTOBACKFILL:
        s->automatic_backfill = (int32_t) c->num;
        break;
    case C_TWO_SPECS:
        s->every = 60 * SEC;
        break;
    case C_AT:
        set_str(&s->cron, NULL);
        s->kind = SKED_SPEC_AT;
        break;
    case C_NO_SPEC:
        set_str(&s->cron, NULL);
        break;
    }
}

static void test_validate_table(void **state)
{
    sked_schedule s;
    sked_error err;

    (void) state;
    valid(&s);
    assert_int_equal(sked_schedule_validate(&s, tzdb, &err), 0);
    sked_schedule_done(&s);
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        valid(&s);
        spoil(&s, &bad_cases[i]);
        sked_error_clear(&err);
        if (sked_schedule_validate(&s, tzdb, &err) != SKED_EINVAL)
            fail_msg("case %zu (%s) was accepted", i, bad_cases[i].field);
        if (strcmp(err.field, bad_cases[i].field) != 0)
            fail_msg("case %zu: field \"%s\", want \"%s\" (%s)", i, err.field,
                     bad_cases[i].field, err.msg);
        assert_true(err.msg[0] != '\0');
        sked_schedule_done(&s);
    }
}

static void test_validate_edges_accepted(void **state)
{
    sked_schedule s;
    sked_error err;

    (void) state;
    valid(&s);
    s.catchup_max = 1000;
    s.catchup_window = 60 * SEC;
    s.jitter = 3600 * SEC;
    set_str(&s.context, "{\"k\":[1,2]}");
    set_str(&s.queue, "reports.v2_x-1");
    s.start_at = 1000 * SEC;
    s.end_at = 1000 * SEC + 1;
    assert_int_equal(sked_schedule_validate(&s, tzdb, &err), 0);
    s.catchup_window = 30 * DAY;
    set_str(&s.timezone, NULL); /* UTC */
    assert_int_equal(sked_schedule_validate(&s, tzdb, &err), 0);
    set_str(&s.cron, NULL);
    s.kind = SKED_SPEC_EVERY;
    s.every = 366 * DAY;
    assert_int_equal(sked_schedule_validate(&s, tzdb, &err), 0);
    sked_schedule_done(&s);
}

static void test_cron_error_position(void **state)
{
    sked_schedule s;
    sked_error err;

    (void) state;
    valid(&s);
    set_str(&s.cron, "0 25 * * *");
    assert_int_equal(sked_schedule_validate(&s, tzdb, &err), SKED_EINVAL);
    assert_string_equal(err.field, "cron");
    assert_int_equal(err.pos, 2);
    assert_non_null(strstr(err.msg, "hour"));
    sked_schedule_done(&s);
}

static void test_enum_names(void **state)
{
    sked_overlap o;
    sked_catchup c;
    sked_error err;

    (void) state;
    assert_string_equal(sked_overlap_name(SKED_OVERLAP_BUFFER_ONE),
                        "buffer_one");
    assert_string_equal(sked_catchup_name(SKED_CATCHUP_ALL), "all");
    assert_string_equal(sked_schedule_status_name(SKED_SCHEDULE_DONE), "done");
    assert_string_equal(sked_source_name(SKED_SOURCE_CODE), "code");
    assert_string_equal(sked_spec_kind_name(SKED_SPEC_EVERY), "every");
    assert_string_equal(sked_overlap_name((sked_overlap) 99), "unknown");
    assert_int_equal(sked_overlap_parse("cancel_other", "overlap", &o, NULL),
                     0);
    assert_int_equal(o, SKED_OVERLAP_CANCEL_OTHER);
    assert_int_equal(sked_catchup_parse("none", "catchup", &c, &err),
                     SKED_EINVAL);
    assert_string_equal(err.field, "catchup");
    assert_non_null(strstr(err.msg, "latest, skip, all"));
}

static void test_copy(void **state)
{
    sked_schedule s, c;

    (void) state;
    valid(&s);
    set_str(&s.description, "d");
    assert_int_equal(sked_schedule_copy(&s, &c), 0);
    assert_ptr_not_equal(c.name, s.name);
    assert_string_equal(c.name, s.name);
    assert_string_equal(c.description, "d");
    sked_schedule_done(&s);
    assert_string_equal(c.cron, "0 9 * * *");
    sked_schedule_done(&c);
}

/* ---- JSON -------------------------------------------------------------- */

static void test_json_round_trip(void **state)
{
    static const char *const text =
        "{\"name\":\"nightly\",\"workflow\":\"cleanup\",\"every\":\"6h\","
        "\"anchor\":\"2026-01-01T00:00:00Z\",\"context\":{\"a\":[1,true]},"
        "\"catchup\":\"all\",\"catchup_max\":5,"
        "\"catchup_window_secs\":259200,\"overlap\":\"skip\","
        "\"jitter_secs\":1.5,\"paused\":true,\"dst\":\"cadence\","
        "\"start_at\":\"2026-01-01T01:00:00+01:00\",\"max_runs\":3,"
        "\"description\":\"d\",\"queue\":\"q\",\"priority\":-2}";
    sked_schedule s, back;
    char *out, *again;

    (void) state;
    assert_int_equal(
        sked__schedule_from_json_text(text, strlen(text), 0, &s, NULL), 0);
    assert_int_equal(s.kind, SKED_SPEC_EVERY);
    assert_true(s.every == 6 * 3600 * SEC);
    assert_true(s.jitter == 1500000);
    assert_int_equal(s.status, SKED_SCHEDULE_PAUSED);
    assert_true(s.start_at == 1767225600 * SEC);
    assert_int_equal(s.priority, -2);
    assert_int_equal(sked_schedule_validate(&s, tzdb, NULL), 0);
    assert_int_equal(sked__schedule_to_json_text(&s, &out, NULL), 0);
    assert_non_null(strstr(out, "\"every_secs\":21600"));
    assert_non_null(strstr(out, "\"jitter_secs\":1.5"));
    assert_non_null(strstr(out, "\"start_at\":\"2026-01-01T00:00:00Z\""));
    assert_non_null(strstr(out, "\"cron\":null"));
    assert_non_null(strstr(out, "\"next_fire_at\":null"));
    assert_non_null(strstr(out, "\"status\":\"paused\""));
    /* Output read back (with the state fields) gives the same output. */
    assert_int_equal(sked__schedule_from_json_text(out, strlen(out),
                                                   SKED__SCHEDULE_JSON_STATE,
                                                   &back, NULL),
                     0);
    assert_int_equal(sked__schedule_to_json_text(&back, &again, NULL), 0);
    assert_string_equal(out, again);
    free(out);
    free(again);
    sked_schedule_done(&s);
    sked_schedule_done(&back);
}

/* The definition of a schedule read whole, state included (what remote
 * mode reads from the API), is a body the API's reader takes (no
 * read-only field in it), and reads back to the same definition. */
static void test_json_definition(void **state)
{
    static const char *const text =
        "{\"name\":\"n\",\"workflow\":\"w\",\"cron\":\"0 9 * * *\","
        "\"timezone\":\"Europe/Paris\",\"context\":{\"k\":1},"
        "\"catchup\":\"all\",\"overlap\":\"buffer_one\",\"paused\":true,"
        "\"description\":\"d\",\"status\":\"paused\",\"source\":\"code\","
        "\"app\":\"demo\",\"next_fire_at\":\"2026-01-01T08:00:00Z\","
        "\"last_fired_at\":\"2025-12-31T08:00:00Z\",\"last_error\":\"e\","
        "\"runs_created\":7,\"consecutive_failures\":2,"
        "\"created_at\":\"2025-01-01T00:00:00Z\","
        "\"updated_at\":\"2025-06-01T00:00:00Z\"}";
    sked_schedule s, back;
    json_t *def = NULL, *def2 = NULL;
    char *body;

    (void) state;
    assert_int_equal(sked__schedule_from_json_text(text, strlen(text),
                                                   SKED__SCHEDULE_JSON_STATE,
                                                   &s, NULL),
                     0);
    for (int allow_past = 0; allow_past <= 1; allow_past++) {
        s.allow_past = allow_past;
        assert_int_equal(sked__schedule_definition_json(&s, &def, NULL), 0);
        assert_null(json_object_get(def, "next_fire_at"));
        assert_null(json_object_get(def, "status"));
        assert_null(json_object_get(def, "cron_words"));
        assert_true(json_is_true(json_object_get(def, "paused")));
        assert_int_equal(json_object_get(def, "allow_past") != NULL,
                         allow_past);
        body = json_dumps(def, JSON_COMPACT);
        assert_non_null(body);
        assert_int_equal(
            sked__schedule_from_json_text(body, strlen(body), 0, &back, NULL),
            0);
        assert_int_equal(back.allow_past, allow_past);
        assert_int_equal(sked__schedule_definition_json(&back, &def2, NULL), 0);
        assert_true(json_equal(def, def2));
        free(body);
        json_decref(def);
        json_decref(def2);
        sked_schedule_done(&back);
    }
    sked_schedule_done(&s);
}

/* The answer says the expression in words, without the zone (its own
 * field), null for an interval; a request cannot set them. */
static void test_json_cron_words(void **state)
{
    static const char *const cron =
        "{\"name\":\"n\",\"workflow\":\"w\",\"cron\":\"0 9 * * 1-5\","
        "\"timezone\":\"Europe/Paris\"}";
    static const char *const every =
        "{\"name\":\"n\",\"workflow\":\"w\",\"every\":60}";
    static const char *const given =
        "{\"name\":\"n\",\"workflow\":\"w\",\"cron\":\"0 9 * * *\","
        "\"cron_words\":\"At noon\"}";
    sked_schedule s;
    sked_error err;
    json_t *o = NULL;

    (void) state;
    assert_int_equal(
        sked__schedule_from_json_text(cron, strlen(cron), 0, &s, NULL), 0);
    assert_int_equal(sked__schedule_to_json(&s, &o, NULL), 0);
    assert_string_equal(json_string_value(json_object_get(o, "cron_words")),
                        "At 09:00, Monday through Friday");
    json_decref(o);
    sked_schedule_done(&s);
    assert_int_equal(
        sked__schedule_from_json_text(every, strlen(every), 0, &s, NULL), 0);
    assert_int_equal(sked__schedule_to_json(&s, &o, NULL), 0);
    assert_true(json_is_null(json_object_get(o, "cron_words")));
    json_decref(o);
    sked_schedule_done(&s);
    sked_error_clear(&err);
    assert_int_equal(
        sked__schedule_from_json_text(given, strlen(given), 0, &s, &err),
        SKED_EINVAL);
    assert_string_equal(err.field, "cron_words");
}

struct json_bad {
    const char *text;
    int code;
    const char *field;
    const char *msg_has;
};

static const struct json_bad json_bad_cases[] = {
    {"{\"name\":\"a\",\"colour\":1}", SKED_ESYNTAX, "colour", "unknown"},
    {"{\"catchup_max\":\"5\"}", SKED_EINVAL, "catchup_max", "an integer"},
    {"{\"catchup_max\":1.5}", SKED_EINVAL, "catchup_max", "an integer"},
    {"{\"catchup_window_secs\":\"3d\"}", SKED_EINVAL, "catchup_window_secs",
     "number"},
    {"{\"jitter_secs\":null}", SKED_EINVAL, "jitter_secs", "number"},
    {"{\"name\":5}", SKED_EINVAL, "name", "a string"},
    {"{\"paused\":1}", SKED_EINVAL, "paused", "true or false"},
    {"{\"context\":[1]}", SKED_EINVAL, "context", "object"},
    {"{\"at\":\"2026-12-01T09:00:00\"}", SKED_EINVAL, "at", "RFC 3339"},
    {"{\"every\":\"5 parsecs\"}", SKED_EINVAL, "every", ""},
    {"{\"overlap\":\"sometimes\"}", SKED_EINVAL, "overlap", "buffer_one"},
    {"{\"dst\":\"twice\"}", SKED_EINVAL, "dst", "cadence"},
    {"{\"cron\":\"* * * * *\",\"every_secs\":60}", SKED_EINVAL, "every_secs",
     "only one"},
    {"{\"status\":\"active\"}", SKED_EINVAL, "status", "read-only"},
    {"{\"next_fire_at\":null}", SKED_EINVAL, "next_fire_at", "read-only"},
    {"{\"priority\":4294967296}", SKED_EINVAL, "priority", "range"},
    {"[1]", SKED_EINVAL, "", "object"},
    {"{\"name\":", SKED_ESYNTAX, "", "malformed"},
    {"{\"a\":1,\"a\":2}", SKED_ESYNTAX, "", "duplicate"},
};

static void test_json_bad(void **state)
{
    sked_schedule s;
    sked_error err;

    (void) state;
    for (size_t i = 0; i < sizeof json_bad_cases / sizeof json_bad_cases[0];
         i++) {
        const struct json_bad *c = &json_bad_cases[i];
        sked_error_clear(&err);
        int rc = sked__schedule_from_json_text(c->text, strlen(c->text), 0, &s,
                                               &err);
        if (rc != c->code)
            fail_msg("%s: got %d, want %d", c->text, rc, c->code);
        if (strcmp(err.field, c->field) != 0 || !strstr(err.msg, c->msg_has))
            fail_msg("%s: field \"%s\" msg \"%s\"", c->text, err.field,
                     err.msg);
    }
}

/* The DST matrix through JSON: every spelling the schema lists is read,
 * written back by its canonical name; a conflict names "dst" and the
 * offending word's byte. */
static void test_json_dst_matrix(void **state)
{
    json_t *schema = sked__schedule_json_schema();
    json_t *names = json_object_get(
        json_object_get(json_object_get(schema, "properties"), "dst"), "enum");
    size_t i;
    json_t *v;
    sked_error err;
    sked_schedule s;

    (void) state;
    assert_true(json_array_size(names) >= 19);
    json_array_foreach(names, i, v)
    {
        char text[96], *out = NULL, want[48];
        sked_dst d;
        snprintf(text, sizeof text, "{\"dst\":\"%s\"}", json_string_value(v));
        if (sked__schedule_from_json_text(text, strlen(text), 0, &s, &err))
            fail_msg("%s refused: %s", text, err.msg);
        assert_int_equal(sked_dst_parse(json_string_value(v), &d, NULL), 0);
        assert_int_equal(s.dst, d);
        assert_int_equal(sked__schedule_to_json_text(&s, &out, NULL), 0);
        snprintf(want, sizeof want, "\"dst\":\"%s\"", sked_dst_name(d));
        if (!strstr(out, want))
            fail_msg("%s written as %s", text, out);
        free(out);
        sked_schedule_done(&s);
    }
    json_decref(schema);
    assert_int_equal(sked__schedule_from_json_text("{\"dst\":\"skip,shift\"}",
                                                   20, 0, &s, &err),
                     SKED_EINVAL);
    assert_string_equal(err.field, "dst");
    assert_int_equal(err.pos, 5);
}

static void test_json_patch_replaces_spec(void **state)
{
    static const char *const patch = "{\"at\":\"2026-12-01T09:00:00Z\"}";
    json_t *p = json_loads(patch, 0, NULL);
    json_t *bad = json_loads("{\"cron\":\"0 9 * * *\",\"x\":1}", 0, NULL);
    sked_schedule s;

    (void) state;
    valid(&s);
    assert_int_equal(sked__schedule_patch_json(p, 0, &s, NULL), 0);
    assert_int_equal(s.kind, SKED_SPEC_AT);
    assert_null(s.cron);
    assert_int_equal(sked_schedule_validate(&s, tzdb, NULL), 0);
    /* A failing patch leaves the schedule as it was. */
    assert_int_equal(sked__schedule_patch_json(bad, 0, &s, NULL), SKED_ESYNTAX);
    assert_int_equal(s.kind, SKED_SPEC_AT);
    assert_null(s.cron);
    json_decref(p);
    json_decref(bad);
    sked_schedule_done(&s);
}

/* Copy the file FROM to TO; false on any failure. */
static bool copy_file(const char *from, const char *to)
{
    char buf[4096];
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    size_t n;
    bool ok = in && out;

    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
        ok = fwrite(buf, 1, n, out) == n;
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        ok = false;
    return ok;
}

/* Issue 14: "localtime", "posixrules" and the "right/" zones are refused
 * with a message saying why, even where the directory has them as real
 * TZif files (as Debian's tzdata and tzdata-legacy do). */
static void test_host_zones_refused(void **state)
{
    static const char *const names[] = {"localtime", "posixrules",
                                        "right/Europe/Paris", "right/UTC"};
    static const char *const why[] = {"differs between machines", "not a zone",
                                      "leap seconds", "leap seconds"};
    char dir[] = "/tmp/sked-zones-XXXXXX", path[512];
    sked_tzdb *db = NULL;
    sked_schedule s;
    sked_error err;

    (void) state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/right", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/right/Europe", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        assert_true(copy_file(SKED_TEST_DATA "/zoneinfo/Europe/Paris", path));
    }
    assert_int_equal(sked_tzdb_open(dir, &db, NULL), 0);
    for (size_t i = 0; i < 4; i++) {
        valid(&s);
        set_str(&s.timezone, names[i]);
        sked_error_clear(&err);
        assert_int_equal(sked_schedule_validate(&s, db, &err), SKED_EINVAL);
        assert_string_equal(err.field, "timezone");
        if (!strstr(err.msg, why[i]))
            fail_msg("%s: %s", names[i], err.msg);
        sked_schedule_done(&s);
    }
    valid(&s);
    set_str(&s.timezone, "UTC");
    assert_int_equal(sked_schedule_validate(&s, db, &err), 0);
    sked_schedule_done(&s);
    sked_tzdb_close(db);
    for (size_t i = 4; i-- > 0;) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        (void) unlink(path);
    }
    snprintf(path, sizeof path, "%s/right/Europe", dir);
    (void) rmdir(path);
    snprintf(path, sizeof path, "%s/right", dir);
    (void) rmdir(path);
    (void) rmdir(dir);
}

/* The OpenAPI schema names every key the API writes, in its order, and
 * the one it only takes (allow_past); each with a type and a description,
 * the state read-only, bounds in the API's units. */
static void test_json_schema(void **state)
{
    sked_schedule s;
    json_t *schema = sked__schedule_json_schema(), *out = NULL, *props, *p;
    const char *key;
    void *it;
    json_t *v;

    (void) state;
    assert_non_null(schema);
    props = json_object_get(schema, "properties");
    valid(&s);
    assert_int_equal(sked__schedule_to_json(&s, &out, NULL), 0);
    it = json_object_iter(props);
    json_object_foreach(out, key, v)
    {
        if (it && strcmp(json_object_iter_key(it), "allow_past") == 0)
            it = json_object_iter_next(props, it);
        assert_non_null(it);
        assert_string_equal(json_object_iter_key(it), key);
        p = json_object_iter_value(it);
        assert_non_null(json_object_get(p, "type"));
        assert_true(
            strlen(json_string_value(json_object_get(p, "description"))) > 0);
        it = json_object_iter_next(props, it);
    }
    assert_null(it);
    p = json_object_get(props, "catchup_window_secs");
    assert_int_equal(json_integer_value(json_object_get(p, "minimum")), 60);
    assert_int_equal(json_integer_value(json_object_get(p, "maximum")),
                     30 * 86400);
    assert_int_equal(json_integer_value(json_object_get(p, "default")), 86400);
    p = json_object_get(props, "status");
    assert_true(json_is_true(json_object_get(p, "readOnly")));
    assert_int_equal(json_array_size(json_object_get(p, "enum")), 4);
    p = json_object_get(props, "allow_past");
    assert_true(json_is_true(json_object_get(p, "writeOnly")));
    p = json_object_get(props, "name");
    assert_int_equal(json_integer_value(json_object_get(p, "maxLength")),
                     SKED_NAME_MAX);
    json_decref(out);
    json_decref(schema);
    sked_schedule_done(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_validate_table),
        cmocka_unit_test(test_validate_edges_accepted),
        cmocka_unit_test(test_host_zones_refused),
        cmocka_unit_test(test_cron_error_position),
        cmocka_unit_test(test_enum_names),
        cmocka_unit_test(test_copy),
        cmocka_unit_test(test_json_round_trip),
        cmocka_unit_test(test_json_definition),
        cmocka_unit_test(test_json_cron_words),
        cmocka_unit_test(test_json_bad),
        cmocka_unit_test(test_json_dst_matrix),
        cmocka_unit_test(test_json_patch_replaces_spec),
        cmocka_unit_test(test_json_schema),
    };
    int failed;

    if (sked_tzdb_open(SKED_TEST_DATA "/zoneinfo", &tzdb, NULL) != 0)
        return 1;
    failed = cmocka_run_group_tests(tests, NULL, NULL);
    sked_tzdb_close(tzdb);
    return failed;
}
