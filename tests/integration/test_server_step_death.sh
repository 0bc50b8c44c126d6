#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A step's processes die with their server (docs/execution.md, "A step's
# processes"), with a real "sked server" killed by SIGKILL:
#
#   test_server_step_death.sh
#
# A schedule fires every second with overlap skip; its one step is a shell
# that writes a ledger (its start, then a heartbeat every 0.1 s for 6 s)
# and forks a grandchild that heartbeats too. The server is killed during
# a step. Then:
# 1. the step and its grandchild are dead within a second of the kill,
#    and their heartbeats stop;
# 2. a second server recovers the run: the cut-off attempt is on record
#    as lease_expired, the next one has the next SKED_ATTEMPT and
#    completes;
# 3. over the whole test, every execution in the ledger is one recorded
#    attempt (no run and attempt number executed twice, none unrecorded),
#    and no two executions' heartbeats overlap in time (overlap skip).
#
# Env: SKED_BIN. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
mode=sqlite
. "$here/server_lib.sh"

mode_db death.db
led=$tmp/ledger
wf=$tmp/wf.yaml
cat >"$wf" <<YAML
workflows:
  beat:
    steps:
      - name: work
        sh: |
          id="\$SKED_RUN_ID \$SKED_ATTEMPT"
          echo "start \$id \$\$" >> $led
          (trap '' TERM HUP
           while :; do echo "hb \$id \$(date +%s%N)" >> $led; sleep 0.1; done) &
          gc=\$!
          echo "gc \$id \$gc" >> $led
          i=0
          while [ \$i -lt 60 ]; do
            echo "hb \$id \$(date +%s%N)" >> $led; sleep 0.1; i=\$((i + 1))
          done
          kill -KILL \$gc
          echo "end \$id" >> $led
    schedules:
      - every: 1s
        overlap: skip
YAML

srv() { start_server "$1" --db "$db" --workflows "$wf" --lease 3s "${@:2}"; }

# alive PID: the process runs (a zombie, never reaped where init does not
# reap, has died).
alive() {
    local st
    st=$(sed -E 's/.*\) (.).*/\1/' "/proc/$1/stat" 2>/dev/null) || return 1
    [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# The ledger's lines of kind KIND as "run attempt value".
ledger() { sed -n "s/^$1 //p" "$led" 2>/dev/null; }

# ---- 1. the server dies, its step with it --------------------------------
srv a --workers 2
wait_log a "server started" 20 || fail "start a" "$(cat "$tmp/a.log")"
deadline=$((SECONDS + 20))
until [ "$(ledger gc | wc -l)" -ge 1 ] || [ $SECONDS -ge $deadline ]; do
    sleep 0.1
done
sleep 1
read -r run1 att1 pid1 <<<"$(ledger start | head -n 1)"
gc1=$(ledger gc | head -n 1 | cut -d' ' -f3)
check "first attempt" "$att1" 1
alive_before=0
for p in $pid1 $gc1; do
    alive "$p" && alive_before=$((alive_before + 1))
done
check "step and grandchild run" "$alive_before" 2
stop_server a KILL
killed_at=$(date +%s%N)
sleep 1
alive=0
for p in $pid1 $gc1; do
    alive "$p" && alive=$((alive + 1)) && ps -o pid,stat,comm -p "$p" >&2
done
check "step and grandchild dead a second after the kill" "$alive" 0
late=$(ledger hb | awk -v r="$run1" -v k="$killed_at" \
    '$1 == r && $2 == 1 && $3 > k + 300000000' | wc -l)
check "no heartbeat of the cut-off attempt after the kill" "$late" 0

# ---- 2. another server recovers the run ------------------------------------
srv b --workers 2
wait_log b "server started" 20 || fail "start b" "$(cat "$tmp/b.log")"
deadline=$((SECONDS + 40))
until grep -q "^end $run1 2\$" "$led" 2>/dev/null || [ $SECONDS -ge $deadline ]; do
    sleep 0.2
done
# Quiet before the stop, so that every attempt on record has run.
"$bin" schedule pause beat --db "$db" >/dev/null
deadline=$((SECONDS + 20))
until [ "$(q "$db" "SELECT count(*) FROM runs
                    WHERE status IN ('pending', 'running', 'waiting')")" = 0 ] ||
    [ $SECONDS -ge $deadline ]; do
    sleep 0.2
done
stop_server b TERM
steps=$("$bin" run get "$run1" --json --db "$db" | $py -c '
import json, sys
r = json.load(sys.stdin)
print(r["status"], " ".join("%d:%s:%s" % (s["attempt"], s["status"],
      s["error_code"] or "-") for s in r["steps"]))')
check "recovered run's attempts" "$steps" \
    "completed 1:failed:lease_expired 2:completed:-"

# ---- 3. the ledger against the database ------------------------------------
q "$db" "SELECT run_id || ' ' || attempt FROM steps ORDER BY 1" >"$tmp/recorded"
ledger start | cut -d' ' -f1,2 | sort >"$tmp/executed"
check "executions twice under one attempt number" \
    "$(uniq -d "$tmp/executed" | wc -l)" 0
check "executions and recorded attempts" \
    "$(tr '\n' ' ' <"$tmp/executed")" "$(sort "$tmp/recorded" | tr '\n' ' ')"
overlaps=$(ledger hb | $py -c '
import collections, sys
span = collections.OrderedDict()
for line in sys.stdin:
    run, attempt, t = line.split()
    lo, hi = span.get((run, attempt), (int(t), int(t)))
    span[(run, attempt)] = (min(lo, int(t)), max(hi, int(t)))
s = sorted(span.values())
print(sum(1 for a, b in zip(s, s[1:]) if b[0] < a[1]))')
check "executions running at once" "$overlaps" 0

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
