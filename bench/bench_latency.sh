#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# From a run's request to its first step's start, on a real server with 4
# workers: POST /api/v1/workflows/w/runs at 100 per second from one
# client, 10,000 runs (SKED_BENCH_LATENCY_RUNS), on SQLite (synchronous
# FULL) and, with SKED_BENCH_PG_URL, on PostgreSQL (its public schema
# emptied first); p50 and p99 of the first step's started_at minus the
# instant the request was sent (bench_latency.py). Targets: <= 2 ms /
# 5 ms on SQLite, <= 5 ms / 15 ms on PostgreSQL. Prints "bench latency
# BACKEND N RATE P50 P99 MAX" lines.
# Usage: bench/bench_latency.sh path/to/sked
set -euo pipefail

bin=${1:?usage: bench_latency.sh path/to/sked}
runs=${SKED_BENCH_LATENCY_RUNS:-10000}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
pid=
. "$here/server_lib.sh"
trap 'stop_bench_server; rm -rf "$tmp"' EXIT
cat >"$tmp/wf.yaml" <<'YAML'
workflows:
  w:
    steps:
      - name: first
        run: ["true"]
YAML

# measure BACKEND: a server on $bench_db, the client, the server stopped.
measure() {
    start_bench_server --workers 4 --workflows "$tmp/wf.yaml"
    line=$(/usr/bin/python3 "$here/bench_latency.py" "$url" "$1" "$runs" 100)
    stop_bench_server
    printf 'bench\t%s\n' "$line"
    read -r _ backend n rate p50 p99 max <<<"$line"
    echo "latency $backend: $n runs at $rate/s, first step started after p50 $p50 ms, p99 $p99 ms (max $max ms)"
}
bench_db=sqlite:$tmp/latency.db measure sqlite
if [ -n "${SKED_BENCH_PG_URL:-}" ]; then
    # An empty database, as the SQLite file is: the benches before this
    # one leave their schedules there (bench_fire's 1,000 due every
    # second), which the server would fire while it is timed.
    psql -q "$SKED_BENCH_PG_URL" -c 'DROP SCHEMA public CASCADE' \
        -c 'CREATE SCHEMA public' >/dev/null 2>&1
    bench_db=$SKED_BENCH_PG_URL measure pg
fi
