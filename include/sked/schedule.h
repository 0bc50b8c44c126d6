/* SPDX-License-Identifier: MIT */
/* Schedules: when a workflow runs (SPEC 1, 2, 3, 6).
 *
 * A schedule has a unique name, a workflow, one time spec (a cron
 * expression, an interval, or one instant), a zone and DST policy, a JSON
 * context, catch-up and overlap policies, bounds, and the state the
 * scheduler keeps (status, cursor, next occurrence, last error).
 *
 * sked_schedule is a plain struct the caller owns: fill it after
 * sked_schedule_init, release it with sked_schedule_done. Its strings are
 * owned by the struct (heap, freed by sked_schedule_done). Instants use
 * SKED_TIME_NONE for "not set". */
#ifndef SKED_SCHEDULE_H
#define SKED_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#include "sked/cron.h"
#include "sked/error.h"
#include "sked/schedule_fields.h"
#include "sked/time.h"
#include "sked/tz.h"

/* Longest schedule, workflow or queue name; names are [A-Za-z0-9._-],
 * and neither "." nor "..". */
#define SKED_NAME_MAX 128
/* Longest idempotency key of a run (sked_engine_run_start): printable
 * UTF-8, no '/', neither "." nor "..", no space at either end. */
#define SKED_RUN_KEY_MAX     200
#define SKED_DESCRIPTION_MAX 1024
#define SKED_CONTEXT_MAX     (64 << 10) /* bytes of JSON */
/* Most calendars a schedule's exclude, or its only, names. */
#define SKED_SCHEDULE_CALENDARS_MAX 16
/* SPEC 3.3 and 3.2 ranges. */
#define SKED_CATCHUP_MAX_DEFAULT    10
#define SKED_CATCHUP_MAX_LIMIT      1000
#define SKED_CATCHUP_WINDOW_DEFAULT (INT64_C(86400) * SKED_USEC_PER_SEC)
#define SKED_CATCHUP_WINDOW_MIN     (INT64_C(60) * SKED_USEC_PER_SEC)
#define SKED_CATCHUP_WINDOW_MAX     (INT64_C(30) * 86400 * SKED_USEC_PER_SEC)
#define SKED_JITTER_MAX             (INT64_C(3600) * SKED_USEC_PER_SEC)
/* The longest deadline (and start deadline) after an occurrence. */
#define SKED_DEADLINE_MAX (INT64_C(30) * 86400 * SKED_USEC_PER_SEC)
#define SKED_EVERY_MIN    (SKED_USEC_PER_SEC)
#define SKED_EVERY_MAX    (INT64_C(366) * 86400 * SKED_USEC_PER_SEC)

typedef enum sked_spec_kind {
    SKED_SPEC_CRON = 0,  /* cron: an expression in a zone */
    SKED_SPEC_EVERY = 1, /* every: anchor + k * interval, k >= 1 */
    SKED_SPEC_AT = 2,    /* at: one instant, then done */
    SKED_SPEC_RRULE = 3, /* rrule: an RFC 5545 rule in a zone */
} sked_spec_kind;

typedef enum sked_catchup {
    SKED_CATCHUP_LATEST = 0, /* the default: only the latest late one */
    SKED_CATCHUP_SKIP = 1,
    SKED_CATCHUP_ALL = 2,
} sked_catchup;

typedef enum sked_overlap {
    SKED_OVERLAP_ALLOW = 0, /* the default */
    SKED_OVERLAP_SKIP = 1,
    SKED_OVERLAP_BUFFER_ONE = 2,
    SKED_OVERLAP_BUFFER_ALL = 3,
    SKED_OVERLAP_CANCEL_OTHER = 4,
} sked_overlap;

/* Where an occurrence on an excluded day goes (SPEC 12): dropped, or
 * moved to the next or previous business day at its time of day. */
typedef enum sked_on_excluded {
    SKED_ON_EXCLUDED_SKIP = 0, /* the default */
    SKED_ON_EXCLUDED_NEXT_BUSINESS_DAY = 1,
    SKED_ON_EXCLUDED_PREVIOUS_BUSINESS_DAY = 2,
} sked_on_excluded;

typedef enum sked_schedule_status {
    SKED_SCHEDULE_ACTIVE = 0,
    SKED_SCHEDULE_PAUSED = 1,
    SKED_SCHEDULE_DISABLED = 2, /* its expression or zone no longer loads */
    SKED_SCHEDULE_DONE = 3,     /* fired its one instant, or max_runs */
} sked_schedule_status;

typedef enum sked_source {
    SKED_SOURCE_API = 0,  /* created through the API or the CLI */
    SKED_SOURCE_CODE = 1, /* declared by code or the workflows file */
} sked_source;

/* The members come from SKED_SCHEDULE_FIELDS (sked/schedule_fields.h),
 * which says what each one means: the definition (SPEC 6, POST
 * /api/v1/schedules), then the state the scheduler keeps. Strings are
 * owned (NULL: unset), instants are SKED_TIME_NONE when unset. allow_past
 * is a request, not stored: 1 lets a write give a one-time schedule an
 * "at" already past (it fires at once, as catch-up); 0 refuses it. */
#define SKED__SCHEDULE_MEMBER(member, kind, ctype, en, role, ...)              \
    SKED__SCHEDULE_MEMBER_##role(ctype, member)
#define SKED__SCHEDULE_MEMBER_KEY(ctype, member)      ctype member;
#define SKED__SCHEDULE_MEMBER_DEF(ctype, member)      ctype member;
#define SKED__SCHEDULE_MEMBER_INTERNAL(ctype, member) ctype member;
#define SKED__SCHEDULE_MEMBER_REQUEST(ctype, member)  ctype member;
#define SKED__SCHEDULE_MEMBER_VIEW(ctype, member)
#define SKED__SCHEDULE_MEMBER_STATE(ctype, member)   ctype member;
#define SKED__SCHEDULE_MEMBER_CREATED(ctype, member) ctype member;

typedef struct sked_schedule {
    SKED_SCHEDULE_FIELDS(SKED__SCHEDULE_MEMBER)
} sked_schedule;

/* Fill *s with the defaults of SPEC 3.3 and 6: catchup latest, max 10,
 * window 1 d, overlap allow, dst once, status active, source api, every
 * instant NONE and every string NULL. */
SKED_API void sked_schedule_init(sked_schedule *s);

/* Free the strings *s owns and reset it with sked_schedule_init.
 * NULL does nothing. */
SKED_API void sked_schedule_done(sked_schedule *s);

/* Deep-copy SRC into *out (initialised here; free with
 * sked_schedule_done). Returns 0 or SKED_ENOMEM (*out untouched). */
SKED_API int sked_schedule_copy(const sked_schedule *src, sked_schedule *out);

/* Check every field of S against SPEC 2 and 3 before anything is
 * written: the name, the workflow, exactly one valid time spec (the
 * fields of the other kinds unset), a zone that DB knows (NULL: the
 * system's tz database, opened for this call), the JSON context (an
 * object, at most SKED_CONTEXT_MAX bytes), every range and enum. Returns
 * 0 or SKED_EINVAL with err->field naming the field by its base name, as
 * the workflows file spells it ("timezone", "catchup_max",
 * "catchup_window", "jitter", "every", "end_at") and err->msg saying why;
 * cron errors have field "cron" and the parser's position in err->pos. */
SKED_API int sked_schedule_validate(const sked_schedule *s, sked_tzdb *db,
                                    sked_error *err);

/* Names of the enums as the API and the CLI write them ("latest",
 * "buffer_one", "paused", "code", "cron"); never NULL. */
SKED_API const char *sked_catchup_name(sked_catchup c);
SKED_API const char *sked_overlap_name(sked_overlap o);
SKED_API const char *sked_on_excluded_name(sked_on_excluded o);
SKED_API const char *sked_schedule_status_name(sked_schedule_status s);
SKED_API const char *sked_source_name(sked_source s);
SKED_API const char *sked_spec_kind_name(sked_spec_kind k);

/* Parse those names. Return 0 or SKED_EINVAL with err->field set to
 * FIELD (e.g. "catchup") and a message listing the allowed values. */
SKED_API int sked_catchup_parse(const char *s, const char *field,
                                sked_catchup *out, sked_error *err);
SKED_API int sked_overlap_parse(const char *s, const char *field,
                                sked_overlap *out, sked_error *err);
SKED_API int sked_on_excluded_parse(const char *s, const char *field,
                                    sked_on_excluded *out, sked_error *err);
SKED_API int sked_schedule_status_parse(const char *s, const char *field,
                                        sked_schedule_status *out,
                                        sked_error *err);
SKED_API int sked_source_parse(const char *s, const char *field,
                               sked_source *out, sked_error *err);
SKED_API int sked_spec_kind_parse(const char *s, const char *field,
                                  sked_spec_kind *out, sked_error *err);

/* Longest run id: room for "api-{workflow}-key-{key}" with the longest
 * workflow name and idempotency key, and for any "sched-{name}-..." */
#define SKED_RUN_ID_MAX 384

/* Why an occurrence was not fired: the reason strings of SPEC 3.3/3.4
 * (sked_miss_reason_name, in sked/engine.h, writes them). */
typedef enum sked_miss_reason {
    SKED_MISS_CATCHUP_SKIP = 0,   /* "catchup_skip" */
    SKED_MISS_SUPERSEDED = 1,     /* "superseded" */
    SKED_MISS_CATCHUP_MAX = 2,    /* "catchup_max" */
    SKED_MISS_OUTSIDE_WINDOW = 3, /* "outside_window" */
    SKED_MISS_OVERLAP = 4,        /* "overlap" */
    SKED_MISS_EXCLUDED = 5,       /* "excluded": a day of its calendars */
    SKED_MISS_SKIPPED = 6,        /* "skipped": dropped ahead of time */
    SKED_MISS__COUNT = 7,
} sked_miss_reason;

/* One occurrence of a schedule dropped ahead of time (sked schedule
 * skip): the firing decides it as missed with reason "skipped". */
#define SKED_SKIP_REASON_MAX 1024 /* bytes of a skip's reason */
#define SKED_SKIP_ACTOR_MAX  128  /* bytes of who skipped it */
typedef struct sked_skip {
    char *schedule;       /* owned */
    sked_time occurrence; /* the time spec's instant: the run id's */
    char *actor;          /* owned: who ("api", "cli", "mcp" or given) */
    char *reason;         /* owned; NULL: none given */
    sked_time created_at;
} sked_skip;

/* Free the N skips of LIST and LIST. NULL does nothing. */
SKED_API void sked_skips_free(sked_skip *list, size_t n);

/* What applying a set of schedules changed (SPEC 3.5): the counts, and
 * the names of the first SKED_APPLY_NAMES_MAX of each kind. */
#define SKED_APPLY_NAMES_MAX 10
typedef enum sked_apply_kind {
    SKED_APPLY_CREATED,
    SKED_APPLY_UPDATED,
    SKED_APPLY_DELETED,
    SKED_APPLY_KINDS
} sked_apply_kind;
typedef struct sked_apply_result {
    size_t created, updated, unchanged, deleted;
    /* names[SKED_APPLY_CREATED][i], i < min(created, NAMES_MAX), ... */
    char names[SKED_APPLY_KINDS][SKED_APPLY_NAMES_MAX][SKED_NAME_MAX + 1];
} sked_apply_result;

#endif
