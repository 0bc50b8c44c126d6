#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# "sked schedule simulate" in direct mode on a SQLite file (SPEC 3.5): the
# seed's morning-report across an outage and the spring change, as exact
# JSON lines and as the human table and summary; overlap with runs that
# last; an interval schedule; bad periods and --down intervals give exit
# 1 or 2 with one line naming the option; nothing is written.
#
# Env: SKED_BIN, SKED_SOURCE_DIR. Ends with "N passed, M failed".
set -u

. "$(dirname "$0")/cli_lib.sh"
db=$tmp/s.db
export SKED_DB=sqlite:$db

# out NAME EXPECTED ARGS...: exit 0, no stderr, exactly that stdout.
out() {
    name=$1 want=$2
    shift 2
    run "$@"
    if [ "$rc" -ne 0 ]; then
        fail "exit $rc, want 0"
    elif [ -s "$tmp/err" ]; then
        fail "unexpected stderr"
    elif [ "$(cat "$tmp/out")" != "$want" ]; then
        fail "stdout differs; want:
$want"
    else
        pass
    fi
}

# err NAME EXIT PART ARGS...: that exit, no stdout, one line on stderr
# containing PART.
err() {
    name=$1 want_rc=$2 want=$3
    shift 3
    run "$@"
    if [ "$rc" -ne "$want_rc" ]; then
        fail "exit $rc, want $want_rc"
    elif [ -s "$tmp/out" ]; then
        fail "unexpected stdout"
    elif [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
        fail "want exactly one line on stderr"
    elif [[ "$(cat "$tmp/err")" != *"$want"* ]]; then
        fail "stderr lacks: $want"
    else
        pass
    fi
}

dump() { sqlite3 "$db" .dump; }

"$bin" schedule create morning-report "0 9 * * *" --timezone Europe/Paris \
    --catchup all --catchup-max 5 --catchup-window 259200 --overlap skip \
    >/dev/null || { echo "cannot create the schedule"; exit 1; }
"$bin" schedule create tick --every 90m --anchor 2026-01-01T00:00:00Z \
    --overlap buffer_one >/dev/null || { echo "cannot create tick"; exit 1; }
before=$(dump)

# ---- the seed: catchup all, overlap skip, down over the spring change ----

period=(--from 2026-03-25T00:00:00Z --to 2026-04-01T00:00:00Z
    --down 2026-03-26T12:00:00Z..2026-03-30T10:00:00Z)
out "seed: JSON lines" \
'{"occurrence": "2026-03-25T08:00:00Z", "decision": "fire", "reason": null, "run_id": "sched-morning-report-2026-03-25T08:00:00Z", "at": "2026-03-25T08:00:00Z"}
{"occurrence": "2026-03-26T08:00:00Z", "decision": "fire", "reason": null, "run_id": "sched-morning-report-2026-03-26T08:00:00Z", "at": "2026-03-26T08:00:00Z"}
{"occurrence": "2026-03-27T08:00:00Z", "decision": "drop", "reason": "outside_window", "run_id": null, "at": "2026-03-30T10:00:00Z"}
{"occurrence": "2026-03-28T08:00:00Z", "decision": "fire", "reason": null, "run_id": "sched-morning-report-2026-03-28T08:00:00Z", "at": "2026-03-30T10:00:00Z", "catchup": true}
{"occurrence": "2026-03-29T07:00:00Z", "decision": "drop", "reason": "overlap", "run_id": null, "at": "2026-03-30T10:00:00Z"}
{"occurrence": "2026-03-30T07:00:00Z", "decision": "drop", "reason": "overlap", "run_id": null, "at": "2026-03-30T10:00:00Z"}
{"occurrence": "2026-03-31T07:00:00Z", "decision": "fire", "reason": null, "run_id": "sched-morning-report-2026-03-31T07:00:00Z", "at": "2026-03-31T07:00:00Z"}' \
    schedule simulate morning-report "${period[@]}" --json

name="seed: JSON lines parse"
if python3 -c 'import json,sys
for line in open(sys.argv[1]):
    o = json.loads(line)
    keys = list(o)
    assert keys[:5] == ["occurrence", "decision", "reason", "run_id", "at"], keys
    # A fire says catchup, buffered, cancels_active when they hold.
    assert all(o[k] is True and o["decision"] == "fire" for k in keys[5:]), keys
    assert set(keys[5:]) <= {"catchup", "buffered", "cancels_active"}, keys
' "$tmp/out" 2>/dev/null; then pass; else fail "a line is not the object"; fi

run schedule simulate morning-report "${period[@]}" --run-duration 30m
name="seed: human table and summary"
if [ "$rc" -eq 0 ] &&
    grep -q '^2026-03-29T07:00:00Z  2026-03-29T09:00:00+02:00  drop      overlap  ' "$tmp/out" &&
    grep -q '^2026-03-28T08:00:00Z  .*fire      catch-up .*sched-morning-report-2026-03-28T08:00:00Z$' "$tmp/out" &&
    [ "$(tail -1 "$tmp/out")" = "morning-report: 7 occurrences, 4 fired (3 on time, 1 caught up), 3 dropped (1 outside_window, 2 overlap)" ]
then pass; else fail "table or summary differs"; fi

# The same outage with "latest": one catch-up run, the rest superseded,
# the window (3 d) still bounding it.
"$bin" schedule update morning-report --catchup latest >/dev/null
before=$(dump)
out "latest: one catch-up" \
'{"occurrence": "2026-03-27T08:00:00Z", "decision": "drop", "reason": "outside_window", "run_id": null, "at": "2026-03-30T10:00:00Z"}
{"occurrence": "2026-03-28T08:00:00Z", "decision": "drop", "reason": "superseded", "run_id": null, "at": "2026-03-30T10:00:00Z"}
{"occurrence": "2026-03-29T07:00:00Z", "decision": "drop", "reason": "superseded", "run_id": null, "at": "2026-03-30T10:00:00Z"}
{"occurrence": "2026-03-30T07:00:00Z", "decision": "fire", "reason": null, "run_id": "sched-morning-report-2026-03-30T07:00:00Z", "at": "2026-03-30T10:00:00Z", "catchup": true}' \
    schedule simulate morning-report --from 2026-03-26T12:00:00Z \
    --to 2026-03-30T10:00:00Z --down 2026-03-26T12:00:00Z..2026-03-30T10:00:00Z --json

# ---- an interval, buffer_one, runs of 4 h --------------------------------
# 01:30 runs to 05:30; 03:00 waits; 04:30 finds one waiting: dropped;
# 03:00 runs from 05:30, so 06:00 waits in its turn.

out "interval buffer_one" \
'{"occurrence": "2026-01-01T01:30:00Z", "decision": "fire", "reason": null, "run_id": "sched-tick-2026-01-01T01:30:00Z", "at": "2026-01-01T01:30:00Z"}
{"occurrence": "2026-01-01T03:00:00Z", "decision": "fire", "reason": null, "run_id": "sched-tick-2026-01-01T03:00:00Z", "at": "2026-01-01T03:00:00Z", "buffered": true}
{"occurrence": "2026-01-01T04:30:00Z", "decision": "drop", "reason": "overlap", "run_id": null, "at": "2026-01-01T04:30:00Z"}
{"occurrence": "2026-01-01T06:00:00Z", "decision": "fire", "reason": null, "run_id": "sched-tick-2026-01-01T06:00:00Z", "at": "2026-01-01T06:00:00Z", "buffered": true}' \
    schedule simulate tick --from 2026-01-01T00:00:00Z \
    --to 2026-01-01T06:00:00Z --run-duration 4h --json

out "nothing in the period" "tick: no occurrence in the period" \
    schedule simulate tick --from 2026-01-01T00:00:00Z \
    --to 2026-01-01T01:00:00Z

# ---- bad input -----------------------------------------------------------

f=2026-01-01T00:00:00Z t=2026-01-02T00:00:00Z
err "no --to" 2 "missing --to" schedule simulate tick --from $f
err "no --from" 2 "missing --from" schedule simulate tick --to $t
err "no name" 2 "missing the schedule name" schedule simulate --from $f --to $t
err "reversed" 1 "to must be after from" schedule simulate tick --from $t --to $f
err "empty" 1 "invalid period" schedule simulate tick --from $f --to $f
err "bad --from" 1 'invalid --from "2026-01-01"' schedule simulate tick --from 2026-01-01 --to $t
err "down without .." 2 'invalid --down' schedule simulate tick --from $f --to $t --down $f
err "down half" 2 'expected START..END' schedule simulate tick --from $f --to $t --down "$f.."
err "down bad end" 1 'invalid --down end' schedule simulate tick --from $f --to $t --down "$f..2026-01-01T0x:00:00Z"
err "down reversed" 1 'empty or reversed' schedule simulate tick --from $f --to $t \
    --down 2026-01-01T05:00:00Z..2026-01-01T04:00:00Z
err "down outside" 1 'outside the period' schedule simulate tick --from $f --to $t \
    --down 2026-01-01T05:00:00Z..2026-01-03T00:00:00Z
err "down overlapping" 1 'overlaps' schedule simulate tick --from $f --to $t \
    --down 2026-01-01T01:00:00Z..2026-01-01T03:00:00Z \
    --down 2026-01-01T02:00:00Z..2026-01-01T04:00:00Z
err "negative duration" 1 '--run-duration' schedule simulate tick --from $f --to $t --run-duration -1s
err "zero tick" 1 '--tick' schedule simulate tick --from $f --to $t --tick 0
err "unknown schedule" 3 'not found' schedule simulate nope --from $f --to $t
"$bin" schedule create sec "* * * * * *" >/dev/null
before=$(dump)
err "over the cap" 1 'more than 1000000 occurrences' schedule simulate sec \
    --from $f --to 2026-01-20T00:00:00Z

name="nothing written"
[ "$(dump)" = "$before" ] && pass || fail "the dump differs"

finish
