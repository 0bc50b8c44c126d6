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
#include "engine/answer.h"
#include "engine/request.h"
#include "remote_ops.h"

/* About how many requests a backfill drawn with a bar makes. */
#define CHUNKS 40

/* POST the backfill of (START, END) and add its counts to *res. */
static int one_request(remote *r, const char *path, sked_time start,
                       sked_time end, sked_backfill_result *res,
                       sked_error *err)
{
    const sked__backfill_request req = {start, end, false};
    json_t *body = sked__request_backfill(&req, err), *j = NULL;
    sked_backfill_result one;
    int rc;

    if (!body)
        return err->code;
    rc = remote_call(r, "POST", path, body, NULL, &j, err);
    json_decref(body);
    if (rc == 0 && sked__answer_backfill_read(j, &one) != 0)
        rc = remote_bad_answer("a backfill's counts", err);
    if (rc == 0) {
        res->created += one.created;
        res->skipped += one.skipped;
    }
    json_decref(j);
    return rc;
}

/* The occurrences of a schedule one by one, a page of its preview
 * (sked_schedule_preview, the rule the server fires by) at a time. */
typedef struct occ_iter {
    const sked_schedule *s;
    const sked_tz *tz;
    sked_time after; /* the last occurrence given */
    sked_preview page;
    size_t i;  /* the next of the page */
    bool last; /* the page is the last one */
} occ_iter;

/* Give the next occurrence before END in *at; false when there is none. */
static bool occ_next(occ_iter *it, sked_time end, sked_time *at)
{
    if (it->i == it->page.n) {
        sked_preview_done(&it->page);
        it->i = 0;
        if (it->last ||
            sked_schedule_preview(it->s, it->tz, it->after, SKED_PREVIEW_MAX,
                                  &it->page, NULL) != 0)
            return false;
        it->last = it->page.n < SKED_PREVIEW_MAX;
        if (it->page.n == 0)
            return false;
    }
    if (it->page.items[it->i].at >= end)
        return false;
    *at = it->after = it->page.items[it->i++].at;
    return true;
}

/* Count the occurrences of S in (START, END), stopping past the cap. */
static size_t count(const sked_schedule *s, const sked_tz *tz, sked_time start,
                    sked_time end)
{
    occ_iter it = {.s = s, .tz = tz, .after = start};
    sked_time at;
    size_t n = 0;

    while (n <= SKED_BACKFILL_MAX && occ_next(&it, end, &at))
        n++;
    sked_preview_done(&it.page);
    return n;
}

/* Backfill in chunks of about TOTAL / CHUNKS occurrences. */
static int chunked(remote *r, const char *path, const sked_schedule *s,
                   const sked_tz *tz, sked_time start, sked_time end,
                   size_t total, sked_progress_fn progress, void *ctx,
                   sked_backfill_result *res, sked_error *err)
{
    occ_iter it = {.s = s, .tz = tz, .after = start};
    size_t per = total / CHUNKS + 1, done = 0;
    sked_time lo = start, t = start;
    int rc = 0;

    progress(ctx, 0, total);
    while (done < total && rc == 0) {
        size_t k = 0;

        while (k < per && done + k < total && occ_next(&it, end, &t))
            k++;
        if (k == 0)
            break;
        done += k;
        rc = one_request(r, path, lo, done == total ? end : t + 1, res, err);
        lo = t + 1;
        if (rc == 0)
            progress(ctx, done, total);
    }
    sked_preview_done(&it.page);
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
    char *path = remote_path("/api/v1/schedules", name, "/backfill");
    sked_schedule s;
    size_t total;
    int rc;

    if (!path)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    memset(res, 0, sizeof *res);
    sked_schedule_init(&s);
    rc = progress ? remote_schedule_get(r, name, &s, err) : 0;
    total = progress && rc == 0
                ? count(&s, schedule_zone_of(tzdb, &s), start, end)
                : 0;
    if (rc == 0 && (total == 0 || total > SKED_BACKFILL_MAX))
        rc = one_request(r, path, start, end, res, err);
    else if (rc == 0)
        rc = chunked(r, path, &s, schedule_zone_of(tzdb, &s), start, end, total,
                     progress, ctx, res, err);
    sked_schedule_done(&s);
    free(path);
    return rc;
}
