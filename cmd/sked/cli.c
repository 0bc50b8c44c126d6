/* SPDX-License-Identifier: MIT */
/* The command tree, option parsing, help and error lines shared by every
 * sked subcommand (cli.h). Options are parsed by hand rather than with
 * getopt_long so that nothing lives in globals and "--name=value", help
 * anywhere on the line and exact one-line errors come out the same way
 * for every command. */
#include "cli.h"

#include "base/clock.h"
#include "base/utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Longest part of an input echoed back in an error line. */
#define QUOTE_MAX 100

/* Write IN into BUF for an error line: escaped so that it stays on one
 * line, and cut after QUOTE_MAX bytes with "...". */
static void quote(const char *in, char *buf, size_t size)
{
    size_t n = 0, i;

    for (i = 0; in[i] != '\0' && i < QUOTE_MAX && n + 8 < size; i++) {
        unsigned char c = (unsigned char) in[i];
        size_t k = sked__utf8_len(in + i, strnlen(in + i, 4));

        if (c == '"' || c == '\\') {
            n += (size_t) snprintf(buf + n, size - n, "\\%c", c);
        } else if (c < 0x20 || c == 0x7f || k == 0) {
            /* A control character or a byte that is no UTF-8: the line
             * stays one line of valid UTF-8. */
            n += (size_t) snprintf(buf + n, size - n, "\\x%02x", c);
        } else {
            memcpy(buf + n, in + i, k);
            n += k;
            i += k - 1;
        }
    }
    if (in[i] != '\0')
        n += (size_t) snprintf(buf + n, size - n, "...");
    buf[n] = '\0';
}

/* Set when a failure was printed by cli_fail_once. */
static bool error_shown;

int cli_fail_once(int code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!error_shown)
        fprintf(stderr, "sked: %s\n", msg);
    error_shown = true;
    return code;
}

void cli_mark_shown(void)
{
    error_shown = true;
}

int cli_fail(int code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    if (error_shown)
        return sked_error_exit_code(code);
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "sked: %s\n", msg);
    return sked_error_exit_code(code);
}

void cli_warn(const char *msg)
{
    fprintf(stderr, "sked: warning: %s\n", msg);
}

int cli_usage_error(const cli_cmd *self, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "sked: %s (see '%s --help')\n", msg, self->path);
    return sked_error_exit_code(SKED_EUSAGE);
}

int cli_invalid(const char *what, const char *input, const sked_error *err)
{
    char q[QUOTE_MAX * 4 + 8], line[1024];
    int code = err->code < 0 ? err->code : SKED_EINVAL;
    size_t n;

    quote(input, q, sizeof q);
    n = (size_t) snprintf(line, sizeof line, "invalid %s \"%s\"", what, q);
    if (err->field[0] != '\0' && n < sizeof line)
        n += (size_t) snprintf(line + n, sizeof line - n, ": %s", err->field);
    if (n < sizeof line)
        n += (size_t) snprintf(line + n, sizeof line - n, ": %s",
                               err->msg[0] ? err->msg : sked_strerror(code));
    if (err->pos >= 0 && n < sizeof line)
        snprintf(line + n, sizeof line - n, " (at byte %d)", err->pos + 1);
    return cli_fail(code, "%s", line);
}

const cli_cmd *cli_find(const cli_cmd *group, const char *name)
{
    for (const cli_cmd *const *c = group->subs; c && *c; c++)
        if (strcmp((*c)->name, name) == 0)
            return *c;
    return NULL;
}

int cli_help(const cli_cmd *cmd)
{
    if (!cmd->subs) {
        fputs(cmd->help, stdout);
        return cli_flush();
    }
    printf("Usage: %s COMMAND [ARGS]\n\n%s.\n\nCommands:\n", cmd->path,
           cmd->summary);
    for (const cli_cmd *const *c = cmd->subs; *c; c++)
        printf("  %-10s %s\n", (*c)->name, (*c)->summary);
    if (cmd->help)
        printf("\n%s", cmd->help);
    printf("\nRun '%s COMMAND --help' for more about a command.\n", cmd->path);
    return cli_flush();
}

static bool is_help(const char *a)
{
    return strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0;
}

int cli_run_group(const cli_cmd *self, int argc, char **argv)
{
    const cli_cmd *sub;

    if (argc < 2)
        return cli_usage_error(self, "missing command");
    if (is_help(argv[1]))
        return cli_help(self);
    sub = cli_find(self, argv[1]);
    if (sub)
        return sub->run(sub, argc - 1, argv + 1);
    if (argv[1][0] == '-')
        return cli_usage_error(self, "unknown option \"%.64s\"", argv[1]);
    return cli_usage_error(self, "unknown command \"%.64s\"", argv[1]);
}

static const cli_opt *find_long(const cli_opt *opts, const char *name,
                                size_t len)
{
    for (const cli_opt *o = opts; o && o->name; o++)
        if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
            return o;
    return NULL;
}

static const cli_opt *find_short(const cli_opt *opts, char c)
{
    for (const cli_opt *o = opts; o && o->name; o++)
        if (o->short_name != '\0' && o->short_name == c)
            return o;
    return NULL;
}

/* Store the value of option O, written INLINE ("--tz=X", "-n5") or taken
 * from the next argument. SHOWN is the option as the user wrote it. */
static int take_value(const cli_cmd *self, const cli_opt *o, const char *shown,
                      const char *inline_value, int argc, char **argv, int *i)
{
    if (o->kind == CLI_OPT_FLAG) {
        if (inline_value)
            return cli_usage_error(self, "option %s takes no value", shown);
        *(bool *) o->dest = true;
        return CLI_CONTINUE;
    }
    if (!inline_value) {
        if (*i + 1 >= argc)
            return cli_usage_error(self, "option %s needs a value", shown);
        inline_value = argv[++*i];
    }
    if (o->kind == CLI_OPT_LIST) {
        cli_list *l = o->dest;

        if (l->n == CLI_LIST_MAX)
            return cli_usage_error(self, "option %s given more than %d times",
                                   shown, CLI_LIST_MAX);
        l->v[l->n++] = inline_value;
        return CLI_CONTINUE;
    }
    *(const char **) o->dest = inline_value;
    return CLI_CONTINUE;
}

static int parse_long(const cli_cmd *self, const cli_opt *opts, int argc,
                      char **argv, int *i)
{
    const char *name = argv[*i] + 2;
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t) (eq - name) : strlen(name);
    const cli_opt *o = find_long(opts, name, len);
    char shown[80];

    snprintf(shown, sizeof shown, "--%.*s", (int) (len < 64 ? len : 64), name);
    if (!o)
        return cli_usage_error(self, "unknown option \"%s\"", shown);
    return take_value(self, o, shown, eq ? eq + 1 : NULL, argc, argv, i);
}

static int parse_short(const cli_cmd *self, const cli_opt *opts, int argc,
                       char **argv, int *i)
{
    const char *a = argv[*i];
    const cli_opt *o = find_short(opts, a[1]);
    char shown[8];

    snprintf(shown, sizeof shown, "-%c", a[1]);
    if (!o)
        return cli_usage_error(self, "unknown option \"%s\"", shown);
    if (o->kind == CLI_OPT_FLAG && a[2] != '\0')
        return cli_usage_error(self, "unknown option \"%.64s\"", a);
    return take_value(self, o, shown, a[2] ? a + 2 : NULL, argc, argv, i);
}

int cli_parse(const cli_cmd *self, int argc, char **argv, const cli_opt *opts,
              cli_args *out)
{
    bool options_done = false;
    int rc;

    out->npos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (options_done || a[0] != '-' || a[1] == '\0') {
            if (out->npos == CLI_POS_MAX)
                return cli_usage_error(self, "too many arguments");
            out->pos[out->npos++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            options_done = true;
            continue;
        }
        if (is_help(a))
            return cli_help(self);
        rc = a[1] == '-' ? parse_long(self, opts, argc, argv, &i)
                         : parse_short(self, opts, argc, argv, &i);
        if (rc != CLI_CONTINUE)
            return rc;
    }
    return CLI_CONTINUE;
}

int cli_parse_count(const cli_cmd *self, const char *flag, const char *s,
                    long min, long max, long *out)
{
    long v = 0;
    size_t i;

    for (i = 0; s[i] >= '0' && s[i] <= '9' && v <= max; i++)
        v = v * 10 + (s[i] - '0');
    if (i == 0 || s[i] != '\0' || v < min || v > max)
        return cli_usage_error(self,
                               "invalid %s \"%.64s\": expected a whole "
                               "number from %ld to %ld",
                               flag, s, min, max);
    *out = v;
    return 0;
}

int cli_parse_instant(const char *flag, const char *s, sked_time *out)
{
    sked_error err;

    sked_error_clear(&err);
    if (sked_time_parse(s, out, &err) < 0)
        return cli_invalid(flag, s, &err);
    return 0;
}

char *cli_format(const char *fmt, ...)
{
    va_list ap;
    char *s;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !(s = malloc((size_t) n + 1)))
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t) n + 1, fmt, ap);
    va_end(ap);
    return s;
}

sked_time cli_now(void)
{
    return sked__clock_now(NULL);
}

int cli_flush(void)
{
    if (fflush(stdout) != 0 || ferror(stdout))
        return cli_fail(SKED_EIO, "cannot write the output");
    return 0;
}

int cli_parse_options(const cli_cmd *self, int argc, char **argv,
                      const cli_opt *opts)
{
    cli_args args;
    int rc = cli_parse(self, argc, argv, opts, &args);

    if (rc == CLI_CONTINUE && args.npos > 0)
        return cli_usage_error(self, "unexpected argument \"%.64s\"",
                               args.pos[0]);
    return rc;
}

int cli_one_arg(const cli_cmd *self, const cli_args *args, const char *what)
{
    if (args->npos == 0)
        return cli_usage_error(self, "missing the %s", what);
    if (args->npos > 1)
        return cli_usage_error(self, "too many arguments");
    return 0;
}
