#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The audit trail: every event says who caused it in its payload's
# "actor", on a real server configured with two named tokens (alice,
# admin; bob, operate) and a workflows file of app "billing":
#  - the file's schedule, synced at start, is created by code:billing;
#  - its runs, fired every second, are created, started and completed by
#    the scheduler;
#  - a schedule created with alice's token is alice's, its pause with
#    bob's is bob's, and so is a resume by an MCP tool call over HTTP in
#    a session of bob's;
#  - a schedule created by the CLI on the database (no server between)
#    is user:LOGIN's, LOGIN the Unix user (id -un), one of a file applied
#    there (sked apply --db) code:APP's;
#  - GET /api/v1/events?actor=alice lists alice's only, and so do
#    `sked events --actor bob --server URL` and
#    `sked events --actor user:LOGIN --db URL`, whose human output shows
#    the actor in its own column; a bad actor filter is 400 naming actor;
#  - a token named scheduler (or anonymous, library, local) in the file
#    is refused: the server does not start.
#
# Env: SKED_BIN. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/server_lib.sh"

alice=alice-secret-00000001
bob=bob-operate-secret-01
me=$(id -un)
cfg=$tmp/sked.yaml
cat >"$cfg" <<EOF
tokens:
  - {name: alice, secret: $alice, scope: admin}
  - {name: bob, secret: $bob, scope: operate}
EOF
wf=$tmp/billing.yaml
cat >"$wf" <<'YAML'
app: billing
workflows:
  invoice:
    steps:
      - name: a
        run: ["true"]
schedules:
  - {name: tick, workflow: invoice, every: 1s}
YAML
db=sqlite:$tmp/audit.db
start_http a --config "$cfg" --db "$db" --workflows "$wf" ||
    fail start "no http: $(tail -n 5 "$tmp/a.log")"
u=$url_a

code() { # SECRET METHOD PATH [BODY]: the status
    curl -s -o /dev/null -w '%{http_code}' -X "$2" -H "Authorization: Bearer $1" \
        -H 'Content-Type: application/json' ${4:+--data "$4"} "$u$3"
}
get() { # SECRET PATH: the body
    curl -s -H "Authorization: Bearer $1" "$u$2"
}
# actors JSON JQ-FILTER: "TYPE SUBJECT ACTOR" of each event the filter
# keeps, one a line.
actors() {
    python3 -c '
import json, sys
page = json.loads(sys.argv[1])
for e in page["events"]:
    print(e["type"], e["subject"], e["payload"].get("actor", "(none)"))
' "$1"
}

check "alice creates" "$(code "$alice" POST /api/v1/schedules \
    '{"name":"nightly","workflow":"invoice","cron":"0 3 * * *"}')" 201
check "bob pauses" "$(code "$bob" POST /api/v1/schedules/nightly/pause)" 200

# ---- MCP over HTTP, in bob's session --------------------------------------------
mcp() { # SESSION BODY
    curl -s -D "$tmp/h" -X POST -H "Authorization: Bearer $bob" \
        -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' \
        ${1:+-H "Mcp-Session-Id: $1"} --data "$2" "$u/mcp"
}
mcp "" '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' >/dev/null
sid=$(grep -i '^Mcp-Session-Id:' "$tmp/h" | tr -d '\r' | cut -d' ' -f2)
mcp "$sid" '{"jsonrpc":"2.0","method":"notifications/initialized"}' >/dev/null
out=$(mcp "$sid" '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"resume_schedule","arguments":{"name":"nightly"}}}')
case $out in *'"isError":true'*) fail "bob resumes over MCP" "$out" ;; *active*) pass ;; *) fail "bob resumes over MCP" "$out" ;; esac

# ---- the CLI on the database ------------------------------------------------------
"$bin" schedule create invoice '0 4 * * *' --name by-hand --db "$db" >/dev/null 2>&1
check "the CLI creates on the database" "$?" 0
cat >"$tmp/reports.yaml" <<'YAML'
app: reports
schedules:
  - {name: weekly, workflow: invoice, cron: "0 6 * * 1"}
YAML
"$bin" apply "$tmp/reports.yaml" --db "$db" >/dev/null 2>&1
check "sked apply on the database" "$?" 0

# The scheduler's runs: wait for one completed.
deadline=$((SECONDS + 20))
until [ "$(q "$db" "SELECT count(*) FROM runs WHERE schedule = 'tick' AND status = 'completed'")" -ge 1 ] ||
    [ $SECONDS -ge $deadline ]; do sleep 0.2; done

all=$(actors "$(get "$alice" '/api/v1/events?limit=1000')")
has() { # NAME LINE: LINE is one of all's
    case $'\n'"$all"$'\n' in *$'\n'"$2"$'\n'*) pass ;; *) fail "$1" "no '$2' in: $all" ;; esac
}
has "the file's schedule is code:billing's" "schedule.created tick code:billing"
has "alice's creation" "schedule.created nightly alice"
has "bob's pause" "schedule.paused nightly bob"
has "bob's resume over MCP" "schedule.resumed nightly bob"
has "the CLI's creation on the database" "schedule.created by-hand user:$me"
has "sked apply on the database is the file's code" "schedule.created weekly code:reports"
run=$(q "$db" "SELECT id FROM runs WHERE schedule = 'tick' AND status = 'completed' ORDER BY id LIMIT 1")
has "the scheduler creates the run" "run.created $run scheduler"
has "the scheduler starts the run" "run.started $run scheduler"
has "the scheduler completes the run" "run.completed $run scheduler"
check "every event says who" "$(printf '%s\n' "$all" | grep -c '(none)$')" 0

# ---- reading by actor -----------------------------------------------------------------
alices=$(actors "$(get "$bob" '/api/v1/events?actor=alice')")
check "?actor=alice: alice's only" "$alices" "schedule.created nightly alice"
check "?actor=scheduler: the scheduler's only" \
    "$(actors "$(get "$bob" '/api/v1/events?actor=scheduler&limit=1000')" | grep -vc ' scheduler$')" 0
check "?actor=nobody: none" "$(get "$bob" '/api/v1/events?actor=nobody')" \
    '{"events":[],"next_cursor":null}'
check "a bad actor: 400" "$(code "$bob" GET '/api/v1/events?actor=%01')" 400
case $(get "$bob" '/api/v1/events?actor=%01') in
*'"field":"actor"'*) pass ;; *) fail "a bad actor names actor" "$(get "$bob" '/api/v1/events?actor=%01')" ;;
esac

out=$(SKED_TOKEN=$bob "$bin" events --actor bob --server "$u" 2>&1)
check "sked events --actor bob --server: exit" "$?" 0
check "sked events --actor bob --server: bob's two" \
    "$(printf '%s\n' "$out" | awk '{print $2, $3, $4}')" \
    $'schedule.paused nightly bob\nschedule.resumed nightly bob'
out=$("$bin" events --actor "user:$me" --db "$db" 2>&1)
check "sked events --actor user:LOGIN --db: exit" "$?" 0
check "sked events --actor user:LOGIN --db: the CLI's one" \
    "$(printf '%s\n' "$out" | awk '{print $2, $3, $4}')" "schedule.created by-hand user:$me"
out=$("$bin" events --actor code:billing --json --db "$db" | python3 -c '
import json, sys
print(sorted({e["payload"]["actor"] for e in json.load(sys.stdin)["events"]}))')
check "sked events --actor code:billing --json: the app's only" "$out" "['code:billing']"
stop_server a TERM

# ---- reserved token names ---------------------------------------------------------------
for name in scheduler anonymous library local; do
    printf 'tokens:\n  - {name: %s, secret: abcdefghijklmnop, scope: read}\n' "$name" >"$tmp/bad.yaml"
    out=$(timeout 10 "$bin" server --config "$tmp/bad.yaml" --db "sqlite:$tmp/never.db" \
        --listen 127.0.0.1:0 2>&1)
    check "a token named $name: exit" "$?" 2
    case $out in
    *"tokens[0].name: the name $name is reserved"*) pass ;;
    *) fail "a token named $name: message" "$out" ;;
    esac
done
check "no database made by a refused file" "$([ -e "$tmp/never.db" ] && echo made || echo none)" none

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
