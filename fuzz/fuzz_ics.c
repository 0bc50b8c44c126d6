/* SPDX-License-Identifier: MIT */
/* Fuzz target: the day calendars' .ics reader and rule expansion. The
 * bytes are read as an .ics file, and the bytes before the first NUL (all
 * of them when there is none) as a rule. A refusal must name its field
 * and a position within the input (for an .ics, a line); a calendar built
 * must answer its searches consistently. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "cron/daycal.h"
#include "cron/daycal_rule.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_error(int rc, const sked_error *err, const char *field,
                        long max_pos)
{
    if (rc != SKED_EINVAL && rc != SKED_ETOOBIG && rc != SKED_ERANGE)
        abort();
    if (strcmp(err->field, field) != 0 || err->msg[0] == '\0')
        abort();
    if (err->pos < -1 || err->pos > max_pos)
        abort();
    if (sked__utf8_len(err->msg, strlen(err->msg)) == 0)
        abort();
}

/* Check that next/prev business agree with business() around DAY. */
static void check_searches(const sked__daycal *c, int64_t day)
{
    int64_t next, prev;

    if (sked__daycal_next_business(c, day, &next) == 0) {
        if (next <= day || !sked__daycal_business(c, next))
            abort();
        if (sked__daycal_prev_business(c, next, &prev) == 0 && prev >= next)
            abort();
        for (int64_t d = day + 1; d < next && d < day + 400; d++)
            if (sked__daycal_business(c, d))
                abort();
    }
    if (sked__daycal_last_business_of_month(c, day, &prev) == 0 &&
        !sked__daycal_business(c, prev))
        abort();
}

static void build_and_check(const sked__daycal_spec *spec, const char *field,
                            long max_pos)
{
    sked__daycal *c = NULL;
    sked_error err;
    int rc;

    sked_error_clear(&err);
    rc = sked__daycal_build(spec, NULL, NULL, &c, &err);
    if (rc != 0) {
        check_error(rc, &err, field, max_pos);
        return;
    }
    for (int64_t d = 0; d <= SKED__DAYCAL_LAST_DAY; d += 7919) {
        if (sked__daycal_business(c, d) && sked__daycal_has(c, d))
            abort();
        check_searches(c, d);
    }
    sked__daycal_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *) data;
    const uint8_t *nul = memchr(data, '\0', size);
    size_t rule_len = nul ? (size_t) (nul - data) : size, lines = 1;
    char *rule;
    const char *rules[1];
    sked__daycal_spec spec = {.name = "fuzz", .ics = text, .ics_len = size};

    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    build_and_check(&spec, "ics", (long) lines);
    if (rule_len > 4 * SKED__DAYCAL_RULE_MAX)
        return 0;
    rule = malloc(rule_len + 1);
    if (!rule)
        return 0;
    memcpy(rule, data, rule_len);
    rule[rule_len] = '\0';
    rules[0] = rule;
    spec = (sked__daycal_spec){.rules = rules,
                               .nrules = 1,
                               .observed = SKED__OBSERVED_NEAREST_WEEKDAY};
    build_and_check(&spec, "rules[0]", (long) rule_len);
    free(rule);
    return 0;
}
