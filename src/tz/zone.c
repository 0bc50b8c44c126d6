/* SPDX-License-Identifier: MIT */
/* Zones: what the wall clock reads at an instant, and back.
 *
 * A zone is a table of transitions read from TZif, then its POSIX TZ
 * footer from the last transition on (RFC 8536 3.2: "on or after"). A
 * zone made from a bare TZ string is all footer. Instants before the
 * first transition take the first standard-time type, or type 0 if every
 * type is DST: RFC 8536 says type 0, but glibc picks the first non-DST
 * type and sked agrees with glibc so that both read the system's files
 * alike (zic always makes type 0 standard time, so they differ only on
 * hand-made files). A v2+ file without transitions keeps that type for
 * ever and ignores its footer, as glibc does.
 *
 * Segments (zone.h) come from a second table made at load: the instants
 * where the offset changes, transitions that keep it being dropped. The
 * segment holding the last transition may run on into the footer's time;
 * its bounds ("the join") are computed once at load too. The footer's own
 * changes up to FOOTER_TABLE_END are added to the table at load, so the
 * cron search, which asks for segments at every step, finds them by
 * binary search; later instants evaluate the rule each time.
 *
 * A zone is one allocation, immutable once built. */
#include "tz/zone.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "time/civil.h"
#include "tz/posixtz.h"
#include "tz/tzif.h"

#define USEC SKED_USEC_PER_SEC
/* Widest distance between a local reading and its instant: offsets are
 * below 26 hours (tzif.c, posixtz.c). */
#define UTOFF_SPAN (26 * 3600)
/* Footer changes are tabled up to 2200-01-01: at most two a year from
 * 1900 on, about 7 KB a zone. */
#define FOOTER_TABLE_END INT64_C(7258118400)
#define FOOTER_TABLE_MAX 640

struct zone_type {
    int32_t utoff;
    uint8_t isdst;
    uint16_t abbr; /* index into chars */
};

struct sked_tz {
    /* The arrays and the name live in the zone's own allocation. */
    char *name;
    int64_t *trans;          /* ntrans instants, ascending */
    uint8_t *trans_type;     /* type in force from trans[i] */
    struct zone_type *types; /* ntypes */
    char *chars;             /* abbreviations */
    int64_t *chg;            /* nchg instants where the offset changes */
    int32_t *chg_utoff;      /* offset from chg[i] on */
    int32_t ntrans, ntypes, nchg, chg_cap;
    int32_t pre_type;  /* type before trans[0] */
    int32_t pre_utoff; /* its offset */
    bool use_footer;
    int64_t footer_from; /* footer in force from here: trans[ntrans-1] */
    int64_t join_start;  /* segment holding footer_from */
    int64_t join_end;
    int32_t join_prev;
    int64_t table_end; /* the table covers segments before this */
    sked__posixtz footer;
};

/* The built-in UTC zone; never written. */
static struct zone_type utc_types[1] = {{0, 0, 0}};
static char utc_chars[] = "UTC";

static const sked_tz utc_zone = {
    .name = utc_chars,
    .types = utc_types,
    .chars = utc_chars,
    .ntypes = 1,
    .join_start = INT64_MIN,
    .join_end = INT64_MAX,
};

const sked_tz *sked_tz_utc(void)
{
    return &utc_zone;
}

const char *sked_tz_name(const sked_tz *tz)
{
    return tz->name;
}

void sked_tz_free(sked_tz *tz)
{
    if (tz && tz != &utc_zone)
        free(tz);
}

/* Return the index of the last of the N ascending values A at or before
 * T, or -1. */
static int32_t last_le(const int64_t *a, int32_t n, int64_t t)
{
    int32_t lo = 0, hi = n;

    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (a[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

static bool in_footer(const sked_tz *tz, int64_t t)
{
    return tz->use_footer && t >= tz->footer_from;
}

static int32_t footer_utoff(const sked_tz *tz, int64_t t)
{
    return sked__posixtz_isdst(&tz->footer, t) ? tz->footer.dst_utoff
                                               : tz->footer.std_utoff;
}

/* Fill *out for the POSIX second T. */
static void info_at(const sked_tz *tz, int64_t t, sked_tz_info *out)
{
    const struct zone_type *ty;
    int32_t i;

    if (in_footer(tz, t)) {
        int dst = sked__posixtz_isdst(&tz->footer, t);
        out->utoff = dst ? tz->footer.dst_utoff : tz->footer.std_utoff;
        out->is_dst = dst;
        out->abbr = dst ? tz->footer.dst_name : tz->footer.std_name;
        return;
    }
    i = last_le(tz->trans, tz->ntrans, t);
    ty = &tz->types[i < 0 ? tz->pre_type : tz->trans_type[i]];
    out->utoff = ty->utoff;
    out->is_dst = ty->isdst;
    out->abbr = tz->chars + ty->abbr;
}

int sked_tz_lookup(const sked_tz *tz, sked_time t, sked_tz_info *out)
{
    if (t < SKED_TIME_MIN || t > SKED_TIME_MAX)
        return SKED_ERANGE;
    info_at(tz, sked__floor_div(t, USEC), out);
    return 0;
}

/* Fill *out with the footer-time segment holding T (T >= footer_from). */
static void footer_segment(const sked_tz *tz, int64_t t, sked__tz_seg *out)
{
    const sked__posixtz *f = &tz->footer;
    sked__posixtz_span sp;

    sked__posixtz_span_at(f, t, &sp);
    out->utoff = sp.dst ? f->dst_utoff : f->std_utoff;
    out->end = sp.next;
    if (sp.prev > tz->footer_from) {
        out->start = sp.prev;
        out->prev_utoff = sp.prev_dst ? f->dst_utoff : f->std_utoff;
    } else {
        out->start = tz->join_start;
        out->prev_utoff = tz->join_prev;
    }
}

void sked__tz_segment(const sked_tz *tz, int64_t t, sked__tz_seg *out)
{
    int32_t k;

    if (tz->use_footer && t >= tz->table_end) {
        footer_segment(tz, t, out);
        return;
    }
    k = last_le(tz->chg, tz->nchg, t);
    out->start = k >= 0 ? tz->chg[k] : INT64_MIN;
    out->utoff = k >= 0 ? tz->chg_utoff[k] : tz->pre_utoff;
    out->prev_utoff = k >= 1 ? tz->chg_utoff[k - 1] : tz->pre_utoff;
    if (k + 1 < tz->nchg)
        out->end = tz->chg[k + 1];
    else
        out->end = tz->use_footer ? tz->table_end : INT64_MAX;
}

/* The instants found for one wall-clock reading. */
struct passes {
    int n;           /* how many */
    int64_t first;   /* the first, when n > 0 */
    int64_t last;    /* the last, when n > 0 */
    int64_t gap_end; /* when n == 0: the end of the gap */
};

/* The plan: every instant u with u + utoff(u) == L lies within UTOFF_SPAN
 * of L. Walk the segments covering [L - span, L + span]; segment [s, e)
 * with offset o holds a solution iff s <= L - o < e. No solution means L
 * fell into a gap: the boundary s where the offset grows from p to o with
 * s + p <= L < s + o; SPEC 2.2 resolves it to s, the end of the gap. The
 * walk is bounded by the number of transitions plus a few footer
 * changes per year. Three or more passes (possible only in contrived
 * data) report the first and the last.
 * Fill *out with the instants that read L on TZ's wall clock. */
static void resolve(const sked_tz *tz, int64_t l, struct passes *out)
{
    sked__tz_seg seg;
    int64_t at = l - UTOFF_SPAN;

    out->n = 0;
    out->gap_end = l - tz->pre_utoff;
    for (;;) {
        sked__tz_segment(tz, at, &seg);
        int64_t u = l - seg.utoff;
        if (u >= seg.start && u < seg.end) {
            out->first = out->n == 0 ? u : out->first;
            out->last = u;
            out->n++;
        }
        if (seg.utoff > seg.prev_utoff && seg.start != INT64_MIN &&
            seg.start + seg.prev_utoff <= l && l < seg.start + seg.utoff)
            out->gap_end = seg.start;
        if (seg.end > l + UTOFF_SPAN || seg.end == INT64_MAX)
            break;
        at = seg.end;
    }
}

int sked_tz_local_to_utc(const sked_tz *tz, sked_time local,
                         sked_local_result *out)
{
    struct passes ps;
    int64_t l, frac, first, last;

    if (local < SKED_TIME_MIN || local > SKED_TIME_MAX)
        return SKED_ERANGE;
    l = sked__floor_div(local, USEC);
    frac = local - l * USEC;
    resolve(tz, l, &ps);
    if (ps.n == 0) {
        /* SPEC 2.2: a skipped local time resolves to the end of the gap. */
        first = last = ps.gap_end * USEC;
    } else {
        first = ps.first * USEC + frac;
        last = ps.last * USEC + frac;
    }
    if (first < SKED_TIME_MIN || last > SKED_TIME_MAX)
        return SKED_ERANGE;
    out->kind = ps.n == 0   ? SKED_LOCAL_GAP
                : ps.n == 1 ? SKED_LOCAL_UNIQUE
                            : SKED_LOCAL_REPEATED;
    out->first = first;
    out->second = last;
    return 0;
}

/* Sizes of the arrays of one zone's allocation, in allocation order. */
struct zone_sizes {
    size_t head, trans, chg, chg_utoff, types, trans_type, chars, name;
};

static size_t align8(size_t n)
{
    return (n + 7) & ~(size_t) 7;
}

/* Allocate a zone with room for the tables of V (NULL: none) and NAME;
 * point its arrays into the block. The offset-change table has room for
 * the footer's changes too when V has a footer. */
static int zone_alloc(const char *name, const sked__tzif *v, sked_tz **out)
{
    uint32_t ntrans = v ? v->ntrans : 0, ntypes = v ? v->ntypes : 0;
    uint32_t nchars = v ? v->nchars : 0;
    uint32_t nchg = ntrans + (v && v->footer_len ? FOOTER_TABLE_MAX : 0);
    struct zone_sizes z = {
        .head = align8(sizeof(sked_tz)),
        .trans = (size_t) ntrans * sizeof(int64_t),
        .chg = (size_t) nchg * sizeof(int64_t),
        .chg_utoff = (size_t) nchg * sizeof(int32_t),
        .types = (size_t) ntypes * sizeof(struct zone_type),
        .trans_type = ntrans,
        .chars = nchars,
        .name = strlen(name) + 1,
    };
    char *p = sked__calloc(1, z.head + z.trans + z.chg + z.chg_utoff + z.types +
                                  z.trans_type + z.chars + z.name);
    sked_tz *tz = (sked_tz *) p;

    if (!p)
        return SKED_ENOMEM;
    p += z.head;
    tz->trans = (int64_t *) (void *) p;
    tz->chg = (int64_t *) (void *) (p += z.trans);
    tz->chg_utoff = (int32_t *) (void *) (p += z.chg);
    tz->types = (struct zone_type *) (void *) (p += z.chg_utoff);
    tz->trans_type = (uint8_t *) (p += z.types);
    tz->chars = p += z.trans_type;
    tz->name = p += z.chars;
    tz->chg_cap = (int32_t) nchg;
    memcpy(p, name, z.name);
    *out = tz;
    return 0;
}

/* Copy the view's transitions, types and abbreviations into TZ. */
static void copy_tables(sked_tz *tz, const sked__tzif *v)
{
    for (uint32_t i = 0; i < v->ntrans; i++) {
        tz->trans[i] = sked__tzif_time(v, i);
        tz->trans_type[i] = v->idx[i];
    }
    for (uint32_t i = 0; i < v->ntypes; i++) {
        struct zone_type *ty = &tz->types[i];
        uint32_t abbr;
        ty->utoff = sked__tzif_type(v, i, &ty->isdst, &abbr);
        ty->abbr = (uint16_t) abbr;
    }
    memcpy(tz->chars, v->chars, v->nchars);
    tz->ntrans = (int32_t) v->ntrans;
    tz->ntypes = (int32_t) v->ntypes;
}

/* Pick the type before the first transition (see the file comment). */
static int32_t first_std_type(const sked_tz *tz)
{
    for (int32_t i = 0; i < tz->ntypes; i++)
        if (!tz->types[i].isdst)
            return i;
    return 0;
}

/* Append the footer's offset changes from the join's end up to
 * FOOTER_TABLE_END to the change table, and move table_end past them. */
static void table_footer_changes(sked_tz *tz)
{
    int64_t t = tz->join_end;
    int32_t prev = tz->nchg > 0 ? tz->chg_utoff[tz->nchg - 1] : tz->pre_utoff;
    sked__posixtz_span sp;

    while (t < FOOTER_TABLE_END && tz->nchg < tz->chg_cap) {
        int32_t u;
        sked__posixtz_span_at(&tz->footer, t, &sp);
        u = sp.dst ? tz->footer.dst_utoff : tz->footer.std_utoff;
        if (u != prev) {
            tz->chg[tz->nchg] = t;
            tz->chg_utoff[tz->nchg++] = u;
            prev = u;
        }
        t = sp.next;
    }
    tz->table_end = t;
}

/* Build the offset-change table and the join (see the file comment). */
static void build_segments(sked_tz *tz)
{
    int64_t *chg = tz->chg;
    int32_t *chg_utoff = tz->chg_utoff;
    int32_t prev = tz->pre_utoff, u, n = 0;
    sked__posixtz_span sp;

    for (int32_t i = 0; i < tz->ntrans; i++) {
        if (in_footer(tz, tz->trans[i]))
            u = footer_utoff(tz, tz->trans[i]);
        else
            u = tz->types[tz->trans_type[i]].utoff;
        if (u != prev) {
            chg[n] = tz->trans[i];
            chg_utoff[n++] = u;
            prev = u;
        }
    }
    tz->nchg = n;
    tz->join_start = n > 0 ? chg[n - 1] : INT64_MIN;
    tz->join_prev = n > 1 ? chg_utoff[n - 2] : tz->pre_utoff;
    tz->join_end = INT64_MAX;
    /* A zone that is all footer never asks for the join's end. */
    if (tz->use_footer && tz->ntrans > 0) {
        sked__posixtz_span_at(&tz->footer, tz->footer_from, &sp);
        tz->join_end = sp.next;
    }
    tz->table_end =
        tz->use_footer && tz->ntrans == 0 ? INT64_MIN : tz->join_end;
    if (tz->use_footer && tz->ntrans > 0)
        table_footer_changes(tz);
}

/* Parse the view's footer, if any and not empty, into *out. */
static int read_footer(const sked__tzif *v, sked__posixtz *out, bool *has,
                       sked_error *err)
{
    *has = false;
    if (!v->footer || v->footer_len == 0)
        return 0;
    *has = true;
    return sked__posixtz_parse(v->footer, v->footer_len, (long) v->footer_pos,
                               out, err);
}

int sked_tz_parse_tzif(const char *name, const void *data, size_t len,
                       sked_tz **out, sked_error *err)
{
    sked__tzif v;
    sked__posixtz footer;
    sked_tz *tz;
    bool has_footer;
    int rc;

    if (!name || !data || !out)
        return sked__error_set(err, SKED_EINVAL, "timezone", -1, NULL);
    if ((rc = sked__tzif_read(data, len, &v, err)) != 0)
        return rc;
    if ((rc = read_footer(&v, &footer, &has_footer, err)) != 0)
        return rc;
    if ((rc = zone_alloc(name, &v, &tz)) != 0)
        return sked__error_set(err, rc, "timezone", -1, NULL);
    copy_tables(tz, &v);
    tz->pre_type = first_std_type(tz);
    tz->pre_utoff = tz->types[tz->pre_type].utoff;
    tz->use_footer = has_footer && tz->ntrans > 0;
    if (tz->use_footer) {
        tz->footer = footer;
        tz->footer_from = tz->trans[tz->ntrans - 1];
    }
    build_segments(tz);
    *out = tz;
    return 0;
}

int sked_tz_parse_posix(const char *s, sked_tz **out, sked_error *err)
{
    sked__posixtz footer;
    sked_tz *tz;
    size_t len;
    int rc;

    if (!s || !out)
        return sked__error_set(err, SKED_EINVAL, "timezone", -1, NULL);
    len = strnlen(s, SKED_POSIXTZ_MAX + 1);
    if ((rc = sked__posixtz_parse(s, len, 0, &footer, err)) != 0)
        return rc;
    if ((rc = zone_alloc(s, NULL, &tz)) != 0)
        return sked__error_set(err, rc, "timezone", -1, NULL);
    tz->footer = footer;
    tz->use_footer = true;
    tz->footer_from = INT64_MIN;
    tz->pre_utoff = footer_utoff(tz, 0);
    build_segments(tz);
    *out = tz;
    return 0;
}
