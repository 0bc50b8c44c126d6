/* SPDX-License-Identifier: MIT */
/* Expand day-calendar rules line by line, for the differential test
 * against python-dateutil (tests/oracle/test_daycal_rrule.sh).
 *
 * Each input line is one rule as a calendar's rules[0] takes it
 * ("DTSTART=YYYYMMDD;FREQ=…"). Each output line lists the days of the
 * calendar built from it, as day numbers from 1970-01-01, separated by
 * spaces, or is "ERROR <code> <field> <pos> <message>" when it is
 * refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cron/daycal.h"

#define LINE_MAX_BYTES 4096

static void answer(const char *rule)
{
    const char *rules[1] = {rule};
    sked__daycal_spec spec = {.name = "oracle", .rules = rules, .nrules = 1};
    sked__daycal *c = NULL;
    sked_error err;
    const char *sep = "";
    int rc;

    rc = sked__daycal_build(&spec, NULL, NULL, &c, &err);
    if (rc != 0) {
        printf("ERROR %d %s %d %s\n", rc, err.field[0] ? err.field : "-",
               err.pos, err.msg);
        return;
    }
    for (int64_t d = 0; d <= SKED__DAYCAL_LAST_DAY; d++) {
        if (sked__daycal_has(c, d)) {
            printf("%s%lld", sep, (long long) d);
            sep = " ";
        }
    }
    putchar('\n');
    sked__daycal_free(c);
}

int main(void)
{
    char line[LINE_MAX_BYTES];

    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        answer(line);
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
