#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The man pages as a reader gets them: each renders with man-db and groff
# without a warning and within 80 columns; sked(1) has every command of
# the tree and, under each command's part, every option its --help lists
# (read here from the help itself, so an option added without its page
# text fails); sked-server(8) has the server's options and sked.yaml(5)
# a key for each; and systemd-analyze accepts the unit, whose
# Documentation= pages resolve to the built ones.
set -euo pipefail

: "${SKED_BIN:?}" "${SKED_BUILD_DIR:?}"
command -v man >/dev/null && command -v groff >/dev/null &&
    command -v scdoc >/dev/null || {
    echo "SKIP: man-db, groff or scdoc (which builds the pages) missing"
    exit 77
}
man_dir="$SKED_BUILD_DIR/man"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

pages=(man1/sked.1 man8/sked-server.8 man5/sked.yaml.5 man5/sked-workflows.5)
for p in "${pages[@]}"; do
    f="$man_dir/$p"
    if [ ! -s "$f" ]; then
        bad "$p was not built"
        continue
    fi
    warnings=$(MANWIDTH=80 man --warnings=w -l "$f" 2>&1 >/dev/null || true)
    if [ -z "$warnings" ]; then ok; else bad "$p: $warnings"; fi
    width=$(MANWIDTH=80 man -l "$f" 2>/dev/null | wc -L)
    if [ "$width" -le 80 ]; then ok; else bad "$p is $width columns wide"; fi
    name=$(basename "$p")
    name=${name%.*}
    if MANWIDTH=80 man -l "$f" 2>/dev/null | grep -A1 '^NAME' |
        grep -q "^ *$name - "; then
        ok
    else
        bad "$p has no NAME line for $name"
    fi
done

# The page as text, wide enough that no heading or option line wraps.
render() { MANWIDTH=200 man -l "$1" 2>/dev/null; }
render "$man_dir/man1/sked.1" >"$work/sked.txt"
render "$man_dir/man8/sked-server.8" >"$work/server.txt"
render "$man_dir/man5/sked.yaml.5" >"$work/yaml.txt"

# The lines of section SECTION of FILE (a heading at column 0).
section() {
    awk -v s="$2" '/^[A-Z]/ { on = ($0 == s); next } on' "$1"
}
# The part of sked(1) for command PATH: from its subsection heading
# (column 3) to the next heading.
part() {
    awk -v p="   $1" '/^[A-Z]/ || /^   [^ ]/ { on = ($0 == p); next } on' \
        "$work/sked.txt"
}
# The subcommands a group's help lists under "Commands:".
subcommands() {
    awk '/^Commands:/ { on = 1; next } on && /^$/ { exit }
         on && /^  [a-z]/ { print $1 }'
}
# The options a help lists under "Options:", one a line: "-n --count" or
# "--json".
options() {
    awk '/^Options:/ { on = 1; next } on && /^$/ { exit }
         on && /^  -/ {
             if ($1 ~ /^-[^-],$/) { print substr($1, 1, 2) " " $2 }
             else print $1 }' | sed 's/=.*//'
}
# Whether the text on stdin has the option line of "SHORT LONG" or "LONG".
has_option() {
    local short="" long=$1
    if [ $# -eq 2 ]; then short=$1 long=$2; fi
    if [ -n "$short" ]; then
        grep -Eq -- "^ +$short, $long( |\$)"
    else
        grep -Eq -- "^ +$long( |\$)"
    fi
}

# Walk the tree from "sked --help": every command, every option.
commands=0
options_checked=0
walk() {
    local path=$1 help text
    help=$("$SKED_BIN" ${path#sked} --help)
    commands=$((commands + 1))
    if [ "$path" = sked ]; then
        text=$(section "$work/sked.txt" OPTIONS)
    else
        text=$(part "$path")
    fi
    if [ -z "$text" ]; then
        bad "sked(1) has no part for \"$path\""
    else
        ok
        while read -r opt; do
            options_checked=$((options_checked + 1))
            # shellcheck disable=SC2086
            if has_option $opt <<<"$text"; then ok; else
                bad "sked(1): \"$path\" lacks its option $opt"
            fi
        done < <(options <<<"$help")
    fi
    local sub
    for sub in $(subcommands <<<"$help"); do
        walk "$path $sub"
    done
}
walk sked
echo "checked $commands commands and $options_checked options"
if [ "$commands" -ge 40 ] && [ "$options_checked" -ge 200 ]; then ok; else
    bad "the walk found too little: $commands commands, $options_checked options"
fi

# A help option the page does not have is caught: the check above works.
if has_option --no-such-option <<<"$(part "sked schedule create")"; then
    bad "has_option finds an option that is not there"
else
    ok
fi

# sked-server(8): the server's options; sked.yaml(5): a key for each.
server_help=$("$SKED_BIN" server --help)
server_opts=$(section "$work/server.txt" OPTIONS)
keys=$(section "$work/yaml.txt" KEYS)
while read -r opt; do
    # shellcheck disable=SC2086
    if has_option $opt <<<"$server_opts"; then ok; else
        bad "sked-server(8) lacks the option $opt"
    fi
    long=${opt##* }
    case $long in --help | --config | --check-config) continue ;; esac
    key=${long#--}
    key=${key//-/_}
    [ "$key" = db ] && key=database
    if grep -Eq "^ +$key\$" <<<"$keys"; then ok; else
        bad "sked.yaml(5) lacks the key $key (for $long)"
    fi
done < <(options <<<"$server_help")

# The unit: systemd-analyze verify, offline, with the build's binary and
# pages. It runs "man" for each Documentation= page, so a page named
# there and missing fails it.
if command -v systemd-analyze >/dev/null; then
    sed "s|^ExecStart=.*/sked |ExecStart=$SKED_BIN |" \
        "$SKED_BUILD_DIR/sked.service" >"$work/sked.service"
    if grep -q "^ExecStart=$SKED_BIN server" "$work/sked.service" &&
        out=$(MANPATH="$man_dir" SYSTEMD_LOG_LEVEL=warning \
            systemd-analyze verify --man=yes "$work/sked.service" 2>&1) &&
        [ -z "$out" ]; then
        ok
    else
        bad "systemd-analyze verify: ${out:-ExecStart not replaced}"
    fi
    # ... and without the pages it fails: the man check is real.
    if MANPATH="$work/none" systemd-analyze verify --man=yes \
        "$work/sked.service" >/dev/null 2>&1; then
        bad "systemd-analyze verify passes without the man pages"
    else
        ok
    fi
else
    echo "note: systemd-analyze missing, the unit is not verified"
fi

echo "man: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
