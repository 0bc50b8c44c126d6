/* SPDX-License-Identifier: MIT */
/* A backfill over the API (remote_ops.h). Without a progress bar it is
 * one request. With one, the range is cut into chunks at occurrences
 * computed here from the schedule read over the API: a chunk is the open
 * interval (lo, hi) where hi is one of its occurrences + 1 µs, so that
 * the next chunk, starting at hi, leaves that occurrence out; the bar
 * moves after each chunk. The server decides everything else: when the
 * count here is over the cap, the whole range goes in one request, so
 * that the refusal is the server's, word for word. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "model/schedule.h"
#include "remote_ops.h"

/* About how many requests a backfill drawn with a bar makes. */
#define CHUNKS 40

/* POST the backfill of (START, END) and add its counts to *res. */
static int one_request(remote *r, const char *path, sked_time start,
                       sked_time end, sked_backfill_result *res,
                       sked_error *err)
{
    char a[SKED_TIME_STRLEN], b[SKED_TIME_STRLEN];
    json_t *body, *j = NULL;
    int rc;

    if (sked_time_format(start, a, sizeof a) < 0 ||
        sked_time_format(end, b, sizeof b) < 0)
        return sked__error_set(err, SKED_ERANGE, "end", -1,
                               "instant out of range");
    if (!(body = json_pack("{s:s, s:s}", "start", a, "end", b)))
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    rc = remote_call(r, "POST", path, body, NULL, &j, err);
    json_decref(body);
    if (rc == 0) {
        res->created +=
            (size_t) json_integer_value(json_object_get(j, "created"));
        res->skipped +=
            (size_t) json_integer_value(json_object_get(j, "skipped"));
    }
    json_decref(j);
    return rc;
}

/* The zone of S, UTC when it has none or it does not load here. */
static const sked_tz *zone(sked_tzdb *db, const sked_schedule *s)
{
    const sked_tz *tz = NULL;

    if (!s->timezone || !db || sked_tzdb_get(db, s->timezone, &tz, NULL) < 0)
        return sked_tz_utc();
    return tz;
}

/* Count the occurrences of S in (START, END), stopping past the cap. */
static size_t count(const sked_schedule *s, const sked_tz *tz, sked_time start,
                    sked_time end)
{
    sked_time t = start, at;
    size_t n = 0;

    while (n <= SKED_BACKFILL_MAX &&
           sked__schedule_next_fire(s, tz, t, &at) == 0 && at < end) {
        n++;
        t = at;
    }
    return n;
}

/* Backfill in chunks of about TOTAL / CHUNKS occurrences. */
static int chunked(remote *r, const char *path, const sked_schedule *s,
                   const sked_tz *tz, sked_time start, sked_time end,
                   size_t total, sked_progress_fn progress, void *ctx,
                   sked_backfill_result *res, sked_error *err)
{
    size_t per = total / CHUNKS + 1, done = 0;
    sked_time lo = start, t = start, at;
    int rc = 0;

    progress(ctx, 0, total);
    while (done < total && rc == 0) {
        size_t k = 0;

        while (k < per && done + k < total &&
               sked__schedule_next_fire(s, tz, t, &at) == 0 && at < end) {
            t = at;
            k++;
        }
        if (k == 0)
            break;
        done += k;
        rc = one_request(r, path, lo, done == total ? end : t + 1, res, err);
        lo = t + 1;
        if (rc == 0)
            progress(ctx, done, total);
    }
    /* Occurrences computed here may miss some the server has: the rest. */
    if (rc == 0 && done < total)
        rc = one_request(r, path, lo, end, res, err);
    return rc;
}

int remote_schedule_backfill(remote *r, sked_tzdb *tzdb, const char *name,
                             sked_time start, sked_time end,
                             sked_progress_fn progress, void *ctx,
                             sked_backfill_result *res, sked_error *err)
{
    char *esc = remote_escape(name), *path = NULL;
    sked_schedule s;
    size_t total;
    int rc;

    if (!esc || !(path = cli_format("/api/v1/schedules/%s/backfill", esc))) {
        free(esc);
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    }
    free(esc);
    memset(res, 0, sizeof *res);
    sked_schedule_init(&s);
    rc = progress ? remote_schedule_get(r, name, &s, err) : 0;
    total = progress && rc == 0 ? count(&s, zone(tzdb, &s), start, end) : 0;
    if (rc == 0 && (total == 0 || total > SKED_BACKFILL_MAX))
        rc = one_request(r, path, start, end, res, err);
    else if (rc == 0)
        rc = chunked(r, path, &s, zone(tzdb, &s), start, end, total, progress,
                     ctx, res, err);
    sked_schedule_done(&s);
    free(path);
    return rc;
}
