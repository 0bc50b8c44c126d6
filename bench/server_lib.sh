# SPDX-License-Identifier: MIT
# Shared by the benchmarks that load a real "sked server" (sourced, not
# run): start one on a fresh SQLite file, with no workers, on a free
# loopback port, and stop it. The caller sets bin and tmp, and calls
# stop_bench_server at exit.

# start_bench_server [ARGS...]: start the server on $bench_db (default
# sqlite:$tmp/bench.db) with ARGS besides; set pid and url, or print its
# log and exit 1 when it never listened (in 30 s: a workflows file of
# thousands of schedules is synced first).
start_bench_server() {
    "$bin" server --db "${bench_db:-sqlite:$tmp/bench.db}" --workers 0 \
        --listen 127.0.0.1:0 "$@" 2>"$tmp/log" &
    pid=$!
    for _ in $(seq 300); do
        grep -q 'http listening' "$tmp/log" 2>/dev/null && break
        sleep 0.1
    done
    url=$(grep -o 'url=[^ ]*' "$tmp/log" | head -1 | cut -d= -f2)
    [ -n "$url" ] || { cat "$tmp/log"; exit 1; }
}

# stop_bench_server: stop the server of $pid, if any, and wait for it.
# Always succeeds, so an EXIT trap under set -e (where a failing kill
# would end the trap, and the script, with status 1) can call it.
stop_bench_server() {
    if [ -n "${pid:-}" ]; then
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
    pid=
    return 0
}
