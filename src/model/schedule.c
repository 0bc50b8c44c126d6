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
#include "model/schedule.h"
#include "tz/tzdb.h"

void sked_schedule_init(sked_schedule *s)
{
    if (!s)
        return;
    *s = (sked_schedule){
        .kind = SKED_SPEC_CRON,
        .anchor = SKED_TIME_NONE,
        .at = SKED_TIME_NONE,
        .dst = SKED_DST_ONCE,
        .catchup = SKED_CATCHUP_LATEST,
        .catchup_max = SKED_CATCHUP_MAX_DEFAULT,
        .catchup_window = SKED_CATCHUP_WINDOW_DEFAULT,
        .overlap = SKED_OVERLAP_ALLOW,
        .start_at = SKED_TIME_NONE,
        .end_at = SKED_TIME_NONE,
        .status = SKED_SCHEDULE_ACTIVE,
        .source = SKED_SOURCE_API,
        .next_fire_at = SKED_TIME_NONE,
        .last_fired_at = SKED_TIME_NONE,
        .created_at = SKED_TIME_NONE,
        .updated_at = SKED_TIME_NONE,
    };
}

void sked_schedule_done(sked_schedule *s)
{
    if (!s)
        return;
    free(s->name);
    free(s->workflow);
    free(s->cron);
    free(s->timezone);
    free(s->context);
    free(s->queue);
    free(s->description);
    free(s->last_error);
    free(s->app);
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
    c.name = c.workflow = c.cron = c.timezone = NULL;
    c.context = c.queue = c.description = c.last_error = c.app = NULL;
    if (!dup_field(src->name, &c.name) ||
        !dup_field(src->workflow, &c.workflow) ||
        !dup_field(src->cron, &c.cron) ||
        !dup_field(src->timezone, &c.timezone) ||
        !dup_field(src->context, &c.context) ||
        !dup_field(src->queue, &c.queue) ||
        !dup_field(src->description, &c.description) ||
        !dup_field(src->last_error, &c.last_error) ||
        !dup_field(src->app, &c.app)) {
        sked_schedule_done(&c);
        return SKED_ENOMEM;
    }
    *out = c;
    return 0;
}

/* ---- enum names ------------------------------------------------------- */

static const char *const catchup_names[] = {"latest", "skip", "all"};
static const char *const overlap_names[] = {"allow", "skip", "buffer_one",
                                            "buffer_all", "cancel_other"};
static const char *const status_names[] = {"active", "paused", "disabled",
                                           "done"};
static const char *const source_names[] = {"api", "code"};
static const char *const kind_names[] = {"cron", "every", "at"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Return NAMES[V], or "unknown" when V is out of range. */
static const char *name_of(const char *const *names, size_t n, int v)
{
    if (v < 0 || (size_t) v >= n)
        return "unknown";
    return names[v];
}

const char *sked_catchup_name(sked_catchup c)
{
    return name_of(catchup_names, COUNT(catchup_names), (int) c);
}

const char *sked_overlap_name(sked_overlap o)
{
    return name_of(overlap_names, COUNT(overlap_names), (int) o);
}

const char *sked_schedule_status_name(sked_schedule_status s)
{
    return name_of(status_names, COUNT(status_names), (int) s);
}

const char *sked_source_name(sked_source s)
{
    return name_of(source_names, COUNT(source_names), (int) s);
}

const char *sked_spec_kind_name(sked_spec_kind k)
{
    return name_of(kind_names, COUNT(kind_names), (int) k);
}

/* Find S in NAMES; store its index in *out or fail naming FIELD and
 * listing the allowed values. */
static int parse_name(const char *const *names, size_t n, const char *s,
                      const char *field, int *out, sked_error *err)
{
    char allowed[160] = "";
    size_t len = 0;

    for (size_t i = 0; s && i < n; i++) {
        if (strcmp(s, names[i]) == 0) {
            *out = (int) i;
            return 0;
        }
    }
    for (size_t i = 0; i < n && len < sizeof allowed; i++) {
        int w = snprintf(allowed + len, sizeof allowed - len, "%s%s",
                         i ? ", " : "", names[i]);
        if (w < 0)
            break;
        len += (size_t) w;
    }
    return sked__error_set(err, SKED_EINVAL, field, -1,
                           "\"%.40s\" is not one of %s", s ? s : "", allowed);
}

int sked_catchup_parse(const char *s, const char *field, sked_catchup *out,
                       sked_error *err)
{
    int v = 0;
    int rc = parse_name(catchup_names, COUNT(catchup_names), s, field, &v, err);

    if (rc == 0 && out)
        *out = (sked_catchup) v;
    return rc;
}

int sked_overlap_parse(const char *s, const char *field, sked_overlap *out,
                       sked_error *err)
{
    int v = 0;
    int rc = parse_name(overlap_names, COUNT(overlap_names), s, field, &v, err);

    if (rc == 0 && out)
        *out = (sked_overlap) v;
    return rc;
}

int sked_schedule_status_parse(const char *s, const char *field,
                               sked_schedule_status *out, sked_error *err)
{
    int v = 0;
    int rc = parse_name(status_names, COUNT(status_names), s, field, &v, err);

    if (rc == 0 && out)
        *out = (sked_schedule_status) v;
    return rc;
}

int sked_source_parse(const char *s, const char *field, sked_source *out,
                      sked_error *err)
{
    int v = 0;
    int rc = parse_name(source_names, COUNT(source_names), s, field, &v, err);

    if (rc == 0 && out)
        *out = (sked_source) v;
    return rc;
}

int sked_spec_kind_parse(const char *s, const char *field, sked_spec_kind *out,
                         sked_error *err)
{
    int v = 0;
    int rc = parse_name(kind_names, COUNT(kind_names), s, field, &v, err);

    if (rc == 0 && out)
        *out = (sked_spec_kind) v;
    return rc;
}

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
    return sked__error_set(err, SKED_EINVAL, field, -1,
                           "give only one of cron, every and at (this is "
                           "a%s %s schedule)",
                           kind == SKED_SPEC_EVERY ? "n" : "",
                           sked_spec_kind_name(kind));
}

/* Check the one time spec S->kind names, and that the others are unset. */
static int check_spec(const sked_schedule *s, sked_error *err)
{
    sked_cron c;
    sked_error e;

    if ((int) s->kind < 0 || (int) s->kind > SKED_SPEC_AT)
        return sked__error_set(err, SKED_EINVAL, "kind", -1,
                               "must be cron, every or at");
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
                                   "one of cron, every and at is required");
        sked_error_clear(&e);
        if (sked_cron_parse(s->cron, &c, &e) != 0)
            return sked__error_set(err, SKED_EINVAL, "cron", e.pos, "%s%s%s",
                                   e.field, e.field[0] ? ": " : "", e.msg);
        return 0;
    case SKED_SPEC_EVERY:
        if (s->anchor != SKED_TIME_NONE && !instant_ok(s->anchor))
            return sked__error_set(err, SKED_EINVAL, "anchor", -1,
                                   "instant out of range");
        return check_dur(s->every, SKED_EVERY_MIN, SKED_EVERY_MAX, "every",
                         err);
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

/* Check the enum fields and the state fields. */
static int check_enums(const sked_schedule *s, sked_error *err)
{
    if ((int) s->dst < 0 || (int) s->dst > SKED_DST_CADENCE)
        return sked__error_set(err, SKED_EINVAL, "dst", -1,
                               "must be once or cadence");
    if ((int) s->catchup < 0 || (int) s->catchup >= (int) COUNT(catchup_names))
        return sked__error_set(err, SKED_EINVAL, "catchup", -1,
                               "must be latest, skip or all");
    if ((int) s->overlap < 0 || (int) s->overlap >= (int) COUNT(overlap_names))
        return sked__error_set(err, SKED_EINVAL, "overlap", -1,
                               "must be allow, skip, buffer_one, buffer_all "
                               "or cancel_other");
    if ((int) s->status < 0 || (int) s->status >= (int) COUNT(status_names))
        return sked__error_set(err, SKED_EINVAL, "status", -1,
                               "must be active, paused, disabled or done");
    if ((int) s->source < 0 || (int) s->source >= (int) COUNT(source_names))
        return sked__error_set(err, SKED_EINVAL, "source", -1,
                               "must be api or code");
    if (s->automatic_backfill != 0 && s->automatic_backfill != 1)
        return sked__error_set(err, SKED_EINVAL, "automatic_backfill", -1,
                               "must be true or false");
    if (s->allow_past != 0 && s->allow_past != 1)
        return sked__error_set(err, SKED_EINVAL, "allow_past", -1,
                               "must be true or false");
    return 0;
}

/* Check the catch-up policy, jitter, bounds and limits. */
static int check_limits(const sked_schedule *s, sked_error *err)
{
    int rc;

    if (s->catchup_max < 1 || s->catchup_max > SKED_CATCHUP_MAX_LIMIT)
        return sked__error_set(err, SKED_EINVAL, "catchup_max", -1,
                               "must be between 1 and %d",
                               SKED_CATCHUP_MAX_LIMIT);
    rc = check_dur(s->catchup_window, SKED_CATCHUP_WINDOW_MIN,
                   SKED_CATCHUP_WINDOW_MAX, "catchup_window", err);
    if (rc == 0)
        rc = check_dur(s->jitter, 0, SKED_JITTER_MAX, "jitter", err);
    if (rc != 0)
        return rc;
    if (s->start_at != SKED_TIME_NONE && !instant_ok(s->start_at))
        return sked__error_set(err, SKED_EINVAL, "start_at", -1,
                               "instant out of range");
    if (s->end_at != SKED_TIME_NONE && !instant_ok(s->end_at))
        return sked__error_set(err, SKED_EINVAL, "end_at", -1,
                               "instant out of range");
    if (s->start_at != SKED_TIME_NONE && s->end_at != SKED_TIME_NONE &&
        s->start_at >= s->end_at)
        return sked__error_set(err, SKED_EINVAL, "end_at", -1,
                               "must be after start_at");
    if (s->max_runs < 0)
        return sked__error_set(err, SKED_EINVAL, "max_runs", -1,
                               "must be 0 (no limit) or more");
    if (s->pause_after_failures < 0)
        return sked__error_set(err, SKED_EINVAL, "pause_after_failures", -1,
                               "must be 0 (never) or more");
    return 0;
}

int sked_schedule_validate(const sked_schedule *s, sked_tzdb *db,
                           sked_error *err)
{
    int rc;

    if (!s)
        return sked__error_set(err, SKED_EINVAL, NULL, -1, "no schedule");
    rc = sked__schedule_name_check(s->name, "name", err);
    if (rc == 0)
        rc = sked__schedule_name_check(s->workflow, "workflow", err);
    if (rc == 0)
        rc = check_spec(s, err);
    if (rc == 0)
        rc = check_enums(s, err);
    if (rc == 0)
        rc = check_limits(s, err);
    if (rc == 0 && s->queue)
        rc = sked__schedule_name_check(s->queue, "queue", err);
    if (rc == 0 && s->description &&
        strlen(s->description) > SKED_DESCRIPTION_MAX)
        rc = sked__error_set(err, SKED_EINVAL, "description", -1,
                             "longer than %d bytes", SKED_DESCRIPTION_MAX);
    if (rc == 0)
        rc = sked__schedule_context_check(s->context, "context", err);
    if (rc == 0)
        rc = check_timezone(s->timezone, db, err);
    return rc;
}
