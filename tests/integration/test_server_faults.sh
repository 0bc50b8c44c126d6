#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A failing database is loud and cheap, and a server recovers by itself
# when the cause goes (ARCHITECTURE 1, "faults are loud"). Real faults,
# each on a real "sked server" firing an every-second schedule whose
# runs execute a real command:
#
#   sqlite: disk_full  the file on a small tmpfs, filled to the last byte
#           read_only  the file and its WAL made immutable (chattr +i)
#           gone       the file deleted under the running server
#   pg:     pg_down    a private PostgreSQL cluster stopped, then started
#
# For each: GET /readyz answers 503 with the cause and never the path,
# socket, port or database name (nor does a client's write, refused with
# the cause's code); the log says "database failing" once,
# naming the kind; sked_store_errors_total{op,kind} counts the tries; the
# server uses little CPU while failing (from /proc/PID/stat, over a few
# seconds: a spinning loop took 76-89% of a core). Then the cause goes:
# readyz answers 200, the log says "database recovered", and every
# occurrence of the whole period has exactly one run or a traced drop.
# On PostgreSQL, the clock skew is exported (sked_clock_skew_seconds).
# A deleted file does not come back: the server stays unready and fires
# nothing more. Runs in flight while PostgreSQL is away complete once it
# is back, none recovered, no step twice; and a server stopped while it
# is away, with runs in flight whose results wait for it, stops promptly.
#
# The tmpfs needs a mount namespace (unshare, as root or in a user
# namespace); chattr needs root on a file system that supports it. A
# fault whose means are missing is skipped with a note.
#
# Usage: test_server_faults.sh [sqlite|pg] (default sqlite). Env:
# SKED_BIN; SKED_SOURCE_DIR (pg: scripts/pg.sh). Ends with "N passed, M
# failed".
set -u

mode=${1:-sqlite}
here=$(cd "$(dirname "$0")" && pwd)
# The disk-full fault mounts a tmpfs: run in a private mount namespace.
if [ "$mode" = sqlite ] && [ -z "${SKED_FAULTS_NS:-}" ]; then
    export SKED_FAULTS_NS=1
    if unshare -m --propagation private true 2>/dev/null; then
        exec unshare -m --propagation private bash "$0" "$@"
    elif unshare -rm --propagation private true 2>/dev/null; then
        exec unshare -rm --propagation private bash "$0" "$@"
    fi
    SKED_FAULTS_NS=none
fi
. "$here/server_lib.sh"
hz=$(getconf CLK_TCK)
# The most CPU a failing server may use, in percent of one core.
cpu_max=${SKED_TEST_FAULT_CPU_MAX:-10}
skipped=0

cat >"$tmp/wf.yaml" <<'EOF'
workflows:
  tick:
    steps:
      - name: one
        run: ["true"]
    schedules:
      - {name: f-tick, cron: "* * * * * *", catchup: all, catchup_max: 1000}
EOF

# Runs that take two seconds, one fired every second: some are always in
# flight.
cat >"$tmp/slow.yaml" <<'EOF'
workflows:
  slow:
    steps:
      - name: nap
        run: ["sleep", "2"]
    schedules:
      - {name: g-slow, cron: "* * * * * *"}
EOF

# cpu_percent PID SECONDS: the CPU PID used over SECONDS, in percent of
# one core (user + system time, fields 14 and 15 of /proc/PID/stat).
cpu_percent() {
    local a b
    a=$(awk '{print $14 + $15}' "/proc/$1/stat")
    sleep "$2"
    b=$(awk '{print $14 + $15}' "/proc/$1/stat")
    echo $(((b - a) * 100 / ($2 * hz)))
}

# readyz URL: print "STATUS BODY".
readyz() {
    local code
    code=$(curl -s -o "$tmp/readyz.body" -w '%{http_code}' "$1/readyz")
    echo "$code $(cat "$tmp/readyz.body")"
}

# wait_ready URL STATUS SECONDS: wait until /readyz answers STATUS.
wait_ready() {
    local deadline=$((SECONDS + $3))
    while [ $SECONDS -lt $deadline ]; do
        [ "$(readyz "$1" | cut -d' ' -f1)" = "$2" ] && return 0
        sleep 0.2
    done
    return 1
}

# store_errors URL KIND: the sum of sked_store_errors_total{op,kind} over
# every op.
store_errors() {
    curl -s "$1/metrics" |
        awk -v k="kind=\"$2\"}" 'index($1, "sked_store_errors_total{op=") == 1 &&
            index($1, k) > 0 {n += $2} END {print n + 0}'
}

# failing_phase NAME URL KIND SECRET...: the checks while the cause is
# there. SECRET...: strings readyz must not show (paths, socket, port,
# database name).
failing_phase() {
    local n=$1 url=$2 kind=$3 body pct s lines
    shift 3
    if ! wait_ready "$url" 503 15; then
        fail "$n readyz 503" "$(readyz "$url")"
        return
    fi
    pass
    body=$(readyz "$url")
    case $body in
    *'"code":"unavailable"'*) pass ;;
    *) fail "$n readyz body" "$body" ;;
    esac
    for s in "$@"; do
        case $body in
        *"$s"*) fail "$n readyz leaks" "'$s' in $body" ;;
        *) pass ;;
        esac
    done
    pct=$(cpu_percent "$pid_a" 5)
    check_le "$n cpu% while failing" "$pct" "$cpu_max"
    echo "$n: ${pct}% of a core over 5 s while failing"
    wait_log a 'msg="database failing"' 5 ||
        fail "$n log" "no 'database failing' line"
    lines=$(grep -c 'msg="database failing"' "$tmp/a.log")
    check "$n logged once" "$lines" 1
    # Nor again at every readiness probe it answered 503.
    check "$n probes not warned" \
        "$(grep -c 'level=warn msg="http request".*path=/readyz' "$tmp/a.log")" 0
    grep 'msg="database failing"' "$tmp/a.log" | grep -q "kind=$kind" ||
        fail "$n log kind" "$(grep 'database failing' "$tmp/a.log")"
    check_ge "$n metric kind=$kind" "$(store_errors "$url" "$kind")" 1
}

# api_fault NAME URL STATUS CODE SECRET...: a client's write (a trigger)
# while the cause is there answers STATUS with the error CODE, and its
# body shows none of SECRET...
api_fault() {
    local n=$1 url=$2 status=$3 code=$4 got s
    shift 4
    got=$(curl -s -o "$tmp/api.body" -w '%{http_code}' -X POST \
        "$url/api/v1/schedules/f-tick/trigger")
    check "$n api status" "$got" "$status"
    grep -q "\"code\":\"$code\"" "$tmp/api.body" ||
        fail "$n api code" "$(cat "$tmp/api.body")"
    for s in "$@"; do
        if grep -qF -- "$s" "$tmp/api.body"; then
            fail "$n api body leaks" "'$s' in $(cat "$tmp/api.body")"
        else
            pass
        fi
    done
}

# recovered_phase NAME URL: the checks once the cause is gone.
recovered_phase() {
    local n=$1 url=$2
    if wait_ready "$url" 200 30; then
        pass
    else
        fail "$n readyz 200" "$(readyz "$url")"
    fi
    wait_log a 'msg="database recovered"' 10 ||
        fail "$n log" "no 'database recovered' line; the log ends: $(
            grep -v 'msg="http request"' "$tmp/a.log" | tail -n 8)"
    check "$n logged once" "$(grep -c 'msg="database failing"' \
        "$tmp/a.log")" 1
}

# account_all NAME DB FROM: every occurrence from FROM to two seconds ago
# has exactly one run or one traced drop, and some ran after recovery.
account_all() {
    local n=$1 line to
    to=$(($(now_us) - 2000000))
    line=$(account "$2" f- "$3" "$to" 1000000)
    check "$n absent" "$(field "$line" absent)" 0
    check "$n doubled" "$(field "$line" doubled)" 0
    check_ge "$n runs" "$(field "$line" runs)" 10
    echo "$n: $line"
}

# begin NAME: start server a on $db with the every-second schedule, let it
# fire for 3 s; t0 is when it started firing. Returns 1 when it did not
# start.
begin() {
    start_http a --db "$db" --tick 1s --workflows "$tmp/wf.yaml" ||
        { fail "$1 start" "$(head -c 1500 "$tmp/a.log")"; return 1; }
    t0=$(now_us)
    sleep 3
}

# recover NAME UNDO...: 3 s more with the cause there, then UNDO takes it
# away; the checks of recovered_phase, the stop, and the account of every
# occurrence since t0.
recover() {
    local n=$1
    shift
    sleep 3
    "$@" >/dev/null
    recovered_phase "$n" "$url_a"
    sleep 3
    stop_server a TERM
    check "$n exit status" "$stop_rc" 0
    account_all "$n" "$db" "$t0"
    mv "$tmp/a.log" "$tmp/$n.log"
}

# ---- SQLite: a full disk -------------------------------------------------
fault_disk_full() {
    local dir=$tmp/small
    mkdir -p "$dir"
    if [ "${SKED_FAULTS_NS:-}" = none ] ||
        ! mount -t tmpfs -o size=4m tmpfs "$dir" 2>/dev/null; then
        echo "disk_full: skipped (no tmpfs: needs a mount namespace)"
        skipped=$((skipped + 1))
        return
    fi
    db=sqlite:$dir/full.db
    begin disk_full || return
    # The last byte taken: every write of the server now fails.
    dd if=/dev/zero of="$dir/filler" bs=64k 2>/dev/null
    dd if=/dev/zero of="$dir/filler2" bs=1 2>/dev/null
    failing_phase disk_full "$url_a" disk_full "$dir" full.db
    # A client's write meets the full disk: 507 disk_full, no path.
    api_fault disk_full "$url_a" 507 disk_full "$dir" full.db
    recover disk_full rm -f "$dir/filler" "$dir/filler2"
    umount "$dir"
}

# ---- SQLite: an immutable file -------------------------------------------
fault_read_only() {
    local dir=$tmp/ro
    mkdir -p "$dir"
    db=sqlite:$dir/ro.db
    begin read_only || return
    if ! chattr +i "$dir/ro.db" "$dir/ro.db-wal" 2>/dev/null; then
        chattr -i "$dir/ro.db" "$dir/ro.db-wal" 2>/dev/null
        echo "read_only: skipped (chattr +i needs root and a file system" \
            "that has it)"
        skipped=$((skipped + 1))
        stop_server a KILL
        return
    fi
    failing_phase read_only "$url_a" read_only "$dir" ro.db
    api_fault read_only "$url_a" 503 read_only "$dir" ro.db
    recover read_only chattr -i "$dir/ro.db" "$dir/ro.db-wal"
}

# ---- SQLite: the file deleted --------------------------------------------
fault_gone() {
    local dir=$tmp/gone before after
    mkdir -p "$dir"
    db=sqlite:$dir/gone.db
    begin gone || return
    # The file goes: what the server wrote from now on would be lost at
    # its next start.
    rm -f "$dir/gone.db" "$dir/gone.db-wal" "$dir/gone.db-shm"
    failing_phase gone "$url_a" database_gone "$dir" gone.db
    api_fault gone "$url_a" 503 database_gone "$dir" gone.db
    case $(readyz "$url_a") in
    *deleted*) pass ;;
    *) fail "gone readyz reason" "$(readyz "$url_a")" ;;
    esac
    # It fires nothing: the firing fails on every try, and no run is
    # created (the counter of fired runs stays still).
    before=$(grep -c 'msg="run created"' "$tmp/a.log")
    sleep 3
    after=$(grep -c 'msg="run created"' "$tmp/a.log")
    check "gone fires nothing" "$after" "$before"
    check "gone still unready" "$(readyz "$url_a" | cut -d' ' -f1)" 503
    stop_server a TERM
    mv "$tmp/a.log" "$tmp/gone.log"
}

# ---- PostgreSQL: the server stopped and started --------------------------
fault_pg_down() {
    local pgdir=$tmp/pg url c bindir skew t_stop unfinished owner=()
    local pgsh=${SKED_SOURCE_DIR:?needs SKED_SOURCE_DIR}/scripts/pg.sh
    url=$(SKED_PG_DIR=$pgdir bash "$pgsh" start 2>"$tmp/pg.err") ||
        { fail "pg start" "$(cat "$tmp/pg.err")"; return; }
    c=$pgdir/cluster.d
    [ -f "$pgdir/cluster" ] && c=$(cat "$pgdir/cluster")
    bindir=$(pg_config --bindir)
    [ "$(id -u)" -eq 0 ] && owner=(runuser -u postgres --)
    db=$url
    begin pg_down || return
    # SPEC 3.2: the skew to the database's clock, measured at the first
    # pass; one machine, one clock: well under a second.
    skew=$(curl -s "$url_a/metrics" |
        awk '$1 == "sked_clock_skew_seconds" {print ($2 < 0 ? -$2 : $2) < 1}')
    check "pg clock skew exported, under 1s" "$skew" 1
    "${owner[@]}" "$bindir/pg_ctl" -D "$c/data" -m fast -w stop >/dev/null
    failing_phase pg_down "$url_a" unavailable "$c" sked_test \
        "$(cat "$pgdir/port")"
    api_fault pg_down "$url_a" 503 unavailable "$c" sked_test \
        "$(cat "$pgdir/port")"
    recover pg_down "${owner[@]}" "$bindir/pg_ctl" -D "$c/data" \
        -l "$c/server.log" -w start

    # Runs in flight while the database is away: what they did waits in
    # the journal and is written once it is back, well within their
    # lease (30 s): each completes, none is recovered, no step runs twice.
    start_http a --db "$db" --tick 1s --workflows "$tmp/slow.yaml" ||
        { fail "pg_flight start" "$(head -c 1500 "$tmp/a.log")"; return; }
    sleep 4
    t_stop=$(now_us)
    "${owner[@]}" "$bindir/pg_ctl" -D "$c/data" -m fast -w stop >/dev/null
    sleep 5
    "${owner[@]}" "$bindir/pg_ctl" -D "$c/data" -l "$c/server.log" -w \
        start >/dev/null
    wait_ready "$url_a" 200 30 || fail "pg_flight readyz 200" "$(readyz "$url_a")"
    in_flight_done "$db" "$t_stop" 15
    check "pg_flight runs before the stop left unfinished" "$unfinished" 0
    [ "$unfinished" = 0 ] ||
        q "$db" "SELECT id, status FROM runs WHERE schedule = 'g-slow'
                 AND created_at < $t_stop AND status <> 'completed'" >&2
    check "pg_flight runs recovered" "$(q "$db" "SELECT count(*) FROM events
        WHERE type = 'run.recovered'")" 0
    check "pg_flight steps started twice" "$(q "$db" "SELECT count(*) FROM
        (SELECT subject FROM events WHERE type = 'step.started'
         GROUP BY subject HAVING count(*) > 1) AS twice")" 0
    echo "pg_flight: $(q "$db" "SELECT count(*) FROM runs WHERE
        schedule = 'g-slow' AND created_at < $t_stop") runs created before" \
        "the stop"

    # Stopped while the database is away, with runs in flight whose
    # results wait for it: the server still stops, promptly.
    "${owner[@]}" "$bindir/pg_ctl" -D "$c/data" -m fast -w stop >/dev/null
    wait_ready "$url_a" 503 15 || fail "pg_stop readyz 503" "$(readyz "$url_a")"
    sleep 3
    stop_within a 20
    check "pg_stop exit status" "$stop_rc" 0
    echo "pg_stop: stopped in ${stop_ms} ms with the database away"
    SKED_PG_DIR=$pgdir bash "$pgsh" stop
}

# in_flight_done DB T SECONDS: wait at most SECONDS until every run of
# g-slow created before T (µs) has completed; unfinished is how many have
# not.
in_flight_done() {
    local deadline=$((SECONDS + $3))
    while :; do
        unfinished=$(q "$1" "SELECT count(*) FROM runs WHERE created_at < $2
                             AND schedule = 'g-slow' AND status <> 'completed'")
        [ "$unfinished" = 0 ] || [ $SECONDS -ge $deadline ] && return
        sleep 0.2
    done
}

# stop_within NAME SECONDS: SIGTERM, then wait at most SECONDS for the
# exit (SIGKILL after, counted as a failure). Sets stop_rc and stop_ms.
stop_within() {
    local pv="pid_$1" t0 deadline
    local pid=${!pv}
    t0=$(now_us)
    deadline=$((SECONDS + $2))
    kill -TERM "$pid"
    while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        fail "$1 stop" "still running $2 s after SIGTERM"
        kill -KILL "$pid"
    fi
    wait "$pid"
    stop_rc=$?
    stop_ms=$((($(now_us) - t0) / 1000))
}

case $mode in
sqlite)
    fault_disk_full
    fault_read_only
    fault_gone
    ;;
pg)
    fault_pg_down
    ;;
*)
    echo "usage: $(basename "$0") [sqlite|pg]" >&2
    exit 2
    ;;
esac

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] || exit 1
[ "$passed" -gt 0 ] || exit 77
