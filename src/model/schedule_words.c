/* SPDX-License-Identifier: MIT */
/* A schedule in words (schedule_words.h). */
#include "model/schedule_words.h"

#include <stdbool.h>
#include <stdio.h>

#include "base/clock.h"
#include "model/schedule.h"
#include "model/schedule_occ.h"
#include "sked/cron.h"

/* Append to BUF (SIZE) the names of LIST, "a, b and c". */
static size_t put_names(char *buf, size_t size, size_t n, const char *list)
{
    char name[SKED_NAME_MAX + 1];
    size_t count = 0;

    while (sked__schedule_cal_at(list, count, name, sizeof name) > 0)
        count++;
    for (size_t i = 0; i < count && n < size; i++) {
        (void) sked__schedule_cal_at(list, i, name, sizeof name);
        int w = snprintf(buf + n, size - n, "%s%s",
                         i == 0           ? ""
                         : i + 1 == count ? " and "
                                          : ", ",
                         name);
        n += w > 0 ? (size_t) w : 0;
    }
    return n < size ? n : size - 1;
}

/* S's calendars in words: "Excluding the days of us-federal; on an
 * excluded day, the next business day"; null when it has none. */
static json_t *calendar_words(const sked_schedule *s)
{
    static const char *const moves[] = {
        "", "; on an excluded day, the next business day",
        "; on an excluded day, the previous business day"};
    bool ex = s->exclude && *s->exclude, only = s->only && *s->only;
    char buf[2 * SKED_SCHEDULE_CALENDARS_MAX * (SKED_NAME_MAX + 8) + 128];
    size_t n = 0;

    if (!ex && !only)
        return json_null();
    if (only) {
        n += (size_t) snprintf(buf, sizeof buf, "Only on the days of ");
        n = put_names(buf, sizeof buf, n, s->only);
    }
    if (ex) {
        n += (size_t) snprintf(buf + n, sizeof buf - n, "%s",
                               only ? ", excluding those of "
                                    : "Excluding the days of ");
        n = put_names(buf, sizeof buf, n, s->exclude);
    }
    if ((int) s->on_excluded > 0 && s->on_excluded <= 2 && ex)
        (void) snprintf(buf + n, sizeof buf - n, "%s", moves[s->on_excluded]);
    return json_string(buf);
}

/* The words of S's cron expression, without the zone (the timezone field
 * names it), or null: another spec, or an expression that does not parse
 * (a stored row is valid; an unchecked one is not explained). */
static json_t *cron_words(const sked_schedule *s)
{
    char words[SKED_CRON_EXPLAIN_MAX];
    sked_cron c;
    sked_error err = {0};

    if (s->kind != SKED_SPEC_CRON || !s->cron ||
        sked_cron_parse(s->cron, &c, &err) != 0 ||
        sked_cron_explain(&c, NULL, words, sizeof words) < 0)
        return json_null();
    return json_string(words);
}

/* The words of S's RRULE, or null: another spec, or a rule that does not
 * load (its zone gone). A schedule not yet created starts now. */
static json_t *rrule_words(const sked_schedule *s)
{
    char words[SKED__RRULE_WORDS_MAX];

    if (s->kind != SKED_SPEC_RRULE ||
        sked__occ_rrule_words(s, sked__clock_now(NULL), words, sizeof words) <
            0)
        return json_null();
    return json_string(words);
}

json_t *sked__schedule_words(const sked_schedule *s, const sked__sfield *f)
{
    if (f == &sked__sfields[SKED__SF_rrule_words])
        return rrule_words(s);
    if (f == &sked__sfields[SKED__SF_calendar_words])
        return calendar_words(s);
    return cron_words(s);
}
