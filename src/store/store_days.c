/* SPDX-License-Identifier: MIT */
/* The calendars of the decisions (store_int.h): the store keeps one
 * calendar book (model/calbook.h) of every calendar as last read, and
 * reads them again when their state in the database — the count of
 * calendar changes kept in meta, one look — is not the book's. So a
 * calendar changed by any server is used from the next decision on,
 * while a decision costs no read of the calendars themselves. */
#include <stdlib.h>

#include "base/error.h"
#include "model/calbook.h"
#include "store/store_int.h"

static bool has_calendars(const sked_schedule *s)
{
    return (s->exclude && *s->exclude) || (s->only && *s->only);
}

/* The current book into *out (a reference), read in TX when stale. */
static int current_book(sked_store *st, sked__tx *tx, sked__calbook **out,
                        sked_error *err)
{
    sked__days_cache *d = &st->days;
    sked_calendar *all = NULL;
    sked__calbook *b = NULL;
    int64_t stamp[2];
    size_t n = 0;
    int rc = st->ops->calendars_stamp(tx, stamp, err);

    if (rc != 0)
        return rc;
    pthread_mutex_lock(&d->lock);
    if (d->book && d->stamp[0] == stamp[0] && d->stamp[1] == stamp[1]) {
        sked__calbook_hold(d->book);
        *out = d->book;
        pthread_mutex_unlock(&d->lock);
        return 0;
    }
    pthread_mutex_unlock(&d->lock);
    /* Read outside the lock; the last reader to finish keeps its book. */
    if ((rc = sked__store_calendars_read(st, tx, NULL, &all, &n, err)) != 0)
        return rc;
    if ((rc = sked__calbook_new(all, n, &b, err)) != 0)
        return rc;
    pthread_mutex_lock(&d->lock);
    sked__calbook_release(d->book);
    d->book = b;
    d->stamp[0] = stamp[0];
    d->stamp[1] = stamp[1];
    sked__calbook_hold(b);
    pthread_mutex_unlock(&d->lock);
    *out = b;
    return 0;
}

int sked__store_days_with(sked_store *st, sked__tx *tx, const sked_schedule *s,
                          sked__calbook **book, sked__occ_days *out,
                          sked_error *err)
{
    int rc;

    *out = (sked__occ_days){NULL, NULL, s->on_excluded};
    if (!has_calendars(s))
        return 0;
    if (!*book && (rc = current_book(st, tx, book, err)) != 0)
        return rc;
    return sked__calbook_days(*book, s, out, err);
}

int sked__store_days(sked_store *st, sked__tx *tx, const sked_schedule *s,
                     sked__calbook **book, sked__occ_days *out, sked_error *err)
{
    int rc;

    *book = NULL;
    if ((rc = sked__store_days_with(st, tx, s, book, out, err)) != 0) {
        sked__calbook_release(*book);
        *book = NULL;
    }
    return rc;
}

void sked__store_days_done(sked_store *st)
{
    sked__calbook_release(st->days.book);
    st->days.book = NULL;
}

struct read_arg {
    const sked_schedule *s;
    sked__calbook *book;
    sked__occ_days days;
};

static int read_tx(sked_store *st, sked__tx *tx, void *arg, sked_error *err)
{
    struct read_arg *a = arg;

    sked__calbook_release(a->book); /* from an attempt retried */
    a->book = NULL;
    return sked__store_days(st, tx, a->s, &a->book, &a->days, err);
}

int sked__store_days_read(sked_store *st, const sked_schedule *s,
                          sked__calbook **book, sked__occ_days *out,
                          sked_error *err)
{
    struct read_arg a = {s, NULL, {NULL, NULL, s->on_excluded}};
    int rc;

    *book = NULL;
    *out = a.days;
    if (!has_calendars(s))
        return 0;
    rc = sked__store_run_tx(st, SKED__TX_READ, read_tx, &a, err);
    if (rc != 0) {
        sked__calbook_release(a.book);
        return rc;
    }
    *book = a.book;
    *out = a.days;
    return 0;
}
