#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One JSON for one thing (SPEC 6, 7): for every CLI command with --json,
# what it prints in direct mode (--db) and in remote mode (--server) is
# what the API answers for the same operation, compared as JSON, with a
# real "sked server" over loopback on the same database (a SQLite file,
# or with "pg" the PostgreSQL database of the fixture):
#   schedule create / get / list / update / pause / resume / trigger /
#   backfill / preview / delete, apply, run start / get / list / cancel,
#   workflow list, events (and --follow, line by line).
# Reads go to the same objects and must be equal as they are; an
# operation that makes something new does it three times, once each
# way, on objects made alike, and only the fields that name the new
# thing (name, id) and its times are left out of the comparison.
# Then a server with workers runs the pending runs, and a finished run,
# the list and the events, with their durations, are compared the same
# way. And every real in all of it is written with the fewest digits
# that read back as the same double (Python's repr is the oracle).
#
# Usage: test_cli_json.sh [sqlite|pg]. Env: SKED_BIN (pg: SKED_TEST_PG_URL).
# Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
mode=${1:-sqlite}
src=${SKED_SOURCE_DIR:-$here/../..}
if [ -f "$src/tests/data/zoneinfo/Europe/Paris" ]; then
    export TZDIR=$src/tests/data/zoneinfo
fi
. "$here/server_lib.sh"
unset SKED_DB SKED_SERVER SKED_TOKEN

cat >"$tmp/reg.yaml" <<'EOF'
workflows:
  report:
    steps:
      - name: one
        sh: 'true'
EOF
mode_db j.db
# No workers: runs stay as they were made while they are compared.
start_http s --db "$db" --workers 0 --workflows "$tmp/reg.yaml" ||
    { echo "FAIL: the server did not start"; exit 1; }
url=$url_s

# The comparer: same FILE... as JSON, but for the top-level KEYS given
# with -x (and with -X, the same keys inside every element of a list
# named by -l); "empty" files must all be empty. Also checks each real.
cat >"$tmp/same.py" <<'EOF'
import json, re, sys
args = sys.argv[1:]
drop, files = set(), []
while args:
    a = args.pop(0)
    if a == "-x":
        drop.add(args.pop(0))
    else:
        files.append(a)
texts = [open(f).read() for f in files]
if all(t.strip() == "" for t in texts):
    print("empty"); sys.exit(0)
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k not in drop}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v
vals = []
for f, t in zip(files, texts):
    try:
        vals.append(strip(json.loads(t)))
    except ValueError as e:
        print("%s: not JSON (%s): %r" % (f, e, t[:200])); sys.exit(1)
for f, v in zip(files[1:], vals[1:]):
    if v != vals[0]:
        print("%s differs from %s:\n  %s\n  %s" % (f, files[0],
              json.dumps(vals[0], sort_keys=True)[:1500],
              json.dumps(v, sort_keys=True)[:1500]))
        sys.exit(1)
# Every real: the digits of Python's repr, the shortest that read back.
def digits(s):
    """The significant digits of a number's text."""
    m = s.lstrip("-").lower().split("e")[0].replace(".", "")
    return m.strip("0") or "0"
num = re.compile(r'(?<![\w."])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w"])')
for f, t in zip(files, texts):
    for tok in num.findall(re.sub(r'"(?:[^"\\]|\\.)*"', '""', t)):
        if not re.search(r'[.eE]', tok):
            continue
        want = repr(float(tok))
        if digits(tok) != digits(want):
            print("%s: %s is not the shortest (%s)" % (f, tok, want)); sys.exit(1)
print("same")
EOF

# api NAME METHOD PATH [BODY] [KEY]: the API's answer body into $tmp/NAME.api
api() {
    "$py" - "$url$3" "$2" "${4:-}" "${5:-}" >"$tmp/$1.api" <<'EOF'
import sys, urllib.request, urllib.error
url, method, body, key = sys.argv[1:5]
req = urllib.request.Request(url, method=method,
                             data=body.encode() if body else None)
req.add_header("Content-Type", "application/json")
if key:
    req.add_header("Idempotency-Key", key)
try:
    with urllib.request.urlopen(req) as r:
        sys.stdout.write(r.read().decode())
except urllib.error.HTTPError as e:
    sys.stdout.write(e.read().decode())
EOF
}

# cli NAME MODE ARGS...: "sked ARGS --json" in MODE (db or server) into
# $tmp/NAME.MODE
cli() {
    local n=$1 m=$2
    shift 2
    if [ "$m" = db ]; then
        "$bin" "$@" --json --db "$db" >"$tmp/$n.$m" 2>"$tmp/$n.$m.err"
    else
        "$bin" "$@" --json --server "$url" >"$tmp/$n.$m" 2>"$tmp/$n.$m.err"
    fi
    [ $? -eq 0 ] || { fail "$n.$m" "exit $?: $(cat "$tmp/$n.$m.err")"; }
}

# same NAME [-x KEY]...: the three of NAME are one JSON.
same() {
    local n=$1 out
    shift
    out=$("$py" "$tmp/same.py" "$@" "$tmp/$n.api" "$tmp/$n.db" \
        "$tmp/$n.server" 2>&1)
    case $out in
    same | empty) pass ;;
    *) fail "$n" "$out" ;;
    esac
}

new=(-x name -x id -x run_id -x created_at -x updated_at)

# ---- schedules -------------------------------------------------------------
body='{"name":"sa","workflow":"report","cron":"0 3 1 1 *","timezone":"Europe/Paris","jitter_secs":5,"catchup_window_secs":300,"description":"x"}'
api create POST /api/v1/schedules "$body"
cli create db schedule create report "0 3 1 1 *" --name sd \
    --timezone Europe/Paris --jitter 5s --catchup-window 300 --description x
cli create server schedule create report "0 3 1 1 *" --name ss \
    --timezone Europe/Paris --jitter 5s --catchup-window 300 --description x
same create "${new[@]}"
check "create jitter_secs" "$(grep -o '"jitter_secs": *[^,]*' "$tmp/create.db" | tr -d ' ')" '"jitter_secs":5'

for m in db server; do cli get $m schedule get sd; done
api get GET /api/v1/schedules/sd
same get

for m in db server; do cli list $m schedule list --limit 2; done
api list GET '/api/v1/schedules?limit=2'
same list
for m in db server; do cli list2 $m schedule list --limit 2 --cursor sd; done
api list2 GET '/api/v1/schedules?limit=2&cursor=sd'
same list2

for m in db server; do cli update $m schedule update sd --description "y z"; done
api update PATCH /api/v1/schedules/sd '{"description":"y z"}'
same update -x updated_at

for op in pause resume; do
    for m in db server; do cli $op $m schedule $op sd; done
    api $op POST /api/v1/schedules/sd/$op
    same $op -x updated_at
done

for m in db server; do cli trigger $m schedule trigger sd; done
api trigger POST /api/v1/schedules/sd/trigger
same trigger -x run_id
check "trigger ids" "$(cat "$tmp"/trigger.{api,db,server} | grep -o 'sched-sd-[^"]*' | sort -u | wc -l)" 3

range=(--start 2020-01-01T00:00:00Z --end 2023-01-01T00:00:00Z)
cli backfill db schedule backfill sd "${range[@]}"
cli backfill server schedule backfill ss "${range[@]}"
api backfill POST /api/v1/schedules/sa/backfill \
    '{"start":"2020-01-01T00:00:00Z","end":"2023-01-01T00:00:00Z"}'
same backfill
check "backfill created" "$(tr -d ' \n' <"$tmp/backfill.api")" '{"created":3,"skipped":0}'

for m in db server; do
    cli preview $m schedule preview sd -n 3 --after 2026-01-01T00:00:00Z
done
api preview GET '/api/v1/schedules/sd/occurrences?n=3&after=2026-01-01T00:00:00Z'
same preview

cat >"$tmp/apply.yaml" <<'EOF'
workflows:
  report:
    steps:
      - name: one
        sh: 'true'
    schedules:
      - name: p1
        cron: "0 4 1 1 *"
      - name: p2
        every: 1h
EOF
abody='{"schedules":[{"name":"p1","workflow":"report","cron":"0 4 1 1 *"},{"name":"p2","workflow":"report","every_secs":3600}]}'
unapply() { "$bin" schedule delete p1 --db "$db" && "$bin" schedule delete p2 --db "$db"; } >/dev/null
"$bin" apply "$tmp/apply.yaml" --json --db "$db" >"$tmp/apply.db" || fail apply.db "exit $?"
unapply
"$bin" apply "$tmp/apply.yaml" --json --server "$url" >"$tmp/apply.server" || fail apply.server "exit $?"
unapply
api apply PUT /api/v1/schedules "$abody"
same apply

for m in db server; do cli delete $m schedule delete ss; done
api delete DELETE /api/v1/schedules/ss
same delete

# ---- runs, workflows, events ------------------------------------------------
cli start db run start report --input '{"n":0.1,"m":0.004439}' --idempotency-key kd
cli start server run start report --input '{"n":0.1,"m":0.004439}' --idempotency-key ks
api start POST /api/v1/workflows/report/runs '{"n":0.1,"m":0.004439}' ka
same start "${new[@]}" -x not_before
id=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$tmp/start.db")
ids=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$tmp/start.server")
ida=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$tmp/start.api")
# The same key again: the run it made, as the API answers it.
cli again db run start report --input '{"n":0.1,"m":0.004439}' --idempotency-key ka
cli again server run start report --input '{"n":0.1,"m":0.004439}' --idempotency-key ka
api again POST /api/v1/workflows/report/runs '{"n":0.1,"m":0.004439}' ka
same again

for m in db server; do cli rget $m run get "$id"; done
api rget GET "/api/v1/runs/$id"
same rget

for m in db server; do cli rlist $m run list --limit 2; done
api rlist GET '/api/v1/runs?limit=2'
same rlist

cli cancel db run cancel "$id"
cli cancel server run cancel "$ids"
api cancel POST "/api/v1/runs/$ida/cancel"
same cancel "${new[@]}" -x not_before -x cancel_requested_at -x finished_at
check "cancel status" "$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' "$tmp/cancel.db")" cancelled

for m in db server; do cli wf $m workflow list; done
api wf GET /api/v1/workflows
same wf

for m in db server; do cli events $m events --after 0 --limit 5; done
api events GET '/api/v1/events?after=0&limit=5'
same events

stop_server s TERM
check stop "$stop_rc" 0

# ---- executed runs: durations ---------------------------------------------
# A server with workers runs what is pending (the triggers and backfills
# above); then a finished run, the list and the events, with their
# duration_secs, are compared the same way.
start_http w --db "$db" --workers 2 --workflows "$tmp/reg.yaml" ||
    { echo "FAIL: the second server did not start"; exit 1; }
url=$url_w
for _ in $(seq 100); do
    [ "$(q "$db" "SELECT count(*) FROM runs WHERE status IN ('pending', 'running')")" = 0 ] && break
    sleep 0.2
done
check "every run finished" \
    "$(q "$db" "SELECT count(*) FROM runs WHERE status IN ('pending', 'running')")" 0
run_id=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_id"])' "$tmp/trigger.db")
for m in db server; do cli done $m run get "$run_id"; done
api done GET "/api/v1/runs/$run_id"
same done
check "a finished run has a duration" \
    "$("$py" -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["status"], type(r["duration_secs"]).__name__, type(r["steps"][0]["duration_secs"]).__name__)' "$tmp/done.api")" \
    "completed float float"
for m in db server; do cli dlist $m run list --status completed; done
api dlist GET '/api/v1/runs?status=completed'
same dlist
last=$(q "$db" "SELECT max(id) FROM events")
for m in db server; do cli devents $m events --after $((last - 40)) --limit 40; done
api devents GET "/api/v1/events?after=$((last - 40))&limit=40"
same devents
check "the events hold durations" \
    "$(grep -c '"duration_secs"' "$tmp/devents.api" | sed 's/^[1-9][0-9]*$/some/')" some
# --follow: each event object on its line, as the stream carries it.
for m in db server; do
    if [ $m = db ]; then where=(--db "$db"); else where=(--server "$url"); fi
    # SIGINT to the CLI alone (--foreground): timeout's default, to the
    # whole group, also reaches LeakSanitizer's tracer while it checks
    # the exiting CLI, and the check then never ends.
    timeout --foreground -k 10 -s INT 3 "$bin" events --follow --json --after $((last - 40)) \
        "${where[@]}" >"$tmp/follow.$m" 2>"$tmp/follow.$m.err"
    out=$("$py" - "$tmp/devents.api" "$tmp/follow.$m" <<'EOF'
import json, sys
page = json.load(open(sys.argv[1]))["events"]
lines = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
print("same" if lines[:len(page)] == page and len(page) > 0 else
      "%d lines, %d in the page; first differing: %s" % (len(lines), len(page),
      next((json.dumps(a) for a, b in zip(lines, page) if a != b), "-")))
EOF
)
    check "events --follow --json, $m" "$out" same
done

stop_server w TERM
check stop "$stop_rc" 0

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
