#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Several "sked server" processes on one database never fire anything
# twice and lose nothing (SPEC 3.1, 11), even when one is killed.
#
#   test_server_multi.sh [sqlite|pg]
#
# sqlite (the default): two servers on one SQLite file. pg: three servers
# on the PostgreSQL database $SKED_TEST_PG_URL (the CTest fixture). The
# servers load one workflows file of $SKED_TEST_MULTI_SCHEDULES schedules
# (default 200) firing every second, and run $SKED_TEST_MULTI_SECONDS
# (default 60; the SQLite and PostgreSQL runs overlap in "make test", so
# they cost about a minute of its time together).
# Halfway, the second server gets SIGKILL and is restarted 2 s later. Then
# all stop with SIGTERM, and for every schedule and every second of the
# period the database holds exactly one run or one missed event with its
# reason: none absent, none doubled.
#
# Env: SKED_BIN; SKED_TEST_PG_URL for pg. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
mode=${1:-sqlite}
secs=${SKED_TEST_MULTI_SECONDS:-60}
nsched=${SKED_TEST_MULTI_SCHEDULES:-200}
. "$here/server_lib.sh"

case $mode in
sqlite)
    db=sqlite:$tmp/multi.db
    servers=2
    ;;
pg)
    db=${SKED_TEST_PG_URL:?pg mode needs SKED_TEST_PG_URL}
    servers=3
    ;;
*)
    echo "usage: test_server_multi.sh [sqlite|pg]" >&2
    exit 2
    ;;
esac

wf=$tmp/wf.yaml
{
    echo "schedules:"
    for i in $(seq 1 "$nsched"); do
        printf '  - {name: load-%03d, workflow: noop, cron: "* * * * * *"}\n' \
            "$i"
    done
} >"$wf"

# The schedules exist before any server starts; the servers then sync the
# same file, which must change nothing.
"$bin" apply --db "$db" "$wf" >"$tmp/apply.out" 2>&1 ||
    fail "apply" "$(cat "$tmp/apply.out")"
t_from=$(now_us)

for s in $(seq 1 "$servers"); do
    start_server "s$s" --db "$db" --tick 1s --workflows "$wf" \
        --log-level warn
done
sleep $((secs / 2))
kill -KILL "$pid_s2"
wait "$pid_s2" 2>/dev/null
sleep 2
start_server s2 --db "$db" --tick 1s --workflows "$wf" --log-level warn
sleep $((secs - secs / 2 - 2))

# Every occurrence up to 2 s before the first stop had time to fire.
t_to=$(($(now_us) - 2000000))
for s in $(seq 1 "$servers"); do
    stop_server "s$s" TERM
    check "server $s stops with exit 0" "$stop_rc" 0
    check_le "server $s stop time (ms)" "$stop_ms" 5000
done

res=$(account "$db" load- "$t_from" "$t_to" 1000000)
echo "$mode, $servers servers, $nsched schedules, ${secs}s: $res"
check "absent occurrences" "$(field "$res" absent)" 0
check "doubled occurrences" "$(field "$res" doubled)" 0
check "missed events with an unknown reason" "$(field "$res" bad_reason)" 0
check "missed ranges whose count is wrong" "$(field "$res" bad_count)" 0
check_ge "occurrences checked" "$(field "$res" occurrences)" \
    "$((nsched * (secs - 4)))"
# No run anywhere shares an occurrence with another (the id says so, but
# the schedule and scheduled_for columns must agree with it).
dups=$(q "$db" "SELECT count(*) FROM (SELECT schedule, scheduled_for
                FROM runs WHERE schedule LIKE 'load-%'
                GROUP BY schedule, scheduled_for HAVING count(*) > 1) d")
check "runs sharing an occurrence" "$dups" 0
# The sync of an unchanged file by each server changed nothing.
upd=$(q "$db" "SELECT count(*) FROM events WHERE type = 'schedule.updated'")
check "schedule.updated events from syncing an unchanged file" "$upd" 0

printf '%d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
