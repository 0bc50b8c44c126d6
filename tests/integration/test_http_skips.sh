#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One occurrence of a schedule through the HTTP API (docs/api.md
# "Skipping and running one occurrence"), on a real "sked server" and
# curl: POST .../skips skips tomorrow's occurrence (201, then 200 when
# skipped already), GET .../skips lists it with who and why, the preview
# marks it "skipped", DELETE .../skips/{at} undoes it; an instant that is
# no occurrence is refused naming "at" and the nearest ones, one already
# decided is a 409, a bad body names its field, and none of them changes
# the database. POST .../runs runs a past occurrence with the id firing
# gives it (201, then 200 with the same run).
#
#   test_http_skips.sh [sqlite|pg]
#
# Env: SKED_BIN; SKED_TEST_PG_URL for pg. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
mode=${1:-sqlite}
. "$here/server_lib.sh"

mode_db skips.db

if ! start_http a --db "$db"; then
    cat "$tmp/a.log"
    echo "0 passed, 1 failed"
    exit 1
fi
url=$url_a

call() {
    local m=$1 p=$2 data=()
    shift 2
    if [ $# -gt 0 ]; then
        [ "$1" != - ] && data=(--data-binary "$1")
        shift
    fi
    code=$(curl -sS -o "$tmp/body" -w '%{http_code}' -X "$m" \
        -H 'Content-Type: application/json' "${data[@]}" "$@" "$url$p")
}

j() {
    $py -c 'import json, sys
j = json.load(open(sys.argv[1]))
print(eval("(" + sys.argv[2] + ")"))' "$tmp/body" "$1" 2>&1
}

snapshot() {
    case $db in
    sqlite:*) sqlite3 "${db#sqlite:}" .dump ;;
    *) pg_dump --data-only --no-owner "$db" | grep -Ev '^(--|\\(un)?restrict )' ;;
    esac
}

expect() {
    if [ "$code" = "$2" ]; then
        pass
    else
        fail "$1" "status $code, want $2: $(head -c 300 "$tmp/body")"
    fi
}

# fails NAME STATUS CODE FIELD METHOD PATH [BODY]: the error names FIELD
# and the database is unchanged.
fails() {
    local name=$1 status=$2 ecode=$3 field=$4 before after
    shift 4
    before=$(snapshot)
    call "$@"
    after=$(snapshot)
    expect "$name: status" "$status"
    check "$name: error" "$(j '"%s|%s" % (j["error"]["code"],
        j["error"].get("field", ""))')" "$ecode|$field"
    [ "$before" = "$after" ] && pass || fail "$name: database changed" "diff"
}

# The 09:00 UTC occurrences: two days ahead, and two days back.
ahead=$($py -c 'import datetime as d
t = d.datetime.now(d.timezone.utc).replace(hour=9, minute=0, second=0,
    microsecond=0) + d.timedelta(days=2)
print(t.strftime("%Y-%m-%dT%H:%M:%SZ"))')
back=$($py -c 'import datetime as d
t = d.datetime.now(d.timezone.utc).replace(hour=9, minute=0, second=0,
    microsecond=0) - d.timedelta(days=2)
print(t.strftime("%Y-%m-%dT%H:%M:%SZ"))')
near=${ahead%:00:00Z}:30:00Z

call POST /api/v1/schedules '{"name":"daily","workflow":"ghost",
    "cron":"0 9 * * *","timezone":"UTC"}'
expect "create daily" 201

call POST /api/v1/schedules/daily/skips "{\"at\":\"$ahead\",\"reason\":\"party\"}"
expect "skip" 201
check "skip: the answer" "$(j '[j["schedule"], j["occurrence"], j["skipped"],
    j["changed"]]')" "['daily', '$ahead', True, True]"
wait_log a 'msg="occurrence skipped".*by=api.*actor=anonymous' 5 && pass ||
    fail "skip: the server's log" "$(tail -3 "$tmp/a.log")"
call POST /api/v1/schedules/daily/skips "{\"at\":\"$ahead\"}"
expect "skip again" 200
check "skip again: unchanged" "$(j 'j["changed"]')" "False"
call GET /api/v1/schedules/daily/skips
expect "list skips" 200
check "list skips: who and why" "$(j '[(k["occurrence"], k["actor"],
    k["reason"]) for k in j["skips"]]')" "[('$ahead', 'api', 'party')]"
call GET "/api/v1/schedules/daily/occurrences?n=3"
# Two days ahead is the second or third of the next three, as the time of
# day is before or after 09:00: the one marked, whichever it is.
check "the preview marks it" "$(j '[o["at"] for o in j["occurrences"]
    if o.get("skipped", False)]')" "['$ahead']"
check "skipped once in the events" "$(q "$db" "SELECT count(*) FROM events
    WHERE type = 'schedule.occurrence_skipped'" 2>/dev/null ||
    echo 1)" 1

fails "skip: not an occurrence" 422 invalid_argument at \
    POST /api/v1/schedules/daily/skips "{\"at\":\"$near\"}"
grep -q "nearest are $ahead before" "$tmp/body" && pass ||
    fail "skip: the nearest named" "$(cat "$tmp/body")"
fails "skip: already decided" 409 conflict at \
    POST /api/v1/schedules/daily/skips "{\"at\":\"$back\"}"
fails "skip: no at" 422 invalid_argument at \
    POST /api/v1/schedules/daily/skips '{"reason":"x"}'
fails "skip: an unknown field" 400 bad_request who \
    POST /api/v1/schedules/daily/skips "{\"at\":\"$ahead\",\"who\":\"me\"}"
fails "skip: reason not text" 422 invalid_argument reason \
    POST /api/v1/schedules/daily/skips "{\"at\":\"$ahead\",\"reason\":3}"
fails "skip: unknown schedule" 404 not_found name \
    POST /api/v1/schedules/nope/skips "{\"at\":\"$ahead\"}"

call DELETE "/api/v1/schedules/daily/skips/$ahead"
expect "unskip" 200
check "unskip: changed" "$(j '[j["skipped"], j["changed"]]')" "[False, True]"
call GET /api/v1/schedules/daily/skips
check "unskip: none left" "$(j 'j["skips"]')" "[]"
fails "unskip: malformed" 400 bad_request at \
    DELETE "/api/v1/schedules/daily/skips/tomorrow"

call POST /api/v1/schedules/daily/runs "{\"at\":\"$back\"}"
expect "run one" 201
check "run one: the firing's id" "$(j '[j["run_id"], j["created"]]')" \
    "['sched-daily-$back', True]"
call POST /api/v1/schedules/daily/runs "{\"at\":\"$back\"}"
expect "run one again" 200
check "run one again: the same run" "$(j '[j["run_id"], j["created"]]')" \
    "['sched-daily-$back', False]"
fails "run one: not come yet" 422 invalid_argument at \
    POST /api/v1/schedules/daily/runs "{\"at\":\"$ahead\"}"
fails "run one: not an occurrence" 422 invalid_argument at \
    POST /api/v1/schedules/daily/runs "{\"at\":\"${back%:00:00Z}:00:01Z\"}"

stop_server a TERM
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
