#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The HTTP server itself, over real loopback HTTP (SPEC 6, docs/api.md):
# what every route shares, whatever its module.
#
# 1. Health: /healthz and /readyz answer 200; the dashboard's page and
#    files are served with their types.
# 2. Routing: an unknown route is 404 and a known route with another
#    method 405 with Allow, both with the error body of SPEC 6; every
#    route of the OpenAPI document answers (no 404 "no route", no 405).
# 3. Bodies over 1 MiB are refused with 413, declared or chunked; a huge
#    header block is refused; a body cut short by a client that hangs up
#    creates nothing; the server keeps serving.
# 4. Path traversal on the dashboard's files never reaches the disk.
# 5. Auth: with a token, the API and the metrics need it (401 with the
#    error body and WWW-Authenticate); health checks and the dashboard's
#    files do not; a token of the right length that differs in any one
#    byte is refused; a short token is refused at start, and so is listening
#    beyond loopback without a token.
# 6. Slow and half-open clients: 300 connections sending half a request
#    do not stop a normal request from being answered; SIGTERM still
#    stops the server within 5 s.
#
# Env: SKED_BIN. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/server_lib.sh"
db=sqlite:$tmp/http.db

# req METHOD URL [CURL ARGS...]: print "STATUS BODY".
req() {
    local m=$1 u=$2
    shift 2
    curl -s --path-as-is -o "$tmp/body" -w '%{http_code}' -X "$m" "$@" "$u"
    printf ' %s' "$(cat "$tmp/body")"
}

# error_code "STATUS BODY": print "STATUS CODE" from an error body.
error_code() {
    local status=${1%% *}
    printf '%s %s' "$status" "$(printf '%s' "${1#* }" |
        $py -c 'import json,sys; print(json.load(sys.stdin)["error"]["code"])' \
            2>/dev/null)"
}

start_http s --db "$db" --workers 0 || {
    cat "$tmp/s.log"
    echo "0 passed, 1 failed"
    exit 1
}
u=$url_s

# ---- 1. health and the dashboard ------------------------------------------
check healthz "$(req GET "$u/healthz")" '200 {"status":"ok"}'
check readyz "$(req GET "$u/readyz")" '200 {"status":"ready"}'
check dash.index "$(curl -s -o /dev/null -w '%{http_code} %{content_type}' "$u/")" \
    "200 text/html; charset=utf-8"
check dash.js "$(curl -s -o /dev/null -w '%{http_code} %{content_type}' \
    "$u/dashboard/sked.js")" "200 text/javascript; charset=utf-8"
grep -q '<title>sked</title>' <(curl -s "$u/") && pass ||
    fail dash.page "the page is not the dashboard"
# The page is never cached and names its files under their content hash,
# which are cached for good; every one forbids inline script and other
# origins.
hdr() { curl -s -D - -o /dev/null "$1" | tr -d '\r' | sed -n "s/^$2: //Ip"; }
check dash.index.cache "$(hdr "$u/" Cache-Control)" "no-cache"
csp=$(hdr "$u/" Content-Security-Policy)
case $csp in
*"default-src 'self'"*"script-src 'self'"*) pass ;;
*) fail dash.csp "Content-Security-Policy: $csp" ;;
esac
case $csp in
*unsafe-inline* | *unsafe-eval* | *http:* | *https:* | *\**) fail dash.csp.strict "$csp" ;;
*) pass ;;
esac
asset=$(curl -s "$u/" | grep -o '/dashboard/[0-9a-f]\{16\}/sked\.js' | head -1)
[ -n "$asset" ] && pass || fail dash.hashed "the page names no hashed sked.js"
check dash.hashed.cache "$(hdr "$u$asset" Cache-Control)" \
    "public, max-age=31536000, immutable"
check dash.hashed.type "$(hdr "$u$asset" Content-Type)" \
    "text/javascript; charset=utf-8"
check dash.css.type "$(hdr "$u${asset%sked.js}sked.css" Content-Type)" \
    "text/css; charset=utf-8"
check dash.stale.cache "$(hdr "$u/dashboard/0000000000000000/sked.js" \
    Cache-Control)" "no-cache"
check dash.bare.cache "$(hdr "$u/dashboard/sked.js" Cache-Control)" "no-cache"
check dash.api.cache "$(hdr "$u/healthz" Cache-Control)" "no-store"

# ---- 2. routing -------------------------------------------------------------
check route.404 "$(error_code "$(req GET "$u/api/v1/nothing")")" "404 not_found"
check route.slash "$(error_code "$(req GET "$u/healthz/")")" "404 not_found"
check route.405 "$(error_code "$(req DELETE "$u/healthz")")" \
    "405 method_not_allowed"
allow=$(curl -s -D - -o /dev/null -X DELETE "$u/readyz" |
    tr -d '\r' | sed -n 's/^Allow: //p')
check route.allow "$allow" "GET"
check route.head "$(curl -s -I -o /dev/null -w '%{http_code}' "$u/healthz")" 200

# Every route of the OpenAPI document answers: its path parameters get a
# name no schedule or run has, so "not found" is fine, "no route" is not.
curl -s "$u/api/v1/openapi.json" >"$tmp/openapi.json"
check openapi.version "$($py -c 'import json,sys; print(json.load(open(sys.argv[1]))["openapi"])' \
    "$tmp/openapi.json")" "3.1.0"
$py - "$tmp/openapi.json" >"$tmp/routes" <<'PY'
import json, re, sys
doc = json.load(open(sys.argv[1]))
for path, item in doc["paths"].items():
    for method in item:
        print(method.upper(), re.sub(r"\{[^}]+\}", "no-such-thing", path))
PY
check_ge openapi.routes "$(wc -l <"$tmp/routes")" 5
while read -r m p; do
    if [ "$m" = GET ]; then
        got=$(req GET "$u$p" --max-time 5)
    else
        got=$(req "$m" "$u$p" --max-time 5 --data-binary '{}' \
            -H 'Content-Type: application/json')
    fi
    status=${got%% *}
    case $status:$got in
    405:* | *'"no route'* | 000:*) fail "openapi.answers" "$m $p: $got" ;;
    *) pass ;;
    esac
done <"$tmp/routes"

# ---- 3. limits --------------------------------------------------------------
head -c 1100000 /dev/zero | tr '\0' 'x' >"$tmp/big"
check body.413 "$(error_code "$(req POST "$u/api/v1/schedules" \
    --data-binary @"$tmp/big")")" "413 too_large"
check body.413.chunked "$(error_code "$(req POST "$u/api/v1/schedules" \
    -H 'Transfer-Encoding: chunked' --data-binary @"$tmp/big")")" \
    "413 too_large"
huge=$(head -c 70000 /dev/zero | tr '\0' 'h')
status=$(curl -s -o /dev/null -w '%{http_code}' -H "X-Huge: $huge" "$u/healthz")
case $status in 4??) pass ;; *) fail header.huge "got $status, want 4xx" ;; esac
check body.after "$(req GET "$u/healthz")" '200 {"status":"ok"}'

# A body cut short: the client promises 200 bytes, sends the start of a
# valid schedule, and hangs up. Nothing is created; the server goes on.
$py - "${u#http://}" <<'PY'
import socket, sys
host, port = sys.argv[1].rsplit(":", 1)
s = socket.create_connection((host, int(port)))
s.sendall(b"POST /api/v1/schedules HTTP/1.1\r\nHost: x\r\n"
          b"Content-Type: application/json\r\nContent-Length: 200\r\n\r\n"
          b'{"name":"cut","workflow":"w","cron":"0 9 * * *"}')
s.close()
PY
check body.cut "$(error_code "$(req GET "$u/api/v1/schedules/cut")")" \
    "404 not_found"
# The same JSON cut short but declared at its length: 400, nothing made.
check body.truncated "$(error_code "$(req POST "$u/api/v1/schedules" \
    --data-binary '{"name":"cut","workflow":"w","cron":"0 9')")" \
    "400 bad_request"
check body.truncated.none "$(error_code "$(req GET "$u/api/v1/schedules/cut")")" \
    "404 not_found"

# ---- 4. path traversal ------------------------------------------------------
for p in /dashboard/../../../../etc/passwd /dashboard/..%2f..%2fetc%2fpasswd \
    /dashboard/%2e%2e%2f%2e%2e%2fetc%2fpasswd /dashboard/....//etc/passwd \
    /dashboard/%2fetc%2fpasswd /dashboard/index.html%00.js /../etc/passwd; do
    got=$(req GET "$u$p")
    case $got in
    *root:*) fail "traversal $p" "served a file of the disk" ;;
    404\ *'"error"'* | 400\ *) pass ;;
    *) fail "traversal $p" "$got" ;;
    esac
done

# ---- 6. slow and half-open clients ----------------------------------------
$py - "${u#http://}" "$tmp/slow.ready" <<'PY' &
import socket, sys, time
host, port = sys.argv[1].rsplit(":", 1)
socks = []
for _ in range(300):
    s = socket.create_connection((host, int(port)))
    s.sendall(b"POST /api/v1/schedules HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
    socks.append(s)
open(sys.argv[2], "w").close()
time.sleep(20)
PY
slow=$!
for _ in $(seq 100); do [ -e "$tmp/slow.ready" ] && break; sleep 0.1; done
check slow.served "$(req GET "$u/healthz" --max-time 10)" '200 {"status":"ok"}'
check slow.readyz "$(req GET "$u/readyz" --max-time 10)" '200 {"status":"ready"}'
stop_server s TERM
check slow.stop.rc "$stop_rc" 0
check_le slow.stop.ms "$stop_ms" 5000
kill "$slow" 2>/dev/null
wait "$slow" 2>/dev/null

# ---- 5. auth ----------------------------------------------------------------
token=0123456789abcdef-secret
printf '%s\n' "$token" >"$tmp/token"
start_http a --db "$db" --workers 0 --token-file "$tmp/token" || fail auth.start "$(cat "$tmp/a.log")"
u=$url_a
check auth.none "$(error_code "$(req GET "$u/api/v1/openapi.json")")" \
    "401 unauthorized"
check auth.wrong "$(error_code "$(req GET "$u/api/v1/openapi.json" \
    -H "Authorization: Bearer ${token}x")")" "401 unauthorized"
check auth.prefix "$(error_code "$(req GET "$u/api/v1/openapi.json" \
    -H "Authorization: Bearer ${token%?}")")" "401 unauthorized"
# Same length, one byte off: first, every middle position, last. A
# comparison that stops early or skips a byte lets one of these in.
for at in $(seq 0 $((${#token} - 1))); do
    c=${token:at:1}
    [ "$c" = x ] && r=y || r=x
    check "auth.same_length.$at" "$(error_code "$(req GET "$u/api/v1/openapi.json" \
        -H "Authorization: Bearer ${token:0:at}$r${token:at+1}")")" \
        "401 unauthorized"
done
check auth.basic "$(error_code "$(req GET "$u/metrics" \
    -u "user:$token")")" "401 unauthorized"
www=$(curl -s -D - -o /dev/null "$u/api/v1/openapi.json" | tr -d '\r' |
    sed -n 's/^WWW-Authenticate: //p')
check auth.www "$www" "Bearer"
check auth.right "$(curl -s -o /dev/null -w '%{http_code}' \
    -H "Authorization: Bearer $token" "$u/api/v1/openapi.json")" 200
check auth.healthz "$(req GET "$u/healthz")" '200 {"status":"ok"}'
check auth.dashboard "$(curl -s -o /dev/null -w '%{http_code}' "$u/")" 200
stop_server a TERM

printf 'short\n' >"$tmp/short"
"$bin" server --db "$db" --listen 127.0.0.1:0 --token-file "$tmp/short" \
    >/dev/null 2>"$tmp/e.short"
check auth.short.rc "$?" 1
grep -q 'the token must hold 16' "$tmp/e.short" && pass ||
    fail auth.short.msg "$(cat "$tmp/e.short")"
"$bin" server --db "$db" --listen 0.0.0.0:0 --workers 0 >/dev/null 2>"$tmp/e.open"
check open.rc "$?" 1
grep -q 'field=listen' "$tmp/e.open" && grep -q 'token' "$tmp/e.open" && pass ||
    fail open.msg "$(cat "$tmp/e.open")"
SKED_TOKEN=$token start_http o --db "$db" --workers 0 --listen 0.0.0.0:0 ||
    fail open.token "$(cat "$tmp/o.log")"
grep -q 'auth=token' "$tmp/o.log" && pass || fail open.auth "$(cat "$tmp/o.log")"
stop_server o TERM
"$bin" server --db "$db" --listen 127.0.0.1:99999 >/dev/null 2>"$tmp/e.port"
check port.rc "$?" 1

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
