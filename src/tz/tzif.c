/* SPDX-License-Identifier: MIT */
/* Reads TZif images, versions 1 to 4 (RFC 8536, RFC 9636), in place.
 *
 * A v1 image has one header and one data block with 32-bit instants. A
 * v2+ image repeats the header and block with 64-bit instants, then a
 * footer: a POSIX TZ string between two newlines. sked reads the 32-bit
 * block of v1 images and skips it in later ones. Leap-second records are
 * skipped, never applied: sked's instants are POSIX time, so the
 * "right/" zones read as their POSIX twins. The standard/wall and UT/local
 * indicators only matter to zic, and are skipped too. Version bytes past
 * '4' are accepted as the same layout (the format promises compatible
 * extensions). Everything a later step indexes is checked here. */
#include "tz/tzif.h"

#include <stdbool.h>
#include <string.h>

#include "base/error.h"
#include "sked/tz.h"

#define HEADER_LEN  44
#define COUNTS_AT   20
#define TYPE_LEN    6
#define UTOFF_LIMIT (26 * 3600)
/* Instants further than 2^60 s (36 billion years) from 1970 are rejected,
 * so that adding offsets to them never overflows; zic writes none before
 * its "big bang" of -2^59. */
#define TIME_LIMIT (INT64_C(1) << 60)

/* The image being read, and where errors go. */
struct reader {
    const uint8_t *p;
    size_t len;
    sked_error *err;
};

/* A header: its version byte and six counts, in file order. */
struct counts {
    uint8_t version;
    uint32_t isut, isstd, leap, time, type, chars;
};

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 |
           (uint32_t) p[2] << 8 | (uint32_t) p[3];
}

static int bad(sked_error *err, size_t pos, const char *msg)
{
    return sked__error_set(err, SKED_EINVAL, "timezone", (long) pos, "TZif: %s",
                           msg);
}

/* Read and check the header at AT; store its version byte and counts. */
static int read_header(const struct reader *r, size_t at, struct counts *c)
{
    const uint8_t *h = r->p + at;
    size_t len = r->len;
    sked_error *err = r->err;

    if (memcmp(h, "TZif", len - at < 4 ? len - at : 4) != 0)
        return bad(err, at, "bad magic");
    if (len - at < HEADER_LEN)
        return bad(err, len, "truncated header");
    if (h[4] != 0 && (h[4] < '2' || h[4] > '9'))
        return bad(err, at + 4, "unknown version");
    c->version = h[4];
    c->isut = be32(h + COUNTS_AT);
    c->isstd = be32(h + COUNTS_AT + 4);
    c->leap = be32(h + COUNTS_AT + 8);
    c->time = be32(h + COUNTS_AT + 12);
    c->type = be32(h + COUNTS_AT + 16);
    c->chars = be32(h + COUNTS_AT + 20);
    if (c->type == 0 || c->chars == 0)
        return bad(err, at + COUNTS_AT + 16, "no types or no characters");
    if ((c->isut != 0 && c->isut != c->type) ||
        (c->isstd != 0 && c->isstd != c->type))
        return bad(err, at + COUNTS_AT, "indicator count is not typecnt");
    return 0;
}

/* Return the size of the data block described by C, instants WIDTH bytes
 * wide. Counts are 32-bit, so the sum cannot overflow 64 bits. */
static uint64_t block_len(const struct counts *c, uint32_t width)
{
    return (uint64_t) c->time * (width + 1) + (uint64_t) c->type * TYPE_LEN +
           c->chars + (uint64_t) c->leap * (width + 4) + c->isstd + c->isut;
}

static int check_caps(const struct counts *c, size_t at, sked_error *err)
{
    if (c->time > SKED_TZIF_MAX_TRANSITIONS || c->type > SKED_TZIF_MAX_TYPES ||
        c->chars > SKED_TZIF_MAX_CHARS)
        return sked__error_set(err, SKED_ETOOBIG, "timezone",
                               (long) (at + COUNTS_AT),
                               "TZif: more transitions, types or "
                               "characters than sked accepts");
    return 0;
}

/* Find the footer "\nTZ\n" at AT and point the view at it. */
static int read_footer(const struct reader *r, size_t at, sked__tzif *v)
{
    const uint8_t *p = r->p, *nl;
    size_t len = r->len;
    sked_error *err = r->err;

    if (at >= len || p[at] != '\n')
        return bad(err, at, "missing footer");
    nl = memchr(p + at + 1, '\n', len - at - 1);
    if (!nl)
        return bad(err, len, "unterminated footer");
    v->footer = (const char *) p + at + 1;
    v->footer_len = (size_t) (nl - (p + at + 1));
    v->footer_pos = at + 1;
    return 0;
}

/* Check instants (strictly ascending) and their type indices. */
static int check_transitions(const sked__tzif *v, const uint8_t *base,
                             sked_error *err)
{
    for (uint32_t i = 0; i < v->ntrans; i++) {
        size_t pos = (size_t) (v->times + (size_t) i * v->width - base);
        int64_t t = sked__tzif_time(v, i);

        if (t < -TIME_LIMIT || t > TIME_LIMIT)
            return bad(err, pos, "transition too far from 1970");
        if (i > 0 && t <= sked__tzif_time(v, i - 1))
            return bad(err, pos, "transitions not in ascending order");
        if (v->idx[i] >= v->ntypes)
            return bad(err, (size_t) (v->idx + i - base),
                       "type index out of range");
    }
    return 0;
}

/* Check offsets, DST flags, and abbreviations being NUL-terminated. */
static int check_types(const sked__tzif *v, const uint8_t *base,
                       sked_error *err)
{
    for (uint32_t i = 0; i < v->ntypes; i++) {
        const uint8_t *t = v->types + i * TYPE_LEN;
        size_t pos = (size_t) (t - base);
        uint8_t isdst;
        uint32_t abbr;
        int32_t utoff = sked__tzif_type(v, i, &isdst, &abbr);

        if (utoff <= -UTOFF_LIMIT || utoff >= UTOFF_LIMIT)
            return bad(err, pos, "UTC offset of 26 hours or more");
        if (isdst > 1)
            return bad(err, pos + 4, "DST flag not 0 or 1");
        if (abbr >= v->nchars ||
            !memchr(v->chars + abbr, '\0', v->nchars - abbr))
            return bad(err, pos + 5, "bad abbreviation index");
    }
    return 0;
}

/* Point V at the data block at AT described by C, and check it. */
static int read_block(const struct reader *r, size_t at, const struct counts *c,
                      uint32_t width, sked__tzif *v)
{
    const uint8_t *p = r->p;
    int rc;

    if ((rc = check_caps(c, at - HEADER_LEN, r->err)) != 0)
        return rc;
    if (block_len(c, width) > r->len - at)
        return bad(r->err, r->len, "truncated data block");
    v->width = width;
    v->ntrans = c->time;
    v->ntypes = c->type;
    v->nchars = c->chars;
    v->times = p + at;
    v->idx = v->times + (size_t) c->time * width;
    v->types = v->idx + c->time;
    v->chars = (const char *) v->types + (size_t) c->type * TYPE_LEN;
    v->footer = NULL;
    v->footer_len = 0;
    v->footer_pos = 0;
    if ((rc = check_transitions(v, p, r->err)) != 0)
        return rc;
    return check_types(v, p, r->err);
}

int sked__tzif_read(const void *data, size_t len, sked__tzif *out,
                    sked_error *err)
{
    const struct reader r = {data, len, err};
    struct counts c1, c2;
    size_t at;
    sked__tzif v;
    int rc;

    if (len > SKED_TZIF_MAX_FILE)
        return sked__error_set(err, SKED_ETOOBIG, "timezone", -1,
                               "TZif: file larger than %d bytes",
                               SKED_TZIF_MAX_FILE);
    if ((rc = read_header(&r, 0, &c1)) != 0)
        return rc;
    if (c1.version == 0) {
        if ((rc = read_block(&r, HEADER_LEN, &c1, 4, &v)) != 0)
            return rc;
        *out = v;
        return 0;
    }
    if (block_len(&c1, 4) > len - HEADER_LEN)
        return bad(err, len, "truncated version 1 block");
    at = HEADER_LEN + (size_t) block_len(&c1, 4);
    if ((rc = read_header(&r, at, &c2)) != 0)
        return rc;
    if (c2.version != c1.version)
        return bad(err, at + 4, "second header's version differs");
    if ((rc = read_block(&r, at + HEADER_LEN, &c2, 8, &v)) != 0)
        return rc;
    at += HEADER_LEN + (size_t) block_len(&c2, 8);
    if ((rc = read_footer(&r, at, &v)) != 0)
        return rc;
    *out = v;
    return 0;
}

int64_t sked__tzif_time(const sked__tzif *v, uint32_t i)
{
    const uint8_t *q = v->times + (size_t) i * v->width;
    uint64_t u;

    if (v->width == 4)
        return (int32_t) be32(q);
    u = (uint64_t) be32(q) << 32 | be32(q + 4);
    return (int64_t) u;
}

int32_t sked__tzif_type(const sked__tzif *v, uint32_t i, uint8_t *isdst,
                        uint32_t *abbr)
{
    const uint8_t *t = v->types + (size_t) i * TYPE_LEN;

    *isdst = t[4];
    *abbr = t[5];
    return (int32_t) be32(t);
}
