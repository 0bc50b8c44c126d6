#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Servers started at the same moment on one new database all come up
# (SPEC 3.5 code sync): replicas started together, as Kubernetes and
# systemd start them, sync the same workflows file at once, and end with
# one set of schedules and every server running.
#
#   test_server_together.sh [sqlite|pg]
#
# Each of $SKED_TEST_TOGETHER_TRIALS trials (default 4) makes a new
# database (sqlite: a new file; pg: a new database beside
# $SKED_TEST_PG_URL), holds $SKED_TEST_TOGETHER_SERVERS servers (default
# 3) at a barrier (a FIFO every one of them reads), releases them at
# once, and checks that all of them started, none refused the file, and
# the database holds each schedule of the file once.
#
# Env: SKED_BIN; SKED_TEST_PG_URL for pg. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
mode=${1:-sqlite}
trials=${SKED_TEST_TOGETHER_TRIALS:-4}
servers=${SKED_TEST_TOGETHER_SERVERS:-3}
. "$here/server_lib.sh"

case $mode in
sqlite | pg) ;;
*)
    echo "usage: test_server_together.sh [sqlite|pg]" >&2
    exit 2
    ;;
esac

# The workflows file: workflows with their own schedules, and schedules
# of a workflow defined elsewhere.
wf=$tmp/wf.yaml
nsched=12
{
    echo "workflows:"
    for w in 1 2 3; do
        echo "  wf-$w:"
        echo "    steps:"
        echo "      - {name: only, run: [\"true\"]}"
        echo "    schedules:"
        for k in 1 2 3; do
            echo "      - {name: s-$w-$k, cron: \"0 0 * * *\"}"
        done
    done
    echo "schedules:"
    for k in 1 2 3; do
        echo "  - {name: s-c-$k, workflow: elsewhere, every: 1h}"
    done
} >"$wf"

# trial_db N: set db to a new, empty database for trial N.
trial_db() {
    case $mode in
    sqlite) db=sqlite:$tmp/together-$1.db ;;
    pg)
        local base=${SKED_TEST_PG_URL:?pg mode needs SKED_TEST_PG_URL}
        local name
        name=$(sed -E 's|^[^/]*//[^/]*/([^?]*).*|\1|' <<<"$base")_t$1
        PGOPTIONS="-c client_min_messages=warning" psql "$base" -X -q \
            -c "DROP DATABASE IF EXISTS $name" -c "CREATE DATABASE $name"
        db=$(sed -E "s|^([^/]*//[^/]*/)[^?]*|\1$name|" <<<"$base")
        ;;
    esac
}

for t in $(seq 1 "$trials"); do
    trial_db "$t"
    gate=$tmp/gate-$t
    mkfifo "$gate"
    for s in $(seq 1 "$servers"); do
        # Each server waits on the FIFO, then starts: opening it for
        # writing and closing it releases all of them at once.
        bash -c 'read -r _ <"$1"; shift; exec "$@"' _ "$gate" \
            "$bin" server --listen off --db "$db" --workflows "$wf" \
            --tick 1s >"$tmp/t$t-s$s.out" 2>"$tmp/t$t-s$s.log" &
        printf -v "pid_t${t}s$s" '%s' "$!"
    done
    sleep 0.3
    : >"$gate"
    up=0
    for s in $(seq 1 "$servers"); do
        pv="pid_t${t}s$s"
        # Started, or gone (no point waiting for a dead server's line).
        deadline=$((SECONDS + 30))
        while [ $SECONDS -lt $deadline ] && kill -0 "${!pv}" 2>/dev/null &&
            ! grep -q 'msg="server started"' "$tmp/t$t-s$s.log"; do
            sleep 0.1
        done
        grep -q 'msg="server started"' "$tmp/t$t-s$s.log" && up=$((up + 1))
    done
    sleep 1
    alive=0
    for s in $(seq 1 "$servers"); do
        pv="pid_t${t}s$s"
        kill -0 "${!pv}" 2>/dev/null && alive=$((alive + 1))
    done
    check "trial $t: servers started" "$up" "$servers"
    check "trial $t: servers running a second later" "$alive" "$servers"
    refused=$(cat "$tmp"/t"$t"-s*.log | grep -c 'level=error')
    check "trial $t: error lines" "$refused" 0
    [ "$refused" -eq 0 ] || grep -h 'level=error' "$tmp"/t"$t"-s*.log | head -3
    check "trial $t: schedules" \
        "$(q "$db" "SELECT count(*) FROM schedules")" "$nsched"
    check "trial $t: schedules created once each" \
        "$(q "$db" "SELECT count(*) FROM events
                    WHERE type = 'schedule.created'")" "$nsched"
    for s in $(seq 1 "$servers"); do
        stop_server "t${t}s$s" TERM
        check "trial $t: server $s stops with exit 0" "$stop_rc" 0
    done
done

printf '%d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
