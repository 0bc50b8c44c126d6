#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Notifications delivered by real "sked server" processes to a real
# webhook receiver on loopback (notify_receiver.py, which checks each
# signature with Python's hmac, apart from sked's code), on one database
# (docs/notifications.md):
#
#   test_server_notify.sh [sqlite|pg]
#
# 1. A failed run of a schedule the workflows file's notifier wants is
#    delivered once, signed, with its idempotency id; one of another
#    schedule is not.
# 2. Receiver down: the deliveries wait, retried; the server is killed
#    (SIGKILL) and another starts; the receiver comes up: every delivery
#    arrives, in event order for the schedule, none lost.
# 3. Two servers on the database: ten failures delivered, each once.
# 4. A receiver that always fails: the delivery is failed after its
#    retry_for, in "sked notify log", the API, the metrics and a warning
#    of the server's log.
# 5. Bad input to PUT /api/v1/notifiers/{name} is refused naming the
#    field, the database unchanged; no answer, log line or notify log
#    holds the secret.
#
# Env: SKED_BIN; SKED_TEST_PG_URL for pg. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
mode=${1:-sqlite}
. "$here/server_lib.sh"

mode_db notify.db
secret='whsec-only-the-server-knows-7c1f'
printf '%s\n' "$secret" >"$tmp/hook.secret"
chmod 600 "$tmp/hook.secret"
got=$tmp/got.jsonl
: >"$got"
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1

# A free port for the receiver, known before it first runs.
port=$($py -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

start_receiver() {
    $py "$here/notify_receiver.py" "$port" "$tmp/hook.secret" "$got" \
        >"$tmp/rx.out" 2>"$tmp/rx.err" &
    pid_rx=$!
    for _ in $(seq 50); do
        [ -s "$tmp/rx.out" ] && return 0
        sleep 0.1
    done
    return 1
}

stop_receiver() {
    kill "$pid_rx" 2>/dev/null
    wait "$pid_rx" 2>/dev/null
    : >"$tmp/rx.out"
}

cat >"$tmp/wf.yaml" <<YAML
app: notify-test
workflows:
  broken:
    steps:
      - name: fail
        sh: "exit 3"
schedules:
  - {name: nightly-db, workflow: broken, cron: "0 3 1 1 *"}
  - {name: nightly-web, workflow: broken, cron: "0 3 1 1 *"}
  - {name: daily-x, workflow: broken, cron: "0 3 1 1 *"}
$(for i in 0 1 2 3 4; do
    echo "  - {name: nightly-n$i, workflow: broken, cron: \"0 3 1 1 *\"}"
done)
notifiers:
  ops-hook:
    webhook: {url: "http://127.0.0.1:$port/hook", secret_file: $tmp/hook.secret,
              timeout: 2s}
    events: [run.failed, schedule.deadline_missed]
    schedules: ["nightly-*"]
YAML

call() {
    local m=$1 p=$2 u=$3 data=()
    shift 3
    [ $# -gt 0 ] && data=(--data-binary "$1")
    code=$(curl -sS -o "$tmp/body" -w '%{http_code}' -X "$m" \
        -H 'Content-Type: application/json' "${data[@]}" "$u$p")
}

trigger() {
    call POST "/api/v1/schedules/$1/trigger" "$2"
    [ "$code" = 200 ] || [ "$code" = 201 ] || [ "$code" = 202 ] ||
        fail "trigger $1" "status $code: $(head -c 200 "$tmp/body")"
}

# got_count [PATH]: requests the receiver answered 200 (to PATH).
got_count() {
    $py -c 'import json, sys
n = 0
for l in open(sys.argv[1]):
    j = json.loads(l)
    n += j["status"] == 200 and (len(sys.argv) < 3 or j["path"] == sys.argv[2])
print(n)' "$got" "$@"
}

# wait_for SECONDS CMD...: until CMD succeeds.
wait_for() {
    local deadline=$((SECONDS + $1))
    shift
    while [ $SECONDS -lt $deadline ]; do
        "$@" && return 0
        sleep 0.2
    done
    return 1
}

has_n() { [ "$(got_count)" -ge "$1" ]; }
delivered_n() {
    [ "$(q "$db" "SELECT count(*) FROM notify_deliveries
        WHERE state = 'delivered'")" -ge "$1" ]
}

# ---- 1. delivered once, signed; another schedule is not ---------------
start_receiver || fail "receiver" "$(cat "$tmp/rx.err")"
if ! start_http a --db "$db" --workflows "$tmp/wf.yaml" --lease 3s; then
    cat "$tmp/a.log"
    echo "0 passed, 1 failed"
    exit 1
fi
trigger nightly-db "$url_a"
trigger daily-x "$url_a"
wait_for 20 has_n 1 && pass || fail "delivered" "$(cat "$got")"
sleep 1.5
check "one delivery, not two" "$(got_count)" 1
check "signed, its id <event>-ops-hook, the event's schedule" \
    "$($py -c 'import json, sys
j = json.loads(open(sys.argv[1]).readline())
print(j["signed"], j["delivery"] == "%s-ops-hook" % j["id"], j["type"],
      j["schedule"])' "$got")" "True True run.failed nightly-db"
check "daily-x is not wanted" \
    "$(q "$db" "SELECT count(*) FROM notify_deliveries")" 1

# ---- 2. receiver down, server killed, receiver up: none lost ----------
stop_receiver
trigger nightly-db "$url_a"
trigger nightly-db "$url_a"
retrying() {
    [ "$(q "$db" "SELECT count(*) FROM notify_deliveries
        WHERE attempts > 0 AND state = 'pending'")" -ge 1 ]
}
wait_for 20 retrying && pass ||
    fail "retried while down" "$("$bin" notify log --db "$db")"
stop_server a KILL
start_receiver || fail "receiver again" "$(cat "$tmp/rx.err")"
start_http b --db "$db" --workflows "$tmp/wf.yaml" --lease 3s ||
    fail "server b" "$(tail -5 "$tmp/b.log")"
wait_for 40 has_n 3 && pass || fail "delivered after the restart" \
    "$(cat "$got"; "$bin" notify log --db "$db")"
check "each delivery at least once, in event order" \
    "$($py -c 'import json, sys
ids = [json.loads(l)["id"] for l in open(sys.argv[1])
       if json.loads(l)["status"] == 200]
print(len(set(ids)), ids == sorted(ids))' "$got")" "3 True"

# ---- 3. two servers: each delivery once --------------------------------
start_http c --db "$db" --workflows "$tmp/wf.yaml" --lease 3s ||
    fail "server c" "$(tail -5 "$tmp/c.log")"
before=$(got_count)
for i in 0 1 2 3 4; do
    trigger "nightly-n$i" "$url_b"
    trigger "nightly-n$i" "$url_c"
done
wait_for 40 delivered_n 13 && pass || fail "ten delivered" \
    "$("$bin" notify log --db "$db")"
sleep 1
check "ten requests, ten ids" "$($py -c 'import json, sys
ls = [json.loads(l) for l in open(sys.argv[1])][int(sys.argv[2]):]
print(len(ls), len({l["delivery"] for l in ls}))' "$got" "$before")" "10 10"
check "both servers delivered" "$(q "$db" "SELECT count(*) FROM notify_deliveries
    WHERE state = 'delivered'")" 13
stop_server c TERM
check "server c stops cleanly" "$stop_rc" 0

# ---- 4. always failing: failed after retry_for ---------------------------
call PUT /api/v1/notifiers/always-fail "$url_b" \
    "{\"webhook\": {\"url\": \"http://127.0.0.1:$port/fail\", \"timeout\": 2},
      \"events\": [\"run.failed\"], \"schedules\": [\"daily-*\"],
      \"retry_for\": \"4s\"}"
check "PUT a notifier" "$code" 201
wait_log b 'level=info msg="notifier created" notifier=always-fail' 5 &&
    pass || fail "the server logs the change" "$(grep notifier "$tmp/b.log")"
trigger daily-x "$url_b"
given_up() {
    [ "$(q "$db" "SELECT count(*) FROM notify_deliveries
        WHERE notifier = 'always-fail' AND state = 'failed'")" = 1 ]
}
wait_for 30 given_up && pass ||
    fail "failed after retry_for" "$("$bin" notify log always-fail --db "$db")"
check "retried before failing" "$(q "$db" "SELECT attempts > 1 AND
    last_status = 500 FROM notify_deliveries WHERE notifier = 'always-fail'")" \
    "$([ "$mode" = pg ] && echo t || echo 1)"
wait_log b 'level=warn msg="notification failed" notifier=always-fail.*status=500' 5 &&
    pass || fail "the server's warning" "$(grep notification "$tmp/b.log")"
log=$("$bin" notify log always-fail --db "$db")
case $log in *failed*"HTTP status 500"*) pass ;; *) fail "notify log" "$log" ;; esac
call GET /api/v1/notifiers/always-fail/deliveries "$url_b"
check "the API's log" "$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))[0]["state"])' "$tmp/body")" failed
call GET /metrics "$url_b"
grep -q 'sked_notifications_total{notifier="always-fail",result="failed"} 1' \
    "$tmp/body" && pass || fail "metric failed" "$(grep notif "$tmp/body")"
grep -q 'sked_notifications_total{notifier="always-fail",result="retry"} [1-9]' \
    "$tmp/body" && pass || fail "metric retry" "$(grep notif "$tmp/body")"

# ---- 5. bad input, and the secret nowhere ----------------------------------
snapshot() {
    q "$db" "SELECT name, config, events FROM notifiers ORDER BY name"
}
before=$(snapshot)
call PUT /api/v1/notifiers/bad "$url_b" \
    '{"webhook": {"url": "gopher://x"}, "events": ["run.failed"]}'
check "bad url: 422 naming the field" "$code $(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["error"]["field"])' "$tmp/body")" \
    "422 webhook.url"
call PUT /api/v1/notifiers/bad "$url_b" \
    '{"webhook": {"url": "http://x"}, "events": ["run.started"]}'
check "bad event type" "$code $(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["error"]["field"])' "$tmp/body")" \
    "422 events[0]"
call PUT /api/v1/notifiers/bad "$url_b" '{"webhook": '
check "not JSON: 400" "$code" 400
check "nothing changed" "$(snapshot)" "$before"
for p in /api/v1/notifiers /api/v1/notifiers/ops-hook /api/v1/deliveries \
    /metrics /api/v1/events; do
    call GET "$p" "$url_b"
    if grep -q "$secret" "$tmp/body"; then
        fail "the secret in $p" "found"
    else
        pass
    fi
done
"$bin" notify get ops-hook --db "$db" >"$tmp/get.out"
grep -q secret_file "$tmp/get.out" && ! grep -q "$secret" "$tmp/get.out" &&
    pass || fail "notify get" "$(cat "$tmp/get.out")"
if grep -q "$secret" "$tmp"/*.log "$tmp"/*.out; then
    fail "the secret in a log" "$(grep -l "$secret" "$tmp"/*.log "$tmp"/*.out)"
else
    pass
fi
check "the database does not hold it" "$(q "$db" "SELECT count(*) FROM
    notifiers WHERE config LIKE '%$secret%'")" 0

stop_server b TERM
check "server b stops cleanly" "$stop_rc" 0
stop_receiver
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
