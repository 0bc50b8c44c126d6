#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The schedule, run, workflow and queue routes of the HTTP API
# (docs/api.md, SPEC 6), through a real "sked server" and curl:
#
#   test_http_api.sh [sqlite|pg]
#
# Every route answers what docs/api.md says, with its status (201 create,
# trigger and start; 200 for a start whose Idempotency-Key names a run;
# 204 delete; 400 malformed JSON, invalid UTF-8, an unknown field; 404;
# 409 a name that exists, a trigger under "overlap: skip", a finished
# run's cancel, apply over an API schedule; 422 a wrong type or value),
# every error has the body {"error":{"code","message","field"}} naming
# the field at fault, and a request that fails leaves the database as it
# was (compared whole before and after). Lists page with limit and
# cursor; a preview is the CLI's; a real run of a one-step workflow shows
# its step.
#
# Env: SKED_BIN; SKED_TEST_PG_URL for pg. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
mode=${1:-sqlite}
. "$here/server_lib.sh"

mode_db api.db

cat >"$tmp/wf.yaml" <<'YAML'
queues:
  narrow: {concurrency: 2, worker_concurrency: 1}
workflows:
  hello:
    steps:
      - name: one
        run: ["true"]
YAML

if ! start_http a --db "$db" --workflows "$tmp/wf.yaml" --workers 1; then
    cat "$tmp/a.log"
    echo "0 passed, 1 failed"
    exit 1
fi
url=$url_a

# call METHOD PATH [BODY [CURL ARGS...]]: the status in $code, the body in
# $tmp/body. A BODY of "-" sends none.
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

# expect NAME STATUS: the last call answered STATUS.
expect() {
    if [ "$code" = "$2" ]; then
        pass
    else
        fail "$1" "status $code, want $2: $(head -c 300 "$tmp/body")"
    fi
}

# fails NAME STATUS CODE FIELD METHOD PATH [BODY [CURL ARGS...]]: the
# request fails with STATUS, the error body of CODE naming FIELD ("" for
# none), a message, and the database unchanged.
fails() {
    local name=$1 status=$2 ecode=$3 field=$4 before after got
    shift 4
    before=$(snapshot)
    call "$@"
    after=$(snapshot)
    expect "$name: status" "$status"
    got=$(j 'sorted(j) == ["error"] and sorted(j["error"]) == sorted(
        ["code", "message"] + (["field"] if "field" in j["error"] else [])
        + (["position"] if "position" in j["error"] else []))
        and ("position" not in j["error"] or "field" in j["error"])
        and len(j["error"]["message"]) > 0 and "%s|%s" % (
        j["error"]["code"], j["error"].get("field", ""))')
    check "$name: error body" "$got" "$ecode|$field"
    if [ "$before" = "$after" ]; then
        pass
    else
        fail "$name: database changed" "$(diff <(echo "$before") \
            <(echo "$after") | head -5)"
    fi
}

# ---- create, read, update, pause, resume, delete --------------------------
# Created paused, and paused again at once after the checks of its
# status: a schedule that fired during a check of "nothing changed"
# would change the database.
sched='{"name":"paris","workflow":"hello","cron":"30 2 * * *",
        "timezone":"Europe/Paris","description":"nightly","paused":true}'
call POST /api/v1/schedules "$sched"
expect "create" 201
check "create: the schedule" \
    "$(j '[j[k] for k in ("name", "cron", "timezone", "status", "source",
       "paused", "last_fired_at")]')" \
    "['paris', '30 2 * * *', 'Europe/Paris', 'paused', 'api', True, None]"
check "create: every field of SPEC 6" "$(j 'all(k in j for k in (
    "catchup", "catchup_max", "catchup_window_secs", "overlap", "priority",
    "queue", "jitter_secs", "automatic_backfill", "dst", "start_at",
    "end_at", "max_runs", "pause_after_failures", "next_fire_at",
    "created_at", "updated_at", "last_error"))')" True
call PATCH /api/v1/schedules/paris '{"name":"paris","paused":false}'
expect "patch: not paused" 200
check "patch: active" "$(j '[j["status"], j["paused"]]')" "['active', False]"
call POST /api/v1/schedules/paris/pause
expect "pause" 200
check "pause: paused" "$(j 'j["status"]')" paused
call POST /api/v1/schedules/paris/resume
expect "resume" 200
check "resume: active" "$(j 'j["status"]')" active
call PATCH /api/v1/schedules/paris '{"paused":true}'
expect "patch: paused" 200
check "patch: paused" "$(j '[j["status"], j["paused"]]')" "['paused', True]"
call GET /api/v1/schedules/paris
expect "get" 200
check "get: the description" "$(j 'j["description"]')" nightly
call PATCH /api/v1/schedules/paris '{"cron":"0 3 * * *","priority":4}'
expect "patch" 200
check "patch: changed, the rest kept" \
    "$(j '[j["cron"], j["priority"], j["description"], j["timezone"],
           j["status"]]')" \
    "['0 3 * * *', 4, 'nightly', 'Europe/Paris', 'paused']"

fails "create: the name exists" 409 conflict name \
    POST /api/v1/schedules "$sched"
fails "create: malformed JSON" 400 bad_request "" \
    POST /api/v1/schedules '{"name":'
fails "create: invalid UTF-8" 400 bad_request "" \
    POST /api/v1/schedules $'{"name":"x\xff","workflow":"hello","cron":"* * * * *"}'
fails "create: not an object" 400 bad_request "" \
    POST /api/v1/schedules '[1]'
fails "create: an unknown field" 400 bad_request colour \
    POST /api/v1/schedules '{"name":"x","workflow":"hello","cron":"* * * * *","colour":1}'
fails "create: a wrong type" 422 invalid_argument catchup_max \
    POST /api/v1/schedules '{"name":"x","workflow":"hello","cron":"* * * * *","catchup_max":"5"}'
fails "create: an unknown zone" 422 invalid_argument timezone \
    POST /api/v1/schedules '{"name":"x","workflow":"hello","cron":"* * * * *","timezone":"Europe/Pariss"}'
fails "create: a bad cron" 422 invalid_argument cron \
    POST /api/v1/schedules '{"name":"x","workflow":"hello","cron":"61 * * * *"}'
fails "create: a read-only field" 422 invalid_argument status \
    POST /api/v1/schedules '{"name":"x","workflow":"hello","cron":"* * * * *","status":"active"}'
fails "create: two time specs" 422 invalid_argument every \
    POST /api/v1/schedules '{"name":"x","workflow":"hello","cron":"* * * * *","every":"1h"}'
fails "get: unknown" 404 not_found name GET /api/v1/schedules/nope
fails "patch: another name" 422 invalid_argument name \
    PATCH /api/v1/schedules/paris '{"name":"london"}'
fails "patch: an unknown field" 400 bad_request colour \
    PATCH /api/v1/schedules/paris '{"colour":"red"}'
fails "patch: a wrong type" 422 invalid_argument priority \
    PATCH /api/v1/schedules/paris '{"priority":"high"}'
fails "patch: an invalid value" 422 invalid_argument catchup_max \
    PATCH /api/v1/schedules/paris '{"catchup_max":0}'
fails "patch: unknown" 404 not_found name \
    PATCH /api/v1/schedules/nope '{"priority":1}'
fails "pause: unknown" 404 not_found name POST /api/v1/schedules/nope/pause
fails "resume: unknown" 404 not_found name POST /api/v1/schedules/nope/resume

call POST /api/v1/schedules '{"name":"doomed","workflow":"hello","every":"1h"}'
expect "create doomed" 201
call DELETE /api/v1/schedules/doomed
expect "delete" 204
check "delete: no body" "$(wc -c <"$tmp/body")" 0
call DELETE /api/v1/schedules/doomed
expect "delete again" 204
fails "get deleted" 404 not_found name GET /api/v1/schedules/doomed

# ---- preview -------------------------------------------------------------
# Daily at 03:00 Paris: the spring-forward day fires at 03:00+02:00 as
# usual; at 02:30 (below) the local time is skipped and shifted.
call PATCH /api/v1/schedules/paris '{"cron":"30 2 * * *"}'
call GET '/api/v1/schedules/paris/occurrences?n=200'
expect "occurrences" 200
check "occurrences: n of them" "$(j 'len(j["occurrences"])')" 200
check "occurrences: the spring-forward day is shifted" \
    "$(j '[(o["at"], o["local"]) for o in j["occurrences"]
           if o["mark"] == "shifted"][:1]')" \
    "[('2027-03-28T01:00:00Z', '2027-03-28T03:00:00+02:00')]"
check "occurrences: others unmarked" \
    "$(j 'sum(o["mark"] is None for o in j["occurrences"])')" 199
api=$(j '[(o["at"], o["local"], o["mark"]) for o in j["occurrences"]]')
cli=$("$bin" schedule preview paris -n 200 --json --db "$db" 2>/dev/null |
    $py -c 'import json, sys
print([(o["at"], o["local"], o.get("mark")) for o in json.load(sys.stdin)["occurrences"]])')
check "occurrences: the same as sked schedule preview" "$api" "$cli"
call GET /api/v1/schedules/paris/occurrences
check "occurrences: 10 by default" "$(j 'len(j["occurrences"])')" 10
fails "occurrences: n=0" 422 out_of_range n \
    GET '/api/v1/schedules/paris/occurrences?n=0'
fails "occurrences: n=1001" 422 out_of_range n \
    GET '/api/v1/schedules/paris/occurrences?n=1001'
fails "occurrences: n=abc" 400 bad_request n \
    GET '/api/v1/schedules/paris/occurrences?n=abc'
fails "occurrences: unknown" 404 not_found name \
    GET /api/v1/schedules/nope/occurrences
call GET '/api/v1/schedules/paris/occurrences?n=2&after=2025-03-29T12:00:00Z'
check "occurrences: strictly after ?after=" \
    "$(j '[o["at"] for o in j["occurrences"]]')" \
    "['2025-03-30T01:00:00Z', '2025-03-31T00:30:00Z']"
call GET '/api/v1/schedules/paris/occurrences?n=1&after=2025-03-30T01:00:00Z'
check "occurrences: after an occurrence, the next" \
    "$(j '[o["at"] for o in j["occurrences"]]')" "['2025-03-31T00:30:00Z']"
fails "occurrences: after=yesterday" 400 bad_request after \
    GET '/api/v1/schedules/paris/occurrences?after=yesterday'

# ---- trigger -------------------------------------------------------------
# "ghost" is a workflow no server runs: its runs stay pending (active).
call POST /api/v1/schedules \
    '{"name":"solo","workflow":"ghost","every":"24h","overlap":"skip","queue":"narrow"}'
expect "create solo" 201
call POST /api/v1/schedules/solo/trigger
expect "trigger" 201
solo_run=$(j 'j["run_id"]')
check "trigger: a run of the schedule" \
    "$(q "$db" "SELECT schedule || ' ' || trigger_kind || ' ' || status FROM runs WHERE id = '$solo_run'")" \
    "solo manual pending"
fails "trigger: overlap skip and a run active" 409 conflict name \
    POST /api/v1/schedules/solo/trigger
fails "trigger: unknown" 404 not_found name POST /api/v1/schedules/nope/trigger
call POST /api/v1/schedules \
    '{"name":"idle","workflow":"ghost","every":"24h","paused":true}'
call POST /api/v1/schedules/idle/trigger
expect "trigger: a paused schedule" 201

# ---- queues --------------------------------------------------------------
call GET /api/v1/queues
expect "queues" 200
check "queues: narrow with its limits and depth" \
    "$(j '[(x["concurrency"], x["worker_concurrency"], x["rate_limit"],
            x["rate_period_secs"], x["pending"], x["running"])
           for x in j["queues"] if x["name"] == "narrow"]')" \
    "[(2, 1, None, None, 1, 0)]"

# ---- backfill and run pages ------------------------------------------------
# Its end is past: it never fires while the test compares databases.
call POST /api/v1/schedules '{"name":"hourly","workflow":"ghost","every":"1h",
    "anchor":"2026-01-01T00:00:00Z","end_at":"2026-01-03T00:00:00Z"}'
expect "create hourly" 201
bf='{"start":"2026-01-01T00:00:00Z","end":"2026-01-02T00:00:00Z"}'
# A dry run tells what the backfill would create, and writes nothing.
before=$(snapshot)
call POST /api/v1/schedules/hourly/backfill \
    '{"start":"2026-01-01T00:00:00Z","end":"2026-01-02T00:00:00Z","dry_run":true}'
expect "backfill dry run" 200
check "backfill dry run: 23 to create" "$(j '[j["dry_run"], j["total"],
    j["checked"], j["created"], j["skipped"], len(j["create"]), j["create"][0],
    j["skip"]]')" "[True, 23, 23, 23, 0, 23, '2026-01-01T01:00:00Z', []]"
[ "$before" = "$(snapshot)" ] && pass ||
    fail "backfill dry run: wrote nothing" "the database changed"
call POST /api/v1/schedules/hourly/backfill "$bf"
expect "backfill" 200
check "backfill: 23 runs" "$(j '[j["created"], j["skipped"]]')" "[23, 0]"
call POST /api/v1/schedules/hourly/backfill "$bf"
check "backfill again: all skipped" "$(j '[j["created"], j["skipped"]]')" \
    "[0, 23]"
# Past the backfilled range, the dry run tells existing runs from new ones.
call POST /api/v1/schedules/hourly/backfill \
    '{"start":"2026-01-01T00:00:00Z","end":"2026-01-02T06:00:00Z","dry_run":true}'
check "backfill dry run: 23 to skip, 6 to create" "$(j '[j["total"],
    j["created"], j["skipped"], j["create"][0], j["skip"][-1]]')" \
    "[29, 6, 23, '2026-01-02T00:00:00Z', '2026-01-01T23:00:00Z']"
fails "backfill dry run: not a boolean" 422 invalid_argument dry_run \
    POST /api/v1/schedules/hourly/backfill \
    '{"start":"2026-01-01T00:00:00Z","end":"2026-01-02T00:00:00Z","dry_run":"yes"}'
fails "backfill dry run: reversed" 422 invalid_argument end \
    POST /api/v1/schedules/hourly/backfill \
    '{"start":"2026-01-02T00:00:00Z","end":"2026-01-01T00:00:00Z","dry_run":true}'
fails "backfill dry run: unknown" 404 not_found name \
    POST /api/v1/schedules/nope/backfill \
    '{"start":"2026-01-01T00:00:00Z","end":"2026-01-02T00:00:00Z","dry_run":true}'
fails "backfill: malformed start" 422 invalid_argument start \
    POST /api/v1/schedules/hourly/backfill '{"start":"yesterday","end":"2026-01-02T00:00:00Z"}'
fails "backfill: start not a string" 422 invalid_argument start \
    POST /api/v1/schedules/hourly/backfill '{"start":1,"end":"2026-01-02T00:00:00Z"}'
fails "backfill: reversed" 422 invalid_argument end \
    POST /api/v1/schedules/hourly/backfill '{"start":"2026-01-02T00:00:00Z","end":"2026-01-01T00:00:00Z"}'
fails "backfill: no end" 422 invalid_argument end \
    POST /api/v1/schedules/hourly/backfill '{"start":"2026-01-02T00:00:00Z"}'
fails "backfill: an unknown field" 400 bad_request until \
    POST /api/v1/schedules/hourly/backfill '{"start":"2026-01-01T00:00:00Z","until":"x"}'
fails "backfill: unknown" 404 not_found name \
    POST /api/v1/schedules/nope/backfill "$bf"

ids=() pages=0 cursor=
while :; do
    call GET "/api/v1/runs?schedule=hourly&limit=10${cursor:+&cursor=$cursor}"
    [ "$code" = 200 ] || break
    pages=$((pages + 1))
    ids+=($(j '" ".join(r["id"] for r in j["runs"])'))
    cursor=$(j 'j["next_cursor"] or ""')
    cursor=$($py -c 'import sys, urllib.parse
print(urllib.parse.quote(sys.argv[1], safe=""))' "$cursor")
    [ -n "$cursor" ] && [ $pages -lt 10 ] || break
done
check "runs: 3 pages of 10" "$pages" 3
check "runs: 23 distinct" "$(printf '%s\n' "${ids[@]}" | sort -u | wc -l)" 23
check "runs: newest first" "$(printf '%s\n' "${ids[@]}" | head -1)" \
    "sched-hourly-2026-01-01T23:00:00Z"
call GET '/api/v1/runs?status=pending&workflow=ghost&limit=1000'
check "runs: filters" "$(j 'len(j["runs"])')" 25
fails "runs: unknown status" 422 invalid_argument status \
    GET '/api/v1/runs?status=sleepy'
fails "runs: limit=0" 422 out_of_range limit GET '/api/v1/runs?limit=0'
fails "runs: limit=1001" 422 out_of_range limit GET '/api/v1/runs?limit=1001'
fails "runs: a foreign cursor" 422 invalid_argument cursor \
    GET '/api/v1/runs?cursor=zzz'

# ---- schedule pages --------------------------------------------------------
set_json=$($py -c 'import json
print(json.dumps({"schedules": [{"name": "page-%02d" % i, "workflow": "hello",
      "every": "%dh" % (i + 1)} for i in range(25)]}))')
call PUT /api/v1/schedules "$set_json"
expect "apply" 200
check "apply: created" "$(j '[j[k] for k in ("created", "updated", "unchanged",
    "deleted")]')" "[25, 0, 0, 0]"
names=() pages=0 cursor=
while :; do
    call GET "/api/v1/schedules?prefix=page-&limit=10${cursor:+&cursor=$cursor}"
    [ "$code" = 200 ] || break
    pages=$((pages + 1))
    names+=($(j '" ".join(s["name"] for s in j["schedules"])'))
    cursor=$(j 'j["next_cursor"] or ""')
    [ -n "$cursor" ] && [ $pages -lt 10 ] || break
done
check "schedules: 3 pages of 10" "$pages" 3
check "schedules: 25, by name" "$(printf '%s\n' "${names[@]}" | sort -u |
    tr '\n' ' ')" "$(printf 'page-%02d ' $(seq 0 24))"
check "schedules: by name" "${names[*]}" "$(printf '%s\n' "${names[@]}" |
    sort | tr '\n' ' ' | sed 's/ $//')"
call GET '/api/v1/schedules?status=paused'
check "schedules: by status" "$(j '[s["name"] for s in j["schedules"]]')" \
    "['idle', 'paris']"
call GET '/api/v1/schedules?workflow=ghost'
check "schedules: by workflow" "$(j '[s["name"] for s in j["schedules"]]')" \
    "['hourly', 'idle', 'solo']"
check "schedules: the last page" "$(j 'j["next_cursor"]')" None
call GET '/api/v1/schedules?status=&workflow=&prefix=&cursor='
check "schedules: empty filters filter nothing" "$(j 'len(j["schedules"])')" \
    "$(q "$db" 'SELECT count(*) FROM schedules')"
fails "schedules: unknown status" 422 invalid_argument status \
    GET '/api/v1/schedules?status=sleepy'
fails "schedules: limit=0" 422 out_of_range limit \
    GET '/api/v1/schedules?limit=0'
fails "schedules: limit=x" 400 bad_request limit \
    GET '/api/v1/schedules?limit=x'

# ---- apply -----------------------------------------------------------------
small='{"schedules":[{"name":"page-00","workflow":"hello","every":"1h"},
    {"name":"page-01","workflow":"hello","every":"30m"}],"prune":true}'
call PUT /api/v1/schedules "$small"
expect "apply: prune" 200
check "apply: prune counts" "$(j '[j[k] for k in ("created", "updated",
    "unchanged", "deleted")]')" "[0, 1, 1, 23]"
check "apply: source code" "$(q "$db" "SELECT source FROM schedules WHERE name = 'page-01'")" code
call GET /api/v1/schedules/page-01
check "apply: the scheduler has its next occurrence" \
    "$(j 'j["next_fire_at"] is not None and j["every_secs"]')" 1800
fails "apply: over an API schedule" 409 conflict "schedules[1].name" PUT /api/v1/schedules \
    '{"schedules":[{"name":"page-00","workflow":"hello","every":"1h"},{"name":"paris","workflow":"hello","every":"1h"}]}'
fails "apply: an invalid item" 422 invalid_argument "schedules[1].timezone" \
    PUT /api/v1/schedules '{"schedules":[{"name":"page-00","workflow":"hello","every":"2h"},{"name":"q","workflow":"hello","cron":"* * * * *","timezone":"Mars/Olympus"}]}'
fails "apply: an unknown field of an item" 400 bad_request "schedules[0].colour" \
    PUT /api/v1/schedules '{"schedules":[{"name":"page-00","workflow":"hello","every":"2h","colour":1}]}'
fails "apply: an unknown field" 400 bad_request force \
    PUT /api/v1/schedules '{"schedules":[],"force":true}'
fails "apply: no list" 422 invalid_argument schedules \
    PUT /api/v1/schedules '{"schedules":{}}'
fails "apply: prune not a boolean" 422 invalid_argument prune \
    PUT /api/v1/schedules '{"schedules":[],"prune":"yes"}'

# ---- start, idempotency, cancel, a real run ----------------------------------
fails "start: input not an object" 400 bad_request "" \
    POST /api/v1/workflows/hello/runs '[1,2]'
fails "start: a bad workflow name" 422 invalid_argument workflow \
    POST '/api/v1/workflows/bad%20name/runs' '{}'
call POST /api/v1/workflows/hello/runs '{"day":"2026-11-30"}' \
    -H 'Idempotency-Key: order-17'
expect "start with a key" 201
first=$(j 'j["id"]')
check "start: the run" "$(j '[j["workflow"], j["trigger"], j["context"]]')" \
    "['hello', 'api', {'day': '2026-11-30'}]"
call POST /api/v1/workflows/hello/runs '{"day":"2026-11-30"}' \
    -H 'Idempotency-Key: order-17'
expect "start with the same key" 200
check "start: the same run" "$(j 'j["id"]')" "$first"
check "start: one run for the key" \
    "$(q "$db" "SELECT count(*) FROM runs WHERE id LIKE '%order-17%'")" 1

# Wait for the worker to finish it, then read its step.
for _ in $(seq 100); do
    call GET "/api/v1/runs/$first"
    [ "$(j 'j["status"]')" = completed ] && break
    sleep 0.2
done
expect "run get" 200
check "run get: completed with its step" \
    "$(j '[j["status"], [(s["step"], s["attempt"], s["status"]) for s in j["steps"]]]')" \
    "['completed', [('one', 1, 'completed')]]"
fails "cancel a finished run" 409 conflict status \
    POST "/api/v1/runs/$first/cancel"
fails "run get: unknown" 404 not_found id GET /api/v1/runs/nope
fails "cancel: unknown" 404 not_found id POST /api/v1/runs/nope/cancel

call POST /api/v1/workflows/ghost/runs -
expect "start with no body" 201
ghost=$(j 'j["id"]')
check "start: no body is {}" "$(j '[j["status"], j["context"]]')" \
    "['pending', {}]"
call POST "/api/v1/runs/$ghost/cancel"
expect "cancel a pending run" 200
check "cancel: cancelled" "$(j 'j["status"]')" cancelled
fails "cancel again" 409 conflict status POST "/api/v1/runs/$ghost/cancel"

# ---- workflows ---------------------------------------------------------------
call GET /api/v1/workflows
expect "workflows" 200
check "workflows: hello with its definition" \
    "$(j '[(w["name"], len(w["version"]) > 0, w["registered_at"][-1],
            w["definition"]["steps"][0]["name"]) for w in j["workflows"]]')" \
    "[('hello', True, 'Z', 'one')]"

stop_server a TERM
check "the server stops cleanly" "$stop_rc" 0
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
