/* SPDX-License-Identifier: MIT */
/* Tables, JSON and instants for the commands that print (output.h). */
#include "output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_text.h"
#include "cli.h"

void out_table_init(out_table *t, size_t ncols, const char *const *heads)
{
    memset(t, 0, sizeof *t);
    t->ncols = ncols < OUT_COLS_MAX ? ncols : OUT_COLS_MAX;
    for (size_t i = 0; i < t->ncols; i++)
        t->heads[i] = heads[i];
}

int out_table_add(out_table *t, const char *const *cells)
{
    size_t base;

    if (t->nrows == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        char **v = realloc(t->cells, cap * t->ncols * sizeof *v);

        if (!v)
            return SKED_ENOMEM;
        t->cells = v;
        t->cap = cap;
    }
    base = t->nrows * t->ncols;
    for (size_t i = 0; i < t->ncols; i++) {
        if (!(t->cells[base + i] = strdup(cells[i] ? cells[i] : "-"))) {
            while (i-- > 0)
                free(t->cells[base + i]);
            return SKED_ENOMEM;
        }
    }
    t->nrows++;
    return 0;
}

/* Print one row: every cell padded to its column's width but the last. */
static void print_row(const out_table *t, const char *const *cells,
                      const size_t *width, bool upper)
{
    for (size_t c = 0; c < t->ncols; c++) {
        const char *s = cells[c];
        size_t len = strlen(s);

        for (size_t k = 0; k < len; k++)
            putchar(upper && s[k] >= 'a' && s[k] <= 'z' ? s[k] - 'a' + 'A'
                                                        : s[k]);
        if (c + 1 < t->ncols)
            printf("%*s", (int) (width[c] - len + 2), "");
    }
    putchar('\n');
}

void out_table_print(const out_table *t)
{
    size_t width[OUT_COLS_MAX];

    for (size_t c = 0; c < t->ncols; c++) {
        width[c] = strlen(t->heads[c]);
        for (size_t r = 0; r < t->nrows; r++) {
            size_t len = strlen(t->cells[r * t->ncols + c]);

            if (len > width[c])
                width[c] = len;
        }
    }
    print_row(t, t->heads, width, true);
    for (size_t r = 0; r < t->nrows; r++)
        print_row(t, (const char *const *) &t->cells[r * t->ncols], width,
                  false);
}

void out_table_done(out_table *t)
{
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    memset(t, 0, sizeof *t);
}

int out_json(json_t *j)
{
    size_t len = 0;
    char *text = sked__json_write(j, SKED_JSON_PRETTY, &len);
    bool ok;

    json_decref(j);
    if (!text)
        return cli_fail(SKED_ENOMEM, "out of memory");
    ok = fwrite(text, 1, len, stdout) == len && putchar('\n') != EOF;
    free(text);
    if (!ok)
        return cli_fail(SKED_EIO, "cannot write the output");
    return cli_flush();
}

void out_warnings(const json_t *warnings)
{
    const json_t *w;
    size_t i;

    json_array_foreach(warnings, i, w)
    {
        if (json_is_string(w))
            cli_warn(json_string_value(w));
    }
}

void out_time_utc(sked_time t, char *buf, size_t size)
{
    if (t == SKED_TIME_NONE || sked_time_format(t, buf, size) < 0)
        snprintf(buf, size, "-");
}

void out_time_local(sked_time t, const sked_tz *tz, char *buf, size_t size)
{
    sked_tz_info info;

    if (t == SKED_TIME_NONE || sked_tz_lookup(tz, t, &info) < 0 ||
        sked_time_format_offset(t, info.utoff, buf, size) < 0)
        snprintf(buf, size, "-");
}
