/* SPDX-License-Identifier: MIT */
/* The iCalendar (.ics, RFC 5545) reader of the day calendars.
 *
 * The plan: refuse files over SKED__ICS_MAX and bytes that are not UTF-8
 * (naming the line), unfold the content lines (a line that starts with a
 * space or a tab continues the one before; CRLF or LF), keeping for each
 * logical line the number of the physical line it starts on, since every
 * error names a line and libical's parser counts none. Then follow
 * BEGIN/END, which must nest, and read each VEVENT once it ends: its
 * DTSTART (required), DTEND, RRULE (daycal_rule.c), RDATE and EXDATE.
 * Other components and properties are skipped.
 *
 * Words: an event's *starts* are its occurrences' first days (DTSTART,
 * the RRULE's days, RDATE's), EXDATE removes starts (RFC 5545 3.8.5.1),
 * and an all-day event whose DTEND is n days after DTSTART covers n days
 * from each start. A DATE-TIME counts as the date written in it (a UTC
 * time its UTC date): the reader knows no zone. */
#include "cron/ics.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/utf8.h"
#include "cron/daycal.h"

/* How deep components may nest (VCALENDAR > VEVENT > VALARM is 3). */
#define MAX_NESTING 16
/* How many days one all-day event may cover. */
#define MAX_EVENT_DAYS 366

struct line {
    char *s; /* in the unfolded copy, NUL-terminated */
    int no;  /* 1-based physical line it starts on */
};

/* One content line split: NAME;PARAMS:VALUE. */
struct prop {
    const char *name, *params, *value;
    size_t name_len, params_len, value_len;
};

/* The starts of the event being read, as a bitset over the range, with
 * the span of words touched so that clearing it costs what it held. */
struct starts {
    uint64_t *w;
    size_t lo, hi;
};

static int ics_error(sked_error *err, int code, int line, const char *fmt, ...)
    SKED__PRINTF(4, 5);

static int ics_error(sked_error *err, int code, int line, const char *fmt, ...)
{
    char msg[SKED_ERROR_MSG_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sked__error_set(err, code, "ics", line, "line %d: %s", line, msg);
}

/* Refuse a byte that is not UTF-8 or a NUL, naming its line. */
static int check_utf8(const char *text, size_t len, sked_error *err)
{
    int line = 1;
    size_t i = 0, n;

    while (i < len) {
        n = sked__utf8_len(text + i, len - i);
        if (n == 0 || text[i] == '\0')
            return ics_error(err, SKED_EINVAL, line,
                             "not UTF-8 text (byte %zu)", i);
        line += text[i] == '\n';
        i += n;
    }
    return 0;
}

/* Unfold TEXT into COPY (LEN + 1 bytes), listing its logical lines. */
static size_t unfold(const char *text, size_t len, char *copy,
                     struct line *lines)
{
    size_t i = 0, o = 0, n = 0;
    int no = 0;

    while (i < len) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t) (nl - text) : len, e = end;

        no++;
        if (e > i && text[e - 1] == '\r')
            e--;
        if (n > 0 && (text[i] == ' ' || text[i] == '\t')) {
            o--; /* drop the NUL: the line goes on */
            i++;
        } else if (e > i) {
            lines[n].s = copy + o;
            lines[n++].no = no;
        } else {
            i = end + 1; /* an empty line: nothing */
            continue;
        }
        memcpy(copy + o, text + i, e - i);
        o += e - i;
        copy[o++] = '\0';
        i = end + 1;
    }
    return n;
}

/* Split the line S into a prop; false when it has no NAME and ':'. */
static bool split_prop(const char *s, struct prop *p)
{
    bool quoted = false;
    size_t i = 0;

    while ((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
           (s[i] >= '0' && s[i] <= '9') || s[i] == '-')
        i++;
    p->name = s;
    p->name_len = i;
    if (i == 0 || (s[i] != ';' && s[i] != ':'))
        return false;
    p->params = s + i;
    for (; s[i] && (quoted || s[i] != ':'); i++)
        if (s[i] == '"')
            quoted = !quoted;
    if (s[i] != ':')
        return false;
    p->params_len = (size_t) (s + i - p->params);
    p->value = s + i + 1;
    p->value_len = strlen(p->value);
    return true;
}

static bool name_is(const struct prop *p, const char *w)
{
    return strlen(w) == p->name_len &&
           strncasecmp(p->name, w, p->name_len) == 0;
}

static bool value_is(const struct prop *p, const char *w)
{
    return strlen(w) == p->value_len &&
           strncasecmp(p->value, w, p->value_len) == 0;
}

/* Read one DATE or DATE-TIME (N bytes at S) into *day; *is_date says
 * which it was. A PERIOD (start/end) counts as its start. */
static bool read_date(const char *s, size_t n, int64_t *day, bool *is_date)
{
    const char *slash = memchr(s, '/', n);
    size_t i;

    if (slash)
        n = (size_t) (slash - s);
    if (sked__daycal_basic_date(s, n, day) != 0)
        return false;
    *is_date = n == 8;
    if (n == 8)
        return true;
    if (n < 15 || n > 16 || s[8] != 'T' || (n == 16 && s[15] != 'Z'))
        return false;
    for (i = 9; i < 15; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

static void mark_start(void *ctx, int64_t day)
{
    struct starts *st = ctx;
    size_t w;

    if (day < 0 || day > SKED__DAYCAL_LAST_DAY)
        return;
    w = (size_t) (day >> 6);
    st->w[w] |= UINT64_C(1) << (day & 63);
    if (w < st->lo)
        st->lo = w;
    if (w > st->hi)
        st->hi = w;
}

static void unmark_start(struct starts *st, int64_t day)
{
    if (day >= 0 && day <= SKED__DAYCAL_LAST_DAY)
        st->w[day >> 6] &= ~(UINT64_C(1) << (day & 63));
}

/* What pass 1 over an event finds. */
struct event {
    int64_t start, end;
    bool has_start, has_end, start_is_date;
    long ndays;
};

/* Read a one-date property (DTSTART, DTEND) of line L. */
static int read_one_date(const struct prop *p, const struct line *l, bool *seen,
                         int64_t *day, bool *is_date, sked_error *err)
{
    if (*seen)
        return ics_error(err, SKED_EINVAL, l->no, "a second %.*s",
                         (int) p->name_len, p->name);
    if (!read_date(p->value, p->value_len, day, is_date))
        return ics_error(err, SKED_EINVAL, l->no,
                         "%.*s needs a date YYYYMMDD or YYYYMMDDTHHMMSS",
                         (int) p->name_len, p->name);
    *seen = true;
    return 0;
}

/* Pass 1: the event's DTSTART and DTEND, at its own level. */
static int read_event_dates(const struct line *ls, size_t n, struct event *ev,
                            sked_error *err)
{
    struct prop p;
    bool end_is_date;
    int depth = 0, rc = 0;

    for (size_t i = 0; i < n && rc == 0; i++) {
        if (!split_prop(ls[i].s, &p))
            continue; /* the structure pass refused those already */
        if (name_is(&p, "BEGIN") || name_is(&p, "END"))
            depth += name_is(&p, "BEGIN") ? 1 : -1;
        else if (depth == 0 && name_is(&p, "DTSTART"))
            rc = read_one_date(&p, &ls[i], &ev->has_start, &ev->start,
                               &ev->start_is_date, err);
        else if (depth == 0 && name_is(&p, "DTEND"))
            rc = read_one_date(&p, &ls[i], &ev->has_end, &ev->end, &end_is_date,
                               err);
    }
    return rc;
}

/* Call FN(CTX, day) for each date of the list property P (RDATE, EXDATE)
 * of line L; a bad date is an error. */
static int read_date_list(const struct prop *p, const struct line *l,
                          struct starts *st, bool add, sked_error *err)
{
    size_t i = 0;

    while (i <= p->value_len) {
        const char *s = p->value + i;
        const char *comma = memchr(s, ',', p->value_len - i);
        size_t n = comma ? (size_t) (comma - s) : p->value_len - i;
        int64_t day;
        bool is_date;

        if (!read_date(s, n, &day, &is_date))
            return ics_error(err, SKED_EINVAL, l->no,
                             "%.*s needs dates YYYYMMDD or YYYYMMDDTHHMMSS",
                             (int) p->name_len, p->name);
        if (add)
            mark_start(st, day);
        else
            unmark_start(st, day);
        i += n + 1;
    }
    return 0;
}

static int read_rrule(const struct prop *p, const struct line *l,
                      const struct event *ev, struct starts *st,
                      sked_error *err)
{
    sked_error inner;
    int rc;

    sked_error_clear(&inner);
    rc = sked__daycal_rule_expand(p->value, p->value_len, &ev->start, "ics",
                                  mark_start, st, NULL, &inner);
    if (rc != 0)
        return ics_error(err, rc, l->no, "RRULE: %s", inner.msg);
    return 0;
}

/* Pass 2 (ADD: RRULE, RDATE) or 3 (EXDATE) over the event's own level. */
static int read_event_starts(const struct line *ls, size_t n,
                             const struct event *ev, struct starts *st,
                             bool add, sked_error *err)
{
    struct prop p;
    int depth = 0, rc = 0;

    for (size_t i = 0; i < n && rc == 0; i++) {
        if (!split_prop(ls[i].s, &p))
            continue;
        if (name_is(&p, "BEGIN") || name_is(&p, "END"))
            depth += name_is(&p, "BEGIN") ? 1 : -1;
        else if (depth != 0)
            continue;
        else if (add && name_is(&p, "RRULE"))
            rc = read_rrule(&p, &ls[i], ev, st, err);
        else if (add && name_is(&p, "RDATE"))
            rc = read_date_list(&p, &ls[i], st, true, err);
        else if (!add && name_is(&p, "EXDATE"))
            rc = read_date_list(&p, &ls[i], st, false, err);
    }
    return rc;
}

/* Hand each day the event's starts cover to FN, and clear the starts. */
static void emit_starts(struct starts *st, long ndays, sked__day_fn fn,
                        void *ctx)
{
    for (size_t w = st->lo; w <= st->hi && st->lo <= st->hi; w++) {
        uint64_t bits = st->w[w];

        st->w[w] = 0;
        while (bits) {
            int64_t d = (int64_t) w * 64 + __builtin_ctzll(bits);

            bits &= bits - 1;
            for (long k = 0; k < ndays && d + k <= SKED__DAYCAL_LAST_DAY; k++)
                fn(ctx, d + k);
        }
    }
    st->lo = SIZE_MAX;
    st->hi = 0;
}

/* Read the event whose lines (between BEGIN and END) are LS[0..N). */
static int read_event(const struct line *ls, size_t n, int begin_line,
                      struct starts *st, sked__day_fn fn, void *ctx,
                      sked_error *err)
{
    struct event ev = {.ndays = 1};
    int rc;

    rc = read_event_dates(ls, n, &ev, err);
    if (rc != 0)
        return rc;
    if (!ev.has_start)
        return ics_error(err, SKED_EINVAL, begin_line,
                         "BEGIN:VEVENT without DTSTART");
    if (ev.has_end && ev.end < ev.start)
        return ics_error(err, SKED_EINVAL, begin_line,
                         "the event's DTEND is before its DTSTART");
    if (ev.start_is_date && ev.has_end && ev.end > ev.start)
        ev.ndays = ev.end - ev.start > MAX_EVENT_DAYS
                       ? MAX_EVENT_DAYS
                       : (long) (ev.end - ev.start);
    mark_start(st, ev.start);
    rc = read_event_starts(ls, n, &ev, st, true, err);
    if (rc == 0)
        rc = read_event_starts(ls, n, &ev, st, false, err);
    if (rc == 0)
        emit_starts(st, ev.ndays, fn, ctx);
    return rc;
}

/* One open component: its name (the BEGIN's value) and its line. */
struct nest {
    const char *name;
    size_t len;
    int line;
};

/* The open components, and the VEVENT being read (its BEGIN's index). */
struct walk {
    struct nest stack[MAX_NESTING];
    int depth, event_depth;
    size_t event_at;
};

static int begin(struct walk *w, const struct prop *p, const struct line *l,
                 size_t i)
{
    if (w->depth == MAX_NESTING)
        return -1;
    w->stack[w->depth].name = p->value;
    w->stack[w->depth].len = p->value_len;
    w->stack[w->depth++].line = l->no;
    if (w->event_at == SIZE_MAX && value_is(p, "VEVENT")) {
        w->event_at = i;
        w->event_depth = w->depth;
    }
    return 0;
}

/* Follow one content line of the structure; read a VEVENT it closes. */
static int walk_line(struct walk *w, const struct line *ls, size_t i,
                     struct starts *st, sked__day_fn fn, void *ctx,
                     sked_error *err)
{
    const struct line *l = &ls[i];
    const struct nest *top;
    struct prop p;
    size_t at;

    if (!split_prop(l->s, &p))
        return ics_error(err, SKED_EINVAL, l->no,
                         "a content line is NAME[;PARAMS]:VALUE");
    if (name_is(&p, "BEGIN")) {
        if (p.value_len == 0 || (w->depth == 0 && !value_is(&p, "VCALENDAR")))
            return ics_error(err, SKED_EINVAL, l->no,
                             "BEGIN:%.*s where BEGIN:VCALENDAR belongs",
                             (int) p.value_len, p.value);
        if (begin(w, &p, l, i) != 0)
            return ics_error(err, SKED_EINVAL, l->no,
                             "components nest deeper than %d", MAX_NESTING);
        return 0;
    }
    if (!name_is(&p, "END"))
        return w->depth > 0 ? 0
                            : ics_error(err, SKED_EINVAL, l->no,
                                        "%.*s outside BEGIN:VCALENDAR",
                                        (int) p.name_len, p.name);
    if (w->depth == 0)
        return ics_error(err, SKED_EINVAL, l->no, "END:%.*s without BEGIN",
                         (int) p.value_len, p.value);
    top = &w->stack[w->depth - 1];
    if (top->len != p.value_len ||
        strncasecmp(top->name, p.value, p.value_len) != 0)
        return ics_error(err, SKED_EINVAL, l->no,
                         "END:%.*s does not close BEGIN:%.*s of line %d",
                         (int) p.value_len, p.value, (int) top->len, top->name,
                         top->line);
    if (w->depth-- != w->event_depth)
        return 0;
    at = w->event_at;
    w->event_at = SIZE_MAX;
    w->event_depth = -1;
    return read_event(ls + at + 1, i - at - 1, ls[at].no, st, fn, ctx, err);
}

static int walk_lines(const struct line *ls, size_t n, struct starts *st,
                      sked__day_fn fn, void *ctx, sked_error *err)
{
    struct walk w = {.event_depth = -1, .event_at = SIZE_MAX};
    int rc;

    if (n == 0)
        return ics_error(err, SKED_EINVAL, 1, "no BEGIN:VCALENDAR");
    for (size_t i = 0; i < n; i++) {
        rc = walk_line(&w, ls, i, st, fn, ctx, err);
        if (rc != 0)
            return rc;
    }
    if (w.depth > 0)
        return ics_error(err, SKED_EINVAL, w.stack[w.depth - 1].line,
                         "BEGIN:%.*s without END",
                         (int) w.stack[w.depth - 1].len,
                         w.stack[w.depth - 1].name);
    return 0;
}

int sked__ics_read(const char *text, size_t len, sked__day_fn fn, void *ctx,
                   sked_error *err)
{
    struct starts st = {.lo = SIZE_MAX};
    struct line *lines = NULL;
    char *copy = NULL;
    size_t nl = 1;
    int rc;

    if (len > SKED__ICS_MAX)
        return sked__error_set(err, SKED_ETOOBIG, "ics", -1,
                               "the .ics is %zu bytes, over the %d allowed",
                               len, SKED__ICS_MAX);
    if (!text)
        return sked__error_set(err, SKED_EINVAL, "ics", -1, "no .ics text");
    rc = check_utf8(text, len, err);
    if (rc != 0)
        return rc;
    for (size_t i = 0; i < len; i++)
        nl += text[i] == '\n';
    copy = sked__malloc(len + 1);
    lines = sked__calloc(nl, sizeof *lines);
    st.w = sked__calloc(SKED__DAYCAL_NWORDS, sizeof *st.w);
    if (!copy || !lines || !st.w) {
        rc = sked__error_set(err, SKED_ENOMEM, "ics", -1, NULL);
        goto out;
    }
    rc = walk_lines(lines, unfold(text, len, copy, lines), &st, fn, ctx, err);
out:
    free(st.w);
    free(lines);
    free(copy);
    return rc;
}
