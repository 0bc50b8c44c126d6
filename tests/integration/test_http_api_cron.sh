#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The API's routes that compute rather than change (docs/api.md "Cron",
# "Simulate", "Events"), through a real "sked server" and curl, each
# against the CLI that prints the same thing:
#
#   test_http_api_cron.sh [sqlite|pg]
#
# GET /api/v1/cron/explain describes an expression as "sked cron
# explain" does and lists the occurrences "sked cron next" prints, DST
# marks included (spring forward and fall back, Europe/Paris and
# America/New_York, both policies); POST /api/v1/schedules/{name}/simulate
# with a down interval decides what "sked schedule simulate --json"
# prints, line for line, and counts it; GET /api/v1/events?after=latest
# names the newest event, from which a reader sees only what follows.
# Every bad input is refused with the status and the field at fault, and
# leaves the database as it was.
#
# Env: SKED_BIN; SKED_TEST_PG_URL for pg. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
mode=${1:-sqlite}
. "$here/server_lib.sh"

mode_db cron.db

if ! start_http a --db "$db" --workers 1; then
    cat "$tmp/a.log"
    echo "0 passed, 1 failed"
    exit 1
fi
url=$url_a

# call METHOD PATH [BODY]: the status in $code, the body in $tmp/body.
call() {
    local data=()
    [ $# -gt 2 ] && data=(--data-binary "$3")
    code=$(curl -sS -o "$tmp/body" -w '%{http_code}' -X "$1" \
        -H 'Content-Type: application/json' "${data[@]}" "$url$2")
}

# j EXPR: evaluate the Python expression EXPR on the body, parsed as j.
j() {
    $py -c 'import json, sys
j = json.load(open(sys.argv[1]))
print(eval("(" + sys.argv[2] + ")"))' "$tmp/body" "$1" 2>&1
}

# The database as text, whole: what a failed request must not change.
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

# fails NAME STATUS CODE FIELD METHOD PATH [BODY]: the request fails with
# STATUS and the error body of CODE naming FIELD, the database unchanged.
fails() {
    local name=$1 status=$2 ecode=$3 field=$4 before after
    shift 4
    before=$(snapshot)
    call "$@"
    after=$(snapshot)
    expect "$name: status" "$status"
    check "$name: error" "$(j '"%s|%s|%s" % (j["error"]["code"],
        j["error"].get("field", ""), len(j["error"]["message"]) > 0)')" \
        "$ecode|$field|True"
    check "$name: nothing changed" "$([ "$before" = "$after" ] && echo same)" same
}

# enc S: S percent-encoded for a query string.
enc() {
    $py -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"
}

# ---- events after=latest, none stored ---------------------------------------
call GET '/api/v1/events?after=latest'
expect "events: after=latest, none stored" 200
check "events: no cursor when none is stored" \
    "$(j '[j["events"], j["next_cursor"]]')" "[[], None]"

# ---- cron explain -----------------------------------------------------------
# explain EXPR TZ AFTER N [DST]: the API's answer in $tmp/body; its
# occurrences as "sked cron next" lines in $tmp/api.local and .utc, and
# the CLI's own lines in $tmp/cli.local and .utc.
explain() {
    local e=$1 tz=$2 after=$3 n=$4 dst=${5:-once}
    call GET "/api/v1/cron/explain?expr=$(enc "$e")&timezone=$tz&after=$after&n=$n&dst=$dst"
    j '"\n".join(o["local"] + ("  " + o["mark"] if o["mark"] else "")
                 for o in j["occurrences"])' >"$tmp/api.local"
    j '"\n".join(o["at"] + ("  " + o["mark"] if o["mark"] else "")
                 for o in j["occurrences"])' >"$tmp/api.utc"
    "$bin" cron next "$e" --tz "$tz" --after "$after" -n "$n" --dst "$dst" \
        >"$tmp/cli.local"
    "$bin" cron next "$e" --tz "$tz" --after "$after" -n "$n" --dst "$dst" \
        --utc >"$tmp/cli.utc"
}

# same_as_cli NAME: the API listed what "sked cron next" prints.
same_as_cli() {
    check "$1: local times as sked cron next" "$(cat "$tmp/api.local")" \
        "$(cat "$tmp/cli.local")"
    check "$1: instants as sked cron next --utc" "$(cat "$tmp/api.utc")" \
        "$(cat "$tmp/cli.utc")"
}

explain "30 2 * * *" Europe/Paris 2026-03-27T12:00:00Z 3
expect "explain: paris spring" 200
check "explain: the answer" \
    "$(j '[j["expr"], j["timezone"], len(j["occurrences"])]')" \
    "['30 2 * * *', 'Europe/Paris', 3]"
check "explain: the skipped 02:30 fires at 03:00, shifted" \
    "$(j '[(o["at"], o["local"], o["mark"]) for o in j["occurrences"]][1]')" \
    "('2026-03-29T01:00:00Z', '2026-03-29T03:00:00+02:00', 'shifted')"
check "explain: the words of sked cron explain" "$(j 'j["description"]')" \
    "$("$bin" cron explain "30 2 * * *" --tz Europe/Paris)"
same_as_cli "explain: paris spring"

explain "30 2 * * *" Europe/Paris 2026-10-24T12:00:00Z 3
expect "explain: paris fall" 200
check "explain: the repeated 02:30 fires once, first pass" \
    "$(j '[o["mark"] for o in j["occurrences"]]')" "['first_pass', None, None]"
same_as_cli "explain: paris fall"

explain "30 2 * * *" America/New_York 2026-03-07T12:00:00Z 2
expect "explain: new york spring" 200
check "explain: new york's skipped 02:30, shifted" \
    "$(j '[(o["local"], o["mark"]) for o in j["occurrences"]]')" \
    "[('2026-03-08T03:00:00-04:00', 'shifted'), ('2026-03-09T02:30:00-04:00', None)]"
same_as_cli "explain: new york spring"

explain "*/30 * * * *" America/New_York 2026-11-01T05:00:00Z 6 cadence
expect "explain: new york fall, cadence" 200
check "explain: cadence fires the repeated hour's second pass too" \
    "$(j '[o["mark"] for o in j["occurrences"]]')" \
    "['first_pass', 'second_pass', 'second_pass', None, None, None]"
same_as_cli "explain: new york fall, cadence"

call GET "/api/v1/cron/explain?expr=$(enc "0 9 * * 1-5")"
expect "explain: defaults" 200
check "explain: UTC and 5 by default" \
    "$(j '[j["timezone"], j["description"], len(j["occurrences"]),
           all(o["local"].endswith("+00:00") for o in j["occurrences"])]')" \
    "['UTC', 'At 09:00, Monday through Friday (UTC)', 5, True]"
call GET "/api/v1/cron/explain?expr=@daily&n=0"
expect "explain: n=0" 200
check "explain: n=0 lists none" "$(j 'j["occurrences"]')" "[]"
call GET "/api/v1/cron/explain?expr=0%200%2029%202%20*&timezone=UTC&after=9996-01-01T00:00:00Z&n=10"
expect "explain: past year 9999" 200
check "explain: fewer when it fires no more" "$(j 'len(j["occurrences"])')" 1

fails "explain: bad expression" 422 invalid_argument expr \
    GET "/api/v1/cron/explain?expr=$(enc "61 * * * *")"
msg=$(j 'j["error"]["message"]')
cli=$("$bin" cron validate "61 * * * *" 2>&1)
case $cli in
*": $msg") pass ;;
*) fail "explain: the message of sked cron validate" "'$msg' not in '$cli'" ;;
esac
check "explain: the byte at fault" "$msg" "minute: 61 is out of range 0-59 (at byte 1)"
fails "explain: no expression" 422 invalid_argument expr GET /api/v1/cron/explain
fails "explain: unknown zone" 422 invalid_argument timezone \
    GET "/api/v1/cron/explain?expr=@daily&timezone=Mars/Olympus"
fails "explain: n not a number" 400 bad_request n \
    GET "/api/v1/cron/explain?expr=@daily&n=five"
fails "explain: n too big" 422 out_of_range n \
    GET "/api/v1/cron/explain?expr=@daily&n=1001"
fails "explain: after not an instant" 400 bad_request after \
    GET "/api/v1/cron/explain?expr=@daily&after=tomorrow"
fails "explain: dst neither" 422 invalid_argument dst \
    GET "/api/v1/cron/explain?expr=@daily&dst=sometimes"

# ---- simulate ---------------------------------------------------------------
# Hourly in Paris, paused so that nothing fires while the test compares
# the database; a replay ignores the pause. Down from 01:30 to 04:10 UTC
# on the spring-forward day: the backlog is decided at 04:10.
call POST /api/v1/schedules '{"name":"hourly","workflow":"hello",
    "cron":"0 * * * *","timezone":"Europe/Paris","paused":true}'
expect "simulate: the schedule" 201
from=2026-03-29T00:00:00Z to=2026-03-29T08:00:00Z
down_from=2026-03-29T01:30:00Z down_to=2026-03-29T04:10:00Z
body="{\"from\":\"$from\",\"to\":\"$to\",
       \"down\":[{\"from\":\"$down_from\",\"to\":\"$down_to\"}],
       \"run_duration_secs\":5400,\"tick_secs\":1}"
before=$(snapshot)
call POST /api/v1/schedules/hourly/simulate "$body"
expect "simulate" 200
check "simulate: nothing written" "$([ "$before" = "$(snapshot)" ] && echo same)" same
"$bin" schedule simulate hourly --db "$db" --from "$from" --to "$to" \
    --down "$down_from..$down_to" --run-duration 90m --json \
    >"$tmp/cli.jsonl" 2>/dev/null
check "simulate: the decisions of sked schedule simulate --json" \
    "$(j '"\n".join(json.dumps(d) for d in j["decisions"])')" \
    "$($py -c 'import json, sys
print("\n".join(json.dumps(json.loads(l)) for l in open(sys.argv[1])))' "$tmp/cli.jsonl")"
check "simulate: the answer" \
    "$(j '[j["schedule"], j["from"], j["to"], j["truncated"],
           len(j["decisions"])]')" \
    "['hourly', '$from', '$to', False, $(wc -l <"$tmp/cli.jsonl")]"
check "simulate: the backlog decided when the server is back" \
    "$(j 'sorted(set(d["at"] for d in j["decisions"]
                  if d["occurrence"] > "'$down_from'" and d["occurrence"] < "'$down_to'"))')" \
    "['$down_to']"
check "simulate: the counts" \
    "$(j '[j["fired"], j["dropped"]] == [
        sum(d["decision"] == "fire" for d in j["decisions"]),
        {r: sum(d["reason"] == r for d in j["decisions"])
         for r in set(d["reason"] for d in j["decisions"] if d["reason"])}]')" True
check "simulate: something was dropped" "$(j 'len(j["dropped"]) > 0')" True
all=$(j 'j["decisions"]')
counts=$(j '[j["fired"], j["dropped"]]')
call POST "/api/v1/schedules/hourly/simulate?limit=2" "$body"
expect "simulate: limit" 200
check "simulate: the first 2, truncated, all counted" \
    "$(j '[str(j["decisions"]) == str('"$all"'[:2]), j["truncated"],
           [j["fired"], j["dropped"]]]')" "[True, True, $counts]"
call POST "/api/v1/schedules/hourly/simulate?limit=2" \
    "{\"from\":\"$from\",\"to\":\"$to\",\"limit\":3}"
check "simulate: the body's limit wins" "$(j 'len(j["decisions"])')" 3

fails "simulate: unknown schedule" 404 not_found name \
    POST /api/v1/schedules/nope/simulate "$body"
fails "simulate: no to" 422 invalid_argument to \
    POST /api/v1/schedules/hourly/simulate "{\"from\":\"$from\"}"
fails "simulate: reversed period" 422 invalid_argument to \
    POST /api/v1/schedules/hourly/simulate "{\"from\":\"$to\",\"to\":\"$from\"}"
fails "simulate: reversed interval" 422 invalid_argument 'down[0]' \
    POST /api/v1/schedules/hourly/simulate "{\"from\":\"$from\",\"to\":\"$to\",
    \"down\":[{\"from\":\"$down_to\",\"to\":\"$down_from\"}]}"
fails "simulate: an interval with one end" 422 invalid_argument 'down[1].to' \
    POST /api/v1/schedules/hourly/simulate "{\"from\":\"$from\",\"to\":\"$to\",
    \"down\":[{\"from\":\"$down_from\",\"to\":\"$down_to\"},{\"from\":\"$to\"}]}"
fails "simulate: an interval's unknown field" 400 bad_request 'down[0].end' \
    POST /api/v1/schedules/hourly/simulate "{\"from\":\"$from\",\"to\":\"$to\",
    \"down\":[{\"from\":\"$down_from\",\"end\":\"$down_to\"}]}"
fails "simulate: unknown field" 400 bad_request until \
    POST /api/v1/schedules/hourly/simulate "{\"from\":\"$from\",\"until\":\"$to\"}"
fails "simulate: from not an instant" 422 invalid_argument from \
    POST /api/v1/schedules/hourly/simulate "{\"from\":\"monday\",\"to\":\"$to\"}"
fails "simulate: tick of 0" 422 out_of_range tick_secs \
    POST /api/v1/schedules/hourly/simulate "{\"from\":\"$from\",\"to\":\"$to\",\"tick_secs\":0}"
fails "simulate: run duration a string" 422 invalid_argument run_duration_secs \
    POST /api/v1/schedules/hourly/simulate "{\"from\":\"$from\",\"to\":\"$to\",\"run_duration_secs\":\"1h\"}"
fails "simulate: limit over the most" 422 out_of_range limit \
    POST "/api/v1/schedules/hourly/simulate?limit=10001" "{\"from\":\"$from\",\"to\":\"$to\"}"
fails "simulate: malformed JSON" 400 bad_request "" \
    POST /api/v1/schedules/hourly/simulate "{\"from\":"

# ---- events after=latest ----------------------------------------------------
call GET '/api/v1/events?limit=1000'
newest=$(j 'j["events"][-1]["id"]')
call GET '/api/v1/events?after=latest'
expect "events: after=latest" 200
check "events: none, the cursor the newest" "$(j '[j["events"], j["next_cursor"]]')" \
    "[[], '$newest']"
call POST /api/v1/schedules/hourly/resume
call POST /api/v1/schedules/hourly/pause
call GET "/api/v1/events?after=$newest"
check "events: after it, only what came since" \
    "$(j '[(e["type"], e["subject"]) for e in j["events"]]')" \
    "[('schedule.resumed', 'hourly'), ('schedule.paused', 'hourly')]"
fails "events: after neither an id nor latest" 400 bad_request after \
    GET '/api/v1/events?after=newest'

stop_server a TERM
check "the server stops cleanly" "$stop_rc" 0
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
