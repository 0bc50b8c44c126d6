/* SPDX-License-Identifier: MIT */
/* The options that define a schedule (schedule_opts.h).
 *
 * One table lists them: the option, the field it sets (as
 * sked_schedule_validate names it), how its text is read, and where it
 * lives in sched_flags and in sked_schedule. Converting, validating and
 * reporting all walk the same table, so an error always names the option
 * the user typed. */
#include "schedule_opts.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "direct.h"
#include "model/schedule.h"

typedef enum okind {
    K_STR,     /* a string, required */
    K_OPTSTR,  /* a string; "" clears it */
    K_CRON,    /* the cron time spec */
    K_EVERY,   /* the interval time spec */
    K_AT,      /* the one-time spec */
    K_DUR,     /* a duration, SPEC 2.3 */
    K_TIME,    /* an RFC 3339 instant; "" clears it */
    K_I32,     /* a whole number */
    K_I64,     /* a whole number */
    K_CATCHUP, /* an enum name */
    K_OVERLAP,
    K_DST,
    K_CONTEXT, /* a JSON object */
} okind;

typedef struct orow {
    const char *opt;   /* "catchup-max" */
    const char *field; /* "catchup_max" */
    okind kind;
    size_t foff; /* the const char * in sched_flags */
    size_t soff; /* the member of sked_schedule */
} orow;

#define ROW(opt, field, kind, member)                                          \
    {                                                                          \
        opt, field, kind, offsetof(sched_flags, member),                       \
            offsetof(sked_schedule, member)                                    \
    }

static const orow rows[] = {
    ROW("name", "name", K_STR, name),
    ROW("workflow", "workflow", K_STR, workflow),
    ROW("cron", "cron", K_CRON, cron),
    ROW("every", "every", K_EVERY, every),
    ROW("at", "at", K_AT, at),
    ROW("anchor", "anchor", K_TIME, anchor),
    ROW("timezone", "timezone", K_STR, timezone),
    ROW("dst", "dst", K_DST, dst),
    ROW("context", "context", K_CONTEXT, context),
    ROW("catchup", "catchup", K_CATCHUP, catchup),
    ROW("catchup-max", "catchup_max", K_I32, catchup_max),
    ROW("catchup-window", "catchup_window", K_DUR, catchup_window),
    ROW("overlap", "overlap", K_OVERLAP, overlap),
    ROW("priority", "priority", K_I32, priority),
    ROW("queue", "queue", K_OPTSTR, queue),
    ROW("jitter", "jitter", K_DUR, jitter),
    ROW("start-at", "start_at", K_TIME, start_at),
    ROW("end-at", "end_at", K_TIME, end_at),
    ROW("max-runs", "max_runs", K_I64, max_runs),
    ROW("pause-after-failures", "pause_after_failures", K_I32,
        pause_after_failures),
    ROW("description", "description", K_OPTSTR, description),
};

#define NROWS (sizeof rows / sizeof rows[0])

static const char *flag_value(const sched_flags *f, const orow *r)
{
    return *(const char *const *) (const void *) ((const char *) f + r->foff);
}

/* The first three rows (name, workflow, cron) are each command's own. */
#define FIRST_COMMON 3

int sched_opts_common(sched_flags *f, cli_opt *opts)
{
    int n = 0;

    for (size_t i = FIRST_COMMON; i < NROWS; i++)
        opts[n++] =
            (cli_opt){rows[i].opt, 0, CLI_OPT_VALUE, (char *) f + rows[i].foff};
    opts[n++] = (cli_opt){"automatic-backfill", 0, CLI_OPT_FLAG,
                          &f->automatic_backfill};
    opts[n++] = (cli_opt){"allow-past", 0, CLI_OPT_FLAG, &f->allow_past};
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
    if (r->kind == K_CRON)
        snprintf(what, sizeof what, "cron expression");
    else
        snprintf(what, sizeof what, "--%s", r->opt);
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
}

/* Convert V, the text of row R, into its field of S. */
static int set_field(const orow *r, const char *v, sked_schedule *s,
                     sked_error *err)
{
    void *at = (char *) s + r->soff;
    int64_t x = 0;
    int rc = 0;

    switch (r->kind) {
    case K_STR:
    case K_OPTSTR:
        return set_str(at, v, r->kind == K_OPTSTR);
    case K_CRON:
        change_spec(s, SKED_SPEC_CRON);
        return set_str(at, v, false);
    case K_EVERY:
        change_spec(s, SKED_SPEC_EVERY);
        return sked_dur_parse(v, at, err);
    case K_AT:
        change_spec(s, SKED_SPEC_AT);
        return sked_time_parse(v, at, err);
    case K_DUR:
        return sked_dur_parse(v, at, err);
    case K_TIME:
        if (v[0] == '\0')
            return *(sked_time *) at = SKED_TIME_NONE, 0;
        return sked_time_parse(v, at, err);
    case K_I32:
        if ((rc = read_int(v, INT32_MIN, INT32_MAX, &x, err)) == 0)
            *(int32_t *) at = (int32_t) x;
        return rc;
    case K_I64:
        return read_int(v, INT64_MIN, INT64_MAX, at, err);
    case K_CATCHUP:
        return sked_catchup_parse(v, r->field, at, err);
    case K_OVERLAP:
        return sked_overlap_parse(v, r->field, at, err);
    case K_DST:
        return sked_dst_parse(v, at, err);
    case K_CONTEXT:
        if ((rc = sked__schedule_context_check(v, r->field, err)) < 0)
            return rc;
        return set_str(at, v, false);
    }
    return SKED_EINTERNAL;
}

static bool is_spec(okind k)
{
    return k == K_CRON || k == K_EVERY || k == K_AT;
}

/* Refuse two time specs. */
static int check_specs(const sched_flags *f)
{
    int specs = 0;

    /* Checked before anything is converted: a spec resets the others. */
    for (size_t i = 0; i < NROWS; i++)
        specs += is_spec(rows[i].kind) && flag_value(f, &rows[i]) != NULL;
    if (specs > 1)
        return cli_fail(SKED_EUSAGE, "give only one of a cron expression, "
                                     "--every and --at");
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
        for (size_t i = 0; i < NROWS; i++) {
            const char *v = flag_value(f, &rows[i]);

            if (!v || is_spec(rows[i].kind) != (pass == 0))
                continue;
            sked_error_clear(&err);
            if ((rc = set_field(&rows[i], v, s, &err)) == SKED_ENOMEM)
                return cli_fail(rc, "out of memory");
            if (rc < 0)
                return invalid(&rows[i], v, &err);
        }
    }
    if (f->automatic_backfill)
        s->automatic_backfill = 1;
    if (f->no_automatic_backfill)
        s->automatic_backfill = 0;
    s->allow_past = f->allow_past;
    return 0;
}

/* Report ERR about FIELD of S by the option that set it, or by the
 * schedule when no option did. */
static int report(const sched_flags *f, const sked_schedule *s, sked_error *err)
{
    for (size_t i = 0; i < NROWS; i++) {
        const char *v = flag_value(f, &rows[i]);

        if (strcmp(rows[i].field, err->field) != 0)
            continue;
        if (v)
            return invalid(&rows[i], v, err);
        if (i == 0) /* the name defaults to the workflow's */
            return cli_invalid("name", s->name ? s->name : "", err);
        if (i == 1 || i == 2) /* given as arguments */
            return invalid(&rows[i], i == 1 ? s->workflow : s->cron, err);
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
