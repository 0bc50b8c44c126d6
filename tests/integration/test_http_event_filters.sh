#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The event log filtered by type and subject, through a real "sked
# server" on loopback:
#
#   test_http_event_filters.sh [sqlite|pg]
#
# 1. GET /api/v1/events?type=T1,T2, ?subject=S and both give exactly the
#    events of the whole log that match, oldest first; an unknown type
#    matches nothing.
# 2. Paging a filter (limit=3) gives every match once: each page but the
#    last is full, its next_cursor the id of its last event, and a
#    cursor from a filtered page reads on with the same filter.
# 3. A stream with a filter (follow=1&type=..., &subject=...) gets the
#    matching events of its catch-up and the live ones, nothing else.
# 4. Malformed filters (an empty type, a control character, a type over
#    64 bytes, 17 types, a subject over 384 bytes) are 400 naming type or
#    subject, on a page and on a stream, and change nothing.
#
# Env: SKED_BIN; SKED_TEST_PG_URL for pg. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
mode=${1:-sqlite}
. "$here/server_lib.sh"

mode_db filters.db

wf=$tmp/wf.yaml
cat >"$wf" <<'YAML'
workflows:
  x:
    steps:
      - name: a
        run: ["true"]
YAML

# all_events: every event of the log, one JSON object a line, paged
# without a filter.
all_events() {
    $py - "$url_a" <<'PY'
import json, sys, urllib.request
url, after = sys.argv[1], 0
while True:
    with urllib.request.urlopen("%s/api/v1/events?after=%s&limit=50"
                                % (url, after)) as r:
        page = json.load(r)
    for e in page["events"]:
        print(json.dumps(e, sort_keys=True))
    if page["next_cursor"] is None:
        break
    after = page["next_cursor"]
PY
}

# paged QUERY LIMIT: the events of the filter QUERY ("type=...&..."),
# paged LIMIT at a time, as all_events prints them; a page that breaks
# the paging rules prints a line starting with BAD.
paged() {
    $py - "$url_a" "$1" "$2" <<'PY'
import json, sys, urllib.request
url, query, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
after, pages = 0, 0
while pages < 1000:
    pages += 1
    with urllib.request.urlopen("%s/api/v1/events?%s&after=%s&limit=%d"
                                % (url, query, after, limit)) as r:
        page = json.load(r)
    ev = page["events"]
    for e in ev:
        print(json.dumps(e, sort_keys=True))
    cur = page["next_cursor"]
    if cur is None:
        break
    if len(ev) != limit or cur != str(ev[-1]["id"]):
        print("BAD page of %d after %s, cursor %s" % (len(ev), after, cur))
        break
    after = cur
PY
}

# want TYPES SUBJECT: the lines of $tmp/all that match (TYPES
# comma-separated, "" for any; SUBJECT "" for any).
want() {
    $py - "$tmp/all" "$1" "$2" <<'PY'
import json, sys
types = set(sys.argv[2].split(",")) if sys.argv[2] else None
for line in open(sys.argv[1]):
    e = json.loads(line)
    if (types is None or e["type"] in types) and \
            (not sys.argv[3] or e["subject"] == sys.argv[3]):
        print(line.rstrip("\n"))
PY
}

# stream_lines FILE: the events of the SSE capture FILE as all_events
# prints them (the last one, cut by the capture's end, left out).
stream_lines() {
    $py - "$1" <<'PY'
import json, sys
for block in open(sys.argv[1], encoding="utf-8").read().split("\n\n")[:-1]:
    data = [l[6:] for l in block.split("\n") if l.startswith("data: ")]
    if data:
        print(json.dumps(json.loads(data[0]), sort_keys=True))
PY
}

start_http a --db "$db" --workflows "$wf" --workers 1 ||
    fail "server a listens" "$(cat "$tmp/a.log")"

# A log of several schedules' events and runs' events.
for i in 1 2 3 4 5 6; do
    "$bin" --server "$url_a" schedule create x --every 1h --name "s$i" \
        >/dev/null 2>>"$tmp/cli.err" || fail "schedule create s$i" \
        "$(cat "$tmp/cli.err")"
done
for i in 2 4; do
    "$bin" --server "$url_a" schedule pause "s$i" >/dev/null 2>>"$tmp/cli.err"
done
for i in 1 2 3; do
    "$bin" --server "$url_a" schedule trigger s3 >/dev/null 2>>"$tmp/cli.err"
done
# Wait for the triggered runs to complete: 3 run.completed.
deadline=$((SECONDS + 20))
while [ $SECONDS -lt $deadline ]; do
    n=$(curl -s "$url_a/api/v1/events?type=run.completed&limit=100" |
        $py -c 'import json,sys; print(len(json.load(sys.stdin)["events"]))')
    [ "$n" = 3 ] && break
    sleep 0.2
done
check "three runs completed" "$n" 3

all_events >"$tmp/all"
total=$(wc -l <"$tmp/all")
check_ge "events in the log" "$total" 20
run1=$(want run.completed "" | sed -n 1p | $py -c \
    'import json,sys; print(json.loads(sys.stdin.readline())["subject"])')

# ---- 1. filters ----------------------------------------------------------
for f in "schedule.created|" "schedule.paused,schedule.created|" \
    "|s3" "|$run1" "schedule.created,schedule.paused|s4" \
    "run.started,run.completed,step.completed|$run1" "run.created|"; do
    types=${f%%|*} subject=${f#*|}
    qs="type=$types&subject=$subject"
    got=$(paged "$qs" 1000)
    exp=$(want "$types" "$subject")
    check "filter $qs: exactly the matching events" "$got" "$exp"
    [ -n "$exp" ] || fail "filter $qs matches some event" "none"
done
check "an unknown type matches nothing" \
    "$(curl -s "$url_a/api/v1/events?type=no.such.type")" \
    '{"events":[],"next_cursor":null}'
check "an unknown subject matches nothing" \
    "$(curl -s "$url_a/api/v1/events?subject=nobody&type=run.created")" \
    '{"events":[],"next_cursor":null}'

# ---- 2. paging a filter ----------------------------------------------------
for f in "schedule.created|" "|s3" "schedule.created,schedule.paused|" \
    "run.completed,schedule.paused|"; do
    types=${f%%|*} subject=${f#*|}
    qs="type=$types&subject=$subject"
    for limit in 1 2 3; do
        got=$(paged "$qs" $limit)
        check "paged by $limit, $qs: every match once, full pages" "$got" \
            "$(want "$types" "$subject")"
    done
done

# ---- 3. streams with a filter ----------------------------------------------
curl -sN -m 6 "$url_a/api/v1/events?follow=1&after=0&subject=s5" \
    >"$tmp/s5" &
s5_pid=$!
curl -sN -m 6 "$url_a/api/v1/events?follow=1&type=schedule.paused,schedule.resumed" \
    >"$tmp/paused" &
paused_pid=$!
sleep 1.5
"$bin" --server "$url_a" schedule pause s5 >/dev/null 2>>"$tmp/cli.err"
"$bin" --server "$url_a" schedule pause s6 >/dev/null 2>>"$tmp/cli.err"
"$bin" --server "$url_a" schedule trigger s1 >/dev/null 2>>"$tmp/cli.err"
"$bin" --server "$url_a" schedule resume s5 >/dev/null 2>>"$tmp/cli.err"
wait "$s5_pid" "$paused_pid"
all_events >"$tmp/all"
check "stream subject=s5: its catch-up and live events, nothing else" \
    "$(stream_lines "$tmp/s5")" "$(want "" s5)"
got=$(stream_lines "$tmp/paused" | $py -c 'import json,sys
print(" ".join(json.loads(l)["type"] + ":" + json.loads(l)["subject"] for l in sys.stdin))')
check "stream type=schedule.paused,schedule.resumed: only the live ones" \
    "$got" "schedule.paused:s5 schedule.paused:s6 schedule.resumed:s5"

# ---- 4. refused filters ----------------------------------------------------
# code QUERY: "STATUS FIELD" of the answer to GET /api/v1/events?QUERY.
code() {
    curl -s -m 5 -o "$tmp/err" -w '%{http_code}' "$url_a/api/v1/events?$1"
    printf ' %s\n' "$($py -c 'import json,sys
print(json.load(open(sys.argv[1]))["error"].get("field"))' "$tmp/err" 2>/dev/null)"
}
long65=$(printf 'a%.0s' $(seq 65))
long385=$(printf 'b%.0s' $(seq 385))
seventeen=$(seq -s, -f 't%g' 17)
sixteen=$(seq -s, -f 't%g' 16)
before=$(all_events | wc -l)
for bad in "type=run.created," "type=,run.created" "type=a,,b" \
    "type=run%01created" "type=$long65" "type=$seventeen" \
    "follow=1&type=$long65" "follow=1&type=x,"; do
    check "refused: ${bad:0:40}" "$(code "$bad")" "400 type"
done
for bad in "subject=s%0A1" "subject=$long385" "follow=1&subject=%7F" \
    "type=run.created&subject=$long385"; do
    check "refused: ${bad:0:40}" "$(code "$bad")" "400 subject"
done
check "16 types are fine" "$(code "type=$sixteen")" "200 "
check "64 bytes of type are fine" \
    "$(code "type=${long65:1}")" "200 "
check "384 bytes of subject are fine" \
    "$(code "subject=${long385:1}")" "200 "
check "nothing changed by a refused request" "$(all_events | wc -l)" \
    "$before"

stop_server a TERM
check "the server stops cleanly" "$stop_rc" 0
check "no memory or undefined-behaviour report in its log" \
    "$(grep -cE 'AddressSanitizer|LeakSanitizer|runtime error' "$tmp/a.log")" 0
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
