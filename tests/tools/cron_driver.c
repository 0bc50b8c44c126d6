/* SPDX-License-Identifier: MIT */
/* Answer cron questions line by line, for the differential tests.
 *
 * Each input line is "EXPR<TAB>ZONE<TAB>DST<TAB>AFTER<TAB>N": an
 * expression, an IANA zone name, a DST policy ("once" or "cadence"), an
 * RFC 3339 instant and a count. Each output line holds the N occurrences
 * strictly after AFTER (with --prev: the N occurrences strictly before it,
 * latest first) in UTC RFC 3339, separated by spaces. When the search
 * stops early the occurrences found are followed by "NONE". When the
 * input is refused the line is "ERROR <code> <field> <pos> <message>",
 * with "-" for an empty field.
 *
 * Zones come from the system tz database, or $TZDIR when it is set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sked/sked.h"

#define LINE_MAX_BYTES 4096
#define MAX_COUNT      1000

typedef struct request {
    char *expr;
    char *zone;
    char *dst;
    char *after;
    int count;
} request;

/* Split LINE at tabs into REQ; return 0, or -1 when a column is missing. */
static int split_request(char *line, request *req)
{
    char *cols[5];
    char *p = line;

    line[strcspn(line, "\r\n")] = '\0';
    for (int i = 0; i < 5; i++) {
        cols[i] = p;
        p = strchr(p, '\t');
        if (p == NULL && i < 4)
            return -1;
        if (p != NULL)
            *p++ = '\0';
    }
    req->expr = cols[0];
    req->zone = cols[1];
    req->dst = cols[2];
    req->after = cols[3];
    req->count = atoi(cols[4]);
    if (req->count < 1 || req->count > MAX_COUNT)
        return -1;
    return 0;
}

static void print_error(int rc, const sked_error *err)
{
    const char *field = err->field[0] != '\0' ? err->field : "-";
    const char *msg = err->msg[0] != '\0' ? err->msg : sked_strerror(rc);

    printf("ERROR %s %s %d %s\n", sked_error_name(rc), field, err->pos, msg);
}

static void print_time(sked_time t, int first)
{
    char buf[SKED_TIME_STRLEN];

    if (sked_time_format(t, buf, sizeof buf) < 0)
        snprintf(buf, sizeof buf, "@%lld", (long long) t);
    printf(first ? "%s" : " %s", buf);
}

/* Print COUNT occurrences of C from T, forwards or backwards. */
static void print_occurrences(const sked_cron *c, const sked_tz *tz,
                              sked_dst dst, sked_time t, int count,
                              int backwards)
{
    for (int i = 0; i < count; i++) {
        sked_time found;
        int rc = backwards ? sked_cron_prev(c, tz, dst, t, &found)
                           : sked_cron_next(c, tz, dst, t, &found);

        if (rc != 0) {
            printf(i == 0 ? "NONE" : " NONE");
            break;
        }
        print_time(found, i == 0);
        t = found;
    }
    printf("\n");
}

/* Answer one request: parse everything it names, then search. */
static void answer(sked_tzdb *db, const request *req, int backwards)
{
    sked_error err;
    sked_cron cron;
    const sked_tz *tz;
    sked_dst dst;
    sked_time after;
    int rc;

    sked_error_clear(&err);
    rc = sked_cron_parse(req->expr, &cron, &err);
    if (rc == 0)
        rc = sked_tzdb_get(db, req->zone, &tz, &err);
    if (rc == 0)
        rc = sked_dst_parse(req->dst, &dst, &err);
    if (rc == 0)
        rc = sked_time_parse(req->after, &after, &err);
    if (rc != 0) {
        print_error(rc, &err);
        return;
    }
    print_occurrences(&cron, tz, dst, after, req->count, backwards);
}

int main(int argc, char **argv)
{
    char line[LINE_MAX_BYTES];
    sked_tzdb *db;
    sked_error err;
    int backwards = argc > 1 && strcmp(argv[1], "--prev") == 0;

    if (argc > 2 || (argc == 2 && !backwards)) {
        fprintf(stderr, "usage: cron_driver [--prev] < requests\n");
        return 2;
    }
    if (sked_tzdb_open(NULL, &db, &err) != 0) {
        fprintf(stderr, "cron_driver: %s\n", err.msg);
        return 1;
    }
    while (fgets(line, sizeof line, stdin) != NULL) {
        request req;

        if (split_request(line, &req) != 0) {
            printf("ERROR usage - -1 bad request line\n");
            continue;
        }
        answer(db, &req, backwards);
    }
    sked_tzdb_close(db);
    return 0;
}
