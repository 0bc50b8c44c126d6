/* SPDX-License-Identifier: MIT */
/* Parses cron expressions (SPEC 2.1) into sked_cron bitsets.
 *
 * Grammar, per field: a list of items separated by ','; an item is '*'
 * (or '?' in the day fields), a value, a range "a-b", each optionally
 * followed by "/step"; "a/step" runs from a to the field's maximum.
 * Values are numbers, or names in the month (JAN-DEC) and day-of-week
 * (SUN-SAT) fields. The day-of-month field also takes L, L-n, nW and LW;
 * the day-of-week field dL and d#n (croner and Quartz extensions).
 *
 * Every error names the field and the byte where it was found, and the
 * output is written only when the whole expression is valid and can fire.
 * An expression that can never fire ("0 0 30 2 *") is found by searching
 * one full 400-year Gregorian cycle, after which the calendar repeats. */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "base/error.h"
#include "base/utf8.h"
#include "cron/cron.h"

enum field_id { F_SEC, F_MIN, F_HOUR, F_DOM, F_MONTH, F_DOW, F_COUNT };

struct field_def {
    const char *name;
    int lo, hi; /* the range values may take (7 for Sunday in DOW) */
};

static const struct field_def field_defs[F_COUNT] = {
    [F_SEC] = {"second", 0, 59},  [F_MIN] = {"minute", 0, 59},
    [F_HOUR] = {"hour", 0, 23},   [F_DOM] = {"day-of-month", 1, 31},
    [F_MONTH] = {"month", 1, 12}, [F_DOW] = {"day-of-week", 0, 7},
};

static const char *const month_names[12] = {"JAN", "FEB", "MAR", "APR",
                                            "MAY", "JUN", "JUL", "AUG",
                                            "SEP", "OCT", "NOV", "DEC"};
static const char *const dow_names[7] = {"SUN", "MON", "TUE", "WED",
                                         "THU", "FRI", "SAT"};

struct macro {
    const char *name;
    const char *expansion;
};

static const struct macro macros[] = {
    {"@yearly", "0 0 1 1 *"},  {"@annually", "0 0 1 1 *"},
    {"@monthly", "0 0 1 * *"}, {"@weekly", "0 0 * * 0"},
    {"@daily", "0 0 * * *"},   {"@midnight", "0 0 * * *"},
    {"@hourly", "0 * * * *"},
};

/* A parse in progress: the whole input, for positions in errors. */
struct parser {
    const char *expr;
    sked_error *err;
    enum field_id field;
    sked_cron *out;
};

static int fail(struct parser *p, const char *at, const char *fmt,
                const char *detail)
{
    return sked__error_set(p->err, SKED_EINVAL, field_defs[p->field].name,
                           (long) (at - p->expr), fmt, detail);
}

static int fail_range(struct parser *p, const char *at, long v)
{
    const struct field_def *f = &field_defs[p->field];

    return sked__error_set(p->err, SKED_EINVAL, f->name, (long) (at - p->expr),
                           "%ld is out of range %d-%d", v, f->lo, f->hi);
}

/* Report the character at AT, which no rule of the field expects, quoted
 * whole ('½', not its first byte). */
static int unexpected(struct parser *p, const char *at)
{
    char c[16];

    return fail(p, at, "unexpected character %s",
                sked__utf8_quote_char(at, c, sizeof c));
}

static bool is_field_end(char ch)
{
    return ch == '\0' || ch == ' ' || ch == '\t';
}

/* Read a name of three letters at *s for the month or weekday field;
 * store its value in *v. Returns 1 when a name was read, 0 when *s does
 * not start with a letter, or an error. */
static int read_name(struct parser *p, const char **s, int *v)
{
    const char *const *names = p->field == F_MONTH ? month_names : dow_names;
    int count = p->field == F_MONTH ? 12 : 7;
    int base = p->field == F_MONTH ? 1 : 0;
    const char *start = *s;
    size_t len = 0;
    char word[16];

    if (!isalpha((unsigned char) *start))
        return 0;
    while (isalpha((unsigned char) start[len]) && len < sizeof word - 1)
        len++;
    memcpy(word, start, len);
    word[len] = '\0';
    /* "L" after a weekday value ("5L", "FRIL") is the dL extension. */
    if (p->field == F_DOW && len == 4 &&
        toupper((unsigned char) word[3]) == 'L')
        len = 3, word[3] = '\0';
    if (p->field == F_MONTH || p->field == F_DOW) {
        for (int i = 0; i < count; i++) {
            if (len == 3 && strcasecmp(word, names[i]) == 0) {
                *v = i + base;
                *s = start + 3;
                return 1;
            }
        }
    }
    return fail(p, start, "unknown name \"%s\"", word);
}

/* Read a value (number or name) at *s into *v, checking the field's range
 * (the day-of-week value 7 is kept as 7 here). */
static int read_value(struct parser *p, const char **s, int *v)
{
    const char *start = *s;
    long n = 0;
    int rc, digits = 0;

    if (p->field == F_MONTH || p->field == F_DOW) {
        rc = read_name(p, s, v);
        if (rc != 0)
            return rc < 0 ? rc : 0;
    } else if (isalpha((unsigned char) *start)) {
        char word[16];
        size_t len = 0;
        while (isalnum((unsigned char) start[len]) && len < sizeof word - 1)
            len++;
        memcpy(word, start, len);
        word[len] = '\0';
        return fail(p, start, "unknown name \"%s\"", word);
    }
    while (isdigit((unsigned char) **s)) {
        if (++digits > 6)
            return fail(p, start, "number too long%s", "");
        n = n * 10 + (**s - '0');
        (*s)++;
    }
    if (digits == 0) {
        if (is_field_end(**s) || **s == ',' || **s == '-' || **s == '/')
            return fail(p, start, "expected a value%s", "");
        return unexpected(p, *s);
    }
    if (n < field_defs[p->field].lo || n > field_defs[p->field].hi)
        return fail_range(p, start, n);
    *v = (int) n;
    return 0;
}

/* Read "/step" at *s if present into *step (1 when absent). */
static int read_step(struct parser *p, const char **s, int *step)
{
    const char *start;
    long n = 0;
    int digits = 0;

    *step = 1;
    if (**s != '/')
        return 0;
    start = ++(*s);
    while (isdigit((unsigned char) **s)) {
        if (++digits > 6)
            return fail(p, start, "step too long%s", "");
        n = n * 10 + (**s - '0');
        (*s)++;
    }
    if (digits == 0)
        return fail(p, start, "expected a step after '/'%s", "");
    if (n == 0)
        return fail(p, start, "step must be at least 1%s", "");
    if (n > field_defs[p->field].hi - field_defs[p->field].lo + 1)
        return sked__error_set(p->err, SKED_EINVAL, field_defs[p->field].name,
                               (long) (start - p->expr),
                               "step %ld is larger than the field's range "
                               "%d-%d",
                               n, field_defs[p->field].lo,
                               field_defs[p->field].hi);
    *step = (int) n;
    return 0;
}

/* Set bits lo..hi by step in the field's bitset. Day-of-week 7 is Sunday. */
static void set_bits(struct parser *p, int lo, int hi, int step)
{
    sked_cron *c = p->out;

    for (int v = lo; v <= hi; v += step) {
        switch (p->field) {
        case F_SEC:
            c->sec |= UINT64_C(1) << v;
            break;
        case F_MIN:
            c->min |= UINT64_C(1) << v;
            break;
        case F_HOUR:
            c->hour |= UINT32_C(1) << v;
            break;
        case F_DOM:
            c->dom |= UINT32_C(1) << v;
            break;
        case F_MONTH:
            c->month = (uint16_t) (c->month | 1u << v);
            break;
        case F_DOW:
            c->dow = (uint8_t) (c->dow | 1u << (v % 7));
            break;
        case F_COUNT:
            break;
        }
    }
}

/* Parse the day-of-month extensions at *s: L, L-n, LW, nW. Returns 1 when
 * one was consumed, 0 when the item is something else, or an error. */
static int parse_dom_special(struct parser *p, const char **s)
{
    const char *start = *s;
    long n = 0;
    int digits = 0;

    if (toupper((unsigned char) start[0]) == 'L') {
        if (toupper((unsigned char) start[1]) == 'W') {
            p->out->flags |= SKED_CRON_DOM_LW;
            *s = start + 2;
            return 1;
        }
        if (start[1] != '-') {
            p->out->dom_last |= 1u;
            *s = start + 1;
            return 1;
        }
        *s = start + 2;
        while (isdigit((unsigned char) **s) && digits < 3)
            n = n * 10 + (*(*s)++ - '0'), digits++;
        if (digits == 0 || isdigit((unsigned char) **s))
            return fail(p, start + 2, "expected 0-30 after \"L-\"%s", "");
        if (n > 30)
            return sked__error_set(p->err, SKED_EINVAL, "day-of-month",
                                   (long) (start + 2 - p->expr),
                                   "L-%ld is out of range L-0 to L-30", n);
        p->out->dom_last |= UINT32_C(1) << n;
        return 1;
    }
    while (isdigit((unsigned char) start[digits]) && digits < 3)
        n = n * 10 + (start[digits++] - '0');
    if (digits == 0 || toupper((unsigned char) start[digits]) != 'W')
        return 0;
    if (n < 1 || n > 31)
        return fail_range(p, start, n);
    p->out->dom_near |= UINT32_C(1) << n;
    *s = start + digits + 1;
    return 1;
}

/* Parse the day-of-week extensions after the value V read at START:
 * "dL" and "d#n". Returns 1 when one was consumed, 0 when none follows. */
static int parse_dow_special(struct parser *p, const char **s, int v,
                             const char *start)
{
    int wd = v % 7;

    if (toupper((unsigned char) **s) == 'L') {
        p->out->dow_last = (uint8_t) (p->out->dow_last | 1u << wd);
        (*s)++;
        return 1;
    }
    if (**s != '#')
        return 0;
    (*s)++;
    if (!isdigit((unsigned char) **s) || isdigit((unsigned char) (*s)[1]))
        return fail(p, *s, "expected 1-5 after '#'%s", "");
    if (**s < '1' || **s > '5')
        return sked__error_set(p->err, SKED_EINVAL, "day-of-week",
                               (long) (*s - p->expr),
                               "#%c is out of range #1-#5", **s);
    p->out->dow_nth[wd] = (uint8_t) (p->out->dow_nth[wd] | 1u << (**s - '1'));
    (*s)++;
    (void) start;
    return 1;
}

/* Parse one list item at *s: '*', '?', a value, a range, with a step. */
static int parse_item(struct parser *p, const char **s)
{
    const struct field_def *f = &field_defs[p->field];
    const char *start = *s;
    int lo, hi, step, rc;

    if (**s == '*' || **s == '?') {
        if (**s == '?' && p->field != F_DOM && p->field != F_DOW)
            return fail(p, start, "'?' is only allowed in the day fields%s",
                        "");
        (*s)++;
        lo = f->lo;
        hi = p->field == F_DOW ? 6 : f->hi;
        if ((rc = read_step(p, s, &step)) < 0)
            return rc;
        set_bits(p, lo, hi, step);
        return 0;
    }
    if (p->field == F_DOM && (rc = parse_dom_special(p, s)) != 0)
        return rc < 0 ? rc : 0;
    if ((rc = read_value(p, s, &lo)) < 0)
        return rc;
    if (p->field == F_DOW && (rc = parse_dow_special(p, s, lo, start)) != 0)
        return rc < 0 ? rc : 0;
    hi = lo;
    if (**s == '-') {
        const char *hi_at = ++(*s);
        if ((rc = read_value(p, s, &hi)) < 0)
            return rc;
        /* SPEC 2.1: a weekday range may end on Sunday (FRI-SUN, 5-0);
         * SUN-SUN (0-0) stays Sunday alone. */
        if (p->field == F_DOW && hi == 0 && lo > 0)
            hi = 7;
        if (hi < lo)
            return sked__error_set(p->err, SKED_EINVAL, f->name,
                                   (long) (hi_at - p->expr),
                                   "range %d-%d is reversed", lo, hi);
    } else if (**s == '/') {
        hi = f->hi; /* "a/n": from a to the field's maximum (7 in DOW) */
    }
    if ((rc = read_step(p, s, &step)) < 0)
        return rc;
    set_bits(p, lo, hi, step);
    return 0;
}

/* Parse one whole field starting at *s (a non-empty token). */
static int parse_field(struct parser *p, const char **s)
{
    const char *field_start = *s;
    int rc;

    for (;;) {
        if ((rc = parse_item(p, s)) < 0)
            return rc;
        if (is_field_end(**s))
            break;
        if (**s != ',')
            return unexpected(p, *s);
        (*s)++;
        if (is_field_end(**s))
            return fail(p, *s, "expected a value after ','%s", "");
    }
    if (*s - field_start == 1 && (*field_start == '*' || *field_start == '?')) {
        if (p->field == F_DOM)
            p->out->flags |= SKED_CRON_DOM_STAR;
        if (p->field == F_DOW)
            p->out->flags |= SKED_CRON_DOW_STAR;
    }
    return 0;
}

/* Split EXPR at blanks; store up to 7 token starts. Returns the count. */
static int split_fields(const char *expr, const char *starts[7])
{
    const char *s = expr;
    int n = 0;

    for (;;) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '\0')
            return n;
        if (n < 7)
            starts[n] = s;
        n++;
        while (!is_field_end(*s))
            s++;
    }
}

/* Check that C fires at least once in a full 400-year cycle. */
static bool can_fire(const sked_cron *c)
{
    for (int64_t y = 2000; y < 2400; y++)
        for (int m = 1; m <= 12; m++)
            if ((c->month >> m & 1u) && sked__cron_month_days(c, y, m))
                return true;
    return false;
}

static const char *expand_macro(struct parser *p, const char *expr,
                                const char *s, int *rc)
{
    size_t len = strcspn(s, " \t");

    for (size_t i = 0; i < sizeof macros / sizeof macros[0]; i++) {
        if (strlen(macros[i].name) == len &&
            strncasecmp(s, macros[i].name, len) == 0) {
            const char *rest = s + len;
            while (*rest == ' ' || *rest == '\t')
                rest++;
            if (*rest != '\0') {
                *rc = sked__error_set(
                    p->err, SKED_EINVAL, "expression", (long) (rest - expr),
                    "unexpected text after %s", macros[i].name);
                return NULL;
            }
            return macros[i].expansion;
        }
    }
    *rc = sked__error_set(p->err, SKED_EINVAL, "expression", (long) (s - expr),
                          "unknown macro \"%.*s\"", (int) (len > 32 ? 32 : len),
                          s);
    return NULL;
}

static int parse_fields(struct parser *p, const char *expr)
{
    const char *starts[7];
    int n = split_fields(expr, starts), first, rc;

    if (n != 5 && n != 6) {
        long pos = n > 6 ? (long) (starts[6] - p->expr) : (long) strlen(expr);
        return sked__error_set(p->err, SKED_EINVAL, "expression", pos,
                               "expected 5 or 6 fields, got %d", n);
    }
    first = n == 6 ? F_SEC : F_MIN;
    if (n == 5)
        p->out->sec = 1;
    else
        p->out->flags |= SKED_CRON_SECONDS;
    for (int i = 0; i < n; i++) {
        const char *s = starts[i];
        p->field = (enum field_id)(first + i);
        if ((rc = parse_field(p, &s)) < 0)
            return rc;
    }
    return 0;
}

int sked_cron_parse(const char *expr, sked_cron *out, sked_error *err)
{
    struct parser p = {.expr = expr, .err = err, .field = F_SEC};
    sked_cron c;
    const char *s;
    size_t len;
    int rc = 0;

    if (!expr || !out)
        return sked__error_set(err, SKED_EINVAL, "expression", -1,
                               "no expression given");
    len = strnlen(expr, SKED_CRON_MAX_LEN + 1);
    if (len > SKED_CRON_MAX_LEN)
        return sked__error_set(
            err, SKED_EINVAL, "expression", SKED_CRON_MAX_LEN,
            "expression is longer than %d bytes", SKED_CRON_MAX_LEN);
    memset(&c, 0, sizeof c);
    p.out = &c;
    s = expr;
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s == '@') {
        const char *expansion = expand_macro(&p, expr, s, &rc);
        if (!expansion)
            return rc;
        p.expr = expansion; /* the expansion is valid: no error refers to it */
        s = expansion;
    } else {
        s = expr;
    }
    if ((rc = parse_fields(&p, s)) < 0)
        return rc;
    if (!can_fire(&c))
        return sked__error_set(err, SKED_EINVAL, "expression", -1,
                               "can never fire: no date matches it");
    *out = c;
    return 0;
}

int sked_cron_is_fixed_time(const sked_cron *c)
{
    return c && __builtin_popcountll(c->sec) == 1 &&
           __builtin_popcountll(c->min) == 1 &&
           __builtin_popcount(c->hour) == 1;
}
