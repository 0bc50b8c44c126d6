#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Execution by real "sked server" processes (SPEC 4), on one database:
#
#   test_server_exec.sh [sqlite|pg]
#
# 1. Crash recovery: a server is killed with SIGKILL while a three-step
#    run is in its second step; another server resumes the run at step
#    two once the lease lapses. Step one never runs again, the run
#    completes once, and its record shows the lost attempt.
# 2. Queue limits: two servers, 12 runs on a queue of concurrency 2: no
#    more than two ever run at once, read from the steps' start and end.
#    And worker_concurrency 1: one server with 4 workers runs one of the
#    queue's runs at a time.
# 3. A command that does not exist fails its run with that reason, and
#    the worker goes on with the next run.
# 4. A hard workflow timeout kills a step that sleeps past it, within
#    kill_grace: the run fails with "Workflow timeout.".
# 5. A run cancelled while running: its step stops, its compensation runs,
#    it ends cancelled.
# 6. A step printing 100 MB of NULs after bytes that are not UTF-8
#    completes; what is kept is 64 KiB made valid UTF-8, marked truncated.
# 7. An http step to a closed port fails its run with that reason.
# 8. A command stopped (a cancel, its timeout) as it ends: one that then
#    exits 0 completed, and a cancelled run compensates it; one that
#    exits with another status was stopped. Each case a command that
#    ignores SIGTERM and ends by itself within its kill_grace, as one
#    whose last moment the signal meets does.
# 9. A server frozen (SIGSTOP) past its lease while its step runs: the
#    other server recovers the run; once the frozen one wakes, it stops
#    its own execution of the step at its first renewal (within a third
#    of the lease), not at the step's end, and the run completes once.
#
# Env: SKED_BIN; SKED_TEST_PG_URL for pg. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
mode=${1:-sqlite}
. "$here/server_lib.sh"

mode_db exec.db

mark=$tmp/marks
mkdir -p "$mark"
wf=$tmp/wf.yaml
cat >"$wf" <<YAML
queues:
  pair: {concurrency: 2}
  solo: {worker_concurrency: 1}
workflows:
  three-steps:
    steps:
      - name: one
        sh: 'echo "\$SKED_RUN_ID" >> $mark/one'
      - name: two
        needs: [one]
        sh: 'echo start >> $mark/two; sleep 4; echo end >> $mark/two'
      - name: three
        needs: [two]
        sh: 'echo "\$SKED_STEP_KEY" >> $mark/three'
  paired:
    queue: pair
    steps:
      - name: work
        sh: 'sleep 0.4'
  single:
    queue: solo
    steps:
      - name: work
        sh: 'sleep 0.3'
  missing:
    steps:
      - name: nope
        run: ["$tmp/no/such/program"]
  slow:
    timeout: {seconds: 2, hard: true}
    steps:
      - name: nap
        run: ["sleep", "30"]
        kill_grace: 1s
  noisy:
    steps:
      - name: shout
        sh: 'printf "\\377\\376 ok \\000 end"; head -c 100000000 /dev/zero; echo done >&2'
  hook:
    steps:
      - name: call
        http: {method: POST, url: "http://127.0.0.1:9/hook", body: "{}"}
  cancellable:
    steps:
      - name: first
        sh: 'echo first'
        compensate: {sh: 'echo undone >> $mark/undone'}
      - name: block
        needs: [first]
        sh: 'echo blocking >> $mark/block; sleep 30'
YAML
# Section 9's: a step that says when it starts and when it is stopped.
cat >>"$wf" <<YAML
  frozen:
    steps:
      - name: hold
        sh: 'echo "\$\$ begun" >> $mark/frozen; trap "echo \$\$ stopped >> $mark/frozen; exit 143" TERM; sleep 10 & wait'
YAML
# Section 8's workflows: end-STOP-STATUS.
for stop in cancel timeout; do
    for rc in 0 3; do
        limit=2h
        [ "$stop" = timeout ] && limit=1s
        cat >>"$wf" <<YAML
  end-$stop-$rc:
    steps:
      - name: ending
        sh: 'echo begun > $mark/end-$stop-$rc; trap "" TERM; sleep 4; echo done; exit $rc'
        timeout: $limit
        kill_grace: 20s
        compensate: {sh: 'echo undone >> $mark/end-$stop-$rc-undo'}
YAML
    done
done

srv() { start_server "$1" --db "$db" --workflows "$wf" --lease 3s "${@:2}"; }

# run_json ID: the run's JSON on stdout.
run_json() { "$bin" run get "$1" --json --db "$db"; }

# wait_status ID STATUS SECONDS
wait_status() {
    local deadline=$((SECONDS + $3)) st
    while [ $SECONDS -lt $deadline ]; do
        st=$(run_json "$1" 2>/dev/null | $py -c \
            'import json,sys; print(json.load(sys.stdin)["status"])' 2>/dev/null)
        [ "$st" = "$2" ] && return 0
        sleep 0.2
    done
    return 1
}

# ---- 1. crash recovery ---------------------------------------------------
srv a --workers 2
wait_log a "server started" 20 || fail "start a" "$(cat "$tmp/a.log")"
id=$("$bin" run start three-steps --db "$db")
deadline=$((SECONDS + 20))
until [ -s "$mark/two" ] || [ $SECONDS -ge $deadline ]; do sleep 0.1; done
check "step two started" "$(cat "$mark/two" 2>/dev/null)" "start"
stop_server a KILL
srv b --workers 2
if wait_status "$id" completed 30; then pass; else
    fail "recovered run completes" "$(run_json "$id")"
fi
check "step one ran once" "$(wc -l <"$mark/one")" 1
check "step three ran once" "$(wc -l <"$mark/three")" 1
check "step key" "$(cat "$mark/three")" "$id/three"
steps=$(run_json "$id" | $py -c '
import json, sys
r = json.load(sys.stdin)
print(" ".join("%s:%d:%s:%s" % (s["step"], s["attempt"], s["status"],
               s["error_code"] or "-") for s in r["steps"]))')
check "attempts on record" "$steps" \
    "one:1:completed:- two:1:failed:lease_expired two:2:completed:- three:1:completed:-"
n=$(q "$db" "SELECT count(*) FROM events WHERE type = 'run.recovered'
             AND subject = '$id'")
check "one run.recovered event" "$n" 1
n=$(q "$db" "SELECT count(*) FROM events WHERE type = 'run.completed'
             AND subject = '$id'")
check "one run.completed event" "$n" 1

# ---- 2. queue limits across two servers ----------------------------------
srv c --workers 4
wait_log c "server started" 20 || fail "start c" "$(cat "$tmp/c.log")"
ids=()
for i in $(seq 1 12); do
    ids+=("$("$bin" run start paired --db "$db")")
done
for i in "${ids[@]}"; do
    wait_status "$i" completed 60 || fail "paired run completes" "$i"
done
# One line of JSON per run (run get --json prints it indented).
compact='import json, sys; print(json.dumps(json.load(sys.stdin)))'
maxrun=$(for i in "${ids[@]}"; do run_json "$i" | $py -c "$compact"; done | $py -c '
import json, sys
ev = []
for line in sys.stdin:
    if not line.strip():
        continue
    s = json.loads(line)["steps"][0]
    ev.append((s["started_at"], 1))
    ev.append((s["finished_at"], -1))
ev.sort(key=lambda e: (e[0], e[1]))
cur = top = 0
for _, d in ev:
    cur += d
    top = max(top, cur)
print(top)')
check_le "at most 2 running at once (queue pair)" "$maxrun" 2
check_ge "the queue ran 2 at once" "$maxrun" 2

# overlap PY: the most runs of the ids on stdin's JSON lines at once.
overlap() {
    $py -c '
import json, sys
ev = []
for line in sys.stdin:
    if not line.strip():
        continue
    s = json.loads(line)["steps"][0]
    ev.append((s["started_at"], 1))
    ev.append((s["finished_at"], -1))
ev.sort(key=lambda e: (e[0], e[1]))
cur = top = 0
for _, d in ev:
    cur += d
    top = max(top, cur)
print(top)'
}
stop_server c TERM
sids=()
for i in $(seq 1 6); do
    sids+=("$("$bin" run start single --db "$db")")
done
for i in "${sids[@]}"; do
    wait_status "$i" completed 60 || fail "single run completes" "$i"
done
solo=$(for i in "${sids[@]}"; do run_json "$i" | $py -c "$compact"; done | overlap)
check "one at a time on one server (worker_concurrency 1)" "$solo" 1
srv c --workers 4
wait_log c "server started" 20 || fail "restart c" "$(cat "$tmp/c.log")"

# ---- 3. a program that does not exist --------------------------------------
bad=$("$bin" run start missing --db "$db")
good=$("$bin" run start paired --db "$db")
wait_status "$bad" failed 20 && pass || fail "missing program fails" "$(run_json "$bad")"
err=$(run_json "$bad" | $py -c 'import json,sys; r=json.load(sys.stdin); print(r["steps"][0]["error_code"], r["steps"][0]["error"])')
case $err in
"exec_failed "*"no/such/program"*) pass ;;
*) fail "the step says why" "$err" ;;
esac
wait_status "$good" completed 20 && pass || fail "the worker goes on" "$good"

# ---- 4. hard workflow timeout ---------------------------------------------
t0=$SECONDS
slow=$("$bin" run start slow --db "$db")
wait_status "$slow" failed 20 && pass || fail "slow run fails" "$(run_json "$slow")"
check_le "failed within timeout + grace + slack" "$((SECONDS - t0))" 8
got=$(run_json "$slow" | $py -c 'import json,sys; r=json.load(sys.stdin); print(r["error"], r["error_code"])')
check "the run's error" "$got" "Workflow timeout. timeout"

# ---- 5. cancel while running ----------------------------------------------
cid=$("$bin" run start cancellable --db "$db")
deadline=$((SECONDS + 20))
until [ -s "$mark/block" ] || [ $SECONDS -ge $deadline ]; do sleep 0.1; done
"$bin" run cancel "$cid" --db "$db" >/dev/null || fail "cancel" "exit $?"
wait_status "$cid" cancelled 20 && pass || fail "cancelled" "$(run_json "$cid")"
check "compensation ran once" "$(cat "$mark/undone" 2>/dev/null)" "undone"
"$bin" run cancel "$cid" --db "$db" >/dev/null 2>&1
check "cancel a finished run: exit 4" "$?" 4

# ---- 6. output that is neither text nor small --------------------------------
nid=$("$bin" run start noisy --db "$db")
wait_status "$nid" completed 30 && pass || fail "noisy run completes" "$(run_json "$nid")"
got=$(run_json "$nid" | $py -c '
import json, sys
s = json.load(sys.stdin)["steps"][0]
out = s["output"]
print(out.startswith("\ufffd\ufffd ok \ufffd end"), s["output_truncated"],
      len(out.encode()) <= 3 * 65536, s["stderr"], s["stderr_truncated"])')
check "kept, sanitised, truncated" "$got" "True True True done
 False"

# ---- 7. an http step to a closed port ---------------------------------------
hid=$("$bin" run start hook --db "$db")
wait_status "$hid" failed 30 && pass || fail "hook run fails" "$(run_json "$hid")"
got=$(run_json "$hid" | $py -c '
import json, sys
s = json.load(sys.stdin)["steps"][0]
print(s["error_code"], "127.0.0.1:9/hook" in s["error"])')
check "the step says why" "$got" "http_failed True"

# ---- 8. stopped as it ends --------------------------------------------------
# run_steps ID: "STATUS STEP_STATUS ERROR_CODE OUTPUT" of the run and its
# first step.
run_steps() {
    run_json "$1" | $py -c '
import json, sys
r = json.load(sys.stdin)
s = [x for x in r["steps"] if not x["compensation"]][0]
print(r["status"], s["status"], s.get("error_code") or "-",
      (s.get("output") or "-").strip())'
}
for stop in cancel timeout; do
    for rc in 0 3; do
        n=end-$stop-$rc
        eid=$("$bin" run start "$n" --db "$db")
        deadline=$((SECONDS + 20))
        until [ -s "$mark/$n" ] || [ $SECONDS -ge $deadline ]; do sleep 0.05; done
        [ "$stop" = cancel ] && "$bin" run cancel "$eid" --db "$db" >/dev/null
        wait_status "$eid" "$([ "$stop" = cancel ] && echo cancelled ||
            { [ "$rc" = 0 ] && echo completed || echo failed; })" 30 &&
            pass || fail "$n ends" "$(run_json "$eid")"
        case $stop-$rc in
        cancel-0) want="cancelled completed - done"; undo=undone ;;
        cancel-3) want="cancelled cancelled cancelled done"; undo= ;;
        timeout-0) want="completed completed - done"; undo= ;;
        timeout-3) want="failed failed timeout done"; undo= ;;
        esac
        check "$n: the run and its step" "$(run_steps "$eid")" "$want"
        check "$n: compensated" "$(cat "$mark/$n-undo" 2>/dev/null)" "$undo"
    done
done

# ---- 9. a frozen server wakes to a run it lost -------------------------------
fid=$("$bin" run start frozen --db "$db")
deadline=$((SECONDS + 20))
until [ -s "$mark/frozen" ] || [ $SECONDS -ge $deadline ]; do sleep 0.05; done
owner=$(run_json "$fid" | $py -c 'import json,sys; print(json.load(sys.stdin)["executor"].rsplit(":", 1)[1])')
kill -STOP "$owner"
deadline=$((SECONDS + 20))
until [ "$(grep -c begun "$mark/frozen")" -ge 2 ] || [ $SECONDS -ge $deadline ]; do
    sleep 0.05
done
first=$(head -n 1 "$mark/frozen" | cut -d' ' -f1)
kill -CONT "$owner"
# The lease is 3 s: the woken server renews within a second, then stops
# its step, which would otherwise go on for some 5 s more.
sleep 2.5
check "the woken server stopped its step" \
    "$(grep -c "^$first stopped" "$mark/frozen")" 1
wait_status "$fid" completed 30 && pass || fail "frozen: completes" "$(run_json "$fid")"
got=$(run_json "$fid" | $py -c '
import json, sys
print(" ".join("%d:%s:%s" % (s["attempt"], s["status"], s.get("error_code") or "-")
               for s in json.load(sys.stdin)["steps"]))')
check "frozen: the attempts on record" "$got" \
    "1:failed:lease_expired 2:completed:-"

# ---- the workflows the servers registered -----------------------------------
got=$("$bin" workflow list --json --db "$db" | $py -c '
import json, sys
print(" ".join("%s:%s" % (w["name"], w["definition"]["queue"])
               for w in json.load(sys.stdin)["workflows"]))')
check "workflow list" "$got" \
    "cancellable:default end-cancel-0:default end-cancel-3:default end-timeout-0:default end-timeout-3:default frozen:default hook:default missing:default noisy:default paired:pair single:solo slow:default three-steps:default"

for s in b c; do
    stop_server "$s" TERM
    check "server $s stops cleanly" "$stop_rc" 0
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
