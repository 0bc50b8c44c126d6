/* SPDX-License-Identifier: MIT */
/* Answer RRULE questions line by line, for the differential test.
 *
 * Each input line is "VALUE<TAB>DEFAULT<TAB>N<TAB>AFTERS<TAB>BEFORES": an
 * rrule value with its newlines written "\n", the default start, a count,
 * and comma-separated wall times (YYYYMMDDTHHMMSS, like DEFAULT). The
 * value is parsed once and asked in the order given, so the cursor is
 * moved back and forth. For each AFTER the output lists the N occurrences
 * >= it; for each BEFORE the N occurrences <= it, latest first; lists are
 * tab-separated, "NONE" ends one that stops early. A UTC UNTIL is applied
 * as if the zone were UTC (wall time = UTC). A refused value prints
 * "ERROR <code> <pos> <message>". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cron/rrule.h"
#include "sked/sked.h"
#include "time/civil.h"

#define LINE_MAX_BYTES 8192
#define MAX_COUNT      100

/* Read "YYYYMMDDTHHMMSS" into *out; false when malformed. */
static int read_wall(const char *s, int64_t *out)
{
    int y, mo, d, h, mi, se;

    if (strlen(s) != 15 ||
        sscanf(s, "%4d%2d%2dT%2d%2d%2d", &y, &mo, &d, &h, &mi, &se) != 6)
        return 0;
    *out = sked__days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
    return 1;
}

static void print_wall(int64_t t)
{
    int64_t y, sod = sked__floor_mod(t, 86400);
    int mo, d;

    sked__civil_from_days(sked__floor_div(t, 86400), &y, &mo, &d);
    printf("%04lld%02d%02dT%02d%02d%02d", (long long) y, mo, d,
           (int) (sod / 3600), (int) (sod / 60 % 60), (int) (sod % 60));
}

/* Return whether wall second T passes R's UTC UNTIL, read in UTC. */
static int past_until(const sked__rrule *r, int64_t t)
{
    sked_time u = sked__rrule_until_utc(r);

    return u != SKED_TIME_NONE && t * SKED_USEC_PER_SEC > u;
}

/* Print N occurrences of R from T: forwards, or backwards when BACK. */
static void print_list(const sked__rrule *r, int64_t t, int n, int back)
{
    for (int i = 0; i < n; i++) {
        int64_t found;
        int rc = back ? sked__rrule_civil_prev(r, t, &found)
                      : sked__rrule_civil_next(r, t, &found);
        while (rc == 0 && back && past_until(r, found))
            rc = sked__rrule_civil_prev(r, found - 1, &found);
        if (rc == 0 && !back && past_until(r, found))
            rc = SKED_ENOTFOUND;
        if (rc != 0) {
            printf(i ? " %s" : "%s",
                   rc == SKED_ENOTFOUND ? "NONE" : sked_error_name(rc));
            break;
        }
        if (i)
            putchar(' ');
        print_wall(found);
        t = back ? found - 1 : found + 1;
    }
}

/* Ask R for each comma-separated time in LIST. */
static void answer_list(const sked__rrule *r, char *list, int n, int back)
{
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        int64_t t;
        putchar('\t');
        if (!read_wall(tok, &t))
            printf("BADTIME");
        else
            print_list(r, t, n, back);
    }
}

/* Turn the two characters "\n" into newlines, in place. */
static void unescape(char *s)
{
    char *w = s;

    for (; *s; s++) {
        if (s[0] == '\\' && (s[1] == 'n' || s[1] == 'r'))
            *w++ = s[1] == 'n' ? '\n' : '\r', s++;
        else
            *w++ = *s;
    }
    *w = '\0';
}

static void answer(char *line)
{
    char *cols[5], *p = line;
    int64_t def;
    sked__rrule *r;
    sked_error err;
    int rc;

    line[strcspn(line, "\r\n")] = '\0';
    for (int i = 0; i < 5; i++) {
        cols[i] = p;
        if ((p = strchr(p, '\t')) == NULL && i < 4) {
            printf("ERROR usage -1 bad request line\n");
            return;
        }
        if (p)
            *p++ = '\0';
    }
    unescape(cols[0]);
    if (!read_wall(cols[1], &def) || atoi(cols[2]) < 1 ||
        atoi(cols[2]) > MAX_COUNT) {
        printf("ERROR usage -1 bad default start or count\n");
        return;
    }
    if ((rc = sked__rrule_parse(cols[0], def, &r, &err)) != 0) {
        printf("ERROR %s %d %s\n", sked_error_name(rc), err.pos, err.msg);
        return;
    }
    printf("OK");
    answer_list(r, cols[3], atoi(cols[2]), 0);
    answer_list(r, cols[4], atoi(cols[2]), 1);
    putchar('\n');
    sked__rrule_free(r);
}

int main(void)
{
    static char line[LINE_MAX_BYTES];

    while (fgets(line, sizeof line, stdin) != NULL) {
        answer(line);
        fflush(stdout);
    }
    return 0;
}
