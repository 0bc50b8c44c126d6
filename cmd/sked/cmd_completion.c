/* SPDX-License-Identifier: MIT */
/* "sked completion bash|zsh|fish": the shell completion scripts, written
 * from the command tree and its help texts (helpdoc.h), as the man page
 * is, so that they offer what --help lists and nothing else.
 *
 * Each script holds one table, the spec of every command: its
 * subcommands, its options, which options take a value and what kind of
 * value, and what its first argument is. A small function per shell
 * walks the words typed so far down the tree and offers the subcommands,
 * the options, or the values. Names of schedules, workflows, calendars
 * and notifiers come from "sked ... list --names", run with the --db or
 * --server of the line being completed, so that they come from the same
 * database or server the command will use. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "helpdoc.h"

typedef enum shell { SH_BASH, SH_ZSH, SH_FISH } shell;

/* The kind of a value: a word of the table below, "words:a,b" for a
 * fixed choice, or "" for anything. */
#define KIND_MAX 128

typedef struct emit {
    shell sh;
    FILE *out;
} emit;

/* Write KIND for the argument placeholder ARG[0..N) of command PATH
 * ("NAME" of "sked schedule get" is a schedule's name). */
static void arg_kind(const char *path, const char *arg, int n, char *kind)
{
    kind[0] = '\0';
    while (n > 0 && (arg[0] == '[' || arg[0] == '-'))
        arg++, n--;
    while (n > 0 && (arg[n - 1] == ']' || arg[n - 1] == '.'))
        n--;
    if (n == 4 && memcmp(arg, "NAME", 4) == 0) {
        if (strncmp(path, "sked schedule ", 14) == 0 ||
            strcmp(path, "sked ping") == 0)
            strcpy(kind, "schedule");
        else if (strncmp(path, "sked calendar ", 14) == 0)
            strcpy(kind, "calendar");
        else if (strncmp(path, "sked notify ", 12) == 0)
            strcpy(kind, "notifier");
    } else if (n == 8 && memcmp(arg, "WORKFLOW", 8) == 0) {
        strcpy(kind, "workflow");
    } else if ((n == 4 && memcmp(arg, "FILE", 4) == 0) ||
               (n == 1 && arg[0] == 'F')) {
        strcpy(kind, "file");
    } else if (n > 0 && n < KIND_MAX - 7 && memchr(arg, '|', (size_t) n) &&
               arg[0] >= 'a' && arg[0] <= 'z') {
        snprintf(kind, KIND_MAX, "words:%.*s", n, arg);
        for (char *c = kind; *c; c++)
            if (*c == '|')
                *c = ',';
    }
}

/* The choice the usage lines of D give for option O, as in
 * "[--log-format logfmt|json]", into KIND ("" when none). */
static void usage_choice(const helpdoc *d, const helpdoc_opt *o, char *kind)
{
    char flag[80];

    kind[0] = '\0';
    snprintf(flag, sizeof flag, "--%.*s ", o->name.n, o->name.s);
    for (int i = 0; i < d->nusage_lines && !kind[0]; i++) {
        const helpdoc_str *l = &d->usage_lines[i];

        for (int k = 0; k + (int) strlen(flag) < l->n && !kind[0]; k++) {
            const char *v = l->s + k + strlen(flag);
            int n = 0;

            if (memcmp(l->s + k, flag, strlen(flag)) != 0)
                continue;
            while (v + n < l->s + l->n && v[n] != ']' && v[n] != ' ')
                n++;
            arg_kind("", v, n, kind);
            if (strncmp(kind, "words:", 6) != 0)
                kind[0] = '\0';
        }
    }
}

/* The kind of the value of option O of D's command PATH. */
static void opt_kind(const char *path, const helpdoc *d, const helpdoc_opt *o,
                     char *kind)
{
    static const struct {
        const char *name, *kind;
    } by_name[] = {
        {"schedule", "schedule"}, {"workflow", "workflow"},
        {"include", "calendar"},  {"exclude", "calendar"},
        {"only", "calendar"},
    };

    for (size_t i = 0; i < sizeof by_name / sizeof by_name[0]; i++)
        if ((size_t) o->name.n == strlen(by_name[i].name) &&
            memcmp(o->name.s, by_name[i].name, (size_t) o->name.n) == 0) {
            strcpy(kind, by_name[i].kind);
            return;
        }
    arg_kind(path, o->arg.s, o->arg.n, kind);
    /* NAME and WORKFLOW name the command's argument, not an option's; F
     * is a file only for an option named so. */
    if (strncmp(kind, "words:", 6) == 0)
        return;
    if (strcmp(kind, "file") == 0 &&
        (o->arg.n == 4 ||
         (o->name.n > 5 && memcmp(o->name.s + o->name.n - 5, "-file", 5) == 0)))
        return;
    usage_choice(d, o, kind);
}

/* The kind of the first argument of CMD, from its first usage form. */
static void first_arg(const cli_cmd *cmd, const helpdoc *d, char *kind)
{
    const char *u = d->usage[0] + strlen(cmd->path);
    size_t n;

    kind[0] = '\0';
    if (cmd->subs || strncmp(d->usage[0], cmd->path, strlen(cmd->path)) != 0)
        return;
    while (*u == ' ')
        u++;
    n = strcspn(u, " ");
    if (strcmp(cmd->path, "sked help") == 0) {
        strcpy(kind, "words:");
        for (const cli_cmd *const *c = cli_root()->subs; *c; c++)
            if (strlen(kind) + strlen((*c)->name) + 2 < KIND_MAX)
                strcat(strcat(kind, c == cli_root()->subs ? "" : ","),
                       (*c)->name);
        return;
    }
    arg_kind(cmd->path, u, (int) n, kind);
}

/* Write S in single quotes for SH. */
static void quoted(const emit *e, const char *s, int n)
{
    fputc('\'', e->out);
    for (int i = 0; i < n; i++) {
        if (s[i] == '\'')
            fputs(e->sh == SH_FISH ? "\\'" : "'\\''", e->out);
        else if (s[i] == '\\' && e->sh == SH_FISH)
            fputs("\\\\", e->out);
        else
            fputc(s[i], e->out);
    }
    fputc('\'', e->out);
}

/* A list of words for the spec, separated by spaces; words hold no
 * space nor quote (option names, command names, kinds). */
typedef struct words {
    char s[4096];
    size_t n;
} words;

static void add(words *w, const char *fmt, ...) SKED__PRINTF(2, 3);

static void add(words *w, const char *fmt, ...)
{
    va_list ap;
    int k;

    if (w->n + 2 >= sizeof w->s)
        return;
    if (w->n)
        w->s[w->n++] = ' ';
    va_start(ap, fmt);
    k = vsnprintf(w->s + w->n, sizeof w->s - w->n, fmt, ap);
    va_end(ap);
    if (k > 0)
        w->n = w->n + (size_t) k < sizeof w->s ? w->n + (size_t) k
                                               : sizeof w->s - 1;
    w->s[w->n] = '\0';
}

/* Write the variable NAME holding W: one string for bash and zsh, a list
 * for fish. */
static void var(const emit *e, const char *name, const words *w)
{
    if (e->sh == SH_FISH)
        fprintf(e->out, "        set -g __sked_%s %s\n", name, w->s);
    else
        fprintf(e->out, "        %s='%s'\n", name, w->s);
}

/* The subcommands' summaries, for the shells that show them: zsh's
 * "name:summary" array, fish's list parallel to subs. */
static void summaries(const emit *e, const cli_cmd *cmd)
{
    if (e->sh == SH_BASH || !cmd->subs)
        return;
    fputs(e->sh == SH_ZSH ? "        descs=(" : "        set -g __sked_descs",
          e->out);
    for (const cli_cmd *const *c = cmd->subs; *c; c++) {
        char line[256];
        int n = snprintf(line, sizeof line, "%s%s%s",
                         e->sh == SH_ZSH ? (*c)->name : "",
                         e->sh == SH_ZSH ? ":" : "", (*c)->summary);

        if (n < 0)
            continue;
        if (c != cmd->subs || e->sh == SH_FISH)
            fputc(' ', e->out);
        quoted(e, line, n < (int) sizeof line ? n : (int) sizeof line - 1);
    }
    fputs(e->sh == SH_ZSH ? ")\n" : "\n", e->out);
}

/* Write the spec of CMD: subs, opts (every spelling), valued (those
 * taking a value), kinds ("--opt=KIND" for values that can be offered),
 * pos (the kind of the first argument). */
static int spec(const cli_cmd *cmd, void *arg)
{
    const emit *e = arg;
    char kind[KIND_MAX];
    words subs = {{0}, 0}, opts = {{0}, 0}, valued = {{0}, 0}, kinds = {{0}, 0};
    helpdoc d;

    if (helpdoc_parse(cmd, &d) != 0) {
        fprintf(stderr, "sked: the help of \"%s\" does not parse\n", cmd->path);
        return -1;
    }
    for (const cli_cmd *const *c = cmd->subs; c && *c; c++)
        add(&subs, "%s", (*c)->name);
    for (int i = 0; i < d.nopts; i++) {
        const helpdoc_opt *o = &d.opts[i];

        add(&opts, "--%.*s", o->name.n, o->name.s);
        if (o->short_name)
            add(&opts, "-%c", o->short_name);
        if (o->arg.n == 0)
            continue;
        add(&valued, "--%.*s", o->name.n, o->name.s);
        if (o->short_name)
            add(&valued, "-%c", o->short_name);
        opt_kind(cmd->path, &d, o, kind);
        if (!kind[0])
            continue;
        add(&kinds, "--%.*s=%s", o->name.n, o->name.s, kind);
        if (o->short_name)
            add(&kinds, "-%c=%s", o->short_name, kind);
    }
    first_arg(cmd, &d, kind);
    fprintf(e->out, e->sh == SH_FISH ? "    case '%s'\n" : "    '%s')\n",
            cmd->path);
    var(e, "subs", &subs);
    summaries(e, cmd);
    var(e, "opts", &opts);
    var(e, "valued", &valued);
    var(e, "kinds", &kinds);
    if (e->sh == SH_FISH)
        fprintf(e->out, "        set -g __sked_pos '%s'\n", kind);
    else
        fprintf(e->out, "        pos='%s'\n        ;;\n", kind);
    return 0;
}

/* ---- the scripts ----------------------------------------------------- */

/* The names of kind $1 (schedule, workflow, calendar, notifier) starting
 * with $2, from the database or server of the line: one function that
 * bash and zsh both read. */
#define NAMES_FN                                                               \
    "# The names of kind $1 (schedule, workflow, calendar, notifier)\n"        \
    "# starting with $2, from the database or server of the line.\n"           \
    "_sked_names() {\n"                                                        \
    "    local -a ask\n"                                                       \
    "    case $1 in\n"                                                         \
    "    schedule) ask=(schedule list --names --prefix \"$2\") ;;\n"           \
    "    workflow) ask=(workflow list --names) ;;\n"                           \
    "    calendar) ask=(calendar list --names) ;;\n"                           \
    "    notifier) ask=(notify list --names) ;;\n"                             \
    "    *) return 0 ;;\n"                                                     \
    "    esac\n"                                                               \
    "    \"$_sked_bin\" \"${_sked_target[@]}\" \"${ask[@]}\" 2>/dev/null "     \
    "</dev/null\n"                                                             \
    "}\n"

static const char bash_head[] =
    "# bash completion of sked, written by \"sked completion bash\" from\n"
    "# the commands' help. Load it with: source <(sked completion bash)\n"
    "\n"
    "# The spec of command $1: subs, opts, valued, kinds, pos.\n"
    "_sked_spec() {\n"
    "    subs='' opts='' valued='' kinds='' pos=''\n"
    "    case $1 in\n";

static const char bash_tail[] =
    "    esac\n"
    "}\n"
    "\n" NAMES_FN "\n"
    "# Offer the values of kind $1 for the word $2.\n"
    "_sked_values() {\n"
    "    local kind=$1 IFS=$'\\n'\n"
    "    case $kind in\n"
    "    '') ;;\n"
    "    file)\n"
    "        compopt -o filenames 2>/dev/null\n"
    "        COMPREPLY=($(compgen -f -- \"$2\")) ;;\n"
    "    words:*)\n"
    "        kind=${kind#words:}\n"
    "        COMPREPLY=($(compgen -W \"${kind//,/$'\\n'}\" -- \"$2\")) ;;\n"
    "    *) COMPREPLY=($(compgen -W \"$(_sked_names \"$kind\" \"$2\")\" -- "
    "\"$2\")) ;;\n"
    "    esac\n"
    "}\n"
    "\n"
    "_sked() {\n"
    "    local -a words=() _sked_target=()\n"
    "    local cword=0 i w cmdpath=sked skip='' npos=0 cur prev kind raw\n"
    "    local subs opts valued kinds pos _sked_bin\n"
    "    # The words as typed: bash cuts \"sqlite:x.db\" and \"--db=URL\" at\n"
    "    # ':' and '='; join them back.\n"
    "    for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do\n"
    "        w=${COMP_WORDS[i]}\n"
    "        if ((i > 1)) && [[ $w == [:=] || ${words[-1]} == *[:=] ]]; "
    "then\n"
    "            words[-1]+=$w\n"
    "        else\n"
    "            words+=(\"$w\")\n"
    "        fi\n"
    "        ((i == COMP_CWORD)) && cword=$((${#words[@]} - 1))\n"
    "    done\n"
    "    cur=${words[cword]}\n"
    "    _sked_bin=${words[0]}\n"
    "    for ((i = 1; i < cword; i++)); do\n"
    "        w=${words[i]}\n"
    "        if [[ -n $skip ]]; then skip=''; continue; fi\n"
    "        _sked_spec \"$cmdpath\"\n"
    "        case $w in\n"
    "        --db | --server) _sked_target+=(\"$w\" \"${words[i + 1]}\"); "
    "skip=1 ;;\n"
    "        --db=* | --server=*) _sked_target+=(\"$w\") ;;\n"
    "        -*) [[ \" $valued \" == *\" $w \"* ]] && skip=1 ;;\n"
    "        *)\n"
    "            if [[ \" $subs \" == *\" $w \"* ]]; then\n"
    "                cmdpath+=\" $w\"\n"
    "            else\n"
    "                npos=$((npos + 1))\n"
    "            fi ;;\n"
    "        esac\n"
    "    done\n"
    "    _sked_spec \"$cmdpath\"\n"
    "    COMPREPLY=()\n"
    "    if [[ -n $skip ]]; then\n"
    "        # The word is the value of the option before it.\n"
    "        prev=${words[cword - 1]}\n"
    "        for kind in $kinds; do\n"
    "            if [[ ${kind%%=*} == \"$prev\" ]]; then\n"
    "                _sked_values \"${kind#*=}\" \"$cur\"\n"
    "                break\n"
    "            fi\n"
    "        done\n"
    "    elif [[ $cur == -* ]]; then\n"
    "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
    "    elif [[ -n $subs ]]; then\n"
    "        COMPREPLY=($(compgen -W \"$subs\" -- \"$cur\"))\n"
    "    elif ((npos == 0)); then\n"
    "        _sked_values \"$pos\" \"$cur\"\n"
    "    fi\n"
    "    # bash replaces only the part of the word after its last ':' or\n"
    "    # '=': leave out what comes before.\n"
    "    raw=${COMP_WORDS[COMP_CWORD]}\n"
    "    if [[ $cur != \"$raw\" && $cur == *\"$raw\" ]]; then\n"
    "        COMPREPLY=(\"${COMPREPLY[@]#\"${cur%\"$raw\"}\"}\")\n"
    "    fi\n"
    "    return 0\n"
    "}\n"
    "\n"
    "complete -F _sked sked\n";

static const char zsh_head[] =
    "#compdef sked\n"
    "# zsh completion of sked, written by \"sked completion zsh\" from the\n"
    "# commands' help. Install it as _sked in a directory of $fpath.\n"
    "\n"
    "# The spec of command $1: subs, descs, opts, valued, kinds, pos.\n"
    "_sked_spec() {\n"
    "    subs='' opts='' valued='' kinds='' pos=''\n"
    "    descs=()\n"
    "    case $1 in\n";

static const char zsh_tail[] =
    "    esac\n"
    "}\n"
    "\n" NAMES_FN "\n"
    "_sked_values() {\n"
    "    local kind=$1\n"
    "    case $kind in\n"
    "    '') _message value ;;\n"
    "    file) _files ;;\n"
    "    words:*) compadd -- ${(s:,:)${kind#words:}} ;;\n"
    "    *) compadd -- ${(f)\"$(_sked_names $kind \"$PREFIX\")\"} ;;\n"
    "    esac\n"
    "}\n"
    "\n"
    "_sked() {\n"
    "    emulate -L zsh\n"
    "    local cmdpath=sked skip='' npos=0 w i kind _sked_bin=$words[1]\n"
    "    local subs opts valued kinds pos\n"
    "    local -a descs _sked_target\n"
    "    for ((i = 2; i < CURRENT; i++)); do\n"
    "        w=$words[i]\n"
    "        if [[ -n $skip ]]; then skip=''; continue; fi\n"
    "        _sked_spec \"$cmdpath\"\n"
    "        case $w in\n"
    "        --db | --server) _sked_target+=($w $words[i+1]); skip=1 ;;\n"
    "        --db=* | --server=*) _sked_target+=($w) ;;\n"
    "        -*) [[ \" $valued \" == *\" $w \"* ]] && skip=1 ;;\n"
    "        *)\n"
    "            if [[ \" $subs \" == *\" $w \"* ]]; then\n"
    "                cmdpath+=\" $w\"\n"
    "            else\n"
    "                npos=$((npos + 1))\n"
    "            fi ;;\n"
    "        esac\n"
    "    done\n"
    "    _sked_spec \"$cmdpath\"\n"
    "    if [[ -n $skip ]]; then\n"
    "        for kind in ${=kinds}; do\n"
    "            if [[ ${kind%%=*} == $words[CURRENT-1] ]]; then\n"
    "                _sked_values ${kind#*=}\n"
    "                return\n"
    "            fi\n"
    "        done\n"
    "        _message value\n"
    "    elif [[ $words[CURRENT] == -* ]]; then\n"
    "        compadd -- ${=opts}\n"
    "    elif [[ -n $subs ]]; then\n"
    "        _describe -t commands command descs\n"
    "    elif ((npos == 0)); then\n"
    "        _sked_values \"$pos\"\n"
    "    fi\n"
    "}\n"
    "\n"
    "_sked \"$@\"\n";

static const char fish_head[] =
    "# fish completion of sked, written by \"sked completion fish\" from\n"
    "# the commands' help. Install it as sked.fish in a directory of\n"
    "# $fish_complete_path.\n"
    "\n"
    "# The spec of command $argv[1], in __sked_subs, __sked_descs,\n"
    "# __sked_opts, __sked_valued, __sked_kinds, __sked_pos.\n"
    "function __sked_spec\n"
    "    set -g __sked_subs\n"
    "    set -g __sked_descs\n"
    "    set -g __sked_opts\n"
    "    set -g __sked_valued\n"
    "    set -g __sked_kinds\n"
    "    set -g __sked_pos ''\n"
    "    switch $argv[1]\n";

static const char fish_tail[] =
    "    end\n"
    "end\n"
    "\n"
    "# The names of kind $argv[1] starting with $argv[2], from the\n"
    "# database or server of the line.\n"
    "function __sked_names\n"
    "    switch $argv[1]\n"
    "        case schedule\n"
    "            set ask schedule list --names --prefix $argv[2]\n"
    "        case workflow\n"
    "            set ask workflow list --names\n"
    "        case calendar\n"
    "            set ask calendar list --names\n"
    "        case notifier\n"
    "            set ask notify list --names\n"
    "        case '*'\n"
    "            return 0\n"
    "    end\n"
    "    $__sked_bin $__sked_target $ask 2>/dev/null </dev/null\n"
    "end\n"
    "\n"
    "function __sked_values\n"
    "    switch $argv[1]\n"
    "        case ''\n"
    "        case file\n"
    "            __fish_complete_path $argv[2]\n"
    "        case 'words:*'\n"
    "            string split , (string replace words: '' $argv[1])\n"
    "        case '*'\n"
    "            __sked_names $argv[1] $argv[2]\n"
    "    end\n"
    "end\n"
    "\n"
    "function __sked_complete\n"
    "    set -l words (commandline -opc)\n"
    "    set -l cur (commandline -ct)\n"
    "    set -g __sked_bin $words[1]\n"
    "    set -g __sked_target\n"
    "    set -l cmdpath sked\n"
    "    set -l skip 0\n"
    "    set -l npos 0\n"
    "    for i in (seq 2 (count $words))\n"
    "        set -l w $words[$i]\n"
    "        if test $skip = 1\n"
    "            set skip 0\n"
    "            continue\n"
    "        end\n"
    "        __sked_spec $cmdpath\n"
    "        switch $w\n"
    "            case --db --server\n"
    "                set -a __sked_target $w $words[(math $i + 1)]\n"
    "                set skip 1\n"
    "            case '--db=*' '--server=*'\n"
    "                set -a __sked_target $w\n"
    "            case '-*'\n"
    "                contains -- $w $__sked_valued; and set skip 1\n"
    "            case '*'\n"
    "                if contains -- $w $__sked_subs\n"
    "                    set cmdpath \"$cmdpath $w\"\n"
    "                else\n"
    "                    set npos (math $npos + 1)\n"
    "                end\n"
    "        end\n"
    "    end\n"
    "    __sked_spec $cmdpath\n"
    "    if test $skip = 1\n"
    "        for k in $__sked_kinds\n"
    "            set -l kv (string split -m1 -- = $k)\n"
    "            if test \"$kv[1]\" = \"$words[-1]\"\n"
    "                __sked_values $kv[2] $cur\n"
    "                return 0\n"
    "            end\n"
    "        end\n"
    "    else if string match -q -- '-*' $cur\n"
    "        printf '%s\\n' $__sked_opts\n"
    "    else if test (count $__sked_subs) -gt 0\n"
    "        for i in (seq (count $__sked_subs))\n"
    "            printf '%s\\t%s\\n' $__sked_subs[$i] $__sked_descs[$i]\n"
    "        end\n"
    "    else if test $npos = 0\n"
    "        __sked_values \"$__sked_pos\" $cur\n"
    "    end\n"
    "end\n"
    "\n"
    "complete -c sked -f -a '(__sked_complete)'\n";

static int completion_run(const cli_cmd *self, int argc, char **argv)
{
    static const char *const names[] = {"bash", "zsh", "fish"};
    static const char *const heads[] = {bash_head, zsh_head, fish_head};
    static const char *const tails[] = {bash_tail, zsh_tail, fish_tail};
    cli_args args;
    emit e = {SH_BASH, stdout};
    int rc;

    if ((rc = cli_parse(self, argc, argv, NULL, &args)) != CLI_CONTINUE ||
        (rc = cli_one_arg(self, &args, "shell (bash, zsh or fish)")) != 0)
        return rc;
    while (strcmp(args.pos[0], names[e.sh]) != 0)
        if (++e.sh > SH_FISH)
            return cli_usage_error(self,
                                   "unknown shell \"%.64s\": expected bash, "
                                   "zsh or fish",
                                   args.pos[0]);
    fputs(heads[e.sh], stdout);
    if (helpdoc_walk(cli_root(), spec, &e) != 0)
        return cli_fail(SKED_EINVAL, "cannot write the completion");
    fputs(tails[e.sh], stdout);
    return cli_flush();
}

const cli_cmd cli_cmd_completion = {
    .name = "completion",
    .path = "sked completion",
    .summary = "Print the shell completion script of bash, zsh or fish",
    .run = completion_run,
    .help = "Usage: sked completion bash|zsh|fish\n"
            "\n"
            "Print the completion script of a shell on stdout: the commands,\n"
            "their options, and the names of schedules, workflows,\n"
            "calendars and notifiers, read from the database or the server\n"
            "the line being completed names. Packages install them where\n"
            "each shell looks; by hand:\n"
            "  source <(sked completion bash)\n"
            "  sked completion zsh >~/.zfunc/_sked    # a directory of $fpath\n"
            "  sked completion fish >~/.config/fish/completions/sked.fish\n"
            "\n"
            "Options:\n"
            "  -h, --help     show this help\n",
};
