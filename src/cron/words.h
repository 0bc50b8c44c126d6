/* SPDX-License-Identifier: MIT */
/* The pieces that say a time spec in English, shared by the cron
 * expression's words (explain.c) and the RRULE's (rrule_words.c): an
 * output buffer that remembers running out of room, the names of months,
 * weekdays and ordinals, and sets written as "a, b through c and d". */
#ifndef SKED_CRON_WORDS_H
#define SKED_CRON_WORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sked/cron.h"

extern const char *const sked__month_words[13];  /* [1] = "January" */
extern const char *const sked__day_words[7];     /* [0] = "Sunday" */
extern const char *const sked__ordinal_words[5]; /* [0] = "first" */

/* An output buffer that remembers when it ran out of room: once it has,
 * nothing more is written and the caller reports SKED_ETOOBIG. */
struct sked__out {
    char *buf;
    size_t size, len;
    bool overflow;
};

/* Append printf-style text to O. */
void sked__put(struct sked__out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static inline int sked__count_bits(uint64_t mask)
{
    return __builtin_popcountll(mask);
}

static inline int sked__lowest(uint64_t mask)
{
    return __builtin_ctzll(mask);
}

/* Whether MASK, over LO..HI, is every STEP-th value from LO (*step set). */
bool sked__is_step_from(uint64_t mask, int lo, int hi, int *step);

/* Whether MASK holds every value of LO..HI. */
bool sked__is_full(uint64_t mask, int lo, int hi);

typedef void (*sked__name_fn)(struct sked__out *o, int v);
void sked__put_number(struct sked__out *o, int v);
void sked__put_month(struct sked__out *o, int v);
void sked__put_day(struct sked__out *o, int v);

/* Write MASK over LO..HI as "a, b through c and d", each value by NAME. */
void sked__put_set(struct sked__out *o, uint64_t mask, int lo, int hi,
                   sked__name_fn name);

/* Write the time of day of C's second, minute and hour fields: "At
 * 09:00", "At 09:00 and 17:30", "Every 15 minutes, between 09:00 and
 * 17:59" (explain.c). */
void sked__put_clock(struct sked__out *o, const sked_cron *c);

#endif
