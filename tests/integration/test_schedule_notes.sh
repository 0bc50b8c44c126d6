#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A schedule's notes (free text, at most 4 KiB) through every door: set by
# "sked schedule create/update --notes", by the API's "notes" (POST,
# PATCH) and by the workflows file's "notes:", shown by "sked schedule
# get" (as JSON and for people) and returned by the API, described by the
# OpenAPI document. Lengths around the limit are generated, in one-byte
# and two-byte characters: up to 4096 bytes is kept as given, anything
# longer is refused by each door naming "notes" (the CLI's bound of one
# argument, 4 KiB too, may speak first), and changes nothing.
#
# Usage: test_schedule_notes.sh [sqlite|pg]. Env: SKED_BIN.
# Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
mode=${1:-sqlite}
. "$here/server_lib.sh"
unset SKED_DB SKED_SERVER SKED_TOKEN
mode_db notes.db

cat >"$tmp/wf.yaml" <<'EOF'
workflows:
  report:
    steps:
      - name: one
        sh: 'true'
EOF

# text N CHAR: N bytes made of CHAR (one or two bytes of UTF-8).
text() { "$py" -c 'import sys; n, c = int(sys.argv[1]), sys.argv[2]; print(c * (n // len(c.encode())), end="")' "$1" "$2"; }
# notes_of NAME: the notes "sked schedule get --json" shows (None: null).
notes_of() {
    "$bin" schedule get "$1" --json --db "$db" 2>/dev/null |
        "$py" -c 'import json,sys; print(json.load(sys.stdin)["notes"])'
}
# json_str S: S as a JSON string.
json_str() { "$py" -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1"; }
count() { q "$db" 'SELECT count(*) FROM schedules'; }

# ---- the CLI ----------------------------------------------------------
"$bin" schedule create report '0 9 * * *' --name n1 --notes 'ask ops first' \
    --db "$db" >/dev/null 2>"$tmp/err"
check "cli create --notes" "$?" 0
check "cli get --json: notes" "$(notes_of n1)" "ask ops first"
"$bin" schedule get n1 --db "$db" >"$tmp/out" 2>&1
grep -q '^notes  *ask ops first$' "$tmp/out" && pass ||
    fail "cli get: notes line" "$(cat "$tmp/out")"
"$bin" schedule update n1 --notes 'moved to 9:30' --db "$db" >/dev/null 2>&1
check "cli update --notes" "$(notes_of n1)" "moved to 9:30"
"$bin" schedule update n1 --cron '30 9 * * *' --db "$db" >/dev/null 2>&1
check "cli update keeps notes" "$(notes_of n1)" "moved to 9:30"
"$bin" schedule update n1 --notes '' --db "$db" >/dev/null 2>&1
check "cli update --notes '' clears" "$(notes_of n1)" "None"
"$bin" schedule create report --help | grep -q -- '--notes S' && pass ||
    fail "cli help" "no --notes line"

i=0
for c in a é; do
    for n in 1 2 4095 4096 4097 4098 8192; do
        i=$((i + 1))
        v=$(text "$n" "$c")
        bytes=$(printf %s "$v" | wc -c)
        [ "$bytes" -gt 0 ] || continue
        before=$(count)
        "$bin" schedule create report '0 9 * * *' --name "c$i" --notes "$v" \
            --db "$db" >/dev/null 2>"$tmp/err"
        rc=$?
        if [ "$bytes" -le 4096 ]; then
            check "cli $n bytes of $c: kept" "$rc:$(notes_of "c$i")" "0:$v"
        else
            # Past 4 KiB the CLI's bound of one argument speaks first.
            [ $rc -eq 1 ] && grep -Eq 'notes: longer than 4096 bytes|argument [0-9]+ is longer than 4096 bytes' "$tmp/err" &&
                pass || fail "cli $n bytes of $c: refused" "exit $rc: $(cat "$tmp/err")"
            check "cli $n bytes of $c: nothing written" "$(count)" "$before"
        fi
    done
done

# ---- the API ----------------------------------------------------------
start_http s --db "$db" --workers 0 --workflows "$tmp/wf.yaml" ||
    { fail "server" "did not listen: $(cat "$tmp/s.log")"; exit 1; }
api() {
    code=$(curl -s -o "$tmp/body" -w '%{http_code}' -X "$1" \
        -H 'Content-Type: application/json' ${3:+--data-binary "$3"} \
        "$url_s$2")
}
key() { "$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))'"$1"')' "$tmp/body"; }

api POST /api/v1/schedules '{"name":"a1","workflow":"report","cron":"0 9 * * *","notes":"from the API"}'
check "api create: status" "$code" 201
check "api create: notes" "$(key '["notes"]')" "from the API"
api GET /api/v1/schedules/a1
check "api get: notes" "$(key '["notes"]')" "from the API"
check "cli get of an API schedule" "$(notes_of a1)" "from the API"
api PATCH /api/v1/schedules/a1 '{"notes":"patched"}'
check "api patch: notes" "$code:$(key '["notes"]')" "200:patched"
api PATCH /api/v1/schedules/a1 '{"notes":null}'
check "api patch null clears" "$code:$(key '["notes"]')" "200:None"
api PATCH /api/v1/schedules/a1 '{"notes":5}'
check "api notes of a number" "$code:$(key '["error"]["field"]')" "422:notes"
for n in 4096 4098 8192; do
    v=$(text "$n" é)
    before=$(count)
    api POST /api/v1/schedules "{\"name\":\"a$n\",\"workflow\":\"report\",\"cron\":\"0 9 * * *\",\"notes\":$(json_str "$v")}"
    if [ "$n" -le 4096 ]; then
        check "api $n bytes: kept" "$code:$(notes_of "a$n")" "201:$v"
    else
        check "api $n bytes: refused" "$code:$(key '["error"]["field"]')" "422:notes"
        check "api $n bytes: nothing written" "$(count)" "$before"
    fi
done
api GET /api/v1/openapi.json
check "openapi: notes" \
    "$(key '["components"]["schemas"]["Schedule"]["properties"]["notes"]["maxLength"]')" 4096

# ---- the workflows file -----------------------------------------------
for n in 12 4096 4097; do
    v=$(text "$n" a)
    printf 'schedules:\n  - name: y%s\n    workflow: report\n    cron: "0 9 * * *"\n    notes: "%s"\n' \
        "$n" "$v" >"$tmp/s.yaml"
    before=$(count)
    "$bin" apply "$tmp/s.yaml" --db "$db" >/dev/null 2>"$tmp/err"
    rc=$?
    if [ "$n" -le 4096 ]; then
        check "yaml $n bytes: kept" "$rc:$(notes_of "y$n")" "0:$v"
    else
        [ $rc -eq 1 ] && grep -q 's.yaml:5:[0-9]*:.*notes.*longer than 4096 bytes' "$tmp/err" &&
            pass || fail "yaml $n bytes: refused" "exit $rc: $(cat "$tmp/err")"
        check "yaml $n bytes: nothing written" "$(count)" "$before"
    fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
