#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# "sked schedule ..." in direct mode on a SQLite file, run as a user would:
# SPEC 7's example and the JSON of SPEC 6, list filters and pages, pause,
# resume, idempotent delete, preview marks across DST, exit codes, --db
# before and after the command. Bad input: every field's invalid values
# give exit 1 or 2 and one line naming the field, and the database is
# unchanged (dumped with sqlite3 before and after).
#
# Env: SKED_BIN, SKED_SOURCE_DIR. Ends with "N passed, M failed".
set -u

. "$(dirname "$0")/cli_lib.sh"
db=$tmp/s.db
export SKED_DB=sqlite:$db

# ok NAME ARGS...: exit 0 and no stderr.
ok() {
    name=$1
    shift
    run "$@"
    if [ "$rc" -ne 0 ]; then
        fail "exit $rc, want 0"
    elif [ -s "$tmp/err" ]; then
        fail "unexpected stderr"
    else
        pass
    fi
}

# out NAME EXPECTED ARGS...: exit 0 and exactly that stdout.
out() {
    name=$1 want=$2
    shift 2
    run "$@"
    if [ "$rc" -ne 0 ]; then
        fail "exit $rc, want 0"
    elif [ "$(cat "$tmp/out")" != "$want" ]; then
        fail "stdout differs; want:
$want"
    else
        pass
    fi
}

# err NAME EXIT PART ARGS...: that exit, no stdout, one line on stderr
# containing PART.
err() {
    name=$1 want_rc=$2 want=$3
    shift 3
    run "$@"
    if [ "$rc" -ne "$want_rc" ]; then
        fail "exit $rc, want $want_rc"
    elif [ -s "$tmp/out" ]; then
        fail "unexpected stdout"
    elif [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
        fail "want exactly one line on stderr"
    elif [[ "$(cat "$tmp/err")" != *"$want"* ]]; then
        fail "stderr lacks: $want"
    else
        pass
    fi
}

# pycheck NAME SCRIPT: run SCRIPT with the last stdout parsed as JSON in
# "j"; it fails the test by raising.
pycheck() {
    name=$1
    if "$py" -c "import json,sys
j = json.load(open(sys.argv[1]))
$2" "$tmp/out" 2>"$tmp/pyerr"; then
        pass
    else
        fail "JSON check: $(tail -1 "$tmp/pyerr")"
    fi
}

dump() { sqlite3 "$db" .dump; }

# ---- SPEC 7's example, and SPEC 6's fields ---------------------------------

ok "create: SPEC 7 example" schedule create morning-report "0 9 * * *" \
    --timezone Europe/Paris --catchup all --catchup-max 5 \
    --catchup-window 259200 --overlap skip
name="create says what it made"
grep -q '^created schedule morning-report (active); next: ' "$tmp/out" &&
    pass || fail "want 'created schedule morning-report ...'"

ok "get --json" schedule get morning-report --json
pycheck "get --json: every field of SPEC 6" '
want = {"name": "morning-report", "workflow": "morning-report",
        "cron": "0 9 * * *", "every_secs": None, "at": None,
        "anchor": None, "timezone": "Europe/Paris", "dst": "once",
        "context": {}, "catchup": "all", "catchup_max": 5,
        "catchup_window_secs": 259200, "overlap": "skip", "priority": 0,
        "queue": None, "jitter_secs": 0, "paused": False,
        "automatic_backfill": False, "start_at": None, "end_at": None,
        "max_runs": 0, "pause_after_failures": 0, "description": None,
        "status": "active", "source": "api", "last_fired_at": None,
        "last_error": None}
for k, v in want.items():
    assert k in j, "missing " + k
    assert j[k] == v, "%s: %r, want %r" % (k, j[k], v)
import re
# 09:00 in Paris is 08:00Z in winter, 07:00Z in summer.
assert re.fullmatch(r"\d{4}-\d\d-\d\dT0[78]:00:00Z", j["next_fire_at"]), j["next_fire_at"]
for k in ("created_at", "updated_at"):
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", j[k]), k
'

ok "get: human" schedule get morning-report
name="get: human shows the fields and the words"
grep -q '^catchup_max  *5$' "$tmp/out" &&
    grep -q '^explain  *At 09:00 (Europe/Paris)$' "$tmp/out" &&
    grep -qE '^next_fire_local  *[0-9-]+T09:00:00\+0[12]:00$' "$tmp/out" &&
    pass || fail "want catchup_max, explain and next_fire_local lines"

# ---- exit codes ----------------------------------------------------------

err "create: the name exists" 4 'schedule "morning-report"' \
    schedule create morning-report "0 10 * * *"
err "get: not found" 3 'schedule "nope" not found' schedule get nope
err "update: not found" 3 'schedule "nope" not found' \
    schedule update nope --priority 1
err "pause: not found" 3 'not found' schedule pause nope
err "resume: not found" 3 'not found' schedule resume nope
err "preview: not found" 3 'not found' schedule preview nope
err "get: no name" 2 "missing the schedule name" schedule get
err "create: no workflow" 2 "missing the workflow" schedule create
err "create: no time spec" 2 "missing the cron expression" \
    schedule create wf
err "create: unquoted expression" 2 "too many arguments" \
    schedule create wf 0 9 '*' '*' '*'
err "schedule: unknown command" 2 'unknown command "frob"' schedule frob

# ---- --db before and after the command, and $SKED_DB -----------------------

other=$tmp/other.db
ok "--db before the command" --db "sqlite:$other" schedule create a1 --every 1h
ok "--db= after the command" schedule get a1 --db="sqlite:$other"
err "the default database lacks it" 3 "not found" schedule get a1
SKED_DB=sqlite:$other run schedule get a1
name="SKED_DB names the database"
[ "$rc" -eq 0 ] && pass || fail "exit $rc"
err "--db needs a value" 2 "option --db needs a value" --db

# ---- list: filters and pages -----------------------------------------------

for s in alpha-1 alpha-2 alpha-3 beta-1; do
    ok "create $s" schedule create "${s%-*}" --every 1h --name "$s"
done
run schedule list
name="list: one row per schedule, by name"
want='NAME            STATUS
alpha-1         active
alpha-2         active
alpha-3         active
beta-1          active
morning-report  active'
[ "$rc" -eq 0 ] && [ "$(cut -c1-22 "$tmp/out" | sed 's/ *$//')" = "$want" ] &&
    pass || fail "want the names and statuses in order"
run schedule list
name="list: columns"
head -1 "$tmp/out" | grep -qE '^NAME +STATUS +SCHEDULE +TIMEZONE +NEXT FIRE +LAST FIRED$' &&
    grep -qE '^morning-report +active +0 9 \* \* \* +Europe/Paris +[0-9-]+T09:00:00\+0[12]:00 +-$' "$tmp/out" &&
    grep -qE '^alpha-1 +active +every 1h +UTC ' "$tmp/out" &&
    pass || fail "want the columns of the table"

ok "list --workflow" schedule list --workflow alpha --json
pycheck "list --workflow: only alpha" '
assert [s["name"] for s in j["schedules"]] == ["alpha-1", "alpha-2", "alpha-3"], j
assert j["next_cursor"] is None'
ok "list --prefix" schedule list --prefix alpha-2 --json
pycheck "list --prefix: only alpha-2" '
assert [s["name"] for s in j["schedules"]] == ["alpha-2"]'
ok "list --limit 2" schedule list --limit 2 --json
pycheck "list page 1" '
assert [s["name"] for s in j["schedules"]] == ["alpha-1", "alpha-2"]
assert j["next_cursor"] == "alpha-2"'
ok "list --cursor" schedule list --limit 2 --cursor alpha-2 --json
pycheck "list page 2" '
assert [s["name"] for s in j["schedules"]] == ["alpha-3", "beta-1"]
assert j["next_cursor"] == "beta-1"'
ok "list --cursor last" schedule list --limit 2 --cursor beta-1 --json
pycheck "list page 3, the last" '
assert [s["name"] for s in j["schedules"]] == ["morning-report"]
assert j["next_cursor"] is None'
run schedule list --limit 2
name="list: a human page says where the next starts"
[ "$rc" -eq 0 ] && grep -q -- '--cursor alpha-2' "$tmp/err" &&
    [ "$(wc -l <"$tmp/out")" -eq 3 ] && pass || fail "want 2 rows and a cursor"

# ---- pause, resume, delete ---------------------------------------------------

ok "pause" schedule pause alpha-1
ok "list --status paused" schedule list --status paused --json
pycheck "only alpha-1 is paused" '
assert [s["name"] for s in j["schedules"]] == ["alpha-1"]
assert j["schedules"][0]["paused"] is True
assert j["schedules"][0]["status"] == "paused"'
ok "resume --json" schedule resume alpha-1 --json
pycheck "resumed: active, with a next occurrence" '
assert j["status"] == "active" and j["paused"] is False
assert j["next_fire_at"] is not None'
ok "delete" schedule delete alpha-3
err "deleted: gone" 3 "not found" schedule get alpha-3
run schedule delete alpha-3
name="delete again: exit 0 with a note"
[ "$rc" -eq 0 ] && [ ! -s "$tmp/out" ] &&
    grep -q 'does not exist; nothing to delete' "$tmp/err" &&
    pass || fail "want exit 0 and a note on stderr"
run schedule delete alpha-3 --json
name="delete --json: nothing on stdout, as the API's 204"
[ "$rc" -eq 0 ] && [ ! -s "$tmp/out" ] &&
    grep -q 'does not exist; nothing to delete' "$tmp/err" &&
    pass || fail "want exit 0, no output and a note on stderr"

# ---- update ------------------------------------------------------------------

ok "update" schedule update morning-report --priority 3 --jitter 5m \
    --description "daily report" --json
pycheck "update changed only what was given" '
assert j["priority"] == 3 and j["jitter_secs"] == 300
assert j["description"] == "daily report"
assert j["catchup"] == "all" and j["catchup_max"] == 5 and j["overlap"] == "skip"
assert j["cron"] == "0 9 * * *" and j["timezone"] == "Europe/Paris"'
ok "update: an every schedule" schedule create iv --every 6h \
    --anchor 2026-01-01T00:00:00Z
ok "update: a new interval keeps the anchor" schedule update iv --every 2h \
    --json
pycheck "interval 2h, anchor kept" '
assert j["every_secs"] == 7200 and j["anchor"] == "2026-01-01T00:00:00Z", j'
ok "an interval without an anchor" schedule create iv2 --every 90s --json
pycheck "the default anchor is the creation time in whole seconds" '
import re
assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", j["anchor"]), j["anchor"]
assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", j["next_fire_at"]), j'
ok "update: back to cron" schedule update iv --cron "*/5 * * * *" --json
pycheck "cron now, no interval left" '
assert j["cron"] == "*/5 * * * *" and j["every_secs"] is None
assert j["anchor"] is None'
ok "update: clear the description" schedule update morning-report \
    --description "" --json
pycheck "description cleared" 'assert j["description"] is None'

# ---- preview -----------------------------------------------------------------

ok "create a DST example" schedule create dst "30 2 * * *" \
    --timezone Europe/Paris
out "preview: spring forward is shifted" \
    "2025-03-30T01:00:00Z  2025-03-30T03:00:00+02:00  shifted
2025-03-31T00:30:00Z  2025-03-31T02:30:00+02:00" \
    schedule preview dst --after 2025-03-29T12:00:00Z -n 2
out "preview: fall back fires on the first pass" \
    "2025-10-26T00:30:00Z  2025-10-26T02:30:00+02:00  first_pass
2025-10-27T01:30:00Z  2025-10-27T02:30:00+01:00" \
    schedule preview dst --after 2025-10-25T12:00:00Z -n 2
ok "preview --json" schedule preview dst --after 2025-03-29T12:00:00Z \
    -n 3 --json
pycheck "preview JSON" '
assert list(j) == ["occurrences"], j
o = j["occurrences"]
assert [x["at"] for x in o] == ["2025-03-30T01:00:00Z", "2025-03-31T00:30:00Z", "2025-04-01T00:30:00Z"], o
assert [x["mark"] for x in o] == ["shifted", None, None], o
assert o[0]["local"] == "2025-03-30T03:00:00+02:00"'
ok "create bounded" schedule create bounded --every 1h \
    --anchor 2030-01-01T00:00:00Z --end-at 2030-01-01T03:00:00Z
out "preview stops at end_at" "2030-01-01T01:00:00Z  2030-01-01T01:00:00+00:00
2030-01-01T02:00:00Z  2030-01-01T02:00:00+00:00
2030-01-01T03:00:00Z  2030-01-01T03:00:00+00:00" \
    schedule preview bounded --after 2030-01-01T00:00:00Z -n 10
ok "create one in the past" schedule create past --at 2020-01-01T00:00:00Z
run schedule preview past
name="preview of a schedule that never fires again"
[ "$rc" -eq 0 ] && [ ! -s "$tmp/out" ] &&
    grep -q 'never fires again' "$tmp/err" && pass ||
    fail "want no occurrence and a note"
err "preview: bad -n" 2 "invalid -n" schedule preview dst -n 0
err "preview: bad --after" 1 "invalid --after" schedule preview dst \
    --after yesterday

# ---- bad input: one line naming the field, nothing written -------------------

before=$(dump)
bad() {
    local want_rc=$1 part=$2
    shift 2
    run "$@"
    name="bad input: $*"
    if [ "$rc" -ne 1 ] && [ "$rc" -ne 2 ]; then
        fail "exit $rc, want 1 or 2"
    elif [ -n "$want_rc" ] && [ "$rc" -ne "$want_rc" ]; then
        fail "exit $rc, want $want_rc"
    elif [ -s "$tmp/out" ] || [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
        fail "want no stdout and one line on stderr"
    elif [[ "$(cat "$tmp/err")" != *"$part"* ]]; then
        fail "stderr lacks: $part"
    else
        pass
    fi
}
c=(schedule create wf "0 9 * * *")
bad 1 "cron: " schedule create wf "0 9 * *"
bad 1 "cron: " schedule create wf "61 * * * *"
bad 1 "cron: " schedule create wf "0 0 30 2 *"
bad 1 'timezone: unknown time zone "Europe/Pariss"' "${c[@]}" \
    --timezone Europe/Pariss
bad 1 "timezone" "${c[@]}" --timezone ../etc/passwd
bad 1 "catchup_max: must be between 1 and 1000" "${c[@]}" --catchup-max 0
bad 1 "catchup_max: must be between 1 and 1000" "${c[@]}" --catchup-max 1001
bad 1 "catchup_max" "${c[@]}" --catchup-max five
bad 1 "catchup_window: must be between 60 and 2592000" "${c[@]}" \
    --catchup-window 59
bad 1 "catchup_window: must be between 60 and 2592000" "${c[@]}" \
    --catchup-window 30d1s
bad 1 "catchup_window" "${c[@]}" --catchup-window 1y
bad 1 "jitter: must be between 0 and 3600" "${c[@]}" --jitter 1h1s
bad 1 "jitter" "${c[@]}" --jitter -5s
bad 1 "every: must be between 1 and 31622400" schedule create wf --every 0
bad 1 "every: must be between 1 and 31622400" schedule create wf --every 367d
bad 1 "every" schedule create wf --every "5 minutes"
bad 2 "give only one of" schedule create wf --every 5 minutes
bad 1 "--at" schedule create wf --at 2026-12-01T09:00:00
bad 1 "--at" schedule create wf --at tomorrow
bad 1 "--anchor" schedule create wf --every 1h --anchor 2026-13-01T00:00:00Z
bad 2 "--anchor needs --every" "${c[@]}" --anchor 2026-01-01T00:00:00Z
bad 1 "--start-at" "${c[@]}" --start-at 2026-12-01
bad 1 "end_at: must be after start_at" "${c[@]}" \
    --start-at 2027-01-01T00:00:00Z --end-at 2026-01-01T00:00:00Z
bad 1 'catchup: "most" is not one of' "${c[@]}" --catchup most
bad 1 'overlap: "never" is not one of' "${c[@]}" --overlap never
bad 1 "dst" "${c[@]}" --dst twice
bad 1 "context: not JSON" "${c[@]}" --context '{bad'
bad 1 "context: must be a JSON object" "${c[@]}" --context '[1,2]'
bad 1 "context" "${c[@]}" --context ''
bad 1 "priority: expected a whole number" "${c[@]}" --priority high
bad 1 "priority: out of range" "${c[@]}" --priority 99999999999
bad 1 "max_runs: must be 0 (no limit) or more" "${c[@]}" --max-runs -1
bad 1 "pause_after_failures: must be 0 (never) or more" "${c[@]}" \
    --pause-after-failures -2
bad 1 "name:" "${c[@]}" --name "bad name"
bad 1 "name:" "${c[@]}" --name "$(printf 'a%.0s' {1..129})"
bad 1 "name:" "${c[@]}" --name ""
bad 1 "workflow:" schedule create "no/slash" "0 9 * * *"
bad 1 "queue:" "${c[@]}" --queue "a b"
bad 1 "description:" "${c[@]}" --description "$(printf 'd%.0s' {1..1025})"
bad 2 'unknown option "--bogus"' "${c[@]}" --bogus
bad 2 "needs a value" "${c[@]}" --timezone
bad 2 "give only one of" "${c[@]}" --every 1h
bad 2 "give only one of" schedule create wf --every 1h --at 2026-12-01T09:00:00Z
bad 2 "takes no value" "${c[@]}" --paused=yes
bad 1 'catchup_max' schedule update morning-report --catchup-max 0
bad 1 'timezone' schedule update morning-report --timezone Mars/Olympus
bad 1 'cron' schedule update morning-report --cron "* * *"
bad 1 'end_at' schedule update bounded --start-at 2030-02-01T00:00:00Z
bad 1 '--status' schedule list --status sleeping
bad 2 '--limit' schedule list --limit 0
bad 2 '--limit' schedule list --limit 1001
name="bad input: the database is unchanged"
if [ "$(dump)" = "$before" ]; then
    pass
else
    fail "the dump differs"
    diff <(echo "$before") <(dump) | head -20
fi

name="bad input: no database is created"
run --db "sqlite:$tmp/never.db" schedule create wf "0 9 * *"
[ ! -e "$tmp/never.db" ] && pass || fail "never.db exists"

finish
