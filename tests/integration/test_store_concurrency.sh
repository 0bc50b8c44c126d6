#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Eight processes insert the same 10,000 run ids at once, each in its own
# shuffled order and in batches: every run must be created exactly once
# (the sum of what the processes report is 10,000) and the table must hold
# exactly 10,000 rows. On SQLite the eight also race to create and migrate
# a fresh file. With SKED_TEST_PG_URL set, the same runs on PostgreSQL.
#
# Env: SKED_TOOLS_DIR (where store_hammer is). Ends with "N passed, M
# failed" and fails when M > 0.
set -u

tools=${SKED_TOOLS_DIR:?SKED_TOOLS_DIR is the test tools directory}
hammer=$tools/store_hammer
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
procs=8
runs=10000

# Print the number of rows of SQL's count query on URL.
count() {
    local url=$1 sql=$2
    case $url in
    sqlite:*) sqlite3 "${url#sqlite:}" "$sql" ;;
    *) psql "$url" -Atqc "$sql" ;;
    esac
}

check() {
    local name=$1 got=$2 want=$3
    if [ "$got" = "$want" ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        printf 'FAIL %s: got %s, want %s\n' "$name" "$got" "$want"
    fi
}

hammer_one() {
    local kind=$1 url=$2 batch=$3 sum=0 i created pids=()
    for i in $(seq 1 $procs); do
        "$hammer" insert "$url" "$i" "$runs" "$batch" \
            >"$tmp/out.$i" 2>"$tmp/err.$i" &
        pids+=($!)
    done
    for i in $(seq 1 $procs); do
        if ! wait "${pids[$((i - 1))]}"; then
            printf '%s: process %d failed: %s\n' "$kind" "$i" \
                "$(cat "$tmp/err.$i")"
        fi
        created=$(awk '/^created/ {print $2}' "$tmp/out.$i")
        sum=$((sum + ${created:-0})) # a process that failed created none
    done
    check "$kind batch $batch: runs created" "$sum" "$runs"
    check "$kind batch $batch: rows" \
        "$(count "$url" "SELECT count(*) FROM runs WHERE id LIKE 'hammer-%'")" \
        "$runs"
}

hammer_one sqlite "sqlite:$tmp/a.db" 100
hammer_one sqlite "sqlite:$tmp/b.db" 1000
if [ -n "${SKED_TEST_PG_URL:-}" ]; then
    "$hammer" insert "$SKED_TEST_PG_URL" 0 0 >/dev/null # migrate
    count "$SKED_TEST_PG_URL" "DELETE FROM runs WHERE id LIKE 'hammer-%'" \
        >/dev/null
    hammer_one postgres "$SKED_TEST_PG_URL" 100
fi

printf '%d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
