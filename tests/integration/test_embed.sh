#!/bin/bash
# SPDX-License-Identifier: MIT
# examples/embed, as a user would run it: a program linking libsked
# registers a workflow of two C steps with an every-second schedule, and
# its engine's workers execute three runs. Then the database says so:
# each completed run has both steps completed, once, in order.
set -u
. "$(dirname "$0")/cli_lib.sh"
embed=${SKED_BUILD_DIR:?}/examples/embed/embed
db="sqlite:$tmp/embed.db"

name="the program runs three runs and stops"
timeout 60 "$embed" "$db" >"$tmp/embed.out" 2>"$tmp/embed.err"
rc=$?
if [ $rc -eq 0 ] && grep -q '^done: 3 runs$' "$tmp/embed.out"; then
    pass
else
    args=(embed "$db")
    cp "$tmp/embed.out" "$tmp/out"
    cp "$tmp/embed.err" "$tmp/err"
    fail "exit $rc"
fi

name="every completed run ran extract, then report, once each"
ids=$(sed -n 's/^completed //p' "$tmp/embed.out")
[ "$(echo "$ids" | wc -l)" -ge 3 ] && pass || fail "fewer than 3 ids: $ids"
for id in $ids; do
    run run get "$id" --json --db "$db"
    if [ $rc -ne 0 ]; then
        fail "run get $id"
        continue
    fi
    got=$($py -c '
import json, sys
r = json.load(open(sys.argv[1]))
steps = [(s["step"], s["status"], s["attempt"]) for s in r["steps"]]
print(r["status"], r["trigger"], r["schedule"], r["output"]["report"]["reported"], steps)
' "$tmp/out")
    want="completed cron nightly-report True [('extract', 'completed', 1), ('report', 'completed', 1)]"
    [ "$got" = "$want" ] && pass || fail "run $id: $got"
done

name="the schedule was synced from code"
run schedule get nightly-report --json --db "$db"
[ $rc -eq 0 ] && grep -q '"source": "code"' "$tmp/out" && pass ||
    fail "schedule not synced"

finish
