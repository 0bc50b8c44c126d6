/* SPDX-License-Identifier: MIT */
/* The help texts of the command tree read back as parts: usage lines,
 * description, options and what follows them. The man page's commands
 * and the shell completions are written from these parts, so that they
 * say what --help says and cannot drift from it.
 *
 * A help text is "Usage: ..." with indented continuation lines, a blank
 * line, paragraphs, then "Options:" and one entry per option:
 * "  -n, --count N  words" (two spaces before the words; a long head puts
 * them on the next lines, indented further), then more paragraphs
 * ("Example:" and the like). A group's help is the same without the
 * usage. Parts are slices of the help text, which is static. */
#ifndef SKED_CMD_HELPDOC_H
#define SKED_CMD_HELPDOC_H

#include <stdio.h>

#include "cli.h"

/* Most lines, and most options, one help text has. */
#define HELPDOC_LINES 160
#define HELPDOC_OPTS  64

/* A piece of a help text: S[0..N), not NUL-terminated. */
typedef struct helpdoc_str {
    const char *s;
    int n;
} helpdoc_str;

typedef struct helpdoc_opt {
    char short_name;   /* 'n' for -n, or 0 */
    helpdoc_str name;  /* "count" for --count */
    helpdoc_str arg;   /* "N", or empty for a flag */
    int first, nlines; /* its words: lines[first..first+nlines) */
} helpdoc_opt;

typedef struct helpdoc {
    helpdoc_str lines[HELPDOC_LINES]; /* the words of the options */
    int nlines;
    char usage[8][512]; /* each form, its continuation lines joined */
    int nusage;
    helpdoc_str usage_lines[16]; /* as written, without "Usage: " */
    int nusage_lines;
    char group_usage[128];           /* a group's "PATH COMMAND [ARGS]" */
    helpdoc_str body[HELPDOC_LINES]; /* lines before Options: */
    int nbody;
    helpdoc_str tail[HELPDOC_LINES]; /* lines after the options */
    int ntail;
    helpdoc_opt opts[HELPDOC_OPTS];
    int nopts;
} helpdoc;

/* Read the help of CMD into *D (a group's free text, a leaf's whole
 * help). Returns 0, or -1 when the text breaks the layout above. */
int helpdoc_parse(const cli_cmd *cmd, helpdoc *d);

/* Call FN on every command of the tree under ROOT, ROOT first, parents
 * before their commands. Stops at, and returns, the first non-zero
 * return of FN. */
int helpdoc_walk(const cli_cmd *root, int (*fn)(const cli_cmd *, void *),
                 void *arg);

/* Write the scdoc source of the OPTIONS and COMMANDS sections of sked(1)
 * for the tree under ROOT to OUT. Returns 0, or -1 on a text that does
 * not parse (named on stderr). */
int helpdoc_scdoc(const cli_cmd *root, FILE *out);

/* Write the scdoc source of the options of CMD alone to OUT (for
 * sked-server(8)). Returns 0 or -1, as helpdoc_scdoc. */
int helpdoc_scdoc_options(const cli_cmd *cmd, FILE *out);

#endif
