/* SPDX-License-Identifier: MIT */
/* The insert and update of a schedule row (schedule_sql.h), written from
 * the field table when first asked for, then kept for the process: the
 * back-ends cache statements by the address of their text. */
#include "store/schedule_sql.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include "base/error.h"

/* Room for the longest statement: about 30 bytes a column. */
#define SQL_MAX (64 * SKED__SF_COUNT + 256)

/* The update's WHERE is parameter 1: the key is the table's first row. */
_Static_assert(SKED__SF_name == 0, "the key is the first field");

/* Tell whether the field F is a parameter of the insert or update. */
static bool is_param(const sked__sfield *f, bool update)
{
    return f->sql && !(update && f->role == SKED__SR_CREATED);
}

static char sql[2][2][SQL_MAX]; /* [mark is '$'][update] */
static int nparams[2];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Append to BUF (at *len) the text of FMT, as snprintf would. */
static void put(char *buf, size_t *len, const char *fmt, ...)
    SKED__PRINTF(3, 4);
static void put(char *buf, size_t *len, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (*len >= SQL_MAX)
        return;
    va_start(ap, fmt);
    n = vsnprintf(buf + *len, SQL_MAX - *len, fmt, ap);
    va_end(ap);
    if (n > 0)
        *len += (size_t) n;
}

/* Write the statement of MARK and UPDATE into BUF; return its parameter
 * count. */
static int build_one(char *buf, char mark, bool update)
{
    size_t len = 0;
    int k = 0;

    if (update)
        put(buf, &len, "UPDATE schedules SET ");
    else
        put(buf, &len,
            "INSERT INTO schedules (" SKED__SCHEDULE_COLUMNS ") VALUES (");
    for (size_t i = 0; i < SKED__SF_COUNT; i++) {
        const sked__sfield *f = &sked__sfields[i];

        if (!is_param(f, update))
            continue;
        k++;
        if (!update)
            put(buf, &len, "%s%c%d", k > 1 ? ", " : "", mark, k);
        else if (f->role != SKED__SR_KEY) /* the key is the WHERE's */
            put(buf, &len, "%s%s = %c%d", k > 2 ? ", " : "", f->sql, mark, k);
    }
    if (update)
        put(buf, &len, " WHERE %s = %c1", sked__sfields[SKED__SF_name].sql,
            mark);
    else
        put(buf, &len, ")");
    return k;
}

static void build(void)
{
    for (int update = 0; update < 2; update++) {
        nparams[update] = build_one(sql[0][update], '?', update);
        (void) build_one(sql[1][update], '$', update);
    }
}

const char *sked__schedule_sql(char mark, bool update)
{
    pthread_once(&once, build);
    return sql[mark == '$'][update];
}

int sked__schedule_sql_params(bool update)
{
    pthread_once(&once, build);
    return nparams[update];
}

int sked__schedule_params(const sked_schedule *s, bool update, sked__sval *v)
{
    int k = 0;

    for (size_t i = 0; i < SKED__SF_COUNT; i++)
        if (is_param(&sked__sfields[i], update))
            v[k++] = sked__sf_store_get(s, &sked__sfields[i]);
    return k;
}

int sked__schedule_read(sked__schedule_col_fn get, void *ctx,
                        sked_schedule *out, int *bad_col)
{
    sked_schedule r;
    int col = 0, rc = 0;

    sked_schedule_init(&r);
    for (size_t i = 0; rc == 0 && i < SKED__SF_COUNT; i++) {
        const sked__sfield *f = &sked__sfields[i];
        sked__sval v;

        if (!sked__sf_stored(f))
            continue;
        *bad_col = col;
        if ((rc = get(ctx, col++, sked__sf_stored_int(f), &v)) == 0)
            rc = sked__sf_store_set(&r, f, &v);
    }
    if (rc != 0) {
        sked_schedule_done(&r);
        return rc;
    }
    *out = r;
    return 0;
}

int sked__schedule_taken(const char *name, sked_error *err)
{
    return sked__error_set(err, SKED_ECONFLICT, "name", -1,
                           "a schedule named \"%.100s\" already exists", name);
}

int sked__schedule_missing(const char *name, sked_error *err)
{
    return sked__error_set(err, SKED_ENOTFOUND, "name", -1,
                           "no schedule named \"%.100s\"", name);
}
