#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Events are kept for the server's retention (SPEC 5; --retention, the
# configuration file's retention:), then deleted by a server with
# workers, the first time at its start:
#  - by default, 7 days: an event of 8 days goes, those of 2 days, 3 hours
#    and 30 minutes stay;
#  - with --retention 1h the events of 2 days and 3 hours go too, that of
#    30 minutes stays;
#  - retention: 26h in the file keeps the 3-hour event, the file's line
#    named when the value is refused (under an hour, not a duration).
#
# Env: SKED_BIN. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/server_lib.sh"

db=sqlite:$tmp/events.db
"$bin" --db "$db" schedule list >/dev/null || fail "create the database" "exit $?"

# seed: the four events, AGE seconds old each, subjects saying so.
seed() {
    local now
    now=$(now_us)
    q "$db" "DELETE FROM events"
    for age in 691200:8d 172800:2d 10800:3h 1800:30m; do
        q "$db" "INSERT INTO events (type, subject, payload, at) VALUES
            ('schedule.created', 'age-${age#*:}', '{}',
             $now - ${age%%:*} * 1000000)"
    done
}

# kept NAME ARGS...: a server with ARGS (one worker, no HTTP) until the
# 8-day event is gone (at most 20 s); prints the subjects left, in
# age order.
kept() {
    local n=$1
    shift
    start_server "$n" --db "$db" --workers 1 --listen off "$@"
    for _ in $(seq 200); do
        [ "$(q "$db" "SELECT count(*) FROM events WHERE subject = 'age-8d'")" = 0 ] && break
        sleep 0.1
    done
    stop_server "$n" TERM
    q "$db" "SELECT group_concat(subject, ' ') FROM
        (SELECT subject FROM events WHERE subject LIKE 'age-%' ORDER BY at)"
}

seed
check "default: 7 days kept" "$(kept a)" "age-2d age-3h age-30m"

seed
check "--retention 1h" "$(kept b --retention 1h)" "age-30m"

seed
printf 'retention: 26h\n' >"$tmp/sked.yaml"
check "retention: 26h in the file" "$(kept c --config "$tmp/sked.yaml")" "age-3h age-30m"

# refused NAME VALUE WANT: a file of retention: VALUE is refused, exit 2,
# naming its line and the rule; the database is not touched.
refused() {
    local out rc before
    printf 'workers: 1\nretention: %s\n' "$2" >"$tmp/bad.yaml"
    before=$(q "$db" "SELECT count(*) FROM events")
    out=$(timeout 10 "$bin" server --config "$tmp/bad.yaml" --db "$db" \
        --listen off 2>&1)
    rc=$?
    check "$1: exit 2" "$rc" 2
    case $out in
    *"bad.yaml:2:1: retention: invalid value \"$2\": $3"*) pass ;;
    *) fail "$1: message" "got '$out'" ;;
    esac
    check "$1: nothing deleted" "$(q "$db" "SELECT count(*) FROM events")" "$before"
}
seed
refused "under an hour" 30m "expected a duration from 1h to 3650d"
refused "not a duration" week "expected a duration from 1h to 3650d"
out=$("$bin" server --retention 0s --check-config 2>&1)
check "--retention 0s: exit 2" "$?" 2
case $out in
*'invalid --retention "0s": expected a duration from 1h to 3650d'*) pass ;;
*) fail "--retention 0s: message" "got '$out'" ;;
esac

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
