#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# "sked schedule trigger" and "sked schedule backfill" in direct mode on a
# SQLite file (SPEC 3.5, 7): what they print, their exit codes, and that
# bad input changes nothing.
#  - trigger prints the run id (sched-NAME-trigger-...), creates a manual
#    run, works on a paused schedule; exit 4 while an overlap-skip run is
#    active; exit 3 for an unknown schedule;
#  - backfill creates the runs of the open interval with live firing's ids,
#    a second time skips them all; --json; exit 1 for a reversed, empty or
#    too large range and a bad instant, 2 for a missing end, 3 for an
#    unknown schedule — the field named, nothing written, and no database
#    file created when the range alone is wrong;
#  - the progress bar appears on a terminal (through script(1)) and never
#    when stderr is a file.
#
# Env: SKED_BIN. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/server_lib.sh"
db=sqlite:$tmp/ops.db
export SKED_DB=$db

run() {
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

# expect NAME CODE REGEX ARGS...: exit CODE and stderr matching REGEX.
expect() {
    local name=$1 code=$2 re=$3
    shift 3
    run "$@"
    if [ "$rc" -ne "$code" ]; then
        fail "$name" "exit $rc, want $code; stderr: $(cat "$tmp/err")"
    elif ! grep -Eq -- "$re" "$tmp/err"; then
        fail "$name" "stderr does not match '$re': $(cat "$tmp/err")"
    else
        pass
    fi
}

runs() { q "$db" "SELECT count(*) FROM runs"; }

run schedule create report "0 * * * *" --name hourly
check "create hourly" "$rc" 0
run schedule create report "0 * * * *" --name solo --overlap skip
check "create solo" "$rc" 0
run schedule create report "* * * * * *" --name fast
check "create fast" "$rc" 0

# ---- trigger -----------------------------------------------------------------
run schedule trigger hourly
check "trigger exit" "$rc" 0
id=$(cat "$tmp/out")
if [[ "$id" =~ ^sched-hourly-trigger-[0-9T:.-]+Z$ ]]; then pass; else
    fail "trigger output" "got '$id'"
fi
check "trigger: a manual run, scheduled_for null" \
    "$(q "$db" "SELECT trigger_kind, scheduled_for IS NULL, status
                FROM runs WHERE id = '$id'")" "manual|1|pending"
run schedule trigger hourly --json
check "trigger --json" "$(/usr/bin/python3 -c 'import json,sys
o = json.load(open(sys.argv[1])); print(list(o), o["run_id"][:20])' \
    "$tmp/out")" "['run_id'] sched-hourly-trigger"
run schedule pause hourly
run schedule trigger hourly
check "trigger works while paused" "$rc" 0
run schedule resume hourly

run schedule trigger solo
check "trigger solo (overlap skip)" "$rc" 0
n=$(runs)
expect "trigger while an overlap-skip run is active" 4 'solo' \
    schedule trigger solo
check "nothing written by the refused trigger" "$(runs)" "$n"
expect "trigger unknown" 3 'not found' schedule trigger nosuch
expect "trigger without a name" 2 'missing' schedule trigger

# ---- backfill ----------------------------------------------------------------
day="--start 2026-01-01T00:00:00Z --end 2026-01-02T00:00:00Z"
# shellcheck disable=SC2086
run schedule backfill hourly $day
check "backfill exit" "$rc" 0
check "backfill output" "$(cat "$tmp/out")" \
    "backfill of hourly: 23 created, 0 skipped (already existed)"
check "backfill: no bar when stderr is a file" "$(wc -c <"$tmp/err")" 0
check "backfilled ids are live firing's" \
    "$(q "$db" "SELECT count(*) FROM runs WHERE trigger_kind = 'backfill'
                AND id LIKE 'sched-hourly-2026-01-01T%:00:00Z'")" 23
# shellcheck disable=SC2086
run schedule backfill hourly $day --json
check "backfill again skips every one" "$(/usr/bin/python3 -c '
import json, sys; o = json.load(open(sys.argv[1]))
print(list(o), o["created"], o["skipped"])' "$tmp/out")" "['created', 'skipped'] 0 23"
run schedule backfill hourly --start 2026-01-01T12:00:00Z \
    --end 2026-01-02T06:00:00Z
check "overlapping range" "$(cat "$tmp/out")" \
    "backfill of hourly: 6 created, 11 skipped (already existed)"

n=$(runs)
expect "reversed range" 1 'end' schedule backfill hourly \
    --start 2026-01-02T00:00:00Z --end 2026-01-01T00:00:00Z
expect "empty range" 1 'empty' schedule backfill hourly \
    --start 2026-01-02T00:00:00Z --end 2026-01-02T00:00:00Z
expect "no --end" 2 '--end' schedule backfill hourly \
    --start 2026-01-02T00:00:00Z
expect "no --start" 2 '--start' schedule backfill hourly \
    --end 2026-01-02T00:00:00Z
expect "bad instant" 1 '--start' schedule backfill hourly \
    --start 2026-01-02 --end 2026-01-03T00:00:00Z
expect "over the cap" 1 '100000|cap|too many' schedule backfill fast \
    --start 2026-01-01T00:00:00Z --end 2026-01-03T00:00:00Z
expect "unknown schedule" 3 'not found' schedule backfill nosuch $day
check "bad input wrote nothing" "$(runs)" "$n"
expect "reversed range, fresh file" 1 'end' schedule backfill hourly \
    --db "sqlite:$tmp/none.db" \
    --start 2026-01-02T00:00:00Z --end 2026-01-01T00:00:00Z
[ ! -e "$tmp/none.db" ] && pass || fail "fresh file" "a database was created"

# ---- the progress bar, on a terminal -----------------------------------------
if command -v script >/dev/null; then
    cmd="$(printf '%q ' "$bin" schedule backfill fast \
        --start 2026-02-01T00:00:00Z --end 2026-02-01T10:00:00Z)"
    script -q -e -c "$cmd" /dev/null >"$tmp/tty" 2>&1
    check "backfill on a terminal: exit" "$?" 0
    grep -q 'backfill \[#*\.*\] *100% 35999/35999' "$tmp/tty" && pass ||
        fail "progress bar" "$(tr '\r' '\n' <"$tmp/tty" | tail -n 3)"
    grep -q '35999 created, 0 skipped' "$tmp/tty" && pass ||
        fail "final line on a terminal" "$(tail -c 300 "$tmp/tty")"
else
    echo "note: script(1) not found; the progress bar assertion is skipped"
fi

printf '%d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
