#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# /mcp, the Streamable HTTP transport of MCP, through a real "sked server"
# on loopback, with curl:
#
#   test_mcp_http.sh
#
# 1. initialize opens a session: 200, its answer, an Mcp-Session-Id of
#    32 hex digits; notifications/initialized is 202 with no body;
#    tools/list and ping answer in the session.
# 2. Refusals, each a JSON-RPC error with id null: no Mcp-Session-Id
#    400, an unknown one 404, no or a wrong token 401 (WWW-Authenticate:
#    Bearer), an Accept without text/event-stream 406, an unsupported or
#    another MCP-Protocol-Version 400, PUT 405, a 2 MiB body 413, malformed
#    JSON -32700 (and the session still answers).
# 3. Origin: a foreign one 403; loopback ones and the one of
#    --mcp-allow-origin pass; none (curl) passes; a malformed
#    --mcp-allow-origin stops the server at start, naming the option. A
#    page of an allowed origin reads the answers (CORS: a preflight with
#    no token, Access-Control-Allow-Origin, Mcp-Session-Id exposed).
# 4. GET /mcp streams the session's notifications: a second stream is
#    409; after resources/subscribe on a schedule, pausing it brings
#    notifications/resources/updated for its URI on the stream.
#    A client that closes its stream may open another at once. With no
#    stream open, a session keeps its last 256 notifications; its stream
#    then says how many older ones were dropped.
# 5. DELETE ends the session (204): its stream ends, its id is 404 from
#    then on.
# 6. At most 256 sessions: the next initialize is 503; ending one makes
#    room. Stopping the server ends an open stream at once. A session
#    unused for --mcp-session-idle ends (404); one in use, or with its
#    stream open, stays.
# 7. The OpenAPI document lists /mcp.
# 8. Requests run beside the server's threads: with a long tool call in
#    flight (a replay of about a million decisions), a ping on each of
#    other kept-alive connections is answered at once, long before it;
#    its notifications/cancelled is 202 at once, and its POST then ends
#    202 with no body (no result is owed); DELETE of its session is 204
#    at once, and its POST ends at once, 404 with a JSON-RPC error of its
#    id; a ninth request in flight in a session is 503 with its id; the
#    stop (SIGTERM) with a call in flight exits 0 at once.
#
# Env: SKED_BIN. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/server_lib.sh"

db=sqlite:$tmp/mcp.db
token=0123456789abcdef-mcp-secret
printf '%s\n' "$token" >"$tmp/token"
start_http a --db "$db" --workers 0 --token-file "$tmp/token" \
    --mcp-allow-origin https://app.example:8443 ||
    fail start "$(cat "$tmp/a.log")"
url=$url_a/mcp
auth=(-H "Authorization: Bearer $token")
accept=(-H 'Accept: application/json, text/event-stream')

# post BODY [CURL ARGS...]: POST BODY (JSON, or @FILE) to /mcp with the
# curl arguments (headers); sets code, body (also in $tmp/body) and the
# answer's headers ($tmp/hdr).
post() {
    local data=$1
    shift
    code=$(curl -s -o "$tmp/body" -D "$tmp/hdr" -w '%{http_code}' \
        -H 'Content-Type: application/json' "$@" --data-binary "$data" "$url")
    body=$(cat "$tmp/body")
}

# spost BODY [CURL ARGS...]: post in the session $sid, with its version.
spost() {
    post "$@" "${auth[@]}" "${accept[@]}" -H "Mcp-Session-Id: $sid" \
        -H 'MCP-Protocol-Version: 2025-06-18'
}

# jq_py EXPR: evaluate the Python expression EXPR on j, the JSON of $body.
jq_py() {
    "$py" -c "import json,sys; j=json.loads(sys.argv[1]); print($1)" \
        "$body" 2>/dev/null
}

# rpc_refusal NAME STATUS: the answer is STATUS with a JSON-RPC error
# object whose id is null.
rpc_refusal() {
    check "$1.status" "$code" "$2"
    check "$1.body" "$(jq_py 'j["jsonrpc"], j["id"], type(j["error"]["code"]).__name__, bool(j["error"]["message"])')" \
        "2.0 None int True"
}

header() { tr -d '\r' <"$tmp/hdr" | sed -n "s/^$1: //Ip" | head -n 1; }

init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{
  "protocolVersion":"2025-06-18","capabilities":{},
  "clientInfo":{"name":"curl","version":"1"}}}'

# ---- 1. a session --------------------------------------------------------
post "$init" "${auth[@]}" "${accept[@]}"
check init.status "$code" 200
sid=$(header Mcp-Session-Id)
[[ $sid =~ ^[0-9a-f]{32}$ ]] && pass || fail init.sid "'$sid'"
check init.type "$(header Content-Type)" application/json
check init.result "$(jq_py 'j["id"], j["result"]["protocolVersion"]')" \
    "1 2025-06-18"
spost '{"jsonrpc":"2.0","method":"notifications/initialized"}'
check initialized.status "$code" 202
check initialized.body "$body" ""
spost '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
check tools.status "$code" 200
check tools.list "$(jq_py 'j["id"], type(j["result"]["tools"]).__name__')" \
    "2 list"
# No MCP-Protocol-Version: 2025-03-26 is assumed, and the session answers.
post '{"jsonrpc":"2.0","id":3,"method":"ping"}' "${auth[@]}" "${accept[@]}" \
    -H "Mcp-Session-Id: $sid"
check ping.noversion "$code $(jq_py 'j["id"], j["result"]')" "200 3 {}"

# ---- 2. refusals ---------------------------------------------------------
post '{"jsonrpc":"2.0","id":4,"method":"tools/list"}' "${auth[@]}" "${accept[@]}"
rpc_refusal nosession 400
post '{"jsonrpc":"2.0","id":4,"method":"tools/list"}' "${auth[@]}" \
    "${accept[@]}" -H "Mcp-Session-Id: 0123456789abcdef0123456789abcdef"
rpc_refusal unknown 404
check unknown.code "$(jq_py 'j["error"]["code"]')" -32001
post '{"jsonrpc":"2.0","id":5,"method":"ping"}' "${accept[@]}" \
    -H "Mcp-Session-Id: $sid" -H "Authorization: Bearer ${token}x"
rpc_refusal badtoken 401
check badtoken.www "$(header WWW-Authenticate)" Bearer
post "$init" "${accept[@]}"
rpc_refusal notoken 401
post '{"jsonrpc":"2.0","id":6,"method":"ping"}' "${auth[@]}" \
    -H 'Accept: application/json' -H "Mcp-Session-Id: $sid"
rpc_refusal accept 406
post '{"jsonrpc":"2.0","id":7,"method":"ping"}' "${auth[@]}" "${accept[@]}" \
    -H "Mcp-Session-Id: $sid" -H 'MCP-Protocol-Version: 1999-01-01'
rpc_refusal version.unsupported 400
post '{"jsonrpc":"2.0","id":8,"method":"ping"}' "${auth[@]}" "${accept[@]}" \
    -H "Mcp-Session-Id: $sid" -H 'MCP-Protocol-Version: 2025-03-26'
rpc_refusal version.other 400
code=$(curl -s -o "$tmp/body" -D "$tmp/hdr" -w '%{http_code}' -X PUT \
    "${auth[@]}" "$url")
body=$(cat "$tmp/body")
rpc_refusal put 405
check put.allow "$(header Allow)" "POST, GET, DELETE, OPTIONS"
head -c $((2 * 1024 * 1024)) /dev/zero | tr '\0' ' ' >"$tmp/big"
post "@$tmp/big" "${auth[@]}" "${accept[@]}" -H "Mcp-Session-Id: $sid"
rpc_refusal big 413
spost '{"jsonrpc":"2.0","id":9,"method":'
rpc_refusal malformed 400
check malformed.code "$(jq_py 'j["error"]["code"]')" -32700
printf '{"jsonrpc":"2.0","id":9,"method":"p\xff\xfeing"}' >"$tmp/latin"
spost "@$tmp/latin"
rpc_refusal not_utf8 400
check not_utf8.code "$(jq_py 'j["error"]["code"]')" -32700
spost '{"jsonrpc":"2.0","id":10,"method":"ping"}'
check after_malformed "$code $(jq_py 'j["id"]')" "200 10"

# ---- 3. Origin -------------------------------------------------------------
for o in https://evil.example http://localhost.evil.example \
    https://app.example:9999 http://app.example:8443 null; do
    spost '{"jsonrpc":"2.0","id":11,"method":"ping"}' -H "Origin: $o"
    rpc_refusal "origin[$o]" 403
done
for o in http://localhost:3000 http://127.0.0.1 'http://[::1]:8080' \
    https://app.example:8443 HTTPS://APP.EXAMPLE:8443; do
    spost '{"jsonrpc":"2.0","id":12,"method":"ping"}' -H "Origin: $o"
    check "origin[$o]" "$code $(jq_py 'j["id"]')" "200 12"
done
# A page of an allowed origin may read the answers (CORS): its preflight
# needs no token, and names the headers of MCP; a foreign one gets none.
app=https://app.example:8443
code=$(curl -s -o /dev/null -D "$tmp/hdr" -w '%{http_code}' -X OPTIONS \
    -H "Origin: $app" -H 'Access-Control-Request-Method: POST' "$url")
check cors.preflight "$code $(header Access-Control-Allow-Origin)" "204 $app"
header Access-Control-Allow-Headers | grep -q 'Mcp-Session-Id' && pass ||
    fail cors.preflight.headers "$(cat "$tmp/hdr")"
code=$(curl -s -o /dev/null -D "$tmp/hdr" -w '%{http_code}' -X OPTIONS \
    -H 'Origin: https://evil.example' "$url")
check cors.foreign "$code [$(header Access-Control-Allow-Origin)]" "403 []"
spost '{"jsonrpc":"2.0","id":12,"method":"ping"}' -H "Origin: $app"
check cors.answer "$(header Access-Control-Allow-Origin)" "$app"
header Access-Control-Expose-Headers | grep -q 'Mcp-Session-Id' && pass ||
    fail cors.expose "$(cat "$tmp/hdr")"
post '{"jsonrpc":"2.0","id":12,"method":"ping"}' "${accept[@]}" \
    -H "Origin: $app" -H "Mcp-Session-Id: $sid"
check cors.401 "$code $(header Access-Control-Allow-Origin)" "401 $app"
"$bin" server --db "$db" --workers 0 --listen 127.0.0.1:0 \
    --mcp-allow-origin app.example >/dev/null 2>"$tmp/e.origin"
check origin.option.rc "$?" 1
grep -q 'mcp-allow-origin' "$tmp/e.origin" && pass ||
    fail origin.option.msg "$(cat "$tmp/e.origin")"
"$bin" server --help | grep -q -- '--mcp-allow-origin ORIGIN' && pass ||
    fail origin.help "no --mcp-allow-origin in sked server --help"

# ---- 4. the stream of notifications --------------------------------------
curl -s "${auth[@]}" -H 'Content-Type: application/json' \
    -d '{"name":"nightly","workflow":"hello","cron":"30 2 * * *"}' \
    "$url_a/api/v1/schedules" -o /dev/null
curl -sN "${auth[@]}" -H 'Accept: text/event-stream' \
    -H "Mcp-Session-Id: $sid" "$url" >"$tmp/stream" 2>/dev/null &
stream_pid=$!
deadline=$((SECONDS + 10))
until grep -q 'keep-alive' "$tmp/stream" || [ $SECONDS -ge $deadline ]; do
    sleep 0.1
done
grep -q 'keep-alive' "$tmp/stream" && pass || fail stream.open "nothing"
code=$(curl -s -o "$tmp/body" -w '%{http_code}' "${auth[@]}" \
    -H 'Accept: text/event-stream' -H "Mcp-Session-Id: $sid" "$url")
body=$(cat "$tmp/body")
rpc_refusal stream.second 409
code=$(curl -s -o "$tmp/body" -w '%{http_code}' "${auth[@]}" \
    -H 'Accept: application/json' -H "Mcp-Session-Id: $sid" "$url")
body=$(cat "$tmp/body")
rpc_refusal stream.accept 406
spost '{"jsonrpc":"2.0","id":13,"method":"resources/subscribe",
        "params":{"uri":"sked://schedules/nightly"}}'
check subscribe "$code $(jq_py 'j["id"], "error" in j')" "200 13 False"
curl -s -o /dev/null "${auth[@]}" -X POST \
    "$url_a/api/v1/schedules/nightly/pause"
# NEEDS THE SESSION'S EVENT POLLER (src/mcp/session_poll.c): the update
# comes from the event log, once the pause is written.
deadline=$((SECONDS + 10))
until grep -q 'notifications/resources/updated' "$tmp/stream" ||
    [ $SECONDS -ge $deadline ]; do
    sleep 0.1
done
got=$("$py" - "$tmp/stream" <<'PY'
import json, sys
for block in open(sys.argv[1]).read().split("\n\n"):
    lines = block.split("\n")
    data = [l[6:] for l in lines if l.startswith("data: ")]
    if "event: message" in lines and data:
        m = json.loads(data[0])
        if m.get("method") == "notifications/resources/updated":
            print(m["params"]["uri"])
            break
PY
)
check stream.updated "$got" sked://schedules/nightly
# A client that left frees the session's stream at once: its next GET
# is a stream again, not 409.
kill "$stream_pid"
wait "$stream_pid" 2>/dev/null
curl -sN "${auth[@]}" -H 'Accept: text/event-stream' \
    -H "Mcp-Session-Id: $sid" "$url" >"$tmp/stream2" 2>/dev/null &
stream_pid=$!
deadline=$((SECONDS + 5))
until grep -q 'keep-alive' "$tmp/stream2" || [ $SECONDS -ge $deadline ]; do
    sleep 0.1
done
grep -q 'keep-alive' "$tmp/stream2" && pass ||
    fail stream.reopen "$(cat "$tmp/stream2")"

# A session keeps its notifications while no stream is open, at most
# 256: past them the oldest are dropped, and its stream says how many.
post "$init" "${auth[@]}" "${accept[@]}"
sid2=$(header Mcp-Session-Id)
"$py" - "$url_a" "$token" "$sid2" <<'PY'
import http.client, json, sys, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
h = {"Authorization": "Bearer " + sys.argv[2],
     "Content-Type": "application/json",
     "Accept": "application/json, text/event-stream",
     "Mcp-Session-Id": sys.argv[3]}
def call(method, path, body=None):
    c.request(method, path, body, h)
    c.getresponse().read()
sub = {"jsonrpc": "2.0", "method": "resources/subscribe",
       "params": {"uri": "sked://schedules/nightly"}}
for i in range(300):  # each an update of a subscribed resource
    call("POST", "/mcp", json.dumps(dict(sub, id=i)))
    call("POST", "/api/v1/schedules/nightly/" +
         ("resume" if i % 2 == 0 else "pause"))
PY
sleep 2 # the session reads the event log twice a second
curl -sN --max-time 2 "${auth[@]}" -H 'Accept: text/event-stream' \
    -H "Mcp-Session-Id: $sid2" "$url" >"$tmp/stream3" 2>/dev/null
check queue.kept "$(grep -c '^event: message' "$tmp/stream3")" 256
grep -Eq '^: [0-9]+ notifications dropped' "$tmp/stream3" && pass ||
    fail queue.dropped "$(grep -v '^data' "$tmp/stream3" | head -5)"
code=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "${auth[@]}" \
    -H "Mcp-Session-Id: $sid2" "$url")
check queue.delete "$code" 204

# ---- 5. DELETE -------------------------------------------------------------
code=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "${auth[@]}" \
    -H "Mcp-Session-Id: $sid" "$url")
check delete.status "$code" 204
deadline=$((SECONDS + 5))
while kill -0 "$stream_pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do
    sleep 0.1
done
kill -0 "$stream_pid" 2>/dev/null && fail delete.stream "still open" || pass
spost '{"jsonrpc":"2.0","id":14,"method":"ping"}'
rpc_refusal deleted 404
code=$(curl -s -o "$tmp/body" -w '%{http_code}' -X DELETE "${auth[@]}" \
    -H "Mcp-Session-Id: $sid" "$url")
body=$(cat "$tmp/body")
rpc_refusal delete.again 404
code=$(curl -s -o "$tmp/body" -w '%{http_code}' -X DELETE "${auth[@]}" "$url")
body=$(cat "$tmp/body")
rpc_refusal delete.nosession 400

# ---- 6. the session limit and the stop -----------------------------------
# 256 initializes on one kept-alive connection, then the 257th.
"$py" - "$url_a" "$token" >"$tmp/limit" <<'PY'
import http.client, json, sys, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
h = {"Authorization": "Bearer " + sys.argv[2],
     "Content-Type": "application/json",
     "Accept": "application/json, text/event-stream"}
init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"protocolVersion": "2025-11-25",
                              "capabilities": {},
                              "clientInfo": {"name": "n", "version": "1"}}})
ids, codes = [], []
for i in range(257):
    c.request("POST", "/mcp", init, h)
    r = c.getresponse()
    body = r.read()
    codes.append(r.status)
    if r.status == 200:
        ids.append(r.getheader("Mcp-Session-Id"))
last = json.loads(body)
c.request("DELETE", "/mcp", headers=dict(h, **{"Mcp-Session-Id": ids[0]}))
r = c.getresponse()
r.read()
d = r.status
c.request("POST", "/mcp", init, h)
r = c.getresponse()
r.read()
print(codes.count(200), codes[-1], last["error"]["code"], last["id"], d,
      r.status, len(set(ids)))
PY
check limit "$(cat "$tmp/limit")" "256 503 -32000 None 204 200 256"

# Full again: the one that made room took the place.
code=$(curl -s -o /dev/null -w '%{http_code}' "${auth[@]}" "${accept[@]}" \
    -H 'Content-Type: application/json' -d "$init" "$url")
check limit.full "$code" 503

# ---- 8. long calls in flight ------------------------------------------------
# (The sessions of the first server are full: another one.)
start_http d --db "sqlite:$tmp/d.db" --workers 0 || fail d.start "$(cat "$tmp/d.log")"
curl -s -o /dev/null -H 'Content-Type: application/json' \
    -d '{"name":"every","workflow":"hello","cron":"* * * * * *"}' \
    "$url_d/api/v1/schedules"
"$py" - "$url_d" "$token" >"$tmp/long" 2>&1 <<'PY'
import http.client, json, sys, threading, time, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
base = {"Authorization": "Bearer " + sys.argv[2],
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-06-18"}
def conn():
    return http.client.HTTPConnection(u.hostname, u.port, timeout=120)
def post(c, msg, h):
    t = time.monotonic()
    c.request("POST", "/mcp", json.dumps(msg), h)
    r = c.getresponse()
    body = r.read()
    return r.status, body, time.monotonic() - t, time.monotonic()
def session():
    c = conn()
    c.request("POST", "/mcp", json.dumps({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "long", "version": "1"}}}), base)
    r = c.getresponse()
    r.read()
    h = dict(base, **{"Mcp-Session-Id": r.getheader("Mcp-Session-Id")})
    post(c, {"jsonrpc": "2.0", "method": "notifications/initialized"}, h)
    return h
def replay(i, days=11.5):
    to = "2026-01-%02dT%02d:00:00Z" % (1 + int(days), int(days % 1 * 24))
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call",
            "params": {"name": "simulate_schedule",
                       "arguments": {"name": "every", "limit": 1,
                                     "from": "2026-01-01T00:00:00Z",
                                     "to": to}}}
class Long(threading.Thread):
    def __init__(self, h, i, days=11.5, wait=0.3):
        super().__init__()
        self.h, self.msg, self.c = h, replay(i, days), conn()
        self.start()
        time.sleep(wait)  # in flight
    def run(self):
        self.t0 = time.monotonic()
        self.res = post(self.c, self.msg, self.h)
def out(name, *v):
    print(name, *v)

h = session()
# The call alone: its result, and how long it takes.
st, body, alone, _ = post(conn(), replay(1), h)
j = json.loads(body)
out("alone", st, j["id"], j["result"].get("isError", False),
    j["result"]["structuredContent"]["fired"] > 900000)
# Connections kept alive, spread over the server's threads.
cs = [conn() for _ in range(8)]
for k, c in enumerate(cs):
    post(c, {"jsonrpc": "2.0", "id": 100 + k, "method": "ping"}, h)
# (a) pings while it runs, each on its connection.
lg = Long(h, 2)
pings = [post(c, {"jsonrpc": "2.0", "id": 200 + k, "method": "ping"}, h)
         for k, c in enumerate(cs)]
lg.join()
out("ping.status", sorted({p[0] for p in pings}))
out("ping.before", all(p[3] < lg.res[3] for p in pings))
out("ping.fast", max(p[2] for p in pings) < alone / 2,
    "%.3f of %.3f" % (max(p[2] for p in pings), alone))
out("long.result", lg.res[0], json.loads(lg.res[1])["id"])
# (b) its cancellation, on a fresh connection: the kept ones sat idle for
# the whole call, which on a slow build is longer than the header deadline
# the server gives a kept-alive connection.
lg = Long(h, 3)
st, body, took, _ = post(conn(), {"jsonrpc": "2.0",
                                 "method": "notifications/cancelled",
                                 "params": {"requestId": 3}}, h)
out("cancel", st, body, took < alone / 2)
lg.join()
out("cancelled", lg.res[0], lg.res[1])
ping = {"jsonrpc": "2.0", "id": 4, "method": "ping"}
st, body, _, _ = post(conn(), ping, h)
out("after", st, json.loads(body)["id"])
# The ninth in flight of a session is refused, with its id.
lgs = [Long(h, 10 + k, 4, 0) for k in range(8)]
time.sleep(0.3)
st, body, _, _ = post(conn(), dict(ping, id=9), h)
j = json.loads(body)
out("ninth", st, j["id"], j["error"]["code"])
for x in lgs:
    x.join()
out("eight", sorted({x.res[0] for x in lgs}))
st, _, _, _ = post(conn(), dict(ping, id=9), h)
out("room", st)
# (c) DELETE of its session ends it and its call.
lg = Long(h, 5)
t = time.monotonic()
c = conn()
c.request("DELETE", "/mcp", headers=h)
r = c.getresponse()
r.read()
deleted = time.monotonic() - t
lg.join()
j = json.loads(lg.res[1])
out("delete", r.status, deleted < alone / 2)
out("delete.call", lg.res[0], j["id"], j["error"]["code"],
    lg.res[3] - t < alone / 2)
PY
check long.alone "$(grep '^alone ' "$tmp/long")" "alone 200 1 False True"
check long.ping.status "$(grep '^ping.status ' "$tmp/long")" "ping.status [200]"
check long.ping.before "$(grep '^ping.before ' "$tmp/long")" "ping.before True"
grep -q '^ping.fast True' "$tmp/long" && pass ||
    fail long.ping.fast "$(grep '^ping.fast' "$tmp/long")"
check long.result "$(grep '^long.result ' "$tmp/long")" "long.result 200 2"
check long.cancel "$(grep '^cancel ' "$tmp/long")" "cancel 202 b'' True"
check long.cancelled "$(grep '^cancelled ' "$tmp/long")" "cancelled 202 b''"
check long.after "$(grep '^after ' "$tmp/long")" "after 200 4"
check long.ninth "$(grep '^ninth ' "$tmp/long")" "ninth 503 9 -32000"
check long.eight "$(grep '^eight ' "$tmp/long")" "eight [200]"
check long.room "$(grep '^room ' "$tmp/long")" "room 200"
check long.delete "$(grep '^delete ' "$tmp/long")" "delete 204 True"
check long.delete.call "$(grep '^delete.call ' "$tmp/long")" \
    "delete.call 404 5 -32001 True"
grep -q Traceback "$tmp/long" && fail long.script "$(cat "$tmp/long")"

# (d) The stop with a call in flight: the server exits 0 at once (it
# waits for the API request the call is making, no longer), and the
# call's POST ends without a result.
curl -s -D "$tmp/hdr" -o /dev/null "${accept[@]}" \
    -H 'Content-Type: application/json' -d "$init" "$url_d/mcp"
sid=$(header Mcp-Session-Id)
long_call() {
    curl -s -o "$tmp/long_d" -w '%{http_code}' "${accept[@]}" \
        -H 'Content-Type: application/json' -H "Mcp-Session-Id: $sid" \
        -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{
          "name":"simulate_schedule","arguments":{"name":"every","limit":1,
          "from":"2026-01-01T00:00:00Z","to":"2026-01-12T12:00:00Z"}}}' \
        "$url_d/mcp"
}
t0=$(now_us)
check long.stop.alone "$(long_call)" 200
alone_ms=$((($(now_us) - t0) / 1000))
rm -f "$tmp/long_d"
t0=$(now_us)
long_call >"$tmp/long_d.code" 2>/dev/null &
long_pid=$!
sleep 0.3
stop_server d TERM
check long.stop.rc "$stop_rc" 0
check_le long.stop.ms "$stop_ms" $((alone_ms + 3000))
wait "$long_pid"
check_le long.stop.call.ms $((($(now_us) - t0) / 1000)) $((alone_ms + 3000))
[ -f "$tmp/long_d" ] && grep -q '"result"' "$tmp/long_d" &&
    fail long.stop.call "a result: $(head -c 200 "$tmp/long_d")" || pass

# ---- 7. the OpenAPI document -----------------------------------------------
got=$(curl -s "${auth[@]}" "$url_a/api/v1/openapi.json" | "$py" -c '
import json, sys
p = json.load(sys.stdin)["paths"].get("/mcp", {})
print(" ".join(sorted(p)))')
check openapi "$got" "delete get options post"

# The stop ends an open stream at once (a session of the first server
# is full; start another).
start_http b --db "sqlite:$tmp/b.db" --workers 0 || fail b.start "$(cat "$tmp/b.log")"
curl -s -D "$tmp/hdr" -o /dev/null "${accept[@]}" \
    -H 'Content-Type: application/json' -d "$init" "$url_b/mcp"
sid=$(header Mcp-Session-Id)
curl -sN -H 'Accept: text/event-stream' -H "Mcp-Session-Id: $sid" \
    "$url_b/mcp" >"$tmp/stream_b" 2>/dev/null &
stream_pid=$!
sleep 0.5
stop_server b TERM
check_le stop.ms "$stop_ms" 5000
sleep 0.5
kill -0 "$stream_pid" 2>/dev/null && fail stop.stream "still open" || pass

# Sessions unused for --mcp-session-idle end (404); one in use, or with
# its stream open, stays.
start_http c --db "sqlite:$tmp/c.db" --workers 0 --mcp-session-idle 1s ||
    fail c.start "$(cat "$tmp/c.log")"
url=$url_c/mcp
auth=()
new_session() {
    post "$init" "${accept[@]}"
    header Mcp-Session-Id
}
idle=$(new_session)
busy=$(new_session)
sid=$(new_session)
curl -sN -H 'Accept: text/event-stream' -H "Mcp-Session-Id: $sid" \
    "$url" >"$tmp/stream_c" 2>/dev/null &
stream_pid=$!
for i in $(seq 10); do
    sleep 0.3
    sid=$busy spost '{"jsonrpc":"2.0","id":1,"method":"ping"}'
done
check idle.busy "$code" 200
sid=$idle spost '{"jsonrpc":"2.0","id":1,"method":"ping"}'
check idle.ended "$code" 404
spost '{"jsonrpc":"2.0","id":1,"method":"ping"}'
check idle.streaming "$code" 200
kill "$stream_pid" 2>/dev/null
"$bin" server --db "$db" --workers 0 --listen 127.0.0.1:0 \
    --mcp-session-idle 0s >/dev/null 2>"$tmp/e.idle"
check idle.option.rc "$?" 2
grep -q 'mcp-session-idle' "$tmp/e.idle" && pass ||
    fail idle.option.msg "$(cat "$tmp/e.idle")"

# Every server stops cleanly, and under the sanitizers none reported
# anything (a leak shows at the stop).
stop_server a TERM
check stop.a "$stop_rc" 0
stop_server c TERM
check stop.c "$stop_rc" 0
bad=$(grep -l -E 'Sanitizer|runtime error' "$tmp"/*.log 2>/dev/null)
check sanitizers "$bad" ""

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
