#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Code schedules belong to an app (SPEC 3.5): a sync creates, updates and
# prunes only its own app's schedules. Files, servers and the API that
# share one database never delete each other's schedules, and a server
# logs what its sync changed.
#
#   test_server_apps.sh [sqlite|pg]
#
# Env: SKED_BIN; SKED_TEST_PG_URL for pg. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
mode=${1:-sqlite}
. "$here/server_lib.sh"
mode_db apps.db
cd "$tmp" || exit 1

# gen FILE PREFIX N [APP]: a workflows file of N schedules PREFIX-1..N,
# of app APP when given (else the file's name is its app).
gen() {
    {
        [ -n "${4:-}" ] && echo "app: $4"
        echo "schedules:"
        for i in $(seq 1 "$3"); do
            echo "  - {name: $2-$i, workflow: w, every: 1h}"
        done
    } >"$1"
}
names_of() {
    q "$db" "SELECT name FROM schedules WHERE app = '$1' ORDER BY name" |
        tr '\n' ' '
}
total() { q "$db" "SELECT count(*) FROM schedules"; }

# `sked apply a.yaml`: app "a", by the file's name.
# (No server registers workflow w: SPEC 3.5's warnings go to apply.err.)
gen a.yaml a 3
"$bin" apply --db "$db" a.yaml >apply.out 2>apply.err
check "apply a.yaml" "$(cat apply.out)" \
    "3 created, 0 updated, 0 unchanged, 0 deleted"
check "a.yaml's schedules belong to app a" "$(names_of a)" "a-1 a-2 a-3 "
"$bin" schedule create by-hand --db "$db" --every 1h >/dev/null 2>&1

# A server with b.yaml syncs app b only: a's and the CLI's stay.
gen b.yaml b 12
start_server s1 --db "$db" --listen 127.0.0.1:0 --workflows b.yaml \
    --workers 0
wait_log s1 'msg="http listening"' 20 || fail "s1 listens" "no line"
check "a server with b.yaml keeps a's and the CLI's schedules" "$(total)" 16
line=$(grep -m1 'msg="schedules synced"' "$tmp/s1.log")
check "the sync is logged with its counts" \
    "$(sed -E 's/.* (app=[^ ]*) (created=[0-9]+) (updated=[0-9]+) (deleted=[0-9]+).*/\1 \2 \3 \4/' <<<"$line")" \
    "app=b created=12 updated=0 deleted=0"
check "12 names are too many to list" \
    "$(grep -c 'created_names=' <<<"$line")" 0

# PUT /api/v1/schedules with prune, as app c (sked apply --server).
url=$(grep -m1 'msg="http listening"' "$tmp/s1.log" | sed -E 's/.*url=([^ ]*).*/\1/')
gen c.yaml c 2
"$bin" apply --server "$url" c.yaml --prune >apply.out 2>apply.err
check "apply --server --prune as app c" "$(cat apply.out)" \
    "2 created, 0 updated, 0 unchanged, 0 deleted"
check "PUT with prune deletes no other app's schedules" "$(total)" 18
check "a PUT without an app is app default" \
    "$(curl -s -X PUT "$url/api/v1/schedules" \
        -d '{"schedules": [], "prune": true}' |
        "$py" -c 'import json, sys; print(json.load(sys.stdin)["deleted"])')" 0
check "... and deletes nothing" "$(total)" 18
check "a PUT whose app is no name is refused (422)" \
    "$(curl -s -o /dev/null -w '%{http_code}' -X PUT "$url/api/v1/schedules" \
        -d '{"schedules": [], "prune": true, "app": "a/b"}')" 422
app_json=$("$bin" schedule get b-1 --server "$url" --json |
    "$py" -c 'import json, sys; print(json.load(sys.stdin)["app"])')
check "a schedule's JSON names its app" "$app_json" b
stop_server s1 TERM

# The server again with b.yaml shrunk to two schedules: b's others go,
# named in a warning; nothing else moves.
gen b.yaml b 2
start_server s2 --db "$db" --listen off --workflows b.yaml --workers 0
wait_log s2 'msg="server started"' 20 || fail "s2 starts" "no line"
line=$(grep -m1 'msg="schedules synced"' "$tmp/s2.log")
check "the shrinking sync is a warning with the names" \
    "$(sed -E 's/.*level=([a-z]+).* (deleted=[0-9]+).* (deleted_names=[^ ]*).*/\1 \2 \3/' <<<"$line")" \
    "warn deleted=10 deleted_names=b-10,b-11,b-12,b-3,b-4,b-5,b-6,b-7,b-8,b-9"
check "only b's schedules were deleted" "$(total)" 8
stop_server s2 TERM
check "the server stops with exit 0" "$stop_rc" 0

# A file declaring a name another app owns changes nothing, exit 4.
gen d.yaml a 1
"$bin" apply --db "$db" d.yaml >apply.out 2>&1
check "another app's name: exit 4" "$?" 4
grep -q 'belongs to app "a"' apply.out && pass ||
    fail "the conflict names the app" "$(cat apply.out)"
check "... and nothing changed" "$(total)" 8
# A file that names its app with "app:" syncs as that app.
gen e.yaml a 1 a
"$bin" apply --db "$db" e.yaml --prune >apply.out 2>apply.err
check "app: a prunes app a" "$(cat apply.out)" \
    "0 created, 0 updated, 1 unchanged, 2 deleted"
check "app a's schedules" "$(names_of a)" "a-1 "
check "the CLI's schedule is left alone" \
    "$(q "$db" "SELECT source || ':' || coalesce(app, '-') FROM schedules
                WHERE name = 'by-hand'")" "api:-"
gen f.yaml f 1 "a b"
"$bin" apply --db "$db" f.yaml >apply.out 2>&1
check "app: with a space: exit 1" "$?" 1
grep -q 'f.yaml:1:1: app: a name has only' apply.out && pass ||
    fail "the error names the key" "$(cat apply.out)"

printf '%d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
