#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Events and metrics over HTTP, through a real "sked server" on loopback:
#
#   test_http_events.sh [sqlite|pg]
#
# 1. A stream (GET /api/v1/events?follow=1, curl -N) receives run.created,
#    run.started and run.completed while runs of a workflow fired every
#    second complete, each event in the SSE form with its JSON object.
# 2. Events written by the CLI on the same database, with no server
#    (sked schedule create), reach the stream.
# 3. The list (GET /api/v1/events) pages oldest first with next_cursor;
#    the live stream holds exactly the listed events of its span, in
#    order; a stream resumed with Last-Event-ID (and one with after=)
#    gets exactly the events after that id: none twice, none missing.
# 4. Bad after, limit, follow and Last-Event-ID are refused, naming them.
# 5. /metrics parses strictly (HELP and TYPE for each family, names,
#    labels, histograms cumulative with +Inf equal to _count), and moves:
#    runs completed grow, the queue of a workflow no server runs has
#    pending runs, a soft workflow timeout is counted and its run's
#    duration lands past the 1 s bucket.
# 6. Stopping the server with a stream open takes under 5 s and ends the
#    stream; an occurrence of a catchup-skip schedule that passed while no
#    server ran shows in sked_schedule_missed_total after the restart.
#
# Env: SKED_BIN; SKED_TEST_PG_URL for pg. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
mode=${1:-sqlite}
. "$here/server_lib.sh"

mode_db events.db

wf=$tmp/wf.yaml
cat >"$wf" <<'YAML'
workflows:
  x:
    steps:
      - name: a
        run: ["true"]
    schedules:
      - every: 1s
  slowpoke:
    timeout: {seconds: 1, fail_workflow: false}
    steps:
      - name: nap
        run: ["sleep", "1.5"]
      - name: late
        needs: [nap]
        run: ["true"]
YAML

# wait_grep FILE PATTERN SECONDS: wait until FILE has a line matching the
# extended regex PATTERN.
wait_grep() {
    local deadline=$((SECONDS + $3))
    while [ $SECONDS -lt $deadline ]; do
        grep -Eq -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.2
    done
    return 1
}

# wait_whole_run FILE SECS: wait until the stream FILE holds one run's
# run.created, run.started and run.completed (events with one subject).
wait_whole_run() {
    local deadline=$((SECONDS + $2))
    while [ $SECONDS -lt $deadline ]; do
        [ "$($py - "$1" <<'PY'
import json, sys
seen = {}
for block in open(sys.argv[1]).read().split("\n\n"):
    data = [l[6:] for l in block.split("\n") if l.startswith("data: ")]
    try:
        ev = json.loads(data[0]) if data else None
    except ValueError:
        ev = None  # the last block, cut short
    if ev:
        seen.setdefault(ev["subject"], set()).add(ev["type"])
whole = {"run.created", "run.started", "run.completed"}
print(any(whole <= t for t in seen.values()))
PY
)" = True ] && return 0
        sleep 0.2
    done
    return 1
}

# sse_ids FILE: the ids of the events in the stream FILE, one a line, after
# checking each event's form (id, event, data lines; data's id and type
# the same). Prints "BAD ..." for an event out of form.
sse_ids() {
    $py - "$1" <<'PY'
import json, sys
text = open(sys.argv[1], encoding="utf-8").read()
# What follows the last blank line is an event cut by the capture's end.
for block in text.split("\n\n")[:-1]:
    lines = [l for l in block.split("\n") if l and not l.startswith(":")]
    if not lines:
        continue
    f = dict(l.split(": ", 1) for l in lines)
    d = json.loads(f["data"])
    ok = (set(f) == {"id", "event", "data"} and str(d["id"]) == f["id"]
          and d["type"] == f["event"] and isinstance(d["payload"], dict)
          and d["at"].endswith("Z") and isinstance(d["subject"], str))
    print(f["id"] if ok else "BAD " + block.replace("\n", " | "))
PY
}

# list_ids AFTER [MAX]: the ids of the stored events after AFTER (at most
# MAX), by pages of 7 (so the cursor is followed), one a line.
list_ids() {
    $py - "$url_a" "$1" "${2:-0}" <<'PY'
import json, sys, urllib.request
url, after, left = sys.argv[1], sys.argv[2], int(sys.argv[3]) or -1
while left != 0:
    with urllib.request.urlopen("%s/api/v1/events?after=%s&limit=7"
                                % (url, after)) as r:
        page = json.load(r)
    for e in page["events"][:left if left > 0 else None]:
        assert isinstance(e["payload"], dict) and e["at"].endswith("Z")
        print(e["id"])
        left -= 1
    if page["next_cursor"] is None:
        break
    after = page["next_cursor"]
PY
}

# metrics_check FILE: parse the exposition strictly; print the problems,
# or nothing.
metrics_check() {
    $py - "$1" <<'PY'
import re, sys
NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"'
SAMPLE = re.compile(r"^(%s)(?:\{((?:%s)(?:,%s)*)\})? (\S+)$" % (NAME, LABEL, LABEL))
help_, type_, seen, errs = {}, {}, {}, []
hist = {}
for n, line in enumerate(open(sys.argv[1], encoding="utf-8").read().split("\n")):
    if line == "":
        continue
    if line.startswith("# HELP ") or line.startswith("# TYPE "):
        kind, name, rest = line[2:6], *line[7:].split(" ", 1)
        if not re.fullmatch(NAME, name):
            errs.append("line %d: bad name %r" % (n + 1, name))
        d = help_ if kind == "HELP" else type_
        if name in d:
            errs.append("line %d: second %s of %s" % (n + 1, kind, name))
        d[name] = rest
        if kind == "TYPE" and rest not in ("counter", "gauge", "histogram"):
            errs.append("line %d: type %r" % (n + 1, rest))
        continue
    m = SAMPLE.match(line)
    if not m:
        errs.append("line %d: not a sample: %r" % (n + 1, line))
        continue
    name, value = m.group(1), m.group(m.lastindex)
    labels = dict(re.findall(LABEL, m.group(2) or ""))
    fam = re.sub(r"_(bucket|sum|count)$", "", name)
    fam = fam if type_.get(fam) == "histogram" else name
    if fam not in type_ or fam not in help_:
        errs.append("line %d: %s has no HELP or TYPE before it" % (n + 1, name))
    try:
        v = float(value)
    except ValueError:
        errs.append("line %d: value %r" % (n + 1, value))
        continue
    if type_.get(fam) == "histogram":
        key = tuple(sorted((k, x) for k, x in labels.items() if k != "le"))
        h = hist.setdefault((fam, key), {"b": [], "count": None})
        if name.endswith("_bucket"):
            le = labels["le"]
            h["b"].append((float("inf") if le == "+Inf" else float(le), v))
        elif name.endswith("_count"):
            h["count"] = v
    elif type_.get(fam) == "counter" and v < 0:
        errs.append("line %d: negative counter" % (n + 1))
    seen[(name, tuple(sorted(labels.items())))] = v
for (fam, key), h in hist.items():
    b = h["b"]
    if [x for x, _ in b] != sorted(x for x, _ in b) or not b or b[-1][0] != float("inf"):
        errs.append("%s: buckets out of order or no +Inf" % fam)
    if any(b[i][1] > b[i + 1][1] for i in range(len(b) - 1)):
        errs.append("%s: buckets not cumulative" % fam)
    if b and b[-1][1] != h["count"]:
        errs.append("%s: +Inf %s != _count %s" % (fam, b[-1][1], h["count"]))
want = {"sked_schedule_missed_total": "counter", "sked_runs_total": "counter",
        "sked_run_duration_seconds": "histogram",
        "sked_fire_lag_seconds": "histogram", "sked_queue_depth": "gauge",
        "sked_workers_busy": "gauge", "sked_run_timeouts_total": "counter",
        "sked_schedules": "gauge", "sked_store_errors_total": "counter",
        "sked_store_failing": "gauge", "sked_clock_skew_seconds": "gauge"}
for k, t in want.items():
    if type_.get(k) != t:
        errs.append("%s: type %r, want %s" % (k, type_.get(k), t))
print("\n".join(errs))
PY
}

# metric FILE SAMPLE: the value of the sample written exactly as SAMPLE
# (name{labels} in the server's order), or 0 when absent.
metric() {
    local v
    v=$(grep -F -- "$2 " "$1" | head -1)
    v=${v##* }
    printf '%s\n' "${v%.*}" | sed 's/^$/0/'
}

# ---- 1. a live stream of a server's runs -------------------------------
start_http a --db "$db" --workflows "$wf" --workers 1 ||
    fail "server a listens" "$(cat "$tmp/a.log")"
curl -sN -D "$tmp/live.h" "$url_a/api/v1/events?follow=1" >"$tmp/live" &
live_pid=$!
# A run fired before the stream was open shows only its last events:
# wait for one the stream saw whole.
if wait_whole_run "$tmp/live" 20; then pass; else
    fail "live stream: a run's run.created, run.started, run.completed" \
        "$(head -c 600 "$tmp/live")"
fi
check "a comment opens the stream" "$(head -1 "$tmp/live")" ": keep-alive"
check "content type" \
    "$(tr -d '\r' <"$tmp/live.h" | grep -i '^content-type:' | cut -d' ' -f2)" \
    "text/event-stream"

# ---- 2. the CLI, with no server, on the same database --------------------
"$bin" --db "$db" schedule create nobody --every 1s --name parked \
    --queue parked >/dev/null 2>"$tmp/cli.err" ||
    fail "cli schedule create" "$(cat "$tmp/cli.err")"
if wait_grep "$tmp/live" '"type":"schedule.created","subject":"parked"' 10; then
    pass
else
    fail "CLI's event reaches the stream" "$(tail -c 600 "$tmp/live")"
fi

# ---- 3. list, live span, resume ----------------------------------------
wait_grep "$tmp/live" '^event: run.completed' 1 # at least a few events
all=$(list_ids 0)
n=$(printf '%s\n' "$all" | wc -l)
check_ge "listed events" "$n" 10
sorted=$(printf '%s\n' "$all" | sort -n -u)
check "list oldest first, each once" "$all" "$sorted"
first=$(curl -s "$url_a/api/v1/events?limit=1")
check "next_cursor of a page" "$(printf '%s' "$first" | $py -c \
    'import json,sys; p=json.load(sys.stdin); print(p["next_cursor"] == str(p["events"][0]["id"]))')" True
last=$(curl -s "$url_a/api/v1/events?after=999999999")
check "past the end" "$last" '{"events":[],"next_cursor":null}'

# A resume from the 5th event: what it gets is the list after that id.
k=$(printf '%s\n' "$all" | sed -n 5p)
curl -sN -m 4 -H "Last-Event-ID: $k" "$url_a/api/v1/events?follow=1" \
    >"$tmp/resume"
curl -sN -m 3 "$url_a/api/v1/events?follow=1&after=$k" >"$tmp/after"
ids=$(sse_ids "$tmp/resume")
want=$(list_ids "$k" "$(printf '%s\n' "$ids" | wc -l)")
check_ge "resumed events" "$(printf '%s\n' "$ids" | wc -l)" $((n - 5))
check "Last-Event-ID: exactly the events after it" "$ids" "$want"
ids=$(sse_ids "$tmp/after")
want=$(list_ids "$k" "$(printf '%s\n' "$ids" | wc -l)")
check "after=: exactly the events after it" "$ids" "$want"

# The live stream: every event of its span, in order, once.
ids=$(sse_ids "$tmp/live")
lo=$(printf '%s\n' "$ids" | head -1)
want=$(list_ids $((lo - 1)) "$(printf '%s\n' "$ids" | wc -l)")
check "live stream: the listed events of its span" "$ids" "$want"

# ---- 4. refused parameters ----------------------------------------------
# code URL [HEADER]: "STATUS FIELD" of the answer.
code() {
    curl -s -m 5 -o "$tmp/err" -w '%{http_code}' ${2:+-H "$2"} "$1"
    printf ' %s\n' "$($py -c 'import json,sys
print(json.load(open(sys.argv[1]))["error"].get("field"))' "$tmp/err" 2>/dev/null)"
}
check "after=abc" "$(code "$url_a/api/v1/events?after=abc")" "400 after"
case $(code "$url_a/api/v1/events?after=-1") in
"400 after" | "422 after") pass ;;
*) fail "after=-1" "$(cat "$tmp/err")" ;;
esac
check "limit=0" "$(code "$url_a/api/v1/events?limit=0")" "422 limit"
check "limit=1001" "$(code "$url_a/api/v1/events?limit=1001")" "422 limit"
check "follow=maybe" "$(code "$url_a/api/v1/events?follow=maybe")" "400 follow"
check "Last-Event-ID: abc" \
    "$(code "$url_a/api/v1/events?follow=1" "Last-Event-ID: abc")" \
    "400 Last-Event-ID"

# ---- 5. metrics --------------------------------------------------------
"$bin" --db "$db" run start slowpoke >/dev/null 2>"$tmp/cli.err" ||
    fail "cli run start" "$(cat "$tmp/cli.err")"
curl -s -D "$tmp/m.h" "$url_a/metrics" >"$tmp/m1"
check "metrics content type" \
    "$(tr -d '\r' <"$tmp/m.h" | grep -i '^content-type:' | cut -d' ' -f2-)" \
    "text/plain; version=0.0.4; charset=utf-8"
check "metrics parse" "$(metrics_check "$tmp/m1")" ""
done1=$(metric "$tmp/m1" 'sked_runs_total{workflow="x",status="completed"}')
check_ge "runs completed counted" "$done1" 1
deadline=$((SECONDS + 20))
while :; do
    curl -s "$url_a/metrics" >"$tmp/m2"
    done2=$(metric "$tmp/m2" 'sked_runs_total{workflow="x",status="completed"}')
    depth=$(metric "$tmp/m2" 'sked_queue_depth{queue="parked"}')
    soft=$(metric "$tmp/m2" 'sked_run_timeouts_total{workflow="slowpoke"}')
    [ "$done2" -gt "$done1" ] && [ "$depth" -ge 2 ] && [ "$soft" -ge 1 ] &&
        break
    [ $SECONDS -ge $deadline ] && break
    sleep 0.5
done
check "metrics parse again" "$(metrics_check "$tmp/m2")" ""
check_ge "runs completed grow" "$done2" $((done1 + 1))
check_ge "queue depth of a workflow no server runs" "$depth" 2
check "schedules gauge" "$(metric "$tmp/m2" 'sked_schedules{status="active"}')" 2
check "soft workflow timeout counted" "$soft" 1
long=$(($(metric "$tmp/m2" 'sked_run_duration_seconds_count') -
    $(metric "$tmp/m2" 'sked_run_duration_seconds_bucket{le="1"}')))
check_ge "a run over 1 s in the duration histogram" "$long" 1
check_ge "fire lag observed" \
    "$(metric "$tmp/m2" 'sked_fire_lag_seconds_count')" 1

# ---- 6. stop with a stream open; a missed occurrence after an outage ----
stop_server a TERM
check "server exits" "$stop_rc" 0
check_le "stop with a stream open (ms)" "$stop_ms" 5000
deadline=$((SECONDS + 5))
while kill -0 "$live_pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do
    sleep 0.1
done
if kill -0 "$live_pid" 2>/dev/null; then
    fail "the stream ends with the server" "curl still reading"
else
    pass
fi
# While no server runs, an occurrence passes beyond the on-time grace
# (at least 60 s, SPEC 3.3): with catchup skip it is dropped at restart.
past=$($py -c 'import datetime as d
print((d.datetime.now(d.timezone.utc) - d.timedelta(seconds=150)).strftime("%Y-%m-%dT%H:%M:%SZ"))')
"$bin" --db "$db" schedule create x --name gap --at "$past" --allow-past \
    --catchup skip \
    >/dev/null 2>"$tmp/cli.err" || fail "cli gap" "$(cat "$tmp/cli.err")"
: >"$tmp/a.log"
start_http a --db "$db" --workflows "$wf" --workers 1 ||
    fail "server a again" "$(cat "$tmp/a.log")"
deadline=$((SECONDS + 15))
while :; do
    curl -s "$url_a/metrics" >"$tmp/m3"
    missed=$(metric "$tmp/m3" \
        'sked_schedule_missed_total{schedule="gap",reason="catchup_skip"}')
    [ "$missed" -ge 1 ] || [ $SECONDS -ge $deadline ] && break
    sleep 0.5
done
check "missed after the outage (catchup skip)" "$missed" 1
check "metrics parse after restart" "$(metrics_check "$tmp/m3")" ""
stop_server a TERM

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
