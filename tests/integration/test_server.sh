#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One "sked server" on a SQLite file, as a person runs it:
#  - with --tick 1s and a workflows file holding a schedule that fires
#    every second, it fires on time: consecutive occurrences, each run
#    created less than a second after its occurrence, one log line each;
#  - SIGHUP with a broken workflows file keeps serving the last good
#    definitions and logs FILE:LINE:COLUMN; SIGHUP with a good file syncs
#    it (a new schedule appears, a removed one goes);
#  - SIGTERM stops it within 5 s with exit 0; so does SIGINT;
#  - logs are logfmt by default and JSON lines with --log-format json;
#  - bad flags exit 2 and a broken workflows file at start exits 1 with
#    FILE:LINE:COLUMN, before any schedule is written.
#
# Env: SKED_BIN. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/server_lib.sh"
db=sqlite:$tmp/s.db
wf=$tmp/wf.yaml

cat >"$wf" <<'EOF'
schedules:
  - name: every-second
    workflow: noop
    cron: "*/1 * * * * *"
EOF

# ---- fires on time ---------------------------------------------------------
start_server a --db "$db" --tick 1s --workflows "$wf"
if ! wait_log a 'msg="server started"' 15; then
    fail "start" "no 'server started' line: $(head -c 1500 "$tmp/a.log")"
fi
wait_log a 'msg="run created"' 10 || fail "fire" "no run created"
t0=$(now_us)
sleep 4
rows=$(q "$db" "SELECT count(*), min(scheduled_for), max(scheduled_for),
                       max(created_at - scheduled_for),
                       sum(trigger_kind = 'cron')
                FROM runs WHERE schedule = 'every-second'")
IFS='|' read -r n lo hi maxlag ncron <<<"$rows"
check_ge "runs in 4 s" "$n" 4
# Consecutive: as many runs as seconds from the first to the last.
check "no gap between occurrences" "$n" "$(((hi - lo) / 1000000 + 1))"
check "all on time (trigger cron)" "$ncron" "$n"
check_le "lag of the slowest run (us)" "$maxlag" 1000000
nlines=$(grep -c 'msg="run created"' "$tmp/a.log")
check_ge "one log line per run" "$nlines" "$((n - 1))"
bad=$(grep -Evc '^time=[0-9T:.-]+Z level=(debug|info|warn|error) msg=' \
    "$tmp/a.log")
check "every line is logfmt" "$bad" 0

# ---- SIGHUP with a broken file keeps the last good definitions --------------
cp "$wf" "$tmp/good.yaml"
cat >"$wf" <<'EOF'
schedules:
  - name: every-second
    workflow: noop
    cron: "*/1 * * * * *"
    colour: blue
EOF
kill -HUP "$pid_a"
if wait_log a "wf\.yaml:5:5: schedules\[0\]\.colour" 10; then
    pass
else
    fail "SIGHUP broken file" "no FILE:LINE:COL line: $(tail -n 5 "$tmp/a.log")"
fi
grep -q 'level=error msg="workflows file refused"' "$tmp/a.log" ||
    fail "SIGHUP broken file" "not logged at error"
before=$(q "$db" "SELECT count(*) FROM runs WHERE schedule = 'every-second'")
sleep 2.5
after=$(q "$db" "SELECT count(*) FROM runs WHERE schedule = 'every-second'")
check_ge "still firing after a broken SIGHUP" "$after" "$((before + 2))"
kill -0 "$pid_a" 2>/dev/null && pass || fail "alive" "server exited"

# ---- SIGHUP with a good file syncs it -------------------------------------
cat >"$wf" <<'EOF'
schedules:
  - name: every-two
    workflow: noop
    every: 2s
EOF
kill -HUP "$pid_a"
wait_log a 'msg="workflows file loaded".*on=SIGHUP' 10 ||
    fail "SIGHUP good file" "not loaded: $(tail -n 5 "$tmp/a.log")"
check "synced: schedules" \
    "$(q "$db" "SELECT group_concat(name) FROM schedules")" "every-two"
sleep 3
n2=$(q "$db" "SELECT count(*) FROM runs WHERE schedule = 'every-two'")
check_ge "the new schedule fires" "$n2" 1

# ---- SIGTERM: a clean stop within 5 s ---------------------------------------
stop_server a TERM
check "SIGTERM exit status" "$stop_rc" 0
check_le "SIGTERM stop time (ms)" "$stop_ms" 5000
grep -q 'msg="server stopped"' "$tmp/a.log" && pass ||
    fail "SIGTERM" "no 'server stopped' line"

# ---- JSON lines, SIGINT ----------------------------------------------------
cp "$tmp/good.yaml" "$wf"
start_server j --db "$db" --tick 1s --workflows "$wf" --log-format json \
    --log-level debug
wait_log j '"msg":"run created"' 15 || fail "json" "no run created line"
stop_server j INT
check "SIGINT exit status" "$stop_rc" 0
check_le "SIGINT stop time (ms)" "$stop_ms" 5000
bad=$(/usr/bin/python3 -c '
import json, sys
bad = 0
for line in open(sys.argv[1]):
    try:
        o = json.loads(line)
        if not all(k in o for k in ("time", "level", "msg")):
            bad += 1
    except ValueError:
        bad += 1
print(bad)' "$tmp/j.log")
check "every line is a JSON object with time, level, msg" "$bad" 0

# ---- bad flags and a broken file at start ----------------------------------
"$bin" server --db "$db" --tick 0s >/dev/null 2>"$tmp/e1"
check "--tick 0s exit" "$?" 2
grep -q -- '--tick' "$tmp/e1" && pass || fail "--tick" "flag not named"
"$bin" server --db "$db" --log-format xml >/dev/null 2>"$tmp/e2"
check "--log-format xml exit" "$?" 2
"$bin" server --db "$db" --log-level loud >/dev/null 2>"$tmp/e3"
check "--log-level loud exit" "$?" 2
printf 'schedules:\n  - name: x\n    workflow: w\n    cron: "61 * * * *"\n' \
    >"$tmp/broken.yaml"
"$bin" server --db "sqlite:$tmp/fresh.db" --workflows "$tmp/broken.yaml" \
    >/dev/null 2>"$tmp/e4"
check "broken file at start exit" "$?" 1
grep -q 'broken\.yaml:4:[0-9]*: schedules\[0\]\.cron' "$tmp/e4" && pass ||
    fail "broken file at start" "no FILE:LINE:COL: $(cat "$tmp/e4")"
if [ -f "$tmp/fresh.db" ]; then
    check "broken file at start: no schedule written" \
        "$(q "sqlite:$tmp/fresh.db" "SELECT count(*) FROM schedules")" 0
fi

printf '%d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
