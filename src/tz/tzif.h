/* SPDX-License-Identifier: MIT */
/* A checked view of a TZif image (RFC 8536): where its parts are, read in
 * place. zone.c turns a view into a sked_tz. */
#ifndef SKED_TZ_TZIF_H
#define SKED_TZ_TZIF_H

#include <stddef.h>
#include <stdint.h>

#include "sked/error.h"

/* The data block sked uses: the 64-bit one of a v2+ file, the 32-bit one
 * of a v1 file. Pointers borrow the image. */
typedef struct sked__tzif {
    const uint8_t *times; /* ntrans big-endian instants, width bytes each */
    const uint8_t *idx;   /* ntrans type indices */
    const uint8_t *types; /* ntypes records: utoff (4), isdst, abbr index */
    const char *chars;    /* nchars bytes of NUL-terminated abbreviations */
    const char *footer;   /* v2+: footer_len bytes, no NUL; v1: NULL */
    size_t footer_len;
    size_t footer_pos; /* byte offset of the footer in the image */
    uint32_t ntrans, ntypes, nchars;
    uint32_t width; /* 4 or 8 */
} sked__tzif;

/* Check the LEN-byte image DATA and fill *out with a view of it: header,
 * counts and caps, strictly ascending transitions, type and abbreviation
 * indices, offsets below 26 hours, the footer's framing (not its
 * contents). Returns 0, SKED_EINVAL (err->pos: the offending byte) or
 * SKED_ETOOBIG (over a SKED_TZIF_MAX_* cap). */
int sked__tzif_read(const void *data, size_t len, sked__tzif *out,
                    sked_error *err);

/* Return transition I's instant, POSIX seconds (I < v->ntrans). */
int64_t sked__tzif_time(const sked__tzif *v, uint32_t i);

/* Return type I's UTC offset and store its DST flag and abbreviation
 * index in *isdst and *abbr (I < v->ntypes). */
int32_t sked__tzif_type(const sked__tzif *v, uint32_t i, uint8_t *isdst,
                        uint32_t *abbr);

#endif
