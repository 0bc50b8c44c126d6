/* SPDX-License-Identifier: MIT */
/* Help texts read back as parts (helpdoc.h), and the commands of sked(1)
 * written from them in scdoc's syntax. The layout of a help text is the
 * one cli_help prints; a text that breaks it is refused by name, so a
 * new command cannot silently drop out of the man page. */
#include "helpdoc.h"

#include <string.h>

static bool blank(helpdoc_str l)
{
    for (int i = 0; i < l.n; i++)
        if (l.s[i] != ' ')
            return false;
    return true;
}

static int indent(helpdoc_str l)
{
    int i = 0;

    while (i < l.n && l.s[i] == ' ')
        i++;
    return i;
}

static bool is(helpdoc_str l, const char *word)
{
    return (size_t) l.n == strlen(word) && memcmp(l.s, word, (size_t) l.n) == 0;
}

/* Split TEXT into lines, without their '\n'. Returns the count or -1. */
static int split(const char *text, helpdoc_str *v, int max)
{
    int n = 0;

    while (text && *text) {
        const char *nl = strchr(text, '\n');
        int len = nl ? (int) (nl - text) : (int) strlen(text);

        if (n == max)
            return -1;
        v[n++] = (helpdoc_str){text, len};
        text += len + (nl ? 1 : 0);
    }
    return n;
}

/* Append the usage line L (a form, or a continuation) to D. */
static int add_usage(helpdoc *d, helpdoc_str l, bool first)
{
    int at = indent(l);
    helpdoc_str w = {l.s + at, l.n - at};
    bool form = first || (w.n > 5 && memcmp(w.s, "sked ", 5) == 0);
    char *u;
    size_t len;

    if (d->nusage_lines == 16)
        return -1;
    d->usage_lines[d->nusage_lines++] =
        first ? l
              : (helpdoc_str){l.s + (at < 7 ? at : 7), l.n - (at < 7 ? at : 7)};
    if (form) {
        if (d->nusage == 8)
            return -1;
        d->usage[d->nusage++][0] = '\0';
    } else if (d->nusage == 0) {
        return -1;
    }
    u = d->usage[d->nusage - 1];
    len = strlen(u);
    if (len + (size_t) w.n + 2 > sizeof d->usage[0])
        return -1;
    snprintf(u + len, sizeof d->usage[0] - len, "%s%.*s", len ? " " : "", w.n,
             w.s);
    return 0;
}

/* Read the head of an option entry, "  -n, --count N  words", into O;
 * the words, when on this line, go to D's lines. Returns 0 or -1. */
static int opt_head(helpdoc *d, helpdoc_str l, helpdoc_opt *o)
{
    const char *p = l.s + 2, *end = l.s + l.n, *q;

    memset(o, 0, sizeof *o);
    if (end - p >= 4 && p[0] == '-' && p[1] != '-' && p[2] == ',') {
        o->short_name = p[1];
        p += 4;
    }
    if (end - p < 3 || p[0] != '-' || p[1] != '-')
        return -1;
    p += 2;
    for (q = p; q < end && *q != ' ' && *q != '='; q++)
        ;
    o->name = (helpdoc_str){p, (int) (q - p)};
    /* "--name ARG  words": ARG is one word followed by two spaces or the
     * end; "--name words" (one space) has no ARG. */
    if (q + 1 < end && *q == ' ' && q[1] != ' ') {
        const char *a = q + 1, *e = a;

        while (e < end && *e != ' ')
            e++;
        if (e == end || (e + 1 < end && e[1] == ' ')) {
            o->arg = (helpdoc_str){a, (int) (e - a)};
            q = e;
        }
    }
    while (q < end && *q == ' ')
        q++;
    o->first = d->nlines;
    if (q < end) {
        d->lines[d->nlines++] = (helpdoc_str){q, (int) (end - q)};
        o->nlines = 1;
    }
    return o->name.n > 0 ? 0 : -1;
}

/* Read the options section, LINES[*i..], up to a blank line. */
static int options(helpdoc *d, const helpdoc_str *v, int n, int *i)
{
    for (; *i < n && !blank(v[*i]); ++*i) {
        helpdoc_str l = v[*i];
        int at = indent(l);

        if (at == 2 && l.n > 2 && l.s[2] == '-') {
            if (d->nopts == HELPDOC_OPTS ||
                opt_head(d, l, &d->opts[d->nopts]) != 0)
                return -1;
            d->nopts++;
        } else if (at > 2 && d->nopts > 0 && d->nlines < HELPDOC_LINES) {
            d->lines[d->nlines++] = (helpdoc_str){l.s + at, l.n - at};
            d->opts[d->nopts - 1].nlines++;
        } else {
            return -1;
        }
    }
    return 0;
}

int helpdoc_parse(const cli_cmd *cmd, helpdoc *d)
{
    helpdoc_str v[HELPDOC_LINES];
    int n = split(cmd->help, v, HELPDOC_LINES), i = 0;

    memset(d, 0, sizeof *d);
    if (n < 0)
        return -1;
    if (!cmd->subs) {
        if (n == 0 || v[0].n < 7 || memcmp(v[0].s, "Usage: ", 7) != 0)
            return -1;
        if (add_usage(d, (helpdoc_str){v[0].s + 7, v[0].n - 7}, true) != 0)
            return -1;
        for (i = 1; i < n && !blank(v[i]); i++)
            if (add_usage(d, v[i], false) != 0)
                return -1;
    } else {
        int len = snprintf(d->group_usage, sizeof d->group_usage,
                           "%s COMMAND [ARGS]", cmd->path);

        if (len < 0 || (size_t) len >= sizeof d->group_usage ||
            add_usage(d, (helpdoc_str){d->group_usage, len}, true) != 0)
            return -1;
    }
    for (; i < n && !is(v[i], "Options:"); i++)
        d->body[d->nbody++] = v[i];
    if (i < n) {
        i++;
        if (options(d, v, n, &i) != 0)
            return -1;
    }
    for (; i < n; i++)
        d->tail[d->ntail++] = v[i];
    return 0;
}

int helpdoc_walk(const cli_cmd *root, int (*fn)(const cli_cmd *, void *),
                 void *arg)
{
    int rc = fn(root, arg);

    for (const cli_cmd *const *c = root->subs; rc == 0 && c && *c; c++)
        rc = helpdoc_walk(*c, fn, arg);
    return rc;
}

/* ---- scdoc ----------------------------------------------------------- */

/* Write S[0..N) with scdoc's marks escaped; in a literal block only the
 * backslash is special. */
static void esc(FILE *out, const char *s, int n, bool literal)
{
    for (int i = 0; i < n; i++) {
        if (s[i] == '\\' || (!literal && (s[i] == '*' || s[i] == '_')))
            fputc('\\', out);
        fputc(s[i], out);
    }
}

/* Write lines V[0..N) of prose: paragraphs joined into one line each,
 * indented lines (lists, examples) as literal blocks. */
static void prose(FILE *out, const helpdoc_str *v, int n)
{
    int i = 0;

    while (i < n) {
        if (blank(v[i])) {
            i++;
            continue;
        }
        if (indent(v[i]) > 0) {
            fputs("```\n", out);
            for (; i < n && (indent(v[i]) > 0 || blank(v[i])); i++) {
                int at = indent(v[i]) < 2 ? indent(v[i]) : 2;

                esc(out, v[i].s + at, v[i].n - at, true);
                fputc('\n', out);
            }
            fputs("```\n\n", out);
            continue;
        }
        for (int first = i; i < n && !blank(v[i]) && indent(v[i]) == 0; i++) {
            if (i > first)
                fputc(' ', out);
            esc(out, v[i].s, v[i].n, false);
        }
        fputs("\n\n", out);
    }
}

static void opts(FILE *out, const helpdoc *d)
{
    for (int k = 0; k < d->nopts; k++) {
        const helpdoc_opt *o = &d->opts[k];

        fputc('*', out);
        if (o->short_name)
            fprintf(out, "-%c, ", o->short_name);
        fputs("--", out);
        esc(out, o->name.s, o->name.n, false);
        fputc('*', out);
        if (o->arg.n) {
            fputs(" _", out);
            esc(out, o->arg.s, o->arg.n, false);
            fputc('_', out);
        }
        fputs("\n\t", out);
        for (int j = 0; j < o->nlines; j++) {
            const helpdoc_str *l = &d->lines[o->first + j];

            if (j)
                fputc(' ', out);
            esc(out, l->s, l->n, false);
        }
        fputs("\n\n", out);
    }
}

static int command(const cli_cmd *cmd, void *arg)
{
    FILE *out = arg;
    helpdoc d;

    if (helpdoc_parse(cmd, &d) != 0) {
        fprintf(stderr, "sked: the help of \"%s\" does not parse\n", cmd->path);
        return -1;
    }
    if (strcmp(cmd->path, "sked") == 0) {
        fputs("# OPTIONS\n\nThese go before the command.\n\n", out);
        opts(out, &d);
        fputs("# COMMANDS\n\n", out);
        return 0;
    }
    fprintf(out, "## %s\n\n```\n", cmd->path);
    for (int i = 0; i < d.nusage_lines; i++) {
        esc(out, d.usage_lines[i].s, d.usage_lines[i].n, true);
        fputc('\n', out);
    }
    fputs("```\n\n", out);
    if (cmd->subs) {
        esc(out, cmd->summary, (int) strlen(cmd->summary), false);
        fputs(". Its commands:\n\n", out);
        for (const cli_cmd *const *c = cmd->subs; *c; c++) {
            fprintf(out, "- *%s*: ", (*c)->name);
            esc(out, (*c)->summary, (int) strlen((*c)->summary), false);
            fputs("\n", out);
        }
        fputs("\n", out);
    }
    prose(out, d.body, d.nbody);
    if (d.nopts > 0)
        fputs("Options:\n\n", out);
    opts(out, &d);
    prose(out, d.tail, d.ntail);
    return 0;
}

int helpdoc_scdoc(const cli_cmd *root, FILE *out)
{
    return helpdoc_walk(root, command, out);
}

int helpdoc_scdoc_options(const cli_cmd *cmd, FILE *out)
{
    helpdoc d;

    if (helpdoc_parse(cmd, &d) != 0) {
        fprintf(stderr, "sked: the help of \"%s\" does not parse\n", cmd->path);
        return -1;
    }
    opts(out, &d);
    return 0;
}
