/* SPDX-License-Identifier: MIT */
/* The options that define a schedule (schedule_opts.h).
 *
 * They are the field table's (model/schedule_fields.h): each row with an
 * option gives its name, the field it sets (as sked_schedule_validate
 * names it), how its text is read (its kind), and its member in
 * sched_flags and in sked_schedule. Converting, validating and reporting
 * all walk the same table, so an error always names the option the user
 * typed. */
#include "schedule_opts.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "direct.h"
#include "model/schedule.h"
#include "model/schedule_fields.h"

typedef sked__sfield orow;

/* Where each row's option lands in sched_flags (rows with an option). */
#define FLAG_OFF_ENTRY(member)                                                 \
    [SKED__SF_##member] = offsetof(sched_flags, member),
#define FLAG_OFF(member, kind, ctype, en, role, ...)                           \
    SCHED_FLAG_##role(FLAG_OFF_ENTRY(member))
static const size_t flag_off[SKED__SF_COUNT] = {SKED_SCHEDULE_FIELDS(FLAG_OFF)};

/* Tell whether R has an option, and whether it takes a value (else it is
 * a flag). */
static bool has_opt(const orow *r)
{
    return r->cli && r->role != SKED__SR_INTERNAL &&
           r->role != SKED__SR_STATE && r->role != SKED__SR_CREATED;
}

static bool takes_value(const orow *r)
{
    return r->kind != SKED__SK_BOOL && r->kind != SKED__SK_PAUSED;
}

static void *flag_at(sched_flags *f, const orow *r)
{
    return (char *) f + flag_off[r - sked__sfields];
}

static const char *flag_value(const sched_flags *f, const orow *r)
{
    return *(const char *const *) (const void *) ((const char *) f +
                                                  flag_off[r - sked__sfields]);
}

static bool flag_set(const sched_flags *f, const orow *r)
{
    return *(const bool *) (const void *) ((const char *) f +
                                           flag_off[r - sked__sfields]);
}

/* Options without --help lines (name, workflow, cron, paused) are each
 * command's own: it lists and takes them itself. */
static bool common(const orow *r)
{
    return has_opt(r) && r->help[0] != '\0';
}

int sched_opts_common(sched_flags *f, cli_opt *opts)
{
    int n = 0;

    for (size_t i = 0; i < SKED__SF_COUNT; i++) {
        const orow *r = &sked__sfields[i];

        if (common(r))
            opts[n++] = (cli_opt){r->cli, 0,
                                  takes_value(r) ? CLI_OPT_VALUE : CLI_OPT_FLAG,
                                  flag_at(f, r)};
    }
    opts[n++] = (cli_opt){"json", 0, CLI_OPT_FLAG, &f->json};
    opts[n++] = (cli_opt){"db", 0, CLI_OPT_VALUE, &f->db};
    opts[n++] = (cli_opt){"server", 0, CLI_OPT_VALUE, &f->server};
    return n;
}

/* Print "invalid --OPT "V": FIELD: MSG" and return the exit code. */
static int invalid(const orow *r, const char *v, sked_error *err)
{
    char what[64];

    if (!err->field[0])
        snprintf(err->field, sizeof err->field, "%s", r->field);
    if (r->kind == SKED__SK_CRON)
        snprintf(what, sizeof what, "cron expression");
    else
        snprintf(what, sizeof what, "--%s", r->cli);
    return cli_invalid(what, v, err);
}

static int read_int(const char *v, int64_t min, int64_t max, int64_t *out,
                    sked_error *err)
{
    char *end;
    long long x;

    errno = 0;
    x = strtoll(v, &end, 10);
    if (end == v || *end != '\0' || v[0] == ' ')
        return sked__error_set(err, SKED_EINVAL, NULL, -1,
                               "expected a whole number");
    if (errno == ERANGE || x < min || x > max)
        return sked__error_set(err, SKED_EINVAL, NULL, -1,
                               "out of range: %lld to %lld", (long long) min,
                               (long long) max);
    *out = x;
    return 0;
}

/* Replace the string at P by a copy of V ("" clears it when CLEAR). */
static int set_str(char **p, const char *v, bool clear)
{
    char *copy = NULL;

    if (!(clear && v[0] == '\0') && !(copy = strdup(v)))
        return SKED_ENOMEM;
    free(*p);
    *p = copy;
    return 0;
}

/* Make S a schedule of KIND: from another kind, forget the old time spec
 * (an interval keeps its anchor when only the interval changes). */
static void change_spec(sked_schedule *s, sked_spec_kind kind)
{
    if (s->kind == kind)
        return;
    s->kind = kind;
    free(s->cron);
    s->cron = NULL;
    s->every = 0;
    s->anchor = SKED_TIME_NONE;
    s->at = SKED_TIME_NONE;
    free(s->rrule);
    s->rrule = NULL;
}

/* Tell whether an empty value clears the string of R: an optional one
 * with no stored default (a --timezone "" is no zone, not UTC). */
static bool clears(const orow *r)
{
    return r->lo == 0 && !r->sdef;
}

/* Convert V, the text of row R, into its field of S. */
static int set_field(const orow *r, const char *v, sked_schedule *s,
                     sked_error *err)
{
    void *at = sked__sf_at(s, r);
    int64_t x = 0;
    int rc = 0;

    switch (r->kind) {
    case SKED__SK_NAME:
    case SKED__SK_STR:
    case SKED__SK_CALS:
        return set_str(at, v, clears(r));
    case SKED__SK_CRON:
        change_spec(s, SKED_SPEC_CRON);
        return set_str(at, v, false);
    case SKED__SK_EVERY:
        change_spec(s, SKED_SPEC_EVERY);
        return sked_dur_parse(v, at, err);
    case SKED__SK_AT:
        change_spec(s, SKED_SPEC_AT);
        return sked_time_parse(v, at, err);
    case SKED__SK_RRULE:
        change_spec(s, SKED_SPEC_RRULE);
        return set_str(at, v, false);
    case SKED__SK_DUR:
        return sked_dur_parse(v, at, err);
    case SKED__SK_INSTANT:
        if (v[0] == '\0')
            return *(sked_time *) at = SKED_TIME_NONE, 0;
        return sked_time_parse(v, at, err);
    case SKED__SK_I32:
        if ((rc = read_int(v, INT32_MIN, INT32_MAX, &x, err)) == 0)
            *(int32_t *) at = (int32_t) x;
        return rc;
    case SKED__SK_I64:
        return read_int(v, INT64_MIN, INT64_MAX, at, err);
    case SKED__SK_ENUM:
        return sked__enum_parse(r->en, v, r->field, at, err);
    case SKED__SK_CONTEXT:
        if ((rc = sked__schedule_context_check(v, r->field, err)) < 0)
            return rc;
        return set_str(at, v, false);
    case SKED__SK_BOOL:
    case SKED__SK_PAUSED:
    case SKED__SK_WORDS:
        break;
    }
    return SKED_EINTERNAL;
}

static bool is_spec(const orow *r)
{
    return r->kind == SKED__SK_CRON || r->kind == SKED__SK_EVERY ||
           r->kind == SKED__SK_AT || r->kind == SKED__SK_RRULE;
}

/* The value option R gave, or NULL. */
static const char *given(const sched_flags *f, const orow *r)
{
    return has_opt(r) && takes_value(r) ? flag_value(f, r) : NULL;
}

/* Refuse two time specs. */
static int check_specs(const sched_flags *f)
{
    int specs = 0;

    /* Checked before anything is converted: a spec resets the others. */
    for (size_t i = 0; i < SKED__SF_COUNT; i++)
        specs += is_spec(&sked__sfields[i]) && given(f, &sked__sfields[i]);
    if (specs > 1)
        return cli_fail(SKED_EUSAGE, "give only one of a cron expression, "
                                     "--every, --at and --rrule");
    return 0;
}

int sched_opts_apply(const sched_flags *f, sked_schedule *s)
{
    sked_error err;
    int rc;

    if ((rc = check_specs(f)) != 0)
        return rc;
    /* Time specs first: setting one resets the anchor given with it. */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < SKED__SF_COUNT; i++) {
            const orow *r = &sked__sfields[i];
            const char *v = given(f, r);

            if (!v || is_spec(r) != (pass == 0))
                continue;
            sked_error_clear(&err);
            if ((rc = set_field(r, v, s, &err)) == SKED_ENOMEM)
                return cli_fail(rc, "out of memory");
            if (rc < 0)
                return invalid(r, v, &err);
        }
    }
    /* Boolean options turn their field on; the commands' own (--paused,
     * --no-automatic-backfill) are theirs to apply. */
    for (size_t i = 0; i < SKED__SF_COUNT; i++) {
        const orow *r = &sked__sfields[i];

        if (common(r) && r->kind == SKED__SK_BOOL)
            *(int32_t *) sked__sf_at(s, r) = flag_set(f, r);
    }
    if (f->no_automatic_backfill)
        s->automatic_backfill = 0;
    return 0;
}

/* Report ERR about FIELD of S by the option that set it, or by the
 * schedule when no option did. */
static int report(const sched_flags *f, const sked_schedule *s, sked_error *err)
{
    for (size_t i = 0; i < SKED__SF_COUNT; i++) {
        const orow *r = &sked__sfields[i];
        const char *v = given(f, r);

        if (!has_opt(r) || strcmp(r->field, err->field) != 0)
            continue;
        if (v)
            return invalid(r, v, err);
        if (i == SKED__SF_name) /* the name defaults to the workflow's */
            return cli_invalid("name", s->name ? s->name : "", err);
        if (i == SKED__SF_workflow || i == SKED__SF_cron) /* arguments */
            return invalid(r, i == SKED__SF_workflow ? s->workflow : s->cron,
                           err);
    }
    return cli_invalid("schedule", s->name ? s->name : "", err);
}

int sched_opts_validate(const sched_flags *f, const sked_schedule *s,
                        sked_tzdb *db)
{
    sked_error err;
    int rc;

    if (s->anchor != SKED_TIME_NONE && s->kind != SKED_SPEC_EVERY)
        return cli_fail(SKED_EUSAGE, "--anchor needs --every");
    sked_error_clear(&err);
    if ((rc = sked_schedule_validate(s, db, &err)) == 0)
        return 0;
    if (err.code == 0)
        err.code = rc;
    return report(f, s, &err);
}

int sched_opts_fail(const sched_flags *f, const sked_schedule *s,
                    const char *verb, const sked_error *err, int rc)
{
    sked_error e = *err;

    if (rc == SKED_EINVAL && e.field[0]) {
        e.code = rc;
        return report(f, s, &e);
    }
    return direct_schedule_fail(verb, s->name ? s->name : "", err, rc);
}
