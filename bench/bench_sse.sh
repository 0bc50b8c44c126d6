#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The event streams' memory, on loopback: 1,000 idle SSE clients
# (GET /api/v1/events?follow=1) held open against a real "sked server" on
# a SQLite file; the server's extra resident memory (VmRSS with the
# clients minus before them; target <= 50 MB). Then one event, written by
# the CLI, must reach every client. Prints a human line and a
# tab-separated "bench sse CLIENTS EXTRA_RSS_MB DELIVERED" line for
# scripts/bench.sh.
# Usage: bench/bench_sse.sh path/to/sked    (env: BENCH_SSE_CLIENTS)
set -euo pipefail

bin=${1:?usage: bench_sse.sh path/to/sked}
clients=${BENCH_SSE_CLIENTS:-1000}
tmp=$(mktemp -d)
pid=
. "$(dirname "$0")/server_lib.sh"
trap 'stop_bench_server; rm -rf "$tmp"' EXIT

db=sqlite:$tmp/bench.db
start_bench_server

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status"; }

# One stream opened and closed first: the hub and the server's threads
# have touched their memory before the baseline.
curl -sN -m 1 "$url/api/v1/events?follow=1" >/dev/null || true
sleep 0.5
before=$(rss_kb)

# The clients: open every stream, wait for its headers and first
# comment, report, wait for the word on stdin, then count the clients
# that receive an event before the deadline.
mkfifo "$tmp/go"
/usr/bin/python3 - "$url" "$clients" "$tmp/go" >"$tmp/clients" <<'PY' &
import selectors, socket, sys, time
url, n, go = sys.argv[1], int(sys.argv[2]), sys.argv[3]
host, port = url.split("//")[1].split(":")
req = ("GET /api/v1/events?follow=1 HTTP/1.1\r\nHost: %s\r\n"
       "Accept: text/event-stream\r\n\r\n" % host).encode()
sel = selectors.DefaultSelector()
socks, data = [], {}
for _ in range(n):
    s = socket.create_connection((host, int(port)))
    s.sendall(req)
    s.setblocking(False)
    socks.append(s)
    data[s] = b""
    sel.register(s, selectors.EVENT_READ)

def read_until(pred, deadline):
    while time.time() < deadline and not all(pred(data[s]) for s in socks):
        for key, _ in sel.select(0.5):
            try:
                chunk = key.fileobj.recv(65536)
            except BlockingIOError:
                continue
            data[key.fileobj] += chunk or b""

read_until(lambda b: b"keep-alive" in b, time.time() + 60)
ok = sum(b"200 OK" in data[s] and b"text/event-stream" in data[s] for s in socks)
print("open", ok, flush=True)
open(go).read()
read_until(lambda b: b"event: schedule.created" in b, time.time() + 30)
print("delivered", sum(b"event: schedule.created" in data[s] for s in socks),
      flush=True)
PY
cpid=$!
for _ in $(seq 600); do
    grep -q '^open' "$tmp/clients" 2>/dev/null && break
    sleep 0.1
done
sleep 2 # settle
after=$(rss_kb)
open=$(awk '/^open/ { print $2 }' "$tmp/clients")
"$bin" --db "$db" schedule create report "0 9 * * *" --name sse-bench >/dev/null
echo go >"$tmp/go"
wait "$cpid" || true
delivered=$(awk '/^delivered/ { print $2 }' "$tmp/clients")
extra=$(awk -v a="$after" -v b="$before" 'BEGIN { printf "%.1f", (a - b) / 1024 }')
printf '%d idle SSE clients (%s open): server RSS %.1f MB -> %.1f MB, extra %s MB (target <= 50 MB: %s); one event delivered to %s\n' \
    "$clients" "${open:-0}" "$(awk -v v="$before" 'BEGIN { print v / 1024 }')" \
    "$(awk -v v="$after" 'BEGIN { print v / 1024 }')" "$extra" \
    "$(awk -v e="$extra" 'BEGIN { print (e <= 50 ? "met" : "NOT met") }')" \
    "${delivered:-0}"
printf 'bench\tsse\t%s\t%s\t%s\n' "${open:-0}" "$extra" "${delivered:-0}"
