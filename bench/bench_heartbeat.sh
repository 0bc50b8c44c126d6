#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Heartbeat schedules on a real "sked server" over SQLite (WAL,
# synchronous=FULL, the default), on loopback:
#   fsync  how long one synced 4 KiB write takes on the disk of the
#          database (dd oflag=dsync, 100 of them): the floor of a commit.
#   ping   wrk (1 connection, then 4 on 2 threads; 10 s each) POSTing
#          /api/v1/schedules/{name}/ping?status=start to one heartbeat
#          schedule whose run is open: each ping locks the schedule's row,
#          finds the run, writes it and commits, one fsync, as every ping
#          does (a success would end the run, and the next one would find
#          no occurrence awaiting it: 409). p50, p99 and requests/s; target
#          p99 <= 2 ms with the database on disk. The same again with the
#          database on a tmpfs, where an fsync costs nothing, to show how
#          much of a ping is its commit's fsync (not a target: no
#          durability there).
#   idle   a server with 10,000 heartbeat schedules (a workflows file,
#          hourly at a minute 30 minutes away, deadline 30m, so that
#          nothing is due while it is measured), settled for 70 s (the
#          scheduler rereads the schedules changed in the last 60 s on
#          every tick: all of them, just after they were created), then
#          its CPU time (utime + stime of /proc/PID/stat) over 30 s, as a
#          percentage of one core; target < 1%.
# Prints human lines, and tab-separated lines for scripts/bench.sh:
#   bench hb_fsync MS
#   bench hb_ping WHERE CONNECTIONS RPS P50_MS P99_MS NON_2XX
#   bench hb_idle SCHEDULES PERCENT_OF_A_CORE LOAD_SECS
# Usage: bench/bench_heartbeat.sh path/to/sked
# Env: BENCH_HB_SECONDS (10), BENCH_HB_CONNECTIONS ("1 4"),
#      BENCH_HB_SCHEDULES (10000), BENCH_HB_SETTLE_SECONDS (70),
#      BENCH_HB_IDLE_SECONDS (30), BENCH_HB_TMPFS (/dev/shm; empty: no
#      tmpfs pass).
set -euo pipefail

bin=${1:?usage: bench_heartbeat.sh path/to/sked}
secs=${BENCH_HB_SECONDS:-10}
conns_list=${BENCH_HB_CONNECTIONS:-1 4}
settle=${BENCH_HB_SETTLE_SECONDS:-70}
nsched=${BENCH_HB_SCHEDULES:-10000}
idle_secs=${BENCH_HB_IDLE_SECONDS:-30}
tmpfs=${BENCH_HB_TMPFS-/dev/shm}
command -v wrk >/dev/null || {
    echo "bench_heartbeat: wrk not installed (scripts/deps.sh)"
    exit 0
}
if ! [ "$nsched" -ge 1 ] 2>/dev/null || [ "$nsched" -gt 10000 ]; then
    echo "bench_heartbeat: BENCH_HB_SCHEDULES is 1 to 10000" >&2
    exit 2
fi
tmp=$(mktemp -d)
shm=
pid=
. "$(dirname "$0")/server_lib.sh"
trap 'stop_bench_server; rm -rf "$tmp" ${shm:+"$shm"}' EXIT

# p_ms VALUE: wrk's latency (850.00us, 1.20ms, 1.05s) in ms.
p_ms() {
    awk -v v="$1" 'BEGIN {
        n = v + 0
        if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n += 0;
        else if (v ~ /s$/) n *= 1000
        printf "%.3f", n }'
}

# fsync_ms DIR: one synced 4 KiB write on DIR's disk, in ms.
fsync_ms() {
    local t0 t1
    t0=$(date +%s%N)
    dd if=/dev/zero of="$1/dsync" bs=4k count=100 oflag=dsync 2>/dev/null
    t1=$(date +%s%N)
    rm -f "$1/dsync"
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e6 / 100 }'
}

# ping_pass WHERE DIR CONNECTIONS: a server on a fresh sqlite:DIR/bench.db
# with one heartbeat schedule, wrk pinging it once its first run is open.
ping_pass() {
    local where=$1 dir=$2 conns=$3 rps p50 p99 errors
    rm -f "$dir/bench.db"*
    cat >"$dir/hb.yaml" <<'YAML'
schedules:
  - name: beat
    heartbeat: true
    every: 5s
    deadline: 1h
YAML
    bench_db=sqlite:$dir/bench.db start_bench_server --workflows "$dir/hb.yaml"
    for _ in $(seq 100); do
        curl -s -o /dev/null -w '%{http_code}' -X POST \
            "$url/api/v1/schedules/beat/ping?status=start" | grep -q 200 && break
        sleep 0.1
    done
    cat >"$tmp/ping.lua" <<'LUA'
wrk.method = "POST"
LUA
    # wrk wants no more threads than connections.
    if ! wrk -t"$((conns < 2 ? conns : 2))" -c"$conns" -d"${secs}s" \
        --latency -s "$tmp/ping.lua" \
        "$url/api/v1/schedules/beat/ping?status=start" >"$tmp/wrk" 2>&1; then
        cat "$tmp/wrk"
        exit 1
    fi
    stop_bench_server
    rps=$(awk '/^Requests\/sec:/ { print $2 }' "$tmp/wrk")
    p50=$(p_ms "$(awk '$1 == "50%" { print $2 }' "$tmp/wrk")")
    p99=$(p_ms "$(awk '$1 == "99%" { print $2 }' "$tmp/wrk")")
    errors=$(awk '/Non-2xx or 3xx responses:/ { print $NF }' "$tmp/wrk")
    printf 'ping (%s, %d connections) %9.0f requests/s  p50 %s ms  p99 %s ms  non-2xx %s\n' \
        "$where" "$conns" "${rps:-0}" "$p50" "$p99" "${errors:-0}"
    printf 'bench\thb_ping\t%s\t%s\t%s\t%s\t%s\t%s\n' "$where" "$conns" \
        "${rps:-0}" "$p50" "$p99" "${errors:-0}"
}

# cpu_ticks PID: utime + stime of PID, in clock ticks (fields 14 and 15
# of /proc/PID/stat, counted after the command's closing parenthesis).
cpu_ticks() {
    sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

# idle_pass: NSCHED heartbeat schedules, none due for 30 minutes.
idle_pass() {
    local minute t0 t1 c0 c1 hz load pct
    minute=$(((10#$(date -u +%M) + 30) % 60))
    {
        echo "schedules:"
        for i in $(seq -w 1 "$nsched"); do
            printf '  - {name: hb-%s, heartbeat: true, cron: "%d * * * *", deadline: 30m}\n' \
                "$i" "$minute"
        done
    } >"$tmp/idle.yaml"
    rm -f "$tmp/bench.db"*
    t0=$(date +%s%N)
    bench_db=sqlite:$tmp/bench.db start_bench_server --workflows "$tmp/idle.yaml"
    t1=$(date +%s%N)
    load=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
    sleep "$settle"
    hz=$(getconf CLK_TCK)
    c0=$(cpu_ticks "$pid")
    t0=$(date +%s%N)
    sleep "$idle_secs"
    c1=$(cpu_ticks "$pid")
    t1=$(date +%s%N)
    stop_bench_server
    pct=$(awk -v c="$((c1 - c0))" -v hz="$hz" -v a="$t0" -v b="$t1" \
        'BEGIN { printf "%.2f", 100 * c / hz / ((b - a) / 1e9) }')
    printf 'idle (%d heartbeat schedules, %d s) %s%% of a core  (started and listening in %s s)\n' \
        "$nsched" "$idle_secs" "$pct" "$load"
    printf 'bench\thb_idle\t%s\t%s\t%s\n' "$nsched" "$pct" "$load"
}

fs=$(fsync_ms "$tmp")
printf 'fsync (a synced 4 KiB write on the database disk) %s ms\n' "$fs"
printf 'bench\thb_fsync\t%s\n' "$fs"
if [ -n "$tmpfs" ] && [ -d "$tmpfs" ]; then
    shm=$(mktemp -d -p "$tmpfs") || shm=
fi
for c in $conns_list; do
    ping_pass disk "$tmp" "$c"
    [ -z "$shm" ] || ping_pass tmpfs "$shm" "$c"
done
idle_pass
