#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The chaos run (`make chaos`): real `sked server` processes under random
# faults for CHAOS_MINUTES, then a check of what the steps themselves
# wrote against what the databases say.
#
#   tests/chaos/chaos.sh [BUILD_DIR]
#
# Two clusters run side by side: three servers on one PostgreSQL database
# (a throwaway cluster from scripts/pg.sh) and two on one SQLite file,
# kept on a small tmpfs of its own so that its disk can be filled. Both
# load the same workflows (wf-CLUSTER.yaml, written here, which differ
# only in the ledger their steps write to): schedules firing every
# second under several overlap and catch-up policies, of a three-step
# workflow with retries and compensations, a one-step one and a slow one
# whose step outlasts the lease. Every step is tests/chaos/step.sh, which
# appends its start and its end to the cluster's ledger.
#
# Faults, one at a time, every 3-15 s, chosen with bash's RANDOM seeded
# by CHAOS_SEED (printed at the start; the same seed gives the same faults
# in the same order, at about the same times, though not the same runs,
# which depend on timing):
#   kill       SIGKILL of a server, restarted 1-5 s later
#   stop       SIGSTOP of a server and its steps (a frozen container or
#              machine) for 1-12 s, then SIGCONT
#   terminate  pg_terminate_backend of every connection to the database
#   pgrestart  a fast restart of PostgreSQL (scripts/pg.sh restart)
#   diskfull   the SQLite tmpfs filled to the last byte for 3-15 s
#   outage     every server of one cluster killed for 65-90 s, past the
#              on-time grace, so catch-up decides; then started together
# A server that exits without being killed is logged as a fault of its own
# (`exit`) and started again. The schedules end at the end of the period;
# then the faults stop, every server runs again, the runs still active
# get up to CHAOS_SETTLE seconds (default 120) to finish, the servers get
# SIGTERM, and tests/chaos/check.py prints one line per invariant and
# cluster. The exit status is 1 when one is broken.
#
# Env: CHAOS_MINUTES (default 10), CHAOS_SEED, CHAOS_SETTLE,
# CHAOS_LEASE_SECS (default 5: the servers' --lease), CHAOS_KEEP=1 keeps
# the scratch directory (it is kept anyway when an invariant is broken).
# The full disk needs a tmpfs mount, so root; without it the diskfull
# fault is left out, and the run says so.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
bin=$build/sked
[ -x "$bin" ] || {
    echo "chaos: no sked binary in $build (make build)" >&2
    exit 2
}
minutes=${CHAOS_MINUTES:-10}
settle=${CHAOS_SETTLE:-120}
lease_secs=${CHAOS_LEASE_SECS:-5}
lease=${lease_secs}s
seed=${CHAOS_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
RANDOM=$seed
tmp=$(mktemp -d)
disk=$tmp/disk
faults=$tmp/faults.log
export PGOPTIONS="-c client_min_messages=warning"
declare -A pid state cluster
pg_servers=(p1 p2 p3)
sqlite_servers=(l1 l2)
mounted=0
pg_url=

now_us() { echo "${EPOCHREALTIME/./}"; }

# note FAULT TARGET DETAIL: one line of the fault log, echoed.
note() {
    printf '%s\t%s\t%s\t%s\n' "$(now_us)" "$1" "$2" "${3:-}" >>"$faults"
    printf 'chaos: %(%T)T %-9s %-3s %s\n' -1 "$1" "$2" "${3:-}"
}

cleanup() {
    local n
    for n in "${!pid[@]}"; do
        kill -CONT "${pid[$n]}" 2>/dev/null
        kill -KILL "${pid[$n]}" 2>/dev/null
    done
    wait 2>/dev/null
    SKED_PG_DIR=$tmp/pg "$root/scripts/pg.sh" stop
    [ "$mounted" = 1 ] && umount "$disk"
    if [ "${keep:-0}" = 1 ] || [ "${CHAOS_KEEP:-0}" = 1 ]; then
        echo "chaos: kept $tmp"
    else
        rm -rf "$tmp"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# q CLUSTER SQL: rows of SQL on the cluster's database, "a|b|c".
q() {
    case $1 in
    sqlite) sqlite3 -cmd '.timeout 10000' "$disk/chaos.db" "$2" ;;
    pg) psql "$pg_url" -X -Atq -F '|' -c "$2" ;;
    esac
}

# workflows LEDGER START END: the workflows file of one cluster.
workflows() {
    local ledger=$1 t0=$2 t1=$3 env
    env="env: {CHAOS_LEDGER: \"$ledger\", CHAOS_SEED: \"$seed\"}"
    # act KIND MIN_MS MAX_MS FAIL_PCT: a step's action and its env.
    act() { echo "run: [bash, \"$here/step.sh\", $1, $2, $3, $4], $env"; }
    local when="cron: \"* * * * * *\", start_at: \"$t0\", end_at: \"$t1\""
    cat <<EOF
workflows:
  pipeline:
    steps:
      - {name: prepare, $(act step 200 1500 0),
         compensate: {$(act comp 100 400 0)}}
      - {name: work, needs: [prepare], $(act step 500 3000 25),
         retry: {attempts: 3, backoff: 1s},
         compensate: {$(act comp 100 400 0)}}
      - {name: finish, needs: [work], $(act step 100 1000 20),
         compensate: {$(act comp 100 400 0)}}
    schedules:
      - {name: skip-latest, $when, overlap: skip, catchup: latest}
      - {name: skip-all, $when, overlap: skip, catchup: all, catchup_max: 3}
      - {name: cancel-other, $when, overlap: cancel_other}
      - {name: buffer-one, $when, overlap: buffer_one, catchup: skip}
  quick:
    steps:
      - {name: only, $(act step 50 300 5)}
    schedules:
      - {name: allow-all, $when, catchup: all, catchup_max: 5}
      - {name: allow-skip, $when, catchup: skip}
      - {name: buffer-all, $when, overlap: buffer_all}
  slow:
    steps:
      - {name: hold, $(act step 6000 9000 0)}
    schedules:
      - {name: slow-skip, $when, overlap: skip}
EOF
}

# start NAME: start server NAME of its cluster, output to NAME.log.
start() {
    local n=$1 db
    case ${cluster[$n]} in
    pg) db=$pg_url ;;
    sqlite) db=sqlite:$disk/chaos.db ;;
    esac
    "$bin" server --db "$db" --listen 127.0.0.1:0 --tick 1s \
        --lease "$lease" --workers 8 \
        --workflows "$tmp/wf-${cluster[$n]}.yaml" >>"$tmp/$n.log" 2>&1 &
    pid[$n]=$!
    state[$n]=up
}

# alive PID: the process exists and is not a zombie.
alive() {
    local st
    [ -r "/proc/$1/stat" ] || return 1
    st=$(sed -E 's/.*\) (.).*/\1/' "/proc/$1/stat" 2>/dev/null)
    [ -n "$st" ] && [ "$st" != Z ]
}

# tree PID: PID and every process below it.
tree() {
    local c
    echo "$1"
    for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
        tree "$c"
    done
}

# reap: a server that exited without a fault is logged and restarted.
reap() {
    local n rc
    for n in "${!pid[@]}"; do
        [ "${state[$n]}" = killed ] && continue
        alive "${pid[$n]}" && continue
        wait "${pid[$n]}"
        rc=$?
        note exit "$n" "pid ${pid[$n]} exited by itself, status $rc"
        start "$n"
        note restart "$n" "pid ${pid[$n]}"
    done
}

# pick WORD...: set picked to one of the words, at random. Not in a $(...):
# bash seeds a subshell's RANDOM afresh, and the run would not repeat.
pick() {
    local a=("$@")
    picked=${a[RANDOM % ${#a[@]}]}
}

fault_kill() {
    local n
    pick "${pg_servers[@]}" "${sqlite_servers[@]}"
    n=$picked
    [ "${state[$n]}" = up ] || return
    kill -KILL "${pid[$n]}"
    wait "${pid[$n]}" 2>/dev/null
    state[$n]=killed
    note kill "$n" "pid ${pid[$n]}"
    sleep $((1 + RANDOM % 5))
    start "$n"
    note restart "$n" "pid ${pid[$n]}"
}

fault_stop() {
    local n secs procs
    pick "${pg_servers[@]}" "${sqlite_servers[@]}"
    n=$picked
    [ "${state[$n]}" = up ] || return
    secs=$((1 + RANDOM % 12))
    procs=$(tree "${pid[$n]}" | tr '\n' ' ')
    # shellcheck disable=SC2086
    kill -STOP $procs 2>/dev/null
    state[$n]=stopped
    note stop "$n" "pid ${pid[$n]} for ${secs}s (processes $procs)"
    sleep "$secs"
    # shellcheck disable=SC2086
    kill -CONT $procs 2>/dev/null
    state[$n]=up
    note cont "$n" "pid ${pid[$n]}"
}

# An outage of a whole cluster, longer than the on-time grace (a minute
# with --tick 1s), so that its schedules come back to late occurrences and
# their catch-up policies decide; then its servers start together again.
# Only when at least 150 s of the period are left, so the end stays calm.
fault_outage() {
    local c n names secs=$((65 + RANDOM % 26))
    [ $(($(date +%s) + 150)) -lt "$t1" ] || return
    pick pg sqlite
    c=$picked
    if [ "$c" = pg ]; then names=("${pg_servers[@]}"); else
        names=("${sqlite_servers[@]}")
    fi
    for n in "${names[@]}"; do
        kill -KILL "${pid[$n]}"
        wait "${pid[$n]}" 2>/dev/null
        state[$n]=killed
        note kill "$n" "pid ${pid[$n]} (outage of $c for ${secs}s)"
    done
    sleep "$secs"
    for n in "${names[@]}"; do start "$n"; done
    for n in "${names[@]}"; do note restart "$n" "pid ${pid[$n]}"; done
}

fault_terminate() {
    local k
    k=$(q pg "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
              WHERE datname = current_database()
                AND pid <> pg_backend_pid()")
    note terminate pg "${k:-?} backends"
}

fault_pgrestart() {
    note pgrestart pg "begins"
    SKED_PG_DIR=$tmp/pg "$root/scripts/pg.sh" restart ||
        note pgrestart pg "FAILED"
    note pgrestart pg "done"
}

fault_diskfull() {
    local secs=$((3 + RANDOM % 13))
    [ "$mounted" = 1 ] || return
    dd if=/dev/zero of="$disk/filler" bs=64k 2>/dev/null
    note diskfull sqlite "for ${secs}s ($(df --output=avail -B1 "$disk" |
        tail -n 1 | tr -d ' ') bytes left)"
    sleep "$secs"
    rm -f "$disk/filler"
    note diskfree sqlite ""
}

# active CLUSTER: runs pending, running or waiting.
active() {
    q "$1" "SELECT count(*) FROM runs
            WHERE status IN ('pending', 'running', 'waiting')"
}

# dump CLUSTER: the tables the checker reads, as files CLUSTER.*.
dump() {
    local c=$1 d=$tmp/$1 first last
    q "$c" "SELECT id, coalesce(schedule, ''), coalesce(scheduled_for, 0),
            status, trigger_kind FROM runs" >"$d.runs"
    q "$c" "SELECT run_id, step, compensation, attempt, status,
            coalesce(error_code, ''), started_at, coalesce(finished_at, 0)
            FROM steps" >"$d.steps"
    q "$c" "SELECT name, overlap FROM schedules" >"$d.schedules"
    if [ "$c" = sqlite ]; then
        first="json_extract(payload, '\$.first')"
        last="json_extract(payload, '\$.last')"
        q "$c" "SELECT subject, json_extract(payload, '\$.reason'),
                json_extract(payload, '\$.count'),
                CAST(round((julianday($first) - 2440587.5) * 86400.0)
                     AS INTEGER) * 1000000,
                CAST(round((julianday($last) - 2440587.5) * 86400.0)
                     AS INTEGER) * 1000000
                FROM events WHERE type = 'schedule.occurrences_missed'"
    else
        q "$c" "SELECT subject, payload::json->>'reason',
                payload::json->>'count',
                (extract(epoch FROM (payload::json->>'first')::timestamptz)
                    * 1000000)::bigint,
                (extract(epoch FROM (payload::json->>'last')::timestamptz)
                    * 1000000)::bigint
                FROM events WHERE type = 'schedule.occurrences_missed'"
    fi >"$d.missed"
}

# --- set up ---------------------------------------------------------------
echo "chaos: seed $seed (CHAOS_SEED=$seed repeats these faults)," \
    "$minutes min, lease $lease, scratch $tmp"
: >"$faults"
SKED_PG_DIR=$tmp/pg "$root/scripts/pg.sh" start >/dev/null || exit 1
pg_url=$(SKED_PG_DIR=$tmp/pg "$root/scripts/pg.sh" db sked_chaos) || exit 1
mkdir -p "$disk"
if [ "$(id -u)" -eq 0 ] &&
    mount -t tmpfs -o size=128m chaos-disk "$disk" 2>/dev/null; then
    mounted=1
else
    echo "chaos: no tmpfs could be mounted (not root?): no diskfull faults"
fi

for n in "${pg_servers[@]}"; do cluster[$n]=pg; done
for n in "${sqlite_servers[@]}"; do cluster[$n]=sqlite; done
t0=$(($(date +%s) + 15))
t1=$((t0 + minutes * 60))
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
for c in pg sqlite; do
    : >"$tmp/ledger-$c"
    workflows "$tmp/ledger-$c" "$(iso "$t0")" "$(iso "$t1")" >"$tmp/wf-$c.yaml"
done
echo "chaos: occurrences from $(iso "$t0") to $(iso "$t1")"
# All servers of a cluster start at the same moment, as replicas do.
for n in "${pg_servers[@]}" "${sqlite_servers[@]}"; do start "$n"; done
for n in "${pg_servers[@]}" "${sqlite_servers[@]}"; do
    note start "$n" "pid ${pid[$n]}"
done

# --- the faults -----------------------------------------------------------
kinds=(kill kill kill stop stop terminate terminate pgrestart diskfull outage)
while [ "$(date +%s)" -lt "$t1" ]; do
    gap=$((3 + RANDOM % 13))
    while [ "$gap" -gt 0 ] && [ "$(date +%s)" -lt "$t1" ]; do
        sleep 1
        gap=$((gap - 1))
        reap
    done
    [ "$(date +%s)" -lt "$t1" ] || break
    pick "${kinds[@]}"
    "fault_$picked"
    reap
done

# --- settle ---------------------------------------------------------------
sleep 3
reap
note settle all "waiting up to ${settle}s for active runs to finish"
deadline=$((SECONDS + settle))
while [ $SECONDS -lt "$deadline" ]; do
    a_pg=$(active pg) a_sqlite=$(active sqlite)
    [ "${a_pg:-1}" = 0 ] && [ "${a_sqlite:-1}" = 0 ] && break
    sleep 2
    reap
done
for n in "${!pid[@]}"; do
    kill -TERM "${pid[$n]}"
    wait "${pid[$n]}"
    rc=$?
    [ "$rc" = 0 ] || note exit "$n" "pid ${pid[$n]}: status $rc after SIGTERM"
    state[$n]=killed
done
note end all ""

# --- check ----------------------------------------------------------------
for c in pg sqlite; do dump "$c"; done
/usr/bin/python3 "$here/check.py" --dir "$tmp" --from "$t0" --to "$t1" \
    --faults "$faults" --lease "$lease_secs" pg sqlite
rc=$?
[ "$rc" = 0 ] || keep=1
echo "chaos: seed $seed, $minutes min: $([ "$rc" = 0 ] && echo ok ||
    echo 'an invariant is broken')"
exit "$rc"
