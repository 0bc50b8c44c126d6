#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# "sked run list|get|cancel|start" and "sked workflow list" in direct
# mode on a SQLite file (SPEC 7), with no server: what they print, their
# exit codes (2 usage, 3 not found, 4 already finished, 1 bad input), and
# that bad input writes nothing.
#
# Env: SKED_BIN. Ends with "N passed, M failed".
set -u
. "$(dirname "$0")/cli_lib.sh"
db="sqlite:$tmp/run.db"
export SKED_DB=$db

# expect NAME CODE REGEX ARGS...: exit CODE and stderr matching REGEX.
expect() {
    name=$1
    local code=$2 re=$3
    shift 3
    run "$@"
    if [ "$rc" -ne "$code" ]; then
        fail "exit $rc, want $code"
    elif ! grep -Eq -- "$re" "$tmp/err"; then
        fail "stderr does not match /$re/"
    else
        pass
    fi
}

count_runs() { sqlite3 "$tmp/run.db" 'SELECT count(*) FROM runs'; }

# ---- start ------------------------------------------------------------
name="start prints the id of a pending api run"
run run start report --input '{"day":"2026-11-30"}'
id=$(cat "$tmp/out")
case $id in
api-report-20??-??-??T*Z) pass ;;
*) fail "id: $id" ;;
esac
run run get "$id" --json
name="the run: pending, trigger api, context as given"
got=$($py -c 'import json,sys; r=json.load(open(sys.argv[1]))
print(r["status"], r["trigger"], r["workflow"], r["context"]["day"], r["queue"], r["steps"])' "$tmp/out")
[ "$got" = "pending api report 2026-11-30 default []" ] && pass || fail "got: $got"

name="an idempotency key names one run"
run run start report --idempotency-key k1
a=$(cat "$tmp/out")
run run start report --idempotency-key k1 --json
b=$($py -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$tmp/out")
[ "$a" = "api-report-key-k1" ] && [ "$b" = "$a" ] && [ "$(count_runs)" = 2 ] &&
    pass || fail "a=$a b=$b runs=$(count_runs)"

before=$(count_runs)
expect "start: input not JSON" 1 "input" run start report --input '{nope'
expect "start: input not an object" 1 "input" run start report --input '[1]'
expect "start: bad workflow name" 1 "workflow" run start 'bad name'
expect "start: no workflow" 2 "missing the workflow name" run start
name="bad starts wrote nothing"
[ "$(count_runs)" = "$before" ] && pass || fail "runs: $(count_runs)"

# ---- list -------------------------------------------------------------
name="list: newest first, a table"
run run list
[ $rc -eq 0 ] && head -1 "$tmp/out" | grep -q '^ID ' &&
    [ "$(sed -n 2p "$tmp/out" | cut -d' ' -f1)" = "api-report-key-k1" ] &&
    pass || fail "$(cat "$tmp/out")"
name="list: pages with a cursor"
run run list --limit 1 --json
c=$($py -c 'import json,sys; print(json.load(open(sys.argv[1]))["next_cursor"])' "$tmp/out")
run run list --limit 1 --cursor "$c" --json
got=$($py -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["runs"][0]["id"], j["next_cursor"])' "$tmp/out")
[ "$got" = "$id None" ] && pass || fail "got: $got"
expect "list: unknown status" 1 'status: "bogus" is not a run status' \
    run list --status bogus
name="list: the message names the field once"
grep -q 'status: status' "$tmp/err" && fail "$(cat "$tmp/err")" || pass
expect "list: bad limit" 2 "limit" run list --limit 0
expect "list: bad cursor" 1 "cursor" run list --cursor nope

# ---- get and cancel ----------------------------------------------------
expect "get: unknown run" 3 'run "nope" not found' run get nope
expect "get: no id" 2 "missing the run id" run get
name="cancel a pending run: cancelled at once"
run run cancel "$id"
st=$(sqlite3 "$tmp/run.db" "SELECT status, error FROM runs WHERE id = '$id'")
[ $rc -eq 0 ] && [ "$st" = "cancelled|Cancelled." ] && pass || fail "$st"
expect "cancel again: exit 4" 4 "already" run cancel "$id"
expect "cancel: unknown run" 3 'run "nope" not found' run cancel nope

# ---- workflow list -----------------------------------------------------
name="workflow list: nothing registered yet"
run workflow list --json
[ $rc -eq 0 ] && [ "$($py -c 'import json,sys; print(json.load(open(sys.argv[1])))' "$tmp/out")" = "{'workflows': []}" ] &&
    pass || fail "$(cat "$tmp/out")"

finish
