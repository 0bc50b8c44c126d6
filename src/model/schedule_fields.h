/* SPDX-License-Identifier: MIT */
/* The schedule's field table (sked/schedule_fields.h) as data: one
 * descriptor per row, which the JSON, the checks, the workflows file, the
 * CLI and the store walk instead of naming fields one by one.
 *
 * The macros below dispatch on a row's KIND or ROLE by pasting it onto a
 * prefix, so a use can keep, drop or reshape a row at compile time (the
 * SQL column list, the struct of the CLI's flags). A stored value is what
 * a back-end binds or reads for a field: NULL, an integer or a text;
 * which one each kind is lives here, once, for both back-ends. */
#ifndef SKED_MODEL_SCHEDULE_FIELDS_H
#define SKED_MODEL_SCHEDULE_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sked/schedule.h"

typedef enum sked__skind {
    SKED__SK_NAME,
    SKED__SK_STR,
    SKED__SK_CRON,
    SKED__SK_EVERY,
    SKED__SK_AT,
    SKED__SK_RRULE,
    SKED__SK_INSTANT,
    SKED__SK_DUR,
    SKED__SK_I32,
    SKED__SK_I64,
    SKED__SK_BOOL,
    SKED__SK_ENUM,
    SKED__SK_CONTEXT,
    SKED__SK_CALS,
    SKED__SK_PAUSED,
    SKED__SK_WORDS,
} sked__skind;

typedef enum sked__srole {
    SKED__SR_KEY,
    SKED__SR_DEF,
    SKED__SR_INTERNAL,
    SKED__SR_REQUEST,
    SKED__SR_VIEW,
    SKED__SR_STATE,
    SKED__SR_CREATED,
} sked__srole;

/* An enumeration's names, by value 0..count-1. An enumeration with its
 * own text form (dst: "skip,both" or "both,skip") also reads through
 * PARSE and lists every spelling it takes in SPELLINGS (NULL-ended), for
 * the schemas; the others read and list NAMES. */
typedef struct sked__enum {
    const char *const *names;
    int count;
    int (*parse)(const char *text, int *out, sked_error *err);
    const char *const *spellings;
} sked__enum;

extern const sked__enum sked__enum_kind, sked__enum_dst, sked__enum_catchup,
    sked__enum_overlap, sked__enum_on_excluded, sked__enum_status,
    sked__enum_source;

typedef struct sked__sfield {
    const char *field; /* the member's name, as validation names it */
    const char *sql, *json, *yaml, *cli; /* NULL: none */
    sked__skind kind;
    sked__srole role;
    size_t off;           /* in sked_schedule; 0 for a VIEW */
    int64_t lo, hi;       /* bounds */
    const char *zero;     /* what 0 means, or NULL */
    int64_t def;          /* numbers: the default */
    const char *sdef;     /* strings: what NULL stands for when stored */
    const sked__enum *en; /* ENUM */
    const char *help;     /* the CLI's --help lines ("": the command's own) */
    const char *desc;
} sked__sfield;

/* Each row's index: SKED__SF_name, SKED__SF_created_at, ... */
#define SKED__SF_INDEX(member, ...) SKED__SF_##member,
enum { SKED_SCHEDULE_FIELDS(SKED__SF_INDEX) SKED__SF_COUNT };

extern const sked__sfield sked__sfields[SKED__SF_COUNT];

/* The column list of the schedules table, "name, workflow, ...", in the
 * table's order (the key first). */
#define SKED__SF_COL(member, kind, ctype, en, role, sql, ...)                  \
    SKED__SF_COL_##role(sql)
#define SKED__SF_COL_KEY(sql)      sql
#define SKED__SF_COL_DEF(sql)      ", " sql
#define SKED__SF_COL_INTERNAL(sql) ", " sql
#define SKED__SF_COL_REQUEST(sql)
#define SKED__SF_COL_VIEW(sql)
#define SKED__SF_COL_STATE(sql)   ", " sql
#define SKED__SF_COL_CREATED(sql) ", " sql
#define SKED__SCHEDULE_COLUMNS    SKED_SCHEDULE_FIELDS(SKED__SF_COL)

static inline void *sked__sf_at(sked_schedule *s, const sked__sfield *f)
{
    return (char *) s + f->off;
}

static inline const void *sked__sf_cat(const sked_schedule *s,
                                       const sked__sfield *f)
{
    return (const char *) s + f->off;
}

/* Tell whether F is stored in a column, and whether as an integer (else
 * as text). */
static inline bool sked__sf_stored(const sked__sfield *f)
{
    return f->sql != NULL;
}
bool sked__sf_stored_int(const sked__sfield *f);

/* A stored value: what a back-end binds for a field, or has read. */
typedef struct sked__sval {
    enum { SKED__SV_NULL, SKED__SV_INT, SKED__SV_TEXT } type;
    int64_t i;
    const char *s; /* borrowed */
} sked__sval;

/* The stored value of the field F of S. */
sked__sval sked__sf_store_get(const sked_schedule *s, const sked__sfield *f);

/* Set the field F of S from the stored value V: a copy of a text. Returns
 * 0, SKED_ENOMEM, or SKED_EIO for a value the field cannot hold (an
 * unknown enum name, a 32-bit field out of range). */
int sked__sf_store_set(sked_schedule *s, const sked__sfield *f,
                       const sked__sval *v);

/* Parse the name TEXT of the enumeration E into *out, or fail naming
 * FIELD and listing the names. */
int sked__enum_parse(const sked__enum *e, const char *text, const char *field,
                     int *out, sked_error *err);

/* The row whose JSON key, workflows-file key or option is KEY; NULL for
 * none. */
const sked__sfield *sked__sf_by_json(const char *key);

#endif
