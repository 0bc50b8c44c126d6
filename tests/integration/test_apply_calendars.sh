#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# "sked apply FILE" writes the file's calendars too, before its
# schedules, as the file's app's code calendars: on a SQLite file
# (direct mode) and through a real "sked server" on loopback (remote
# mode, PUT /api/v1/calendars). One calendar includes another declared
# after it, one has an observed rule; re-applying changes nothing; a
# changed date is an update; --prune deletes a calendar gone from the
# file, but not one another calendar still includes; a bad date or an
# unknown include is refused at its FILE:LINE:COLUMN and nothing is
# written; a name the API owns is not the file's to change; a schedule
# refused after the calendars were written leaves them, with a warning.
#
# Env: SKED_BIN, SKED_SOURCE_DIR. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
src=${SKED_SOURCE_DIR:-$here/../..}
if [ -f "$src/tests/data/zoneinfo/Europe/Paris" ]; then
    export TZDIR=$src/tests/data/zoneinfo
fi
. "$here/server_lib.sh"
unset SKED_DB SKED_SERVER SKED_TOKEN
cd "$tmp" || exit 1

# The file's app is "hol"; office (first) includes us-federal (second),
# whose 4 July 2026 is a Saturday, observed on Friday the 3rd.
cat >hol.yaml <<'EOF'
app: hol
calendars:
  office:
    description: the office's days off
    include: [us-federal]
    dates: [2026-12-24, 2026-12-31]
  us-federal:
    rules: ["FREQ=YEARLY;BYMONTH=7;BYMONTHDAY=4"]
    observed: nearest_weekday
schedules:
  - name: payroll
    workflow: pay
    cron: "0 9 * * 1-5"
EOF

# sk ARGS...: run sked on the target $T (--db or --server) with the
# rest; stdout to $tmp/out, stderr to $tmp/err, the status in rc. SPEC
# 3.5's warning that no server registered workflow "pay" is dropped.
sk() {
    "$bin" "$@" $T >"$tmp/out" 2>"$tmp/err.all"
    rc=$?
    grep -v 'workflow "pay" is not registered' "$tmp/err.all" >"$tmp/err"
}

# applied NAME WANT ARGS...: apply exits 0, prints WANT, nothing on stderr.
applied() {
    local n=$1 want=$2
    shift 2
    sk apply "$@"
    check "$n: exit" "$rc" 0
    check "$n: stdout" "$(cat "$tmp/out")" "$want"
    check "$n: stderr" "$(cat "$tmp/err")" ""
}

# calendars: "name source app" a line, as "sked calendar list" gives.
calendars() {
    sk calendar list --json
    "$py" -c 'import json,sys
for c in json.load(open(sys.argv[1]))["calendars"]:
    print(c["name"], c["source"], c["app"] or "-")' "$tmp/out"
}

# state: every calendar as the API has it, to tell "nothing changed".
state() {
    sk calendar list --json
    cat "$tmp/out"
    sk schedule list --json
    "$py" -c 'import json,sys
for s in json.load(open(sys.argv[1]))["schedules"]:
    print(s["name"], s["updated_at"])' "$tmp/out"
}

# refused NAME CODE WANT FILE: applying FILE exits CODE with exactly the
# line WANT on stderr, nothing on stdout, and changes nothing.
refused() {
    local before
    before=$(state)
    sk apply "$4" ${5:-}
    check "$1: exit" "$rc" "$2"
    check "$1: stderr" "$(cat "$tmp/err")" "$3"
    check "$1: no stdout" "$(cat "$tmp/out")" ""
    check "$1: nothing changed" "$(state)" "$before"
}

scenario() {
    local m=$1
    cp hol.yaml wf.yaml

    applied "$m: apply" "calendars: 2 created, 0 updated, 0 unchanged, 0 deleted
schedules: 1 created, 0 updated, 0 unchanged, 0 deleted" wf.yaml
    sk events
    check "$m: what is included is written first, then the schedules" \
        "$(awk '{print $2, $3}' "$tmp/out")" "calendar.created us-federal
calendar.created office
schedule.created payroll"
    check "$m: the calendars are the app's, source code" "$(calendars)" \
        "office code hol
us-federal code hol"
    sk calendar get office --json
    check "$m: get office" "$("$py" -c 'import json,sys
c = json.load(open(sys.argv[1]))
print(c["source"], c["app"], c["include"], c["dates"], c["description"])' \
        "$tmp/out")" \
        "code hol ['us-federal'] ['2026-12-24', '2026-12-31'] the office's days off"
    sk calendar get us-federal --json
    check "$m: get us-federal" "$("$py" -c 'import json,sys
c = json.load(open(sys.argv[1]))
print(c["observed"], c["rules"])' "$tmp/out")" \
        "nearest_weekday ['FREQ=YEARLY;BYMONTH=7;BYMONTHDAY=4']"
    sk calendar days office --from 2026-07-01 --to 2026-12-31
    check "$m: office has the observed day and its own" "$(cat "$tmp/out")" \
        "2026-07-03
2026-07-04
2026-12-24
2026-12-31"

    local before
    before=$(state)
    applied "$m: apply again" "calendars: 0 created, 0 updated, 2 unchanged, 0 deleted
schedules: 0 created, 0 updated, 1 unchanged, 0 deleted" wf.yaml
    check "$m: apply again writes nothing" "$(state)" "$before"
    applied "$m: --json" '{
  "created": 0,
  "updated": 0,
  "unchanged": 1,
  "deleted": 0,
  "calendars": {
    "created": 0,
    "updated": 0,
    "unchanged": 2,
    "deleted": 0
  }
}' wf.yaml --json

    sed -i 's/2026-12-31/2027-01-01/' wf.yaml
    applied "$m: a changed date" "calendars: 0 created, 1 updated, 1 unchanged, 0 deleted
schedules: 0 created, 0 updated, 1 unchanged, 0 deleted" wf.yaml
    sk calendar get office --json
    check "$m: the new date is there" "$("$py" -c 'import json,sys
print(json.load(open(sys.argv[1]))["dates"])' "$tmp/out")" \
        "['2026-12-24', '2027-01-01']"

    # A bad date: its line and column, the field, nothing written.
    sed 's/2026-12-24/2026-02-30/' wf.yaml >bad-date.yaml
    refused "$m: a bad date" 1 \
        "sked: bad-date.yaml:6:5: calendars.office.dates: dates[0]: 2026-02 has no day 30" \
        bad-date.yaml
    sed 's/include: \[us-federal\]/include: [us-federall]/' wf.yaml \
        >bad-include.yaml
    refused "$m: an unknown include" 3 \
        "sked: bad-include.yaml:3:3: calendars.office.include[0]: unknown calendar 'us-federall'" \
        bad-include.yaml
    sed 's/rules: \["FREQ=YEARLY;BYMONTH=7;BYMONTHDAY=4"\]/include: [office]/' \
        wf.yaml >cycle.yaml
    refused "$m: a cycle of includes" 4 \
        "sked: cycle.yaml:3:3: calendars.office.include[0]: 'us-federal': include[0]: include cycle: office -> us-federal -> office" \
        cycle.yaml

    # A name the API owns is not the file's.
    "$bin" calendar create by-hand --date 2026-05-01 $T >/dev/null 2>&1
    printf 'app: hol\ncalendars:\n  by-hand:\n    dates: [2026-05-02]\n' \
        >api-name.yaml
    refused "$m: a name the API owns" 4 \
        "sked: api-name.yaml:3:3: calendars.by-hand.name: calendar \"by-hand\" exists with source api" \
        api-name.yaml

    # us-federal leaves the file; office, still in it, includes it.
    "$py" - wf.yaml <<'EOF'
import sys
t = open(sys.argv[1]).read()
t = t.replace("    include: [us-federal]\n", "")
t = t.replace('  us-federal:\n    rules: ["FREQ=YEARLY;BYMONTH=7;BYMONTHDAY=4"]\n    observed: nearest_weekday\n', "")
open("small.yaml", "w").write(t)
EOF
    applied "$m: without --prune nothing is deleted" "calendars: 0 created, 1 updated, 0 unchanged, 0 deleted
schedules: 0 created, 0 updated, 1 unchanged, 0 deleted" small.yaml
    check "$m: us-federal stays" "$(calendars)" "by-hand api -
office code hol
us-federal code hol"

    # The API's calendar includes us-federal: --prune cannot delete it.
    "$bin" calendar create api-incl --include us-federal $T >/dev/null 2>&1
    refused "$m: --prune of an included calendar" 4 \
        "sked: cannot apply small.yaml: calendar \"us-federal\" is no longer in the set but cannot be deleted: calendar \"api-incl\" includes it" \
        small.yaml --prune
    "$bin" calendar delete api-incl $T >/dev/null 2>&1
    applied "$m: --prune deletes the calendar gone from the file" "calendars: 0 created, 0 updated, 1 unchanged, 1 deleted
schedules: 0 created, 0 updated, 1 unchanged, 0 deleted" small.yaml --prune
    check "$m: --prune leaves the API's calendar" "$(calendars)" \
        "by-hand api -
office code hol"

    # A file of no calendars prints what it always did; with --prune it
    # deletes the app's last one and says so.
    printf 'app: hol\nschedules:\n  - {name: payroll, workflow: pay, cron: "0 9 * * 1-5"}\n' \
        >none.yaml
    applied "$m: a file without calendars" \
        "0 created, 0 updated, 1 unchanged, 0 deleted" none.yaml
    applied "$m: --prune, no calendars left" "calendars: 0 created, 0 updated, 0 unchanged, 1 deleted
schedules: 0 created, 0 updated, 1 unchanged, 0 deleted" none.yaml --prune
    check "$m: only the API's calendar is left" "$(calendars)" "by-hand api -"

    # The calendars and the schedules are two transactions: a schedule
    # refused after the calendars changed leaves them applied, and says so.
    "$bin" schedule create pay --every 1h --name taken $T >/dev/null 2>&1
    printf 'app: hol\ncalendars:\n  late:\n    dates: [2026-03-01]\nschedules:\n  - {name: taken, workflow: pay, every: 1h}\n' \
        >taken.yaml
    sk apply taken.yaml
    check "$m: a refused schedule: exit" "$rc" 4
    check "$m: a refused schedule: stderr" "$(cat "$tmp/err")" \
        "sked: warning: the file's calendars were applied; its schedules were not
sked: taken.yaml:6:6: schedules[0].name: \"taken\" exists with source api"
    check "$m: a refused schedule: the calendar is there" "$(calendars)" \
        "by-hand api -
late code hol"
    "$bin" schedule delete taken $T >/dev/null 2>&1
    applied "$m: once fixed, the calendar is unchanged" "calendars: 0 created, 0 updated, 1 unchanged, 0 deleted
schedules: 1 created, 0 updated, 0 unchanged, 0 deleted" taken.yaml
}

T="--db sqlite:$tmp/direct.db"
scenario direct

start_http srv --db "sqlite:$tmp/remote.db" --workers 0 ||
    fail "the server listens" "no line"
T="--server $url_srv"
scenario remote
stop_server srv TERM
check "the server stops cleanly" "$stop_rc" 0
check "the remote database holds what the server wrote" \
    "$(q "sqlite:$tmp/remote.db" "SELECT name || ':' || source || ':' || coalesce(app, '-') FROM calendars ORDER BY name")" \
    "by-hand:api:-
late:code:hol"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
