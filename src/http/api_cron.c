/* SPDX-License-Identifier: MIT */
/* The cron route of the API (docs/api.md "Cron"): an expression in
 * words and its next occurrences in a zone, with no schedule behind it,
 * what "sked cron explain" and "sked cron next" print. The occurrences
 * are the objects of a schedule's preview (engine/answer.h), computed by
 * the engine in its zone database (sked_engine_cron_preview).
 *
 * Status codes: 400 for a malformed query parameter (n that is not a
 * number, after that is not an instant), 422 for a value out of range
 * or not understood: an expression that does not parse (field "expr",
 * the parser's message and byte), an unknown zone ("timezone"), n above
 * the most a preview holds, a dst sked_dst_parse refuses. */
#include "engine/answer.h"
#include "engine/request.h"
#include "http/http_int.h"
#include "sked/sked.h"

/* Put the words of Q's expression into *o as "description", as "sked
 * cron explain" prints them: with the zone, UTC unless named. */
static int add_description(const sked__cron_query *q, json_t *o,
                           sked_error *err)
{
    char words[SKED_CRON_EXPLAIN_MAX];
    sked_cron cron;
    int rc;

    if ((rc = sked_cron_parse(q->expr, &cron, err)) != 0 ||
        (rc = sked_cron_explain(&cron, q->timezone ? q->timezone : "UTC", words,
                                sizeof words)) < 0)
        return sked__error_set(err, rc, "expr", -1,
                               "cannot explain the expression: %s",
                               sked_strerror(rc));
    if (json_object_set_new(o, "description", json_string(words)) != 0)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, NULL);
    return 0;
}

/* The answer to Q, of the preview P: {"expr", "timezone", "description",
 * "occurrences"}, into *out. */
static int cron_answer(const sked__cron_query *q, const sked_preview *p,
                       json_t **out, sked_error *err)
{
    json_t *occ = sked__answer_occurrences(p);
    json_t *o = occ ? json_pack("{s:s, s:s}", "expr", q->expr, "timezone",
                                q->timezone ? q->timezone : "UTC")
                    : NULL;
    int rc = o ? add_description(q, o, err) : SKED_ENOMEM;

    if (rc == 0 && json_object_update(o, occ) != 0)
        rc = SKED_ENOMEM;
    json_decref(occ);
    if (rc != 0) {
        json_decref(o);
        return err->code ? err->code : sked__error_set(err, rc, NULL, -1, NULL);
    }
    *out = o;
    return 0;
}

static int cron_explain(const http_req *req, http_resp *resp)
{
    sked_preview p = {NULL, 0};
    sked__cron_query q;
    sked_error err;
    json_t *o = NULL;
    int rc;

    sked_error_clear(&err);
    rc = sked__query_cron_read(sked__http_query_get, (void *) req, &q, &err);
    if (rc == 0)
        rc = sked_engine_cron_preview(req->engine, q.expr, q.timezone, q.dst,
                                      q.after, (size_t) q.n, &p, &err);
    if (rc == 0)
        rc = cron_answer(&q, &p, &o, &err);
    sked_preview_done(&p);
    if (rc != 0)
        return sked__http_fail(resp, rc, &err);
    return sked__http_json(resp, 200, o);
}

const http_route sked__api_cron_routes[] = {
    {"GET", "/api/v1/cron/explain", cron_explain,
     "Describe a cron expression in words and list its next occurrences in "
     "a zone (?expr=E&timezone=TZ&n=N&after=T&dst=P, P once, cadence or "
     "GAP,FOLD such as skip,both), marked "
     "across DST changes",
     200, SKED_SCOPE_READ},
    {0},
};
