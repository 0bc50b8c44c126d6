#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A process killed with SIGKILL in the middle of a batch leaves all of it
# or none:
#  - "half": a tool holds a write transaction with 500 of a 1,000-run batch
#    inserted, and is killed there: none of it may remain, and the database
#    must still open and take writes;
#  - "batches": a tool commits batches of 1,000 runs in a loop and is
#    killed at an arbitrary moment, five times: the rows left are always a
#    whole number of batches.
# With SKED_TEST_PG_URL set, the same runs on PostgreSQL.
#
# Env: SKED_TOOLS_DIR. Ends with "N passed, M failed".
set -u

tools=${SKED_TOOLS_DIR:?SKED_TOOLS_DIR is the test tools directory}
hammer=$tools/store_hammer
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

count() {
    local url=$1 sql=$2
    case $url in
    sqlite:*) sqlite3 "${url#sqlite:}" "$sql" ;;
    *) psql "$url" -Atqc "$sql" ;;
    esac
}

check() {
    if [ "$2" = "$3" ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        printf 'FAIL %s: got %s, want %s\n' "$1" "$2" "$3"
    fi
}

# Start the tool with ARGS in the background; wait until its output holds
# a line matching PATTERN (at most 20 s), DELAY seconds more, then kill it
# with SIGKILL.
kill_when() {
    local pattern=$1 delay=$2 out=$tmp/out pid i
    shift 2
    : >"$out"
    "$hammer" "$@" >"$out" 2>"$tmp/err" &
    pid=$!
    for i in $(seq 1 2000); do
        grep -q "$pattern" "$out" && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.01
    done
    sleep "$delay"
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    grep -q "$pattern" "$out" || printf 'tool never printed %s: %s\n' \
        "$pattern" "$(cat "$tmp/err")"
}

crash_one() {
    local kind=$1 url=$2 round n
    kill_when '^half$' 0 half "$url" mid
    check "$kind: killed mid-batch leaves none" \
        "$(count "$url" "SELECT count(*) FROM runs WHERE id LIKE 'mid-%'")" 0
    check "$kind: the database still takes writes" \
        "$("$hammer" insert "$url" 1 10 | awk '{print $2}')" 10
    for round in 1 2 3 4 5; do
        kill_when '^batch 0$' "0.0$((RANDOM % 10))$((RANDOM % 10))" \
            batches "$url" "loop$round"
        n=$(count "$url" "SELECT count(*) FROM runs WHERE id LIKE 'loop$round-%'")
        check "$kind round $round: whole batches ($n rows)" \
            "$((n % 1000))" 0
    done
}

crash_one sqlite "sqlite:$tmp/crash.db"
if [ -n "${SKED_TEST_PG_URL:-}" ]; then
    "$hammer" insert "$SKED_TEST_PG_URL" 0 0 >/dev/null
    count "$SKED_TEST_PG_URL" "DELETE FROM runs WHERE id LIKE 'mid-%' OR \
id LIKE 'loop%' OR id LIKE 'hammer-%'" >/dev/null
    crash_one postgres "$SKED_TEST_PG_URL"
fi

printf '%d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
