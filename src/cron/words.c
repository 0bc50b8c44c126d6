/* SPDX-License-Identifier: MIT */
/* The word pieces of words.h: shared by the cron and RRULE words. */
#include <stdarg.h>
#include <stdio.h>

#include "cron/words.h"

const char *const sked__month_words[13] = {
    "",     "January", "February",  "March",   "April",    "May",     "June",
    "July", "August",  "September", "October", "November", "December"};
const char *const sked__day_words[7] = {"Sunday",    "Monday",   "Tuesday",
                                        "Wednesday", "Thursday", "Friday",
                                        "Saturday"};
const char *const sked__ordinal_words[5] = {"first", "second", "third",
                                            "fourth", "fifth"};

void sked__put(struct sked__out *o, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (o->overflow)
        return;
    va_start(ap, fmt);
    n = vsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t) n >= o->size - o->len) {
        o->overflow = true;
        return;
    }
    o->len += (size_t) n;
}

/* True when MASK, over LO..HI, is every STEP-th value from LO. */
bool sked__is_step_from(uint64_t mask, int lo, int hi, int *step)
{
    int first = sked__lowest(mask), n = sked__count_bits(mask), s;
    uint64_t expect = 0;

    if (first != lo || n < 2)
        return false;
    mask &= mask - 1;
    s = sked__lowest(mask) - first;
    for (int v = lo; v <= hi; v += s)
        expect |= UINT64_C(1) << v;
    *step = s;
    return (expect | (UINT64_C(1) << first)) == (mask | (UINT64_C(1) << first));
}

bool sked__is_full(uint64_t mask, int lo, int hi)
{
    uint64_t full = ((hi >= 63 ? ~UINT64_C(0) : (UINT64_C(2) << hi) - 1) >> lo)
                    << lo;
    return (mask & full) == full;
}

void sked__put_number(struct sked__out *o, int v)
{
    sked__put(o, "%d", v);
}

void sked__put_month(struct sked__out *o, int v)
{
    sked__put(o, "%s", sked__month_words[v]);
}

void sked__put_day(struct sked__out *o, int v)
{
    sked__put(o, "%s", sked__day_words[v]);
}

/* Write MASK over LO..HI as "a, b through c and d". */
void sked__put_set(struct sked__out *o, uint64_t mask, int lo, int hi,
                   sked__name_fn name)
{
    int runs = 0, written = 0;

    for (int v = lo; v <= hi; v++)
        if ((mask >> v & 1) && (v == lo || !(mask >> (v - 1) & 1)))
            runs++;
    for (int v = lo; v <= hi; v++) {
        int end = v;
        if (!(mask >> v & 1))
            continue;
        while (end < hi && (mask >> (end + 1) & 1))
            end++;
        if (written > 0)
            sked__put(o, written == runs - 1 ? " and " : ", ");
        name(o, v);
        if (end > v + 1)
            sked__put(o, " through "), name(o, end);
        else if (end == v + 1)
            sked__put(o, written + 1 == runs ? " and " : ", "), name(o, end);
        written++;
        v = end;
    }
}
