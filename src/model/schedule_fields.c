/* SPDX-License-Identifier: MIT */
/* The schedule's field descriptors, built from SKED_SCHEDULE_FIELDS
 * (schedule_fields.h), the names of its enumerations, and the one mapping
 * of each field to the value a store back-end binds and reads. */
#include "model/schedule_fields.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"

static const char *const kind_names[] = {"cron", "every", "at", "rrule"};
/* The DST matrix's canonical names by value (sked_dst_name), and every
 * spelling sked_dst_parse takes. */
static const char *const dst_names[] = {
    "once",       "cadence",   "shift,last", "shift,both",
    "skip,first", "skip,last", "skip,both"};
static const char *const dst_spellings[] = {
    "once",        "cadence",    "shift",      "first",      "shift,first",
    "first,shift", "last",       "shift,last", "last,shift", "both",
    "shift,both",  "both,shift", "skip",       "skip,first", "first,skip",
    "skip,last",   "last,skip",  "skip,both",  "both,skip",  NULL};
static const char *const catchup_names[] = {"latest", "skip", "all"};
static const char *const overlap_names[] = {"allow", "skip", "buffer_one",
                                            "buffer_all", "cancel_other"};
static const char *const on_excluded_names[] = {"skip", "next_business_day",
                                                "previous_business_day"};
static const char *const status_names[] = {"active", "paused", "disabled",
                                           "done"};
static const char *const source_names[] = {"api", "code"};

#define ENUM_OF(v, list)                                                       \
    const sked__enum sked__enum_##v = {                                        \
        .names = list, .count = (int) (sizeof list / sizeof list[0])}
ENUM_OF(kind, kind_names);
ENUM_OF(catchup, catchup_names);
ENUM_OF(overlap, overlap_names);
ENUM_OF(on_excluded, on_excluded_names);
ENUM_OF(status, status_names);
ENUM_OF(source, source_names);

/* Read a DST policy through the cron layer's one rule for every face. */
static int dst_parse(const char *text, int *out, sked_error *err)
{
    sked_dst d;
    int rc = sked_dst_parse(text, &d, err);

    if (rc == 0)
        *out = (int) d;
    return rc;
}

const sked__enum sked__enum_dst = {
    .names = dst_names,
    .count = (int) (sizeof dst_names / sizeof dst_names[0]),
    .parse = dst_parse,
    .spellings = dst_spellings};
_Static_assert(sizeof dst_names / sizeof dst_names[0] == SKED_DST_COUNT,
               "a name for each sked_dst");

/* The enums are read and written through an int. */
_Static_assert(sizeof(sked_spec_kind) == sizeof(int), "enum size");
_Static_assert(sizeof(sked_dst) == sizeof(int), "enum size");
_Static_assert(sizeof(sked_catchup) == sizeof(int), "enum size");
_Static_assert(sizeof(sked_overlap) == sizeof(int), "enum size");
_Static_assert(sizeof(sked_on_excluded) == sizeof(int), "enum size");
_Static_assert(sizeof(sked_schedule_status) == sizeof(int), "enum size");
_Static_assert(sizeof(sked_source) == sizeof(int), "enum size");

/* Pieces of a row, picked by pasting its KIND or ROLE on. */
#define LO(lo, hi, zero)   (lo)
#define HI(lo, hi, zero)   (hi)
#define ZERO(lo, hi, zero) (zero)
#define OFF_KEY(m)         offsetof(sked_schedule, m)
#define OFF_DEF(m)         offsetof(sked_schedule, m)
#define OFF_INTERNAL(m)    offsetof(sked_schedule, m)
#define OFF_REQUEST(m)     offsetof(sked_schedule, m)
#define OFF_VIEW(m)        0
#define OFF_STATE(m)       offsetof(sked_schedule, m)
#define OFF_CREATED(m)     offsetof(sked_schedule, m)
/* The default: a number, or for strings what NULL stands for. */
#define NUM_NAME(d)    0
#define NUM_STR(d)     0
#define NUM_CRON(d)    0
#define NUM_RRULE(d)   0
#define NUM_CONTEXT(d) 0
#define NUM_CALS(d)    0
#define NUM_EVERY(d)   (d)
#define NUM_AT(d)      (d)
#define NUM_INSTANT(d) (d)
#define NUM_DUR(d)     (d)
#define NUM_I32(d)     (d)
#define NUM_I64(d)     (d)
#define NUM_BOOL(d)    (d)
#define NUM_ENUM(d)    (d)
#define NUM_PAUSED(d)  (d)
#define NUM_WORDS(d)   0
#define TXT_NAME(d)    (d)
#define TXT_STR(d)     (d)
#define TXT_CRON(d)    (d)
#define TXT_RRULE(d)   (d)
#define TXT_CONTEXT(d) (d)
#define TXT_CALS(d)    (d)
#define TXT_EVERY(d)   NULL
#define TXT_AT(d)      NULL
#define TXT_INSTANT(d) NULL
#define TXT_DUR(d)     NULL
#define TXT_I32(d)     NULL
#define TXT_I64(d)     NULL
#define TXT_BOOL(d)    NULL
#define TXT_ENUM(d)    NULL
#define TXT_PAUSED(d)  NULL
#define TXT_WORDS(d)   NULL
#define EN_ENUM(e)     (&sked__enum_##e)
#define EN_OTHER(e)    NULL
#define EN_NAME        EN_OTHER
#define EN_STR         EN_OTHER
#define EN_CRON        EN_OTHER
#define EN_RRULE       EN_OTHER
#define EN_CONTEXT     EN_OTHER
#define EN_CALS        EN_OTHER
#define EN_EVERY       EN_OTHER
#define EN_AT          EN_OTHER
#define EN_INSTANT     EN_OTHER
#define EN_DUR         EN_OTHER
#define EN_I32         EN_OTHER
#define EN_I64         EN_OTHER
#define EN_BOOL        EN_OTHER
#define EN_PAUSED      EN_OTHER
#define EN_WORDS       EN_OTHER

#define DESCRIPTOR(member, kind, ctype, en, role, sql, json, yaml, cli,        \
                   bounds, def, help, desc)                                    \
    {#member,                                                                  \
     sql,                                                                      \
     json,                                                                     \
     yaml,                                                                     \
     cli,                                                                      \
     SKED__SK_##kind,                                                          \
     SKED__SR_##role,                                                          \
     OFF_##role(member),                                                       \
     LO bounds,                                                                \
     HI bounds,                                                                \
     ZERO bounds,                                                              \
     NUM_##kind(def),                                                          \
     TXT_##kind(def),                                                          \
     EN_##kind(en),                                                            \
     help,                                                                     \
     desc},

const sked__sfield sked__sfields[SKED__SF_COUNT] = {
    SKED_SCHEDULE_FIELDS(DESCRIPTOR)};

bool sked__sf_stored_int(const sked__sfield *f)
{
    switch (f->kind) {
    case SKED__SK_NAME:
    case SKED__SK_STR:
    case SKED__SK_CRON:
    case SKED__SK_RRULE:
    case SKED__SK_CONTEXT:
    case SKED__SK_CALS:
    case SKED__SK_ENUM:
        return false;
    default:
        return true;
    }
}

static sked__sval sv_int(int64_t i)
{
    return (sked__sval){.type = SKED__SV_INT, .i = i};
}

static sked__sval sv_text(const char *s)
{
    return (sked__sval){.type = s ? SKED__SV_TEXT : SKED__SV_NULL, .s = s};
}

/* The time spec's fields are stored only for the kind S has: another
 * kind's leftovers are NULL. */
sked__sval sked__sf_store_get(const sked_schedule *s, const sked__sfield *f)
{
    const void *p = sked__sf_cat(s, f);
    int v;

    switch (f->kind) {
    case SKED__SK_NAME:
    case SKED__SK_STR:
    case SKED__SK_CONTEXT:
    case SKED__SK_CALS:
        return sv_text(*(char *const *) p ? *(char *const *) p : f->sdef);
    case SKED__SK_CRON:
        return sv_text(s->kind == SKED_SPEC_CRON ? s->cron : NULL);
    case SKED__SK_RRULE:
        return sv_text(s->kind == SKED_SPEC_RRULE ? s->rrule : NULL);
    case SKED__SK_ENUM:
        v = *(const int *) p;
        return sv_text(v >= 0 && v < f->en->count ? f->en->names[v]
                                                  : "unknown");
    case SKED__SK_EVERY:
        return s->kind == SKED_SPEC_EVERY ? sv_int(s->every) : sv_text(NULL);
    case SKED__SK_AT:
    case SKED__SK_INSTANT:
        if (*(const sked_time *) p == SKED_TIME_NONE)
            return sv_text(NULL);
        return sv_int(*(const sked_time *) p);
    case SKED__SK_I32:
    case SKED__SK_BOOL:
        return sv_int(*(const int32_t *) p);
    default:
        return sv_int(*(const int64_t *) p);
    }
}

/* Set a string field from a stored text (NULL stays NULL). */
static int set_text(char **dst, const char *v)
{
    char *c = NULL;

    if (v && !(c = sked__strdup(v)))
        return SKED_ENOMEM;
    free(*dst);
    *dst = c;
    return 0;
}

int sked__sf_store_set(sked_schedule *s, const sked__sfield *f,
                       const sked__sval *v)
{
    void *p = sked__sf_at(s, f);
    int64_t i = v->type == SKED__SV_INT ? v->i : f->def;

    switch (f->kind) {
    case SKED__SK_NAME:
    case SKED__SK_STR:
    case SKED__SK_CRON:
    case SKED__SK_RRULE:
    case SKED__SK_CONTEXT:
    case SKED__SK_CALS:
        return set_text(p, v->type == SKED__SV_TEXT ? v->s : NULL);
    case SKED__SK_ENUM:
        return v->type == SKED__SV_TEXT &&
                       sked__enum_parse(f->en, v->s, "", p, NULL) == 0
                   ? 0
                   : SKED_EIO;
    case SKED__SK_I32:
    case SKED__SK_BOOL:
        if (i < INT32_MIN || i > INT32_MAX)
            return SKED_EIO;
        *(int32_t *) p = (int32_t) i;
        return 0;
    case SKED__SK_EVERY:
        *(int64_t *) p = v->type == SKED__SV_INT ? v->i : 0;
        return 0;
    default:
        *(int64_t *) p = i;
        return 0;
    }
}

int sked__enum_parse(const sked__enum *e, const char *text, const char *field,
                     int *out, sked_error *err)
{
    char allowed[160] = "";
    size_t len = 0;

    if (e->parse) {
        int rc = e->parse(text, out, err);
        if (rc < 0 && err) /* the caller's name for the field */
            (void) snprintf(err->field, sizeof err->field, "%s", field);
        return rc;
    }
    for (int i = 0; text && i < e->count; i++) {
        if (strcmp(text, e->names[i]) == 0) {
            *out = i;
            return 0;
        }
    }
    for (int i = 0; i < e->count && len < sizeof allowed; i++) {
        int w = snprintf(allowed + len, sizeof allowed - len, "%s%s",
                         i ? ", " : "", e->names[i]);
        if (w < 0)
            break;
        len += (size_t) w;
    }
    return sked__error_set(err, SKED_EINVAL, field, -1,
                           "\"%.40s\" is not one of %s", text ? text : "",
                           allowed);
}

const sked__sfield *sked__sf_by_json(const char *key)
{
    for (size_t i = 0; i < SKED__SF_COUNT; i++)
        if (sked__sfields[i].json && strcmp(sked__sfields[i].json, key) == 0)
            return &sked__sfields[i];
    return NULL;
}
