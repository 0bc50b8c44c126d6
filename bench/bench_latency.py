#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The latency from a run's request to its first step's start, on a real
server: POST /api/v1/workflows/w/runs at RATE per second (one client, a
steady pace, keep-alive), N runs, then each run's first step's
started_at (the server's clock, the same machine's) minus the instant the
request was sent. Prints

    latency  BACKEND  N  RATE  P50_MS  P99_MS  MAX_MS

Usage: bench_latency.py URL BACKEND N RATE"""
import http.client
import json
import sys
import time
import urllib.parse
from datetime import datetime


def instant(s):
    """RFC 3339 with microseconds and Z, to seconds since the epoch."""
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp() if "." in s \
        else datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").timestamp()


def main():
    url, backend, n, rate = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    sent = []
    start = time.time()
    for i in range(n):
        due = start + i / rate
        wait = due - time.time()
        if wait > 0:
            time.sleep(wait)
        t = time.time()
        conn.request("POST", "/api/v1/workflows/w/runs", body="{}",
                     headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        body = r.read()
        if r.status != 201:
            sys.exit(f"bench_latency: {r.status} {body[:200]!r}")
        sent.append((json.loads(body)["id"], t))
    lat = []
    deadline = time.time() + 60
    pending = list(sent)
    while pending and time.time() < deadline:
        left = []
        for rid, t in pending:
            conn.request("GET", "/api/v1/runs/" + urllib.parse.quote(rid))
            r = conn.getresponse()
            run = json.loads(r.read())
            steps = run.get("steps") or []
            if steps and steps[0].get("started_at"):
                lat.append((instant(steps[0]["started_at"]) - t) * 1000)
            else:
                left.append((rid, t))
        pending = left
        if pending:
            time.sleep(0.2)
    if pending:
        sys.exit(f"bench_latency: {len(pending)} runs never started")
    lat.sort()
    p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]
    print(f"latency\t{backend}\t{n}\t{rate:g}\t{p(0.50):.3f}\t{p(0.99):.3f}\t{lat[-1]:.3f}")


if __name__ == "__main__":
    main()
