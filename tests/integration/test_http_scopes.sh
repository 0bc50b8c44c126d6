#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Named tokens with scopes, on a real server configured with three of them
# (read, operate, admin: a secret, a secret_file and a sha256) beside the
# --token-file one ("default", admin):
#  - each route answers by the scope it needs: reads for all, operations
#    (pause, resume, trigger, ping, cancel, start) for operate and admin,
#    changes (create, update, delete, notifiers) for admin; a refusal is
#    403 {"code":"forbidden","field":"scope"} naming the token and the
#    scope needed, and changes nothing;
#  - MCP over HTTP: a read token lists but cannot pause or create (the
#    tool's error says why), an operate token pauses; a session opened by
#    one token is not found with another;
#  - the CLI's remote mode with a read token: exit 1, the scope named;
#  - SIGHUP with the file's tokens changed: a removed token is refused at
#    once, a new one works, the default one stays;
#  - bad tokens in the file (unknown scope, two of one name, one named
#    "default", short secret, bad sha256, two secret forms or none, no
#    scope, no name, an unreadable secret_file, an unknown key): the
#    server does not start, FILE:LINE:COL names the token's key.
#
# Env: SKED_BIN. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/server_lib.sh"

read_secret=read-only-secret-0001
ops_secret=operate-secret-000001
admin_secret=admin-secret-00000001
default_secret=the-default-token-0001
new_secret=a-brand-new-secret-01
printf '%s\n' "$ops_secret" >"$tmp/ops.secret"
printf '%s\n' "$default_secret" >"$tmp/default.token"
admin_sha=$(printf '%s' "$admin_secret" | sha256sum | cut -c1-64)
cfg=$tmp/sked.yaml
write_cfg() {
    cat >"$cfg" <<EOF
workers: 0
tokens:
  - name: viewer
    secret: $read_secret
    scope: read
  - name: ops
    secret_file: $tmp/ops.secret
    scope: operate
  - {name: boss, sha256: $admin_sha, scope: admin}
$1
EOF
}
write_cfg ""
db=sqlite:$tmp/s.db
start_http a --config "$cfg" --db "$db" --token-file "$tmp/default.token" ||
    fail start "no http: $(tail -n 5 "$tmp/a.log")"
u=$url_a

# req SECRET METHOD PATH [BODY]: print "STATUS BODY".
req() {
    local out
    out=$(curl -s -w '\n%{http_code}' -X "$2" -H "Authorization: Bearer $1" \
        -H 'Content-Type: application/json' ${4:+--data "$4"} "$u$3")
    printf '%s %s' "${out##*$'\n'}" "${out%$'\n'*}"
}
code() {
    curl -s -o /dev/null -w '%{http_code}' -X "$2" -H "Authorization: Bearer $1" \
        -H 'Content-Type: application/json' ${4:+--data "$4"} "$u$3"
}

sched='{"name":"nightly","workflow":"w","cron":"0 3 * * *"}'
check "default (admin) creates" "$(code "$default_secret" POST /api/v1/schedules "$sched")" 201
hb='{"name":"hb","cron":"* * * * *","heartbeat":true,"deadline_secs":3600}'
check "admin creates a heartbeat" "$(code "$admin_secret" POST /api/v1/schedules "$hb")" 201

# ---- reads: every scope ------------------------------------------------------
for s in "$read_secret" "$ops_secret" "$admin_secret"; do
    check "GET schedules ($s)" "$(code "$s" GET /api/v1/schedules)" 200
    check "GET metrics ($s)" "$(code "$s" GET /metrics)" 200
    check "POST simulate reads ($s)" "$(code "$s" POST /api/v1/schedules/nightly/simulate \
        '{"from":"2026-12-01T00:00:00Z","to":"2026-12-02T00:00:00Z"}')" 200
done

# ---- operations: operate and admin ------------------------------------------------
out=$(req "$read_secret" POST /api/v1/schedules/nightly/pause)
check "read cannot pause" "${out%% *}" 403
case $out in
*'"code":"forbidden"'*'the token viewer has the scope read: POST /api/v1/schedules/nightly/pause needs operate'*'"field":"scope"'*) pass ;;
*) fail "the refusal names token and scope" "$out" ;;
esac
check "still active after the refusal" \
    "$(q "$db" "SELECT status FROM schedules WHERE name = 'nightly'")" active
check "operate pauses" "$(code "$ops_secret" POST /api/v1/schedules/nightly/pause)" 200
check "operate resumes" "$(code "$ops_secret" POST /api/v1/schedules/nightly/resume)" 200
check "operate pings" "$(code "$ops_secret" POST "/api/v1/schedules/hb/ping?status=start")" \
    "$(code "$admin_secret" POST "/api/v1/schedules/hb/ping?status=start")"
check "read cannot ping" "$(code "$read_secret" POST "/api/v1/schedules/hb/ping")" 403
check "read cannot trigger" "$(code "$read_secret" POST /api/v1/schedules/nightly/trigger)" 403
check "read cannot start a run" "$(code "$read_secret" POST /api/v1/workflows/w/runs '{}')" 403
check "operate triggers" "$(code "$ops_secret" POST /api/v1/schedules/nightly/trigger)" 201

# ---- changes: admin only ------------------------------------------------------------
s2='{"name":"other","workflow":"w","cron":"0 4 * * *"}'
out=$(req "$ops_secret" POST /api/v1/schedules "$s2")
check "operate cannot create" "${out%% *}" 403
case $out in *"needs admin"*) pass ;; *) fail "create needs admin" "$out" ;; esac
check "nothing created" "$(q "$db" "SELECT count(*) FROM schedules WHERE name = 'other'")" 0
check "operate cannot delete" "$(code "$ops_secret" DELETE /api/v1/schedules/nightly)" 403
check "operate cannot update" "$(code "$ops_secret" PATCH /api/v1/schedules/nightly '{"cron":"0 5 * * *"}')" 403
check "read cannot write a notifier" "$(code "$read_secret" PUT /api/v1/notifiers/n \
    '{"command":{"argv":["true"]},"events":["run.failed"]}')" 403
check "admin updates" "$(code "$admin_secret" PATCH /api/v1/schedules/nightly '{"cron":"0 5 * * *"}')" 200
check "wrong secret: 401" "$(code "not-a-token-at-all-00" GET /api/v1/schedules)" 401

# ---- MCP over HTTP --------------------------------------------------------------------
mcp() { # SECRET SESSION BODY: print the session id header and the body
    curl -s -D "$tmp/h" -X POST -H "Authorization: Bearer $1" \
        -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' \
        ${2:+-H "Mcp-Session-Id: $2"} --data "$3" "$u/mcp"
}
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
session() { # SECRET: a ready session's id
    local sid
    mcp "$1" "" "$init" >/dev/null
    sid=$(grep -i '^Mcp-Session-Id:' "$tmp/h" | tr -d '\r' | cut -d' ' -f2)
    mcp "$1" "$sid" '{"jsonrpc":"2.0","method":"notifications/initialized"}' >/dev/null
    printf '%s' "$sid"
}
call() { # SECRET SESSION TOOL ARGS
    mcp "$1" "$2" "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"$3\",\"arguments\":$4}}"
}
rs=$(session "$read_secret")
check "an MCP session for the read token" "${#rs}" 32
out=$(call "$read_secret" "$rs" list_schedules '{}')
case $out in *nightly*) pass ;; *) fail "read lists over MCP" "$out" ;; esac
out=$(call "$read_secret" "$rs" pause_schedule '{"name":"nightly"}')
case $out in *"needs operate"*'"isError":true'*) pass ;; *) fail "read cannot pause over MCP" "$out" ;; esac
out=$(call "$read_secret" "$rs" create_schedule "$s2")
case $out in *"needs admin"*'"isError":true'*) pass ;; *) fail "read cannot create over MCP" "$out" ;; esac
check "still active after the MCP refusal" \
    "$(q "$db" "SELECT status FROM schedules WHERE name = 'nightly'")" active
os=$(session "$ops_secret")
out=$(call "$ops_secret" "$os" pause_schedule '{"name":"nightly"}')
case $out in *'"isError":true'*) fail "operate pauses over MCP" "$out" ;; *paused*) pass ;; *) fail "operate pauses over MCP" "$out" ;; esac
check "paused by MCP" "$(q "$db" "SELECT status FROM schedules WHERE name = 'nightly'")" paused
out=$(call "$admin_secret" "$rs" list_schedules '{}')
case $out in *"Session not found"*) pass ;; *) fail "another token's session is not found" "$out" ;; esac

# ---- the CLI, remote mode ---------------------------------------------------------------
out=$(SKED_TOKEN=$read_secret "$bin" schedule resume nightly --server "$u" 2>&1)
check "CLI with a read token: exit 1" "$?" 1
case $out in *"needs operate"*) pass ;; *) fail "the CLI names the scope" "$out" ;; esac
SKED_TOKEN=$ops_secret "$bin" schedule resume nightly --server "$u" >/dev/null 2>&1
check "CLI with an operate token resumes" "$?" 0

# ---- SIGHUP: tokens change live -------------------------------------------------------------
cat >"$cfg" <<EOF
workers: 0
tokens:
  - name: viewer
    secret: $read_secret
    scope: read
  - name: newcomer
    secret: $new_secret
    scope: operate
EOF
kill -HUP "$pid_a"
wait_log a 'msg="tokens changed" tokens=3' 10 || fail "tokens changed" "$(tail -n 3 "$tmp/a.log")"
check "a removed token is refused" "$(code "$ops_secret" GET /api/v1/schedules)" 401
check "a new token works" "$(code "$new_secret" POST /api/v1/schedules/nightly/pause)" 200
check "the default token stays" "$(code "$default_secret" GET /api/v1/schedules)" 200
stop_server a TERM

# ---- bad tokens in the file -------------------------------------------------------------------
printf 'short\n' >"$tmp/short.secret"
# refuse NAME TOKENS WANT [RC]: the server exits RC (default 2) with WANT.
refuse() {
    local out rc
    printf 'tokens:\n%s' "$2" >"$tmp/bad.yaml"
    out=$(timeout 10 "$bin" server --config "$tmp/bad.yaml" --db "sqlite:$tmp/never.db" \
        --token-file "$tmp/default.token" --listen 127.0.0.1:0 2>&1)
    rc=$?
    check "$1: exit" "$rc" "${4:-2}"
    case $out in "sked: "*"$3"*) pass ;; *) fail "$1: message" "got '$out', want '$3'" ;; esac
}
refuse "unknown scope" $'  - {name: a, secret: abcdefghijklmnop, scope: root}\n' \
    'bad.yaml:2:41: tokens[0].scope: expected read, operate or admin'
refuse "two of one name" $'  - {name: a, secret: abcdefghijklmnop, scope: read}\n  - {name: a, secret: bcdefghijklmnopq, scope: read}\n' \
    'bad.yaml:3:6: tokens[1].name: two tokens are named a'
refuse "named default" $'  - {name: default, secret: abcdefghijklmnop, scope: read}\n' \
    'tokens[0].name: two tokens are named default (the token of --token-file or SKED_TOKEN is)'
refuse "short secret" $'  - {name: a, secret: short, scope: read}\n' \
    'tokens[0].secret: the token must hold 16 to 4096 characters' 1
refuse "short secret_file" "  - {name: a, secret_file: $tmp/short.secret, scope: read}"$'\n' \
    'tokens[0].secret_file: the token must hold 16 to 4096 characters' 1
refuse "missing secret_file" "  - {name: a, secret_file: $tmp/none, scope: read}"$'\n' \
    "tokens[0].secret_file: cannot read $tmp/none: No such file or directory" 1
refuse "bad sha256" $'  - {name: a, sha256: abc, scope: read}\n' \
    'tokens[0].sha256: expected 64 hexadecimal digits, the SHA-256 of the token'
refuse "two secret forms" $'  - {name: a, secret: abcdefghijklmnop, sha256: abc, scope: read}\n' \
    'bad.yaml:2:6: tokens[0]: give one of secret, secret_file or sha256'
refuse "no secret" $'  - {name: a, scope: read}\n' 'tokens[0]: give one of secret, secret_file or sha256'
refuse "no scope" $'  - {name: a, secret: abcdefghijklmnop}\n' 'tokens[0]: missing key "scope"'
refuse "no name" $'  - {secret: abcdefghijklmnop, scope: read}\n' 'tokens[0]: missing key "name"'
refuse "bad name" $'  - {name: "a b", secret: abcdefghijklmnop, scope: read}\n' \
    "tokens[0].name: a token's name has 1 to 64 letters"
refuse "unknown key" $'  - {name: a, secret: abcdefghijklmnop, scope: read, role: x}\n' \
    'bad.yaml:2:54: tokens[0].role: unknown key'
refuse "not a list" $'  name: a\n' 'tokens: expected a list, found a mapping'
check "no database made by a refused file" "$([ -e "$tmp/never.db" ] && echo made || echo none)" none

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
