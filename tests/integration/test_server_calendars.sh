#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Schedules over calendars on a real server (docs/calendars.md, "On a
# schedule"): an occurrence on an excluded day creates no run and is
# traced like any dropped one — the event schedule.occurrences_missed
# with reason "excluded", the counter
# sked_schedule_missed_total{reason="excluded"} of /metrics, and the
# server's log line — while a schedule limited to the same days by
# "only" fires; both declared with their calendar in a workflows file.
# A calendar the schedule uses cannot be deleted through the API.
#
# The calendar holds today and tomorrow (UTC), so a run across midnight
# still finds every second excluded. Usage: test_server_calendars.sh
# [sqlite|pg]. Env: SKED_BIN (and SKED_TEST_PG_URL for pg). Ends with
# "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
mode=${1:-sqlite}
. "$here/server_lib.sh"
mode_db cal.db

today=$(date -u +%F)
tomorrow=$(date -u -d tomorrow +%F)
wf=$tmp/wf.yaml
cat >"$wf" <<YAML
app: days
calendars:
  now-days: {dates: ["$today", "$tomorrow"], weekdays: mon-sun}
schedules:
  - {name: off-now, workflow: noop, cron: "* * * * * *", exclude: now-days}
  - {name: on-now, workflow: noop, cron: "* * * * * *", only: [now-days]}
YAML

start_http a --db "$db" --tick 1s --workers 0 --workflows "$wf" ||
    fail start "$(head -c 1500 "$tmp/a.log")"
wait_log a 'reason=excluded' 15 || fail "log: excluded" "no log line"
sleep 3
count() { q "$db" "SELECT count(*) FROM runs WHERE schedule = '$1'"; }
check "excluded days: no run" "$(count off-now)" 0
check_ge "only days: runs" "$(count on-now)" 3
missed=$(missed_rows "$db" | awk -F'|' '$1 == "off-now" && $2 == "excluded" {
    n += $3 } END { print n + 0 }')
check_ge "excluded: events" "$missed" 3
other=$(missed_rows "$db" | awk -F'|' '$1 == "off-now" && $2 != "excluded"' |
    wc -l)
check "excluded: no other reason" "$other" 0
metric=$(curl -s "$url_a/metrics" |
    sed -n 's/^sked_schedule_missed_total{schedule="off-now",reason="excluded"} \([0-9]*\)$/\1/p')
check_ge "excluded: counter" "${metric:-0}" 3
grep -q 'msg="occurrences missed".*schedule=off-now.*reason=excluded' \
    "$tmp/a.log" && pass || fail "log: the line names schedule and reason" \
    "$(grep -m1 excluded "$tmp/a.log")"
preview=$(curl -s "$url_a/api/v1/schedules/off-now/occurrences?n=2")
case $preview in
*'"calendar": "excluded"'* | *'"calendar":"excluded"'*) pass ;;
*) fail "preview: marked excluded" "$preview" ;;
esac
code=$(curl -s -o "$tmp/del" -w '%{http_code}' -X DELETE \
    "$url_a/api/v1/calendars/now-days")
check "delete a calendar in use: 409" "$code" 409
grep -q 'uses it' "$tmp/del" && pass || fail "delete: says why" "$(cat "$tmp/del")"
stop_server a TERM
check "exit status" "$stop_rc" 0

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
