#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Heartbeat schedules on a real "sked server": a schedule of the workflows
# file with heartbeat: true and no workflow watches a job that runs
# elsewhere. "sked ping" (through the server, and straight on the
# database) and POST .../ping complete or fail the run of the current
# occurrence, with the body as its output; an occurrence with no ping
# fails at its deadline: schedule.deadline_missed in the events, a warn
# line in the server's log, sked_schedule_deadline_missed_total in
# /metrics. Bad input changes nothing: an unknown status, a schedule that
# is not a heartbeat, one that does not exist. On a server with a token, a
# ping without it or with a wrong one (curl, and "sked ping" with exit code
# 1 and one line naming the server) is refused with 401 and leaves every
# run as it was; with the token it ends the run.
#
# Usage: test_heartbeat.sh [sqlite|pg]. Env: SKED_BIN. Ends with
# "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/server_lib.sh"

mode=${1:-sqlite}
mode_db heartbeat.db
wf=$tmp/wf.yaml
cat >"$wf" <<'YAML'
workflows:
  tick:
    steps:
      - name: beat
        sh: 'true'
    schedules:
      - every: 1h
schedules:
  - name: backup
    heartbeat: true
    every: 3s
    deadline: 2s
YAML

if ! start_http a --db "$db" --workflows "$wf"; then
    cat "$tmp/a.log"
    echo "0 passed, 1 failed"
    exit 1
fi

# run_field ID FIELD: FIELD of run ID as the API answers it.
run_field() {
    curl -s "$url_a/api/v1/runs/$1" |
        python3 -c "import json,sys; v=json.load(sys.stdin).get('$2'); print(v if isinstance(v,str) else json.dumps(v))"
}

# wait_open: wait (8 s at most) for an open heartbeat run to exist.
wait_open() {
    local deadline=$((SECONDS + 8)) n
    while [ $SECONDS -lt $deadline ]; do
        n=$(q "$db" "SELECT count(*) FROM runs WHERE schedule = 'backup'
            AND status = 'pending'")
        [ "${n:-0}" -ge 1 ] && return 0
        sleep 0.1
    done
    return 1
}

check "a heartbeat run opens" "$(wait_open && echo yes)" yes
check "its workflow is its name" \
    "$(curl -s "$url_a/api/v1/schedules/backup" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["workflow"])')" \
    backup

# 1. A ping through the server completes it, the body its output.
id=$("$bin" ping backup --server "$url_a" --body '{"files":3}')
check "sked ping exit status" "$?" 0
check "pinged run completed" "$(run_field "$id" status)" completed
check "pinged run's trigger" "$(run_field "$id" trigger)" heartbeat
check "pinged run's output" "$(run_field "$id" output)" '{"files": 3}'

# 2. A ping through the API with status fail fails the next one.
wait_open
body=$(curl -s -w ' %{http_code}' -X POST --data-binary 'disk full' \
    "$url_a/api/v1/schedules/backup/ping?status=fail")
check "ping fail answers 200" "${body##* }" 200
fid=$(printf '%s' "${body% *}" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
check "failed by its ping" "$(run_field "$fid" error_code)" ping_failed
check "fail ping's output" "$(run_field "$fid" output)" 'disk full'

# 3. Straight on the database, while the server runs (SQLite: one file).
if [ "$mode" = sqlite ]; then
    wait_open
    did=$("$bin" ping backup --db "$db" --status start)
    check "direct ping start" "$(run_field "$did" status)" running
fi

# 4. No ping: the deadline fails a run, once, loudly.
deadline=$((SECONDS + 10))
while [ $SECONDS -lt $deadline ]; do
    n=$(q "$db" "SELECT count(*) FROM runs WHERE schedule = 'backup'
        AND error_code = 'deadline_missed'")
    [ "${n:-0}" -ge 1 ] && break
    sleep 0.2
done
check_ge "a run failed at its deadline" "${n:-0}" 1
ev=$(curl -s "$url_a/api/v1/events?type=schedule.deadline_missed&limit=1000")
case $ev in
*'"deadline":"completion"'*) pass ;;
*) fail "deadline event" "got $ev" ;;
esac
check "one event per missed run" \
    "$(printf '%s' "$ev" | grep -o '"type":"schedule.deadline_missed"' | wc -l)" \
    "$(q "$db" "SELECT count(*) FROM runs WHERE schedule = 'backup'
        AND deadline_missed IS NOT NULL")"
wait_log a 'msg="deadline missed"' 5
check "warn line in the log" \
    "$(grep -c 'level=warn msg="deadline missed"' "$tmp/a.log" | head -1 |
        awk '{print ($1 > 0)}')" 1
m=$(curl -s "$url_a/metrics" |
    awk '$1 == "sked_schedule_deadline_missed_total{schedule=\"backup\"}" {print $2}')
check_ge "deadline counter" "${m:-0}" 1

# 5. Bad input changes nothing.
"$bin" ping backup --server "$url_a" --status later 2>"$tmp/err"
check "unknown status exit" "$?" 2
"$bin" ping nope --server "$url_a" 2>"$tmp/err"
check "unknown schedule exit" "$?" 3
code=$(curl -s -o "$tmp/body" -w '%{http_code}' -X POST \
    "$url_a/api/v1/schedules/backup/ping?status=maybe")
check "API unknown status" "$code" 422
code=$(curl -s -o "$tmp/body" -w '%{http_code}' -X POST \
    "$url_a/api/v1/schedules/tick/ping")
check "API ping of a schedule not a heartbeat" "$code" 422
case $(cat "$tmp/body") in *"not a heartbeat schedule"*) pass ;;
*) fail "not-a-heartbeat message" "$(cat "$tmp/body")" ;; esac
check "nothing written by refusals" \
    "$(q "$db" "SELECT count(*) FROM runs WHERE schedule <> 'backup'")" 0

stop_server a TERM
check "server exit status" "$stop_rc" 0

# 6. A server with a token: pings need it. "guarded" opens a run every 2 s
#    that stays open for 5 min, so that refused pings find runs to end.
token=heartbeat-token-0123456789
printf '%s\n' "$token" >"$tmp/token"
cat >"$tmp/guard.yaml" <<'YAML'
schedules:
  - name: guarded
    heartbeat: true
    every: 2s
    deadline: 5m
YAML
unset SKED_TOKEN
if ! start_http t --db "$db" --workflows "$tmp/guard.yaml" \
    --token-file "$tmp/token"; then
    fail "token server start" "$(cat "$tmp/t.log")"
    echo "$passed passed, $failed failed"
    exit 1
fi
auth=(-H "Authorization: Bearer $token")

# guarded_runs: the runs of guarded as the API answers them with the token,
# one "id status started_at finished_at error_code output" line each.
guarded_runs() {
    curl -s "${auth[@]}" "$url_t/api/v1/runs?schedule=guarded&limit=1000" |
        python3 -c 'import json, sys
for r in sorted(json.load(sys.stdin)["runs"], key=lambda r: r["id"]):
    print(r["id"], r["status"], r["started_at"], r["finished_at"],
          r["error_code"], json.dumps(r["output"], separators=(",", ":")))'
}
deadline=$((SECONDS + 10))
while [ $SECONDS -lt $deadline ]; do
    guarded_runs >"$tmp/before"
    grep -q ' pending ' "$tmp/before" && break
    sleep 0.2
done
check "guarded has an open run" "$(grep -c ' pending ' "$tmp/before" |
    awk '{print ($1 > 0)}')" 1

code=$(curl -s -o "$tmp/body" -w '%{http_code}' -X POST \
    "$url_t/api/v1/schedules/guarded/ping")
check "ping without the token" "$code" 401
case $(cat "$tmp/body") in *'"code":"unauthorized"'*) pass ;;
*) fail "ping without the token: body" "$(cat "$tmp/body")" ;; esac
code=$(curl -s -o "$tmp/body" -w '%{http_code}' -X POST \
    -H "Authorization: Bearer ${token%?}x" \
    "$url_t/api/v1/schedules/guarded/ping?status=fail")
check "ping with a wrong token" "$code" 401
msg="sked: $url_t: a valid bearer token is required (Authorization: Bearer TOKEN)"
"$bin" ping guarded --server "$url_t" >"$tmp/out" 2>"$tmp/err"
check "sked ping without a token" "$?:$(cat "$tmp/err"):$(cat "$tmp/out")" \
    "1:$msg:"
SKED_TOKEN=wrong-token-of-the-ping "$bin" ping guarded --server "$url_t" \
    --status fail >"$tmp/out" 2>"$tmp/err"
check "sked ping with a wrong token" "$?:$(cat "$tmp/err"):$(cat "$tmp/out")" \
    "1:$msg:"
# Every run that was there is as it was; none has ended or started since.
guarded_runs >"$tmp/after"
check "refused pings changed no run" \
    "$(grep -F -f <(cut -d' ' -f1 "$tmp/before") "$tmp/after")" \
    "$(cat "$tmp/before")"
check "refused pings ended no run" \
    "$(grep -vc ' pending None None None null$' "$tmp/after")" 0

body=$(curl -s "${auth[@]}" -w ' %{http_code}' -X POST --data-binary '{"ok":1}' \
    "$url_t/api/v1/schedules/guarded/ping")
check "ping with the token" "${body##* }" 200
gid=$(printf '%s' "${body% *}" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
check "its run completed" \
    "$(guarded_runs | awk -v id="$gid" '$1 == id {print $2, $NF}')" \
    'completed {"ok":1}'
sid=$(SKED_TOKEN=$token "$bin" ping guarded --server "$url_t" 2>"$tmp/err")
check "sked ping with the token" "$?:$(cat "$tmp/err")" "0:"
check "sked ping's run completed" \
    "$(guarded_runs | awk -v id="$sid" '$1 == id {print $2}')" completed
stop_server t TERM
check "token server exit status" "$stop_rc" 0
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
