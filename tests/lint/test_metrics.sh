#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The metrics a real "sked server" serves (GET /metrics, docs/api.md
# "Metrics"), checked by the linter of the Prometheus text format that its
# users run: "promtool check metrics" (Debian's prometheus package) must
# report no problem, after the server ran a few runs of a small workflow
# (fired every second, and started through the API, one of them failing)
# and of a slow one whose schedule skips the occurrences it overlaps, so
# that the counters, with their labels, and both histograms have samples. A copy with a
# counter renamed without its _total suffix must be reported, so that a
# linter that checked nothing would not pass.
#
# Usage: test_metrics.sh [sqlite|pg] (pg: on SKED_TEST_PG_URL's database).
# Env: SKED_BIN. Exits 77 when promtool is not installed. Ends with
# "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
if ! command -v promtool >/dev/null; then
    echo "SKIP: promtool is not installed (scripts/deps.sh installs it)"
    exit 77
fi
. "$here/../integration/server_lib.sh"

wf=$tmp/wf.yaml
cat >"$wf" <<'YAML'
workflows:
  tick:
    steps:
      - name: beat
        sh: 'echo beat'
    schedules:
      - every: 1s
  boom:
    steps:
      - name: fail
        sh: 'exit 3'
  slow:
    steps:
      - name: nap
        sh: 'sleep 1.5'
    schedules:
      - every: 1s
        overlap: skip
YAML

mode=${1:-sqlite}
mode_db metrics.db
if ! start_http a --db "$db" --workflows "$wf"; then
    cat "$tmp/a.log"
    echo "0 passed, 1 failed"
    exit 1
fi
for i in 1 2; do
    curl -s -o /dev/null -X POST -d '{}' "$url_a/api/v1/workflows/boom/runs"
done

# sample NAME: the value of the sample line NAME (labels included) in
# $tmp/metrics.txt, or nothing.
sample() {
    grep -F "$1 " "$tmp/metrics.txt" | head -n 1 | sed 's/.* //'
}

# Wait (10 s at most) for three ticks, both failures and a skipped
# occurrence to be counted.
deadline=$((SECONDS + 10))
while :; do
    curl -s -o "$tmp/metrics.txt" "$url_a/metrics"
    done_tick=$(sample 'sked_runs_total{workflow="tick",status="completed"}')
    done_boom=$(sample 'sked_runs_total{workflow="boom",status="failed"}')
    missed=$(sample 'sked_schedule_missed_total{schedule="slow",reason="overlap"}')
    [ "${done_tick:-0}" -ge 3 ] && [ "${done_boom:-0}" -ge 2 ] &&
        [ "${missed:-0}" -ge 1 ] && break
    [ $SECONDS -lt $deadline ] || break
    sleep 0.3
done
check_ge "completed runs counted" "${done_tick:-0}" 3
check "failed runs counted" "${done_boom:-0}" 2
check_ge "overlapped occurrences counted" "${missed:-0}" 1
check_ge "run durations observed" \
    "$(sample sked_run_duration_seconds_count)" 5
check_ge "fire lags observed" "$(sample sked_fire_lag_seconds_count)" 3
check "+Inf bucket is the count" \
    "$(sample 'sked_run_duration_seconds_bucket{le="+Inf"}')" \
    "$(sample sked_run_duration_seconds_count)"

# The freshness gauges (docs/alerting.md): the next occurrence of the
# every-1s schedule within a second of now, its latest run and success in
# the last few seconds; none for the workflow without a schedule. A paused
# schedule has no next occurrence, and keeps its past.
# age NAME: now minus the sample NAME, in whole seconds (negative: ahead).
age() {
    local v
    v=$(sample "$1")
    [ -n "$v" ] || return 0
    echo $(( $(date +%s) - ${v%.*} ))
}
next_age=$(age 'sked_schedule_next_fire_timestamp_seconds{schedule="tick"}')
check_ge "next fire of tick is not past" "${next_age:--99}" -1
check_le "next fire of tick is within a second" "${next_age:-99}" 1
check_le "last run of tick is recent" \
    "$(age 'sked_schedule_last_run_timestamp_seconds{schedule="tick"}')" 3
check_le "last success of tick is recent" \
    "$(age 'sked_schedule_last_success_timestamp_seconds{schedule="tick"}')" 4
check "no freshness for an unscheduled workflow" \
    "$(grep -c 'schedule="boom"' "$tmp/metrics.txt")" 0
curl -s -o /dev/null -X POST "$url_a/api/v1/schedules/tick/pause"
curl -s -o "$tmp/paused.txt" "$url_a/metrics"
check "a paused schedule has no next fire" \
    "$(grep -c 'next_fire_timestamp_seconds{schedule="tick"}' "$tmp/paused.txt")" 0
check "a paused schedule keeps its last run" \
    "$(grep -c 'last_run_timestamp_seconds{schedule="tick"}' "$tmp/paused.txt")" 1

# 1. The served metrics: promtool finds nothing to say.
out=$(promtool check metrics <"$tmp/metrics.txt" 2>&1)
rc=$?
check "promtool check metrics status" "$rc" 0
check "promtool check metrics output" "$out" ""

# 2. promtool sees a broken copy: a counter without its _total suffix.
sed 's/^\(# [A-Z]* \)\{0,1\}sked_runs_total/\1sked_runs_finished/' \
    "$tmp/metrics.txt" >"$tmp/broken.txt"
out=$(promtool check metrics <"$tmp/broken.txt" 2>&1)
rc=$?
check "promtool on a broken copy fails" "$rc" 3
case $out in
*'sked_runs_finished counter metrics should have "_total" suffix'*) pass ;;
*) fail "promtool on a broken copy" "said '$out'" ;;
esac

stop_server a TERM
check "server exit status" "$stop_rc" 0
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
