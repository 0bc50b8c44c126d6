#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The MCP server's figures. Over stdio on SQLite: "sked mcp --db" answers
# tools/list and a get_schedule call, one at a time, N times each after a
# warm-up; the time from writing a request's line to reading its answer's
# line, median and p99 (target: median <= 2 ms). Over HTTP: SESSIONS
# sessions opened on /mcp of a real "sked server" (initialize, initialized,
# one tools/list, and the GET event stream a client keeps open), the
# server's extra resident memory (VmRSS with them minus before them) per
# session (target <= 1 MB). Prints human lines and tab-separated lines for
# scripts/bench.sh:
#   bench mcp_stdio METHOD CALLS MEDIAN_MS P99_MS
#   bench mcp_session SESSIONS OPEN KB_PER_SESSION
# Usage: bench/bench_mcp.sh path/to/sked
#        (env: BENCH_MCP_CALLS, default 1000; BENCH_MCP_SESSIONS, 200)
set -euo pipefail

bin=${1:?usage: bench_mcp.sh path/to/sked}
calls=${BENCH_MCP_CALLS:-1000}
sessions=${BENCH_MCP_SESSIONS:-200}
tmp=$(mktemp -d)
pid=
. "$(dirname "$0")/server_lib.sh"
trap 'stop_bench_server; rm -rf "$tmp"' EXIT

db=sqlite:$tmp/bench.db
"$bin" --db "$db" schedule create report "0 9 * * 1-5" --name morning \
    --timezone Europe/Paris >/dev/null 2>&1

# ---- stdio: one request at a time, timed from its line to its answer's.
/usr/bin/python3 - "$bin" "$db" "$calls" <<'PY'
import json, subprocess, sys, time
bin_, db, calls = sys.argv[1], sys.argv[2], int(sys.argv[3])
p = subprocess.Popen([bin_, "mcp", "--db", db], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
next_id = 0

def ask(method, params):
    """Send one request; its answer (notifications before it skipped) and
    the time from writing it to reading the answer's line, in ms: the
    answer is parsed after the clock stops."""
    global next_id
    next_id += 1
    line = json.dumps({"jsonrpc": "2.0", "id": next_id, "method": method,
                       "params": params}).encode() + b"\n"
    t0 = time.perf_counter()
    p.stdin.write(line)
    p.stdin.flush()
    while True:
        out = p.stdout.readline()
        ms = (time.perf_counter() - t0) * 1000
        if not out:
            sys.exit("sked mcp closed its output")
        msg = json.loads(out)
        if msg.get("id") == next_id:
            if "error" in msg:
                sys.exit("%s: %s" % (method, msg["error"]))
            return msg["result"], ms

ask("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "bench", "version": "1"}})
p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
p.stdin.flush()
tools = ask("tools/list", {})[0]["tools"]
get = next(t for t in tools if t["name"] == "get_schedule")
arg = next((k for k in ("name", "schedule")
            if k in get["inputSchema"].get("properties", {})), "name")
cases = [("tools/list", "tools/list", {}),
         ("get_schedule", "tools/call",
          {"name": "get_schedule", "arguments": {arg: "morning"}})]
for label, method, params in cases:
    for _ in range(max(100, calls // 10)):  # warm-up
        ask(method, params)
    times = []
    for _ in range(calls):
        r, ms = ask(method, params)
        times.append(ms)
        if r.get("isError"):
            sys.exit("get_schedule failed: %s" % r)
    times.sort()
    med = times[len(times) // 2]
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    print("stdio %-13s %d calls: median %.3f ms, p99 %.3f ms (target median <= 2 ms: %s)"
          % (label, calls, med, p99, "met" if med <= 2 else "NOT met"))
    print("bench\tmcp_stdio\t%s\t%d\t%.3f\t%.3f" % (label, calls, med, p99))
p.stdin.close()
p.wait()
PY

# ---- HTTP: memory per session of a real server.
start_bench_server

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status"; }

mkfifo "$tmp/go"
/usr/bin/python3 - "$url" "$sessions" "$tmp/go" "$tmp/before" >"$tmp/sessions" <<'PY' &
import http.client, json, os, selectors, socket, sys, time
url, n, go, before = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
host, port = url.split("//")[1].split(":")
port = int(port)
V = "2025-11-25"

def post(body, sid=None):
    c = http.client.HTTPConnection(host, port, timeout=30)
    h = {"Content-Type": "application/json",
         "Accept": "application/json, text/event-stream"}
    if sid:
        h["Mcp-Session-Id"] = sid
        h["MCP-Protocol-Version"] = V
    c.request("POST", "/mcp", json.dumps(body), h)
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, r.getheader("Mcp-Session-Id"), data

def open_session():
    st, sid, data = post({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                          "params": {"protocolVersion": V, "capabilities": {},
                                     "clientInfo": {"name": "bench", "version": "1"}}})
    if st != 200 or not sid:
        return None
    post({"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
    st, _, _ = post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, sid)
    if st != 200:
        return None
    # The server's event stream, held open as a client does.
    s = socket.create_connection((host, port))
    s.sendall(("GET /mcp HTTP/1.1\r\nHost: %s:%d\r\nAccept: text/event-stream\r\n"
               "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: %s\r\n\r\n"
               % (host, port, sid, V)).encode())
    return s

# One session first, closed, so that what a first session touches once
# is in the baseline; then the word to measure it.
w = open_session()
if w:
    w.close()
time.sleep(0.5)
open(before, "w").write("ready\n")
open(go).read()
socks = [s for s in (open_session() for _ in range(n)) if s]
# Each stream's headers must have come back: 200 and text/event-stream.
sel = selectors.DefaultSelector()
data = {}
for s in socks:
    s.setblocking(False)
    data[s] = b""
    sel.register(s, selectors.EVENT_READ)
deadline = time.time() + 30
while time.time() < deadline and not all(b"\r\n\r\n" in data[s] for s in socks):
    for key, _ in sel.select(0.5):
        try:
            data[key.fileobj] += key.fileobj.recv(65536) or b""
        except BlockingIOError:
            pass
def streaming(b):
    status = b.split(b"\r\n", 1)[0].split()
    return len(status) > 1 and status[1] == b"200" and b"text/event-stream" in b.lower()
ok = sum(streaming(data[s]) for s in socks)
print("open", ok, flush=True)
open(go).read()
PY
cpid=$!
for _ in $(seq 300); do
    [ -s "$tmp/before" ] && break
    sleep 0.1
done
before=$(rss_kb)
echo go >"$tmp/go"
for _ in $(seq 600); do
    grep -q '^open' "$tmp/sessions" 2>/dev/null && break
    sleep 0.1
done
sleep 1 # settle
after=$(rss_kb)
open=$(awk '/^open/ { print $2 }' "$tmp/sessions")
echo go >"$tmp/go"
wait "$cpid" || true
per=$(awk -v a="$after" -v b="$before" -v n="$sessions" \
    'BEGIN { printf "%.1f", (a - b) / n }')
printf '%d HTTP MCP sessions (%s with their stream open): server RSS %.1f MB -> %.1f MB, %s KB per session (target <= 1 MB: %s)\n' \
    "$sessions" "${open:-0}" "$(awk -v v="$before" 'BEGIN { print v / 1024 }')" \
    "$(awk -v v="$after" 'BEGIN { print v / 1024 }')" "$per" \
    "$(awk -v p="$per" -v o="${open:-0}" -v n="$sessions" \
        'BEGIN { print (p <= 1024 && o == n ? "met" : "NOT met") }')"
printf 'bench\tmcp_session\t%s\t%s\t%s\n' "$sessions" "${open:-0}" "$per"
