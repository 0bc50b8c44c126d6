/* SPDX-License-Identifier: MIT */
/* The shortest decimal text of a double (dtoa.h).
 *
 * printf's "%.*e" rounds correctly to any number of digits, and strtod
 * reads correctly; the shortest digits are found by asking printf for a
 * few precisions and keeping the first that strtod reads back:
 *   - A decimal of at most 15 significant digits survives the trip to a
 *     double and back (DBL_DIG), so when some decimal of at most 15
 *     digits names X, the 15-digit rounding of X is it, padded with
 *     zeros: 15 digits, trailing zeros dropped, is the shortest whenever
 *     it reads back; and when it does not, nothing shorter does.
 *   - Otherwise the 16-digit rounding is the nearest 16-digit decimal.
 *     It reads back whenever any 16-digit decimal does, because the
 *     doubles around X are equally far on both sides; except at a power
 *     of two, whose lower neighbour is nearer, where the 16-digit
 *     decimal one unit above can read back when the nearest (below)
 *     does not.
 *   - 17 digits always read back.
 *   - A subnormal has fewer significant bits than DBL_DIG supposes
 *     (5e-324 is one digit), so it tries every precision from 1.
 * The text is printf's own (with the locale's decimal point) when it is
 * read back, so no locale can make the check disagree with the digits. */
#include "base/dtoa.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The longest "%.*e" text of a double: "-d.", 16 digits, "e-308". */
#define ETEXT_MAX 40

/* Whether A and B are the same double, bit for bit (-0.0 is not 0.0). */
static bool same(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Write X with PREC significant digits into BUF ("%.*e"); true when
 * strtod reads it back as X. */
static bool at_prec(double x, int prec, char *buf)
{
    (void) snprintf(buf, ETEXT_MAX, "%.*e", prec - 1, x);
    return same(strtod(buf, NULL), x);
}

/* Add one unit in the last digit of the "%.*e" text BUF, in place; true
 * when it reads back as X. A carry out of the first digit (9.99 to
 * 10.00) is left alone: that decimal is one digit, and would have been
 * found at 15 digits. */
static bool up_one(double x, char *buf)
{
    char *e = strchr(buf, 'e'), *p;

    if (!e)
        return false;
    for (p = e - 1; p >= buf; p--) {
        if (*p < '0' || *p > '9')
            continue; /* the decimal point */
        if (*p < '9') {
            (*p)++;
            return same(strtod(buf, NULL), x);
        }
        *p = '0';
    }
    return false;
}

/* The "%.*e" text of X, nonzero and finite, with the fewest digits. */
static void shortest(double x, char *buf)
{
    int m;

    if (fpclassify(x) == FP_SUBNORMAL) {
        for (int prec = 1; prec < 17; prec++)
            if (at_prec(x, prec, buf))
                return;
        (void) at_prec(x, 17, buf);
        return;
    }
    if (at_prec(x, 15, buf) || at_prec(x, 16, buf))
        return;
    if (frexp(x, &m) == (x < 0 ? -0.5 : 0.5)) {
        char up[ETEXT_MAX];

        memcpy(up, buf, ETEXT_MAX);
        if (up_one(x, up)) {
            memcpy(buf, up, ETEXT_MAX);
            return;
        }
    }
    (void) at_prec(x, 17, buf);
}

/* Lay out the N digits DIG (no trailing zero but for zero itself) of a
 * number DIG[0].DIG[1..] x 10^EXP, negative when NEG, at OUT. */
static size_t lay_out(const char *dig, int n, int exp, bool neg, char *out)
{
    char *p = out;

    if (neg)
        *p++ = '-';
    if (exp < -6 || exp > 20) {
        *p++ = dig[0];
        if (n > 1) {
            *p++ = '.';
            memcpy(p, dig + 1, (size_t) n - 1);
            p += n - 1;
        }
        p += sprintf(p, "e%c%d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
        return (size_t) (p - out);
    }
    if (exp < 0) {
        *p++ = '0';
        *p++ = '.';
        for (int i = -1; i > exp; i--)
            *p++ = '0';
        memcpy(p, dig, (size_t) n);
        p += n;
    } else if (exp >= n - 1) {
        memcpy(p, dig, (size_t) n);
        p += n;
        for (int i = n - 1; i < exp; i++)
            *p++ = '0';
        memcpy(p, ".0", 2);
        p += 2;
    } else {
        memcpy(p, dig, (size_t) exp + 1);
        p += exp + 1;
        *p++ = '.';
        memcpy(p, dig + exp + 1, (size_t) (n - exp - 1));
        p += n - exp - 1;
    }
    *p = '\0';
    return (size_t) (p - out);
}

size_t sked__dtoa(double x, char *out)
{
    char buf[ETEXT_MAX], dig[20];
    const char *e;
    int n = 0;

    if (!isfinite(x)) {
        memcpy(out, "null", 5);
        return 4;
    }
    if (x == 0)
        return lay_out("0", 1, 0, signbit(x) != 0, out);
    shortest(x, buf);
    e = strchr(buf, 'e');
    for (const char *p = buf; p < e; p++)
        if (*p >= '0' && *p <= '9' && n < (int) sizeof dig)
            dig[n++] = *p;
    while (n > 1 && dig[n - 1] == '0')
        n--;
    return lay_out(dig, n, atoi(e + 1), x < 0, out);
}
