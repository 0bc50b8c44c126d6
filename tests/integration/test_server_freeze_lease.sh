#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A server frozen for less than its lease keeps its runs (docs/execution.md,
# "Leases"): when it wakes it renews at once, before the lease it renewed
# last runs out, not a renewal period later.
#
# One server on a SQLite file, --lease 4s (it renews every 4/3 s), runs a
# step that sleeps. The test watches the run's lease_until in the
# database; right after a renewal it freezes the server (SIGSTOP, as a
# paused machine or a stalled container would) for the lease less
# 0.6 s, then wakes it (SIGCONT). Three times:
# 1. the next renewal is written before the previous lease ran out;
# 2. the run completes, its one step in one attempt (nothing was recovered
#    or run again).
#
# Env: SKED_BIN. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/server_lib.sh"
trap 'kill -CONT -- "-${pid_a:-0}" "${pid_a:-0}" 2>/dev/null; cleanup' EXIT
db=sqlite:$tmp/freeze.db
wf=$tmp/wf.yaml
lease_secs=4

cat >"$wf" <<'YAML'
workflows:
  long:
    steps:
      - name: wait
        sh: sleep 20
YAML

start_server a --db "$db" --workflows "$wf" --lease "${lease_secs}s"
wait_log a "server started" 15 ||
    fail "start" "$(head -c 1500 "$tmp/a.log")"
"$bin" run start long --db "$db" >/dev/null ||
    fail "run start" "sked run start long failed"

# Freeze right after each of three renewals; print, per freeze, the
# microseconds between the waking renewal and the lease it replaced (a
# negative margin: the lease had lapsed).
margins=$("$py" - "${db#sqlite:}" "$pid_a" "$lease_secs" <<'PY'
import os, signal, sqlite3, sys, time

path, pid, lease = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
con = sqlite3.connect(path, timeout=10)

def lease_until():
    row = con.execute("SELECT lease_until FROM runs WHERE status = "
                      "'running'").fetchone()
    return row[0] if row else None

def changed(old, within):
    end = time.time() + within
    while time.time() < end:
        cur = lease_until()
        if cur is not None and cur != old:
            return cur, time.time_ns() // 1000
        time.sleep(0.005)
    return None, None

cur, _ = changed(None, 15)
if cur is None:
    sys.exit("no running run with a lease")
for _ in range(3):
    cur, _ = changed(cur, lease + 2)  # a renewal: freeze right after it
    if cur is None:
        sys.exit("no renewal")
    os.kill(pid, signal.SIGSTOP)
    time.sleep(lease - 0.6)
    os.kill(pid, signal.SIGCONT)
    new, seen = changed(cur, lease + 2)
    print(cur - seen if new is not None else "none")
    cur = new
PY
) || fail "freezes" "$margins"
i=0
for m in $margins; do
    i=$((i + 1))
    check_ge "freeze $i: renewed before the lease ran out (margin µs)" "$m" 1
done
check "freezes done" "$i" 3

# The run goes on to its end in its first attempt.
wait_until() {
    local deadline=$((SECONDS + $1))
    while [ $SECONDS -lt $deadline ]; do
        [ "$(q "$db" "$2")" = "$3" ] && return 0
        sleep 0.2
    done
    return 1
}
wait_until 40 "SELECT status FROM runs" completed
check "run status" "$(q "$db" "SELECT status FROM runs")" completed
check "step attempts" "$(q "$db" "SELECT count(*) || ' ' || max(attempt)
    FROM steps WHERE step = 'wait'")" "1 1"
stop_server a TERM
check "exit status" "$stop_rc" 0

printf '%d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
