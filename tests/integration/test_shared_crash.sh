#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Triggers that share commits survive a crash: 16 clients trigger over
# HTTP as fast as they can (one schedule each, keep-alive connections),
# their answers written down as they come; the server is killed with
# SIGKILL under that load, three times, and started again. Every trigger
# answered 201 has its run (none lost: a caller is answered only after
# the commit that holds its run), no two answers name one run, no run has
# more than one run.created event, and there are no more runs than
# triggers sent. With "pg" (server.pg_shared_crash), on PostgreSQL.
#
# Usage: test_shared_crash.sh [sqlite|pg]. Ends with "N passed, M failed".
set -u
mode=${1:-sqlite}
. "$(dirname "$0")/server_lib.sh"
mode_db shared.db

clients=16
for i in $(seq -w 1 $clients); do
    "$bin" --db "$db" schedule create "report" "0 9 * * *" --name "t$i" \
        >/dev/null 2>&1 || fail create "schedule t$i"
done

# The clients: each thread triggers its own schedule until the server
# goes away, appending "sent NAME" before and "ok NAME ID" after each 201.
cat >"$tmp/clients.py" <<'PY'
import http.client, json, sys, threading
host, port, prefix, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
lock = threading.Lock()
f = open(out, "a", buffering=1)
def client(i):
    name = "t%02d" % i
    c = http.client.HTTPConnection(host, port, timeout=10)
    while True:
        try:
            with lock:
                f.write("sent %s\n" % name)
            c.request("POST", "/api/v1/schedules/%s/trigger" % name)
            r = c.getresponse()
            body = r.read()
        except Exception:
            return
        if r.status == 201:
            with lock:
                f.write("ok %s %s\n" % (name, json.loads(body)["run_id"]))
threads = [threading.Thread(target=client, args=(i,)) for i in range(1, n + 1)]
for t in threads: t.start()
for t in threads: t.join()
PY

for round in 1 2 3; do
    start_http s --db "$db" --workers 0 || { fail start "round $round"; break; }
    hp=${url_s#http://}
    "$py" "$tmp/clients.py" "${hp%:*}" "${hp##*:}" t $clients "$tmp/log" &
    cpid=$!
    sleep 1.5
    kill -KILL "$pid_s"
    wait "$pid_s" 2>/dev/null
    wait "$cpid"
    : >"$tmp/s.log"
done

answered=$(grep -c '^ok ' "$tmp/log")
sent=$(grep -c '^sent ' "$tmp/log")
check_ge "triggers answered 201" "$answered" 100
# Each answer its own run.
check "answers naming one run twice" \
    "$(awk '/^ok / { print $3 }' "$tmp/log" | sort | uniq -d | wc -l)" 0
# Every answered run is there, after three kills.
awk '/^ok / { print $3 }' "$tmp/log" | sort -u >"$tmp/answered"
q "$db" "SELECT id FROM runs WHERE trigger_kind = 'manual'" | sort -u \
    >"$tmp/stored"
check "answered runs lost" "$(comm -23 "$tmp/answered" "$tmp/stored" | wc -l)" 0
runs=$(q "$db" "SELECT count(*) FROM runs WHERE trigger_kind = 'manual'")
check_le "runs beyond the triggers sent" "$runs" "$sent"
check_ge "runs" "$runs" "$answered"
check "runs with more than one run.created" \
    "$(q "$db" "SELECT count(*) FROM (SELECT subject FROM events
        WHERE type = 'run.created' GROUP BY subject HAVING count(*) > 1) d")" 0
check "runs without their run.created" \
    "$(q "$db" "SELECT count(*) FROM runs r WHERE trigger_kind = 'manual'
        AND NOT EXISTS (SELECT 1 FROM events e WHERE e.type = 'run.created'
        AND e.subject = r.id)")" 0
echo "# $mode: $sent sent, $answered answered 201, $runs runs"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
