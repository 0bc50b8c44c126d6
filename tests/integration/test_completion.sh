#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The shell completions as a shell runs them. bash: the script of "sked
# completion bash" sourced in a plain bash, its function called with
# COMP_WORDS and COMP_CWORD as bash sets them (a "sqlite:x.db" cut at
# ':' too), for commands, a group's commands, every command's options
# (the lists compared with each --help), option values, and the names of
# schedules, calendars and workflows read from a real SQLite database and
# through a real server. zsh and fish: the scripts parse, zsh's table
# matches the tree, and fish's completer answers as bash's does.
set -uo pipefail

# shellcheck source=tests/integration/server_lib.sh
. "$(dirname "$0")/server_lib.sh"
unset SKED_DB SKED_SERVER SKED_TOKEN
cd "$tmp" || exit 1
# The scripts call "sked" by the name on the line: put it on PATH.
mkdir bin
ln -s "$bin" bin/sked
export PATH="$tmp/bin:$PATH"

sked completion bash >sked.bash
sked completion zsh >_sked
sked completion fish >sked.fish

# comp WORD...: what bash's function offers for the line WORD..., the
# last word being the one completed (""  after a space), one a line,
# sorted. The words are given as bash's COMP_WORDS holds them.
comp() {
    bash --norc --noprofile -c '
        source ./sked.bash
        COMP_WORDS=("$@")
        COMP_CWORD=$(($# - 1))
        COMP_LINE="$*"
        COMP_POINT=${#COMP_LINE}
        _sked
        printf "%s\n" "${COMPREPLY[@]}"' _ "$@" | sed '/^$/d' | sort
}
# The lines on stdin, sorted, on one line.
flat() { sort | tr '\n' ' ' | sed 's/ $//'; }
# The commands a group's help lists; the long and short options a help lists.
subcommands() {
    awk '/^Commands:/ { on = 1; next } on && /^$/ { exit }
         on && /^  [a-z]/ { print $1 }'
}
options() {
    awk '/^Options:/ { on = 1; next } on && /^$/ { exit }
         on && /^  -/ { for (i = 1; i <= 2; i++) { w = $i; sub(/,$/, "", w)
             if (w ~ /^-/) print w } }'
}

check "top-level commands" "$(comp sked '' | flat)" \
    "$(sked --help | subcommands | flat)"
check "a command by its start" "$(comp sked sch | flat)" "schedule"
check "a group's commands" "$(comp sked schedule '' | flat)" \
    "$(sked schedule --help | subcommands | flat)"
check "options by their start" "$(comp sked schedule create --ca | flat)" \
    "--calendar-days --catchup --catchup-max --catchup-window"
check "a short option" "$(comp sked cron next -n | flat)" "-n"

# Every command of the tree: its options are those of its --help.
walk() {
    local path=$1 help sub
    help=$(sked ${path#sked} --help)
    # shellcheck disable=SC2086
    check "options of $path" "$(comp $path -- | flat)" \
        "$(options <<<"$help" | grep -- '^--' | flat)"
    for sub in $(subcommands <<<"$help"); do
        walk "$path $sub"
    done
}
walk sked

check "an option's choices" "$(comp sked server --log-format '' | flat)" \
    "json logfmt"
check "the shells" "$(comp sked completion '' | flat)" "bash fish zsh"
touch workflows.yaml other.txt
check "a file argument" "$(comp sked apply work | flat)" "workflows.yaml"
check "a file option" "$(comp sked server --config oth | flat)" "other.txt"
check "nothing for a free value" "$(comp sked schedule create --name '' | flat)" ""

# Names from a real SQLite database, chosen as the command would choose
# it: --db before or after the command, --db=URL, or $SKED_DB.
db="sqlite:$tmp/names.db"
for n in alpha-1 alpha-2 beta; do
    sked --db "$db" schedule create report "0 9 * * *" --name "$n" \
        >/dev/null 2>&1
done
sked --db "$db" calendar create holidays --date 2026-12-25 >/dev/null
sked --db "$db" calendar create closures --date 2026-08-15 >/dev/null
check "schedule names, --db URL" \
    "$(comp sked --db sqlite : "$tmp/names.db" schedule get al | flat)" \
    "alpha-1 alpha-2"
check "schedule names, --db=URL" \
    "$(comp sked --db = sqlite : "$tmp/names.db" schedule pause '' | flat)" \
    "alpha-1 alpha-2 beta"
check "schedule names, --db after the command" \
    "$(comp sked schedule get --db sqlite : "$tmp/names.db" b | flat)" "beta"
check "schedule names, SKED_DB" \
    "$(SKED_DB=$db comp sked ping '' | flat)" "alpha-1 alpha-2 beta"
check "calendar names for an option" \
    "$(SKED_DB=$db comp sked schedule create report --exclude '' | flat)" \
    "closures holidays"
check "calendar names" "$(SKED_DB=$db comp sked calendar days h | flat)" \
    "holidays"
check "one argument only" \
    "$(SKED_DB=$db comp sked schedule get beta '' | flat)" ""
check "no database, no names" "$(comp sked schedule get '' | flat)" ""

# Workflow names, and names through a server (--server).
cat >wf.yaml <<'YAML'
workflows:
  nightly-backup:
    steps:
      - name: run
        run: ["true"]
  nightly-report:
    steps:
      - name: run
        run: ["true"]
YAML
if start_http srv --db "$db" --workflows wf.yaml --workers 1; then
    # shellcheck disable=SC2154
    srv_url=$url_srv
    check "workflow names" "$(SKED_DB=$db comp sked run start n | flat)" \
        "nightly-backup nightly-report"
    check "workflow names through the server" \
        "$(SKED_SERVER=$srv_url comp sked run start nightly-b | flat)" \
        "nightly-backup"
    check "schedule names through --server" \
        "$(comp sked --server "${srv_url%%:*}" : "${srv_url#*:}" \
            schedule get alpha | flat)" "alpha-1 alpha-2"
    stop_server srv TERM
else
    fail "server" "did not listen: $(tail -3 "$tmp/srv.log")"
fi

# zsh: the script parses, and its function, run with words and CURRENT
# set as zsh sets them, offers what bash's does. Outside a completion
# widget compadd and _describe do not exist: stand-ins print what they
# are given (zsh itself then keeps the matches of the word's prefix).
if command -v zsh >/dev/null; then
    if zsh -n _sked; then pass; else fail "zsh -n" "the script does not parse"; fi
    cat >zcomp.zsh <<'ZSH'
compadd() { [[ $1 == -- ]] && shift; print -l -- "$@" }
_describe() { local -a d; d=("${(@P)${@[-1]}}"); print -l -- ${d%%:*} }
_files() { print -- '(files)' }
_message() { }
source <(sed '$d' ./_sked)
words=("$@")
CURRENT=$#
PREFIX=$words[CURRENT]
_sked
ZSH
    zcomp() { zsh -f zcomp.zsh "$@" | sed '/^$/d' | sort; }
    check "zsh: commands" "$(zcomp sked '' | flat)" \
        "$(sked --help | subcommands | flat)"
    check "zsh: a group's commands" "$(zcomp sked schedule '' | flat)" \
        "$(sked schedule --help | subcommands | flat)"
    check "zsh: options" "$(zcomp sked schedule get - | flat)" \
        "$(sked schedule get --help | options | flat)"
    check "zsh: names" "$(zcomp sked --db "$db" schedule get al | flat)" \
        "alpha-1 alpha-2"
    check "zsh: --db=URL" "$(zcomp sked "--db=$db" ping '' | flat)" \
        "alpha-1 alpha-2 beta"
    check "zsh: calendars" \
        "$(SKED_DB=$db zcomp sked schedule create r --only '' | flat)" \
        "closures holidays"
    check "zsh: choices" "$(zcomp sked server --log-format '' | flat)" \
        "json logfmt"
    check "zsh: a file" "$(zcomp sked apply '' | flat)" "(files)"
else
    echo "note: zsh missing, its script not checked"
fi

# fish: the script parses, and fish's own completion answers.
if command -v fish >/dev/null; then
    if fish -n sked.fish; then pass; else fail "fish -n" "the script does not parse"; fi
    fcomp() {
        fish --no-config -c "source ./sked.fish; complete -C '$1'" 2>&1 |
            cut -f1 | sort
    }
    check "fish: a command" "$(fcomp 'sked sch' | flat)" "schedule"
    check "fish: options" "$(fcomp 'sked schedule create --ca' | flat)" \
        "--calendar-days --catchup --catchup-max --catchup-window"
    check "fish: names" \
        "$(fcomp "sked --db $db schedule get al" | flat)" "alpha-1 alpha-2"
    check "fish: choices" "$(fcomp 'sked server --log-format ' | flat)" \
        "json logfmt"
else
    echo "note: fish missing, its script not checked"
fi

check "an unknown shell" "$(sked completion tcsh 2>&1; echo "rc=$?")" \
    "sked: unknown shell \"tcsh\": expected bash, zsh or fish (see 'sked completion --help')
rc=2"

echo "completion: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
