/* SPDX-License-Identifier: MIT */
/* Schedules as plain values (include/sked/schedule.h): defaults, copies,
 * the names of their enums, and validation of every field against SPEC 2,
 * 3 and 6 before anything is written.
 *
 * Validation reports the first fault with err->field set to the field's
 * base name, as the YAML file and the CLI spell it ("catchup_window",
 * "jitter", "every", "timezone"); the API's JSON names add "_secs" to the
 * durations, and schedule_json.c reports those for type errors. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/json_io.h"
#include "base/utf8.h"
#include "cron/rrule.h"
#include "model/schedule.h"
#include "model/schedule_fields.h"
#include "tz/tzdb.h"

/* Each row's part of init, done and copy: none for a VIEW (no member),
 * then by whether its KIND is a string (owned) or a number. */
#define MEMBER_KEY(x)      x
#define MEMBER_DEF(x)      x
#define MEMBER_INTERNAL(x) x
#define MEMBER_REQUEST(x)  x
#define MEMBER_VIEW(x)
#define MEMBER_STATE(x)         x
#define MEMBER_CREATED(x)       x
#define CLASS_NAME(str, num)    str
#define CLASS_STR(str, num)     str
#define CLASS_CRON(str, num)    str
#define CLASS_RRULE(str, num)   str
#define CLASS_CONTEXT(str, num) str
#define CLASS_CALS(str, num)    str
#define CLASS_EVERY(str, num)   num
#define CLASS_AT(str, num)      num
#define CLASS_INSTANT(str, num) num
#define CLASS_DUR(str, num)     num
#define CLASS_I32(str, num)     num
#define CLASS_I64(str, num)     num
#define CLASS_BOOL(str, num)    num
#define CLASS_ENUM(str, num)    num
#define CLASS_PAUSED(str, num)  num
#define CLASS_WORDS(str, num)   num
#define ROW_OF(use, member, kind, ctype, en, role, sql, json, yaml, cli,       \
               bounds, def, ...)                                               \
    MEMBER_##role(CLASS_##kind(use##_STR, use##_NUM)(member, def))

#define INIT(...)          ROW_OF(INIT, __VA_ARGS__)
#define INIT_STR(m, d)     /* NULL */
#define INIT_NUM(m, d)     .m = (d),
#define DONE(...)          ROW_OF(DONE, __VA_ARGS__)
#define DONE_STR(m, d)     free(s->m);
#define DONE_NUM(m, d)     /* nothing owned */
#define COPY(...)          ROW_OF(COPY, __VA_ARGS__)
#define COPY_STR(m, d)     c.m = NULL;
#define COPY_NUM(m, d)     /* copied with the struct */
#define COPY_DUP(...)      ROW_OF(COPY_DUP, __VA_ARGS__)
#define COPY_DUP_STR(m, d) &&dup_field(src->m, &c.m)
#define COPY_DUP_NUM(m, d) /* copied with the struct */

static const sked_schedule defaults = {SKED_SCHEDULE_FIELDS(INIT)};

void sked_schedule_init(sked_schedule *s)
{
    if (s)
        *s = defaults;
}

void sked_schedule_done(sked_schedule *s)
{
    if (!s)
        return;
    SKED_SCHEDULE_FIELDS(DONE)
    sked_schedule_init(s);
}

/* Copy the string *SRC into *dst (NULL stays NULL); false when out of
 * memory. */
static bool dup_field(const char *src, char **dst)
{
    if (!src) {
        *dst = NULL;
        return true;
    }
    *dst = sked__strdup(src);
    return *dst != NULL;
}

int sked_schedule_copy(const sked_schedule *src, sked_schedule *out)
{
    sked_schedule c;

    if (!src || !out)
        return SKED_EINVAL;
    c = *src;
    SKED_SCHEDULE_FIELDS(COPY)
    if (!(true SKED_SCHEDULE_FIELDS(COPY_DUP))) {
        sked_schedule_done(&c);
        return SKED_ENOMEM;
    }
    *out = c;
    return 0;
}

/* ---- enum names ------------------------------------------------------- */

/* Return the name of V in E, or "unknown" when V is out of range. */
static const char *name_of(const sked__enum *e, int v)
{
    if (v < 0 || v >= e->count)
        return "unknown";
    return e->names[v];
}

/* The public name and parse functions of the enumeration TYPE, whose
 * names are sked__enum_E. */
#define ENUM_API(type, name_fn, parse_fn, e)                                   \
    const char *name_fn(type v)                                                \
    {                                                                          \
        return name_of(&sked__enum_##e, (int) v);                              \
    }                                                                          \
    int parse_fn(const char *s, const char *field, type *out, sked_error *err) \
    {                                                                          \
        int v = 0;                                                             \
        int rc = sked__enum_parse(&sked__enum_##e, s, field, &v, err);         \
                                                                               \
        if (rc == 0 && out)                                                    \
            *out = (type) v;                                                   \
        return rc;                                                             \
    }

ENUM_API(sked_catchup, sked_catchup_name, sked_catchup_parse, catchup)
ENUM_API(sked_overlap, sked_overlap_name, sked_overlap_parse, overlap)
ENUM_API(sked_on_excluded, sked_on_excluded_name, sked_on_excluded_parse,
         on_excluded)
ENUM_API(sked_schedule_status, sked_schedule_status_name,
         sked_schedule_status_parse, status)
ENUM_API(sked_source, sked_source_name, sked_source_parse, source)
ENUM_API(sked_spec_kind, sked_spec_kind_name, sked_spec_kind_parse, kind)

/* ---- validation ------------------------------------------------------- */

/* Tell whether S (LEN bytes) is "." or "..": a URL path would resolve
 * them (RFC 3986 5.2.4), so they cannot name anything in one. */
static bool dot_segment(const char *s, size_t len)
{
    return (len == 1 && s[0] == '.') ||
           (len == 2 && s[0] == '.' && s[1] == '.');
}

int sked__schedule_name_check(const char *s, const char *field, sked_error *err)
{
    size_t len = s ? strlen(s) : 0;

    if (len == 0)
        return sked__error_set(err, SKED_EINVAL, field, -1, "is required");
    if (len > SKED_NAME_MAX)
        return sked__error_set(err, SKED_EINVAL, field, -1,
                               "longer than %d characters", SKED_NAME_MAX);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char) s[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
            (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-')
            continue;
        return sked__error_set(err, SKED_EINVAL, field, (long) i,
                               "character %zu is not a letter, a digit, "
                               "'.', '_' or '-'",
                               i + 1);
    }
    if (dot_segment(s, len))
        return sked__error_set(err, SKED_EINVAL, field, 0,
                               "\"%s\" is not a name: a URL path reads it as "
                               "a directory",
                               s);
    return 0;
}

/* Return the length of the character at S (LEN > 0 bytes left) when it is
 * printable UTF-8, else 0: an invalid or cut sequence, a NUL, a C0 or C1
 * control character or DEL. */
static size_t printable_len(const char *s, size_t len)
{
    unsigned char c = (unsigned char) s[0];
    size_t n = sked__utf8_len(s, len);

    if (n == 0 || c < 0x20 || c == 0x7f)
        return 0;
    if (c == 0xc2 && (unsigned char) s[1] < 0xa0)
        return 0; /* U+0080..U+009F */
    return n;
}

int sked__segment_check(const char *s, size_t max, const char *field,
                        sked_error *err)
{
    size_t len = s ? strlen(s) : 0;

    if (len == 0)
        return sked__error_set(err, SKED_EINVAL, field, -1, "is required");
    if (len > max)
        return sked__error_set(err, SKED_EINVAL, field, -1,
                               "longer than %zu bytes", max);
    if (dot_segment(s, len))
        return sked__error_set(err, SKED_EINVAL, field, 0,
                               "\"%s\" cannot be part of a URL path", s);
    if (s[0] == ' ' || s[len - 1] == ' ')
        return sked__error_set(err, SKED_EINVAL, field,
                               s[0] == ' ' ? 0 : (long) len - 1,
                               "begins or ends with a space (an HTTP header "
                               "would lose it)");
    for (size_t i = 0, n; i < len; i += n) {
        if (s[i] == '/')
            return sked__error_set(err, SKED_EINVAL, field, (long) i,
                                   "byte %zu is '/', which would split it "
                                   "in a URL path",
                                   i + 1);
        if ((n = printable_len(s + i, len - i)) == 0)
            return sked__error_set(err, SKED_EINVAL, field, (long) i,
                                   "byte %zu is not printable UTF-8 (a "
                                   "control character or an invalid "
                                   "sequence)",
                                   i + 1);
    }
    return 0;
}

int sked__run_key_check(const char *key, sked_error *err)
{
    return sked__segment_check(key, SKED_RUN_KEY_MAX, "idempotency_key", err);
}

static bool instant_ok(sked_time t)
{
    return t >= SKED_TIME_MIN && t <= SKED_TIME_MAX;
}

/* Check that the duration D is within LO..HI (µs), naming FIELD in seconds. */
static int check_dur(sked_dur d, sked_dur lo, sked_dur hi, const char *field,
                     sked_error *err)
{
    if (d >= lo && d <= hi)
        return 0;
    return sked__error_set(err, SKED_EINVAL, field, -1,
                           "must be between %lld and %lld seconds",
                           (long long) (lo / SKED_USEC_PER_SEC),
                           (long long) (hi / SKED_USEC_PER_SEC));
}

/* Report FIELD set beside the time spec of KIND. */
static int two_specs(const char *field, sked_spec_kind kind, sked_error *err)
{
    return sked__error_set(
        err, SKED_EINVAL, field, -1,
        "give only one of cron, every, at and rrule (this is "
        "a%s %s schedule)",
        kind == SKED_SPEC_EVERY ? "n" : "", sked_spec_kind_name(kind));
}

/* Check S's rule: it reads, produces an occurrence, and a DTSTART;TZID
 * names the schedule's own zone. */
static int check_rrule(const sked_schedule *s, sked_error *err)
{
    const char *zone = s->timezone ? s->timezone : "UTC", *tzid;
    sked__rrule *r = NULL;
    int rc;

    if (!s->rrule || !s->rrule[0])
        return sked__error_set(err, SKED_EINVAL, "rrule", -1,
                               "one of cron, every, at and rrule is "
                               "required");
    if ((rc = sked__rrule_parse(s->rrule, 0, &r, err)) != 0)
        return rc;
    tzid = sked__rrule_tzid(r);
    if (tzid && strcmp(tzid, zone) != 0)
        rc = sked__error_set(err, SKED_EINVAL, "rrule", -1,
                             "DTSTART's TZID %s is not the schedule's zone "
                             "(%s)",
                             tzid, zone);
    sked__rrule_free(r);
    return rc;
}

/* Check the one time spec S->kind names, and that the others are unset. */
static int check_spec(const sked_schedule *s, sked_error *err)
{
    sked_cron c;
    sked_error e;

    if ((int) s->kind < 0 || (int) s->kind > SKED_SPEC_RRULE)
        return sked__error_set(err, SKED_EINVAL, "kind", -1,
                               "must be cron, every, at or rrule");
    if (s->kind != SKED_SPEC_RRULE && s->rrule)
        return two_specs("rrule", s->kind, err);
    if (s->calendar_days && s->kind != SKED_SPEC_EVERY)
        return sked__error_set(err, SKED_EINVAL, "calendar_days", -1,
                               "only an interval (every) counts calendar days");
    if (s->kind != SKED_SPEC_CRON && s->cron)
        return two_specs("cron", s->kind, err);
    if (s->kind != SKED_SPEC_EVERY && s->every)
        return two_specs("every", s->kind, err);
    if (s->kind != SKED_SPEC_EVERY && s->anchor != SKED_TIME_NONE)
        return sked__error_set(err, SKED_EINVAL, "anchor", -1,
                               "only an interval (every) has an anchor");
    if (s->kind != SKED_SPEC_AT && s->at != SKED_TIME_NONE)
        return two_specs("at", s->kind, err);
    switch (s->kind) {
    case SKED_SPEC_CRON:
        if (!s->cron || !s->cron[0])
            return sked__error_set(err, SKED_EINVAL, "cron", -1,
                                   "one of cron, every, at and rrule is "
                                   "required");
        sked_error_clear(&e);
        if (sked_cron_parse(s->cron, &c, &e) != 0)
            return sked__error_set(err, SKED_EINVAL, "cron", e.pos, "%s%s%s",
                                   e.field, e.field[0] ? ": " : "", e.msg);
        return 0;
    case SKED_SPEC_EVERY:
        if (s->anchor != SKED_TIME_NONE && !instant_ok(s->anchor))
            return sked__error_set(err, SKED_EINVAL, "anchor", -1,
                                   "instant out of range");
        if (s->calendar_days && s->every % (86400 * SKED_USEC_PER_SEC) != 0)
            return sked__error_set(err, SKED_EINVAL, "every", -1,
                                   "with calendar_days, a whole number of "
                                   "days (1d to 366d)");
        return check_dur(s->every, SKED_EVERY_MIN, SKED_EVERY_MAX, "every",
                         err);
    case SKED_SPEC_RRULE:
        return check_rrule(s, err);
    case SKED_SPEC_AT:
        if (!instant_ok(s->at))
            return sked__error_set(err, SKED_EINVAL, "at", -1,
                                   "an instant is required");
        return 0;
    }
    return 0;
}

/* Check S->timezone against DB (NULL: the system's, opened here). */
static int check_timezone(const char *name, sked_tzdb *db, sked_error *err)
{
    sked_tzdb *own = NULL;
    const sked_tz *tz;
    sked_error e;
    int rc;

    if (!name || strcmp(name, "UTC") == 0)
        return 0;
    sked_error_clear(&e);
    if (sked__tzdb_check_name(name, &e) != 0) /* the name itself: say why */
        return sked__error_set(err, SKED_EINVAL, "timezone", e.pos, "%s",
                               e.msg);
    if (!db) {
        rc = sked_tzdb_open(NULL, &own, err);
        if (rc != 0)
            return rc;
        db = own;
    }
    sked_error_clear(&e);
    rc = sked_tzdb_get(db, name, &tz, &e);
    sked_tzdb_close(own);
    if (rc == SKED_ENOMEM)
        return sked__error_set(err, rc, "timezone", -1, NULL);
    if (rc != 0)
        return sked__error_set(err, SKED_EINVAL, "timezone", -1,
                               "unknown time zone \"%.100s\"", name);
    return 0;
}

int sked__schedule_past_check(const sked_schedule *s, const sked_schedule *old,
                              sked_time now, sked_error *err)
{
    char at[SKED_TIME_STRLEN], nowtext[SKED_TIME_STRLEN];

    if (s->kind != SKED_SPEC_AT || s->allow_past || s->at >= now)
        return 0;
    if (old && old->kind == SKED_SPEC_AT && old->at == s->at)
        return 0;
    if (sked_time_format(s->at, at, sizeof at) < 0 ||
        sked_time_format(now, nowtext, sizeof nowtext) < 0)
        at[0] = nowtext[0] = '\0';
    return sked__error_set(err, SKED_EINVAL, "at", -1,
                           "%s is in the past (now %s): it would fire at "
                           "once; give allow_past to mean it",
                           at, nowtext);
}

int sked__schedule_context_check(const char *ctx, const char *field,
                                 sked_error *err)
{
    json_error_t je;
    json_t *v;
    bool object;

    if (!ctx)
        return 0;
    if (strlen(ctx) > SKED_CONTEXT_MAX)
        return sked__error_set(err, SKED_EINVAL, field, -1,
                               "larger than %d bytes", SKED_CONTEXT_MAX);
    int rc = sked__json_load(ctx, strlen(ctx), JSON_REJECT_DUPLICATES, &v, &je);
    if (rc == SKED_ENOMEM)
        return sked__error_set(err, rc, field, -1, NULL);
    if (rc != 0)
        return sked__error_set(err, SKED_EINVAL, field, je.position,
                               "not JSON: %.120s", je.text);
    object = json_is_object(v);
    json_decref(v);
    if (!object)
        return sked__error_set(err, SKED_EINVAL, field, -1,
                               "must be a JSON object");
    return 0;
}

size_t sked__schedule_cal_at(const char *list, size_t i, char *buf, size_t size)
{
    size_t len;

    for (; list && *list && i > 0; i--) {
        list = strchr(list, ',');
        list = list ? list + 1 : NULL;
    }
    if (!list || !*list || size == 0)
        return 0;
    len = strcspn(list, ",");
    if (len >= size)
        len = size - 1;
    memcpy(buf, list, len);
    buf[len] = '\0';
    return len;
}

int sked__schedule_cals_check(const char *list, const char *field, size_t max,
                              sked_error *err)
{
    char name[SKED_ERROR_FIELD_MAX];
    size_t i = 0;

    for (const char *p = list; p && *p; i++) {
        size_t len = strcspn(p, ",");
        char one[SKED_NAME_MAX + 2];
        const char *q;
        int rc;

        (void) snprintf(name, sizeof name, "%s[%zu]", field, i);
        if (i >= max)
            return sked__error_set(err, SKED_EINVAL, field, p - list,
                                   "more than %zu calendars", max);
        if (len > SKED_NAME_MAX)
            return sked__error_set(err, SKED_EINVAL, name, p - list,
                                   "longer than %d characters", SKED_NAME_MAX);
        memcpy(one, p, len);
        one[len] = '\0';
        if ((rc = sked__schedule_name_check(one, name, err)) != 0) {
            if (err)
                err->pos = (int) (p - list) + (err->pos > 0 ? err->pos : 0);
            return rc;
        }
        /* A name twice is a mistake the list would otherwise hide. */
        for (q = list; q < p; q += strcspn(q, ",") + 1)
            if (strcspn(q, ",") == len && memcmp(q, p, len) == 0)
                return sked__error_set(err, SKED_EINVAL, name, p - list,
                                       "\"%s\" is named twice", one);
        p += len;
        if (*p == ',' && *++p == '\0')
            return sked__error_set(err, SKED_EINVAL, field, p - list,
                                   "ends with a comma");
    }
    return 0;
}

/* Write "must be A, B or C" for the names of E into ERR, naming FIELD. */
static int enum_range(const sked__enum *e, const char *field, sked_error *err)
{
    char list[160] = "";
    size_t len = 0;

    for (int i = 0; i < e->count && len < sizeof list; i++) {
        int w = snprintf(list + len, sizeof list - len, "%s%s",
                         i == 0              ? ""
                         : i == e->count - 1 ? " or "
                                             : ", ",
                         e->names[i]);
        if (w < 0)
            break;
        len += (size_t) w;
    }
    return sked__error_set(err, SKED_EINVAL, field, -1, "must be %s", list);
}

/* Check the whole number V of F against its bounds. */
static int check_int(const sked__sfield *f, int64_t v, sked_error *err)
{
    if (v >= f->lo && v <= f->hi)
        return 0;
    if (f->zero)
        return sked__error_set(err, SKED_EINVAL, f->field, -1,
                               "must be %lld (%s) or more", (long long) f->lo,
                               f->zero);
    return sked__error_set(err, SKED_EINVAL, f->field, -1,
                           "must be between %lld and %lld", (long long) f->lo,
                           (long long) f->hi);
}

/* Check the field F of S by its kind and bounds. */
static int check_field(const sked_schedule *s, const sked__sfield *f,
                       sked_error *err)
{
    const void *p = sked__sf_cat(s, f);
    const char *str = NULL;
    int v;

    switch (f->kind) {
    case SKED__SK_NAME:
        str = *(char *const *) p;
        return f->lo == 0 && !str
                   ? 0
                   : sked__schedule_name_check(str, f->field, err);
    case SKED__SK_STR:
        str = *(char *const *) p;
        if (str && f->hi > 0 && strlen(str) > (size_t) f->hi)
            return sked__error_set(err, SKED_EINVAL, f->field, -1,
                                   "longer than %lld bytes", (long long) f->hi);
        return 0;
    case SKED__SK_CONTEXT:
        return sked__schedule_context_check(*(char *const *) p, f->field, err);
    case SKED__SK_CALS:
        return sked__schedule_cals_check(*(char *const *) p, f->field,
                                         (size_t) f->hi, err);
    case SKED__SK_INSTANT:
        if (*(const sked_time *) p != SKED_TIME_NONE &&
            !instant_ok(*(const sked_time *) p))
            return sked__error_set(err, SKED_EINVAL, f->field, -1,
                                   "instant out of range");
        return 0;
    case SKED__SK_DUR:
        return check_dur(*(const sked_dur *) p, f->lo, f->hi, f->field, err);
    case SKED__SK_I32:
        return check_int(f, *(const int32_t *) p, err);
    case SKED__SK_I64:
        return check_int(f, *(const int64_t *) p, err);
    case SKED__SK_BOOL:
        if (*(const int32_t *) p != 0 && *(const int32_t *) p != 1)
            return sked__error_set(err, SKED_EINVAL, f->field, -1,
                                   "must be true or false");
        return 0;
    case SKED__SK_ENUM:
        v = *(const int *) p;
        return v >= 0 && v < f->en->count ? 0
                                          : enum_range(f->en, f->field, err);
    default: /* the time spec (checked whole) and views */
        return 0;
    }
}

/* Check the fields of S whose rules are their bounds (names, lengths,
 * ranges, enums, flags, instants, the context) in the table's order, and
 * at the spec's kind (the INTERNAL row) the time spec, whole. */
static int check_fields(const sked_schedule *s, sked_error *err)
{
    int rc = 0;

    for (size_t i = 0; rc == 0 && i < SKED__SF_COUNT; i++) {
        const sked__sfield *f = &sked__sfields[i];

        if (f->role == SKED__SR_INTERNAL)
            rc = check_spec(s, err);
        else if (f->role == SKED__SR_VIEW ||
                 ((f->role == SKED__SR_STATE || f->role == SKED__SR_CREATED) &&
                  f->kind != SKED__SK_ENUM))
            continue; /* the scheduler's own numbers are not checked */
        else
            rc = check_field(s, f, err);
    }
    return rc;
}

/* The rules of deadline, start_deadline and heartbeat (their ranges are
 * the table's). */
static int check_deadlines(const sked_schedule *s, sked_error *err)
{
    if (s->start_deadline > 0 && s->deadline > 0 &&
        s->start_deadline > s->deadline)
        return sked__error_set(err, SKED_EINVAL, "start_deadline", -1,
                               "is after the deadline: a run must start "
                               "before it can complete");
    if (!s->heartbeat)
        return 0;
    if (s->deadline == 0)
        return sked__error_set(err, SKED_EINVAL, "deadline", -1,
                               "is required with heartbeat: how long after "
                               "an occurrence its ping may come");
    if (s->overlap != SKED_OVERLAP_ALLOW)
        return sked__error_set(err, SKED_EINVAL, "overlap", -1,
                               "must be allow with heartbeat: a heartbeat "
                               "starts nothing to overlap");
    return 0;
}

int sked_schedule_validate(const sked_schedule *s, sked_tzdb *db,
                           sked_error *err)
{
    int rc;

    if (!s)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, "no schedule");
    /* A heartbeat starts nothing: its runs take its name. */
    rc = s->heartbeat == 1 && !s->workflow
             ? 0
             : sked__schedule_name_check(s->workflow, "workflow", err);
    if (rc == 0)
        rc = check_fields(s, err);
    if (rc == 0)
        rc = check_deadlines(s, err);
    if (rc == 0 && s->start_at != SKED_TIME_NONE &&
        s->end_at != SKED_TIME_NONE && s->start_at >= s->end_at)
        rc = sked__error_set(err, SKED_EINVAL, "end_at", -1,
                             "must be after start_at");
    if (rc == 0 && s->on_excluded != SKED_ON_EXCLUDED_SKIP &&
        !(s->exclude && *s->exclude) && !(s->only && *s->only))
        rc = sked__error_set(err, SKED_EINVAL, "on_excluded", -1,
                             "needs exclude or only: no day is excluded");
    if (rc == 0)
        rc = check_timezone(s->timezone, db, err);
    return rc;
}

void sked__apply_note(sked_apply_result *r, sked_apply_kind kind,
                      const char *name)
{
    size_t *count[SKED_APPLY_KINDS] = {&r->created, &r->updated, &r->deleted};
    size_t k = (*count[kind])++;

    if (k < SKED_APPLY_NAMES_MAX)
        (void) snprintf(r->names[kind][k], sizeof r->names[kind][k], "%s",
                        name);
}
