#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The HTTP API under load, on loopback: wrk (2 threads, 64 connections,
# 10 s each) against a real "sked server" on a SQLite file, on
#   GET  /api/v1/schedules/{name}          (target >= 20,000 requests/s,
#                                            p99 <= 5 ms)
#   POST /api/v1/schedules/{name}/trigger  (one run created per request,
#                                            committed with synchronous=FULL)
# Prints a human line and a tab-separated "bench http ROUTE RPS P99_MS
# ERRORS" line per route for scripts/bench.sh.
# Usage: bench/bench_http.sh path/to/sked    (env: BENCH_HTTP_SECONDS)
set -euo pipefail

bin=${1:?usage: bench_http.sh path/to/sked}
secs=${BENCH_HTTP_SECONDS:-10}
command -v wrk >/dev/null || { echo "bench_http: wrk not installed (scripts/deps.sh)"; exit 0; }
tmp=$(mktemp -d)
. "$(dirname "$0")/server_lib.sh"
trap 'stop_bench_server; rm -rf "$tmp"' EXIT

db=sqlite:$tmp/bench.db
"$bin" --db "$db" schedule create report "0 9 * * *" --name bench \
    --timezone Europe/Paris >/dev/null
start_bench_server

cat >"$tmp/post.lua" <<'LUA'
wrk.method = "POST"
LUA

# run ROUTE URL [WRK ARGS...]: wrk, then its figures.
run() {
    local route=$1 u=$2 rps p99 p99ms errors
    shift 2
    wrk -t2 -c64 -d"${secs}s" --latency "$@" "$u" >"$tmp/wrk" 2>&1
    rps=$(awk '/^Requests\/sec:/ { print $2 }' "$tmp/wrk")
    p99=$(awk '$1 == "99%" { print $2 }' "$tmp/wrk")
    p99ms=$(awk -v v="$p99" 'BEGIN {
        n = v + 0
        if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n += 0;
        else if (v ~ /s$/) n *= 1000
        printf "%.2f", n }')
    errors=$(awk '/Non-2xx or 3xx responses:/ { print $NF }' "$tmp/wrk")
    printf '%-44s %9.0f requests/s  p99 %6s ms  non-2xx %s\n' "$route" "$rps" \
        "$p99ms" "${errors:-0}"
    printf 'bench\thttp\t%s\t%s\t%s\t%s\n' "$route" "$rps" "$p99ms" "${errors:-0}"
}

run "GET /api/v1/schedules/{name}" "$url/api/v1/schedules/bench"
run "POST /api/v1/schedules/{name}/trigger" "$url/api/v1/schedules/bench/trigger" \
    -s "$tmp/post.lua"
