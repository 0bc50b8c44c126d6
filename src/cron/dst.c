/* SPDX-License-Identifier: MIT */
/* The DST policies' text form (SPEC 12, the DST matrix), one rule for
 * every face (API, CLI, YAML, store): "once", "cadence", or a comma list
 * of at most one gap word (shift, skip) and at most one fold word (first,
 * last, both), in either order, a missing half taking its default (shift,
 * first). Names written back are canonical: "once" for shift,first, else
 * "GAP,FOLD". Errors give the byte of the offending word: the first word
 * that is unknown or empty, or that conflicts with a word before it. */
#include <stdbool.h>
#include <string.h>

#include "base/error.h"
#include "sked/cron.h"

enum { GAP_NONE = -1, GAP_SHIFT, GAP_SKIP };
enum { FOLD_NONE = -1, FOLD_FIRST, FOLD_LAST, FOLD_BOTH };

/* By [gap][fold]: the policy a pair names. */
static const sked_dst pairs[2][3] = {
    {SKED_DST_ONCE, SKED_DST_SHIFT_LAST, SKED_DST_SHIFT_BOTH},
    {SKED_DST_SKIP_FIRST, SKED_DST_SKIP_LAST, SKED_DST_SKIP_BOTH},
};

static const char *const names[SKED_DST_COUNT] = {
    [SKED_DST_ONCE] = "once",
    [SKED_DST_CADENCE] = "cadence",
    [SKED_DST_SHIFT_LAST] = "shift,last",
    [SKED_DST_SHIFT_BOTH] = "shift,both",
    [SKED_DST_SKIP_FIRST] = "skip,first",
    [SKED_DST_SKIP_LAST] = "skip,last",
    [SKED_DST_SKIP_BOTH] = "skip,both",
};

static const char *const gap_words[] = {"shift", "skip"};
static const char *const fold_words[] = {"first", "last", "both"};

/* Return the index of the word W of LEN bytes in WORDS, or -1. */
static int word_index(const char *w, size_t len, const char *const *words,
                      int count)
{
    for (int i = 0; i < count; i++)
        if (strlen(words[i]) == len && memcmp(w, words[i], len) == 0)
            return i;
    return -1;
}

/* The state of a parse: what the words so far said. */
typedef struct dst_words {
    int gap, fold;
    int alone; /* -1, or the policy "once" / "cadence" named */
    int count;
} dst_words;

/* Take the word W of LEN bytes at byte POS into *st. */
static int take_word(dst_words *st, const char *w, size_t len, long pos,
                     sked_error *err)
{
    int g = word_index(w, len, gap_words, 2);
    int f = word_index(w, len, fold_words, 3);
    int a = len == 4 && memcmp(w, "once", 4) == 0      ? SKED_DST_ONCE
            : len == 7 && memcmp(w, "cadence", 7) == 0 ? SKED_DST_CADENCE
                                                       : -1;

    if (len == 0)
        return sked__error_set(err, SKED_EINVAL, "dst", pos,
                               "empty word in the DST policy");
    if (g < 0 && f < 0 && a < 0)
        return sked__error_set(
            err, SKED_EINVAL, "dst", pos,
            "\"%.*s\" is not once, cadence, shift, skip, first, last or both",
            (int) (len > 20 ? 20 : len), w);
    if (st->alone >= 0 || (a >= 0 && st->count > 0))
        return sked__error_set(err, SKED_EINVAL, "dst", pos,
                               "once and cadence stand alone");
    if (g >= 0 && st->gap != GAP_NONE)
        return sked__error_set(err, SKED_EINVAL, "dst", pos,
                               "a second word for a skipped local time "
                               "(shift or skip)");
    if (f >= 0 && st->fold != FOLD_NONE)
        return sked__error_set(err, SKED_EINVAL, "dst", pos,
                               "a second word for a repeated local time "
                               "(first, last or both)");
    st->gap = g >= 0 ? g : st->gap;
    st->fold = f >= 0 ? f : st->fold;
    st->alone = a;
    st->count++;
    return 0;
}

int sked_dst_parse(const char *s, sked_dst *out, sked_error *err)
{
    dst_words st = {GAP_NONE, FOLD_NONE, -1, 0};
    const char *w = s;
    int rc;

    if (!s || !out)
        return sked__error_set(err, SKED_EINVAL, "dst", -1,
                               "expected a DST policy");
    for (;;) {
        const char *comma = strchr(w, ',');
        size_t len = comma ? (size_t) (comma - w) : strlen(w);
        if ((rc = take_word(&st, w, len, (long) (w - s), err)) < 0)
            return rc;
        if (!comma)
            break;
        w = comma + 1;
    }
    if (st.alone >= 0)
        *out = (sked_dst) st.alone;
    else
        *out = pairs[st.gap == GAP_NONE ? GAP_SHIFT : st.gap]
                    [st.fold == FOLD_NONE ? FOLD_FIRST : st.fold];
    return 0;
}

const char *sked_dst_name(sked_dst dst)
{
    if ((unsigned) dst >= SKED_DST_COUNT)
        return "unknown";
    return names[dst];
}
