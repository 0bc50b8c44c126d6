#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A PostgreSQL restart under a busy server abandons nothing (SPEC 4.2,
# 11): a server that loses its connection keeps its own runs — it
# reconnects, renews their leases and records their results — and no
# step runs twice. Only a server that is gone loses its runs to another.
#
# The test starts a throwaway cluster of its own (scripts/pg.sh, reached
# over its Unix socket, as the tests' cluster is), since it restarts it;
# a server with $SKED_TEST_RESTART_WORKERS workers (default 40) runs
# $SKED_TEST_RESTART_SCHEDULES (default 30) every-second schedules of a
# three-step workflow whose steps write a ledger line each, and
# PostgreSQL gets `pg_ctl restart -m fast` while runs are in flight. The
# schedules end a few seconds later; then, well within one lease:
# - no step executed twice (the ledger, and the recorded attempts);
# - no run is left active, and every run completed;
# - no run was recovered (a live server never takes over its own runs).
#
# Env: SKED_BIN, SKED_SOURCE_DIR. Ends with "N passed, M failed"; exit 77
# when no PostgreSQL server is installed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
src=${SKED_SOURCE_DIR:-$here/../..}
nsched=${SKED_TEST_RESTART_SCHEDULES:-30}
workers=${SKED_TEST_RESTART_WORKERS:-40}
. "$here/server_lib.sh"

export SKED_PG_DIR=$tmp/pg
pgsh() { bash "$src/scripts/pg.sh" "$@"; }
if ! db=$(pgsh start 2>"$tmp/pg.err"); then
    if grep -q "no PostgreSQL server found" "$tmp/pg.err"; then
        echo "skipped: no PostgreSQL server"
        exit 77
    fi
    cat "$tmp/pg.err" >&2
    exit 1
fi
restart_cleanup() {
    kill_all
    pgsh stop
    cleanup
}
trap restart_cleanup EXIT

# The schedules end 20 s after the start; the restart comes once runs are
# in flight (on a busy machine the first runs can take seconds to start,
# so the test waits for them rather than for a fixed time), at most 12 s
# in, which leaves occurrences to fire after it.
end_at=$("$py" -c 'import datetime, time
t = datetime.datetime.fromtimestamp(int(time.time()) + 20, datetime.timezone.utc)
print(t.strftime("%Y-%m-%dT%H:%M:%SZ"))')
ledger=$tmp/ledger
wf=$tmp/wf.yaml
{
    echo "workflows:"
    echo "  three:"
    echo "    steps:"
    for s in one two three; do
        echo "      - name: $s"
        [ $s = one ] || echo "        needs: [$prev]"
        echo "        sh: 'echo \"\$SKED_RUN_ID $s \$SKED_ATTEMPT\" >>$ledger;" \
            "sleep 0.3'"
        prev=$s
    done
    echo "    schedules:"
    for i in $(seq 1 "$nsched"); do
        printf '      - {name: persec-%02d, cron: "* * * * * *", end_at: %s}\n' \
            "$i" "$end_at"
    done
} >"$wf"

start_server s1 --db "$db" --listen off --tick 1s --workflows "$wf" \
    --workers "$workers"
if ! wait_log s1 'msg="server started"' 30; then
    fail "start" "$(tail -n 5 "$tmp/s1.log")"
    printf '%d passed, %d failed\n' "$passed" "$failed"
    exit 1
fi
sleep 3
inflight=0
wait_until=$((SECONDS + 9))
while [ $SECONDS -lt $wait_until ]; do
    inflight=$(q "$db" "SELECT count(*) FROM runs WHERE status = 'running'")
    [ "$inflight" -ge 3 ] && break
    sleep 0.2
done
pgsh restart || fail "restart" "pg.sh restart failed"
check_ge "runs in flight at the restart" "$inflight" 1

# The last occurrence fires at end_at; its run takes about a second.
while [ "$(date +%s)" -le "$("$py" -c "import datetime
print(int(datetime.datetime.fromisoformat('${end_at%Z}+00:00').timestamp()))")" ]; do
    sleep 0.5
done
# Well within the lease (30 s): a run left running would wait for it.
deadline=$((SECONDS + 12))
active=-1
while [ $SECONDS -lt $deadline ]; do
    active=$(q "$db" "SELECT count(*) FROM runs
                      WHERE status IN ('pending', 'running', 'waiting')")
    [ "$active" = 0 ] && break
    sleep 0.5
done
check "runs still active 12 s after the last occurrence" "$active" 0
q "$db" "SELECT id, status, executor FROM runs
         WHERE status IN ('pending', 'running', 'waiting') LIMIT 5"

kill -0 "$pid_s1" 2>/dev/null
check "the server is still running" "$?" 0
runs=$(q "$db" "SELECT count(*) FROM runs")
check_ge "runs" "$runs" $((nsched * 8))
check "runs not completed" \
    "$(q "$db" "SELECT count(*) FROM runs WHERE status <> 'completed'")" 0
check "runs recovered" \
    "$(q "$db" "SELECT count(*) FROM events WHERE type = 'run.recovered'")" 0
check "step attempts recorded more than once" \
    "$(q "$db" "SELECT count(*) FROM (SELECT run_id, step FROM steps
                GROUP BY run_id, step HAVING count(*) > 1) d")" 0
twice=$(sort "$ledger" | awk '{print $1, $2}' | uniq -d | wc -l)
check "steps executed twice (ledger)" "$twice" 0
sort "$ledger" | awk '{print $1, $2}' | uniq -d | head -3
check "steps executed (ledger) = steps recorded completed" \
    "$(wc -l <"$ledger" | tr -d ' ')" \
    "$(q "$db" "SELECT count(*) FROM steps WHERE status = 'completed'")"

stop_server s1 TERM
check "the server stops with exit 0" "$stop_rc" 0
echo "$runs runs, $inflight in flight at the restart"
printf '%d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
