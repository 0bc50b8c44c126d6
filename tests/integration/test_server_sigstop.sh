#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A suspended server wakes to a backlog like any other (SPEC 3.3): the
# catch-up policy applies and nothing is replayed beyond it.
#
# One server on a SQLite file, --tick 1s, so the on-time grace is a
# minute (twice the tick, never less than 60 s). Three schedules fire
# every second, one per catch-up policy. The server gets SIGSTOP for
# $SKED_TEST_STOP_SECONDS (default 80: enough for some twenty
# occurrences to be late, i.e. older than the grace, when it wakes; the
# issue's figure is 180), then SIGCONT. Then:
#   - latest: exactly one catch-up run; the older late ones are missed
#     as superseded, in one event;
#   - skip: no catch-up run; the late ones are missed as catchup_skip;
#   - all, catchup_max 5: five catch-up runs, the rest catchup_max;
#   - the occurrences within the grace fire as on time (trigger cron);
#   - every second of the period has exactly one run or missed event, and
#     no more runs appear than that: no burst.
#
# Env: SKED_BIN. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
pause=${SKED_TEST_STOP_SECONDS:-80}
grace=60
. "$here/server_lib.sh"
trap 'kill -CONT "${pid_a:-0}" 2>/dev/null; cleanup' EXIT
db=sqlite:$tmp/stop.db
wf=$tmp/wf.yaml

cat >"$wf" <<'EOF'
schedules:
  - {name: pol-latest, workflow: noop, cron: "* * * * * *", catchup: latest}
  - {name: pol-skip, workflow: noop, cron: "* * * * * *", catchup: skip}
  - {name: pol-all, workflow: noop, cron: "* * * * * *", catchup: all,
     catchup_max: 5}
EOF

start_server a --db "$db" --tick 1s --workflows "$wf"
wait_log a 'msg="run created"' 15 || fail "start" "$(head -c 1500 "$tmp/a.log")"
t_from=$(now_us)
sleep 2
kill -STOP "$pid_a"
t_stop=$(now_us)
sleep "$pause"
kill -CONT "$pid_a"
t_cont=$(now_us)
# Let it decide the backlog, and fire a few live occurrences after it.
sleep 4
t_to=$(($(now_us) - 2000000))
stop_server a TERM
check "exit status" "$stop_rc" 0

# Occurrences between the stop and the wake that are older than the grace
# at the wake: late. Expected about PAUSE - GRACE of them.
late=$(((t_cont - t_stop) / 1000000 - grace))

catchup() {
    q "$db" "SELECT count(*) FROM runs WHERE schedule = '$1'
             AND trigger_kind = 'catchup'"
}
missed() {
    q "$db" "SELECT coalesce(sum(json_extract(payload, '\$.count')), 0)
             FROM events WHERE type = 'schedule.occurrences_missed'
             AND subject = '$1' AND json_extract(payload, '\$.reason') = '$2'"
}
events() {
    q "$db" "SELECT count(*) FROM events
             WHERE type = 'schedule.occurrences_missed' AND subject = '$1'"
}

echo "paused $(((t_cont - t_stop) / 1000000)) s; about $late late occurrences"
if [ "$late" -lt 5 ]; then
    fail "setup" "the pause ($pause s) is too short to make late occurrences"
fi

# latest: one catch-up run, the older late ones superseded, one event.
check "latest: catch-up runs" "$(catchup pol-latest)" 1
sup=$(missed pol-latest superseded)
check_ge "latest: superseded" "$sup" $((late - 3))
check_le "latest: superseded" "$sup" $((late + 2))
check "latest: missed events" "$(events pol-latest)" 1

# skip: no catch-up run, the late ones catchup_skip.
check "skip: catch-up runs" "$(catchup pol-skip)" 0
sk=$(missed pol-skip catchup_skip)
check_ge "skip: catchup_skip" "$sk" $((late - 2))
check_le "skip: catchup_skip" "$sk" $((late + 3))

# all with catchup_max 5: five catch-up runs, the older ones catchup_max.
check "all: catch-up runs" "$(catchup pol-all)" 5
cm=$(missed pol-all catchup_max)
check_ge "all: catchup_max" "$cm" $((late - 7))
check_le "all: catchup_max" "$cm" $((late - 3))

# The warn lines SPEC 3.3 asks for, one per schedule and reason.
for r in "pol-latest.*reason=superseded" "pol-skip.*reason=catchup_skip" \
    "pol-all.*reason=catchup_max"; do
    grep -Eq "level=warn msg=\"occurrences missed\" schedule=$r count=[0-9]+" \
        "$tmp/a.log" && pass || fail "warn line" "none for $r"
done

# Every second accounted for, once; and no burst: the runs created after
# the wake are those the policy allows (the grace's worth on time, the
# catch-up ones, and the live ones since).
res=$(account "$db" pol- "$t_from" "$t_to" 1000000)
echo "$res"
check "absent occurrences" "$(field "$res" absent)" 0
check "doubled occurrences" "$(field "$res" doubled)" 0
check "missed ranges whose count is wrong" "$(field "$res" bad_count)" 0
burst=$(q "$db" "SELECT count(*) FROM runs WHERE schedule = 'pol-latest'
                 AND created_at >= $t_cont")
check_le "latest: runs created after the wake" "$burst" $((grace + 1 + 6))

printf '%d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
